/*
 * _btree.c: the B-tree pass of analysis/btree/ (every item of a chunk of index pages: pgstatindex's and
 * deduplication's figures, pivots, downlinks, heap TIDs) and the table side of its heap TID check (line pointer
 * verdicts, TID lookups, the sibling chains). See _kernel.h and decode/kernels.py.
 */
#include "_kernel.h"

/* ---------------------------------------------------------------------------------------- the B-tree pass */
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
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (lp - 1));
        const int64_t off = (w >> l.lo_s) & l.lo_m, fl = (w >> l.fl_s) & l.fl_m, ln = (w >> l.ln_s) & l.ln_m;
        if (!((fl == LP_NORMAL || fl == LP_DEAD) && off >= SizeOfPageHeaderData && off + ln <= special
              && ln >= SIZEOF_IndexTupleData))
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
            const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * i);
            const int64_t off = (w >> lo_s) & lo_m, fl = (w >> fl_s) & fl_m, ln = (w >> ln_s) & ln_m;
            if (fl == LP_UNUSED || fl == LP_REDIRECT) {  /* nbtree writes only LP_NORMAL and LP_DEAD */
                nev = bt_event(ev, ev_cap, nev, BE_BAD_LP_FLAGS, block, lp, fl, 0, 0, 0, 0);
                continue;
            }
            if (!(off >= SizeOfPageHeaderData && off + ln <= special && ln >= SIZEOF_IndexTupleData)) {
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
            if (!(poff >= datastart && poff + SIZEOF_ItemPointerData * nposting <= size)) {
                nev = bt_event(ev, ev_cap, nev, BE_POSTING_OVERRUN, block, lp, nposting, poff, size, 0, 0);
                continue;
            }
            if (nposting < 2) nev = bt_event(ev, ev_cap, nev, BE_POSTING_TOO_FEW, block, lp, nposting, 0, 0, 0, 0);
            t[BT_posting_tuples]++;
            t[BT_posting_tid_count] += nposting;
            t[BT_posting_bytes] += ln + SIZEOF_ItemIdData;
            t[BT_posting_plain_bytes] += nposting * (maxalign8(poff) + SIZEOF_ItemIdData);
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
        for (int64_t j = 0; j < n; j++, ip += SIZEOF_ItemPointerData) {
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
    const int64_t max_lp = (bs - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
    static const int8_t by_flags[4] = {H_UNUSED, H_NORMAL, H_REDIRECT, H_DEAD};
    const int64_t lower = u16(page + layout[L_pd_lower]), upper = u16(page + layout[L_pd_upper]),
                  special = u16(page + layout[L_pd_special]), pv = u16(page + layout[L_pd_pagesize_version]);
    const int is_new = upper == 0;
    const int sane = (pv & 0xFF00) == bs && lower >= SizeOfPageHeaderData && lower <= upper && upper <= special
        && special <= bs;
    int64_t nlp = 0;
    if (sane) {
        nlp = ((lower < bs ? lower : bs) - SizeOfPageHeaderData) / SIZEOF_ItemIdData;
        if (nlp > max_lp) nlp = max_lp;
        if (nlp > 2 * stride - 1) nlp = 2 * stride - 1;
    }
    *meta_slot = (int32_t)(nlp | (sane || is_new ? META_SANE : META_BAD));
    /* byte b holds line pointers 2b (low nibble) and 2b + 1 (high), written whole when the odd one is known (a
       byte's two nibbles set apart would make each wait for the one before); line pointer 0 does not exist */
    int low = H_UNUSED;
    for (int64_t o = 1; o <= nlp; o++) {
        const int64_t w = u32(page + SizeOfPageHeaderData + SIZEOF_ItemIdData * (o - 1));
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
