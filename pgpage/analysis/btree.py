"""B-tree forensics from the index file alone (and its table's file, when there is one).

What pgstatindex, bt_page_stats/bt_page_items and amcheck's structural checks would say about
a B-tree index, computed from the page images:

* **pgstatindex's figures**, by pgstatindex's own rules (``contrib/pgstattuple/pgstatindex.c``,
  ``pgstatindex_impl``, the same in 10 to 18 but for the free-space measure). Block 0 is the
  metapage and is skipped. Every other block is counted as *deleted* when BTP_DELETED, else as
  *empty* when P_IGNORE (so pgstatindex's "empty" pages are the half-dead ones, not pages
  without items), else as *leaf* when BTP_LEAF, else as *internal* (the root included, and an
  all-zero page too: its special space reads as zero flags). Only leaf pages feed
  ``avg_leaf_density = 100 - free / max_avail * 100``, with ``max_avail = pd_special - 24``
  and ``free`` = PageGetFreeSpace (``pd_upper - pd_lower - 4``, at least 0) before 18 and
  PageGetExactFreeSpace (``pd_upper - pd_lower``) from 18 (``versions.PGSTATINDEX_EXACT_FREE_SPACE_SINCE``);
  ``leaf_fragmentation`` is the share of leaf pages whose ``btpo_next`` is a lower block
  number. ``index_size`` counts the metapage and every page counted. Both percentages are
  printed by pgstatindex with ``%.2f`` and read back, hence the rounding here; with no leaf
  page they are NaN.
* **Deduplication** (13+): posting-list tuples, heap TIDs held in posting lists against plain
  tuples, TIDs per posting list, the bytes deduplication saves, and the size the same index
  would have without it (see ``_dedup_summary``).
* **Dead items** (LP_DEAD line pointers: ``kill_prior_tuple`` and the uniqueness checks set
  them). A posting-list tuple has one LP_DEAD bit for all its TIDs, so it is marked dead only
  when every TID is; the TIDs behind dead items are counted too.
* Half-dead and deleted pages with their safexid, incomplete splits, split ends, high keys,
  what suffix truncation (12+) saved in pivot tuples, and a summary per level.
* **Structure checks** from the files alone, as findings with block and item: sibling links
  agree both ways and stay on one level, every level is one chain from its leftmost page,
  levels agree with the leaf flag and the metapage, every downlink points at a live page of
  the level below, each child has exactly one downlink (unless its split is incomplete or it
  is being deleted), downlinks come in the child level's sibling order, posting lists are
  sorted, hold at least two TIDs and lie inside their tuple. Every walk is bounded by the
  number of blocks and stops on a page it has seen (a cycle is a finding, not a hang).
* **Index against table** (``HeapTidCheck``): each heap TID of the leaf level is looked up in
  the table's pages: beyond the table's end, beyond the page's line pointers, at an LP_UNUSED
  slot, or at a heap-only tuple (an index never points into the middle of a HOT chain) is
  corruption; at LP_DEAD (pruned, awaiting VACUUM) or LP_REDIRECT (the root of a pruned HOT
  chain) it is normal and counted.

The pass takes a chunk of pages at a time as a numpy array (``BtreeScan.add_chunk``, as
``RelationFork.iter_chunks`` yields them): page headers and special spaces in numpy, every
item in one compiled loop (``_heapscan.c``: pgp_btree_items; numpy's dozens of passes over
each chunk's items, with gathers, ran at about 40 MB/s), and the table side of the heap
check compiled too (line pointer verdicts, TID lookups). It keeps a few small numbers per
page and per downlink, histograms for the pivots, and never holds more than one chunk of
pages, so memory stays flat in the size of the index. Nothing here opens a file: the caller
hands in chunks, and a callable that reads table blocks for the heap check. Kaitai objects
are built only for pages a person looks at (``page_view``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.analysis.heapstats import max_heap_tuples_per_page
from pgpage.decode.pagebase import PageContext, format_tid, maxalign
from pgpage.decode.vector import count_set_bits, decode_headers, sorted_unique
from pgpage.decode.versions import PGSTATINDEX_EXACT_FREE_SPACE_SINCE, POSTING_LISTS_SINCE
from pgpage.findings import ERROR, WARNING, Finding

# nbtree.h
BTP_LEAF, BTP_ROOT, BTP_DELETED, BTP_META, BTP_HALF_DEAD = 0x1, 0x2, 0x4, 0x8, 0x10
BTP_SPLIT_END, BTP_HAS_GARBAGE, BTP_INCOMPLETE_SPLIT, BTP_HAS_FULLXID = 0x20, 0x40, 0x80, 0x100
P_NONE = 0
INDEX_SIZE_MASK, INDEX_ALT_TID_MASK, INDEX_NULL_MASK = 0x1FFF, 0x2000, 0x8000
BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BT_IS_POSTING = 0x0FFF, 0x1000, 0x2000
SIZE_OF_PAGE_HEADER = 24
SIZE_OF_ITEM_ID = 4
SIZE_OF_ITEM_POINTER = 6
SIZE_OF_BT_OPAQUE = LAYOUTS["nbtree::bt_page_opaque_data"]["size"]
LP_UNUSED, LP_NORMAL, LP_REDIRECT, LP_DEAD = 0, 1, 2, 3
BTREE_MAGIC = 0x053162

# what a block is, for this analysis
NEW, META, LEAF, INTERNAL, HALF_DEAD, DELETED, BAD = range(7)
KIND_NAMES = {NEW: "new", META: "meta", LEAF: "leaf", INTERNAL: "internal", HALF_DEAD: "half_dead",
              DELETED: "deleted", BAD: "not_btree"}
IN_TREE = (LEAF, INTERNAL, HALF_DEAD)

# heap line pointer verdicts (HeapTidCheck)
HEAP_STATES = ("normal", "redirect", "dead", "unused", "heap_only", "beyond_page", "beyond_end", "bad_page")
H_NORMAL, H_REDIRECT, H_DEAD, H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END, H_BAD_PAGE = range(8)
HEAP_STATE_IS_ERROR = {H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END}
_STATE_IS_ERROR = np.isin(np.arange(len(HEAP_STATES)), list(HEAP_STATE_IS_ERROR))

FINDINGS_PER_CODE = 20  # detailed findings kept per code; the rest are counted in one summary finding
LIST_LIMIT = 100        # block lists in the report (incomplete splits, ...) are cut here
SUB_CHUNK = 256         # pages analysed together: a few MB of item buffers; findings come code by code per sub-chunk
# what _items tells the compiled item pass about each page (_heapscan.c: BT_IN_TREE, ...)
_BT_IN_TREE, _BT_LEAF_ITEMS, _BT_RIGHTMOST, _BT_INTERNAL = 1, 2, 4, 8
POSTING_HISTOGRAM_EDGES = (2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025, BT_OFFSET_MASK + 1)


_SAFEXID_OFFSET = SIZE_OF_PAGE_HEADER  # BTDeletedPageData sits at MAXALIGN(SizeOfPageHeaderData)
_OPAQUE_NAMES = ("btpo_prev", "btpo_next", "btpo_level", "btpo_flags")
_OPAQUE = np.dtype({  # BTPageOpaqueData as a numpy record, from the layout (little-endian u2/u4 fields)
    "names": _OPAQUE_NAMES, "itemsize": SIZE_OF_BT_OPAQUE,
    "formats": ["<" + LAYOUTS["nbtree::bt_page_opaque_data"]["fields"][f][1] for f in _OPAQUE_NAMES],
    "offsets": [LAYOUTS["nbtree::bt_page_opaque_data"]["fields"][f][0] for f in _OPAQUE_NAMES]})
_IS_TREE = np.isin(np.arange(len(KIND_NAMES)), IN_TREE)  # by kind
# the level figures summed from each page (_items): from its header, and from the item pass's page columns
_LEVEL_PAGE_FIELDS = ("pages", "used_bytes", "capacity", "leaf_pages", "leaf_used", "max_avail", "free")
_LEVEL_ITEM_FIELDS = ("items", "dead_items", "high_keys", "high_key_bytes", "pivots", "pivot_bytes", "posting_tuples",
                      "tids")


def pg_round2(x: float) -> float:
    """A percentage as pgstatindex returns it: printed with ``%.2f`` and read back."""
    return float(f"{x:.2f}") if not math.isnan(x) else math.nan


def xid_precedes(a: int, b: int) -> bool:
    """TransactionIdPrecedes for normal 32-bit xids (modulo 2^32)."""
    return ((a - b) & 0xFFFFFFFF) >= 0x80000000


# ---------------------------------------------------------------------------------------------
# findings with a per-code cap
# ---------------------------------------------------------------------------------------------

class FindingSink:
    """Findings of one index, at most ``FINDINGS_PER_CODE`` per code (a torn index must not
    bury the report under ten thousand identical lines); ``close`` adds one summary finding
    per code that overflowed, with the same severity and the number left out. Most codes keep
    their first findings in the order they came (block order, as the pass reads); the heap TID
    codes keep those of the lowest index blocks and items (``HeapTidCheck`` finds them window
    by window of the table), listed after the others, so that no code's list depends on how
    the table or the index was cut. ``merge`` adds another sink's findings of later blocks."""

    BY_PLACE = "btree.heap.tid_"  # codes whose kept findings are the lowest (block, item)

    def __init__(self, relation: str | None):
        self.relation = relation
        self.items: list[Finding] = []
        self._count: dict[str, int] = {}
        self._kept: dict[str, int] = {}
        self._by_place: dict[str, list[Finding]] = {}
        self._severity: dict[str, str] = {}

    def __call__(self, code: str, message: str, severity: str = ERROR, **kw) -> None:
        self._count[code] = self._count.get(code, 0) + 1
        self._severity[code] = severity
        self._keep(Finding(code, message, severity, relation=self.relation, fork="main", **kw))

    def _keep(self, f: Finding) -> None:
        if f.code.startswith(self.BY_PLACE):
            kept = self._by_place.setdefault(f.code, [])
            kept.append(f)
            if len(kept) >= 2 * FINDINGS_PER_CODE:
                kept.sort(key=_place)
                del kept[FINDINGS_PER_CODE:]
        elif self._kept.get(f.code, 0) < FINDINGS_PER_CODE:
            self._kept[f.code] = self._kept.get(f.code, 0) + 1
            self.items.append(f)

    def count(self, code: str) -> int:
        return self._count.get(code, 0)

    def add_count(self, code: str, n: int, severity: str = ERROR) -> None:
        """Findings of ``code`` counted but not built (beyond the per-code cap)."""
        self._count[code] = self._count.get(code, 0) + n
        self._severity[code] = severity

    def merge(self, other: "FindingSink") -> None:
        for f in other.items + [f for kept in other._by_place.values() for f in kept]:
            self._keep(f)
        for code, n in other._count.items():
            self.add_count(code, n, other._severity[code])

    def close(self) -> list[Finding]:
        for code in sorted(self._by_place):
            self.items += sorted(self._by_place[code], key=_place)[:FINDINGS_PER_CODE]
        self._by_place.clear()
        for code, n in self._count.items():
            if n > FINDINGS_PER_CODE:
                self.items.append(Finding(code, f"{n - FINDINGS_PER_CODE} more {code} findings not listed"
                                          f" ({n} in all)", self._severity[code], relation=self.relation,
                                          fork="main", actual=n))
        return self.items


def _place(f: Finding) -> tuple[int, int]:
    return (f.block if f.block is not None else -1, f.item or 0)


# ---------------------------------------------------------------------------------------------
# the index against its table
# ---------------------------------------------------------------------------------------------

HEAP_CACHE_BLOCKS = 262_144  # table blocks whose line pointers HeapTidCheck keeps (2 GiB of table, 75 MB)
READ_GAP = 16  # up to this many table blocks between two wanted ones are read, not skipped: a read call costs more
RANDOM_SHARE = 64  # a chunk wanting more than 1/64 of the window's blocks, all over it, gets the whole window read
READ_BLOCKS = 256  # table blocks read and decoded at a time (2 MB): decoded while still in the CPU cache


def merged_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ascending (lo, hi) ranges with the adjacent ones joined."""
    out: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if out and out[-1][1] == lo:
            out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def _through_gaps(blocks: np.ndarray) -> np.ndarray:
    """Sorted block numbers, and the blocks in the gaps of at most ``READ_GAP`` blocks between them."""
    if not len(blocks):
        return blocks
    breaks = np.flatnonzero(np.diff(blocks) > READ_GAP + 1)
    starts = blocks[np.concatenate([[0], breaks + 1])]
    lengths = blocks[np.concatenate([breaks, [len(blocks) - 1]])] + 1 - starts
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))


def _shared_zeros(shape, dtype):
    """A zeroed numpy array in memory shared with the processes forked after it is made (anonymous shared
    memory, no file): what they write into it is seen here and by those forked later (``HeapTidCheck``'s
    shared cache; the workers themselves are ``passes.parallel``'s)."""
    import mmap
    count = int(np.prod(shape))
    buf = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize), flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    return np.frombuffer(buf, dtype=dtype, count=count).reshape(shape)


class HeapTidCheck:
    """Where the index's heap TIDs land in the table.

    ``read_blocks(sorted block numbers)`` returns their page images as a uint8 array of shape
    (n, block_size) (a block it cannot read comes back all zeros). Each table block read is
    decoded once into one byte per line pointer (its verdict: unused, normal, heap-only,
    redirect, dead) and kept in a cache of at most ``cache_blocks`` blocks (about 300 bytes
    each, 75 MB in all). The table is cut into *windows* of that many consecutive blocks, and the
    cache holds one window. A table that fits is one window: checked in the index's one pass,
    each block read once however the index is ordered. With a bigger table, the index's pass
    checks each chunk's TIDs against the window most of them point into (moving only forward,
    as an index in table order does) and notes the chunk's pages with the other windows its
    TIDs point into; ``BtreeScan.check_heap_windows`` then reads those pages again, window by
    window, and checks the TIDs into each. An index in table order is checked in about one
    pass; one in random order costs a pass over the index per window, never a table read per
    index chunk; memory stays bounded either way.

    When a chunk's TIDs point into more than 1/``RANDOM_SHARE`` of the window's blocks spread
    over more than half of it (an index in random table order), the rest of the window is read
    in order; else when they point into at least one block in ``READ_GAP`` of the range they
    span, a wanted block is read and cached with the rest of its aligned extent of ``READ_GAP``
    blocks (such indexes would otherwise read the table a block at a time; a sparse one would
    read 16 times what it needs). ``heap_blocks_read`` counts the table blocks the index points
    into (each once, however often it was read).

    ``shared``: the cache lives in memory shared with the worker processes forked after it
    (``passes.index.scan_index`` with --jobs): workers ``fill`` a window together, each decoding part of
    it (``fill_parts``), then check their parts of the index against it (``worker``); the window moves
    only when ``fill_parts`` moves it, so the TIDs into other windows are always deferred. Every table
    block is decoded then, even those no TID points into (``passes.index`` keeps an index with fewer
    entries than a quarter of the table's blocks in one process)."""

    def __init__(self, nblocks: int, read_blocks: Callable[[np.ndarray], np.ndarray], block_size: int,
                 table: str | None = None, cache_blocks: int = HEAP_CACHE_BLOCKS, shared: bool = False):
        self.nblocks = nblocks
        self.read_blocks = read_blocks
        self.block_size = block_size
        self.table = table
        self.maxlp = max_heap_tuples_per_page(block_size)
        self.capacity = max(1, min(nblocks, cache_blocks))
        self.windows = max(1, -(-nblocks // self.capacity))
        self.window = 0  # the window in the cache: table blocks from window * capacity, block b in slot b % capacity
        self.filled = False  # every block of the window is in the cache
        self.index_pass = True  # the index's own pass (not a second read for other windows)
        self.deferred: list[tuple[int, int, tuple[int, ...]]] = []  # (index pages lo, hi: their TIDs into windows)
        self.shared = shared
        zeros = _shared_zeros if shared else np.zeros
        self.cached = zeros(self.capacity, dtype=bool)
        self.states = zeros((self.capacity, self.maxlp + 1), dtype=np.int8)  # [slot, offset]
        # per slot, kept by the C code: the page's line pointers, whether its header is sane (or it is new) or
        # bad, whether a TID needed the block since it was cached (_heapscan.c: META_*; in a shared cache two
        # workers may both report a bad page: bad_pages is a set)
        self.meta = zeros(self.capacity, dtype=np.int32)
        self.c_args = (self.states.ctypes.data, self.states.shape[1], self.meta.ctypes.data)  # as kernels pass them
        self.needed = np.zeros((nblocks + 7) // 8, dtype=np.uint8)  # a bit per table block a TID points into
        self.counts = np.zeros(len(HEAP_STATES), dtype=np.int64)
        self.counts_dead_items = np.zeros(len(HEAP_STATES), dtype=np.int64)  # index items already LP_DEAD
        self.bad_pages: set[int] = set()
        self._bits = np.zeros((self.capacity + 63) // 64, dtype=np.uint64)  # scratch of kernels.unique_blocks

    def _move_to(self, window: int) -> None:
        self.window = window
        self.cached[:] = False
        self.filled = False

    def fill_parts(self, window: int, parts: int) -> list[tuple[int, int]]:
        """A shared cache: move it to ``window`` and cut the window's blocks into at most ``parts`` ranges, for
        workers to ``fill`` together (``passes.index.fill_window``; then ``filled``: every TID into the window
        is checked without a read)."""
        self._move_to(window)
        lo = window * self.capacity
        hi = min(lo + self.capacity, self.nblocks)
        cuts = np.linspace(lo, hi, parts + 1).astype(np.int64).tolist()
        return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]

    def fill(self, blocks: tuple[int, int]) -> None:
        """Decode table blocks lo..hi-1, all in the window, into the cache."""
        for first in range(blocks[0], blocks[1], READ_BLOCKS):
            part = np.arange(first, min(first + READ_BLOCKS, blocks[1]))
            self._decode(part, self.read_blocks(part), np.arange(len(part)))

    def worker(self, index_pass: bool) -> "HeapTidCheck":
        """A worker's check of the filled window: counts of its own, to ``merge`` back, and a private copy of the
        cache (shared memory gets no huge pages here, and random lookups in it took ~10% more CPU)."""
        from copy import copy
        out = copy(self)
        out.index_pass = index_pass
        out.deferred = []
        out.needed = np.zeros_like(self.needed)
        out.counts = np.zeros_like(self.counts)
        out.counts_dead_items = np.zeros_like(self.counts_dead_items)
        out.bad_pages = set()
        out.states, out.meta = self.states.copy(), self.meta.copy()
        out.c_args = (out.states.ctypes.data, out.states.shape[1], out.meta.ctypes.data)
        return out

    def windows_left(self) -> Iterator[list[tuple[int, int]]]:
        """After the index's pass: for each window some TIDs still point into, the index page ranges
        (lo, hi) to read again, with the cache moved to that window."""
        self.index_pass = False
        for window in sorted({w for _, _, ws in self.deferred for w in ws}):
            self._move_to(window)
            yield [(lo, hi) for lo, hi, ws in self.deferred if window in ws]

    def release(self) -> None:
        """Free the cache once every window is checked (the report needs only the counts)."""
        self.states = self.meta = self.cached = self.c_args = None

    def check(self, hblk: np.ndarray, hoff: np.ndarray, iblk: np.ndarray, iitem: np.ndarray,
              idead: np.ndarray, find: FindingSink, pages: tuple[int, int] = (0, 0)) -> None:
        """Verdicts of heap TIDs (int64 block and offset numbers; offsets in 1..MaxHeapTuplesPerPage) into the
        window in the cache (and, in the index's pass, past the table's end), counted, and a finding for each
        that is corruption (``iblk``, ``iitem``: the index item holding it; ``pages``: the index pages lo..hi-1
        the TIDs come from, all of them)."""
        from pgpage.analysis import kernels
        if len(hblk) == 0:
            return
        if self.index_pass and self.windows > 1 and not (
                int(hblk.min()) // self.capacity == min(int(hblk.max()), self.nblocks - 1) // self.capacity
                == self.window):  # (not all in the window already: an index in table order, mostly)
            per_window = np.bincount(hblk[hblk < self.nblocks] // self.capacity, minlength=self.windows)
            busiest = int(per_window.argmax())
            if busiest > self.window and not self.shared:
                self._move_to(busiest)
            others = tuple(w for w in np.flatnonzero(per_window).tolist() if w != self.window)
            if others:
                self.deferred.append((pages[0], pages[1], others))
        lo = self.window * self.capacity
        hi = min(lo + self.capacity, self.nblocks)
        state = np.full(len(hblk), H_NORMAL, dtype=np.int8)  # TIDs outside the window: decided in another pass
        errors = int(self.counts[_STATE_IS_ERROR].sum())
        # a window filled whole (fill_parts, fill) needs no read: no list of the blocks wanted either
        blocks = None if self.filled else kernels.unique_blocks(hblk, lo, hi, self._bits)
        if blocks is None or len(blocks):
            if blocks is not None:
                self._load(blocks)
            bad = kernels.tid_verdicts(hblk, hoff, idead, lo, hi, self, state, self.counts, self.counts_dead_items)
            self.bad_pages.update(bad.tolist())
        if self.index_pass:
            past = hblk >= self.nblocks
            if past.any():
                state[past] = H_BEYOND_END
                self.counts[H_BEYOND_END] += int(past.sum())
                self.counts_dead_items[H_BEYOND_END] += int(idead[past].sum())
        if int(self.counts[_STATE_IS_ERROR].sum()) == errors:
            return
        for i in np.flatnonzero(_STATE_IS_ERROR[state]):
            s = int(state[i])
            tid = format_tid(int(hblk[i]), int(hoff[i]))
            what = {H_UNUSED: "an LP_UNUSED line pointer", H_HEAP_ONLY: "a heap-only tuple (inside a HOT chain)",
                    H_BEYOND_PAGE: "past the last line pointer of its page",
                    H_BEYOND_END: f"past the table's end ({self.nblocks} blocks)"}[s]
            find(f"btree.heap.tid_{HEAP_STATES[s]}", f"heap TID {tid} points at {what}"
                 + (f" of {self.table}" if self.table else ""), block=int(iblk[i]), item=int(iitem[i]), actual=tid)

    def _load(self, blocks: np.ndarray) -> None:
        """Make sure every block of ``blocks`` (sorted, all in the window) is in the cache."""
        lo = self.window * self.capacity
        hi = min(lo + self.capacity, self.nblocks)
        missing = blocks[~self.cached[blocks - lo]]
        if not len(missing):
            return
        span = blocks[-1] - blocks[0]
        if len(blocks) * RANDOM_SHARE > hi - lo and 2 * span > hi - lo:
            # TIDs all over the window (an index in random table order): the next chunks want the rest of it too,
            # so it is read in order now
            missing = np.arange(lo, hi)[~self.cached[:hi - lo]]
        elif len(blocks) * READ_GAP > span:
            # dense TIDs: cache whole READ_GAP-block extents (the window is never emptied, so none is read twice)
            extents = sorted_unique(missing // READ_GAP)
            missing = (extents[:, None] * READ_GAP + np.arange(READ_GAP)).reshape(-1)
            missing = missing[(missing >= lo) & (missing < hi)]
            missing = missing[~self.cached[missing - lo]]
        # read with the blocks in short gaps between them (a read call costs more than a few blocks more, and
        # consecutive blocks come back without a copy), decode the wanted ones
        asked = _through_gaps(missing)
        wanted = np.isin(asked, missing, assume_unique=True)
        for first in range(0, len(asked), READ_BLOCKS):
            part, rows = asked[first:first + READ_BLOCKS], np.flatnonzero(wanted[first:first + READ_BLOCKS])
            self._decode(part[rows], self.read_blocks(part), rows)

    def _decode(self, blocks: np.ndarray, pages: np.ndarray, rows: np.ndarray) -> None:
        """Cache ``blocks``, whose images are ``pages[rows]``."""
        from pgpage.analysis import kernels
        slots = blocks - self.window * self.capacity
        kernels.heap_lp_states(np.ascontiguousarray(pages), rows, slots, self)
        self.cached[slots] = True

    def part(self) -> dict:
        """The counts, to ``merge`` into the check of the whole index in another process."""
        return {"counts": self.counts, "counts_dead_items": self.counts_dead_items, "bad_pages": self.bad_pages,
                "needed": self.needed, "deferred": self.deferred}

    def merge(self, part: dict) -> None:
        self.counts += part["counts"]
        self.counts_dead_items += part["counts_dead_items"]
        self.bad_pages |= part["bad_pages"]
        self.needed |= part["needed"]
        self.deferred += part["deferred"]

    def report(self) -> dict:
        out = {"table": self.table, "heap_blocks": self.nblocks, "tids_checked": int(self.counts.sum())}
        out.update({name: int(n) for name, n in zip(HEAP_STATES, self.counts)})
        out["from_dead_items"] = {name: int(n) for name, n in zip(HEAP_STATES, self.counts_dead_items) if n}
        out["bad_heap_pages"] = sorted(self.bad_pages)[:LIST_LIMIT]
        out["heap_blocks_read"] = count_set_bits(self.needed)
        return out


# ---------------------------------------------------------------------------------------------
# the scan
# ---------------------------------------------------------------------------------------------

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
        self._downlinks: list[np.ndarray] = []            # rows (parent, item, child)
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
    def add_chunk(self, first: int, chunk: np.ndarray) -> None:
        """Analyse consecutive pages (global block numbers from ``first``), ``SUB_CHUNK`` at a time
        so that the per-item arrays stay small whatever chunk size storage reads with."""
        for lo in range(0, chunk.shape[0], SUB_CHUNK):
            self._add(first + lo, chunk[lo:lo + SUB_CHUNK])

    def _add(self, first: int, chunk: np.ndarray) -> None:
        n = chunk.shape[0]
        if first + n > self.nblocks:  # a file that grew under us: ignore the tail
            n = self.nblocks - first
            chunk = chunk[:n]
        if n <= 0:
            return
        blk = np.arange(first, first + n, dtype=np.int64)
        bs = self.bs
        if first == 0:
            self._metapage(chunk[0].tobytes())
        hdr = decode_headers(chunk)
        self._checksums(chunk, first, hdr)
        op = np.ascontiguousarray(chunk[:, bs - SIZE_OF_BT_OPAQUE:]).view(_OPAQUE).reshape(-1)
        flags, level, prev, nxt = op["btpo_flags"], op["btpo_level"], op["btpo_prev"], op["btpo_next"]
        is_new = hdr.is_new  # an all-zero page among them (pd_upper 0)
        sane = (((hdr.pagesize_version & 0xFF00) == bs) & ((hdr.pagesize_version & 0xFF) == 4)
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
            self.find("btree.page.new", "an all-zero (new) page: never initialised, or zeroed; pgstatindex counts"
                      " it as an internal page", WARNING, block=int(blk[i]))
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
        computed = checksum_pages(chunk, first)
        stored = hdr.checksum
        bad = (computed != stored) & ~hdr.is_new  # an all-zero page is new: 0 computed, 0 stored
        if self.checksums is None:
            bad &= stored != 0
        elif not self.checksums:
            return
        for i in np.flatnonzero(bad):
            self.checksum_failures += 1
            self.find("checksum.mismatch", f"stored checksum {int(stored[i])} != computed {int(computed[i])}",
                      block=first + int(i), expected=int(computed[i]), actual=int(stored[i]))

    def _bad_page(self, blkno: int, hdr, i: int) -> None:
        pv, special = int(hdr.pagesize_version[i]), int(hdr.special[i])
        if (pv & 0xFF00) != self.bs or (pv & 0xFF) != 4:
            why = f"pd_pagesize_version 0x{pv:04X} is not a {self.bs}-byte version-4 page"
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
        from pgpage.analysis import kernels
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
        self._downlinks.append(out.downlinks[:total("downlinks")].copy())
        self._events(out.events())
        # heap TIDs: where they land in the table
        if self.heap is not None:
            self.heap.check(*out.tids(), self.find, pages=(lo, lo + n))

    def _run_items(self, chunk: np.ndarray, lo: int, special: np.ndarray):
        """The compiled item pass over pages lo.. (``kind``, ``flags``, ``next`` and ``nitems`` of
        them already kept): its outputs (``kernels.BtreeItemsOutputs``, reused from chunk to chunk)."""
        from pgpage.analysis import kernels
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
        from pgpage.analysis import kernels
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
        out["deduplication"] = self._dedup_summary(out["pgstatindex"])
        out["dead_items"] = {
            "dead_items": int(self.dead_items.sum()), "dead_posting_tuples": self.dead_posting_tuples,
            "dead_tids": self.dead_tids, "pages_with_dead_items": int((self.dead_items > 0).sum()),
        }
        out["pages"] = self._special_pages()
        out["pivots"] = self._pivot_summary()
        out["levels"] = self._level_summary()
        self._structure_checks()
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

    def _dedup_summary(self, stats: dict) -> dict:
        """Deduplication: settings, posting lists, and what the index would weigh without them.

        Bytes saved: each posting tuple of n TIDs replaces n plain tuples of MAXALIGN(posting
        offset) bytes (the key part, which is the base tuple's size: ``_bt_form_posting``)
        with one line pointer each; saved = those n tuples and line pointers minus the
        posting tuple and its line pointer. The size without deduplication puts the saved bytes
        back on the leaf level at the leaf pages' current average density; each internal level
        then needs its downlinks' bytes times the growth of the level below, at the level's
        current bytes per page (counting a page as at least half full), never fewer pages than now (a new root on top if the old top
        level no longer fits one page); metapage, deleted and half-dead pages stay. An estimate
        of the same index with ``deduplicate_items = off``, not a prediction of a REINDEX (which
        would pack leaves at fillfactor 90).
        """
        major = self.major
        meta = self.metapage or {}
        allequal = meta.get("allequalimage")
        opt = None
        source = None
        if self.info.reloptions is not None:
            source = "default"
            opt = True
            for o in self.info.reloptions:
                name, _, value = o.partition("=")
                if name.strip().lower() == "deduplicate_items":
                    opt = value.strip().lower() in ("on", "true", "yes", "1", "t", "y")
                    source = "reloptions"
        supported = major is None or major >= POSTING_LISTS_SINCE
        can = bool(supported and allequal and opt is not False) if (allequal is not None or not supported) else None
        if not supported:
            can = False
        tids = self.posting_tid_count + self.plain_tuples
        saved = self.posting_plain_bytes - self.posting_bytes
        hist = []
        edges = POSTING_HISTOGRAM_EDGES
        for lo, hi in zip(edges[:-1], edges[1:]):
            c = int(self.posting_hist[lo:hi].sum())
            if c:
                hist.append({"from": lo, "to": hi - 1, "count": c})
        per = None
        if self.posting_tuples:
            counts = np.flatnonzero(self.posting_hist)
            cum = np.cumsum(self.posting_hist)
            per = {"min": int(counts[0]), "max": int(counts[-1]),
                   "mean": round(self.posting_tid_count / self.posting_tuples, 1),
                   "median": int(np.searchsorted(cum, (self.posting_tuples + 1) // 2)),
                   "histogram": hist}
        out = {
            "supported": supported, "allequalimage": allequal, "deduplicate_items": opt,
            "deduplicate_items_source": source, "can_deduplicate": can,
            "unique_index": self.info.unique,
            "posting_tuples": self.posting_tuples, "posting_tids": self.posting_tid_count,
            "plain_tuples": self.plain_tuples, "tids": tids,
            "posting_tid_share": round(100.0 * self.posting_tid_count / tids, 2) if tids else None,
            "tids_per_posting_list": per,
            "posting_tuple_bytes": self.posting_bytes, "bytes_without_posting_lists": self.posting_plain_bytes,
            "bytes_saved": saved,
            "estimated_leaf_pages_without": None, "estimated_index_size_without": None,
        }
        lvl0 = self.levels.get(0)
        if lvl0 and lvl0.leaf_pages and lvl0.leaf_used:
            per_page = lvl0.leaf_used / lvl0.leaf_pages
            leaf_without = max(lvl0.leaf_pages, math.ceil((lvl0.leaf_used + saved) / per_page))
            pages = leaf_without + (lvl0.pages - lvl0.leaf_pages)
            below_now, below_then = lvl0.pages, pages
            total = pages
            for lv in sorted(self.levels)[1:]:
                acc = self.levels[lv]
                grown = acc.used_bytes * below_then / below_now
                per = max(acc.used_bytes / acc.pages, acc.capacity / acc.pages / 2)  # at least half full
                then = max(acc.pages, math.ceil(grown / per)) if per else acc.pages
                below_now, below_then = acc.pages, then
                total += then
            if below_then > 1:  # the old top level spans pages now: a new root above it
                total += 1
            out["estimated_leaf_pages_without"] = leaf_without
            out["estimated_index_size_without"] = (1 + total + stats["deleted_pages"]) * self.bs
        return out

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

    def _pivot_summary(self) -> dict:
        """High keys and pivots, and what suffix truncation (12+) saved.

        Without suffix truncation a pivot is a copy of a leaf tuple's key part; the saving is
        estimated per pivot as the leaf level's average key-only tuple size (MAXALIGNed; for a
        posting tuple its posting offset) minus the pivot's size, never below zero. The
        "minus infinity" first item of each internal page (no key at all) is left out."""
        natts = self.pivot_natts_hist
        sizes = self.pivot_size_hist
        count = int(sizes.sum())
        total = int(sizes @ np.arange(len(sizes)))
        nkey = self.info.nkeyatts
        avg_leaf = self.leaf_key_bytes / self.leaf_key_tuples if self.leaf_key_tuples else None
        saved = int(sizes @ np.maximum(maxalign(int(math.ceil(avg_leaf))) - np.arange(len(sizes)), 0)) if avg_leaf else 0
        stated = np.flatnonzero(natts[1:])  # attribute counts some pivot states
        out = {
            "high_keys": sum(a.high_keys for a in self.levels.values()),
            "high_key_bytes": sum(a.high_key_bytes for a in self.levels.values()),
            "pivot_tuples": count, "pivot_bytes": total,
            "minus_infinity_items": self.minus_infinity,
            "pivots_with_heap_tid": self.pivots_with_heap_tid,
            "pivot_natts": {str(int(k)): int(natts[k + 1]) for k in stated},
            "truncated_pivots": int(natts[1:1 + nkey].sum()) if nkey else None,
            "avg_leaf_key_tuple": round(avg_leaf, 1) if avg_leaf else None,
            "avg_pivot_tuple": round(total / count, 1) if count else None,
            "suffix_truncation_saved_bytes_estimate": saved,
        }
        return out

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
    def _structure_checks(self) -> None:
        find = self.find
        n = self.nblocks
        kind, flags, level, prev, nxt = self.kind, self.flags, self.level, self.prev, self.next
        live = self.seen & np.isin(kind, IN_TREE)
        blocks = np.arange(n)
        meta = self.metapage or {}

        # levels against the leaf flag
        leafflag = (flags & BTP_LEAF) != 0
        for b in blocks[live & leafflag & (level != 0)][:FINDINGS_PER_CODE + 1]:
            find("btree.level.leaf_not_zero", f"leaf page at btpo_level {int(level[b])}", block=int(b),
                 expected=0, actual=int(level[b]))
        for b in blocks[live & ~leafflag & (level == 0)][:FINDINGS_PER_CODE + 1]:
            find("btree.level.internal_zero", "internal page at btpo_level 0", block=int(b), actual=0)

        # the metapage's root and fast root
        root, mlevel = meta.get("root"), meta.get("level")
        roots = blocks[live & ((flags & BTP_ROOT) != 0)]
        if root:
            if root >= n or not live[root]:
                find("btree.meta.bad_root", f"the metapage's root {root} is not a live page of this index", block=0,
                     actual=root)
            else:
                if not flags[root] & BTP_ROOT:
                    find("btree.meta.root_not_flagged", f"block {root} is the metapage's root but lacks BTP_ROOT",
                         block=root)
                if level[root] != mlevel:
                    find("btree.meta.root_level", f"the root is at btpo_level {int(level[root])}, the metapage says"
                         f" {mlevel}", block=root, expected=mlevel, actual=int(level[root]))
                if prev[root] or nxt[root]:
                    find("btree.meta.root_has_siblings", f"the root has siblings ({int(prev[root])} <- -> "
                         f"{int(nxt[root])})", block=root)
            for b in roots:
                if b != root:
                    find("btree.meta.stray_root", f"block {int(b)} is flagged BTP_ROOT but the root is {root}",
                         block=int(b))
            fast, flevel = meta.get("fastroot"), meta.get("fastlevel")
            if fast and (fast >= n or not live[fast]):
                find("btree.meta.bad_fastroot", f"the metapage's fast root {fast} is not a live page", block=0,
                     actual=fast)
            elif fast and level[fast] != flevel:
                find("btree.meta.fastroot_level", f"the fast root is at level {int(level[fast])}, the metapage says"
                     f" {flevel}", block=fast, expected=flevel, actual=int(level[fast]))
            if mlevel is not None and live.any() and int(level[live].max()) > mlevel:
                b = int(blocks[live][np.argmax(level[live])])
                find("btree.level.above_root", f"a live page at level {int(level[b])}, above the root's {mlevel}",
                     block=b, expected=mlevel, actual=int(level[b]))
        elif meta and live.any():
            find("btree.meta.no_root", f"the metapage has no root, yet {int(live.sum())} pages are in use", block=0)

        # sibling links, both ways, on one level
        lb = blocks[live]
        for direction, link, back in (("next", nxt, prev), ("prev", prev, nxt)):
            other = "prev" if direction == "next" else "next"
            t = link[lb].astype(np.int64)
            tc = np.minimum(t, max(n - 1, 0))
            has = t != P_NONE
            oor = has & ((t >= n) | ~self.seen[tc])
            dead = has & ~oor & ~live[tc]
            mismatch = has & ~oor & ~dead & (back[tc] != lb)
            wrong_level = has & ~oor & ~dead & ~mismatch & (level[tc] != level[lb])
            self._each(f"btree.sibling.{direction}_out_of_range", oor, lambda i: dict(
                message=f"btpo_{direction} {int(t[i])} is past the index's {n} blocks", block=int(lb[i]),
                actual=int(t[i])))
            self._each(f"btree.sibling.{direction}_not_live", dead, lambda i: dict(
                message=f"btpo_{direction} {int(t[i])} is a {KIND_NAMES[int(kind[t[i]])]} page, not one in the tree",
                block=int(lb[i]), actual=int(t[i])))
            self._each(f"btree.sibling.{direction}_mismatch", mismatch, lambda i: dict(
                message=f"btpo_{direction} is {int(t[i])}, whose btpo_{other} is {int(back[t[i]])}",
                block=int(lb[i]), expected=int(lb[i]), actual=int(back[t[i]])))
            self._each("btree.sibling.level_mismatch", wrong_level, lambda i: dict(
                message=f"sibling {int(t[i])} is at level {int(level[t[i]])}, this page at {int(level[lb[i]])}",
                block=int(lb[i]), expected=int(level[lb[i]]), actual=int(level[t[i]])))
        order = np.full(n, -1, dtype=np.int64)  # position of each page in its level's chain
        self._walk_levels(live, order)

        # downlinks: each points at a live page one level down
        dl = np.concatenate(self._downlinks) if self._downlinks else np.zeros((0, 3), dtype=np.int64)
        parent, item, child = dl[:, 0], dl[:, 1], dl[:, 2]
        cc = np.clip(child, 0, max(n - 1, 0))
        oor = (child <= 0) | (child >= n) | ~self.seen[cc]
        half = ~oor & (kind[cc] == HALF_DEAD)  # a subtree being deleted: allowed
        dead = ~oor & ~half & ~live[cc]
        wrong = ~oor & ~half & ~dead & (level[cc].astype(np.int64) + 1 != level[parent].astype(np.int64))
        self._each("btree.downlink.out_of_range", oor, lambda j: dict(
            message=f"downlink to block {int(child[j])}, outside blocks 1..{n - 1}", block=int(parent[j]),
            item=int(item[j]), actual=int(child[j])))
        self._each("btree.downlink.not_live", dead, lambda j: dict(
            message=f"downlink to block {int(child[j])}, a {KIND_NAMES[int(kind[child[j]])]} page",
            block=int(parent[j]), item=int(item[j]), actual=int(child[j])))
        self._each("btree.downlink.level_mismatch", wrong, lambda j: dict(
            message=f"downlink to block {int(child[j])} at level {int(level[child[j]])} from level"
                    f" {int(level[parent[j]])}", block=int(parent[j]), item=int(item[j]),
            expected=int(level[parent[j]]) - 1, actual=int(level[child[j]])))
        refs = np.bincount(child[~oor], minlength=n) if n else np.zeros(0, dtype=np.int64)
        dup = np.flatnonzero(refs > 1)
        self._each("btree.downlink.duplicate", np.ones(len(dup), dtype=bool), lambda i: dict(
            message=f"block {int(dup[i])} has {int(refs[dup[i]])} downlinks (from"
                    f" {', '.join(map(str, parent[child == dup[i]][:5].tolist()))})",
            block=int(dup[i]), actual=int(refs[dup[i]])))
        if not (meta and root and root < n and live[root]):
            return
        # each page below the root has a downlink, unless the split that made it is incomplete
        rootlevel = int(level[root])
        anyhalf = bool((live & (kind == HALF_DEAD)).any())
        need = blocks[live & (level < rootlevel) & (refs[:n] == 0) & (kind != HALF_DEAD)]
        left = prev[need].astype(np.int64)
        incomplete = (left > 0) & (left < n) & ((flags[np.minimum(left, n - 1)] & BTP_INCOMPLETE_SPLIT) != 0)
        self._each("btree.downlink.missing", ~incomplete, lambda i: dict(
            message="no internal page points at this page" + (" (a page deletion is in progress)" if anyhalf else ""),
            severity=WARNING if anyhalf else ERROR, block=int(need[i])))
        # downlinks, read along each level from left to right, visit the level below from left to right
        onchain = order[parent] >= 0
        d = dl[onchain & ~oor]
        if len(d):
            d = d[np.lexsort((d[:, 1], order[d[:, 0]], level[d[:, 0]]))]
            pos = order[d[:, 2]]
            same_level = level[d[1:, 0]] == level[d[:-1, 0]]
            bad = np.flatnonzero(same_level & (pos[1:] >= 0) & (pos[:-1] >= 0) & (pos[1:] <= pos[:-1]))
            self._each("btree.downlink.order", np.ones(len(bad), dtype=bool), lambda i: dict(
                message=f"downlink to block {int(d[bad[i] + 1, 2])} comes after the downlink to"
                        f" {int(d[bad[i], 2])}, but its page lies left of it on level {int(level[d[bad[i], 2]])}",
                block=int(d[bad[i] + 1, 0]), item=int(d[bad[i] + 1, 1])))

    def _each(self, code: str, mask: np.ndarray, describe) -> None:
        """One finding per True entry of ``mask`` (``describe(i)`` gives its fields), building
        messages only for those the sink keeps and counting the rest."""
        hits = np.flatnonzero(mask)
        for i in hits[:FINDINGS_PER_CODE]:
            kw = describe(int(i))
            self.find(code, kw.pop("message"), kw.pop("severity", ERROR), **kw)
        if len(hits) > FINDINGS_PER_CODE:
            self.find.add_count(code, len(hits) - FINDINGS_PER_CODE, describe(int(hits[0])).get("severity", ERROR))

    def _walk_levels(self, live: np.ndarray, order: np.ndarray) -> None:
        """Each level's sibling chain from its leftmost page, bounded and cycle-safe: it stops at
        the end of the level, at a block it has seen, or after as many steps as there are blocks.
        ``order[b]`` becomes page b's position on its level's chain."""
        from pgpage.analysis import kernels
        find = self.find
        n = self.nblocks
        blocks = np.arange(n)
        visited = np.zeros(n, dtype=bool)
        for lv in sorted_unique(self.level[live]):
            lv = int(lv)
            members = blocks[live & (self.level == lv)]
            leftmost = members[self.prev[members] == P_NONE]
            rightmost = members[self.next[members] == P_NONE]
            if len(leftmost) != 1:
                find("btree.level.leftmost", f"level {lv} has {len(leftmost)} pages without a left sibling (one"
                     " expected)", block=int(leftmost[0]) if len(leftmost) else None, expected=1, actual=len(leftmost))
            if len(rightmost) != 1:
                find("btree.level.rightmost", f"level {lv} has {len(rightmost)} pages without a right sibling (one"
                     " expected)", block=int(rightmost[0]) if len(rightmost) else None, expected=1,
                     actual=len(rightmost))
            start = int(leftmost[0]) if len(leftmost) else (int(members[0]) if len(members) else 0)
            # the walk (compiled: one step per page) stops where the chain leaves the level's live pages (the
            # link checks report why) or comes back to a page it passed
            _, cycle = kernels.walk_chain(self.next, live, self.level, lv, start, visited, order)
            if cycle >= 0:
                find("btree.sibling.cycle", f"the sibling chain of level {lv} comes back to block {cycle}", block=cycle)
            missed = members[~visited[members]]
            if len(missed):
                find("btree.sibling.unreachable", f"{len(missed)} page(s) of level {lv} are not on the chain from its"
                     f" leftmost page (first: {', '.join(map(str, missed[:5].tolist()))})", block=int(missed[0]),
                     actual=len(missed))

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


# ---------------------------------------------------------------------------------------------
# one page a person looks at: items with their keys decoded
# ---------------------------------------------------------------------------------------------

def decode_index_keys(raw: bytes, attrs: Sequence, major: int | None, pivot_natts: int | None = None,
                      posting_offset: int | None = None, heap_tid_attr: bool = False) -> list[dict]:
    """The key columns of one index tuple (its exact bytes), decoded with the index's
    attributes (``deform.Attribute``, attnum order). A pivot's truncated attributes come back
    as ``truncated`` (minus infinity for the search), NULLs as ``null``."""
    from pgpage.decode.datum import to_pg_text, type_info
    from pgpage.decode.deform import NULL, VALUE, decode_attr, deform_tuple
    if len(raw) < 8:
        return []
    info = int.from_bytes(raw[6:8], "little")
    size = min(info & INDEX_SIZE_MASK, len(raw))
    has_nulls = bool(info & INDEX_NULL_MASK)
    start = 16 if has_nulls else 8
    end = size
    if posting_offset is not None:
        end = min(posting_offset, size)
    elif heap_tid_attr:
        end = size - SIZE_OF_ITEM_POINTER
    natts = len(attrs) if pivot_natts is None else min(pivot_natts, len(attrs))
    bitmap = raw[8:12] if has_nulls and len(raw) >= 12 else None
    pad = b"\0" * 16  # deform_tuple wants a heap-sized header before the data; alignment is data-relative
    deformed = deform_tuple(pad + bytes(raw[:max(end, start)]), start + 16, natts, list(attrs), null_bitmap=bitmap)
    out = []
    for i, a in enumerate(deformed.attrs):
        t = type_info(a.typid)
        row = {"attnum": a.attnum, "name": a.name, "type": t.name if t else str(a.typid)}
        if i >= natts:
            row["truncated"] = True
            row["value"] = None
        elif a.status == NULL:
            row["null"] = True
            row["value"] = None
        else:
            v = decode_attr(a, major=major)
            row["value"] = to_pg_text(a.typid, v) if a.status == VALUE else str(v)
            if a.status != VALUE:
                row["error"] = True
        out.append(row)
    return out


def page_view(raw: bytes, blkno: int, ctx: PageContext, attrs: Sequence | None) -> dict:
    """One index page decoded as ``pgpage page`` does (pageinspect's names), each item with its
    key columns decoded beside the raw ``data`` when the index's attributes are known."""
    from pgpage.decode.page import decode_page
    page = decode_page(raw, blkno, ctx)
    items = page.get("bt_page_items") or []
    if not attrs or not items:
        return page
    from kaitaistruct import KaitaiStructError
    from pgpage.decode.ksy.nbtree import Nbtree
    opaque = page.get("bt_page_opaque") or {}
    internal = not opaque.get("btpo_flags", 0) & BTP_LEAF
    first_data = 1 if opaque.get("btpo_next") == P_NONE else 2  # P_FIRSTDATAKEY
    for it in items:
        if it.get("itemlen") is None:
            continue
        n = it["itemoffset"]
        lp = int.from_bytes(raw[SIZE_OF_PAGE_HEADER + 4 * (n - 1):SIZE_OF_PAGE_HEADER + 4 * n], "little")
        off, length = lp & 0x7FFF, lp >> 17
        tup_raw = raw[off:off + length]
        try:
            tup = Nbtree.BtIndexTuple.from_bytes(tup_raw)
            pivot_natts = tup.n_key_atts if tup.is_pivot else None
            if internal and n == first_data:
                pivot_natts = 0  # "minus infinity": no key at all (version 2/3 pivots carry no count)
            it["keys"] = decode_index_keys(tup_raw, attrs, ctx.major, pivot_natts=pivot_natts,
                                           posting_offset=tup.posting_offset if tup.is_posting else None,
                                           heap_tid_attr=bool(tup.has_heap_tid_attr))
        except (KaitaiStructError, EOFError, ValueError):
            it["keys"] = None
    return page
