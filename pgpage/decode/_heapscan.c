/*
 * _heapscan.c: the compiled whole-relation passes of pgpage (see kernels.py for why, and for the Python side).
 *
 * One walk over a chunk of heap pages: page header -> line pointers -> tuple headers, computing at once what
 * pgstattuple's figures and `pgpage heap` need (line pointer counts, tuple verdicts from the hint bits and the
 * pg_xact bytes, hint-bit predictions, HOT chains walked per page and bounded by MaxHeapTuplesPerPage,
 * visibility and freezing, free space and bloat), plus pg_checksum_page over many pages. And the B-tree pass of
 * analysis/btree/: every item of a chunk of index pages (pgstatindex's and deduplication's figures, pivots,
 * downlinks, heap TIDs), and the table side of its heap TID check (line pointer verdicts, TID lookups).
 *
 * Plain C, no Python.h: kernels.py loads it with ctypes. Every byte offset and bit field of the on-disk
 * structures comes in through `layout` (built from decode/ksy/layouts.py, generated from the formats/ .ksy files); what
 * is written here are PostgreSQL's flag values (access/htup_details.h, storage/bufpage.h, as spelled there)
 * and the rules. The index tables the Python side shares (counters, per-page columns, event codes,
 * parameters) are exported by name (pgp_names), so they are written once, here.
 *
 * Bad input is normal input: every read is bounded by the page (line pointers by pd_lower clamped to the page,
 * tuple headers by pageinspect's rule: lp_len >= 24, lp_off MAXALIGNed, lp_off + lp_len <= BLCKSZ), chain
 * walks by MaxHeapTuplesPerPage steps, and nothing allocates.
 */
#define _XOPEN_SOURCE 700   /* pread */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PGP_SOURCE_SHA
#define PGP_SOURCE_SHA "unknown"
#endif

/* storage/itemid.h, storage/bufpage.h */
#define LP_UNUSED 0
#define LP_NORMAL 1
#define LP_REDIRECT 2
#define LP_DEAD 3
#define PD_HAS_FREE_LINES 0x0001
#define PD_ALL_VISIBLE 0x0004
/* access/htup_details.h */
#define HEAP_HASOID_OLD 0x0008
#define HEAP_XMAX_KEYSHR_LOCK 0x0010
#define HEAP_XMAX_EXCL_LOCK 0x0040
#define HEAP_XMAX_LOCK_ONLY 0x0080
#define HEAP_XMIN_COMMITTED 0x0100
#define HEAP_XMIN_INVALID 0x0200
#define HEAP_XMIN_FROZEN 0x0300
#define HEAP_XMAX_COMMITTED 0x0400
#define HEAP_XMAX_INVALID 0x0800
#define HEAP_XMAX_IS_MULTI 0x1000
#define HEAP_MOVED 0xC000
#define HEAP_HOT_UPDATED 0x4000
#define HEAP_ONLY_TUPLE 0x8000
#define FIRST_NORMAL_XID 3
#define SIZE_OF_PAGE_HEADER 24
#define SIZE_OF_ITEM_ID 4
#define MIN_HEAP_TUPLE_SIZE 24 /* MAXALIGN(SizeofHeapTupleHeader = 23) */
#define XACTS_PER_BYTE 4
#define MAX_BLCKSZ 32768
#define MAX_LP ((MAX_BLCKSZ - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID)
#define CHAIN_HISTOGRAM 16

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
#define CSV_PARAMS(X) X(major) X(single_column) X(system) X(index_tuples) X(json) X(json_nxid) X(json_updated)

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
enum { CSV_KINDS(K_) K__COUNT };
enum { CSV_PARAMS(CP_) CP__COUNT };
enum { BE_BAD_LP_FLAGS, BE_OUT_OF_BOUNDS, BE_SIZE_MISMATCH, BE_UNEXPECTED_PIVOT, BE_POSTING_OVERRUN,
       BE_POSTING_TOO_FEW, BE_POSTING_UNSORTED, BE_TID_INVALID, BE__COUNT };
enum { E_BAD_LINK, E_LINK_TO_UNUSED, E_REDIRECT_NOT_HEAP_ONLY, E_REDIRECT_TO_REDIRECT, E_XMIN_MISMATCH,
       E_FUTURE_XMIN, E_OLD_XMIN, E_FUTURE_XMAX, E_OLD_XMAX, E_VM_FROZEN_NOT_VISIBLE, E_VM_BIT_WITHOUT_PD,
       E_VM_ALL_FROZEN_WRONG, E_VM_ALL_VISIBLE_WRONG, E_PAGE_ALL_VISIBLE_WRONG, E__COUNT };

#define NAME_STR(n) #n ","
static const char counter_names[] = COUNTERS(NAME_STR);
static const char page_column_names[] = PAGE_COLUMNS(NAME_STR);
static const char event_names[] = EVENT_CODES(NAME_STR);
static const char param_names[] = PARAMS(NAME_STR);
static const char best_names[] = BEST(NAME_STR);
static const char layout_names[] = LAYOUT(NAME_STR);
static const char bt_page_column_names[] = BT_PAGE_COLUMNS(NAME_STR);
static const char bt_total_names[] = BT_TOTALS(NAME_STR);
static const char bt_event_names[] = BT_EVENT_CODES(NAME_STR);
static const char csv_kind_names[] = CSV_KINDS(NAME_STR);
static const char csv_param_names[] = CSV_PARAMS(NAME_STR);

/* Comma-separated names of table `which` (0 counters, 1 page columns, 2 event codes, 3 parameters, 4 best-of,
   5 layout; 7, 8, 9: the B-tree pass's page columns, totals and event codes; 10, 11: the CSV printer's kinds and
   parameters) in index order; 6: the SHA-256 (16 hex digits) of the source this was built from; "" for others. */
const char *pgp_names(int which)
{
    switch (which) {
    case 0: return counter_names;
    case 1: return page_column_names;
    case 2: return event_names;
    case 3: return param_names;
    case 4: return best_names;
    case 5: return layout_names;
    case 6: return PGP_SOURCE_SHA;
    case 7: return bt_page_column_names;
    case 8: return bt_total_names;
    case 9: return bt_event_names;
    case 10: return csv_kind_names;
    case 11: return csv_param_names;
    default: return "";
    }
}

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

typedef struct {
    const int64_t *keys, *values;
    int64_t n;
    int64_t *missing;
    int64_t missing_cap;
    int64_t n_missing;
} Multis;

/* The update xid of a multixact resolved so far; -1 (and listed as missing) otherwise. */
static int64_t multi_lookup(Multis *m, int64_t multi)
{
    int64_t lo = 0, hi = m->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (m->keys[mid] < multi) lo = mid + 1; else hi = mid;
    }
    if (lo < m->n && m->keys[lo] == multi) return m->values[lo];
    if (m->n_missing < m->missing_cap) m->missing[m->n_missing] = multi;
    m->n_missing++;
    return -1;
}

/* ---------------------------------------------------------------------------------------- arrays of verdicts */
void pgp_clog_states(const int64_t *xids, int64_t n, int8_t *out, const uint8_t *data, const int64_t *seg_start,
                     const int64_t *seg_len, int64_t nseg, int64_t xps, int ipa)
{
    Clog c = {data, seg_start, seg_len, nseg, xps, ipa};
    for (int64_t i = 0; i < n; i++) out[i] = (int8_t)clog_state(&c, xids[i]);
}

void pgp_xmin_states(const int64_t *infomask, const int64_t *xmin, int64_t n, int8_t *state, uint8_t *hinted,
                     const uint8_t *data, const int64_t *seg_start, const int64_t *seg_len, int64_t nseg,
                     int64_t xps, int ipa)
{
    Clog c = {data, seg_start, seg_len, nseg, xps, ipa};
    for (int64_t i = 0; i < n; i++) {
        state[i] = (int8_t)xmin_state(infomask[i], xmin[i], &c);
        hinted[i] = (infomask[i] & HEAP_XMIN_FROZEN) != 0;
    }
}

void pgp_xmax_needs_multi(const int64_t *infomask, const int64_t *xmax, int64_t n, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)xmax_needs_multi(infomask[i], xmax[i]);
}

void pgp_xmax_locked_only(const int64_t *infomask, int64_t n, uint8_t *out)
{
    for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)xmax_is_locked_only(infomask[i]);
}

void pgp_xmax_states(const int64_t *infomask, const int64_t *xmax, const int64_t *update_xid, int64_t n,
                     int has_resolver, int8_t *state, uint8_t *hinted, const uint8_t *data,
                     const int64_t *seg_start, const int64_t *seg_len, int64_t nseg, int64_t xps, int ipa)
{
    Clog c = {data, seg_start, seg_len, nseg, xps, ipa};
    for (int64_t i = 0; i < n; i++) {
        state[i] = (int8_t)xmax_state(infomask[i], xmax[i], update_xid[i], has_resolver, &c);
        hinted[i] = (uint8_t)xmax_hinted(infomask[i], xmax[i]);
    }
}

/* ---------------------------------------------------------------------------------------- the heap pass */
static inline void event(int64_t *ev, int64_t ev_cap, int64_t *ev_count, int code, int64_t a, int64_t b,
                         int64_t c, int64_t d, int64_t e)
{
    int64_t k = ev_count[code];
    if (k < ev_cap) {
        int64_t *row = ev + (code * ev_cap + k) * EVENT_WIDTH;
        row[0] = a; row[1] = b; row[2] = c; row[3] = d; row[4] = e;
    }
    ev_count[code] = k + 1;
}

/* Per-item scratch of one page (on the stack of the call: about 2 MiB at BLCKSZ 32 KiB, 0.5 MiB at 8 KiB). */
typedef struct {
    int8_t flags[MAX_LP], has_tup[MAX_LP], reached[MAX_LP], alive[MAX_LP];
    int64_t offs[MAX_LP], im2s[MAX_LP], ims[MAX_LP], xmins[MAX_LP], xmaxs[MAX_LP], ctid_blk[MAX_LP],
        ctid_off[MAX_LP], succ[MAX_LP], roots[MAX_LP], cur[MAX_LP], nxt[MAX_LP], length[MAX_LP];
} Scratch;

/*
 * One chunk of heap pages (npages x bs bytes), all figures at once. Outputs are added to (the caller zeroes
 * them): counters[C_*], page_out[page * PC__COUNT + PC_*], chain_hist[0..16], best[B_*] (chain_len starts at
 * 0, the others at -1), ev[(code * ev_cap + k) * 5 + field] with ev_count[code], and the multixacts it was
 * missing in missing[] (their number in counters[C_missing_multis]). `scratch` is a caller's buffer of
 * pgp_scratch_size() bytes. Returns 0, or -1 for a block size it cannot take.
 */
int64_t pgp_scratch_size(void) { return (int64_t)sizeof(Scratch); }

int pgp_heap_chunk(const uint8_t *pages, int64_t npages, int64_t bs, int64_t first_blkno, const int64_t *layout,
                   const uint8_t *clog_data, const int64_t *seg_start, const int64_t *seg_len, int64_t nseg,
                   const int64_t *multi_keys, const int64_t *multi_values, int64_t nmulti,
                   const uint8_t *vm_visible, const uint8_t *vm_frozen, const uint8_t *fsm_category,
                   const int64_t *params, int64_t *counters, int64_t *page_out, int64_t *chain_hist, int64_t *best,
                   int64_t *ev, int64_t ev_cap, int64_t *ev_count, int64_t *missing, int64_t missing_cap,
                   void *scratch)
{
    if (bs < 1024 || bs > MAX_BLCKSZ) return -1;
    Scratch *s = (Scratch *)scratch;
    const int has_resolver = params[P_has_resolver] != 0;
    const int64_t next_xid = params[P_next_xid], oldest_xid = params[P_oldest_xid];
    const int exact = params[P_exact_free] != 0, has_vm = params[P_has_vm] != 0, has_fsm = params[P_has_fsm] != 0;
    const Clog clog = {clog_data, seg_start, seg_len, nseg, params[P_xacts_per_segment],
                       params[P_in_progress_is_aborted] != 0};
    Multis multis = {multi_keys, multi_values, nmulti, missing, missing_cap, 0};
    const int64_t max_lp = (bs - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    const int64_t max_htpp = (bs - SIZE_OF_PAGE_HEADER) / (MIN_HEAP_TUPLE_SIZE + SIZE_OF_ITEM_ID);
    const int64_t fsm_step = bs / 256;
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_xmin = layout[L_t_xmin], o_xmax = layout[L_t_xmax], o_hi = layout[L_bi_hi],
                  o_lo = layout[L_bi_lo], o_posid = layout[L_ip_posid], o_im2 = layout[L_t_infomask2],
                  o_im = layout[L_t_infomask];
    int64_t c[C__COUNT];
    memset(c, 0, sizeof c);
    int64_t trailing = 0;

    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        const int64_t blk = first_blkno + p;
        int64_t *out = page_out + p * PC__COUNT;
        const int64_t pd_flags = u16(page + layout[L_pd_flags]);
        const int64_t lower = u16(page + layout[L_pd_lower]);
        const int64_t upper = u16(page + layout[L_pd_upper]);
        const int is_new = upper == 0;
        const int pd_all_visible = (pd_flags & PD_ALL_VISIBLE) != 0;
        c[C_pages]++;
        if (is_new) { c[C_new_pages]++; out[PC_new] = 1; }
        if (pd_all_visible) c[C_all_visible_pages]++;
        int64_t nlp = 0;
        if (!is_new) {
            nlp = ((lower < bs ? lower : bs) - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
            if (nlp < 0) nlp = 0;
            if (nlp > max_lp) nlp = max_lp;
        }
        int has_unused = 0, not_all_visible = 0, needs_freeze_any = 0, wants_hint_any = 0, links = 0;
        int64_t live_bytes = 0, used = 0, dead_bytes = 0, not_visible_tuples = 0, needs_freeze_tuples = 0;
        int64_t heap_only_on_page = 0;

        /* ------------------------------------------------ line pointers and tuple headers */
        for (int64_t i = 0; i < nlp; i++) {
            const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * i);
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            s->flags[i] = (int8_t)fl;
            s->offs[i] = off;
            s->has_tup[i] = 0;
            switch (fl) {
            case LP_UNUSED: c[C_lp_unused]++; has_unused = 1; break;
            case LP_NORMAL: c[C_lp_normal]++; break;
            case LP_REDIRECT: c[C_lp_redirect]++; links = 1; break;
            default: c[C_lp_dead]++; not_all_visible = 1; break;
            }
            /* pageinspect's rule for "this item's tuple header can be read" */
            if (!(ln >= MIN_HEAP_TUPLE_SIZE && off % 8 == 0 && off + ln <= bs)) continue;
            if (fl == LP_DEAD) c[C_lp_dead_len] += ln;
            if (fl != LP_NORMAL) continue;
            const uint8_t *t = page + off;
            const int64_t xmin = u32(t + o_xmin), xmax = u32(t + o_xmax), im = u16(t + o_im), im2 = u16(t + o_im2);
            s->has_tup[i] = 1;
            s->xmins[i] = xmin;
            s->xmaxs[i] = xmax;
            s->ims[i] = im;
            s->im2s[i] = im2;
            s->ctid_blk[i] = (u16(t + o_hi) << 16) | u16(t + o_lo);
            s->ctid_off[i] = u16(t + o_posid);

            /* verdicts (HeapTupleSatisfiesDirty, as pgstattuple): hint bits, then pg_xact */
            const int64_t hints = im & HEAP_XMIN_FROZEN;
            const int xmin_st = xmin_state(im, xmin, &clog);
            int64_t upd = -1;
            if (has_resolver && xmax_needs_multi(im, xmax)) upd = multi_lookup(&multis, xmax);
            const int xmax_st = xmax_state(im, xmax, upd, has_resolver, &clog);
            const int x_hinted = xmax_hinted(im, xmax);
            const int dead = xmin_st == ST_ABORTED || xmax_st == ST_COMMITTED;
            const int unknown = xmin_st == ST_UNKNOWN || xmax_st == ST_UNKNOWN;
            used += ln;
            if (dead) {
                c[C_dead_tuple_count]++;
                c[C_dead_tuple_len] += ln;
                dead_bytes += ln;
            } else {
                c[C_tuple_count]++;
                c[C_tuple_len] += ln;
                live_bytes += ln;
                c[C_tuple_bytes_aligned] += (ln + 7) / 8 * 8;
                c[C_live_tuples_for_rewrite]++;
                if (unknown) { c[C_undecided_count]++; c[C_undecided_len] += ln; }
            }
            if (unknown) c[C_unknown_xids]++;
            if (xmin_st == ST_IN_PROGRESS || xmax_st == ST_IN_PROGRESS) c[C_in_progress_count]++;
            if (im2 & HEAP_HOT_UPDATED) {
                c[C_hot_updated]++;
                links = 1;
            } else if (s->ctid_blk[i] != blk || s->ctid_off[i] != i + 1) {
                c[C_non_hot_updates]++; /* updated elsewhere, not HOT (a delete's t_ctid points at itself) */
            }
            if (im2 & HEAP_ONLY_TUPLE) { c[C_heap_only]++; heap_only_on_page++; }
            switch (hints) {
            case HEAP_XMIN_FROZEN: c[C_xmin_frozen]++; break;
            case HEAP_XMIN_COMMITTED: c[C_xmin_committed_hint]++; break;
            case HEAP_XMIN_INVALID: c[C_xmin_invalid_hint]++; break;
            default: c[C_xmin_unhinted]++; break;
            }
            if (im & HEAP_XMAX_COMMITTED) c[C_xmax_committed_hint]++;
            if (im & HEAP_XMAX_INVALID) c[C_xmax_invalid_hint]++;
            if (!x_hinted) c[C_xmax_unhinted]++;
            /* hint bits the next read sets (SetHintBits): a settled but unhinted status. HeapTupleSatisfiesMVCC
               looks at xmax only once xmin committed and never hints a lock-only or multixact xmax; a scan
               trusts PD_ALL_VISIBLE and checks (so hints) no tuple on such a page. */
            const int settled_xmin = xmin_st == ST_COMMITTED || xmin_st == ST_ABORTED;
            const int settled_xmax = (xmax_st == ST_COMMITTED || xmax_st == ST_ABORTED)
                && (xmin_st == ST_COMMITTED || xmin_st == ST_FROZEN) && (im & HEAP_XMAX_IS_MULTI) == 0;
            if (((hints == 0 && settled_xmin) || (!x_hinted && settled_xmax)) && !pd_all_visible) {
                c[C_hint_tuples]++;
                wants_hint_any = 1;
            }
            /* xids newer than pg_control's next xid, or older than the oldest xid */
            if (next_xid >= 0) {
                if (xmin >= FIRST_NORMAL_XID && hints != HEAP_XMIN_FROZEN) {
                    if (((xmin - next_xid) & 0xFFFFFFFF) < ((int64_t)1 << 31)) {
                        c[C_future_xids]++;
                        event(ev, ev_cap, ev_count, E_FUTURE_XMIN, blk, i + 1, xmin, 0, 0);
                    } else if (oldest_xid >= 0 && ((oldest_xid - xmin) & 0xFFFFFFFF) < ((int64_t)1 << 31)
                               && xmin != oldest_xid) {
                        c[C_too_old_xids]++;
                        event(ev, ev_cap, ev_count, E_OLD_XMIN, blk, i + 1, xmin, 0, 0);
                    }
                }
                if (xmax >= FIRST_NORMAL_XID && (im & HEAP_XMAX_IS_MULTI) == 0) {
                    if (((xmax - next_xid) & 0xFFFFFFFF) < ((int64_t)1 << 31)) {
                        c[C_future_xids]++;
                        event(ev, ev_cap, ev_count, E_FUTURE_XMAX, blk, i + 1, xmax, 0, 0);
                    } else if (oldest_xid >= 0 && ((oldest_xid - xmax) & 0xFFFFFFFF) < ((int64_t)1 << 31)
                               && xmax != oldest_xid && xmax_st != ST_INVALID && xmax_st != ST_LOCK_ONLY) {
                        c[C_too_old_xids]++;
                        event(ev, ev_cap, ev_count, E_OLD_XMAX, blk, i + 1, xmax, 0, 0);
                    }
                }
            }
            /* visibility and freezing: visible to everyone when the inserter committed (or is frozen) and no
               deleter lives; after a clean shutdown every committed transaction is older than any snapshot */
            const int visible_all = (xmin_st == ST_COMMITTED || xmin_st == ST_FROZEN)
                && (xmax_st == ST_INVALID || xmax_st == ST_LOCK_ONLY || xmax_st == ST_ABORTED);
            const int frozen = hints == HEAP_XMIN_FROZEN || xmin < FIRST_NORMAL_XID;
            const int needs_freeze = !frozen || xmax >= FIRST_NORMAL_XID || (im & HEAP_MOVED) != 0;
            if (!visible_all) { not_all_visible = 1; not_visible_tuples++; }
            if (needs_freeze) {
                needs_freeze_any = 1;
                needs_freeze_tuples++;
                if (!dead) c[C_unfrozen_tuples]++;
            }
            if (next_xid >= 0 && !frozen && !dead && xmin >= FIRST_NORMAL_XID) {
                const int64_t age = (next_xid - xmin) & 0xFFFFFFFF;
                if (age > best[B_age]) {
                    best[B_age] = age;
                    best[B_age_xid] = xmin;
                    best[B_age_block] = blk;
                    best[B_age_item] = i + 1;
                }
            }
        }

        /* ------------------------------------------------ HOT chains (README.HOT), within this page */
        if (!links) {
            c[C_unreachable_heap_only] += heap_only_on_page; /* no chain on the page reaches them */
        } else {
            int64_t n_roots = 0;
            for (int64_t i = 0; i < nlp; i++) {
                const int fl = s->flags[i];
                const int hot_updated = s->has_tup[i] && (s->im2s[i] & HEAP_HOT_UPDATED) != 0;
                int64_t target = fl == LP_REDIRECT ? s->offs[i] : 0;
                if (hot_updated && s->ctid_blk[i] == blk) target = s->ctid_off[i];
                s->succ[i] = -1;
                s->reached[i] = 0;
                if (fl == LP_REDIRECT || hot_updated) {
                    if (target >= 1 && target <= nlp)
                        s->succ[i] = target - 1;
                    else
                        event(ev, ev_cap, ev_count, E_BAD_LINK, blk, i + 1, target, nlp, fl == LP_REDIRECT);
                }
            }
            for (int64_t i = 0; i < nlp; i++) {
                const int64_t t = s->succ[i];
                if (t < 0) continue;
                const int fl = s->flags[i], tfl = s->flags[t];
                const int t_heap_only = s->has_tup[t] && (s->im2s[t] & HEAP_ONLY_TUPLE) != 0;
                int broken = 0;
                if (tfl == LP_UNUSED) {
                    event(ev, ev_cap, ev_count, E_LINK_TO_UNUSED, blk, i + 1, t + 1, 0, 0);
                    broken = 1;
                }
                if (fl == LP_REDIRECT && tfl == LP_NORMAL && !t_heap_only) {
                    event(ev, ev_cap, ev_count, E_REDIRECT_NOT_HEAP_ONLY, blk, i + 1, t + 1, 0, 0);
                    broken = 1;
                }
                if (fl == LP_REDIRECT && tfl == LP_REDIRECT) {
                    event(ev, ev_cap, ev_count, E_REDIRECT_TO_REDIRECT, blk, i + 1, t + 1, 0, 0);
                    broken = 1;
                }
                if (fl == LP_NORMAL && s->has_tup[i]) {
                    /* a multixact xmax names its updater among its members: compare with that xid */
                    int64_t update_xid = s->xmaxs[i];
                    if (s->ims[i] & HEAP_XMAX_IS_MULTI)
                        update_xid = has_resolver ? multi_lookup(&multis, s->xmaxs[i]) : -1;
                    if (s->has_tup[t] && update_xid >= 0 && s->xmins[t] != update_xid) {
                        event(ev, ev_cap, ev_count, E_XMIN_MISMATCH, blk, i + 1, t + 1, update_xid, s->xmins[t]);
                        broken = 1;
                    }
                }
                if (broken) s->succ[i] = -1; /* a dead item as successor is normal: pruning leaves LP_DEAD stubs */
            }
            for (int64_t i = 0; i < nlp; i++) {
                const int heap_only = s->has_tup[i] && (s->im2s[i] & HEAP_ONLY_TUPLE) != 0;
                const int hot_updated = s->has_tup[i] && (s->im2s[i] & HEAP_HOT_UPDATED) != 0;
                if (s->flags[i] == LP_REDIRECT || (s->has_tup[i] && !heap_only && hot_updated)) {
                    s->roots[n_roots] = i;
                    s->cur[n_roots] = i;
                    s->length[n_roots] = s->flags[i] == LP_REDIRECT ? 0 : 1; /* a redirect holds no tuple */
                    s->alive[n_roots] = 1;
                    n_roots++;
                }
            }
            /* walk this page's chains in lock step; bounded, so a cycle cannot loop forever */
            for (int64_t step = 0; step <= max_htpp; step++) {
                int any_alive = 0;
                for (int64_t k = 0; k < n_roots; k++) {
                    if (!s->alive[k]) continue;
                    s->nxt[k] = s->succ[s->cur[k]];
                    if (s->nxt[k] < 0) s->alive[k] = 0; else any_alive = 1;
                }
                if (!any_alive) break;
                for (int64_t k = 0; k < n_roots; k++) /* stop at a member already reached (a cycle) */
                    if (s->alive[k] && s->reached[s->nxt[k]]) s->alive[k] = 0;
                for (int64_t k = 0; k < n_roots; k++) {
                    if (!s->alive[k]) continue;
                    s->reached[s->nxt[k]] = 1;
                    if (s->has_tup[s->nxt[k]]) s->length[k]++;
                    s->cur[k] = s->nxt[k];
                }
            }
            c[C_hot_roots] += n_roots;
            if (n_roots) c[C_pages_with_hot]++;
            for (int64_t k = 0; k < n_roots; k++) {
                chain_hist[s->length[k] < CHAIN_HISTOGRAM ? s->length[k] : CHAIN_HISTOGRAM]++;
                if (s->length[k] > best[B_chain_len]) {
                    best[B_chain_len] = s->length[k];
                    best[B_chain_block] = blk;
                    best[B_chain_item] = s->roots[k] + 1;
                }
            }
            for (int64_t i = 0; i < nlp; i++)
                if (s->has_tup[i] && (s->im2s[i] & HEAP_ONLY_TUPLE) && !s->reached[i]) c[C_unreachable_heap_only]++;
        }

        /* ------------------------------------------------ free space (PageGetHeapFreeSpace) */
        int64_t free_space = 0;
        if (!is_new) {
            const int64_t space = upper - lower;
            if (exact) {
                free_space = space > 0 ? space : 0;
            } else {
                free_space = space < SIZE_OF_ITEM_ID ? 0 : space - SIZE_OF_ITEM_ID;
                /* a page at MaxHeapTuplesPerPage can take a tuple only into an unused line pointer */
                if (nlp >= max_htpp && free_space > 0 && !((pd_flags & PD_HAS_FREE_LINES) && has_unused))
                    free_space = 0;
            }
        }
        c[C_free_space] += free_space;

        /* ------------------------------------------------ visibility map and PD_ALL_VISIBLE */
        const int not_all_frozen = needs_freeze_any || not_all_visible;
        const int live_page = !is_new;
        int claimed = pd_all_visible, vm_v = 0;
        if (has_vm) {
            vm_v = vm_visible[p] != 0;
            const int vm_f = vm_frozen[p] != 0;
            claimed = vm_v;
            if (vm_v) c[C_vm_all_visible]++;
            if (vm_f) { c[C_vm_all_frozen]++; c[C_not_frozen_tuples] += needs_freeze_tuples; }
            if (vm_f && !vm_v) event(ev, ev_cap, ev_count, E_VM_FROZEN_NOT_VISIBLE, blk, 0, 0, 0, 0);
            if (vm_v && !pd_all_visible && live_page) event(ev, ev_cap, ev_count, E_VM_BIT_WITHOUT_PD, blk, 0, 0, 0, 0);
            if (vm_f && not_all_frozen) event(ev, ev_cap, ev_count, E_VM_ALL_FROZEN_WRONG, blk, 0, 0, 0, 0);
            if (!vm_v && !not_all_visible && live_page) c[C_could_be_all_visible]++;
            if (!vm_f && !not_all_frozen && live_page) c[C_could_be_all_frozen]++;
        }
        if (claimed && not_all_visible && live_page) event(ev, ev_cap, ev_count, E_VM_ALL_VISIBLE_WRONG, blk, 0, 0, 0, 0);
        if (claimed) c[C_not_all_visible_tuples] += not_visible_tuples;
        if (pd_all_visible && not_all_visible && live_page && !vm_v)
            event(ev, ev_cap, ev_count, E_PAGE_ALL_VISIBLE_WRONG, blk, 0, 0, 0, 0);

        /* ------------------------------------------------ bloat and the FSM */
        if (wants_hint_any) { c[C_pages_needing_hints]++; out[PC_hint_page] = 1; }
        const int empty = live_bytes == 0; /* VACUUM removes dead tuples and stubs; trailing empty pages truncate */
        trailing = empty ? trailing + 1 : 0;
        out[PC_empty_after_vacuum] = empty;
        out[PC_free] = free_space;
        out[PC_used] = used;
        out[PC_dead] = dead_bytes;
        if (has_fsm) {
            const int64_t actual = free_space / fsm_step < 255 ? free_space / fsm_step : 255;
            const int64_t recorded = fsm_category[p];
            /* the FSM is a hint updated lazily; only differences of more than one category matter */
            if (actual - recorded > 1) c[C_fsm_understated]++;
            if (recorded - actual > 1) c[C_fsm_overstated]++;
        }
    }
    c[C_trailing_empty] = trailing;
    c[C_missing_multis] = multis.n_missing;
    for (int i = 0; i < C__COUNT; i++) counters[i] += c[i];
    return 0;
}

/* Add a chunk's per-page figures into the map's bins (rows: pages, used, dead, free, hint_pages, all_visible,
   all_frozen, new; nbins columns). */
void pgp_fold_bins(int64_t *bins, int64_t nbins, int64_t nblocks, int64_t first_blkno, const int64_t *page_out,
                   int64_t npages, const uint8_t *vm_visible, const uint8_t *vm_frozen, int has_vm)
{
    const int64_t denom = nblocks > 1 ? nblocks : 1;
    for (int64_t p = 0; p < npages; p++) {
        int64_t b = (first_blkno + p) * nbins / denom;
        if (b > nbins - 1) b = nbins - 1;
        const int64_t *o = page_out + p * PC__COUNT;
        bins[0 * nbins + b] += 1;
        bins[1 * nbins + b] += o[PC_used];
        bins[2 * nbins + b] += o[PC_dead];
        bins[3 * nbins + b] += o[PC_free];
        bins[4 * nbins + b] += o[PC_hint_page];
        if (has_vm) {
            bins[5 * nbins + b] += vm_visible[p];
            bins[6 * nbins + b] += vm_frozen[p];
        }
        bins[7 * nbins + b] += o[PC_new];
    }
}

/* ---------------------------------------------------------------------------------------- checksums */
/* storage/checksum_impl.h */
#define N_SUMS 32
#define FNV_PRIME 16777619
static const uint32_t checksum_base_offsets[N_SUMS] = {
    0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A, 0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
    0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA, 0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
    0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE, 0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
    0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E, 0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
};
#define CHECKSUM_COMP(checksum, value) do { \
        uint32_t __tmp = (checksum) ^ (value); \
        (checksum) = __tmp * FNV_PRIME ^ (__tmp >> 17); \
    } while (0)

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define PGP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PGP_CLONES
#endif

/*
 * pg_checksum_page for `n` pages of `bs` bytes: 32 lanes of CHECKSUM_COMP over the page as native uint32 words
 * with pd_checksum zeroed (the word `checksum_word`, ANDed with `checksum_keep`), two rounds of zeros, XOR of
 * the lanes, the block number mixed in, % 65535 + 1. An all-zero (new) page gets 0. The lanes vectorise.
 */
PGP_CLONES
void pgp_checksum_pages(const uint32_t *words, int64_t n, int64_t bs, const int64_t *blknos, int64_t checksum_word,
                        uint32_t checksum_keep, uint16_t *out)
{
    const int64_t nw = bs / 4;
    for (int64_t p = 0; p < n; p++) {
        const uint32_t *w = words + p * nw;
        uint32_t sums[N_SUMS], any[N_SUMS];
        for (int j = 0; j < N_SUMS; j++) { sums[j] = checksum_base_offsets[j]; any[j] = 0; }
        for (int j = 0; j < N_SUMS; j++) {
            uint32_t v = w[j];
            any[j] |= v;
            if (j == checksum_word) v &= checksum_keep;
            CHECKSUM_COMP(sums[j], v);
        }
        for (int64_t i = N_SUMS; i < nw; i += N_SUMS)
            for (int j = 0; j < N_SUMS; j++) {
                any[j] |= w[i + j];
                CHECKSUM_COMP(sums[j], w[i + j]);
            }
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < N_SUMS; j++) CHECKSUM_COMP(sums[j], 0);
        uint32_t result = 0, nonzero = 0;
        for (int j = 0; j < N_SUMS; j++) { result ^= sums[j]; nonzero |= any[j]; }
        out[p] = nonzero ? (uint16_t)(((result ^ (uint32_t)blknos[p]) % 65535) + 1) : 0;
    }
}

/* ---------------------------------------------------------------------------------------- the B-tree pass */
/* access/itup.h, access/nbtree.h */
#define INDEX_SIZE_MASK 0x1FFF
#define INDEX_ALT_TID_MASK 0x2000
#define INDEX_NULL_MASK 0x8000
#define BT_OFFSET_MASK 0x0FFF
#define BT_PIVOT_HEAP_TID_ATTR 0x1000
#define BT_IS_POSTING 0x2000
#define SIZE_OF_ITEM_POINTER 6
#define MIN_INDEX_TUPLE_SIZE 8 /* sizeof(IndexTupleData) */
/* what btree/scan.py says about each page (page_in[p * 3]: these bits; [p * 3 + 1]: its line pointers to read, as
   decode_headers clamps them; [p * 3 + 2]: pd_special) */
#define BT_IN_TREE 1    /* a leaf, internal or half-dead page: its items are read */
#define BT_LEAF_ITEMS 2 /* a leaf page, or a half-dead one with BTP_LEAF: items after the high key hold heap TIDs */
#define BT_RIGHTMOST 4  /* btpo_next is P_NONE: no high key */
#define BT_INTERNAL 8   /* an internal page (not half-dead): its items are downlinks */

static inline int64_t maxalign8(int64_t n) { return (n + 7) & ~(int64_t)7; }

typedef struct {
    uint32_t *blk, *iblk;   /* block numbers: 32 bits, as BlockNumber */
    uint16_t *off, *item;   /* line pointer numbers: 16 bits, as OffsetNumber */
    uint8_t *dead;
    int64_t cap;
} Tids;

static inline int64_t bt_event(int64_t *ev, int64_t ev_cap, int64_t n, int64_t code, int64_t block, int64_t item,
                               int64_t a, int64_t b, int64_t c, int64_t d, int64_t e)
{
    if (n < ev_cap) {
        int64_t *row = ev + n * BT_EVENT_WIDTH;
        row[0] = code; row[1] = block; row[2] = item; row[3] = a; row[4] = b; row[5] = c; row[6] = d; row[7] = e;
    }
    return n + 1;
}

/* One heap TID of an index item: an offset outside 1..MaxHeapTuplesPerPage is an event, the others are listed
   for the table check. Returns the number of TIDs listed. */
static inline int64_t bt_tid(const Tids *t, int64_t n, int64_t *ev, int64_t ev_cap, int64_t *nev, int64_t maxoff,
                             int64_t block, int64_t item, int64_t dead, int64_t blk, int64_t off)
{
    if (off == 0 || off > maxoff) {
        *nev = bt_event(ev, ev_cap, *nev, BE_TID_INVALID, block, item, blk, off, 0, 0, 0);
        return n;
    }
    if (n < t->cap) {
        t->blk[n] = (uint32_t)blk; t->off[n] = (uint16_t)off;
        t->iblk[n] = (uint32_t)block; t->item[n] = (uint16_t)item; t->dead[n] = (uint8_t)dead;
    }
    return n + 1;
}

/* A page the CPU's caches are told to fetch while the page before it is read (the B-tree passes call it two pages
   ahead: they read a page's line pointers forward and its tuples backward, which the hardware prefetcher
   follows late; each pass over a chunk 7-12% faster). */
void pgp_prefetch_page(const uint8_t *page, int64_t bs)
{
    for (int64_t b = 0; b < bs; b += 64) __builtin_prefetch(page + b);
}

/* The shifts and masks of a line pointer's fields in its word, and of IndexTupleData's in its 8 bytes */
typedef struct { int64_t lo_s, lo_m, fl_s, fl_m, ln_s, ln_m, o_hi, o_lo, o_posid, o_info; } ItemLayout;

/*
 * Line pointers from..nlp of a leaf page when every one is a plain tuple (LP_NORMAL or LP_DEAD, within the page,
 * not marked a pivot or a posting list, its size the line pointer's) whose heap offset is in 1..maxoff: what
 * pgp_btree_items' general loop makes of them, without its branches for pivots, posting lists and events (nearly
 * every leaf page). Their TIDs go from row *ntid on, their sizes and LP_DEAD ones are summed into *bytes and
 * *dead. Returns 0, nothing counted, when one item is not such a tuple: the general loop decides the page.
 */
static int plain_leaf_items(const uint8_t *page, int64_t from, int64_t nlp, int64_t special, int64_t block,
                            int64_t maxoff, const ItemLayout *ly, const Tids *t, int64_t *ntid, int64_t *bytes,
                            int64_t *dead)
{
    const ItemLayout l = *ly;
    /* the outputs in locals: with -fno-strict-aliasing each store through them would otherwise reload them */
    uint32_t *const blk = t->blk, *const iblk = t->iblk;
    uint16_t *const off_out = t->off, *const item = t->item;
    uint8_t *const dead_out = t->dead;
    int64_t n = *ntid, sum = 0, ndead = 0;
    if (n + nlp - from + 1 > t->cap) return 0;   /* the general loop counts what does not fit */
    for (int64_t lp = from; lp <= nlp; lp++) {
        const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (lp - 1));
        const int64_t off = (w >> l.lo_s) & l.lo_m, fl = (w >> l.fl_s) & l.fl_m, ln = (w >> l.ln_s) & l.ln_m;
        if (!((fl == LP_NORMAL || fl == LP_DEAD) && off >= SIZE_OF_PAGE_HEADER && off + ln <= special
              && ln >= MIN_INDEX_TUPLE_SIZE))
            return 0;
        const uint64_t hdr = (uint64_t)u32(page + off) | ((uint64_t)u32(page + off + 4) << 32);
        const int64_t posid = (int64_t)((hdr >> l.o_posid) & 0xFFFF), info = (int64_t)((hdr >> l.o_info) & 0xFFFF);
        if ((info & INDEX_ALT_TID_MASK) || (info & INDEX_SIZE_MASK) != ln || posid == 0 || posid > maxoff) return 0;
        const int is_dead = fl == LP_DEAD;
        blk[n] = (uint32_t)((((hdr >> l.o_hi) & 0xFFFF) << 16) | ((hdr >> l.o_lo) & 0xFFFF));
        off_out[n] = (uint16_t)posid;
        iblk[n] = (uint32_t)block;
        item[n] = (uint16_t)lp;
        dead_out[n] = (uint8_t)is_dead;
        n++;
        sum += ln;
        ndead += is_dead;
    }
    *ntid = n;
    *bytes = sum;
    *dead = ndead;
    return 1;
}

/*
 * Every item of a chunk of B-tree pages (global block numbers from first_blkno), by the rules btree/scan.py's
 * docstrings give (BtreeScan): which items are high keys, pivots, posting-list tuples and plain leaf tuples,
 * what each adds to the page's and the chunk's figures, the downlinks of internal pages, the pivots' sizes and
 * attribute counts (histograms), and the heap TIDs, plain tuples' first and then the posting lists' in item
 * order (as the findings list them). Outputs are zeroed here: page_out[p * BPC__COUNT + BPC_*], totals[BT_*],
 * posting_hist[TIDs] (BT_OFFSET_MASK + 1), natts_hist[natts + 1] (BT_OFFSET_MASK + 2; 0: no count),
 * size_hist[lp_len] (bs), downlinks[k * 3 + (block, item, child)], the TIDs (block, offset, and the index
 * block, item and LP_DEAD of the item holding it), ev[k * BT_EVENT_WIDTH] (code, block, item, a, b, c, d, e) in
 * item order per code. `posting` is scratch of 5 int64 per item. Rows past a capacity are counted, not written
 * (totals[BT_downlinks], [BT_heap_tids], [BT_events]): the caller grows the buffer and calls again. Returns 0,
 * or -1 when `posting` is too small.
 */
int pgp_btree_items(const uint8_t *pages, int64_t npages, int64_t bs, int64_t first_blkno, const int64_t *layout,
                    const int64_t *page_in, int64_t can_post, int64_t maxoff, int64_t *page_out, int64_t *totals,
                    int64_t *posting_hist, int64_t *natts_hist, int64_t *size_hist, int64_t *downlinks,
                    int64_t dl_cap, uint32_t *tid_blk, uint16_t *tid_off, uint32_t *tid_iblk, uint16_t *tid_item,
                    uint8_t *tid_dead, int64_t tid_cap, int64_t *ev, int64_t ev_cap, int64_t *posting,
                    int64_t posting_cap)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    /* bit shifts of the tuple header's fields in its 8 bytes read as one little-endian word */
    const int64_t o_hi = 8 * layout[L_t_tid_bi_hi], o_lo = 8 * layout[L_t_tid_bi_lo],
                  o_posid = 8 * layout[L_t_tid_ip_posid], o_info = 8 * layout[L_t_info];
    const int64_t p_hi = layout[L_ptr_bi_hi], p_lo = layout[L_ptr_bi_lo], p_posid = layout[L_ptr_ip_posid];
    int64_t t[BT__COUNT];
    memset(t, 0, sizeof t);
    memset(page_out, 0, sizeof(int64_t) * BPC__COUNT * npages);
    memset(posting_hist, 0, sizeof(int64_t) * (BT_OFFSET_MASK + 1));
    memset(natts_hist, 0, sizeof(int64_t) * (BT_OFFSET_MASK + 2));
    memset(size_hist, 0, sizeof(int64_t) * bs);
    const Tids tids = {tid_blk, tid_iblk, tid_off, tid_item, tid_dead, tid_cap};
    const ItemLayout ly = {lo_s, lo_m, fl_s, fl_m, ln_s, ln_m, o_hi, o_lo, o_posid, o_info};
    int64_t ntid = 0, nev = 0, npost = 0, ndl = 0;

    for (int64_t p = 0; p < npages; p++) {
        const int64_t mode = page_in[p * 3], nlp = page_in[p * 3 + 1], special = page_in[p * 3 + 2];
        if (p + 2 < npages) pgp_prefetch_page(pages + (p + 2) * bs, bs);
        if (!(mode & BT_IN_TREE)) continue;
        const uint8_t *page = pages + p * bs;
        const int64_t block = first_blkno + p;
        const int leaf = (mode & BT_LEAF_ITEMS) != 0, rightmost = (mode & BT_RIGHTMOST) != 0;
        int64_t items = 0, dead_items = 0, high_keys = 0, high_key_bytes = 0, pivots = 0, pivot_bytes = 0,
                posting_tuples = 0, page_tids = 0, posting_tids = 0;
        /* a leaf page's data items at once when they are all plain tuples; the general loop then takes only the
           high key (which lists no TID: the TIDs stay in item order) */
        int64_t general = nlp, key_bytes = 0;
        const int64_t firstdata = rightmost ? 1 : 2;
        if (leaf && nlp >= firstdata
            && plain_leaf_items(page, firstdata, nlp, special, block, maxoff, &ly, &tids, &ntid, &key_bytes,
                                &dead_items)) {
            const int64_t plain = nlp - firstdata + 1;
            items = page_tids = plain;
            t[BT_leaf_key_tuples] += plain;
            t[BT_plain_tuples] += plain;
            t[BT_leaf_key_bytes] += key_bytes;
            t[BT_dead_tids] += dead_items;
            general = firstdata - 1;
        }
        for (int64_t i = 0; i < general; i++) {
            const int64_t lp = i + 1;
            const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * i);
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            if (fl == LP_UNUSED || fl == LP_REDIRECT) {  /* nbtree writes only LP_NORMAL and LP_DEAD */
                nev = bt_event(ev, ev_cap, nev, BE_BAD_LP_FLAGS, block, lp, fl, 0, 0, 0, 0);
                continue;
            }
            if (!(off >= SIZE_OF_PAGE_HEADER && off + ln <= special && ln >= MIN_INDEX_TUPLE_SIZE)) {
                nev = bt_event(ev, ev_cap, nev, BE_OUT_OF_BOUNDS, block, lp, off, ln, special, 0, 0);
                continue;
            }
            /* IndexTupleData's 8 bytes as one little-endian word (one load), its fields shifted out */
            const uint64_t hdr = (uint64_t)u32(page + off) | ((uint64_t)u32(page + off + 4) << 32);
            const int64_t tblk = (int64_t)((((hdr >> o_hi) & 0xFFFF) << 16) | ((hdr >> o_lo) & 0xFFFF)),
                          posid = (int64_t)((hdr >> o_posid) & 0xFFFF), info = (int64_t)((hdr >> o_info) & 0xFFFF);
            int64_t size = info & INDEX_SIZE_MASK;
            if (size != ln) nev = bt_event(ev, ev_cap, nev, BE_SIZE_MISMATCH, block, lp, ln, size, 0, 0, 0);
            if (size > ln) size = ln;
            const int highkey = !rightmost && lp == 1;
            const int pivot = !leaf || highkey;
            const int alt = (info & INDEX_ALT_TID_MASK) != 0;
            const int is_posting = !pivot && alt && (posid & BT_IS_POSTING) && can_post;
            const int dead = fl == LP_DEAD;
            const int64_t nposting = posid & BT_OFFSET_MASK, poff = tblk;
            if (!pivot && alt && !is_posting)
                nev = bt_event(ev, ev_cap, nev, BE_UNEXPECTED_PIVOT, block, lp, posid, 0, 0, 0, 0);
            items++;
            if (highkey) { high_keys++; high_key_bytes += ln; }
            if (pivot) {
                pivots++;
                pivot_bytes += ln;
                const int minus_infinity = !leaf && lp == (rightmost ? 1 : 2); /* P_FIRSTDATAKEY of an internal page */
                if (minus_infinity) t[BT_minus_infinity]++;
                if (!leaf && !highkey && (mode & BT_INTERNAL)) {
                    if (ndl < dl_cap) {
                        int64_t *row = downlinks + ndl * 3;
                        row[0] = block; row[1] = lp; row[2] = tblk;
                    }
                    ndl++;
                }
                if (!minus_infinity) {
                    natts_hist[alt ? (posid & BT_OFFSET_MASK) + 1 : 0]++;
                    if (alt && (posid & BT_PIVOT_HEAP_TID_ATTR)) t[BT_pivots_with_heap_tid]++;
                    if (ln < bs) size_hist[ln]++;
                }
                continue;
            }
            /* a leaf data item: a plain tuple (one heap TID) or a posting list */
            const int64_t ntids = is_posting ? nposting : 1;
            page_tids += ntids;
            t[BT_leaf_key_tuples]++;
            t[BT_leaf_key_bytes] += is_posting ? maxalign8(poff) : size;
            if (dead) { dead_items++; t[BT_dead_tids] += ntids; }
            if (!is_posting) {
                t[BT_plain_tuples]++;
                ntid = bt_tid(&tids, ntid, ev, ev_cap, &nev, maxoff, block, lp, dead, tblk, posid);
                continue;
            }
            posting_tuples++;
            posting_tids += nposting;
            if (dead) t[BT_dead_posting_tuples]++;
            const int64_t datastart = (info & INDEX_NULL_MASK) ? 16 : 8;
            if (!(poff >= datastart && poff + SIZE_OF_ITEM_POINTER * nposting <= size)) {
                nev = bt_event(ev, ev_cap, nev, BE_POSTING_OVERRUN, block, lp, nposting, poff, size, 0, 0);
                continue;
            }
            if (nposting < 2) nev = bt_event(ev, ev_cap, nev, BE_POSTING_TOO_FEW, block, lp, nposting, 0, 0, 0, 0);
            t[BT_posting_tuples]++;
            t[BT_posting_tid_count] += nposting;
            t[BT_posting_bytes] += ln + SIZE_OF_ITEM_ID;
            t[BT_posting_plain_bytes] += nposting * (maxalign8(poff) + SIZE_OF_ITEM_ID);
            posting_hist[nposting]++;
            if (npost >= posting_cap) return -1;
            int64_t *row = posting + npost * 5;
            row[0] = block; row[1] = lp; row[2] = p * bs + off + poff; row[3] = nposting; row[4] = dead;
            npost++;
        }
        int64_t *out = page_out + p * BPC__COUNT;
        out[BPC_items] = items; out[BPC_dead_items] = dead_items; out[BPC_high_keys] = high_keys;
        out[BPC_high_key_bytes] = high_key_bytes; out[BPC_pivots] = pivots; out[BPC_pivot_bytes] = pivot_bytes;
        out[BPC_posting_tuples] = posting_tuples; out[BPC_tids] = page_tids; out[BPC_posting_tids] = posting_tids;
    }
    /* the posting lists' TIDs, after every plain tuple's */
    for (int64_t k = 0; k < npost; k++) {
        const int64_t *row = posting + k * 5;
        const int64_t block = row[0], lp = row[1], n = row[3], dead = row[4];
        const uint8_t *ip = pages + row[2];
        int64_t prev_blk = 0, prev_off = 0, prev_key = 0;
        int unsorted = 0;
        for (int64_t j = 0; j < n; j++, ip += SIZE_OF_ITEM_POINTER) {
            const int64_t blk = (u16(ip + p_hi) << 16) | u16(ip + p_lo), off = u16(ip + p_posid);
            const int64_t key = (blk << 16) | off;
            if (j > 0 && key <= prev_key && !unsorted) {  /* one event per posting list: its first step back */
                nev = bt_event(ev, ev_cap, nev, BE_POSTING_UNSORTED, block, lp, j, prev_blk, prev_off, blk, off);
                unsorted = 1;
            }
            prev_blk = blk; prev_off = off; prev_key = key;
            ntid = bt_tid(&tids, ntid, ev, ev_cap, &nev, maxoff, block, lp, dead, blk, off);
        }
    }
    t[BT_downlinks] = ndl;
    t[BT_heap_tids] = ntid;
    t[BT_events] = nev;
    memcpy(totals, t, sizeof t);
    return 0;
}

/* ---------------------------------------------------------------------------------------- the table side */
/* HeapTidCheck's verdicts (btree/heapcheck.py: HEAP_STATES order) */
enum { H_NORMAL, H_REDIRECT, H_DEAD, H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END, H_BAD_PAGE };
/* HeapTidCheck's meta[slot]: the page's line pointers, and flags (one word: a TID's lookup touches one) */
#define META_NLP 0xFFFF
#define META_SANE 0x10000   /* the header can be trusted (or the page is new) */
#define META_BAD 0x20000    /* neither: reported when a TID needs the page */
#define META_NEEDED 0x40000 /* a TID needed the block since it was cached */

/*
 * Table pages into HeapTidCheck's cache: for k < n, the page at row rows[k] of `pages` goes to row slots[k] of
 * `states` (stride bytes each): one 4-bit verdict per line pointer, line pointer o in byte o / 2 (H_UNUSED,
 * H_NORMAL, H_REDIRECT, H_DEAD, or H_HEAP_ONLY for a normal tuple whose header has HEAP_ONLY_TUPLE: half the bytes
 * of one apiece, so the cache covers twice the table), and meta[slot]: how many (pd_lower's count, at most
 * 2 * stride - 1) and the page's flags.
 */
/* Line pointer o's verdict in a slot of `states`: two to a byte, o's low bit picking the nibble. */
static inline int lp_state_get(const uint8_t *st, int64_t o) { return (st[o >> 1] >> ((o & 1) * 4)) & 0xF; }

static void lp_states_page(const uint8_t *page, int64_t bs, const int64_t *layout, uint8_t *st, int64_t stride,
                           int32_t *meta_slot)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_im2 = layout[L_t_infomask2];
    const int64_t max_lp = (bs - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    static const int8_t by_flags[4] = {H_UNUSED, H_NORMAL, H_REDIRECT, H_DEAD};
    const int64_t lower = u16(page + layout[L_pd_lower]), upper = u16(page + layout[L_pd_upper]),
                  special = u16(page + layout[L_pd_special]), pv = u16(page + layout[L_pd_pagesize_version]);
    const int is_new = upper == 0;
    const int sane = (pv & 0xFF00) == bs && lower >= SIZE_OF_PAGE_HEADER && lower <= upper && upper <= special
        && special <= bs;
    int64_t nlp = 0;
    if (sane) {
        nlp = ((lower < bs ? lower : bs) - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
        if (nlp > max_lp) nlp = max_lp;
        if (nlp > 2 * stride - 1) nlp = 2 * stride - 1;
    }
    *meta_slot = (int32_t)(nlp | (sane || is_new ? META_SANE : META_BAD));
    /* byte b holds line pointers 2b (low nibble) and 2b + 1 (high), written whole when the odd one is known (a
       byte's two nibbles set apart would make each wait for the one before); line pointer 0 does not exist */
    int low = H_UNUSED;
    for (int64_t o = 1; o <= nlp; o++) {
        const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (o - 1));
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        int v = by_flags[fl & 3];
        if (fl == LP_NORMAL && ln >= MIN_HEAP_TUPLE_SIZE && off + MIN_HEAP_TUPLE_SIZE <= bs
            && (u16(page + off + o_im2) & HEAP_ONLY_TUPLE))
            v = H_HEAP_ONLY;
        if (o & 1) st[o >> 1] = (uint8_t)(low | (v << 4));
        else low = v;
    }
    const int64_t filled = nlp >> 1;   /* the bytes before it are written */
    if (!(nlp & 1)) st[filled] = (uint8_t)(low | (H_UNUSED << 4));   /* (nlp 0: line pointer 0's byte) */
    memset(st + filled + 1, H_UNUSED * 0x11, (size_t)(stride - filled - 1));
}

void pgp_heap_lp_states(const uint8_t *pages, int64_t n, int64_t bs, const int64_t *rows, const int64_t *layout,
                        const int64_t *slots, uint8_t *states, int64_t stride, int32_t *meta)
{
    for (int64_t p = 0; p < n; p++)
        lp_states_page(pages + rows[p] * bs, bs, layout, states + slots[p] * stride, stride, meta + slots[p]);
}

/*
 * The same, read from the file: n consecutive blocks at byte `offset` of `fd` (one segment file), read
 * buf_blocks at a time into buf and decoded there while it is in the CPU's cache (a copy of the table into a
 * bigger buffer first, and Python between the two, cost as much as the decoding), block k into slot
 * first_slot + k when wanted[k]. Returns the blocks read (fewer at the file's end), or -errno.
 */
int64_t pgp_heap_lp_states_read(int fd, int64_t offset, int64_t n, int64_t bs, const uint8_t *wanted,
                                const int64_t *layout, int64_t first_slot, uint8_t *states, int64_t stride,
                                int32_t *meta, uint8_t *buf, int64_t buf_blocks)
{
    int64_t done = 0;
    while (done < n) {
        const int64_t want = (n - done < buf_blocks ? n - done : buf_blocks) * bs;
        int64_t got = 0;
        while (got < want) {
            const ssize_t r = pread(fd, buf + got, (size_t)(want - got), (off_t)(offset + done * bs + got));
            if (r < 0) {
                if (errno == EINTR) continue;
                return -errno;
            }
            if (r == 0) break;
            got += r;
        }
        const int64_t k = got / bs;
        for (int64_t i = 0; i < k; i++)
            if (wanted[done + i])
                lp_states_page(buf + i * bs, bs, layout, states + (first_slot + done + i) * stride, stride,
                               meta + first_slot + done + i);
        done += k;
        if (got < want) break;
    }
    return done;
}

/*
 * Verdicts of the heap TIDs whose block is in the window lo..hi-1 (all cached, block b in slot b - lo), into
 * out[i], counted in counts[verdict] (and in counts_dead[verdict] when dead[i]: the index item is LP_DEAD). The
 * first TID that needs a block since it was cached marks it (META_NEEDED), and a block whose page is bad is then
 * listed in bad_blocks (*nbad of them), once per time it was cached; each block is marked in the bitmap `needed`
 * (bit b of the whole table). TIDs come in runs into one block (an index in table order: a page's whole run is
 * one lookup of its block's words); in random order each lookup is a cache miss, so the block a few runs ahead
 * is prefetched. Counting is a second loop, over four sets of counters (in one set, or in the first loop, each
 * TID would wait for the count before it).
 */
#define TID_PREFETCH 16
void pgp_tid_verdicts(const uint32_t *blk, const uint16_t *off, const uint8_t *dead, int64_t n, int64_t lo, int64_t hi,
                      const uint8_t *states, int64_t stride, int32_t *meta, int8_t *out, int64_t *counts,
                      int64_t *counts_dead, uint8_t *needed, int64_t *bad_blocks, int64_t *nbad)
{
    int64_t nb = 0;
    for (int64_t i = 0; i < n;) {
        if (i + TID_PREFETCH < n) {
            const int64_t ahead = blk[i + TID_PREFETCH];
            if (ahead >= lo && ahead < hi) {
                __builtin_prefetch(meta + (ahead - lo));
                __builtin_prefetch(states + (ahead - lo) * stride + (off[i + TID_PREFETCH] >> 1));
            }
        }
        const int64_t b = blk[i];
        int64_t j = i + 1;
        while (j < n && blk[j] == b) j++;
        if (b < lo || b >= hi) {
            for (int64_t k = i; k < j; k++) out[k] = -1;
            i = j;
            continue;
        }
        const int64_t s = b - lo;
        const int32_t m = meta[s];
        needed[b >> 3] |= (uint8_t)(1u << (b & 7));
        if (!(m & META_NEEDED)) {
            meta[s] = m | META_NEEDED;
            if (m & META_BAD) bad_blocks[nb++] = b;
        }
        if (!(m & META_SANE)) {
            for (int64_t k = i; k < j; k++) out[k] = H_BAD_PAGE;
        } else {
            const uint8_t *st = states + s * stride;
            const int64_t nlp = m & META_NLP;
            for (int64_t k = i; k < j; k++) {
                const int64_t o = off[k];
                out[k] = (int8_t)(o >= 1 && o <= nlp ? lp_state_get(st, o) : H_BEYOND_PAGE);
            }
        }
        i = j;
    }
    int64_t c[4][H_BAD_PAGE + 1] = {{0}}, cd[4][H_BAD_PAGE + 1] = {{0}};
    for (int64_t i = 0; i < n; i++) {
        const int v = out[i];
        if (v < 0) { out[i] = H_NORMAL; continue; }   /* outside the window: decided in another pass */
        c[i & 3][v]++;
        cd[i & 3][v] += dead[i];
    }
    for (int k = 0; k <= H_BAD_PAGE; k++) {
        counts[k] += c[0][k] + c[1][k] + c[2][k] + c[3][k];
        counts_dead[k] += cd[0][k] + cd[1][k] + cd[2][k] + cd[3][k];
    }
    *nbad = nb;
}

/* Byte ranges put together: for k < n, len[k] bytes from src + from[k] to dst + to[k] (rows: TOAST chunks' data
   into their values). */
void pgp_gather(const uint8_t *src, const int64_t *from, const int64_t *len, int64_t n, uint8_t *dst,
                const int64_t *to)
{
    for (int64_t k = 0; k < n; k++)
        memcpy(dst + to[k], src + from[k], (size_t)len[k]);
}

/* The distinct blocks in lo..hi-1 among blk[0..n), ascending, into out; returns how many. `bits` is a zeroed
   bitmap of hi - lo bits (block b: bit b - lo), left zeroed. Linear in n and in the span of the blocks / 64. */
int64_t pgp_unique_blocks(const uint32_t *blk, int64_t n, int64_t lo, int64_t hi, uint64_t *bits, int64_t *out)
{
    int64_t first = hi - lo, last = -1;
    for (int64_t i = 0; i < n; i++) {
        const int64_t b = blk[i] - lo;
        if (b < 0 || b >= hi - lo) continue;
        bits[b >> 6] |= (uint64_t)1 << (b & 63);
        if (b < first) first = b;
        if (b > last) last = b;
    }
    int64_t k = 0;
    for (int64_t wi = first >> 6; last >= 0 && wi <= last >> 6; wi++) {
        uint64_t word = bits[wi];
        bits[wi] = 0;
        while (word) {
            out[k++] = lo + (wi << 6) + __builtin_ctzll(word);
            word &= word - 1;
        }
    }
    return k;
}

/*
 * One level's sibling chain (btree/structure.py: _walk_levels): from `start` along next[] while the page is live
 * and on level `lv`, until P_NONE, a block already on the chain (*cycle; else -1), or n steps. Each page it
 * passes is marked in visited[] and gets its position in order[]; returns the chain's length.
 */
int64_t pgp_walk_chain(const uint32_t *next, const uint8_t *live, const uint32_t *level, int64_t n, int64_t lv,
                       int64_t start, uint8_t *visited, int64_t *order, int64_t *cycle)
{
    int64_t len = 0, b = start;
    *cycle = -1;
    while (b != 0 && len < n) {
        if (b >= n || !live[b] || level[b] != lv) break;
        if (visited[b]) { *cycle = b; break; }
        visited[b] = 1;
        order[b] = len++;
        b = next[b];
    }
    return len;
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
#define HEAP_BITS_AT 23
#define INDEX_BITS_AT 8
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

void pgp_deform(const uint8_t *base, int64_t ntup, const int64_t *start, const int64_t *tlen, const int64_t *t_hoff,
                const int64_t *natts, const uint8_t *hasnull, const int64_t *attlen, const int64_t *attalign,
                int64_t ncols, int64_t toast_ok, uint8_t *ok, int64_t *pos_out, int64_t *len_out)
{
    for (int64_t t = 0; t < ntup; t++)
        ok[t] = (uint8_t)deform_one(base + start[t], tlen[t], t_hoff[t], natts[t], hasnull[t], attlen, attalign,
                                    ncols, pos_out + t * ncols, len_out + t * ncols, HEAP_BITS_AT, 0, toast_ok != 0);
}

/* ---------------------------------------------------------------------------------------------------------------
 * COPY ... TO (FORMAT csv) from the pages (passes/rows.py: TableRows.csv_stream): one CSV line per tuple, the
 * selected columns' values printed as their output functions print them (decode/datum.py, which the tests hold
 * against the server) and quoted as CopyAttributeOutCSV quotes them. Why compiled: Python, value by value, prints
 * some 70,000 rows a second where the server's COPY prints millions; here a value costs a few nanoseconds.
 *
 * Whatever this code cannot print exactly as Python does it declines (ok = 0) and Python prints the whole tuple:
 * a tuple pgp_deform leaves to deform.py, an inline-compressed varlena in a printed column, bytes that are not a
 * valid value (Python makes a finding of them), a line longer than the whole output buffer.
 */

#define MAX_TUPLE_ATTS 1664          /* MaxTupleAttributeNumber: the most attributes a tuple can have */
#define NAMEDATALEN 64
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

static inline uint8_t *put_str(uint8_t *p, const char *s)
{
    while (*s) *p++ = (uint8_t)*s++;
    return p;
}

/* Python's strict UTF-8 decoder: no overlong forms, no surrogates, nothing past U+10FFFF, no cut sequence. Text
   that fails is Unreadable to Python (a finding), so the tuple is declined. */
static int utf8_valid(const uint8_t *s, int64_t n)
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

/* the bytes that make CopyAttributeOutCSV quote a value: the delimiter, the quote, CR, LF */
static const uint8_t csv_special[256] = {[','] = 1, ['"'] = 1, ['\n'] = 1, ['\r'] = 1};

/* A value's text (UTF-8) as CopyAttributeOutCSV writes it: quoted, quotes doubled, when it holds a special byte,
   is empty (which would read back as NULL) or is \. alone on its line. 0: not valid UTF-8 (declined). */
static int put_text(Out *o, const uint8_t *s, int64_t n, int single)
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
static int put_numeric(Out *o, const uint8_t *s, int64_t n, int64_t major)
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
static int put_float(Out *o, uint64_t bits, int f4)
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

static const char hexdigits[] = "0123456789abcdef";

static int put_value(Out *o, int64_t k, const uint8_t *v, int64_t len, const Zone *zone, int64_t major, int single);

/* A varlena's content after its 1- or 4-byte header (s, n); 0 for a TOAST pointer or an inline-compressed one
   (Python's: decompression) or a header cut short. */
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

static int varlena_body(const uint8_t *v, int64_t len, const uint8_t **s, int64_t *n)
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
static void csv_quote(Out *o, uint8_t *from)
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
static int put_array(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
{
    const int64_t end = n + 4, ekind = ex[0], elen = ex[1], align = ex[2];
    const uint8_t delim = (uint8_t)ex[3];
#define IMG(off) (s + (off) - 4)
    if (end < 16) return 0;
    const int64_t ndim = (int32_t)(uint32_t)u32(IMG(4)), dataoffset = (int32_t)(uint32_t)u32(IMG(8));
    if (u32(IMG(12)) != ex[4]) return 0;   /* elemtype: not the column's element type (Python says so) */
    if (ndim == 0) {
        if (room(o, 2)) o->p = put_str(o->p, "{}");
        return 1;
    }
    if (ndim < 0 || ndim > 6 || align < 1 || (elen <= 0 && elen != -1)) return 0;
    const int64_t hdr = 16 + 8 * ndim;
    if (hdr > end) return 0;
    int64_t dims[6], lb[6], nitems = 1, lb_not_1 = 0;
    for (int64_t d = 0; d < ndim; d++) {
        dims[d] = (int32_t)(uint32_t)u32(IMG(16 + 4 * d));
        lb[d] = (int32_t)(uint32_t)u32(IMG(16 + 4 * ndim + 4 * d));
        if (dims[d] <= 0) return 0;
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
    if (lb_not_1) {
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
    for (int64_t d = 0; d < ndim; d++) *o->p++ = '{';
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
            array_quote(o, from, delim);
            off += ln;
        }
        int64_t d = ndim - 1;
        for (; d >= 0; d--) {
            if (++indx[d] < dims[d]) break;
            indx[d] = 0;
            put_char(o, '}');
        }
        if (d >= 0 && room(o, 1 + ndim)) {
            *o->p++ = delim;
            for (int64_t k = d + 1; k < ndim; k++) *o->p++ = '{';
        }
    }
#undef IMG
    return 1;
}

/* tsvectorout (typeout/textsearch.py's tsvector_out) of a tsvector's content s, n, bare: each lexeme quoted (' and \
   doubled), then its positions with their weight letters; lexemes one space apart. 0: declined (bytes Python
   reports: counts or offsets past the end, a NUL or invalid UTF-8 in a lexeme). */
static int put_tsvector(Out *o, const uint8_t *s, int64_t n)
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
static int put_geometry(Out *o, int64_t k, const uint8_t *v, int64_t len)
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
static int put_range(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
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

static int put_multirange(Out *o, const uint8_t *s, int64_t n, const int64_t *ex, const Zone *zone, int64_t major)
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
static void json_escape(Out *o, uint8_t *from)
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

static int put_jsonb(Out *o, const uint8_t *s, int64_t n, int64_t major)
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
static int put_inet(Out *o, const uint8_t *s, int64_t n, int cidr)
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

/* One value (the attribute's len bytes at v) of kind k; 0 to decline the tuple. */
static int put_value(Out *o, int64_t k, const uint8_t *v, int64_t len, const Zone *zone, int64_t major, int single)
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
        if (len != NAMEDATALEN) return 0;
        const uint8_t *nul = memchr(v, 0, NAMEDATALEN);
        return put_text(o, v, nul ? nul - v : NAMEDATALEN, single);
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


static inline uint8_t *put_bytes(uint8_t *p, const uint8_t *s, int64_t n)
{
    memcpy(p, s, (size_t)n);
    return p + n;
}

/* `pgpage rows --json`'s record of a tuple up to its values: ctid, xids, status and the xids' verdicts, the
   successor of an updated version, the HOT flags (RowVersion.record). 0: declined (a WITH OIDS row's oid, or a
   verdict without a name: Python's). */
static int put_json_head(Out *o, const int64_t *sys, int64_t ntup, int64_t t, const uint8_t *text, const int64_t *off,
                         int64_t nstatus, int64_t nxid, int64_t updated)
{
    const int64_t st = sys[4 * ntup + t], xs = sys[5 * ntup + t], ys = sys[6 * ntup + t];
    const int64_t im = sys[9 * ntup + t], im2 = sys[10 * ntup + t];
    if (st < 0 || st >= nstatus || xs < 0 || xs >= nxid || ys < 0 || ys >= nxid || (im & HEAP_HASOID_OLD)) return 0;
    const int64_t names[3] = {st, nstatus + xs, nstatus + ys};
    for (int k = 0; k < 3; k++)
        if (off[names[k] + 1] - off[names[k]] > 64) return 0;
    if (!room(o, 512)) return 1;
    uint8_t *p = put_str(o->p, "{\"ctid\":\"(");
    p = put_i64(p, sys[t]);
    *p++ = ',';
    p = put_i64(p, sys[ntup + t]);
    p = put_str(p, ")\",\"xmin\":");
    p = put_i64(p, sys[2 * ntup + t]);
    p = put_str(p, ",\"xmax\":");
    p = put_i64(p, sys[3 * ntup + t]);
    static const char *const keys[3] = {",\"status\":\"", "\",\"xmin_status\":\"", "\",\"xmax_status\":\""};
    for (int k = 0; k < 3; k++) {
        p = put_str(p, keys[k]);
        p = put_bytes(p, text + off[names[k]], off[names[k] + 1] - off[names[k]]);
    }
    *p++ = '"';
    if (st == updated) {
        p = put_str(p, ",\"successor\":\"(");
        p = put_i64(p, sys[7 * ntup + t]);
        *p++ = ',';
        p = put_i64(p, sys[8 * ntup + t]);
        p = put_str(p, ")\"");
    }
    if (im2 & (HEAP_ONLY_TUPLE | HEAP_HOT_UPDATED)) {
        p = put_str(p, ",\"hot\":[");
        if (im2 & HEAP_ONLY_TUPLE) p = put_str(p, im2 & HEAP_HOT_UPDATED ? "\"HEAP_ONLY_TUPLE\"," : "\"HEAP_ONLY_TUPLE\"");
        if (im2 & HEAP_HOT_UPDATED) p = put_str(p, "\"HEAP_HOT_UPDATED\"");
        *p++ = ']';
    }
    o->p = put_str(p, ",\"values\":{");
    return 1;
}

/* A column's value: put_value's, or an array's, range's or multirange's text (quoted as a whole as a CSV field
   unless bare). */
static int put_column(Out *o, int64_t k, const int64_t *ex, const uint8_t *v, int64_t len, const Zone *zone,
                      int64_t major, int single)
{
    if (k != K_array && k != K_range && k != K_multirange) return put_value(o, k, v, len, zone, major, single);
    const uint8_t *s;
    int64_t n;
    if (!varlena_body(v, len, &s, &n)) return 0;
    uint8_t *const from = o->p;
    const int bare = o->bare, good = k == K_array ? put_array(o, s, n, ex, zone, major)
                                     : k == K_range ? put_range(o, s, n, ex, zone, major)
                                     : put_multirange(o, s, n, ex, zone, major);
    o->bare = bare;
    if (good && !bare) csv_quote(o, from);
    return good;
}

/* pglz_decompress (common/pg_lzcompress.c) as datum.pglz_decompress: the rawsize bytes the stream src[0..n) gives,
   into out; 0 where Python raises PglzError (a tag cut off or reaching before the output, a stream giving other than
   rawsize bytes or left unused). Control bytes, LSB first: a 0 bit is a literal byte, a 1 bit a 2-3 byte tag
   copying len bytes from off back (overlaps repeat). */
static int pglz_inflate(const uint8_t *src, int64_t n, uint8_t *out, int64_t rawsize)
{
    int64_t sp = 0, op = 0;
    while (sp < n && op < rawsize) {
        const uint8_t ctrl = src[sp++];
        for (int bit = 0; bit < 8 && sp < n && op < rawsize; bit++) {
            if (!(ctrl & (1 << bit))) {
                out[op++] = src[sp++];
                continue;
            }
            if (sp + 1 >= n) return 0;
            int64_t length = (src[sp] & 0x0F) + 3;
            const int64_t off = ((int64_t)(src[sp] & 0xF0) << 4) | src[sp + 1];
            sp += 2;
            if (length == 18) {
                if (sp >= n) return 0;
                length += src[sp++];
            }
            if (off == 0 || off > op) return 0;
            if (length > rawsize - op) length = rawsize - op;
            for (const int64_t stop = op + length; op < stop; op++) out[op] = out[op - off];
        }
    }
    return op == rawsize && sp == n;
}

/* An inline-compressed varlena v, vlen bytes (VARATT_IS_4B_C), as the uncompressed varlena with a 4-byte header
   it stands for, in a buffer kept from call to call (the biggest value's size): *len its size. NULL: declined
   (lz4 or another method, or a stream pglz_inflate refuses: Python's, which reports it). */
static uint8_t *inflate_buf;
static int64_t inflate_cap;
static const uint8_t *inflated(const uint8_t *v, int64_t vlen, int64_t *len)
{
    const int64_t tcinfo = (int64_t)u32(v + 4), rawsize = tcinfo & 0x3FFFFFFF;
    if (tcinfo >> 30 || rawsize > 88 * vlen) return NULL;   /* not pglz; more than a pglz stream can give */
    if (rawsize + 4 > inflate_cap) {
        uint8_t *grown = realloc(inflate_buf, (size_t)(rawsize + 4));
        if (!grown) return NULL;
        inflate_buf = grown;
        inflate_cap = rawsize + 4;
    }
    if (!pglz_inflate(v + 8, vlen - 8, inflate_buf + 4, rawsize)) return NULL;
    const uint32_t header = (uint32_t)(rawsize + 4) << 2;   /* VARSIZE_4B, uncompressed */
    memcpy(inflate_buf, &header, 4);
    *len = rawsize + 4;
    return inflate_buf;
}

/*
 * CSV lines of tuples of a chunk (base: the chunk's pages, flat, base_len bytes; tuple t is tlen[t] bytes from
 * start[t], with its t_hoff, natts and HEAP_HASNULL), walked as pgp_deform walks them over the relation's natt
 * attributes (attlen, attalign: dropped ones included), printing attributes cols[0..ncols) as kinds[] (K_*).
 * With params[CP_system], each line starts with the ctid (quoted: it holds a comma), xmin, xmax and status as
 * `pgpage rows --all` prints them: sys is 5 rows of ntup (block, item, xmin, xmax, status index), status_text
 * the status names one after the other, status_off[k]..status_off[k + 1] the k-th of nstatus. tz: the session's
 * time zone (Zone above) for timestamptz.
 *
 * A column of kind K_given is printed from the text Python gives for it (a type the printer does not know): the
 * ngiven such columns' texts of tuple t are given_len[t * ngiven + g] bytes (UTF-8) at given_start[t * ngiven + g]
 * of given_text, -1 for NULL, or -2 when Python prints the whole tuple (then declined).
 *
 * With `toasted`, a printed column's value whose bytes are a TOAST pointer is printed from the value Python fetched
 * from the TOAST table (a varlena with a 4-byte header): toast_len[t * ncols + c] bytes at toast_start[t * ncols + c]
 * of toast_data, start -1 for none (the tuple's own bytes are printed: a pointer Python could not fetch the value of
 * is then declined, as any pointer is).
 *
 * K_enum values are printed from enums and labels (Out's).
 *
 * With params[CP_json], each line is instead the tuple's `pgpage rows --json` record (put_json_head, then the values
 * by name, as JSON strings or null): sys has 11 rows (block, item, xmin, xmax, status index, xmin's and xmax's
 * verdict indexes, t_ctid's block and offset, t_infomask, t_infomask2); status_text holds the nstatus status names,
 * then the params[CP_json_nxid] verdict names, then each printed column's key (`"name":`, as JSON writes it).
 *
 * Lines go one after the other into out (out_cap bytes); ends[t] is where tuple t's line ends, ok[t] 1 when it
 * was printed, 0 when declined (nothing written: ends[t] is where its line would have started). Returns how many
 * tuples were done: fewer than ntup when the next line did not fit (the caller takes the text and calls again
 * from there); a line that does not fit in the whole buffer is declined.
 */
int64_t pgp_csv_rows(const uint8_t *base, int64_t base_len, int64_t ntup, const int64_t *start, const int64_t *tlen,
                     const int64_t *t_hoff, const int64_t *natts, const uint8_t *hasnull, const int64_t *attlen,
                     const int64_t *attalign, int64_t natt, const int64_t *cols, const int64_t *kinds,
                     const int64_t *extra, int64_t ncols,
                     const int64_t *sys, const uint8_t *status_text, const int64_t *status_off, int64_t nstatus,
                     const int64_t *tz, const int64_t *params, const uint8_t *given_text, const int64_t *given_start,
                     const int64_t *given_len, int64_t ngiven, const int64_t *enums, const uint8_t *labels,
                     int64_t toasted, const uint8_t *toast_data, const int64_t *toast_start, const int64_t *toast_len,
                     uint8_t *out, int64_t out_cap, int64_t *ends, uint8_t *ok)
{
    int64_t P[MAX_TUPLE_ATTS], L[MAX_TUPLE_ATTS];
    const int64_t nats = tz[0], nrule = tz[1];
    const Zone zone = {tz + 6, tz + 6 + nats, tz + 6 + 2 * nats, tz + 6 + 2 * nats + nrule, nats, nrule, tz[2], tz[3],
                       tz[4], tz[5]};
    const int64_t major = params[CP_major];
    const int single = params[CP_single_column] != 0, system = params[CP_system] != 0;
    const int index = params[CP_index_tuples] != 0;   /* B-tree leaf tuples (t_hoff 8 or 16) instead of heap tuples */
    const int64_t bits_at = index ? INDEX_BITS_AT : HEAP_BITS_AT, slack = index ? 7 : 0;
    const int json = params[CP_json] != 0;
    const int64_t nxid = params[CP_json_nxid], keys_at = nstatus + nxid;
    Out o = {out, out + out_cap, 0, json, enums, labels};
    int usable = natt <= MAX_TUPLE_ATTS;
    int64_t nk_given = 0;
    for (int64_t c = 0; c < ncols; c++) {
        if (cols[c] < 0 || cols[c] >= natt || kinds[c] < 0 || kinds[c] >= K__COUNT) usable = 0;
        nk_given += kinds[c] == K_given;
    }
    if (nk_given != ngiven) usable = 0;
    for (int64_t t = 0; t < ntup; t++) {
        uint8_t *const line = o.p;
        const int64_t *gstart = given_start + t * ngiven, *glen = given_len + t * ngiven;
        int good = usable;
        for (int64_t g = 0; good && g < ngiven; g++)
            if (gstart[g] < -1) good = 0;
        good = good && start[t] >= 0 && tlen[t] >= 0 && start[t] <= base_len - tlen[t]
            && deform_one(base + start[t], tlen[t], t_hoff[t], natts[t], hasnull[t], attlen, attalign, natt, P, L,
                          bits_at, slack, toasted != 0);
        if (good && json)
            good = put_json_head(&o, sys, ntup, t, status_text, status_off, nstatus, nxid, params[CP_json_updated]);
        else if (good && system) {
            const int64_t st = sys[4 * ntup + t];
            if (st < 0 || st >= nstatus || status_off[st + 1] - status_off[st] > 64) good = 0;
            else if (room(&o, 4 + 3 * 21 + 64)) {
                uint8_t *p = o.p;
                *p++ = '"';
                *p++ = '(';
                p = put_i64(p, sys[t]);
                *p++ = ',';
                p = put_i64(p, sys[ntup + t]);
                *p++ = ')';
                *p++ = '"';
                *p++ = ',';
                p = put_i64(p, sys[2 * ntup + t]);
                *p++ = ',';
                p = put_i64(p, sys[3 * ntup + t]);
                *p++ = ',';
                memcpy(p, status_text + status_off[st], (size_t)(status_off[st + 1] - status_off[st]));
                p += status_off[st + 1] - status_off[st];
                o.p = p;
            }
        }
        const uint8_t *d = base + start[t];
        for (int64_t c = 0, g = 0; good && c < ncols; c++) {
            const int64_t i = cols[c];
            const int given = kinds[c] == K_given;
            const int is_null = given ? gstart[g] < 0 : P[i] < 0;
            const uint8_t *v = given ? given_text + gstart[g] : d + P[i];
            int64_t vlen = given ? glen[g] : L[i];
            g += given;
            if (toasted && !given && toast_start[t * ncols + c] >= 0) {
                v = toast_data + toast_start[t * ncols + c];
                vlen = toast_len[t * ncols + c];
            }
            if (!given && !is_null && attlen[i] == -1 && vlen >= 8 && (v[0] & 0x03) == 0x02
                && !(v = inflated(v, vlen, &vlen))) {
                good = 0;
                break;
            }
            if (json) {
                const int64_t key = status_off[keys_at + c], key_len = status_off[keys_at + c + 1] - key;
                if (!room(&o, key_len + 6)) break;
                if (c > 0) *o.p++ = ',';
                o.p = put_bytes(o.p, status_text + key, key_len);
                if (is_null) {
                    o.p = put_str(o.p, "null");
                    continue;
                }
                *o.p++ = '"';
                uint8_t *const value = o.p;
                good = given ? put_text(&o, v, vlen, 0) : put_column(&o, kinds[c], extra + 5 * c, v, vlen, &zone, major,
                                                                    0);
                json_escape(&o, value);
                if (room(&o, 1)) *o.p++ = '"';
                continue;
            }
            if ((c > 0 || system) && room(&o, 1)) *o.p++ = ',';
            if (is_null) continue; /* NULL: nothing */
            good = given ? put_text(&o, v, vlen, single)
                         : put_column(&o, kinds[c], extra + 5 * c, v, vlen, &zone, major, single);
        }
        if (good && json && room(&o, 2)) o.p = put_str(o.p, "}}");
        if (good && room(&o, 1)) *o.p++ = '\n';
        if (o.full) {
            o.p = line;
            o.full = 0;
            if (line != out) return t;
            good = 0;
        }
        if (!good) o.p = line;
        ends[t] = o.p - out;
        ok[t] = (uint8_t)good;
    }
    return ntup;
}

/* A 64-bit hash of each of n lines one after the other in buf (line t ends at ends[t], the first starts at 0):
   verify --heapallindexed compares keys by the hash of their CSV lines. MurmurHash64A's mixing, 8 bytes at a time. */
void pgp_line_hashes(const uint8_t *buf, const int64_t *ends, int64_t n, uint64_t *out)
{
    const uint64_t m = UINT64_C(0xc6a4a7935bd1e995);
    for (int64_t t = 0; t < n; t++) {
        const uint8_t *p = buf + (t ? ends[t - 1] : 0), *e = buf + ends[t];
        uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ ((uint64_t)(e - p) * m);
        for (; e - p >= 8; p += 8) {
            uint64_t k;
            memcpy(&k, p, 8);
            k *= m;
            k ^= k >> 47;
            k *= m;
            h ^= k;
            h *= m;
        }
        uint64_t k = 0;
        for (int i = 0; p + i < e; i++) k |= (uint64_t)p[i] << (8 * i);
        h ^= k;
        h *= m;
        h ^= h >> 47;
        h *= m;
        h ^= h >> 47;
        out[t] = h;
    }
}

/* verify --heapallindexed: the root of the HOT chain each heap-only tuple is in, page by page: roots[p * stride + o - 1]
   is the offset of the root (a redirect, or a tuple that is HOT-updated and not heap-only) whose chain reaches the
   heap-only tuple at offset o of page p, 0 when none does. Each root's chain is followed in turn, in offset order,
   until a line pointer that is not a heap-only tuple, one a chain reached before, or the end of the chain. */
static inline int hot_tuple_at(const uint8_t *pg, int64_t bs, int64_t n, int64_t o, const int64_t *layout,
                               int64_t *im2, int64_t *next)
{
    if (o < 1 || o > n) return 0;
    const int64_t w = u32(pg + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (o - 1));
    const int64_t off = (w >> layout[L_lp_off_shift]) & layout[L_lp_off_mask];
    if (((w >> layout[L_lp_flags_shift]) & layout[L_lp_flags_mask]) != LP_NORMAL || off + 24 > bs) return 0;
    *im2 = u16(pg + off + layout[L_t_infomask2]);
    *next = u16(pg + off + layout[L_ip_posid]);   /* t_ctid's offset */
    return 1;
}

void pgp_hot_roots(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout, int64_t stride,
                   int16_t *roots)
{
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *pg = pages + p * bs;
        int16_t *root = roots + p * stride;
        memset(root, 0, (size_t)stride * sizeof *root);
        const int64_t lower = u16(pg + layout[L_pd_lower]);
        int64_t n = lower >= SIZE_OF_PAGE_HEADER ? (lower - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID : 0;
        if (n > stride) n = stride;
        for (int64_t r = 1; r <= n; r++) {
            const int64_t w = u32(pg + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (r - 1));
            int64_t im2, next;
            if (((w >> layout[L_lp_flags_shift]) & layout[L_lp_flags_mask]) == LP_REDIRECT)
                next = (w >> layout[L_lp_off_shift]) & layout[L_lp_off_mask];
            else if (!hot_tuple_at(pg, bs, n, r, layout, &im2, &next) || (im2 & HEAP_ONLY_TUPLE)
                     || !(im2 & HEAP_HOT_UPDATED))
                continue;
            for (int64_t step = 0; step < n; step++) {
                int64_t o = next;
                if (!hot_tuple_at(pg, bs, n, o, layout, &im2, &next) || !(im2 & HEAP_ONLY_TUPLE) || root[o - 1])
                    break;
                root[o - 1] = (int16_t)r;
                if (!(im2 & HEAP_HOT_UPDATED)) break;
            }
        }
    }
}

/* ---------------------------------------------------------------------------------------- verify's heap sieve */
/*
 * For `pgpage verify` (analysis/verify/heap.py): which pages of a chunk of heap pages could give a finding. A
 * page left at 0 gives none: every rule of analysis/verify (pages.py, heap.py, hot.py, xids.py, vm.py) holds on
 * it, checked here as the Python rules check it. A page set to 1 may (or holds what is not checked here: a
 * multixact xmax, a TOAST pointer, an all-zero page); the Python rules judge those pages and word the findings,
 * so this only decides which pages they need to see. Conservative by construction: anything unusual sets 1.
 */
#define HEAP_HASNULL 0x0001
#define HEAP_HASEXTERNAL 0x0004
#define HEAP_UPDATED 0x2000
#define HEAP_NATTS_MASK 0x07FF
#define PD_VALID_FLAG_BITS 0x0007
#define PG_PAGE_LAYOUT_VERSION 4
#define SPEC_TOKEN_OFFSET 0xFFFE
#define MOVED_PARTITIONS_OFFSET 0xFFFD
#define INVALID_BLOCK 0xFFFFFFFFLL
/* what pgp_verify_heap_sieve takes in `vp` */
enum { VP_checksums, VP_checksum_word, VP_checksum_keep, VP_has_bounds, VP_next_full, VP_oldest_full, VP_relmin_full,
       VP_relnatts, VP_nblocks, VP_toast, VP_has_vm, VP_has_resolver, VP_t_field3, VP_t_hoff, VP__COUNT };

/* xids.py's xid_bounds: 0 when the xid is within pg_control's and pg_class's horizons */
static inline int xid_out_of_bounds(int64_t x, const int64_t *vp)
{
    if (x == 0) return 1; /* XID_INVALID: not a finding by itself, but the rules then take other paths */
    if (!vp[VP_has_bounds] || x < FIRST_NORMAL_XID) return 0;
    const int64_t next_full = vp[VP_next_full];
    int64_t diff = (int64_t)(int32_t)(uint32_t)((uint32_t)next_full - (uint32_t)x);
    int64_t full = next_full - diff;
    if (diff > 0 && next_full - FIRST_NORMAL_XID < diff) full = FIRST_NORMAL_XID;
    return full >= next_full || full < vp[VP_oldest_full] || full < vp[VP_relmin_full];
}

void pgp_checksum_pages(const uint32_t *words, int64_t n, int64_t bs, const int64_t *blknos, int64_t checksum_word,
                        uint32_t checksum_keep, uint16_t *out);

/* Whether item [off, off + len) shares bytes with one marked before on this page (then 1), marking it. Items
   start MAXALIGNed (misaligned ones are left to the rules first), so 8-byte units tell overlaps exactly: `stamp`
   holds per unit the page (`mark`, never 0) that last covered it. */
static inline int overlaps_marked(uint32_t *stamp, uint32_t mark, int64_t off, int64_t len)
{
    for (int64_t u = off / 8; u < (off + len + 7) / 8; u++) {
        if (stamp[u] == mark) return 1;
        stamp[u] = mark;
    }
    return 0;
}
static uint32_t sieve_mark;
static uint32_t sieve_stamp[MAX_BLCKSZ / 8];
static inline uint32_t next_mark(void)
{
    if (++sieve_mark == 0) {   /* wrapped: forget every old mark */
        memset(sieve_stamp, 0, sizeof sieve_stamp);
        sieve_mark = 1;
    }
    return sieve_mark;
}

void pgp_verify_heap_sieve(const uint8_t *pages, int64_t npages, int64_t bs, int64_t first_blkno,
                           const int64_t *layout, const int64_t *vp, const uint8_t *vm_visible,
                           const uint8_t *vm_frozen, const uint8_t *clog_data, const int64_t *seg_start,
                           const int64_t *seg_len, int64_t nseg, int64_t xps, int ipa, uint8_t *flagged,
                           const int64_t *attlen, const int64_t *attalign, int64_t ncols)
{
    int64_t P[MAX_TUPLE_ATTS], L[MAX_TUPLE_ATTS];   /* deform_one's scratch: where each attribute lies */
    const Clog clog = {clog_data, seg_start, seg_len, nseg, xps, ipa};
    const int64_t max_lp = (bs - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    const int64_t max_htpp = (bs - SIZE_OF_PAGE_HEADER) / (MIN_HEAP_TUPLE_SIZE + SIZE_OF_ITEM_ID);
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_xmin = layout[L_t_xmin], o_xmax = layout[L_t_xmax], o_hi = layout[L_bi_hi],
                  o_lo = layout[L_bi_lo], o_posid = layout[L_ip_posid], o_im2 = layout[L_t_infomask2],
                  o_im = layout[L_t_infomask], o_f3 = vp[VP_t_field3], o_hoff = vp[VP_t_hoff];
    static int16_t offs[MAX_LP + 2], lens[MAX_LP + 2], preds[MAX_LP + 2];
    static int8_t fls[MAX_LP + 2], xst[MAX_LP + 2];
    static int64_t xmins[MAX_LP + 2];
    static uint16_t im2s[MAX_LP + 2];

    int64_t xmin_in_bounds = 0;   /* the last xmin found within the horizons (0 is never: XID_INVALID) */
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        const int64_t blk = first_blkno + p;
        flagged[p] = 1;
        /* pages.py: an all-zero page (the Python rules say what, if anything, is wrong with it) */
        const uint64_t *w64 = (const uint64_t *)page;
        uint64_t any = 0;
        for (int64_t i = 0; i < 4; i++) any |= w64[i];
        if (!any) continue;
        /* pages.py: the checksum, the header */
        if (vp[VP_checksums] != 0) {
            uint16_t sum;
            const int64_t b32 = blk & 0xFFFFFFFF;
            pgp_checksum_pages((const uint32_t *)page, 1, bs, &b32, vp[VP_checksum_word], (uint32_t)vp[VP_checksum_keep],
                               &sum);
            if (sum == 0 || sum != u16(page + layout[L_pd_checksum])) continue;
        }
        const int64_t pd_flags = u16(page + layout[L_pd_flags]), lower = u16(page + layout[L_pd_lower]),
                      upper = u16(page + layout[L_pd_upper]), special = u16(page + layout[L_pd_special]),
                      psv = u16(page + layout[L_pd_pagesize_version]);
        if (upper == 0 || (psv & 0xFF00) != bs || (psv & 0xFF) != PG_PAGE_LAYOUT_VERSION
            || (pd_flags & ~PD_VALID_FLAG_BITS) || lower < SIZE_OF_PAGE_HEADER || lower > upper || upper > special
            || special != bs) /* heap.py: a heap page has no special space */
            continue;
        const int pd_vis = (pd_flags & PD_ALL_VISIBLE) != 0;
        const int vis = vm_visible ? vm_visible[p] != 0 : 0, frz = vm_frozen ? vm_frozen[p] != 0 : 0;
        /* vm.py's page rules */
        if (frz && !vis) continue;
        if (vp[VP_has_vm] && vis != pd_vis) continue;
        const int claims = vis || pd_vis;
        int64_t nlp = (lower - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
        if (nlp > max_lp) nlp = max_lp;

        /* heap.py: line pointers */
        int bad = 0, stamped = 0;
        int64_t low_start = special;   /* items seen so far lie in [low_start, special) while none is stamped */
        const uint32_t mark = next_mark();
        for (int64_t i = 1; i <= nlp && !bad; i++) {
            const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (i - 1));
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            fls[i] = (int8_t)fl;
            offs[i] = (int16_t)off;
            lens[i] = (int16_t)ln;
            preds[i] = 0;
            if (fl == LP_UNUSED) { bad = ln != 0 || off != 0; continue; }
            if (fl == LP_REDIRECT) { bad = ln != 0 || off < 1 || off > nlp; continue; }
            if (claims && fl == LP_DEAD) { bad = 1; continue; }   /* vm.py: LP_DEAD on an all-visible page */
            if (ln == 0) { bad = fl == LP_NORMAL; continue; }  /* LP_DEAD without storage is fine */
            bad = off < upper || off + ln > special || off % 8 != 0 || (fl == LP_NORMAL && ln < MIN_HEAP_TUPLE_SIZE);
            if (bad) continue;
            /* ... and no two items share bytes: an item below every one before it shares none (items are mostly
               placed so, from the page's end down); else every item so far is stamped and the stamps decide */
            if (!stamped && off + ln <= low_start) { low_start = off; continue; }
            if (!stamped) {
                for (int64_t j = 1; j < i; j++)
                    if (lens[j] && (fls[j] == LP_NORMAL || fls[j] == LP_DEAD))
                        overlaps_marked(sieve_stamp, mark, offs[j], lens[j]);
                stamped = 1;
            }
            bad = overlaps_marked(sieve_stamp, mark, off, ln);
        }
        if (bad) continue;
        /* heap.py: redirects lead to a normal item, which is a heap-only tuple (hot.py) */
        for (int64_t i = 1; i <= nlp && !bad; i++) {
            if (fls[i] != LP_REDIRECT) continue;
            const int64_t t = offs[i];
            bad = fls[t] != LP_NORMAL || !(u16(page + offs[t] + o_im2) & HEAP_ONLY_TUPLE) || ++preds[t] > 1;
        }
        if (bad) continue;

        /* heap.py and xids.py: tuple headers, first pass (each tuple alone) */
        for (int64_t i = 1; i <= nlp && !bad; i++) {
            if (fls[i] != LP_NORMAL) continue;
            const uint8_t *t = page + offs[i];
            const int64_t im = u16(t + o_im), im2 = u16(t + o_im2), xmin = u32(t + o_xmin), xmax = u32(t + o_xmax);
            const int64_t natts = im2 & HEAP_NATTS_MASK, hoff = t[o_hoff];
            const int64_t cblk = (u16(t + o_hi) << 16) | u16(t + o_lo), coff = u16(t + o_posid);
            const int64_t expected_hoff = (23 + ((im & HEAP_HASNULL) ? (natts + 7) / 8 : 0)
                                           + ((im & HEAP_HASOID_OLD) ? 4 : 0) + 7) & ~(int64_t)7;
            const int frozen_hint = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN;
            const int xmin_invalid_hint = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_INVALID;
            if (hoff > lens[i] || hoff != expected_hoff || (im & HEAP_XMAX_IS_MULTI)
                || ((im2 & HEAP_ONLY_TUPLE) && !(im & HEAP_UPDATED)) || xmin == 0
                || (!frozen_hint && xmin != xmin_in_bounds && xid_out_of_bounds(xmin, vp))) { bad = 1; break; }
            if (!frozen_hint) xmin_in_bounds = xmin;   /* (tuples loaded together share their xmin) */
            const int hot_updated = (im2 & HEAP_HOT_UPDATED) && !(im & HEAP_XMAX_INVALID) && !xmin_invalid_hint;
            if (hot_updated && xmax == 0) { bad = 1; break; }
            const int ms = xmin_state(im, xmin, &clog);
            const int xs = xmax_state(im, xmax, -1, (int)vp[VP_has_resolver], &clog);
            const int lock_only = xmax_is_locked_only(im);
            const int inserted = ms == ST_COMMITTED || ms == ST_FROZEN || ms == ST_UNKNOWN;
            /* heap.py: an xid whose status pg_xact does not hold (or a sub-committed one) */
            if (nseg > 0 && (ms == ST_UNKNOWN || xs == ST_UNKNOWN)) { bad = 1; break; }
            if (inserted && !(im & HEAP_XMAX_INVALID) && !lock_only && xmax != 0 && xid_out_of_bounds(xmax, vp))
                { bad = 1; break; }
            if (vp[VP_relnatts] >= 0 && natts > vp[VP_relnatts]) { bad = 1; break; }
            if (vp[VP_toast] && (im & HEAP_HASEXTERNAL) && !xmin_invalid_hint) { bad = 1; break; }
            /* tuples.py: the attributes of a tuple verify_heapam walks (inserter committed, not more than the
               relation's) lie within it, end where it does and hold no TOAST pointer: else deform.py words it */
            if (ncols > 0 && ncols <= MAX_TUPLE_ATTS && inserted && !xmin_invalid_hint && natts > 0 && natts <= ncols
                && !deform_one(t, lens[i], hoff, natts, (im & HEAP_HASNULL) != 0, attlen, attalign, natts, P, L,
                               HEAP_BITS_AT, 0, 0))
                { bad = 1; break; }
            /* t_ctid */
            const int special_ctid = coff == SPEC_TOKEN_OFFSET || (cblk == INVALID_BLOCK && coff == MOVED_PARTITIONS_OFFSET);
            if (special_ctid || coff == 0 || coff > max_htpp) { bad = 1; break; }
            if (hot_updated && !lock_only && cblk != blk) { bad = 1; break; }
            if (vp[VP_nblocks] >= 0 && xs == ST_COMMITTED && !lock_only && cblk != blk && cblk >= vp[VP_nblocks])
                { bad = 1; break; }
            /* hot.py: a committed HOT update's successor is on the page, normal, inserted by the updater */
            if (hot_updated && !lock_only && xs == ST_COMMITTED && cblk == blk && coff != i && xmax > 0) {
                if (coff > nlp || fls[coff] != LP_NORMAL || u32(page + offs[coff] + o_xmin) != xmax) { bad = 1; break; }
            }
            /* vm.py: what a page marked all-visible (or all-frozen) holds */
            if (claims && (ms == ST_ABORTED || ms == ST_IN_PROGRESS || xs == ST_COMMITTED || xs == ST_IN_PROGRESS))
                { bad = 1; break; }
            if (frz && ((!frozen_hint && xmin >= FIRST_NORMAL_XID)
                        || (!(im & HEAP_XMAX_INVALID) && xmax >= FIRST_NORMAL_XID)
                        || ((im & HEAP_MOVED) && u32(t + o_f3) >= FIRST_NORMAL_XID))) { bad = 1; break; }
            xmins[i] = xmin;
            xst[i] = (int8_t)ms;
            im2s[i] = (uint16_t)im2;
        }
        if (bad) continue;
        /* hot.py: update chains on the page, tuple to tuple (a successor of the same page whose xmin is this
           tuple's xmax), each item the successor of one predecessor at most */
        for (int64_t i = 1; i <= nlp && !bad; i++) {
            if (fls[i] != LP_NORMAL) continue;
            const uint8_t *t = page + offs[i];
            const int64_t cblk = (u16(t + o_hi) << 16) | u16(t + o_lo), coff = u16(t + o_posid), xmax = u32(t + o_xmax);
            if (cblk != blk || coff == i || coff < 1 || coff > nlp || fls[coff] != LP_NORMAL) continue;
            if (!(xmax > 0 && xmax == xmins[coff])) continue;
            if (++preds[coff] > 1) { bad = 1; break; }
            if (((im2s[i] & HEAP_HOT_UPDATED) != 0) != ((im2s[coff] & HEAP_ONLY_TUPLE) != 0)) { bad = 1; break; }
            if (xst[i] == ST_ABORTED && (xst[coff] == ST_COMMITTED || xst[coff] == ST_IN_PROGRESS)) { bad = 1; break; }
        }
        if (bad) continue;
        for (int64_t i = 1; i <= nlp && !bad; i++)   /* hot.py: a chain starts at a redirect or a non-heap-only tuple */
            bad = fls[i] == LP_NORMAL && preds[i] == 0 && (im2s[i] & HEAP_ONLY_TUPLE)
                  && (xst[i] == ST_COMMITTED || xst[i] == ST_FROZEN || xst[i] == ST_IN_PROGRESS);
        if (bad) continue;
        flagged[p] = 0;
    }
}

/* ---------------------------------------------------------------------------------------- verify's B-tree sieve */
/*
 * For `pgpage verify` (analysis/verify/btree.py, BtreeVerifier._items): which index pages' items could give a
 * finding (misaligned or overlapping items, _bt_check_natts, the tuple size limit). A page left at 0 gives none
 * there; a page set to 1 may, and the Python rules judge its items and word the findings. `nlp[p]`: the line
 * pointers to look at (0: a page the rules skip). `bp`: heapkeyspace (-1 unknown: only the line pointer rules),
 * natts and nkeyatts (-1 unknown), the size limits of leaf/heapkeyspace and other tuples.
 */
#define BTP_LEAF 0x1
#define BTP_HALF_DEAD 0x10
#define BT_OPAQUE_SIZE 16

/* The page-level facts and the relation's parameters the item rules below read */
typedef struct {
    int64_t hk, natts, nkey, lim_leaf, lim_other;
    int known, is_leaf, halfdead, rightmost;
    int64_t fk;
} SieveRules;

/* Whether item i (its IndexTupleData's ip_posid and t_info, its line pointer's length) breaks _bt_check_natts
   or the tuple size limit, as BtreeVerifier._natts and _items decide (r->hk 0 or 1). */
static inline int item_rules_bad(const SieveRules *r, int64_t i, int64_t posid, int64_t info, int64_t ln)
{
    const int64_t hk = r->hk, natts = r->natts, nkey = r->nkey;
    const int64_t tsize = info & INDEX_SIZE_MASK;
    const int alt = (info & INDEX_ALT_TID_MASK) != 0;
    const int posting = alt && (posid & BT_IS_POSTING), pivot = alt && !posting;
    const int has_tid = (posid & BT_PIVOT_HEAP_TID_ATTR) != 0;
    if (r->is_leaf && !r->halfdead && hk == 1 && r->known && i >= r->fk)
        /* what the rules below come to for a data item of a live leaf page of a heapkeyspace index whose columns
           are known (nearly every item): a posting list needs no heap TID attribute and key columns only; a
           pivot here is the scan's finding, not checked; and the size limit */
        return (posting && (has_tid || natts != nkey)) || (tsize > r->lim_leaf && tsize == ln);
    const int nonpivot_slot = r->is_leaf && i >= r->fk, hikey_slot = !r->rightmost && i == 1;
    const int neginf_slot = !r->is_leaf && i == r->fk;
    const int checked = !r->halfdead && !(nonpivot_slot && pivot);
    const int64_t tupnatts = pivot ? (posid & BT_OFFSET_MASK) : natts;
    int ok = 1;
    if (!hk) ok &= !posting;
    ok &= !(posting && has_tid);
    if (r->known && natts != nkey) ok &= !posting;
    if (nonpivot_slot) {
        ok &= !pivot;
        if (r->known) ok &= tupnatts == natts;
    }
    const int hik = r->is_leaf && hikey_slot, sep = !r->is_leaf && !neginf_slot;
    if (hk) {
        if (neginf_slot) ok &= pivot && tupnatts == 0;
        if (hik || sep) {
            ok &= pivot && !posting && tupnatts > 0;
            if (r->known) ok &= !(has_tid && tupnatts != nkey) && tupnatts <= nkey;
        }
    } else {
        if (neginf_slot) ok &= (pivot && tupnatts == 0) || posid == 1;
        if (r->known && (hik || sep)) ok &= (pivot ? tupnatts : natts) == nkey;
    }
    const int64_t lim = hk && (r->is_leaf || !(pivot && has_tid)) ? r->lim_leaf : r->lim_other;
    return (!ok && checked) || (tsize > lim && tsize == ln);
}

/* A live leaf page of a heapkeyspace index whose columns are known, laid out as nbtree lays it out: every data
   item usable and aligned, each below the one before from the special space down (so no two overlap), then the
   high key below them all. 1 when its items break no rule (the page needs no look); 0 when the general loop must
   decide. One tight pass over the items of nearly every page of an index. */
static int sieve_plain_leaf(const uint8_t *page, const int64_t *layout, int64_t nlp, int64_t upper, int64_t special,
                            const SieveRules *r)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_posid = layout[L_t_tid_ip_posid], o_info = layout[L_t_info];
    int64_t low = special;
    for (int64_t i = r->fk; i <= nlp; i++) {
        const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (i - 1));
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        if (!((fl == LP_NORMAL || fl == LP_DEAD) && off >= upper && ln >= 8 && off + ln <= low && !(off & 7)))
            return 0;
        low = off;
        const int64_t posid = u16(page + off + o_posid), info = u16(page + off + o_info);
        if ((info & INDEX_ALT_TID_MASK) && (posid & BT_IS_POSTING)
            && ((posid & BT_PIVOT_HEAP_TID_ATTR) || r->natts != r->nkey))
            return 0;
        if ((info & INDEX_SIZE_MASK) > r->lim_leaf && (info & INDEX_SIZE_MASK) == ln) return 0;
    }
    if (r->fk == 2 && nlp >= 1) {   /* the high key */
        const int64_t w = u32(page + SIZE_OF_PAGE_HEADER);
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        if (!((fl == LP_NORMAL || fl == LP_DEAD) && off >= upper && ln >= 8 && off + ln <= low && !(off & 7)))
            return 0;
        if (item_rules_bad(r, 1, u16(page + off + o_posid), u16(page + off + o_info), ln)) return 0;
    }
    return 1;
}

void pgp_verify_btree_sieve(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout,
                            const int64_t *nlp_in, const int64_t *bp, uint8_t *flagged)
{
    SieveRules r = {bp[0], bp[1], bp[2], bp[3], bp[4], bp[1] >= 0 && bp[2] >= 0, 0, 0, 0, 0};
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_posid = layout[L_t_tid_ip_posid], o_info = layout[L_t_info];

    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        if (p + 2 < npages) pgp_prefetch_page(page + 2 * bs, bs);
        const int64_t nlp = nlp_in[p];
        flagged[p] = 0;
        if (nlp <= 0) continue;
        const int64_t upper = u16(page + layout[L_pd_upper]), special = u16(page + layout[L_pd_special]);
        const int64_t btflags = u16(page + bs - BT_OPAQUE_SIZE + 12);
        r.is_leaf = (btflags & BTP_LEAF) != 0;
        r.halfdead = (btflags & BTP_HALF_DEAD) != 0;
        r.rightmost = u32(page + bs - BT_OPAQUE_SIZE + 4) == 0;
        r.fk = r.rightmost ? 1 : 2;
        if (r.is_leaf && !r.halfdead && r.hk == 1 && r.known && sieve_plain_leaf(page, layout, nlp, upper, special, &r))
            continue;
        int bad = 0, stamped = 0;
        /* no two items share bytes: while each item lies wholly below or above all those before it (the union of
           their bytes lies in [low, high)), none can; once one does not, every item so far is stamped and the
           stamps decide. Items 2.. first, then 1: nbtree writes a page's items from its end down, in line pointer
           order, but a sorted build's high key (item 1) is the page's last tuple, the lowest */
        int64_t low = special, high = special;
        uint32_t mark = 0;
        for (int64_t k = 0; k < nlp && !bad; k++) {
            const int64_t i = k + 2 <= nlp ? k + 2 : 1;
            const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (i - 1));
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            if (!((fl == LP_NORMAL || fl == LP_DEAD) && off >= upper && off + ln <= special && ln >= 8)) continue;
            if (off % 8) { bad = 1; break; }
            if (!stamped) {
                if (low == high) { low = off; high = off + ln; }
                else if (off + ln <= low) low = off;
                else if (off >= high) high = off + ln;
                else {
                    mark = next_mark();
                    for (int64_t kk = 0; kk < k; kk++) {   /* the items so far: all passed, none overlapping */
                        const int64_t ii = kk + 2 <= nlp ? kk + 2 : 1;
                        const int64_t ww = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (ii - 1));
                        const int64_t o = (ww >> lo_s) & lo_m, f = (ww >> fl_s) & fl_m, l = (ww >> ln_s) & ln_m;
                        if ((f == LP_NORMAL || f == LP_DEAD) && o >= upper && o + l <= special && l >= 8)
                            overlaps_marked(sieve_stamp, mark, o, l);
                    }
                    stamped = 1;
                }
            }
            if (stamped && overlaps_marked(sieve_stamp, mark, off, ln)) { bad = 1; break; }
            if (r.hk < 0) continue;
            bad = item_rules_bad(&r, i, u16(page + off + o_posid), u16(page + off + o_info), ln);
        }
        flagged[p] = (uint8_t)bad;
    }
}

/* ------------------------------------------------------------------------------------------- staged reads */
/*
 * storage/relfile.py's StagedReader, its loop compiled: fill dest[0, n) from the file at `offset` through
 * `stage` (pread into a buffer that stays in the CPU's cache, then a copy on: see STAGE_BYTES). Returns the
 * bytes read (fewer at the file's end), or -errno.
 */
int64_t pgp_pread_staged(int fd, uint8_t *dest, int64_t n, int64_t offset, uint8_t *stage, int64_t stage_len)
{
    int64_t done = 0;
    while (done < n) {
        const int64_t want = n - done < stage_len ? n - done : stage_len;
        const ssize_t got = pread(fd, stage, (size_t)want, (off_t)(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        memcpy(dest + done, stage, (size_t)got);
        done += got;
        if (got < want) break;
    }
    return done;
}
