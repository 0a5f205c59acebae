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
reassembled), the index's own datums printed by the same formatter: by the hash of the CSV line of a key's
texts, which the compiled printer writes on both sides (``kernels.CsvPrinter``, heap tuples and index
tuples), Python making the same line for what the printer declines (``_key_hashes``); a HOT chain's root
is the compiled ``kernels.hot_roots``. Only indexes on plain columns of
the types whose order ``analysis.btree.order`` computes are compared; an expression index or another
type is one info finding. A partial index's predicate is not evaluated: the heap-to-index direction is
skipped for it (one info finding), the index-to-heap direction still runs.

Memory: flat. The table is read in windows of blocks, each with the index's entries (TID, key hash,
where) whose TIDs go into it, at most ``ENTRIES_PER_WINDOW`` of them (``_windows``).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterator, NamedTuple

import numpy as np

from pgpage.analysis.btree.heapcheck import merged_ranges
from pgpage.analysis.btree.keys import index_datums
from pgpage.analysis.btree.order import TYPES
from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_LEAF, BTP_META, INDEX_ALT_TID_MASK, INDEX_NULL_MASK,
                                         INDEX_SIZE_MASK, LP_NORMAL, P_NONE, SIZE_OF_ITEM_POINTER,
                                         SIZE_OF_PAGE_HEADER, bt_opaque)
from pgpage.analysis.rowstatus import STATUS_NAMES
from pgpage.analysis.verify.xids import FIRST_NORMAL_XID
from pgpage.decode import kernels
from pgpage.decode.datum import type_info
from pgpage.decode.deform import Attribute
from pgpage.decode.flags import HEAP_HASNULL, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_XMAX_IS_MULTI
from pgpage.decode.vector import decode_headers, decode_line_pointers, run_positions, sorted_unique
from pgpage.decode.xact import xid_precedes
from pgpage.findings import ERROR, INFO, Finding
from pgpage.passes.rows import RowOptions, TableRows


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
    ifork = index.forks["main"]
    table_blocks = rows.fork.end_block if rows.fork is not None and rows.fork.exists else 0
    mismatched: list[Finding] = []   # said after every missing entry, whatever the windows
    heap_printer, index_printer = rows.csv_printer(False), rows.csv_printer(False, index_attrs=iattrs)
    for (lo, hi), index_ranges in _windows(ifork, table_blocks):
        entries = _index_entries(ifork, index_ranges, iattrs, rows, lo, hi, index_printer)
        rows.options.start, rows.options.stop = lo, hi
        for c in rows.chunks():
            root = c.item.copy()   # the TID an entry carries: a heap-only tuple's is its chain's root
            heap_only = np.flatnonzero(c.infomask2 & HEAP_ONLY_TUPLE)
            if len(heap_only):
                first = int(c.block[0]) - int(c.start[0]) // rows.fork.block_size
                roots = kernels.hot_roots(c.flat.reshape(-1, rows.fork.block_size))
                root[heap_only] = roots[c.block[heap_only] - first, c.item[heap_only] - 1]
                reached = root > 0    # a heap-only tuple no chain reaches: the HOT checks report it
                if not reached.all():
                    c, root = c.take(np.flatnonzero(reached)), root[reached]
            keys = _key_hashes(heap_printer, c.flat, c.start, c.length, c.t_hoff, c.natts,
                               (c.infomask & HEAP_HASNULL) != 0, lambda ks: (v.values for v in rows.versions(c, ks)))
            hit = entries.meet((c.block << 16) | root, keys)
            if partial:
                continue
            for j in np.flatnonzero(~hit).tolist():
                status, block, item, r = STATUS_NAMES[int(c.status[j])], int(c.block[j]), int(c.item[j]), int(root[j])
                recent = None if since is None else _recently_dead(status, int(c.infomask[j]), int(c.infomask2[j]),
                                                                  int(c.xmax[j]), since, cluster.multi_update_xid)
                if status == "live" or recent is not None:
                    why = "" if recent is None else (f" (recently dead: deleted by xid {recent}, not older than the"
                                                     f" last checkpoint's oldest running xid {since})")
                    if r != item:     # amcheck names the TID the entry should carry: the chain's root
                        why += f" (the version at ({block},{item}) of the HOT chain rooted there)"
                    yield Finding("btree.heapallindexed.missing", f"heap tuple ({block},{r}) from table"
                                  f" \"{table.name}\" lacks matching index tuple within index \"{index.name}\"{why}",
                                  ERROR, relation=label, fork="main", actual=f"({block},{r})")
        for tid, blk, off in entries.unmatched():
            mismatched.append(Finding(
                "btree.heapallindexed.key_mismatch", f"index tuple ({blk},{off}) points to heap tid"
                f" ({tid >> 16},{tid & 0xFFFF}), whose key is not the index tuple's", ERROR, relation=label,
                fork="main", block=blk, item=off, actual=f"({tid >> 16},{tid & 0xFFFF})"))
        del entries     # (before the next window's are made)
    yield from mismatched
    # (a posting list whose TIDs span windows has its key decoded in each: what its value said, said once)
    said = {(f.code, f.message, f.block, f.item): f for f in rows.findings
            if f.severity == ERROR and f.code.startswith("rows.value")}
    yield from (Finding(f.code, f.message, f.severity, label, "main", f.block, f.item, f.expected, f.actual)
                for f in said.values())


def _recently_dead(status: str, infomask: int, infomask2: int, xmax: int, since: int, multi_update_xid) -> int | None:
    """The deleting xid of a version that is RECENTLY_DEAD and indexed (deleted, updated or moved by a committed
    transaction whose xid does not precede ``since``; not HOT-updated), else None."""
    if status not in ("deleted", "updated", "moved") or infomask2 & HEAP_HOT_UPDATED:
        return None
    xid = xmax
    if infomask & HEAP_XMAX_IS_MULTI:
        if multi_update_xid is None:
            return None
        xid = int(multi_update_xid(np.array([xid], dtype=np.int64))[0])
    return xid if xid >= FIRST_NORMAL_XID and not xid_precedes(xid, since) else None


def _csv_field(value: str | None, single_column: bool) -> str:
    """A value as the compiled printer writes it in a CSV line (COPY's CopyAttributeOutCSV quoting)."""
    if value is None:
        return ""
    if value == "" or any(ch in value for ch in ',"\n\r') or (single_column and value == "\\."):
        return '"' + value.replace('"', '""') + '"'
    return value


def _key_hashes(printer, flat: np.ndarray, start, length, t_hoff, natts, hasnull, texts) -> np.ndarray:
    """Each tuple's key (tuples of ``flat`` at ``start``, ``length`` bytes, with their t_hoff, natts and null flag):
    the hash (``kernels.line_hashes``) of the CSV line ``printer`` (``TableRows.csv_printer``) writes of its key
    columns, or, for a tuple it declines (every tuple without a printer), of the same line made here of its texts
    (``texts(indexes)``: the texts of those tuples' keys, as ``rows`` prints them): equal keys, equal lines."""
    n = len(start)
    out = np.zeros(n, dtype=np.int64)
    declined = np.arange(n)
    if printer is not None and n:
        declined, at = [], 0
        while at < n:
            done, ends, ok = printer.lines(flat, start[at:], length[at:], t_hoff[at:], natts[at:], hasnull[at:])
            out[at:at + done] = kernels.line_hashes(printer.out, ends)
            declined.append(np.flatnonzero(~ok) + at)
            at += done
        declined = np.concatenate(declined)
    if len(declined):
        lines = [(",".join(_csv_field(v, len(values) == 1) for v in values) + "\n").encode("utf-8")
                 for values in texts(declined)]
        buf = np.frombuffer(b"".join(lines), dtype=np.uint8)
        out[declined] = kernels.line_hashes(buf, np.cumsum([len(x) for x in lines]))
    return out


ENTRIES_PER_WINDOW = 1 << 20   # index entries held at once (``_Entries``: 50 MB): memory flat whatever the sizes
GROUP_BLOCKS = 128             # the windows are cut between groups of this many table blocks


def _windows(fork, table_blocks: int) -> list[tuple[tuple[int, int], list[tuple[int, int]]]]:
    """The table's blocks in windows ((lo, hi), the index block ranges holding TIDs into it), each window
    with at most ENTRIES_PER_WINDOW index entries (unless one group of GROUP_BLOCKS blocks has more): the
    index is read once to count them, then again for each window, only where its TIDs go there (an index in
    table order is read about twice in all, one in random order once per window)."""
    whole = [(fork.first_block, fork.end_block)]
    if table_blocks <= 0:
        return []
    if (fork.end_block - fork.first_block) * fork.block_size <= ENTRIES_PER_WINDOW * SIZE_OF_ITEM_POINTER:
        return [((0, table_blocks), whole)]    # no room for more entries than that
    counts = np.zeros((table_blocks + GROUP_BLOCKS - 1) // GROUP_BLOCKS, dtype=np.int64)
    spans = []   # index chunks (lo, hi) and the lowest and highest group their TIDs go to
    for first, chunk in fork.iter_chunks():
        blk = _leaf_entries(chunk, first).blk
        group = blk[blk < table_blocks] // GROUP_BLOCKS
        if len(group):
            counts += np.bincount(group, minlength=len(counts))
            spans.append((first, first + len(chunk), int(group.min()), int(group.max())))
    cuts, held = [0], 0    # the groups windows start at
    for g, c in enumerate(counts.tolist()):
        if held and held + c > ENTRIES_PER_WINDOW:
            cuts.append(g)
            held = 0
        held += c
    cuts.append(len(counts))
    return [((g0 * GROUP_BLOCKS, min(g1 * GROUP_BLOCKS, table_blocks)),
             merged_ranges([(lo, hi) for lo, hi, low, high in spans if high >= g0 and low < g1]))
            for g0, g1 in zip(cuts, cuts[1:])]


class _LeafEntries(NamedTuple):
    """A chunk's leaf entries in page, item and posting list order: each one's heap TID (``blk``, ``off``) and
    its item (``of``, a row of the per-item arrays: the page's row in the chunk, line pointer number, the
    tuple's offset and length in the page, where its key data ends, whether it has a null bitmap)."""
    blk: np.ndarray
    off: np.ndarray
    of: np.ndarray
    row: np.ndarray
    item: np.ndarray
    at: np.ndarray
    length: np.ndarray
    end: np.ndarray
    nulls: np.ndarray


def _leaf_entries(chunk: np.ndarray, first: int) -> _LeafEntries:
    """The entries heapallindexed compares, of a chunk of index pages (global block numbers from ``first``):
    the items from P_FIRSTDATAKEY on of the leaf pages that are not deleted, half-dead or the metapage, and
    whose header is sane; LP_NORMAL items (LP_DEAD ones skipped, as amcheck does) of at least
    IndexTupleData's size within the page; a plain tuple's one heap TID or a posting list's (one that
    fits its tuple), not a pivot where entries belong (the scan reports it)."""
    chunk = np.ascontiguousarray(chunk)
    n, bs = chunk.shape
    flat = chunk.reshape(-1)

    def u16(pos):
        return flat[pos].astype(np.int64) | (flat[pos + 1].astype(np.int64) << 8)
    h, op = decode_headers(chunk), bt_opaque(chunk)
    flags = op["btpo_flags"].astype(np.int64)
    lower, upper = h.lower.astype(np.int64), h.upper.astype(np.int64)
    ok = (first + np.arange(n) != 0) & ((flags & BTP_LEAF) != 0) \
        & ((flags & (BTP_DELETED | BTP_HALF_DEAD | BTP_META)) == 0) \
        & (SIZE_OF_PAGE_HEADER <= lower) & (lower <= upper) & (upper <= bs)
    firstkey = np.where(op["btpo_next"] == P_NONE, 1, 2)
    lps = decode_line_pointers(chunk, replace(h, nlp=np.where(ok, h.nlp, 0)))
    keep = (lps.lp >= firstkey[lps.page]) & (lps.flags == LP_NORMAL) & (lps.len >= 8) & (lps.off + lps.len <= bs)
    row, item, off, length = lps.page[keep], lps.lp[keep], lps.off[keep], lps.len[keep]
    at = row * bs + off
    info, posid = u16(at + 6), u16(at + 4)
    size = np.minimum(info & INDEX_SIZE_MASK, length)
    start = u16(at + 2)                      # a posting list's offset: t_tid's ip_blkid.bi_lo
    ntids = posid & BT_OFFSET_MASK
    alt = (info & INDEX_ALT_TID_MASK) != 0
    posting = alt & ((posid & BT_IS_POSTING) != 0) & ((posid & BT_PIVOT_HEAP_TID_ATTR) == 0) \
        & (start + SIZE_OF_ITEM_POINTER * ntids <= size)
    keep = ~alt | posting
    row, item, off, length, at, size, start, ntids, posting, info = (
        x[keep] for x in (row, item, off, length, at, size, start, ntids, posting, info))
    ntids = np.where(posting, ntids, 1)
    of = np.repeat(np.arange(len(row)), ntids)
    tid_at = at[of] + np.where(posting[of], start[of] + SIZE_OF_ITEM_POINTER * run_positions(ntids), 0)
    return _LeafEntries((u16(tid_at) << 16) | u16(tid_at + 2), u16(tid_at + 4), of, row, item, off, length,
                        np.where(posting, start, size), (info & INDEX_NULL_MASK) != 0)


class _Entries:
    """A window's index entries, in index order: heap TID (block << 16 | offset), the hash of the key's texts
    (as ``rows`` prints them: a tuple's texts compared by their 64-bit hash, a false match 1 in 2**64), and
    where the entry is (index block, item); about 50 bytes each, as many again while they are gathered."""

    def __init__(self, tid: np.ndarray, key: np.ndarray, block: np.ndarray, item: np.ndarray):
        self.block, self.item = block, item
        self.order = np.argsort(tid, kind="stable")     # by TID, index order within one
        self.tid, self.key = tid[self.order], key[self.order]
        self.reached = np.zeros(len(tid), dtype=bool)   # (in TID order) a version was found at its TID
        self.matched = np.zeros(len(tid), dtype=bool)   # ... with its key

    def meet(self, tids: list[int], keys: list[int]) -> np.ndarray:
        """Versions found at ``tids`` (their roots) with ``keys`` (hashes): whether each has an entry of its key."""
        tids, keys = np.array(tids, dtype=np.int64), np.array(keys, dtype=np.int64)
        lo, hi = np.searchsorted(self.tid, tids, "left"), np.searchsorted(self.tid, tids, "right")
        n = hi - lo
        version = np.repeat(np.arange(len(tids)), n)
        at = lo[version] + run_positions(n)
        self.reached[at] = True
        same = self.key[at] == keys[version]
        self.matched[at[same]] = True
        hit = np.zeros(len(tids), dtype=bool)
        hit[version[same]] = True
        return hit

    def unmatched(self) -> list[tuple[int, int, int]]:
        """(TID, index block, item) of the entries whose TID a version was found at, none with their key: by
        the first entry of their TID in index order, then in index order."""
        at = np.flatnonzero(self.reached & ~self.matched)
        first = self.order[np.searchsorted(self.tid, self.tid[at], "left")]
        at = at[np.lexsort((self.order[at], first))]
        where = self.order[at]
        return list(zip(self.tid[at].tolist(), self.block[where].tolist(), self.item[where].tolist()))


def _index_entries(fork, ranges: list[tuple[int, int]], iattrs, rows, lo: int, hi: int, printer) -> _Entries:
    """The leaf entries (``_leaf_entries``) of index blocks ``ranges`` whose TID goes to table blocks lo..hi-1, their
    keys printed by ``printer`` (``_key_hashes``; ``rows`` prints what it declines)."""
    parts = []
    for start, stop in ranges:
        for first, chunk in fork.iter_chunks(start, stop):
            e = _leaf_entries(chunk, first)
            sel = np.flatnonzero((e.blk >= lo) & (e.blk < hi))
            items = sorted_unique(e.of[sel])      # a posting list's key printed once
            pages = np.ascontiguousarray(chunk)

            def texts(which):
                for i in items[which].tolist():
                    at = int(e.at[i])
                    raw = pages[e.row[i], at:at + int(e.length[i])].tobytes()
                    datums = index_datums(raw, iattrs, len(iattrs), int(e.end[i]))
                    yield [None if d.isnull or d.raw is None
                           else rows.value_text(att, d.raw, first + int(e.row[i]), int(e.item[i]))
                           for att, d in zip(iattrs, datums)]
            key = np.zeros(len(e.row), dtype=np.int64)
            nulls = e.nulls[items]
            key[items] = _key_hashes(printer, pages.reshape(-1), e.row[items] * pages.shape[1] + e.at[items],
                                     e.end[items], np.where(nulls, 16, 8), np.full(len(items), len(iattrs)), nulls,
                                     texts)
            of = e.of[sel]
            parts.append(((e.blk[sel] << 16) | e.off[sel], key[of], (first + e.row[of]).astype(np.uint32),
                          e.item[of].astype(np.uint16)))
    return _Entries(*(np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
                      for k in range(4)))
