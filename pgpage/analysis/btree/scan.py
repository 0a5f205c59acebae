"""``BtreeScan``: one pass over a B-tree's main fork, chunk by chunk, accumulating every figure `pgpage index`
reports (see the package's docstring for what they mean), then its report.

The pass takes a chunk of pages at a time as a numpy array (``BtreeScan.add_chunk``, as
``RelationFork.iter_chunks`` yields them): page headers and special spaces in numpy, every
item in one compiled loop (``_heapscan.c``: pgp_btree_items; numpy's dozens of passes over
each chunk's items, with gathers, ran at about 40 MB/s), and the table side of the heap
check compiled too (``heapcheck``). It keeps a few small numbers per page and per downlink,
histograms for the pivots, and never holds more than one chunk of pages, so memory stays flat
in the size of the index. A scan of a range of blocks (``part``) merges into the scan of the
whole index (``merge``): ``passes.index`` cuts an index into ranges for ``--jobs`` that way.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Callable, Iterable

import numpy as np

from pgpage.analysis.btree.dedup import dedup_summary, pivot_summary
from pgpage.analysis.btree.heapcheck import HeapTidCheck, merged_ranges
from pgpage.analysis.btree.pages import (BAD, BT_OFFSET_MASK, BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID,
                                         BTP_HAS_GARBAGE, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, BTP_SPLIT_END,
                                         DELETED, HALF_DEAD, IN_TREE, INTERNAL, KIND_NAMES, LEAF, LP_UNUSED, META, NEW,
                                         P_NONE, SIZE_OF_BT_OPAQUE, SIZE_OF_ITEM_ID, SIZE_OF_ITEM_POINTER,
                                         SIZE_OF_PAGE_HEADER, bt_opaque)
from pgpage.analysis.btree.sink import FINDINGS_PER_CODE, LIST_LIMIT, FindingSink
from pgpage.analysis.btree.structure import structure_checks
from pgpage.analysis.heapstats import max_heap_tuples_per_page
from pgpage.decode.ksy.constants import PG_PAGE_LAYOUT_VERSION
from pgpage.decode.page import bad_special_size
from pgpage.decode.pagebase import PageContext, format_tid
from pgpage.decode.vector import PageHeaders, decode_headers, sorted_unique
from pgpage.decode.versions import PGSTATINDEX_EXACT_FREE_SPACE_SINCE, POSTING_LISTS_SINCE
from pgpage.decode.xact import xid_precedes
from pgpage.findings import WARNING, a_or_an

# pages analysed together, at most (findings come code by code per sub-chunk): item buffers of some 20 MB at 8 KiB,
# for verify's 16 MiB chunks (analysis.verify.btree.CHUNK_BYTES)
SUB_CHUNK = 2048
# what _items tells the compiled item pass about each page (_heapscan.c: BT_IN_TREE, ...)
_BT_IN_TREE, _BT_LEAF_ITEMS, _BT_RIGHTMOST, _BT_INTERNAL = 1, 2, 4, 8

_SAFEXID_OFFSET = SIZE_OF_PAGE_HEADER  # BTDeletedPageData sits at MAXALIGN(SizeOfPageHeaderData)
_IS_TREE = np.isin(np.arange(len(KIND_NAMES)), IN_TREE)  # by kind
# the level figures summed from each page (_items): from its header, and from the item pass's page columns
_LEVEL_PAGE_FIELDS = ("pages", "used_bytes", "capacity", "leaf_pages", "leaf_used", "max_avail", "free")
_LEVEL_ITEM_FIELDS = ("items", "dead_items", "high_keys", "high_key_bytes", "pivots", "pivot_bytes", "posting_tuples",
                      "tids")


def pg_round2(x: float) -> float:
    """A percentage as pgstatindex returns it: printed with ``%.2f`` and read back."""
    return float(f"{x:.2f}") if not math.isnan(x) else math.nan


@dataclass
class IndexInfo:
    """What the catalog says about the index, when a data directory was given (all optional)."""
    relation: str | None = None
    table: str | None = None
    natts: int | None = None          # pg_index.indnatts
    nkeyatts: int | None = None       # pg_index.indnkeyatts (indnatts before 11)
    unique: bool | None = None
    reloptions: list[str] | None = None
    attributes: list | None = None    # deform.Attribute per index column, attnum order


@dataclass
class _LevelAcc:
    pages: int = 0
    items: int = 0
    dead_items: int = 0
    high_keys: int = 0
    high_key_bytes: int = 0
    pivots: int = 0
    pivot_bytes: int = 0
    downlinks: int = 0
    posting_tuples: int = 0
    tids: int = 0
    used_bytes: int = 0   # tuples and line pointers, every page of the level
    capacity: int = 0     # pd_special - 24, every page of the level
    leaf_pages: int = 0   # the level's live leaf pages (not half-dead), which pgstatindex measures:
    leaf_used: int = 0
    free: int = 0         # pgstatindex's free space measure
    max_avail: int = 0


# what a pass over a range of blocks learns (BtreeScan.part, .merge): per page, and summed
_PAGE_ARRAYS = ("seen", "kind", "flags", "level", "prev", "next", "nitems", "free", "max_avail", "dead_items",
                "posting_tids", "tids")
_SUMS = ("posting_tuples", "posting_tid_count", "plain_tuples", "posting_bytes", "posting_plain_bytes",
         "leaf_key_tuples", "leaf_key_bytes", "dead_posting_tuples", "dead_tids", "minus_infinity",
         "pivots_with_heap_tid", "checksum_failures", "posting_hist", "pivot_natts_hist", "pivot_size_hist")


class BtreeScan:
    """One pass over an index's main fork. Feed every chunk with ``add_chunk`` (block 0, the
    metapage, first), then call ``report``."""

    def __init__(self, nblocks: int, block_size: int, major: int | None, info: IndexInfo | None = None,
                 heap: HeapTidCheck | None = None, checksums: bool | None = None, next_xid: int | None = None,
                 next_full_xid: int | None = None):
        self.nblocks = nblocks
        self.bs = block_size
        self.major = major
        self.info = info or IndexInfo()
        self.heap = heap
        self.checksums = checksums
        self.next_xid = next_xid
        self.next_full_xid = next_full_xid
        self.find = FindingSink(self.info.relation)
        self.exact_free = major is not None and major >= PGSTATINDEX_EXACT_FREE_SPACE_SINCE
        n = nblocks
        self.seen = np.zeros(n, dtype=bool)
        self.kind = np.zeros(n, dtype=np.uint8)
        self.flags = np.zeros(n, dtype=np.uint16)
        self.level = np.zeros(n, dtype=np.uint32)
        self.prev = np.zeros(n, dtype=np.uint32)
        self.next = np.zeros(n, dtype=np.uint32)
        self.nitems = np.zeros(n, dtype=np.uint16)
        self.free = np.zeros(n, dtype=np.int32)        # pgstatindex's free space measure
        self.max_avail = np.zeros(n, dtype=np.int32)
        self.dead_items = np.zeros(n, dtype=np.uint16)  # LP_DEAD non-pivot items
        self.posting_tids = np.zeros(n, dtype=np.uint32)
        self.tids = np.zeros(n, dtype=np.uint32)        # heap TIDs held by the page
        self.safexid: dict[int, int | str] = {}
        self.metapage: dict | None = None
        self.meta_raw: bytes | None = None
        self._downlinks: list[np.ndarray] = []            # rows (parent, item, child), uint32
        self.posting_hist = np.zeros(BT_OFFSET_MASK + 1, dtype=np.int64)
        self.levels: dict[int, _LevelAcc] = {}
        # leaf-level totals
        self.posting_tuples = 0
        self.posting_tid_count = 0
        self.plain_tuples = 0
        self.posting_bytes = 0          # lp_len of posting tuples
        self.posting_plain_bytes = 0    # what their TIDs would take as plain tuples (with line pointers)
        self.leaf_key_tuples = 0
        self.leaf_key_bytes = 0         # MAXALIGNed key-only tuple sizes of leaf data items
        self.dead_posting_tuples = 0
        self.dead_tids = 0
        # pivots, minus-infinity items excluded: how many state each attribute count ([natts + 1]; [0]: no count),
        # how many have each size, how many carry a heap TID
        self.pivot_natts_hist = np.zeros(BT_OFFSET_MASK + 2, dtype=np.int64)
        self.pivot_size_hist = np.zeros(block_size, dtype=np.int64)
        self.pivots_with_heap_tid = 0
        self.minus_infinity = 0
        self.checksum_failures = 0
        self._kernel_out = None  # kernels.BtreeItemsOutputs, made on the first chunk

    # ------------------------------------------------------------------ a pass cut into ranges
    def part(self, start: int, stop: int) -> dict:
        """What the pass over blocks start..stop-1 learnt (after ``check_heap_windows``), to ``merge``
        into the scan of the whole index in another process."""
        out = {name: getattr(self, name)[start:stop] for name in _PAGE_ARRAYS}
        out.update({name: getattr(self, name) for name in _SUMS})
        out.update(start=start, stop=stop, safexid=self.safexid, metapage=self.metapage, meta_raw=self.meta_raw,
                   downlinks=self._downlinks, levels=self.levels, find=self.find,
                   heap=self.heap.part() if self.heap is not None else None)
        return out

    def merge(self, part: dict) -> None:
        """Add a ``part`` of the blocks after those merged so far (parts come in block order)."""
        sl = slice(part["start"], part["stop"])
        for name in _PAGE_ARRAYS:
            getattr(self, name)[sl] = part[name]
        for name in _SUMS:
            setattr(self, name, getattr(self, name) + part[name])
        self.safexid.update(part["safexid"])
        if part["meta_raw"] is not None:
            self.metapage, self.meta_raw = part["metapage"], part["meta_raw"]
        self._downlinks += part["downlinks"]
        for lv, acc in part["levels"].items():
            mine = self._level(lv)
            for f in fields(acc):
                setattr(mine, f.name, getattr(mine, f.name) + getattr(acc, f.name))
        self.find.merge(part["find"])
        if self.heap is not None and part["heap"] is not None:
            self.heap.merge(part["heap"])

    # ------------------------------------------------------------------ per chunk
    def add_chunk(self, first: int, chunk: np.ndarray, headers: PageHeaders | None = None) -> None:
        """Analyse consecutive pages (global block numbers from ``first``), ``SUB_CHUNK`` at a time
        so that the per-item arrays stay small whatever chunk size storage reads with (``headers``: the
        chunk's ``decode_headers``, when the caller has them already)."""
        for lo in range(0, chunk.shape[0], SUB_CHUNK):
            whole = lo == 0 and chunk.shape[0] <= SUB_CHUNK
            self._add(first + lo, chunk[lo:lo + SUB_CHUNK], headers if whole else None)

    def _add(self, first: int, chunk: np.ndarray, hdr: PageHeaders | None = None) -> None:
        n = chunk.shape[0]
        if first + n > self.nblocks:  # a file that grew under us: ignore the tail
            n = self.nblocks - first
            chunk, hdr = chunk[:n], None
        if n <= 0:
            return
        blk = np.arange(first, first + n, dtype=np.int64)
        bs = self.bs
        if first == 0:
            self._metapage(chunk[0].tobytes())
        hdr = decode_headers(chunk) if hdr is None else hdr
        self._checksums(chunk, first, hdr)
        op = bt_opaque(chunk)
        flags, level, prev, nxt = op["btpo_flags"], op["btpo_level"], op["btpo_prev"], op["btpo_next"]
        is_new = hdr.is_new  # an all-zero page among them (pd_upper 0)
        sane = (((hdr.pagesize_version & 0xFF00) == bs) & ((hdr.pagesize_version & 0xFF) == PG_PAGE_LAYOUT_VERSION)
                & (hdr.lower >= SIZE_OF_PAGE_HEADER) & (hdr.lower <= hdr.upper) & (hdr.upper <= hdr.special)
                & (hdr.special == bs - SIZE_OF_BT_OPAQUE))
        kind = np.full(n, INTERNAL, dtype=np.uint8)
        kind[(flags & BTP_LEAF) != 0] = LEAF
        kind[(flags & BTP_HALF_DEAD) != 0] = HALF_DEAD
        kind[(flags & BTP_DELETED) != 0] = DELETED
        kind[~sane] = BAD
        kind[is_new] = NEW
        kind[blk == 0] = META
        for i in np.flatnonzero(kind == BAD):
            self._bad_page(int(blk[i]), hdr, i)
        for i in np.flatnonzero(is_new & (blk > 0)):
            nonzero = int(np.count_nonzero(chunk[i]))
            if nonzero:    # PageIsNew, which PostgreSQL accepts only all zeros (as decode.page and verify say it)
                self.find("page.new_not_zeroed", "pd_upper is 0 (a new page) but the page is not all zeros",
                          block=int(blk[i]), actual=nonzero)
            else:
                self.find("btree.page.new", "an all-zero (new) page: never initialised, or zeroed; pgstatindex"
                          " counts it as an internal page", WARNING, block=int(blk[i]))
        for i in np.flatnonzero((kind != META) & (kind != BAD) & (kind != NEW) & ((flags & BTP_META) != 0)):
            self.find("btree.page.stray_meta", "BTP_META set on a page other than block 0", block=int(blk[i]),
                      actual=int(flags[i]))
        sl = slice(first, first + n)
        self.seen[sl] = True
        self.kind[sl], self.flags[sl], self.level[sl], self.prev[sl], self.next[sl] = kind, flags, level, prev, nxt
        # pgstatindex: free space and max_avail of leaf pages (a bad page is measured as it reads)
        space = hdr.upper.astype(np.int32) - hdr.lower.astype(np.int32)
        free = np.maximum(space, 0) if self.exact_free else np.where(space < SIZE_OF_ITEM_ID, 0, space - SIZE_OF_ITEM_ID)
        self.free[sl] = free
        self.max_avail[sl] = hdr.special.astype(np.int32) - SIZE_OF_PAGE_HEADER
        self._deleted(chunk, blk, kind, flags, level)
        self._items(chunk, blk, hdr, kind, level, free)

    def _metapage(self, raw: bytes) -> None:
        from pgpage.decode.ksy.nbtree import Nbtree
        from pgpage.decode.nbtree import metapage
        self.meta_raw = raw
        if not any(raw):
            self.find("btree.meta.new", "block 0 is all zeros: the metapage was never written", block=0)
            return
        special = int.from_bytes(raw[16:18], "little")
        if special != self.bs - SIZE_OF_BT_OPAQUE and any(raw[14:16]):   # _bt_checkpage (not a new page: pd_upper 0)
            why = (bad_special_size("btree", 0, self.bs - special) if special <= self.bs
                   else f"index contains corrupted page at block 0: pd_special {special} is past the page's end")
            self.find("btree.page.bad_special_size", why, block=0, expected=self.bs - SIZE_OF_BT_OPAQUE, actual=special)
        try:
            parsed = Nbtree.from_bytes(raw)
            if not parsed.opaque.btpo_flags & BTP_META:
                self.find("btree.meta.not_meta", "block 0 is not flagged BTP_META: not a B-tree index, or its"
                          " metapage is damaged", block=0, actual=parsed.opaque.btpo_flags)
            ctx = PageContext(am="btree", major=self.major, block_size=self.bs)
            self.metapage = metapage(parsed, ctx, lambda code, msg, **kw: self.find(code, msg, block=0, **kw))
        except Exception as e:  # noqa: BLE001 - a metapage that cannot be parsed is a finding
            self.find("btree.meta.unreadable", f"the metapage could not be read: {e}", block=0)

    def _checksums(self, chunk: np.ndarray, first: int, hdr) -> None:
        from pgpage.decode.checksum import checksum_pages
        if self.checksums is False:   # off, or checked by the caller (verify's check_pages)
            return
        computed = checksum_pages(chunk, first)
        stored = hdr.checksum
        bad = (computed != stored) & ~hdr.is_new  # an all-zero page is new: 0 computed, 0 stored
        if self.checksums is None:
            bad &= stored != 0
        for i in np.flatnonzero(bad):
            self.checksum_failures += 1
            self.find("checksum.mismatch", f"stored checksum {int(stored[i])} != computed {int(computed[i])}",
                      block=first + int(i), expected=int(computed[i]), actual=int(stored[i]))

    def _bad_page(self, blkno: int, hdr, i: int) -> None:
        pv, special = int(hdr.pagesize_version[i]), int(hdr.special[i])
        if (pv & 0xFF00) != self.bs or (pv & 0xFF) != PG_PAGE_LAYOUT_VERSION:
            why = f"pd_pagesize_version 0x{pv:04X} is not {a_or_an(f'{self.bs}-byte')} version-4 page"
        elif special != self.bs - SIZE_OF_BT_OPAQUE:
            why = f"pd_special {special}: the special space is not the 16-byte BTPageOpaqueData"
        else:
            why = f"pd_lower {int(hdr.lower[i])} / pd_upper {int(hdr.upper[i])} / pd_special {special} are inconsistent"
        self.find("btree.page.not_btree", f"not a readable B-tree page: {why}", block=blkno)

    def _deleted(self, chunk, blk, kind, flags, level) -> None:
        for i in np.flatnonzero(kind == DELETED):
            b = int(blk[i])
            if flags[i] & BTP_HAS_FULLXID:
                full = int.from_bytes(chunk[i, _SAFEXID_OFFSET:_SAFEXID_OFFSET + 8].tobytes(), "little")
                self.safexid[b] = full
            else:  # before 14 (or a page deleted before a pg_upgrade to 14+): btpo.xact, 32 bits
                self.safexid[b] = int(level[i])

    def _level(self, lv: int) -> _LevelAcc:
        acc = self.levels.get(lv)
        if acc is None:
            acc = self.levels[lv] = _LevelAcc()
        return acc

    def _items(self, chunk, blk, hdr, kind, level, free) -> None:
        """Every item of the tree's pages, in one compiled pass (``kernels.btree_items``, the rules
        are in ``_heapscan.c``: pgp_btree_items): per page and per level figures, totals, posting
        lists, pivots, downlinks, heap TIDs; findings come back as events and are worded here."""
        from pgpage.decode import kernels
        n = chunk.shape[0]
        lo = int(blk[0])
        tree = _IS_TREE[kind]
        nlp = np.where(tree, hdr.nlp, 0)
        self.nitems[lo:lo + n] = nlp
        out = self._run_items(chunk, lo, hdr.special)
        col = dict(zip(kernels.TABLES.BT_PAGE_COLUMNS, out.page_out[:n].T))
        total = out.total

        # per level: pages and their space (pgstatindex measures leaf pages), items, dead items, high keys, pivots
        if tree.any():
            special = hdr.special.astype(np.int64)
            used = special - hdr.upper + hdr.lower - SIZE_OF_PAGE_HEADER
            cap = special - SIZE_OF_PAGE_HEADER
            isleaf = kind == LEAF
            per_page = np.stack([np.ones(n, dtype=np.int64), used, cap, isleaf, used * isleaf, cap * isleaf,
                                 free * isleaf] + [col[f] for f in _LEVEL_ITEM_FIELDS], axis=1)[tree]
            lv = level[tree]
            levels = sorted_unique(lv).tolist()
            for v in levels:  # mostly one per chunk
                sums = (per_page if len(levels) == 1 else per_page[lv == v]).sum(axis=0).tolist()
                acc = self._level(v)
                for name, add in zip(_LEVEL_PAGE_FIELDS + _LEVEL_ITEM_FIELDS, sums):
                    setattr(acc, name, getattr(acc, name) + add)
        # per page
        self.dead_items[lo:lo + n] = col["dead_items"]
        self.tids[lo:lo + n] = col["tids"]
        self.posting_tids[lo:lo + n] = col["posting_tids"]
        # leaf-level totals, posting lists, pivots
        self.posting_tuples += total("posting_tuples")
        self.posting_tid_count += total("posting_tid_count")
        self.plain_tuples += total("plain_tuples")
        self.posting_bytes += total("posting_bytes")
        self.posting_plain_bytes += total("posting_plain_bytes")
        self.leaf_key_tuples += total("leaf_key_tuples")
        self.leaf_key_bytes += total("leaf_key_bytes")
        self.dead_posting_tuples += total("dead_posting_tuples")
        self.dead_tids += total("dead_tids")
        self.minus_infinity += total("minus_infinity")
        self.pivots_with_heap_tid += total("pivots_with_heap_tid")
        self.posting_hist += out.posting_hist
        self.pivot_natts_hist += out.natts_hist
        self.pivot_size_hist += out.size_hist
        # (block numbers and line pointer numbers, all below 2**32: 12 bytes a downlink, kept to the end)
        self._downlinks.append(out.downlinks[:total("downlinks")].astype(np.uint32))
        self._events(out.events())
        # heap TIDs: where they land in the table
        if self.heap is not None:
            self.heap.check(*out.tids(), self.find, pages=(lo, lo + n))

    def _run_items(self, chunk: np.ndarray, lo: int, special: np.ndarray):
        """The compiled item pass over pages lo.. (``kind``, ``flags``, ``next`` and ``nitems`` of
        them already kept): its outputs (``kernels.BtreeItemsOutputs``, reused from chunk to chunk)."""
        from pgpage.decode import kernels
        sl = slice(lo, lo + chunk.shape[0])
        kind, flags = self.kind[sl], self.flags[sl]
        leafpage = (kind == LEAF) | ((kind == HALF_DEAD) & ((flags & BTP_LEAF) != 0))
        mode = (_IS_TREE[kind] * _BT_IN_TREE) | (leafpage * _BT_LEAF_ITEMS) \
            | ((self.next[sl] == P_NONE) * _BT_RIGHTMOST) | ((kind == INTERNAL) * _BT_INTERNAL)
        page_in = np.stack([mode.astype(np.int64), self.nitems[sl].astype(np.int64), special.astype(np.int64)],
                           axis=1)
        if self._kernel_out is None:
            self._kernel_out = kernels.BtreeItemsOutputs(self.bs)
        kernels.btree_items(np.ascontiguousarray(chunk), lo, page_in,
                            self.major is None or self.major >= POSTING_LISTS_SINCE, max_heap_tuples_per_page(self.bs),
                            self._kernel_out)
        return self._kernel_out

    def last_heap_blocks(self):
        """The heap block numbers of the TIDs in the pages the last ``add_chunk`` read (what ``passes.index``
        samples to tell whether an index is in table order)."""
        return self._kernel_out.tids()[0] if self._kernel_out is not None else ()

    def for_recheck(self, heap: HeapTidCheck) -> "BtreeScan":
        """A copy of this scan that reads index pages again only to check their TIDs against ``heap`` (a
        worker's view of a shared table cache, ``HeapTidCheck.worker``): it knows every page's kind, flags, next
        link and item count from this scan, and keeps findings of its own (``check_pages``)."""
        from copy import copy
        part = copy(self)
        part.heap, part.find, part._kernel_out = heap, FindingSink(self.find.relation), None
        return part

    def check_heap_windows(self, chunks: Callable[..., Iterable[tuple[int, np.ndarray]]]) -> None:
        """After the pass: when the table is bigger than the heap check's cache (``HeapTidCheck``),
        read the index pages whose TIDs point into other windows of table blocks again
        (``chunks(lo, hi)``, as ``RelationFork.iter_chunks``), window by window, and check those
        TIDs. Only the TIDs are taken from this pass; everything else was counted in the first."""
        if self.heap is None:
            return
        for ranges in self.heap.windows_left():
            self.check_pages(chunks, ranges)
        self.heap.release()

    def check_pages(self, chunks: Callable[..., Iterable[tuple[int, np.ndarray]]],
                    ranges: list[tuple[int, int]]) -> None:
        """Read index pages lo..hi-1 of each range again and check their TIDs into the heap check's window."""
        for lo, hi in merged_ranges(ranges):
            for first, chunk in chunks(lo, hi):
                for start in range(max(first, lo), min(first + chunk.shape[0], hi), SUB_CHUNK):
                    part = chunk[start - first:min(start + SUB_CHUNK, hi) - first]
                    out = self._run_items(part, start, decode_headers(part).special)
                    self.heap.check(*out.tids(), self.find)

    def _events(self, ev: np.ndarray) -> None:
        """Findings from the item pass's events (code, block, item, a..e), in its order: by code, then by item."""
        from pgpage.decode import kernels
        maxoff = max_heap_tuples_per_page(self.bs)
        codes = kernels.TABLES.BT_EVENT_CODES
        invalid = 0
        for code, block, item, a, b, c, d, e in ev.tolist():
            name = codes[code]
            where = dict(block=block, item=item)
            if name == "btree.item.bad_lp_flags":
                self.find(name, f"line pointer {'LP_UNUSED' if a == LP_UNUSED else 'LP_REDIRECT'} in a B-tree page"
                          " (nbtree uses only LP_NORMAL and LP_DEAD)", actual=a, **where)
            elif name == "btree.item.out_of_bounds":
                self.find(name, f"item {a}..{a + b} is not a tuple inside 24..{c}", actual=[a, b], **where)
            elif name == "btree.item.size_mismatch":
                self.find(name, f"IndexTupleSize {b} differs from lp_len {a}", expected=a, actual=b, **where)
            elif name == "btree.item.unexpected_pivot":
                self.find(name, "a leaf data item carries INDEX_ALT_TID_MASK without BT_IS_POSTING (a pivot tuple"
                          " where heap tuples belong)", actual=a, **where)
            elif name == "btree.posting.overrun":
                self.find(name, f"posting list of {a} TIDs at offset {b} does not lie inside the {c}-byte tuple",
                          expected=c, actual=b + SIZE_OF_ITEM_POINTER * a, **where)
            elif name == "btree.posting.too_few":
                self.find(name, f"posting list with {a} TID(s): nbtree forms a plain tuple below two", actual=a,
                          **where)
            elif name == "btree.posting.unsorted":
                self.find(name, f"posting list not in ascending TID order at position {a}: {format_tid(b, c)} then"
                          f" {format_tid(d, e)}", **where)
            elif name == "btree.tid.invalid":
                invalid += 1
                if invalid <= FINDINGS_PER_CODE + 1:  # per chunk, as many as the sink keeps and one to count
                    self.find(name, f"heap TID {format_tid(a, b)} has an offset outside 1..{maxoff}",
                              actual=format_tid(a, b), **where)

    # ------------------------------------------------------------------ the whole index
    def report(self) -> dict:
        out = {"nblocks": self.nblocks, "block_size": self.bs, "bt_metap": self.metapage}
        out["pgstatindex"] = self.pgstatindex()
        out["deduplication"] = dedup_summary(self, out["pgstatindex"])
        out["dead_items"] = {
            "dead_items": int(self.dead_items.sum()), "dead_posting_tuples": self.dead_posting_tuples,
            "dead_tids": self.dead_tids, "pages_with_dead_items": int((self.dead_items > 0).sum()),
        }
        out["pages"] = self._special_pages()
        out["pivots"] = pivot_summary(self)
        out["levels"] = self._level_summary()
        structure_checks(self)
        out["heap_check"] = self.heap.report() if self.heap is not None else None
        if self.heap is not None and self.heap.bad_pages:
            self.find("btree.heap.bad_page", f"{len(self.heap.bad_pages)} table page(s) the index points into have"
                      " no valid page header", WARNING, actual=sorted(self.heap.bad_pages)[:LIST_LIMIT])
        out["checksum_failures"] = self.checksum_failures if self.checksums is not False else None
        return out

    def pgstatindex(self) -> dict:
        kinds = self.kind[1:][self.seen[1:]]
        blocks = np.arange(1, self.nblocks)[self.seen[1:]]
        leaf = kinds == LEAF
        leaf_pages = int(leaf.sum())
        deleted = int((kinds == DELETED).sum())
        empty = int((kinds == HALF_DEAD).sum())
        internal = len(kinds) - leaf_pages - deleted - empty
        max_avail = int(self.max_avail[1:][self.seen[1:]][leaf].sum())
        free = int(self.free[1:][self.seen[1:]][leaf].sum())
        nxt = self.next[1:][self.seen[1:]][leaf]
        fragments = int(((nxt != P_NONE) & (nxt < blocks[leaf])).sum())
        m = self.metapage or {}
        return {
            "version": m.get("version"), "tree_level": m.get("level"),
            "index_size": (1 + len(kinds)) * self.bs if self.nblocks else 0,
            "root_block_no": m.get("root"),
            "internal_pages": internal, "leaf_pages": leaf_pages, "empty_pages": empty, "deleted_pages": deleted,
            "avg_leaf_density": pg_round2(100.0 - free / max_avail * 100.0) if max_avail > 0 else math.nan,
            "leaf_fragmentation": pg_round2(fragments / leaf_pages * 100.0) if leaf_pages > 0 else math.nan,
        }

    def _special_pages(self) -> dict:
        seen = self.seen
        blocks = np.arange(self.nblocks)
        half = blocks[seen & (self.kind == HALF_DEAD)]
        deleted = []
        for b in sorted(self.safexid)[:LIST_LIMIT]:
            x = self.safexid[b]
            full = bool(self.flags[b] & BTP_HAS_FULLXID)
            entry = {"blkno": b, "safexid": f"{x >> 32}:{x & 0xFFFFFFFF}" if full and x >> 32 else str(x & 0xFFFFFFFF),
                     "full_xid": full, "reusable": None}
            if full and self.next_full_xid is not None:
                entry["reusable"] = x < self.next_full_xid
            elif not full and self.next_xid is not None and x >= 3:
                entry["reusable"] = xid_precedes(x, self.next_xid)
            deleted.append(entry)
        live = seen & np.isin(self.kind, IN_TREE)
        incomplete = blocks[live & ((self.flags & BTP_INCOMPLETE_SPLIT) != 0)]
        split_end = blocks[live & ((self.flags & BTP_SPLIT_END) != 0)]
        garbage = blocks[live & ((self.flags & BTP_HAS_GARBAGE) != 0)]
        new = blocks[seen & (self.kind == NEW) & (blocks > 0)]
        return {
            "half_dead": [{"blkno": int(b), "level": int(self.level[b])} for b in half[:LIST_LIMIT]],
            "half_dead_count": len(half),
            "deleted": deleted, "deleted_count": len(self.safexid),
            "incomplete_split": incomplete[:LIST_LIMIT].tolist(), "incomplete_split_count": len(incomplete),
            "split_end": split_end[:LIST_LIMIT].tolist(), "split_end_count": len(split_end),
            "has_garbage": garbage[:LIST_LIMIT].tolist(), "has_garbage_count": len(garbage),
            "new": new[:LIST_LIMIT].tolist(), "new_count": len(new),
        }

    def _level_summary(self) -> list[dict]:
        dl = np.concatenate(self._downlinks) if self._downlinks else np.zeros((0, 3), dtype=np.int64)
        if len(dl):
            parents, counts = np.unique(dl[:, 0], return_counts=True)
            for p, c in zip(parents, counts):
                self._level(int(self.level[p])).downlinks += int(c)
        out = []
        for lv in sorted(self.levels):
            a = self.levels[lv]
            row = {"level": lv, "pages": a.pages, "items": a.items, "dead_items": a.dead_items,
                   "high_keys": a.high_keys, "pivots": a.pivots, "pivot_bytes": a.pivot_bytes,
                   "downlinks": a.downlinks, "posting_tuples": a.posting_tuples, "tids": a.tids,
                   "avg_leaf_density": pg_round2(100.0 - 100.0 * a.free / a.max_avail) if a.max_avail else None}
            out.append(row)
        return out

    # ------------------------------------------------------------------ structure checks
    # ------------------------------------------------------------------ per-page rows for maps
    def leaf_rows(self) -> dict:
        """Per block: kind, density (%), dead items, posting share of TIDs (%) - for ``--map``."""
        used = np.clip(self.max_avail - self.free, 0, None)
        with np.errstate(divide="ignore", invalid="ignore"):
            density = np.where(self.max_avail > 0, 100.0 * used / np.maximum(self.max_avail, 1), 0.0)
            share = np.where(self.tids > 0, 100.0 * self.posting_tids / np.maximum(self.tids, 1), 0.0)
            dead = np.where(self.nitems > 0, 100.0 * self.dead_items / np.maximum(self.nitems, 1), 0.0)
        return {"kind": [KIND_NAMES[int(k)] for k in self.kind], "density": np.round(density, 1).tolist(),
                "dead_items": self.dead_items.tolist(), "dead_share": np.round(dead, 1).tolist(),
                "posting_share": np.round(share, 1).tolist(), "tids": self.tids.tolist()}
