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
#define M_HEAD_CUT 64
#define M_SAYS_PASS 128
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

#include "_scan_words.h"

#include "_scan_json.h"

#include "_scan_notes.h"

#include "_scan_facts.h"
#include "_scan_bulk.h"

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

/* The columns, in memory of our own while the GIL is released (grown there as rows come: counting
 * the lines first cost a whole extra pass over the buffer), copied into bytearrays after. */
typedef struct {
    int64_t *off, *len, *hid;
    int32_t *line, *exit, *slow;
    uint8_t *flag, *mark;
    IdSpan *idspan;
    Py_ssize_t rows, nslow, lines, consumed, cap;
    long long failed, truncated, hidden_sum, last_failed, exit_unknown;
    int nomem;
} Out;

static void free_out(Out *o) {
    PyMem_RawFree(o->off); PyMem_RawFree(o->len); PyMem_RawFree(o->hid); PyMem_RawFree(o->line);
    PyMem_RawFree(o->exit); PyMem_RawFree(o->slow); PyMem_RawFree(o->flag); PyMem_RawFree(o->mark);
    PyMem_RawFree(o->idspan);
}

/* Room for cap rows in every column; 0 when memory ran out (what was had is kept, to be freed). */
static int grow_out(Out *o, Py_ssize_t cap) {
#define GROW(field) do {                                                                   \
        void *p_ = PyMem_RawRealloc(o->field, (size_t)cap * sizeof(*o->field));            \
        if (!p_) return 0;                                                                 \
        o->field = p_;                                                                     \
    } while (0)
    GROW(off); GROW(len); GROW(hid); GROW(line); GROW(exit); GROW(slow); GROW(flag); GROW(mark);
    GROW(idspan);
#undef GROW
    o->cap = cap;
    return 1;
}

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
            if (o->rows == o->cap && !grow_out(o, o->cap * 2)) {
                o->nomem = 1;
                break;
            }
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

/* An id's str: most ids are plain ASCII (c0000123, a UUID), made here without the decoder's
 * call and checks (a twentieth of a scan's time went to decoding 200,000 short ids); any other
 * goes through the decoder (the scanner has validated its UTF-8 already). */
static PyObject *id_str(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x80) return PyUnicode_DecodeUTF8((const char *)s, n, "strict");
    PyObject *u = PyUnicode_New(n, 127);
    if (u) memcpy(PyUnicode_1BYTE_DATA(u), s, (size_t)n);
    return u;
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
    Out o;
    memset(&o, 0, sizeof(o));
    o.last_failed = -1;
    /* A first guess of the rows (lines of a trace run to hundreds of bytes); more room as needed. */
    if (!grow_out(&o, length / 256 + 64)) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    scan_lines(data, end, base_offset, first_line, max_line, &o);
    Py_END_ALLOW_THREADS
    if (o.nomem) {
        PyErr_NoMemory();
        goto done;
    }
    offsets = PyByteArray_FromStringAndSize((const char *)o.off, o.rows * 8);
    lengths = PyByteArray_FromStringAndSize((const char *)o.len, o.rows * 8);
    line_idx = PyByteArray_FromStringAndSize((const char *)o.line, o.rows * 4);
    hiddens = PyByteArray_FromStringAndSize((const char *)o.hid, o.rows * 8);
    exits = PyByteArray_FromStringAndSize((const char *)o.exit, o.rows * 4);
    flagcol = PyByteArray_FromStringAndSize((const char *)o.flag, o.rows);
    markcol = PyByteArray_FromStringAndSize((const char *)o.mark, o.rows);
    slow = PyByteArray_FromStringAndSize((const char *)o.slow, o.nslow * 4);
    if (!offsets || !lengths || !line_idx || !hiddens || !exits || !flagcol || !markcol || !slow) goto done;
    ids = PyList_New(o.rows);
    parents = PyList_New(0);
    if (!ids || !parents) goto done;
    for (Py_ssize_t r = 0; r < o.rows; r++) {
        PyObject *cid = Py_None;
        IdSpan *sp = &o.idspan[r];
        if (sp->cid_len >= 0) {
            cid = id_str(data + sp->cid_off, sp->cid_len);
            if (!cid) goto done;
        } else {
            Py_INCREF(Py_None);
        }
        PyList_SET_ITEM(ids, r, cid);
        if (sp->pid_len >= 0) {
            PyObject *pid = id_str(data + sp->pid_off, sp->pid_len);
            if (!pid) goto done;
            PyObject *row = PyLong_FromSsize_t(r);
            PyObject *pair = row ? PyTuple_New(2) : NULL;
            if (!pair) { Py_XDECREF(row); Py_DECREF(pid); goto done; }
            PyTuple_SET_ITEM(pair, 0, row);
            PyTuple_SET_ITEM(pair, 1, pid);
            if (PyList_Append(parents, pair) < 0) { Py_DECREF(pair); goto done; }
            Py_DECREF(pair);
        }
    }
    result = Py_BuildValue("(nnOOOOOOOOOLLLLLO)", o.consumed, o.lines, offsets, lengths, line_idx, hiddens,
                           exits, flagcol, slow, ids, parents, o.failed, o.truncated, o.hidden_sum,
                           o.last_failed, o.exit_unknown, markcol);
done:
    Py_XDECREF(offsets); Py_XDECREF(lengths); Py_XDECREF(line_idx); Py_XDECREF(hiddens);
    Py_XDECREF(exits); Py_XDECREF(flagcol); Py_XDECREF(markcol); Py_XDECREF(slow); Py_XDECREF(ids); Py_XDECREF(parents);
    free_out(&o);
    PyBuffer_Release(&buf);
    return result;
}

/* judge_note(contents) -> 1, 0 or -1: TT022's reading of a note (_scan_notes.h) from the bytes
 * between its JSON string's quotes, as written; for the tests, which compare it with notes.py. */
static PyObject *judge_note(PyObject *self, PyObject *args) {
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf)) return NULL;
    int says = note_says_pass(buf.buf, buf.len);
    PyBuffer_Release(&buf);
    return PyLong_FromLong(says);
}

/* note_words() -> (cues, success, failure, negations, subjects): the scanner's copies of notes.py's
 * word lists, as tuples of str (a test checks that they are equal). */
static PyObject *note_words(PyObject *self, PyObject *noargs) {
    PyObject *out = PyTuple_New(5);
    if (!out) return NULL;
    for (int s = 0; s < 5; s++) {
        Py_ssize_t n = 0;
        while (NOTE_LISTS[s][n]) n++;
        PyObject *words = PyTuple_New(n);
        if (!words) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, s, words);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *w = PyUnicode_FromString(NOTE_LISTS[s][i]);
            if (!w) { Py_DECREF(out); return NULL; }
            PyTuple_SET_ITEM(words, i, w);
        }
    }
    return out;
}

static PyMethodDef methods[] = {
    {"chain_groups", chain_groups, METH_VARARGS, "Root row -> rows of its tree (two or more), from rows and their parent rows."},
    {"chain_list", chain_list, METH_VARARGS, "Summary's chain objects from the groups, the ids and the final exits."},
    {"count_picked", count_picked, METH_VARARGS, "Rows picked whose int64 value is one of two."},
    {"known_sum", known_sum, METH_VARARGS, "Sum of an int64 column's values but one (None on overflow)."},
    {"ones", ones, METH_VARARGS, "Positions of the bytes equal to 1 in a 0/1 column, from a start."},
    {"first_rows", first_rows, METH_VARARGS, "first.setdefault(id, row) for the rows start..stop whose id is in a set."},
    {"judge_note", judge_note, METH_VARARGS, "TT022's reading of a note's JSON string contents: 1, 0 or -1."},
    {"note_words", note_words, METH_NOARGS, "The note word lists the scanner judges with."},
    {"scan", scan, METH_VARARGS, "Scan complete JSON lines of a buffer into index columns."},
    {"set_hints", set_hints, METH_VARARGS, "Set the marker hint words (UTF-8 bytes)."},
    {"set_secret_hints", set_secret_hints, METH_VARARGS, "Set the secret hint words (lower-case ASCII); returns the search's road."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", "The index's hot loop in C.", -1, methods};

PyMODINIT_FUNC PyInit__scan(void) {
    init_tables();
    init_keys();
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
        PyModule_AddIntConstant(m, "M_HEAD_CUT", M_HEAD_CUT) < 0 ||
        PyModule_AddIntConstant(m, "M_SAYS_PASS", M_SAYS_PASS) < 0 ||
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
