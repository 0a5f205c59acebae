"""`pgpage heap`'s pass: one heap read chunk by chunk, each chunk handed to ``analysis.heap.HeapAnalysis``
with the VM bits and FSM categories of its blocks (and checked against its page checksums when asked).

With ``--jobs`` the main fork is cut into ranges of blocks (``passes.parallel.block_ranges``), each
analysed by a worker process, and the partial analyses merged in block order (``HeapAnalysis.merge``):
the report is the one a single pass gives. ``pgpage scan`` runs the same ``fork_pass`` over every
relation (``passes.scan``). Returns plain dicts; never prints.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.checksum import chunk_checksum_failures
from pgpage.findings import INFO, WARNING, ExitCode, Finding, PgpageError, a_or_an
from pgpage.storage.datadir import DataDirectory
from pgpage.storage.relfile import RelationFork


class HeapPass:
    """`pgpage heap` on one heap: a segment file, or a table of a data directory named with --db/--rel.
    ``blocks`` is what ``document`` reads (for a progress bar)."""

    def __init__(self, target: str, db: str | None, rel: str | None, resolved=None):
        from pgpage.storage.target import resolve
        t = resolved or resolve(target, db, rel, "main", what="table")
        if not t.fork.exists:
            raise PgpageError(f"{t.label}: the main fork has no file", ExitCode.UNREADABLE)
        if t.relation is not None and t.relation.kind not in "rtm":
            raise PgpageError(f"{t.label} is {a_or_an(t.relation.kind_name)}, not a heap (use `pgpage index` for an index)",
                              ExitCode.USAGE)
        self.target = t
        self.fillfactor = t.relation.fillfactor if t.relation is not None else 100
        self.blocks = t.fork.nblocks

    def document(self, jobs: int = 1, on_chunk=None) -> dict:
        """The `pgpage heap` document (schema pgpage.heap/1); ``jobs`` 0: one worker per core."""
        from pgpage.passes.parallel import default_jobs
        t = self.target
        report = heap_report(t.cluster, t.fork, t.sibling("vm"), t.sibling("fsm"), t.label, self.fillfactor,
                             on_chunk=on_chunk, jobs=jobs or default_jobs())
        doc = {"schema": "pgpage.heap/1", "relation": t.label, "blocks": t.fork.nblocks,
               "block_size": t.fork.block_size, "major": t.context.major, "fillfactor": self.fillfactor,
               **report, **statistics_keys(t.cluster, t.relation, report["hot"])}
        if doc["statistics"] is not None:  # a stale or unreadable file says why
            from pgpage.passes.stats import statistics_warnings
            doc["findings"] += [f.to_json() for f in statistics_warnings(t.cluster)]
        doc["why_not_hot"] = self.why_not_hot(doc)
        return doc

    def why_not_hot(self, report: dict) -> dict | None:
        """The causes of the non-HOT updates on disk (``passes.hotcause``); None for a file read without its
        catalogs (no columns, no indexes to name), or when its columns cannot be read (then a finding)."""
        t = self.target
        if t.cluster is None or t.relation is None:
            return None
        from pgpage.passes.hotcause import why_not_hot
        try:
            return why_not_hot(t.cluster, t.relation, read=report["hot"]["non_hot_updated_tuples"] > 0)
        except PgpageError as e:     # the rest of the report stands without it
            report["findings"].append(Finding("heap.why_not_hot.unavailable", f"why updates were not HOT: {e}",
                                              severity=WARNING, relation=t.label).to_json())
            return None


def statistics_keys(cluster, relation, hot: dict) -> dict:
    """``statistics`` (the pg_stat file's columns for this table, or why there are none) and ``hot_ratio``:
    exact from a current statistics file, else from the versions on disk (a lower bound)."""
    from pgpage.passes.stats import hot_ratio, index_statistics, relation_statistics
    stats = relation_statistics(cluster, relation)
    if stats is not None and "n_tup_upd" in stats:
        stats["indexes"] = index_statistics(cluster, relation)  # pg_stat_user_indexes' row of each index
    updated = hot["hot_updated_tuples"] + hot["non_hot_updated_tuples"]
    return {"statistics": stats, "hot_ratio": hot_ratio(stats, hot["hot_updated_tuples"], updated)}


SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")


class DatabaseHeaps:
    """`pgpage heap` of a whole database: every table and materialized view outside the system schemas whose main
    fork has a file, in name order, each as `heap --rel` reports it (no page map). ``blocks``: what ``document``
    reads."""

    def __init__(self, target: str, db: str | None):
        from pgpage.storage.target import cluster_target, relation_target
        t = cluster_target(target, db, command="heap without --rel")
        database = t.database or t.cluster.database(db)
        rels = sorted((r for r in database.relations() if r.kind in "rm" and r.namespace not in SYSTEM_SCHEMAS
                       and r.forks.get("main") is not None and r.forks["main"].exists),
                      key=lambda r: r.qualified_name)
        self.name = database.name
        self.heaps = [HeapPass(target, None, None, relation_target(t.cluster, r)) for r in rels]
        self.blocks = sum(h.blocks for h in self.heaps)

    def document(self, jobs: int = 1, on_chunk=None) -> dict:
        """The pgpage.heap.database/1 document; a table whose file cannot be read is a storage.unreadable finding
        and the other tables are still reported."""
        from pgpage.storage.relfile import Unreadable
        tables, unreadable = [], []
        for h in self.heaps:
            try:
                d = h.document(jobs, on_chunk=on_chunk)
            except Unreadable as e:
                unreadable.append(e.finding(h.target.label, "main").to_json())
                continue
            d.pop("map")
            tables.append(d)
        return {"schema": "pgpage.heap.database/1", "database": self.name, "tables": tables, "findings": unreadable}


def new_heap_analysis(cluster: DataDirectory | None, main: RelationFork, relation: str | None,
                      map_cells: int = 800):
    """A ``HeapAnalysis`` set up with what the cluster knows: pg_xact, pg_multixact, the next and oldest
    xids, the free-space rule of its major (a bare file gets hint bits only)."""
    from pgpage.analysis.heap import HeapAnalysis
    from pgpage.decode.versions import PGSTATTUPLE_EXACT_FREE_SPACE_SINCE
    from pgpage.decode.xact import ClogArray
    cp = ((cluster.control or {}).get("checkPointCopy", {}) if cluster else {})
    if cluster is not None:
        clog, multi = cluster.clog, cluster.multi_update_xid
        exact = (cluster.major or 0) >= PGSTATTUPLE_EXACT_FREE_SPACE_SINCE
    else:
        clog, multi, exact = ClogArray({}), None, False
    return HeapAnalysis(main.block_size, main.nblocks, clog, multi, cp.get("nextXid"), cp.get("oldestXid"),
                        exact, map_cells, relation)


def fork_pass(fork: RelationFork, start: int, stop: int, checksums: bool, analysis=None,
              vm: RelationFork | None = None, fsm: RelationFork | None = None, on_chunk=None,
              observe=None) -> list[int]:
    """One read of blocks [start, stop) of a fork: the checksum failures (global block numbers), and every
    chunk handed to ``analysis`` (a HeapAnalysis) with the VM bits and FSM categories of its blocks.
    ``observe(first, chunk, failures, page_figures, vm_visible, vm_frozen)`` sees each chunk with what this read
    made of it (the chunk's checksum failures; the analysis's per-page figures and the VM bits, or None):
    `pgpage export` writes its pages and tuples from there."""
    bad: list[int] = []
    vm_pages, fsm_pages = ForkPages(vm), ForkPages(fsm)
    for first, chunk in fork.iter_chunks(start, stop):
        n = chunk.shape[0]
        failures = chunk_checksum_failures(chunk, first) if checksums else []
        bad.extend(failures)
        figures = visible = frozen = None
        if analysis is not None:
            visible, frozen = vm_for_blocks(vm_pages, first, n, fork.block_size)
            figures = analysis.add_chunk(chunk, first, visible, frozen,
                                         fsm_for_blocks(fsm_pages, first, n, fork.block_size))
        if observe:
            observe(first, chunk, failures, figures, visible, frozen)
        if on_chunk:
            on_chunk(n)
    return bad


def scan_fork(cluster: DataDirectory, fork: RelationFork, checksums: bool, heap: bool, on_chunk=None):
    """One pass over a fork: (checksum failures, HeapStats or None). Each chunk is read once and
    handed to every analysis that wants it."""
    analysis = new_heap_analysis(cluster, fork, None, map_cells=1) if heap else None
    bad = fork_pass(fork, fork.first_block, fork.end_block, checksums, analysis, on_chunk=on_chunk)
    return bad, (analysis.stats if heap else None)


class ForkPages:
    """Reads the VM or FSM page covering a heap block, keeping the last one (chunks are in order)."""

    def __init__(self, fork: RelationFork | None):
        self.fork = fork
        self._blkno = None
        self._page = None
        self._decoded = None

    def page(self, blkno: int) -> bytes | None:
        if self.fork is None or not (self.fork.first_block <= blkno < self.fork.end_block):
            return None
        if blkno != self._blkno:
            self._blkno, self._page, self._decoded = blkno, self.fork.read_block(blkno), None
        return self._page

    def vm_bits(self, blkno: int):
        """(all_visible, all_frozen) of the heap blocks VM page ``blkno`` covers, decoded once per page."""
        from pgpage.decode.vmfsm import vm_bits
        page = self.page(blkno)
        if page is None:
            return None
        if self._decoded is None:
            self._decoded = vm_bits(page[24:])
        return self._decoded


def vm_for_blocks(vm: ForkPages, first: int, n: int, block_size: int):
    """(all_visible, all_frozen) boolean arrays for heap blocks first..first+n-1; None without a VM.
    Blocks past the VM's end read as (false, false), as PostgreSQL treats them."""
    if vm.fork is None:
        return None, None
    per_page = (block_size - 24) * 4
    visible = np.zeros(n, dtype=bool)
    frozen = np.zeros(n, dtype=bool)
    blk = first
    while blk < first + n:
        vmblk, offset = divmod(blk, per_page)
        take = min(per_page - offset, first + n - blk)
        bits = vm.vm_bits(vmblk)
        if bits is not None:
            v, f = bits
            visible[blk - first:blk - first + take] = v[offset:offset + take]
            frozen[blk - first:blk - first + take] = f[offset:offset + take]
        blk += take
    return visible, frozen


def fsm_for_blocks(fsm: ForkPages, first: int, n: int, block_size: int):
    """FSM leaf category per heap block first..first+n-1 (0 where the FSM has no page); None without an FSM."""
    if fsm.fork is None:
        return None
    from pgpage.decode.vmfsm import fsm_logical_to_physical, fsm_slots_per_page
    slots = fsm_slots_per_page(block_size)
    leaf_start = 28 + (block_size // 2 - 1)
    out = np.zeros(n, dtype=np.uint8)
    blk = first
    while blk < first + n:
        logical, slot = divmod(blk, slots)
        take = min(slots - slot, first + n - blk)
        page = fsm.page(fsm_logical_to_physical(0, logical, block_size))
        if page is not None:
            out[blk - first:blk - first + take] = np.frombuffer(page, dtype=np.uint8)[
                leaf_start + slot:leaf_start + slot + take]
        blk += take
    return out


def heap_report(cluster: DataDirectory | None, main: RelationFork, vm: RelationFork | None,
                fsm: RelationFork | None, relation: str, fillfactor: int = 100, map_cells: int = 800,
                on_chunk=None, jobs: int = 1) -> dict:
    """Everything `pgpage heap` reports on one heap, from one pass over its main fork (with ``jobs`` > 1,
    ranges of its blocks read by that many worker processes and merged in block order)."""
    from pgpage.passes.parallel import block_ranges, run_tasks
    if cluster is not None:
        cluster.clog  # read once, before any worker is forked
    ranges = block_ranges(main, jobs)

    def work(r):
        analysis = new_heap_analysis(cluster, main, relation, map_cells)
        fork_pass(main, r[0], r[1], False, analysis, vm, fsm, on_chunk if jobs <= 1 else None)
        return analysis

    analysis = new_heap_analysis(cluster, main, relation, map_cells)
    for (start, stop), part in zip(ranges, run_tasks(work, ranges, jobs)):
        analysis.merge(part, stop - start)
        if on_chunk and jobs > 1:
            on_chunk(stop - start)
    return heap_result(analysis, main, vm, fsm, relation, fillfactor, cluster)


def heap_result(analysis, main: RelationFork, vm: RelationFork | None, fsm: RelationFork | None, relation: str,
                 fillfactor: int, cluster: DataDirectory | None) -> dict:
    findings: list[Finding] = [*main.findings, *(f for fork in (main, vm, fsm) if fork is not None
                                                 for f in fork.size_changes())]
    if cluster is None:
        findings.append(Finding("heap.xact.unavailable", "no data directory around this file, so no pg_xact:"
                                " commit status comes from hint bits alone; unhinted tuples are counted live"
                                " and marked undecided", severity=WARNING, relation=relation))
    result = analysis.result(fillfactor)
    # (a table without pages: no page for either map to describe, nothing unknown)
    if vm is None and main.nblocks:
        findings.append(Finding("heap.vm.missing", "no visibility map fork: VM figures are unknown",
                                severity=INFO, relation=relation))
    if fsm is None and main.nblocks:
        findings.append(Finding("heap.fsm.missing", "no free space map fork: FSM figures are unknown",
                                severity=INFO, relation=relation))
    if result["undecided_tuples"]:
        findings.append(Finding("heap.visibility.undecided", f"{result['undecided_tuples']} tuples counted live"
                                " without knowing whether their transaction committed (pg_xact or pg_multixact"
                                " does not cover them): tuple and dead counts rest on incomplete information",
                                severity=WARNING, relation=relation))
    result["findings"] = [f.to_json() for f in findings + analysis.findings]
    return result
