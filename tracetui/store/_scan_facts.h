/* The scanner's verdicts on one parsed line: stream facts, exit, flags and lint marks, by the same
 * rules as the Python path (tracetui/model/truncation.py, spans.judge_exit, model/marks.py).
 *
 * Part of the C scanner, included once by _scan.c (one translation unit, so every function
 * stays static and the compiler sees the whole hot loop); not a header to include elsewhere.
 */
#ifndef TRACETUI__SCAN_FACTS_H
#define TRACETUI__SCAN_FACTS_H

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
static uint8_t row_marks(Val *vals, const Val *ex, int t_out, int t_err, int64_t h_out, int64_t h_err) {
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
    /* TT020: cut with no byte count and no hidden bytes known (cut by its flag: a marker in a
     * preview sends the line to Python; a feedback tail's own marker states its bytes). */
    if ((t_out == 1 && is_none(&vals[K_OUT_BYTES]) && h_out == NO_VALUE) ||
        (t_err == 1 && is_none(&vals[K_ERR_BYTES]) && h_err == NO_VALUE))
        m |= M_UNSIZED;
    return m;
}

/* The count of the first tracetui marker ("…[truncated N bytes]…") in a feedback record's tail,
 * as find_marker() reads it (the first family it tries, the first match in the text): 1 with
 * *count set, 0 when there is none, -1 when only Python can say (a character outside ASCII where
 * the digits are, which may be a digit to Python's \d; more digits than fit). A tail with a \u
 * escape never gets here (its text may spell a marker its bytes do not show): every other escape
 * decodes to a character no marker holds, so the marker's bytes are its text. */
static int own_marker_count(const unsigned char *s, Py_ssize_t n, int64_t *count) {
    static const char OPEN[] = "\xe2\x80\xa6[truncated ", CLOSE[] = " bytes]\xe2\x80\xa6";
    const Py_ssize_t lo = (Py_ssize_t)sizeof(OPEN) - 1, lc = (Py_ssize_t)sizeof(CLOSE) - 1;
    const unsigned char *p = s, *end = s + n;
    while (end - p >= lo) {
        const unsigned char *at = memchr(p, 0xE2, (size_t)(end - p - lo + 1));
        if (!at) return 0;
        p = at + 1;
        if (memcmp(at, OPEN, (size_t)lo) != 0) continue;
        const unsigned char *d = at + lo, *digits = d;
        while (d < end && *d >= '0' && *d <= '9') d++;
        if (d < end && *d >= 0x80) return -1;
        if (d == digits || end - d < lc || memcmp(d, CLOSE, (size_t)lc) != 0) continue;
        if (d - digits > 15) return -1; /* 15 digits stay under HIDDEN_LIMIT */
        int64_t v = 0;
        for (const unsigned char *q = digits; q < d; q++) v = v * 10 + (*q - '0');
        *count = v;
        return 1;
    }
    return 0;
}

/* Whether a preview as written holds tracetui's own marker, "…[truncated N bytes]…" with N in ASCII
 * digits, in plain bytes (so its text holds it too, whatever escapes are elsewhere). */
static int has_own_marker(const unsigned char *s, Py_ssize_t n) {
    static const char OPEN[] = "\xe2\x80\xa6[truncated ", CLOSE[] = " bytes]\xe2\x80\xa6";
    const Py_ssize_t lo = (Py_ssize_t)sizeof(OPEN) - 1, lc = (Py_ssize_t)sizeof(CLOSE) - 1;
    const unsigned char *p = s, *end = s + n;
    while (end - p >= lo + 1 + lc) {
        const unsigned char *at = memchr(p, 0xE2, (size_t)(end - p - lo - lc));
        if (!at) return 0;
        p = at + 1;
        if (memcmp(at, OPEN, (size_t)lo) != 0) continue;
        const unsigned char *d = at + lo;
        while (d < end && *d >= '0' && *d <= '9') d++;
        if (d > at + lo && end - d >= lc && memcmp(d, CLOSE, (size_t)lc) == 0) return 1;
    }
    return 0;
}

/* TT019's and TT022's verdicts on a row of ours that failed or was cut (model/marks.py HEAD_CUT,
 * SAYS_PASS), so that summary's suspicion count need not read it again; M_ALL when the scanner
 * cannot give one (a cut stream's preview may hold a marker naming another clip, a note too long
 * to read here): then the row is read, as a row the scanner did not judge. */
static uint8_t incident_marks(Val *vals, uint8_t m, const Val *ex, int t_out, int t_err) {
    int failed = ex->kind == V_INT && ex->num != 0; /* a real nonzero exit */
    if (failed) { /* TT019: a cut stream kept its head, as its own {s}_clip says */
        const int T[2] = {t_out, t_err}, PREV[2] = {K_OUT_PREVIEW, K_ERR_PREVIEW}, CLIP[2] = {K_OUT_CLIP, K_ERR_CLIP};
        for (int s = 0; s < 2; s++) {
            if (T[s] != 1) continue;
            const Val *prev = &vals[PREV[s]];
            /* A marker's clip would decide; tracetui's own marker (the first family find_marker
             * tries) names none, so with it the record's clip does. */
            if (prev->kind == V_STR && prev->hint && !has_own_marker(prev->s, prev->slen)) return M_ALL;
            if (str_eq(&vals[CLIP[s]], "head")) m |= M_HEAD_CUT;
        }
    }
    const Val *note = &vals[K_NOTE];
    if ((failed || t_out == 1 || t_err == 1) && note->kind == V_STR) {
        int says = note_says_pass(note->s, note->slen);
        if (says < 0) return M_ALL;
        if (says) m |= M_SAYS_PASS;
    }
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
        /* A tail's marker makes its stream cut; tracetui's own, read here, states the bytes. */
        int t[2] = {-1, -1};
        int64_t h[2] = {NO_VALUE, NO_VALUE};
        for (int k = K_OUT_TAIL; k <= K_ERR_TAIL; k++) {
            Val *v = &vals[k];
            if (!(is_none(v) || v->kind == V_STR)) return f;
            if (v->kind == V_STR && v->hint) {
                int64_t count;
                if (v->speller || own_marker_count(v->s, v->slen, &count) != 1) return f;
                t[k - K_OUT_TAIL] = 1;
                h[k - K_OUT_TAIL] = count;
            }
        }
        t_out = t[0];
        t_err = t[1];
        h_out = h[0];
        h_err = h[1];
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
    f.marks = row_marks(vals, ex, t_out, t_err, h_out, h_err);
    if (!(f.marks & M_IMPORTED)) f.marks = incident_marks(vals, f.marks, ex, t_out, t_err);
    f.ok = 1;
    return f;
}

#endif /* TRACETUI__SCAN_FACTS_H */
