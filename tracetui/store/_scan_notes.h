/* TT022's reading of an agent's note, for the rows the scanner judges that failed or were cut: the
 * same judgement as predicted_success() in tracetui/analysis/notes.py (clauses, words, the five
 * word lists), so that summary's suspicion count need not read those rows again.
 *
 * The note is read as Python reads it: escapes decoded, lower-cased (the two characters outside
 * ASCII whose lower case holds an ASCII letter, U+0130 and U+212A, map as str.lower() maps them),
 * U+2019 taken for an apostrophe, every other character outside ASCII a plain separator. The word
 * lists are copies of notes.py's; the module exports them (note_words) and
 * tests/unit/test_cold_sum_notes.py checks that they are equal and compares the two readings.
 *
 * Part of the C scanner, included once by _scan.c (one translation unit); not a header to include
 * elsewhere.
 */
#ifndef TRACETUI__SCAN_NOTES_H
#define TRACETUI__SCAN_NOTES_H

enum { NW_CUE = 1, NW_SUCCESS = 2, NW_FAILURE = 4, NW_NEGATION = 8, NW_SUBJECT = 16 };

static const char *const NOTE_CUES[] = {"expect", "expects", "expected", "expecting", "should", "will",
                                        "must", "reproduce", "reproduces", "reproducing", "repro",
                                        "confirm", "confirms", "still", NULL};
static const char *const NOTE_SUCCESS[] = {"pass", "passes", "passing", "green", "fixed", "fixes",
                                           "resolved", "works", "succeed", "succeeds", "success",
                                           "successful", "successfully", NULL};
static const char *const NOTE_FAILURE[] = {"fail", "fails", "failing", "failed", "failure", "failures",
                                           "red", "error", "errors", "broken", "break", "breaks",
                                           "crash", "crashes", "flake", "flaky", NULL};
static const char *const NOTE_NEGATIONS[] = {"not", "no", "never", "none", "nor", "without", "cannot",
                                             "isn't", "aren't", "wasn't", "weren't", "doesn't", "don't",
                                             "didn't", "won't", "can't", "couldn't", "shouldn't",
                                             "wouldn't", "hasn't", "haven't", NULL};
static const char *const NOTE_SUBJECTS[] = {"test", "tests", "case", "cases", "build", "builds", "job",
                                            "jobs", "check", "checks", NULL};
/* In the order of the NW_ bits. */
static const char *const *const NOTE_LISTS[5] = {NOTE_CUES, NOTE_SUCCESS, NOTE_FAILURE, NOTE_NEGATIONS,
                                                 NOTE_SUBJECTS};

#define NOTE_WORD_MAX 16     /* longer than any listed word: a longer word is in no list */
#define NOTE_CLAUSE_WORDS 512 /* words of one clause judged here; a longer clause is Python's */

static int note_word_class(const char *w, int n) {
    if (n >= NOTE_WORD_MAX) return 0;
    int cls = 0;
    for (int s = 0; s < 5; s++)
        for (const char *const *x = NOTE_LISTS[s]; *x; x++)
            if ((*x)[0] == w[0] && strlen(*x) == (size_t)n && memcmp(*x, w, (size_t)n) == 0) {
                cls |= 1 << s;
                break;
            }
    return cls;
}

/* One clause's words (their NW_ classes), as predicted_success's inner loop reads them: 1 when
 * some outcome word is a success, 0 when none, -1 when a predicted outcome is a failure (the
 * note then predicts no success, whatever else it says). */
static int note_clause(const uint8_t *cls, int n) {
    int cued = 0, found = 0;
    for (int i = 0; i < n; i++) {
        int c = cls[i];
        if (c & NW_CUE) {
            cued = 1;
            continue;
        }
        int good = (c & NW_SUCCESS) != 0;
        if (!good && !(c & NW_FAILURE)) continue;
        if (i + 1 < n && (cls[i + 1] & NW_SUBJECT)) continue; /* "the failing test" */
        int negated = (i >= 1 && (cls[i - 1] & NW_NEGATION)) || (i >= 2 && (cls[i - 2] & NW_NEGATION));
        good = good != negated;
        if (cued && !good) return -1;
        cued = 0;
        if (good) found = 1;
    }
    return found;
}

/* The next character of a JSON string's contents (as written, escapes still in) at *pp: its code
 * point, or -1 when the bytes are not a well-formed string's (only a test feeds such bytes). */
static int32_t note_char(const unsigned char **pp, const unsigned char *end) {
    const unsigned char *p = *pp;
    unsigned char b = *p;
    if (b == '\\') {
        if (end - p < 2) return -1;
        unsigned char e = p[1];
        *pp = p + 2;
        switch (e) {
        case '"': return '"';
        case '\\': return '\\';
        case '/': return '/';
        case 'b': return 8;
        case 'f': return 12;
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        case 'u': break;
        default: return -1;
        }
        if (end - p < 6) return -1;
        int32_t cp = 0;
        for (int i = 2; i < 6; i++) {
            unsigned char h = p[i];
            int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0) return -1;
            cp = cp * 16 + d;
        }
        *pp = p + 6;
        return cp; /* a surrogate (paired or not) reads as a separator, as the pair's character would */
    }
    if (b < 0x80) {
        *pp = p + 1;
        return b;
    }
    int n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    if (n == 0 || end - p < n) return -1;
    int32_t cp = b & (0x3F >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    *pp = p + n;
    return cp;
}

/* Whether the note whose JSON string contents (between the quotes, as written) are s[0..n) predicts
 * success, as predicted_success() reads it: 1 yes, 0 no, -1 when only Python can say (a clause
 * of more words than NOTE_CLAUSE_WORDS, bytes that are no string's). */
static int note_says_pass(const unsigned char *s, Py_ssize_t n) {
    const unsigned char *p = s, *end = s + n;
    uint8_t cls[NOTE_CLAUSE_WORDS];
    int nw = 0, found = 0;
    char word[NOTE_WORD_MAX];
    int wlen = 0;       /* bytes of the word under way (capped at NOTE_WORD_MAX: in no list) */
    int state = 0;      /* 0 between words, 1 in [a-z0-9]+, 2 just after its apostrophe, 3 in '[a-z]+ */
    int done = 0;
    while (!done) {
        int32_t cp;
        char out[2];
        int nout = 1;
        if (p >= end) {
            cp = '\n'; /* the end closes the last clause */
            done = 1;
        } else {
            cp = note_char(&p, end);
            if (cp < 0) return -1;
        }
        /* The character as the lower-cased text holds it (one or two characters). */
        if (cp >= 'A' && cp <= 'Z') out[0] = (char)(cp + 32);
        else if (cp < 0x80) out[0] = (char)cp;
        else if (cp == 0x2019) out[0] = '\'';
        else if (cp == 0x130) { out[0] = 'i'; out[1] = ' '; nout = 2; } /* i and U+0307 */
        else if (cp == 0x212A) out[0] = 'k';
        else out[0] = ' ';
        for (int k = 0; k < nout; k++) {
            char ch = out[k];
            int letter = ch >= 'a' && ch <= 'z';
            int wordch = letter || (ch >= '0' && ch <= '9');
            int clause = ch == '.' || ch == ';' || ch == ':' || ch == ',' || ch == '!' || ch == '?' ||
                         ch == '(' || ch == ')' || ch == '[' || ch == ']' || ch == '\n';
            for (;;) { /* a character that ends a word is looked at again between words */
                if (state == 1 && wordch) {
                    if (wlen < NOTE_WORD_MAX) word[wlen] = ch;
                    wlen++;
                    break;
                }
                if (state == 1 && ch == '\'') {
                    state = 2;
                    break;
                }
                if (state == 2 && letter) {
                    if (wlen < NOTE_WORD_MAX) word[wlen] = '\'';
                    wlen++;
                    if (wlen < NOTE_WORD_MAX) word[wlen] = ch;
                    wlen++;
                    state = 3;
                    break;
                }
                if (state == 3 && letter) {
                    if (wlen < NOTE_WORD_MAX) word[wlen] = ch;
                    wlen++;
                    break;
                }
                if (state != 0) { /* the word ends here (an apostrophe not followed by a letter is not its) */
                    if (nw == NOTE_CLAUSE_WORDS) return -1;
                    cls[nw++] = (uint8_t)note_word_class(word, wlen);
                    state = 0;
                    wlen = 0;
                    continue;
                }
                if (wordch) {
                    word[0] = ch;
                    wlen = 1;
                    state = 1;
                } else if (clause) {
                    int got = note_clause(cls, nw);
                    if (got < 0) return 0;
                    found |= got;
                    nw = 0;
                }
                break;
            }
        }
    }
    return found;
}

#endif /* TRACETUI__SCAN_NOTES_H */
