"""B-tree structure rules for a whole index, in the spirit of amcheck's bt_index_check.

Two passes, both over numpy arrays. ``BtreeVerifier.feed`` takes the index's chunks in block order
and checks each page by itself (``palloc_btree_page``'s and ``PageGetItemIdCareful``'s rules,
``_bt_check_natts``, posting list order, tuple sizes, heap TIDs), remembering per block only its
sibling links, level and flags (14 bytes a block) and the downlinks of internal pages. ``finish``
then walks the tree level by level from the metapage's root along right links, as
``bt_check_level_from_leftmost`` does, and checks the cross-page rules: sibling links that agree,
levels one below their parent, downlinks to live pages of the level below, every live page
reachable, no cycles (every walk is bounded by the number of blocks).

What is not checked: the order of keys (that needs the operator classes' comparison functions).
The messages are amcheck's where amcheck has one, so a search for them finds PostgreSQL's
explanation.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from pgpage.analysis.verify import (LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED, VerifyContext, _plain, check_pages,
                                    max_heap_tuples_per_page)
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_line_pointers
from pgpage.findings import ERROR, WARNING, Finding

BTP_LEAF, BTP_ROOT, BTP_DELETED, BTP_META, BTP_HALF_DEAD = 0x1, 0x2, 0x4, 0x8, 0x10
BTP_SPLIT_END, BTP_HAS_GARBAGE, BTP_INCOMPLETE_SPLIT, BTP_HAS_FULLXID = 0x20, 0x40, 0x80, 0x100
BTP_KNOWN_FLAGS = 0x1FF
BTREE_MAGIC = 0x053162
BTREE_MIN_VERSION, BTREE_VERSION = 2, 4
MAX_BT_CYCLE_ID = 0xFF7F
BT_OPAQUE_SIZE = 16
P_NONE = 0
P_HIKEY = 1
INDEX_SIZE_MASK = 0x1FFF
INDEX_ALT_TID_MASK = 0x2000
BT_OFFSET_MASK = 0x0FFF
BT_PIVOT_HEAP_TID_ATTR = 0x1000
BT_IS_POSTING = 0x2000
SIZEOF_INDEX_TUPLE = 8
MAX_VERSION_OF_MAJOR = {10: 2, 11: 3}   # btree version a fresh index of that major has (4 from 12 on)


def max_index_tuples_per_page(block_size: int) -> int:
    """MaxIndexTuplesPerPage: (BLCKSZ - header) / (MAXALIGN(sizeof(IndexTupleData) + 1) + sizeof(ItemIdData))."""
    return (block_size - SIZE_OF_PAGE_HEADER) // (16 + 4)


def bt_max_item_size(block_size: int, heapkeyspace: bool) -> int:
    """BTMaxItemSize (version 4: room kept for a heap TID) or BTMaxItemSizeNoHeapTid."""
    no_tid = ((block_size - 40 - BT_OPAQUE_SIZE) // 3) & ~7
    return no_tid - 8 if heapkeyspace else no_tid


@dataclass
class IndexShape:
    """What pg_index says: indnatts and indnkeyatts (None when unknown: a bare segment file)."""
    natts: int | None = None
    nkeyatts: int | None = None


class BtreeVerifier:
    """Feed the main fork's chunks in block order, then call ``finish``."""

    def __init__(self, ctx: VerifyContext, nblocks: int, shape: IndexShape | None = None,
                 heap_nblocks: int | None = None):
        self.ctx = ctx
        self.nblocks = nblocks
        self.shape = shape or IndexShape()
        self.heap_nblocks = heap_nblocks
        self.prev = np.zeros(nblocks, dtype=np.uint32)
        self.next = np.zeros(nblocks, dtype=np.uint32)
        self.level = np.zeros(nblocks, dtype=np.uint32)
        self.flags = np.zeros(nblocks, dtype=np.uint16)
        self.valid = np.zeros(nblocks, dtype=bool)       # a B-tree page whose opaque data can be trusted
        self.first_downlink = np.full(nblocks, -1, dtype=np.int64)
        self.downlinks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (parent, item, child)
        self.meta: dict | None = None
        self.heapkeyspace: bool | None = None

    # ---------------------------------------------------------------------------- pass 1: pages
    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        ctx = self.ctx
        pc = check_pages(chunk, first, ctx)
        out = pc.findings
        n, size = chunk.shape
        h = pc.headers
        blocks = first + np.arange(n)
        valid = pc.valid.copy()
        special = h.special.astype(np.int64)
        bad_special = valid & (special != size - BT_OPAQUE_SIZE)
        for i in np.flatnonzero(bad_special):
            out.append(ctx.finding("btree.page.bad_special", f"special space is {size - special[i]} bytes, a B-tree"
                                   f" page has {BT_OPAQUE_SIZE} (is this page from another relation?)", blocks[i],
                                   expected=size - BT_OPAQUE_SIZE, actual=special[i]))
        valid &= ~bad_special
        col = lambda off, dt: np.ascontiguousarray(chunk[:, size - BT_OPAQUE_SIZE + off:  # noqa: E731
                                                         size - BT_OPAQUE_SIZE + off + np.dtype(dt).itemsize]).view(dt).reshape(-1)
        prev, nxt, level = col(0, "<u4"), col(4, "<u4"), col(8, "<u4")
        flags, cycle = col(12, "<u2"), col(14, "<u2")
        fl = flags.astype(np.int64)
        if first == 0 and n:
            out += self._metapage(chunk[0], bool(valid[0]), int(fl[0]))
            valid[0] = False   # the metapage is no tree page
        meta_elsewhere = valid & ((fl & BTP_META) != 0)
        for i in np.flatnonzero(meta_elsewhere):
            out.append(ctx.finding("btree.page.unexpected_meta", f"invalid meta page found at block {blocks[i]}",
                                   blocks[i], actual=flags[i]))
        valid &= ~meta_elsewhere
        bad_cycle = valid & (cycle > MAX_BT_CYCLE_ID)
        for i in np.flatnonzero(bad_cycle):
            out.append(ctx.finding("btree.page.bad_cycleid", f"btpo_cycleid 0x{int(cycle[i]):04X} is above"
                                   f" MAX_BT_CYCLE_ID (a page of another access method?)", blocks[i], actual=cycle[i]))
        valid &= ~bad_cycle

        leaf, deleted, halfdead = (fl & BTP_LEAF) != 0, (fl & BTP_DELETED) != 0, (fl & BTP_HALF_DEAD) != 0
        fullxid, rightmost = (fl & BTP_HAS_FULLXID) != 0, nxt == P_NONE
        maxoff = h.nlp.astype(np.int64)
        firstkey = np.where(rightmost, 1, 2)
        lv = level.astype(np.int64)
        trust_level = ~deleted | fullxid
        rules = [
            ("btree.page.bad_flags", valid & ((fl & ~BTP_KNOWN_FLAGS) != 0),
             lambda i: f"btpo_flags 0x{fl[i]:04X} has bits no B-tree page uses"),
            ("btree.page.bad_level", valid & trust_level & leaf & (lv != 0),
             lambda i: f"invalid leaf page level {lv[i]} for block {blocks[i]}"),
            ("btree.page.bad_level", valid & trust_level & ~leaf & (lv == 0),
             lambda i: f"invalid internal page level 0 for block {blocks[i]}"),
            ("btree.page.too_many_items", valid & (maxoff > max_index_tuples_per_page(size)),
             lambda i: f"Number of items on block {blocks[i]} exceeds MaxIndexTuplesPerPage"
                       f" ({max_index_tuples_per_page(size)})"),
            ("btree.page.no_downlink", valid & ~leaf & ~deleted & (maxoff < firstkey),
             lambda i: f"internal block {blocks[i]} lacks high key and/or at least one downlink"),
            ("btree.page.no_high_key", valid & leaf & ~deleted & ~rightmost & (maxoff < P_HIKEY),
             lambda i: f"non-rightmost leaf block {blocks[i]} lacks high key item"),
            ("btree.page.internal_half_dead", valid & ~leaf & halfdead,
             lambda i: f"internal page block {blocks[i]} is half-dead"),
            ("btree.page.internal_has_garbage", valid & ~leaf & ((fl & BTP_HAS_GARBAGE) != 0),
             lambda i: f"internal page block {blocks[i]} has garbage items"),
            ("btree.page.fullxid_not_deleted", valid & fullxid & ~deleted,
             lambda i: f"full transaction id page flag appears in non-deleted block {blocks[i]}"),
            ("btree.page.deleted_and_half_dead", valid & deleted & halfdead,
             lambda i: f"deleted page block {blocks[i]} is half-dead"),
            ("btree.link.cycle", valid & ((prev == blocks) | (nxt == blocks)),
             lambda i: f"block {blocks[i]} links to itself (btpo_prev {prev[i]}, btpo_next {nxt[i]})"),
            ("btree.link.out_of_range", valid & ((prev >= self.nblocks) | (nxt >= self.nblocks)),
             lambda i: f"sibling link past the index's {self.nblocks} blocks (btpo_prev {prev[i]},"
                       f" btpo_next {nxt[i]})"),
        ]
        for code, mask, msg in rules:
            for i in np.flatnonzero(mask):
                out.append(ctx.finding(code, msg(i), blocks[i], actual=[int(prev[i]), int(nxt[i]), int(lv[i]), int(fl[i])]))
        sl = slice(first, first + n)
        self.prev[sl], self.next[sl], self.level[sl], self.flags[sl] = prev, nxt, level, flags
        self.valid[sl] = valid
        # items of live pages (a deleted page keeps no items worth reading)
        item_pages = valid & ~deleted
        hv = replace(h, nlp=np.where(item_pages, h.nlp, 0))
        out += self._items(chunk, first, hv, leaf, rightmost, firstkey, halfdead)
        out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
        return out

    def _metapage(self, page: np.ndarray, valid: bool, flags: int) -> list[Finding]:
        ctx = self.ctx
        words = page[SIZE_OF_PAGE_HEADER:SIZE_OF_PAGE_HEADER + 24].view("<u4")
        magic, version, root, level, fastroot, fastlevel = (int(x) for x in words)
        allequal = int(page[SIZE_OF_PAGE_HEADER + 40])
        if not page.any():
            return [ctx.finding("btree.meta.corrupt", "index meta page is corrupt: block 0 is all zeros", 0)]
        if not valid or not flags & BTP_META or magic != BTREE_MAGIC:
            return [ctx.finding("btree.meta.corrupt", f"index meta page is corrupt (btpo_flags 0x{flags:04X},"
                                f" btm_magic 0x{magic:X})", 0, expected=BTREE_MAGIC, actual=magic)]
        out = []
        top = MAX_VERSION_OF_MAJOR.get(ctx.major, BTREE_VERSION) if ctx.major else BTREE_VERSION
        if not BTREE_MIN_VERSION <= version <= top:
            out.append(ctx.finding("btree.meta.bad_version", f"version mismatch in index: file version {version},"
                                   f" current version {top}, minimum supported version {BTREE_MIN_VERSION}", 0,
                                   expected=f"{BTREE_MIN_VERSION}..{top}", actual=version))
            return out
        if version >= 3 and allequal not in (0, 1):
            out.append(ctx.finding("btree.meta.bad_allequalimage", f"btm_allequalimage is {allequal}, not a bool", 0,
                                   actual=allequal))
        elif version < 4 and allequal and (ctx.major or 13) >= 13:
            out.append(ctx.finding("btree.meta.bad_allequalimage", "index metapage has equalimage field set on"
                                   " unsupported nbtree version", 0, actual=version))
        for name, blk in (("root", root), ("fastroot", fastroot)):
            if blk >= self.nblocks:
                out.append(ctx.finding("btree.meta.root_out_of_range", f"btm_{name} {blk} is past the index's"
                                       f" {self.nblocks} blocks", 0, actual=blk))
        self.meta = {"version": version, "root": root, "level": level, "fastroot": fastroot, "fastlevel": fastlevel}
        self.heapkeyspace = version >= 4
        return out

    def _items(self, chunk, first, h, leaf, rightmost, firstkey, halfdead) -> list[Finding]:
        ctx = self.ctx
        out: list[Finding] = []
        items = decode_line_pointers(chunk, h)
        if len(items.lp) == 0:
            return out
        size = chunk.shape[1]
        page, lp, off, flags, length = items.page, items.lp, items.off, items.flags, items.len
        blk = first + page
        upper = h.upper.astype(np.int64)[page]
        limit = size - BT_OPAQUE_SIZE

        def each(mask, code, msg, severity=ERROR, expected=None, actual=None):
            for k in np.flatnonzero(mask):
                out.append(ctx.finding(code, msg(k), blk[k], lp[k], severity,
                                       expected(k) if expected else None, actual(k) if actual else None))

        oob = (off + length > limit) | ((length > 0) & (off < upper))
        each(oob, "btree.item.out_of_bounds", lambda k: f"line pointer points past end of tuple space"
             f" (lp_off={off[k]}, lp_len={length[k]}, lp_flags={flags[k]}; tuple space {upper[k]}..{limit})",
             actual=lambda k: [off[k], length[k]])
        bad_storage = ~oob & ((flags == LP_REDIRECT) | (flags == LP_UNUSED) | (length == 0))
        each(bad_storage, "btree.lp.bad_storage", lambda k: f"invalid line pointer storage (lp_off={off[k]},"
             f" lp_len={length[k]}, lp_flags={flags[k]})", actual=lambda k: [off[k], length[k], flags[k]])
        usable = ~oob & ~bad_storage
        misaligned = usable & (off % 8 != 0)
        each(misaligned, "btree.lp.misaligned", lambda k: f"line pointer to page offset {off[k]} is not maximally"
             " aligned", actual=lambda k: off[k])
        usable &= length >= SIZEOF_INDEX_TUPLE
        sel = np.flatnonzero(usable)
        if len(sel) > 1:
            order = sel[np.lexsort((off[sel], page[sel]))]
            a, b = order[:-1], order[1:]
            clash = (page[a] == page[b]) & (off[a] + length[a] > off[b])
            for x, y in zip(a[clash], b[clash]):
                out.append(ctx.finding("btree.lp.overlap", f"item {lp[y]} ({off[y]}..{off[y] + length[y]}) overlaps"
                                       f" item {lp[x]} ({off[x]}..{off[x] + length[x]})", blk[y], lp[y],
                                       actual=[int(lp[x]), int(lp[y])]))
        # IndexTupleData of every usable item: t_tid (bi_hi, bi_lo, ip_posid) and t_info, byte by byte
        flat = np.ascontiguousarray(chunk).reshape(-1)
        base = page[sel] * size + off[sel]
        b = flat[base[:, None] + np.arange(SIZEOF_INDEX_TUPLE)].astype(np.int64)
        tid_blk = (((b[:, 1] << 8) | b[:, 0]) << 16) | ((b[:, 3] << 8) | b[:, 2])
        posid = (b[:, 5] << 8) | b[:, 4]
        info = (b[:, 7] << 8) | b[:, 6]
        tsize = info & INDEX_SIZE_MASK
        ilen, ilp, iblk, ipage = length[sel], lp[sel], blk[sel], page[sel]

        def each_i(mask, code, msg, severity=ERROR, expected=None, actual=None):
            for j in np.flatnonzero(mask):
                out.append(ctx.finding(code, msg(j), iblk[j], ilp[j], severity,
                                       expected(j) if expected else None, actual(j) if actual else None))

        each_i(tsize != ilen, "btree.item.size_mismatch", lambda j: f"index tuple size does not equal lp_len (tuple"
               f" size={tsize[j]} lp_len={ilen[j]}); this could be a torn page problem",
               expected=lambda j: ilen[j], actual=lambda j: tsize[j])
        alt = (info & INDEX_ALT_TID_MASK) != 0
        posting = alt & ((posid & BT_IS_POSTING) != 0)
        pivot = alt & ~posting
        is_leaf = leaf[ipage]
        fk = firstkey[ipage]
        nonpivot_slot = is_leaf & (ilp >= fk)
        hikey_slot = ~rightmost[ipage] & (ilp == P_HIKEY)
        neginf_slot = ~is_leaf & (ilp == fk)
        # a half-dead page's high key carries the top parent link: _bt_check_natts ignores such pages
        self._natts(~halfdead[ipage], posid, pivot, posting, is_leaf, nonpivot_slot, hikey_slot, neginf_slot,
                    tid_blk, each_i)
        # tuple size limits
        hk = self.heapkeyspace
        if hk is not None:
            has_heap_tid = pivot & ((posid & BT_PIVOT_HEAP_TID_ATTR) != 0)
            lower = hk & (is_leaf | ~has_heap_tid)
            lim = np.where(lower, bt_max_item_size(size, True), bt_max_item_size(size, False))
            each_i((tsize > lim) & (tsize == ilen), "btree.item.too_large", lambda j: f"index row size {tsize[j]}"
                   f" exceeds maximum {lim[j]} for index", expected=lambda j: lim[j], actual=lambda j: tsize[j])
        # heap TIDs of non-pivot leaf tuples, and posting lists
        mhtpp = max_heap_tuples_per_page(size)
        plain = nonpivot_slot & ~alt
        cross = ERROR if ctx.consistent else WARNING
        each_i(plain & ((posid == 0) | (posid > mhtpp)), "btree.item.invalid_heap_tid",
               lambda j: f"leaf tuple points to heap tid ({tid_blk[j]},{posid[j]}), not a heap tuple's place",
               actual=lambda j: f"({tid_blk[j]},{posid[j]})")
        if self.heap_nblocks is not None:
            each_i(plain & (tid_blk >= self.heap_nblocks) & (posid != 0), "btree.item.heap_tid_beyond_end",
                   lambda j: f"leaf tuple points to heap tid ({tid_blk[j]},{posid[j]}), past the table's"
                   f" {self.heap_nblocks} blocks", cross, actual=lambda j: f"({tid_blk[j]},{posid[j]})")
        for j in np.flatnonzero(posting & nonpivot_slot):
            out += self._posting(flat, int(base[j]), int(tid_blk[j]), int(posid[j] & BT_OFFSET_MASK),
                                 int(min(tsize[j], ilen[j])), int(iblk[j]), int(ilp[j]), mhtpp, cross)
        # downlinks of internal pages (pivots from the first data key on)
        down = ~is_leaf & (ilp >= fk)
        if down.any():
            child = tid_blk[down]
            bad = (child >= self.nblocks) | (child == 0)
            for j in np.flatnonzero(down)[bad]:
                out.append(ctx.finding("btree.downlink.out_of_range", f"downlink to block {tid_blk[j]}, which is"
                                       f" {'the metapage' if tid_blk[j] == 0 else 'past the index end'}", iblk[j],
                                       ilp[j], actual=int(tid_blk[j])))
            keep = ~bad
            parents, items_, children = iblk[down][keep], ilp[down][keep], child[keep]
            self.downlinks.append((parents, items_, children))
            firsts = neginf_slot[down][keep]
            self.first_downlink[parents[firsts]] = children[firsts]
        return out

    def _natts(self, checked, posid, pivot, posting, is_leaf, nonpivot_slot, hikey_slot, neginf_slot, tid_blk,
               each_i) -> None:
        """_bt_check_natts, vectorised. Needs the metapage version; pg_index's counts where known."""
        hk = self.heapkeyspace
        if hk is None:
            return
        natts, nkey = self.shape.natts, self.shape.nkeyatts
        known = natts is not None and nkey is not None
        tupnatts = np.where(pivot, posid & BT_OFFSET_MASK, natts if natts is not None else -1)
        ok = np.ones(len(posid), dtype=bool)
        if not hk:
            ok &= ~posting                                        # no deduplication before version 4
        ok &= ~(posting & ((posid & BT_PIVOT_HEAP_TID_ATTR) != 0))
        if known and natts != nkey:
            ok &= ~posting                                        # INCLUDE indexes do not deduplicate
        # leaf non-pivot tuples: never marked pivot, never truncated
        r = nonpivot_slot
        ok[r] &= ~pivot[r]
        if known:
            ok[r] &= tupnatts[r] == natts
        hik = is_leaf & hikey_slot
        sep = ~is_leaf & ~neginf_slot                             # internal high key and separators
        neg = neginf_slot
        if hk:
            ok[neg] &= pivot[neg] & (tupnatts[neg] == 0)          # negative infinity: zero attributes
            g = hik | sep                                         # heapkeyspace pivot tuples
            has_tid = (posid & BT_PIVOT_HEAP_TID_ATTR) != 0
            ok[g] &= pivot[g] & ~posting[g] & (tupnatts[g] > 0)
            if known:
                ok[g] &= ~(has_tid[g] & (tupnatts[g] != nkey)) & (tupnatts[g] <= nkey)
        else:
            # before version 4 a minus-infinity item may also be the old form with P_HIKEY as offset
            ok[neg] &= (pivot[neg] & (tupnatts[neg] == 0)) | ((posid[neg] & 0xFFFF) == P_HIKEY)
            if known:
                for m in (hik, sep):
                    ok[m] &= np.where(pivot[m], tupnatts[m], natts) == nkey
        bad = ~ok & checked
        each_i(bad & hikey_slot, "btree.item.bad_natts",
               lambda j: f"wrong number of high key index tuple attributes (natts={int(tupnatts[j])})",
               actual=lambda j: int(tupnatts[j]))
        each_i(bad & ~hikey_slot, "btree.item.bad_natts",
               lambda j: f"wrong number of index tuple attributes (natts={int(tupnatts[j])}"
               f"{', posting list' if posting[j] else ', pivot' if pivot[j] else ''};"
               f" points to {'heap' if is_leaf[j] else 'index'} block {tid_blk[j]})",
               actual=lambda j: int(tupnatts[j]))

    def _posting(self, flat, base, poff, n, tsize, blk, item, mhtpp, cross) -> list[Finding]:
        ctx = self.ctx
        if poff < SIZEOF_INDEX_TUPLE or n < 2 or poff + 6 * n > tsize:
            return [ctx.finding("btree.posting.overrun", f"posting list of {n} TIDs at offset {poff} overruns the"
                                f" {tsize}-byte tuple", blk, item, expected=tsize, actual=poff + 6 * n)]
        raw = flat[base + poff: base + poff + 6 * n].reshape(n, 6).astype(np.int64)
        tblk = (((raw[:, 1] << 8) | raw[:, 0]) << 16) | ((raw[:, 3] << 8) | raw[:, 2])
        toff = (raw[:, 5] << 8) | raw[:, 4]
        key = (tblk << 16) | toff
        out = []
        bad = np.flatnonzero(key[1:] <= key[:-1])
        if len(bad):
            out.append(ctx.finding("btree.posting.misplaced_tid", f"posting list contains misplaced TID (posting list"
                                   f" offset={int(bad[0]) + 1})", blk, item, actual=int(bad[0]) + 1))
        if ((toff == 0) | (toff > mhtpp)).any():
            i = int(np.flatnonzero((toff == 0) | (toff > mhtpp))[0])
            out.append(ctx.finding("btree.item.invalid_heap_tid", f"posting list TID {i} is ({tblk[i]},{toff[i]}), not"
                                   " a heap tuple's place", blk, item, actual=f"({tblk[i]},{toff[i]})"))
        if self.heap_nblocks is not None and (tblk >= self.heap_nblocks).any():
            i = int(np.flatnonzero(tblk >= self.heap_nblocks)[0])
            out.append(ctx.finding("btree.item.heap_tid_beyond_end", f"posting list TID {i} ({tblk[i]},{toff[i]}) is"
                                   f" past the table's {self.heap_nblocks} blocks", blk, item, cross,
                                   actual=f"({tblk[i]},{toff[i]})"))
        return out

    # ---------------------------------------------------------------------------- pass 2: tree
    def finish(self) -> list[Finding]:
        """Cross-page rules: the level walk from the root, downlinks, reachability."""
        ctx = self.ctx
        out: list[Finding] = []
        if self.nblocks <= 1 or self.meta is None:
            return out
        root, root_level = self.meta["root"], self.meta["level"]
        if root == P_NONE or root >= self.nblocks:
            live = np.flatnonzero(self.valid & ((self.flags & BTP_DELETED) == 0))
            if root == P_NONE and len(live):
                out.append(ctx.finding("btree.meta.no_root", f"the metapage names no root, but {len(live)} live pages"
                                       f" exist (first: block {live[0]})", 0, severity=WARNING))
            return out
        visited = np.zeros(self.nblocks, dtype=bool)
        fl = self.flags.astype(np.int64)
        level, leftmost, true_root = root_level, root, True
        guard = 0
        while leftmost != P_NONE and guard <= self.nblocks:
            guard += 1
            nextdown, nextlevel = self._walk_level(out, visited, fl, leftmost, level, true_root)
            if nextdown is None:
                out.append(ctx.finding("btree.level.no_valid_pages", f"index has no valid pages on level below"
                                       f" {level} or first level", leftmost))
                break
            leftmost, level, true_root = nextdown, nextlevel, False
        out += self._downlink_rules(fl, root)
        reach = self.valid & ~visited & ((fl & BTP_DELETED) == 0)
        reach[0] = False
        for b in np.flatnonzero(reach):
            out.append(ctx.finding("btree.page.unreachable", "live page is not reachable from the root along sibling"
                                   " links", b, severity=WARNING, actual=[int(self.prev[b]), int(self.next[b])]))
        out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
        return out

    def _walk_level(self, out, visited, fl, leftmost, level, true_root):
        """bt_check_level_from_leftmost. Returns (leftmost block of the level below or P_NONE, its
        level), or (None, None) when the level holds no valid page."""
        ctx = self.ctx
        leftcurrent, current = P_NONE, leftmost
        nextdown = None
        nextlevel = None
        steps = 0
        while current != P_NONE:
            steps += 1
            if current >= self.nblocks:
                out.append(ctx.finding("btree.link.out_of_range", f"block {leftcurrent} links to block {current},"
                                       f" past the index's {self.nblocks} blocks", leftcurrent, actual=int(current)))
                break
            if visited[current] or steps > self.nblocks:
                out.append(ctx.finding("btree.link.cycle", f"circular link chain found in block {current} of index",
                                       current, actual=int(leftcurrent)))
                break
            visited[current] = True
            if not self.valid[current]:
                out.append(ctx.finding("btree.link.to_bad_page", f"block {leftcurrent} links to block {current}, which"
                                       " is not a valid B-tree page", current, actual=int(leftcurrent)))
                break
            f = int(fl[current])
            if f & (BTP_DELETED | BTP_HALF_DEAD):
                if f & BTP_DELETED:
                    out.append(ctx.finding("btree.link.to_deleted", f"downlink or sibling link points to deleted block"
                                           f" in index (block={current} left block={leftcurrent} left link from"
                                           f" block={int(self.prev[current])})", current))
                if self.next[current] == P_NONE:
                    out.append(ctx.finding("btree.link.fell_off_end", f"block {current} fell off the end of index",
                                           current))
            else:
                if nextdown is None:
                    if self.prev[current] != P_NONE:
                        out.append(ctx.finding("btree.level.not_leftmost", f"block {current} is not leftmost in index",
                                               current, actual=int(self.prev[current])))
                    if true_root and not f & BTP_ROOT:
                        out.append(ctx.finding("btree.meta.root_not_root", f"block {current} is not true root in index",
                                               current, actual=f))
                    if f & BTP_LEAF:
                        nextdown, nextlevel = P_NONE, None
                    else:
                        fd = int(self.first_downlink[current])
                        nextdown, nextlevel = (fd if fd >= 0 else P_NONE), int(self.level[current]) - 1
                if self.prev[current] != leftcurrent:
                    out.append(ctx.finding("btree.link.mismatch", "left link/right link pair in index not in agreement"
                                           f" (block={current} left block={leftcurrent} left link from"
                                           f" block={int(self.prev[current])})", current, expected=int(leftcurrent),
                                           actual=int(self.prev[current])))
                if self.level[current] != level:
                    out.append(ctx.finding("btree.level.mismatch", "leftmost down link for level points to block in"
                                           " index whose level is not one level down (block pointed to="
                                           f"{current} expected level={level} level in pointed to"
                                           f" block={int(self.level[current])})", current, expected=int(level),
                                           actual=int(self.level[current])))
            leftcurrent, current = current, int(self.next[current])
        return nextdown, nextlevel

    def _downlink_rules(self, fl, root) -> list[Finding]:
        """Every downlink reaches a live page one level down; every live non-root page has one
        (unless its left sibling's split is incomplete); no page has two."""
        ctx = self.ctx
        out: list[Finding] = []
        if self.downlinks:
            parents = np.concatenate([d[0] for d in self.downlinks])
            items = np.concatenate([d[1] for d in self.downlinks])
            children = np.concatenate([d[2] for d in self.downlinks])
        else:
            parents = items = children = np.zeros(0, dtype=np.int64)
        cross_ok = self.valid[parents] & self.valid[children]
        for k in np.flatnonzero(~self.valid[children]):
            out.append(ctx.finding("btree.downlink.to_bad_page", f"downlink to block {children[k]}, which is not a valid"
                                   " B-tree page", parents[k], items[k], actual=int(children[k])))
        deleted_child = cross_ok & ((fl[children] & BTP_DELETED) != 0)
        for k in np.flatnonzero(deleted_child):
            out.append(ctx.finding("btree.downlink.to_deleted", f"downlink to deleted page found in index (parent block"
                                   f" {parents[k]}, child block {children[k]})", parents[k], items[k],
                                   actual=int(children[k])))
        lvl_bad = cross_ok & ~deleted_child & (self.level[children].astype(np.int64)
                                                 != self.level[parents].astype(np.int64) - 1)
        for k in np.flatnonzero(lvl_bad):
            out.append(ctx.finding("btree.downlink.level_mismatch", f"downlink to block {children[k]} at level"
                                   f" {int(self.level[children[k]])}, its parent is at level"
                                   f" {int(self.level[parents[k]])}", parents[k], items[k],
                                   expected=int(self.level[parents[k]]) - 1, actual=int(self.level[children[k]])))
        counts = np.bincount(children, minlength=self.nblocks) if len(children) else np.zeros(self.nblocks, int)
        for b in np.flatnonzero(counts > 1):
            ks = np.flatnonzero(children == b)
            out.append(ctx.finding("btree.downlink.duplicate", f"block {b} has {counts[b]} downlinks (from "
                                   + ", ".join(f"({parents[k]},{items[k]})" for k in ks[:4]) + ")", b,
                                   actual=int(counts[b])))
        # pages that should have a downlink: live, not root, below the root level
        live = self.valid & ((fl & (BTP_DELETED | BTP_HALF_DEAD)) == 0)
        live[0] = False
        if 0 <= root < self.nblocks:
            live[root] = False
            root_level = int(self.level[root]) if self.valid[root] else None
        else:
            root_level = None
        if root_level is not None:
            live &= self.level < root_level
        left = self.prev.astype(np.int64)
        incomplete_left = (left != P_NONE) & (left < self.nblocks)
        incomplete_left[incomplete_left] = (fl[left[incomplete_left]] & BTP_INCOMPLETE_SPLIT) != 0
        missing = live & (counts == 0) & ~incomplete_left
        for b in np.flatnonzero(missing):
            what = "leaf" if fl[b] & BTP_LEAF else "internal"
            out.append(ctx.finding("btree.downlink.missing", f"{what} index block {b} lacks downlink in its parent"
                                   " level", b))
        return out


def shape_from_index_row(row: dict | None) -> IndexShape:
    """IndexShape from a pg_index row (indnkeyatts is indnatts before 11)."""
    if not row:
        return IndexShape()
    natts = row.get("indnatts")
    nkey = row.get("indnkeyatts", natts)
    return IndexShape(natts, nkey if nkey is not None else natts)


__all__ = ["BtreeVerifier", "IndexShape", "shape_from_index_row", "LP_DEAD", "LP_NORMAL", "_plain"]
