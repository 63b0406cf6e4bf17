/* A record's fields for _otlp_row.c (part of its translation unit): which top-level keys an OTLP
 * span is made of, where their values sit in the line, and reading them by type.
 *
 * The types read are those otlp_fast's Python writer reads without a second look (its _FIELDS):
 * each field absent or null, or of its one usual type. Any other type returns -1 and the row goes
 * to Python, which reads it through model/fields.py Fields and notes the problem.
 */

enum {
    K_COMMAND_ID, K_PARENT_ID, K_TOOL, K_CWD, K_STARTED, K_ERROR, K_NOTE, K_ENCODING,
    K_ARGV, K_COMMAND, K_EXIT, K_RETURNCODE, K_REDACTED, K_OK_PREVIEW, K_DURATION,
    K_SCHEMA, K_KIND, K_SPAN_TYPE, K_STREAMS
};
/* Each stream's fields, from K_STREAMS (stdout) and K_STREAMS + S_N (stderr). */
enum { S_BYTES, S_CAP, S_TRUNC, S_PREVIEW, S_HEAD, S_TAIL_BYTES, S_CLIP, S_FULL, S_ITEMS, S_PITEMS, S_TAIL, S_N };
#define N_KEYS (K_STREAMS + 2 * S_N)

static const char *const KEY_NAMES[N_KEYS] = {
    "command_id", "parent_command_id", "tool_name", "cwd", "started_at", "error", "agent_note", "encoding",
    "argv", "command", "exit_code", "returncode", "redacted", "ok_preview", "duration_ms",
    "schema", "kind", "span_type",
    "stdout_bytes", "stdout_cap", "stdout_truncated", "preview_stdout", "stdout_head_bytes",
    "stdout_tail_bytes", "stdout_clip", "stdout_full_sha256", "stdout_items", "preview_stdout_items",
    "stdout_tail",
    "stderr_bytes", "stderr_cap", "stderr_truncated", "preview_stderr", "stderr_head_bytes",
    "stderr_tail_bytes", "stderr_clip", "stderr_full_sha256", "stderr_items", "preview_stderr_items",
    "stderr_tail",
};

#define KEY_SLOTS 256
static signed char KEY_TABLE[KEY_SLOTS];
static Py_ssize_t KEY_LENGTHS[N_KEYS];

static unsigned key_hash(const unsigned char *p, Py_ssize_t n) {
    unsigned h = (unsigned)n * 131u;
    for (Py_ssize_t i = 0; i < n; i++) h = h * 31u + p[i];
    return h;
}

static void key_table_init(void) {
    memset(KEY_TABLE, -1, sizeof KEY_TABLE);
    for (int k = 0; k < N_KEYS; k++) {
        const char *name = KEY_NAMES[k];
        KEY_LENGTHS[k] = (Py_ssize_t)strlen(name);
        unsigned h = key_hash((const unsigned char *)name, KEY_LENGTHS[k]) % KEY_SLOTS;
        while (KEY_TABLE[h] >= 0) h = (h + 1) % KEY_SLOTS;
        KEY_TABLE[h] = (signed char)k;
    }
}

static int key_index(const unsigned char *p, Py_ssize_t n) {
    unsigned h = key_hash(p, n) % KEY_SLOTS;
    while (KEY_TABLE[h] >= 0) {
        int k = KEY_TABLE[h];
        if (KEY_LENGTHS[k] == n && !memcmp(KEY_NAMES[k], p, n)) return k;
        h = (h + 1) % KEY_SLOTS;
    }
    return -1;
}

typedef struct {
    Val v[N_KEYS];
    Val args[2][MAX_ARGS]; /* the elements of argv and of command */
    int nargs[2];
    int args_ok[2];        /* every element a string (and no more than MAX_ARGS) */
} Rec;

/* The record's line, validated whole; -1 when it is not strict JSON, not an object, repeats a key
 * read here or writes a key with an escape (which may decode to one read here). */
static int parse_record(const unsigned char *p, Py_ssize_t n, Rec *r) {
    for (int k = 0; k < N_KEYS; k++) r->v[k].kind = V_ABSENT;
    r->nargs[0] = r->nargs[1] = 0;
    r->args_ok[0] = r->args_ok[1] = 1;
    Cur c = {NULL, p, p + n};
    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{') return -1;
    c.p++;
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') {
        c.p++;
    } else {
        for (;;) {
            Val key;
            skip_ws(&c);
            if (c.p >= c.end || *c.p != '"' || p_string(&c, &key) || key.esc) return -1;
            skip_ws(&c);
            if (c.p >= c.end || *c.p++ != ':') return -1;
            int k = key_index(key.p, key.n);
            if (k >= 0 && r->v[k].kind != V_ABSENT) return -1;
            skip_ws(&c);
            if ((k == K_ARGV || k == K_COMMAND) && c.p < c.end && *c.p == '[') {
                int j = k == K_COMMAND;
                const unsigned char *start = c.p;
                if (p_array(&c, 1, r->args[j], &r->nargs[j], &r->args_ok[j])) return -1;
                r->v[k].kind = V_ARR;
                r->v[k].p = start;
                r->v[k].n = c.p - start;
            } else if (p_value(&c, 1, k >= 0 ? &r->v[k] : NULL)) {
                return -1;
            }
            skip_ws(&c);
            if (c.p >= c.end) return -1;
            if (*c.p == '}') {
                c.p++;
                break;
            }
            if (*c.p++ != ',') return -1;
        }
    }
    skip_ws(&c);
    return c.p == c.end ? 0 : -1;
}

static inline int absent(const Val *v) { return v->kind == V_ABSENT || v->kind == V_NULL; }

/* An integer field: 0 with *has 0 (absent or null) or 1 (*out); -1 for any other type, or more
 * digits than certainly fit 64 bits (orjson reads those as float, or uint64). */
static int get_int(const Val *v, int *has, int64_t *out) {
    *has = 0;
    if (absent(v)) return 0;
    if (v->kind != V_INT) return -1;
    const unsigned char *p = v->p, *end = v->p + v->n;
    int neg = *p == '-';
    p += neg;
    if (end - p > 18) return -1;
    int64_t x = 0;
    while (p < end) x = x * 10 + (*p++ - '0');
    *out = neg ? -x : x;
    *has = 1;
    return 0;
}

/* A true/false field: 1 true, 0 false, 2 absent or null, -1 other. */
static int get_bool(const Val *v) {
    if (absent(v)) return 2;
    if (v->kind == V_TRUE) return 1;
    if (v->kind == V_FALSE) return 0;
    return -1;
}

/* Decoded text: points into the line when it holds no escape, else into the row's arena. */
typedef struct {
    const unsigned char *p;
    Py_ssize_t n;
    int has; /* 0 for absent or null */
} Text;

static int get_text(const Val *v, Buf *arena, Text *t) {
    t->has = 0;
    t->p = (const unsigned char *)"";
    t->n = 0;
    if (absent(v)) return 0;
    if (v->kind != V_STR) return -1;
    t->has = 1;
    if (!v->esc) {
        t->p = v->p;
        t->n = v->n;
        return 0;
    }
    if (arena->n + v->n > arena->cap) return -1; /* reserved for the row: never */
    unsigned char *out = (unsigned char *)arena->p + arena->n;
    t->p = out;
    t->n = json_decode(v->p, v->n, out);
    arena->n += t->n;
    return 0;
}

static inline int text_is(const Text *t, const char *s) {
    Py_ssize_t n = (Py_ssize_t)strlen(s);
    return t->has && t->n == n && !memcmp(t->p, s, n);
}

static inline int text_starts(const Text *t, const char *s) {
    Py_ssize_t n = (Py_ssize_t)strlen(s);
    return t->has && t->n >= n && !memcmp(t->p, s, n);
}

static inline int present(const Rec *r, int k) { return r->v[k].kind != V_ABSENT; }

enum { D_TRACETUI, D_TRUNCATION_SPAN, D_FEEDBACK, D_OTHER };

/* spans.detect_dialect: the dialect's name into *name and how it is read into *how; -1 for no
 * dialect (the reference skips the row as no span; Python says so) or a schema of another type. */
static int dialect_of(const Rec *r, Buf *arena, Text *name, int *how) {
    Text schema;
    if (get_text(&r->v[K_SCHEMA], arena, &schema)) return -1;
    static const Text TRACETUI = {(const unsigned char *)"tracetui/1", 10, 1};
    static const Text SPAN = {(const unsigned char *)"truncation-span", 15, 1};
    static const Text FEEDBACK = {(const unsigned char *)"feedback-record", 15, 1};
    if (text_is(&schema, "tracetui/1")) {
        *name = TRACETUI;
    } else if (text_starts(&schema, "import/")) {
        name->p = schema.p + 7;
        name->n = schema.n - 7;
        name->has = 1;
    } else if (text_starts(&schema, "tracetui/")) {
        *name = TRACETUI;
    } else if (present(r, K_STREAMS + S_TAIL) || present(r, K_STREAMS + S_N + S_TAIL) ||
               (present(r, K_COMMAND) && !present(r, K_ARGV))) {
        *name = FEEDBACK;
    } else {
        Text span_type;
        const Val *st = &r->v[K_SPAN_TYPE];
        int tool = 0;
        if (st->kind == V_STR) {
            if (get_text(st, arena, &span_type)) return -1;
            tool = text_is(&span_type, "tool");
        }
        if (tool || present(r, K_STREAMS + S_BYTES) || present(r, K_RETURNCODE) ||
            (present(r, K_ARGV) && (present(r, K_EXIT) || present(r, K_STREAMS + S_PREVIEW))))
            *name = SPAN;
        else
            return -1;
    }
    *how = text_is(name, "feedback-record") ? D_FEEDBACK : text_is(name, "truncation-span") ? D_TRUNCATION_SPAN
                                                                                            : D_TRACETUI;
    return 0;
}
