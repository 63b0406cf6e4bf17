/* One OTLP/JSON span per record line, in C: the ordinary rows of export/otlp_fast.py.
 *
 * otlp_fast's Python writer spent ~35 us a row assembling the span after orjson's parse (the
 * field tuple, both streams' judgement, two sha256 ids, the time, a dozen small dumps). Here a
 * row's line is validated and its fields located in one pass (_otlp_json.h), judged as
 * model/spans.py and model/truncation.py judge them, and written as the exact bytes the
 * reference writer (otlp.write_json) writes, already escaped as dump_json escapes.
 *
 * Only the ordinary shape is done here. Anything else returns None and the Python writer reads
 * the row (it hands the odd ones on to the reference path): a line that is not strict JSON, a
 * field of another type than the usual, a number past 64 bits, a key written with escapes, a
 * time that is not plain ASCII. What stays in Python is called back, so its rule stays in one
 * place: the truncation markers (model/markers.py find_marker, called only for a text holding a
 * hint word), the key of a duplicated id (otlp.row_key) and the chain walks (roots and parents of
 * the rows that name a parent: analysis/chains.py).
 *
 * Rows(span_prefix, trace_prefix, ids, duplicates, parent_ids, row_key, root_of, parent_row,
 *      find_marker, hints)
 *   .span(row, line, may_mark, path_json, line_no) -> bytes | None
 *   .last_end   the reference exporter's "previous end" (read and set around the Python rows)
 *
 * tests/unit/test_otlp_row.py holds this path to the Python one byte for byte.
 */
#define PY_SSIZE_T_CLEAN
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memmem */
#endif
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct {
    char *p;
    Py_ssize_t n, cap;
    int failed;
} Buf;

static void buf_reserve(Buf *b, Py_ssize_t more) {
    if (b->n + more <= b->cap) return;
    Py_ssize_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more) cap *= 2;
    char *p = PyMem_Realloc(b->p, cap);
    if (!p) {
        b->failed = 1; /* nothing more is written; the caller reports the failure */
        return;
    }
    b->p = p;
    b->cap = cap;
}

static inline void buf_put(Buf *b, const char *s, Py_ssize_t n) {
    if (n <= 0) return; /* nothing to copy (and s may be NULL: memcpy must not be given it) */
    buf_reserve(b, n);
    if (b->n + n > b->cap) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void buf_str(Buf *b, const char *s) { buf_put(b, s, (Py_ssize_t)strlen(s)); }

/* A string literal's bytes without a strlen per call. */
#define buf_lit(b, s) buf_put((b), (s), (Py_ssize_t)(sizeof(s) - 1))

/* v in decimal into out (24 bytes at least); returns the length (snprintf was a tenth of a row). */
static int int_text(int64_t v, char *out) {
    char t[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        t[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    int k = 0;
    if (v < 0) out[k++] = '-';
    while (n) out[k++] = t[--n];
    out[k] = 0;
    return k;
}

static void buf_int(Buf *b, int64_t v) {
    char t[24];
    buf_put(b, t, int_text(v, t));
}

#include "_otlp_json.h"
#include "_otlp_sha.h"
#include "_otlp_time.h"
#include "_otlp_fields.h"
#include "_otlp_judge.h"
#include "_otlp_span.h"
#include "_otlp_proto.h"
#include "_otlp_build.h"
#include "_otlp_module.h"
