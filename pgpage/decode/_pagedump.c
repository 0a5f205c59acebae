/* pgpage's page dumper: `pgpage page` over many blocks, as JSON, at pg_filedump's speed.
 *
 * Compiled into the same shared library as _heapscan.c (setup.py, kernels.py: the library's stamp is the
 * SHA-256 over both sources). Plain C99, no Python.h. The ctypes wrapper is decode/pagedump.py.
 *
 * pgp_dump_heap_json writes, per heap page of a chunk, exactly the JSON record decode.page + json.dumps give
 * (pageinspect's names, same key order, same values) -- but only for a page on which decode.page would
 * report nothing: every PageHeaderIsValid rule holds, the checksum is right (or no finding is due), and every
 * line pointer and tuple header passes decode.heap's rules. Any other page gets status -1 and the caller
 * decodes it with decode.page, so the rules for damaged pages and their findings stay written once, in Python.
 * The rules here only decide "nothing to report", conservatively (a WITH OIDS tuple, a sequence page: -1).
 *
 * Offsets: the page header and tuple header fields, from the layout array (decode/ksy/layouts.py) the caller
 * passes, as _heapscan.c takes them.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

int64_t pgp_pagedump_version(void) { return 2; }

/* the layout array's slots, in decode/pagedump.py's LAYOUT order */
enum { L_PD_LSN, L_PD_CHECKSUM, L_PD_FLAGS, L_PD_LOWER, L_PD_UPPER, L_PD_SPECIAL, L_PD_PAGESIZE_VERSION,
       L_PD_PRUNE_XID, L_PAGE_HEADER_SIZE, L_T_XMIN, L_T_XMAX, L_T_FIELD3, L_BI_HI, L_BI_LO, L_IP_POSID,
       L_T_INFOMASK2, L_T_INFOMASK, L_T_HOFF, L_HEAP_HEADER_SIZE, L_COUNT };

/* names: JSON-quoted strings: 16 infomask bits, 16 infomask2 bits ("" where not in HEAP2_XACT_MASK),
 * 4 lp_flags, 16 pd_flags bits */
enum { N_INFOMASK = 0, N_INFOMASK2 = 16, N_LP = 32, N_PD = 36, N_NAMES = 52 };

#define LP_UNUSED 0
#define LP_NORMAL 1
#define LP_REDIRECT 2
#define PD_VALID_FLAG_BITS 0x0007
#define HEAP_HASNULL 0x0001
#define HEAP_HASOID_OLD 0x0008
#define HEAP_NATTS_MASK 0x07FF
#define MAXALIGN(x) (((x) + 7) & ~(int64_t)7)

static inline uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

typedef struct { char *p, *end; } Out;

static inline void put(Out *o, const char *s, size_t n) {
    if (o->p + n <= o->end) memcpy(o->p, s, n);
    o->p += n;
}
#define PUTS(o, lit) put(o, lit, sizeof(lit) - 1)
static inline void putz(Out *o, const char *s) { put(o, s, strlen(s)); }

static inline void putu(Out *o, uint64_t v) {
    char buf[24]; int n = 0;
    do { buf[sizeof buf - 1 - n++] = (char)('0' + v % 10); v /= 10; } while (v);
    put(o, buf + sizeof buf - n, (size_t)n);
}

static inline void putX(Out *o, uint32_t v) {  /* %X */
    static const char hex[] = "0123456789ABCDEF";
    char buf[8]; int n = 0;
    do { buf[7 - n++] = hex[v & 15]; v >>= 4; } while (v);
    put(o, buf + 8 - n, (size_t)n);
}

static void puthex(Out *o, const uint8_t *b, int64_t n) {
    static const char hex[] = "0123456789abcdef";
    if (o->p + 2 * n <= o->end)
        for (int64_t i = 0; i < n; i++) { o->p[2 * i] = hex[b[i] >> 4]; o->p[2 * i + 1] = hex[b[i] & 15]; }
    o->p += 2 * n;
}

/* flag_names: the names of the set bits, lowest first, as a JSON list */
static void putflags(Out *o, uint32_t v, const char *const *names, int first) {
    for (int bit = 0; bit < 16; bit++)
        if (v & (1u << bit)) {
            if (!first) PUTS(o, ",");
            putz(o, names[bit]);
            first = 0;
        }
}

/* 1 when decode.page would report nothing on this page and it is a heap page: every PageHeaderIsValid rule
 * holds, the checksum needs no finding, every line pointer and tuple header passes decode.heap's rules. */
static int plain_heap_page(const uint8_t *pg, int64_t bs, uint16_t computed, int64_t mismatch_rule,
                           const int64_t *L) {
    uint16_t cks = u16(pg + L[L_PD_CHECKSUM]), flags = u16(pg + L[L_PD_FLAGS]), lower = u16(pg + L[L_PD_LOWER]),
             upper = u16(pg + L[L_PD_UPPER]), special = u16(pg + L[L_PD_SPECIAL]),
             psv = u16(pg + L[L_PD_PAGESIZE_VERSION]);
    int64_t hsize = L[L_PAGE_HEADER_SIZE], th = L[L_HEAP_HEADER_SIZE];
    /* all zeros ("new"), pd_upper 0, any PageHeaderIsValid rule broken, not a heap page: Python */
    if (upper == 0 || (psv & 0xFF00) != bs || (psv & 0xFF) != 4 || (flags & ~PD_VALID_FLAG_BITS) ||
        lower < hsize || lower > upper || upper > special || special > bs || special != MAXALIGN(special) ||
        special != bs)
        return 0;
    /* decode.page: a mismatch is a finding when checksums are on (rule 1), or unknown and stored != 0 (rule 2) */
    if (cks != computed && (mismatch_rule == 1 || (mismatch_rule == 2 && cks != 0)))
        return 0;
    int64_t nitems = (lower - hsize) / 4;
    for (int64_t i = 0; i < nitems; i++) {
        uint32_t w = u32(pg + hsize + 4 * i);
        int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
        if (lf == LP_REDIRECT && (off < 1 || off > nitems)) return 0;
        if (len == 0) {
            if (lf == LP_NORMAL || (lf == LP_UNUSED && off)) return 0;
            continue;
        }
        if (lf == LP_UNUSED || lf == LP_REDIRECT) return 0;
        if (off + len > bs || off < upper || off + len > special || off != MAXALIGN(off) || len < 24) return 0;
        const uint8_t *t = pg + off;
        uint16_t im = u16(t + L[L_T_INFOMASK]), im2 = u16(t + L[L_T_INFOMASK2]);
        int64_t hoff = t[L[L_T_HOFF]], natts = im2 & HEAP_NATTS_MASK;
        int64_t bitmap = (im & HEAP_HASNULL) ? (natts + 7) / 8 : 0;
        if (hoff < th + bitmap || hoff > len || hoff != MAXALIGN(hoff)) return 0;
        if (im & HEAP_HASOID_OLD) return 0;  /* the OID's rules (pre-12 names): Python */
    }
    return 1;
}

/* The page's JSON record and a newline; -1 (nothing written) for a page the caller decodes itself. */
static int heap_page(const uint8_t *pg, int64_t bs, int64_t blkno, uint16_t computed, int64_t mismatch_rule,
                     const int64_t *L, const char *const *names, Out *o) {
    if (!plain_heap_page(pg, bs, computed, mismatch_rule, L))
        return -1;
    uint16_t cks = u16(pg + L[L_PD_CHECKSUM]), flags = u16(pg + L[L_PD_FLAGS]), lower = u16(pg + L[L_PD_LOWER]),
             upper = u16(pg + L[L_PD_UPPER]), special = u16(pg + L[L_PD_SPECIAL]),
             psv = u16(pg + L[L_PD_PAGESIZE_VERSION]);
    int64_t hsize = L[L_PAGE_HEADER_SIZE], th = L[L_HEAP_HEADER_SIZE];
    int ok = cks == computed;
    int64_t nitems = (lower - hsize) / 4;
    uint64_t lsn_hi = u32(pg + L[L_PD_LSN]), lsn_lo = u32(pg + L[L_PD_LSN] + 4);
    PUTS(o, "{\"blkno\":"); putu(o, (uint64_t)blkno);
    PUTS(o, ",\"page_type\":\"heap\",\"findings\":[],\"page_header\":{\"lsn\":\"");
    putX(o, (uint32_t)lsn_hi); PUTS(o, "/"); putX(o, (uint32_t)lsn_lo);
    PUTS(o, "\",\"checksum\":"); putu(o, cks);
    PUTS(o, ",\"flags\":"); putu(o, flags);
    PUTS(o, ",\"lower\":"); putu(o, lower);
    PUTS(o, ",\"upper\":"); putu(o, upper);
    PUTS(o, ",\"special\":"); putu(o, special);
    PUTS(o, ",\"pagesize\":"); putu(o, psv & 0xFF00);
    PUTS(o, ",\"version\":"); putu(o, psv & 0xFF);
    PUTS(o, ",\"prune_xid\":"); putu(o, u32(pg + L[L_PD_PRUNE_XID]));
    PUTS(o, ",\"flag_names\":["); putflags(o, flags, names + N_PD, 1);
    PUTS(o, "]},\"page_checksum\":"); putu(o, computed);
    PUTS(o, ",\"checksum\":{\"stored\":"); putu(o, cks);
    PUTS(o, ",\"computed\":"); putu(o, computed);
    if (ok) PUTS(o, ",\"ok\":true},\"heap_page_items\":[");
    else PUTS(o, ",\"ok\":false},\"heap_page_items\":[");
    for (int64_t i = 0; i < nitems; i++) {
        uint32_t w = u32(pg + hsize + 4 * i);
        int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
        if (i) PUTS(o, ",");
        PUTS(o, "{\"lp\":"); putu(o, (uint64_t)i + 1);
        PUTS(o, ",\"lp_off\":"); putu(o, (uint64_t)off);
        PUTS(o, ",\"lp_flags\":"); putu(o, (uint64_t)lf);
        PUTS(o, ",\"lp_flags_name\":"); putz(o, names[N_LP + lf]);
        PUTS(o, ",\"lp_len\":"); putu(o, (uint64_t)len);
        if (len == 0) {
            PUTS(o, ",\"t_xmin\":null,\"t_xmax\":null,\"t_field3\":null,\"t_ctid\":null,\"t_infomask2\":null,"
                    "\"t_infomask\":null,\"t_hoff\":null,\"t_bits\":null,\"t_oid\":null,\"t_data\":null,"
                    "\"raw_flags\":null,\"combined_flags\":null}");
            continue;
        }
        const uint8_t *t = pg + off;
        uint16_t im = u16(t + L[L_T_INFOMASK]), im2 = u16(t + L[L_T_INFOMASK2]);
        int64_t hoff = t[L[L_T_HOFF]], natts = im2 & HEAP_NATTS_MASK;
        PUTS(o, ",\"t_xmin\":"); putu(o, u32(t + L[L_T_XMIN]));
        PUTS(o, ",\"t_xmax\":"); putu(o, u32(t + L[L_T_XMAX]));
        PUTS(o, ",\"t_field3\":"); putu(o, u32(t + L[L_T_FIELD3]));
        PUTS(o, ",\"t_ctid\":\"("); putu(o, (uint32_t)u16(t + L[L_BI_HI]) << 16 | u16(t + L[L_BI_LO]));
        PUTS(o, ","); putu(o, u16(t + L[L_IP_POSID]));
        PUTS(o, ")\",\"t_infomask2\":"); putu(o, im2);
        PUTS(o, ",\"t_infomask\":"); putu(o, im);
        PUTS(o, ",\"t_hoff\":"); putu(o, (uint64_t)hoff);
        if (im & HEAP_HASNULL) {
            int64_t nb = (natts + 7) / 8;
            PUTS(o, ",\"t_bits\":\"");
            if (o->p + 8 * nb <= o->end)
                for (int64_t b = 0; b < 8 * nb; b++) o->p[b] = (t[th + (b >> 3)] >> (b & 7)) & 1 ? '1' : '0';
            o->p += 8 * nb;
            PUTS(o, "\"");
        } else
            PUTS(o, ",\"t_bits\":null");
        PUTS(o, ",\"t_oid\":null,\"t_data\":\""); puthex(o, t + hoff, len - hoff);
        PUTS(o, "\",\"raw_flags\":["); putflags(o, im, names + N_INFOMASK, 1);
        putflags(o, im2 & 0xE000, names + N_INFOMASK2, im == 0);  /* HEAP2_XACT_MASK */
        PUTS(o, "],\"combined_flags\":[");
        int first = 1;  /* heap_tuple_infomask_flags' multi-bit flags, in pageinspect's order */
        if ((im & 0x0050) == 0x0050) { PUTS(o, "\"HEAP_XMAX_SHR_LOCK\""); first = 0; }
        if ((im & 0x0300) == 0x0300) { if (!first) PUTS(o, ","); PUTS(o, "\"HEAP_XMIN_FROZEN\""); first = 0; }
        if ((im & 0xC000) == 0xC000) { if (!first) PUTS(o, ","); PUTS(o, "\"HEAP_MOVED\""); }
        PUTS(o, "]}");
    }
    PUTS(o, "]}\n");
    return 0;
}

/* Each page of a chunk (n pages of bs bytes, global block numbers from first_blkno, pg_checksum_page's values in
 * computed[]) as one line of JSON into out[0..cap); ends[i] = the end offset of page i's line, or -1 for a page
 * the caller must decode itself (its line is empty). Returns the bytes written, or -(bytes needed) when out is
 * too small for the chunk. */
int64_t pgp_dump_heap_json(const uint8_t *pages, int64_t n, int64_t bs, int64_t first_blkno,
                           const uint16_t *computed, int64_t mismatch_rule, const int64_t *layout,
                           const char *const *names, char *out, int64_t cap, int64_t *ends) {
    Out o = {out, out + cap};
    for (int64_t i = 0; i < n; i++) {
        char *mark = o.p;
        if (heap_page(pages + i * bs, bs, first_blkno + i, computed[i], mismatch_rule, layout, names, &o) != 0) {
            o.p = mark;
            ends[i] = -1;
        } else
            ends[i] = o.p - out;
    }
    return o.p <= o.end ? o.p - out : -(o.p - out);
}

/* ------------------------------------------------------------------------------------------------ text */
/* `pgpage page`'s text for a heap page, as render/page.py prints it without colour (the caller passes its
 * words: tnames = 16 infomask abbreviations, 16 infomask2 ones ("" outside HEAP2_XACT_MASK), 4 lp states,
 * 16 pd_flags names, then the 3 combined flags' abbreviations (SHR, FROZEN, MOVED) and the item table's
 * heading line). */
enum { T_INFOMASK = 0, T_INFOMASK2 = 16, T_LP = 32, T_PD = 36, T_COMBINED = 52, T_HEADING = 55, T_NAMES = 56 };

static void pad_left(Out *o, const char *s, int64_t n, int64_t width) {
    for (int64_t i = n; i < width; i++) PUTS(o, " ");
    put(o, s, (size_t)n);
}
static void putu_w(Out *o, uint64_t v, int64_t width) {  /* f"{v:>width}" */
    char buf[24]; int n = 0;
    do { buf[sizeof buf - 1 - n++] = (char)('0' + v % 10); v /= 10; } while (v);
    pad_left(o, buf + sizeof buf - n, n, width);
}
static void putword(Out *o, const char *s, int *first) {
    if (!*first) PUTS(o, " ");
    putz(o, s);
    *first = 0;
}

static int heap_page_text(const uint8_t *pg, int64_t bs, int64_t blkno, uint16_t computed, int64_t mismatch_rule,
                          const int64_t *L, const char *const *tn, Out *o) {
    if (!plain_heap_page(pg, bs, computed, mismatch_rule, L))
        return -1;
    uint16_t cks = u16(pg + L[L_PD_CHECKSUM]), flags = u16(pg + L[L_PD_FLAGS]), lower = u16(pg + L[L_PD_LOWER]),
             upper = u16(pg + L[L_PD_UPPER]), special = u16(pg + L[L_PD_SPECIAL]),
             psv = u16(pg + L[L_PD_PAGESIZE_VERSION]);
    int64_t hsize = L[L_PAGE_HEADER_SIZE], th = L[L_HEAP_HEADER_SIZE];
    char *start = o->p;
    PUTS(o, "\nblock "); putu(o, (uint64_t)blkno);
    PUTS(o, "  heap  LSN "); putX(o, u32(pg + L[L_PD_LSN])); PUTS(o, "/"); putX(o, u32(pg + L[L_PD_LSN] + 4));
    PUTS(o, "  checksum "); putu(o, cks); PUTS(o, " ");
    if (cks == computed) PUTS(o, "ok");
    else { PUTS(o, "!= "); putu(o, computed); }
    if (flags) {
        PUTS(o, "  ");
        int first = 1;
        for (int bit = 0; bit < 16; bit++) if (flags & (1u << bit)) putword(o, tn[T_PD + bit], &first);
    }
    if (o->p - start - 1 > 100) return -1;  /* Rich would wrap this line: leave the page to it */
    PUTS(o, "\n  lower "); putu(o, lower); PUTS(o, "  upper "); putu(o, upper);
    PUTS(o, "  special "); putu(o, special); PUTS(o, "  pagesize "); putu(o, psv & 0xFF00);
    PUTS(o, "  version "); putu(o, psv & 0xFF); PUTS(o, "  prune_xid "); putu(o, u32(pg + L[L_PD_PRUNE_XID]));
    PUTS(o, "  free "); putu(o, upper > lower ? (uint64_t)(upper - lower) : 0); PUTS(o, " bytes\n");
    putz(o, tn[T_HEADING]);
    int64_t nitems = (lower - hsize) / 4;
    for (int64_t i = 0; i < nitems; i++) {
        uint32_t w = u32(pg + hsize + 4 * i);
        int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
        PUTS(o, "\n"); putu_w(o, (uint64_t)i + 1, 4); PUTS(o, " "); putu_w(o, (uint64_t)off, 5); PUTS(o, " ");
        /* f"{state:<13}": the state, "→" and the target for a redirect (one character, three bytes) */
        char *s0 = o->p;
        putz(o, tn[T_LP + lf]);
        int64_t chars = o->p - s0;
        if (lf == LP_REDIRECT) {
            PUTS(o, "\xe2\x86\x92");
            char *d0 = o->p;
            putu(o, (uint64_t)off);
            chars += 1 + (o->p - d0);
        }
        for (int64_t c = chars; c < 13; c++) PUTS(o, " ");
        PUTS(o, " "); putu_w(o, (uint64_t)len, 5);
        if (len == 0) continue;
        const uint8_t *t = pg + off;
        uint16_t im = u16(t + L[L_T_INFOMASK]), im2 = u16(t + L[L_T_INFOMASK2]);
        int64_t hoff = t[L[L_T_HOFF]], natts = im2 & HEAP_NATTS_MASK;
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_XMIN]), 10);
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_XMAX]), 10);
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_FIELD3]), 5);
        PUTS(o, " ");
        char *c0 = o->p;  /* f"{ctid:<11}" */
        PUTS(o, "("); putu(o, (uint32_t)u16(t + L[L_BI_HI]) << 16 | u16(t + L[L_BI_LO]));
        PUTS(o, ","); putu(o, u16(t + L[L_IP_POSID])); PUTS(o, ")");
        for (int64_t c = o->p - c0; c < 11; c++) PUTS(o, " ");
        PUTS(o, " "); putu_w(o, (uint64_t)natts, 5); PUTS(o, " "); putu_w(o, (uint64_t)hoff, 4); PUTS(o, " ");
        /* combined flags first, then the raw ones a combined flag does not already name */
        int first = 1;
        uint32_t hidden = 0;
        if ((im & 0x0050) == 0x0050) { putword(o, tn[T_COMBINED], &first); hidden |= 0x0050; }
        if ((im & 0x0300) == 0x0300) { putword(o, tn[T_COMBINED + 1], &first); hidden |= 0x0300; }
        if ((im & 0xC000) == 0xC000) putword(o, tn[T_COMBINED + 2], &first);
        for (int bit = 0; bit < 16; bit++)
            if ((im & ~hidden) & (1u << bit)) putword(o, tn[T_INFOMASK + bit], &first);
        for (int bit = 13; bit < 16; bit++)
            if (im2 & (1u << bit)) putword(o, tn[T_INFOMASK2 + bit], &first);
        if (im & HEAP_HASNULL) {  /* " nulls " and the attributes' bits only */
            PUTS(o, " nulls ");
            if (o->p + natts <= o->end)
                for (int64_t b = 0; b < natts; b++) o->p[b] = (t[th + (b >> 3)] >> (b & 7)) & 1 ? '1' : '0';
            o->p += natts;
        }
    }
    PUTS(o, "\n");
    return 0;
}

/* As pgp_dump_heap_json, the text of each page (tn: see heap_page_text). */
int64_t pgp_dump_heap_text(const uint8_t *pages, int64_t n, int64_t bs, int64_t first_blkno,
                           const uint16_t *computed, int64_t mismatch_rule, const int64_t *layout,
                           const char *const *tn, char *out, int64_t cap, int64_t *ends) {
    Out o = {out, out + cap};
    for (int64_t i = 0; i < n; i++) {
        char *mark = o.p;
        if (heap_page_text(pages + i * bs, bs, first_blkno + i, computed[i], mismatch_rule, layout, tn, &o) != 0) {
            o.p = mark;
            ends[i] = -1;
        } else
            ends[i] = o.p - out;
    }
    return o.p <= o.end ? o.p - out : -(o.p - out);
}
