/* GIN verify's sieve (analysis/verify/gin.py): which entry tree leaves and posting tree leaves hold nothing its
 * per-page rules could report, so that only the others are read item by item in Python (GinVerifier._entry_page
 * and _data_leaf, the rules' one statement).
 *
 * An entry leaf passes when every line pointer is LP_NORMAL with storage inside the tuple space, every
 * tuple's IndexTupleSize agrees with lp_len, every posting list is one compressed segment that decodes within its
 * tuple into as many TIDs as ip_posid says, valid and strictly ascending (ginReadTupleWithoutState), every key is
 * where the index's one column says it is (gin.key_datum), and, when the key order is computable here, each key is
 * greater than the one before it (ginCompareAttEntries: memcmp then length for a varlena key, a signed integer
 * otherwise). Anything else (nulls, several columns, compressed or external keys, uncompressed pre-9.4 posting
 * lists) is left to Python.
 *
 * A compressed posting tree leaf passes when its segments, from the data start to pd_lower, decode into valid,
 * strictly ascending TIDs none of which, on a page with a right sibling, is past the page's right bound; its
 * greatest TID is handed back (the parent rules compare it). */
#include "_kernel.h"

enum { GP_MAX_OFFSET, GP_MAX_TUPLES, GP_HAS_COLUMNS, GP_ATTLEN, GP_ATTALIGN, GP_ORDER };
enum { ORDER_NONE, ORDER_BYTES, ORDER_INT };

static inline uint64_t tid_value(const uint8_t *p)     /* itemptr_to_uint64 of an ItemPointerData */
{
    return ((uint64_t)((u16(p) << 16) | u16(p + 2)) << MaxHeapTuplesPerPageBits) | (uint64_t)u16(p + 4);
}

/* one compressed segment (GinPostingList) at ``at`` before ``end``: its TIDs valid and strictly ascending after
   ``*last`` (when ``have_last``); their count added to ``*count``, the greatest left in ``*last``; the offset of
   the next segment (SHORTALIGNed), or -1 */
static int64_t segment_ok(const uint8_t *tup, int64_t at, int64_t end, int64_t max_offset, uint64_t *last,
                          int have_last, int64_t *count)
{
    const uint64_t mask = ((uint64_t)1 << MaxHeapTuplesPerPageBits) - 1;
    if (at + SIZEOF_GinPostingList > end) return -1;
    uint64_t v = tid_value(tup + at);
    const int64_t nbytes = u16(tup + at + 6), stop = at + SIZEOF_GinPostingList + nbytes;
    if (stop > end) return -1;
    if ((v & mask) == 0 || (int64_t)(v & mask) > max_offset) return -1;
    if (have_last && (int64_t)v <= (int64_t)*last) return -1;
    int64_t n = 1;
    for (int64_t i = at + SIZEOF_GinPostingList; i < stop;) {
        uint64_t d = 0;
        int shift = 0;
        for (int k = 0; k < 6; k++) {          /* decode_varbyte: 7 bits a byte, the 6th byte whole */
            if (i >= stop) return 0;
            const uint8_t c = tup[i++];
            if (k == 5) { d |= (uint64_t)c << shift; break; }
            d |= (uint64_t)(c & 0x7F) << shift;
            shift += 7;
            if (!(c & 0x80)) break;
        }
        const uint64_t next = v + d;
        if ((int64_t)next <= (int64_t)v) return -1;   /* not ascending (as the Python check, on int64) */
        v = next;
        if ((v & mask) == 0 || (int64_t)(v & mask) > max_offset) return -1;
        n++;
    }
    *count += n;
    *last = v;
    return stop + (nbytes & 1);
}

/* an entry tuple's posting list: one segment of [at, end) holding exactly n TIDs */
static int posting_ok(const uint8_t *tup, int64_t at, int64_t end, int64_t n, int64_t max_offset)
{
    uint64_t last = 0;
    int64_t count = 0;
    return segment_ok(tup, at, end, max_offset, &last, 0, &count) >= 0 && count == n;
}

/* a compressed posting tree leaf (GIN_DATA | GIN_LEAF | GIN_COMPRESSED) */
static int data_leaf_ok(const uint8_t *page, int64_t bs, const int64_t *layout, const int64_t *gp, uint64_t *max_tid,
                        int64_t *ntids)
{
    const int64_t lower = u16(page + layout[L_pd_lower]), special_at = bs - SIZEOF_GinPageOpaqueData;
    const int64_t end = lower < special_at ? lower : special_at;
    const int has_right = u32(page + special_at) != 0xFFFFFFFFu;     /* GinPageOpaqueData.rightlink */
    uint64_t last = 0;
    int64_t count = 0;
    for (int64_t at = SizeOfPageHeaderData + ((SIZEOF_ItemPointerData + 7) & ~7); at < end;) {
        at = segment_ok(page, at, end, gp[GP_MAX_OFFSET], &last, count > 0, &count);
        if (at < 0) return 0;
    }
    if (count && has_right) {   /* past the right bound: (block, offset) pairs compared, as the Python rule */
        const uint8_t *b = page + SizeOfPageHeaderData;
        const uint64_t bblock = (uint64_t)((u16(b) << 16) | u16(b + 2)), boff = (uint64_t)u16(b + 4);
        const uint64_t block = last >> MaxHeapTuplesPerPageBits, off = last & (((uint64_t)1 << MaxHeapTuplesPerPageBits) - 1);
        if (block > bblock || (block == bblock && off > boff)) return 0;
    }
    *max_tid = count ? last : 0;
    *ntids = count;
    return 1;
}

static int64_t key_cmp_bytes(const uint8_t *a, int64_t na, const uint8_t *b, int64_t nb)
{
    const int c = memcmp(a, b, (size_t)(na < nb ? na : nb));
    return c ? c : (na > nb) - (na < nb);
}

static int leaf_ok(const uint8_t *page, int64_t bs, int64_t nlp, const int64_t *layout, const int64_t *gp,
                   int64_t *roots)
{
    const int64_t lo_s = layout[L_lp_off_shift], lo_m = layout[L_lp_off_mask];
    const int64_t fl_s = layout[L_lp_flags_shift], fl_m = layout[L_lp_flags_mask];
    const int64_t ln_s = layout[L_lp_len_shift], ln_m = layout[L_lp_len_mask];
    const int64_t end = bs - SIZEOF_GinPageOpaqueData;
    const int64_t attlen = gp[GP_ATTLEN], align = gp[GP_ATTALIGN] > 0 ? gp[GP_ATTALIGN] : 1;
    const uint8_t *prev = NULL;
    int64_t prev_len = 0, prev_int = 0;
    int have_prev = 0;
    if (nlp > gp[GP_MAX_TUPLES]) return 0;
    for (int64_t i = 1; i <= nlp; i++) {
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (i - 1));
        const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
        if (off + ln > end || off < SizeOfPageHeaderData || fl != LP_NORMAL || ln < SIZEOF_IndexTupleData) return 0;
        const uint8_t *tup = page + off;
        const int64_t info = u16(tup + layout[L_t_info]), size = info & INDEX_SIZE_MASK;
        if (((ln + 7) & ~7) != ((size + 7) & ~7) || size > ln) return 0;
        if (info & INDEX_NULL_MASK) return 0;
        const int64_t blk = (u16(tup + layout[L_t_tid_bi_hi]) << 16) | u16(tup + layout[L_t_tid_bi_lo]);
        const int64_t posid = u16(tup + layout[L_t_tid_ip_posid]);
        int64_t keyend = size;
        if (posid == GIN_TREE_POSTING) (*roots)++;
        else {
            const int64_t at = blk & ~(int64_t)GIN_ITUP_COMPRESSED;
            keyend = at < size ? at : size;
            if (posid > 0 && (!(blk & GIN_ITUP_COMPRESSED) || !posting_ok(tup, at, size, posid, gp[GP_MAX_OFFSET])))
                return 0;
        }
        if (!gp[GP_HAS_COLUMNS]) continue;        /* no catalog: keys are neither read nor ordered */
        int64_t koff = SIZEOF_IndexTupleData;      /* IndexInfoFindDataOffset of a tuple without nulls */
        const uint8_t *payload;
        int64_t plen;
        if (attlen > 0) {
            koff = (koff + align - 1) / align * align;
            if (koff + attlen > keyend) return 0;
            payload = tup + koff;
            plen = attlen;
        } else {
            if (koff >= keyend) return 0;
            if (tup[koff] & 1) {                   /* a 1-byte header; 0x01 is an external TOAST pointer */
                if (tup[koff] == 1) return 0;
                plen = tup[koff] >> 1;
                if (plen <= 0 || koff + plen > keyend) return 0;
                payload = tup + koff + 1;
                plen -= 1;
            } else {
                koff = (koff + 3) / 4 * 4;
                if (koff + 4 > keyend) return 0;
                plen = u32(tup + koff) >> 2;
                if (plen <= 0 || koff + plen > keyend || (tup[koff] & 3)) return 0;   /* compressed: Python */
                payload = tup + koff + 4;
                plen -= 4;
            }
        }
        if (gp[GP_ORDER] == ORDER_BYTES) {
            if (have_prev && key_cmp_bytes(prev, prev_len, payload, plen) >= 0) return 0;
            prev = payload;
            prev_len = plen;
        } else if (gp[GP_ORDER] == ORDER_INT) {
            int64_t v;
            if (attlen == 2) v = (int16_t)u16(payload);
            else if (attlen == 4) v = (int32_t)u32(payload);
            else if (attlen == 8) v = (int64_t)((uint64_t)u32(payload) | ((uint64_t)u32(payload + 4) << 32));
            else return 0;
            if (have_prev && prev_int >= v) return 0;
            prev_int = v;
        }
        have_prev = 1;
    }
    return 1;
}

enum { CHECK_NONE, CHECK_ENTRY_LEAF, CHECK_DATA_LEAF };

/* per page: flagged (0: nothing to report), and for a passed posting tree leaf its greatest TID and its number
   of TIDs, for a passed entry leaf how many of its tuples are posting tree roots */
void pgp_verify_gin_sieve(const uint8_t *pages, int64_t npages, int64_t bs, const int64_t *layout,
                          const uint8_t *check, const int64_t *nlp, const int64_t *gp, uint8_t *flagged,
                          uint64_t *max_tid, int64_t *roots, int64_t *ntids)
{
    for (int64_t p = 0; p < npages; p++) {
        const uint8_t *page = pages + p * bs;
        if (p + 2 < npages) pgp_prefetch_page(page + 2 * bs, bs);
        max_tid[p] = 0;
        roots[p] = ntids[p] = 0;
        if (check[p] == CHECK_ENTRY_LEAF)
            flagged[p] = gp[GP_ORDER] < 0 || !leaf_ok(page, bs, nlp[p], layout, gp, roots + p);
        else if (check[p] == CHECK_DATA_LEAF)
            flagged[p] = !data_leaf_ok(page, bs, layout, gp, max_tid + p, ntids + p);
        else
            flagged[p] = 1;
    }
}
