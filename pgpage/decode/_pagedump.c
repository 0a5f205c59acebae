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
 * passes, as _heapscan.c takes them; flag values from ksy/pgp_layout.h (generated from the same .ksy files).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include "ksy/pgp_layout.h"

int64_t pgp_pagedump_version(void) { return 3; }

/* the layout array's slots, in decode/pagedump.py's LAYOUT order */
enum { L_PD_LSN, L_PD_CHECKSUM, L_PD_FLAGS, L_PD_LOWER, L_PD_UPPER, L_PD_SPECIAL, L_PD_PAGESIZE_VERSION,
       L_PD_PRUNE_XID, L_PAGE_HEADER_SIZE, L_T_XMIN, L_T_XMAX, L_T_FIELD3, L_BI_HI, L_BI_LO, L_IP_POSID,
       L_T_INFOMASK2, L_T_INFOMASK, L_T_HOFF, L_HEAP_HEADER_SIZE, L_BTPO_PREV, L_BTPO_NEXT, L_BTPO_LEVEL,
       L_BTPO_FLAGS, L_BTPO_CYCLEID, L_BTPO_SIZE, L_IT_BI_HI, L_IT_BI_LO, L_IT_POSID, L_IT_INFO, L_COUNT };

/* names: JSON-quoted strings: 16 infomask bits, 16 infomask2 bits ("" where not in HEAP2_XACT_MASK),
 * 4 lp_flags, 16 pd_flags bits, 16 btpo_flags bits */
enum { N_INFOMASK = 0, N_INFOMASK2 = 16, N_LP = 32, N_PD = 36, N_BTPO = 52, N_NAMES = 68 };

#define MAXALIGN(x) (((x) + 7) & ~(int64_t)7)

static inline uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Output: the caller of a page's writer has made sure there is room for the most any page can write
 * (PAGE_ROOM), so writes are not checked one by one. */
typedef struct { char *p; } Out;
#define PAGE_ROOM(bs) (192 * (bs) + 4096)

static inline void put(Out *o, const char *s, size_t n) { memcpy(o->p, s, n); o->p += n; }
#define PUTS(o, lit) put(o, lit, sizeof(lit) - 1)
static inline void putz(Out *o, const char *s) { put(o, s, strlen(s)); }

static const char DIGIT_PAIRS[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static inline int ndigits(uint64_t v) {
    int n = 1;
    for (; v >= 10000; v /= 10000) n += 4;
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* v's digits ending at e, two a step */
static inline void digits_before(char *e, uint64_t v) {
    while (v >= 100) { e -= 2; memcpy(e, DIGIT_PAIRS + 2 * (v % 100), 2); v /= 100; }
    if (v >= 10) memcpy(e - 2, DIGIT_PAIRS + 2 * v, 2); else e[-1] = (char)('0' + v);
}

static inline void putu(Out *o, uint64_t v) {
    int n = ndigits(v);
    digits_before(o->p + n, v);
    o->p += n;
}

static inline void putX(Out *o, uint32_t v) {  /* %X */
    static const char hex[] = "0123456789ABCDEF";
    char buf[8]; int n = 0;
    do { buf[7 - n++] = hex[v & 15]; v >>= 4; } while (v);
    put(o, buf + 8 - n, (size_t)n);
}

/* each byte's two lower-case hex digits and a space */
static const char *hex3(void) {
    static char table[256 * 4];
    static int made;
    if (!made) {
        static const char hex[] = "0123456789abcdef";
        for (int b = 0; b < 256; b++) {
            table[4 * b] = hex[b >> 4]; table[4 * b + 1] = hex[b & 15]; table[4 * b + 2] = ' '; table[4 * b + 3] = 0;
        }
        made = 1;
    }
    return table;
}

static void puthex(Out *o, const uint8_t *b, int64_t n) {  /* "a02500" */
    const char *t = hex3();
    for (int64_t i = 0; i < n; i++) memcpy(o->p + 2 * i, t + 4 * b[i], 2);
    o->p += 2 * n;
}

static void puthex_spaced(Out *o, const uint8_t *b, int64_t n) {  /* "a0 25 00" */
    if (n <= 0) return;
    const char *t = hex3();
    for (int64_t i = 0; i < n; i++) memcpy(o->p + 3 * i, t + 4 * b[i], 4);  /* the 4th byte: overwritten or past */
    o->p += 3 * n - 1;
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

/* The page kinds a caller lets the dumper take (bits of `kinds`): the catalog's access method decides (a file
 * given alone: both, as decode.page's classify does). */
#define KIND_HEAP 1
#define KIND_BTREE 2

/* A page's facts every rule and writer needs */
typedef struct {
    uint16_t cks, flags, lower, upper, special, psv, computed;
    int64_t hsize, nitems;
} Head;

static Head head_of(const uint8_t *pg, uint16_t computed, const int64_t *L) {
    Head h = {u16(pg + L[L_PD_CHECKSUM]), u16(pg + L[L_PD_FLAGS]), u16(pg + L[L_PD_LOWER]), u16(pg + L[L_PD_UPPER]),
              u16(pg + L[L_PD_SPECIAL]), u16(pg + L[L_PD_PAGESIZE_VERSION]), computed, L[L_PAGE_HEADER_SIZE], 0};
    h.nitems = h.lower >= h.hsize ? (h.lower - h.hsize) / 4 : 0;
    return h;
}

/* 1 when decode.page reports nothing on the header: not new, every PageHeaderIsValid rule holds, and the checksum
 * needs no finding (a mismatch is one when checksums are on, rule 1, or unknown and stored != 0, rule 2) */
static int plain_header(const Head *h, int64_t bs, int64_t mismatch_rule) {
    if (h->upper == 0 || (h->psv & 0xFF00) != bs || (h->psv & 0xFF) != 4 || (h->flags & ~PD_VALID_FLAG_BITS) ||
        h->lower < h->hsize || h->lower > h->upper || h->upper > h->special || h->special > bs ||
        h->special != MAXALIGN(h->special))
        return 0;
    return !(h->cks != h->computed && (mismatch_rule == 1 || (mismatch_rule == 2 && h->cks != 0)));
}

/* 1 when decode.page would report nothing on this heap page: a plain header, no special space, every line
 * pointer and tuple header passes decode.heap's rules. */
static int plain_heap_page(const uint8_t *pg, int64_t bs, const Head *h, int64_t mismatch_rule, const int64_t *L) {
    if (!plain_header(h, bs, mismatch_rule) || h->special != bs)
        return 0;
    int64_t hsize = h->hsize, th = L[L_HEAP_HEADER_SIZE], nitems = h->nitems;
    for (int64_t i = 0; i < nitems; i++) {
        uint32_t w = u32(pg + hsize + 4 * i);
        int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
        if (lf == LP_REDIRECT && (off < 1 || off > nitems)) return 0;
        if (len == 0) {
            if (lf == LP_NORMAL || (lf == LP_UNUSED && off)) return 0;
            continue;
        }
        if (lf == LP_UNUSED || lf == LP_REDIRECT) return 0;
        if (off + len > bs || off < h->upper || off + len > h->special || off != MAXALIGN(off) || len < 24) return 0;
        const uint8_t *t = pg + off;
        uint16_t im = u16(t + L[L_T_INFOMASK]), im2 = u16(t + L[L_T_INFOMASK2]);
        int64_t hoff = t[L[L_T_HOFF]], natts = im2 & HEAP_NATTS_MASK;
        int64_t bitmap = (im & HEAP_HASNULL) ? (natts + 7) / 8 : 0;
        if (hoff < th + bitmap || hoff > len || hoff != MAXALIGN(hoff)) return 0;
        if (im & HEAP_HASOID_OLD) return 0;  /* the OID's rules (pre-12 names): Python */
    }
    return 1;
}

/* "blkno", "page_type", "findings", "page_header", "page_checksum", "checksum": every page record starts so */
static void json_head(Out *o, const uint8_t *pg, int64_t blkno, const char *kind, const Head *h, const int64_t *L,
                      const char *const *names) {
    PUTS(o, "{\"blkno\":"); putu(o, (uint64_t)blkno);
    PUTS(o, ",\"page_type\":\""); putz(o, kind);
    PUTS(o, "\",\"findings\":[],\"page_header\":{\"lsn\":\"");
    putX(o, u32(pg + L[L_PD_LSN])); PUTS(o, "/"); putX(o, u32(pg + L[L_PD_LSN] + 4));
    PUTS(o, "\",\"checksum\":"); putu(o, h->cks);
    PUTS(o, ",\"flags\":"); putu(o, h->flags);
    PUTS(o, ",\"lower\":"); putu(o, h->lower);
    PUTS(o, ",\"upper\":"); putu(o, h->upper);
    PUTS(o, ",\"special\":"); putu(o, h->special);
    PUTS(o, ",\"pagesize\":"); putu(o, h->psv & 0xFF00);
    PUTS(o, ",\"version\":"); putu(o, h->psv & 0xFF);
    PUTS(o, ",\"prune_xid\":"); putu(o, u32(pg + L[L_PD_PRUNE_XID]));
    PUTS(o, ",\"flag_names\":["); putflags(o, h->flags, names + N_PD, 1);
    PUTS(o, "]},\"page_checksum\":"); putu(o, h->computed);
    PUTS(o, ",\"checksum\":{\"stored\":"); putu(o, h->cks);
    PUTS(o, ",\"computed\":"); putu(o, h->computed);
    if (h->cks == h->computed) PUTS(o, ",\"ok\":true}");
    else PUTS(o, ",\"ok\":false}");
}

/* The heap page's JSON record and a newline (the caller has checked plain_heap_page). */
static void heap_page_json(const uint8_t *pg, int64_t blkno, const Head *h, const int64_t *L,
                           const char *const *names, Out *o) {
    int64_t hsize = h->hsize, th = L[L_HEAP_HEADER_SIZE];
    json_head(o, pg, blkno, "heap", h, L, names);
    PUTS(o, ",\"heap_page_items\":[");
    for (int64_t i = 0; i < h->nitems; i++) {
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
}

/* ----------------------------------------------------------------------------------------------- B-tree */
/* nbtree's reading of one index tuple (decode/nbtree.py: page_items, formats/nbtree.ksy: bt_index_tuple) */

typedef struct { uint32_t prev, next, level; uint16_t flags, cycleid; } Opaque;  /* BTPageOpaqueData */

static Opaque opaque_of(const uint8_t *pg, const Head *h, const int64_t *L) {
    const uint8_t *op = pg + h->special;
    Opaque q = {u32(op + L[L_BTPO_PREV]), u32(op + L[L_BTPO_NEXT]), u32(op + L[L_BTPO_LEVEL]),
                u16(op + L[L_BTPO_FLAGS]), u16(op + L[L_BTPO_CYCLEID])};
    return q;
}

typedef struct {
    int64_t off, len, lp_flags, size;  /* size: IndexTupleSize */
    uint32_t block;                    /* t_tid's block number */
    uint16_t posid, info;
    int pivot, high_key, posting, alt_pivot;
    int64_t data_start, data_end;      /* the "data" column's bytes, data_end < data_start: null */
    int64_t n_posting, posting_at;     /* posting list: TIDs and their offset in the tuple */
    int has_heap_tid;                  /* a pivot's heap TID in its last 6 bytes */
} BtItem;

/* Item i (from 0) of a B-tree page; 0 when decode.nbtree would report a finding on it (the caller leaves the
 * page to Python). major 0: unknown (the newest layouts, as decode.nbtree reads ctx.major None). */
static int bt_item(const uint8_t *pg, const Head *h, const Opaque *q, int64_t i, int64_t major, const int64_t *L,
                   BtItem *it) {
    uint32_t w = u32(pg + h->hsize + 4 * i);
    it->off = w & 0x7FFF; it->lp_flags = (w >> 15) & 3; it->len = w >> 17;
    if (it->len < 8 || it->off < 24 || it->off + it->len > h->special) return 0;  /* btree.item.out_of_bounds */
    const uint8_t *t = pg + it->off;
    it->block = (uint32_t)u16(t + L[L_IT_BI_HI]) << 16 | u16(t + L[L_IT_BI_LO]);
    it->posid = u16(t + L[L_IT_POSID]);
    it->info = u16(t + L[L_IT_INFO]);
    it->size = it->info & INDEX_SIZE_MASK;
    if (it->size > it->len) return 0;  /* btree.item.size_mismatch */
    int leaf = q->flags & BTP_LEAF, rightmost = q->next == 0;
    it->pivot = !leaf || (!rightmost && i == 0);
    it->high_key = leaf && !rightmost && i == 0;
    int alt = (it->info & INDEX_ALT_TID_MASK) != 0;
    it->posting = alt && (it->posid & BT_IS_POSTING);
    it->alt_pivot = alt && !(it->posid & BT_IS_POSTING);
    int64_t size = it->size;  /* size_clamped: the tuple is within lp_len, so IndexTupleSize */
    it->data_start = (it->info & INDEX_NULL_MASK) ? 16 : 8;
    it->n_posting = it->posting ? (it->posid & BT_OFFSET_MASK) : 0;
    it->posting_at = it->block;
    int64_t listed = 0;
    if (it->posting && it->posting_at >= 8 && it->posting_at < size) {
        listed = (size - it->posting_at) / 6;
        if (it->n_posting < listed) listed = it->n_posting;
    }
    if (it->posting && listed != it->n_posting) return 0;  /* btree.posting.overrun */
    it->has_heap_tid = it->alt_pivot && (it->posid & BT_PIVOT_HEAP_TID_ATTR) && size >= 14;
    int heap_tid_attr = it->alt_pivot && (it->posid & BT_PIVOT_HEAP_TID_ATTR);
    if (major && major < 13)  /* pageinspect before 13: every byte after the header (none: "") */
        it->data_end = size > it->data_start ? size : it->data_start;
    else
        it->data_end = listed > 0 ? it->posting_at : (heap_tid_attr && size >= 16) ? size - 8 : size;
    return 1;
}

/* 1 when decode.page would report nothing on this page and it is a B-tree leaf, root or internal page (metapages,
 * deleted and half-dead pages: Python) */
static int plain_btree_page(const uint8_t *pg, int64_t bs, const Head *h, int64_t mismatch_rule, int64_t major,
                            const int64_t *L) {
    if (!plain_header(h, bs, mismatch_rule) || bs - h->special != L[L_BTPO_SIZE] || u16(pg + bs - 2) > MAX_BT_CYCLE_ID)
        return 0;
    Opaque q = opaque_of(pg, h, L);
    if (q.flags & (BTP_META | BTP_DELETED | BTP_HALF_DEAD))
        return 0;
    BtItem it;
    for (int64_t i = 0; i < h->nitems; i++)
        if (!bt_item(pg, h, &q, i, major, L, &it)) return 0;
    return 1;
}

static const char *bt_kind(uint16_t flags) {
    return (flags & BTP_LEAF) ? "btree_leaf" : (flags & BTP_ROOT) ? "btree_root" : "btree_internal";
}

/* pageinspect's GetBTPageStatistics: live and dead items, their average size, the free space */
typedef struct { int64_t live, dead, avg, free; } BtStats;

static BtStats bt_stats(const uint8_t *pg, int64_t bs, const Head *h, const int64_t *L) {
    BtStats s = {0, 0, 0, 0};
    int64_t total = 0;
    for (int64_t i = 0; i < h->nitems; i++) {
        uint32_t w = u32(pg + h->hsize + 4 * i);
        int64_t off = w & 0x7FFF;
        if (off + 8 <= bs) total += u16(pg + off + L[L_IT_INFO]) & INDEX_SIZE_MASK;
        if (((w >> 15) & 3) == LP_DEAD) s.dead++; else s.live++;
    }
    s.avg = s.live + s.dead ? total / (s.live + s.dead) : 0;
    s.free = h->upper - h->lower - 4 > 0 ? h->upper - h->lower - 4 : 0;
    return s;
}

static void put_tid(Out *o, uint32_t block, uint16_t posid) {
    PUTS(o, "("); putu(o, block); PUTS(o, ","); putu(o, posid); PUTS(o, ")");
}

/* The B-tree page's JSON record and a newline (the caller has checked plain_btree_page) */
static void btree_page_json(const uint8_t *pg, int64_t bs, int64_t blkno, const Head *h, int64_t major,
                            const int64_t *L, const char *const *names, Out *o) {
    Opaque q = opaque_of(pg, h, L);
    BtStats st = bt_stats(pg, bs, h, L);
    json_head(o, pg, blkno, bt_kind(q.flags), h, L, names);
    PUTS(o, ",\"bt_page_opaque\":{\"btpo_prev\":"); putu(o, q.prev);
    PUTS(o, ",\"btpo_next\":"); putu(o, q.next);
    PUTS(o, ",\"btpo_level\":"); putu(o, q.level);
    PUTS(o, ",\"btpo_flags\":"); putu(o, q.flags);
    PUTS(o, ",\"btpo_flag_names\":["); putflags(o, q.flags, names + N_BTPO, 1);
    PUTS(o, "],\"btpo_cycleid\":"); putu(o, q.cycleid);
    PUTS(o, "},\"bt_page_stats\":{\"blkno\":"); putu(o, (uint64_t)blkno);
    PUTS(o, ",\"type\":\""); put(o, (q.flags & BTP_LEAF) ? "l" : (q.flags & BTP_ROOT) ? "r" : "i", 1);
    PUTS(o, "\",\"live_items\":"); putu(o, (uint64_t)st.live);
    PUTS(o, ",\"dead_items\":"); putu(o, (uint64_t)st.dead);
    PUTS(o, ",\"avg_item_size\":"); putu(o, (uint64_t)st.avg);
    PUTS(o, ",\"page_size\":"); putu(o, h->psv & 0xFF00);
    PUTS(o, ",\"free_size\":"); putu(o, (uint64_t)st.free);
    PUTS(o, ",\"btpo_prev\":"); putu(o, q.prev);
    PUTS(o, ",\"btpo_next\":"); putu(o, q.next);
    if (major && major < 14) PUTS(o, ",\"btpo\":"); else PUTS(o, ",\"btpo_level\":");
    putu(o, q.level);
    PUTS(o, ",\"btpo_flags\":"); putu(o, q.flags);
    PUTS(o, "},\"bt_page_items\":[");
    int leaf = q.flags & BTP_LEAF;
    BtItem it;
    for (int64_t i = 0; i < h->nitems; i++) {
        bt_item(pg, h, &q, i, major, L, &it);
        const uint8_t *t = pg + it.off;
        if (i) PUTS(o, ",");
        PUTS(o, "{\"itemoffset\":"); putu(o, (uint64_t)i + 1);
        PUTS(o, ",\"ctid\":\""); put_tid(o, it.block, it.posid);
        PUTS(o, "\",\"itemlen\":"); putu(o, (uint64_t)it.size);
        if (it.info & INDEX_NULL_MASK) PUTS(o, ",\"nulls\":true"); else PUTS(o, ",\"nulls\":false");
        if (it.info & INDEX_VAR_MASK) PUTS(o, ",\"vars\":true"); else PUTS(o, ",\"vars\":false");
        if (it.data_end >= it.data_start) {
            PUTS(o, ",\"data\":\""); puthex_spaced(o, t + it.data_start, it.data_end - it.data_start); PUTS(o, "\"");
        } else
            PUTS(o, ",\"data\":null");
        if (it.pivot) PUTS(o, ",\"dead\":null");
        else if (it.lp_flags == LP_DEAD) PUTS(o, ",\"dead\":true");
        else PUTS(o, ",\"dead\":false");
        if (it.posting) {
            PUTS(o, ",\"htid\":");
            if (it.n_posting) { PUTS(o, "\""); put_tid(o, (uint32_t)u16(t + it.posting_at) << 16 | u16(t + it.posting_at + 2), u16(t + it.posting_at + 4)); PUTS(o, "\""); }
            else PUTS(o, "null");
            PUTS(o, ",\"tids\":[");
            for (int64_t k = 0; k < it.n_posting; k++) {
                const uint8_t *p = t + it.posting_at + 6 * k;
                if (k) PUTS(o, ",");
                PUTS(o, "\""); put_tid(o, (uint32_t)u16(p) << 16 | u16(p + 2), u16(p + 4)); PUTS(o, "\"");
            }
            PUTS(o, "]");
        } else if (it.alt_pivot) {
            PUTS(o, ",\"htid\":");
            if (it.has_heap_tid) {
                const uint8_t *p = t + it.size - 6;
                PUTS(o, "\""); put_tid(o, (uint32_t)u16(p) << 16 | u16(p + 2), u16(p + 4)); PUTS(o, "\"");
            } else
                PUTS(o, "null");
            PUTS(o, ",\"tids\":null");
        } else if (!it.pivot) {
            PUTS(o, ",\"htid\":\""); put_tid(o, it.block, it.posid); PUTS(o, "\",\"tids\":null");
        } else
            PUTS(o, ",\"htid\":null,\"tids\":null");
        PUTS(o, ",\"lp_flags\":"); putu(o, (uint64_t)it.lp_flags);
        if (it.high_key) PUTS(o, ",\"high_key\":true"); else PUTS(o, ",\"high_key\":false");
        if (it.alt_pivot) { PUTS(o, ",\"natts\":"); putu(o, it.posid & BT_OFFSET_MASK); }
        if (it.alt_pivot || (it.pivot && !it.posting)) {
            PUTS(o, ",\"downlink\":");
            if (!leaf) putu(o, it.block); else PUTS(o, "null");
        }
        PUTS(o, "}");
    }
    PUTS(o, "]}\n");
}

/* Each page of a chunk (n pages of bs bytes, global block numbers from first_blkno, pg_checksum_page's values in
 * computed[]) as one line of JSON, into out[0..cap) (cap at least PAGE_ROOM) while there is PAGE_ROOM left:
 * ends[i] = the end offset of page i's line, or -1 for a page the caller must decode itself (it writes nothing).
 * *seen gets the kinds written. Returns the number of pages done (the caller writes out[0..] and calls again with
 * the rest), or -PAGE_ROOM when out is too small for one page. */
int64_t pgp_dump_json(const uint8_t *pages, int64_t n, int64_t bs, int64_t first_blkno, const uint16_t *computed,
                      int64_t mismatch_rule, int64_t kinds, int64_t major, const int64_t *L,
                      const char *const *names, char *out, int64_t cap, int64_t *ends, int64_t *seen) {
    if (cap < PAGE_ROOM(bs)) return -PAGE_ROOM(bs);
    Out o = {out};
    int64_t i = 0;
    for (; i < n && out + cap - o.p >= PAGE_ROOM(bs); i++) {
        const uint8_t *pg = pages + i * bs;
        Head h = head_of(pg, computed[i], L);
        if ((kinds & KIND_HEAP) && plain_heap_page(pg, bs, &h, mismatch_rule, L)) {
            heap_page_json(pg, first_blkno + i, &h, L, names, &o);
            *seen |= KIND_HEAP;
        } else if ((kinds & KIND_BTREE) && plain_btree_page(pg, bs, &h, mismatch_rule, major, L)) {
            btree_page_json(pg, bs, first_blkno + i, &h, major, L, names, &o);
            *seen |= KIND_BTREE;
        } else {
            ends[i] = -1;
            continue;
        }
        ends[i] = o.p - out;
    }
    return i;
}

/* ------------------------------------------------------------------------------------------------ text */
/* `pgpage page`'s text for heap and B-tree pages, as render/page.py prints it without colour. The caller passes
 * its words (render/page.py: page_text_words): 16 infomask abbreviations, 16 infomask2 ones ("" outside
 * HEAP2_XACT_MASK), 4 lp states, 16 pd_flags names, the 3 combined flags' abbreviations (SHR, FROZEN, MOVED), the
 * heap item table's heading line, 16 btpo_flags names, the B-tree item kinds (high key, posting, pivot, tuple,
 * DEAD) and the B-tree item table's heading line. */
enum { T_INFOMASK = 0, T_INFOMASK2 = 16, T_LP = 32, T_PD = 36, T_COMBINED = 52, T_HEADING = 55, T_BTPO = 56,
       T_BT_HIGH_KEY = 72, T_BT_POSTING, T_BT_PIVOT, T_BT_TUPLE, T_BT_DEAD, T_BT_HEADING, T_NAMES };
#define TEXT_WIDTH 100  /* render/output.py's WIDTH */
#define BT_KIND_WIDTH 18

static inline void putpad(Out *o, int64_t n) {  /* n spaces */
    if (n <= 0) return;
    memset(o->p, ' ', (size_t)n);
    o->p += n;
}
static inline void putu_w(Out *o, uint64_t v, int64_t width) {  /* f"{v:>width}" */
    int n = ndigits(v);
    putpad(o, width - n);
    putu(o, v);
}
static void putword(Out *o, const char *s, int *first) {
    if (!*first) PUTS(o, " ");
    putz(o, s);
    *first = 0;
}
static void put_tid_w(Out *o, uint32_t block, uint16_t posid, int64_t width) {  /* f"{tid:<width}" */
    char *c0 = o->p;
    put_tid(o, block, posid);
    putpad(o, width - (o->p - c0));
}

/* The page's first two lines (block, kind, LSN, checksum, pd_flags; the header's fields); 0 when the first would
 * be longer than Rich prints on one line (the caller leaves the page to it). */
static int text_head(Out *o, const uint8_t *pg, int64_t blkno, const char *kind, const Head *h, const int64_t *L,
                     const char *const *tn) {
    char *start = o->p;
    PUTS(o, "\nblock "); putu(o, (uint64_t)blkno);
    PUTS(o, "  "); putz(o, kind);
    PUTS(o, "  LSN "); putX(o, u32(pg + L[L_PD_LSN])); PUTS(o, "/"); putX(o, u32(pg + L[L_PD_LSN] + 4));
    PUTS(o, "  checksum "); putu(o, h->cks); PUTS(o, " ");
    if (h->cks == h->computed) PUTS(o, "ok");
    else { PUTS(o, "!= "); putu(o, h->computed); }
    if (h->flags) {
        PUTS(o, "  ");
        int first = 1;
        for (int bit = 0; bit < 16; bit++) if (h->flags & (1u << bit)) putword(o, tn[T_PD + bit], &first);
    }
    if (o->p - start - 1 > TEXT_WIDTH) return 0;
    PUTS(o, "\n  lower "); putu(o, h->lower); PUTS(o, "  upper "); putu(o, h->upper);
    PUTS(o, "  special "); putu(o, h->special); PUTS(o, "  pagesize "); putu(o, h->psv & 0xFF00);
    PUTS(o, "  version "); putu(o, h->psv & 0xFF); PUTS(o, "  prune_xid "); putu(o, u32(pg + L[L_PD_PRUNE_XID]));
    PUTS(o, "  free "); putu(o, h->upper > h->lower ? (uint64_t)(h->upper - h->lower) : 0); PUTS(o, " bytes\n");
    return 1;
}

/* combined flags first, then the raw ones a combined flag does not already name */
static void flag_words(Out *o, uint16_t im, uint16_t im2, const char *const *tn) {
    int first = 1;
    uint32_t hidden = 0;
    if ((im & 0x0050) == 0x0050) { putword(o, tn[T_COMBINED], &first); hidden |= 0x0050; }
    if ((im & 0x0300) == 0x0300) { putword(o, tn[T_COMBINED + 1], &first); hidden |= 0x0300; }
    if ((im & 0xC000) == 0xC000) putword(o, tn[T_COMBINED + 2], &first);
    for (int bit = 0; bit < 16; bit++)
        if ((im & ~hidden) & (1u << bit)) putword(o, tn[T_INFOMASK + bit], &first);
    for (int bit = 13; bit < 16; bit++)
        if (im2 & (1u << bit)) putword(o, tn[T_INFOMASK2 + bit], &first);
}

typedef struct { uint32_t key; int64_t len; char text[512]; } FlagCache;  /* key UINT32_MAX: empty */

/* The heap page's text (the caller has checked plain_heap_page); 0: leave the page to Python */
static int heap_page_text(const uint8_t *pg, int64_t blkno, const Head *h, const int64_t *L, const char *const *tn,
                          FlagCache *fc, Out *o) {
    int64_t hsize = h->hsize, th = L[L_HEAP_HEADER_SIZE];
    if (!text_head(o, pg, blkno, "heap", h, L, tn)) return 0;
    putz(o, tn[T_HEADING]);
    for (int64_t i = 0; i < h->nitems; i++) {
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
        putpad(o, 13 - chars);
        PUTS(o, " "); putu_w(o, (uint64_t)len, 5);
        if (len == 0) continue;
        const uint8_t *t = pg + off;
        uint16_t im = u16(t + L[L_T_INFOMASK]), im2 = u16(t + L[L_T_INFOMASK2]);
        int64_t hoff = t[L[L_T_HOFF]], natts = im2 & HEAP_NATTS_MASK;
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_XMIN]), 10);
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_XMAX]), 10);
        PUTS(o, " "); putu_w(o, u32(t + L[L_T_FIELD3]), 5);
        PUTS(o, " ");
        put_tid_w(o, (uint32_t)u16(t + L[L_BI_HI]) << 16 | u16(t + L[L_BI_LO]), u16(t + L[L_IP_POSID]), 11);
        PUTS(o, " "); putu_w(o, (uint64_t)natts, 5); PUTS(o, " "); putu_w(o, (uint64_t)hoff, 4); PUTS(o, " ");
        uint32_t key = (uint32_t)im | (uint32_t)(im2 & 0xE000) << 16;
        if (key != fc->key) {  /* the flags' words, made once for a run of tuples with the same flags */
            char *f0 = o->p;
            flag_words(o, im, im2, tn);
            fc->len = o->p - f0 <= (int64_t)sizeof fc->text ? o->p - f0 : -1;
            fc->key = fc->len >= 0 ? key : UINT32_MAX;
            if (fc->len >= 0) memcpy(fc->text, f0, (size_t)fc->len);
        } else
            put(o, fc->text, (size_t)fc->len);
        if (im & HEAP_HASNULL) {  /* " nulls " and the attributes' bits only */
            PUTS(o, " nulls ");
            for (int64_t b = 0; b < natts; b++) o->p[b] = (t[th + (b >> 3)] >> (b & 7)) & 1 ? '1' : '0';
            o->p += natts;
        }
    }
    PUTS(o, "\n");
    return 1;
}

/* The B-tree page's text (the caller has checked plain_btree_page); 0: leave the page to Python */
static int btree_page_text(const uint8_t *pg, int64_t bs, int64_t blkno, const Head *h, int64_t major,
                           const int64_t *L, const char *const *tn, Out *o) {
    Opaque q = opaque_of(pg, h, L);
    BtStats st = bt_stats(pg, bs, h, L);
    if (!text_head(o, pg, blkno, bt_kind(q.flags), h, L, tn)) return 0;
    PUTS(o, "  prev "); putu(o, q.prev); PUTS(o, "  next "); putu(o, q.next);
    PUTS(o, "  level "); putu(o, q.level); PUTS(o, "  cycleid "); putu(o, q.cycleid);
    if (q.flags) {
        PUTS(o, "  ");
        int first = 1;
        for (int bit = 0; bit < 16; bit++) if (q.flags & (1u << bit)) putword(o, tn[T_BTPO + bit], &first);
    }
    PUTS(o, "\n  live_items "); putu(o, (uint64_t)st.live); PUTS(o, "  dead_items "); putu(o, (uint64_t)st.dead);
    PUTS(o, "  avg_item_size "); putu(o, (uint64_t)st.avg); PUTS(o, "  free_size "); putu(o, (uint64_t)st.free);
    PUTS(o, "\n");
    if (!h->nitems) return 1;
    putz(o, tn[T_BT_HEADING]);
    int leaf = q.flags & BTP_LEAF;
    BtItem it;
    for (int64_t i = 0; i < h->nitems; i++) {
        bt_item(pg, h, &q, i, major, L, &it);
        const uint8_t *t = pg + it.off;
        PUTS(o, "\n");
        char *line = o->p;
        int64_t wide = 0;  /* bytes beyond one per column: the arrow's */
        putu_w(o, (uint64_t)i + 1, 4); PUTS(o, " ");
        char *k0 = o->p;
        int first = 1;
        if (!it.pivot && it.lp_flags == LP_DEAD) putword(o, tn[T_BT_DEAD], &first);
        if (it.high_key) putword(o, tn[T_BT_HIGH_KEY], &first);
        else if (it.posting) putword(o, tn[T_BT_POSTING], &first);
        else if (it.alt_pivot || it.pivot) {
            putword(o, tn[T_BT_PIVOT], &first);
            if (!leaf) { PUTS(o, "\xe2\x86\x92"); putu(o, it.block); wide = 2; }
        } else putword(o, tn[T_BT_TUPLE], &first);
        if (it.alt_pivot) { PUTS(o, " natts "); putu(o, it.posid & BT_OFFSET_MASK); }
        putpad(o, BT_KIND_WIDTH - (o->p - k0 - wide));
        PUTS(o, " "); put_tid_w(o, it.block, it.posid, 11);
        PUTS(o, " "); putu_w(o, (uint64_t)it.size, 5); PUTS(o, " ");
        if (it.posting && it.n_posting)
            put_tid_w(o, (uint32_t)u16(t + it.posting_at) << 16 | u16(t + it.posting_at + 2), u16(t + it.posting_at + 4), 11);
        else if (it.alt_pivot && it.has_heap_tid) {
            const uint8_t *p = t + it.size - 6;
            put_tid_w(o, (uint32_t)u16(p) << 16 | u16(p + 2), u16(p + 4), 11);
        } else if (!it.posting && !it.alt_pivot && !it.pivot)
            put_tid_w(o, it.block, it.posid, 11);
        else
            putpad(o, 11);
        PUTS(o, " ");
        if (it.posting) putu_w(o, (uint64_t)it.n_posting, 4); else putpad(o, 4);
        PUTS(o, " ");
        /* the key's bytes, cut to the line's width with an ellipsis (one column, three bytes) */
        int64_t room = TEXT_WIDTH - (o->p - line - wide), n = it.data_end - it.data_start, chars = n > 0 ? 3 * n - 1 : 0;
        if (chars <= room) puthex_spaced(o, t + it.data_start, n);
        else {
            int64_t keep = room > 1 ? room - 1 : 0, whole = (keep + 1) / 3;  /* whole bytes ("ab "), then what is left of one */
            puthex_spaced(o, t + it.data_start, whole);
            if (whole && keep >= 3 * whole) PUTS(o, " ");
            if (keep - 3 * whole >= 1) {
                static const char hex[] = "0123456789abcdef";
                char c = hex[t[it.data_start + whole] >> 4];
                put(o, &c, 1);
            }
            PUTS(o, "\xe2\x80\xa6");
        }
        while (o->p > line && o->p[-1] == ' ') o->p--;  /* as rstrip() */
    }
    PUTS(o, "\n");
    return 1;
}

/* As pgp_dump_json, the text of each page (tn: see the words above). */
int64_t pgp_dump_text(const uint8_t *pages, int64_t n, int64_t bs, int64_t first_blkno, const uint16_t *computed,
                      int64_t mismatch_rule, int64_t kinds, int64_t major, const int64_t *L,
                      const char *const *tn, char *out, int64_t cap, int64_t *ends, int64_t *seen) {
    if (cap < PAGE_ROOM(bs)) return -PAGE_ROOM(bs);
    Out o = {out};
    FlagCache fc = {UINT32_MAX, 0, {0}};
    int64_t i = 0;
    for (; i < n && out + cap - o.p >= PAGE_ROOM(bs); i++) {
        const uint8_t *pg = pages + i * bs;
        char *mark = o.p;
        Head h = head_of(pg, computed[i], L);
        int done = 0, kind = 0;
        if ((kinds & KIND_HEAP) && plain_heap_page(pg, bs, &h, mismatch_rule, L))
            done = heap_page_text(pg, first_blkno + i, &h, L, tn, &fc, &o), kind = KIND_HEAP;
        else if ((kinds & KIND_BTREE) && plain_btree_page(pg, bs, &h, mismatch_rule, major, L))
            done = btree_page_text(pg, bs, first_blkno + i, &h, major, L, tn, &o), kind = KIND_BTREE;
        if (!done) {
            o.p = mark;
            ends[i] = -1;
        } else {
            ends[i] = o.p - out;
            *seen |= kind;
        }
    }
    return i;
}
