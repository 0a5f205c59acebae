"""The index against its table: where each heap TID of the leaf level lands in the table's pages
(``HeapTidCheck``), with a bounded cache of line pointer verdicts, window by window of the table.

Beyond the table's end, beyond the page's line pointers, at an LP_UNUSED slot, or at a heap-only
tuple (an index never points into the middle of a HOT chain) is corruption; at LP_DEAD (pruned,
awaiting VACUUM) or LP_REDIRECT (the root of a pruned HOT chain) it is normal and counted. The
line pointer verdicts and the lookups are compiled (``kernels.heap_lp_states_read``, ``tid_verdicts``).
The table's files come open from the reader the caller hands in; nothing here opens a file.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pgpage.analysis.btree.sink import LIST_LIMIT, FindingSink
from pgpage.analysis.heapstats import max_heap_tuples_per_page
from pgpage.decode.pagebase import format_tid
from pgpage.decode.vector import count_set_bits, sorted_unique

# heap line pointer verdicts (HeapTidCheck)
HEAP_STATES = ("normal", "redirect", "dead", "unused", "heap_only", "beyond_page", "beyond_end", "bad_page")
H_NORMAL, H_REDIRECT, H_DEAD, H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END, H_BAD_PAGE = range(8)
HEAP_STATE_IS_ERROR = {H_UNUSED, H_HEAP_ONLY, H_BEYOND_PAGE, H_BEYOND_END}
_STATE_IS_ERROR = np.isin(np.arange(len(HEAP_STATES)), list(HEAP_STATE_IS_ERROR))

HEAP_CACHE_BLOCKS = 524_288  # table blocks whose line pointers HeapTidCheck keeps (4 GiB of table, 79 MB)
READ_GAP = 16  # up to this many table blocks between two wanted ones are read, not skipped: a read call costs more
RANDOM_SHARE = 64  # a chunk wanting more than 1/64 of the window's blocks, all over it, gets the whole window read
# table bytes read at a time, and decoded there: the kernel's copy out of the page cache is fast into a buffer
# that stays in the L2 cache, and the pages are still there when decoded (storage.relfile.STAGE_BYTES)
READ_BYTES = 128 * 1024


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

    ``read_blocks.runs(sorted block numbers)`` yields (fd, byte offset, first row, rows) for each
    run of consecutive blocks of one file (``storage.relfile.BlockReader``): the compiled code reads
    the run and decodes it as it goes; a block it cannot read is decoded as a new (all-zero) page,
    as the reader's pages give it. Each table block read is decoded once into four bits per line
    pointer (its verdict: unused, normal, heap-only, redirect, dead) and kept in a cache of at
    most ``cache_blocks`` blocks (about 150 bytes each, 79 MB in all). The table is cut into
    *windows* of that many consecutive blocks, and the cache holds one window. A table that fits
    is one window: checked in the index's one pass, each block read once however the index is
    ordered. With a bigger table, the index's pass checks each chunk's TIDs against the window
    most of them point into (moving only forward, as an index in table order does) and notes the
    chunk's pages with the other windows its TIDs point into; ``BtreeScan.check_heap_windows``
    then reads those pages again, window by window, and checks the TIDs into each. An index in
    table order is checked in about one pass; one in random order costs a pass over the index per
    window, never a table read per index chunk; memory stays bounded either way.

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

    def __init__(self, nblocks: int, read_blocks, block_size: int,
                 table: str | None = None, cache_blocks: int = HEAP_CACHE_BLOCKS, shared: bool = False):
        self.nblocks = nblocks
        self.read_blocks = read_blocks
        self._buf = np.empty(max(1, READ_BYTES // block_size) * block_size, dtype=np.uint8)
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
        self.states = zeros((self.capacity, (self.maxlp + 2) // 2), dtype=np.uint8)  # [slot, offset / 2]: 4 bits each
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
        part = np.arange(blocks[0], blocks[1])
        self._read(part, np.ones(len(part), dtype=bool))

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
        """Verdicts of heap TIDs (block and offset numbers, uint32 and uint16 as BlockNumber and OffsetNumber;
        offsets in 1..MaxHeapTuplesPerPage) into the window in the cache (and, in the index's pass, past the
        table's end), counted, and a finding for each that is corruption (``iblk``, ``iitem``: the index item
        holding it; ``pages``: the index pages lo..hi-1 the TIDs come from, all of them)."""
        from pgpage.decode import kernels
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
        wanted = np.zeros(len(asked), dtype=bool)   # (both sorted, missing among asked: no isin's sort of both)
        wanted[np.searchsorted(asked, missing)] = True
        self._read(asked, wanted)

    def _read(self, asked: np.ndarray, wanted: np.ndarray) -> None:
        """Read table blocks ``asked`` (sorted, all in the window) and cache those ``wanted``."""
        from pgpage.decode import kernels
        lo = self.window * self.capacity
        read = np.zeros(len(asked), dtype=bool)
        for fd, offset, row, count in self.read_blocks.runs(asked):
            try:
                got = kernels.heap_lp_states_read(fd, offset, wanted[row:row + count], int(asked[row]) - lo, self,
                                                  self._buf)
            except OSError:
                continue
            read[row:row + got] = True
        unread = np.flatnonzero(wanted & ~read)   # decoded as the all-zero page they read as elsewhere
        if len(unread):
            zero = np.zeros((1, self.block_size), dtype=np.uint8)
            kernels.heap_lp_states(zero, np.zeros(len(unread), dtype=np.int64), asked[unread] - lo, self)
        self.cached[asked[wanted] - lo] = True

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
