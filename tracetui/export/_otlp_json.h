/* JSON in and out for _otlp_row.c (part of its translation unit).
 *
 * In: one record's line is validated as a whole (strings, escapes, UTF-8, numbers, nesting) and the
 * values of the top-level keys an OTLP span is made of are located, not decoded. The grammar is
 * strict JSON, as orjson reads it; anything this parser refuses (or would have to guess about: an
 * escaped key, a repeated key it needs, a nesting deeper than MAX_DEPTH) makes the row go to the
 * Python writer, so refusing too much costs speed, never correctness.
 *
 * Out: a string is written as orjson.dumps writes it (", \\ and C0 escaped, \b \t \n \f \r short)
 * and then as model/text.py dump_json escapes it (DEL, C1, bidi, zero-width and tag characters
 * as \uXXXX, past the BMP as a surrogate pair), in one pass.
 */

enum { V_ABSENT = 0, V_NULL, V_FALSE, V_TRUE, V_INT, V_FLOAT, V_STR, V_ARR, V_OBJ };

typedef struct {
    const unsigned char *p; /* a string's content (inside the quotes), a number's literal */
    Py_ssize_t n;
    unsigned char kind;
    unsigned char esc; /* a string holding a backslash escape */
} Val;

#define MAX_DEPTH 64
#define MAX_ARGS 128

typedef struct {
    Buf *b;
    const unsigned char *p, *end;
} Cur;

static inline void skip_ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int hex4(const unsigned char *p, const unsigned char *end, unsigned *out) {
    if (end - p < 4) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char h = p[i];
        unsigned d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99;
        if (d == 99) return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at p (strict: no overlong form, no surrogate, nothing past
 * U+10FFFF), its code point in *cp; 0 when invalid. */
static int utf8_seq(const unsigned char *p, const unsigned char *end, uint32_t *cp) {
    unsigned char a = p[0];
    Py_ssize_t room = end - p;
    if (a >= 0xC2 && a <= 0xDF) {
        if (room < 2 || (p[1] & 0xC0) != 0x80) return 0;
        *cp = (uint32_t)(a & 0x1F) << 6 | (p[1] & 0x3F);
        return 2;
    }
    if (a >= 0xE0 && a <= 0xEF) {
        if (room < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        if ((a == 0xE0 && p[1] < 0xA0) || (a == 0xED && p[1] > 0x9F)) return 0;
        *cp = (uint32_t)(a & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
        return 3;
    }
    if (a >= 0xF0 && a <= 0xF4) {
        if (room < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        if ((a == 0xF0 && p[1] < 0x90) || (a == 0xF4 && p[1] > 0x8F)) return 0;
        *cp = (uint32_t)(a & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 | (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
        return 4;
    }
    return 0;
}

/* A string token at c->p (its opening quote); -1 for anything orjson would refuse. */
static int p_string(Cur *c, Val *v) {
    const unsigned char *p = c->p + 1, *end = c->end, *start = p;
    int esc = 0;
    for (;;) {
#ifdef __SSE2__
        /* 16 bytes at a time while none is a quote, a backslash, a control or non-ASCII byte. */
        const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)p);
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                       _mm_cmplt_epi8(v, space)); /* signed: also every byte >= 0x80 */
            int mask = _mm_movemask_epi8(hit);
            if (mask) {
                p += __builtin_ctz(mask);
                break;
            }
            p += 16;
        }
#endif
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') p++;
        if (p >= end) return -1;
        unsigned char ch = *p;
        if (ch == '"') break;
        if (ch == '\\') {
            esc = 1;
            if (++p >= end) return -1;
            switch (*p) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                p++;
                break;
            case 'u': {
                unsigned u, lo;
                if (hex4(p + 1, end, &u)) return -1;
                p += 5;
                if (u >= 0xDC00 && u <= 0xDFFF) return -1; /* a lone low surrogate */
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || hex4(p + 2, end, &lo)) return -1;
                    if (lo < 0xDC00 || lo > 0xDFFF) return -1;
                    p += 6;
                }
                break;
            }
            default:
                return -1;
            }
            continue;
        }
        if (ch < 0x20) return -1;
        uint32_t cp;
        int k = utf8_seq(p, end, &cp);
        if (!k) return -1;
        p += k;
    }
    if (v) {
        v->kind = V_STR;
        v->p = start;
        v->n = p - start;
        v->esc = (unsigned char)esc;
    }
    c->p = p + 1;
    return 0;
}

static int p_number(Cur *c, Val *v) {
    const unsigned char *p = c->p, *end = c->end, *start = p;
    int real = 0;
    if (*p == '-') p++;
    if (p >= end) return -1;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9') p++;
    else
        return -1;
    if (p < end && *p == '.') {
        real = 1;
        if (++p >= end || *p < '0' || *p > '9') return -1;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        real = 1;
        if (++p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') return -1;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (v) {
        v->kind = real ? V_FLOAT : V_INT;
        v->p = start;
        v->n = p - start;
        v->esc = 0;
    }
    c->p = p;
    return 0;
}

static int p_value(Cur *c, int depth, Val *v);

/* The elements of an argv list, when every one is a string (*all_str 0 otherwise). */
static int p_array(Cur *c, int depth, Val *args, int *nargs, int *all_str) {
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == ']') {
        c->p++;
        return 0;
    }
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (args && *c->p == '"' && *nargs < MAX_ARGS) {
            if (p_string(c, &args[*nargs])) return -1;
            (*nargs)++;
        } else {
            if (all_str) *all_str = 0;
            if (p_value(c, depth + 1, NULL)) return -1;
        }
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == ']') {
            c->p++;
            return 0;
        }
        if (*c->p++ != ',') return -1;
    }
}

static int p_object(Cur *c, int depth) {
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return 0;
    }
    for (;;) {
        skip_ws(c);
        if (c->p >= c->end || *c->p != '"' || p_string(c, NULL)) return -1;
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != ':') return -1;
        if (p_value(c, depth + 1, NULL)) return -1;
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == '}') {
            c->p++;
            return 0;
        }
        if (*c->p++ != ',') return -1;
    }
}

static int p_value(Cur *c, int depth, Val *v) {
    if (depth > MAX_DEPTH) return -1;
    skip_ws(c);
    if (c->p >= c->end) return -1;
    const unsigned char *start = c->p;
    Py_ssize_t room = c->end - c->p;
    switch (*c->p) {
    case '"':
        return p_string(c, v);
    case '{':
        if (p_object(c, depth)) return -1;
        if (v) v->kind = V_OBJ;
        break;
    case '[':
        if (p_array(c, depth, NULL, NULL, NULL)) return -1;
        if (v) v->kind = V_ARR;
        break;
    case 't':
        if (room < 4 || memcmp(c->p, "true", 4)) return -1;
        c->p += 4;
        if (v) v->kind = V_TRUE;
        break;
    case 'f':
        if (room < 5 || memcmp(c->p, "false", 5)) return -1;
        c->p += 5;
        if (v) v->kind = V_FALSE;
        break;
    case 'n':
        if (room < 4 || memcmp(c->p, "null", 4)) return -1;
        c->p += 4;
        if (v) v->kind = V_NULL;
        break;
    default:
        return p_number(c, v);
    }
    if (v) {
        v->p = start;
        v->n = c->p - start;
        v->esc = 0;
    }
    return 0;
}

/* The decoded UTF-8 of a validated string token into out (never longer than the token). */
static Py_ssize_t json_decode(const unsigned char *p, Py_ssize_t n, unsigned char *out) {
    const unsigned char *end = p + n;
    unsigned char *o = out;
    while (p < end) {
        if (*p != '\\') {
            *o++ = *p++;
            continue;
        }
        p++;
        unsigned char e = *p++;
        switch (e) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned u, lo;
            hex4(p, end, &u);
            p += 4;
            uint32_t cp = u;
            if (u >= 0xD800 && u <= 0xDBFF) {
                hex4(p + 2, end, &lo);
                p += 6;
                cp = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp < 0x80) *o++ = (unsigned char)cp;
            else if (cp < 0x800) {
                *o++ = (unsigned char)(0xC0 | cp >> 6);
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *o++ = (unsigned char)(0xE0 | cp >> 12);
                *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            } else {
                *o++ = (unsigned char)(0xF0 | cp >> 18);
                *o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
                *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
                *o++ = (unsigned char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: *o++ = e; /* " \ / */
        }
    }
    return o - out;
}

/* dump_json's set: what is escaped past what orjson escapes (text.py _JSON_UNSAFE). */
static int unsafe_cp(uint32_t c) {
    if (c < 0x7F) return 0;
    if (c <= 0x9F) return 1;
    if (c < 0x061C) return 0;
    return c == 0x061C || c == 0x180E || (c >= 0x200B && c <= 0x200F) || (c >= 0x2028 && c <= 0x202E) ||
           (c >= 0x2060 && c <= 0x2064) || (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF ||
           (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0xE0000 && c <= 0xE007F);
}

static const char HEXL[] = "0123456789abcdef";

static void put_u4(Buf *b, unsigned v) {
    char t[6] = {'\\', 'u', HEXL[v >> 12 & 15], HEXL[v >> 8 & 15], HEXL[v >> 4 & 15], HEXL[v & 15]};
    buf_put(b, t, 6);
}

/* Valid UTF-8 text as a JSON string, quotes included, escaped as orjson then dump_json write it. */
static void put_text(Buf *b, const unsigned char *s, Py_ssize_t n) {
    const unsigned char *end = s + n, *run;
    buf_reserve(b, n + 2); /* room for the usual case at once */
    buf_put(b, "\"", 1);  /* through buf_put: nothing is written once a reserve has failed */
    while (s < end) {
        run = s;
        while (s < end && *s >= 0x20 && *s < 0x7F && *s != '"' && *s != '\\') s++;
        buf_put(b, (const char *)run, s - run);
        if (s >= end) break;
        unsigned char ch = *s;
        if (ch < 0x80) {
            s++;
            switch (ch) {
            case '"': buf_put(b, "\\\"", 2); break;
            case '\\': buf_put(b, "\\\\", 2); break;
            case '\b': buf_put(b, "\\b", 2); break;
            case '\t': buf_put(b, "\\t", 2); break;
            case '\n': buf_put(b, "\\n", 2); break;
            case '\f': buf_put(b, "\\f", 2); break;
            case '\r': buf_put(b, "\\r", 2); break;
            default: put_u4(b, ch); /* other C0, and DEL */
            }
            continue;
        }
        uint32_t cp = 0;
        int k = utf8_seq(s, end, &cp);
        if (!k) k = 1; /* never: the text was validated */
        if (!unsafe_cp(cp)) buf_put(b, (const char *)s, k);
        else if (cp <= 0xFFFF) put_u4(b, cp);
        else {
            put_u4(b, 0xD800 + ((cp - 0x10000) >> 10));
            put_u4(b, 0xDC00 + ((cp - 0x10000) & 0x3FF));
        }
        s += k;
    }
    buf_put(b, "\"", 1);
}
