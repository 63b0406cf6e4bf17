/* Both streams' truncation judgement for _otlp_row.c (part of its translation unit), as
 * model/spans.py _stream and model/truncation.py judge_stream make it.
 *
 * The marker search stays Python's (model/markers.py find_marker, a table of regexes): it is
 * called only for a text holding one of its hint words (markers._HINTS, passed in), which is the
 * same pre-check find_marker makes first.
 */

typedef struct {
    int found;
    int clip;    /* 0 unsaid, 1 head, 2 tail, 3 head_tail */
    int counted; /* its unit is bytes or chars and it states a count */
    int huge;    /* that count is past 64 bits */
    int64_t count;
} Mark;

enum { C_NONE, C_HEAD, C_TAIL, C_HEAD_TAIL };

typedef struct {
    int trunc; /* -1 unknown, 0, 1 */
    int has_hidden, has_bytes, has_cap, has_items, has_pitems, has_shown;
    int64_t hidden, nbytes, cap, items, pitems, shown;
    int clip;
    Text full;
} Stream;

/* tracetui's own marker, the first family find_marker tries (so its leftmost match is the
 * answer whatever else the text holds): 1 found, 0 none, -1 undecided (a non-ASCII character
 * where the count's digits are: \d is Unicode's, so Python reads that text). */
static int own_marker(const Text *t, Mark *m) {
    static const char OPEN[] = "\xe2\x80\xa6[truncated ", CLOSE[] = " bytes]\xe2\x80\xa6";
    const Py_ssize_t no = sizeof OPEN - 1, nc = sizeof CLOSE - 1;
    const unsigned char *p = t->p, *end = t->p + t->n, *q;
    while ((q = memmem(p, end - p, OPEN, no)) != NULL) {
        const unsigned char *d = q + no, *e = d;
        while (e < end && *e >= '0' && *e <= '9') e++;
        if (e < end && *e >= 0x80) return -1;
        if (e > d && end - e >= nc && !memcmp(e, CLOSE, nc)) {
            m->found = 1;
            m->clip = C_NONE;
            m->huge = 0;
            m->counted = e - d <= 30; /* markers._MAX_DIGITS: a longer count is no count */
            unsigned __int128 v = 0;
            for (const unsigned char *k = d; m->counted && k < e; k++) v = v * 10 + (*k - '0');
            if (v > (unsigned __int128)INT64_MAX) m->huge = 1;
            else m->count = (int64_t)v;
            return 1;
        }
        p = q + 1;
    }
    return 0;
}

/* tracetui's marker, else the hint pre-check, then find_marker(text): 0 done, -2 a Python error,
 * -1 an answer this cannot read (a clip mode other than the four). */
static int find_mark(PyObject *find_marker, PyObject *hints, const Text *t, Mark *m) {
    m->found = 0;
    if (t->n == 0) return 0;
    if (own_marker(t, m) > 0) return 0; /* else none of ours, or undecided: Python's families */
    int hint = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(hints) && !hint; i++) {
        PyObject *h = PyTuple_GET_ITEM(hints, i);
        hint = memmem(t->p, t->n, PyBytes_AS_STRING(h), PyBytes_GET_SIZE(h)) != NULL;
    }
    if (!hint) return 0;
    PyObject *text = PyUnicode_DecodeUTF8((const char *)t->p, t->n, "strict");
    if (!text) return -2;
    PyObject *res = PyObject_CallOneArg(find_marker, text);
    Py_DECREF(text);
    if (!res) return -2;
    if (res == Py_None) {
        Py_DECREF(res);
        return 0;
    }
    int rc = 0;
    PyObject *clip = PyObject_GetAttrString(res, "clip");
    PyObject *count = PyObject_GetAttrString(res, "count");
    PyObject *unit = PyObject_GetAttrString(res, "unit");
    if (!clip || !count || !unit) {
        rc = -2;
        goto done;
    }
    m->found = 1;
    m->counted = m->huge = 0;
    if (clip == Py_None) m->clip = C_NONE;
    else if (PyUnicode_Check(clip) && !PyUnicode_CompareWithASCIIString(clip, "head")) m->clip = C_HEAD;
    else if (PyUnicode_Check(clip) && !PyUnicode_CompareWithASCIIString(clip, "tail")) m->clip = C_TAIL;
    else if (PyUnicode_Check(clip) && !PyUnicode_CompareWithASCIIString(clip, "head_tail")) m->clip = C_HEAD_TAIL;
    else rc = -1;
    int by_unit = PyUnicode_Check(unit) && (!PyUnicode_CompareWithASCIIString(unit, "bytes") ||
                                           !PyUnicode_CompareWithASCIIString(unit, "chars"));
    if (by_unit && PyLong_Check(count)) {
        int overflow = 0;
        long long c = PyLong_AsLongLongAndOverflow(count, &overflow);
        if (c == -1 && PyErr_Occurred()) {
            rc = -2;
            goto done;
        }
        m->counted = 1;
        if (overflow > 0) m->huge = 1;
        else if (overflow < 0) rc = -1;
        else m->count = c;
    } else if (by_unit && count != Py_None) {
        rc = -1;
    }
done:
    Py_XDECREF(clip);
    Py_XDECREF(count);
    Py_XDECREF(unit);
    Py_DECREF(res);
    return rc;
}

#define HIDDEN_LIMIT ((__int128)1 << 53)

/* truncation.judge_stream; flag is 1 true, 0 false, 2 unsaid. */
static void judge(Stream *o, int flag, const Mark *m, int has_head, int64_t head, int has_tail, int64_t tail) {
    int marked = m && m->found;
    if (flag == 1 || (o->has_bytes && o->has_cap && o->nbytes > o->cap) || marked) {
        __int128 h = 0;
        int known = 1;
        o->trunc = 1;
        if (o->has_bytes && (has_head || has_tail))
            h = (__int128)o->nbytes - (has_head ? head : 0) - (has_tail ? tail : 0);
        else if (o->has_bytes && o->has_cap)
            h = (__int128)o->nbytes - o->cap;
        else if (marked && m->counted && !m->huge)
            h = m->count;
        else
            known = 0;
        if (known && h >= HIDDEN_LIMIT) known = 0;
        o->has_hidden = known;
        o->hidden = known ? (int64_t)(h < 0 ? 0 : h) : 0;
        return;
    }
    if (!o->has_bytes && flag == 2) {
        o->trunc = -1;
        o->has_hidden = 0;
        return;
    }
    o->trunc = 0;
    o->has_hidden = 1;
    o->hidden = 0;
}

/* One stream of a record (base: K_STREAMS or K_STREAMS + S_N): 0, -1 (Python reads the row) or
 * -2 (a Python error). may_mark 0: the index found the row not truncated, so no preview holds a
 * marker; the search is skipped unless the record's own fields say it was cut. */
static int stream_of(PyObject *find_marker, PyObject *hints, const Rec *r, Buf *arena, int base, int feedback,
                     int may_mark, Stream *o) {
    int has_head, has_tail;
    int64_t head = 0, tail = 0;
    Text preview, clip, fb_tail;
    memset(o, 0, sizeof *o);
    if (get_int(&r->v[base + S_BYTES], &o->has_bytes, &o->nbytes) || get_int(&r->v[base + S_CAP], &o->has_cap, &o->cap) ||
        get_int(&r->v[base + S_HEAD], &has_head, &head) || get_int(&r->v[base + S_TAIL_BYTES], &has_tail, &tail) ||
        get_int(&r->v[base + S_ITEMS], &o->has_items, &o->items) ||
        get_int(&r->v[base + S_PITEMS], &o->has_pitems, &o->pitems))
        return -1;
    int flag = get_bool(&r->v[base + S_TRUNC]);
    if (flag < 0 || get_text(&r->v[base + S_PREVIEW], arena, &preview) || get_text(&r->v[base + S_CLIP], arena, &clip) ||
        get_text(&r->v[base + S_FULL], arena, &o->full) || get_text(&r->v[base + S_TAIL], arena, &fb_tail))
        return -1;
    Mark m = {0, 0, 0, 0, 0};
    int rc;
    if (feedback) {
        /* No byte counts in this dialect: a marker proves a cut, its absence proves nothing. */
        if ((rc = find_mark(find_marker, hints, &fb_tail, &m))) return rc;
        o->has_bytes = o->has_cap = o->has_items = o->has_pitems = 0;
        o->full.has = 0;
        judge(o, 2, &m, 0, 0, 0, 0);
        o->clip = m.found ? C_TAIL : C_NONE;
        return 0;
    }
    judge(o, flag, NULL, has_head, head, has_tail, tail);
    if (may_mark || o->trunc != 0) {
        if ((rc = find_mark(find_marker, hints, &preview, &m))) return rc;
        if (m.found) judge(o, flag, &m, has_head, head, has_tail, tail);
    }
    int mode = C_NONE; /* an unknown clip mode is read as unsaid (the reference notes it) */
    if (text_is(&clip, "head")) mode = C_HEAD;
    else if (text_is(&clip, "tail")) mode = C_TAIL;
    else if (text_is(&clip, "head_tail")) mode = C_HEAD_TAIL;
    if (o->trunc == 1 && mode == C_NONE) mode = m.found && m.clip != C_NONE ? m.clip : C_HEAD;
    o->clip = o->trunc == 1 ? mode : C_NONE;
    if (o->has_bytes && o->has_hidden) {
        __int128 shown = (__int128)o->nbytes - o->hidden;
        if (shown < INT64_MIN) return -1;
        o->has_shown = 1;
        o->shown = (int64_t)shown;
    }
    return 0;
}
