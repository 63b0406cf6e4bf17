/* A span's OTLP/JSON bytes as a protobuf Span message, for _otlp_row.c (its translation unit).
 *
 * The OTLP/HTTP sender's http/protobuf encodes each span the fast path wrote: in Python that
 * was orjson's parse and otlp_proto.span (about 37 us a span). Here the JSON of the shape the
 * writers produce (the keys in otlp.Exporter's order; attributes of string, int, bool or string
 * array values; links; status) is read with _otlp_json.h's parser and written with the field
 * numbers, order and proto3 defaults otlp_proto.span uses. Anything else returns None and
 * Python encodes that span; tests/unit/test_otlp_row_proto.py holds the two to the same bytes.
 */

static void pb_varint(Buf *b, uint64_t v) {
    char t[10];
    int n = 0;
    while (v >= 0x80) {
        t[n++] = (char)((v & 0x7F) | 0x80);
        v >>= 7;
    }
    t[n++] = (char)v;
    buf_put(b, t, n);
}

/* A length-delimited field: its tag, then room for the length, filled in by pb_close. */
static Py_ssize_t pb_open(Buf *b, unsigned char tag) {
    buf_put(b, (const char *)&tag, 1);
    Py_ssize_t at = b->n;
    buf_put(b, "\0\0\0\0\0", 5);
    return at;
}

static void pb_close(Buf *b, Py_ssize_t at) {
    if (b->failed) return;
    Py_ssize_t len = b->n - at - 5;
    char t[10];
    int k = 0;
    uint64_t v = (uint64_t)len;
    while (v >= 0x80) {
        t[k++] = (char)((v & 0x7F) | 0x80);
        v >>= 7;
    }
    t[k++] = (char)v;
    memmove(b->p + at + k, b->p + at + 5, len);
    memcpy(b->p + at, t, k);
    b->n -= 5 - k;
}

static int expect(Cur *c, char ch) {
    skip_ws(c);
    if (c->p >= c->end || *c->p != ch) return -1;
    c->p++;
    return 0;
}

/* The next key of an object, which must be `name`. */
static int expect_key(Cur *c, const char *name) {
    Val k;
    skip_ws(c);
    if (c->p >= c->end || *c->p != '"' || p_string(c, &k) || k.esc) return -1;
    if (k.n != (Py_ssize_t)strlen(name) || memcmp(k.p, name, k.n)) return -1;
    return expect(c, ':');
}

/* A string value, decoded into the arena (t->p valid until the arena is reset). */
static int read_text(Cur *c, Buf *arena, Text *t) {
    Val v;
    skip_ws(c);
    if (c->p >= c->end || *c->p != '"' || p_string(c, &v)) return -1;
    return get_text(&v, arena, t);
}

static int hexval(unsigned char h) {
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
}

/* An id in lowercase hex (2 * n digits) as n bytes, tag first; an empty id is left out. */
static int pb_hex(Cur *c, Buf *arena, Buf *b, unsigned char tag, int n) {
    Text t;
    if (read_text(c, arena, &t)) return -1;
    if (t.n == 0) return 0;
    if (t.n != 2 * n) return -1;
    unsigned char out[16];
    for (int i = 0; i < n; i++) {
        int hi = hexval(t.p[2 * i]), lo = hexval(t.p[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    buf_put(b, (const char *)&tag, 1);
    pb_varint(b, n);
    buf_put(b, (const char *)out, n);
    return 0;
}

/* A decimal integer in a JSON string ("intValue", times) as otlp_proto writes it: modulo
 * 2**64 (n & _MASK64, which a time past 64 bits meets); *nonzero says whether n itself is 0. */
static int read_decimal(Cur *c, Buf *arena, uint64_t *out, int *nonzero) {
    Text t;
    if (read_text(c, arena, &t) || t.n == 0 || t.n > 4000) return -1; /* int()'s digit limit */
    int neg = t.p[0] == '-';
    if (neg && t.n == 1) return -1;
    uint64_t v = 0; /* wraps: the low 64 bits */
    *nonzero = 0;
    for (Py_ssize_t i = neg; i < t.n; i++) {
        if (t.p[i] < '0' || t.p[i] > '9') return -1;
        v = v * 10 + (uint64_t)(t.p[i] - '0');
        *nonzero |= t.p[i] != '0';
    }
    *out = neg ? (uint64_t)0 - v : v;
    return 0;
}

static void pb_text(Buf *b, unsigned char tag, const Text *t) {
    buf_put(b, (const char *)&tag, 1);
    pb_varint(b, (uint64_t)t->n);
    buf_put(b, (const char *)t->p, t->n);
}

/* {"stringValue": …} | {"intValue": "…"} | {"boolValue": …} | {"arrayValue": {"values": […]}}
 * as an AnyValue message's fields. */
static int pb_any(Cur *c, Buf *arena, Buf *b, int depth) {
    Val k;
    Text t;
    if (expect(c, '{')) return -1;
    skip_ws(c);
    if (c->p >= c->end || *c->p != '"' || p_string(c, &k) || k.esc || expect(c, ':')) return -1;
    if (k.n == 11 && !memcmp(k.p, "stringValue", 11)) {
        if (read_text(c, arena, &t)) return -1;
        pb_text(b, 0x0A, &t);
    } else if (k.n == 8 && !memcmp(k.p, "intValue", 8)) {
        uint64_t v;
        int nonzero;
        if (read_decimal(c, arena, &v, &nonzero)) return -1;
        buf_lit(b, "\x18");
        pb_varint(b, v);
    } else if (k.n == 9 && !memcmp(k.p, "boolValue", 9)) {
        skip_ws(c);
        if (c->end - c->p >= 4 && !memcmp(c->p, "true", 4)) c->p += 4, buf_put(b, "\x10\x01", 2);
        else if (c->end - c->p >= 5 && !memcmp(c->p, "false", 5)) c->p += 5, buf_put(b, "\x10\x00", 2);
        else return -1;
    } else if (k.n == 10 && !memcmp(k.p, "arrayValue", 10) && depth == 0) {
        Py_ssize_t array = pb_open(b, 0x2A);
        if (expect(c, '{') || expect_key(c, "values") || expect(c, '[')) return -1;
        skip_ws(c);
        if (c->p < c->end && *c->p == ']') c->p++;
        else
            for (;;) {
                Py_ssize_t item = pb_open(b, 0x0A);
                if (pb_any(c, arena, b, depth + 1)) return -1;
                pb_close(b, item);
                skip_ws(c);
                if (c->p < c->end && *c->p == ']') {
                    c->p++;
                    break;
                }
                if (expect(c, ',')) return -1;
            }
        if (expect(c, '}')) return -1;
        pb_close(b, array);
    } else {
        return -1; /* doubles, kvlists, bytes: Python's (the writers make none) */
    }
    return expect(c, '}');
}

/* A list of {"key": …, "value": {…}} as repeated KeyValue fields of tag `tag`. */
static int pb_attributes(Cur *c, Buf *arena, Buf *b, unsigned char tag) {
    if (expect(c, '[')) return -1;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return 0;
    }
    for (;;) {
        Text key;
        Py_ssize_t kv = pb_open(b, tag);
        if (expect(c, '{') || expect_key(c, "key") || read_text(c, arena, &key)) return -1;
        pb_text(b, 0x0A, &key);
        if (expect(c, ',') || expect_key(c, "value")) return -1;
        Py_ssize_t value = pb_open(b, 0x12);
        if (pb_any(c, arena, b, 0) || expect(c, '}')) return -1;
        pb_close(b, value);
        pb_close(b, kv);
        skip_ws(c);
        if (c->p < c->end && *c->p == ']') {
            c->p++;
            return 0;
        }
        if (expect(c, ',')) return -1;
    }
}

static int pb_fixed64(Cur *c, Buf *arena, Buf *b, unsigned char tag) {
    uint64_t v;
    int nonzero;
    if (read_decimal(c, arena, &v, &nonzero)) return -1;
    if (!nonzero) return 0; /* proto3: a zero is not written */
    unsigned char t[9] = {tag};
    for (int i = 0; i < 8; i++) t[1 + i] = (unsigned char)(v >> (8 * i));
    buf_put(b, (const char *)t, 9);
    return 0;
}

/* The whole Span message of one span's JSON into b; -1 for any other shape. */
static int span_proto(const unsigned char *p, Py_ssize_t n, Buf *arena, Buf *b) {
    Cur c = {NULL, p, p + n};
    Text t;
    Val v;
    if (expect(&c, '{') || expect_key(&c, "traceId") || pb_hex(&c, arena, b, 0x0A, 16)) return -1;
    if (expect(&c, ',') || expect_key(&c, "spanId") || pb_hex(&c, arena, b, 0x12, 8)) return -1;
    if (expect(&c, ',') || expect_key(&c, "name") || read_text(&c, arena, &t)) return -1;
    if (t.n) pb_text(b, 0x2A, &t);
    if (expect(&c, ',') || expect_key(&c, "kind")) return -1;
    skip_ws(&c);
    int64_t kind;
    int has;
    if (c.p >= c.end || p_number(&c, &v) || get_int(&v, &has, &kind) || kind < 0) return -1;
    if (kind) {
        buf_lit(b, "\x30");
        pb_varint(b, (uint64_t)kind);
    }
    if (expect(&c, ',') || expect_key(&c, "startTimeUnixNano") || pb_fixed64(&c, arena, b, 0x39)) return -1;
    if (expect(&c, ',') || expect_key(&c, "endTimeUnixNano") || pb_fixed64(&c, arena, b, 0x41)) return -1;
    if (expect(&c, ',') || expect_key(&c, "attributes") || pb_attributes(&c, arena, b, 0x4A)) return -1;
    skip_ws(&c);
    if (c.p < c.end && *c.p == ',') {
        const unsigned char *back = c.p;
        c.p++;
        if (!expect_key(&c, "links")) {
            if (expect(&c, '[')) return -1;
            for (;;) {
                Py_ssize_t link = pb_open(b, 0x6A);
                if (expect(&c, '{') || expect_key(&c, "traceId") || pb_hex(&c, arena, b, 0x0A, 16) ||
                    expect(&c, ',') || expect_key(&c, "spanId") || pb_hex(&c, arena, b, 0x12, 8) ||
                    expect(&c, ',') || expect_key(&c, "attributes") || pb_attributes(&c, arena, b, 0x22) ||
                    expect(&c, '}'))
                    return -1;
                pb_close(b, link);
                skip_ws(&c);
                if (c.p < c.end && *c.p == ']') {
                    c.p++;
                    break;
                }
                if (expect(&c, ',')) return -1;
            }
        } else {
            c.p = back;
        }
    }
    skip_ws(&c);
    if (c.p < c.end && *c.p == ',') {
        c.p++;
        int64_t code;
        if (expect_key(&c, "status") || expect(&c, '{') || expect_key(&c, "code")) return -1;
        skip_ws(&c);
        if (c.p >= c.end || p_number(&c, &v) || get_int(&v, &has, &code) || code < 0) return -1;
        if (expect(&c, ',') || expect_key(&c, "message") || read_text(&c, arena, &t) || expect(&c, '}')) return -1;
        Py_ssize_t status = pb_open(b, 0x7A);
        if (t.n) pb_text(b, 0x12, &t);
        if (code) {
            buf_lit(b, "\x18");
            pb_varint(b, (uint64_t)code);
        }
        pb_close(b, status);
    }
    if (expect(&c, '}')) return -1;
    skip_ws(&c);
    return c.p == c.end && !b->failed ? 0 : -1;
}

static PyObject *m_span_proto(PyObject *mod, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    Buf arena = {0}, b = {0};
    buf_reserve(&arena, view.len + 16);
    PyObject *res;
    if (arena.failed) res = PyErr_NoMemory();
    else if (span_proto(view.buf, view.len, &arena, &b)) res = b.failed ? PyErr_NoMemory() : Py_NewRef(Py_None);
    else res = PyBytes_FromStringAndSize(b.p, b.n);
    PyBuffer_Release(&view);
    PyMem_Free(arena.p);
    PyMem_Free(b.p);
    return res;
}
