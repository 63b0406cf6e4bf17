/* Bulk look-ups over the index's id column, for the Python passes after the scan (included by
 * _scan.c: one translation unit).
 *
 * first_rows(ids, start, stop, want, first) -> None
 *   For each row in start..stop whose id (a str in the list ``ids``) is in the set ``want``:
 *   first.setdefault(id, row). It is id_registry.parents_table's pass over the owed rows, which
 *   in Python hashes every one of the ids (a fresh str, its hash not yet computed) to ask the set:
 *   here a bit table of a cheap fingerprint of the wanted ids' bytes (their length and three
 *   8-byte words) turns away almost every id without hashing it; the few that pass are asked of
 *   the set itself, so the answer is exactly the set's. Anything else than a str or None in the
 *   list is asked of the set as Python would (an unhashable value raises as it would there).
 */

#if PY_VERSION_HEX < 0x030C0000
#define READY_STR(s) PyUnicode_IS_READY(s)
#else
#define READY_STR(s) 1 /* every str is ready from 3.12 on */
#endif

static uint64_t id_fingerprint(PyObject *s) {
    /* Length, kind and up to three 8-byte words of the str's data (its first, middle and last
     * bytes); equal strs give equal fingerprints (same kind and data, as CPython keeps them). */
    Py_ssize_t n = PyUnicode_GET_LENGTH(s) * PyUnicode_KIND(s);
    const unsigned char *p = (const unsigned char *)PyUnicode_DATA(s);
    uint64_t a = 0, b = 0, c = 0;
    if (n >= 8) {
        memcpy(&a, p, 8);
        memcpy(&b, p + (n - 8) / 2, 8);
        memcpy(&c, p + n - 8, 8);
    } else {
        memcpy(&a, p, (size_t)n);
    }
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL + (uint64_t)PyUnicode_KIND(s);
    h = (h ^ a) * 0xC2B2AE3D27D4EB4FULL;
    h = (h ^ b) * 0x165667B19E3779F9ULL;
    h = (h ^ c) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static PyObject *first_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ids, *want, *first;
    Py_ssize_t start, stop;
    if (!PyArg_ParseTuple(args, "O!nnO!O!", &PyList_Type, &ids, &start, &stop, &PySet_Type, &want,
                          &PyDict_Type, &first))
        return NULL;
    if (start < 0) start = 0;
    if (stop > PyList_GET_SIZE(ids)) stop = PyList_GET_SIZE(ids);
    /* The bit table: at least 32 bits a wanted id, a power of two. */
    Py_ssize_t nwant = PySet_GET_SIZE(want);
    size_t bits = 1024;
    while (bits < (size_t)nwant * 32 && bits < ((size_t)1 << 34)) bits <<= 1;
    uint64_t *table = (uint64_t *)PyMem_Calloc(bits / 64, sizeof(uint64_t));
    if (!table) return PyErr_NoMemory();
    uint64_t mask = bits - 1;
    int all = 0; /* a wanted value that is not a plain str: ask the set for every id */
    PyObject *it = PyObject_GetIter(want), *key;
    if (!it) {
        PyMem_Free(table);
        return NULL;
    }
    while ((key = PyIter_Next(it)) != NULL) {
        if (PyUnicode_CheckExact(key) && READY_STR(key)) {
            uint64_t h = id_fingerprint(key) & mask;
            table[h >> 6] |= (uint64_t)1 << (h & 63);
        } else {
            all = 1;
        }
        Py_DECREF(key);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        PyMem_Free(table);
        return NULL;
    }
    for (Py_ssize_t row = start; row < stop && row < PyList_GET_SIZE(ids); row++) {
        PyObject *cid = PyList_GET_ITEM(ids, row);
        if (!all) { /* every wanted value a str: None and a str whose bits are clear are not in it */
            if (cid == Py_None) continue;
            if (PyUnicode_CheckExact(cid) && READY_STR(cid)) {
                uint64_t h = id_fingerprint(cid) & mask;
                if (!(table[h >> 6] & ((uint64_t)1 << (h & 63)))) continue;
            }
        }
        Py_INCREF(cid); /* the set's __eq__ could run Python code that changes the list */
        int in = PySet_Contains(want, cid);
        if (in > 0) {
            PyObject *row_obj = PyLong_FromSsize_t(row);
            PyObject *got = row_obj ? PyDict_SetDefault(first, cid, row_obj) : NULL;
            Py_XDECREF(row_obj);
            if (!got) in = -1;
        }
        Py_DECREF(cid);
        if (in < 0) {
            PyMem_Free(table);
            return NULL;
        }
    }
    PyMem_Free(table);
    Py_RETURN_NONE;
}

/* chain_groups(rows, parents[, committed]) -> {root: [rows of its tree, sorted]} for trees of
 *   two or more rows, keys in order: ChainIndex.groups' walks (analysis/chains.py, the
 *   reference) over arrays instead of dicts. ``rows`` are the linked rows in the order walked,
 *   ``parents[i]`` the parent row of ``rows[i]`` (-1 or None: none; with ``committed``, also a
 *   parent that is the row itself or at ``committed`` or past it; a later entry for the same
 *   row with a parent wins, as the dict of the rows with one would keep it). A walk marks the rows it passes, meets a row already answered (its root), a row
 *   with no parent (the root) or a row of its own path (a loop, cut at its earliest row). */
#define CG_UNSET (-2)
#define CG_ON_PATH (-1)

static PyObject *chain_groups(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *rows_in, *parents_in;
    Py_ssize_t committed = -1;
    if (!PyArg_ParseTuple(args, "O!O!|n", &PyList_Type, &rows_in, &PyList_Type, &parents_in,
                          &committed))
        return NULL;
    Py_ssize_t m = PyList_GET_SIZE(rows_in);
    if (PyList_GET_SIZE(parents_in) != m) {
        PyErr_SetString(PyExc_ValueError, "rows and parents differ in length");
        return NULL;
    }
    /* Rows fit in 31 bits (the caller falls back to the walk in Python otherwise). */
    int32_t *row_of = PyMem_Malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    int32_t *par_of = PyMem_Malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    int32_t *parent = NULL, *memo = NULL, *stamp = NULL, *path = NULL, *visited = NULL;
    PyObject **groups = NULL, *out = NULL;
    Py_ssize_t *filled = NULL;
    if (!row_of || !par_of) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t n = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        /* Exact ints only: converting another object could run its Python code, which could
         * change the lists whose items are borrowed here (the caller then walks in Python). */
        PyObject *r_obj = PyList_GET_ITEM(rows_in, i);
        PyObject *p_obj = PyList_GET_ITEM(parents_in, i);
        if (!PyLong_CheckExact(r_obj) || !(p_obj == Py_None || PyLong_CheckExact(p_obj))) {
            PyErr_SetString(PyExc_TypeError, "rows and parents must be ints");
            goto done;
        }
        long long r = PyLong_AsLongLong(r_obj);
        if (r == -1 && PyErr_Occurred()) goto done;
        long long p = p_obj == Py_None ? -1 : PyLong_AsLongLong(p_obj);
        if (p == -1 && PyErr_Occurred()) goto done;
        /* Given ``committed``: a parent that is the row itself or not committed is none. */
        if (committed >= 0 && p >= 0 && (p == r || p >= committed)) p = -1;
        if (r < 0 || p < -1 || r >= INT32_MAX - 1 || p >= INT32_MAX - 1) {
            PyErr_SetString(PyExc_ValueError, "row out of range");
            goto done;
        }
        row_of[i] = (int32_t)r;
        par_of[i] = (int32_t)p;
        if (r + 1 > n) n = r + 1;
        if (p + 1 > n) n = p + 1;
    }
    size_t cells = (size_t)(n ? n : 1), walked = (size_t)(2 * m + 1); /* a row and its parent each */
    parent = PyMem_Malloc(sizeof(int32_t) * cells);
    memo = PyMem_Malloc(sizeof(int32_t) * cells);
    stamp = PyMem_Malloc(sizeof(int32_t) * cells);
    path = PyMem_Malloc(sizeof(int32_t) * walked);
    visited = PyMem_Malloc(sizeof(int32_t) * walked);
    if (!parent || !memo || !stamp || !path || !visited) {
        PyErr_NoMemory();
        goto done;
    }
    for (int64_t r = 0; r < n; r++) { /* (m < 2**31: a list of ints that long is 32 GB) */
        parent[r] = -1;
        memo[r] = CG_UNSET;
        stamp[r] = -1;
    }
    for (Py_ssize_t i = 0; i < m; i++)
        if (par_of[i] >= 0) parent[row_of[i]] = par_of[i];
    int64_t nvisited = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        int32_t row = row_of[i];
        if (memo[row] != CG_UNSET) continue;
        int64_t len = 0;
        int32_t current = row, root;
        path[len++] = row;
        memo[row] = CG_ON_PATH;
        visited[nvisited++] = row;
        for (;;) {
            int32_t p = parent[current];
            if (p < 0) {
                root = current;
                break;
            }
            int32_t known = memo[p];
            if (known == CG_UNSET) {
                path[len++] = p;
                memo[p] = CG_ON_PATH;
                visited[nvisited++] = p;
                current = p;
                continue;
            }
            if (known == CG_ON_PATH) { /* a loop closing at current: its earliest row */
                root = current;
                stamp[current] = (int32_t)i;
                int32_t step = parent[current];
                while (step >= 0 && stamp[step] != (int32_t)i) {
                    stamp[step] = (int32_t)i;
                    if (step < root) root = step;
                    step = parent[step];
                }
            } else {
                root = known;
            }
            break;
        }
        for (int64_t k = 0; k < len; k++) memo[path[k]] = root;
    }
    /* The trees: every row a walk passed, and a root no walk passed (none: kept as the reference
     * keeps it), grouped by root in row order, for roots in row order. ``parent`` becomes each
     * root's count, ``stamp`` its group's number. */
    for (int64_t k = 0; k < nvisited; k++) {
        int32_t root = memo[visited[k]];
        if (memo[root] == CG_UNSET) memo[root] = root;
    }
    for (int64_t r = 0; r < n; r++) parent[r] = 0;
    for (int64_t r = 0; r < n; r++)
        if (memo[r] >= 0) parent[memo[r]]++;
    int64_t ngroups = 0;
    for (int64_t r = 0; r < n; r++) stamp[r] = parent[r] > 1 ? (int32_t)ngroups++ : -1;
    groups = PyMem_Calloc((size_t)(ngroups ? ngroups : 1), sizeof(PyObject *));
    filled = PyMem_Calloc((size_t)(ngroups ? ngroups : 1), sizeof(Py_ssize_t));
    out = PyDict_New();
    if (!groups || !filled || !out) {
        if (out) Py_CLEAR(out);
        else PyErr_NoMemory();
        if (!groups || !filled) PyErr_NoMemory();
        goto done;
    }
    for (int64_t r = 0; r < n; r++) {
        if (stamp[r] < 0) continue;
        PyObject *list = PyList_New(parent[r]);
        PyObject *key = list ? PyLong_FromLongLong(r) : NULL;
        int bad = !list || !key || PyDict_SetItem(out, key, list) < 0;
        Py_XDECREF(key);
        if (bad) {
            Py_XDECREF(list);
            Py_CLEAR(out);
            goto done;
        }
        groups[stamp[r]] = list; /* the dict holds it */
        Py_DECREF(list);
    }
    for (int64_t r = 0; r < n; r++) {
        if (memo[r] < 0 || stamp[memo[r]] < 0) continue;
        int32_t g = stamp[memo[r]];
        PyObject *v = PyLong_FromLongLong(r);
        if (!v) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(groups[g], filled[g]++, v);
    }
done:
    PyMem_Free(row_of);
    PyMem_Free(par_of);
    PyMem_Free(parent);
    PyMem_Free(memo);
    PyMem_Free(stamp);
    PyMem_Free(path);
    PyMem_Free(visited);
    PyMem_Free(groups);
    PyMem_Free(filled);
    return out;
}

/* known_sum(column, skip) -> int or None: the sum of an int64 column's values other than
 *   ``skip`` (the hidden bytes without the NO_VALUE rows), None if it would overflow 64 bits
 *   (the caller then sums in Python). A cache part's total, without an int object per row. */
static PyObject *known_sum(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer col;
    long long skip;
    if (!PyArg_ParseTuple(args, "y*L", &col, &skip)) return NULL;
    const int64_t *v = (const int64_t *)col.buf;
    Py_ssize_t n = col.len / (Py_ssize_t)sizeof(int64_t);
    int64_t total = 0;
    int overflow = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t x;
        memcpy(&x, v + i, sizeof x);
        if (x != skip && __builtin_add_overflow(total, x, &total)) {
            overflow = 1;
            break;
        }
    }
    PyBuffer_Release(&col);
    if (overflow) Py_RETURN_NONE;
    return PyLong_FromLongLong(total);
}

/* count_picked(picked, column, a, b) -> int: the rows i with picked[i] nonzero whose int64
 *   value column[i] is ``a`` or ``b`` (over the shorter of the two). */
static PyObject *count_picked(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sel, col;
    long long a, b;
    if (!PyArg_ParseTuple(args, "y*y*LL", &sel, &col, &a, &b)) return NULL;
    const unsigned char *s = (const unsigned char *)sel.buf;
    const int64_t *v = (const int64_t *)col.buf;
    Py_ssize_t n = col.len / (Py_ssize_t)sizeof(int64_t);
    if (sel.len < n) n = sel.len;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!s[i]) continue;
        int64_t x;
        memcpy(&x, v + i, sizeof x);
        count += x == a || x == b;
    }
    PyBuffer_Release(&sel);
    PyBuffer_Release(&col);
    return PyLong_FromSsize_t(count);
}

/* ones(column, start) -> [positions of the bytes equal to 1, from ``start``]: the rows a 0/1
 *   column (a flags or marks column translated) picks, found with memchr, an int only for each. */
static PyObject *ones(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer col;
    Py_ssize_t start = 0;
    if (!PyArg_ParseTuple(args, "y*|n", &col, &start)) return NULL;
    PyObject *out = PyList_New(0);
    const unsigned char *p = (const unsigned char *)col.buf, *end = p + col.len;
    if (start < 0) start = start + col.len < 0 ? 0 : start + col.len; /* as bytes.find takes it */
    const unsigned char *at = start < col.len ? p + start : end;
    while (out && at < end) {
        const unsigned char *hit = memchr(at, 1, (size_t)(end - at));
        if (!hit) break;
        PyObject *v = PyLong_FromSsize_t(hit - p);
        if (!v || PyList_Append(out, v) < 0) Py_CLEAR(out);
        Py_XDECREF(v);
        at = hit + 1;
    }
    PyBuffer_Release(&col);
    return out;
}

/* chain_list(groups, ids, finals) -> [{"root": ids[root], "attempts": [ids[r] for r in rows],
 *   "final_exit_code": finals[i]} for the i-th (root, rows) of groups], summary's chains (SPEC
 *   §4): one dict and one list a chain made here, without a Python call per id. The rows must
 *   be ints within ids; anything else raises (the caller then builds the list in Python). */
static PyObject *chain_list(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *groups, *ids, *finals;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyDict_Type, &groups, &PyList_Type, &ids, &PyList_Type, &finals))
        return NULL;
    if (PyList_GET_SIZE(finals) != PyDict_GET_SIZE(groups)) {
        PyErr_SetString(PyExc_ValueError, "one final exit a chain");
        return NULL;
    }
    static PyObject *k_root, *k_attempts, *k_final;
    if (!k_root && !(k_root = PyUnicode_InternFromString("root"))) return NULL;
    if (!k_attempts && !(k_attempts = PyUnicode_InternFromString("attempts"))) return NULL;
    if (!k_final && !(k_final = PyUnicode_InternFromString("final_exit_code"))) return NULL;
    Py_ssize_t n_ids = PyList_GET_SIZE(ids), pos = 0, i = 0;
    PyObject *out = PyList_New(PyDict_GET_SIZE(groups)), *root, *rows;
    if (!out) return NULL;
    while (PyDict_Next(groups, &pos, &root, &rows)) {
        if (!PyList_Check(rows)) { PyErr_SetString(PyExc_TypeError, "a chain's rows are a list"); goto fail; }
        Py_ssize_t r = PyLong_AsSsize_t(root), m = PyList_GET_SIZE(rows);
        if (r == -1 && PyErr_Occurred()) goto fail;
        if (r < 0 || r >= n_ids) { PyErr_SetString(PyExc_IndexError, "a root outside the ids"); goto fail; }
        PyObject *attempts = PyList_New(m);
        if (!attempts) goto fail;
        for (Py_ssize_t j = 0; j < m; j++) {
            Py_ssize_t a = PyLong_AsSsize_t(PyList_GET_ITEM(rows, j));
            if (a == -1 && PyErr_Occurred()) { Py_DECREF(attempts); goto fail; }
            if (a < 0 || a >= n_ids) {
                Py_DECREF(attempts);
                PyErr_SetString(PyExc_IndexError, "a row outside the ids");
                goto fail;
            }
            PyObject *id = PyList_GET_ITEM(ids, a);
            Py_INCREF(id);
            PyList_SET_ITEM(attempts, j, id);
        }
        PyObject *chain = PyDict_New();
        if (!chain || PyDict_SetItem(chain, k_root, PyList_GET_ITEM(ids, r)) < 0 ||
            PyDict_SetItem(chain, k_attempts, attempts) < 0 ||
            PyDict_SetItem(chain, k_final, PyList_GET_ITEM(finals, i)) < 0) {
            Py_XDECREF(chain);
            Py_DECREF(attempts);
            goto fail;
        }
        Py_DECREF(attempts);
        PyList_SET_ITEM(out, i++, chain);
    }
    return out;
fail:
    Py_DECREF(out); /* the items not set yet are NULL, which a list's dealloc skips */
    return NULL;
}
