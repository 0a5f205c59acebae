"""Heap forensics, chunk by chunk: HOT chains, hint bits, visibility, freezing, bloat.

``HeapAnalysis`` is fed one chunk of pages at a time (with the VM bits and FSM categories of
the same heap blocks) and keeps only counters, bounded lists and a fixed number of map bins,
so memory stays flat however large the relation. Pure: no I/O, no printing.

The per-page and per-tuple work is one compiled pass (``kernels.heap_chunk``); this class turns
what it returns into findings, map bins and the report, and merges partial analyses (``merge``:
``--jobs`` hands block ranges to worker processes and adds their results up in block order).

HOT chains live within one page (README.HOT): a root is a redirect line pointer or a tuple
that is not HEAP_ONLY_TUPLE; a link goes from a redirect to its target, or from a
HEAP_HOT_UPDATED tuple to the item its t_ctid names on the same page, whose xmin must equal
the predecessor's xmax. Chains are followed for at most MaxHeapTuplesPerPage steps, so a
cycle in damaged pages ends the walk instead of looping.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from pgpage.analysis.heapstats import HeapStats
from pgpage.analysis.share import share
from pgpage.decode.xact import ClogArray
from pgpage.findings import ERROR, WARNING, Finding
from pgpage.decode.vector import new_not_zeroed, sorted_unique

MAX_LISTED = 50          # findings of one code kept in full; the rest are only counted
CHAIN_HISTOGRAM = 16     # chain lengths 1..15, and 16+ together
BIN_ROWS = ("pages", "used", "dead", "free", "hint_pages", "all_visible", "all_frozen", "new")


@dataclass
class Bins:
    """Per-page metrics folded into at most ``n`` bins (one map cell each)."""

    nblocks: int
    n: int
    table: np.ndarray = field(init=False)  # one row per metric of BIN_ROWS

    def __post_init__(self):
        self.n = max(1, min(self.n, self.nblocks))
        self.table = np.zeros((len(BIN_ROWS), self.n), dtype=np.int64)

    def to_json(self) -> dict:
        return {"blocks_per_bin": self.nblocks / self.n,
                **{k: self.table[i].tolist() for i, k in enumerate(BIN_ROWS)}}


def _kernels():
    from pgpage.decode import kernels
    return kernels


@lru_cache(maxsize=None)
def _counter_index() -> dict[str, int]:
    """Counter name -> its place in the scanner's counters (every report reads dozens of them)."""
    return {name: i for i, name in enumerate(_kernels().TABLES.COUNTERS)}


class HeapAnalysis:
    def __init__(self, block_size: int, nblocks: int, clog: ClogArray, multi_update_xid=None,
                 next_xid: int | None = None, oldest_xid: int | None = None, exact_free_space: bool = False,
                 map_cells: int = 800, relation: str | None = None):
        t = _kernels().TABLES
        self.block_size = block_size
        self.nblocks = nblocks
        self.clog = clog
        self.multi_update_xid = multi_update_xid
        self.next_xid = next_xid
        self.oldest_xid = oldest_xid
        self.exact_free_space = exact_free_space
        self.relation = relation
        self.bins = Bins(nblocks, map_cells)
        self.findings: list[Finding] = []
        self.finding_counts: dict[str, int] = {}
        self.counters = np.zeros(len(t.COUNTERS), dtype=np.int64)
        self.chain_lengths = np.zeros(CHAIN_HISTOGRAM + 1, dtype=np.int64)
        self.longest_chain = (0, None, None)  # (length, block, root item)
        self.oldest_unfrozen_age = None       # (age, xid, block, item)
        self.vm_present = False
        self.fsm_present = False
        self._trailing_run = 0                # empty pages at the end so far: VACUUM could truncate them
        # multixacts resolved so far (sorted), for the scanner
        self._multi = {}
        self._multi_keys = np.zeros(0, dtype=np.int64)
        self._multi_values = np.zeros(0, dtype=np.int64)
        params = {"has_resolver": multi_update_xid is not None, "next_xid": -1 if next_xid is None else next_xid,
                  "oldest_xid": -1 if oldest_xid is None else oldest_xid, "exact_free": exact_free_space,
                  "in_progress_is_aborted": clog.in_progress_is_aborted,
                  "xacts_per_segment": clog.xacts_per_segment, "has_vm": 0, "has_fsm": 0}
        self._params = np.array([params[name] for name in t.PARAMS], dtype=np.int64)
        self._empty = np.zeros(0, dtype=np.uint8)

    def __getstate__(self) -> dict:
        """What a worker sends back: the results, not pg_xact or the cluster's multixact lookup."""
        state = self.__dict__.copy()
        for name in ("clog", "multi_update_xid", "_multi", "_multi_keys", "_multi_values"):
            state[name] = None
        return state

    @property
    def stats(self) -> HeapStats:
        """pgstattuple's figures and the counters behind them, so far."""
        return HeapStats(block_size=self.block_size, **{name: self._count(name) for name in HeapStats.counter_names()})

    def _count(self, name: str) -> int:
        return int(self.counters[_counter_index()[name]])

    # ------------------------------------------------------------------ findings
    def find(self, code: str, message: str, severity: str = ERROR, **kw) -> None:
        n = self.finding_counts.get(code, 0) + 1
        self.finding_counts[code] = n
        if n <= MAX_LISTED:
            self.findings.append(Finding(code, message, severity, relation=self.relation, fork="main", **kw))

    def _replay(self, ev: np.ndarray, ev_count: np.ndarray) -> None:
        """A chunk's events as findings, code by code, in block and item order; beyond the events a
        chunk lists, only counted."""
        for code_id, code in enumerate(_kernels().TABLES.EVENT_CODES):
            total = int(ev_count[code_id])
            if not total:
                continue
            listed = min(total, ev.shape[1])
            for j in range(listed):
                message, severity, details = self._describe(code, ev[code_id, j].tolist())
                self.find(code.split("/")[0], message, severity, **details)
            if total > listed:
                code = code.split("/")[0]
                self.finding_counts[code] = self.finding_counts.get(code, 0) + total - listed

    PAGE_EVENTS = {
        "vm.frozen_not_visible": ("VM says all-frozen but not all-visible", ERROR),
        "vm.bit_without_pd_all_visible": ("VM says all-visible, the page header lacks PD_ALL_VISIBLE", WARNING),
        "vm.all_frozen_wrong": ("VM says all-frozen but the page holds tuples that are not frozen", ERROR),
        "vm.all_visible_wrong": ("marked all-visible but holds tuples not visible to everyone (dead, or"
                                 " inserted/deleted by a transaction not yet settled)", ERROR),
        "page.all_visible_wrong": ("PD_ALL_VISIBLE is set but the page holds tuples not visible to everyone",
                                   ERROR),
    }
    HOT_EVENTS = {
        "heap.hot.link_to_unused": "points at an unused line pointer",
        "heap.hot.redirect_not_heap_only": "redirect target is not a heap-only tuple",
        "heap.hot.redirect_to_redirect": "redirect points at another redirect",
        "heap.hot.xmin_mismatch": "successor's xmin is not this tuple's xmax",
    }

    def _describe(self, code: str, e: list[int]) -> tuple:
        """(message, severity, details) of one event (see EVENT_CODES in _kernel.h for its values)."""
        blk, item = e[0], e[1]
        if code == "heap.hot.bad_link":
            what = "redirect" if e[4] else "HOT update"
            return (f"{what} points at item {e[2]}, the page has {e[3]}", ERROR, {"block": blk, "item": item})
        if code in self.HOT_EVENTS:
            kw = {"block": blk, "item": item}
            if code == "heap.hot.xmin_mismatch":
                kw.update(expected=e[3], actual=e[4])
            return (f"item {item} {self.HOT_EVENTS[code]} (item {e[2]})", ERROR, kw)
        if code.startswith("heap.xid.in_future/"):
            name = code.split("/")[1]
            return (f"{name} {e[2]} is not older than next xid {self.next_xid}", ERROR,
                    {"block": blk, "item": item, "expected": f"< {self.next_xid}", "actual": e[2]})
        if code.startswith("heap.xid.before_oldest/"):
            name = code.split("/")[1]
            return (f"{name} {e[2]} precedes the cluster's oldest xid {self.oldest_xid} and is not frozen", ERROR,
                    {"block": blk, "item": item, "actual": e[2]})
        message, severity = self.PAGE_EVENTS[code]
        return (message, severity, {"block": blk})

    # ------------------------------------------------------------------ feeding
    def add_chunk(self, pages: np.ndarray, first_blkno: int, vm_visible: np.ndarray | None = None,
                  vm_frozen: np.ndarray | None = None, fsm_category: np.ndarray | None = None) -> np.ndarray:
        """One chunk of pages (uint8, shape (n, BLCKSZ), global block numbers from ``first_blkno``); the
        VM/FSM arrays hold one entry per page of the chunk (None: no such fork). Returns the chunk's
        per-page figures (columns ``kernels.TABLES.PAGE_COLUMNS``)."""
        k = _kernels()
        t = k.TABLES
        n = pages.shape[0]
        params = self._params
        has_vm = vm_visible is not None
        params[t.PARAMS.index("has_vm")] = has_vm
        params[t.PARAMS.index("has_fsm")] = fsm_category is not None
        vis = np.ascontiguousarray(vm_visible, dtype=np.uint8) if has_vm else self._empty
        frz = np.ascontiguousarray(vm_frozen, dtype=np.uint8) if has_vm else self._empty
        fsm = np.ascontiguousarray(fsm_category, dtype=np.uint8) if fsm_category is not None else self._empty
        pages = np.ascontiguousarray(pages, dtype=np.uint8)
        for page, nonzero in new_not_zeroed(pages):   # counted as a new page: its tuples are not read
            self.find("page.new_not_zeroed", "pd_upper is 0 (a new page) but the page is not all zeros: its tuples"
                      " are not counted", block=first_blkno + page, actual=nonzero)
        missing_at = _counter_index()["missing_multis"]
        while True:
            out = k.HeapChunkOutputs(n)
            k.heap_chunk(pages, first_blkno, self.clog, self._multi_keys, self._multi_values, vis, frz, fsm, params,
                         out)
            n_missing = int(out.counters[missing_at])
            if not n_missing:
                break
            self._resolve_multis(out.missing[:min(n_missing, len(out.missing))])  # then the chunk again
        self._take(out, has_vm, fsm_category is not None, n)
        k.fold_bins(self.bins.table, self.nblocks, first_blkno, out.page_out, vis, frz, has_vm)
        return out.page_out

    def _resolve_multis(self, multis: np.ndarray) -> None:
        multis = sorted_unique(multis)
        xids = np.asarray(self.multi_update_xid(multis.astype(np.uint32)), dtype=np.int64)
        self._multi.update(zip(multis.tolist(), xids.tolist()))
        keys = np.array(sorted(self._multi), dtype=np.int64)
        self._multi_keys = keys
        self._multi_values = np.array([self._multi[x] for x in keys.tolist()], dtype=np.int64)

    def _take(self, out, has_vm: bool, has_fsm: bool, npages: int) -> None:
        """Merge one chunk's results, which come after everything merged so far."""
        t = _kernels().TABLES
        counters, best = out.counters, dict(zip(t.BEST, out.best.tolist()))
        at = _counter_index()
        trailing = int(counters[at["trailing_empty"]])
        counters[at["trailing_empty"]] = 0
        counters[at["missing_multis"]] = 0
        self.counters += counters
        self._trailing_run = self._trailing_run + trailing if trailing == npages else trailing
        self.chain_lengths += out.chain_hist
        if best["chain_len"] > self.longest_chain[0]:
            self.longest_chain = (best["chain_len"], best["chain_block"], best["chain_item"])
        if best["age"] >= 0 and (self.oldest_unfrozen_age is None or best["age"] > self.oldest_unfrozen_age[0]):
            self.oldest_unfrozen_age = (best["age"], best["age_xid"], best["age_block"], best["age_item"])
        self.vm_present |= bool(has_vm)
        self.fsm_present |= bool(has_fsm)
        if sum(self._count_in(counters, f"lp_{f}") for f in ("unused", "normal", "redirect", "dead")):
            # the report has always listed this code, with 0, once any line pointer was seen: kept as it was
            self.finding_counts.setdefault("heap.hot.bad_link", 0)
        self._replay(out.ev, out.ev_count)

    @staticmethod
    def _count_in(counters: np.ndarray, name: str) -> int:
        return int(counters[_counter_index()[name]])

    def merge(self, other: "HeapAnalysis", npages: int) -> None:
        """Add the analysis of the ``npages`` blocks that follow everything merged so far (a worker's)."""
        self.counters += other.counters
        self._trailing_run = (self._trailing_run + npages if other._trailing_run == npages
                              else other._trailing_run)
        self.chain_lengths += other.chain_lengths
        if other.longest_chain[0] > self.longest_chain[0]:
            self.longest_chain = other.longest_chain
        if other.oldest_unfrozen_age is not None and (
                self.oldest_unfrozen_age is None or other.oldest_unfrozen_age[0] > self.oldest_unfrozen_age[0]):
            self.oldest_unfrozen_age = other.oldest_unfrozen_age
        self.vm_present |= other.vm_present
        self.fsm_present |= other.fsm_present
        self.bins.table += other.bins.table
        listed: dict[str, int] = {}
        for f in self.findings:
            listed[f.code] = listed.get(f.code, 0) + 1
        for f in other.findings:  # the first MAX_LISTED of each code in block order, as one pass lists them
            if listed.get(f.code, 0) < MAX_LISTED:
                listed[f.code] = listed.get(f.code, 0) + 1
                self.findings.append(f)
        for code, n in other.finding_counts.items():
            self.finding_counts[code] = self.finding_counts.get(code, 0) + n

    # ------------------------------------------------------------------ results
    def result(self, fillfactor: int = 100) -> dict:
        s = self.stats
        c = self._count
        table_len = s.table_len
        usable = self.block_size - 24
        lp_bloat_bytes = (s.lp_unused + s.lp_dead) * 4
        rewrite_pages = 0
        if c("live_tuples_for_rewrite"):
            per_page = usable * fillfactor // 100
            rewrite_pages = -(-(c("tuple_bytes_aligned") + 4 * c("live_tuples_for_rewrite")) // per_page)
        hot_updates = s.hot_updated
        updates_seen = hot_updates + c("non_hot_updates")
        chain_hist = {str(i) if i < CHAIN_HISTOGRAM else f"{CHAIN_HISTOGRAM}+": int(n)
                      for i, n in enumerate(self.chain_lengths) if n}
        longest = self.longest_chain
        # the VM's figures: None without a VM fork (unknown offline: it may be lost), unless the table has no block
        # (nothing to be all-visible: 0, as pg_visibility_map_summary says)
        vm_known = self.vm_present or table_len == 0
        return {
            "pgstattuple": s.pgstattuple(),
            "line_pointers": {"lp_unused": s.lp_unused, "lp_normal": s.lp_normal, "lp_redirect": s.lp_redirect,
                              "lp_dead": s.lp_dead, "lp_dead_with_storage_bytes": s.lp_dead_len},
            "hot": {
                "chains": c("hot_roots"), "redirects": s.lp_redirect, "hot_updated_tuples": hot_updates,
                "heap_only_tuples": s.heap_only, "non_hot_updated_tuples": c("non_hot_updates"),
                "hot_update_percent": share(hot_updates, updates_seen, 1),
                "chain_length_histogram": chain_hist,
                "longest_chain": {"length": longest[0], "block": longest[1], "root_item": longest[2]}
                if longest[1] is not None else None,
                "pages_with_chains": c("pages_with_hot"), "unreachable_heap_only_tuples": c("unreachable_heap_only"),
            },
            "hint_bits": {
                "xmin_committed": s.xmin_committed_hint, "xmin_invalid": s.xmin_invalid_hint,
                "xmin_frozen": s.xmin_frozen, "xmin_unhinted": s.xmin_unhinted,
                "xmax_committed": s.xmax_committed_hint, "xmax_invalid": s.xmax_invalid_hint,
                "xmax_unhinted": s.xmax_unhinted,
                "tuples_next_read_will_hint": c("hint_tuples"),
                "pages_next_read_will_dirty": s.pages_needing_hints,
                "bytes_next_read_will_dirty": s.pages_needing_hints * self.block_size,
            },
            "visibility": {
                "vm_present": self.vm_present,
                "pd_all_visible_pages": s.all_visible_pages,
                "vm_all_visible_pages": c("vm_all_visible") if vm_known else None,
                "vm_all_frozen_pages": c("vm_all_frozen") if vm_known else None,
                "pages_that_could_be_all_visible": c("could_be_all_visible") if vm_known else None,
                "pages_that_could_be_all_frozen": c("could_be_all_frozen") if vm_known else None,
                "check_visible_tuples": c("not_all_visible_tuples"),
                "check_frozen_tuples": c("not_frozen_tuples") if vm_known else None,
            },
            "freezing": {
                "unfrozen_tuples": c("unfrozen_tuples"),
                "oldest_unfrozen_xid": self.oldest_unfrozen_age[1] if self.oldest_unfrozen_age else None,
                "oldest_unfrozen_age": self.oldest_unfrozen_age[0] if self.oldest_unfrozen_age else None,
                "oldest_unfrozen_at": {"block": self.oldest_unfrozen_age[2], "item": self.oldest_unfrozen_age[3]}
                if self.oldest_unfrozen_age else None,
                "xids_to_wraparound": (2 ** 31 - self.oldest_unfrozen_age[0]) if self.oldest_unfrozen_age else None,
                "xids_in_future": c("future_xids"), "xids_before_oldest": c("too_old_xids"),
            },
            "bloat": {
                "table_len": table_len, "live_bytes": s.tuple_len, "dead_bytes": s.dead_tuple_len,
                "free_bytes": s.free_space, "line_pointer_bloat_bytes": lp_bloat_bytes,
                "live_percent": share(s.tuple_len, table_len, 2),
                "vacuum_reclaims_bytes": s.dead_tuple_len + s.lp_dead_len,
                "vacuum_truncates_pages": self._trailing_run,
                "size_after_vacuum": (self.nblocks - self._trailing_run) * self.block_size,
                "size_after_rewrite": rewrite_pages * self.block_size,
                "rewrite_only_bytes": max(0, (self.nblocks - self._trailing_run - rewrite_pages))
                * self.block_size,
                "fsm_present": self.fsm_present,
                "fsm_understated_pages": c("fsm_understated") if self.fsm_present else None,
                "fsm_overstated_pages": c("fsm_overstated") if self.fsm_present else None,
            },
            "undecided_tuples": s.undecided_count,
            "in_progress_tuples": s.in_progress_count,
            "unknown_xid_tuples": c("unknown_xids"),
            "map": self.bins.to_json(),
            "finding_counts": dict(self.finding_counts),
        }


def chunk_stats(chunk, clog: ClogArray, multi_update_xid=None, exact_free_space: bool = False) -> tuple[HeapStats, dict]:
    """Counters for one chunk (a ``decode.vector.HeapChunk``), and ``{"dirtied_pages": bool per page}``:
    the pages the next read would dirty to set hint bits. The compiled whole-heap pass
    (``HeapAnalysis.add_chunk``) over the chunk's pages; ``exact_free_space``: count free space as
    pgstattuple of 18+ does (see versions.py)."""
    from pgpage.decode.kernels import TABLES
    analysis = HeapAnalysis(chunk.block_size, chunk.first_blkno + chunk.npages, clog, multi_update_xid,
                            exact_free_space=exact_free_space, map_cells=1)
    per_page = analysis.add_chunk(chunk.pages, chunk.first_blkno)
    return analysis.stats, {"dirtied_pages": per_page[:, TABLES.PAGE_COLUMNS.index("hint_page")] != 0}
