/* Rows.run (a run of rows at a time), the Rows type, the test hooks and the module, for
 * _otlp_row.c (its translation unit). */

/* Index columns, borrowed for one call of Rows.run (arrays: the buffer protocol). */
typedef struct {
    Py_buffer view[5];
    int held;
} Columns;

static void columns_release(Columns *c) {
    for (int i = 0; i < c->held; i++) PyBuffer_Release(&c->view[i]);
    c->held = 0;
}

static int columns_get(Columns *c, PyObject *const *cols, Py_ssize_t rows) {
    /* offset q, length q, flags B, member_no H, line_no i */
    static const char FORMATS[5] = {'q', 'q', 'B', 'H', 'i'};
    static const Py_ssize_t SIZES[5] = {8, 8, 1, 2, 4};
    c->held = 0;
    for (int i = 0; i < 5; i++) {
        if (PyObject_GetBuffer(cols[i], &c->view[i], PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) goto fail;
        c->held++;
        Py_buffer *v = &c->view[i];
        if (v->itemsize != SIZES[i] || !v->format || v->format[0] != FORMATS[i] || v->format[1] ||
            v->len / v->itemsize < rows) {
            PyErr_SetString(PyExc_TypeError, "run: index columns of unexpected type or length");
            goto fail;
        }
    }
    return 0;
fail:
    columns_release(c);
    return -1;
}

/* run(buf, buf_start, first, last, member, path_json, out, limit, offset, length, flags, member_no,
 * line_no) -> (row, spans): the spans of rows first..last-1 appended to out (a list: one bytes
 * object each; a bytearray: joined with commas), for the rows of `member` whose line lies inside
 * buf (a chunk of the member read from buf_start); bad and sidecar rows skipped. Returns the
 * first row it did not do (`last`, a row of another member or past the chunk, a row the C road
 * declines, which Python reads, or the row after `limit` spans) and the spans written. */
static PyObject *Rows_run(Rows *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 13 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[5]) ||
        !(PyList_Check(args[6]) || PyByteArray_Check(args[6]))) {
        PyErr_SetString(PyExc_TypeError,
                        "run(buf, buf_start, first, last, member, path_json, out, limit, *columns)");
        return NULL;
    }
    long long buf_start = PyLong_AsLongLong(args[1]);
    Py_ssize_t first = PyLong_AsSsize_t(args[2]), last = PyLong_AsSsize_t(args[3]);
    long member = PyLong_AsLong(args[4]);
    Py_ssize_t limit = PyLong_AsSsize_t(args[7]);
    if (PyErr_Occurred()) return NULL;
    if (first < 0) {
        PyErr_SetString(PyExc_ValueError, "run: first must not be negative");
        return NULL;
    }
    const unsigned char *buf = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    long long buf_len = PyBytes_GET_SIZE(args[0]);
    PyObject *out = args[6];
    int joined = PyByteArray_Check(out);
    Buf *batch = &self->batch;
    batch->n = 0;
    batch->failed = 0;
    Py_ssize_t done = 0;
    Columns c;
    if (columns_get(&c, args + 8, last) < 0) return NULL;
    const int64_t *offset = c.view[0].buf, *length = c.view[1].buf;
    const unsigned char *flags = c.view[2].buf;
    const unsigned short *member_no = c.view[3].buf;
    const int *line_no = c.view[4].buf;
    Py_ssize_t row = first;
    for (; row < last && done < limit; row++) {
        if (flags[row] & SKIP_FLAGS) continue;
        if (member_no[row] != member) break;
        long long at = offset[row] - buf_start;
        if (at < 0 || at + length[row] > buf_len) break;
        int rc = row_write(self, row, buf + at, (Py_ssize_t)length[row], flags[row] & MAY_MARK_FLAGS, args[5],
                           line_no[row]);
        if (rc == 0) break;
        if (rc > 0 && joined) {
            /* Spans joined with commas in a buffer kept across calls (no bytes object per span,
             * no growing allocation per batch), copied into the bytearray once at the end. */
            if (batch->n) buf_lit(batch, ",");
            buf_put(batch, self->out.p, self->out.n);
            if (batch->failed) {
                PyErr_NoMemory();
                rc = -1;
            }
        } else if (rc > 0) {
            PyObject *span = PyBytes_FromStringAndSize(self->out.p, self->out.n);
            rc = !span || PyList_Append(out, span) < 0 ? -1 : 1;
            Py_XDECREF(span);
        }
        if (rc < 0) {
            columns_release(&c);
            return NULL;
        }
        done++;
    }
    columns_release(&c);
    if (joined && batch->n) {
        Py_ssize_t size = PyByteArray_GET_SIZE(out);
        if (PyByteArray_Resize(out, size + (size > 0) + batch->n) < 0) return NULL;
        char *dst = PyByteArray_AS_STRING(out) + size;
        if (size) *dst++ = ',';
        memcpy(dst, batch->p, batch->n);
    }
    return Py_BuildValue("nn", row, done);
}

static int Rows_init(Rows *self, PyObject *args, PyObject *kw) {
    PyObject *o[10];
    if (!PyArg_ParseTuple(args, "SSO!O!O!OOOOO!:Rows", &o[0], &o[1], &PyList_Type, &o[2], &PyDict_Type, &o[3],
                          &PyDict_Type, &o[4], &o[5], &o[6], &o[7], &o[8], &PyTuple_Type, &o[9]))
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(o[9]); i++)
        if (!PyBytes_Check(PyTuple_GET_ITEM(o[9], i)) || !PyBytes_GET_SIZE(PyTuple_GET_ITEM(o[9], i))) {
            PyErr_SetString(PyExc_TypeError, "hints must be non-empty bytes");
            return -1;
        }
    PyObject **slot[10] = {&self->span_prefix, &self->trace_prefix, &self->ids, &self->duplicates, &self->parent_ids,
                           &self->row_key, &self->root_of, &self->parent_row, &self->find_marker, &self->hints};
    for (int i = 0; i < 10; i++) {
        Py_INCREF(o[i]);
        Py_XSETREF(*slot[i], o[i]);
    }
    self->stamp_state = -2;
    return 0;
}

static void Rows_dealloc(Rows *self) {
    Py_XDECREF(self->span_prefix);
    Py_XDECREF(self->trace_prefix);
    Py_XDECREF(self->ids);
    Py_XDECREF(self->duplicates);
    Py_XDECREF(self->parent_ids);
    Py_XDECREF(self->row_key);
    Py_XDECREF(self->root_of);
    Py_XDECREF(self->parent_row);
    Py_XDECREF(self->find_marker);
    Py_XDECREF(self->hints);
    Py_XDECREF(self->last_end_big);
    PyMem_Free(self->out.p);
    PyMem_Free(self->arena.p);
    PyMem_Free(self->stamp.p);
    PyMem_Free(self->batch.p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Rows_get_last_end(Rows *self, void *closure) {
    if (self->last_end_big) return Py_NewRef(self->last_end_big);
    return PyLong_FromLongLong(self->last_end);
}

static int Rows_set_last_end(Rows *self, PyObject *value, void *closure) {
    if (!value || !PyLong_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "last_end is an int");
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    Py_CLEAR(self->last_end_big);
    self->last_end_sign = overflow;
    if (overflow) self->last_end_big = Py_NewRef(value);
    else self->last_end = v;
    return 0;
}

static PyMethodDef ROWS_METHODS[] = {
    {"span", (PyCFunction)(void (*)(void))Rows_span, METH_FASTCALL,
     "span(row, line, may_mark, path_json, line_no): the span's JSON bytes, or None for Python to read."},
    {"run", (PyCFunction)(void (*)(void))Rows_run, METH_FASTCALL,
     "run(buf, buf_start, first, last, member, path_json, out, limit, offset, length, flags, member_no, "
     "line_no): the spans of a run of rows; returns (the first row not done, spans written)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ROWS_GETSET[] = {
    {"last_end", (getter)Rows_get_last_end, (setter)Rows_set_last_end, "The latest span end so far (ns).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject RowsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tracetui.export._otlp_row.Rows",
    .tp_basicsize = sizeof(Rows),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One run's ordinary rows as OTLP/JSON spans.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Rows_init,
    .tp_dealloc = (destructor)Rows_dealloc,
    .tp_methods = ROWS_METHODS,
    .tp_getset = ROWS_GETSET,
};

/* Test hooks: the pieces on their own, for tests/unit/test_otlp_row.py. */
static PyObject *m_hex_id(PyObject *mod, PyObject *args) {
    const char *p, *t;
    Py_ssize_t np, nt;
    int chars;
    if (!PyArg_ParseTuple(args, "y#y#i", &p, &np, &t, &nt, &chars)) return NULL;
    if (chars != 16 && chars != 32) {
        PyErr_SetString(PyExc_ValueError, "chars is 16 or 32");
        return NULL;
    }
    char out[32];
    sha_hex_id((const unsigned char *)p, np, (const unsigned char *)t, nt, chars, out);
    return PyUnicode_FromStringAndSize(out, chars);
}

static PyObject *m_nanos(PyObject *mod, PyObject *arg) {
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "nanos(stamp: bytes)");
        return NULL;
    }
    int64_t out = 0;
    int rc = stamp_nanos((const unsigned char *)PyBytes_AS_STRING(arg), PyBytes_GET_SIZE(arg), &out);
    if (rc < 0) return PyUnicode_FromString("python");
    if (!rc) Py_RETURN_NONE;
    return PyLong_FromLongLong(out);
}

static PyObject *m_text_json(PyObject *mod, PyObject *arg) {
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "text_json(utf8: bytes)");
        return NULL;
    }
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(arg), *end = p + PyBytes_GET_SIZE(arg);
    for (const unsigned char *q = p; q < end;) {
        uint32_t cp;
        int k = *q < 0x80 ? 1 : utf8_seq(q, end, &cp);
        if (!k) {
            PyErr_SetString(PyExc_ValueError, "not UTF-8");
            return NULL;
        }
        q += k;
    }
    Buf b = {0};
    put_text(&b, p, end - p);
    PyObject *res = b.failed ? PyErr_NoMemory() : PyBytes_FromStringAndSize(b.p, b.n);
    PyMem_Free(b.p);
    return res;
}

static PyObject *m_last_decline(PyObject *mod, PyObject *unused) { return PyLong_FromLong(decline_line); }

static PyMethodDef METHODS[] = {
    {"last_decline", m_last_decline, METH_NOARGS, "The source line (of _otlp_build.h) that declined the last row."},
    {"hex_id", m_hex_id, METH_VARARGS, "hex_id(prefix, text, chars): otlp._hex_id of prefix + text."},
    {"nanos", m_nanos, METH_O, "nanos(stamp): otlp.unix_nanos, None, or 'python' when undecided."},
    {"text_json", m_text_json, METH_O, "text_json(utf8): dump_json of the string."},
    {"span_proto", m_span_proto, METH_O,
     "span_proto(span_json): the protobuf Span of one span's OTLP/JSON, or None for Python to encode."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_otlp_row", NULL, -1, METHODS, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__otlp_row(void) {
    key_table_init();
    if (PyType_Ready(&RowsType) < 0) return NULL;
    PyObject *m = PyModule_Create(&MODULE);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "SKIP_FLAGS", SKIP_FLAGS) < 0 ||
        PyModule_AddIntConstant(m, "MAY_MARK_FLAGS", MAY_MARK_FLAGS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&RowsType);
    if (PyModule_AddObject(m, "Rows", (PyObject *)&RowsType) < 0) {
        Py_DECREF(&RowsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
