"""Whole-heap figures: pgstattuple's numbers and what lies behind them, and the xid verdicts.

The tuple verdict is HeapTupleSatisfiesDirty's (what pgstattuple uses): a tuple is dead when
its inserter aborted or its deleter committed (a lock-only xmax deletes nothing). Hint bits
decide where set, pg_xact where not. Free space is PageGetHeapFreeSpace per page. The rules
themselves are written once, in ``_heapscan.c`` (compiled); the functions here apply them to
arrays (``verify`` uses them), and ``HeapAnalysis`` runs the whole-heap kernel chunk by chunk.
No I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

SIZE_OF_ITEM_ID = 4

# xid states as small integers, for arrays
ST_UNKNOWN, ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_FROZEN, ST_INVALID, ST_LOCK_ONLY = range(7)


def max_heap_tuples_per_page(block_size: int) -> int:
    """MaxHeapTuplesPerPage: (BLCKSZ - SizeOfPageHeaderData) / (MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData))."""
    return (block_size - 24) // (24 + SIZE_OF_ITEM_ID)


class ClogArray:
    """pg_xact as one flat byte array, for looking up many xids at once (in the compiled scanner).

    ``segments`` maps segment number to its bytes. ``in_progress_is_aborted``: in a cluster
    that was shut down cleanly no transaction can still be running, so an xid pg_xact still
    shows in progress never committed (its backend died, or it was never assigned).

    ``flat`` holds the segments one after the other; ``seg_start[segno]`` is where a segment
    starts in it (-1: absent) and ``seg_len[segno]`` its length, so a kernel finds an xid's two
    bits without a dictionary (at most 4096 segments cover the 2^32 xids).
    """

    XACTS_PER_BYTE = 4

    def __init__(self, segments: dict[int, bytes], block_size: int = 8192, pages_per_segment: int = 32,
                 in_progress_is_aborted: bool = False):
        self.xacts_per_segment = block_size * pages_per_segment * self.XACTS_PER_BYTE
        self.in_progress_is_aborted = in_progress_is_aborted
        present = sorted(s for s in segments if s is not None and s >= 0)
        size = (present[-1] + 1) if present else 0
        self.seg_start = np.full(size, -1, dtype=np.int64)
        self.seg_len = np.zeros(size, dtype=np.int64)
        at = 0
        for s in present:
            self.seg_start[s] = at
            self.seg_len[s] = len(segments[s])
            at += len(segments[s])
        self.flat = np.frombuffer(b"".join(segments[s] for s in present), dtype=np.uint8) if present else \
            np.zeros(0, dtype=np.uint8)

    @property
    def c_args(self) -> tuple:
        """What the compiled lookups take (see ``_heapscan.c``: Clog)."""
        return (self.flat.ctypes.data, self.seg_start.ctypes.data, self.seg_len.ctypes.data, len(self.seg_start),
                self.xacts_per_segment, int(self.in_progress_is_aborted))

    def states(self, xids: np.ndarray) -> np.ndarray:
        """ST_* per xid: committed, aborted, in progress, frozen (1, 2), invalid (0), unknown."""
        from pgpage.analysis.kernels import clog_states
        return clog_states(xids, self)


def xmin_states(infomask: np.ndarray, xmin: np.ndarray, clog: ClogArray) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) per tuple: hint bits first (HeapTupleHeaderXminCommitted/Invalid/Frozen), then pg_xact."""
    from pgpage.analysis import kernels
    return kernels.xmin_states(infomask, xmin, clog)


def xmax_is_locked_only(infomask: np.ndarray) -> np.ndarray:
    """HEAP_XMAX_IS_LOCKED_ONLY per tuple."""
    from pgpage.analysis import kernels
    return kernels.xmax_locked_only(infomask)


def xmax_states(infomask: np.ndarray, xmax: np.ndarray, clog: ClogArray,
                multi_update_xid=None) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) of the deleter: INVALID, LOCK_ONLY, COMMITTED, ABORTED, IN_PROGRESS or UNKNOWN.

    ``multi_update_xid(multis) -> xids`` resolves an updating multixact to its update xid
    (0 when it has none); without it such a multixact is UNKNOWN unless hinted.
    """
    from pgpage.analysis import kernels
    xmax = np.ascontiguousarray(xmax, dtype=np.int64)
    update_xid = np.full(len(xmax), -1, dtype=np.int64)
    if multi_update_xid is not None:
        multi = kernels.xmax_needs_multi(infomask, xmax)
        if multi.any():
            update_xid[multi] = multi_update_xid(xmax[multi])  # -1 where the members cannot be read
    return kernels.xmax_states(infomask, xmax, update_xid, multi_update_xid is not None, clog)


@dataclass
class HeapStats:
    """Counters over a heap, merged chunk by chunk (so memory stays flat)."""

    block_size: int = 8192
    pages: int = 0
    new_pages: int = 0
    all_visible_pages: int = 0          # PD_ALL_VISIBLE in the page header
    tuple_count: int = 0
    tuple_len: int = 0
    dead_tuple_count: int = 0
    dead_tuple_len: int = 0
    undecided_count: int = 0            # tuples whose fate pg_xact could not tell (counted as live)
    undecided_len: int = 0
    in_progress_count: int = 0          # inserter or deleter still running (counted as live, like pgstattuple)
    free_space: int = 0
    lp_unused: int = 0
    lp_normal: int = 0
    lp_redirect: int = 0
    lp_dead: int = 0
    lp_dead_len: int = 0                # LP_DEAD items that still have storage
    hot_updated: int = 0
    heap_only: int = 0
    xmin_committed_hint: int = 0
    xmin_invalid_hint: int = 0
    xmin_frozen: int = 0
    xmin_unhinted: int = 0
    xmax_committed_hint: int = 0
    xmax_invalid_hint: int = 0
    xmax_unhinted: int = 0
    pages_needing_hints: int = 0        # pages the next read would dirty to set hint bits

    @classmethod
    def counter_names(cls) -> list[str]:
        return [f.name for f in fields(cls) if f.name != "block_size"]

    def merge(self, other: "HeapStats") -> None:
        for f in fields(self):
            if f.name != "block_size":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def table_len(self) -> int:
        return self.pages * self.block_size

    def pgstattuple(self) -> dict:
        """pgstattuple's nine columns, percentages rounded as it prints them (%.2f)."""
        t = self.table_len
        pct = (lambda x: round(100.0 * x / t, 2)) if t else (lambda x: 0.0)
        return {"table_len": t, "tuple_count": self.tuple_count, "tuple_len": self.tuple_len,
                "tuple_percent": pct(self.tuple_len), "dead_tuple_count": self.dead_tuple_count,
                "dead_tuple_len": self.dead_tuple_len, "dead_tuple_percent": pct(self.dead_tuple_len),
                "free_space": self.free_space, "free_percent": pct(self.free_space)}

    def to_json(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["table_len"] = self.table_len
        return d


def chunk_stats(chunk, clog: ClogArray, multi_update_xid=None, exact_free_space: bool = False) -> tuple[HeapStats, dict]:
    """Counters for one chunk (a ``decode.vector.HeapChunk``), and ``{"dirtied_pages": bool per page}``:
    the pages the next read would dirty to set hint bits. The compiled whole-heap pass
    (``HeapAnalysis.add_chunk``) over the chunk's pages; ``exact_free_space``: count free space as
    pgstattuple of 18+ does (see versions.py)."""
    from pgpage.analysis.heap import HeapAnalysis
    from pgpage.analysis.kernels import TABLES
    analysis = HeapAnalysis(chunk.block_size, chunk.first_blkno + chunk.npages, clog, multi_update_xid,
                            exact_free_space=exact_free_space, map_cells=1)
    per_page = analysis.add_chunk(chunk.pages, chunk.first_blkno)
    return analysis.stats, {"dirtied_pages": per_page[:, TABLES.PAGE_COLUMNS.index("hint_page")] != 0}
