/* RFC 3339 start times for _otlp_row.c (part of its translation unit): otlp.unix_nanos in C.
 *
 * The reference matches otlp._RFC3339 against the stripped text, builds a datetime (which refuses
 * a day, hour, minute or zone that does not exist) and counts from the epoch. Here: the same
 * pattern on ASCII text, the same checks, the count in 128-bit arithmetic. Text this cannot
 * judge exactly (non-ASCII, whose \d and strip() are Unicode's; a time outside the 64-bit
 * nanosecond range) is answered "ask Python" (-1).
 */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int digits(const unsigned char *p, int n) {
    int v = 0;
    for (int i = 0; i < n; i++) v = v * 10 + (p[i] - '0');
    return v;
}

/* Days from 1970-01-01 to a proleptic Gregorian date (month 1..12). */
static int64_t civil_days(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int month_days(int y, int m) {
    static const int DAYS[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return DAYS[m - 1];
}

static int is_strip_space(unsigned char c) { return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F); }

/* 1: *out holds the nanoseconds; 0: no time (the reference's None); -1: let Python decide. */
static int stamp_nanos(const unsigned char *s, Py_ssize_t n, int64_t *out) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x80) return -1;
    /* str.strip() of ASCII text (the whitespace it strips there is exactly is_strip_space). */
    while (n && is_strip_space(s[0])) s++, n--;
    while (n && is_strip_space(s[n - 1])) n--;
    if (n < 19) return 0;
    static const char SHAPE[] = "dddd-dd-ddTdd:dd:dd";
    for (int i = 0; i < 19; i++) {
        char want = SHAPE[i];
        if (want == 'd' ? !is_digit(s[i]) : want == 'T' ? (s[i] != 'T' && s[i] != 't' && s[i] != ' ') : s[i] != want)
            return 0;
    }
    Py_ssize_t i = 19;
    int64_t frac = 0;
    if (i < n && s[i] == '.' && i + 1 < n && is_digit(s[i + 1])) {
        i++;
        int k = 0;
        while (i < n && is_digit(s[i])) {
            if (k < 9) {
                frac = frac * 10 + (s[i] - '0');
                k++;
            }
            i++;
        }
        for (; k < 9; k++) frac *= 10;
    }
    int zone_min = 0;
    if (i < n) {
        if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
            i++;
        } else if (s[i] == '+' || s[i] == '-') {
            int sign = s[i] == '-' ? -1 : 1;
            const unsigned char *z = s + i + 1;
            Py_ssize_t left = n - i - 1;
            int hh, mm;
            if (left == 4 && is_digit(z[0]) && is_digit(z[1]) && is_digit(z[2]) && is_digit(z[3])) {
                hh = digits(z, 2);
                mm = digits(z + 2, 2);
            } else if (left == 5 && is_digit(z[0]) && is_digit(z[1]) && z[2] == ':' && is_digit(z[3]) && is_digit(z[4])) {
                hh = digits(z, 2);
                mm = digits(z + 3, 2);
            } else {
                return 0;
            }
            if (hh * 60 + mm >= 24 * 60) return 0; /* timezone() refuses a day or more */
            zone_min = sign * (hh * 60 + mm);
            i = n;
        } else {
            return 0;
        }
    }
    if (i != n) return 0;
    int year = digits(s, 4), month = digits(s + 5, 2), day = digits(s + 8, 2);
    int hour = digits(s + 11, 2), minute = digits(s + 14, 2), second = digits(s + 17, 2);
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > month_days(year, month)) return 0;
    if (hour > 23 || minute > 59) return 0;
    if (second > 59) second = 59; /* a leap second, as the reference reads it */
    __int128 secs = (__int128)civil_days(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
                    (__int128)zone_min * 60;
    __int128 nanos = secs * 1000000000 + frac;
    if (nanos > INT64_MAX || nanos < INT64_MIN) return -1;
    *out = (int64_t)nanos;
    return 1;
}
