/*
 * _values_composite.c: the value printer's types made of other values or of their own structure: arrays, tsvector,
 * geometry, ranges and multiranges, jsonb, inet and cidr. See _values.c.
 */
#include "_values.h"

/* VARSIZE_ANY of an inline, uncompressed varlena at p (avail bytes there): its size with its 1- or 4-byte header,
   0 for a TOAST pointer, a compressed one, or a header cut short or claiming less than itself. */
static int64_t varlena_size(const uint8_t *p, int64_t avail)
{
    if (avail < 1 || p[0] == 0x01) return 0;
    if (p[0] & 0x01) return p[0] >> 1;
    if ((p[0] & 0x03) != 0 || avail < 4) return 0;
    const int64_t size = (int64_t)(u32(p) >> 2);
    return size >= 4 ? size : 0;
}

/* What was written from `from` on, between double quotes, with the byte escape[c] put before each byte c that has
   one (`escapes` of them): in place, moved up from the end. */
static void quote_in_place(Out *o, uint8_t *from, int64_t escapes, const uint8_t escape[256])
{
    if (!room(o, escapes + 2)) return;
    uint8_t *src = o->p, *dst = o->p + escapes + 2;
    o->p = dst;
    *--dst = '"';
    while (src > from) {
        const uint8_t c = *--src;
        *--dst = c;
        if (escape[c]) *--dst = escape[c];
    }
    *--dst = '"';
}

/* What was written from `from` on, quoted as CopyAttributeOutCSV quotes a field when it must be (a delimiter,
   quote, CR or LF in it, or empty): in place. */
PGP_INTERNAL void csv_quote(Out *o, uint8_t *from)
{
    static const uint8_t doubled[256] = {['"'] = '"'};
    int64_t quotes = 0, special = o->p == from;
    for (const uint8_t *q = from; q < o->p; q++) {
        special |= csv_special[*q];
        quotes += *q == '"';
    }
    if (special) quote_in_place(o, from, quotes, doubled);
}

/* An element's text written from `from` on, quoted as array_out quotes it when array_in could not read it back
   bare (empty, NULL in any case, the delimiter, a quote, backslash, brace or white space in it), in place. */
static void array_quote(Out *o, uint8_t *from, uint8_t delim)
{
    static const uint8_t backslashed[256] = {['"'] = '\\', ['\\'] = '\\'};
    const int64_t n = o->p - from;
    int64_t escapes = 0, special = n == 0;
    if (n == 4) {
        static const char null[4] = {'N', 'U', 'L', 'L'};
        int same = 1;
        for (int i = 0; i < 4; i++) same &= (from[i] & ~0x20) == null[i];
        special |= same;
    }
    for (const uint8_t *q = from; q < o->p; q++) {
        const uint8_t c = *q;
        special |= c == delim || c == '{' || c == '}' || c == '"' || c == '\\' || c == ' ' || (c >= '\t' && c <= '\r');
        escapes += c == '"' || c == '\\';
    }
    if (special) quote_in_place(o, from, escapes, backslashed);
}

/*
 * array_out of an array whose elements the printer knows, bare (the caller quotes it as a whole): s, n the
 * array's content after its varlena header; ex: the elements' kind (K_*), typlen (> 0, or -1 varlena),
 * alignment in bytes, delimiter and type oid. Offsets are those of the 4-byte-header image PostgreSQL works on
 * (datum.split_array's layout). 0: declined (anything split_array or an element would report, or find odd).
 */
PGP_INTERNAL int put_array(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
{
    const int64_t end = n + 4, ekind = ex[0], elen = ex[1], align = ex[2];
    const uint8_t delim = (uint8_t)ex[3];
    const int vector = delim == 0;   /* int2vector, oidvector (printer.py's delimiter 0): int2vectorout's text */
#define IMG(off) (s + (off) - 4)
    if (end < 16) return 0;
    const int64_t ndim = (int32_t)(uint32_t)u32(IMG(4)), dataoffset = (int32_t)(uint32_t)u32(IMG(8));
    if (u32(IMG(12)) != ex[4]) return 0;   /* elemtype: not the column's element type (Python says so) */
    if (ndim == 0) {
        if (!vector && room(o, 2)) o->p = put_str(o->p, "{}");
        return 1;
    }
    if (vector && (ndim != 1 || dataoffset)) return 0;   /* (another shape, NULLs: Python's text of them)*/
    if (ndim < 0 || ndim > 6 || align < 1 || (elen <= 0 && elen != -1)) return 0;
    const int64_t hdr = 16 + 8 * ndim;
    if (hdr > end) return 0;
    int64_t dims[6], lb[6], nitems = 1, lb_not_1 = 0;
    for (int64_t d = 0; d < ndim; d++) {
        dims[d] = (int32_t)(uint32_t)u32(IMG(16 + 4 * d));
        lb[d] = (int32_t)(uint32_t)u32(IMG(16 + 4 * ndim + 4 * d));
        if (dims[d] < 0 || (dims[d] == 0 && !vector)) return 0;   /* (a function of no arguments: oidvector of 0) */
        nitems *= dims[d];
        if (nitems > end * 8) return 0;
        lb_not_1 |= lb[d] != 1;
    }
    const uint8_t *bitmap = NULL;
    int64_t off = (hdr + 7) & ~(int64_t)7;
    if (dataoffset) {
        const int64_t nbytes = (nitems + 7) / 8;
        if (hdr + nbytes > end || dataoffset < hdr + nbytes || dataoffset > end) return 0;
        bitmap = IMG(hdr);
        off = dataoffset;
    }
    if (lb_not_1 && !vector) {   /* (a vector's lower bound is 0, and never written) */
        for (int64_t d = 0; d < ndim; d++) {
            if (!room(o, 48)) return 1;
            *o->p++ = '[';
            o->p = put_i64(o->p, lb[d]);
            *o->p++ = ':';
            o->p = put_i64(o->p, lb[d] + dims[d] - 1);
            *o->p++ = ']';
        }
        put_char(o, '=');
    }
    int64_t indx[6] = {0};
    if (!room(o, ndim)) return 1;
    for (int64_t d = 0; d < ndim && !vector; d++) *o->p++ = '{';
    o->bare = 1;   /* the elements' texts (put_column puts the caller's mode back) */
    for (int64_t i = 0; i < nitems; i++) {
        if (bitmap && !(bitmap[i >> 3] & (1 << (i & 7)))) {
            if (room(o, 4)) o->p = put_str(o->p, "NULL");
        } else {
            off = (off + align - 1) & ~(align - 1);
            const int64_t ln = elen == -1 ? varlena_size(IMG(off), end - off) : elen;   /* 0: Python's */
            if (ln < 1 || off + ln > end) return 0;
            uint8_t *const from = o->p;
            if (!put_value(o, ekind, IMG(off), ln, zone, major, 0)) return 0;
            if (!vector) array_quote(o, from, delim);
            off += ln;
        }
        int64_t d = ndim - 1;
        for (; d >= 0; d--) {
            if (++indx[d] < dims[d]) break;
            indx[d] = 0;
            if (!vector) put_char(o, '}');
        }
        if (d >= 0 && room(o, 1 + ndim)) {
            *o->p++ = vector ? ' ' : delim;
            for (int64_t k = d + 1; k < ndim; k++) *o->p++ = '{';
        }
    }
#undef IMG
    return 1;
}

/* tsvectorout (typeout/textsearch.py's tsvector_out) of a tsvector's content s, n, bare: each lexeme quoted (' and \
   doubled), then its positions with their weight letters; lexemes one space apart. 0: declined (bytes Python
   reports: counts or offsets past the end, a NUL or invalid UTF-8 in a lexeme). */
PGP_INTERNAL int put_tsvector(Out *o, const uint8_t *s, int64_t n)
{
    static const char weight[4][2] = {"", "C", "B", "A"};   /* WEP_GETWEIGHT 0 is D, left unprinted */
    if (n < 4) return 0;
    const int64_t size = (int32_t)(uint32_t)u32(s), strptr = 4 + 4 * size;
    if (size < 0 || strptr > n) return 0;
    for (int64_t k = 0; k < size; k++) {
        const int64_t e = (int64_t)u32(s + 4 + 4 * k), len = (e >> 1) & 0x7FF, pos = e >> 12, start = strptr + pos;
        if (start + len > n || memchr(s + start, 0, (size_t)len) || !utf8_valid(s + start, len)) return 0;
        int64_t npos = 0, posvec = 0;
        if (e & 1) {
            posvec = strptr + ((pos + len + 1) & ~(int64_t)1);   /* _POSVECPTR: SHORTALIGN from STRPTR */
            if (posvec + 2 > n) return 0;
            npos = u16(s + posvec);
            if (posvec + 2 + 2 * npos > n) return 0;
        }
        if (!room(o, 2 * len + 4 + 8 * npos)) return 1;
        if (k) *o->p++ = ' ';
        *o->p++ = '\'';
        for (int64_t i = 0; i < len; i++) {
            const uint8_t c = s[start + i];
            if (c == '\'' || c == '\\') *o->p++ = c;
            *o->p++ = c;
        }
        *o->p++ = '\'';
        for (int64_t i = 0; i < npos; i++) {
            const int64_t w = u16(s + posvec + 2 + 2 * i);
            *o->p++ = i ? ',' : ':';
            o->p = put_i64(o->p, w & 0x3FFF);
            o->p = put_str(o->p, weight[w >> 14]);
        }
    }
    return 1;
}

/* A float8 at v (little-endian), as float8out writes it: put_float's shortest exact digits */
static void put_float8_at(Out *o, const uint8_t *v)
{
    uint64_t b;
    memcpy(&b, v, 8);
    put_float(o, b, 0);
}

/* pair_encode: "(x,y)" of the two float8 at v */
static void put_pair(Out *o, const uint8_t *v)
{
    put_char(o, '(');
    put_float8_at(o, v);
    put_char(o, ',');
    put_float8_at(o, v + 8);
    put_char(o, ')');
}

/*
 * The geometric types' output functions (typeout/geometry.py's, geo_ops.c's), bare: point, lseg, line, box and
 * circle from their fixed bytes v, len; path and polygon from their content after the varlena header (v, len):
 * npts, then (path) closed and a pad word or (polygon) the bounding box, which is not printed, then the points.
 * 0: declined (a size or point count Python reports, a path's closed flag not 0 or 1).
 */
PGP_INTERNAL int put_geometry(Out *o, int64_t k, const uint8_t *v, int64_t len)
{
    static const int64_t fixed[][2] = {{K_point, 16}, {K_lseg, 32}, {K_line, 24}, {K_box, 32}, {K_circle, 24}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (fixed[i][0] == k && len != fixed[i][1]) return 0;
    switch (k) {
    case K_point:
        put_pair(o, v);
        return 1;
    case K_lseg:
    case K_box:
    case K_circle:   /* [p,q]  p,q  <p,r> */
        if (k != K_box) put_char(o, k == K_lseg ? '[' : '<');
        put_pair(o, v);
        put_char(o, ',');
        if (k == K_circle) put_float8_at(o, v + 16);
        else put_pair(o, v + 16);
        if (k != K_box) put_char(o, k == K_lseg ? ']' : '>');
        return 1;
    case K_line:
        for (int i = 0; i < 3; i++) {
            put_char(o, i ? ',' : '{');
            put_float8_at(o, v + 8 * i);
        }
        put_char(o, '}');
        return 1;
    default: {   /* path, polygon */
        const int64_t header = k == K_path ? 12 : 36;
        if (len < header) return 0;
        const int64_t npts = (int32_t)(uint32_t)u32(v), closed = k == K_path ? (int32_t)(uint32_t)u32(v + 4) : 1;
        if (npts < 1 || len != header + 16 * npts || (closed != 0 && closed != 1)) return 0;
        for (int64_t i = 0; i < npts; i++) {
            put_char(o, i ? ',' : closed ? '(' : '[');
            put_pair(o, v + header + 16 * i);
        }
        put_char(o, closed ? ')' : ']');
        return 1;
    }
    }
}

/* range flags (include/utils/rangetypes.h) */
#define RANGE_EMPTY 0x01
#define RANGE_LB_INC 0x02
#define RANGE_UB_INC 0x04
#define RANGE_LB_INF 0x08
#define RANGE_UB_INF 0x10
#define RANGE_LB_NULL 0x20
#define RANGE_UB_NULL 0x40
#define RANGE_CONTAIN_EMPTY 0x80

/* A range's flags as typeout/ranges.py accepts them (_check_flags): 0 for flags no server writes. */
static int range_flags_ok(int64_t f, int in_multirange)
{
    if (f & (RANGE_LB_NULL | RANGE_UB_NULL)) return 0;
    if (in_multirange && (f & (RANGE_EMPTY | RANGE_CONTAIN_EMPTY))) return 0;
    if ((f & RANGE_EMPTY) && (f & ~(RANGE_EMPTY | RANGE_CONTAIN_EMPTY))) return 0;
    return !((f & RANGE_LB_INF) && (f & RANGE_LB_INC)) && !((f & RANGE_UB_INF) && (f & RANGE_UB_INC));
}

/* One bound of a range: its bytes at img[*off] (typlen > 0 bytes, or a varlena), printed bare and escaped as
   range_bound_escape does (quoted when empty or holding " \ ( ) [ ] , or white space; " and \ doubled); *off moves
   past it. 0: declined (a bound running past end, a cstring, a compressed varlena: Python's). */
static int put_range_bound(Out *o, const uint8_t *img, int64_t *off, int64_t end, const int64_t *ex, const Zone *zone,
                           int64_t major)
{
    const int64_t ln = ex[1] == -1 ? varlena_size(img + *off, end - *off) : ex[1] > 0 ? ex[1] : 0;
    if (ln < 1 || *off + ln > end) return 0;
    uint8_t *const from = o->p;
    if (!put_value(o, ex[0], img + *off, ln, zone, major, 0)) return 0;
    *off += ln;
    static const uint8_t doubled[256] = {['"'] = '"', ['\\'] = '\\'};
    int64_t escapes = 0, special = o->p == from;
    for (const uint8_t *q = from; q < o->p; q++) {
        const uint8_t c = *q;
        special |= c == '"' || c == '\\' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ' '
                   || (c >= '\t' && c <= '\r');
        escapes += c == '"' || c == '\\';
    }
    if (special) quote_in_place(o, from, escapes, doubled);
    return 1;
}

/* range_deserialize's walk over one range's bounds from img[off] (never past end) and range_deparse's text, bare;
   *stop: where its bounds end. 0: declined. */
static int put_range_text(Out *o, const uint8_t *img, int64_t off, int64_t end, int64_t flags, const int64_t *ex,
                          const Zone *zone, int64_t major, int64_t *stop)
{
    const int64_t align = ex[2];
    if (off > end || align < 1) return 0;
    const int has_lower = !(flags & (RANGE_EMPTY | RANGE_LB_NULL | RANGE_LB_INF)),
              has_upper = !(flags & (RANGE_EMPTY | RANGE_UB_NULL | RANGE_UB_INF));
    if (flags & RANGE_EMPTY) {
        if (room(o, 5)) o->p = put_str(o->p, "empty");
    } else {
        put_char(o, flags & RANGE_LB_INC ? '[' : '(');
    }
    if (has_lower && !put_range_bound(o, img, &off, end, ex, zone, major)) return 0;
    if (!(flags & RANGE_EMPTY)) put_char(o, ',');
    if (has_upper) {
        /* att_align_pointer: a varlena with a 1-byte header is not aligned */
        if (!(ex[1] == -1 && off < end && img[off] != 0)) off = (off + align - 1) & ~(align - 1);
        if (!put_range_bound(o, img, &off, end, ex, zone, major)) return 0;
    }
    if (!(flags & RANGE_EMPTY)) put_char(o, flags & RANGE_UB_INC ? ']' : ')');
    *stop = off;
    return 1;
}

/*
 * range_out and multirange_out (typeout/ranges.py's range_text and multirange_text), bare: s, n the value's content
 * after its varlena header; ex: the subtype's kind (K_*), typlen (> 0, or -1 varlena), alignment in bytes, and the
 * range (multirange) type's oid the value must store, 0 for any. Offsets are those of the 4-byte-header image, as
 * for arrays. 0: declined, wherever Python reports the value.
 */
PGP_INTERNAL int put_range(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
{
    const uint8_t *const img = s - 4;
    const int64_t end = n + 4 - 1;   /* the flags byte */
    if (end < 8 || (ex[4] && u32(img + 4) != (uint64_t)ex[4])) return 0;
    const int64_t flags = img[end];
    int64_t stop;
    const int bare = o->bare;
    o->bare = 1;
    const int good = range_flags_ok(flags, 0) && put_range_text(o, img, 8, end, flags, ex, zone, major, &stop);
    o->bare = bare;
    return good && stop == end;
}

PGP_INTERNAL int put_multirange(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
{
    const uint8_t *const img = s - 4;
    const int64_t end = n + 4, align = ex[2];
    if (end < 12 || align < 1 || (ex[4] && u32(img + 4) != (uint64_t)ex[4])) return 0;
    const int64_t count = (int64_t)u32(img + 8), flags_at = 12 + 4 * (count > 1 ? count - 1 : 0);
    if (flags_at + count > end) return 0;
    const int64_t begin = (flags_at + count + align - 1) & ~(align - 1);
    int64_t prev_offset = 0, next_offset = 0;
    if (!room(o, 1)) return 1;
    *o->p++ = '{';
    const int bare = o->bare;
    o->bare = 1;
    int good = 1;
    for (int64_t i = 0; i < count && good; i++) {
        int64_t offset = 0, stop;
        if (i > 0) {
            const int64_t item = (int64_t)u32(img + 12 + 4 * (i - 1)), has_offset = (item & 0x80000000) != 0;
            if (has_offset != (i % 4 == 0)) { good = 0; break; }   /* MULTIRANGE_ITEM_OFFSET_STRIDE */
            offset = has_offset ? item & 0x7FFFFFFF : prev_offset + (item & 0x7FFFFFFF);
            put_char(o, ',');
        }
        const int64_t flags = img[flags_at + i];
        good = offset == next_offset && range_flags_ok(flags, 1)
               && put_range_text(o, img, begin + offset, end, flags, ex, zone, major, &stop);
        if (good) {
            prev_offset = offset;
            next_offset = offset + ((stop - begin - offset + align - 1) & ~(align - 1));
        }
    }
    o->bare = bare;
    if (!good || begin + next_offset != end) return 0;
    put_char(o, '}');
    return 1;
}

/* What was written from `from` on, made the inside of a JSON string as Python's json.dumps(ensure_ascii=False)
   writes it: the quote, the backslash and the control characters escaped (\b \f \n \r \t, the others \u00xx). */
static const uint8_t json_short[32] = {['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};
PGP_INTERNAL void json_escape(Out *o, uint8_t *from)
{
    int64_t extra = 0;
    for (const uint8_t *q = from; q < o->p; q++)
        if (*q < 0x20) extra += json_short[*q] ? 1 : 5;
        else if (*q == '"' || *q == '\\') extra++;
    if (!extra || !room(o, extra)) return;
    uint8_t *src = o->p, *dst = o->p + extra;
    o->p = dst;
    while (src > from) {   /* from the end, so that each byte moves before it is overwritten */
        const uint8_t c = *--src;
        if (c < 0x20 && json_short[c]) {
            *--dst = json_short[c];
            *--dst = '\\';
        } else if (c < 0x20) {
            *--dst = (uint8_t)hexdigits[c & 15];
            *--dst = (uint8_t)hexdigits[c >> 4];
            for (const char *u = "00u\\"; *u; u++) *--dst = (uint8_t)*u;
        } else if (c == '"' || c == '\\') {
            *--dst = c;
            *--dst = '\\';
        } else
            *--dst = c;
    }
}

/* What was written from `from` on, escaped as COPY's text format escapes a field (copyto.c CopyAttributeOutText,
   tab the delimiter): backslash doubled, \b \f \n \r \t \v as a backslash and their letter, the other bytes as
   they are. */
static const uint8_t copy_short[32] = {['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
                                       ['\v'] = 'v'};
static inline uint8_t copy_escaped(uint8_t c)
{
    return (uint8_t)(c - '\b') <= '\r' - '\b' || c == '\\';   /* \b \t \n \v \f \r are 8-13: copy_short's */
}

PGP_INTERNAL void copy_text_escape(Out *o, uint8_t *from)
{
    uint8_t any = 0;
    for (const uint8_t *q = from; q < o->p; q++)   /* (most values have none: a test the compiler vectorizes) */
        any |= copy_escaped(*q);
    if (!any) return;
    int64_t extra = 0;
    for (const uint8_t *q = from; q < o->p; q++)
        extra += copy_escaped(*q);
    if (!room(o, extra)) return;
    uint8_t *src = o->p, *dst = o->p + extra;
    o->p = dst;
    while (src > from) {   /* from the end, so that each byte moves before it is overwritten */
        const uint8_t c = *--src;
        if (c < 0x20 && copy_short[c]) {
            *--dst = copy_short[c];
            *--dst = '\\';
        } else if (c == '\\') {
            *--dst = c;
            *--dst = '\\';
        } else
            *--dst = c;
    }
}

/*
 * jsonb_out of a jsonb value (s, n: after its varlena header), bare, as typeout/jsonb.py prints it: its
 * containers walked with an explicit stack, keys and values in stored order, ", " and ": " between them, strings
 * through escape_json (json_escape's rules), numerics through numeric_out. 0: declined, for everything jsonb.py
 * refuses (a header, entry, padding or string no server writes) and for what this port does not follow (nesting
 * deeper than JSONB_DEPTH, a child found only through more than JSONB_WALK entries without an offset).
 */
#define JB_CMASK 0x0FFFFFFFu
#define JB_FSCALAR 0x10000000u
#define JB_FOBJECT 0x20000000u
#define JB_FARRAY 0x40000000u
#define JENTRY_OFFLENMASK 0x0FFFFFFFu
#define JENTRY_TYPEMASK 0x70000000u
#define JENTRY_HAS_OFF 0x80000000u
#define JENTRY_ISSTRING 0x00000000u
#define JENTRY_ISNUMERIC 0x10000000u
#define JENTRY_ISBOOL_FALSE 0x20000000u
#define JENTRY_ISBOOL_TRUE 0x30000000u
#define JENTRY_ISNULL 0x40000000u
#define JENTRY_ISCONTAINER 0x50000000u
#define JSONB_DEPTH 64
#define JSONB_WALK 64

typedef struct {
    int64_t start, data, count, is_object, scalar, next;   /* next: the child to print */
} JsonbContainer;

/* A container at s[start..end): its header and entries checked as jsonb.py's _Container checks them. */
static int jsonb_open(const uint8_t *s, int64_t start, int64_t end, JsonbContainer *c)
{
    if (end - start < 4) return 0;
    const uint32_t header = (uint32_t)u32(s + start), kind = header & (JB_FARRAY | JB_FOBJECT);
    if ((kind != JB_FARRAY && kind != JB_FOBJECT) || (header & ~(JB_CMASK | JB_FSCALAR | kind))) return 0;
    c->is_object = kind == JB_FOBJECT;
    c->scalar = (header & JB_FSCALAR) != 0;
    c->count = header & JB_CMASK;
    if (c->scalar && (c->is_object || c->count != 1)) return 0;
    const int64_t nentries = c->is_object ? 2 * c->count : c->count;
    c->start = start;
    c->data = start + 4 + 4 * nentries;
    c->next = 0;
    if (c->data > end) return 0;
    int64_t offset = 0;
    for (int64_t i = 0; i < nentries; i++) {
        const uint32_t entry = (uint32_t)u32(s + start + 4 + 4 * i), field = entry & JENTRY_OFFLENMASK;
        const int64_t stop = entry & JENTRY_HAS_OFF ? field : offset + field;
        if (stop < offset || c->data + stop > end) return 0;
        offset = stop;
    }
    return c->data + offset == end;
}

/* Child i of a checked container: its type, and where its data lies (getJsonbOffset's walk back to an entry
   holding its end offset). 0 when the walk would be longer than JSONB_WALK entries. */
static int jsonb_child(const uint8_t *s, const JsonbContainer *c, int64_t i, uint32_t *type, int64_t *b, int64_t *e)
{
    const uint8_t *entries = s + c->start + 4;
    int64_t offs[2] = {0, 0};
    for (int k = 0; k < 2; k++) {   /* the end of child i - 1, then of child i */
        int64_t j = i - 1 + k, sum = 0, steps = 0;
        for (; j >= 0; j--) {
            const uint32_t entry = (uint32_t)u32(entries + 4 * j);
            sum += entry & JENTRY_OFFLENMASK;
            if (entry & JENTRY_HAS_OFF) break;
            if (++steps > JSONB_WALK) return 0;
        }
        offs[k] = sum;
    }
    *type = (uint32_t)u32(entries + 4 * i) & JENTRY_TYPEMASK;
    *b = c->data + offs[0];
    *e = c->data + offs[1];
    return 1;
}

/* The zero padding before a numeric or a container, to INTALIGN from the root's start (jsonb.py's _aligned). */
static int jsonb_aligned(const uint8_t *s, int64_t start, int64_t end, int64_t *body)
{
    *body = (start + 3) & ~(int64_t)3;
    if (*body > end) return 0;
    for (int64_t i = start; i < *body; i++)
        if (s[i]) return 0;
    return 1;
}

static int put_jsonb_scalar(Out *o, const uint8_t *s, uint32_t type, int64_t b, int64_t e, int64_t major)
{
    switch (type) {
    case JENTRY_ISSTRING: {
        if (memchr(s + b, 0, (size_t)(e - b)) || !utf8_valid(s + b, e - b)) return 0;
        if (!room(o, e - b + 2)) return 1;
        *o->p++ = '"';
        uint8_t *const from = o->p;
        memcpy(o->p, s + b, (size_t)(e - b));
        o->p += e - b;
        json_escape(o, from);
        put_char(o, '"');
        return 1;
    }
    case JENTRY_ISNUMERIC: {
        int64_t body;
        if (!jsonb_aligned(s, b, e, &body) || body >= e) return 0;
        const uint8_t *num;
        int64_t n;
        if (varlena_size(s + body, e - body) != e - body || !varlena_body(s + body, e - body, &num, &n)) return 0;
        return put_numeric(o, num, n, major);
    }
    case JENTRY_ISBOOL_FALSE:
    case JENTRY_ISBOOL_TRUE:
    case JENTRY_ISNULL:
        if (e != b || !room(o, 5)) return e != b ? 0 : 1;
        o->p = put_str(o->p, type == JENTRY_ISNULL ? "null" : type == JENTRY_ISBOOL_TRUE ? "true" : "false");
        return 1;
    default:
        return 0;
    }
}

PGP_INTERNAL int put_jsonb(Out *o, const uint8_t *s, int64_t n, int64_t major)
{
    JsonbContainer stack[JSONB_DEPTH];
    uint32_t type;
    int64_t b, e, depth = 1;
    if (!jsonb_open(s, 0, n, &stack[0])) return 0;
    if (stack[0].scalar) {
        if (!jsonb_child(s, &stack[0], 0, &type, &b, &e) || type == JENTRY_ISCONTAINER) return 0;
        return put_jsonb_scalar(o, s, type, b, e, major);
    }
    if (!room(o, 1)) return 1;
    *o->p++ = stack[0].is_object ? '{' : '[';
    while (depth > 0) {
        JsonbContainer *c = &stack[depth - 1];
        if (!room(o, 4)) return 1;
        if (c->next >= c->count) {
            *o->p++ = c->is_object ? '}' : ']';
            depth--;
            continue;
        }
        const int64_t i = c->next++;
        if (i) o->p = put_str(o->p, ", ");
        if (c->is_object) {
            if (!jsonb_child(s, c, i, &type, &b, &e) || type != JENTRY_ISSTRING) return 0;
            if (!put_jsonb_scalar(o, s, type, b, e, major) || !room(o, 2)) return !o->full ? 0 : 1;
            o->p = put_str(o->p, ": ");
        }
        if (!jsonb_child(s, c, c->is_object ? c->count + i : i, &type, &b, &e)) return 0;
        if (type != JENTRY_ISCONTAINER) {
            if (!put_jsonb_scalar(o, s, type, b, e, major)) return 0;
            continue;
        }
        int64_t body;
        if (depth == JSONB_DEPTH || !jsonb_aligned(s, b, e, &body) || !jsonb_open(s, body, e, &stack[depth])
            || stack[depth].scalar || !room(o, 1))
            return !o->full ? 0 : 1;
        *o->p++ = stack[depth].is_object ? '{' : '[';
        depth++;
    }
    return 1;
}

/* network_out of inet and cidr (typeout/network.py: inet_net_ntop's IPv4 octets, IPv6 words with the first
   longest run of two or more zero words as "::" and an IPv4 tail for mapped and compatible addresses, "/bits"
   unless a host's, and always for cidr); s, n after the varlena header. 0: declined, what network.py refuses. */
PGP_INTERNAL int put_inet(Out *o, const uint8_t *s, int64_t n, int cidr)
{
    if (n < 2) return 0;
    const int family = s[0], bits = s[1], size = family == 2 ? 4 : family == 3 ? 16 : 0;
    if (!size || n != 2 + size || bits > 8 * size) return 0;
    if (!room(o, 64)) return 1;
    const uint8_t *a = s + 2;
    uint8_t *p = o->p;
    if (size == 4) {
        for (int i = 0; i < 4; i++) {
            if (i) *p++ = '.';
            p = put_i64(p, a[i]);
        }
    } else {
        int words[8], base = -1, len = 0, run = -1, run_len = 0;
        for (int i = 0; i < 8; i++) words[i] = (a[2 * i] << 8) | a[2 * i + 1];
        for (int i = 0; i <= 8; i++) {
            if (i < 8 && words[i] == 0) {
                if (run == -1) run = i, run_len = 1;
                else run_len++;
            } else if (run != -1) {
                if (base == -1 || run_len > len) base = run, len = run_len;
                run = -1;
            }
        }
        if (len < 2) base = -1, len = 0;
        for (int i = 0; i < 8; i++) {
            if (base != -1 && i >= base && i < base + len) {
                if (i == base) *p++ = ':';
                continue;
            }
            if (i) *p++ = ':';
            if (i == 6 && base == 0 && (len == 6 || (len == 7 && words[7] != 1) || (len == 5 && words[5] == 0xFFFF))) {
                for (int k = 12; k < 16; k++) {
                    if (k > 12) *p++ = '.';
                    p = put_i64(p, a[k]);
                }
                break;
            }
            char hex[4];
            int nh = 0;
            for (int w = words[i]; nh == 0 || w; w >>= 4) hex[nh++] = hexdigits[w & 15];
            while (nh) *p++ = (uint8_t)hex[--nh];
        }
        if (base != -1 && base + len == 8) *p++ = ':';
    }
    if (bits != 8 * size || cidr) {
        *p++ = '/';
        p = put_i64(p, bits);
    }
    o->p = p;
    return 1;
}
