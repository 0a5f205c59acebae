"""Two snapshots of the same cluster (or relation): what physically happened between them.

Relations are matched by schema-qualified name; one whose file number changed was rewritten
(VACUUM FULL, CLUSTER, TRUNCATE, REINDEX) and is compared by its figures only. A relation kept
in place is read block by block from both sides in lockstep and classified by
``analysis.diff``; heaps and B-trees are also summarised on both sides (``pgpage heap`` and
``pgpage index`` figures) so their changes in size, free space, VM coverage, index entries and
posting lists can be set side by side. Returns plain dicts; never prints.
"""
from __future__ import annotations

from dataclasses import asdict
from itertools import zip_longest
from pathlib import Path

import numpy as np

from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.datadir import HEAP_KINDS, DataDirectory, Relation, open_data_directory
from pgpage.storage.relfile import RelationFork


def diff_document(before: str, after: str, db: str | None, rel: str | None, details: bool = False) -> dict:
    """The `pgpage diff` document (schema pgpage.diff/1) of two data directories or two relation files, with
    ``relations_changed``: how many relations moved or changed (the command's exit status)."""
    b, a = Path(before), Path(after)
    for p in (b, a):
        if not p.exists():
            raise PgpageError(f"{p}: no such file or directory", ExitCode.UNREADABLE)
    if b.is_dir() != a.is_dir():
        raise PgpageError("give two data directories or two relation files", ExitCode.USAGE)
    if b.is_dir():
        doc = compare_clusters(before, after, db, rel, details)
    else:
        if db or rel:
            raise PgpageError("--db and --rel go with data directories", ExitCode.USAGE)
        doc = compare_files(before, after)
    doc = {"schema": "pgpage.diff/1", **doc}
    doc["relations_changed"] = sum(1 for r in doc["relations"] if r["status"] != "in place" or r.get("changed"))
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
    from pgpage.analysis.diff import HintPrediction, PageClasses, TupleEvents, diff_heap_chunk, tuple_events
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
            continue
        b_first, b_raw = b_chunk
        b_dec = decode_heap_chunk(b_raw, b_first)
        _, per_tuple = chunk_stats(b_dec, clog, multi)
        classes = np.zeros(min(len(b_raw), len(a_raw)), dtype=np.int64) if detail_pages is not None else None
        c, e, h = diff_heap_chunk(b_raw, a_raw, b_dec, a_dec, before_next_xid, per_tuple["dirtied_pages"], classes)
        pc.merge(c)
        ev.merge(e)
        hp.merge(h)
        if detail_pages is not None:
            detail_pages.extend((b_first + i, int(v)) for i, v in enumerate(classes) if v)
    return {"page_classes": asdict(pc), "tuples": asdict(ev), "hint_prediction": asdict(hp)}


def compare_index_pages(b_fork: RelationFork, a_fork: RelationFork) -> dict:
    """Pages of an index kept in place: changed, added (splits and extension), removed."""
    changed = 0
    for (_, b), (_, a) in zip(b_fork.iter_chunks(), a_fork.iter_chunks()):
        n = min(len(a), len(b))
        changed += int((a[:n] != b[:n]).any(axis=1).sum())
    return {"changed": changed}


def compare_relation(before: DataDirectory | None, after: DataDirectory | None, b_rel: Relation | None,
                     a_rel: Relation | None, before_next_xid: int | None, details: bool = False) -> dict:
    rel = a_rel or b_rel
    out = {"name": rel.qualified_name, "kind": rel.kind_name, "am": rel.access_method}
    if b_rel is None or a_rel is None:
        out["status"] = "created" if b_rel is None else "dropped"
        side = a_rel or b_rel
        out["after" if b_rel is None else "before"] = {"relfilenode": side.relfilenode, "size_bytes": side.size_bytes}
        return out
    b_main, a_main = b_rel.forks.get("main"), a_rel.forks.get("main")
    out["before"] = {"relfilenode": b_rel.relfilenode, "size_bytes": b_rel.size_bytes,
                     "blocks": b_main.nblocks if b_main else 0}
    out["after"] = {"relfilenode": a_rel.relfilenode, "size_bytes": a_rel.size_bytes,
                    "blocks": a_main.nblocks if a_main else 0}
    rewritten = b_rel.relfilenode != a_rel.relfilenode
    out["status"] = "rewritten" if rewritten else "in place"
    heap = rel.kind in HEAP_KINDS
    btree = rel.kind == "i" and rel.access_method == "btree"
    if heap:
        b = _heap_summary(before, b_main, b_rel.forks.get("vm"), b_rel.forks.get("fsm"), rel.qualified_name) if b_main else None
        a = _heap_summary(after, a_main, a_rel.forks.get("vm"), a_rel.forks.get("fsm"), rel.qualified_name) if a_main else None
        out["heap"] = {"before": b, "after": a, "delta": _delta(b, a)}
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
    out["changed"] = bool(pages["added"] or pages["removed"] or
                          (pages.get("page_classes", {}).get("changed") if heap else pages.get("changed")))
    return out


def _relations_by_name(db) -> dict[str, Relation]:
    return {r.qualified_name: r for r in db.relations() if r.forks}


def compare_clusters(before_path: str, after_path: str, db_name: str | None, rel_name: str | None,
                     details: bool = False) -> dict:
    before, after = open_data_directory(before_path), open_data_directory(after_path)
    if before.major != after.major:
        raise PgpageError(f"the snapshots are of different majors ({before.major} and {after.major})", ExitCode.USAGE)
    next_xid = (before.control or {}).get("checkPointCopy", {}).get("nextXid")
    b_db, a_db = before.database(db_name), after.database(db_name)
    b_rels, a_rels = _relations_by_name(b_db), _relations_by_name(a_db)
    names = sorted(set(b_rels) | set(a_rels))
    if rel_name:
        want = {b_db.relation(rel_name).qualified_name} if rel_name in b_rels or _has(b_db, rel_name) else {
            a_db.relation(rel_name).qualified_name}
        names = [n for n in names if n in want]
    relations = [compare_relation(before, after, b_rels.get(n), a_rels.get(n), next_xid, details) for n in names]
    _write_amplification(relations, a_db if a_rels else b_db)
    return {"before": _cluster_facts(before), "after": _cluster_facts(after), "database": b_db.name,
            "relations": relations}


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


def _write_amplification(relations: list[dict], db) -> None:
    """Per table: index entries added per row version written, from its B-trees' entry counts."""
    by_name = {r["name"]: r for r in relations}
    for rel in db.relations():
        if rel.table is None or rel.qualified_name not in by_name:
            continue
        table = by_name.get(rel.table.qualified_name)
        index = by_name[rel.qualified_name].get("index")
        if table is None or not index or not index.get("delta"):
            continue
        added = index["delta"].get("entries") or 0
        table.setdefault("indexes", []).append({"name": rel.qualified_name, "entries_added": added})
    for r in relations:
        tuples = ((r.get("pages") or {}).get("tuples")) or None
        if not tuples or "indexes" not in r:
            continue
        writes = tuples["inserted"] + tuples["new_versions"]
        updates = tuples["hot_updated"] + tuples["non_hot_updated"]
        total_added = sum(i["entries_added"] for i in r["indexes"])
        r["write_amplification"] = {
            "heap_versions_written": writes, "updates": updates, "index_entries_added": total_added,
            "index_entries_per_heap_version": round(total_added / writes, 2) if writes else None,
        }


def compare_files(before_path: str, after_path: str) -> dict:
    """Two relation files: the same relation at two moments."""
    from pgpage.storage.target import resolve_fork
    b, a = resolve_fork(before_path, None, None, "main"), resolve_fork(after_path, None, None, "main")
    if b.fork.fork != "main" or a.fork.fork != "main":
        raise PgpageError("diff compares main forks of heaps and indexes", ExitCode.USAGE)
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
    rel = {"name": a.label, "kind": "table" if kind == "heap" else "index", "status": "in place", "pages": pages,
           "changed": bool(changed or pages["added"] or pages["removed"])}
    return {"before": {"path": before_path}, "after": {"path": after_path}, "relations": [rel]}
