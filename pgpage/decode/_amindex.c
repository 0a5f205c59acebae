/* Whole-index passes of the index access methods other than B-tree and GIN: each page's line pointers counted by
 * state (analysis/amstats.py: `pgpage index`), and GiST and SP-GiST verify's sieves (analysis/verify/gist.py,
 * spgist.py): which pages hold nothing their per-page rules could report, with what the rules across pages need of
 * them, so that only the others are read item by item in Python (GistVerifier._items, SpgistVerifier._items: the
 * rules' one statement).
 *
 * A GiST page passes when every line pointer is LP_NORMAL or LP_DEAD with storage inside the tuple space, every
 * tuple's IndexTupleSize agrees with lp_len (MAXALIGNed), a leaf tuple's heap TID has a valid offset and an
 * internal tuple's offset is the valid downlink marker, and, when the index keys boxes, no box key is NaN; the union
 * of its box keys is handed back (gist_box_union, as Python's max and min fold it, item by item).
 *
 * An SP-GiST leaf or inner page passes when every line pointer is LP_NORMAL with storage inside the tuple space,
 * every tuple is long enough for its state, a live leaf's nextOffset names another item of the page, a live inner
 * tuple's nodes fill it exactly, and the redirect and placeholder tuples are as many as the page's opaque says; its
 * links (redirects' targets, inner nodes' downlinks) are handed back. Offsets and bit fields come from the
 * layouts (the ``params`` arrays, built by decode/kernels.py from layouts.py). */
#include "_kernel.h"

enum { GG_BASE, GG_MAX_OFFSET, GG_BOX_KEYS, GG_VALID_DOWNLINK };
enum { SG_BASE, SG_STATE_SHIFT, SG_STATE_MASK, SG_NNODES_SHIFT, SG_NNODES_MASK, SG_PREFIX_SHIFT, SG_PREFIX_MASK,
       SG_INNER_HDRSZ, SG_LEAF_T_INFO, SG_NEXT_MASK, SG_POINTER, SG_INVALID_BLOCK };
enum { CHECK_NONE, CHECK_LEAF, CHECK_INNER };

static inline double f64(const uint8_t *p)
{
    const uint64_t v = (uint64_t)u32(p) | ((uint64_t)u32(p + 4) << 32);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

static int gist_page_ok(const uint8_t *page, int64_t nlp, int leaf, const int64_t *layout, const int64_t *gp,
                        double *u, uint8_t *has_union)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    int have = 0;
    for (int64_t i = 0; i < nlp; i++) {
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * i);
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        if ((fl != LP_NORMAL && fl != LP_DEAD) || ln < SIZEOF_IndexTupleData || off < SizeOfPageHeaderData ||
            off + ln > gp[GG_BASE])
            return 0;
        const uint8_t *tup = page + off;
        const int64_t info = u16(tup + layout[L_t_info]), size = info & INDEX_SIZE_MASK;
        if ((size + 7) / 8 != (ln + 7) / 8) return 0;
        const int64_t posid = u16(tup + layout[L_t_tid_ip_posid]);
        if (leaf ? (posid <= 0 || posid > gp[GG_MAX_OFFSET]) : posid != gp[GG_VALID_DOWNLINK]) return 0;
        if (!gp[GG_BOX_KEYS] || (info & INDEX_NULL_MASK) || SIZEOF_IndexTupleData + 32 > size) continue;
        double b[4];
        for (int k = 0; k < 4; k++) {
            b[k] = f64(tup + SIZEOF_IndexTupleData + 8 * k);
            if (b[k] != b[k]) return 0;             /* NaN: Python's max and min decide */
        }
        if (!have) {
            for (int k = 0; k < 4; k++) u[k] = b[k];
            have = 1;
            continue;
        }
        for (int k = 0; k < 2; k++) if (b[k] > u[k]) u[k] = b[k];         /* high x, high y */
        for (int k = 2; k < 4; k++) if (b[k] < u[k]) u[k] = b[k];         /* low x, low y */
    }
    *has_union = (uint8_t)have;
    return 1;
}

/* per page with ``check`` (CHECK_LEAF, CHECK_INNER for an internal page): clean (1: nothing to report), and the
   union of its box keys (high x, high y, low x, low y) where ``has_union`` */
void pgp_verify_gist_sieve(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout,
                           const uint8_t *check, const int64_t *nlp, const int64_t *gp, uint8_t *clean,
                           double *unions, uint8_t *has_union)
{
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        if (p + 2 < npages) pgp_prefetch_page(page + 2 * bs, bs);
        clean[p] = has_union[p] = 0;
        if (check[p] != CHECK_NONE)
            clean[p] = (uint8_t)gist_page_ok(page, nlp[p], check[p] == CHECK_LEAF, layout, gp, unions + 4 * p,
                                             has_union + p);
        if (!clean[p]) has_union[p] = 0;
    }
}

/* one SP-GiST page's items; its links from ``links`` on (item, block, offset, is a redirect), their count in
   ``*nlinks``; 0 where a rule could report something */
static int spgist_page_ok(const uint8_t *page, int64_t nlp, int leaf, int64_t n_redirection, int64_t n_placeholder,
                          const int64_t *layout, const int64_t *sp, int64_t *links, int64_t cap, int64_t *nlinks)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    int64_t redirects = 0, placeholders = 0, n = 0;
    for (int64_t i = 1; i <= nlp; i++) {
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (i - 1));
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        if (fl != LP_NORMAL || ln < 4 || off < SizeOfPageHeaderData || off + ln > sp[SG_BASE]) return 0;
        const uint8_t *tup = page + off;
        const int64_t word = u32(tup), state = (word >> sp[SG_STATE_SHIFT]) & sp[SG_STATE_MASK];
        if (state != SPGIST_LIVE) {
            if (ln < SIZEOF_SpGistDeadTupleData) return 0;
            redirects += state == SPGIST_REDIRECT;
            placeholders += state == SPGIST_PLACEHOLDER;
            if (state == SPGIST_REDIRECT) {
                if (n >= cap) return 0;
                const uint8_t *ptr = tup + sp[SG_POINTER];
                int64_t *l = links + 4 * n++;
                l[0] = i;
                l[1] = (u16(ptr + layout[L_ptr_bi_hi]) << 16) | u16(ptr + layout[L_ptr_bi_lo]);
                l[2] = u16(ptr + layout[L_ptr_ip_posid]);
                l[3] = 1;
            }
            continue;
        }
        if (leaf) {
            if (ln < SIZEOF_SpGistLeafTupleData) return 0;
            const int64_t next = u16(tup + sp[SG_LEAF_T_INFO]) & sp[SG_NEXT_MASK];
            if (next > nlp || next == i) return 0;
            continue;
        }
        const int64_t nnodes = (word >> sp[SG_NNODES_SHIFT]) & sp[SG_NNODES_MASK];
        int64_t at = sp[SG_INNER_HDRSZ] + ((word >> sp[SG_PREFIX_SHIFT]) & sp[SG_PREFIX_MASK]);
        for (int64_t k = 0; k < nnodes; k++) {
            if (at + SIZEOF_IndexTupleData > ln) return 0;
            const uint8_t *node = tup + at;
            const int64_t size = u16(node + layout[L_t_info]) & INDEX_SIZE_MASK;
            if (size < SIZEOF_IndexTupleData) return 0;
            const int64_t block = (u16(node + layout[L_t_tid_bi_hi]) << 16) | u16(node + layout[L_t_tid_bi_lo]);
            if (block != sp[SG_INVALID_BLOCK]) {
                if (n >= cap) return 0;
                int64_t *l = links + 4 * n++;
                l[0] = i;
                l[1] = block;
                l[2] = u16(node + layout[L_t_tid_ip_posid]);
                l[3] = 0;
            }
            at += size;
        }
        if (at != ln) return 0;                     /* the nodes do not fill the tuple */
    }
    if (redirects != n_redirection || placeholders != n_placeholder) return 0;
    *nlinks = n;
    return 1;
}

/* per page with ``check`` (CHECK_LEAF, CHECK_INNER): clean (1: nothing to report) and, for a clean page, its
   links, one after the other in ``links`` (rows of 4: item, block, offset, is a redirect; ``cap`` rows in all, a
   page whose links would not fit is not passed), their count in ``nlinks``; ``counts``: each page's nRedirection
   and nPlaceholder */
void pgp_verify_spgist_sieve(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout,
                             const uint8_t *check, const int64_t *nlp, const int64_t *counts, const int64_t *sp,
                             uint8_t *clean, int64_t *links, int64_t cap, int64_t *nlinks)
{
    int64_t used = 0;
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        if (p + 2 < npages) pgp_prefetch_page(page + 2 * bs, bs);
        clean[p] = 0;
        nlinks[p] = 0;
        if (check[p] != CHECK_NONE)
            clean[p] = (uint8_t)spgist_page_ok(page, nlp[p], check[p] == CHECK_LEAF, counts[2 * p],
                                               counts[2 * p + 1], layout, sp, links + 4 * used, cap - used,
                                               nlinks + p);
        if (!clean[p]) nlinks[p] = 0;
        used += nlinks[p];
    }
}

/* per page, its first ``nlp`` line pointers counted by state (LP_NORMAL, LP_DEAD, any other) with their lp_len
   summed, and the LP_NORMAL ones with 4 bytes inside the page by their first word's ``state`` bit field (SP-GiST's
   tupstate): ``out`` holds LC__COUNT columns a page */
enum { LC_NORMAL, LC_DEAD, LC_OTHER, LC_NORMAL_BYTES, LC_DEAD_BYTES, LC_OTHER_BYTES, LC_STATE0,
       LC__COUNT = LC_STATE0 + 4 };

void pgp_lp_counts(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout, const int64_t *nlp,
                   int64_t state_shift, int64_t state_mask, int64_t *out)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        int64_t *o = out + LC__COUNT * p;
        memset(o, 0, sizeof(int64_t) * LC__COUNT);
        for (int64_t i = 0; i < nlp[p]; i++) {
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * i);
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            const int c = fl == LP_NORMAL ? LC_NORMAL : fl == LP_DEAD ? LC_DEAD : LC_OTHER;
            o[c]++;
            o[c + LC_NORMAL_BYTES] += ln;
            if (fl == LP_NORMAL && ln >= 4 && off + 4 <= bs)
                o[LC_STATE0 + ((u32(page + off) >> state_shift) & state_mask & 3)]++;
        }
    }
}

/* hash: per bucket or overflow page with ``check``, 1 where the hash codes of its whole tuples ascend and, with a
   metapage (``hp``: HP_HAS_META and its masks), each maps to the page's ``bucket`` (_hash_hashkey2bucket): no
   item of the page has anything to report (analysis/verify/hash.py reads the others item by item) */
enum { HP_BASE, HP_KEY_OFFSET, HP_TUPLE_SIZE, HP_HAS_META, HP_MAXBUCKET, HP_HIGHMASK, HP_LOWMASK };

void pgp_hash_sieve(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout, const uint8_t *check,
                    const int64_t *nlp, const int64_t *bucket, const int64_t *hp, uint8_t *passed)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        passed[p] = 0;
        if (!check[p]) continue;
        int64_t prev = -1;
        int ok = 1;
        for (int64_t i = 0; i < nlp[p] && ok; i++) {
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * i);
            const int64_t off = (w >> lo_s) & lo_m, ln = (w >> ln_s) & ln_m;
            if (ln < hp[HP_TUPLE_SIZE] || off < SizeOfPageHeaderData || off + hp[HP_TUPLE_SIZE] > hp[HP_BASE])
                continue;                           /* no whole tuple: not read (the page's decode says so) */
            const int64_t key = u32(page + off + hp[HP_KEY_OFFSET]);
            ok = key >= prev;
            prev = key;
            if (ok && hp[HP_HAS_META]) {
                int64_t b = key & hp[HP_HIGHMASK];
                if (b > hp[HP_MAXBUCKET]) b &= hp[HP_LOWMASK];
                ok = b == bucket[p];
            }
        }
        passed[p] = (uint8_t)ok;
    }
}
