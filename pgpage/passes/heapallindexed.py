"""``verify --heapallindexed``: a B-tree index against its table, as amcheck's ``heapallindexed`` option
(``bt_index_check(index, heapallindexed => true)``), from the files alone, in both directions:

* every heap tuple that should be in the index has an entry with an equal key and its TID (a heap-only
  tuple's entry carries the TID of its HOT chain's root line pointer); "should", as
  ``bt_index_parent_check(heapallindexed)``, whose scan with SnapshotAny (heapam_index_build_range_scan)
  indexes what HeapTupleSatisfiesVacuum calls LIVE, RECENTLY_DEAD (unless HOT-updated: only its chain's
  last version is indexed) and DELETE_IN_PROGRESS: here, a live version (xmin committed, xmax not
  committed: a deleter still running counts as not committed), and a version a committed transaction
  deleted, updated (not HOT) or moved that is recently dead (``recently_dead_since``). A version whose
  deleter is older is DEAD: its entry may be gone (VACUUM, LP_DEAD items deleted), so it is not required.
  An inserter still in progress is not required either: offline it never commits (the cluster crashed or
  was copied while running; recovery aborts it);
* every index entry (posting lists expanded; LP_DEAD entries skipped, as amcheck does) whose TID leads
  to a tuple (or the root of a HOT chain) has the key of that tuple or of one of its chain's versions.
  An entry whose TID leads nowhere is ``analysis.btree.heapcheck``'s.

Keys are compared as ``rows`` prints values (``TableRows``, its decoder for the heap, with TOAST
reassembled), the index's own datums printed by the same formatter. Only indexes on plain columns of
the types whose order ``analysis.btree.order`` computes are compared; an expression index or another
type is one info finding. A partial index's predicate is not evaluated: the heap-to-index direction is
skipped for it (one info finding), the index-to-heap direction still runs.

Memory: the index's entries (TID, key text, where) are held while the table is read once.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pgpage.analysis.btree.keys import index_datums
from pgpage.analysis.btree.order import TYPES
from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_LEAF, BTP_META, INDEX_ALT_TID_MASK, INDEX_SIZE_MASK,
                                         LP_NORMAL, LP_REDIRECT, P_NONE, SIZE_OF_ITEM_POINTER, SIZE_OF_PAGE_HEADER)
from pgpage.analysis.verify.xids import FIRST_NORMAL_XID
from pgpage.decode.flags import HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_XMAX_IS_MULTI
from pgpage.decode.xact import xid_precedes
from pgpage.findings import ERROR, INFO, Finding


def recently_dead_since(control: dict | None, clean: bool) -> int | None:
    """The xid from which a version deleted by a committed transaction was still RECENTLY_DEAD when the files
    were written (HeapTupleSatisfiesVacuum: its deleter does not precede the oldest xmin some snapshot might
    still hold), or None when no version is. After a clean shutdown none is: no transaction or snapshot outlives
    it, every committed deletion is dead to all. Else (running, crashed) the last checkpoint's oldestActiveXid,
    the oldest xid running then (0 when wal_level is minimal or the checkpoint was a shutdown's: unknown)."""
    if clean:
        return None
    xid = ((control or {}).get("checkPointCopy") or {}).get("oldestActiveXid")
    return xid if isinstance(xid, int) and xid >= FIRST_NORMAL_XID else None


def heapallindexed(cluster, index, label: str | None, clean: bool = True) -> Iterator[Finding]:
    """Findings of the heapallindexed comparison of ``index`` (a ``datadir.Relation``) with its table; ``clean``:
    the cluster was shut down cleanly (``recently_dead_since``)."""
    def note(text: str) -> Finding:
        return Finding("btree.heapallindexed.not_checked", f"heapallindexed not checked: {text}", INFO,
                       relation=label, fork="main")
    from pgpage.decode.deform import Attribute
    from pgpage.passes.rows import RowOptions, TableRows
    row, table, db = index.index_row or {}, index.table, index.database
    if table is None or table.forks.get("main") is None or index.forks.get("main") is None:
        return
    natts = row.get("indnatts")
    indkey = list(row.get("indkey") or [])[:natts] if isinstance(natts, int) else []
    if not indkey or len(indkey) != natts:
        yield note("index columns unknown")
        return
    if any(k == 0 for k in indkey):
        yield note("expression index")
        return
    iattrs = [Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"] is True)
              for a in db.attributes(index.oid)]
    tcols = {a["attnum"]: a for a in db.attributes(table.oid)}
    if len(iattrs) != natts or any(k not in tcols for k in indkey):
        yield note("index columns unknown")
        return
    odd = [a for a in iattrs if a.typid not in TYPES]
    if odd:
        from pgpage.decode.datum import type_info
        t = type_info(odd[0].typid)
        yield note(f"type {t.name if t else odd[0].typid}")
        return
    partial = row.get("indpred") is not None
    if partial:
        yield note("partial index: its predicate is not evaluated, heap tuples are not required in it")
    since = recently_dead_since(cluster.control, clean)
    if not clean and since is None and not partial:
        yield note("recently dead versions: pg_control's last checkpoint names no oldest running xid, versions"
                   " deleted by committed transactions are not required in the index")
    rows = TableRows(index.database.cluster, table, RowOptions(all_versions=True,
                                                               columns=[tcols[k]["attname"] for k in indkey]))
    entries = _index_entries(index.forks["main"], iattrs, rows)
    matched: set[int] = set()      # entries (by position) whose key a tuple at their TID has
    reached: set[int] = set()      # TIDs (roots) where a tuple was found
    for chunk in rows.chunks():
        bs = rows.fork.block_size
        pages = chunk.flat.reshape(-1, bs)
        first = int(chunk.block[0]) - int(chunk.start[0]) // bs if len(chunk.block) else 0
        roots: dict[int, dict[int, int]] = {}
        for v in rows.versions(chunk):
            root = v.item
            if v.infomask2 & HEAP_ONLY_TUPLE:
                if v.block not in roots:
                    roots[v.block] = _hot_roots(pages[v.block - first].tobytes())
                root = roots[v.block].get(v.item)
                if root is None:
                    continue       # a heap-only tuple no chain reaches: the HOT checks report it
            tid = v.block << 16 | root
            key = tuple(v.values)
            here = entries.get(tid, ())
            if here:
                reached.add(tid)
            hit = [i for i, (k, _, _) in here if k == key]
            matched.update(hit)
            if hit or partial:
                continue
            recent = _recently_dead(v, since, cluster.multi_update_xid) if since is not None else None
            if v.status == "live" or recent is not None:
                why = "" if recent is None else (f" (recently dead: deleted by xid {recent}, not older than the"
                                                 f" last checkpoint's oldest running xid {since})")
                if root != v.item:     # amcheck names the TID the entry should carry: the chain's root
                    why += f" (the version at ({v.block},{v.item}) of the HOT chain rooted there)"
                yield Finding("btree.heapallindexed.missing", f"heap tuple ({v.block},{root}) from table"
                              f" \"{table.name}\" lacks matching index tuple within index \"{index.name}\"{why}",
                              ERROR, relation=label, fork="main", actual=f"({v.block},{root})")
    for tid, here in entries.items():
        if tid not in reached:
            continue
        for i, (key, blk, off) in here:
            if i not in matched:
                yield Finding("btree.heapallindexed.key_mismatch", f"index tuple ({blk},{off}) points to heap"
                              f" tid ({tid >> 16},{tid & 0xFFFF}), whose key is not the index tuple's", ERROR,
                              relation=label, fork="main", block=blk, item=off, actual=f"({tid >> 16},{tid & 0xFFFF})")
    yield from (Finding(f.code, f.message, f.severity, label, "main", f.block, f.item, f.expected, f.actual)
                for f in rows.findings if f.severity == ERROR and f.code.startswith("rows.value"))


def _recently_dead(v, since: int, multi_update_xid) -> int | None:
    """The deleting xid of a version that is RECENTLY_DEAD and indexed (deleted, updated or moved by a committed
    transaction whose xid does not precede ``since``; not HOT-updated), else None."""
    if v.status not in ("deleted", "updated", "moved") or v.infomask2 & HEAP_HOT_UPDATED:
        return None
    xid = v.xmax
    if v.infomask & HEAP_XMAX_IS_MULTI:
        if multi_update_xid is None:
            return None
        xid = int(multi_update_xid(np.array([xid], dtype=np.int64))[0])
    return xid if xid >= FIRST_NORMAL_XID and not xid_precedes(xid, since) else None


def _index_entries(fork, iattrs, rows) -> dict[int, list]:
    """TID -> [(position, key texts, block, item)] of every leaf entry (posting lists expanded)."""
    out: dict[int, list] = {}
    n = 0
    for first, chunk in fork.iter_chunks():
        for i in range(chunk.shape[0]):
            blkno = first + i
            if blkno == 0:
                continue
            page = chunk[i].tobytes()
            flags = int.from_bytes(page[-4:-2], "little")
            if not flags & BTP_LEAF or flags & (BTP_DELETED | BTP_HALF_DEAD | BTP_META):
                continue
            lower, upper = int.from_bytes(page[12:14], "little"), int.from_bytes(page[14:16], "little")
            if not SIZE_OF_PAGE_HEADER <= lower <= upper <= len(page):
                continue
            firstkey = 1 if int.from_bytes(page[-12:-8], "little") == P_NONE else 2
            for item in range(firstkey, (lower - SIZE_OF_PAGE_HEADER) // 4 + 1):
                lp = int.from_bytes(page[SIZE_OF_PAGE_HEADER + 4 * (item - 1):SIZE_OF_PAGE_HEADER + 4 * item], "little")
                off, lpflags, length = lp & 0x7FFF, (lp >> 15) & 3, lp >> 17
                if lpflags != LP_NORMAL or length < 8 or off + length > len(page):
                    continue
                raw = page[off:off + length]
                info = int.from_bytes(raw[6:8], "little")
                size = min(info & INDEX_SIZE_MASK, length)
                bi = int.from_bytes(raw[0:2], "little") << 16 | int.from_bytes(raw[2:4], "little")
                posid = int.from_bytes(raw[4:6], "little")
                end, tids = size, [(bi, posid)]
                if info & INDEX_ALT_TID_MASK:
                    if not posid & BT_IS_POSTING or posid & BT_PIVOT_HEAP_TID_ATTR:
                        continue      # a pivot where entries belong: the scan reports it
                    cnt, start = posid & BT_OFFSET_MASK, bi & 0xFFFF
                    if start + SIZE_OF_ITEM_POINTER * cnt > size:
                        continue
                    end = start
                    tids = [(int.from_bytes(raw[p:p + 2], "little") << 16 | int.from_bytes(raw[p + 2:p + 4], "little"),
                             int.from_bytes(raw[p + 4:p + 6], "little"))
                            for p in range(start, start + SIZE_OF_ITEM_POINTER * cnt, SIZE_OF_ITEM_POINTER)]
                datums = index_datums(raw, iattrs, len(iattrs), end)
                key = tuple(None if d.isnull or d.raw is None else rows._text(a, d.raw, blkno, item)
                            for a, d in zip(iattrs, datums))
                for b, o in tids:
                    out.setdefault(b << 16 | o, []).append((n, key, blkno, item))
                    n += 1
    return {t: [(e[0], (e[1], e[2], e[3])) for e in v] for t, v in out.items()}


def _hot_roots(page: bytes) -> dict[int, int]:
    """Heap-only tuple offset -> the offset of its HOT chain's root (a redirect or a tuple that is not heap-only)."""
    lower = int.from_bytes(page[12:14], "little")
    n = max(0, (lower - SIZE_OF_PAGE_HEADER) // 4)
    lps = [int.from_bytes(page[SIZE_OF_PAGE_HEADER + 4 * k:SIZE_OF_PAGE_HEADER + 4 * k + 4], "little") for k in range(n)]

    def tuple_at(o):
        if not 1 <= o <= n or (lps[o - 1] >> 15) & 3 != LP_NORMAL:
            return None
        off = lps[o - 1] & 0x7FFF
        if off + 24 > len(page):
            return None
        im2 = int.from_bytes(page[off + 18:off + 20], "little")
        return im2, int.from_bytes(page[off + 16:off + 18], "little")     # t_infomask2, t_ctid's offset

    out: dict[int, int] = {}
    for root in range(1, n + 1):
        lp = lps[root - 1]
        if (lp >> 15) & 3 == LP_REDIRECT:
            nxt = lp & 0x7FFF
        else:
            t = tuple_at(root)
            if t is None or t[0] & HEAP_ONLY_TUPLE or not t[0] & HEAP_HOT_UPDATED:
                continue
            nxt = t[1]
        for _ in range(n):
            t = tuple_at(nxt)
            if t is None or not t[0] & HEAP_ONLY_TUPLE or nxt in out:
                break
            out[nxt] = root
            if not t[0] & HEAP_HOT_UPDATED:
                break
            nxt = t[1]
    return out
