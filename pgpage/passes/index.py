"""`pgpage index`'s pass: a B-tree read chunk by chunk into ``analysis.btree.scan.BtreeScan``
(pgstatindex's figures, deduplication, dead items, structure checks), its heap TIDs looked up in
its table's pages (``HeapTidCheck``), and the root page and one page a person asks for decoded with
their keys.

With ``--jobs`` the index is cut into ranges of blocks scanned by worker processes and merged in block
order (``scan_index``); the table is checked by each worker with a cache of its own when the index is in
table order, else through one cache the workers share and fill together, a window of the table at a
time. Either way the report and findings are the ones one pass gives. Returns plain dicts; never prints.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Callable, Iterable

import numpy as np

from pgpage.analysis.btree.heapcheck import HeapTidCheck, merged_ranges
from pgpage.analysis.btree.keys import page_view
from pgpage.analysis.btree.pages import BTP_META, BTREE_MAGIC, SIZE_OF_BT_OPAQUE
from pgpage.analysis.btree.scan import BtreeScan, IndexInfo
from pgpage.analysis.btree.sink import FindingSink
from pgpage.findings import WARNING, ExitCode, Finding, PgpageError, a_or_an
from pgpage.storage.target import resolve

ROOT_ITEMS_SHOWN = 24  # separator keys of the root page shown in the report


def open_index_pass(target: str, db: str | None, rel: str | None, block: int | None = None):
    """The pass of TARGET's index: ``passes.amindex``'s for GIN, GiST, SP-GiST, hash and BRIN, else ``IndexPass``
    (a B-tree)."""
    from pgpage.passes.amindex import am_index_pass
    return am_index_pass(target, db, rel, block) or IndexPass(target, db, rel, block)


class IndexPass:
    """`pgpage index` on one B-tree: its file, or an index of a data directory named with --db/--rel (then
    its catalog entry, its columns, and its table, whose pages its heap TIDs are checked against).
    ``block``: one page to decode with its keys as well. ``blocks`` is what ``document`` reads."""

    def __init__(self, target: str, db: str | None, rel: str | None, block: int | None = None):
        t = resolve(target, db, rel, "main", what="index")
        cluster, relation, database = t.cluster, t.relation, t.database
        relfork = t.fork
        findings: list[Finding] = list(relfork.findings)
        if relfork.fork != "main":
            raise PgpageError(f"{t.label}: the {relfork.fork} fork is not an index's pages; name its main fork",
                              ExitCode.USAGE)
        if not relfork.exists:
            raise PgpageError(f"{t.label}: the index has no file", ExitCode.UNREADABLE)
        # an access method pg_am no longer names (damaged) is no refusal: the file's metapage decides below
        if relation is not None and relation.access_method not in ("btree", None):
            raise PgpageError(f"{t.label} is {a_or_an(relation.kind_name)} ({relation.access_method or 'no access method'}),"
                              " not a B-tree index", ExitCode.USAGE)
        nblocks = relfork.end_block
        _refuse_if_not_btree(relfork, t.label, relation is not None and relation.access_method is not None)
        if block is not None and not relfork.first_block <= block < nblocks:
            raise PgpageError(f"block {block} is outside this index's blocks {relfork.first_block}..{nblocks - 1}",
                              ExitCode.USAGE)

        info = IndexInfo(relation=t.context.relation)
        make_heap = None
        table_blocks = 0
        tfork = None  # the table's main fork, when its TIDs are checked
        if relation is not None:
            info = index_info(relation, database)
            table = relation.table
            if table is None:
                findings.append(Finding("btree.heap.no_table", "pg_index names no table for this index: heap TIDs"
                                        " are not checked", WARNING, relation=info.relation))
            elif table.forks.get("main") is None or not table.forks["main"].exists:
                findings.append(missing_table_finding(table.qualified_name, info.relation))
            else:
                tfork = table.forks["main"]
                findings.extend(f for f in tfork.findings if f.code.startswith("segment."))
                if (why := table_unreadable(tfork, table.qualified_name, info.relation)) is not None:
                    findings.append(why)
                    tfork = None
                else:
                    make_heap = partial(heap_tid_check, tfork, table.qualified_name)
                    table_blocks = tfork.end_block
        if relfork.first_block:
            findings.append(Finding("btree.meta.not_read", f"only blocks {relfork.first_block}..{nblocks - 1} were"
                                    " read (one segment): the metapage and earlier pages are not part of the figures",
                                    WARNING, relation=info.relation))
        self.target, self.cluster, self.relation = t, cluster, relation
        self.block, self.info, self.findings = block, info, findings
        self.make_heap, self.table_blocks, self.table_fork = make_heap, table_blocks, tfork
        self.blocks = nblocks - relfork.first_block

    def document(self, jobs: int = 1, show_map: bool = False, on_chunk=None) -> dict:
        """The `pgpage index` document (schema pgpage.index/1), its ``map`` rows with ``show_map``; ``jobs`` 0:
        one worker per core. ``findings`` of the pass and of the page asked for are in it."""
        from pgpage.passes.parallel import block_ranges, default_jobs
        t, relation, info, findings = self.target, self.relation, self.info, self.findings
        relfork, cluster = t.fork, self.cluster
        nblocks, bs, major = relfork.end_block, relfork.block_size, t.context.major
        cp = ((cluster.control or {}).get("checkPointCopy") or {}) if cluster is not None else {}
        jobs = jobs or default_jobs()
        # workers sharing the table's cache (an index not in table order) decode the whole table for the TID
        # check; an index with fewer entries than a quarter of the table's blocks (a partial index, say) is
        # checked in one process, which reads only the blocks it needs
        reltuples = (relation.row.get("reltuples") or 0) if relation is not None else 0
        if self.make_heap is not None and 0 < reltuples < self.table_blocks / 4:
            jobs = 1
        ranges = block_ranges(relfork, jobs)
        report, scan_findings = scan_index(relfork.iter_chunks, nblocks, bs, major, info, self.make_heap,
                                           checksums=t.context.checksums, next_xid=cp.get("nextXid"),
                                           next_full_xid=cp.get("nextFullXid"), on_chunk=on_chunk,
                                           keep_rows=show_map, ranges=ranges, jobs=jobs)
        findings = findings + scan_findings
        findings.extend(f for fork in (relfork, self.table_fork) if fork is not None for f in fork.size_changes())

        doc = {
            "schema": "pgpage.index/1", "file": t.label, "relation": info.relation, "table": info.table,
            "major": major, "block_size": bs, "first_block": relfork.first_block, "end_block": nblocks,
            "index": _index_doc(info, relation),
        }
        doc.update(report)
        doc["root_items"] = _root_items(relfork, report, t.context, info)
        doc["block"] = _block_doc(relfork, self.block, t.context, info) if self.block is not None else None
        doc["findings"] = [f.to_json() for f in findings]
        return _no_nan(doc)


def heap_tid_check(table_fork, table: str | None, **kw) -> HeapTidCheck | None:
    """``HeapTidCheck`` over the table's main fork, reading the blocks it asks for (read-only, one
    batch at a time); ``kw``: HeapTidCheck's own (cache_blocks, shared)."""
    if table_fork is None or not table_fork.exists:
        return None
    return HeapTidCheck(table_fork.end_block, table_fork.block_reader(), table_fork.block_size, table, **kw)


def table_unreadable(table_fork, table: str | None, index: str | None) -> Finding | None:
    """One finding when the table's main fork cannot be read (its heap TIDs are then not checked: a table read
    as zeros would blame every TID), else None."""
    why = table_fork.probe() if table_fork is not None else None
    return None if why is None else unreadable_table_finding(table, index, why.path, why.reason)


def unreadable_table_finding(table: str | None, index: str | None, path, reason: str) -> Finding:
    return Finding("btree.heap.table_unreadable", f"table unreadable: heap TIDs not checked against {table}"
                   f" ({path}: {reason})", WARNING, relation=index, actual=reason)


def missing_table_finding(table: str | None, index: str | None) -> Finding:
    return Finding("btree.heap.table_missing", f"the table {table} has no main fork file: heap TIDs are not checked",
                   WARNING, relation=index)


def heap_tid_check_or_why(table_fork, table: str | None, index: str | None) -> tuple[HeapTidCheck | None,
                                                                                        Finding | None]:
    """(``heap_tid_check``, None), or (None, the ``table_unreadable`` finding)."""
    why = table_unreadable(table_fork, table, index)
    return (heap_tid_check(table_fork, table), None) if why is None else (None, why)


# ------------------------------------------------------------------------- the index, by workers
def scan_index(chunks: Callable[..., Iterable[tuple[int, np.ndarray]]], nblocks: int, block_size: int,
               major: int | None, info: IndexInfo | None = None,
               make_heap: Callable[..., HeapTidCheck] | None = None, checksums: bool | None = None,
               next_xid: int | None = None, next_full_xid: int | None = None, on_chunk=None,
               keep_rows: bool = False, ranges: list[tuple[int, int]] | None = None,
               jobs: int = 1, heap_per_worker: bool | None = None) -> tuple[dict, list[Finding]]:
    """Analyse a whole index from its chunks of pages (``chunks()`` iterates them all, ``chunks(lo, hi)``
    pages lo..hi-1, as ``RelationFork.iter_chunks``); ``make_heap(**kw)`` makes the check of the index against
    its table. With ``ranges`` of blocks (``block_ranges``) and ``jobs`` > 1, the ranges are scanned
    by worker processes and merged in block order: the same report and findings, the table checked by each
    worker on its own (``heap_per_worker``, ``_scan_per_worker``) or through a cache they share
    (``_scan_in_workers``); by default the first when the index is in table order (``_in_table_order``).
    Returns (report, findings)."""
    def new_scan(heap: HeapTidCheck | None) -> BtreeScan:
        return BtreeScan(nblocks, block_size, major, info, heap, checksums, next_xid, next_full_xid)

    if jobs > 1 and ranges and len(ranges) > 1:
        if heap_per_worker is None:
            heap_per_worker = make_heap is None or _in_table_order(new_scan, chunks, nblocks, make_heap())
        scan = (_scan_per_worker if heap_per_worker else _scan_in_workers)(new_scan, chunks, make_heap, ranges,
                                                                            jobs, on_chunk)
    else:
        scan = _one_pass(new_scan(make_heap() if make_heap else None), chunks, on_chunk=on_chunk)
    report = scan.report()
    if keep_rows:
        report["map"] = scan.leaf_rows()
    return report, scan.find.close()


def _one_pass(scan: BtreeScan, chunks, blocks: tuple[int | None, int | None] = (None, None),
              on_chunk=None) -> BtreeScan:
    """``scan`` fed index blocks lo..hi-1 (all of them by default), then its pages with TIDs into other windows
    of the table read again (``check_heap_windows``)."""
    for first, chunk in chunks(*blocks):
        scan.add_chunk(first, chunk)
        if on_chunk:
            on_chunk(chunk.shape[0])
    scan.check_heap_windows(chunks)
    return scan


ORDER_SAMPLES = 32  # index blocks read to tell whether an index is in table order


def _in_table_order(new_scan: Callable[[HeapTidCheck | None], BtreeScan], chunks, nblocks: int,
                    heap: HeapTidCheck | None) -> bool:
    """Whether the index is best checked by workers with a table cache each (``_scan_per_worker``): the table
    is bigger than one window of the cache and the index's leaf pages, read in block order, point into the
    table in order (nine in ten sampled leaves have all their TIDs in one window, and the windows go forward).
    Then each worker reads about its share of the table and few index pages twice; an index in random order
    would have each worker read all of the table, and is checked through a cache the workers share instead,
    as is any index of a table that fits one window (decoded once, by all workers, whatever the order)."""
    if heap is None:
        return True
    if heap.windows == 1:
        return False
    probe = new_scan(None)
    windows = []  # per sampled leaf with TIDs: (first, last) window they point into
    for blkno in sorted(set(np.linspace(1, nblocks - 1, ORDER_SAMPLES).astype(np.int64).tolist())):
        for first, chunk in chunks(blkno, blkno + 1):
            probe.add_chunk(first, chunk)
            hblk = probe.last_heap_blocks()
            if len(hblk):
                windows.append((int(hblk.min()) // heap.capacity, int(hblk.max()) // heap.capacity))
    if len(windows) < 2:
        return False
    in_one = sum(lo == hi for lo, hi in windows)
    forward = sum(b[0] >= a[1] for a, b in zip(windows, windows[1:]))
    return 10 * in_one >= 9 * len(windows) and 10 * forward >= 9 * (len(windows) - 1)


def _scan_per_worker(new_scan: Callable[[HeapTidCheck | None], BtreeScan], chunks, make_heap, ranges, jobs: int,
                     on_chunk) -> BtreeScan:
    """The index's ranges scanned by ``jobs`` workers, merged here in block order, each worker checking its
    range's TIDs against a table cache of its own (then reading again its pages with TIDs into other windows,
    ``check_heap_windows``)."""
    from pgpage.passes.parallel import run_tasks

    def scan_range(r: tuple[int, int]) -> dict:
        return _one_pass(new_scan(make_heap() if make_heap else None), chunks, r).part(*r)

    scan = new_scan(make_heap(cache_blocks=1) if make_heap else None)  # the parts are merged into it
    for (start, stop), part in zip(ranges, run_tasks(scan_range, ranges, jobs)):
        scan.merge(part)
        if on_chunk:
            on_chunk(stop - start)
    return scan


def fill_window(heap: HeapTidCheck, window: int, jobs: int) -> None:
    """A shared table cache moved to ``window`` and all of the window's blocks decoded into it, ``jobs`` workers
    each a part (then every TID into the window is checked without a read)."""
    from pgpage.passes.parallel import TASKS_PER_JOB, run_tasks
    for _ in run_tasks(heap.fill, heap.fill_parts(window, jobs * TASKS_PER_JOB), jobs):
        pass
    heap.filled = True


def _scan_in_workers(new_scan: Callable[[HeapTidCheck | None], BtreeScan], chunks, make_heap, ranges, jobs: int,
                     on_chunk) -> BtreeScan:
    """The index's ranges scanned by ``jobs`` workers, merged here in block order. The table is checked
    through one cache shared by all workers, a window of it at a time: the workers decode the window's
    blocks together, then scan their ranges of the index against it (window 0) or read again the index
    pages whose TIDs point into it (the windows after): each table block is decoded once, each index
    page read once per window its TIDs point into, whatever the number of workers."""
    from pgpage.passes.parallel import TASKS_PER_JOB, run_tasks, split_ranges
    heap = make_heap(shared=True) if make_heap else None
    scan = new_scan(heap)

    def scan_range(r: tuple[int, int]) -> dict:
        part = new_scan(heap.worker(index_pass=True) if heap is not None else None)
        for first, chunk in chunks(*r):
            part.add_chunk(first, chunk)
        return part.part(*r)

    def recheck(pages: list[tuple[int, int]]) -> tuple[dict, FindingSink]:
        part = scan.for_recheck(heap.worker(index_pass=False))  # knows every page from the merged scan
        part.check_pages(chunks, pages)
        return part.heap.part(), part.find

    for window in range(heap.windows if heap is not None else 1):
        if heap is not None:
            fill_window(heap, window, jobs)
        if window == 0:
            for (start, stop), part in zip(ranges, run_tasks(scan_range, ranges, jobs)):
                scan.merge(part)
                if on_chunk:
                    on_chunk(stop - start)
            continue
        groups = split_ranges(merged_ranges(sorted((lo, hi) for lo, hi, ws in heap.deferred if window in ws)),
                              jobs * TASKS_PER_JOB)
        for heap_part, find in run_tasks(recheck, groups, jobs):
            heap.merge(heap_part)  # (a recheck defers nothing)
            scan.find.merge(find)
    if heap is not None:
        heap.release()
    return scan


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
    looks_like_meta = special == len(raw) - SIZE_OF_BT_OPAQUE and (magic == BTREE_MAGIC or flags & BTP_META)
    if not looks_like_meta and not named:  # a damaged metapage of a named index is a finding instead
        raise PgpageError(f"{label}: not a B-tree index (block 0 is not a B-tree metapage)", ExitCode.UNREADABLE)


# ------------------------------------------------------------------------- the catalog's view
def index_info(relation, database):
    """What the catalog says of an index: its table, key and included columns, uniqueness, options and its
    attributes (``deform.Attribute``, attnum order; None without a catalog)."""
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

