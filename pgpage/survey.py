"""Walks storage and feeds decode and analysis: what a command (or a notebook) asks for whole.

Storage hands out blocks, decode turns them into arrays, analysis counts; this module wires
them per relation and per cluster and returns plain dicts (JSON-ready). It never prints.
"""
from __future__ import annotations

import os
from typing import Iterable, Iterator

import numpy as np

from pgpage.findings import INFO, WARNING, Finding
from pgpage.storage.datadir import HEAP_KINDS, DataDirectory, Relation
from pgpage.storage.relfile import RelationFork

BATCH_BLOCKS = 4096  # blocks a --jobs worker reads per task at least (small forks are batched) ...
BATCH_TASKS = 64     # ... and at most this many forks per batch, so the catalogs' forks at the end spread out
HEAP_PASS_COST = 3  # a heap block's analysis and checksum take about 3x a checksum alone (ordering --jobs work)
XID_WRAP_LIMIT = 2 ** 31  # an xid more than 2^31 older than the next one would seem to be in the future


def cluster_summary(cluster: DataDirectory) -> dict:
    """The cluster's identity and health from pg_control, PG_VERSION and pg_database."""
    c = cluster.control
    out = {"path": str(cluster.path), "major": cluster.major, "block_size": cluster.block_size,
           "relseg_size": cluster.relseg_size, "data_checksums": cluster.checksums}
    if c is None:
        return out
    cp = c["checkPointCopy"]
    next_xid = cp["nextXid"]
    out.update({
        "state": c["state_name"], "control_crc_ok": c["crc_ok"], "system_identifier": str(c["system_identifier"]),
        "pg_control_version": c["pg_control_version"], "catalog_version_no": c["catalog_version_no"],
        "checkpoint_lsn": c["checkPoint"], "redo_lsn": cp["redo"], "checkpoint_time": cp["time_iso"],
        "timeline": cp["ThisTimeLineID"], "next_xid": next_xid, "next_xid_epoch": cp["nextXidEpoch"],
        "next_full_xid": cp["nextFullXid"], "oldest_xid": cp["oldestXid"], "oldest_xid_db": cp["oldestXidDB"],
        "next_multixact": cp["nextMulti"], "oldest_multixact": cp["oldestMulti"], "next_oid": cp["nextOid"],
        "wal_level": c["wal_level_name"],
    })
    age = xid_age(next_xid, cp["oldestXid"])
    out["oldest_xid_age"] = age
    out["xids_to_wraparound"] = XID_WRAP_LIMIT - age
    return out


def xid_age(next_xid: int, xid: int) -> int:
    """age(xid) as PostgreSQL computes it against the next xid (modulo 2^32)."""
    if xid < 3:  # frozen, bootstrap, invalid are infinitely old: age 2^31 - 1 in SQL; 0 distance here
        return 0
    return (next_xid - xid) & 0xFFFFFFFF


def database_summary(cluster: DataDirectory, db) -> dict:
    next_xid = (cluster.control or {}).get("checkPointCopy", {}).get("nextXid")
    row = db.row
    out = {"name": db.name, "oid": db.oid, "tablespace": db.tablespace, "path": str(db.path)}
    if row:
        out["datfrozenxid"] = row.get("datfrozenxid")
        out["datminmxid"] = row.get("datminmxid")
        if next_xid is not None and row.get("datfrozenxid") is not None:
            out["age_datfrozenxid"] = xid_age(next_xid, row["datfrozenxid"])
    return out


def vm_counts(vm: RelationFork | None, heap_blocks: int) -> tuple[int, int] | None:
    """(all_visible, all_frozen) heap blocks according to the visibility map fork."""
    if vm is None:
        return None
    from pgpage.decode.vector import count_set_bits
    from pgpage.decode.vmfsm import VISIBILITYMAP_ALL_FROZEN, VISIBILITYMAP_ALL_VISIBLE
    visible_bits, frozen_bits = (sum(flag << (2 * i) for i in range(4))
                                 for flag in (VISIBILITYMAP_ALL_VISIBLE, VISIBILITYMAP_ALL_FROZEN))
    visible = frozen = 0
    per_page = (vm.block_size - 24) * 4  # heap blocks per VM page, 4 per byte after the page header
    for first, chunk in vm.iter_chunks():
        start = first * per_page        # the first heap block this chunk covers
        if start >= heap_blocks:
            break
        n = min(heap_blocks - start, chunk.shape[0] * per_page)
        maps = chunk[:, 24:].reshape(-1)[:-(-n // 4)].copy()  # the bytes of heap blocks start..start+n-1
        if n % 4:
            maps[-1] &= (1 << (2 * (n % 4))) - 1               # a last byte past the heap's end
        visible += count_set_bits(maps & visible_bits)
        frozen += count_set_bits(maps & frozen_bits)
    return visible, frozen


def chunk_checksum_failures(chunk: np.ndarray, first: int) -> list[int]:
    """Global block numbers in the chunk whose stored checksum differs from pg_checksum_page
    (all-zero new pages carry none, and the computed value of an all-zero page is 0 as well)."""
    from pgpage.decode.checksum import checksum_pages
    computed = checksum_pages(chunk, first)
    stored = chunk[:, 8].astype(np.uint16) | (chunk[:, 9].astype(np.uint16) << 8)
    return [int(first + i) for i in np.flatnonzero(computed != stored)]


def new_heap_analysis(cluster: DataDirectory | None, main: RelationFork, relation: str | None,
                      map_cells: int = 800):
    """A ``HeapAnalysis`` set up with what the cluster knows: pg_xact, pg_multixact, the next and oldest
    xids, the free-space rule of its major (a bare file gets hint bits only)."""
    from pgpage.analysis.heap import HeapAnalysis
    from pgpage.decode.xact import ClogArray
    from pgpage.decode.versions import PGSTATTUPLE_EXACT_FREE_SPACE_SINCE
    cp = ((cluster.control or {}).get("checkPointCopy", {}) if cluster else {})
    if cluster is not None:
        clog, multi = cluster.clog, cluster.multi_update_xid
        exact = (cluster.major or 0) >= PGSTATTUPLE_EXACT_FREE_SPACE_SINCE
    else:
        clog, multi, exact = ClogArray({}), None, False
    return HeapAnalysis(main.block_size, main.nblocks, clog, multi, cp.get("nextXid"), cp.get("oldestXid"),
                        exact, map_cells, relation)


def fork_pass(fork: RelationFork, start: int, stop: int, checksums: bool, analysis=None,
              vm: RelationFork | None = None, fsm: RelationFork | None = None, on_chunk=None) -> list[int]:
    """One read of blocks [start, stop) of a fork: the checksum failures (global block numbers), and every
    chunk handed to ``analysis`` (a HeapAnalysis) with the VM bits and FSM categories of its blocks."""
    bad: list[int] = []
    vm_pages, fsm_pages = ForkPages(vm), ForkPages(fsm)
    for first, chunk in fork.iter_chunks(start, stop):
        n = chunk.shape[0]
        if checksums:
            bad.extend(chunk_checksum_failures(chunk, first))
        if analysis is not None:
            visible, frozen = vm_for_blocks(vm_pages, first, n, fork.block_size)
            analysis.add_chunk(chunk, first, visible, frozen, fsm_for_blocks(fsm_pages, first, n, fork.block_size))
        if on_chunk:
            on_chunk(n)
    return bad


def scan_fork(cluster: DataDirectory, fork: RelationFork, checksums: bool, heap: bool, on_chunk=None):
    """One pass over a fork: (checksum failures, HeapStats or None). Each chunk is read once and
    handed to every analysis that wants it."""
    analysis = new_heap_analysis(cluster, fork, None, map_cells=1) if heap else None
    bad = fork_pass(fork, fork.first_block, fork.end_block, checksums, analysis, on_chunk=on_chunk)
    return bad, (analysis.stats if heap else None)


def _health(cluster: DataDirectory, rel: Relation, bad_by_fork: dict[str, list[int]], analysis,
            deep: bool) -> dict:
    """A relation's entry in `pgpage scan` from its forks' checksum failures and its heap analysis."""
    forks = rel.forks
    main = forks.get("main")
    out = {
        "name": rel.qualified_name, "oid": rel.oid, "kind": rel.kind_name, "relkind": rel.kind,
        "am": rel.access_method, "persistence": rel.persistence, "relfilenode": rel.relfilenode,
        "files": [os.path.join(os.path.relpath(f.directory, cluster.path), f.segment_name(segno))
                  for f in forks.values() for segno, _ in f.sizes],
        "fork_bytes": {name: f.size_bytes for name, f in forks.items()},
        "size_bytes": rel.size_bytes, "blocks": main.nblocks if main else 0,
        "table": rel.table.qualified_name if rel.table else None,
        "toast": rel.toast.qualified_name if rel.toast else None,
        "toast_of": rel.toast_parent.qualified_name if rel.toast_parent else None,
    }
    findings: list[Finding] = [f for fork in forks.values() for f in (*fork.findings, *fork.size_changes())]
    checksums = bool(cluster.checksums)
    health: dict = {"checksum_failures": 0 if checksums else None}  # None: checksums off, nothing to compare
    for name in forks:
        bad = bad_by_fork.get(name)
        if bad:
            health["checksum_failures"] += len(bad)
            findings.append(Finding("checksum.mismatch", f"{len(bad)} {name} fork blocks fail their checksum"
                                    f" (first: {', '.join(map(str, bad[:5]))})", relation=rel.qualified_name,
                                    fork=name, block=bad[0]))
    stats = analysis.stats if analysis is not None else None
    if stats is not None:
        health.update({"live_tuples": stats.tuple_count, "dead_tuples": stats.dead_tuple_count,
                       "dead_bytes": stats.dead_tuple_len, "free_bytes": stats.free_space,
                       "free_percent": stats.pgstattuple()["free_percent"], "lp_unused": stats.lp_unused,
                       "lp_dead": stats.lp_dead, "undecided_tuples": stats.undecided_count,
                       "pages_needing_hints": stats.pages_needing_hints})
        counts = vm_counts(forks.get("vm"), main.nblocks)
        visible, frozen = counts if counts else (None, None)
        health["all_visible_pages"], health["all_frozen_pages"] = visible, frozen
        health["all_visible_percent"] = round(100.0 * visible / main.nblocks, 1) if counts and main.nblocks else None
        if stats.undecided_count:
            findings.append(Finding("heap.visibility.undecided", f"{stats.undecided_count} tuples counted live without"
                                    " knowing whether their transaction committed", severity=WARNING,
                                    relation=rel.qualified_name))
    out["health"] = health
    out["findings"] = [f.to_json() for f in findings]
    if deep and analysis is not None:
        report = _heap_result(analysis, main, forks.get("vm"), forks.get("fsm"), rel.qualified_name,
                              rel.fillfactor, cluster)
        report.pop("map")
        out["findings"] += [f for f in report.pop("findings") if f["code"] not in {x["code"] for x in out["findings"]}]
        out["heap"] = report
    return out


def relation_health(cluster: DataDirectory, rel: Relation, on_chunk=None, deep: bool = False) -> dict:
    """One relation: what it is, its files, and a one-line health summary from a fast pass;
    with ``deep``, a heap's full `pgpage heap` report as well (without its page map)."""
    return next(scan_relations(cluster, [rel], deep, jobs=1, on_blocks=on_chunk))


def scan_relations(cluster: DataDirectory, rels: list[Relation], deep: bool = False, jobs: int = 1,
                   on_blocks=None) -> Iterator[dict]:
    """`relation_health` of each relation (of one database or several), in ``rels`` order, from one read of
    every fork (checksums, and for a heap its analysis: the fast figures, and with ``deep`` the whole report in
    the same pass). With ``jobs`` > 1 the forks, cut into ranges of blocks, are read by that many worker
    processes. Each entry is made as soon as its relation's forks are read and handed on as soon as those before
    it are: a cluster of many relations never has all their analyses, nor all their entries, in memory at once."""
    from pgpage.parallel import block_ranges, run_tasks
    checksums = bool(cluster.checksums)
    if any(r.kind in HEAP_KINDS for r in rels):
        cluster.clog  # read once, before any worker is forked
    tasks = []  # (relation index, fork name, start, stop), each relation's in block order
    for i, rel in enumerate(rels):
        for name, fork in rel.forks.items():
            is_heap = name == "main" and rel.kind in HEAP_KINDS
            if not (checksums or is_heap):
                if on_blocks:
                    on_blocks(fork.nblocks)  # nothing to read in it
                continue
            for start, stop in block_ranges(fork, jobs):
                tasks.append((i, name, start, stop))

    def work(t):
        i, name, start, stop = t
        rel = rels[i]
        fork = rel.forks[name]
        analysis = None
        if name == "main" and rel.kind in HEAP_KINDS:
            analysis = new_heap_analysis(cluster, fork, rel.qualified_name, map_cells=1)
        vm, fsm = (rel.forks.get("vm"), rel.forks.get("fsm")) if (deep and analysis is not None) else (None, None)
        bad = fork_pass(fork, start, stop, checksums, analysis, vm, fsm)
        return bad, analysis

    def entry(i: int, parts: dict[int, tuple]) -> dict:
        """Relation i's entry from its tasks' results, merged in block order, as one pass reads."""
        rel = rels[i]
        bad_by_fork: dict[str, list[int]] = {}
        main = rel.forks.get("main")
        analysis = new_heap_analysis(cluster, main, rel.qualified_name, map_cells=1) \
            if main is not None and rel.kind in HEAP_KINDS else None  # (an empty heap: no task)
        for k in sorted(parts):
            _, name, start, stop = tasks[k]
            bad, part = parts[k]
            bad_by_fork.setdefault(name, []).extend(bad)
            if part is not None:
                analysis.merge(part, stop - start)
        return _health(cluster, rel, bad_by_fork, analysis, deep)

    # the relations with the most work first, so no worker is left alone with a big range at the end, and each
    # relation's tasks together, so its entry is made soon after its first task (and its results not held
    # long); a worker takes a batch of small tasks at once (a catalog is hundreds of forks of a block or two)
    work_of = [0] * len(rels)
    for i, name, start, stop in tasks:
        work_of[i] += (stop - start) * (HEAP_PASS_COST if name == "main" and rels[i].kind in HEAP_KINDS else 1)
    batches, batch, size = [], [], 0
    for k in sorted(range(len(tasks)), key=lambda k: -work_of[tasks[k][0]]):  # (stable: in block order)
        batch.append(k)
        size += tasks[k][3] - tasks[k][2]
        if size >= BATCH_BLOCKS or len(batch) >= BATCH_TASKS:
            batches.append(batch)
            batch, size = [], 0
    if batch:
        batches.append(batch)
    waiting = [0] * len(rels)  # tasks of each relation not yet done
    for i, *_ in tasks:
        waiting[i] += 1
    parts: dict[int, dict[int, tuple]] = {}  # results of relations with tasks still out
    made: dict[int, dict] = {}  # entries waiting for those before them
    upto = 0  # entries handed on so far

    def in_order():
        nonlocal upto
        while upto < len(rels) and (upto in made or not waiting[upto]):
            yield made.pop(upto) if upto in made else entry(upto, {})  # (else: nothing to read in it)
            upto += 1

    for ks, rs in zip(batches, run_tasks(lambda ks: [work(tasks[k]) for k in ks], batches, jobs)):
        for k, r in zip(ks, rs):
            i = tasks[k][0]
            parts.setdefault(i, {})[k] = r
            waiting[i] -= 1
            if not waiting[i]:
                made[i] = entry(i, parts.pop(i))
        if on_blocks:
            on_blocks(sum(tasks[k][3] - tasks[k][2] for k in ks))
        yield from in_order()
    yield from in_order()


def read_catalogs(cluster: DataDirectory, dbs: list, jobs: int) -> None:
    """Each database's catalogs, read by ``jobs`` worker processes when there are several databases (the
    rows come back; the relations are built here)."""
    from pgpage.parallel import run_tasks
    if jobs <= 1 or len(dbs) <= 1:
        return
    cluster.clog  # read once, before any worker is forked
    for db, state in zip(dbs, run_tasks(lambda db: db.catalog_state(), dbs, jobs)):
        db.adopt_catalogs(state)


def select_relations(rels: Iterable[Relation], kinds: set[str] | None, name_glob: str | None,
                     with_storage_only: bool = True) -> list[Relation]:
    from fnmatch import fnmatchcase
    out = []
    for r in rels:
        if with_storage_only and not r.forks:
            continue
        if kinds and not ({r.kind_name, r.kind, r.access_method} & kinds):
            continue
        if name_glob and not (fnmatchcase(r.qualified_name, name_glob) or fnmatchcase(r.name, name_glob)):
            continue
        out.append(r)
    return sorted(out, key=lambda r: (-r.size_bytes, r.qualified_name))


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
    from pgpage.parallel import block_ranges, run_tasks
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
    return _heap_result(analysis, main, vm, fsm, relation, fillfactor, cluster)


def _heap_result(analysis, main: RelationFork, vm: RelationFork | None, fsm: RelationFork | None, relation: str,
                 fillfactor: int, cluster: DataDirectory | None) -> dict:
    findings: list[Finding] = [*main.findings, *(f for fork in (main, vm, fsm) if fork is not None
                                                 for f in fork.size_changes())]
    if cluster is None:
        findings.append(Finding("heap.xact.unavailable", "no data directory around this file, so no pg_xact:"
                                " commit status comes from hint bits alone; unhinted tuples are counted live"
                                " and marked undecided", severity=WARNING, relation=relation))
    result = analysis.result(fillfactor)
    if vm is None:
        findings.append(Finding("heap.vm.missing", "no visibility map fork: VM figures are unknown",
                                severity=INFO, relation=relation))
    if fsm is None:
        findings.append(Finding("heap.fsm.missing", "no free space map fork: FSM figures are unknown",
                                severity=INFO, relation=relation))
    if result["undecided_tuples"]:
        findings.append(Finding("heap.visibility.undecided", f"{result['undecided_tuples']} tuples counted live"
                                " without knowing whether their transaction committed (pg_xact or pg_multixact"
                                " does not cover them): tuple and dead counts rest on incomplete information",
                                severity=WARNING, relation=relation))
    result["findings"] = [f.to_json() for f in findings + analysis.findings]
    return result
