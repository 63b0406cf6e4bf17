/* One row's span (Rows.span and the rows of Rows.run), for _otlp_row.c (its translation unit). */

/* Row flags (model/flags.py; the module exports these copies and a test checks they agree):
 * the rows no span is read from (BAD | SIDECAR), and those the index found cut or unknown
 * (TRUNCATED | TRUNC_UNKNOWN), whose previews may hold a marker. */
#define SKIP_FLAGS (1 | 64)
#define MAY_MARK_FLAGS (4 | 8)

/* Where the last row was declined (a source line, for tests and debugging: last_decline()). */
static int decline_line;
#define DECLINE()                \
    do {                         \
        decline_line = __LINE__; \
        return 0;                \
    } while (0)
/* A helper's answer as row_write's: -2 a Python error (-1 here), -1 declined (0 here). */
#define FALLBACK(rc) ((rc) == -2 ? -1 : (decline_line = __LINE__, 0))

/* A Python int's decimal text into out (80 bytes); -1 when longer, or on an error. */
static int big_text(PyObject *v, char *out) {
    PyObject *s = PyObject_Str(v);
    if (!s) return -1;
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(s, &n);
    int rc = p && n < 80 ? 0 : -1;
    if (!rc) memcpy(out, p, n + 1);
    Py_DECREF(s);
    return rc;
}

/* One row's span into self->out: 1 written, 0 declined (Python reads the row), -1 an error. */
static int row_write(Rows *self, Py_ssize_t row, const unsigned char *line, Py_ssize_t len, int may_mark,
                     PyObject *path_json, Py_ssize_t line_no) {
    Rec *r = &self->rec;
    Buf *arena = &self->arena, *b = &self->out;
    /* A previous end past 64 bits (a Python row's duration of 2**53 ms) outlasts every end
     * written here: only a row without a time (which starts there) must go to Python. */
    int big = self->last_end_big != NULL;
    if (big && self->last_end_sign < 0) DECLINE();
    arena->n = 0;
    buf_reserve(arena, 2 * len + 16); /* decoded text is never longer than its token */
    if (arena->failed) return PyErr_NoMemory(), -1;
    if (parse_record(line, len, r)) DECLINE();
    Text name, tool, cwd, started, error, note, encoding, cid, pid, kind;
    int how, rc;
    if (dialect_of(r, arena, &name, &how)) DECLINE();
    if (get_text(&r->v[K_TOOL], arena, &tool) || get_text(&r->v[K_CWD], arena, &cwd) ||
        get_text(&r->v[K_STARTED], arena, &started) || get_text(&r->v[K_ERROR], arena, &error) ||
        get_text(&r->v[K_NOTE], arena, &note) || get_text(&r->v[K_ENCODING], arena, &encoding) ||
        get_text(&r->v[K_COMMAND_ID], arena, &cid) || get_text(&r->v[K_PARENT_ID], arena, &pid))
        DECLINE();
    int feedback = how == D_FEEDBACK, use = feedback; /* argv is `command` in a feedback record */
    for (int k = K_ARGV; k <= K_COMMAND; k++) {
        const Val *v = &r->v[k];
        if (!absent(v) && (v->kind != V_ARR || (use == (k == K_COMMAND) && !r->args_ok[use]))) DECLINE();
    }
    int nargs = r->nargs[use];
    const Val *args = r->args[use];
    int has_exit, has_ret, has_redacted, has_duration;
    int64_t exit_code = 0, returncode = 0, redacted = 0;
    double duration = 0;
    if (get_int(&r->v[K_EXIT], &has_exit, &exit_code) || get_int(&r->v[K_RETURNCODE], &has_ret, &returncode) ||
        get_int(&r->v[K_REDACTED], &has_redacted, &redacted) ||
        get_duration(&r->v[K_DURATION], &has_duration, &duration))
        DECLINE();
    if (how == D_TRUNCATION_SPAN && present(r, K_RETURNCODE)) {
        has_exit = has_ret;
        exit_code = returncode;
    }
    int ok_preview = get_bool(&r->v[K_OK_PREVIEW]);
    if (ok_preview < 0) DECLINE();
    int submission = 0;
    if (r->v[K_KIND].kind == V_STR) {
        if (get_text(&r->v[K_KIND], arena, &kind)) DECLINE();
        submission = text_is(&kind, "submission");
    }
    Stream st[2];
    for (int k = 0; k < 2; k++)
        if ((rc = stream_of(self->find_marker, self->hints, r, arena, K_STREAMS + k * S_N, feedback, may_mark, &st[k])))
            return FALLBACK(rc);

    /* The display name: the tool, else argv[0]'s base name, else "?". */
    Text shown = tool;
    if (!(tool.has && tool.n)) {
        if (nargs) {
            if (get_text(&args[0], arena, &shown)) DECLINE();
            const unsigned char *slash = shown.p + shown.n;
            while (slash > shown.p && slash[-1] != '/') slash--;
            shown.n -= slash - shown.p;
            shown.p = slash;
        } else {
            shown.p = (const unsigned char *)"?";
            shown.n = 1;
        }
    }
    int failed = has_exit ? exit_code != 0 : error.has && error.n > 0;
    int truncated = st[0].trunc == 1 || st[1].trunc == 1 ? 1 : st[0].trunc < 0 || st[1].trunc < 0 ? -1 : 0;
    int has_hidden = st[0].has_hidden || st[1].has_hidden;
    int64_t hidden = (st[0].has_hidden ? st[0].hidden : 0) + (st[1].has_hidden ? st[1].hidden : 0);

    /* The clock: a row without a time follows the previous span (otlp.Exporter). */
    int64_t start = 0;
    int time_known = start_of(self, &started, &start);
    if (time_known < 0) DECLINE();
    if (!time_known) start = self->last_end; /* (past 64 bits: the text below says it) */
    double scaled = has_duration ? duration * 1e6 : 0;
    if (!(scaled > -9.0e18 && scaled < 9.0e18)) DECLINE();
    int64_t add = (int64_t)scaled; /* int() truncates toward zero too */
    __int128 end = (__int128)start + (add > 0 ? add : 0);
    if (end > INT64_MAX) DECLINE();
    Text argt[MAX_ARGS];
    for (int k = 0; k < nargs; k++)
        if (get_text(&args[k], arena, &argt[k])) DECLINE();

    /* The ids: the chain's trace, the span, and the link to the attempt retried. */
    char tid[32], sid[16], lid[16];
    PyObject *rowobj = PyLong_FromSsize_t(row);
    if (!rowobj) return -1;
    Py_ssize_t root = row, prow = -1;
    PyObject *parent = PyDict_GetItemWithError(self->parent_ids, rowobj);
    rc = 0;
    if (!parent && PyErr_Occurred()) rc = -2;
    else if (parent && parent != Py_None) rc = call_row(self->root_of, rowobj, &root);
    if (!rc) rc = id_of(self, root, self->trace_prefix, 32, tid);
    if (!rc) rc = id_of(self, row, self->span_prefix, 16, sid);
    int link = pid.has && pid.n > 0;
    if (!rc && link) {
        rc = call_row(self->parent_row, rowobj, &prow);
        if (!rc && prow >= 0) rc = id_of(self, prow, self->span_prefix, 16, lid);
        else if (!rc)
            sha_hex_id((const unsigned char *)PyBytes_AS_STRING(self->span_prefix), PyBytes_GET_SIZE(self->span_prefix),
                       pid.p, pid.n, 16, lid);
    }
    Py_DECREF(rowobj);
    if (rc) return FALLBACK(rc);

    /* The times as text; a row without a time after an end past 64 bits starts there (Python
     * ints), and its end is the new previous end. */
    char start_txt[80], end_txt[80];
    PyObject *big_end = NULL;
    if (!time_known && big) {
        PyObject *more = PyLong_FromLongLong(add > 0 ? add : 0);
        big_end = more ? PyNumber_Add(self->last_end_big, more) : NULL;
        Py_XDECREF(more);
        if (!big_end || big_text(self->last_end_big, start_txt) || big_text(big_end, end_txt)) {
            Py_XDECREF(big_end);
            return PyErr_Occurred() ? -1 : FALLBACK(-1);
        }
    } else {
        int_text(start, start_txt);
        int_text((int64_t)end, end_txt);
    }

    b->n = 0;
    b->failed = 0;
    buf_lit(b, "{\"traceId\":\"");
    buf_put(b, tid, 32);
    buf_lit(b, "\",\"spanId\":\"");
    buf_put(b, sid, 16);
    buf_lit(b, "\",\"name\":");
    {
        Buf tmp = {0};
        buf_put(&tmp, "execute_tool ", 13);
        buf_put(&tmp, (const char *)shown.p, shown.n);
        if (tmp.failed) {
            PyMem_Free(tmp.p);
            return PyErr_NoMemory(), -1;
        }
        put_text(b, (const unsigned char *)tmp.p, tmp.n);
        PyMem_Free(tmp.p);
    }
    buf_lit(b, ",\"kind\":1,\"startTimeUnixNano\":\"");
    buf_str(b, start_txt);
    buf_lit(b, "\",\"endTimeUnixNano\":\"");
    buf_str(b, end_txt);
    buf_lit(b, "\",\"attributes\":[{\"key\":\"gen_ai.operation.name\",\"value\":{\"stringValue\":\"execute_tool\"}}");
    a_text(b, "gen_ai.tool.name", shown.p, shown.n);
    if (cid.has && cid.n) a_text(b, "gen_ai.tool.call.id", cid.p, cid.n);
    if (nargs) {
        a_open(b, "process.command_args");
        buf_lit(b, "\"arrayValue\":{\"values\":[");
        for (int k = 0; k < nargs; k++) {
            buf_str(b, k ? ",{\"stringValue\":" : "{\"stringValue\":");
            put_text(b, argt[k].p, argt[k].n);
            buf_lit(b, "}");
        }
        buf_lit(b, "]}}}");
    }
    if (has_exit) a_int(b, "process.exit.code", exit_code);
    char why[40];
    if (failed) {
        if (!has_exit) snprintf(why, sizeof why, "runner_error");
        else if (exit_code < 0) snprintf(why, sizeof why, "signal %lld", -(long long)exit_code);
        else snprintf(why, sizeof why, "exit %lld", (long long)exit_code);
        a_text(b, "error.type", (const unsigned char *)why, (Py_ssize_t)strlen(why));
    }
    if (cwd.has) a_text(b, "tracetui.cwd", cwd.p, cwd.n);
    if (note.has) a_text(b, "tracetui.agent_note", note.p, note.n);
    if (error.has) a_text(b, "tracetui.runner_error", error.p, error.n);
    if (!has_exit && !failed) a_bool(b, "tracetui.exit_unknown", 1);
    if (submission) a_text(b, "tracetui.kind", (const unsigned char *)"submission", 10);
    if (link) a_text(b, "tracetui.parent_command_id", pid.p, pid.n);
    a_text(b, "tracetui.dialect", name.p, name.n);
    if (encoding.has) a_text(b, "tracetui.encoding", encoding.p, encoding.n);
    if (ok_preview != 2) a_bool(b, "tracetui.ok_preview", ok_preview);
    if (has_redacted) a_int(b, "tracetui.redacted", redacted);
    if (truncated >= 0) a_bool(b, "tracetui.truncated", truncated);
    if (has_hidden) a_int(b, "tracetui.hidden_bytes", hidden);
    put_stream(b, &st[0], 0);
    put_stream(b, &st[1], 1);
    a_open(b, "tracetui.file");
    buf_lit(b, "\"stringValue\":");
    buf_put(b, PyBytes_AS_STRING(path_json), PyBytes_GET_SIZE(path_json));
    buf_lit(b, "}}");
    a_int(b, "tracetui.line", line_no);
    if (!time_known) a_bool(b, "tracetui.time_unknown", 1);
    buf_lit(b, "]");
    if (link) {
        buf_lit(b, ",\"links\":[{\"traceId\":\"");
        buf_put(b, tid, 32);
        buf_lit(b, "\",\"spanId\":\"");
        buf_put(b, lid, 16);
        buf_str(b, prow >= 0 ? "\",\"attributes\":[{\"key\":\"tracetui.link\",\"value\":{\"stringValue\":\"retry_of\"}}]}]"
                             : "\",\"attributes\":[{\"key\":\"tracetui.link\",\"value\":{\"stringValue\":\"retry_of\"}},"
                               "{\"key\":\"tracetui.parent_missing\",\"value\":{\"boolValue\":true}}]}]");
    }
    if (failed) {
        buf_lit(b, ",\"status\":{\"code\":2,\"message\":");
        if (error.has && error.n) put_text(b, error.p, error.n);
        else if (has_exit) {
            snprintf(why, sizeof why, "exit %lld", (long long)exit_code);
            put_text(b, (const unsigned char *)why, (Py_ssize_t)strlen(why));
        } else
            buf_lit(b, "\"no exit\"");
        buf_lit(b, "}");
    }
    buf_lit(b, "}");
    if (b->failed) {
        Py_XDECREF(big_end);
        return PyErr_NoMemory(), -1;
    }
    if (big_end) Py_SETREF(self->last_end_big, big_end);
    else if (!big && (int64_t)end > self->last_end) self->last_end = (int64_t)end;
    return 1;
}

static PyObject *row_span(Rows *self, Py_ssize_t row, const unsigned char *line, Py_ssize_t len, int may_mark,
                          PyObject *path_json, Py_ssize_t line_no) {
    int rc = row_write(self, row, line, len, may_mark, path_json, line_no);
    if (rc < 0) return NULL;
    if (!rc) Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(self->out.p, self->out.n);
}

static PyObject *Rows_span(Rows *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyBytes_Check(args[1]) || !PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "span(row, line: bytes, may_mark, path_json: bytes, line_no)");
        return NULL;
    }
    Py_ssize_t row = PyLong_AsSsize_t(args[0]), line_no = PyLong_AsSsize_t(args[4]);
    int may_mark = PyObject_IsTrue(args[2]);
    if ((row == -1 || line_no == -1 || may_mark < 0) && PyErr_Occurred()) return NULL;
    return row_span(self, row, (const unsigned char *)PyBytes_AS_STRING(args[1]), PyBytes_GET_SIZE(args[1]), may_mark,
                    args[3], line_no);
}
