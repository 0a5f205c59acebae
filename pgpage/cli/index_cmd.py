"""pgpage index: B-tree forensics offline (pgstatindex's figures, deduplication, dead items,
structure checks, the index against its table)."""
from __future__ import annotations

import math
from functools import partial
from pathlib import Path

from pgpage.cli.common import emit, exit_status
from pgpage.findings import WARNING, ExitCode, Finding, PgpageError

ROOT_ITEMS_SHOWN = 24  # separator keys of the root page shown in the report


def index_command(target: str, db: str | None, rel: str | None, json_out: bool, show_map: bool,
                  block: int | None, jobs: int = 1) -> int:
    from pgpage.analysis.btree import IndexInfo, scan_index
    from pgpage.analysis.verify_btree import heap_tid_check
    from pgpage.parallel import block_ranges, default_jobs
    from pgpage.render.progress import progress

    t, cluster, relation, database = _resolve(target, db, rel)
    relfork = t.fork
    findings: list[Finding] = list(relfork.findings)
    if relfork.fork != "main":
        raise PgpageError(f"{t.label}: the {relfork.fork} fork is not an index's pages; name its main fork",
                          ExitCode.USAGE)
    if not relfork.exists:
        raise PgpageError(f"{t.label}: the index has no file", ExitCode.UNREADABLE)
    if relation is not None and relation.access_method != "btree":
        raise PgpageError(f"{t.label} is a {relation.kind_name} ({relation.access_method or 'no access method'}),"
                          " not a B-tree index", ExitCode.USAGE)
    nblocks = relfork.end_block
    bs = relfork.block_size
    major = t.context.major
    _refuse_if_not_btree(relfork, t.label, relation is not None)
    if block is not None and not relfork.first_block <= block < nblocks:
        raise PgpageError(f"block {block} is outside this index's blocks {relfork.first_block}..{nblocks - 1}",
                          ExitCode.USAGE)

    info = IndexInfo(relation=t.context.relation)
    make_heap = None
    table_blocks = 0
    tfork = None  # the table's main fork, when its TIDs are checked
    if relation is not None:
        info = _index_info(relation, database)
        table = relation.table
        if table is None:
            findings.append(Finding("btree.heap.no_table", "pg_index names no table for this index: heap TIDs are"
                                    " not checked", WARNING, relation=info.relation))
        elif table.forks.get("main") is None or not table.forks["main"].exists:
            findings.append(Finding("btree.heap.table_missing", f"the table {table.qualified_name} has no main fork"
                                    " file: heap TIDs are not checked", WARNING, relation=info.relation))
        else:
            tfork = table.forks["main"]
            findings.extend(f for f in tfork.findings if f.code.startswith("segment."))
            make_heap = partial(heap_tid_check, tfork, table.qualified_name)
            table_blocks = tfork.end_block
    cp = ((cluster.control or {}).get("checkPointCopy") or {}) if cluster is not None else {}
    if relfork.first_block:
        findings.append(Finding("btree.meta.not_read", f"only blocks {relfork.first_block}..{nblocks - 1} were read"
                                " (one segment): the metapage and earlier pages are not part of the figures",
                                WARNING, relation=info.relation))
    with progress("index", nblocks - relfork.first_block) as advance:
        jobs = jobs or default_jobs()
        # workers sharing the table's cache (an index not in table order) decode the whole table for the TID
        # check; an index with fewer entries than a quarter of the table's blocks (a partial index, say) is
        # checked in one process, which reads only the blocks it needs
        reltuples = (relation.row.get("reltuples") or 0) if relation is not None else 0
        if make_heap is not None and 0 < reltuples < table_blocks / 4:
            jobs = 1
        ranges = block_ranges(relfork, jobs)
        report, scan_findings = scan_index(relfork.iter_chunks, nblocks, bs, major, info, make_heap,
                                           checksums=t.context.checksums, next_xid=cp.get("nextXid"),
                                           next_full_xid=cp.get("nextFullXid"), on_chunk=advance, keep_rows=show_map,
                                           ranges=ranges, jobs=jobs)
    findings.extend(scan_findings)
    findings.extend(f for fork in (relfork, tfork) if fork is not None for f in fork.size_changes())

    doc = {
        "schema": "pgpage.index/1", "file": t.label, "relation": info.relation, "table": info.table,
        "major": major, "block_size": bs, "first_block": relfork.first_block, "end_block": nblocks,
        "index": _index_doc(info, relation),
    }
    doc.update(report)
    doc["root_items"] = _root_items(relfork, report, t.context, info)
    doc["block"] = _block_doc(relfork, block, t.context, info) if block is not None else None
    doc["findings"] = [f.to_json() for f in findings]
    page_findings = doc["block"]["findings"] if doc["block"] else []
    doc = _no_nan(doc)
    def text(d):
        from pgpage.render.index import render_index  # Rich loads only for people's output
        render_index(d)

    emit(doc, json_out, text)
    return exit_status(findings + page_findings)


# ------------------------------------------------------------------------- what TARGET names
def _resolve(target: str, db: str | None, rel: str | None):
    """(ForkTarget, DataDirectory or None, catalog Relation or None, Database or None)."""
    from pgpage.storage.datadir import open_data_directory
    from pgpage.storage.target import find_data_directory, fork_target, resolve_fork
    path = Path(target)
    if path.is_dir():
        if not rel:
            raise PgpageError(f"{target} is a directory: name an index with --rel (and --db)", ExitCode.USAGE)
        cluster = open_data_directory(path)
        database = cluster.database(db)
        relation = database.relation(rel)
        return fork_target(cluster, db, rel, "main"), cluster, relation, database
    t = resolve_fork(target, db, rel, "main")
    datadir = find_data_directory(path) if path.exists() else None
    if datadir is None:
        return t, None, None, None
    # a file inside a data directory: find its database and relation by the file's place and name
    try:
        cluster = open_data_directory(datadir)
        parts = path.resolve().relative_to(datadir.resolve()).parts
        if len(parts) == 3 and parts[0] == "base" and parts[1].isdigit():
            database = next((d for d in cluster.databases() if d.oid == int(parts[1])), None)
            if database is not None:
                stem = t.fork.stem
                hits = [r for r in database.relations() if r.has_storage and str(r.relfilenode) == stem]
                if len(hits) == 1:
                    from dataclasses import replace
                    ctx = replace(t.context, relation=hits[0].qualified_name, am=hits[0].access_method)
                    t.context = ctx
                    return t, cluster, hits[0], database
        return t, cluster, None, None
    except PgpageError:
        return t, None, None, None


def _refuse_if_not_btree(relfork, label: str, named: bool) -> None:
    """A file whose first block is not a B-tree metapage (or an empty page) is not a B-tree index."""
    if relfork.first_block != 0 or relfork.nblocks == 0:
        return
    raw = relfork.read_block(0)
    if not any(raw):
        return  # a metapage never written: reported as a finding
    magic = int.from_bytes(raw[24:28], "little")
    flags = int.from_bytes(raw[-4:-2], "little")
    special = int.from_bytes(raw[16:18], "little")
    from pgpage.analysis.btree import BTP_META, BTREE_MAGIC, SIZE_OF_BT_OPAQUE
    looks_like_meta = special == len(raw) - SIZE_OF_BT_OPAQUE and (magic == BTREE_MAGIC or flags & BTP_META)
    if not looks_like_meta and not named:  # a damaged metapage of a named index is a finding instead
        raise PgpageError(f"{label}: not a B-tree index (block 0 is not a B-tree metapage)", ExitCode.UNREADABLE)


# ------------------------------------------------------------------------- the catalog's view
def _index_info(relation, database):
    from pgpage.analysis.btree import IndexInfo
    from pgpage.decode.deform import Attribute
    row = relation.index_row or {}
    attrs = []
    for a in database.attributes(relation.oid) if database is not None else []:
        attrs.append(Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"],
                               bool(a.get("attisdropped"))))
    natts = row.get("indnatts")
    return IndexInfo(relation=relation.qualified_name, table=relation.table.qualified_name if relation.table else None,
                     natts=natts, nkeyatts=row.get("indnkeyatts", natts), unique=row.get("indisunique"),
                     reloptions=list(relation.row.get("reloptions") or []), attributes=attrs or None)


def _index_doc(info, relation) -> dict | None:
    if relation is None:
        return None
    from pgpage.decode.datum import type_info
    row = relation.index_row or {}
    return {
        "oid": relation.oid, "relfilenode": relation.relfilenode, "indisunique": info.unique,
        "indisprimary": row.get("indisprimary"), "indnatts": info.natts, "indnkeyatts": info.nkeyatts,
        "indkey": row.get("indkey"), "reloptions": info.reloptions,
        "attributes": [{"attnum": i + 1, "attname": a.name, "atttypid": a.typid,
                        "type": (type_info(a.typid).name if type_info(a.typid) else None)}
                       for i, a in enumerate(info.attributes or [])],
    }


# ------------------------------------------------------------------------- pages a person looks at
def _root_items(relfork, report: dict, ctx, info) -> dict | None:
    """The root page's items with their keys: the index's top-level key ranges."""
    meta = report.get("bt_metap") or {}
    root = meta.get("root")
    if not root or not relfork.first_block <= root < relfork.end_block:
        return None
    from pgpage.analysis.btree import page_view
    page = page_view(relfork.read_block(root), root, ctx, info.attributes)
    items = page.get("bt_page_items") or []
    return {"blkno": root, "level": (page.get("bt_page_opaque") or {}).get("btpo_level"), "nitems": len(items),
            "items": [_item_doc(it) for it in items[:ROOT_ITEMS_SHOWN]]}


def _item_doc(it: dict) -> dict:
    out = dict(it)
    if out.get("tids") is not None and len(out["tids"]) > 8:  # the root summary keeps posting lists short
        out["tids"] = out["tids"][:8] + [f"... {len(it['tids']) - 8} more"]
    return out


def _block_doc(relfork, block: int, ctx, info) -> dict:
    from pgpage.analysis.btree import page_view
    page = page_view(relfork.read_block(block), block, ctx, info.attributes)
    out = {k: v for k, v in page.items() if k != "raw_header"}
    out["findings"] = [f.to_json() for f in page["findings"]]
    return out


def _no_nan(value):
    """NaN (pgstatindex's answer for an index without leaf pages) becomes JSON null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nan(v) for v in value]
    return value

