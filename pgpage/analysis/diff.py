"""What a workload did to a heap's pages, from two page images of each block. Pure: no I/O.

A changed page is classified by what differs once the parts that "only hints" may touch are
masked out: pd_lsn and pd_checksum (with checksums or wal_log_hints on, the first hint after a
checkpoint writes a full-page image, moving the LSN), PD_ALL_VISIBLE, and each tuple's four
xmin/xmax hint bits. If the masked images are equal, the page changed only in hint bits,
visibility, or freezing (HEAP_XMIN_FROZEN is both xmin hint bits); otherwise its line pointers
and tuple headers say what happened: pruning, new tuples, deletions and updates.

Tuple events are read from the AFTER image against BEFORE's next xid: an xmin at or past it
was written by the workload (an insert, or a new row version when HEAP_UPDATED is set); an
xmax at or past it deleted, updated (HOT when HEAP_HOT_UPDATED) or locked the row.

Versions the workload wrote and pruning has removed since leave their line pointer: pruning
turns an indexed tuple (a chain's root) into LP_DEAD or LP_REDIRECT and a heap-only tuple into
LP_UNUSED (heap_prune_chain). So a slot that is LP_DEAD or LP_REDIRECT in AFTER where BEFORE
held no root (no line pointer, LP_UNUSED or a heap-only tuple) held a root the workload wrote,
and a slot that is LP_UNUSED in AFTER where BEFORE had no line pointer held a heap-only version
it wrote. A slot pruned and reused twice between the snapshots counts once: these are lower
bounds, exact when no slot was reused (no VACUUM between the snapshots for the roots).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pgpage.decode.flags import (HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_UPDATED, HEAP_XMAX_COMMITTED,
                                 HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK,
                                 HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID, LP_DEAD,
                                 LP_NORMAL, LP_REDIRECT, LP_UNUSED, PD_ALL_VISIBLE)
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import HeapChunk

HINT_BITS = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID | HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID
INFOMASK_OFFSET = LAYOUTS["heap_tuple"]["fields"]["t_infomask"][0]            # within HeapTupleHeaderData
PD_FLAGS_OFFSET = LAYOUTS["pg_page::page_header"]["fields"]["pd_flags"][0]
MASKED_HEADER_BYTES = PD_FLAGS_OFFSET   # pd_lsn and pd_checksum, the bytes before pd_flags
FIRST_NORMAL_XID = 3


@dataclass
class PageClasses:
    """Pages of a relation by what changed on them (a page may be in several)."""

    changed: int = 0
    hint_bits_only: int = 0        # nothing but hint bits (and the LSN/checksum that follow)
    all_visible_only: int = 0      # nothing but PD_ALL_VISIBLE
    hint_bits_and_all_visible: int = 0
    freezing: int = 0              # tuples newly frozen (HEAP_XMIN_FROZEN)
    pruned: int = 0                # tuples turned into redirects, dead or unused line pointers
    new_tuples: int = 0
    deletions: int = 0             # xmax newly set (deletes, updates, locks)
    other: int = 0                 # a change none of the above explains
    lsn_advanced: int = 0
    # each change counted as itself, whatever else happened to the page
    hint_bits: int = 0             # hint bits newly set on tuples that were not frozen
    all_visible_set: int = 0
    all_visible_cleared: int = 0

    def merge(self, other: "PageClasses") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class TupleEvents:
    inserted: int = 0
    new_versions: int = 0          # row versions written by UPDATEs (HEAP_UPDATED)
    hot_updated: int = 0           # old versions whose update was HOT
    non_hot_updated: int = 0
    deleted: int = 0
    locked: int = 0
    pruned: int = 0                # tuples BEFORE had that AFTER no longer holds
    redirects_created: int = 0
    frozen: int = 0
    heap_only_versions: int = 0    # new versions on disk that are heap-only tuples (HOT updates)
    pruned_roots_written: int = 0  # indexed versions the workload wrote, pruned since (LP_DEAD/LP_REDIRECT)
    pruned_heap_only_written: int = 0  # heap-only versions it wrote, pruned since (LP_UNUSED)

    def merge(self, other: "TupleEvents") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class HintPrediction:
    """BEFORE's prediction of the pages a read would dirty for hint bits, against what happened. The prediction
    is judged on the pages nothing but hints, PD_ALL_VISIBLE or freezing changed (pruning or a new tuple rewrites
    a page whatever its hints): ``predicted`` and the three counts after ``hinted_judged`` are of those pages."""

    predicted: int = 0
    hinted: int = 0                # pages AFTER shows with new hint bits, whatever else changed (PageClasses.hint_bits)
    hinted_judged: int = 0         # those of them nothing else but hints, PD_ALL_VISIBLE or freezing changed
    predicted_and_hinted: int = 0
    predicted_not_hinted: int = 0
    hinted_not_predicted: int = 0

    def merge(self, other: "HintPrediction") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


def xid_at_or_after(xids: np.ndarray, boundary: int) -> np.ndarray:
    """Normal xids that are not older than ``boundary`` (modulo-2^32 comparison, as TransactionIdFollowsOrEquals)."""
    x = xids.astype(np.int64)
    return (x >= FIRST_NORMAL_XID) & (((x - boundary) & 0xFFFFFFFF) < 2 ** 31)


def _item_table(chunk: HeapChunk, npages: int, max_lp: int):
    """Dense (page, lp) tables of line pointer flags and tuple fields; -1 where there is none."""
    shape = (npages, max_lp + 1)
    flags = np.full(shape, -1, dtype=np.int64)
    infomask = np.full(shape, -1, dtype=np.int64)
    infomask2 = np.zeros(shape, dtype=np.int64)
    xmin = np.full(shape, -1, dtype=np.int64)
    xmax = np.full(shape, -1, dtype=np.int64)
    self_ctid = np.zeros(shape, dtype=bool)
    items, tup = chunk.items, chunk.tuples
    keep = items.page < npages
    flags[items.page[keep], items.lp[keep]] = items.flags[keep]
    t_page, t_lp = items.page[tup.item], items.lp[tup.item]
    normal = (items.flags[tup.item] == LP_NORMAL) & (t_page < npages)
    p, lp = t_page[normal], t_lp[normal]
    infomask[p, lp] = tup.t_infomask[normal]
    infomask2[p, lp] = tup.t_infomask2[normal]
    xmin[p, lp] = tup.t_xmin[normal]
    xmax[p, lp] = tup.t_xmax[normal]
    blk = chunk.first_blkno + p
    self_ctid[p, lp] = (tup.ctid_block[normal] == blk) & (tup.ctid_offset[normal] == lp)
    return flags, infomask, infomask2, xmin, xmax, self_ctid


def masked_images(raw: np.ndarray, chunk: HeapChunk, pages: np.ndarray) -> np.ndarray:
    """Copies of the chosen pages with the LSN, checksum, PD_ALL_VISIBLE and tuple hint bits cleared."""
    out = raw[pages].copy()
    out[:, :MASKED_HEADER_BYTES] = 0
    out[:, PD_FLAGS_OFFSET] &= np.uint8(~PD_ALL_VISIBLE & 0xFF)
    row_of = np.full(chunk.npages, -1, dtype=np.int64)
    row_of[pages] = np.arange(len(pages))
    items, tup = chunk.items, chunk.tuples
    rows = row_of[items.page[tup.item]]
    sel = rows >= 0
    hi_byte = items.off[tup.item][sel] + INFOMASK_OFFSET + 1  # the high byte of t_infomask holds the hint bits
    out[rows[sel], hi_byte] &= np.uint8(~(HINT_BITS >> 8) & 0xFF)
    return out


def diff_heap_chunk(before_raw: np.ndarray, after_raw: np.ndarray, before: HeapChunk, after: HeapChunk,
                    before_next_xid: int | None, predicted_pages: np.ndarray | None = None,
                    page_classes: np.ndarray | None = None) -> tuple[PageClasses, TupleEvents, HintPrediction]:
    """Compare the blocks two chunks share (same first block, the shorter's length).

    ``predicted_pages``: per page of BEFORE, whether its hint-bit prediction said a read would
    dirty it. ``page_classes``, if given, is filled with a bit set per page (see CLASS_BITS).
    """
    n = min(before.npages, after.npages)
    pc, ev, hp = PageClasses(), TupleEvents(), HintPrediction()
    if n == 0:
        return pc, ev, hp
    b_raw, a_raw = before_raw[:n], after_raw[:n]
    changed = (b_raw != a_raw).any(axis=1)
    pc.changed = int(changed.sum())
    pc.lsn_advanced = int((after.headers.lsn[:n] > before.headers.lsn[:n]).sum())
    max_lp = int(max(before.headers.nlp[:n].max(initial=0), after.headers.nlp[:n].max(initial=0)))
    bf, bim, bim2, bxmin, bxmax, _ = _item_table(before, n, max_lp)
    af, aim, aim2, axmin, axmax, aself = _item_table(after, n, max_lp)

    both = (bim >= 0) & (aim >= 0) & (bxmin == axmin)  # the same tuple on both sides
    newly_frozen = both & ((aim & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN) & ((bim & HEAP_XMIN_FROZEN) != HEAP_XMIN_FROZEN)
    # HEAP_XMIN_FROZEN is both xmin hint bits: a tuple newly frozen counts as frozen, not as hinted
    hint_changed = (both & (((bim ^ aim) & HINT_BITS) != 0) & ~newly_frozen).any(axis=1)
    frozen_page = newly_frozen.any(axis=1)
    flag_changed = ((before.headers.flags[:n] ^ after.headers.flags[:n]) & PD_ALL_VISIBLE) != 0
    pc.hint_bits = int((changed & hint_changed).sum())
    pc.all_visible_set = int((flag_changed & ((after.headers.flags[:n] & PD_ALL_VISIBLE) != 0)).sum())
    pc.all_visible_cleared = int((flag_changed & ((after.headers.flags[:n] & PD_ALL_VISIBLE) == 0)).sum())
    idx = np.flatnonzero(changed)
    masked_equal = np.zeros(n, dtype=bool)
    if len(idx):
        masked_equal[idx] = (masked_images(b_raw, before, idx) == masked_images(a_raw, after, idx)).all(axis=1)
    soft = changed & masked_equal
    pc.hint_bits_only = int((soft & hint_changed & ~flag_changed & ~frozen_page).sum())
    pc.all_visible_only = int((soft & flag_changed & ~hint_changed & ~frozen_page).sum())
    pc.hint_bits_and_all_visible = int((soft & flag_changed & hint_changed & ~frozen_page).sum())
    pc.freezing = int((changed & frozen_page).sum())

    # structural changes
    was_tuple = bf == LP_NORMAL
    gone = was_tuple & (af != LP_NORMAL) | (was_tuple & (aim >= 0) & (bxmin != axmin))
    pruned_page = (gone & (af != LP_NORMAL)).any(axis=1)
    new_xmin = (aim >= 0) & (~both | (bim < 0))
    new_tuple_page = new_xmin.any(axis=1)
    xmax_set = both & (axmax != bxmax) & (axmax > 0)
    deletion_page = xmax_set.any(axis=1)
    hard = changed & ~masked_equal
    pc.pruned = int((hard & pruned_page).sum())
    pc.new_tuples = int((hard & new_tuple_page).sum())
    pc.deletions = int((hard & deletion_page).sum())
    pc.other = int((hard & ~pruned_page & ~new_tuple_page & ~deletion_page & ~frozen_page).sum())

    ev.pruned = int((gone & (af != LP_NORMAL)).sum())
    ev.redirects_created = int(((af == LP_REDIRECT) & (bf != LP_REDIRECT)).sum())
    ev.frozen = int(newly_frozen.sum())
    no_root_before = (bf == -1) | (bf == LP_UNUSED) | ((bf == LP_NORMAL) & ((bim2 & HEAP_ONLY_TUPLE) != 0))
    ev.pruned_roots_written = int((((af == LP_DEAD) | (af == LP_REDIRECT)) & no_root_before).sum())
    ev.pruned_heap_only_written = int(((af == LP_UNUSED) & (bf == -1)).sum())
    if page_classes is not None:
        page_classes[:n] = (changed * 1 | soft * 2 | (hint_changed & changed) * 4 | (flag_changed & changed) * 8
                            | frozen_page * 16 | (hard & pruned_page) * 32 | (hard & new_tuple_page) * 64
                            | (hard & deletion_page) * 128)
    hp.hinted = pc.hint_bits
    if predicted_pages is not None:  # judged on pages nothing else happened to (pruning rewrites a page anyway)
        predicted = predicted_pages[:n] & ~hard
        hinted = soft & hint_changed
        hp.predicted = int(predicted.sum())
        hp.hinted_judged = int(hinted.sum())
        hp.predicted_and_hinted = int((predicted & hinted).sum())
        hp.predicted_not_hinted = int((predicted & ~hinted).sum())
        hp.hinted_not_predicted = int((hinted & ~predicted).sum())
    return pc, ev, hp


def pruned_on_new_pages(after: HeapChunk, first_page: int) -> TupleEvents:
    """Line pointers of pages BEFORE did not have (from ``first_page`` of the chunk on) that are no
    longer tuples: every one held a version the workload wrote (see the module's docstring)."""
    ev = TupleEvents()
    items = after.items
    new = items.page >= first_page
    ev.pruned_roots_written = int((new & ((items.flags == LP_DEAD) | (items.flags == LP_REDIRECT))).sum())
    ev.pruned_heap_only_written = int((new & (items.flags == LP_UNUSED)).sum())
    ev.redirects_created = int((new & (items.flags == LP_REDIRECT)).sum())
    return ev


def tuple_events(after: HeapChunk, before_next_xid: int, first_new_page: int = 0) -> TupleEvents:
    """Inserts, new versions, updates (HOT or not), deletes and locks the workload left in AFTER."""
    ev = TupleEvents()
    items, tup = after.items, after.tuples
    normal = items.flags[tup.item] == LP_NORMAL
    im = tup.t_infomask[normal].astype(np.int64)
    im2 = tup.t_infomask2[normal].astype(np.int64)
    new_min = xid_at_or_after(tup.t_xmin[normal], before_next_xid)
    xmax_new = xid_at_or_after(tup.t_xmax[normal], before_next_xid) | (
        ((im & HEAP_XMAX_IS_MULTI) != 0) & (tup.t_xmax[normal] > 0) & new_min)
    updated_version = (im & HEAP_UPDATED) != 0
    ev.inserted = int((new_min & ~updated_version).sum())
    ev.new_versions = int((new_min & updated_version).sum())
    ev.heap_only_versions = int((new_min & ((im2 & HEAP_ONLY_TUPLE) != 0)).sum())
    lock_only = ((im & HEAP_XMAX_LOCK_ONLY) != 0) | (
        (im & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK)) == HEAP_XMAX_EXCL_LOCK)
    blk = after.first_blkno + items.page[tup.item][normal]
    self_ref = (tup.ctid_block[normal] == blk) & (tup.ctid_offset[normal] == items.lp[tup.item][normal])
    # a lock counts as a lock; a delete or update only if it was not rolled back (HEAP_XMAX_INVALID)
    touched = xmax_new & (lock_only | ((im & HEAP_XMAX_INVALID) == 0))
    ev.locked = int((touched & lock_only).sum())
    deleter = touched & ~lock_only
    ev.hot_updated = int((deleter & ((im2 & HEAP_HOT_UPDATED) != 0)).sum())
    ev.non_hot_updated = int((deleter & ((im2 & HEAP_HOT_UPDATED) == 0) & ~self_ref).sum())
    ev.deleted = int((deleter & self_ref).sum())
    return ev


CLASS_BITS = {"changed": 1, "soft": 2, "hint_bits": 4, "all_visible": 8, "freezing": 16, "pruned": 32,
              "new_tuples": 64, "deletions": 128}


def class_names(bits: int) -> list[str]:
    """The names of a page's ``CLASS_BITS``, in that order."""
    return [name for name, bit in CLASS_BITS.items() if bits & bit]
