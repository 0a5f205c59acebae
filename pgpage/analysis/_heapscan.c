/*
 * _heapscan.c: the compiled whole-relation passes of pgpage (see kernels.py for why, and for the Python side).
 *
 * One walk over a chunk of heap pages: page header -> line pointers -> tuple headers, computing at once what
 * pgstattuple's figures and `pgpage heap` need (line pointer counts, tuple verdicts from the hint bits and the
 * pg_xact bytes, hint-bit predictions, HOT chains walked per page and bounded by MaxHeapTuplesPerPage,
 * visibility and freezing, free space and bloat), plus pg_checksum_page over many pages. And the B-tree pass of
 * analysis/btree.py: every item of a chunk of index pages (pgstatindex's and deduplication's figures, pivots,
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
#include <stdint.h>
#include <string.h>

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

/* Comma-separated names of table `which` (0 counters, 1 page columns, 2 event codes, 3 parameters, 4 best-of,
   5 layout; 7, 8, 9: the B-tree pass's page columns, totals and event codes) in index order; 6: the SHA-256
   (16 hex digits) of the source this was built from; "" for others. */
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
/* what btree.py says about each page (page_in[p * 3]: these bits; [p * 3 + 1]: its line pointers to read, as
   decode_headers clamps them; [p * 3 + 2]: pd_special) */
#define BT_IN_TREE 1    /* a leaf, internal or half-dead page: its items are read */
#define BT_LEAF_ITEMS 2 /* a leaf page, or a half-dead one with BTP_LEAF: items after the high key hold heap TIDs */
#define BT_RIGHTMOST 4  /* btpo_next is P_NONE: no high key */
#define BT_INTERNAL 8   /* an internal page (not half-dead): its items are downlinks */

static inline int64_t maxalign8(int64_t n) { return (n + 7) & ~(int64_t)7; }

typedef struct {
    int64_t *blk, *off, *iblk, *item;
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
        t->blk[n] = blk; t->off[n] = off; t->iblk[n] = block; t->item[n] = item; t->dead[n] = (uint8_t)dead;
    }
    return n + 1;
}

/*
 * Every item of a chunk of B-tree pages (global block numbers from first_blkno), by the rules btree.py's
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
                    int64_t dl_cap, int64_t *tid_blk, int64_t *tid_off, int64_t *tid_iblk, int64_t *tid_item,
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
    const Tids tids = {tid_blk, tid_off, tid_iblk, tid_item, tid_dead, tid_cap};
    int64_t ntid = 0, nev = 0, npost = 0, ndl = 0;

    for (int64_t p = 0; p < npages; p++) {
        const int64_t mode = page_in[p * 3], nlp = page_in[p * 3 + 1], special = page_in[p * 3 + 2];
        if (!(mode & BT_IN_TREE)) continue;
        const uint8_t *page = pages + p * bs;
        const int64_t block = first_blkno + p;
        const int leaf = (mode & BT_LEAF_ITEMS) != 0, rightmost = (mode & BT_RIGHTMOST) != 0;
        int64_t items = 0, dead_items = 0, high_keys = 0, high_key_bytes = 0, pivots = 0, pivot_bytes = 0,
                posting_tuples = 0, page_tids = 0, posting_tids = 0;
        for (int64_t i = 0; i < nlp; i++) {
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
/* HeapTidCheck's verdicts (btree.py: HEAP_STATES order) */
enum { H_NORMAL, H_REDIRECT, H_DEAD, H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END, H_BAD_PAGE };
/* HeapTidCheck's meta[slot]: the page's line pointers, and flags (one word: a TID's lookup touches one) */
#define META_NLP 0xFFFF
#define META_SANE 0x10000   /* the header can be trusted (or the page is new) */
#define META_BAD 0x20000    /* neither: reported when a TID needs the page */
#define META_NEEDED 0x40000 /* a TID needed the block since it was cached */

/*
 * Table pages into HeapTidCheck's cache: for k < n, the page at row rows[k] of `pages` goes to row slots[k] of
 * `states` (stride bytes each): one verdict per line pointer (H_UNUSED, H_NORMAL, H_REDIRECT, H_DEAD, or
 * H_HEAP_ONLY for a normal tuple whose header has HEAP_ONLY_TUPLE), and meta[slot]: how many (pd_lower's count,
 * at most stride - 1) and the page's flags.
 */
void pgp_heap_lp_states(const uint8_t *pages, int64_t n, int64_t bs, const int64_t *rows, const int64_t *layout,
                        const int64_t *slots, int8_t *states, int64_t stride, int32_t *meta)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t o_im2 = layout[L_t_infomask2];
    const int64_t max_lp = (bs - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
    static const int8_t by_flags[4] = {H_UNUSED, H_NORMAL, H_REDIRECT, H_DEAD};
    for (int64_t p = 0; p < n; p++) {
        const uint8_t *page = pages + rows[p] * bs;
        const int64_t slot = slots[p];
        int8_t *st = states + slot * stride;
        const int64_t lower = u16(page + layout[L_pd_lower]), upper = u16(page + layout[L_pd_upper]),
                      special = u16(page + layout[L_pd_special]), pv = u16(page + layout[L_pd_pagesize_version]);
        const int is_new = upper == 0;
        const int sane = (pv & 0xFF00) == bs && lower >= SIZE_OF_PAGE_HEADER && lower <= upper && upper <= special
            && special <= bs;
        memset(st, H_UNUSED, (size_t)stride);
        int64_t nlp = 0;
        if (sane) {
            nlp = ((lower < bs ? lower : bs) - SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID;
            if (nlp > max_lp) nlp = max_lp;
            if (nlp > stride - 1) nlp = stride - 1;
        }
        meta[slot] = (int32_t)(nlp | (sane || is_new ? META_SANE : META_BAD));
        for (int64_t i = 0; i < nlp; i++) {
            const int64_t w = u32(page + SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * i);
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            int8_t v = by_flags[fl & 3];
            if (fl == LP_NORMAL && ln >= MIN_HEAP_TUPLE_SIZE && off + MIN_HEAP_TUPLE_SIZE <= bs
                && (u16(page + off + o_im2) & HEAP_ONLY_TUPLE))
                v = H_HEAP_ONLY;
            st[i + 1] = v;
        }
    }
}

/*
 * Verdicts of the heap TIDs whose block is in the window lo..hi-1 (all cached, block b in slot b - lo), into
 * out[i], counted in counts[verdict] (and in counts_dead[verdict] when dead[i]: the index item is LP_DEAD). The
 * first TID that needs a block since it was cached marks it (META_NEEDED), and a block whose page is bad is then
 * listed in bad_blocks (*nbad of them), once per time it was cached; each block is marked in the bitmap `needed`
 * (bit b of the whole table). Each lookup is a cache miss, so the ones a few TIDs ahead
 * are prefetched, and counting is a second loop (in the first, each lookup would wait for the one before it,
 * through the counters).
 */
#define TID_PREFETCH 16
void pgp_tid_verdicts(const int64_t *blk, const int64_t *off, const uint8_t *dead, int64_t n, int64_t lo, int64_t hi,
                      const int8_t *states, int64_t stride, int32_t *meta, int8_t *out, int64_t *counts,
                      int64_t *counts_dead, uint8_t *needed, int64_t *bad_blocks, int64_t *nbad)
{
    int64_t nb = 0;
    for (int64_t i = 0; i < n; i++) {
        if (i + TID_PREFETCH < n) {
            const int64_t ahead = blk[i + TID_PREFETCH];
            if (ahead >= lo && ahead < hi) {
                __builtin_prefetch(meta + (ahead - lo));
                __builtin_prefetch(states + (ahead - lo) * stride + off[i + TID_PREFETCH]);
            }
        }
        const int64_t b = blk[i];
        if (b < lo || b >= hi) continue;
        const int64_t s = b - lo, o = off[i];
        const int32_t m = meta[s];
        needed[b >> 3] |= (uint8_t)(1u << (b & 7));
        if (!(m & META_NEEDED)) {
            meta[s] = m | META_NEEDED;
            if (m & META_BAD) bad_blocks[nb++] = b;
        }
        if (!(m & META_SANE)) out[i] = H_BAD_PAGE;
        else if (o >= 1 && o <= (m & META_NLP)) out[i] = states[s * stride + o];
        else out[i] = H_BEYOND_PAGE;
    }
    int64_t c[H_BAD_PAGE + 1] = {0}, cd[H_BAD_PAGE + 1] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (blk[i] < lo || blk[i] >= hi) continue;
        c[out[i]]++;
        cd[out[i]] += dead[i];
    }
    for (int k = 0; k <= H_BAD_PAGE; k++) { counts[k] += c[k]; counts_dead[k] += cd[k]; }
    *nbad = nb;
}

/* The distinct blocks in lo..hi-1 among blk[0..n), ascending, into out; returns how many. `bits` is a zeroed
   bitmap of hi - lo bits (block b: bit b - lo), left zeroed. Linear in n and in the span of the blocks / 64. */
int64_t pgp_unique_blocks(const int64_t *blk, int64_t n, int64_t lo, int64_t hi, uint64_t *bits, int64_t *out)
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
 * One level's sibling chain (btree.py: BtreeScan._walk_levels): from `start` along next[] while the page is live
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
void pgp_deform(const uint8_t *base, int64_t ntup, const int64_t *start, const int64_t *tlen, const int64_t *t_hoff,
                const int64_t *natts, const uint8_t *hasnull, const int64_t *attlen, const int64_t *attalign,
                int64_t ncols, uint8_t *ok, int64_t *pos_out, int64_t *len_out)
{
    for (int64_t t = 0; t < ntup; t++) {
        const uint8_t *d = base + start[t];
        int64_t n = tlen[t], h = t_hoff[t], off = h;
        int64_t *P = pos_out + t * ncols, *L = len_out + t * ncols;
        int good = h >= 23 && h <= n && natts[t] == ncols;
        for (int64_t i = 0; good && i < ncols; i++) {
            int64_t a = attalign[i], pos, len;
            if (hasnull[t]) {
                if (23 + (i >> 3) >= h) {
                    good = 0;
                    break;
                }
                if (!(d[23 + (i >> 3)] & (1 << (i & 7)))) {
                    P[i] = -1;
                    L[i] = 0;
                    continue;
                }
            }
            if (attlen[i] == -1 && off < n && d[off] != 0)
                pos = off;
            else
                pos = h + (((off - h) + a - 1) & ~(a - 1));
            if (pos >= n) {
                good = 0;
                break;
            }
            if (attlen[i] > 0)
                len = attlen[i];
            else if (attlen[i] == -1) {
                uint8_t b0 = d[pos];
                if (b0 == 0x01) { /* VARATT_IS_1B_E: a TOAST pointer */
                    good = 0;
                    break;
                }
                if (b0 & 0x01)
                    len = b0 >> 1;
                else {
                    if (n - pos < 4) {
                        good = 0;
                        break;
                    }
                    len = (int64_t)((d[pos] | (uint32_t)d[pos + 1] << 8 | (uint32_t)d[pos + 2] << 16 |
                                     (uint32_t)d[pos + 3] << 24) >> 2);
                    if (len < ((b0 & 0x03) == 0x02 ? 8 : 4)) {
                        good = 0;
                        break;
                    }
                }
            } else if (attlen[i] == -2) {
                const uint8_t *nul = memchr(d + pos, 0, (size_t)(n - pos));
                if (nul == NULL) {
                    good = 0;
                    break;
                }
                len = nul - (d + pos) + 1;
            } else {
                good = 0;
                break;
            }
            if (pos + len > n) {
                good = 0;
                break;
            }
            P[i] = pos;
            L[i] = len;
            off = pos + len;
        }
        ok[t] = good && off == n;
    }
}
