"""`pgpage scan`'s pass: a cluster, its databases and their relations, each with a health line.

Every fork is read once, in ranges of blocks spread over ``--jobs`` worker processes: checksums for
every fork, and for a heap's main fork its analysis (``passes.heap.fork_pass``: the fast figures,
and with ``--deep`` the whole `pgpage heap` report from the same read). Entries come out in the
relations' order as soon as they are made, so a cluster of many relations is never held whole.
Returns plain dicts (JSON-ready); never prints.
"""
from __future__ import annotations

import os
from typing import Iterable, Iterator

from pgpage.analysis.share import share
from pgpage.findings import WARNING, ExitCode, Finding, PgpageError
from pgpage.passes.heap import fork_pass, heap_result, new_heap_analysis, statistics_keys
from pgpage.passes.stats import hot_ratio, relation_statistics, statistics_summary, statistics_warnings
from pgpage.storage.datadir import HEAP_KINDS, RELKIND_NAMES, DataDirectory, Relation
from pgpage.storage.target import cluster_target
from pgpage.storage.relfile import RelationFork, Unreadable

BATCH_BLOCKS = 4096  # blocks a --jobs worker reads per task at least (small forks are batched) ...
BATCH_TASKS = 64     # ... and at most this many forks per batch, so the catalogs' forks at the end spread out
HEAP_PASS_COST = 3  # a heap block's analysis and checksum take about 3x a checksum alone (ordering --jobs work)
XID_WRAP_LIMIT = 2 ** 31  # an xid more than 2^31 older than the next one would seem to be in the future


BUILTIN_AMS = {"heap", "btree", "hash", "gist", "gin", "spgist", "brin"}  # pg_am's rows in every major 12+


class ClusterScan:
    """`pgpage scan` of a data directory: the databases asked for (all, or ``db_name``), and in each its
    relations with storage of the ``kinds`` asked for (relkind names, relkinds or access methods) whose
    name matches ``name_glob``, the largest first (the ``top`` largest). The catalogs are read here (by
    ``jobs`` workers when there are several databases); ``total_blocks`` is what ``document`` reads."""

    def __init__(self, pgdata: str, db_name: str | None, top: int | None, kinds: set[str] | None,
                 name_glob: str | None, jobs: int = 1, command: str = "scan"):
        from pgpage.passes.parallel import default_jobs
        self.cluster = cluster = cluster_target(pgdata, command=command).cluster
        self.jobs = jobs or default_jobs()
        dbs = [cluster.database(db_name)] if db_name else [d for d in cluster.databases() if d.path.is_dir()]
        read_catalogs(cluster, dbs, self.jobs)
        if kinds:   # checked against what the catalogs know before any relation is read
            known = set(RELKIND_NAMES.values()) | set(RELKIND_NAMES) | BUILTIN_AMS | {
                r.access_method for d in dbs for r in d.relations() if r.access_method}
            unknown = sorted(kinds - known)
            if unknown:
                raise PgpageError(f"--kind: {', '.join(map(repr, unknown))} is no relation kind or access method"
                                  f" here (kinds: {', '.join(RELKIND_NAMES.values())}; access methods:"
                                  f" {', '.join(sorted(known - set(RELKIND_NAMES.values()) - set(RELKIND_NAMES)))})",
                                  ExitCode.USAGE)
        plan = [(d, select_relations(d.relations(), kinds, name_glob)) for d in dbs]
        if top is not None:
            plan = [(d, rels[:top]) for d, rels in plan]
        self.plan = plan
        self.total_blocks = sum(f.nblocks for _, rels in plan for r in rels for f in r.forks.values())

    def document(self, deep: bool = False, on_blocks=None, on_findings=None) -> dict:
        """The `pgpage scan` document (schema pgpage.scan/1). Its databases, their relations and the findings
        are generators, read when the document is written (``render.output``): a relation is scanned when its
        entry is reached, and the findings of a database or of the cluster are read after the relations before
        them were scanned. ``on_findings(list of finding dicts)`` is called with each list as it is read."""
        cluster, plan = self.cluster, self.plan
        noted = on_findings or (lambda findings: None)

        def relations(entries, n):
            for _ in range(n):
                entry = next(entries)
                noted(entry["findings"])
                yield entry

        def findings(owner):  # read when written: after the relations before them were scanned
            out = [f.to_json() for f in owner.findings]
            noted(out)
            yield from out

        def databases(entries):
            for d, rels in plan:
                yield {**database_summary(cluster, d), "relations": relations(entries, len(rels)),
                       "findings": findings(d)}

        # every database's forks in one pool of workers
        entries = scan_relations(cluster, [r for _, rels in plan for r in rels], deep, self.jobs, on_blocks)
        return {"schema": "pgpage.scan/1", "cluster": cluster_summary(cluster), "databases": databases(entries),
                "findings": findings(cluster)}


def cluster_summary(cluster: DataDirectory) -> dict:
    """The cluster's identity and health from pg_control, PG_VERSION and pg_database."""
    c = cluster.control
    out = {"path": str(cluster.path), "major": cluster.major, "block_size": cluster.block_size,
           "relseg_size": cluster.relseg_size, "data_checksums": cluster.checksums,
           "statistics": statistics_summary(cluster)}
    cluster.findings.extend(f for f in statistics_warnings(cluster) if f not in cluster.findings)
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
    """(all_visible, all_frozen) heap blocks according to the visibility map fork; None without one, unless the
    table has no block (nothing to be all-visible: 0 and 0, as pg_visibility_map_summary says)."""
    if vm is None:
        return (0, 0) if heap_blocks == 0 else None
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


def index_figures(rel: Relation) -> type | None:
    """The ``analysis.amstats`` class of an index whose AM has one (GIN, GiST, SP-GiST, hash, BRIN), for --deep."""
    if rel.kind not in "iI" or not rel.forks.get("main"):
        return None
    from pgpage.analysis.amstats import STATS
    return STATS.get(rel.access_method)


def _health(cluster: DataDirectory, rel: Relation, bad_by_fork: dict[str, list[int]], analysis,
            deep: bool) -> dict:
    """A relation's entry in `pgpage scan` from its forks' checksum failures and its heap analysis (for an index
    with --deep: its ``analysis.amstats`` figures)."""
    forks = rel.forks
    main = forks.get("main")
    out = {
        "name": rel.qualified_name, "oid": rel.oid, "kind": rel.kind_name, "relkind": rel.kind,
        "am": rel.access_method, "persistence": rel.persistence, "relfilenode": rel.relfilenode,
        "relisshared": bool(rel.row["relisshared"]),  # a shared catalog (global/): the same in every database
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
    if deep and index_figures(rel) is not None:
        out["index"] = {"am": rel.access_method, **analysis.report()} if analysis is not None else None
        analysis = None
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
        health["all_visible_percent"] = share(visible, main.nblocks, 1) if counts else None
        if stats.undecided_count:
            findings.append(Finding("heap.visibility.undecided", f"{stats.undecided_count} tuples counted live without"
                                    " knowing whether their transaction committed", severity=WARNING,
                                    relation=rel.qualified_name))
    out["health"] = health
    out["findings"] = [f.to_json() for f in findings]
    out["statistics"] = relation_statistics(cluster, rel)
    if deep and analysis is not None:
        report = heap_result(analysis, main, forks.get("vm"), forks.get("fsm"), rel.qualified_name,
                             rel.fillfactor, cluster)
        report.pop("map")
        out["findings"] += [f for f in report.pop("findings") if f["code"] not in {x["code"] for x in out["findings"]}]
        out["heap"] = report
        out["hot_ratio"] = statistics_keys(cluster, rel, report["hot"])["hot_ratio"]
    elif rel.kind in "rtm":
        out["hot_ratio"] = hot_ratio(out["statistics"])
    return out


def relation_health(cluster: DataDirectory, rel: Relation, on_chunk=None, deep: bool = False) -> dict:
    """One relation: what it is, its files, and a one-line health summary from a fast pass;
    with ``deep``, a heap's full `pgpage heap` report as well (without its page map)."""
    return next(scan_relations(cluster, [rel], deep, jobs=1, on_blocks=on_chunk))


def scan_relations(cluster: DataDirectory, rels: list[Relation], deep: bool = False, jobs: int = 1,
                   on_blocks=None, observe=None) -> Iterator[dict]:
    """`relation_health` of each relation (of one database or several), in ``rels`` order, from one read of
    every fork (checksums, and for a heap its analysis: the fast figures, and with ``deep`` the whole report in
    the same pass). With ``jobs`` > 1 the forks, cut into ranges of blocks, are read by that many worker
    processes. Each entry is made as soon as its relation's forks are read and handed on as soon as those before
    it are: a cluster of many relations never has all their analyses, nor all their entries, in memory at once.
    ``observe(relation, fork name, first, chunk, ...)`` sees every chunk of every main fork as ``fork_pass`` hands
    it on (in this process: only with ``jobs`` 1)."""
    from pgpage.passes.parallel import block_ranges, run_tasks
    if observe is not None and jobs != 1:
        raise ValueError("an observer sees the chunks in this process: jobs must be 1")
    checksums = bool(cluster.checksums)
    if any(r.kind in HEAP_KINDS for r in rels):
        cluster.clog  # read once, before any worker is forked
    tasks = []  # (relation index, fork name, start, stop), each relation's in block order
    for i, rel in enumerate(rels):
        figures = deep and index_figures(rel) is not None
        for name, fork in rel.forks.items():
            is_heap = name == "main" and rel.kind in HEAP_KINDS
            if not (checksums or is_heap or (observe and name == "main") or (figures and name == "main")):
                if on_blocks:
                    on_blocks(fork.nblocks)  # nothing to read in it
                continue
            # an index's figures come from one read in block order (its metapage first): one task
            ranges = [(fork.first_block, fork.end_block)] if figures and name == "main" else block_ranges(fork, jobs)
            for start, stop in ranges:
                tasks.append((i, name, start, stop))

    def work(t):
        i, name, start, stop = t
        rel = rels[i]
        fork = rel.forks[name]
        heap = index = None   # the heap analysis fed by fork_pass, or an index's analysis.amstats (--deep)
        if name == "main" and rel.kind in HEAP_KINDS:
            heap = new_heap_analysis(cluster, fork, rel.qualified_name, map_cells=1)
        elif name == "main" and deep and index_figures(rel) is not None:
            index = index_figures(rel)(fork.block_size, cluster.major)
        vm, fsm = (rel.forks.get("vm"), rel.forks.get("fsm")) if (deep and heap is not None) else (None, None)
        watch = observe if observe and name == "main" else None

        def seen(first, chunk, *rest):
            if index is not None:
                index.add_chunk(first, chunk)
            if watch is not None:
                watch(rel, name, first, chunk, *rest)
        try:
            bad = fork_pass(fork, start, stop, checksums, heap, vm, fsm,
                            observe=seen if index is not None or watch is not None else None)
        except Unreadable as e:   # one finding for the fork (made in entry), no figures from it
            return [], None, e.finding(rel.qualified_name, name)
        return bad, heap if heap is not None else index, None

    def entry(i: int, parts: dict[int, tuple]) -> dict:
        """Relation i's entry from its tasks' results, merged in block order, as one pass reads."""
        rel = rels[i]
        bad_by_fork: dict[str, list[int]] = {}
        main = rel.forks.get("main")
        analysis = new_heap_analysis(cluster, main, rel.qualified_name, map_cells=1) \
            if main is not None and rel.kind in HEAP_KINDS else None  # (an empty heap: no task)
        unreadable: dict[str, Finding] = {}
        for k in sorted(parts):
            _, name, start, stop = tasks[k]
            bad, part, why = parts[k]
            bad_by_fork.setdefault(name, []).extend(bad)
            if why is not None:
                unreadable.setdefault(name, why)
            if part is not None and analysis is None:    # an index's figures (one task)
                analysis = part
            elif part is not None:
                analysis.merge(part, stop - start)
        if "main" in unreadable:
            analysis = None  # figures from part of the table would look like the whole's
        out = _health(cluster, rel, bad_by_fork, analysis, deep)
        if unreadable:
            out["findings"] += [f.to_json() for f in unreadable.values()]
            out["health"]["checksum_failures"] = None  # not every block was read: no count to give
        return out

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
    from pgpage.passes.parallel import run_tasks
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
