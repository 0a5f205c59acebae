/*
 * _verify.c: `pgpage verify`'s sieves (which pages of a chunk could give a finding, so that the Python rules read
 * only those), and verify --heapallindexed's line hashes and HOT chain roots. See _kernel.h and decode/kernels.py.
 */
#include "_kernel.h"

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
    const int64_t w = u32(pg + SizeOfPageHeaderData + SIZEOF_ItemIdData * (o - 1));
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
        int64_t n = lower >= SizeOfPageHeaderData ? (lower - SizeOfPageHeaderData) / SIZEOF_ItemIdData : 0;
        if (n > stride) n = stride;
        for (int64_t r = 1; r <= n; r++) {
            const int64_t w = u32(pg + SizeOfPageHeaderData + SIZEOF_ItemIdData * (r - 1));
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

#define INVALID_BLOCK 0xFFFFFFFFLL
/* what pgp_verify_heap_sieve takes in `vp` */
enum { VP_checksums, VP_checksum_word, VP_checksum_keep, VP_has_bounds, VP_next_full, VP_oldest_full, VP_relmin_full,
       VP_relnatts, VP_nblocks, VP_toast, VP_has_vm, VP_has_resolver, VP_t_field3, VP_t_hoff, VP__COUNT };

/* xids.py's xid_bounds: 0 when the xid is within pg_control's and pg_class's horizons */
static inline int xid_out_of_bounds(int64_t x, const int64_t *vp)
{
    if (x == 0) return 1; /* XID_INVALID: not a finding by itself, but the rules then take other paths */
    if (!vp[VP_has_bounds] || x < FirstNormalTransactionId) return 0;
    const int64_t next_full = vp[VP_next_full];
    int64_t diff = (int64_t)(int32_t)(uint32_t)((uint32_t)next_full - (uint32_t)x);
    int64_t full = next_full - diff;
    if (diff > 0 && next_full - FirstNormalTransactionId < diff) full = FirstNormalTransactionId;
    return full >= next_full || full < vp[VP_oldest_full] || full < vp[VP_relmin_full];
}

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
    const int64_t max_lp = (bs - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
    const int64_t max_htpp = (bs - SizeOfPageHeaderData) / (MIN_HEAP_TUPLE_SIZE + SIZEOF_ItemIdData);
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
            || (pd_flags & ~PD_VALID_FLAG_BITS) || lower < SizeOfPageHeaderData || lower > upper || upper > special
            || special != bs) /* heap.py: a heap page has no special space */
            continue;
        const int pd_vis = (pd_flags & PD_ALL_VISIBLE) != 0;
        const int vis = vm_visible ? vm_visible[p] != 0 : 0, frz = vm_frozen ? vm_frozen[p] != 0 : 0;
        /* vm.py's page rules */
        if (frz && !vis) continue;
        if (vp[VP_has_vm] && vis != pd_vis) continue;
        const int claims = vis || pd_vis;
        int64_t nlp = (lower - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
        if (nlp > max_lp) nlp = max_lp;

        /* heap.py: line pointers */
        int bad = 0, stamped = 0;
        int64_t low_start = special;   /* items seen so far lie in [low_start, special) while none is stamped */
        const uint32_t mark = next_mark();
        for (int64_t i = 1; i <= nlp && !bad; i++) {
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (i - 1));
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
            const int special_ctid = coff == SpecTokenOffsetNumber || (cblk == INVALID_BLOCK && coff == MovedPartitionsOffsetNumber);
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
            if (frz && ((!frozen_hint && xmin >= FirstNormalTransactionId)
                        || (!(im & HEAP_XMAX_INVALID) && xmax >= FirstNormalTransactionId)
                        || ((im & HEAP_MOVED) && u32(t + o_f3) >= FirstNormalTransactionId))) { bad = 1; break; }
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
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (i - 1));
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
        const int64_t w = u32(page + SizeOfPageHeaderData);
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
        const int64_t btflags = u16(page + bs - SIZEOF_BTPageOpaqueData + 12);
        r.is_leaf = (btflags & BTP_LEAF) != 0;
        r.halfdead = (btflags & BTP_HALF_DEAD) != 0;
        r.rightmost = u32(page + bs - SIZEOF_BTPageOpaqueData + 4) == 0;
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
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (i - 1));
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
                        const int64_t ww = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (ii - 1));
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
