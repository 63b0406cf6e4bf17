/* Bounds of a cached column, checked without an int per row (tracetui/store/cache_parts.py).
 *
 * A warm open reads each member's row offsets and line ends back from the persistent index and
 * must not trust them: a row read later at an offset past its member, or a line end far past
 * it, would read the wrong bytes or ask for a huge buffer. Python's `max` over the column made
 * a Python int of each of a million values (~0.09 s of a warm million-row open); this walks the
 * raw bytes.
 *
 * within(buffer, top): True when every int64 of the buffer (native byte order, as the cache
 * writes its columns) is in 0..top. ValueError when the buffer is not a whole number of int64s.
 *
 * only_text(list, none_too): True when every item of the list is a str (exactly, as JSON gives
 * them), or None where none_too is true. The command ids read back as JSON must be nothing else;
 * `set(map(type, ids))` asked a type of each of a million items (~0.03 s).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

static PyObject *within(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    long long top;
    if (!PyArg_ParseTuple(args, "y*L", &view, &top)) {
        return NULL;
    }
    if (view.len % 8) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "not a whole number of int64 values");
        return NULL;
    }
    const unsigned char *p = (const unsigned char *)view.buf;
    Py_ssize_t n = view.len / 8;
    int ok = 1;
    if (top < 0) {
        ok = n == 0; /* no value is in 0..top */
    }
    Py_BEGIN_ALLOW_THREADS
    /* Unsigned, one comparison a value: a negative value reads as one above any top >= 0. */
    uint64_t limit = (uint64_t)top;
    uint64_t over = 0;
    for (Py_ssize_t i = 0; ok && i < n; i += 4096) {
        Py_ssize_t stop = i + 4096 < n ? i + 4096 : n;
        for (Py_ssize_t k = i; k < stop; k++) {
            uint64_t v;
            memcpy(&v, p + 8 * k, 8); /* the buffer need not be aligned */
            over |= (uint64_t)(v > limit);
        }
        ok = !over;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyBool_FromLong(ok);
}

static PyObject *only_text(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *items;
    int none_too;
    if (!PyArg_ParseTuple(args, "O!p", &PyList_Type, &items, &none_too)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyUnicode_CheckExact(item) && !(none_too && item == Py_None)) {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef METHODS[] = {
    {"within", within, METH_VARARGS, "Whether every int64 of the buffer is in 0..top."},
    {"only_text", only_text, METH_VARARGS, "Whether every item is a str (or None, if allowed)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "_bounds", "Bounds of a cached column.", -1, METHODS, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bounds(void) { return PyModule_Create(&MODULE); }
