"""Heap forensics over vectorised chunks: HOT chains, hint bits, visibility, freezing, bloat.

``HeapAnalysis`` is fed one chunk of pages at a time (with the VM bits and FSM categories of
the same heap blocks) and keeps only counters, bounded lists and a fixed number of map bins,
so memory stays flat however large the relation. Pure: no I/O, no printing.

HOT chains live within one page (README.HOT): a root is a redirect line pointer or a tuple
that is not HEAP_ONLY_TUPLE; a link goes from a redirect to its target, or from a
HEAP_HOT_UPDATED tuple to the item its t_ctid names on the same page, whose xmin must equal
the predecessor's xmax. Chains are followed for at most MaxHeapTuplesPerPage steps, so a
cycle in damaged pages ends the walk instead of looping.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pgpage.analysis.heapstats import (HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_XMIN_FROZEN, LP_DEAD, LP_NORMAL,
                                       LP_REDIRECT, LP_UNUSED, PD_ALL_VISIBLE, ST_ABORTED, ST_COMMITTED, ST_FROZEN,
                                       ST_IN_PROGRESS, ST_INVALID, ST_LOCK_ONLY, ST_UNKNOWN, ClogArray, HeapStats,
                                       chunk_stats, max_heap_tuples_per_page, page_heap_free_space)
from pgpage.decode.vector import HeapChunk
from pgpage.findings import ERROR, INFO, WARNING, Finding

HEAP_XMAX_IS_MULTI = 0x1000
HEAP_MOVED = 0xC000
FIRST_NORMAL_XID = 3
MAX_LISTED = 50          # findings of one code kept in full; the rest are only counted
CHAIN_HISTOGRAM = 16     # chain lengths 1..15, and 16+ together


@dataclass
class Bins:
    """Per-page metrics folded into at most ``n`` bins (one map cell each)."""

    nblocks: int
    n: int
    pages: np.ndarray = field(init=False)
    used: np.ndarray = field(init=False)        # bytes of tuples (live + dead)
    dead: np.ndarray = field(init=False)        # bytes of dead tuples
    free: np.ndarray = field(init=False)
    hint_pages: np.ndarray = field(init=False)  # pages the next read would dirty for hint bits
    all_visible: np.ndarray = field(init=False)
    all_frozen: np.ndarray = field(init=False)
    new: np.ndarray = field(init=False)

    def __post_init__(self):
        self.n = max(1, min(self.n, self.nblocks))
        for name in ("pages", "used", "dead", "free", "hint_pages", "all_visible", "all_frozen", "new"):
            setattr(self, name, np.zeros(self.n, dtype=np.int64))

    def bin_of(self, blknos: np.ndarray) -> np.ndarray:
        return np.minimum(blknos * self.n // max(self.nblocks, 1), self.n - 1)

    def add(self, name: str, blknos: np.ndarray, values) -> None:
        np.add.at(getattr(self, name), self.bin_of(blknos), values)

    def to_json(self) -> dict:
        return {"blocks_per_bin": self.nblocks / self.n,
                **{k: getattr(self, k).tolist() for k in
                   ("pages", "used", "dead", "free", "hint_pages", "all_visible", "all_frozen", "new")}}


class HeapAnalysis:
    def __init__(self, block_size: int, nblocks: int, clog: ClogArray, multi_update_xid=None,
                 next_xid: int | None = None, oldest_xid: int | None = None, exact_free_space: bool = False,
                 map_cells: int = 800, relation: str | None = None):
        self.block_size = block_size
        self.nblocks = nblocks
        self.clog = clog
        self.multi_update_xid = multi_update_xid
        self.next_xid = next_xid
        self.oldest_xid = oldest_xid
        self.exact_free_space = exact_free_space
        self.relation = relation
        self.stats = HeapStats(block_size=block_size)
        self.bins = Bins(nblocks, map_cells)
        self.findings: list[Finding] = []
        self.finding_counts: dict[str, int] = {}
        # HOT
        self.chain_lengths = np.zeros(CHAIN_HISTOGRAM + 1, dtype=np.int64)
        self.longest_chain = (0, None, None)  # (length, block, root item)
        self.hot_roots = 0
        self.redirects = 0
        self.unreachable_heap_only = 0
        self.non_hot_updates = 0
        self.deletes = 0
        self.pages_with_hot = 0
        # hint bits
        self.hint_tuples = 0
        # visibility and freezing
        self.vm_pages = {"all_visible": 0, "all_frozen": 0}
        self.vm_present = False
        self.not_all_visible_tuples = 0   # pg_check_visible
        self.not_frozen_tuples = 0        # pg_check_frozen
        self.could_be_all_visible = 0     # pages whose tuples are all visible to everyone but VM says no
        self.could_be_all_frozen = 0
        self.unfrozen_tuples = 0
        self.oldest_unfrozen_age = None   # (age, xid, block, item)
        self.future_xids = 0
        self.too_old_xids = 0
        self.unknown_xids = 0
        # bloat
        self.fsm_present = False
        self.fsm_understated = 0          # pages with more free space than the FSM records
        self.fsm_overstated = 0
        self.trailing_reclaimable = 0     # pages at the end VACUUM could truncate
        self._trailing_run = 0
        self.tuple_bytes_aligned = 0      # live tuples as they would be packed again (MAXALIGNed)
        self.live_tuples_for_rewrite = 0

    # ------------------------------------------------------------------ findings
    def find(self, code: str, message: str, severity: str = ERROR, **kw) -> None:
        n = self.finding_counts.get(code, 0) + 1
        self.finding_counts[code] = n
        if n <= MAX_LISTED:
            self.findings.append(Finding(code, message, severity, relation=self.relation, fork="main", **kw))

    # ------------------------------------------------------------------ feeding
    def add_chunk(self, chunk: HeapChunk, vm_visible: np.ndarray | None = None, vm_frozen: np.ndarray | None = None,
                  fsm_category: np.ndarray | None = None) -> None:
        """One chunk of pages; the VM/FSM arrays hold one entry per page of the chunk (None: no fork)."""
        stats, per_tuple = chunk_stats(chunk, self.clog, self.multi_update_xid, self.exact_free_space)
        self.stats.merge(stats)
        blknos = chunk.first_blkno + np.arange(chunk.npages)
        tup, items, h = chunk.tuples, chunk.items, chunk.headers
        normal = items.flags[tup.item] == LP_NORMAL
        t_items = tup.item[normal]
        t_page = items.page[t_items]
        length = items.len[t_items]
        dead = per_tuple["dead"]
        xmin_st, xmax_st = per_tuple["xmin_state"], per_tuple["xmax_state"]
        im = tup.t_infomask[normal]
        xmin = tup.t_xmin[normal].astype(np.int64)
        xmax = tup.t_xmax[normal].astype(np.int64)

        free = page_heap_free_space(chunk, self.exact_free_space)
        self.bins.add("pages", blknos, 1)
        self.bins.add("new", blknos, h.is_new.astype(np.int64))
        self.bins.add("free", blknos, free)
        self.bins.add("used", blknos[t_page], length)
        self.bins.add("dead", blknos[t_page[dead]], length[dead])

        self.hint_tuples += int(per_tuple["wants_hint"].sum())
        self.bins.add("hint_pages", blknos, per_tuple["dirtied_pages"].astype(np.int64))

        self._hot(chunk, normal, blknos)
        self._xid_ranges(xmin, xmax, im, xmin_st, xmax_st, blknos[t_page], items.lp[t_items])
        self._visibility(chunk, blknos, t_page, dead, xmin_st, xmax_st, im, xmin, xmax, vm_visible, vm_frozen,
                         items.lp[t_items])
        self._bloat(chunk, blknos, free, t_page, dead, length, fsm_category)

    def _hot(self, chunk: HeapChunk, normal_mask: np.ndarray, blknos: np.ndarray) -> None:
        items, tup = chunk.items, chunk.tuples
        n_items = len(items.lp)
        if n_items == 0:
            return
        # item index of (page, lp) pairs: items are page-major and numbered 1..nlp on each page
        first_item_of_page = np.zeros(chunk.npages + 1, dtype=np.int64)
        np.cumsum(chunk.headers.nlp, out=first_item_of_page[1:])
        flags = items.flags
        infomask2 = np.zeros(n_items, dtype=np.int64)
        infomask = np.zeros(n_items, dtype=np.int64)
        xmin = np.full(n_items, -1, dtype=np.int64)
        xmax = np.full(n_items, -1, dtype=np.int64)
        ctid_blk = np.full(n_items, -1, dtype=np.int64)
        ctid_off = np.zeros(n_items, dtype=np.int64)
        has_tuple = np.zeros(n_items, dtype=bool)
        sel = tup.item[normal_mask]
        has_tuple[sel] = True
        infomask2[sel] = tup.t_infomask2[normal_mask]
        infomask[sel] = tup.t_infomask[normal_mask]
        xmin[sel] = tup.t_xmin[normal_mask]
        xmax[sel] = tup.t_xmax[normal_mask]
        ctid_blk[sel] = tup.ctid_block[normal_mask]
        ctid_off[sel] = tup.ctid_offset[normal_mask]
        nlp_of_item = chunk.headers.nlp[items.page]
        block_of_item = blknos[items.page]

        # successor of each item: a redirect's target, or a HOT-updated tuple's t_ctid on this page
        target_off = np.where(flags == LP_REDIRECT, items.off, 0)
        hot_updated = has_tuple & ((infomask2 & HEAP_HOT_UPDATED) != 0)
        same_page = ctid_blk == block_of_item
        target_off = np.where(hot_updated & same_page, ctid_off, target_off)
        links = (flags == LP_REDIRECT) | hot_updated
        valid_off = (target_off >= 1) & (target_off <= nlp_of_item)
        succ = np.where(links & valid_off, first_item_of_page[items.page] + target_off - 1, -1)

        # broken links
        bad_off = links & ~valid_off
        for i in np.flatnonzero(bad_off)[:MAX_LISTED]:
            self.find("heap.hot.bad_link", f"{'redirect' if flags[i] == LP_REDIRECT else 'HOT update'} points at"
                      f" item {target_off[i]}, the page has {nlp_of_item[i]}", block=int(block_of_item[i]),
                      item=int(items.lp[i]))
        self.finding_counts["heap.hot.bad_link"] = self.finding_counts.get("heap.hot.bad_link", 0) + max(
            0, int(bad_off.sum()) - MAX_LISTED)
        linked = succ >= 0
        tgt = np.where(linked, succ, 0)
        tgt_flags = flags[tgt]
        tgt_heap_only = has_tuple[tgt] & ((infomask2[tgt] & HEAP_ONLY_TUPLE) != 0)
        to_unused = linked & (tgt_flags == LP_UNUSED)
        redirect_to_non_heap_only = linked & (flags == LP_REDIRECT) & (tgt_flags == LP_NORMAL) & ~tgt_heap_only
        redirect_to_redirect = linked & (flags == LP_REDIRECT) & (tgt_flags == LP_REDIRECT)
        # a multixact xmax names its updater among its members: compare with that xid
        update_xid = xmax.copy()
        multi = has_tuple & ((infomask & HEAP_XMAX_IS_MULTI) != 0) & linked
        if multi.any():
            update_xid[multi] = self.multi_update_xid(xmax[multi]) if self.multi_update_xid else -1
        xmin_mismatch = linked & (flags == LP_NORMAL) & has_tuple[tgt] & (xmin[tgt] != update_xid) & (update_xid >= 0)
        # a dead item as successor is normal: pruning leaves LP_DEAD stubs
        for mask, code, what in (
                (to_unused, "heap.hot.link_to_unused", "points at an unused line pointer"),
                (redirect_to_non_heap_only, "heap.hot.redirect_not_heap_only",
                 "redirect target is not a heap-only tuple"),
                (redirect_to_redirect, "heap.hot.redirect_to_redirect", "redirect points at another redirect"),
                (xmin_mismatch, "heap.hot.xmin_mismatch", "successor's xmin is not this tuple's xmax")):
            for i in np.flatnonzero(mask)[:MAX_LISTED]:
                self.find(code, f"item {items.lp[i]} {what} (item {items.lp[tgt[i]]})",
                          block=int(block_of_item[i]), item=int(items.lp[i]),
                          expected=int(update_xid[i]) if code == "heap.hot.xmin_mismatch" else None,
                          actual=int(xmin[tgt[i]]) if code == "heap.hot.xmin_mismatch" else None)
            extra = int(mask.sum()) - MAX_LISTED
            if extra > 0:
                self.finding_counts[code] = self.finding_counts.get(code, 0) + extra
        broken = to_unused | redirect_to_non_heap_only | redirect_to_redirect | xmin_mismatch
        succ = np.where(broken, -1, succ)

        # walk all chains at once from their roots; bounded, so a cycle cannot loop forever
        heap_only = has_tuple & ((infomask2 & HEAP_ONLY_TUPLE) != 0)
        roots = np.flatnonzero((flags == LP_REDIRECT) | (has_tuple & ~heap_only & hot_updated))
        self.redirects += int((flags == LP_REDIRECT).sum())
        reached = np.zeros(n_items, dtype=bool)
        cur = roots.copy()
        length = np.where(flags[roots] == LP_REDIRECT, 0, 1)  # tuples in the chain (a redirect holds none)
        alive = np.ones(len(roots), dtype=bool)
        for _ in range(max_heap_tuples_per_page(self.block_size) + 1):
            nxt = np.where(alive, succ[cur], -1)
            alive = nxt >= 0
            if not alive.any():
                break
            step = np.where(alive, nxt, 0)
            fresh = alive & ~reached[step]  # stop at a member already reached (a cycle)
            reached[step[fresh]] = True
            length = length + (fresh & has_tuple[step])
            alive = fresh
            cur = step
        self.hot_roots += len(roots)
        if len(roots):
            hist = np.bincount(np.minimum(length, CHAIN_HISTOGRAM), minlength=CHAIN_HISTOGRAM + 1)
            self.chain_lengths += hist[:CHAIN_HISTOGRAM + 1]
            k = int(np.argmax(length))
            if length[k] > self.longest_chain[0]:
                self.longest_chain = (int(length[k]), int(block_of_item[roots[k]]), int(items.lp[roots[k]]))
            self.pages_with_hot += len(np.unique(items.page[roots]))
        self.unreachable_heap_only += int((heap_only & ~reached).sum())
        # non-HOT updates: updated (t_ctid elsewhere) but not HOT-updated; deletes: t_ctid points at itself
        updated_elsewhere = has_tuple & ~hot_updated & (
            (ctid_blk != block_of_item) | (ctid_off != items.lp))
        self.non_hot_updates += int(updated_elsewhere.sum())

    def _xid_ranges(self, xmin, xmax, im, xmin_st, xmax_st, blk, lp) -> None:
        """Xids newer than pg_control's next xid, or older than the oldest xid, are corruption."""
        if self.next_xid is not None:
            nxt = self.next_xid
            frozen_xmin = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN
            checks = [("t_xmin", xmin, (xmin >= FIRST_NORMAL_XID) & ~frozen_xmin),
                      ("t_xmax", xmax, (xmax >= FIRST_NORMAL_XID) & ((im & HEAP_XMAX_IS_MULTI) == 0))]
            for name, xid, normal in checks:
                future = normal & (((xid - nxt) & 0xFFFFFFFF) < 2 ** 31)  # xid >= next xid, modulo 2^32
                self.future_xids += int(future.sum())
                for i in np.flatnonzero(future)[:MAX_LISTED]:
                    self.find("heap.xid.in_future", f"{name} {xid[i]} is not older than next xid {nxt}",
                              block=int(blk[i]), item=int(lp[i]), expected=f"< {nxt}", actual=int(xid[i]))
                if self.oldest_xid is not None:
                    old = normal & ~future & (((self.oldest_xid - xid) & 0xFFFFFFFF) < 2 ** 31) & (
                        xid != self.oldest_xid)
                    if name == "t_xmax":
                        old &= ~np.isin(xmax_st, (ST_INVALID, ST_LOCK_ONLY))
                    self.too_old_xids += int(old.sum())
                    for i in np.flatnonzero(old)[:MAX_LISTED]:
                        self.find("heap.xid.before_oldest", f"{name} {xid[i]} precedes the cluster's oldest xid"
                                  f" {self.oldest_xid} and is not frozen", block=int(blk[i]), item=int(lp[i]),
                                  actual=int(xid[i]))
        unknown = (xmin_st == ST_UNKNOWN) | (xmax_st == ST_UNKNOWN)
        self.unknown_xids += int(unknown.sum())

    def _visibility(self, chunk, blknos, t_page, dead, xmin_st, xmax_st, im, xmin, xmax, vm_visible, vm_frozen,
                    t_lp) -> None:
        h = chunk.headers
        npages = chunk.npages
        # visible to everyone: inserter committed (or frozen), no live deleter; after a clean shutdown
        # every committed transaction is older than any snapshot could be
        visible_all = np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN)) & np.isin(xmax_st, (ST_INVALID, ST_LOCK_ONLY,
                                                                                       ST_ABORTED))
        frozen = ((im & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN) | (xmin < FIRST_NORMAL_XID)
        needs_freeze = ~frozen | (xmax >= FIRST_NORMAL_XID) | ((im & HEAP_MOVED) != 0)
        page_not_all_visible = np.zeros(npages, dtype=bool)
        page_not_all_visible[t_page[~visible_all]] = True
        page_not_all_frozen = np.zeros(npages, dtype=bool)
        page_not_all_frozen[t_page[needs_freeze]] = True
        # dead items (LP_DEAD) also make a page not all-visible
        items = chunk.items
        page_not_all_visible[items.page[items.flags == LP_DEAD]] = True
        page_not_all_frozen |= page_not_all_visible
        pd_all_visible = (h.flags & PD_ALL_VISIBLE) != 0
        live_page = ~h.is_new
        self.unfrozen_tuples += int((needs_freeze & ~dead).sum())
        unfrozen_xmin = ~frozen & ~dead & (xmin >= FIRST_NORMAL_XID)
        if self.next_xid is not None and unfrozen_xmin.any():
            ages = (self.next_xid - xmin[unfrozen_xmin]) & 0xFFFFFFFF
            k = int(np.argmax(ages))
            idx = np.flatnonzero(unfrozen_xmin)[k]
            if self.oldest_unfrozen_age is None or ages[k] > self.oldest_unfrozen_age[0]:
                self.oldest_unfrozen_age = (int(ages[k]), int(xmin[idx]), int(blknos[t_page[idx]]), int(t_lp[idx]))
        if vm_visible is None:
            pages_claimed_visible = pd_all_visible
        else:
            self.vm_present = True
            self.vm_pages["all_visible"] += int(vm_visible.sum())
            self.vm_pages["all_frozen"] += int(vm_frozen.sum())
            pages_claimed_visible = vm_visible
            for i in np.flatnonzero(vm_frozen & ~vm_visible)[:MAX_LISTED]:
                self.find("vm.frozen_not_visible", "VM says all-frozen but not all-visible", block=int(blknos[i]))
            for i in np.flatnonzero(vm_visible & ~pd_all_visible & live_page)[:MAX_LISTED]:
                self.find("vm.bit_without_pd_all_visible", "VM says all-visible, the page header lacks PD_ALL_VISIBLE",
                          block=int(blknos[i]), severity=WARNING)
            for i in np.flatnonzero(vm_frozen & page_not_all_frozen)[:MAX_LISTED]:
                self.find("vm.all_frozen_wrong", "VM says all-frozen but the page holds tuples that are not frozen",
                          block=int(blknos[i]))
            bad_frozen_tuples = vm_frozen[t_page] & needs_freeze
            self.not_frozen_tuples += int(bad_frozen_tuples.sum())
            self.could_be_all_visible += int((~vm_visible & ~page_not_all_visible & live_page).sum())
            self.could_be_all_frozen += int((~vm_frozen & ~page_not_all_frozen & live_page).sum())
        for i in np.flatnonzero(pages_claimed_visible & page_not_all_visible & live_page)[:MAX_LISTED]:
            self.find("vm.all_visible_wrong", "marked all-visible but holds tuples not visible to everyone"
                      " (dead, or inserted/deleted by a transaction not yet settled)", block=int(blknos[i]))
        bad_visible_tuples = pages_claimed_visible[t_page] & ~visible_all
        self.not_all_visible_tuples += int(bad_visible_tuples.sum())
        for i in np.flatnonzero(pd_all_visible & page_not_all_visible & live_page)[:MAX_LISTED]:
            if vm_visible is not None and vm_visible[i]:
                continue  # already reported against the VM
            self.find("page.all_visible_wrong", "PD_ALL_VISIBLE is set but the page holds tuples not visible to"
                      " everyone", block=int(blknos[i]))
        if vm_visible is not None:
            self.bins.add("all_visible", blknos, vm_visible.astype(np.int64))
            self.bins.add("all_frozen", blknos, vm_frozen.astype(np.int64))

    def _bloat(self, chunk, blknos, free, t_page, dead, length, fsm_category) -> None:
        npages = chunk.npages
        h = chunk.headers
        live_bytes = np.zeros(npages, dtype=np.int64)
        np.add.at(live_bytes, t_page[~dead], length[~dead])
        # trailing pages VACUUM can truncate: no live tuple (it removes dead ones and their LP_DEAD stubs)
        empty_after_vacuum = live_bytes == 0
        for e in empty_after_vacuum:
            self._trailing_run = self._trailing_run + 1 if e else 0
        self.trailing_reclaimable = self._trailing_run
        self.tuple_bytes_aligned += int(((length[~dead] + 7) // 8 * 8).sum())
        self.live_tuples_for_rewrite += int((~dead).sum())
        if fsm_category is not None:
            self.fsm_present = True
            step = self.block_size // 256
            actual = np.minimum(free // step, 255)
            recorded = fsm_category.astype(np.int64)
            # the FSM is a hint updated lazily; only differences of more than one category matter
            self.fsm_understated += int(((actual - recorded) > 1).sum())
            self.fsm_overstated += int(((recorded - actual) > 1).sum())

    # ------------------------------------------------------------------ results
    def result(self, fillfactor: int = 100) -> dict:
        s = self.stats
        table_len = s.table_len
        usable = self.block_size - 24
        lp_bloat_bytes = (s.lp_unused + s.lp_dead) * 4
        rewrite_pages = 0
        if self.live_tuples_for_rewrite:
            per_page = usable * fillfactor // 100
            rewrite_pages = -(-(self.tuple_bytes_aligned + 4 * self.live_tuples_for_rewrite) // per_page)
        hot_updates = s.hot_updated
        updates_seen = hot_updates + self.non_hot_updates
        chain_hist = {str(i) if i < CHAIN_HISTOGRAM else f"{CHAIN_HISTOGRAM}+": int(n)
                      for i, n in enumerate(self.chain_lengths) if n}
        longest = self.longest_chain
        return {
            "pgstattuple": s.pgstattuple(),
            "line_pointers": {"lp_unused": s.lp_unused, "lp_normal": s.lp_normal, "lp_redirect": s.lp_redirect,
                              "lp_dead": s.lp_dead, "lp_dead_with_storage_bytes": s.lp_dead_len},
            "hot": {
                "chains": self.hot_roots, "redirects": self.redirects, "hot_updated_tuples": hot_updates,
                "heap_only_tuples": s.heap_only, "non_hot_updated_tuples": self.non_hot_updates,
                "hot_update_percent": round(100.0 * hot_updates / updates_seen, 1) if updates_seen else None,
                "chain_length_histogram": chain_hist,
                "longest_chain": {"length": longest[0], "block": longest[1], "root_item": longest[2]}
                if longest[1] is not None else None,
                "pages_with_chains": self.pages_with_hot, "unreachable_heap_only_tuples": self.unreachable_heap_only,
            },
            "hint_bits": {
                "xmin_committed": s.xmin_committed_hint, "xmin_invalid": s.xmin_invalid_hint,
                "xmin_frozen": s.xmin_frozen, "xmin_unhinted": s.xmin_unhinted,
                "xmax_committed": s.xmax_committed_hint, "xmax_invalid": s.xmax_invalid_hint,
                "xmax_unhinted": s.xmax_unhinted,
                "tuples_next_read_will_hint": self.hint_tuples,
                "pages_next_read_will_dirty": s.pages_needing_hints,
                "bytes_next_read_will_dirty": s.pages_needing_hints * self.block_size,
            },
            "visibility": {
                "vm_present": self.vm_present,
                "pd_all_visible_pages": s.all_visible_pages,
                "vm_all_visible_pages": self.vm_pages["all_visible"] if self.vm_present else None,
                "vm_all_frozen_pages": self.vm_pages["all_frozen"] if self.vm_present else None,
                "pages_that_could_be_all_visible": self.could_be_all_visible if self.vm_present else None,
                "pages_that_could_be_all_frozen": self.could_be_all_frozen if self.vm_present else None,
                "check_visible_tuples": self.not_all_visible_tuples,
                "check_frozen_tuples": self.not_frozen_tuples if self.vm_present else None,
            },
            "freezing": {
                "unfrozen_tuples": self.unfrozen_tuples,
                "oldest_unfrozen_xid": self.oldest_unfrozen_age[1] if self.oldest_unfrozen_age else None,
                "oldest_unfrozen_age": self.oldest_unfrozen_age[0] if self.oldest_unfrozen_age else None,
                "oldest_unfrozen_at": {"block": self.oldest_unfrozen_age[2], "item": self.oldest_unfrozen_age[3]}
                if self.oldest_unfrozen_age else None,
                "xids_to_wraparound": (2 ** 31 - self.oldest_unfrozen_age[0]) if self.oldest_unfrozen_age else None,
                "xids_in_future": self.future_xids, "xids_before_oldest": self.too_old_xids,
            },
            "bloat": {
                "table_len": table_len, "live_bytes": s.tuple_len, "dead_bytes": s.dead_tuple_len,
                "free_bytes": s.free_space, "line_pointer_bloat_bytes": lp_bloat_bytes,
                "live_percent": round(100.0 * s.tuple_len / table_len, 2) if table_len else None,
                "vacuum_reclaims_bytes": s.dead_tuple_len + s.lp_dead_len,
                "vacuum_truncates_pages": self.trailing_reclaimable,
                "size_after_vacuum": (self.nblocks - self.trailing_reclaimable) * self.block_size,
                "size_after_rewrite": rewrite_pages * self.block_size,
                "rewrite_only_bytes": max(0, (self.nblocks - self.trailing_reclaimable - rewrite_pages))
                * self.block_size,
                "fsm_present": self.fsm_present,
                "fsm_understated_pages": self.fsm_understated if self.fsm_present else None,
                "fsm_overstated_pages": self.fsm_overstated if self.fsm_present else None,
            },
            "undecided_tuples": s.undecided_count,
            "in_progress_tuples": s.in_progress_count,
            "unknown_xid_tuples": self.unknown_xids,
            "map": self.bins.to_json(),
            "finding_counts": dict(self.finding_counts),
        }
