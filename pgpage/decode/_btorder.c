/* pgpage's B-tree key order, compiled: amcheck's within-page invariants (item order, high key) over whole chunks
 * of index pages, and one comparison of two index tuples, for the key types whose order is a byte-level rule.
 *
 * The rules and their Python statement are pgpage/analysis/btree/order.py's (KeyOrder, OrderCheck.add_page): this
 * file only decides, for a page, "every invariant holds" (status 1, with the page's smallest data item) or "let
 * Python look" (status 0: a violation to word, or anything this code does not read: NULLs, compressed or
 * external varlenas, numeric, interval...). So findings and their messages are written once, in Python.
 * Compiled into the same shared library as _heapscan.c (setup.py, decode/kernels.py). Plain C99, no Python.h.
 *
 * The key spec (int64 array): nkeyatts, natts, heapkeyspace, then per key column: kind, attlen, attalign (bytes),
 * desc, nulls_first. A kind is how a column's bytes compare; order.py's C_KINDS gives each type its kind by name
 * (this table, exported as pgp_names(12)). */
#include <stdint.h>
#include <string.h>

#include "ksy/pgp_layout.h"

#define ORDER_KINDS(X) X(none) X(int) X(uint) X(float4) X(float8) X(bytes) X(varlena) X(bpchar) X(name) X(cstring)
#define K_(n) K_##n,
enum { ORDER_KINDS(K_) K__COUNT };
#define NAME_STR(n) #n ","
__attribute__((visibility("hidden"))) const char order_kind_names[] = ORDER_KINDS(NAME_STR);

#define INDEX_MAX_KEYS 32
#define UNCOMPARABLE (-100)
/* exported so that decode/kernels.py reads the sentinel from here instead of repeating it */
const int64_t pgp_order_uncomparable = UNCOMPARABLE;

void pgp_prefetch_page(const uint8_t *page, int64_t bs);   /* _btree.c */

static inline uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

typedef struct { int64_t nkey, natts, hk; const int64_t *col; } Spec;

/* One index tuple as _bt_compare sees it (order.py: Item) */
typedef struct {
    int64_t natts;
    const uint8_t *val[INDEX_MAX_KEYS];
    int64_t len[INDEX_MAX_KEYS];
    int has_htid, has_max;
    uint64_t htid, maxtid;  /* block << 16 | offset: compared as (block, offset) */
} Tup;

static inline uint64_t tid_at(const uint8_t *p) {
    return ((uint64_t)((uint32_t)u16(p) << 16 | u16(p + 2)) << 16) | u16(p + 4);
}

/* order.py KeyOrder.item: 1, or 0 when the tuple cannot be read here (the caller lets Python decide) */
static int parse(const uint8_t *raw, int64_t rawlen, const Spec *s, int64_t pivot_natts, Tup *t) {
    if (rawlen < 8) return 0;
    uint16_t posid = u16(raw + 4), info = u16(raw + 6);
    int64_t size = info & INDEX_SIZE_MASK;
    if (size > rawlen) size = rawlen;
    if (info & INDEX_NULL_MASK) return 0;
    uint32_t block = (uint32_t)u16(raw) << 16 | u16(raw + 2);
    int alt = (info & INDEX_ALT_TID_MASK) != 0;
    int posting = alt && s->hk && (posid & BT_IS_POSTING);
    int64_t end = size;
    t->natts = s->natts;
    t->has_htid = t->has_max = 0;
    if (posting) {
        int64_t n = posid & BT_OFFSET_MASK, off = block & 0xFFFF;
        if (n < 1 || off + 6 * n > size) return 0;
        end = off;
        t->htid = tid_at(raw + off); t->maxtid = tid_at(raw + off + 6 * (n - 1));
        t->has_htid = t->has_max = 1;
    } else if (alt) {
        t->natts = posid & BT_OFFSET_MASK;
        if (s->hk && (posid & BT_PIVOT_HEAP_TID_ATTR)) {
            end = size - 6;
            if (end < 0) return 0;
            t->htid = tid_at(raw + end);
            t->has_htid = 1;
        }
    } else if (s->hk) {
        t->htid = ((uint64_t)block << 16) | posid;
        t->has_htid = 1;
    }
    if (pivot_natts >= 0) t->natts = pivot_natts;
    int64_t nk = t->natts < s->nkey ? t->natts : s->nkey;
    int64_t cur = 8;
    for (int64_t i = 0; i < nk; i++) {
        const int64_t *c = s->col + 5 * i;
        int64_t kind = c[0], attlen = c[1], align = c[2];
        if (attlen > 0) {
            cur = (cur + align - 1) / align * align;
            if (cur + attlen > end) return 0;
            t->val[i] = raw + cur; t->len[i] = attlen;
            cur += attlen;
        } else if (attlen == -1) {
            if (cur >= end) return 0;
            if (raw[cur] == 0) cur = (cur + align - 1) / align * align;  /* pad bytes before an aligned header */
            if (cur >= end) return 0;
            uint8_t b = raw[cur];
            int64_t total, head;
            if (b & 1) {
                if (b == 1) return 0;           /* a TOAST pointer */
                total = b >> 1; head = 1;
            } else {
                if ((b & 3) != 0 || cur + 4 > end) return 0;  /* compressed inline */
                total = u32(raw + cur) >> 2; head = 4;
            }
            if (total < head || cur + total > end) return 0;
            t->val[i] = raw + cur + head; t->len[i] = total - head;
            cur += total;
        } else if (attlen == -2) {
            int64_t n = 0;
            while (cur + n < end && raw[cur + n]) n++;
            if (cur + n >= end) return 0;
            t->val[i] = raw + cur; t->len[i] = n;
            cur += n + 1;
        } else
            return 0;
        if (kind == K_none) return 0;
    }
    return 1;
}

static inline int64_t sext(const uint8_t *p, int64_t n) {
    switch (n) {
    case 1: return (int8_t)p[0];
    case 2: return (int16_t)u16(p);
    case 4: return (int32_t)u32(p);
    default: return (int64_t)((uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32);
    }
}
static inline uint64_t zext(const uint8_t *p, int64_t n) {
    switch (n) {
    case 1: return p[0];
    case 2: return u16(p);
    case 4: return u32(p);
    default: return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
    }
}
static inline int cmp_bytes(const uint8_t *a, int64_t la, const uint8_t *b, int64_t lb) {
    int r = memcmp(a, b, (size_t)(la < lb ? la : lb));
    if (r) return r < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
}
static inline int cmp_double(double a, double b) {  /* NaN above everything, equal to itself; -0 equals 0 */
    int an = a != a, bn = b != b;
    if (an || bn) return an - bn;
    return (a > b) - (a < b);
}

static int cmp_value(const int64_t *c, const uint8_t *a, int64_t la, const uint8_t *b, int64_t lb) {
    switch (c[0]) {
    case K_int: { int64_t x = sext(a, la), y = sext(b, lb); return (x > y) - (x < y); }
    case K_uint: { uint64_t x = zext(a, la), y = zext(b, lb); return (x > y) - (x < y); }
    case K_float4: { float x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return cmp_double(x, y); }
    case K_float8: { double x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return cmp_double(x, y); }
    case K_bpchar:  /* bpchar ignores trailing spaces */
        while (la > 0 && a[la - 1] == ' ') la--;
        while (lb > 0 && b[lb - 1] == ' ') lb--;
        return cmp_bytes(a, la, b, lb);
    case K_name: {  /* up to the first NUL */
        const uint8_t *za = memchr(a, 0, (size_t)la), *zb = memchr(b, 0, (size_t)lb);
        return cmp_bytes(a, za ? za - a : la, b, zb ? zb - b : lb);
    }
    default: return cmp_bytes(a, la, b, lb);  /* K_bytes, K_varlena, K_cstring */
    }
}

/* _bt_compare(scankey built from key, tup): order.py KeyOrder.compare; with use_max, the key's heap TID is its
 * posting list's largest (the high key rule's probe) */
static int compare_as(const Spec *s, const Tup *key, int use_max, const Tup *tup) {
    int64_t keysz = key->natts < s->nkey ? key->natts : s->nkey;
    int64_t upto = tup->natts < keysz ? tup->natts : keysz;
    for (int64_t i = 0; i < upto; i++) {
        const int64_t *c = s->col + 5 * i;
        int r = cmp_value(c, key->val[i], key->len[i], tup->val[i], tup->len[i]);
        if (r) return c[3] ? -r : r;
    }
    if (keysz > tup->natts) return 1;  /* the tuple's truncated attributes are minus infinity */
    if (!key->has_htid) return 0;
    if (!tup->has_htid) return 1;
    uint64_t kt = use_max && key->has_max ? key->maxtid : key->htid;
    int r = (kt > tup->htid) - (kt < tup->htid);
    if (r <= 0) return r;
    if (tup->has_max && kt <= tup->maxtid) return 0;
    return 1;
}

static inline int compare(const Spec *s, const Tup *key, const Tup *tup) { return compare_as(s, key, 0, tup); }

/* invariant_l_offset: key < upper (<= before heapkeyspace) */
static int less_as(const Spec *s, const Tup *key, int use_max, const Tup *upper) {
    int cmp = compare_as(s, key, use_max, upper);
    if (!s->hk) return cmp <= 0;
    if (cmp == 0) {
        int64_t keysz = key->natts < s->nkey ? key->natts : s->nkey, upp = upper->natts < s->nkey ? upper->natts : s->nkey;
        if (keysz == upp) return !key->has_htid && upper->has_htid;
        return keysz < upp;
    }
    return cmp < 0;
}

static inline int less(const Spec *s, const Tup *key, const Tup *upper) { return less_as(s, key, 0, upper); }

enum { OP_COMPARE = 0, OP_LESS = 1, OP_LESS_EQUAL = 2, OP_GREATER = 3 };

/* One relation between two tuples (their exact bytes; pivot_natts -1 unless a minus-infinity item is meant):
 * OP_COMPARE's -1/0/1, or the others' 0/1; UNCOMPARABLE when either tuple cannot be read here. */
int64_t pgp_btree_relate(const uint8_t *a, int64_t alen, int64_t a_natts, const uint8_t *b, int64_t blen,
                         int64_t b_natts, const int64_t *spec, int64_t op) {
    Spec s = {spec[0], spec[1], spec[2], spec + 3};
    Tup x, y;
    if (!parse(a, alen, &s, a_natts, &x) || !parse(b, blen, &s, b_natts, &y)) return UNCOMPARABLE;
    switch (op) {
    case OP_LESS: return less(&s, &x, &y);
    case OP_LESS_EQUAL: return compare(&s, &x, &y) <= 0;
    case OP_GREATER: { int c = compare(&s, &x, &y); return s.hk ? c > 0 : c >= 0; }
    default: return compare(&s, &x, &y);
    }
}

/* The leaf pages of the commonest indexes (one integer key column, heapkeyspace: serial and bigint keys), when
 * every data item is plain (no posting list, no NULL, no pivot): pgp_btree_order_pages' rules come down to each
 * (key, heap TID) above the one before and the last item within the high key, which is what this checks
 * without parsing each item into a Tup. 1: all in order (the smallest item is the first); -1: an item that is
 * not plain, or a line pointer to look at; 0: an item out of order or beyond the high key. On anything but 1
 * the general loop decides the page. */
static int plain_int_leaf(const uint8_t *pg, int64_t bs, const Spec *s, int64_t maxoff, int64_t firstdata,
                          int rightmost) {
    const int64_t kind = s->col[0], attlen = s->col[1];
    const int desc = s->col[3] != 0;
    int64_t prev_key = 0;
    uint64_t prev_tid = 0, prev_ukey = 0;
    const uint8_t *last = NULL;
    int64_t last_len = 0;
    for (int64_t k = firstdata; k <= maxoff; k++) {
        uint32_t w = u32(pg + SizeOfPageHeaderData + 4 * (k - 1));
        int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
        if ((lf != LP_NORMAL && lf != LP_DEAD) || len < 8 || off + len > bs - SIZEOF_BTPageOpaqueData) return -1;
        const uint8_t *raw = pg + off;
        uint16_t info = u16(raw + 6);
        int64_t size = info & INDEX_SIZE_MASK;
        if (size > len) size = len;
        if ((info & (INDEX_NULL_MASK | INDEX_ALT_TID_MASK)) || size < 8 + attlen) return -1;
        uint64_t tid = ((uint64_t)((uint32_t)u16(raw) << 16 | u16(raw + 2)) << 16) | u16(raw + 4);
        int c;
        if (kind == K_int) {
            int64_t key = sext(raw + 8, attlen);
            c = (key > prev_key) - (key < prev_key);
            prev_key = key;
        } else {
            uint64_t key = zext(raw + 8, attlen);
            c = (key > prev_ukey) - (key < prev_ukey);
            prev_ukey = key;
        }
        if (desc) c = -c;
        if (k > firstdata && !(c > 0 || (c == 0 && tid > prev_tid))) return 0;
        prev_tid = tid;
        last = raw;
        last_len = len;
    }
    if (rightmost) return 1;
    /* the high key rule, for the last item, as the general loop makes it */
    uint32_t w = u32(pg + SizeOfPageHeaderData);
    int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
    Tup hikey, it;
    if ((lf != LP_NORMAL && lf != LP_DEAD) || len < 8 || off + len > bs - SIZEOF_BTPageOpaqueData
        || !parse(pg + off, len, s, -1, &hikey) || !parse(last, last_len, s, -1, &it)) return -1;
    return compare_as(s, &it, 1, &hikey) <= 0 ? 1 : 0;
}

/* OrderCheck.add_page's within-page rules on each page i with check[i] set: status[i] 1 when every item is in
 * order and within the high key (low[i] = the line pointer number of the page's smallest data item), 0 when
 * Python must look (a violation, an item this code cannot read, a page add_page treats specially). With no key
 * columns in the spec (nkeyatts 0: the order is not checked), 1 when every line pointer is an item add_page
 * reads (low[i] 0). */
void pgp_btree_order_pages(const uint8_t *pages, int64_t n, int64_t bs, const uint8_t *check,
                           const int64_t *spec, uint8_t *status, int64_t *low) {
    Spec s = {spec[0], spec[1], spec[2], spec + 3};
    /* one integer key column (of the widths sext/zext read), heapkeyspace: plain_int_leaf's pages */
    const int int_key = s.nkey == 1 && s.hk && (s.col[0] == K_int || s.col[0] == K_uint)
                        && (s.col[1] == 1 || s.col[1] == 2 || s.col[1] == 4 || s.col[1] == 8);
    Tup tups[2], hikey;  /* the item before and the item at hand; the page's high key */
    for (int64_t i = 0; i < n; i++) {
        status[i] = 0;
        if (!check[i]) continue;
        const uint8_t *pg = pages + i * bs;
        if (i + 2 < n) pgp_prefetch_page(pg + 2 * bs, bs);
        uint16_t flags = u16(pg + bs - 4), lower = u16(pg + 12);
        uint32_t next = u32(pg + bs - 12);
        if (flags & (BTP_DELETED | BTP_META | BTP_HALF_DEAD)) continue;
        int64_t maxoff = lower >= SizeOfPageHeaderData ? (lower - SizeOfPageHeaderData) / 4 : 0;
        int leaf = (flags & BTP_LEAF) != 0, rightmost = next == 0;
        int64_t firstkey = rightmost ? 1 : 2, firstdata = leaf ? firstkey : firstkey + 1;
        if (maxoff < firstdata) continue;
        if (s.nkey == 0) {  /* no key order to check: the line pointers readable is all add_page asks */
            int ok = 1;
            for (int64_t k = 1; k <= maxoff && ok; k++) {
                uint32_t w = u32(pg + SizeOfPageHeaderData + 4 * (k - 1));
                int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
                ok = (lf == LP_NORMAL || lf == LP_DEAD) && len >= 8 && off + len <= bs - SIZEOF_BTPageOpaqueData;
            }
            status[i] = (uint8_t)ok;
            low[i] = 0;
            continue;
        }
        if (leaf && int_key && plain_int_leaf(pg, bs, &s, maxoff, firstdata, rightmost) == 1) {
            status[i] = 1;
            low[i] = firstdata;
            continue;
        }
        int ok = 1, have_hikey = 0, plain = leaf;
        int64_t lowest = -1;
        Tup low_t;
        for (int64_t k = 1; k <= maxoff && ok; k++) {
            uint32_t w = u32(pg + SizeOfPageHeaderData + 4 * (k - 1));
            int64_t off = w & 0x7FFF, lf = (w >> 15) & 3, len = w >> 17;
            if ((lf != LP_NORMAL && lf != LP_DEAD) || len < 8 || off + len > bs - SIZEOF_BTPageOpaqueData) { ok = 0; break; }
            if (k == 1 && !rightmost) {
                if (!parse(pg + off, len, &s, -1, &hikey)) ok = 0;
                have_hikey = 1;
                continue;
            }
            if (k < firstdata) continue;  /* an internal page's minus-infinity item */
            Tup *it = &tups[k & 1], *prev = &tups[(k - 1) & 1];
            if (!parse(pg + off, len, &s, -1, it)) { ok = 0; break; }
            int is_plain = !it->has_max && it->natts >= s.nkey;
            /* plain tuples (every key column, no posting list) of a leaf page are in a strict order where each is
             * less than the next, so the smallest is the first and the high key rule holds for all when it holds
             * for the last: the rules are made item by item only while some tuple is not plain */
            int was_plain = plain;
            plain &= is_plain;
            if (have_hikey) {
                /* the run of plain tuples ends: its last (the item before) stands for all of it */
                if (was_plain && !plain && k > firstdata && !(compare_as(&s, prev, 1, &hikey) <= 0)) { ok = 0; break; }
                if (!(plain && k < maxoff) &&
                    !(leaf ? compare_as(&s, it, 1, &hikey) <= 0 : less_as(&s, it, 1, &hikey))) {
                    ok = 0;
                    break;
                }
            }
            if (k > firstdata && !less(&s, prev, it)) { ok = 0; break; }
            if (lowest < 0) { lowest = k; low_t = *it; }
            else if (!plain && compare(&s, it, &low_t) < 0) { lowest = k; low_t = *it; }  /* the smallest item */
        }
        if (ok) { status[i] = 1; low[i] = lowest; }
    }
}

/* Many relations at once: pair i is the tuples pool[a_off[i] .. + a_len[i]) and pool[b_off[i] .. + b_len[i]);
 * out[i] as pgp_btree_relate's (op OP_IDENTICAL: bt_pivot_tuple_identical, which needs no key order: equal
 * IndexTupleSize and equal bytes from byte `from` on, 1 or 0). */
#define OP_IDENTICAL 4
void pgp_btree_relate_many(const uint8_t *pool, const int64_t *a_off, const int64_t *a_len, const int64_t *b_off,
                           const int64_t *b_len, int64_t n, const int64_t *spec, int64_t op, int64_t from,
                           int64_t *out) {
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *a = pool + a_off[i], *b = pool + b_off[i];
        if (op == OP_IDENTICAL) {  /* as order.py's _identical: the bytes [from, size) of each, clamped to it */
            if (a_len[i] < 8 || b_len[i] < 8 || (u16(a + 6) & INDEX_SIZE_MASK) != (u16(b + 6) & INDEX_SIZE_MASK)) {
                out[i] = 0;
                continue;
            }
            int64_t size = u16(a + 6) & INDEX_SIZE_MASK;
            int64_t ea = size < a_len[i] ? size : a_len[i], eb = size < b_len[i] ? size : b_len[i];
            int64_t la = ea > from ? ea - from : 0, lb = eb > from ? eb - from : 0;
            out[i] = la == lb && (la == 0 || memcmp(a + from, b + from, (size_t)la) == 0);
            continue;
        }
        out[i] = pgp_btree_relate(a, a_len[i], -1, b, b_len[i], -1, spec, op);
    }
}
