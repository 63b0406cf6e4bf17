/* The index's hot loop in C: validate each JSON line and pull out the few facts the index keeps.
 *
 * Python's per-line overhead (a dict per line, then field lookups) costs more than parsing itself
 * on a million-span run. This scanner walks a buffer of complete lines once, validates every line
 * as JSON (strings, escapes, UTF-8, numbers, nesting), and for the top-level keys the index needs it
 * records values directly into packed columns. Anything it cannot judge exactly as the Python path
 * would (a marker that decides truncation, an odd type, an escaped id, an unknown dialect, bad JSON)
 * is flagged "slow" and the Python path (reader.parse_facts) handles that line. The two paths are
 * compared on the same inputs by tests/unit/test_scan.py.
 *
 * scan(buf, base_offset, first_line[, max_line[, length]]) -> (consumed, lines, offsets, lengths, line_idx, hidden, exits, flags, slow,
 *                            ids, parents, failed, truncated, hidden_sum, last_failed, exit_unknown, marks)
 *
 * marks: one byte per row saying which lint rules may need to read the row (row_marks below,
 * tracetui/model/marks.py); a slow row is marked M_ALL, since only Python reads it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Row flag bits and column values: tracetui/model/flags.py defines them; the module exports these
 * copies (FAILED, TRUNCATED, ...) and tests/unit/test_judgement.py checks that they are equal. */
#define F_FAILED 2
#define F_TRUNCATED 4
#define F_TRUNC_UNKNOWN 8
#define F_NULL_EXIT 16
#define F_EXIT_UNKNOWN 128
/* Row marks (tracetui/model/marks.py defines them; the module exports these copies). */
#define M_SECRET 1
#define M_CONTRACT 2
#define M_TYPES 4
#define M_IMPORTED 8
#define M_NOTE 16
#define M_UNSIZED 32
#define M_ALL 255
#define NO_EXIT INT32_MIN
#define NO_VALUE -1
/* Hidden bytes at or past this are not believed (tracetui/model/truncation.py HIDDEN_LIMIT). Byte
 * counts beyond +-HIDDEN_LIMIT go to Python, so the arithmetic below cannot overflow. */
#define HIDDEN_LIMIT (INT64_C(1) << 53)
#define MAX_DEPTH 256

enum { V_ABSENT = 0, V_NULL, V_INT, V_TRUE, V_FALSE, V_STR, V_OTHER };

typedef struct {
    int kind;
    int64_t num;
    const unsigned char *s; /* string contents (raw, between the quotes) */
    Py_ssize_t slen;
    Py_ssize_t dlen; /* its length in UTF-8 bytes once read (escapes decoded) */
    int escaped; /* the string held a backslash escape */
    int letter_escape; /* a \\u escape spelt a character of a hint word: only Python can tell */
    int speller; /* the value as written holds what may spell a secret word once read */
    int hint;    /* the string holds a word that may belong to a truncation marker */
    int small;   /* a number (int or float) surely within +-2**53 */
    const unsigned char *raw; /* the value as written (any kind), for the secret-hint search */
    Py_ssize_t rawlen;
} Val;

enum {
    K_SCHEMA, K_SPAN_TYPE, K_EXIT, K_RETURNCODE, K_CID, K_PID, K_ARGV, K_COMMAND,
    K_OUT_TAIL, K_ERR_TAIL, K_OUT_BYTES, K_OUT_CAP, K_OUT_TRUNC, K_OUT_PREVIEW, K_OUT_HEAD, K_OUT_TAILB,
    K_ERR_BYTES, K_ERR_CAP, K_ERR_TRUNC, K_ERR_PREVIEW, K_ERR_HEAD, K_ERR_TAILB, K_ERROR,
    /* Read only for the row marks: every other field normalize() types, and the contract's. */
    K_TOOL, K_CWD, K_STARTED, K_NOTE, K_ENCODING, K_DURATION, K_OK_PREVIEW, K_REDACTED,
    K_OUT_CLIP, K_OUT_SHA, K_OUT_FULL_SHA, K_OUT_HEAD_SHA, K_OUT_TAIL_SHA, K_OUT_ITEMS, K_OUT_PITEMS,
    K_ERR_CLIP, K_ERR_SHA, K_ERR_FULL_SHA, K_ERR_HEAD_SHA, K_ERR_TAIL_SHA, K_ERR_ITEMS, K_ERR_PITEMS,
    K_OUT_KEPT, K_ERR_KEPT, K_COUNT
};

static const char *KEY_NAMES[K_COUNT] = {
    "schema", "span_type", "exit_code", "returncode", "command_id", "parent_command_id", "argv",
    "command", "stdout_tail", "stderr_tail", "stdout_bytes", "stdout_cap", "stdout_truncated",
    "preview_stdout", "stdout_head_bytes", "stdout_tail_bytes", "stderr_bytes", "stderr_cap",
    "stderr_truncated", "preview_stderr", "stderr_head_bytes", "stderr_tail_bytes", "error",
    "tool_name", "cwd", "started_at", "agent_note", "encoding", "duration_ms", "ok_preview", "redacted",
    "stdout_clip", "stdout_sha256", "stdout_full_sha256", "stdout_head_sha256", "stdout_tail_sha256",
    "stdout_items", "preview_stdout_items",
    "stderr_clip", "stderr_sha256", "stderr_full_sha256", "stderr_head_sha256", "stderr_tail_sha256",
    "stderr_items", "preview_stderr_items", "stdout_kept", "stderr_kept",
};

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
    int ok;
    int slow; /* valid JSON, but something (a \\uD800-style escape) only Python judges exactly */
    int speller; /* since reset: a backslash before u or /, or UTF-8 C4 B0, C4 B1, C5 BF, E2 84 */
} Cur;

static void skip_ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')) c->p++;
}

/* Words whose presence may mean a truncation marker; set from markers._HINTS by set_hints(). */
#define MAX_HINTS 32
static char HINTS[MAX_HINTS][64];
static size_t HINT_LENS[MAX_HINTS];
static int NHINTS = 0;
/* Bytes that occur in some hint word: a \\u escape of one may spell a hint the raw text hides. */
static unsigned char HINT_BYTE[128];

/* PAIR[a << 8 | b] holds the hints that start with bytes a, b; PAIR_BITS has one bit a pair that
 * starts a hint (8 KiB, so a walk stays in the L1 cache; PAIR is read only where a bit is set). */
static uint32_t PAIR[65536];
static uint64_t PAIR_BITS[1024];
/* The walk looks at every STRIDE-th pair only: a word of STRIDE + 1 bytes or more holds, at one of
 * its first STRIDE offsets, a pair at such a position, whatever its own position. COVER has the
 * pairs at those offsets of every word; where one is seen, the STRIDE positions that could start
 * the word are checked exactly. STRIDE is the shortest word's length less one. */
static uint64_t HINT_COVER[1024];
static int HINT_STRIDE = 1;

static int bit(const uint64_t *bits, unsigned key) { return bits[key >> 6] >> (key & 63) & 1; }
static void set_bit(uint64_t *bits, unsigned key) { bits[key >> 6] |= (uint64_t)1 << (key & 63); }

/* Whether a hint starts at q (the text ends before end). */
static int hint_at(const unsigned char *q, const unsigned char *end) {
    unsigned key = (unsigned)q[0] << 8 | q[1];
    if (!bit(PAIR_BITS, key)) return 0;
    for (uint32_t m = PAIR[key]; m; m &= m - 1) {
        size_t hl = HINT_LENS[__builtin_ctz(m)];
        if ((size_t)(end - q) >= hl && memcmp(q, HINTS[__builtin_ctz(m)], hl) == 0) return 1;
    }
    return 0;
}

static int has_hint(const unsigned char *s, Py_ssize_t n) {
    const unsigned char *end = s + n;
    const int stride = HINT_STRIDE;
    for (const unsigned char *q = s + stride - 1; q + 1 < end; q += stride) {
        if (!bit(HINT_COVER, (unsigned)q[0] << 8 | q[1])) continue;
        for (const unsigned char *p = q - stride + 1 < s ? s : q - stride + 1; p <= q; p++)
            if (hint_at(p, end)) return 1;
    }
    return 0;
}

/* Words without which no redaction rule can match (tracetui/model/marks.py SECRET_HINTS, set by
 * set_secret_hints), lower case, found whatever their case: SECRET_PAIR is indexed by the two
 * first bytes as written (every case of them), the rest is compared ignoring ASCII case. The walk
 * is the hints' (above), with its own stride and cover. */
static char SECRETS[MAX_HINTS][64];
static size_t SECRET_LENS[MAX_HINTS];
static uint32_t SECRET_PAIR[65536];
static uint64_t SECRET_BITS[1024];
static uint64_t SECRET_COVER[1024];
static int SECRET_STRIDE = 1;
static int NSECRETS = -1; /* never set: every row may hold a secret */

static unsigned char lower(unsigned char ch) { return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch; }

static int secret_at(const unsigned char *q, const unsigned char *end) {
    unsigned key = (unsigned)q[0] << 8 | q[1];
    if (!bit(SECRET_BITS, key)) return 0;
    for (uint32_t m = SECRET_PAIR[key]; m; m &= m - 1) {
        int h = __builtin_ctz(m);
        size_t hl = SECRET_LENS[h], i = 2;
        if ((size_t)(end - q) < hl) continue;
        while (i < hl && lower(q[i]) == (unsigned char)SECRETS[h][i]) i++;
        if (i == hl) return 1;
    }
    return 0;
}

/* Whether the text of a value as written (quotes, escapes and all) may hold secret-looking text:
 * one of the hint words, or what could spell one once read (``speller``, which parse_string
 * notes: a \u or \/ escape, or a letter Python's case-insensitive match takes for an ASCII one,
 * U+0130, U+0131, U+017F, U+2100-U+213F). */
static int may_hold_secret(const unsigned char *s, Py_ssize_t n, int speller) {
    if (NSECRETS < 0 || speller) return 1;
    const unsigned char *end = s + n;
    const int stride = SECRET_STRIDE;
    for (const unsigned char *q = s + stride - 1; q + 1 < end; q += stride) {
        if (!bit(SECRET_COVER, (unsigned)q[0] << 8 | q[1])) continue;
        for (const unsigned char *p = q - stride + 1 < s ? s : q - stride + 1; p <= q; p++)
            if (secret_at(p, end)) return 1;
    }
    return 0;
}

/* Bytes that end the fast run inside a string: the quote, a backslash, controls, non-ASCII. */
static unsigned char SPECIAL[256];

static void init_tables(void) {
    for (int i = 0; i < 256; i++) SPECIAL[i] = (i == '"' || i == '\\' || i < 0x20 || i >= 0x80);
}

static int hexval(unsigned char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A JSON string starting at the opening quote; validates escapes and UTF-8 (as orjson does). */
static void parse_string(Cur *c, Val *v) {
    const unsigned char *p = c->p + 1, *end = c->end;
    const unsigned char *start = p;
    int escaped = 0, letter_escape = 0;
    Py_ssize_t shrink = 0; /* bytes the escapes lose when decoded */
    while (p < end) {
#ifdef __SSE2__
        /* Sixteen bytes at a time: a signed compare below 0x20 catches the controls and every
         * byte from 0x80 at once; the first special byte is found from the mask. */
        while (end - p >= 16) {
            __m128i w = _mm_loadu_si128((const __m128i *)p);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
                                                    _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                                       _mm_cmplt_epi8(w, _mm_set1_epi8(0x20)));
            int mask = _mm_movemask_epi8(hit);
            if (mask) {
                p += __builtin_ctz((unsigned)mask);
                break;
            }
            p += 16;
        }
#endif
        /* Eight bytes at a time while none is special (most of a line is plain ASCII text). */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
            uint64_t q = w ^ 0x2222222222222222ULL, b = w ^ 0x5C5C5C5C5C5C5C5CULL;
            uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - 0x2020202020202020ULL) | w;
            if (hit & highs) break;
            p += 8;
        }
        while (p < end && !SPECIAL[*p]) p++;
        if (p >= end) break;
        unsigned char ch = *p;
        if (ch == '"') {
            if (v) {
                v->kind = V_STR;
                v->s = start;
                v->slen = p - start;
                v->dlen = v->slen - shrink;
                v->escaped = escaped;
                v->letter_escape = letter_escape;
            }
            c->p = p + 1;
            return;
        }
        if (ch == '\\') {
            escaped = 1;
            if (p + 1 >= end) break;
            unsigned char e = p[1];
            /* As written, a backslash before u or /: the escape's own, or an escaped backslash's. */
            if (e == 'u' || e == '/' || (e == '\\' && p + 2 < end && (p[2] == 'u' || p[2] == '/'))) c->speller = 1;
            if (e == 'u') {
                if (p + 6 > end) break;
                if (hexval(p[2]) < 0 || hexval(p[3]) < 0 || hexval(p[4]) < 0 || hexval(p[5]) < 0) break;
                if ((p[2] == 'd' || p[2] == 'D') && hexval(p[3]) >= 8) c->slow = 1; /* surrogates */
                if (p[2] == '0' && p[3] == '0' && hexval(p[4]) < 8 && HINT_BYTE[hexval(p[4]) << 4 | hexval(p[5])])
                    letter_escape = 1;
                int cp = hexval(p[2]) << 12 | hexval(p[3]) << 8 | hexval(p[4]) << 4 | hexval(p[5]);
                shrink += 6 - (cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3); /* surrogates: the line is slow */
                p += 6;
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                shrink += 1;
                p += 2;
                continue;
            }
            break;
        }
        if (ch < 0x20) break;
        if (ch < 0x80) {
            p++;
            continue;
        }
        /* UTF-8: reject overlongs, surrogates and anything past U+10FFFF. */
        int n;
        uint32_t cp;
        if (ch >= 0xC2 && ch <= 0xDF) { n = 1; cp = ch & 0x1F; }
        else if (ch >= 0xE0 && ch <= 0xEF) { n = 2; cp = ch & 0x0F; }
        else if (ch >= 0xF0 && ch <= 0xF4) { n = 3; cp = ch & 0x07; }
        else break;
        if (p + n >= end) break;
        if ((ch == 0xC4 && (p[1] == 0xB0 || p[1] == 0xB1)) || (ch == 0xC5 && p[1] == 0xBF) || (ch == 0xE2 && p[1] == 0x84))
            c->speller = 1; /* U+0130, U+0131, U+017F, U+2100-U+213F */
        int bad = 0;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xC0) != 0x80) { bad = 1; break; }
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (bad) break;
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) break;
        p += n + 1;
    }
    c->ok = 0;
}

/* A number whose magnitude may pass a double's (1e400, 400 digits): orjson refuses such a line,
 * so the line goes to Python, which says why. Generous: a number near the edge goes too. */
#define DOUBLE_DIGITS 300

static void parse_number(Cur *c, Val *v) {
    const unsigned char *p = c->p, *end = c->end;
    int neg = 0, is_int = 1, digits = 0;
    uint64_t acc = 0;
    int overflow = 0;
    long exp10 = 0;
    if (p < end && *p == '-') { neg = 1; p++; }
    if (p >= end) { c->ok = 0; return; }
    if (*p == '0') {
        p++;
        digits = 1;
    } else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9') {
            if (acc > (UINT64_MAX - 9) / 10) overflow = 1;
            acc = acc * 10 + (uint64_t)(*p - '0');
            p++;
            if (digits < 100000) digits++;
        }
    } else { c->ok = 0; return; }
    if (p < end && *p == '.') {
        is_int = 0;
        p++;
        if (p >= end || !(*p >= '0' && *p <= '9')) { c->ok = 0; return; }
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_int = 0;
        p++;
        int exp_neg = p < end && *p == '-';
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || !(*p >= '0' && *p <= '9')) { c->ok = 0; return; }
        while (p < end && *p >= '0' && *p <= '9') {
            if (exp10 < 100000) exp10 = exp10 * 10 + (*p - '0');
            p++;
        }
        if (exp_neg) exp10 = 0; /* a tiny number becomes 0.0, never an error */
    }
    if (digits + exp10 > DOUBLE_DIGITS) c->slow = 1;
    c->p = p;
    if (v) {
        if (is_int && !overflow && acc <= (uint64_t)INT64_MAX) {
            v->kind = V_INT;
            v->num = neg ? -(int64_t)acc : (int64_t)acc;
            v->small = acc <= ((uint64_t)1 << 53);
        } else {
            v->kind = V_OTHER; /* a float or a huge int: the Python path decides */
            /* 15 digits before the point (exponent included) stay under 2**53. */
            v->small = !overflow && digits + exp10 <= 15;
        }
    }
}

static void parse_value(Cur *c, Val *v, int depth);

static void parse_container(Cur *c, int depth, char close) {
    if (depth > MAX_DEPTH) { c->ok = 0; return; }
    c->p++; /* past [ or { */
    skip_ws(c);
    if (c->p < c->end && *c->p == close) { c->p++; return; }
    while (c->ok) {
        skip_ws(c);
        if (close == '}') {
            if (c->p >= c->end || *c->p != '"') { c->ok = 0; return; }
            parse_string(c, NULL);
            if (!c->ok) return;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':') { c->ok = 0; return; }
            c->p++;
            skip_ws(c);
        }
        parse_value(c, NULL, depth + 1);
        if (!c->ok) return;
        skip_ws(c);
        if (c->p >= c->end) { c->ok = 0; return; }
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == close) { c->p++; return; }
        c->ok = 0;
        return;
    }
}

static void parse_value(Cur *c, Val *v, int depth) {
    if (c->p >= c->end) { c->ok = 0; return; }
    unsigned char ch = *c->p;
    if (v) v->kind = V_OTHER;
    switch (ch) {
    case '"':
        parse_string(c, v);
        return;
    case '{':
        parse_container(c, depth, '}');
        return;
    case '[':
        parse_container(c, depth, ']');
        return;
    case 't':
        if (c->end - c->p >= 4 && memcmp(c->p, "true", 4) == 0) { c->p += 4; if (v) v->kind = V_TRUE; return; }
        break;
    case 'f':
        if (c->end - c->p >= 5 && memcmp(c->p, "false", 5) == 0) { c->p += 5; if (v) v->kind = V_FALSE; return; }
        break;
    case 'n':
        if (c->end - c->p >= 4 && memcmp(c->p, "null", 4) == 0) { c->p += 4; if (v) v->kind = V_NULL; return; }
        break;
    default:
        if (ch == '-' || (ch >= '0' && ch <= '9')) { parse_number(c, v); return; }
    }
    c->ok = 0;
}

/* Keys bucketed by length: a line has ~30 keys and most are not ours, so most lookups end at
 * an empty or one-entry bucket. */
#define MAX_KEY_LEN 32
static int BUCKET[MAX_KEY_LEN][K_COUNT + 1];

/* Each key's first eight bytes as a word (zero-padded), compared in one step. */
static uint64_t KEY_HEAD[K_COUNT];

static int key_index(const unsigned char *s, Py_ssize_t n) {
    if (n <= 0 || n >= MAX_KEY_LEN) return -1;
    uint64_t head = 0;
    memcpy(&head, s, n < 8 ? (size_t)n : 8); /* within the key: it ends at its closing quote */
    for (const int *k = BUCKET[n]; *k >= 0; k++) {
        if (head != KEY_HEAD[*k]) continue;
        Py_ssize_t i = 8;
        while (i < n && s[i] == (unsigned char)KEY_NAMES[*k][i]) i++;
        if (i >= n) return *k;
    }
    return -1;
}

/* Parse one line as a top-level object, filling vals[]. Returns 1 when it is valid JSON. */
static int parse_line(const unsigned char *p, const unsigned char *end, Val *vals) {
    Cur c = {p, end, 1, 0};
    for (int k = 0; k < K_COUNT; k++) vals[k].kind = V_ABSENT;
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{') return 0;
    c.p++;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') {
        c.p++;
    } else {
        while (c.ok) {
            skip_ws(&c);
            if (c.p >= c.end || *c.p != '"') return 0;
            Val key;
            key.kind = V_ABSENT;
            parse_string(&c, &key);
            if (!c.ok) return 0;
            skip_ws(&c);
            if (c.p >= c.end || *c.p != ':') return 0;
            c.p++;
            skip_ws(&c);
            int k = key.escaped ? -2 : key_index(key.s, key.slen);
            if (k == -2) return 0; /* an escaped key might spell one we need: let Python judge */
            const unsigned char *at = c.p;
            /* Parsed straight into its slot: a repeated key's last value wins, as in orjson. */
            Val *v = k >= 0 ? &vals[k] : NULL;
            if (v) v->small = 0;
            c.speller = 0;
            parse_value(&c, v, 1);
            if (!c.ok) return 0;
            if (v) {
                v->speller = c.speller;
                v->raw = at;
                v->rawlen = c.p - at;
                /* Only the shown text can hold a marker; other strings need no hint search. */
                int text = k == K_OUT_PREVIEW || k == K_ERR_PREVIEW || k == K_OUT_TAIL || k == K_ERR_TAIL;
                v->hint = (text && v->kind == V_STR) ? (v->letter_escape || has_hint(v->s, v->slen)) : 0;
            }
            skip_ws(&c);
            if (c.p >= c.end) return 0;
            if (*c.p == ',') { c.p++; continue; }
            if (*c.p == '}') { c.p++; break; }
            return 0;
        }
        if (!c.ok) return 0;
    }
    skip_ws(&c);
    return c.p == c.end && !c.slow;
}

static int str_eq(const Val *v, const char *lit) {
    size_t n = strlen(lit);
    return v->kind == V_STR && !v->escaped && (size_t)v->slen == n && memcmp(v->s, lit, n) == 0;
}

static int str_prefix(const Val *v, const char *lit) {
    size_t n = strlen(lit);
    return v->kind == V_STR && !v->escaped && (size_t)v->slen >= n && memcmp(v->s, lit, n) == 0;
}

static int opt_int(const Val *v) { return v->kind == V_ABSENT || v->kind == V_NULL || v->kind == V_INT; }
/* A byte count small enough that sums and differences of three of them stay exact. */
static int opt_count(const Val *v) {
    return v->kind == V_ABSENT || v->kind == V_NULL || (v->kind == V_INT && v->num > -HIDDEN_LIMIT && v->num < HIDDEN_LIMIT);
}
static int64_t believable(int64_t hidden) { return hidden >= HIDDEN_LIMIT ? NO_VALUE : hidden > 0 ? hidden : 0; }
static int is_none(const Val *v) { return v->kind == V_ABSENT || v->kind == V_NULL; }

/* Per-stream verdict for the non-feedback dialects: the same rule as judge_stream() in
 * tracetui/model/truncation.py. Returns 0 when the Python path must decide. */
static int stream_facts(Val *vals, int kb, int kc, int kf, int kp, int kh, int kt, int *trunc, int64_t *hidden) {
    Val *b = &vals[kb], *cap = &vals[kc], *flag = &vals[kf], *prev = &vals[kp], *head = &vals[kh], *tail = &vals[kt];
    if (!opt_count(b) || !opt_count(cap) || !opt_count(head) || !opt_count(tail)) return 0;
    if (!(is_none(flag) || flag->kind == V_TRUE || flag->kind == V_FALSE)) return 0;
    if (!(is_none(prev) || prev->kind == V_STR)) return 0;
    int by_flag_or_bytes = flag->kind == V_TRUE || (b->kind == V_INT && cap->kind == V_INT && b->num > cap->num);
    int may_mark = prev->kind == V_STR && prev->hint;
    if (by_flag_or_bytes) {
        if (b->kind == V_INT && (head->kind == V_INT || tail->kind == V_INT)) {
            int64_t h = b->num - (head->kind == V_INT ? head->num : 0) - (tail->kind == V_INT ? tail->num : 0);
            *trunc = 1;
            *hidden = believable(h);
            return 1;
        }
        if (b->kind == V_INT && cap->kind == V_INT) {
            *trunc = 1;
            *hidden = believable(b->num - cap->num);
            return 1;
        }
        if (may_mark) return 0; /* the marker's count would decide the hidden bytes */
        *trunc = 1;
        *hidden = NO_VALUE;
        return 1;
    }
    if (may_mark) return 0; /* a marker may make it truncated: Python's find_marker decides */
    if (is_none(b) && is_none(flag)) {
        *trunc = -1; /* truncation unknown */
        *hidden = NO_VALUE;
        return 1;
    }
    *trunc = 0;
    *hidden = 0;
    return 1;
}

typedef struct {
    int ok;
    int32_t exit;
    uint8_t flags;
    uint8_t marks;
    int64_t hidden;
} Facts;

/* Kinds normalize() reads without noting a problem (spans._Fields), per key: a value of any other
 * kind may be a TT014 finding (floats and big numbers too: only Python says). */
static int plain_int(const Val *v) { return is_none(v) || v->kind == V_INT; }
static int plain_str(const Val *v) { return is_none(v) || v->kind == V_STR; }
static int plain_bool(const Val *v) { return is_none(v) || v->kind == V_TRUE || v->kind == V_FALSE; }

/* A JSON array whose items are all strings (an argv normalize() reads without a problem). */
static int str_array(const Val *v) {
    if (v->kind != V_OTHER || v->rawlen < 2 || v->raw[0] != '[') return 0;
    Cur c = {v->raw + 1, v->raw + v->rawlen, 1, 0};
    skip_ws(&c);
    if (c.p < c.end && *c.p == ']') return 1;
    while (c.ok && c.p < c.end) {
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '"') return 0;
        parse_string(&c, NULL);
        skip_ws(&c);
        if (c.p >= c.end) return 0;
        if (*c.p == ']') return c.ok;
        if (*c.p != ',') return 0;
        c.p++;
    }
    return 0;
}

/* A {s}_kept object as spans._kept reads it without a problem: "sha256" a string, "bytes",
 * "unseen_start" and "unseen_end" integers of 0 or more (the last of a repeated key counts). */
static int kept_ok(const Val *v) {
    if (is_none(v)) return 1;
    if (v->kind != V_OTHER || v->rawlen < 2 || v->raw[0] != '{') return 0;
    Cur c = {v->raw + 1, v->raw + v->rawlen, 1, 0};
    int sha = 0, nums[3] = {0, 0, 0};
    static const char *NUMS[3] = {"bytes", "unseen_start", "unseen_end"};
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') return 0;
    while (c.ok && c.p < c.end) {
        skip_ws(&c);
        Val key, val;
        key.kind = val.kind = V_ABSENT;
        parse_string(&c, &key);
        if (!c.ok || key.escaped) return 0; /* an escape might spell one of the names */
        skip_ws(&c);
        c.p++; /* the colon (the line is valid JSON) */
        skip_ws(&c);
        parse_value(&c, &val, 2);
        if (!c.ok) return 0;
        if (str_eq(&key, "sha256")) sha = val.kind == V_STR;
        for (int i = 0; i < 3; i++)
            if (str_eq(&key, NUMS[i])) nums[i] = val.kind == V_INT && val.num >= 0;
        skip_ws(&c);
        if (c.p < c.end && *c.p == '}') return sha && nums[0] && nums[1] && nums[2];
        c.p++; /* the comma */
    }
    return 0;
}

static const int INT_KEYS[] = {K_OUT_BYTES, K_OUT_CAP, K_OUT_HEAD, K_OUT_TAILB, K_OUT_ITEMS, K_OUT_PITEMS,
                               K_ERR_BYTES, K_ERR_CAP, K_ERR_HEAD, K_ERR_TAILB, K_ERR_ITEMS, K_ERR_PITEMS,
                               K_EXIT, K_RETURNCODE, K_REDACTED, -1};
static const int STR_KEYS[] = {K_TOOL, K_CWD, K_STARTED, K_ERROR, K_NOTE, K_ENCODING, K_OUT_PREVIEW,
                               K_ERR_PREVIEW, K_OUT_TAIL, K_ERR_TAIL, K_OUT_SHA, K_OUT_FULL_SHA,
                               K_OUT_HEAD_SHA, K_OUT_TAIL_SHA, K_ERR_SHA, K_ERR_FULL_SHA, K_ERR_HEAD_SHA,
                               K_ERR_TAIL_SHA, -1};
/* The text TT015 reads: previews, the argv, the tool's name, the note and the error. */
static const int TEXT_KEYS[] = {K_OUT_PREVIEW, K_ERR_PREVIEW, K_OUT_TAIL, K_ERR_TAIL, K_ARGV, K_COMMAND,
                                K_TOOL, K_NOTE, K_ERROR, -1};

static int known_clip(const Val *v) {
    return is_none(v) || str_eq(v, "head") || str_eq(v, "tail") || str_eq(v, "head_tail");
}

/* Whether one stream's fields may break a contract rule: TT002 (bytes over the cap, not flagged),
 * TT003 (flagged under the cap), TT004 (a full hash on a flagged stream), TT008/TT009 (a preview
 * of more bytes than the cap or the byte count: without a marker word its bytes are the bytes
 * shown; with one, a marker may be left out of the count, which only Python can say), TT017 (a
 * marker word in a preview whose flag says not cut). */
static int stream_may_break(Val *vals, int kb, int kc, int kf, int kp, int ksha) {
    Val *b = &vals[kb], *cap = &vals[kc], *flag = &vals[kf], *prev = &vals[kp], *sha = &vals[ksha];
    int flagged = flag->kind == V_TRUE;
    if (b->kind == V_INT && cap->kind == V_INT && (b->num > cap->num) != flagged) return 1;
    if (flagged && !is_none(sha) && !(sha->kind == V_STR && sha->slen == 0)) return 1;
    if (prev->kind == V_STR) {
        if (cap->kind == V_INT && prev->dlen > cap->num) return 1;
        if (b->kind == V_INT && prev->dlen > b->num) return 1;
        if (prev->hint && flag->kind == V_FALSE) return 1;
    }
    return 0;
}

/* The row marks of a line the scanner judged (line_facts), from the values it read: each bit says
 * a rule may fire, never that it does; lint reads the marked rows (tracetui/analysis/lint.py). */
static uint8_t row_marks(Val *vals, const Val *ex, int t_out, int t_err) {
    uint8_t m = 0;
    for (const int *k = TEXT_KEYS; *k >= 0; k++) {
        const Val *v = &vals[*k];
        if (v->kind != V_ABSENT && v->kind != V_NULL && may_hold_secret(v->raw, v->rawlen, v->speller)) {
            m |= M_SECRET;
            break;
        }
    }
    int odd = 0;
    for (const int *k = INT_KEYS; *k >= 0; k++) odd |= !plain_int(&vals[*k]);
    for (const int *k = STR_KEYS; *k >= 0; k++) odd |= !plain_str(&vals[*k]);
    odd |= !plain_bool(&vals[K_OUT_TRUNC]) || !plain_bool(&vals[K_ERR_TRUNC]) || !plain_bool(&vals[K_OK_PREVIEW]);
    odd |= !known_clip(&vals[K_OUT_CLIP]) || !known_clip(&vals[K_ERR_CLIP]);
    odd |= !kept_ok(&vals[K_OUT_KEPT]) || !kept_ok(&vals[K_ERR_KEPT]);
    Val *dur = &vals[K_DURATION];
    odd |= !(is_none(dur) || ((dur->kind == V_INT || dur->kind == V_OTHER) && dur->small &&
                              dur->raw[0] != '[' && dur->raw[0] != '{' && dur->raw[0] != '"'));
    for (int k = K_CID; k <= K_PID; k++) odd |= !(plain_str(&vals[k]) || vals[k].kind == V_INT);
    for (int k = K_ARGV; k <= K_COMMAND; k++) odd |= !(is_none(&vals[k]) || str_array(&vals[k]));
    if (odd) m |= M_TYPES;
    int contract = 0;
    Val *st = &vals[K_SPAN_TYPE];
    if (st->kind == V_STR && (st->escaped || str_eq(st, "tool"))) {
        static const int SIX[] = {K_OUT_BYTES, K_OUT_CAP, K_OUT_TRUNC, K_ERR_BYTES, K_ERR_CAP, K_ERR_TRUNC};
        for (int i = 0; i < 6; i++) contract |= vals[SIX[i]].kind == V_ABSENT; /* TT001 */
    }
    contract |= stream_may_break(vals, K_OUT_BYTES, K_OUT_CAP, K_OUT_TRUNC, K_OUT_PREVIEW, K_OUT_SHA);
    contract |= stream_may_break(vals, K_ERR_BYTES, K_ERR_CAP, K_ERR_TRUNC, K_ERR_PREVIEW, K_ERR_SHA);
    if (vals[K_OK_PREVIEW].kind == V_TRUE) { /* TT005 (a stream flagged), TT006 (no exit 0) */
        contract |= vals[K_OUT_TRUNC].kind == V_TRUE || vals[K_ERR_TRUNC].kind == V_TRUE;
        contract |= !(ex->kind == V_INT && ex->num == 0);
    }
    Val *err = &vals[K_ERROR];
    if (is_none(ex) && !(err->kind == V_STR && err->slen > 0)) contract = 1; /* TT007 */
    if (contract) m |= M_CONTRACT;
    if (str_prefix(&vals[K_SCHEMA], "import/")) m |= M_IMPORTED;
    if (!is_none(&vals[K_NOTE])) m |= M_NOTE;
    /* TT020: cut (by its flag: a marker would have sent the line to Python) with no byte count. */
    if ((t_out == 1 && is_none(&vals[K_OUT_BYTES])) || (t_err == 1 && is_none(&vals[K_ERR_BYTES])))
        m |= M_UNSIZED;
    return m;
}

/* The same judgement as spans.quick_facts; ok=0 sends the line to Python. */
static Facts line_facts(Val *vals) {
    Facts f = {0, NO_EXIT, 0, 0, NO_VALUE};
    Val *schema = &vals[K_SCHEMA];
    int feedback = 0, truncspan = 0;
    if (schema->kind == V_STR && schema->escaped) return f;
    if (str_prefix(schema, "tracetui/") || str_prefix(schema, "import/")) {
        /* ours, or an importer's record */
    } else if (vals[K_OUT_TAIL].kind != V_ABSENT || vals[K_ERR_TAIL].kind != V_ABSENT ||
               (vals[K_COMMAND].kind != V_ABSENT && vals[K_ARGV].kind == V_ABSENT)) {
        feedback = 1;
    } else if (str_eq(&vals[K_SPAN_TYPE], "tool") || vals[K_OUT_BYTES].kind != V_ABSENT ||
               vals[K_RETURNCODE].kind != V_ABSENT) {
        truncspan = 1;
    } else if (vals[K_ARGV].kind != V_ABSENT &&
               (vals[K_EXIT].kind != V_ABSENT || vals[K_OUT_PREVIEW].kind != V_ABSENT)) {
        truncspan = 1;
    } else {
        return f; /* not a span of a known dialect: Python writes the message */
    }
    if (vals[K_SPAN_TYPE].kind == V_STR && vals[K_SPAN_TYPE].escaped) return f;
    Val *ex = (truncspan && vals[K_RETURNCODE].kind != V_ABSENT) ? &vals[K_RETURNCODE] : &vals[K_EXIT];
    if (!opt_int(ex)) return f;
    for (int k = K_CID; k <= K_PID; k++) {
        Val *v = &vals[k];
        if (!(is_none(v) || (v->kind == V_STR && !v->escaped))) return f;
    }
    int t_out, t_err;
    int64_t h_out, h_err;
    if (feedback) {
        for (int k = K_OUT_TAIL; k <= K_ERR_TAIL; k++) {
            Val *v = &vals[k];
            if (!(is_none(v) || v->kind == V_STR)) return f;
            if (v->kind == V_STR && v->hint) return f;
        }
        t_out = t_err = -1;
        h_out = h_err = NO_VALUE;
    } else {
        if (!stream_facts(vals, K_OUT_BYTES, K_OUT_CAP, K_OUT_TRUNC, K_OUT_PREVIEW, K_OUT_HEAD, K_OUT_TAILB, &t_out, &h_out)) return f;
        if (!stream_facts(vals, K_ERR_BYTES, K_ERR_CAP, K_ERR_TRUNC, K_ERR_PREVIEW, K_ERR_HEAD, K_ERR_TAILB, &t_err, &h_err)) return f;
    }
    /* spans.judge_exit: no exit is a failure only when an error says why; else exit unknown. */
    Val *err = &vals[K_ERROR];
    if (!(is_none(err) || err->kind == V_STR)) return f; /* Python reads it as text, with a problem */
    if (ex->kind == V_INT) {
        if (ex->num < INT32_MIN + 1 || ex->num > INT32_MAX) return f; /* Python clamps: let it */
        f.exit = (int32_t)ex->num;
        if (ex->num != 0) f.flags |= F_FAILED;
    } else if (err->kind == V_STR && err->slen > 0) {
        f.flags |= F_FAILED | F_NULL_EXIT; /* an escape decodes to one character or more */
    } else {
        f.flags |= F_EXIT_UNKNOWN | F_NULL_EXIT;
    }
    if (t_out == 1 || t_err == 1) f.flags |= F_TRUNCATED;
    else if (t_out == -1 || t_err == -1) f.flags |= F_TRUNC_UNKNOWN;
    if (h_out < 0 && h_err < 0) f.hidden = NO_VALUE;
    else f.hidden = (h_out > 0 ? h_out : 0) + (h_err > 0 ? h_err : 0);
    f.marks = row_marks(vals, ex, t_out, t_err);
    f.ok = 1;
    return f;
}

static int is_blank(const unsigned char *p, const unsigned char *end) {
    for (; p < end; p++) {
        unsigned char ch = *p;
        if (!(ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f')) return 0;
    }
    return 1;
}

/* Where a row's ids sit in the buffer (len < 0: none). Filled without the GIL, turned into str after. */
typedef struct {
    Py_ssize_t cid_off, cid_len, pid_off, pid_len;
} IdSpan;

typedef struct {
    int64_t *off, *len, *hid;
    int32_t *line, *exit, *slow;
    uint8_t *flag, *mark;
    IdSpan *idspan;
    Py_ssize_t rows, nslow, lines, consumed;
    long long failed, truncated, hidden_sum, last_failed, exit_unknown;
} Out;

/* The heavy part: runs with the GIL released (touches no Python object). */
static void scan_lines(const unsigned char *data, const unsigned char *end, long long base_offset,
                       long long first_line, long long max_line, Out *o) {
    Val vals[K_COUNT];
    const unsigned char *p = data;
    Py_ssize_t line = 0;
    while (p < end) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        if (!is_blank(p, nl)) {
            Py_ssize_t r = o->rows++;
            o->off[r] = base_offset + (p - data);
            o->len[r] = nl - p;
            o->line[r] = (int32_t)(first_line + line);
            Facts f = {0, NO_EXIT, 0, 0, NO_VALUE};
            /* A line over the limit is Python's (reader.MAX_LINE): a bad line, on both paths. */
            if (nl - p <= max_line && parse_line(p, nl, vals)) f = line_facts(vals);
            /* Python sums without bound: a row that would overflow this sum is Python's to add. */
            if (f.ok && f.hidden > 0 && o->hidden_sum > LLONG_MAX - f.hidden) f.ok = 0;
            IdSpan *ids = &o->idspan[r];
            ids->cid_len = ids->pid_len = -1;
            if (f.ok) {
                if (vals[K_CID].kind == V_STR && vals[K_CID].slen > 0) {
                    ids->cid_off = vals[K_CID].s - data;
                    ids->cid_len = vals[K_CID].slen;
                }
                if (vals[K_PID].kind == V_STR && vals[K_PID].slen > 0) {
                    ids->pid_off = vals[K_PID].s - data;
                    ids->pid_len = vals[K_PID].slen;
                }
                o->exit[r] = f.exit;
                o->flag[r] = f.flags;
                o->mark[r] = f.marks;
                o->hid[r] = f.hidden;
                if (f.flags & F_FAILED) { o->failed++; o->last_failed = r; }
                if (f.flags & F_EXIT_UNKNOWN) o->exit_unknown++;
                if (f.flags & F_TRUNCATED) o->truncated++;
                if (f.hidden > 0) o->hidden_sum += f.hidden;
            } else {
                o->exit[r] = NO_EXIT;
                o->flag[r] = 0;
                o->mark[r] = M_ALL; /* Python judges it: lint reads it whole */
                o->hid[r] = NO_VALUE;
                o->slow[o->nslow++] = (int32_t)r;
            }
        }
        line++;
        p = nl + 1;
    }
    o->lines = line;
    o->consumed = p - data;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer buf;
    long long base_offset, first_line, max_line = LLONG_MAX, length = -1;
    if (!PyArg_ParseTuple(args, "y*LL|LL", &buf, &base_offset, &first_line, &max_line, &length)) return NULL;
    /* length: scan only the buffer's first bytes (a reused read buffer is filled that far). */
    if (length < 0 || length > buf.len) length = buf.len;
    const unsigned char *data = buf.buf, *end = data + length;
    PyObject *offsets = NULL, *lengths = NULL, *line_idx = NULL, *hiddens = NULL, *exits = NULL;
    PyObject *flagcol = NULL, *markcol = NULL, *slow = NULL, *ids = NULL, *parents = NULL, *result = NULL;
    IdSpan *idspan = NULL;

    Py_ssize_t nlines = 0;
    for (const unsigned char *q = data; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) nlines++;
    offsets = PyByteArray_FromStringAndSize(NULL, nlines * 8);
    lengths = PyByteArray_FromStringAndSize(NULL, nlines * 8);
    line_idx = PyByteArray_FromStringAndSize(NULL, nlines * 4);
    hiddens = PyByteArray_FromStringAndSize(NULL, nlines * 8);
    exits = PyByteArray_FromStringAndSize(NULL, nlines * 4);
    flagcol = PyByteArray_FromStringAndSize(NULL, nlines);
    markcol = PyByteArray_FromStringAndSize(NULL, nlines);
    slow = PyByteArray_FromStringAndSize(NULL, nlines * 4);
    idspan = PyMem_RawMalloc(sizeof(IdSpan) * (size_t)(nlines ? nlines : 1));
    if (!offsets || !lengths || !line_idx || !hiddens || !exits || !flagcol || !markcol || !slow || !idspan) {
        if (!idspan) PyErr_NoMemory();
        goto done;
    }
    Out o = {
        (int64_t *)PyByteArray_AS_STRING(offsets), (int64_t *)PyByteArray_AS_STRING(lengths),
        (int64_t *)PyByteArray_AS_STRING(hiddens), (int32_t *)PyByteArray_AS_STRING(line_idx),
        (int32_t *)PyByteArray_AS_STRING(exits), (int32_t *)PyByteArray_AS_STRING(slow),
        (uint8_t *)PyByteArray_AS_STRING(flagcol), (uint8_t *)PyByteArray_AS_STRING(markcol), idspan, 0, 0, 0, 0, 0, 0, 0, -1, 0,
    };
    Py_BEGIN_ALLOW_THREADS
    scan_lines(data, end, base_offset, first_line, max_line, &o);
    Py_END_ALLOW_THREADS

    ids = PyList_New(o.rows);
    parents = PyList_New(0);
    if (!ids || !parents) goto done;
    for (Py_ssize_t r = 0; r < o.rows; r++) {
        PyObject *cid = Py_None;
        IdSpan *sp = &idspan[r];
        if (sp->cid_len >= 0) {
            cid = PyUnicode_DecodeUTF8((const char *)data + sp->cid_off, sp->cid_len, "strict");
            if (!cid) goto done;
        } else {
            Py_INCREF(Py_None);
        }
        PyList_SET_ITEM(ids, r, cid);
        if (sp->pid_len >= 0) {
            PyObject *pid = PyUnicode_DecodeUTF8((const char *)data + sp->pid_off, sp->pid_len, "strict");
            if (!pid) goto done;
            PyObject *pair = Py_BuildValue("(nN)", r, pid);
            if (!pair || PyList_Append(parents, pair) < 0) { Py_XDECREF(pair); goto done; }
            Py_DECREF(pair);
        }
    }
    if (PyByteArray_Resize(offsets, o.rows * 8) < 0 || PyByteArray_Resize(lengths, o.rows * 8) < 0 ||
        PyByteArray_Resize(line_idx, o.rows * 4) < 0 || PyByteArray_Resize(hiddens, o.rows * 8) < 0 ||
        PyByteArray_Resize(exits, o.rows * 4) < 0 || PyByteArray_Resize(flagcol, o.rows) < 0 ||
        PyByteArray_Resize(markcol, o.rows) < 0 ||
        PyByteArray_Resize(slow, o.nslow * 4) < 0)
        goto done;
    result = Py_BuildValue("(nnOOOOOOOOOLLLLLO)", o.consumed, o.lines, offsets, lengths, line_idx, hiddens,
                           exits, flagcol, slow, ids, parents, o.failed, o.truncated, o.hidden_sum,
                           o.last_failed, o.exit_unknown, markcol);
done:
    Py_XDECREF(offsets); Py_XDECREF(lengths); Py_XDECREF(line_idx); Py_XDECREF(hiddens);
    Py_XDECREF(exits); Py_XDECREF(flagcol); Py_XDECREF(markcol); Py_XDECREF(slow); Py_XDECREF(ids); Py_XDECREF(parents);
    PyMem_RawFree(idspan);
    PyBuffer_Release(&buf);
    return result;
}

static PyObject *set_hints(PyObject *self, PyObject *args) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "hints must be a sequence of bytes");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_HINTS) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "too many hints"); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        char *s;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(item, &s, &len) < 0 || len <= 0 || len >= 64) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a hint must be 1 to 63 bytes");
            return NULL;
        }
        memcpy(HINTS[i], s, (size_t)len);
        HINTS[i][len] = 0;
        HINT_LENS[i] = (size_t)len;
        if (len < 2) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "a hint must be 2 bytes or more"); return NULL; }
    }
    NHINTS = (int)n;
    memset(PAIR, 0, sizeof(PAIR));
    memset(HINT_BYTE, 0, sizeof(HINT_BYTE));
    for (int h = 0; h < NHINTS; h++)
        for (size_t i = 0; i < HINT_LENS[h]; i++)
            if ((unsigned char)HINTS[h][i] < 128) HINT_BYTE[(unsigned char)HINTS[h][i]] = 1;
    memset(PAIR_BITS, 0, sizeof(PAIR_BITS));
    memset(HINT_COVER, 0, sizeof(HINT_COVER));
    size_t shortest = 64;
    for (int h = 0; h < NHINTS; h++) shortest = HINT_LENS[h] < shortest ? HINT_LENS[h] : shortest;
    HINT_STRIDE = NHINTS ? (int)shortest - 1 : 1;
    for (int h = 0; h < NHINTS; h++) {
        unsigned key = (unsigned)(unsigned char)HINTS[h][0] << 8 | (unsigned char)HINTS[h][1];
        PAIR[key] |= (uint32_t)1 << h;
        set_bit(PAIR_BITS, key);
        for (int j = 0; j < HINT_STRIDE; j++)
            set_bit(HINT_COVER, (unsigned)(unsigned char)HINTS[h][j] << 8 | (unsigned char)HINTS[h][j + 1]);
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
}

/* set_secret_hints(words): the lower-case ASCII words of model/marks.py SECRET_HINTS. */
static PyObject *set_secret_hints(PyObject *self, PyObject *args) {
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "hints must be a sequence of bytes");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_HINTS) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "too many hints"); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        char *s;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(fast, i), &s, &len) < 0 || len < 2 || len >= 64) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a hint must be 2 to 63 bytes");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < len; j++) {
            unsigned char ch = (unsigned char)s[j];
            if (ch >= 128 || lower(ch) != ch) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "a hint must be lower-case ASCII");
                return NULL;
            }
        }
        memcpy(SECRETS[i], s, (size_t)len);
        SECRETS[i][len] = 0;
        SECRET_LENS[i] = (size_t)len;
    }
    memset(SECRET_PAIR, 0, sizeof(SECRET_PAIR));
    memset(SECRET_BITS, 0, sizeof(SECRET_BITS));
    memset(SECRET_COVER, 0, sizeof(SECRET_COVER));
    size_t shortest = 64;
    for (Py_ssize_t h = 0; h < n; h++) shortest = SECRET_LENS[h] < shortest ? SECRET_LENS[h] : shortest;
    SECRET_STRIDE = n ? (int)shortest - 1 : 1;
    for (Py_ssize_t h = 0; h < n; h++) {
        for (int j = 0; j < SECRET_STRIDE; j++) {
            unsigned char a = (unsigned char)SECRETS[h][j], b = (unsigned char)SECRETS[h][j + 1];
            unsigned char as[2] = {a, (a >= 'a' && a <= 'z') ? a - 32 : a};
            unsigned char bs[2] = {b, (b >= 'a' && b <= 'z') ? b - 32 : b};
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 2; k++) {
                    unsigned key = (unsigned)as[i] << 8 | bs[k];
                    set_bit(SECRET_COVER, key);
                    if (j == 0) {
                        SECRET_PAIR[key] |= (uint32_t)1 << h;
                        set_bit(SECRET_BITS, key);
                    }
                }
        }
    }
    NSECRETS = (int)n;
    Py_DECREF(fast);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "Scan complete JSON lines of a buffer into index columns."},
    {"set_hints", set_hints, METH_VARARGS, "Set the marker hint words (UTF-8 bytes)."},
    {"set_secret_hints", set_secret_hints, METH_VARARGS, "Set the secret hint words (lower-case ASCII)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", "The index's hot loop in C.", -1, methods};

PyMODINIT_FUNC PyInit__scan(void) {
    init_tables();
    int fill[MAX_KEY_LEN] = {0};
    for (int n = 0; n < MAX_KEY_LEN; n++) BUCKET[n][0] = -1;
    for (int k = 0; k < K_COUNT; k++) {
        size_t n = strlen(KEY_NAMES[k]);
        BUCKET[n][fill[n]++] = k;
        BUCKET[n][fill[n]] = -1;
        KEY_HEAD[k] = 0;
        memcpy(&KEY_HEAD[k], KEY_NAMES[k], n < 8 ? n : 8);
    }
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "FAILED", F_FAILED) < 0 ||
        PyModule_AddIntConstant(m, "TRUNCATED", F_TRUNCATED) < 0 ||
        PyModule_AddIntConstant(m, "TRUNC_UNKNOWN", F_TRUNC_UNKNOWN) < 0 ||
        PyModule_AddIntConstant(m, "NULL_EXIT", F_NULL_EXIT) < 0 ||
        PyModule_AddIntConstant(m, "EXIT_UNKNOWN", F_EXIT_UNKNOWN) < 0 ||
        PyModule_AddIntConstant(m, "NO_EXIT", NO_EXIT) < 0 ||
        PyModule_AddIntConstant(m, "NO_VALUE", NO_VALUE) < 0 ||
        PyModule_AddIntConstant(m, "M_SECRET", M_SECRET) < 0 ||
        PyModule_AddIntConstant(m, "M_CONTRACT", M_CONTRACT) < 0 ||
        PyModule_AddIntConstant(m, "M_TYPES", M_TYPES) < 0 ||
        PyModule_AddIntConstant(m, "M_IMPORTED", M_IMPORTED) < 0 ||
        PyModule_AddIntConstant(m, "M_NOTE", M_NOTE) < 0 ||
        PyModule_AddIntConstant(m, "M_UNSIZED", M_UNSIZED) < 0 ||
        PyModule_AddIntConstant(m, "M_ALL", M_ALL) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyObject *limit = PyLong_FromLongLong(HIDDEN_LIMIT);
    if (!limit || PyModule_AddObject(m, "HIDDEN_LIMIT", limit) < 0) { /* steals only on success */
        Py_XDECREF(limit);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
