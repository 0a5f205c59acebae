"""Why each update of a table was not HOT (``analysis.hotcause``), from the versions on disk.

Two reads of the table through the rows pass (``passes.rows.TableRows``, its decoder and verdicts):
the first, headers only, finds the old versions a committed non-HOT update replaced and where their
successors are; the second decodes only those versions and their successors, and only the columns
some index uses. Memory grows with the number of non-HOT updates on disk, not with the table.
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.hotcause import CauseTally, hot_blocking, index_columns, update_cause
from pgpage.analysis.rowstatus import UPDATED
from pgpage.decode.flags import HEAP_HOT_UPDATED, HEAP_XMAX_IS_MULTI
from pgpage.decode.xact import xid_precedes
from pgpage.passes.rows import RowOptions, TableRows


def table_indexes(relation) -> list:
    """``IndexColumns`` of every index of the table, from pg_index."""
    return [index_columns(r.name, r.am, r.index_row) for r in relation.database.relations()
            if r.index_row is not None and r.table is relation]


PAGE_HEADER_SIZE, ITEM_ID_SIZE, HEAP_TUPLE_HEADER_SIZE = 24, 4, 23


def _maxalign(n: int, cluster) -> int:
    a = (cluster.control or {}).get("maxAlign") or 8
    return (n + a - 1) // a * a


def free_then_below(new_len: int, cluster) -> int:
    """What the old page's free space (pd_upper - pd_lower) was under when an update put its new version
    (``new_len`` bytes, as stored) on another page: heap_update keeps it on the page unless
    MAXALIGN(t_len) > PageGetHeapFreeSpace, the free space less one line pointer (t_len after TOAST, as
    stored; the other page was taken only after that test failed, and no pruning can add room meanwhile,
    the updater's pin keeping it off). The one other way, a page with MaxHeapTuplesPerPage line pointers and
    none unused, is left out by the caller (no bound for a page that has that many now)."""
    return _maxalign(new_len, cluster) + ITEM_ID_SIZE


def why_not_hot(cluster, relation, read: bool = True, since_xid: int | None = None) -> dict:
    """The causes of the table's committed non-HOT updates still on disk: counts by cause and by index,
    examples. ``read`` False: the caller knows there are none (the document with zero counts).
    ``since_xid``: only the updates of transactions from that xid on (`diff`: the before snapshot's next
    xid); an update whose xid is unknown (a multixact xmax and no successor on disk) is left out."""
    indexes = table_indexes(relation)
    attrs = relation.database.attributes(relation.oid)
    names = {r["attnum"]: r["attname"] for r in attrs if r.get("attisdropped") is not True}
    natts = max(names, default=0)
    used = sorted(a for a in set().union(*(ix.attnums(natts) for ix in indexes)) if a in names)
    rows = TableRows(cluster, relation, RowOptions(all_versions=True,
                                                   columns=[names[a] for a in used] or None))
    block_size = rows.fork.block_size if rows.fork is not None else 8192
    olds: dict[tuple[int, int], tuple] = {}    # old ctid -> (successor ctid, xmax, xmax is a multi, page free now,
    #                                            the page now has MaxHeapTuplesPerPage line pointers)
    max_items = (block_size - PAGE_HEADER_SIZE) // (_maxalign(HEAP_TUPLE_HEADER_SIZE, cluster) + ITEM_ID_SIZE)
    for c in (rows.chunks() if read else ()):
        j = np.flatnonzero((c.status == UPDATED) & ((c.infomask2 & HEAP_HOT_UPDATED) == 0))
        page = c.start[j] // block_size * block_size
        lower, upper = (c.flat[page + at].astype(np.int64) | c.flat[page + at + 1].astype(np.int64) << 8
                        for at in (12, 14))     # pd_lower, pd_upper
        for key, succ, xmax, multi, free, full in zip(
                zip(c.block[j].tolist(), c.item[j].tolist()), zip(c.ctid_block[j].tolist(), c.ctid_offset[j].tolist()),
                c.xmax[j].tolist(), ((c.infomask[j] & HEAP_XMAX_IS_MULTI) != 0).tolist(),
                np.maximum(upper - lower, 0).tolist(), ((lower - PAGE_HEADER_SIZE) // ITEM_ID_SIZE >= max_items).tolist()):
            olds[key] = (succ, xmax, multi, free, full)
    needed = set(olds) | {o[0] for o in olds.values()}
    # the stored values of old and new versions, compared as heap_update compares them (HeapDetermineColumnsInfo:
    # the bytes of the datums, a TOAST pointer's own bytes, nothing fetched); a changed indexed column is the
    # cause wherever the new version went; none read when no index uses a column
    found: dict[tuple[int, int], tuple] = {}    # ctid -> (xmin, values, lp_len)
    if olds:
        wanted = np.array(sorted(b << 16 | i for b, i in needed), dtype=np.int64)   # (ctids as one number)
        for c in rows.chunks():
            ctids = c.block << 16 | c.item
            which = np.flatnonzero(wanted[np.minimum(np.searchsorted(wanted, ctids), len(wanted) - 1)] == ctids)
            keys = list(zip(c.block[which].tolist(), c.item[which].tolist()))
            values = rows.stored_values(c, which) if used else [[]] * len(which)
            for key, xmin, vals, length in zip(keys, c.xmin[which].tolist(), values, c.length[which].tolist()):
                found[key] = (xmin, vals, length)
    unreadable = {(f.block, f.item) for f in rows.findings if f.block is not None and f.item is not None}
    blocking = hot_blocking(indexes, natts, cluster.major)
    tally = CauseTally()
    for (blk, item), (succ, xmax, multi, free, full_of_items) in olds.items():
        new = found.get(succ)
        if new is not None and not multi and new[0] != xmax:
            new = None                           # the successor's slot holds another row now
        if since_xid is not None:
            updater = new[0] if new is not None else (None if multi else xmax)
            if updater is None or xid_precedes(updater, since_xid & 0xFFFFFFFF):
                continue
        changed = None
        if new is not None and (blk, item) in found and not {(blk, item), succ} & unreadable:
            changed = {a for a, x, y in zip(used, found[(blk, item)][1], new[1]) if x != y}
        verdict = update_cause(blk, succ[0] if new is not None else None, changed, indexes, natts, cluster.major,
                               names)
        extra = {}
        if verdict["cause"] == "other_page" or verdict.get("other_page"):
            extra = {"old_page_free_now": free, "new_len": new[2],
                     "old_page_free_then_below": None if full_of_items else free_then_below(new[2], cluster)}
        tally.add(f"({blk},{item})", f"({succ[0]},{succ[1]})", verdict, **extra)
    return {**tally.to_json(), "hot_blocking_columns": [names[a] for a in sorted(blocking) if a in names]}
