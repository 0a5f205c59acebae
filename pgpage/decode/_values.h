/*
 * _values.h: the value printer's shared parts (_values.c prints the scalar types and dispatches; _values_composite.c
 * the arrays, ranges, jsonb, inet, geometry and tsvector; _rows.c drives it over tuples): the output buffer, the
 * digit writers, the time zone, and the functions one of those files calls in another.
 */
#ifndef PGP_VALUES_H
#define PGP_VALUES_H
#include "_kernel.h"

/* The output buffer: every writer asks for room first; a line that does not fit sets `full` and is rolled back.
   `bare`: values are written as their bare text (JSON escapes it after, an array quotes its elements), not as
   CSV fields. */
typedef struct {
    uint8_t *p, *end;
    int full, bare;
    const int64_t *enums;   /* enum labels: {n, oid[n] ascending, off[n + 1]}, label k at labels[off[k]..off[k + 1]) */
    const uint8_t *labels;
} Out;

static inline int room(Out *o, int64_t n)
{
    if (o->end - o->p < n) {
        o->full = 1;
        return 0;
    }
    return 1;
}

/* One byte of text (nothing when the buffer is full: the caller sees o->full) */
static inline void put_char(Out *o, uint8_t c)
{
    if (room(o, 1)) *o->p++ = c;
}

static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k) *p++ = (uint8_t)tmp[--k];
    return p;
}

static inline uint8_t *put_i64(uint8_t *p, int64_t v)
{
    if (v < 0) {
        *p++ = '-';
        return put_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return put_u64(p, (uint64_t)v);
}

static inline uint8_t *put_str(uint8_t *p, const char *s)
{
    while (*s) *p++ = (uint8_t)*s++;
    return p;
}

/* the bytes that make CopyAttributeOutCSV quote a value: the delimiter, the quote, CR, LF */
static const uint8_t csv_special[256] = {[','] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1};

/*
 * The session's time zone, as decode/pgtz.py's Zone holds it (pgtz.Zone.utc_offset is ported here as it stands):
 * explicit transitions at Unix seconds ats[0..nats) with the offset (seconds east) from each, offs[]; before the
 * first, `deflt`; after the last, the footer's POSIX rule, whose transitions over the 400 years from 1970-01-01
 * are rule_ats[0..nrule) (offsets rule_offs[]; before its first, rule_std), folded by 400-year cycles (the
 * Gregorian calendar repeats). A zone with neither is `fixed`. Passed as one int64 array: nats, nrule, is_fixed,
 * fixed, deflt, rule_std, then ats, offs, rule_ats, rule_offs.
 */
#define SECS_PER_REPEAT INT64_C(12622780800) /* 146097 days */
#define UNIX_EPOCH_AT_2000 INT64_C(946684800)
typedef struct {
    const int64_t *ats, *offs, *rule_ats, *rule_offs;
    int64_t nats, nrule, is_fixed, fixed, deflt, rule_std;
} Zone;

static const char hexdigits[] = "0123456789abcdef";

/* A varlena's content after its 1- or 4-byte header (s, n); 0 for a TOAST pointer or an inline-compressed one
   (Python's: decompression) or a header cut short. */

static inline int varlena_body(const uint8_t *v, int64_t len, const uint8_t **s, int64_t *n)
{
    if (len < 1) return 0;
    if (v[0] & 0x01) {
        if (v[0] == 0x01) return 0;
        *s = v + 1;
        *n = len - 1;
        return 1;
    }
    if ((v[0] & 0x03) == 0x02 || len < 4) return 0;
    *s = v + 4;
    *n = len - 4;
    return 1;
}

PGP_INTERNAL int utf8_valid(const uint8_t *s, int64_t n);
PGP_INTERNAL int put_text(Out *o, const uint8_t *s, int64_t n, int single);
PGP_INTERNAL int put_numeric(Out *o, const uint8_t *s, int64_t n, int64_t major);
PGP_INTERNAL int put_float(Out *o, uint64_t bits, int f4);
PGP_INTERNAL int put_value(Out *o, int64_t k, const uint8_t *v, int64_t len, const Zone *zone, int64_t major,
                           int single);
PGP_INTERNAL int arrow_value(Out *b, const uint8_t *bin, int64_t k, const uint8_t *v, int64_t len, int64_t *val,
                             int64_t *blen);
PGP_INTERNAL void csv_quote(Out *o, uint8_t *from);
PGP_INTERNAL void json_escape(Out *o, uint8_t *from);
PGP_INTERNAL void copy_text_escape(Out *o, uint8_t *from);
PGP_INTERNAL int put_array(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major);
PGP_INTERNAL int put_tsvector(Out *o, const uint8_t *s, int64_t n);
PGP_INTERNAL int put_geometry(Out *o, int64_t k, const uint8_t *v, int64_t len);
PGP_INTERNAL int put_range(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major);
PGP_INTERNAL int put_multirange(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone,
                                int64_t major);
PGP_INTERNAL int put_jsonb(Out *o, const uint8_t *s, int64_t n, int64_t major);
PGP_INTERNAL int put_inet(Out *o, const uint8_t *s, int64_t n, int cidr);

#endif /* PGP_VALUES_H */
