"""A TOAST table's chunks found through its index, as the server finds them: ``toast_fetch_datum`` scans the
index on (chunk_id, chunk_seq) for the value's chunk_id. ``ToastIndex.heap_blocks`` descends from the metapage's root
to the leftmost leaf that can hold a chunk_id (``_bt_search``: the last downlink whose key is below it, moving
right past a page whose high key is below it), then walks right along the leaves while a page's high key does
not exceed it, and lists the heap TIDs of the items filed under it.

``rows`` uses it so that the values it prints are found without reading every chunk of a large TOAST table
first (``passes.toast.ToastStore``). It reads only what a sound index has where the descent goes; the first page
that is not that (a bad header, a level or flag out of place, an item it cannot read, a walk that does not end)
makes ``heap_blocks`` return None, and the caller falls back to reading the TOAST table whole.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from pgpage.analysis.btree.pages import (BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF,
                                         BTP_META, BTREE_MAGIC, INDEX_ALT_TID_MASK, INDEX_NULL_MASK,
                                         INDEX_SIZE_MASK, P_NONE, SIZE_OF_BT_OPAQUE, SIZE_OF_ITEM_ID,
                                         SIZE_OF_PAGE_HEADER)
from pgpage.decode.flags import LP_DEAD, LP_NORMAL
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import line_pointer_fields

MAX_CACHED_PAGES = 256   # decoded index pages kept (the upper levels stay; leaves pass through)
READ_AHEAD = 16   # index blocks read at a time: the leaves of an index filled in chunk_id order lie one after another
_META = LAYOUTS["nbtree::bt_meta_page_data"]["fields"]
_TUPLE = LAYOUTS["nbtree::bt_index_tuple"]["fields"]
_HEADER = LAYOUTS["pg_page::page_header"]["fields"]
_OPAQUE = LAYOUTS["nbtree::bt_page_opaque_data"]["fields"]
SIZE_OF_INDEX_TUPLE = LAYOUTS["nbtree::bt_index_tuple"]["size"]
CHUNK_ID_END = SIZE_OF_INDEX_TUPLE + 4   # the first key column, chunk_id (an oid), right after the header
# an item's fields as one record: IndexTupleData's (offsets from the layout), then chunk_id
_CELL = np.dtype({"names": ["bi_hi", "bi_lo", "t_info", "chunk_id"], "formats": ["<u2", "<u2", "<u2", "<u4"],
                  "offsets": [_TUPLE["t_tid.bi_hi"][0], _TUPLE["t_tid.bi_lo"][0], _TUPLE["t_info"][0],
                              SIZE_OF_INDEX_TUPLE], "itemsize": CHUNK_ID_END})


class Unusable(Exception):
    """The index is not what a sound one has where the descent went."""


@dataclass
class _Page:
    """One decoded index page: its level, flags, right sibling and high key's chunk_id (None: rightmost), and
    from its first data item on (P_FIRSTDATAKEY) each item's chunk_id (-1: none, the minus-infinity item of an
    internal page) and the block number of its TID (``tid_blk``: a heap block, or a downlink's child)."""
    level: int
    leaf: bool
    ignore: bool
    next: int
    high: int | None
    key: np.ndarray
    tid_blk: np.ndarray


def _field(page: np.ndarray, layout: dict, name: str, base: int = 0) -> int:
    """One u2 or u4 field of a structure at byte ``base`` of the page."""
    at, kind = layout[name]
    return int.from_bytes(page[base + at:base + at + (4 if kind == "u4" else 2)].tobytes(), "little")


class ToastIndex:
    """Lookups of chunk_ids in the B-tree index of a TOAST table (its main fork); see the module's docstring."""

    def __init__(self, fork):
        self.read = fork.block_reader()
        self.nblocks = fork.end_block
        self.block_size = fork.block_size
        self._pages: OrderedDict[int, _Page] = OrderedDict()
        self._root: tuple[int, int] | None = None
        self._ahead: dict[int, np.ndarray] = {}   # the blocks read after the last one asked for, not yet asked for

    def heap_blocks(self, valueids: list[int]) -> np.ndarray | None:
        """The heap blocks of the TIDs the index files under the chunk_ids ``valueids`` (ascending), together
        (repeats included); None when the index cannot be followed."""
        ids = np.asarray(valueids, dtype=np.int64)
        blks: list[np.ndarray] = []
        try:
            root, level = self._metapage()
            leaf: _Page | None = None
            i = 0
            while i < len(ids):
                v = int(ids[i])
                leaf = self._leaf_for(leaf, v, root, level)
                # the chunk_ids below the leaf's high key are filed on it alone, one equal to it further right too
                j = len(ids) if leaf.high is None else int(np.searchsorted(ids, leaf.high))
                if j > i:
                    asked = ids[i:j]   # (ascending: a search, not isin's sort, tells the leaf's keys among them)
                    hit = asked[np.minimum(np.searchsorted(asked, leaf.key), len(asked) - 1)] == leaf.key
                    blks.append(leaf.tid_blk[hit])
                    i = j
                else:
                    leaf = self._collect(leaf, v, blks)
                    i += 1
        except Unusable:
            return None
        return np.concatenate(blks) if blks else np.zeros(0, dtype=np.int64)

    def _leaf_for(self, leaf: _Page | None, v: int, root: int, level: int) -> _Page:
        """The leftmost leaf that can hold chunk_id ``v``, larger than those asked before: the last leaf read when
        its high key is not below ``v`` (every page left of it is), else its right sibling when that one's is not
        (the values are dense), else found from the root."""
        if leaf is not None:
            if leaf.high is None or leaf.high >= v:
                return leaf
            right = self._page(leaf.next)
            if not right.ignore and right.leaf and right.level == 0 and (right.high is None or right.high >= v):
                return right
        return self._descend(root, level, v)

    def _metapage(self) -> tuple[int, int]:
        if self._root is None:
            page = self._read(0)
            word = (lambda f: _field(page, _META, f, SIZE_OF_PAGE_HEADER))
            flags = _field(page, _OPAQUE, "btpo_flags", self.block_size - SIZE_OF_BT_OPAQUE)
            if not flags & BTP_META or word("btm_magic") != BTREE_MAGIC or not 2 <= word("btm_version") <= 4:
                raise Unusable("no B-tree metapage")
            self._root = word("btm_root"), word("btm_level")
        return self._root

    def _descend(self, root: int, level: int, v: int) -> _Page:
        """The leftmost leaf that can hold chunk_id ``v``."""
        if root == P_NONE:
            raise Unusable("no root")
        blk = root
        while True:
            page = self._move_right(self._page(blk), v, level)
            if page.leaf:
                return page
            below = np.flatnonzero(page.key < v)     # the minus-infinity item is below every key
            if not len(below):
                raise Unusable("an internal page without a minus-infinity item")
            blk = int(page.tid_blk[below[-1]])
            level -= 1

    def _move_right(self, page: _Page, v: int, level: int) -> _Page:
        """``page``, or the first page right of it whose high key is not below ``v`` (skipping half-dead and
        deleted ones), checked to be at ``level``."""
        for _ in range(self.nblocks):
            if not page.ignore:
                if page.level != level or page.leaf != (level == 0):
                    raise Unusable("a page at the wrong level")
                if page.high is None or page.high >= v:
                    return page
            elif page.next == P_NONE:
                raise Unusable("the rightmost page is half-dead or deleted")
            page = self._page(page.next)
        raise Unusable("a sibling chain without end")

    def _collect(self, leaf: _Page, v: int, blks: list) -> _Page:
        """The TIDs of chunk_id ``v`` from ``leaf`` and the leaves right of it; returns the last leaf read."""
        for _ in range(self.nblocks):
            hit = leaf.key == v
            blks.append(leaf.tid_blk[hit])
            if leaf.high is None or leaf.high > v:
                return leaf
            leaf = self._move_right(self._page(leaf.next), v, 0)
        raise Unusable("a sibling chain without end")

    def _read(self, blk: int) -> np.ndarray:
        if not 0 <= blk < self.nblocks:
            raise Unusable(f"block {blk} is past the index's end")
        raw = self._ahead.pop(blk, None)
        if raw is None:
            run = np.arange(blk, min(blk + READ_AHEAD, self.nblocks))
            pages = self.read(run).copy()
            self._ahead = dict(zip(run[1:].tolist(), pages[1:]))
            raw = pages[0]
        return raw

    def _page(self, blk: int) -> _Page:
        if blk == 0:
            raise Unusable("a link to the metapage")
        page = self._pages.get(blk)
        if page is None:
            page = self._pages[blk] = self._decode(self._read(blk))
            if len(self._pages) > MAX_CACHED_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(blk)
        return page

    def _decode(self, raw: np.ndarray) -> _Page:
        bs = self.block_size
        lower, upper, special = (_field(raw, _HEADER, f) for f in ("pd_lower", "pd_upper", "pd_special"))
        if (_field(raw, _HEADER, "pd_pagesize_version") & 0xFF00) != bs or special != bs - SIZE_OF_BT_OPAQUE \
                or not SIZE_OF_PAGE_HEADER <= lower <= upper <= special:
            raise Unusable("not a B-tree page")
        flags, nxt, level = (_field(raw, _OPAQUE, f, special) for f in ("btpo_flags", "btpo_next", "btpo_level"))
        leaf, rightmost = bool(flags & BTP_LEAF), nxt == P_NONE
        ignore = bool(flags & (BTP_DELETED | BTP_HALF_DEAD))
        if flags & BTP_META:
            raise Unusable("a metapage inside the tree")
        nlp = (lower - SIZE_OF_PAGE_HEADER) // SIZE_OF_ITEM_ID
        word = raw[SIZE_OF_PAGE_HEADER:SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * nlp].view("<u4").astype(np.int64)
        off, lp_flags, length = line_pointer_fields(word)
        first = 0 if rightmost else 1          # P_FIRSTDATAKEY, counted from 0
        if ignore:
            empty = np.zeros(0, dtype=np.int64)
            return _Page(level, leaf, ignore, nxt, None, empty, empty)
        if nlp < first:
            raise Unusable("a page without its high key")
        if not (((lp_flags == LP_NORMAL) | (lp_flags == LP_DEAD)) & (off >= upper) & (off + length <= special)
                & (length >= SIZE_OF_INDEX_TUPLE)).all():
            raise Unusable("an item outside its page")
        # each item's IndexTupleData and the chunk_id after it (clamped to the page: bytes past it are never used)
        cells = raw[np.minimum(off[:, None] + np.arange(_CELL.itemsize), bs - 1)].copy().view(_CELL).reshape(-1)
        tid_blk = (cells["bi_hi"].astype(np.int64) << 16) | cells["bi_lo"]
        info = cells["t_info"].astype(np.int64)
        size = info & INDEX_SIZE_MASK
        if ((info & INDEX_NULL_MASK) != 0).any() or (size > length).any():
            raise Unusable("an item TOAST indexes never hold")
        key = np.where(size >= CHUNK_ID_END, cells["chunk_id"].astype(np.int64), -1)
        high = None
        if not rightmost:
            if key[0] < 0:
                raise Unusable("a high key without chunk_id")
            high = int(key[0])
        key, tid_blk, info = key[first:], tid_blk[first:], info[first:]
        if not leaf:
            if len(key):
                key[0] = -1                        # the minus-infinity item: its key is not read
            if (key[1:] < 0).any():
                raise Unusable("a separator key without chunk_id")
            return _Page(level, leaf, ignore, nxt, high, key, tid_blk)
        if (key < 0).any():
            raise Unusable("a leaf item without chunk_id")
        if ((info & INDEX_ALT_TID_MASK) != 0).any():
            # a posting list (unique indexes deduplicate only versions of one key, which TOAST chunks never have)
            # or a pivot tuple among a leaf's items
            raise Unusable("a leaf item that is not a plain index tuple")
        return _Page(level, leaf, ignore, nxt, high, key, tid_blk)
