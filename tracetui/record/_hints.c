/* Which of the redaction rules' hint words a text holds, in one pass (tracetui/record/redact.py).
 *
 * Every default redaction rule names words, one of which each of its matches holds whatever its
 * case (Rule.hints); a text holding none of a rule's words is not searched by that rule. Looking
 * for the ~30 words one `in` at a time costs a pass over the text each, more than all the
 * searches they save on a long output (a kept stream); this finds them all in one pass.
 *
 * set_words(words): the lower-case ASCII words (3 to 63 bytes, at most 64 of them).
 * found(text): a bit per word (bit i: words[i]) for every word the text (str, or bytes read as
 * ASCII) holds, its ASCII letters compared ignoring case; None when the text is not ASCII, where Python's case-insensitive
 * matching takes some other letters for ASCII ones and the caller case-folds the text itself.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_WORDS 64
#define MAX_LEN 64

static char WORDS[MAX_WORDS][MAX_LEN];
static size_t LENS[MAX_WORDS];
static int NWORDS = 0;
/* The walk looks at every second pair of bytes only: an occurrence of a word (3 bytes or more)
 * at p covers the pairs at p and p + 1, one of which starts at an even offset and ends before
 * the text does (p + 2 < n), so it is walked. PAIRS0[key] holds
 * the words whose bytes 0-1 are the pair `key` as written (in every case of its letters), PAIRS1
 * those whose bytes 1-2 are; BITS has one bit a pair (8 KiB, so the walk stays in the L1 cache)
 * so PAIRS0/PAIRS1 are looked at only where some word may be. */
static uint64_t PAIRS0[65536];
static uint64_t PAIRS1[65536];
static uint64_t BITS[1024];
static unsigned char LOWER[256];

static void add_pair(uint64_t *pairs, unsigned char a, unsigned char b, uint64_t bit) {
    unsigned char as[2] = {a, a}, bs[2] = {b, b};
    if (a >= 'a' && a <= 'z') as[1] = (unsigned char)(a - 32);
    if (b >= 'a' && b <= 'z') bs[1] = (unsigned char)(b - 32);
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            unsigned key = (unsigned)as[i] << 8 | bs[j];
            pairs[key] |= bit;
            BITS[key >> 6] |= (uint64_t)1 << (key & 63);
        }
    }
}

static PyObject *set_words(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "set_words takes a sequence of bytes");
    if (fast == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_WORDS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "more than 64 hint words");
        return NULL;
    }
    memset(PAIRS0, 0, sizeof PAIRS0);
    memset(PAIRS1, 0, sizeof PAIRS1);
    memset(BITS, 0, sizeof BITS);
    NWORDS = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
        char *data;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(item, &data, &len) < 0) {
            Py_DECREF(fast);
            return NULL;
        }
        if (len < 3 || len >= MAX_LEN) {
            Py_DECREF(fast);
            PyErr_SetString(PyExc_ValueError, "a hint word must be 3 to 63 bytes");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < len; j++) {
            unsigned char ch = (unsigned char)data[j];
            if (ch >= 0x80 || LOWER[ch] != ch) {
                Py_DECREF(fast);
                PyErr_SetString(PyExc_ValueError, "a hint word must be lower-case ASCII");
                return NULL;
            }
        }
        memcpy(WORDS[i], data, (size_t)len);
        LENS[i] = (size_t)len;
        const unsigned char *w = (const unsigned char *)data;
        add_pair(PAIRS0, w[0], w[1], (uint64_t)1 << i);
        add_pair(PAIRS1, w[1], w[2], (uint64_t)1 << i);
    }
    NWORDS = (int)n;
    Py_DECREF(fast);
    Py_RETURN_NONE;
}

/* The words of `m` that occur at `at` in s[0:n], their ASCII letters compared ignoring case. */
static uint64_t check(const unsigned char *s, Py_ssize_t n, Py_ssize_t at, uint64_t m) {
    uint64_t hit = 0;
    if (at < 0) return 0;
    while (m) {
        int w = __builtin_ctzll(m);
        m &= m - 1;
        size_t len = LENS[w], j = 0;
        if ((size_t)(n - at) < len) continue;
        while (j < len && LOWER[s[at + (Py_ssize_t)j]] == (unsigned char)WORDS[w][j]) j++;
        if (j == len) hit |= (uint64_t)1 << w;
    }
    return hit;
}

static PyObject *found(PyObject *self, PyObject *text) {
    (void)self;
    const unsigned char *s;
    Py_ssize_t n;
    if (PyUnicode_Check(text)) {
        if (!PyUnicode_IS_ASCII(text)) Py_RETURN_NONE;
        s = (const unsigned char *)PyUnicode_DATA(text);
        n = PyUnicode_GET_LENGTH(text);
    } else if (PyBytes_Check(text)) {
        s = (const unsigned char *)PyBytes_AS_STRING(text);
        n = PyBytes_GET_SIZE(text);
        for (Py_ssize_t i = 0; i < n; i++)
            if (s[i] >= 0x80) Py_RETURN_NONE;
    } else {
        PyErr_SetString(PyExc_TypeError, "found takes a str or bytes");
        return NULL;
    }
    uint64_t all = NWORDS == 64 ? ~(uint64_t)0 : (((uint64_t)1 << NWORDS) - 1);
    uint64_t seen = 0;
    for (Py_ssize_t i = 0; i + 1 < n && seen != all; i += 2) {
        unsigned key = (unsigned)s[i] << 8 | s[i + 1];
        if (!(BITS[key >> 6] >> (key & 63) & 1)) continue;
        seen |= check(s, n, i, PAIRS0[key] & ~seen);
        if (i > 0) seen |= check(s, n, i - 1, PAIRS1[key] & ~seen);
    }
    return PyLong_FromUnsignedLongLong(seen);
}

static PyMethodDef METHODS[] = {
    {"set_words", set_words, METH_VARARGS, "Set the hint words (lower-case ASCII, at most 64)."},
    {"found", found, METH_O, "Bits of the hint words an ASCII str or bytes holds; None else."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_hints", NULL, -1, METHODS, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__hints(void) {
    for (int i = 0; i < 256; i++) LOWER[i] = (unsigned char)((i >= 'A' && i <= 'Z') ? i + 32 : i);
    return PyModule_Create(&MODULE);
}
