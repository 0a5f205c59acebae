"""Whole-heap figures from vectorised chunks: pgstattuple's numbers and what lies behind them.

Pure functions over ``decode.vector.HeapChunk`` arrays plus a commit-status lookup; no I/O.
The tuple verdict is HeapTupleSatisfiesDirty's (what pgstattuple uses): a tuple is dead when
its inserter aborted or its deleter committed (a lock-only xmax deletes nothing). Hint bits
decide where set, pg_xact where not. Free space is PageGetHeapFreeSpace per page.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from pgpage.decode.vector import HeapChunk

LP_UNUSED, LP_NORMAL, LP_REDIRECT, LP_DEAD = 0, 1, 2, 3
SIZE_OF_ITEM_ID = 4
PD_HAS_FREE_LINES = 0x0001
PD_ALL_VISIBLE = 0x0004

HEAP_XMAX_KEYSHR_LOCK = 0x0010
HEAP_XMAX_EXCL_LOCK = 0x0040
HEAP_XMAX_LOCK_ONLY = 0x0080
HEAP_XMIN_COMMITTED = 0x0100
HEAP_XMIN_INVALID = 0x0200
HEAP_XMIN_FROZEN = 0x0300
HEAP_XMAX_COMMITTED = 0x0400
HEAP_XMAX_INVALID = 0x0800
HEAP_XMAX_IS_MULTI = 0x1000
HEAP_HOT_UPDATED = 0x4000
HEAP_ONLY_TUPLE = 0x8000

# xid states as small integers, for arrays
ST_UNKNOWN, ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_FROZEN, ST_INVALID, ST_LOCK_ONLY = range(7)
CLOG_TO_STATE = np.array([ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_UNKNOWN], dtype=np.int8)


def max_heap_tuples_per_page(block_size: int) -> int:
    """MaxHeapTuplesPerPage: (BLCKSZ - SizeOfPageHeaderData) / (MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData))."""
    return (block_size - 24) // (24 + SIZE_OF_ITEM_ID)


class ClogArray:
    """pg_xact as numpy arrays, for looking up many xids at once.

    ``segments`` maps segment number to its bytes. ``in_progress_is_aborted``: in a cluster
    that was shut down cleanly no transaction can still be running, so an xid pg_xact still
    shows in progress never committed (its backend died, or it was never assigned).
    """

    XACTS_PER_BYTE = 4

    def __init__(self, segments: dict[int, bytes], block_size: int = 8192, pages_per_segment: int = 32,
                 in_progress_is_aborted: bool = False):
        self.xacts_per_segment = block_size * pages_per_segment * self.XACTS_PER_BYTE
        self.segments = {s: np.frombuffer(b, dtype=np.uint8) for s, b in segments.items()}
        self.in_progress_is_aborted = in_progress_is_aborted

    def states(self, xids: np.ndarray) -> np.ndarray:
        """ST_* per xid: committed, aborted, in progress, frozen (1, 2), invalid (0), unknown."""
        xids = xids.astype(np.int64)
        out = np.full(len(xids), ST_UNKNOWN, dtype=np.int8)
        segno = xids // self.xacts_per_segment
        for s in np.unique(segno):
            data = self.segments.get(int(s))
            if data is None:
                continue
            sel = np.flatnonzero(segno == s)
            within = xids[sel] - s * self.xacts_per_segment
            byte = within // self.XACTS_PER_BYTE
            ok = byte < len(data)
            codes = (data[byte[ok]] >> ((within[ok] % self.XACTS_PER_BYTE) * 2).astype(np.uint8)) & 3
            out[sel[ok]] = CLOG_TO_STATE[codes]
        if self.in_progress_is_aborted:
            out[out == ST_IN_PROGRESS] = ST_ABORTED
        out[xids == 0] = ST_INVALID
        out[(xids == 1) | (xids == 2)] = ST_FROZEN
        return out


def xmin_states(infomask: np.ndarray, xmin: np.ndarray, clog: ClogArray) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) per tuple: hint bits first (HeapTupleHeaderXminCommitted/Invalid/Frozen), then pg_xact."""
    hints = infomask & HEAP_XMIN_FROZEN
    state = np.full(len(xmin), ST_UNKNOWN, dtype=np.int8)
    state[hints == HEAP_XMIN_FROZEN] = ST_FROZEN
    state[hints == HEAP_XMIN_COMMITTED] = ST_COMMITTED
    state[hints == HEAP_XMIN_INVALID] = ST_ABORTED
    unhinted = hints == 0
    if unhinted.any():
        state[unhinted] = clog.states(xmin[unhinted])
    return state, ~unhinted


def xmax_is_locked_only(infomask: np.ndarray) -> np.ndarray:
    return ((infomask & HEAP_XMAX_LOCK_ONLY) != 0) | (
        (infomask & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK)) == HEAP_XMAX_EXCL_LOCK)


def xmax_states(infomask: np.ndarray, xmax: np.ndarray, clog: ClogArray,
                multi_update_xid=None) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) of the deleter: INVALID, LOCK_ONLY, COMMITTED, ABORTED, IN_PROGRESS or UNKNOWN.

    ``multi_update_xid(multis) -> xids`` resolves an updating multixact to its update xid
    (0 when it has none); without it such a multixact is UNKNOWN unless hinted.
    """
    state = np.full(len(xmax), ST_UNKNOWN, dtype=np.int8)
    invalid = ((infomask & HEAP_XMAX_INVALID) != 0) | (xmax == 0)
    lock_only = ~invalid & xmax_is_locked_only(infomask)
    hinted_commit = ~invalid & ~lock_only & ((infomask & HEAP_XMAX_COMMITTED) != 0)
    state[invalid] = ST_INVALID
    state[lock_only] = ST_LOCK_ONLY
    state[hinted_commit] = ST_COMMITTED
    todo = ~invalid & ~lock_only & ~hinted_commit
    multi = todo & ((infomask & HEAP_XMAX_IS_MULTI) != 0)
    plain = todo & ~multi
    if plain.any():
        state[plain] = clog.states(xmax[plain])
    if multi.any() and multi_update_xid is not None:
        xids = multi_update_xid(xmax[multi])  # -1 where the members cannot be read
        st = clog.states(xids)
        st[xids == 0] = ST_LOCK_ONLY  # no updater among the members: only locks
        st[xids < 0] = ST_UNKNOWN
        state[multi] = st
    hinted = ((infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_COMMITTED)) != 0) | lock_only
    return state, hinted


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


def page_heap_free_space(chunk: HeapChunk, exact: bool = False) -> np.ndarray:
    """PageGetHeapFreeSpace for each page of the chunk (0 for new pages); with ``exact``,
    PageGetExactFreeSpace (pd_upper - pd_lower)."""
    h = chunk.headers
    space = h.upper.astype(np.int64) - h.lower.astype(np.int64)
    if exact:
        space = np.maximum(space, 0)
        space[h.is_new] = 0
        return space
    space = np.where(space < SIZE_OF_ITEM_ID, 0, space - SIZE_OF_ITEM_ID)
    full = (h.nlp >= max_heap_tuples_per_page(chunk.block_size)) & (space > 0)
    if full.any():
        # a page at MaxHeapTuplesPerPage can take a tuple only into an unused line pointer
        unused_pages = np.zeros(chunk.npages, dtype=bool)
        unused_pages[chunk.items.page[chunk.items.flags == LP_UNUSED]] = True
        has_free_lines = (h.flags & PD_HAS_FREE_LINES) != 0
        space = np.where(full & ~(has_free_lines & unused_pages), 0, space)
    space[h.is_new] = 0
    return space


def chunk_stats(chunk: HeapChunk, clog: ClogArray, multi_update_xid=None,
                exact_free_space: bool = False) -> tuple[HeapStats, dict]:
    """Counters for one chunk, plus per-tuple arrays the caller may want (dead, states).

    ``exact_free_space``: count free space as pgstattuple of 18+ does (see versions.py)."""
    s = HeapStats(block_size=chunk.block_size)
    h, items, tup = chunk.headers, chunk.items, chunk.tuples
    s.pages = chunk.npages
    s.new_pages = int(h.is_new.sum())
    s.all_visible_pages = int(((h.flags & PD_ALL_VISIBLE) != 0).sum())
    s.free_space = int(page_heap_free_space(chunk, exact_free_space).sum())
    counts = np.bincount(items.flags, minlength=4)
    s.lp_unused, s.lp_normal, s.lp_redirect, s.lp_dead = (int(c) for c in counts[:4])
    flags_of_tuple = items.flags[tup.item]
    normal = flags_of_tuple == LP_NORMAL
    s.lp_dead_len = int(items.len[tup.item][flags_of_tuple == LP_DEAD].sum())
    im = tup.t_infomask[normal]
    im2 = tup.t_infomask2[normal]
    length = items.len[tup.item][normal]
    xmin_st, xmin_hinted = xmin_states(im, tup.t_xmin[normal], clog)
    xmax_st, xmax_hinted = xmax_states(im, tup.t_xmax[normal], clog, multi_update_xid)
    dead = (xmin_st == ST_ABORTED) | (xmax_st == ST_COMMITTED)
    undecided = ~dead & ((xmin_st == ST_UNKNOWN) | (xmax_st == ST_UNKNOWN))
    s.tuple_count = int((~dead).sum())
    s.tuple_len = int(length[~dead].sum())
    s.dead_tuple_count = int(dead.sum())
    s.dead_tuple_len = int(length[dead].sum())
    s.undecided_count = int(undecided.sum())
    s.undecided_len = int(length[undecided].sum())
    s.in_progress_count = int(((xmin_st == ST_IN_PROGRESS) | (xmax_st == ST_IN_PROGRESS)).sum())
    s.hot_updated = int(((im2 & HEAP_HOT_UPDATED) != 0).sum())
    s.heap_only = int(((im2 & HEAP_ONLY_TUPLE) != 0).sum())
    hints = im & HEAP_XMIN_FROZEN
    s.xmin_frozen = int((hints == HEAP_XMIN_FROZEN).sum())
    s.xmin_committed_hint = int((hints == HEAP_XMIN_COMMITTED).sum())
    s.xmin_invalid_hint = int((hints == HEAP_XMIN_INVALID).sum())
    s.xmin_unhinted = int((hints == 0).sum())
    s.xmax_committed_hint = int(((im & HEAP_XMAX_COMMITTED) != 0).sum())
    s.xmax_invalid_hint = int(((im & HEAP_XMAX_INVALID) != 0).sum())
    s.xmax_unhinted = int((~xmax_hinted).sum())
    # the next read sets a hint wherever the status is settled but not yet hinted (SetHintBits)
    # (HeapTupleSatisfiesMVCC: it looks at xmax only when xmin is committed, and never hints a lock-only xmax)
    settled_xmin = np.isin(xmin_st, (ST_COMMITTED, ST_ABORTED))
    settled_xmax = (np.isin(xmax_st, (ST_COMMITTED, ST_ABORTED)) & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN))
                    & ((im & HEAP_XMAX_IS_MULTI) == 0))
    wants_hint = (~xmin_hinted & settled_xmin) | (~xmax_hinted & settled_xmax)
    # ... except on all-visible pages: a scan trusts PD_ALL_VISIBLE and checks (so hints) no tuple there
    pages_of_tuple = items.page[tup.item][normal]
    all_visible_page = (h.flags & PD_ALL_VISIBLE) != 0
    wants_hint &= ~all_visible_page[pages_of_tuple]
    dirtied = np.zeros(chunk.npages, dtype=bool)
    dirtied[pages_of_tuple[wants_hint]] = True
    s.pages_needing_hints = int(dirtied.sum())
    return s, {"dead": dead, "xmin_state": xmin_st, "xmax_state": xmax_st, "wants_hint": wants_hint,
               "dirtied_pages": dirtied}
