/* The scanner's JSON reader: strings (escapes, UTF-8), numbers, containers, and the top-level keys
 * the index keeps, read into Val slots.
 *
 * Part of the C scanner, included once by _scan.c (one translation unit, so every function
 * stays static and the compiler sees the whole hot loop); not a header to include elsewhere.
 */
#ifndef TRACETUI__SCAN_JSON_H
#define TRACETUI__SCAN_JSON_H

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
                goto special; /* the byte at p is special: the word-wise search below would only say so again */
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
#ifdef __SSE2__
    special:;
#endif
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

/* parse_string, first trying the commonest case inline: a string of plain ASCII that closes within
 * sixteen bytes (most keys, and short values), where the call and its loops cost more than the
 * work. Anything else (a longer string, an escape, a control, a byte from 0x80) goes the whole way. */
static inline void read_string(Cur *c, Val *v) {
#ifdef __SSE2__
    if (c->end - c->p >= 17) {
        __m128i w = _mm_loadu_si128((const __m128i *)(c->p + 1));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('"')),
                                                _mm_cmpeq_epi8(w, _mm_set1_epi8('\\'))),
                                   _mm_cmplt_epi8(w, _mm_set1_epi8(0x20)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask) {
            int n = __builtin_ctz(mask);
            if (c->p[1 + n] == '"') {
                if (v) {
                    v->kind = V_STR;
                    v->s = c->p + 1;
                    v->slen = n;
                    v->dlen = n;
                    v->escaped = 0;
                    v->letter_escape = 0;
                }
                c->p += n + 2;
                return;
            }
        }
    }
#endif
    parse_string(c, v);
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
            read_string(c, NULL);
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
        read_string(c, v);
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

#define MAX_KEY_LEN 32

/* Each key's first eight bytes as a word (zero-padded), compared in one step; a longer key's
 * last eight bytes too (overlapping the first), and any between them eight at a time. */
static uint64_t KEY_HEAD[K_COUNT], KEY_TAIL[K_COUNT];
static Py_ssize_t KEY_LEN[K_COUNT];
/* HEAD_MASK[n]: the word whose first n bytes (in memory order) are 0xFF, the rest 0. */
static uint64_t HEAD_MASK[9];

/* Our keys in an open-addressed table, by a hash of their words and length (slots hold a key's
 * number, -1 when empty). KEY_MUL is chosen when the module loads so that no two of our keys share
 * a slot, so a key is found or refused in one probe (a walk by length mispredicted a branch or two
 * a key); the walk on to the next slot is only for a table the search found no such number for. */
#define KEY_SLOTS 512
static int KEY_SLOT[KEY_SLOTS];
static uint64_t KEY_MUL;

static uint64_t load8(const unsigned char *s) {
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

static unsigned key_hash(uint64_t head, uint64_t tail, Py_ssize_t n, uint64_t mul) {
    return (unsigned)(((head ^ (tail * 31) ^ (uint64_t)n) * mul) >> 55) & (KEY_SLOTS - 1);
}

/* Fill KEY_SLOT from KEY_NAMES; returns the slots that had to move on (0 for a clean table). */
static int fill_key_slots(uint64_t mul) {
    int moved = 0;
    for (int i = 0; i < KEY_SLOTS; i++) KEY_SLOT[i] = -1;
    for (int k = 0; k < K_COUNT; k++) {
        unsigned h = key_hash(KEY_HEAD[k], KEY_TAIL[k], KEY_LEN[k], mul);
        while (KEY_SLOT[h] >= 0) { h = (h + 1) & (KEY_SLOTS - 1); moved++; }
        KEY_SLOT[h] = k;
    }
    return moved;
}

static void init_keys(void) {
    for (int n = 0; n <= 8; n++) {
        unsigned char bytes[8] = {0};
        memset(bytes, 0xFF, (size_t)n);
        memcpy(&HEAD_MASK[n], bytes, 8);
    }
    for (int k = 0; k < K_COUNT; k++) {
        size_t n = strlen(KEY_NAMES[k]);
        KEY_LEN[k] = (Py_ssize_t)n;
        KEY_HEAD[k] = KEY_TAIL[k] = 0;
        memcpy(&KEY_HEAD[k], KEY_NAMES[k], n < 8 ? n : 8);
        if (n >= 8) memcpy(&KEY_TAIL[k], KEY_NAMES[k] + n - 8, 8);
    }
    uint64_t best = 0x9E3779B97F4A7C15ULL;
    int fewest = fill_key_slots(best);
    for (uint64_t i = 1; i < 4096 && fewest; i++) {
        uint64_t mul = 0x9E3779B97F4A7C15ULL + 2 * i * 0x632BE59BD9B4E019ULL;
        int moved = fill_key_slots(mul);
        if (moved < fewest) { fewest = moved; best = mul; }
    }
    KEY_MUL = best;
    fill_key_slots(best);
}

/* Which of our keys s[0..n) is (-1: none). limit: the line's end, so that a short key's word is
 * read in one load where eight bytes are there (the key's quote and colon follow it), without
 * going through a byte-wise copy (whose stores the load then waits on). */
static int key_index(const unsigned char *s, Py_ssize_t n, const unsigned char *limit) {
    if (n <= 0 || n >= MAX_KEY_LEN) return -1;
    uint64_t head, tail = 0;
    if (n >= 8) {
        head = load8(s);
        tail = load8(s + n - 8);
    } else if (limit - s >= 8) {
        head = load8(s) & HEAD_MASK[n];
    } else {
        head = 0;
        memcpy(&head, s, (size_t)n);
    }
    for (unsigned h = key_hash(head, tail, n, KEY_MUL);; h = (h + 1) & (KEY_SLOTS - 1)) {
        int k = KEY_SLOT[h];
        if (k < 0) return -1;
        if (KEY_LEN[k] != n || head != KEY_HEAD[k] || tail != KEY_TAIL[k]) continue;
        Py_ssize_t i = 8;
        while (i + 8 < n && load8(s + i) == load8((const unsigned char *)KEY_NAMES[k] + i)) i += 8;
        if (i + 8 >= n) return k;
    }
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
            read_string(&c, &key);
            if (!c.ok) return 0;
            skip_ws(&c);
            if (c.p >= c.end || *c.p != ':') return 0;
            c.p++;
            skip_ws(&c);
            int k = key.escaped ? -2 : key_index(key.s, key.slen, c.end);
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

#endif /* TRACETUI__SCAN_JSON_H */
