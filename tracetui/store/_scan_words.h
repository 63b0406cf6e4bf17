/* The scanner's word searches: marker hint words and secret words (set from Python by set_hints and
 * set_secret_hints), found in a line's strings without decoding them.
 *
 * Part of the C scanner, included once by _scan.c (one translation unit, so every function
 * stays static and the compiler sees the whole hot loop); not a header to include elsewhere.
 */
#ifndef TRACETUI__SCAN_WORDS_H
#define TRACETUI__SCAN_WORDS_H

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
 * its first STRIDE offsets, a pair at such a position, whatever its own position. OFFS[pair] has
 * bit j set where the pair is at offset j of some word; where one is seen, the start that offset
 * implies is checked exactly. STRIDE is the shortest word's length less one, eight at most. */
static uint8_t HINT_OFFS[65536];
static uint64_t HINT_COVER[1024]; /* one bit a pair of HINT_OFFS that is not 0 (8 KiB) */
static int HINT_STRIDE = 1;
/* A stride of eight at most: the offsets of a pair are the bits of one byte. */
#define MAX_STRIDE 8

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

/* The two bytes at q as one number, in the machine's own order (one load); the tables below are
 * filled through the same function, so their keys agree on any machine. */
static inline unsigned pair_key(const unsigned char *q) {
    uint16_t k;
    memcpy(&k, q, 2);
    return k;
}

/* The walk shared by both searches: at every stride-th pair, a bit of cover says whether some
 * word holds the pair at an offset below the stride; where one does, offs[pair] has bit j set for
 * each such offset j, and the one start each implies is checked exactly by at() (the walk before
 * checked every start the stride allows, each through its own table lookups). PAIR_AT is one
 * pair's look and checks; the walk returns 1 from its caller at the first word found. */
#define PAIR_AT(q, s, end, cover, offs, at)                                                      \
    do {                                                                                         \
        unsigned k_ = pair_key(q);                                                                \
        if (cover[k_ >> 6] >> (k_ & 63) & 1)                                                      \
            for (unsigned m_ = offs[k_]; m_; m_ &= m_ - 1) {                                      \
                const unsigned char *p_ = (q) - __builtin_ctz(m_);                                \
                if (p_ >= (s) && at(p_, end)) return 1;                                           \
            }                                                                                     \
    } while (0)
#define PAIR_WALK(s, n, stride, cover, offs, at)                                                 \
    do {                                                                                         \
        const unsigned char *end_ = (s) + (n), *q_ = (s) + (stride) - 1;                          \
        const Py_ssize_t st_ = (stride);                                                          \
        /* Two pairs a turn: the loop's own count and compare were a third of a lookup's work. */ \
        for (; q_ + st_ + 1 < end_; q_ += 2 * st_) {                                              \
            PAIR_AT(q_, s, end_, cover, offs, at);                                                \
            PAIR_AT(q_ + st_, s, end_, cover, offs, at);                                          \
        }                                                                                         \
        if (q_ + 1 < end_) PAIR_AT(q_, s, end_, cover, offs, at);                                 \
        return 0;                                                                                 \
    } while (0)


/* Words without which no redaction rule can match (tracetui/model/marks.py SECRET_HINTS, set by
 * set_secret_hints), lower case, found whatever their case: SECRET_PAIR is indexed by the two
 * first bytes as written (every case of them), the rest is compared ignoring ASCII case. The walk
 * is the hints' (above), with its own stride and cover. */
static char SECRETS[MAX_HINTS][64];
static size_t SECRET_LENS[MAX_HINTS];
static uint32_t SECRET_PAIR[65536];
static uint64_t SECRET_BITS[1024];
static uint8_t SECRET_OFFS[65536];
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

static int secret_walk(const unsigned char *s, Py_ssize_t n) { PAIR_WALK(s, n, SECRET_STRIDE, SECRET_COVER, SECRET_OFFS, secret_at); }

static int hint_walk(const unsigned char *s, Py_ssize_t n) { PAIR_WALK(s, n, HINT_STRIDE, HINT_COVER, HINT_OFFS, hint_at); }

#include "_scan_shuffle.h"

/* Whether the text of a value as written (quotes, escapes and all) may hold secret-looking text:
 * one of the hint words, or what could spell one once read (``speller``, which parse_string
 * notes: a \u or \/ escape, or a letter Python's case-insensitive match takes for an ASCII one,
 * U+0130, U+0131, U+017F, U+2100-U+213F). */
static int may_hold_secret(const unsigned char *s, Py_ssize_t n, int speller) {
    if (NSECRETS < 0 || speller) return 1;
#ifdef SHUFFLE_GROUPS
    if (SECRET_SHUFFLE.on) return secret_shuffle(s, n);
#endif
    return secret_walk(s, n);
}

/* Whether a string's contents as written hold one of the marker hint words. */
static int has_hint(const unsigned char *s, Py_ssize_t n) {
#ifdef SHUFFLE_GROUPS
    if (HINT_SHUFFLE.on) return hint_shuffle(s, n);
#endif
    return hint_walk(s, n);
}

/* set_hints(words[, shuffle]): the marker hint words (UTF-8), as set_secret_hints takes its
 * words (case counts here). Returns the road now taken: "shuffle" or "walk". */
static PyObject *set_hints(PyObject *self, PyObject *args) {
    PyObject *seq;
    int shuffle = 1;
    if (!PyArg_ParseTuple(args, "O|p", &seq, &shuffle)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "hints must be a sequence of bytes");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > MAX_HINTS) { Py_DECREF(fast); PyErr_SetString(PyExc_ValueError, "too many hints"); return NULL; }
    /* Every word looked at before any is copied: a list refused part way leaves the words in
     * use and their tables as they were. */
    for (Py_ssize_t i = 0; i < n; i++) {
        char *s;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(fast, i), &s, &len) < 0 || len < 2 || len >= 64) {
            Py_DECREF(fast);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a hint must be 2 to 63 bytes");
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        char *s;
        Py_ssize_t len;
        PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(fast, i), &s, &len);
        memcpy(HINTS[i], s, (size_t)len);
        HINTS[i][len] = 0;
        HINT_LENS[i] = (size_t)len;
    }
    NHINTS = (int)n;
    memset(PAIR, 0, sizeof(PAIR));
    memset(HINT_BYTE, 0, sizeof(HINT_BYTE));
    for (int h = 0; h < NHINTS; h++)
        for (size_t i = 0; i < HINT_LENS[h]; i++)
            if ((unsigned char)HINTS[h][i] < 128) HINT_BYTE[(unsigned char)HINTS[h][i]] = 1;
    memset(PAIR_BITS, 0, sizeof(PAIR_BITS));
    memset(HINT_OFFS, 0, sizeof(HINT_OFFS));
    memset(HINT_COVER, 0, sizeof(HINT_COVER));
    size_t shortest = 64;
    for (int h = 0; h < NHINTS; h++) shortest = HINT_LENS[h] < shortest ? HINT_LENS[h] : shortest;
    HINT_STRIDE = NHINTS ? (int)shortest - 1 : 1;
    if (HINT_STRIDE > MAX_STRIDE) HINT_STRIDE = MAX_STRIDE;
    for (int h = 0; h < NHINTS; h++) {
        unsigned key = (unsigned)(unsigned char)HINTS[h][0] << 8 | (unsigned char)HINTS[h][1];
        PAIR[key] |= (uint32_t)1 << h;
        set_bit(PAIR_BITS, key);
        for (int j = 0; j < HINT_STRIDE; j++)
        {
            unsigned key = pair_key((const unsigned char *)HINTS[h] + j);
            HINT_OFFS[key] |= (uint8_t)(1u << j);
            set_bit(HINT_COVER, key);
        }
    }
    int road = set_groups(&HINT_SHUFFLE, HINTS, HINT_LENS, NHINTS, 0, shuffle);
    Py_DECREF(fast);
    return PyUnicode_FromString(road ? "shuffle" : "walk");
}

/* set_secret_hints(words[, shuffle]): the lower-case ASCII words of model/marks.py SECRET_HINTS.
 * ``shuffle`` false: search by the walk even where the CPU has SSSE3 (for the tests, which hold
 * both roads to the plain search). Returns the road now taken: "shuffle" or "walk". */
static PyObject *set_secret_hints(PyObject *self, PyObject *args) {
    PyObject *seq;
    int shuffle = 1;
    if (!PyArg_ParseTuple(args, "O|p", &seq, &shuffle)) return NULL;
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
    }
    /* Copied only once every word is known good (as set_hints). */
    for (Py_ssize_t i = 0; i < n; i++) {
        char *s;
        Py_ssize_t len;
        PyBytes_AsStringAndSize(PySequence_Fast_GET_ITEM(fast, i), &s, &len);
        memcpy(SECRETS[i], s, (size_t)len);
        SECRETS[i][len] = 0;
        SECRET_LENS[i] = (size_t)len;
    }
    memset(SECRET_PAIR, 0, sizeof(SECRET_PAIR));
    memset(SECRET_BITS, 0, sizeof(SECRET_BITS));
    memset(SECRET_OFFS, 0, sizeof(SECRET_OFFS));
    memset(SECRET_COVER, 0, sizeof(SECRET_COVER));
    size_t shortest = 64;
    for (Py_ssize_t h = 0; h < n; h++) shortest = SECRET_LENS[h] < shortest ? SECRET_LENS[h] : shortest;
    SECRET_STRIDE = n ? (int)shortest - 1 : 1;
    if (SECRET_STRIDE > MAX_STRIDE) SECRET_STRIDE = MAX_STRIDE;
    for (Py_ssize_t h = 0; h < n; h++) {
        for (int j = 0; j < SECRET_STRIDE; j++) {
            unsigned char a = (unsigned char)SECRETS[h][j], b = (unsigned char)SECRETS[h][j + 1];
            unsigned char as[2] = {a, (a >= 'a' && a <= 'z') ? a - 32 : a};
            unsigned char bs[2] = {b, (b >= 'a' && b <= 'z') ? b - 32 : b};
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 2; k++) {
                    unsigned key = (unsigned)as[i] << 8 | bs[k];
                    const unsigned char two[2] = {as[i], bs[k]};
                    SECRET_OFFS[pair_key(two)] |= (uint8_t)(1u << j);
                    set_bit(SECRET_COVER, pair_key(two));
                    if (j == 0) {
                        SECRET_PAIR[key] |= (uint32_t)1 << h;
                        set_bit(SECRET_BITS, key);
                    }
                }
        }
    }
    NSECRETS = (int)n;
    int road = set_groups(&SECRET_SHUFFLE, SECRETS, SECRET_LENS, NSECRETS, 1, shuffle);
    Py_DECREF(fast);
    return PyUnicode_FromString(road ? "shuffle" : "walk");
}

#endif /* TRACETUI__SCAN_WORDS_H */
