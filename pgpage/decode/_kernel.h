/*
 * _kernel.h: what the compiled passes of pgpage share (decode/kernels.py loads them as one shared library, built
 * from _heapscan.c, _btree.c, _verify.c, _values.c, _values_composite.c, _rows.c, _pagedump.c and _btorder.c).
 *
 * Every flag, mask and size of the on-disk structures is PostgreSQL's name from ksy/pgp_layout.h (generated from
 * the formats/ .ksy files); every byte offset and bit field comes in at run time through `layout` (decode/ksy/
 * layouts.py). Here: the index tables the Python side reads by name (pgp_names), and the page and tuple accessors
 * and xid rules the passes share. Internal: nothing here is exported from the library.
 */
#ifndef PGP_KERNEL_H
#define PGP_KERNEL_H
#define _XOPEN_SOURCE 700   /* pread */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksy/pgp_layout.h"

/* a function one file of the library defines for another: not exported, called directly */
#define PGP_INTERNAL __attribute__((visibility("hidden")))

/* sizes the passes bound their reads by */
#define MIN_HEAP_TUPLE_SIZE ((SizeofHeapTupleHeader + 7) & ~7) /* MAXALIGN(SizeofHeapTupleHeader) */
#define XACTS_PER_BYTE 4
#define MAX_BLCKSZ 32768
#define MAX_LP ((MAX_BLCKSZ - SizeOfPageHeaderData) / SIZEOF_ItemIdData)
#define MAX_TUPLE_ATTS 1664          /* MaxTupleAttributeNumber: the most attributes a tuple can have */

/* xid states, as heapstats.ST_* */
enum { ST_UNKNOWN, ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_FROZEN, ST_INVALID, ST_LOCK_ONLY };

/* ---------------------------------------------------------------------------------------- shared tables */
#define COUNTERS(X) \
    X(pages) X(new_pages) X(all_visible_pages) X(tuple_count) X(tuple_len) X(dead_tuple_count) X(dead_tuple_len) \
    X(undecided_count) X(undecided_len) X(in_progress_count) X(free_space) X(lp_unused) X(lp_normal) \
    X(lp_redirect) X(lp_dead) X(lp_dead_len) X(hot_updated) X(heap_only) X(xmin_committed_hint) \
    X(xmin_invalid_hint) X(xmin_frozen) X(xmin_unhinted) X(xmax_committed_hint) X(xmax_invalid_hint) \
    X(xmax_unhinted) X(pages_needing_hints) \
    X(hint_tuples) X(hot_roots) X(unreachable_heap_only) X(non_hot_updates) X(pages_with_hot) \
    X(vm_all_visible) X(vm_all_frozen) X(not_all_visible_tuples) X(not_frozen_tuples) X(could_be_all_visible) \
    X(could_be_all_frozen) X(unfrozen_tuples) X(future_xids) X(too_old_xids) X(unknown_xids) \
    X(fsm_understated) X(fsm_overstated) X(tuple_bytes_aligned) X(live_tuples_for_rewrite) \
    X(trailing_empty) X(missing_multis)
#define PAGE_COLUMNS(X) X(free) X(used) X(dead) X(hint_page) X(new) X(empty_after_vacuum)
/* events: per code a chunk keeps `ev_cap` (block, item, a, b, c) and counts all */
#define EVENT_CODES(X) \
    X(heap.hot.bad_link)                /* block, item, target offset, the page's line pointers, is_redirect */ \
    X(heap.hot.link_to_unused)          /* block, item, target item */ \
    X(heap.hot.redirect_not_heap_only) \
    X(heap.hot.redirect_to_redirect) \
    X(heap.hot.xmin_mismatch)           /* block, item, target item, expected (update xid), actual (its xmin) */ \
    X(heap.xid.in_future/t_xmin)        /* block, item, xid */ \
    X(heap.xid.before_oldest/t_xmin) \
    X(heap.xid.in_future/t_xmax) \
    X(heap.xid.before_oldest/t_xmax) \
    X(vm.frozen_not_visible)            /* block */ \
    X(vm.bit_without_pd_all_visible) \
    X(vm.all_frozen_wrong) \
    X(vm.all_visible_wrong) \
    X(page.all_visible_wrong)
#define EVENT_WIDTH 5
#define PARAMS(X) X(has_resolver) X(next_xid) X(oldest_xid) X(exact_free) X(has_vm) X(has_fsm) \
    X(in_progress_is_aborted) X(xacts_per_segment)
/* best-of values: the longest chain (length, block, root item), the oldest unfrozen xmin (age, xid, block, item) */
#define BEST(X) X(chain_len) X(chain_block) X(chain_item) X(age) X(age_xid) X(age_block) X(age_item)
/* offsets and bit fields, filled from layouts.py */
#define LAYOUT(X) X(pd_checksum) X(pd_flags) X(pd_lower) X(pd_upper) X(t_xmin) X(t_xmax) X(bi_hi) X(bi_lo) \
    X(ip_posid) X(t_infomask2) X(t_infomask) X(lp_off_shift) X(lp_off_mask) X(lp_flags_shift) X(lp_flags_mask) \
    X(lp_len_shift) X(lp_len_mask) X(pd_special) X(pd_pagesize_version) \
    X(t_tid_bi_hi) X(t_tid_bi_lo) X(t_tid_ip_posid) X(t_info) X(ptr_bi_hi) X(ptr_bi_lo) X(ptr_ip_posid)
/* the B-tree pass (pgp_btree_items): per-page columns, totals over the chunk, events (code, page, item, a..e) */
#define BT_PAGE_COLUMNS(X) X(items) X(dead_items) X(high_keys) X(high_key_bytes) X(pivots) X(pivot_bytes) \
    X(posting_tuples) X(tids) X(posting_tids)
#define BT_TOTALS(X) X(posting_tuples) X(posting_tid_count) X(plain_tuples) X(posting_bytes) \
    X(posting_plain_bytes) X(leaf_key_tuples) X(leaf_key_bytes) X(dead_posting_tuples) X(dead_tids) \
    X(minus_infinity) X(pivots_with_heap_tid) X(downlinks) X(heap_tids) X(events)
#define BT_EVENT_CODES(X) \
    X(btree.item.bad_lp_flags)          /* page, item, lp_flags */ \
    X(btree.item.out_of_bounds)         /* page, item, lp_off, lp_len, pd_special */ \
    X(btree.item.size_mismatch)         /* page, item, lp_len, IndexTupleSize */ \
    X(btree.item.unexpected_pivot)      /* page, item, ip_posid */ \
    X(btree.posting.overrun)            /* page, item, TIDs, posting offset, tuple size */ \
    X(btree.posting.too_few)            /* page, item, TIDs */ \
    X(btree.posting.unsorted)           /* page, item, position, previous block, offset, this block, offset */ \
    X(btree.tid.invalid)                /* page, item, block, offset */
#define BT_EVENT_WIDTH 8
/* the CSV printer (pgp_csv_rows): how a column is printed (its type, domains resolved), and its parameters */
#define CSV_KINDS(X) X(bool) X(int2) X(int4) X(int8) X(uint32) X(uint64) X(char) X(text) X(name) X(bytea) X(uuid) \
    X(date) X(time) X(timestamp) X(timestamptz) X(numeric) X(float4) X(float8) X(interval) X(enum) X(jsonb) \
    X(inet) X(cidr) X(macaddr) X(macaddr8) X(array) X(range) X(multirange) X(timetz) X(money) X(pg_lsn) X(bit) \
    X(tsvector) X(point) X(lseg) X(line) X(box) X(circle) X(path) X(polygon) X(xml) X(tid) X(given)
#define CSV_PARAMS(X) X(major) X(single_column) X(system) X(index_tuples) X(json) X(json_nxid) X(json_updated) \
    X(copy_text)
/* pgp_csv_rows' typed[c]: the column printed in the line; written as Arrow holds it; its text, bare, beside those */
#define TYPED_MODES(X) X(none) X(arrow) X(text)

#define C_(n) C_##n,
#define P_(n) P_##n,
#define B_(n) B_##n,
#define L_(n) L_##n,
enum { COUNTERS(C_) C__COUNT };
#define PC_(n) PC_##n,
enum { PAGE_COLUMNS(PC_) PC__COUNT };
enum { PARAMS(P_) P__COUNT };
enum { BEST(B_) B__COUNT };
enum { LAYOUT(L_) L__COUNT };
#define BPC_(n) BPC_##n,
#define BT_(n) BT_##n,
enum { BT_PAGE_COLUMNS(BPC_) BPC__COUNT };
enum { BT_TOTALS(BT_) BT__COUNT };
#define K_(n) K_##n,
#define CP_(n) CP_##n,
#define TY_(n) TY_##n,
enum { CSV_KINDS(K_) K__COUNT };
enum { CSV_PARAMS(CP_) CP__COUNT };
enum { TYPED_MODES(TY_) TY__COUNT };
enum { BE_BAD_LP_FLAGS, BE_OUT_OF_BOUNDS, BE_SIZE_MISMATCH, BE_UNEXPECTED_PIVOT, BE_POSTING_OVERRUN,
       BE_POSTING_TOO_FEW, BE_POSTING_UNSORTED, BE_TID_INVALID, BE__COUNT };
enum { E_BAD_LINK, E_LINK_TO_UNUSED, E_REDIRECT_NOT_HEAP_ONLY, E_REDIRECT_TO_REDIRECT, E_XMIN_MISMATCH,
       E_FUTURE_XMIN, E_OLD_XMIN, E_FUTURE_XMAX, E_OLD_XMAX, E_VM_FROZEN_NOT_VISIBLE, E_VM_BIT_WITHOUT_PD,
       E_VM_ALL_FROZEN_WRONG, E_VM_ALL_VISIBLE_WRONG, E_PAGE_ALL_VISIBLE_WRONG, E__COUNT };

/* ---------------------------------------------------------------------------------------- scalar rules */
static inline int64_t u16(const uint8_t *p) { return (int64_t)p[0] | ((int64_t)p[1] << 8); }
static inline int64_t u32(const uint8_t *p)
{
    return (int64_t)p[0] | ((int64_t)p[1] << 8) | ((int64_t)p[2] << 16) | ((int64_t)p[3] << 24);
}

typedef struct {
    const uint8_t *data;       /* pg_xact's segments, one after the other */
    const int64_t *seg_start;  /* per segment number: where it starts in data, -1 absent */
    const int64_t *seg_len;
    int64_t nseg;
    int64_t xacts_per_segment;
    int in_progress_is_aborted;
} Clog;

/* ST_* of one xid from pg_xact's bytes (TransactionIdGetStatus), or from its special values. */
static inline int clog_state(const Clog *c, int64_t xid)
{
    if (xid == 0) return ST_INVALID;
    if (xid == 1 || xid == 2) return ST_FROZEN;
    if (xid < 0) return ST_UNKNOWN;
    int64_t segno = xid / c->xacts_per_segment;
    if (segno >= c->nseg || c->seg_start[segno] < 0) return ST_UNKNOWN;
    int64_t within = xid - segno * c->xacts_per_segment;
    int64_t byte = within / XACTS_PER_BYTE;
    if (byte >= c->seg_len[segno]) return ST_UNKNOWN;
    int code = (c->data[c->seg_start[segno] + byte] >> ((within % XACTS_PER_BYTE) * 2)) & 3;
    switch (code) {
    case 0: return c->in_progress_is_aborted ? ST_ABORTED : ST_IN_PROGRESS; /* TRANSACTION_STATUS_IN_PROGRESS */
    case 1: return ST_COMMITTED;
    case 2: return ST_ABORTED;
    default: return ST_UNKNOWN; /* sub-committed: its parent decides, which pg_xact alone does not say */
    }
}

/* HEAP_XMAX_IS_LOCKED_ONLY */
static inline int xmax_is_locked_only(int64_t im)
{
    return (im & HEAP_XMAX_LOCK_ONLY) != 0
        || (im & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK)) == HEAP_XMAX_EXCL_LOCK;
}

/* HeapTupleHeaderXminFrozen/Committed/Invalid, else pg_xact. */
static inline int xmin_state(int64_t im, int64_t xmin, const Clog *c)
{
    switch (im & HEAP_XMIN_FROZEN) {
    case HEAP_XMIN_FROZEN: return ST_FROZEN;
    case HEAP_XMIN_COMMITTED: return ST_COMMITTED;
    case HEAP_XMIN_INVALID: return ST_ABORTED;
    default: return clog_state(c, xmin);
    }
}

/* Whether the deleter's fate rests on a multixact's update xid. */
static inline int xmax_needs_multi(int64_t im, int64_t xmax)
{
    if ((im & HEAP_XMAX_INVALID) || xmax == 0 || xmax_is_locked_only(im) || (im & HEAP_XMAX_COMMITTED)) return 0;
    return (im & HEAP_XMAX_IS_MULTI) != 0;
}

/* The deleter: INVALID, LOCK_ONLY, COMMITTED (hinted or pg_xact), ABORTED, IN_PROGRESS, UNKNOWN.
   update_xid: for a multixact xmax, its updating member's xid (0: it only locked, -1: its members cannot be
   read, or no resolver); ignored otherwise. */
static inline int xmax_state(int64_t im, int64_t xmax, int64_t update_xid, int has_resolver, const Clog *c)
{
    if ((im & HEAP_XMAX_INVALID) || xmax == 0) return ST_INVALID;
    if (xmax_is_locked_only(im)) return ST_LOCK_ONLY;
    if (im & HEAP_XMAX_COMMITTED) return ST_COMMITTED;
    if (im & HEAP_XMAX_IS_MULTI) {
        if (!has_resolver || update_xid < 0) return ST_UNKNOWN;
        if (update_xid == 0) return ST_LOCK_ONLY; /* no updater among the members: only locks */
        return clog_state(c, update_xid);
    }
    return clog_state(c, xmax);
}

/* Whether the next read need not set an xmax hint: hinted, or a lock-only xmax (never hinted). */
static inline int xmax_hinted(int64_t im, int64_t xmax)
{
    if (im & (HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED)) return 1;
    return xmax != 0 && xmax_is_locked_only(im);
}

/* ---------------------------------------------------------------------------------------------------------------
 * Catalog rows (decode/catalog.py): where each attribute of each tuple lies, found as heap_deform_tuple
 * (access/common/heaptuple.c) and decode/deform.py find it: a null bitmap bit clear is NULL; a varlena whose
 * first byte is non-zero is not aligned (a 1-byte header); fixed widths add attlen, varlenas their VARSIZE_ANY,
 * cstrings strlen + 1. A tuple in which deform.py would find anything to report (t_hoff outside the tuple, a
 * short null bitmap, a datum running past the end, a length no server writes, attributes not ending where the
 * tuple does), or that needs more than offsets (attributes past its natts, a TOAST pointer), gets ok = 0 and is
 * left to deform.py. For the others: pos (tuple-relative; -1 for NULL) and len of every attribute.
 */
/* One tuple's walk (the rules above): pos/len of each of its ncols attributes into P/L; 1 when the tuple is plain
   (deform.py would find nothing to report and nothing beyond offsets is needed), 0 to leave it to deform.py. The
   null bitmap is at bits_at (a heap tuple's t_bits; an index tuple's follows its 8-byte IndexTupleData, and its
   data may end up to slack = 7 bytes before n: IndexTupleSize is MAXALIGNed). */

#define HEAP_BITS_AT SizeofHeapTupleHeader
#define INDEX_BITS_AT SIZEOF_IndexTupleData

static inline int deform_one(const uint8_t *d, int64_t n, int64_t h, int64_t tnatts, int hasnull,
                             const int64_t *attlen, const int64_t *attalign, int64_t ncols, int64_t *P, int64_t *L,
                             int64_t bits_at, int64_t slack, int toast_ok)
{
    int64_t off = h;
    if (!(h >= bits_at && h <= n && tnatts == ncols)) return 0;
    for (int64_t i = 0; i < ncols; i++) {
        int64_t a = attalign[i], pos, len;
        if (hasnull) {
            if (bits_at + (i >> 3) >= h) return 0;
            if (!(d[bits_at + (i >> 3)] & (1 << (i & 7)))) {
                P[i] = -1;
                L[i] = 0;
                continue;
            }
        }
        if (attlen[i] == -1 && off < n && d[off] != 0)
            pos = off;
        else
            pos = h + (((off - h) + a - 1) & ~(a - 1));
        if (pos >= n) return 0;
        if (attlen[i] > 0)
            len = attlen[i];
        else if (attlen[i] == -1) {
            uint8_t b0 = d[pos];
            if (b0 == 0x01) {   /* VARATT_IS_1B_E: a TOAST pointer (toast_ok: VARTAG_ONDISK's 18 bytes, else refused) */
                if (!toast_ok || n - pos < 2 || d[pos + 1] != 18) return 0;
                len = 18;
            } else if (b0 & 0x01)
                len = b0 >> 1;
            else {
                if (n - pos < 4) return 0;
                len = (int64_t)((d[pos] | (uint32_t)d[pos + 1] << 8 | (uint32_t)d[pos + 2] << 16 |
                                 (uint32_t)d[pos + 3] << 24) >> 2);
                if (len < ((b0 & 0x03) == 0x02 ? 8 : 4)) return 0;
                /* inline-compressed: va_tcinfo's method (top 2 bits) must be pglz or lz4 */
                if ((b0 & 0x03) == 0x02 && pos + 8 <= n && (d[pos + 7] >> 6) > 1) return 0;
            }
        } else if (attlen[i] == -2) {
            const uint8_t *nul = memchr(d + pos, 0, (size_t)(n - pos));
            if (nul == NULL) return 0;
            len = nul - (d + pos) + 1;
        } else
            return 0;
        if (pos + len > n) return 0;
        P[i] = pos;
        L[i] = len;
        off = pos + len;
    }
    return off <= n && n - off <= slack;
}

void pgp_checksum_pages(const uint32_t *words, int64_t n, int64_t bs, const int64_t *blknos, int64_t checksum_word,
                        uint32_t checksum_keep, uint16_t *out);
void pgp_prefetch_page(const uint8_t *page, int64_t bs);
PGP_INTERNAL extern const char order_kind_names[];   /* _btorder.c's ORDER_KINDS */

#endif /* PGP_KERNEL_H */
