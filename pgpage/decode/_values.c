/*
 * _values.c: the value printer (see _rows.c for what it is for): each value as its type's output function prints
 * it, here the scalar types (text, integers, dates, times and time zones, intervals, numeric, floats) and the
 * dispatch by kind (put_value); _values_composite.c prints the others.
 */
#include "_values.h"

#define NAMEDATALEN 64

/* The text's length of a name (NAMEDATALEN bytes, NUL-padded) or of a cstring (its bytes and the NUL that ends it,
   attlen -2: how a name_ops index stores its keys from 12 on, printer.py's kind "name" too); 0 for neither. */
static int name_length(const uint8_t *v, int64_t len, int64_t *n)
{
    const uint8_t *nul = memchr(v, 0, (size_t)len);
    if (len == NAMEDATALEN)
        *n = nul ? nul - v : NAMEDATALEN;
    else if (len > 0 && nul == v + len - 1)
        *n = len - 1;
    else
        return 0;
    return 1;
}
#define USECS_PER_DAY INT64_C(86400000000)
#define USECS_PER_HOUR INT64_C(3600000000)
#define USECS_PER_MINUTE INT64_C(60000000)
#define USECS_PER_SEC INT64_C(1000000)
#define POSTGRES_EPOCH_JDATE 2451545
/* numeric.c */
#define NUMERIC_SIGN_MASK 0xC000
#define NUMERIC_NEG 0x4000
#define NUMERIC_SHORT 0x8000
#define NUMERIC_SPECIAL 0xC000
#define NUMERIC_EXT_SIGN_MASK 0xF000
#define NUMERIC_NAN 0xC000
#define NUMERIC_PINF 0xD000
#define NUMERIC_NINF 0xF000
#define NUMERIC_DSCALE_MASK 0x3FFF
#define NUMERIC_SHORT_SIGN_MASK 0x2000
#define NUMERIC_SHORT_DSCALE_MASK 0x1F80
#define NUMERIC_SHORT_DSCALE_SHIFT 7
#define NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define NUMERIC_SHORT_WEIGHT_MASK 0x003F

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

/* v >= 0 in at least `width` digits (printf's %0*d); dates and times are mostly two-digit fields, done by pairs */
static inline uint8_t *put_pad(uint8_t *p, int64_t v, int width)
{
    if (width == 2 && v < 100) {
        memcpy(p, two_digits + 2 * v, 2);
        return p + 2;
    }
    if (width == 4 && v < 10000) {
        memcpy(p, two_digits + 2 * (v / 100), 2);
        memcpy(p + 2, two_digits + 2 * (v % 100), 2);
        return p + 4;
    }
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k < width) tmp[k++] = '0';
    while (k) *p++ = (uint8_t)tmp[--k];
    return p;
}

/* Python's strict UTF-8 decoder: no overlong forms, no surrogates, nothing past U+10FFFF, no cut sequence. Text
   that fails is Unreadable to Python (a finding), so the tuple is declined. */
PGP_INTERNAL int utf8_valid(const uint8_t *s, int64_t n)
{
    int64_t i = 0;
    while (i < n) {
        const uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n) return 0;
            const uint8_t c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return 0;
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) return 0;
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n) return 0;
            const uint8_t c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80) return 0;
            if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90)) return 0;
            i += 4;
        } else
            return 0;
    }
    return 1;
}

/* A value's text (UTF-8) as CopyAttributeOutCSV writes it: quoted, quotes doubled, when it holds a special byte,
   is empty (which would read back as NULL) or is \. alone on its line. 0: not valid UTF-8 (declined). */
PGP_INTERNAL int put_text(Out *o, const uint8_t *s, int64_t n, int single)
{
    uint8_t high = 0, special = 0;
    for (int64_t i = 0; i < n; i++) {
        high |= s[i];
        special |= csv_special[s[i]];
    }
    if ((high & 0x80) && !utf8_valid(s, n)) return 0;
    if (o->bare || (!special && n != 0 && !(single && n == 2 && s[0] == '\\' && s[1] == '.'))) {
        if (!room(o, n)) return 1;
        memcpy(o->p, s, (size_t)n);
        o->p += n;
        return 1;
    }
    if (!room(o, 2 * n + 2)) return 1;
    uint8_t *p = o->p;
    *p++ = '"';
    for (int64_t i = 0; i < n; i++) {
        if (s[i] == '"') *p++ = '"';
        *p++ = s[i];
    }
    *p++ = '"';
    o->p = p;
    return 1;
}

/* j2date (utils/adt/datetime.c), with Python's unbounded integers where datum.j2date has them */
static void j2date(int64_t jd, int64_t *year, int *month, int *day)
{
    uint32_t julian = (uint32_t)(jd + 32044);
    uint32_t quad = julian / 146097;
    const uint32_t extra = (julian - quad * 146097) * 4 + 3;
    julian += 60 + quad * 3 + extra / 146097;
    quad = julian / 1461;
    julian -= quad * 1461;
    int64_t y = (int64_t)julian * 4 / 1461;
    julian = (y != 0 ? (julian + 305) % 365 : (julian + 306) % 366) + 123;
    y += (int64_t)quad * 4;
    *year = y - 4800;
    quad = julian * 2141 / 65536;
    *day = (int)(julian - 7834 * quad / 256);
    *month = (int)((quad + 10) % 12 + 1);
}

/* YYYY-MM-DD, a year <= 0 as 1 - year (BC: the caller adds " BC"); p has room for 24 bytes */
static inline uint8_t *put_ymd(uint8_t *p, int64_t year, int month, int day)
{
    p = put_pad(p, year <= 0 ? 1 - year : year, 4);
    *p++ = '-';
    p = put_pad(p, month, 2);
    *p++ = '-';
    return put_pad(p, day, 2);
}

/* HH:MM:SS[.ffffff without trailing zeros] of 0 <= usecs (datum.format_time) */
/* .ffffff of 0 < fsec < 10^6 microseconds, trailing zeros dropped (nothing for 0) */
static inline uint8_t *put_frac(uint8_t *p, int64_t fsec)
{
    if (!fsec) return p;
    char f[6];
    int64_t v = fsec, n = 6;
    for (int k = 5; k >= 0; k--) {
        f[k] = (char)('0' + v % 10);
        v /= 10;
    }
    while (f[n - 1] == '0') n--;
    *p++ = '.';
    for (int k = 0; k < n; k++) *p++ = (uint8_t)f[k];
    return p;
}

static inline uint8_t *put_hms(uint8_t *p, int64_t usecs)
{
    const int64_t hour = usecs / USECS_PER_HOUR, rem = usecs % USECS_PER_HOUR;
    const int64_t minute = rem / USECS_PER_MINUTE, rem2 = rem % USECS_PER_MINUTE;
    const int64_t sec = rem2 / USECS_PER_SEC, fsec = rem2 % USECS_PER_SEC;
    p = put_pad(p, hour, 2);
    *p++ = ':';
    p = put_pad(p, minute, 2);
    *p++ = ':';
    p = put_pad(p, sec, 2);
    return put_frac(p, fsec);
}

/* One field of interval_out's postgres style: " +3 days" (datum.format_interval's add); nothing for 0. */
static inline uint8_t *put_interval_field(uint8_t *p, int64_t value, const char *unit, int *is_zero, int *is_before)
{
    if (!value) return p;
    if (!*is_zero) *p++ = ' ';
    if (*is_before && value > 0) *p++ = '+';
    p = put_i64(p, value);
    *p++ = ' ';
    p = put_str(p, unit);
    if (value != 1) *p++ = 's';
    *is_before = value < 0;
    *is_zero = 0;
    return p;
}

/* interval_out, IntervalStyle=postgres (datum.format_interval): C division, truncating toward zero */
static inline uint8_t *put_interval(uint8_t *p, int64_t time, int64_t day, int64_t month, int64_t major)
{
    if (major == 0 || major >= 17) {
        if (time == INT64_MIN && day == INT32_MIN && month == INT32_MIN) return put_str(p, "-infinity");
        if (time == INT64_MAX && day == INT32_MAX && month == INT32_MAX) return put_str(p, "infinity");
    }
    const int64_t hour = time / USECS_PER_HOUR, minute = time % USECS_PER_HOUR / USECS_PER_MINUTE;
    const int64_t sec = time % USECS_PER_MINUTE / USECS_PER_SEC, fsec = time % USECS_PER_SEC;
    int is_zero = 1, is_before = 0;
    p = put_interval_field(p, month / 12, "year", &is_zero, &is_before);
    p = put_interval_field(p, month % 12, "mon", &is_zero, &is_before);
    p = put_interval_field(p, day, "day", &is_zero, &is_before);
    if (is_zero || hour || minute || sec || fsec) {
        if (!is_zero) *p++ = ' ';
        if (hour < 0 || minute < 0 || sec < 0 || fsec < 0) *p++ = '-';
        else if (is_before) *p++ = '+';
        p = put_pad(p, hour < 0 ? -hour : hour, 2);
        *p++ = ':';
        p = put_pad(p, minute < 0 ? -minute : minute, 2);
        *p++ = ':';
        p = put_pad(p, sec < 0 ? -sec : sec, 2);
        p = put_frac(p, fsec < 0 ? -fsec : fsec);
    }
    return p;
}

/* EncodeTimezone: +HH, +HH:MM, +HH:MM:SS of an offset in seconds east of UTC */
static inline uint8_t *put_tz(uint8_t *p, int64_t east)
{
    *p++ = east < 0 ? '-' : '+';
    if (east < 0) east = -east;
    const int64_t h = east / 3600, m = east % 3600 / 60, s = east % 60;
    p = put_pad(p, h, 2);
    if (m || s) {
        *p++ = ':';
        p = put_pad(p, m, 2);
    }
    if (s) {
        *p++ = ':';
        p = put_pad(p, s, 2);
    }
    return p;
}

/* how many of a[0..n) are <= t (bisect_right) */
static inline int64_t bisect_right(const int64_t *a, int64_t n, int64_t t)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (a[mid] <= t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* the offset east of UTC, in seconds, at Unix second t */
static int64_t zone_offset(const Zone *z, int64_t t)
{
    if (z->is_fixed) return z->fixed;
    if (z->nats) {
        if (t < z->ats[0]) return z->deflt;
        if (t <= z->ats[z->nats - 1] || z->nrule == 0) return z->offs[bisect_right(z->ats, z->nats, t) - 1];
    }
    int64_t cycles = t / SECS_PER_REPEAT, t_in = t % SECS_PER_REPEAT;
    if (t_in < 0) {
        cycles--;
        t_in += SECS_PER_REPEAT;
    }
    const int64_t i = bisect_right(z->rule_ats, z->nrule, t_in) - 1;
    if (i < 0) return z->rule_std;
    if (z->nats && z->rule_ats[i] + cycles * SECS_PER_REPEAT <= z->ats[z->nats - 1]) return z->offs[z->nats - 1];
    return z->rule_offs[i];
}

/* datum.format_timestamp: the UTC date must be a valid Julian day (else 0: Python's Unreadable), then with tz the
   zone's offset at that second moves the wall clock and is printed after it, before " BC" */
static int put_timestamp(Out *o, int64_t usecs, const Zone *zone)
{
    int64_t date = usecs / USECS_PER_DAY;
    if (usecs % USECS_PER_DAY < 0) date--; /* Python's floor division */
    if (date + POSTGRES_EPOCH_JDATE < 0 || date + POSTGRES_EPOCH_JDATE > INT32_MAX) return 0;
    int64_t east = 0;
    if (zone != NULL) {
        int64_t secs = usecs / USECS_PER_SEC;
        if (usecs % USECS_PER_SEC < 0) secs--;
        east = zone_offset(zone, secs + UNIX_EPOCH_AT_2000);
        /* (Python's integers do not overflow: a value this near the end of int64 is left to it) */
        if (east > 0 ? usecs > INT64_MAX - east * USECS_PER_SEC : usecs < INT64_MIN - east * USECS_PER_SEC)
            return 0;
        usecs += east * USECS_PER_SEC;
    }
    date = usecs / USECS_PER_DAY;
    int64_t time = usecs % USECS_PER_DAY;
    if (time < 0) {
        date--;
        time += USECS_PER_DAY;
    }
    int64_t jd = date + POSTGRES_EPOCH_JDATE, cycles = 0;
    if (jd < 0) { /* datum._j2date_any: a local date before day 0, by 400-year cycles */
        cycles = -jd / 146097 + 1;
        jd += cycles * 146097;
    }
    if (!room(o, 72)) return 1;
    int64_t year;
    int month, day;
    j2date(jd, &year, &month, &day);
    year -= 400 * cycles;
    uint8_t *p = put_ymd(o->p, year, month, day);
    *p++ = ' ';
    p = put_hms(p, time);
    if (zone != NULL) p = put_tz(p, east);
    if (year <= 0) p = put_str(p, " BC");
    o->p = p;
    return 1;
}

/* datum.decode_numeric: numeric_out's text of a NumericData payload (the varlena's content); 0 when Python finds
   it unreadable. Every digit is read from within the payload; the text can be long (weight up to 32767 base-10000
   digits, dscale up to 16383), so it asks for its exact size. */
PGP_INTERNAL int put_numeric(Out *o, const uint8_t *s, int64_t n, int64_t major)
{
    if (n < 2) return 0;
    const int64_t header = u16(s);
    if ((header & NUMERIC_SIGN_MASK) == NUMERIC_SPECIAL) {
        const int64_t ext = header & NUMERIC_EXT_SIGN_MASK;
        const char *text = ext == NUMERIC_NAN ? "NaN" : NULL;
        if ((ext == NUMERIC_PINF || ext == NUMERIC_NINF) && (major == 0 || major >= 14))
            text = ext == NUMERIC_PINF ? "Infinity" : "-Infinity";
        if (text == NULL) return 0;
        if (!room(o, 9)) return 1;
        o->p = put_str(o->p, text);
        return 1;
    }
    int negative;
    int64_t dscale, weight, start;
    if (header & NUMERIC_SHORT) {
        negative = (header & NUMERIC_SHORT_SIGN_MASK) != 0;
        dscale = (header & NUMERIC_SHORT_DSCALE_MASK) >> NUMERIC_SHORT_DSCALE_SHIFT;
        weight = header & NUMERIC_SHORT_WEIGHT_MASK;
        if (header & NUMERIC_SHORT_WEIGHT_SIGN_MASK) weight -= NUMERIC_SHORT_WEIGHT_MASK + 1;
        start = 2;
    } else {
        if (n < 4) return 0;
        negative = (header & NUMERIC_SIGN_MASK) == NUMERIC_NEG;
        dscale = header & NUMERIC_DSCALE_MASK;
        weight = (int16_t)u16(s + 2);
        start = 4;
    }
    if ((n - start) % 2) return 0;
    const int64_t nd = (n - start) / 2;
    for (int64_t i = 0; i < nd; i++) {
        const int16_t d = (int16_t)u16(s + start + 2 * i);
        if (d < 0 || d >= 10000) return 0;
    }
#define DIGIT(i) ((i) >= 0 && (i) < nd ? (int64_t)(int16_t)u16(s + start + 2 * (i)) : 0)
    /* sign, the first digit (up to 4 characters), 4 per further integer digit, the point and dscale digits */
    if (!room(o, 1 + 4 + (weight > 0 ? 4 * weight : 0) + 1 + dscale + 4)) return 1;
    uint8_t *p = o->p;
    if (negative) *p++ = '-';
    if (weight < 0)
        *p++ = '0';
    else {
        p = put_u64(p, (uint64_t)DIGIT(0));
        for (int64_t i = 1; i <= weight; i++) p = put_pad(p, DIGIT(i), 4);
    }
    if (dscale > 0) {
        *p++ = '.';
        uint8_t *end = p + dscale;
        for (int64_t i = weight + 1; p < end; i++) p = put_pad(p, DIGIT(i), 4);
        p = end; /* the last digit group cut to dscale */
    }
#undef DIGIT
    o->p = p;
    return 1;
}

/* A finite float > 0 as m * 2^e (m the significand as an integer: 24 bits for float4, 53 for float8, fewer when
   subnormal), from its bits. */
static inline void float_parts(uint64_t bits, int f4, uint64_t *m, int *e)
{
    const int mant = f4 ? 23 : 52, bias = f4 ? 150 : 1075;
    const uint64_t frac = bits & (((uint64_t)1 << mant) - 1);
    const int exp = (int)(bits >> mant);
    *m = exp ? frac | ((uint64_t)1 << mant) : frac;
    *e = (exp ? exp : 1) - bias;
}

/* a's correctly rounded decimal of prec digits (printf's %.*e) as text and as D * 10^E; 0 if it cannot be read */
static int decimal_e(double a, int prec, char *buf, size_t size, uint64_t *D, int *E)
{
    const int len = snprintf(buf, size, "%.*e", prec - 1, a);
    if (len <= 0 || len >= (int)size) return 0;
    uint64_t d = (uint64_t)(buf[0] - '0');
    int i = 1;
    if (prec > 1) {
        if (buf[i++] != '.') return 0; /* a locale's decimal point */
        while (buf[i] >= '0' && buf[i] <= '9') d = d * 10 + (uint64_t)(buf[i++] - '0');
    }
    if (buf[i++] != 'e') return 0;
    const int neg = buf[i] == '-';
    int e = 0;
    for (i++; buf[i] >= '0' && buf[i] <= '9'; i++) e = e * 10 + (buf[i] - '0');
    *D = d;
    *E = (neg ? -e : e) - (prec - 1);
    return 1;
}

/* D * 10^E == n * 2^P exactly (n odd) */
static int decimal_equals(uint64_t D, int E, uint64_t n, int P)
{
    int t = 0;
    if (D == 0) return 0;
    while (!(D & 1)) { /* D * 10^E = D * 5^E * 2^(t + E), D odd */
        D >>= 1;
        t++;
    }
    for (int k = 0; k < E; k++) {
        if (D > UINT64_MAX / 5) return 0;
        D *= 5;
    }
    for (int k = 0; k < -E; k++) {
        if (D % 5) return 0;
        D /= 5;
    }
    return D == n && t + E == P;
}

/* A finite float a > 0 and the midpoints to its neighbours, n * 2^p with n odd */
typedef struct {
    double a;
    int f4;
    uint64_t lo_n, hi_n;
    int lo_p, hi_p;
} FloatGap;

/* Whether D * 10^E lies strictly between the midpoints: it reads back as a (strtof and strtod round correctly)
   and is neither midpoint; *below: it is below a (when it is not inside) */
static int decimal_inside(const FloatGap *g, uint64_t D, int E, int *below)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llue%d", (unsigned long long)D, E);
    const double r = g->f4 ? (double)strtof(buf, NULL) : strtod(buf, NULL);
    const int on_lo = decimal_equals(D, E, g->lo_n, g->lo_p), on_hi = !on_lo && decimal_equals(D, E, g->hi_n, g->hi_p);
    *below = on_lo || (!on_hi && r < g->a);
    return r == g->a && !on_lo && !on_hi;
}

/* Of the decimals of prec digits strictly between the midpoints, the nearest to a, into D * 10^E: the correctly
   rounded one, else its neighbour across a (there are no others nearer). 1 found, 0 none, -1 cannot tell. */
static int nearest_inside(const FloatGap *g, int prec, uint64_t *D, int *E)
{
    static const uint64_t pow10[18] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
                                       10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
                                       100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
                                       100000000000000000ULL};
    char buf[48];
    int below;
    if (!decimal_e(g->a, prec, buf, sizeof buf, D, E)) return -1;
    if (decimal_inside(g, *D, *E, &below)) return 1;
    if (below) {
        if (++*D == pow10[prec]) {
            *D = pow10[prec - 1];
            ++*E;
        }
    } else if ((*D)-- == pow10[prec - 1]) {
        *D = pow10[prec] - 1;
        --*E;
    }
    return decimal_inside(g, *D, *E, &below);
}

/* D (no trailing zeros) as digits, and the decimal exponent of the first of D * 10^E; returns how many */
static int digits_of(uint64_t D, int E, char *dig, int *dexp)
{
    while (D % 10 == 0 && D) {
        D /= 10;
        E++;
    }
    char tmp[20];
    int k = 0, nd = 0;
    do {
        tmp[k++] = (char)('0' + D % 10);
        D /= 10;
    } while (D);
    *dexp = E + k - 1;
    while (k) dig[nd++] = tmp[--k];
    return nd;
}

/*
 * The digits float4out/float8out print for the finite float > 0 with these bits (datum._shortest): PostgreSQL's
 * Ryu (src/common/f2s.c, d2s.c). A whole number below 2^24 (2^53) is its own digits (f2d_small_int). Otherwise,
 * of the decimals strictly between the midpoints to the neighbouring floats (both ends excluded: PostgreSQL
 * builds Ryu with STRICTLY_SHORTEST 0; below a power of two the neighbour is half as far, mmShift), those with the
 * fewest digits, and of them the nearest to the value, half-way to even (printf's rounding, as f2d's). At each
 * length the candidates are printf's correctly rounded decimal and its neighbour across the value (inside where
 * the rounded one falls out on the narrow side below a power of two: 2^87 prints 1.5474251e+26); a length that
 * has one has one at every longer length: bisected. Digits into dig, the decimal exponent of the first into
 * *dexp; returns how many, 0 to decline (printf's decimal point is not '.': a locale).
 */
static int shortest_digits(uint64_t bits, int f4, char *dig, int *dexp)
{
    const int mant = f4 ? 23 : 52;
    uint64_t m;
    int e;
    float_parts(bits, f4, &m, &e);
    if (e <= 0 && e >= -mant && !(m & (((uint64_t)1 << -e) - 1))) return digits_of(m >> -e, 0, dig, dexp);
    FloatGap g = {.f4 = f4, .hi_n = 2 * m + 1, .hi_p = e - 1, .lo_n = 2 * m - 1, .lo_p = e - 1};
    if (m == (uint64_t)1 << mant && (bits >> mant) > 1) {
        g.lo_n = 4 * m - 1;
        g.lo_p = e - 2;
    }
    if (f4) {
        const uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        g.a = f;
    } else
        memcpy(&g.a, &bits, 8);
    int lo_p = 1, hi_p = f4 ? 9 : 17, found = 0, E, bestE = 0;
    uint64_t D, bestD = 0;
    while (lo_p <= hi_p) {
        const int prec = (lo_p + hi_p) / 2;
        const int c = nearest_inside(&g, prec, &D, &E);
        if (c < 0) return 0;
        if (c) {
            found = 1;
            bestD = D;
            bestE = E;
            hi_p = prec - 1;
        } else
            lo_p = prec + 1;
    }
    return found ? digits_of(bestD, bestE, dig, dexp) : 0;
}

/* datum.format_float: float4out/float8out of the float with these bits (shortest exact digits), fixed notation for
   decimal exponents in [-4, 6) (float4) or [-4, 15) (float8), else d.ddde+XX */
PGP_INTERNAL int put_float(Out *o, uint64_t bits, int f4)
{
    if (!room(o, 40)) return 1;
    uint8_t *p = o->p;
    const int mant = f4 ? 23 : 52, negative = (int)(bits >> (f4 ? 31 : 63));
    bits &= ((uint64_t)1 << (f4 ? 31 : 63)) - 1;
    if (bits >> mant == (f4 ? 0xFFu : 0x7FFu)) {
        o->p = put_str(p, bits & (((uint64_t)1 << mant) - 1) ? "NaN" : negative ? "-Infinity" : "Infinity");
        return 1;
    }
    if (bits == 0) {
        o->p = put_str(p, negative ? "-0" : "0");
        return 1;
    }
    char dig[24];
    int dexp;
    const int nd = shortest_digits(bits, f4, dig, &dexp);
    if (nd == 0) return 0;
    if (negative) *p++ = '-';
    if (dexp >= -4 && dexp < (f4 ? 6 : 15)) {
        if (dexp >= 0) {
            for (int k = 0; k <= dexp; k++) *p++ = (uint8_t)(k < nd ? dig[k] : '0');
            if (nd > dexp + 1) {
                *p++ = '.';
                for (int k = dexp + 1; k < nd; k++) *p++ = (uint8_t)dig[k];
            }
        } else {
            *p++ = '0';
            *p++ = '.';
            for (int k = 0; k < -dexp - 1; k++) *p++ = '0';
            for (int k = 0; k < nd; k++) *p++ = (uint8_t)dig[k];
        }
    } else {
        *p++ = (uint8_t)dig[0];
        if (nd > 1) {
            *p++ = '.';
            for (int k = 1; k < nd; k++) *p++ = (uint8_t)dig[k];
        }
        *p++ = 'e';
        *p++ = dexp < 0 ? '-' : '+';
        p = put_pad(p, dexp < 0 ? -dexp : dexp, 2);
    }
    o->p = p;
    return 1;
}

/* Whether a date (days from 2000-01-01, as stored) falls in years 1 to 9999: those Arrow reads back from its text
   (and a timestamp's day: the same, for timestamps in UTC); infinities, BC dates and later years are not. */
#define JDATE_YEAR_1 1721426        /* date2j(1, 1, 1) */
#define JDATE_YEAR_9999_END 5373484 /* date2j(9999, 12, 31): j2date is monotonic, a range of days is the years' */
static int arrow_day(int64_t days)
{
    const int64_t jd = days + POSTGRES_EPOCH_JDATE;
    return jd >= JDATE_YEAR_1 && jd <= JDATE_YEAR_9999_END;
}

/*
 * One value (the attribute's len bytes at v) of kind k as Arrow holds it (`rows --parquet`, export's rows: passes/
 * export.py's RowColumns, through pgp_csv_rows' `typed`): into *val an integer, a float's bits, 0 or 1 (bool), a
 * date as days and a timestamp as microseconds from 1970-01-01 (Arrow's epoch); a text's, name's or bytea's bytes
 * into b (bin: its start), *val where and *blen how many (left alone for the others). 0 when the value is not one
 * that its text would give Arrow as such (an infinity, a year outside 1..9999, a float NaN or infinity, a value
 * put_value declines, text that is not UTF-8): the caller prints it, and its text goes the way every text goes.
 */
PGP_INTERNAL int arrow_value(Out *b, const uint8_t *bin, int64_t k, const uint8_t *v, int64_t len, int64_t *val,
                             int64_t *blen)
{
    switch (k) {
    case K_bool:
        if (len != 1 || v[0] > 1) return 0;
        *val = v[0];
        return 1;
    case K_int2:
        if (len != 2) return 0;
        *val = (int16_t)u16(v);
        return 1;
    case K_int4:
        if (len != 4) return 0;
        *val = (int32_t)(uint32_t)u32(v);
        return 1;
    case K_uint32:
        if (len != 4) return 0;
        *val = u32(v);
        return 1;
    case K_int8:
        if (len != 8) return 0;
        memcpy(val, v, 8);
        return 1;
    case K_float4: {
        if (len != 4) return 0;
        const int64_t bits = u32(v);
        if (((bits >> 23) & 0xFF) == 0xFF) return 0;   /* NaN, infinities */
        *val = bits;
        return 1;
    }
    case K_float8: {
        if (len != 8) return 0;
        uint64_t bits;
        memcpy(&bits, v, 8);
        if (((bits >> 52) & 0x7FF) == 0x7FF) return 0;
        memcpy(val, &bits, 8);
        return 1;
    }
    case K_date: {
        if (len != 4) return 0;
        const int64_t days = (int32_t)(uint32_t)u32(v);
        if (!arrow_day(days)) return 0;
        *val = days + UNIX_EPOCH_AT_2000 * USECS_PER_SEC / USECS_PER_DAY;
        return 1;
    }
    case K_timestamp:
    case K_timestamptz: {
        if (len != 8) return 0;
        int64_t t;
        memcpy(&t, v, 8);
        int64_t days = t / USECS_PER_DAY;
        if (t % USECS_PER_DAY < 0) days--;
        if (t == INT64_MIN || t == INT64_MAX || !arrow_day(days)) return 0;
        *val = t + UNIX_EPOCH_AT_2000 * USECS_PER_SEC;
        return 1;
    }
    case K_text:
    case K_name:
    case K_bytea: {
        const uint8_t *s = v;
        int64_t n = len;
        if (k == K_name) {
            if (!name_length(v, len, &n)) return 0;
        } else if (!varlena_body(v, len, &s, &n))
            return 0;
        if (k != K_bytea) {
            uint8_t high = 0;
            for (int64_t i = 0; i < n; i++) high |= s[i];
            if ((high & 0x80) && !utf8_valid(s, n)) return 0;
        }
        if (!room(b, n)) return 1;
        *val = b->p - bin;
        *blen = n;
        memcpy(b->p, s, (size_t)n);
        b->p += n;
        return 1;
    }
    default:
        return 0;
    }
}

/* One value (the attribute's len bytes at v) of kind k; 0 to decline the tuple. */
PGP_INTERNAL int put_value(Out *o, int64_t k, const uint8_t *v, int64_t len, const Zone *zone, int64_t major, int single)
{
    const uint8_t *s = v;
    int64_t n = len;
    if ((k == K_text || k == K_bytea || k == K_numeric || k == K_jsonb || k == K_inet || k == K_cidr || k == K_bit
         || k == K_tsvector || k == K_path || k == K_polygon || k == K_xml)
        && !varlena_body(v, len, &s, &n))
        return 0;
    switch (k) {
    case K_bool:
        if (len != 1 || v[0] > 1) return 0;
        if (!room(o, 1)) return 1;
        *o->p++ = v[0] ? 't' : 'f';
        return 1;
    case K_int2:
        if (len != 2) return 0;
        if (!room(o, 8)) return 1;
        o->p = put_i64(o->p, (int16_t)u16(v));
        return 1;
    case K_int4:
        if (len != 4) return 0;
        if (!room(o, 12)) return 1;
        o->p = put_i64(o->p, (int32_t)(uint32_t)u32(v));
        return 1;
    case K_uint32:
        if (len != 4) return 0;
        if (!room(o, 12)) return 1;
        o->p = put_u64(o->p, (uint64_t)u32(v));
        return 1;
    case K_int8:
    case K_uint64: {
        if (len != 8) return 0;
        uint64_t w;
        memcpy(&w, v, 8); /* little-endian hosts only, as every u16/u32 here */
        if (!room(o, 21)) return 1;
        o->p = k == K_int8 ? put_i64(o->p, (int64_t)w) : put_u64(o->p, w);
        return 1;
    }
    case K_char: {
        /* datum._char_value: NUL is the empty string, a byte >= 0x80 \ooo, others themselves */
        if (len != 1) return 0;
        if (!room(o, 6)) return 1;
        uint8_t *p = o->p;
        const uint8_t c = v[0];
        if (c == 0) {
            if (!o->bare) {
                *p++ = '"';
                *p++ = '"';
            }
        } else if (c >= 0x80) {
            *p++ = '\\';
            *p++ = (uint8_t)('0' + (c >> 6));
            *p++ = (uint8_t)('0' + ((c >> 3) & 7));
            *p++ = (uint8_t)('0' + (c & 7));
        } else if (csv_special[c] && !o->bare) {
            *p++ = '"';
            if (c == '"') *p++ = '"';
            *p++ = c;
            *p++ = '"';
        } else
            *p++ = c;
        o->p = p;
        return 1;
    }
    case K_text:
        return put_text(o, s, n, single);
    case K_name: {
        int64_t n_name;
        if (!name_length(v, len, &n_name)) return 0;
        return put_text(o, v, n_name, single);
    }
    case K_bytea: {
        if (!room(o, 2 + 2 * n)) return 1;
        uint8_t *p = o->p;
        *p++ = '\\';
        *p++ = 'x';
        for (int64_t i = 0; i < n; i++) {
            *p++ = (uint8_t)hexdigits[s[i] >> 4];
            *p++ = (uint8_t)hexdigits[s[i] & 15];
        }
        o->p = p;
        return 1;
    }
    case K_uuid: {
        if (len != 16) return 0;
        if (!room(o, 36)) return 1;
        uint8_t *p = o->p;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
            *p++ = (uint8_t)hexdigits[v[i] >> 4];
            *p++ = (uint8_t)hexdigits[v[i] & 15];
        }
        o->p = p;
        return 1;
    }
    case K_date: {
        if (len != 4) return 0;
        const int64_t days = (int32_t)(uint32_t)u32(v);
        if (!room(o, 32)) return 1;
        if (days == INT32_MIN || days == INT32_MAX) {
            o->p = put_str(o->p, days == INT32_MIN ? "-infinity" : "infinity");
            return 1;
        }
        int64_t year;
        int month, day;
        j2date(days + POSTGRES_EPOCH_JDATE, &year, &month, &day);
        uint8_t *p = put_ymd(o->p, year, month, day);
        if (year <= 0) p = put_str(p, " BC");
        o->p = p;
        return 1;
    }
    case K_time: {
        if (len != 8) return 0;
        int64_t t;
        memcpy(&t, v, 8);
        if (t < 0) return 0; /* no server writes one; Python's floor division would print it oddly */
        if (!room(o, 40)) return 1;
        o->p = put_hms(o->p, t);
        return 1;
    }
    case K_timestamp:
    case K_timestamptz: {
        if (len != 8) return 0;
        int64_t t;
        memcpy(&t, v, 8);
        if (t == INT64_MIN || t == INT64_MAX) {
            if (!room(o, 9)) return 1;
            o->p = put_str(o->p, t == INT64_MIN ? "-infinity" : "infinity");
            return 1;
        }
        return put_timestamp(o, t, k == K_timestamptz ? zone : NULL);
    }
    case K_numeric:
        return put_numeric(o, s, n, major);
    case K_enum: {   /* pg_enum's label of the value's oid; an oid it does not have is Python's (a finding) */
        if (len != 4 || !o->enums) return 0;
        const int64_t oid = (int64_t)u32(v), count = o->enums[0], *oids = o->enums + 1, *off = o->enums + 1 + count;
        int64_t lo = 0, hi = count;
        while (lo < hi) {
            const int64_t mid = (lo + hi) / 2;
            if (oids[mid] < oid) lo = mid + 1;
            else hi = mid;
        }
        if (lo == count || oids[lo] != oid) return 0;
        return put_text(o, o->labels + off[lo], off[lo + 1] - off[lo], single);
    }
    case K_jsonb: {   /* written bare, then quoted whole as a CSV field unless bare */
        uint8_t *const from = o->p;
        if (!put_jsonb(o, s, n, major)) return 0;
        if (!o->bare) csv_quote(o, from);
        return 1;
    }
    case K_inet:
    case K_cidr:
        return put_inet(o, s, n, k == K_cidr);
    case K_point:
    case K_lseg:
    case K_line:
    case K_box:
    case K_circle:
    case K_path:
    case K_polygon: {   /* written bare, then quoted as a CSV field (they hold commas) */
        uint8_t *const from = o->p;
        if (!(k == K_path || k == K_polygon ? put_geometry(o, k, s, n) : put_geometry(o, k, v, len))) return 0;
        if (!o->bare) csv_quote(o, from);
        return 1;
    }
    case K_tid: {   /* tidout: (block,offset), quoted as a CSV field (a comma) */
        if (len != 6) return 0;
        if (!room(o, 20)) return 1;
        uint8_t *const from = o->p;
        *o->p++ = '(';
        o->p = put_u64(o->p, (uint64_t)(u16(v) << 16 | u16(v + 2)));
        *o->p++ = ',';
        o->p = put_u64(o->p, (uint64_t)u16(v + 4));
        *o->p++ = ')';
        if (!o->bare) csv_quote(o, from);
        return 1;
    }
    case K_xml:   /* xml_out: the text as stored, unless it starts with a declaration (Python's, which reprints it) */
        if (n >= 5 && memcmp(s, "<?xml", 5) == 0) return 0;
        return put_text(o, s, n, single);
    case K_tsvector:
    case K_bit: {   /* written bare, then quoted as a CSV field when it must be (the empty value) */
        uint8_t *const from = o->p;
        if (k == K_tsvector && !put_tsvector(o, s, n)) return 0;
        if (k == K_bit) {   /* varbit_out: one digit a bit, from each byte's most significant bit */
            const int64_t bits = n < 4 ? -1 : (int32_t)(uint32_t)u32(s);
            if (bits < 0 || n != 4 + (bits + 7) / 8) return 0;
            if (!room(o, bits)) return 1;
            for (int64_t i = 0; i < bits; i++) *o->p++ = (uint8_t)('0' + ((s[4 + (i >> 3)] >> (7 - (i & 7))) & 1));
        }
        if (!o->bare) csv_quote(o, from);
        return 1;
    }
    case K_money: {   /* cash_out in the C locale (typeout/misc.py): -$1,234.56 */
        if (len != 8) return 0;
        int64_t cents;
        memcpy(&cents, v, 8);
        const uint64_t a = cents < 0 ? 0 - (uint64_t)cents : (uint64_t)cents, units = a / 100;
        char digits[20];
        int nd = 0;
        for (uint64_t u = units; nd == 0 || u; u /= 10) digits[nd++] = (char)('0' + u % 10);
        if (!room(o, 2 + nd + nd / 3 + 3 + 2)) return 1;   /* (a grouped number is quoted: it holds commas) */
        uint8_t *const from = o->p;
        if (cents < 0) *o->p++ = '-';
        *o->p++ = '$';
        for (int i = nd - 1; i >= 0; i--) {
            *o->p++ = (uint8_t)digits[i];
            if (i && i % 3 == 0) *o->p++ = ',';
        }
        *o->p++ = '.';
        o->p = put_pad(o->p, (int64_t)(a % 100), 2);
        if (!o->bare) csv_quote(o, from);
        return 1;
    }
    case K_pg_lsn: {   /* %X/%X, the low half padded to 8 digits from 19 on */
        if (len != 8) return 0;
        if (!room(o, 17)) return 1;
        const uint64_t lsn = (uint64_t)u32(v) | ((uint64_t)u32(v + 4) << 32);
        for (int half = 0; half < 2; half++) {
            const uint64_t w = half ? lsn & 0xFFFFFFFF : lsn >> 32;
            char hex[8];
            int nh = 0;
            for (uint64_t x = w; nh == 0 || x; x >>= 4) hex[nh++] = "0123456789ABCDEF"[x & 15];
            if (half) {
                *o->p++ = '/';
                for (int pad = nh; major >= 19 && pad < 8; pad++) *o->p++ = '0';
            }
            while (nh) *o->p++ = (uint8_t)hex[--nh];
        }
        return 1;
    }
    case K_timetz: {   /* time_out, then the zone (stored as seconds west) as EncodeTimezone writes it */
        if (len != 12) return 0;
        int64_t t;
        memcpy(&t, v, 8);
        if (t < 0) return 0;   /* as K_time */
        if (!room(o, 60)) return 1;
        o->p = put_hms(o->p, t);
        o->p = put_tz(o->p, -(int64_t)(int32_t)(uint32_t)u32(v + 8));
        return 1;
    }
    case K_macaddr:
    case K_macaddr8: {   /* the bytes as two hex digits each, colon-separated */
        if (len != (k == K_macaddr ? 6 : 8)) return 0;
        if (!room(o, 3 * len)) return 1;
        for (int64_t i = 0; i < len; i++) {
            if (i) *o->p++ = ':';
            *o->p++ = (uint8_t)hexdigits[v[i] >> 4];
            *o->p++ = (uint8_t)hexdigits[v[i] & 15];
        }
        return 1;
    }
    case K_interval: {
        if (len != 16) return 0;
        int64_t time;
        memcpy(&time, v, 8);
        if (!room(o, 96)) return 1;
        o->p = put_interval(o->p, time, (int32_t)(uint32_t)u32(v + 8), (int32_t)(uint32_t)u32(v + 12), major);
        return 1;
    }
    case K_float4: {
        if (len != 4) return 0;
        uint32_t b;
        memcpy(&b, v, 4);
        return put_float(o, b, 1);
    }
    case K_float8: {
        if (len != 8) return 0;
        uint64_t b;
        memcpy(&b, v, 8);
        return put_float(o, b, 0);
    }
    default:
        return 0;
    }
}
