"""B-tree rules for a whole index: ``analysis.btree``'s structure checks plus amcheck's page rules.

The structure of the tree (sibling links both ways, levels, the chain of every level, downlinks
to live pages one level down and in order, the metapage's root, posting lists, heap TIDs and
where they land in the table) is checked by ``pgpage.analysis.btree.scan.BtreeScan``, the pass
``pgpage index`` uses, so both commands report the same damage under the same codes. This module
feeds that scan and adds what amcheck's ``palloc_btree_page``, ``PageGetItemIdCareful`` and
``_bt_check_natts`` check that the scan does not: page flag combinations nbtree never writes,
item counts, internal pages without downlinks, leaf pages without a high key, overlapping or
misaligned items, the number of attributes of every pivot and non-pivot tuple, tuple size
limits, and a metapage version the server's major cannot have written. Page checksums and
header sanity are ``analysis.verify.pages.check_pages``, as for every other access method.

The order of keys (within pages, across siblings, parent against child: bt_index_check's and
bt_index_parent_check's invariants) is ``analysis.btree.order``'s, for the key types whose order
pgpage computes exactly (``KeySpec``); for others one info finding says why it was not checked.
The messages are amcheck's where amcheck has one.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable

import numpy as np

from pgpage.analysis.btree.heapcheck import HeapTidCheck, merged_ranges
from pgpage.analysis.btree.order import KeyOrder, OrderCheck, not_checked
from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_HAS_GARBAGE, BTP_KNOWN_FLAGS, BTP_LEAF,
                                         BTP_META, BTREE_MAGIC, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK, P_HIKEY, P_NONE,
                                         SIZE_OF_BT_OPAQUE, bt_opaque, max_index_tuples_per_page)
from pgpage.analysis.btree.scan import BtreeScan, IndexInfo
from pgpage.analysis.btree.sink import FindingSink
from pgpage.analysis.verify.context import IndexShape, KeySpec, VerifyContext
from pgpage.analysis.verify.pages import check_pages
from pgpage.decode.flags import LP_DEAD, LP_NORMAL
from pgpage.decode.ksy.constants import (BTREE_MIN_VERSION, BTREE_VERSION, MAX_BT_CYCLE_ID, SIZEOF_ItemIdData,
                                         SIZEOF_ItemPointerData, SIZEOF_IndexTupleData as SIZEOF_INDEX_TUPLE)
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.pagebase import maxalign
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_line_pointers
from pgpage.findings import ERROR, WARNING, Finding

MAX_VERSION_OF_MAJOR = {10: 2, 11: 3}   # btree version a fresh index of that major has (4 from 12 on)
# index bytes read and checked at a time: the Python steps per chunk cost more than a chunk that outgrows the
# CPU's L2 cache (2 MiB chunks: 6.3 s for a 1.6 GB index, 16 MiB ones: 4.6 s)
CHUNK_BYTES = 16 << 20
_ALLEQUALIMAGE_AT = LAYOUTS["nbtree::bt_meta_page_data"]["fields"]["btm_allequalimage"][0]   # in BTMetaPageData


def bt_max_item_size(block_size: int, heapkeyspace: bool) -> int:
    """BTMaxItemSize (version 4: room kept for a heap TID) or BTMaxItemSizeNoHeapTid."""
    no_tid = ((block_size - maxalign(SIZE_OF_PAGE_HEADER + 3 * SIZEOF_ItemIdData) - SIZE_OF_BT_OPAQUE) // 3) & ~7
    return no_tid - maxalign(SIZEOF_ItemPointerData) if heapkeyspace else no_tid


class _EveryFinding(FindingSink):
    """``BtreeScan``'s findings without its per-code cap: verify reports each problem."""

    def __init__(self, relation: str | None):
        super().__init__(relation)
        self.relation = relation
        self.items = []

    def __call__(self, code: str, message: str, severity: str = ERROR, **kw) -> None:
        self.items.append(Finding(code, message, severity, relation=self.relation, fork="main", **kw))

    def count(self, code: str) -> int:
        return sum(1 for f in self.items if f.code == code)

    def close(self) -> list[Finding]:
        return self.items


class BtreeVerifier:
    """Feed the main fork's chunks in block order (block 0 first), then call ``finish``."""

    def __init__(self, ctx: VerifyContext, nblocks: int, shape: IndexShape | None = None,
                 heap: HeapTidCheck | None = None, table: str | None = None, keys: KeySpec | None = None):
        self.ctx = ctx
        self.nblocks = nblocks
        self.shape = shape or IndexShape()
        info = IndexInfo(relation=ctx.relation, table=table, natts=self.shape.natts, nkeyatts=self.shape.nkeyatts)
        self.scan = BtreeScan(nblocks, ctx.block_size, ctx.major, info, heap, checksums=False)
        self.scan.find = _EveryFinding(ctx.relation)
        self._drained = 0
        self._bad_header: set[int] = set()
        self.heapkeyspace: bool | None = None
        self.keys = keys
        self.order: OrderCheck | None = None
        self._order_findings: list[Finding] = []

    def _drain(self) -> list[Finding]:
        """The scan's findings since the last call, minus what ``check_pages`` already said."""
        items = self.scan.find.items
        new, self._drained = items[self._drained:], len(items)
        out = []
        for f in new:
            if f.code == "btree.page.not_btree" and f.block in self._bad_header:
                continue
            if f.code in ("btree.page.bad_special_size", "page.new_not_zeroed"):   # the scan's: feed reports them
                continue
            if f.code.startswith("btree.heap.") and not self.ctx.consistent and f.severity == ERROR:
                f = Finding(f.code, f.message, WARNING, f.relation, f.fork, f.block, f.item, f.expected, f.actual)
            out.append(f)
        return out

    # ---------------------------------------------------------------------------- pass 1: pages
    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        ctx = self.ctx
        pc = check_pages(chunk, first, ctx)
        out = pc.findings
        self._bad_header.update(f.block for f in out if f.code.startswith("page."))
        n, size = chunk.shape
        h = pc.headers
        blocks = first + np.arange(n)
        valid = pc.valid & (h.special.astype(np.int64) == size - SIZE_OF_BT_OPAQUE)
        for i in np.flatnonzero(pc.valid & ~valid):  # _bt_checkpage: the special area is BTPageOpaqueData's size
            out.append(ctx.finding("btree.page.bad_special_size", f"index contains corrupted page at block"
                                   f" {blocks[i]}: its special area is {size - int(h.special[i])} bytes, a B-tree"
                                   f" page's is {SIZE_OF_BT_OPAQUE}", blocks[i], expected=size - SIZE_OF_BT_OPAQUE,
                                   actual=int(h.special[i])))
        op = bt_opaque(chunk)
        nxt, flags, cycle = op["btpo_next"], op["btpo_flags"], op["btpo_cycleid"]
        fl = flags.astype(np.int64)
        if first == 0 and n:
            out += self._metapage(chunk[0], bool(valid[0]), int(fl[0]))
            valid[0] = False   # the metapage is no tree page
        valid &= (fl & BTP_META) == 0                 # the scan reports stray metapages
        bad_cycle = valid & (cycle > MAX_BT_CYCLE_ID)
        for i in np.flatnonzero(bad_cycle):
            out.append(ctx.finding("btree.page.bad_cycleid", f"btpo_cycleid 0x{int(cycle[i]):04X} is above"
                                   f" MAX_BT_CYCLE_ID (a page of another access method?)", blocks[i], actual=cycle[i]))
        valid &= ~bad_cycle
        leaf, deleted, halfdead = (fl & BTP_LEAF) != 0, (fl & BTP_DELETED) != 0, (fl & BTP_HALF_DEAD) != 0
        fullxid, rightmost = (fl & BTP_HAS_FULLXID) != 0, nxt == P_NONE
        maxoff = h.nlp.astype(np.int64)
        firstkey = np.where(rightmost, 1, 2)
        rules = [
            ("btree.page.bad_flags", valid & ((fl & ~BTP_KNOWN_FLAGS) != 0),
             lambda i: f"btpo_flags 0x{fl[i]:04X} has bits no B-tree page uses"),
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
        ]
        for code, mask, msg in rules:
            for i in np.flatnonzero(mask):
                out.append(ctx.finding(code, msg(i), blocks[i], actual=int(fl[i])))
        item_pages = valid & ~deleted
        hv = replace(h, nlp=np.where(item_pages, h.nlp, 0))
        out += self._items(chunk, first, hv, leaf, rightmost, firstkey, halfdead)
        if first == 0:
            self._start_order()
        if self.order is not None:
            sane = item_pages & (h.lower.astype(np.int64) <= h.upper) & (h.upper <= h.special)
            self._add_order_pages(chunk, blocks, sane, h.nlp, op)
        out += self._order_drain()
        # the scan last: the item rules and the order checks read the pages while the checksums' pass left them in
        # the CPU's caches, before the scan's heap TID check reads the table through them
        self.scan.add_chunk(first, chunk, h)
        out += self._drain()
        out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
        return out

    def _start_order(self) -> None:
        """The key order checks, once the metapage said whether the heap TID is a key (version 4)."""
        k, ctx = self.keys, self.ctx
        if k is None or self.heapkeyspace is None or not self.shape.natts or not self.shape.nkeyatts:
            return
        order = None
        if k.reason is None:
            order = KeyOrder(k.attrs, self.shape.nkeyatts, self.shape.natts, k.indoption, self.heapkeyspace,
                             k.collation_keys)
        else:
            self._order_findings.append(not_checked(ctx.relation, k.reason))

        def find(code, message, block, item):
            self._order_findings.append(ctx.finding(code, message, block, item))
        self.order = OrderCheck(ctx.relation, order, self.heapkeyspace, find, self.nblocks, ctx.block_size)

    def _add_order_pages(self, chunk: np.ndarray, blocks: np.ndarray, sane: np.ndarray, nlp: np.ndarray,
                         opaque: np.ndarray) -> None:
        """The pages to the order checks: those the compiled check finds in order (every item, the high key)
        keep only what the cross-page rules need; the rest go through ``OrderCheck.add_page``."""
        keys = self.order.order
        # no order to check: the compiled code only sees that every item can be read
        spec = keys.cspec if keys is not None else np.array([0, 0, int(bool(self.heapkeyspace))], dtype=np.int64)
        status = np.zeros(len(blocks), dtype=np.uint8)
        if spec is not None and sane.any():
            from pgpage.decode.kernels import btree_order_pages
            chunk = np.ascontiguousarray(chunk)
            status, low = btree_order_pages(chunk, sane, spec)
            done = np.flatnonzero(status)
            self.order.add_verified(chunk, done, blocks[done], low[done], nlp, opaque)
        for i in np.flatnonzero(sane & (status == 0)):
            self.order.add_page(int(blocks[i]), chunk[i].tobytes())

    def _order_drain(self) -> list[Finding]:
        out, self._order_findings = self._order_findings, []
        return out

    def _metapage(self, page: np.ndarray, valid: bool, flags: int) -> list[Finding]:
        """The metapage's version against the server's major (the scan checks the rest)."""
        ctx = self.ctx
        words = page[SIZE_OF_PAGE_HEADER:SIZE_OF_PAGE_HEADER + 8].view("<u4")
        magic, version = int(words[0]), int(words[1])
        if (not valid or not flags & BTP_META or magic != BTREE_MAGIC
                or not BTREE_MIN_VERSION <= version <= BTREE_VERSION):
            return []
        self.heapkeyspace = version >= 4
        out = []
        top = MAX_VERSION_OF_MAJOR.get(ctx.major, BTREE_VERSION) if ctx.major else BTREE_VERSION
        if version > top:
            out.append(ctx.finding("btree.meta.bad_version", f"version mismatch in index: file version {version},"
                                   f" current version {top}, minimum supported version {BTREE_MIN_VERSION}", 0,
                                   expected=f"{BTREE_MIN_VERSION}..{top}", actual=version))
        allequal = int(page[SIZE_OF_PAGE_HEADER + _ALLEQUALIMAGE_AT])
        if version >= 3 and (ctx.major or 13) >= 13 and allequal not in (0, 1):
            out.append(ctx.finding("btree.meta.bad_allequalimage", f"btm_allequalimage is {allequal}, not a bool", 0,
                                   actual=allequal))
        elif version < 4 and allequal == 1 and (ctx.major or 13) >= 13:
            out.append(ctx.finding("btree.meta.bad_allequalimage", "index metapage has equalimage field set on"
                                   " unsupported nbtree version", 0, actual=version))
        return out

    def _items(self, chunk, first, h, leaf, rightmost, firstkey, halfdead) -> list[Finding]:
        """Overlaps, alignment, _bt_check_natts and size limits of the items of live pages."""
        ctx = self.ctx
        out: list[Finding] = []
        h = replace(h, nlp=self._sieve(chunk, h.nlp))
        items = decode_line_pointers(chunk, h)
        if len(items.lp) == 0:
            return out
        size = chunk.shape[1]
        page, lp, off, flags, length = items.page, items.lp, items.off, items.flags, items.len
        blk = first + page
        upper = h.upper.astype(np.int64)[page]
        special = h.special.astype(np.int64)[page]
        usable = ((flags == LP_NORMAL) | (flags == LP_DEAD)) & (off >= upper) & (off + length <= special) \
            & (length >= SIZEOF_INDEX_TUPLE)
        for k in np.flatnonzero(usable & (off % 8 != 0)):
            out.append(ctx.finding("btree.lp.misaligned", f"line pointer to page offset {off[k]} is not maximally"
                                   " aligned", blk[k], lp[k], actual=int(off[k])))
        sel = np.flatnonzero(usable)
        if len(sel) > 1:
            order = sel[np.lexsort((off[sel], page[sel]))]
            a, b = order[:-1], order[1:]
            clash = (page[a] == page[b]) & (off[a] + length[a] > off[b])
            for x, y in zip(a[clash], b[clash]):
                out.append(ctx.finding("btree.lp.overlap", f"item {lp[y]} ({off[y]}..{off[y] + length[y]}) overlaps"
                                       f" item {lp[x]} ({off[x]}..{off[x] + length[x]})", blk[y], lp[y],
                                       actual=[int(lp[x]), int(lp[y])]))
        if not len(sel):
            return out
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

        alt = (info & INDEX_ALT_TID_MASK) != 0
        posting = alt & ((posid & BT_IS_POSTING) != 0)
        pivot = alt & ~posting
        is_leaf = leaf[ipage]
        fk = firstkey[ipage]
        nonpivot_slot = is_leaf & (ilp >= fk)
        hikey_slot = ~rightmost[ipage] & (ilp == P_HIKEY)
        neginf_slot = ~is_leaf & (ilp == fk)
        # a half-dead page's high key carries the top parent link: _bt_check_natts ignores such pages;
        # a leaf data item marked as a pivot is the scan's btree.item.unexpected_pivot
        checked = ~halfdead[ipage] & ~(nonpivot_slot & pivot)
        self._natts(checked, posid, pivot, posting, is_leaf, nonpivot_slot, hikey_slot, neginf_slot, tid_blk, each_i)
        hk = self.heapkeyspace
        if hk is not None:
            has_heap_tid = pivot & ((posid & BT_PIVOT_HEAP_TID_ATTR) != 0)
            lower = hk & (is_leaf | ~has_heap_tid)
            lim = np.where(lower, bt_max_item_size(size, True), bt_max_item_size(size, False))
            each_i((tsize > lim) & (tsize == ilen), "btree.item.too_large", lambda j: f"index row size {tsize[j]}"
                   f" exceeds maximum {lim[j]} for index", expected=lambda j: lim[j], actual=lambda j: tsize[j])
        return out

    def _sieve(self, chunk, nlp: np.ndarray) -> np.ndarray:
        """``nlp`` with 0 for the pages on which no rule of ``_items`` can fire (the compiled sieve checks them
        all, as below), so that the rules word findings for the few pages left."""
        if not chunk.flags.c_contiguous or not len(nlp):
            return nlp
        from pgpage.decode.kernels import verify_btree_sieve
        size, hk, s = chunk.shape[1], self.heapkeyspace, self.shape
        params = (-1 if hk is None else int(hk), -1 if s.natts is None else s.natts,
                  -1 if s.nkeyatts is None else s.nkeyatts, bt_max_item_size(size, True), bt_max_item_size(size, False))
        return np.where(verify_btree_sieve(chunk, nlp, params) != 0, nlp, 0)

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

    def finish(self, chunks: Callable[..., Iterable[tuple[int, np.ndarray]]],
               read_blocks: Callable[[np.ndarray], np.ndarray] | None = None) -> list[Finding]:
        """The scan's cross-page rules (levels, links, downlinks, the root, the table, the key order across
        pages); they read index pages again: ``chunks(lo, hi)`` ranges (as ``RelationFork.iter_chunks``) when
        the table is too big for one window of the heap check, ``read_blocks(sorted block numbers)`` the pages
        the order rules compare (as ``RelationFork.block_reader()``; by default through ``chunks``)."""
        self.scan.check_heap_windows(chunks)
        self.report = self.scan.report()   # (`index`'s figures of the index, which `export` writes too)
        if self.order is not None:
            self.order.finish(read_blocks or _blocks_through(chunks, self.ctx.block_size))
        out = self._order_drain() + self._drain()
        out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
        return out


def _blocks_through(chunks: Callable[..., Iterable[tuple[int, np.ndarray]]], block_size: int
                    ) -> Callable[[np.ndarray], np.ndarray]:
    """``read_blocks`` over a ``chunks(lo, hi)`` reader: each run of consecutive blocks read as one range (a
    block that cannot be read comes back all zeros)."""
    def read(blocks: np.ndarray) -> np.ndarray:
        out = np.zeros((len(blocks), block_size), dtype=np.uint8)
        for lo, hi in merged_ranges([(b, b + 1) for b in blocks.tolist()]):
            for first, chunk in chunks(lo, hi):
                rows = np.flatnonzero((blocks >= max(lo, first)) & (blocks < min(hi, first + len(chunk))))
                out[rows] = chunk[blocks[rows] - first]
        return out
    return read
