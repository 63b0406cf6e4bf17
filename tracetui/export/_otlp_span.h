/* The span itself for _otlp_row.c (part of its translation unit): ids, times, and the bytes in
 * otlp._attributes' order, then the Rows type and the module. */

typedef struct {
    PyObject_HEAD
    PyObject *span_prefix, *trace_prefix; /* "tracetui span\0{run}\0" as otlp.span_id encodes it */
    PyObject *ids, *duplicates, *parent_ids;
    PyObject *row_key, *root_of, *parent_row, *find_marker, *hints;
    int64_t last_end;
    PyObject *last_end_big; /* set: a previous end past 64 bits (last_end_sign its sign) */
    int last_end_sign;
    Buf out, arena, stamp, batch; /* a span, its decoded texts, the last time, Rows.run's spans */
    int stamp_state; /* the previous row's started_at (in `stamp`): stamp_nanos' answer */
    int64_t stamp_nanos;
    Rec rec;
} Rows;

/* What a row's id is derived from (otlp.row_key): into *p, *n, kept alive by *hold. */
static int key_of(Rows *self, Py_ssize_t row, PyObject **hold, const char **p, Py_ssize_t *n, char *local) {
    *hold = NULL;
    if (row < 0 || row >= PyList_GET_SIZE(self->ids)) return -1;
    PyObject *cid = PyList_GET_ITEM(self->ids, row), *key = cid;
    if (cid == Py_None) {
        *n = snprintf(local, 32, "row %zd", row);
        *p = local;
        return 0;
    }
    if (!PyUnicode_CheckExact(cid)) return -1;
    PyObject *dupes = PyDict_GetItemWithError(self->duplicates, cid);
    if (!dupes && PyErr_Occurred()) return -2;
    if (dupes && PyList_Check(dupes) && PyList_GET_SIZE(dupes) > 0) {
        Py_ssize_t first = PyLong_AsSsize_t(PyList_GET_ITEM(dupes, 0));
        if (first == -1 && PyErr_Occurred()) return -2;
        if (first != row) {
            key = *hold = PyObject_CallFunction(self->row_key, "n", row);
            if (!key) return -2;
            if (!PyUnicode_Check(key)) return -1;
        }
    }
    *p = PyUnicode_AsUTF8AndSize(key, n);
    if (!*p) {
        PyErr_Clear(); /* a lone surrogate: Python encodes it (surrogatepass) */
        return -1;
    }
    return 0;
}

static int id_of(Rows *self, Py_ssize_t row, PyObject *prefix, int chars, char *out) {
    PyObject *hold;
    const char *p;
    Py_ssize_t n;
    char local[32];
    int rc = key_of(self, row, &hold, &p, &n, local);
    if (!rc)
        sha_hex_id((const unsigned char *)PyBytes_AS_STRING(prefix), PyBytes_GET_SIZE(prefix), (const unsigned char *)p,
                   n, chars, out);
    Py_XDECREF(hold);
    return rc;
}

/* A row index answered by a Python callable (an int, or None as -1). */
static int call_row(PyObject *fn, PyObject *row, Py_ssize_t *out) {
    PyObject *res = PyObject_CallOneArg(fn, row);
    if (!res) return -2;
    *out = res == Py_None ? -1 : PyLong_AsSsize_t(res);
    Py_DECREF(res);
    return *out == -1 && PyErr_Occurred() ? -2 : 0;
}

static void a_open(Buf *b, const char *key) {
    buf_lit(b, ",{\"key\":\"");
    buf_str(b, key);
    buf_lit(b, "\",\"value\":{");
}

static void a_text(Buf *b, const char *key, const unsigned char *s, Py_ssize_t n) {
    a_open(b, key);
    buf_lit(b, "\"stringValue\":");
    put_text(b, s, n);
    buf_lit(b, "}}");
}

static void a_int(Buf *b, const char *key, int64_t v) {
    a_open(b, key);
    buf_lit(b, "\"intValue\":\"");
    buf_int(b, v);
    buf_lit(b, "\"}}");
}

static void a_bool(Buf *b, const char *key, int v) {
    a_open(b, key);
    buf_str(b, v ? "\"boolValue\":true}}" : "\"boolValue\":false}}");
}

static const char *const STREAM_KEYS[2][9] = {
    {"tracetui.stdout.bytes", "tracetui.stdout.cap", "tracetui.stdout.truncated", "tracetui.stdout.clip",
     "tracetui.stdout.hidden_bytes", "tracetui.stdout.shown_bytes", "tracetui.stdout.full_sha256",
     "tracetui.stdout.items", "tracetui.stdout.preview_items"},
    {"tracetui.stderr.bytes", "tracetui.stderr.cap", "tracetui.stderr.truncated", "tracetui.stderr.clip",
     "tracetui.stderr.hidden_bytes", "tracetui.stderr.shown_bytes", "tracetui.stderr.full_sha256",
     "tracetui.stderr.items", "tracetui.stderr.preview_items"},
};
static const char *const CLIP_NAMES[4] = {"", "head", "tail", "head_tail"};

static void put_stream(Buf *b, const Stream *s, int k) {
    const char *const *key = STREAM_KEYS[k];
    if (s->has_bytes) a_int(b, key[0], s->nbytes);
    if (s->has_cap) a_int(b, key[1], s->cap);
    if (s->trunc >= 0) a_bool(b, key[2], s->trunc);
    if (s->clip) a_text(b, key[3], (const unsigned char *)CLIP_NAMES[s->clip], (Py_ssize_t)strlen(CLIP_NAMES[s->clip]));
    if (s->has_hidden) a_int(b, key[4], s->hidden);
    if (s->has_shown) a_int(b, key[5], s->shown);
    if (s->full.has) a_text(b, key[6], s->full.p, s->full.n);
    if (s->has_items) a_int(b, key[7], s->items);
    if (s->has_pitems) a_int(b, key[8], s->pitems);
}

/* A duration's literal as the reference reads it (float()); -1 when this cannot say exactly. */
static int get_duration(const Val *v, int *has, double *out) {
    *has = 0;
    if (absent(v)) return 0;
    if (v->kind != V_INT && v->kind != V_FLOAT) return -1;
    if (v->n > 40 || (v->kind == V_INT && v->n > 18)) return -1;
    char lit[48];
    memcpy(lit, v->p, v->n);
    lit[v->n] = 0;
    double d = strtod(lit, NULL);
    if (!(d > -9007199254740992.0 && d < 9007199254740992.0)) return -1; /* NUM_MAX, and NaN */
    *has = 1;
    *out = d;
    return 0;
}

/* The start time of a row, with the previous row's answer reused for the same text. */
static int start_of(Rows *self, const Text *t, int64_t *out) {
    if (!t->has) return 0;
    if (!(self->stamp_state != -2 && self->stamp.n == t->n && !memcmp(self->stamp.p, t->p, t->n))) {
        self->stamp.n = 0;
        buf_put(&self->stamp, (const char *)t->p, t->n);
        if (self->stamp.failed) return -1;
        self->stamp_state = stamp_nanos(t->p, t->n, &self->stamp_nanos);
    }
    *out = self->stamp_nanos;
    return self->stamp_state;
}

