/*
 * _heapscan.c: the compiled heap pass of pgpage (see kernels.py for why, and for the Python side).
 *
 * One walk over a chunk of heap pages: page header -> line pointers -> tuple headers, computing at once what
 * pgstattuple's figures and `pgpage heap` need (line pointer counts, tuple verdicts from the hint bits and the
 * pg_xact bytes, hint-bit predictions, HOT chains walked per page and bounded by MaxHeapTuplesPerPage,
 * visibility and freezing, free space and bloat), plus pg_checksum_page over many pages, the xid verdicts of
 * whole arrays, and the staged reads of relation files. The other passes are _btree.c (the B-tree pass),
 * _verify.c (verify's sieves), _rows.c with _values.c and _values_composite.c (rows as text); _kernel.h holds
 * what they share.
 *
 * Plain C, no Python.h: kernels.py loads it with ctypes. Every byte offset and bit field of the on-disk
 * structures comes in through `layout` (built from decode/ksy/layouts.py, generated from the formats/ .ksy files),
 * every flag value and size from ksy/pgp_layout.h (generated from the same files); what is written here are the
 * rules. The index tables the Python side shares (counters, per-page columns, event codes, parameters) are
 * exported by name (pgp_names), so they are written once, in _kernel.h.
 *
 * Bad input is normal input: every read is bounded by the page (line pointers by pd_lower clamped to the page,
 * tuple headers by pageinspect's rule: lp_len >= 24, lp_off MAXALIGNed, lp_off + lp_len <= BLCKSZ), chain
 * walks by MaxHeapTuplesPerPage steps, and nothing allocates.
 */

#include "_kernel.h"

#ifndef PGP_SOURCE_SHA
#define PGP_SOURCE_SHA "unknown"
#endif
#define CHAIN_HISTOGRAM 16

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
static const char typed_mode_names[] = TYPED_MODES(NAME_STR);

/* Comma-separated names of table `which` (0 counters, 1 page columns, 2 event codes, 3 parameters, 4 best-of,
   5 layout; 7, 8, 9: the B-tree pass's page columns, totals and event codes; 10, 11: the CSV printer's kinds and
   parameters; 12: the key order's kinds) in index order; 6: the SHA-256 (16 hex digits) of the sources and headers
   this was built from; "" for others. */
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
    case 12: return order_kind_names;
    case 13: return typed_mode_names;
    default: return "";
    }
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
    const int64_t max_lp = (bs - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
    const int64_t max_htpp = (bs - SizeOfPageHeaderData) / (MIN_HEAP_TUPLE_SIZE + SIZEOF_ItemIdData);
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
            nlp = ((lower < bs ? lower : bs) - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
            if (nlp < 0) nlp = 0;
            if (nlp > max_lp) nlp = max_lp;
        }
        int has_unused = 0, not_all_visible = 0, needs_freeze_any = 0, wants_hint_any = 0, links = 0;
        int64_t live_bytes = 0, used = 0, dead_bytes = 0, not_visible_tuples = 0, needs_freeze_tuples = 0;
        int64_t heap_only_on_page = 0;

        /* ------------------------------------------------ line pointers and tuple headers */
        for (int64_t i = 0; i < nlp; i++) {
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * i);
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
                if (xmin >= FirstNormalTransactionId && hints != HEAP_XMIN_FROZEN) {
                    if (((xmin - next_xid) & 0xFFFFFFFF) < ((int64_t)1 << 31)) {
                        c[C_future_xids]++;
                        event(ev, ev_cap, ev_count, E_FUTURE_XMIN, blk, i + 1, xmin, 0, 0);
                    } else if (oldest_xid >= 0 && ((oldest_xid - xmin) & 0xFFFFFFFF) < ((int64_t)1 << 31)
                               && xmin != oldest_xid) {
                        c[C_too_old_xids]++;
                        event(ev, ev_cap, ev_count, E_OLD_XMIN, blk, i + 1, xmin, 0, 0);
                    }
                }
                if (xmax >= FirstNormalTransactionId && (im & HEAP_XMAX_IS_MULTI) == 0) {
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
            const int frozen = hints == HEAP_XMIN_FROZEN || xmin < FirstNormalTransactionId;
            const int needs_freeze = !frozen || xmax >= FirstNormalTransactionId || (im & HEAP_MOVED) != 0;
            if (!visible_all) { not_all_visible = 1; not_visible_tuples++; }
            if (needs_freeze) {
                needs_freeze_any = 1;
                needs_freeze_tuples++;
                if (!dead) c[C_unfrozen_tuples]++;
            }
            if (next_xid >= 0 && !frozen && !dead && xmin >= FirstNormalTransactionId) {
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
                free_space = space < SIZEOF_ItemIdData ? 0 : space - SIZEOF_ItemIdData;
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
