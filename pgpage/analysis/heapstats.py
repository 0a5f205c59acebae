"""Whole-heap figures: pgstattuple's numbers and what lies behind them (``HeapStats``).

The tuple verdict is HeapTupleSatisfiesDirty's (what pgstattuple uses): a tuple is dead when
its inserter aborted or its deleter committed (a lock-only xmax deletes nothing). Hint bits
decide where set, pg_xact where not (``decode.xact``: the xid verdicts). Free space is
PageGetHeapFreeSpace per page. The rules themselves are written once, in ``_heapscan.c``
(compiled); ``analysis.heap.HeapAnalysis`` runs the whole-heap kernel chunk by chunk and adds its
counters up here. No I/O.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from pgpage.decode.vector import MIN_HEAP_TUPLE_SIZE, SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER


def max_heap_tuples_per_page(block_size: int) -> int:
    """MaxHeapTuplesPerPage: (BLCKSZ - SizeOfPageHeaderData) / (MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData))."""
    return (block_size - SIZE_OF_PAGE_HEADER) // (MIN_HEAP_TUPLE_SIZE + SIZE_OF_ITEM_ID)


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
