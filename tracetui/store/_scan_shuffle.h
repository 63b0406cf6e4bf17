/* The word searches sixteen starts at a time, where the CPU has SSSE3 (its byte shuffle): the
 * secret words' and the marker hints' (_scan_words.h holds their words, exact checks and walks).
 *
 * The walks look at every few byte pairs; the secret words are short (three bytes) and their pairs
 * common in text ("to", "se", "pa"), so that walk looked up every other pair, checked many starts,
 * and was a quarter of a typical line's scan. Here each word's first three bytes (both cases for
 * the secret words) set its group's bit in a table per byte position and nibble (the "Teddy" way of
 * matching many words at once): a start whose three bytes fit no group is no word's, and only the
 * few that fit are checked exactly, by the same check as the walk's. Eight groups: words sharing a
 * group share its tables, which only lets more starts through. A word of two bytes lets any third
 * byte through. A test of the CPU when the words are set picks the road, so the module loads and
 * answers the same on any machine (the walks are the road elsewhere, and for texts under 18 bytes).
 *
 * Part of the C scanner, included once by _scan_words.h (one translation unit); not a header to
 * include elsewhere.
 */
#ifndef TRACETUI__SCAN_SHUFFLE_H
#define TRACETUI__SCAN_SHUFFLE_H

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(TRACETUI_NO_SHUFFLE)
#include <tmmintrin.h>
#define SHUFFLE_GROUPS 8

/* One search's tables: per byte position and nibble, the groups whose words fit. */
typedef struct {
    uint8_t lo[3][16], hi[3][16];
    int on; /* the words are set and the CPU has SSSE3 */
} Shuffle;

static Shuffle SECRET_SHUFFLE, HINT_SHUFFLE;

typedef int (*WordAt)(const unsigned char *q, const unsigned char *end);
typedef int (*WordWalk)(const unsigned char *s, Py_ssize_t n);

__attribute__((target("ssse3"))) static inline int shuffle_search(const Shuffle *t, const unsigned char *s,
                                                                  Py_ssize_t n, WordAt at, WordWalk walk) {
    if (n < 18) return walk(s, n);
    const unsigned char *p = s, *end = s + n;
    const __m128i nib = _mm_set1_epi8(0x0F), zero = _mm_setzero_si128();
    __m128i lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = _mm_loadu_si128((const __m128i *)t->lo[k]);
        hi[k] = _mm_loadu_si128((const __m128i *)t->hi[k]);
    }
    /* Starts p..p+15, their three bytes read by three loads (the last ends at p + 17); the last
     * turn ends at the text's end, again over starts already looked at (no walk for the rest). */
    for (;;) {
        __m128i fit = _mm_set1_epi8((char)0xFF);
        for (int k = 0; k < 3; k++) {
            __m128i b = _mm_loadu_si128((const __m128i *)(p + k));
            __m128i l = _mm_shuffle_epi8(lo[k], _mm_and_si128(b, nib));
            __m128i h = _mm_shuffle_epi8(hi[k], _mm_and_si128(_mm_srli_epi16(b, 4), nib));
            fit = _mm_and_si128(fit, _mm_and_si128(l, h));
        }
        unsigned starts = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(fit, zero)) ^ 0xFFFFu;
        for (; starts; starts &= starts - 1)
            if (at(p + __builtin_ctz(starts), end)) return 1;
        if (p == end - 18) break;
        p = end - p >= 34 ? p + 16 : end - 18;
    }
    return at(end - 2, end); /* the one start no turn saw: a word of two bytes there */
}

__attribute__((target("ssse3"))) static int secret_shuffle(const unsigned char *s, Py_ssize_t n) {
    return shuffle_search(&SECRET_SHUFFLE, s, n, secret_at, secret_walk);
}

__attribute__((target("ssse3"))) static int hint_shuffle(const unsigned char *s, Py_ssize_t n) {
    return shuffle_search(&HINT_SHUFFLE, s, n, hint_at, hint_walk);
}

/* How often a byte is seen in text, roughly (English letters, few capitals, a space, digits and
 * some punctuation): only to choose which words share a group, so that few starts fit by chance. */
static double text_share(unsigned c) {
    static const char *LETTERS = "etaoinsrhldcumfpgwybvkxjqz";
    static const double SHARES[] = {9, 7, 6.5, 6, 6, 6, 5.5, 5.5, 4, 3.5, 3, 2.5, 2.5, 2, 2, 1.8, 1.8,
                                    1.5, 1.5, 1.3, 1, 0.7, 0.2, 0.15, 0.1, 0.1};
    if (c >= 'A' && c <= 'Z') return text_share(c + 32) / 10;
    const char *at = c >= 'a' && c <= 'z' ? strchr(LETTERS, (int)c) : NULL;
    if (at) return SHARES[at - LETTERS] / 100;
    if (c == ' ') return 0.15;
    if ((c >= '0' && c <= '9') || (c && strchr("._-/:\"(),=\\", (int)c))) return 0.01;
    return 0.0001;
}

/* One group's tables as it is made: per position, the nibbles (as bits) its words' bytes have. */
typedef struct {
    uint16_t lo[3], hi[3];
} Nibbles;

static void add_word(Nibbles *g, const char *word, size_t len, int fold) {
    for (int k = 0; k < 3; k++) {
        if ((size_t)k >= len) { /* no byte there: any fits */
            g->lo[k] = g->hi[k] = 0xFFFF;
            continue;
        }
        unsigned char ch = (unsigned char)word[k];
        unsigned char cases[2] = {ch, (fold && ch >= 'a' && ch <= 'z') ? (unsigned char)(ch - 32) : ch};
        for (int c = 0; c < 2; c++) {
            g->lo[k] |= (uint16_t)(1u << (cases[c] & 15));
            g->hi[k] |= (uint16_t)(1u << (cases[c] >> 4));
        }
    }
}

/* The share of starts whose three bytes fit a group: every byte its nibbles allow counts. */
static double fit_share(const Nibbles *g) {
    double all = 1;
    for (int k = 0; k < 3; k++) {
        double share = 0;
        for (unsigned hi = 0; hi < 16; hi++)
            if (g->hi[k] >> hi & 1)
                for (unsigned lo = 0; lo < 16; lo++)
                    if (g->lo[k] >> lo & 1) share += text_share(hi << 4 | lo);
        all *= share;
    }
    return all;
}

static Nibbles merged(const Nibbles *a, const Nibbles *b) {
    Nibbles m = *a;
    for (int k = 0; k < 3; k++) { m.lo[k] |= b->lo[k]; m.hi[k] |= b->hi[k]; }
    return m;
}

/* The words (n of them, lower case when ``fold``, which then matches both cases) in eight groups:
 * one a first byte, then the two groups whose union lets the fewest more starts through are merged
 * until eight are left. (Any grouping gives the same answers; grouping the secret words by first
 * byte alone let a twentieth of the starts of typical text through, this about a hundredth, most
 * of them a word's first three bytes indeed.) Returns whether the shuffle is now the road. */
static int set_groups(Shuffle *t, char words[][64], const size_t *lens, int n, int fold, int shuffle) {
    Nibbles groups[MAX_HINTS];
    unsigned char firsts[MAX_HINTS];
    int groups_n = 0;
    for (int h = 0; h < n; h++) {
        int g = 0;
        while (g < groups_n && firsts[g] != (unsigned char)words[h][0]) g++;
        if (g == groups_n) {
            firsts[groups_n] = (unsigned char)words[h][0];
            memset(&groups[groups_n], 0, sizeof(groups[groups_n]));
            groups_n++;
        }
        add_word(&groups[g], words[h], lens[h], fold);
    }
    while (groups_n > SHUFFLE_GROUPS) {
        int bi = 0, bj = 1;
        double least = 0;
        for (int i = 0; i < groups_n; i++)
            for (int j = i + 1; j < groups_n; j++) {
                Nibbles m = merged(&groups[i], &groups[j]);
                double more = fit_share(&m) - fit_share(&groups[i]) - fit_share(&groups[j]);
                if ((i == 0 && j == 1) || more < least) { least = more; bi = i; bj = j; }
            }
        groups[bi] = merged(&groups[bi], &groups[bj]);
        groups[bj] = groups[--groups_n];
    }
    memset(t, 0, sizeof(*t));
    for (int g = 0; g < groups_n; g++)
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 16; i++) {
                if (groups[g].lo[k] >> i & 1) t->lo[k][i] |= (uint8_t)(1u << g);
                if (groups[g].hi[k] >> i & 1) t->hi[k][i] |= (uint8_t)(1u << g);
            }
    __builtin_cpu_init();
    t->on = shuffle && __builtin_cpu_supports("ssse3");
    return t->on;
}
#else
static int SECRET_SHUFFLE, HINT_SHUFFLE; /* no tables: the walks are the road */
static int set_groups(void *t, char words[][64], const size_t *lens, int n, int fold, int shuffle) {
    (void)t, (void)words, (void)lens, (void)n, (void)fold;
    return 0 * shuffle;
}
#endif

#endif /* TRACETUI__SCAN_SHUFFLE_H */
