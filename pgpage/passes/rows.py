"""Row contents: every row version of a table with its values, read from the files alone.

``TableRows`` reads a table's main fork chunk by chunk (memory stays flat), decodes the tuple headers
of a chunk at once (``decode.vector``), decides each version's fate from hint bits, pg_xact and
pg_multixact (``analysis.rowstatus``), finds the attributes of the versions it keeps (the compiled
``pgp_deform`` walk; ``decode.deform`` for the tuples it refuses: TOAST pointers, columns added
after the row was written, damage), and prints each value as the server would: the compiled printer
(``decode.printer``) for `rows --csv` and `--json`, ``decode.values.ValueFormatter`` for the rest and for the
versions the printer declines, fetching out-of-line values from the TOAST table (``passes.toast``).

What cannot be read becomes a finding with its block and item, and ``None`` for that value only:
the rest of the row, and every other row, is still printed.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, fields, replace
from json import JSONDecoder, dumps
from typing import Iterator

import numpy as np

from pgpage.analysis.rowfilter import RowFilter, parse_filter  # noqa: F401  (rows_cmd's)
from pgpage.analysis.rowstatus import LIVE, STATUS_NAMES, XID_STATE_NAMES, row_statuses
from pgpage.analysis.verify.toast import read_pointers
from pgpage.decode import datum, kernels
from pgpage.decode.datum import (ATTALIGN_BYTES, EXTERNAL, VARHDRSZ, VARLENA_EXTSIZE_MASK, VARTAG_ONDISK, ToastPointer, Undecoded, Unreadable, parse_varlena)
from pgpage.decode.checksum import chunk_checksum_failures
from pgpage.decode.deform import ERROR_STATUS, Attribute, deform_tuple, heap_oid_old
from pgpage.decode.encodings import database_codec
from pgpage.decode.flags import (HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_HOT_UPDATED,
                                 HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, LP_NORMAL)
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.ksy.type_oids import TIMESTAMPTZOID
from pgpage.decode.printer import PrintedTypes
from pgpage.decode.values import ValueFormatter, python_converter
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_heap_chunk, new_not_zeroed, tuple_has_header
from pgpage.decode.xact import xmax_states, xmin_states
from pgpage.findings import ERROR, INFO, WARNING, ExitCode, Finding, PgpageError, a_or_an
from pgpage.passes.blocks import parse_block_range
from pgpage.passes.dropped import dropped_columns
from pgpage.passes.rowsprint import CompiledPrinting, TypedLines
from pgpage.passes.rowdamage import page_checksums, version_damage
from pgpage.passes.toast import FETCH_BYTES, ToastStore, ondisk_pointers
from pgpage.storage.target import resolve

DEFAULT_TIMEZONE = "GMT"   # the server's boot value of TimeZone when no configuration file sets it
RANGE_BLOCKS = 2048        # --jobs: a worker's piece of the table (16 MiB of 8 KiB pages; whole chunks)
# ... fewer blocks when TOASTed values make a block's rows large: a piece's rows about this many bytes of the
# table and its TOAST table (_part_blocks), at least MIN_PART_BLOCKS
PART_BYTES, MIN_PART_BLOCKS = 16 << 20, 64


@dataclass(slots=True)
class RowVersion:
    """One tuple version: where it lies, its xids and their verdicts, and its values as text."""
    block: int
    item: int
    xmin: int
    xmax: int
    status: str              # analysis.rowstatus.STATUS_NAMES
    xmin_status: str
    xmax_status: str
    t_ctid: str
    infomask: int
    infomask2: int
    values: list             # per selected column: str, None (NULL or unreadable), Undecoded (hex)
    oid: int | None = None   # a WITH OIDS table's row oid (10-11)
    lp_off: int | None = None   # where the tuple starts in its page (a pruned one: where it was found)
    damage: list | None = None   # what is wrong with this version (``rowdamage.version_damage``): its page's
    #                              checksum, the columns whose value is None because it could not be read
    lsn: str | None = None       # a version from WAL (status wal): the record that holds it (passes.walrows)

    @property
    def ctid(self) -> str:
        return f"({self.block},{self.item})"

    @property
    def hot(self) -> list[str]:
        return ([n for bit, n in ((HEAP_ONLY_TUPLE, "HEAP_ONLY_TUPLE"), (HEAP_HOT_UPDATED, "HEAP_HOT_UPDATED"))
                 if self.infomask2 & bit])

    def record(self, names: list[str], values: list | None = None) -> dict:
        """The version as one record (`rows --json`): ctid, xids and their verdicts, the successor of an
        updated version, HOT flags, a WITH OIDS row's oid, and ``values`` (default: the text) by column name."""
        d = {"ctid": self.ctid, "xmin": self.xmin, "xmax": self.xmax, "status": self.status,
             "xmin_status": self.xmin_status, "xmax_status": self.xmax_status}
        if self.status == "updated":
            d["successor"] = self.t_ctid
        if self.hot:
            d["hot"] = self.hot
        if self.oid is not None:
            d["oid"] = self.oid
        if self.status == "pruned":     # item 0: no line pointer holds it; where it lies, and its t_ctid (itself
            d["lp_off"], d["t_ctid"] = self.lp_off, self.t_ctid   # when deleted, else its successor)
        if self.status == "wal":
            d["lsn"] = self.lsn
        d["values"] = dict(zip(names, self.values if values is None else values))
        if self.damage:
            d["damage"] = self.damage
        return d


def resolve_timezone(cluster, override: str | None, findings: list[Finding]) -> str:
    """The TimeZone a session on this cluster prints timestamptz in: ``--timezone``, else the configuration
    files' ``timezone``, else the server's default (GMT)."""
    zone = override or (cluster.settings.get("timezone") if cluster is not None else None)
    if not zone:
        findings.append(Finding("rows.timezone.default", "no timezone set in postgresql.conf or postgresql.auto.conf"
                                f" of the data directory: timestamptz values are printed in {DEFAULT_TIMEZONE}"
                                " (--timezone chooses another)", severity=INFO))
        zone = DEFAULT_TIMEZONE
    try:
        datum.decode_datum(TIMESTAMPTZOID, bytes(8), timezone=zone)    # an unknown zone is refused here, not per value
    except ValueError as exc:
        raise PgpageError(f"time zone {zone!r}: {exc}", ExitCode.USAGE) from None
    return zone


@dataclass
class ChunkVersions:
    """The tuple versions of one chunk that a read prints, in ctid order: where each lies in ``flat`` (the
    chunk's pages, flat), its header fields and verdicts (``heapstats`` states, ``rowstatus`` status)."""
    flat: np.ndarray
    start: np.ndarray
    length: np.ndarray
    t_hoff: np.ndarray
    natts: np.ndarray
    infomask: np.ndarray
    infomask2: np.ndarray
    xmin: np.ndarray
    xmax: np.ndarray
    xmin_state: np.ndarray
    xmax_state: np.ndarray
    status: np.ndarray
    block: np.ndarray
    item: np.ndarray
    ctid_block: np.ndarray
    ctid_offset: np.ndarray
    lp_off: np.ndarray

    def take(self, which: np.ndarray) -> "ChunkVersions":
        return ChunkVersions(self.flat, *(getattr(self, f.name)[which] for f in fields(self)[1:]))


@dataclass
class RowOptions:
    all_versions: bool = False
    columns: list[str] | None = None   # names to print, in this order (default: every column)
    start: int | None = None           # block range [start, stop)
    stop: int | None = None
    timezone: str | None = None        # overrides the cluster's configuration
    carve: bool = False                # with all_versions: pruned versions too (passes.carve)
    only: RowFilter = RowFilter()      # --status, --xid, --ctid (analysis.rowfilter)

    encoding: str | None = None        # the database's text encoding, overriding pg_database's
    dropped: bool = False              # also the dropped columns' values (passes.dropped)
    wal: str | None = None             # with all_versions: a WAL directory whose versions follow (passes.walrows)


def _with(kept: "ChunkVersions | None", pruned: dict, flat: np.ndarray) -> ChunkVersions:
    """A chunk's versions and its pruned ones (``passes.carve``), in ctid order, a block's pruned versions
    after those its line pointers hold, by offset."""
    names = [f.name for f in fields(ChunkVersions)[1:]]
    both = {n: np.concatenate([getattr(kept, n), pruned[n]]) if kept is not None else pruned[n] for n in names}
    order = np.lexsort((np.where(both["item"] == 0, both["lp_off"], both["item"]), both["item"] == 0, both["block"]))
    return ChunkVersions(flat, **{n: v[order] for n, v in both.items()})


def table_rows(target: str, db: str | None, rel: str | None, options: RowOptions | None = None,
               blocks: str | None = None) -> "TableRows":
    """`pgpage rows` of the table ``target`` names (``open_table``), only blocks ``A:B`` of it with ``blocks``."""
    options = options or RowOptions()
    cluster, relation = open_table(target, db, rel)
    if blocks is not None:
        fork = relation.forks.get("main")
        first, end = (fork.first_block, fork.end_block) if fork is not None else (0, 0)
        options.start, options.stop = parse_block_range(None, blocks, False, first, end)
    return TableRows(cluster, relation, options)


def open_table(target: str, db: str | None, rel: str | None):
    """(cluster, relation): a data directory with --rel, or a table's file inside one (``storage.target``)."""
    t = resolve(target, db, rel, "main", need_relation=True, what="table")
    return t.cluster, t.relation


class TableRows(CompiledPrinting):
    """The row versions of one table, in ctid order (iterate it), and what could not be read (``findings``,
    complete once iteration ends)."""

    def __init__(self, cluster, relation, options: RowOptions | None = None, attrs: list[Attribute] | None = None):
        """``attrs``: the table's columns when they are given (``passes.schemarows``), not read from pg_attribute."""
        self.options = options = options or RowOptions()
        if relation.kind not in "rtm":
            raise PgpageError(f"{relation.qualified_name} is {a_or_an(relation.kind_name)}: rows are read from tables",
                              ExitCode.USAGE)
        self.cluster, self.relation = cluster, relation
        self.label = f"{relation.database.name}.{relation.qualified_name}"
        self.findings: list[Finding] = []
        db = relation.database
        rows = db.attributes(relation.oid) if attrs is None else None
        if attrs is None and not rows:
            raise PgpageError(f"{self.label}: its columns cannot be read from pg_attribute (--schema gives them)",
                              ExitCode.UNREADABLE)
        self.attrs = attrs if attrs is not None else [
            Attribute(r["attname"], r["atttypid"], r["attlen"], r["attalign"], r["attbyval"] is True,
                      r.get("attisdropped") is True, r.get("atthasmissing") is True, r.get("attmissingval"))
            for r in rows]
        present = [(i, a) for i, a in enumerate(self.attrs) if not a.attisdropped]
        if options.dropped:     # pg_dirtyread's dropped_N, typed where pg_attribute still says its type
            present += dropped_columns(relation, self.attrs, self.label, self.findings, lambda rel, cols: TableRows(
                cluster, rel, RowOptions(all_versions=True, columns=cols)).text_records())
        if options.columns:
            by_name = {a.name: (i, a) for i, a in present}
            unknown = [c for c in options.columns if c not in by_name]
            if unknown:
                raise PgpageError(f"{self.label} has no column {', '.join(map(repr, unknown))} (it has: "
                                  f"{', '.join(a.name for _, a in present)})", ExitCode.USAGE)
            present = [by_name[c] for c in options.columns]
        self.columns = present
        self.column_names = [a.name for _, a in present]
        # each printed column's attnum by its attribute object, its name by attnum (a finding names its column)
        self._attnums = {a: i + 1 for i, a in [*enumerate(self.attrs), *present]}
        self._names = {i + 1: a.name for i, a in present}
        self.timezone = resolve_timezone(cluster, options.timezone, self.findings)
        try:
            codec, self.encoding = database_codec(getattr(db, "row", None), options.encoding)
        except ValueError as exc:
            raise PgpageError(f"--encoding: {exc}", ExitCode.USAGE) from None
        self.formatter = ValueFormatter(db.types, cluster.major, self.timezone, codec)
        self.printed = PrintedTypes(self.formatter)
        for i, a in present:
            if not self.formatter.decodable(a.typid) and not self.attrs[i].attisdropped:   # (dropped: said so)
                t = self.formatter.catalog.get(a.typid)
                self.findings.append(Finding("rows.type.not_decoded", f"column {a.name!r} is of type "
                                             f"{t.name if t is not None else f'oid {a.typid}'}, which pgpage does not"
                                             " decode: its values are printed as the hex of their bytes",
                                             severity=WARNING, relation=self.label))
        self.fork = relation.forks.get("main")
        self._attlen = np.array([a.attlen for a in self.attrs], dtype=np.int64)
        self._attalign = np.array([ATTALIGN_BYTES.get(a.attalign, 1) for a in self.attrs], dtype=np.int64)
        self._toast: dict[int, ToastStore | None] = {}   # by TOAST relation oid (_toast_store)
        self._fetched: dict[ToastPointer, object] = {}   # TOASTed values fetched ahead of their printing (versions)
        self._inline_lz4 = False   # an lz4-compressed value stored inline was seen (_toasted_values)
        self._given_memos: dict[int, dict[bytes, bytes]] = {}   # by attribute: texts by stored bytes (_given_texts)
        self.status_counts = np.zeros(len(STATUS_NAMES), dtype=np.int64)   # versions printed, by status
        self.checksums = page_checksums(cluster, self.fork)   # data checksums on: pages are checked
        self.checksum_failures: set[int] = set()   # blocks (global numbers) read so far whose checksum fails
        self.undecided = 0   # versions left out of the live rows because no commit status could be found
        self.wal = None      # the versions only WAL holds (passes.walrows), with --all --wal
        if options.wal is not None and options.all_versions:
            from pgpage.passes.walrows import WalRows
            self.wal = WalRows(self, options.wal)

    def records(self) -> Iterator[dict]:
        """Each version as a record whose values are typed Python objects (``values.python_value``): the records of
        ``text_records``, their texts converted."""
        convert = [python_converter(self.formatter, a.typid) for _, a in self.columns]
        for record in self.text_records():
            record["values"] = {n: f(v) for (n, v), f in zip(record["values"].items(), convert)}
            yield record

    def text_records(self) -> Iterator[dict]:
        """Each version as its record with the values as text (``RowVersion.record``): the compiled printer's
        ``rows --json`` records read back (``json_stream``), Python's for the versions it declined."""
        decode = JSONDecoder().decode
        for item in self.json_stream():
            if isinstance(item, RowVersion):
                yield item.record(self.column_names)
                continue
            for line in item[0].decode("utf-8").split("\n")[:-1]:   # (not splitlines: U+2028 stays raw in JSON)
                yield decode(line)

    # ------------------------------------------------------------------------------------------ reading
    def __iter__(self) -> Iterator[RowVersion]:
        for chunk in self.chunks():
            yield from self.versions(chunk)

    def chunks(self) -> Iterator["ChunkVersions"]:
        """The versions to print, a chunk of pages at a time (what ``versions`` turns into RowVersions)."""
        if self.fork is None or not self.fork.exists:
            self.findings.append(Finding("relation.file_missing", f"{self.label}: the main fork has no file",
                                         relation=self.label))
            return
        self.findings.extend(self.fork.findings)  # torn last block, gaps, an oversized segment (storage's)
        o = self.options
        start = self.fork.first_block if o.start is None else o.start
        stop = self.fork.end_block if o.stop is None else o.stop
        for first, pages in self.fork.iter_chunks(start, stop):
            chunk = self._select(first, pages)
            if chunk is not None:
                self.status_counts += np.bincount(chunk.status, minlength=len(STATUS_NAMES))
                yield chunk
        self.findings.extend(self.fork.size_changes())
        wal = self.wal.chunk(o.start, o.stop, o.only) if self.wal is not None else None
        if wal is not None:      # after the pages, which it does not repeat (walrows.WalRows.seen)
            self.status_counts += np.bincount(wal["status"], minlength=len(STATUS_NAMES))
            yield ChunkVersions(**wal)
        if self.undecided and not self.options.all_versions:  # "0 rows" would be a wrong answer, not an empty table
            self.findings.append(Finding("rows.visibility.undecided", f"{self.undecided} row versions whose commit"
                                         " status neither hint bits nor pg_xact tell are not among the rows (see"
                                         " them with --all)", relation=self.label, actual=self.undecided))

    def in_parallel(self, work, jobs: int, write) -> Iterator[int]:
        """``work(part, out) -> rows`` for parts of the table of RANGE_BLOCKS blocks each, in ``jobs`` worker
        processes (they inherit this object: the catalogs are read once), each part writing its bytes to ``out``,
        which hands them to ``write`` in block order (``parallel.InTurn``: a part's bytes kept until its turn, up
        to a bound); yields each part's row count, and merges the parts' findings and status counts into this
        object as they come in. ``jobs`` 0: one per core."""
        from pgpage.passes.parallel import InTurn, default_jobs, run_tasks   # (multiprocessing: only for --jobs)
        jobs = jobs or default_jobs()
        turns = InTurn()
        if self.fork is None or not self.fork.exists:
            out = turns.output(0, write, 0)   # (its turn at once: straight through)
            try:
                yield work(self, out)
            finally:
                out.finish(True)
            return
        self.findings.extend(self.fork.findings)  # torn last block, gaps, an oversized segment (storage's)
        o = self.options
        start = self.fork.first_block if o.start is None else o.start
        stop = self.fork.end_block if o.stop is None else o.stop
        step = self._part_blocks()
        ranges = [(lo, min(lo + step, stop)) for lo in range(start, stop, step)]

        def task(k):
            part = copy.copy(self)
            part.options = replace(o, start=ranges[k][0], stop=ranges[k][1])
            part.findings, part.status_counts = [], np.zeros_like(self.status_counts)
            out, ok = turns.output(k, write), False
            try:
                n = work(part, out)
                ok = True
            finally:
                out.finish(ok)
            return n, part.findings, part.status_counts

        for n, findings, counts in run_tasks(task, range(len(ranges)), jobs):
            self.findings.extend(findings)
            self.status_counts += counts
            yield n

    def _part_blocks(self) -> int:
        """Blocks of a --jobs piece: RANGE_BLOCKS, or fewer when the TOAST table is many times the table: a piece's
        rows then come to many times its pages, and a piece whose output passes InTurn's bound keeps a worker that
        is ahead waiting for its turn instead of reading on (bench/RESULTS.md, "TOASTed values")."""
        toast = self.relation.toast
        main = toast.forks.get("main") if toast is not None else None
        per_block = self.fork.block_size * (1 + (main.size_bytes if main is not None else 0)
                                            / max(self.fork.size_bytes, 1))
        return int(min(RANGE_BLOCKS, max(MIN_PART_BLOCKS, PART_BYTES // per_block)))

    def _select(self, first: int, pages: np.ndarray) -> "ChunkVersions | None":
        """The chunk's tuple versions this read prints, with their verdicts; pages and line pointers that hold no
        readable tuple become findings."""
        hc = decode_heap_chunk(pages, first)
        items, tups, h = hc.items, hc.tuples, hc.headers
        block_size = pages.shape[1]
        for b in chunk_checksum_failures(pages, first) if self.checksums else ():
            self.checksum_failures.add(b)     # (its rows are still read: flagged, rowdamage.version_damage)
            self.findings.append(Finding("checksum.mismatch", "the page fails its checksum: its rows are printed"
                                         " where they decode, each flagged", relation=self.label, block=b))
        bad = ~h.is_new & ((h.lower < SIZE_OF_PAGE_HEADER) | (h.lower > h.upper) | (h.upper > h.special)
                           | (h.special > block_size))
        for page in np.flatnonzero(bad).tolist():
            self.findings.append(Finding("page.header.bad_bounds", f"pd_lower {h.lower[page]}, pd_upper "
                                         f"{h.upper[page]}, pd_special {h.special[page]} are out of order: the "
                                         "page's rows are not read", relation=self.label, block=first + page))
        for page, nonzero in new_not_zeroed(pages):   # PageIsNew: its line pointers are not read either
            self.findings.append(Finding("page.new_not_zeroed", "pd_upper is 0 (a new page) but the page is not all"
                                         " zeros: the page's rows are not read", relation=self.label,
                                         block=first + page, actual=nonzero))
        lost = np.flatnonzero((items.flags == LP_NORMAL) & ~tuple_has_header(items, block_size) & ~bad[items.page])
        for i in lost.tolist():
            self.findings.append(Finding("rows.tuple.unreadable", f"line pointer (off {items.off[i]}, len "
                                         f"{items.len[i]}) does not hold a readable tuple", relation=self.label,
                                         block=first + int(items.page[i]), item=int(items.lp[i])))
        sel = np.flatnonzero((items.flags[tups.item] == LP_NORMAL) & ~bad[items.page[tups.item]])
        kept = self._kept(sel, first, pages, hc) if len(sel) else None
        if self.options.carve and self.options.all_versions:
            from pgpage.passes.carve import pruned_versions
            pruned = pruned_versions(self, first, pages, hc, ~bad & ~h.is_new, kept)
            if pruned is not None:
                kept = _with(kept, pruned, np.ascontiguousarray(pages).reshape(-1))
        if self.wal is not None:
            self.wal.seen(kept)
        if kept is not None and self.options.only:
            kept = kept.take(np.flatnonzero(self.options.only.mask(kept.status, kept.xmin, kept.xmax, kept.block,
                                                                   kept.item)))
        return kept if kept is not None and len(kept.start) else None

    def _kept(self, sel: np.ndarray, first: int, pages: np.ndarray, hc) -> "ChunkVersions | None":
        """The versions of tuple headers ``sel`` of the chunk this read prints, with their verdicts."""
        cluster, items, tups = self.cluster, hc.items, hc.tuples
        block_size = pages.shape[1]
        at = slice(None) if len(sel) == len(tups.item) else sel   # (every tuple, the common case: not gathered)
        its = tups.item[at]
        infomask = tups.t_infomask[at].astype(np.int64)
        xmin, xmax = tups.t_xmin[at].astype(np.int64), tups.t_xmax[at].astype(np.int64)
        xmin_st, _ = xmin_states(infomask, xmin, cluster.clog)
        xmax_st, _ = xmax_states(infomask, xmax, cluster.clog, cluster.multi_update_xid)
        blocks = first + items.page[its].astype(np.int64)
        lps = items.lp[its].astype(np.int64)
        ctid_block, ctid_offset = tups.ctid_block[at].astype(np.int64), tups.ctid_offset[at].astype(np.int64)
        status = row_statuses(xmin_st, xmax_st, blocks, lps, ctid_block, ctid_offset)
        self.undecided += int((status == STATUS_NAMES.index("unknown")).sum())
        live = status == LIVE
        # (a chunk of live rows only, the common case, is not copied column by column)
        keep = slice(None) if self.options.all_versions or live.all() else np.flatnonzero(live)
        sel, its = sel[keep], its[keep]
        if not len(sel):
            return None
        infomask2 = tups.t_infomask2[sel].astype(np.int64)
        return ChunkVersions(
            flat=np.ascontiguousarray(pages).reshape(-1),
            start=items.page[its].astype(np.int64) * block_size + items.off[its],
            length=items.len[its].astype(np.int64), t_hoff=tups.t_hoff[sel].astype(np.int64),
            natts=infomask2 & HEAP_NATTS_MASK, infomask=infomask[keep], infomask2=infomask2,
            xmin=xmin[keep], xmax=xmax[keep], xmin_state=xmin_st[keep], xmax_state=xmax_st[keep],
            status=status[keep], block=blocks[keep], item=lps[keep], ctid_block=ctid_block[keep],
            ctid_offset=ctid_offset[keep], lp_off=items.off[its].astype(np.int64))

    def versions(self, c: "ChunkVersions", which=None, stored: bool = False) -> Iterator[RowVersion]:
        """RowVersions of a chunk's versions (all, or the indexes ``which``), values printed here: the compiled
        walk finds the attributes of plain tuples, ``deform_tuple`` those it refuses. ``stored``: each value as
        the bytes the tuple stores (a TOAST pointer's, not fetched), as heap_update compares them."""
        if which is not None:
            c = c.take(np.asarray(which, dtype=np.int64))
        fast, pos, lens = kernels.deform_offsets(c.flat, c.start, c.length, c.t_hoff, c.natts,
                                                 (c.infomask & HEAP_HASNULL) != 0, self._attlen, self._attalign)
        buf = c.flat.tobytes() if len(c.start) > 64 else None    # one copy of the chunk, or a slice per tuple
        cols = self.columns
        value = (lambda a, raw, blkno, lp: raw) if stored else self.value_text
        batches = [] if stored else self._pointer_batches(c, fast)
        for j in range(len(c.start)):
            if batches and j == batches[0][0]:
                self._prefetch(batches.pop(0)[1])
            s, n = int(c.start[j]), int(c.length[j])
            data = buf[s:s + n] if buf is not None else c.flat[s:s + n].tobytes()
            before = len(self.findings)
            blkno, lp, im, t_hoff = int(c.block[j]), int(c.item[j]), int(c.infomask[j]), int(c.t_hoff[j])
            if fast[j]:
                p, ln = pos[j], lens[j]
                values = [None if p[i] < 0 else value(a, data[p[i]:p[i] + ln[i]], blkno, lp) for i, a in cols]
            else:
                values = self._walk(data, t_hoff, int(c.natts[j]), im, blkno, lp, value)
            damage = version_damage(self.findings[before:], blkno in self.checksum_failures, self._names)
            yield RowVersion(blkno, lp, int(c.xmin[j]), int(c.xmax[j]), STATUS_NAMES[int(c.status[j])],
                             XID_STATE_NAMES[int(c.xmin_state[j])], XID_STATE_NAMES[int(c.xmax_state[j])],
                             f"({int(c.ctid_block[j])},{int(c.ctid_offset[j])})", im, int(c.infomask2[j]), values,
                             heap_oid_old(data, t_hoff, im), lp_off=int(c.lp_off[j]) if c.lp_off[j] >= 0 else None,
                             damage=damage, lsn=self.wal.lsns.get((blkno, lp, int(c.xmin[j]))) if self.wal else None)
        self._fetched.clear()

    def stored_values(self, c: "ChunkVersions", which) -> list[list]:
        """The values of versions ``which`` of a chunk as ``versions(stored=True)`` gives them (each as the bytes
        the tuple stores), without the rest of a RowVersion: the compiled walk's offsets, ``versions`` for the
        tuples it refuses (with their findings)."""
        sub = c.take(np.asarray(which, dtype=np.int64))
        fast, pos, lens = kernels.deform_offsets(sub.flat, sub.start, sub.length, sub.t_hoff, sub.natts,
                                                 (sub.infomask & HEAP_HASNULL) != 0, self._attlen, self._attalign)
        buf, cols = sub.flat.tobytes(), self.columns
        refused = self.versions(sub, np.flatnonzero(~fast), stored=True)
        out = []
        for s, ok, p, ln in zip(sub.start.tolist(), fast.tolist(), pos.tolist(), lens.tolist()):
            out.append([None if p[i] < 0 else buf[s + p[i]:s + p[i] + ln[i]] for i, _ in cols] if ok
                       else next(refused).values)
        return out

    def _pointer_batches(self, c: "ChunkVersions", fast: np.ndarray) -> list[tuple[int, list[ToastPointer]]]:
        """The on-disk TOAST pointers of the printed columns of a chunk's versions (those the compiled walk took
        are plain), in runs of versions whose values come to about FETCH_BYTES: (the run's first version, its
        pointers), for ``versions`` to fetch a run's values together before it prints them."""
        cols = [i for i, a in self.columns if a.attlen == -1]
        rows = np.flatnonzero(~fast & ((c.infomask & HEAP_HASEXTERNAL) != 0))
        if not cols or not len(rows):
            return []
        ok, pos, lens, _ = self._varlenas(c, (c.infomask & HEAP_HASNULL) != 0, rows, [])
        at, pointers = ondisk_pointers(c.flat, c.start[rows], ok, pos[:, cols], lens[:, cols])
        j, x = np.nonzero(pointers)
        p = read_pointers(c.flat, at[j, x])
        size = (p["va_extinfo"].astype(np.int64) & VARLENA_EXTSIZE_MASK).tolist()
        out: list[tuple[int, list[ToastPointer]]] = []
        total = FETCH_BYTES + 1
        for version, q, n in zip(rows[j].tolist(), p, size):
            if total > FETCH_BYTES and (not out or out[-1][0] != version):
                out.append((version, []))
                total = 0
            out[-1][1].append(ToastPointer(VARTAG_ONDISK, int(q["va_rawsize"]), int(q["va_extinfo"]),
                                           int(q["va_valueid"]), int(q["va_toastrelid"])))
            total += n
        return out

    def _prefetch(self, pointers: list[ToastPointer]) -> None:
        """Fetch the values of ``pointers`` together, for ``_toast_value`` to take (those fetched before and not
        taken are dropped: memory holds one run's values)."""
        self._fetched.clear()
        for rel in dict.fromkeys(q.va_toastrelid for q in pointers):
            store, mine = self._toast_store(rel), [q for q in pointers if q.va_toastrelid == rel]
            if store is not None:
                self._fetched.update(zip(mine, store.fetch(mine)))

    # ------------------------------------------------------------------------------------------ CSV
    def csv_stream(self, system: bool = False) -> Iterator["tuple[bytes, int] | RowVersion"]:
        """The body of ``COPY ... TO (FORMAT csv)`` (``system``: ctid, xmin, xmax and status first), in ctid order
        and a chunk at a time: ``(text, rows)``, UTF-8 lines the compiled printer wrote for that many rows, or a
        RowVersion for a row it declined (``render.rows`` makes its line, as for every row when the printer
        cannot take the table: a column of a type it does not print)."""
        yield from self._printed_stream(self.csv_printer(system), system)

    def arrow_stream(self, typed: list[bool]) -> Iterator["TypedLines | RowVersion"]:
        """``csv_stream``'s rows (no system columns in the lines) for Arrow (``passes.export.rows_batches``): runs of
        versions the compiled printer took (``TypedLines``: the values of the ``typed`` columns as Arrow holds them
        where it can, the others' CSV fields), between the versions it declined."""
        yield from self._printed_stream(self.csv_printer(system=False, typed=typed), system=False)

    def copy_stream(self) -> Iterator["tuple[bytes, int] | RowVersion"]:
        """The body of ``COPY ... TO`` in its text format (`pgpage dump`), as ``csv_stream`` gives CSV lines: runs of
        lines the compiled printer wrote between the versions it declined (``render.rows.copy_text_line``)."""
        yield from self._printed_stream(self.csv_printer(system=False, copy_text=True), system=False)

    def json_stream(self) -> Iterator["tuple[bytes, int] | RowVersion"]:
        """``rows --json``'s records as ``csv_stream`` gives CSV lines: runs of them the compiled printer wrote
        (``(text, rows)``) between the versions it declined (``RowVersion.record`` makes their records)."""
        yield from self._printed_stream(self.csv_printer(system=True, json=True), system=True, json=True)

    def _printed_stream(self, printer, system: bool, json: bool = False) -> Iterator:
        """Every chunk's runs of what ``printer`` wrote, between the versions it declined; every version as a
        RowVersion when there is no printer (a column of a type it does not print)."""
        if printer is None:
            yield from self
            return
        for chunk in self.chunks():
            yield from self._printed_chunk(printer, chunk, system, json=json)

    def csv_kinds(self) -> list[str | None]:
        """How the compiled printer prints each selected column (``decode.printer``), None where it cannot."""
        return self.printed.kinds([a for _, a in self.columns])

    def csv_printer(self, system: bool, index_attrs: list[Attribute] | None = None, json: bool = False,
                    copy_text: bool = False, typed: list[bool] | None = None):
        """The compiled printer of the selected columns, None when it cannot print them all; with ``index_attrs``
        (a B-tree's attributes, attnum order), of every attribute of that index's leaf tuples instead; with
        ``json``, of ``rows --json``'s records (``RowVersion.record``); with ``copy_text``, of COPY's text format;
        with ``typed``, writing the values of those columns as Arrow holds them (``arrow_stream``)."""
        if index_attrs is None:   # a row's columns of other types: Python's texts, given to the printer
            attrs, cols = self.attrs, [i for i, _ in self.columns]
            kinds = ["given" if k is None else k for k in self.csv_kinds()]
        else:
            attrs, cols, kinds = index_attrs, list(range(len(index_attrs))), self.printed.kinds(index_attrs)
        records = None
        if json:
            if len(set(self.column_names)) != len(self.column_names):
                return None       # a record holds each name once (a dict)
            verdicts = [XID_STATE_NAMES.get(k) for k in range(len(XID_STATE_NAMES))]   # by the index the C reads
            records = kernels.JsonRecords(verdicts, STATUS_NAMES.index("updated"),
                                          [dumps(n, ensure_ascii=False) + ":" for n in self.column_names])
        return self.printed.printer(attrs, cols, kinds, STATUS_NAMES, system, index_tuples=index_attrs is not None,
                                    json=records, copy_text=copy_text, typed=typed)

    def _walk(self, data: bytes, t_hoff: int, natts: int, infomask: int, blkno: int, lp: int, value=None) -> list:
        """The values of a tuple the compiled walk refused, through ``deform_tuple`` (its findings kept), each
        made by ``value`` (default ``value_text``) of its stored bytes."""
        bitmap = data[SizeofHeapTupleHeader:t_hoff] if infomask & HEAP_HASNULL else None
        d = deform_tuple(data, t_hoff, natts, self.attrs, null_bitmap=bitmap,
                         hasvarwidth=bool(infomask & HEAP_HASVARWIDTH), hasexternal=bool(infomask & HEAP_HASEXTERNAL))
        for f in d.findings:
            self.findings.append(Finding(f.code, f.message, f.severity, relation=self.label, block=blkno, item=lp,
                                         expected=f.expected, actual=f.actual))
        out = []
        for i, att in self.columns:
            a = d.attrs[i]
            if a.status == ERROR_STATUS:   # (its finding is the walk's, or the one of the attribute it stopped at)
                self.findings.append(Finding("rows.value.unreadable", f"column {a.name!r}: {a.error.message}",
                                             ERROR, relation=self.label, block=blkno, item=lp, attnum=i + 1))
                out.append(None)
            elif a.raw is None:
                out.append(None)
            else:
                out.append((value or self.value_text)(att, a.raw, blkno, lp))
        return out

    def value_text(self, att: Attribute, raw: bytes, blkno: int, lp: int):
        """The text of one value of column ``att`` (``raw``: as stored in tuple (blkno, lp)): None (with a finding)
        when it cannot be read; hex when its type is not decoded."""
        if att.attlen == -1 and raw[:1] == b"\x01":
            v = parse_varlena(raw)
            if not isinstance(v, datum.Varlena) or v.kind != EXTERNAL or v.toast is None:
                value = datum.varlena_payload(raw, att.typid)
            else:
                value = self._toast_value(v.toast)   # (a varlena: its content follows the 4-byte header)
                if isinstance(value, bytes):
                    value = self.formatter.payload_text(att.typid, value[VARHDRSZ:])
        else:
            value = self.formatter.text(att.typid, raw)
        if isinstance(value, str):
            return value
        if isinstance(value, Undecoded):
            return "\\x" + value.hex
        message = value.message if isinstance(value, Unreadable) else str(value)
        code = value.code if isinstance(value, Unreadable) else "rows.value.unreadable"
        self.findings.append(Finding(code, f"column {att.name!r}: {message}", ERROR, relation=self.label,
                                     block=blkno, item=lp, attnum=self._attnums.get(att)))
        return None

    def _toast_store(self, rel: int) -> ToastStore | None:
        """TOAST relation ``rel``'s chunks, found through its index (None: not in the catalog, or no file)."""
        if rel not in self._toast:
            toast = self.relation.toast if self.relation.toast is not None and self.relation.toast.oid == rel else \
                next((r for r in self.relation.database.relations() if r.oid == rel), None)
            self._toast[rel] = None if toast is None or not toast.forks.get("main") else \
                ToastStore.open(toast, self.cluster)
        return self._toast[rel]

    def _toast_value(self, pointer: ToastPointer):
        """The value of ``pointer`` (``ToastStore.fetch``'s), fetched ahead by ``_prefetch`` or now."""
        value = self._fetched.pop(pointer, None)
        if value is not None:
            return value
        store = self._toast_store(pointer.va_toastrelid)
        if store is None:
            return Unreadable("toast.relation_missing", f"TOAST value {pointer.va_valueid}: TOAST relation"
                              f" {pointer.va_toastrelid} is not in the catalog or has no file")
        return store.fetch([pointer])[0]
