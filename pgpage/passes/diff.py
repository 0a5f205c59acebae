"""Two snapshots of the same cluster (or relation): what physically happened between them.

Every database of either snapshot (matched by oid) and, within each, every relation with storage
matched by pg_class oid; one whose file number changed was rewritten (VACUUM FULL, CLUSTER,
TRUNCATE, REINDEX) and is compared by its figures only; "dropped" means the catalog row is gone
(a row whose file is missing is "file missing", with ``relation.file_missing``, rewritten or new
too); a database is dropped or created when its pg_database row is, and a row on both sides whose
directory one side lacks is ``database.directory_missing`` (its relations file missing). Every fork of a
relation kept in place is compared byte for byte; a changed main fork is read block by block from
both sides in lockstep and classified by
``analysis.diff``; heaps and B-trees are also summarised on both sides (``pgpage heap`` and
``pgpage index`` figures) so their changes in size, free space, VM coverage, index entries and
posting lists can be set side by side. Returns plain dicts; never prints.
"""
from __future__ import annotations

from dataclasses import asdict
from itertools import zip_longest
from pathlib import Path

import numpy as np

from pgpage.analysis.share import share
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.datadir import HEAP_KINDS, DataDirectory, Relation
from pgpage.storage.target import cluster_target
from pgpage.storage.relfile import RelationFork, Unreadable


def diff_document(before: str, after: str, db: str | None, rel: str | None, details: bool = False,
                  wal: str | None = None) -> dict:
    """The `pgpage diff` document (schema pgpage.diff/1) of two data directories or two relation files, with
    ``relations_changed``: how many relations moved or changed (the command's exit status); ``wal``: a
    directory of the segments between the snapshots (default: AFTER's pg_wal, when it holds them)."""
    b, a = Path(before), Path(after)
    for p in (b, a):
        if not p.exists():
            raise PgpageError(f"{p}: no such file or directory", ExitCode.UNREADABLE)
    if b.is_dir() != a.is_dir():
        raise PgpageError("give two data directories or two relation files", ExitCode.USAGE)
    if b.is_dir():
        doc = compare_clusters(before, after, db, rel, details, wal)
    else:
        if db or rel or wal:
            raise PgpageError("--db, --rel and --wal go with data directories", ExitCode.USAGE)
        doc = _compare_relation_files(before, after, details)
    doc = {"schema": "pgpage.diff/1", **doc}
    doc["relations_changed"] = sum(1 for r in doc["relations"] if r["status"] != "in place" or r.get("changed"))
    doc["databases_changed"] = sum(1 for d in doc.get("databases", []) if d["status"] != "in both")
    return doc


def _heap_summary(cluster: DataDirectory | None, fork: RelationFork, vm, fsm, name: str) -> dict:
    from pgpage.passes.heap import heap_report
    r = heap_report(cluster, fork, vm, fsm, name, map_cells=1)
    return {"pgstattuple": r["pgstattuple"], "line_pointers": r["line_pointers"],
            "vm_all_visible_pages": r["visibility"]["vm_all_visible_pages"],
            "vm_all_frozen_pages": r["visibility"]["vm_all_frozen_pages"],
            "hot_chains": r["hot"]["chains"], "heap_only_tuples": r["hot"]["heap_only_tuples"],
            "pages_next_read_will_dirty": r["hint_bits"]["pages_next_read_will_dirty"],
            "vacuum_reclaims_bytes": r["bloat"]["vacuum_reclaims_bytes"]}


def _index_summary(cluster: DataDirectory | None, fork: RelationFork, name: str) -> dict:
    from pgpage.analysis.btree.scan import IndexInfo
    from pgpage.passes.index import scan_index
    major = cluster.major if cluster else None
    report, _ = scan_index(fork.iter_chunks, fork.end_block, fork.block_size, major, IndexInfo(relation=name))
    d = report["deduplication"]
    return {"pgstatindex": report["pgstatindex"], "entries": d.get("tids"), "posting_tuples": d.get("posting_tuples"),
            "posting_tids": d.get("posting_tids"), "plain_tuples": d.get("plain_tuples"),
            "dead_items": report["dead_items"]["dead_items"], "blocks": fork.nblocks}


def _delta(before: dict | None, after: dict | None) -> dict | None:
    """after - before for every number both have (nested one level)."""
    if not before or not after:
        return None
    out = {}
    for k, a in after.items():
        b = before.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            sub = {kk: a[kk] - b[kk] for kk in a if isinstance(a[kk], (int, float)) and isinstance(b.get(kk), (int, float))
                   and not isinstance(a[kk], bool)}
            out[k] = sub
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            out[k] = a - b
    return out


def compare_heap_pages(before_cluster, after_cluster, b_fork: RelationFork, a_fork: RelationFork,
                       before_next_xid: int | None, detail_pages: list | None = None) -> dict:
    """Block-by-block comparison of one heap kept in place (same file)."""
    from pgpage.analysis.diff import (HintPrediction, PageClasses, TupleEvents, class_names, diff_heap_chunk,
                                      pruned_on_new_pages, tuple_events)
    from pgpage.analysis.heap import chunk_stats
    from pgpage.decode.xact import ClogArray
    from pgpage.decode.vector import decode_heap_chunk
    pc, ev, hp = PageClasses(), TupleEvents(), HintPrediction()
    clog = before_cluster.clog if before_cluster is not None else ClogArray({})
    multi = before_cluster.multi_update_xid if before_cluster is not None else None
    # one lockstep pass: chunks of both forks start on the same blocks, and AFTER's chunks past
    # BEFORE's end come paired with None; tuple events are read from every AFTER chunk once
    for b_chunk, a_chunk in zip_longest(b_fork.iter_chunks(), a_fork.iter_chunks()):
        if a_chunk is None:
            break  # blocks only BEFORE had (truncated away): nothing to compare or count
        a_first, a_raw = a_chunk
        a_dec = decode_heap_chunk(a_raw, a_first)
        if before_next_xid is not None:
            ev.merge(tuple_events(a_dec, before_next_xid))
        if b_chunk is None:
            ev.merge(pruned_on_new_pages(a_dec, 0))
            continue
        b_first, b_raw = b_chunk
        b_dec = decode_heap_chunk(b_raw, b_first)
        if len(a_raw) > len(b_raw):
            ev.merge(pruned_on_new_pages(a_dec, len(b_raw)))
        _, per_tuple = chunk_stats(b_dec, clog, multi)
        classes = np.zeros(min(len(b_raw), len(a_raw)), dtype=np.int64) if detail_pages is not None else None
        c, e, h = diff_heap_chunk(b_raw, a_raw, b_dec, a_dec, before_next_xid, per_tuple["dirtied_pages"], classes)
        pc.merge(c)
        ev.merge(e)
        hp.merge(h)
        if detail_pages is not None:
            detail_pages.extend({"blkno": b_first + i, "changes": class_names(int(v))}
                                for i, v in enumerate(classes) if v)
    return {"page_classes": asdict(pc), "tuples": asdict(ev), "hint_prediction": asdict(hp)}


def compare_index_pages(b_fork: RelationFork, a_fork: RelationFork) -> dict:
    """Pages of an index kept in place: changed, added (splits and extension), removed."""
    changed = 0
    for (_, b), (_, a) in zip(b_fork.iter_chunks(), a_fork.iter_chunks()):
        n = min(len(a), len(b))
        changed += int((a[:n] != b[:n]).any(axis=1).sum())
    return {"changed": changed}


def compare_fork(b: RelationFork | None, a: RelationFork | None) -> dict:
    """Bytes of one fork on both sides: whole pages that differ, pages added or removed, and the torn
    tail (a file cut mid-page) compared too, so that a fork cut to half a page is a difference."""
    nb, na = (b.nblocks if b else 0), (a.nblocks if a else 0)
    out = {"before_bytes": b.size_bytes if b else 0, "after_bytes": a.size_bytes if a else 0,
           "pages_changed": 0, "pages_added": max(0, na - nb), "pages_removed": max(0, nb - na)}
    if b is not None and a is not None:
        for (_, bc), (_, ac) in zip(b.iter_chunks(), a.iter_chunks()):
            n = min(len(ac), len(bc))
            out["pages_changed"] += int((ac[:n] != bc[:n]).any(axis=1).sum())
        if b.size_bytes == a.size_bytes and b.size_bytes % b.block_size:  # both torn at the same length
            out["pages_changed"] += int(b.read_block(b.end_block) != a.read_block(a.end_block))
    out["changed"] = bool(out["before_bytes"] != out["after_bytes"] or out["pages_changed"])
    return out


def _forks(b_rel: Relation, a_rel: Relation) -> dict:
    """Every fork either side has (main, fsm, vm, init), compared byte for byte."""
    names = [f for f in ("main", "fsm", "vm", "init") if f in b_rel.forks or f in a_rel.forks]
    return {f: compare_fork(b_rel.forks.get(f), a_rel.forks.get(f)) for f in names}


def compare_relation(before: DataDirectory | None, after: DataDirectory | None, b_rel: Relation | None,
                     a_rel: Relation | None, before_next_xid: int | None, details: bool = False) -> dict:
    """One relation on both sides; a file that cannot be read makes it a storage.unreadable entry, and the
    diff goes on with the other relations."""
    try:
        return _compare_relation(before, after, b_rel, a_rel, before_next_xid, details)
    except Unreadable as e:
        rel = a_rel or b_rel
        return {"name": rel.qualified_name, "database": None if rel.row["relisshared"] else rel.database.name,
                "oid": rel.oid, "kind": rel.kind_name, "am": rel.access_method, "status": "unreadable",
                "finding": e.finding(rel.qualified_name, None).to_json()}


def _compare_relation(before: DataDirectory | None, after: DataDirectory | None, b_rel: Relation | None,
                      a_rel: Relation | None, before_next_xid: int | None, details: bool = False) -> dict:
    rel = a_rel or b_rel
    database = None if rel.row["relisshared"] else rel.database.name  # shared catalogs: global/, in no database
    out = {"name": rel.qualified_name, "database": database, "oid": rel.oid, "kind": rel.kind_name,
           "am": rel.access_method}
    if b_rel is None or a_rel is None:
        side = "after" if b_rel is None else "before"
        out[side] = {"relfilenode": rel.relfilenode, "size_bytes": rel.size_bytes}
        if rel.forks.get("main") is None:  # its row is on one side only, and its file is not there either
            return _file_missing(out, rel, side, "created since BEFORE" if b_rel is None else "dropped since")
        out["status"] = "created" if b_rel is None else "dropped"
        return out
    b_main, a_main = b_rel.forks.get("main"), a_rel.forks.get("main")
    out["before"] = {"relfilenode": b_rel.relfilenode, "size_bytes": b_rel.size_bytes,
                     "blocks": b_main.nblocks if b_main else 0}
    out["after"] = {"relfilenode": a_rel.relfilenode, "size_bytes": a_rel.size_bytes,
                    "blocks": a_main.nblocks if a_main else 0}
    rewritten = b_rel.relfilenode != a_rel.relfilenode
    if (b_main is None) != (a_main is None):
        # the catalog row is on both sides but one side has no file: not a drop, nor a rewrite to compare
        side = "after" if a_main is None else "before"
        return _file_missing(out, a_rel if a_main is None else b_rel, side,
                             "rewritten" if rewritten else "")
    out["status"] = "rewritten" if rewritten else "in place"
    if not rewritten:
        out["forks"] = _forks(b_rel, a_rel)
        if not any(f["changed"] for f in out["forks"].values()):
            out["changed"] = False  # byte-identical: nothing to summarise
            return out
    heap = rel.kind in HEAP_KINDS
    btree = rel.kind == "i" and rel.access_method == "btree"
    if heap:
        b = _heap_summary(before, b_main, b_rel.forks.get("vm"), b_rel.forks.get("fsm"), rel.qualified_name) if b_main else None
        a = _heap_summary(after, a_main, a_rel.forks.get("vm"), a_rel.forks.get("fsm"), rel.qualified_name) if a_main else None
        out["heap"] = {"before": b, "after": a, "delta": _delta(b, a)}
        out["why_not_hot"] = _why_not_hot(after, a_rel, before_next_xid) if a_main else None
        out["statistics"] = statistics_delta(before, after, b_rel, a_rel)
    if btree and b_main and a_main:
        b, a = _index_summary(before, b_main, rel.qualified_name), _index_summary(after, a_main, rel.qualified_name)
        out["index"] = {"before": b, "after": a, "delta": _delta(b, a)}
    if b_main is None or a_main is None or rewritten:
        out["pages"] = None
        return out
    nb, na = b_main.nblocks, a_main.nblocks
    pages = {"before": nb, "after": na, "added": max(0, na - nb), "removed": max(0, nb - na)}
    if heap:
        detail = [] if details else None
        pages.update(compare_heap_pages(before, after, b_main, a_main, before_next_xid, detail))
        if details:
            pages["detail"] = detail
    else:
        pages.update(compare_index_pages(b_main, a_main))
    out["pages"] = pages
    out["changed"] = True  # some fork's bytes differ
    return out


def _file_missing(out: dict, rel: Relation, side: str, why: str = "", message: str | None = None) -> dict:
    """``out`` as a relation whose main fork ``side`` lacks although a pg_class row names it
    (relation.file_missing): not a drop, and nothing to compare."""
    path = f"{rel.directory.relative_to(rel.database.cluster.path)}/{rel.file_stem}"
    out["status"] = "file missing " + side
    out["finding"] = {"code": "relation.file_missing", "severity": "error", "snapshot": side,
                      "message": message or f"no file {path} in {side.upper()}, but pg_class names it"
                                            + (f" ({why})" if why else "")}
    return out


def _database_directory_missing(before: DataDirectory, after: DataDirectory, b_db, a_db, entry: dict,
                                shared_seen: set, next_xid: int | None) -> list[dict]:
    """A database whose pg_database row both snapshots hold but whose directory one (or each) lacks:
    ``database.directory_missing`` on the entry and, when one side has the directory, every relation
    with a file there as relation.file_missing on the other side (whose pg_class, being in the missing
    directory, cannot tell whether a row was dropped). The shared catalogs (global/) are still compared."""
    missing = [side for side, db in (("before", b_db), ("after", a_db)) if not db.path.is_dir()]
    cluster, db = (before, b_db) if missing[0] == "before" else (after, a_db)
    entry["status"] = "directory missing " + " and ".join(missing)
    entry["finding"] = {"code": "database.directory_missing", "severity": "error", "snapshot": " and ".join(missing),
                        "message": f"no directory {db.path.relative_to(cluster.path)} in"
                                   f" {' and '.join(m.upper() for m in missing)}, but its pg_database row is there"}
    if len(missing) == 2:
        return []
    side = missing[0]
    present, absent = (a_db, b_db) if side == "before" else (b_db, a_db)
    rels = []
    for r in sorted(_relations_by_oid(present).values(), key=lambda r: r.oid):
        if not r.forks:
            continue  # no file on the side with the directory either (scan and verify report it)
        if r.row["relisshared"]:
            if r.oid not in shared_seen:
                shared_seen.add(r.oid)
                # the same (mapped) row read through the other snapshot finds its files in that global/
                twin = Relation(absent, r.row, r.namespace, r.am, r.index_row)
                rels.append(compare_relation(before, after, *((twin, r) if side == "before" else (r, twin)), next_xid))
            continue
        out = {"name": r.qualified_name, "database": present.name, "oid": r.oid, "kind": r.kind_name,
               "am": r.access_method, "after" if side == "before" else "before":
               {"relfilenode": r.relfilenode, "size_bytes": r.size_bytes}}
        rels.append(_file_missing(out, r, side, message=f"no file {r.directory.relative_to(r.database.cluster.path)}"
                                  f"/{r.file_stem} in {side.upper()}, nor its database's directory"))
    return rels


STAT_COUNTERS = ("n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "n_tup_del")


def statistics_delta(before: DataDirectory | None, after: DataDirectory | None, b_rel: Relation,
                     a_rel: Relation) -> dict | None:
    """What the server counted between the snapshots: pg_stat_user_tables' n_tup_* in AFTER's statistics file
    minus BEFORE's (pg_class oid, so a rewrite keeps its counters). Exact when both files are current (each
    written by the clean shutdown that made its snapshot); the pages alone only give lower bounds."""
    from pgpage.passes.stats import relation_statistics
    b, a = relation_statistics(before, b_rel), relation_statistics(after, a_rel)
    if b is None or a is None:
        return None
    if b["status"] != "current" or a["status"] != "current":
        return {"exact": False, "why": f"statistics file before {b['status']}, after {a['status']}"}
    delta = {k: a[k] - b[k] for k in STAT_COUNTERS}
    if min(delta.values()) < 0:  # pg_stat_reset(), or the file of another cluster
        return {"exact": False, "why": "the counters went back between the snapshots (statistics reset)"}
    upd = delta["n_tup_upd"]
    return {"exact": True, "source": a["source"], **delta,
            "hot_ratio": share(delta["n_tup_hot_upd"], upd, 4, scale=1)}


def _why_not_hot(after: DataDirectory | None, a_rel: Relation, before_next_xid: int | None) -> dict | None:
    """Why the updates made between the snapshots (xids from BEFORE's next xid on) were not HOT, from the
    versions in AFTER (``passes.hotcause``); None without the catalogs or xids to tell."""
    from pgpage.passes.hotcause import why_not_hot
    if after is None or before_next_xid is None:
        return None
    try:
        return why_not_hot(after, a_rel, since_xid=before_next_xid)
    except PgpageError:       # columns unreadable: the diff stands without it
        return None


def _relations_by_oid(db) -> dict[int, Relation]:
    """Relations with storage, by pg_class oid (what survives a rewrite and a rename)."""
    return {r.oid: r for r in db.relations() if r.has_storage} if db is not None else {}


def _database_pairs(before: DataDirectory, after: DataDirectory, db_name: str | None) -> list[tuple]:
    """(BEFORE's database or None, AFTER's or None), matched by oid: every database of either snapshot,
    or the one --db names."""
    if db_name is not None:
        pick = lambda c: next((d for d in c.databases() if d.name == db_name or str(d.oid) == db_name), None)  # noqa
        b, a = pick(before), pick(after)
        if b is None and a is None:
            before.database(db_name)  # the usual "no database ... (there are: ...)" refusal
        return [(b, a)]
    b_dbs, a_dbs = {d.oid: d for d in before.databases()}, {d.oid: d for d in after.databases()}
    # a damaged pg_database row's oid is None (its database has no directory to read; a finding says so)
    return [(b_dbs.get(o), a_dbs.get(o)) for o in sorted(set(b_dbs) | set(a_dbs), key=lambda o: (o is None, o or 0))]


def compare_clusters(before_path: str, after_path: str, db_name: str | None, rel_name: str | None,
                     details: bool = False, wal: str | None = None) -> dict:
    """Two data directories: every database of either (or the one ``db_name`` names), relations matched
    by database and pg_class oid; with ``rel_name``, that relation alone (its indexes' entries too, for
    the write amplification); the WAL between their checkpoints, per relation, when it is at hand."""
    before, after = (cluster_target(p, command="diff").cluster for p in (before_path, after_path))
    if before.major != after.major:
        raise PgpageError(f"the snapshots are of different majors ({before.major} and {after.major})", ExitCode.USAGE)
    wal_doc, cost = wal_between(before, after, wal)
    next_xid = (before.control or {}).get("checkPointCopy", {}).get("nextXid")
    pairs = _database_pairs(before, after, db_name)
    if rel_name and len(pairs) > 1:
        pairs = [(b, a) for b, a in pairs if b is not None and a is not None and (_has(b, rel_name) or _has(a, rel_name))]
        if len(pairs) != 1:
            where = ", ".join(str(b.name) for b, _ in pairs)
            raise PgpageError(f"{rel_name!r} is in {len(pairs)} databases ({where}): choose one with --db" if pairs
                              else f"no relation {rel_name!r} in any database both snapshots hold", ExitCode.USAGE)
    databases, relations, shared_seen = [], [], set()
    for b_db, a_db in pairs:
        db = a_db or b_db
        entry = {"oid": db.oid, "name": db.name}
        if b_db is None or a_db is None:  # the pg_database row is new, or gone
            entry["status"] = "created" if b_db is None else "dropped"
            databases.append(entry)
            continue
        if not b_db.path.is_dir() or not a_db.path.is_dir():
            rels = _database_directory_missing(before, after, b_db, a_db, entry, shared_seen, next_xid)
            entry["relations"] = len(rels)
            databases.append(entry)
            relations += rels
            continue
        entry["status"] = "in both"
        b_rels, a_rels = _relations_by_oid(b_db), _relations_by_oid(a_db)
        oids = sorted(set(b_rels) | set(a_rels))
        if rel_name:
            target = (b_db if _has(b_db, rel_name) else a_db).relation(rel_name).oid
            side = a_rels if target in a_rels else b_rels
            oids = [o for o in oids if o == target or (side.get(o) and side[o].table and side[o].table.oid == target)]
        rels = []
        for o in oids:
            b, a = b_rels.get(o), a_rels.get(o)
            if b and a and not b.forks and not a.forks:
                continue  # no file on either side: nothing changed (scan and verify report the missing file)
            if (a or b).row["relisshared"]:
                if o in shared_seen:
                    continue  # every database's pg_class lists the shared catalogs: compare them once
                shared_seen.add(o)
            rels.append(compare_relation(before, after, b, a, next_xid, details))
            if cost is not None:
                rels[-1]["wal"] = cost.of(_nodes(b) | _nodes(a))
        _write_amplification(rels, after.block_size, a_db, b_db)
        if cost is not None:
            _wal_amplification(rels, a_db, b_db)
        entry["relations"] = len(rels)
        databases.append(entry)
        relations += rels
    doc = {"before": _cluster_facts(before), "after": _cluster_facts(after), "databases": databases,
           "relations": relations, "wal": wal_doc}
    if len(pairs) == 1:
        doc["database"] = (pairs[0][1] or pairs[0][0]).name
    return doc


def wal_between(before: DataDirectory, after: DataDirectory, wal: str | None) -> tuple[dict, object]:
    """The WAL from BEFORE's checkpoint to AFTER's (the records after BEFORE's checkpoint record, up to and with
    AFTER's), from ``wal`` or AFTER's pg_wal: (its summary, its ``analysis.walcost.WalCost``), or (why it was not
    read, None)."""
    from pgpage.analysis.walcost import WalCost
    from pgpage.decode.control import format_lsn, parse_lsn
    from pgpage.passes.wal import WalReader
    from pgpage.storage.wal import WalDirectory, wal_directory
    b_lsn, a_lsn = ((c.control or {}).get("checkPoint") for c in (before, after))
    if b_lsn is None or a_lsn is None:
        return {"read": False, "why": "no checkpoint LSN in a snapshot's pg_control"}, None
    start, end = parse_lsn(b_lsn), parse_lsn(a_lsn)
    source = wal_directory(after.path, wal) if wal else after.path / "pg_wal"
    directory = WalDirectory(source) if source.is_dir() else None
    if directory is None or directory.first_file() is None:
        why = f"{source}: no WAL segment" if wal else "AFTER's pg_wal holds no segment (--wal DIR gives them)"
        return {"read": False, "why": why, "source": str(source)}, None
    reader = WalReader(directory, after.control)
    cost = WalCost(reader.major)
    last = None
    for rec in reader.records(start, end + 1):
        if rec.lsn != start:          # BEFORE's own checkpoint record
            cost.add(rec)
            last = rec
    complete = last is not None and last.lsn == end
    doc = {"read": True, "source": str(source), "start_lsn": b_lsn, "end_lsn": format_lsn(last.end_lsn) if last else None,
           "complete": complete, **cost.total, "unattributed": cost.unattributed,
           "findings": [f.to_json() for f in reader.findings]}
    if not complete:
        stop = reader.stop
        doc["why"] = (f"the WAL read stops before AFTER's checkpoint {a_lsn}"
                      + (f": {stop.code}: {stop.message}" if stop is not None else ""))
    return doc, cost


def _nodes(rel: Relation | None) -> set:
    """The file forks (tablespace, database, relfilenode, fork) WAL block references name ``rel`` by."""
    from pgpage.passes.wal import relation_node
    if rel is None or rel.relfilenode is None:
        return set()
    node = relation_node(rel)
    return {(*node, fork) for fork in ("main", "fsm", "vm", "init")}


def _wal_amplification(relations: list[dict], *dbs) -> None:
    """Per table, the WAL its row changes cost: its own records, its TOAST table's and its indexes', per row
    change the heap records say were made (a MULTI_INSERT's tuples counted one by one)."""
    by_oid = {r["oid"]: r for r in relations}
    rels = {r.oid: r for db in reversed(dbs) for r in db.relations()}
    toast_of = {r.row.get("reltoastrelid"): r.oid for r in rels.values() if r.row.get("reltoastrelid")}
    members: dict[int, list[dict]] = {}
    for rel in rels.values():
        direct = rel.table.oid if rel.table is not None else None      # an index's table (a TOAST table's too)
        owner = toast_of.get(direct if direct is not None else rel.oid, direct)
        if owner is not None and rel.oid in by_oid and owner in by_oid:
            members.setdefault(owner, []).append(by_oid[rel.oid])
    for oid, r in by_oid.items():
        if r.get("kind") not in ("table", "materialized view") or "wal" not in r:
            continue
        changes = r["wal"]["row_changes"]
        n = sum(changes.values())
        parts = members.get(oid, [])
        if not r["wal"]["records"] and not any(m.get("wal", {}).get("records") for m in parts):
            continue
        index_parts = [m for m in parts if m.get("kind") == "index"]
        index_bytes = sum(m["wal"]["bytes"] for m in index_parts if "wal" in m)
        index_records = sum(m["wal"]["records"] for m in index_parts if "wal" in m)
        other_bytes = sum(m["wal"]["bytes"] for m in parts if "wal" in m and m.get("kind") != "index")
        total = r["wal"]["bytes"] + index_bytes + other_bytes
        r["wal_amplification"] = {
            "row_changes": n, **changes, "table_bytes": r["wal"]["bytes"], "toast_bytes": other_bytes,
            "index_bytes": index_bytes, "index_records": index_records, "bytes": total,
            "fpi_bytes": r["wal"]["fpi_bytes"] + sum(m["wal"]["fpi_bytes"] for m in parts if "wal" in m),
            "bytes_per_row_change": _per(total, n, 1), "index_records_per_row_change": _per(index_records, n)}


def _has(db, name: str) -> bool:
    try:
        db.relation(name)
        return True
    except PgpageError:
        return False


def _cluster_facts(c: DataDirectory) -> dict:
    cp = (c.control or {}).get("checkPointCopy", {})
    return {"path": str(c.path), "major": c.major, "next_xid": cp.get("nextXid"),
            "checkpoint_lsn": (c.control or {}).get("checkPoint"), "checkpoint_time": cp.get("time_iso")}


def _pages_written(r: dict, bs: int) -> int | None:
    """Pages of a relation (every fork) that reached disk between the snapshots: changed or added in
    place, every page of a rewritten or created file; None when its files cannot say (dropped, missing)."""
    if r["status"] == "in place":
        return sum(f["pages_changed"] + f["pages_added"] for f in (r.get("forks") or {}).values())
    if r["status"] in ("rewritten", "created"):
        return -(-r["after"]["size_bytes"] // bs)
    return None


def _per(n, d, digits: int = 2):
    return round(n / d, digits) if n is not None and d else None


def _denominators(r: dict, written: int, deleted: int) -> dict:
    """The row versions written (inserts and updates) and row changes (and deletes) the ratios divide by:
    the server's n_tup_* between the snapshots when both statistics files are current, else those counted
    from the versions on disk, a lower bound (a slot pruned and reused between the snapshots shows one
    version; the HOT scenario's 2,000 updates leave 114), which makes every ratio an upper bound."""
    st = r.get("statistics")
    if st and st.get("exact"):
        return {"source": "pg_stat", "exact": True, "row_versions": st["n_tup_ins"] + st["n_tup_upd"],
                "row_changes": st["n_tup_ins"] + st["n_tup_upd"] + st["n_tup_del"]}
    return {"source": "pages", "exact": False, "row_versions": written, "row_changes": written + deleted}


def _write_amplification(relations: list[dict], bs: int, *dbs) -> None:
    """Per table: what its workload wrote, per logical row change (an insert, update or delete) and per
    row version written (see ``_denominators``: the server's counts, or the versions on disk with a new
    xmin and those pruned since, see analysis.diff): index entries each of its B-trees gained, pages and
    bytes written to the table and to each index."""
    by_oid = {r["oid"]: r for r in relations}
    indexes = {r.oid: r for db in reversed(dbs) for r in db.relations() if r.table is not None}
    for oid, rel in indexes.items():
        table = by_oid.get(rel.table.oid)
        r = by_oid.get(oid)
        if table is None or r is None:
            continue
        delta = (r.get("index") or {}).get("delta") or {}
        if r["status"] == "in place" and not r.get("changed"):
            added = 0  # byte-identical
        else:
            added = delta.get("entries")
        # entries are counted in B-trees (pgpage index); another AM's index that changed: not counted
        table.setdefault("indexes", []).append({"name": r["name"], "oid": oid, "am": r["am"], "status": r["status"],
                                                "entries_added": added,
                                                "entries_counted": added is not None,
                                                "pages_written": _pages_written(r, bs)})
    for r in relations:
        t = (r.get("pages") or {}).get("tuples")
        if not t or not r.get("changed"):
            continue  # heaps kept in place that changed: a rewrite's tuples are all new, whatever the workload did
        on_disk = t["inserted"] + t["new_versions"]
        pruned = t["pruned_roots_written"] + t["pruned_heap_only_written"]
        written = on_disk + pruned
        per = _denominators(r, written, t["deleted"])
        versions, changes = per["row_versions"], per["row_changes"]
        idx = r.get("indexes", [])
        for i in idx:
            i["entries_per_row_version"] = _per(i["entries_added"], versions)
            i["bytes_written"] = i["pages_written"] * bs if i["pages_written"] is not None else None
            i["pages_per_row_change"] = _per(i["pages_written"], changes, 4)
            i["bytes_per_row_change"] = _per(i["bytes_written"], changes, 1)
        not_counted = [i["name"] for i in idx if not i["entries_counted"]]
        added = None if not_counted else sum(i["entries_added"] for i in idx)
        table_pages = _pages_written(r, bs)
        total_pages = table_pages + sum(i["pages_written"] or 0 for i in idx)
        # two lower bounds of the HOT updates (a heap-only version each; an old version HOT-updated each)
        hot_proven = max(t["heap_only_versions"] + t["pruned_heap_only_written"],
                         t["hot_updated"] + t["redirects_created"])
        r["write_amplification"] = {
            "row_versions_written": written, "row_versions_on_disk": on_disk, "row_versions_pruned_since": pruned,
            "logical_row_changes": changes, "ratios_per": per, "hot_updates_at_least": hot_proven,
            "index_entries_added": added, "index_entries_per_row_version": _per(added, versions),
            "indexes_not_counted": not_counted,
            "table_pages_written": table_pages, "table_bytes_written": table_pages * bs,
            "table_pages_per_row_change": _per(table_pages, changes, 4),
            "table_bytes_per_row_change": _per(table_pages * bs, changes, 1),
            "total_pages_written": total_pages, "total_bytes_written": total_pages * bs,
            "total_bytes_per_row_change": _per(total_pages * bs, changes, 1),
        }


def _compare_relation_files(before_path: str, after_path: str, details: bool) -> dict:
    """Two files of the same relation at two moments. Inside data directories whose catalogs name them, the
    relation is compared as `diff BEFORE_DIR AFTER_DIR --rel` compares it (every fork, its indexes, the
    statistics); files read without catalogs are compared page by page."""
    from pgpage.storage.names import spelled
    from pgpage.storage.target import resolve
    b, a = resolve(before_path), resolve(after_path)
    if b.fork.fork != "main" or a.fork.fork != "main":
        raise PgpageError("diff compares main forks of heaps and indexes", ExitCode.USAGE)
    if b.relation is not None and a.relation is not None:
        if (b.relation.oid, b.database.oid) != (a.relation.oid, a.database.oid):
            raise PgpageError(f"BEFORE is {b.label} and AFTER is {a.label}: two different relations (diff compares"
                              " one relation at two moments)", ExitCode.USAGE)
        if b.segno is None and a.segno is None:
            return compare_clusters(str(b.cluster.path), str(a.cluster.path), a.database.name,
                                    spelled(a.relation.namespace, a.relation.name), details)
    elif b.fork.stem != a.fork.stem:
        raise PgpageError(f"BEFORE is relation file {b.fork.stem} and AFTER is {a.fork.stem}: two different"
                          " relations (diff compares one relation at two moments)", ExitCode.USAGE)
    return compare_files(b, a)


def compare_files(b, a) -> dict:
    """Two relation files (``storage.target.Target``s) read page by page: the same relation at two moments."""
    before_path, after_path = b.label, a.label
    next_xid = ((b.cluster.control or {}).get("checkPointCopy", {}).get("nextXid")
                if b.cluster is not None and b.cluster.control else None)
    nb, na = b.fork.nblocks, a.fork.nblocks
    pages = {"before": nb, "after": na, "added": max(0, na - nb), "removed": max(0, nb - na)}
    from pgpage.decode.page import classify
    from pgpage.decode.pagebase import PageContext
    from pgpage.decode.ksy.pg_page import PgPage
    first = b.fork.read_block(b.fork.first_block) if nb else None
    kind = classify(PgPage.from_bytes(first), first, PageContext(), True) if first else "heap"
    if kind == "heap":
        pages.update(compare_heap_pages(b.cluster, a.cluster, b.fork, a.fork, next_xid))
        changed = pages["page_classes"]["changed"]
    else:
        pages.update(compare_index_pages(b.fork, a.fork))
        changed = pages["changed"]
    # the file's name (its relfilenode): the paths are the document's "before" and "after"
    rel = {"name": a.fork.name, "kind": "table" if kind == "heap" else "index", "status": "in place",
           "before": {"size_bytes": b.fork.size_bytes, "blocks": nb}, "after": {"size_bytes": a.fork.size_bytes,
                                                                               "blocks": na},
           "pages": pages, "changed": bool(changed or pages["added"] or pages["removed"])}
    return {"before": {"path": before_path}, "after": {"path": after_path}, "relations": [rel]}
