"""Row contents: every row version of a table with its values, read from the files alone.

``TableRows`` reads a table's main fork chunk by chunk (memory stays flat), decodes the tuple headers
of a chunk at once (``decode.vector``), decides each version's fate from hint bits, pg_xact and
pg_multixact (``analysis.rowstatus``), finds the attributes of the versions it keeps (the compiled
``pgp_deform`` walk; ``decode.deform`` for the tuples it refuses: TOAST pointers, columns added
after the row was written, damage), and prints each value as the server would
(``decode.values.ValueFormatter``), fetching out-of-line values from the TOAST table
(``ToastStore``, ``decode.toast``).

What cannot be read becomes a finding with its block and item, and ``None`` for that value only:
the rest of the row, and every other row, is still printed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from pgpage.analysis.heapstats import ST_ABORTED, xmax_states, xmin_states
from pgpage.analysis.rowstatus import LIVE, STATUS_NAMES, UPDATED, XID_STATE_NAMES, row_statuses
from pgpage.decode import datum
from pgpage.decode.datum import ATTALIGN_BYTES, EXTERNAL, ToastPointer, Undecoded, Unreadable, parse_varlena
from pgpage.decode.deform import (ERROR_STATUS, SIZEOF_HEAP_TUPLE_HEADER, VALUE, Attribute, deform_tuple,
                                  heap_oid_old)
from pgpage.decode.flags import (HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_HOT_UPDATED,
                                 HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, LP_NORMAL)
from pgpage.decode.toast import TOAST_MAX_CHUNK_SIZE_8K, reassemble
from pgpage.decode.values import ValueFormatter
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_heap_chunk, tuple_has_header
from pgpage.findings import ERROR, INFO, WARNING, ExitCode, Finding, PgpageError

DEFAULT_TIMEZONE = "GMT"   # the server's boot value of TimeZone when no configuration file sets it


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
        d["values"] = dict(zip(names, self.values if values is None else values))
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
        datum.decode_datum(1184, bytes(8), timezone=zone)    # an unknown zone is refused here, not per value
    except ValueError as exc:
        raise PgpageError(f"time zone {zone!r}: {exc}", ExitCode.USAGE) from None
    return zone


class ToastStore:
    """The chunks of one TOAST table, found by (chunk_id, chunk_seq): the table's tuple headers are read
    once to place every chunk; a value's chunks are read when it is asked for."""

    COLUMNS = (Attribute("chunk_id", 26, 4, "i", True), Attribute("chunk_seq", 23, 4, "i", True),
               Attribute("chunk_data", 17, -1, "i", False))

    def __init__(self, relation, clog, max_chunk: int):
        self.relation = relation
        self.max_chunk = max_chunk
        fork = relation.forks.get("main")
        self.read_blocks = fork.block_reader() if fork is not None else None
        ids, seqs, blocks, items, aborted = [], [], [], [], []
        for first, pages in (fork.iter_chunks() if fork is not None else ()):
            hc = decode_heap_chunk(pages, first)
            it, tup = hc.items, hc.tuples
            keep = np.flatnonzero((it.flags[tup.item] == LP_NORMAL)
                                  & (tup.t_hoff.astype(np.int64) + 8 <= it.len[tup.item]))
            at = (it.page[tup.item[keep]] * pages.shape[1] + it.off[tup.item[keep]]
                  + tup.t_hoff[keep].astype(np.int64))
            head = pages.reshape(-1)[at[:, None] + np.arange(8)].copy().view("<u4")
            ids.append(head[:, 0])
            seqs.append(head[:, 1].view("<i4"))
            blocks.append(first + it.page[tup.item[keep]])
            items.append(it.lp[tup.item[keep]])
            xst, _ = xmin_states(tup.t_infomask[keep].astype(np.int64), tup.t_xmin[keep].astype(np.int64), clog)
            aborted.append(xst == ST_ABORTED)
        cat = (lambda parts, dt: np.concatenate(parts) if parts else np.zeros(0, dtype=dt))
        self.chunk_id = cat(ids, np.uint32)
        order = np.argsort(self.chunk_id, kind="stable")
        self.chunk_id = self.chunk_id[order]
        self.chunk_seq = cat(seqs, np.int32)[order]
        self.block = cat(blocks, np.int64)[order]
        self.item = cat(items, np.int64)[order]
        self.aborted = cat(aborted, bool)[order]

    def fetch(self, pointer: ToastPointer):
        """The value's content (bytes), or an Unreadable saying which chunk is missing or wrong."""
        lo, hi = np.searchsorted(self.chunk_id, [pointer.va_valueid, pointer.va_valueid + 1])
        rows = [r for r in range(lo, hi) if not self.aborted[r]] or list(range(lo, hi))
        if not rows:
            return reassemble(pointer, {}, self.max_chunk)
        order = np.argsort(self.block[rows], kind="stable")
        rows = [rows[i] for i in order]
        pages = self.read_blocks(np.unique(self.block[rows]))
        page_of = {b: i for i, b in enumerate(np.unique(self.block[rows]).tolist())}
        chunks: dict[int, bytes] = {}
        duplicates = []
        for r in rows:
            data = self._chunk_data(pages[page_of[int(self.block[r])]], int(self.block[r]), int(self.item[r]))
            if isinstance(data, Unreadable):
                return data
            seq = int(self.chunk_seq[r])
            if seq in chunks:
                duplicates.append(seq)
            chunks[seq] = data
        return reassemble(pointer, chunks, self.max_chunk, tuple(duplicates))

    def _chunk_data(self, page: np.ndarray, block: int, item: int):
        lp = int(page[SIZE_OF_PAGE_HEADER + 4 * (item - 1):SIZE_OF_PAGE_HEADER + 4 * item].view("<u4")[0])
        off, length = lp & 0x7FFF, lp >> 17
        tup = page[off:off + length].tobytes()
        infomask = int.from_bytes(tup[20:22], "little")
        d = deform_tuple(tup, tup[22], int.from_bytes(tup[18:20], "little") & HEAP_NATTS_MASK, self.COLUMNS,
                         null_bitmap=tup[SIZEOF_HEAP_TUPLE_HEADER:tup[22]] if infomask & HEAP_HASNULL else None)
        a = d.attrs[2]
        if a.status != VALUE:
            return Unreadable("toast.chunk_unreadable", f"TOAST chunk ({block},{item}) of"
                              f" {self.relation.qualified_name}: chunk_data cannot be read")
        payload = datum.varlena_payload(a.raw)
        if not isinstance(payload, bytes):
            return Unreadable("toast.chunk_unreadable", f"TOAST chunk ({block},{item}) of "
                              f"{self.relation.qualified_name}: {payload}")
        return payload


@dataclass
class RowOptions:
    all_versions: bool = False
    columns: list[str] | None = None   # names to print, in this order (default: every column)
    start: int | None = None           # block range [start, stop)
    stop: int | None = None
    timezone: str | None = None        # overrides the cluster's configuration


class TableRows:
    """The row versions of one table, in ctid order (iterate it), and what could not be read (``findings``,
    complete once iteration ends)."""

    def __init__(self, cluster, relation, options: RowOptions | None = None):
        self.options = options = options or RowOptions()
        if relation.kind not in "rtm":
            raise PgpageError(f"{relation.qualified_name} is a {relation.kind_name}: rows are read from tables",
                              ExitCode.USAGE)
        self.cluster, self.relation = cluster, relation
        self.label = f"{relation.database.name}.{relation.qualified_name}"
        self.findings: list[Finding] = []
        db = relation.database
        rows = db.attributes(relation.oid)
        if not rows:
            raise PgpageError(f"{self.label}: its columns cannot be read from pg_attribute", ExitCode.UNREADABLE)
        self.attrs = [Attribute(r["attname"], r["atttypid"], r["attlen"], r["attalign"], r["attbyval"] is True,
                                r.get("attisdropped") is True, r.get("atthasmissing") is True, r.get("attmissingval"))
                      for r in rows]
        present = [(i, a) for i, a in enumerate(self.attrs) if not a.attisdropped]
        if options.columns:
            by_name = {a.name: (i, a) for i, a in present}
            unknown = [c for c in options.columns if c not in by_name]
            if unknown:
                raise PgpageError(f"{self.label} has no column {', '.join(map(repr, unknown))} (it has: "
                                  f"{', '.join(a.name for _, a in present)})", ExitCode.USAGE)
            present = [by_name[c] for c in options.columns]
        self.columns = present
        self.column_names = [a.name for _, a in present]
        self.timezone = resolve_timezone(cluster, options.timezone, self.findings)
        self.formatter = ValueFormatter(db.types, cluster.major, self.timezone)
        for _, a in present:
            if not self.formatter.decodable(a.typid):
                self.findings.append(Finding("rows.type.not_decoded", f"column {a.name!r} is of type "
                                             f"{self._type_name(a.typid)}, which pgpage does not decode: its values"
                                             " are printed as the hex of their bytes", severity=WARNING,
                                             relation=self.label))
        self.fork = relation.forks.get("main")
        self._attlen = np.array([a.attlen for a in self.attrs], dtype=np.int64)
        self._attalign = np.array([ATTALIGN_BYTES.get(a.attalign, 1) for a in self.attrs], dtype=np.int64)
        self._toast: dict[int, ToastStore | None] = {}
        control = cluster.control or {}
        self._max_chunk = control.get("toast_max_chunk_size") or TOAST_MAX_CHUNK_SIZE_8K

    def records(self) -> Iterator[dict]:
        """Each version as a record whose values are typed Python objects (``values.python_value``)."""
        from pgpage.decode.values import python_value
        types = [a.typid for _, a in self.columns]
        for row in self:
            yield row.record(self.column_names, [python_value(self.formatter, t, v)
                                                 for t, v in zip(types, row.values)])

    def _type_name(self, typid: int) -> str:
        t = self.formatter.catalog.get(typid)
        return t.name if t is not None else f"oid {typid}"

    # ------------------------------------------------------------------------------------------ reading
    def __iter__(self) -> Iterator[RowVersion]:
        if self.fork is None or not self.fork.exists:
            self.findings.append(Finding("relation.file_missing", f"{self.label}: the main fork has no file",
                                         relation=self.label))
            return
        o = self.options
        start = self.fork.first_block if o.start is None else o.start
        stop = self.fork.end_block if o.stop is None else o.stop
        for first, pages in self.fork.iter_chunks(start, stop):
            yield from self._chunk_rows(first, pages)
        self.findings.extend(self.fork.size_changes())

    def _chunk_rows(self, first: int, pages: np.ndarray) -> Iterator[RowVersion]:
        from pgpage.analysis import kernels
        cluster = self.cluster
        hc = decode_heap_chunk(pages, first)
        items, tups, h = hc.items, hc.tuples, hc.headers
        block_size = pages.shape[1]
        bad = ~h.is_new & ((h.lower < SIZE_OF_PAGE_HEADER) | (h.lower > h.upper) | (h.upper > h.special)
                           | (h.special > block_size))
        for page in np.flatnonzero(bad).tolist():
            self.findings.append(Finding("page.header.bad_bounds", f"pd_lower {h.lower[page]}, pd_upper "
                                         f"{h.upper[page]}, pd_special {h.special[page]} are out of order: the "
                                         "page's rows are not read", relation=self.label, block=first + page))
        lost = np.flatnonzero((items.flags == LP_NORMAL) & ~tuple_has_header(items, block_size) & ~bad[items.page])
        for i in lost.tolist():
            self.findings.append(Finding("rows.tuple.unreadable", f"line pointer (off {items.off[i]}, len "
                                         f"{items.len[i]}) does not hold a readable tuple", relation=self.label,
                                         block=first + int(items.page[i]), item=int(items.lp[i])))
        sel = np.flatnonzero((items.flags[tups.item] == LP_NORMAL) & ~bad[items.page[tups.item]])
        if not len(sel):
            return
        its = tups.item[sel]
        infomask = tups.t_infomask[sel].astype(np.int64)
        xmin, xmax = tups.t_xmin[sel].astype(np.int64), tups.t_xmax[sel].astype(np.int64)
        xmin_st, _ = xmin_states(infomask, xmin, cluster.clog)
        xmax_st, _ = xmax_states(infomask, xmax, cluster.clog, cluster.multi_update_xid)
        blocks = first + items.page[its].astype(np.int64)
        lps = items.lp[its].astype(np.int64)
        status = row_statuses(xmin_st, xmax_st, blocks, lps, tups.ctid_block[sel].astype(np.int64),
                              tups.ctid_offset[sel].astype(np.int64))
        keep = np.arange(len(sel)) if self.options.all_versions else np.flatnonzero(status == LIVE)
        if not len(keep):
            return
        sel, its = sel[keep], its[keep]
        starts = items.page[its].astype(np.int64) * block_size + items.off[its]
        lengths = items.len[its].astype(np.int64)
        natts = tups.t_infomask2[sel].astype(np.int64) & HEAP_NATTS_MASK
        flat = np.ascontiguousarray(pages).reshape(-1)
        fast, pos, lens = kernels.deform_offsets(flat, starts, lengths, tups.t_hoff[sel], natts,
                                                 (infomask[keep] & HEAP_HASNULL) != 0, self._attlen, self._attalign)
        buf = flat.tobytes()
        cols = self.columns
        for j, k in enumerate(keep.tolist()):
            s, n = int(starts[j]), int(lengths[j])
            blkno, lp = int(blocks[k]), int(lps[k])
            im, im2 = int(infomask[k]), int(tups.t_infomask2[sel[j]])
            if fast[j]:
                p, ln = pos[j], lens[j]
                values = [None if p[i] < 0 else self._text(a, buf[s + p[i]:s + p[i] + ln[i]], blkno, lp)
                          for i, a in cols]
            else:
                values = self._walk(buf[s:s + n], int(tups.t_hoff[sel[j]]), int(natts[j]), im, blkno, lp)
            st = int(status[k])
            yield RowVersion(blkno, lp, int(xmin[k]), int(xmax[k]), STATUS_NAMES[st],
                             XID_STATE_NAMES[int(xmin_st[k])], XID_STATE_NAMES[int(xmax_st[k])],
                             f"({int(tups.ctid_block[sel[j]])},{int(tups.ctid_offset[sel[j]])})", im, im2, values,
                             heap_oid_old(buf[s:s + n], int(tups.t_hoff[sel[j]]), im))

    def _walk(self, data: bytes, t_hoff: int, natts: int, infomask: int, blkno: int, lp: int) -> list:
        """The values of a tuple the compiled walk refused, through ``deform_tuple`` (its findings kept)."""
        bitmap = data[SIZEOF_HEAP_TUPLE_HEADER:t_hoff] if infomask & HEAP_HASNULL else None
        d = deform_tuple(data, t_hoff, natts, self.attrs, null_bitmap=bitmap,
                         hasvarwidth=bool(infomask & HEAP_HASVARWIDTH), hasexternal=bool(infomask & HEAP_HASEXTERNAL))
        for f in d.findings:
            self.findings.append(Finding(f.code, f.message, f.severity, relation=self.label, block=blkno, item=lp,
                                         expected=f.expected, actual=f.actual))
        out = []
        for i, _ in self.columns:
            a = d.attrs[i]
            if a.status == ERROR_STATUS or a.raw is None:
                out.append(None)
            else:
                out.append(self._text(self.attrs[i], a.raw, blkno, lp))
        return out

    def _text(self, att: Attribute, raw: bytes, blkno: int, lp: int):
        """One value's text: None (with a finding) when it cannot be read; hex when its type is not decoded."""
        if att.attlen == -1 and raw[:1] == b"\x01":
            v = parse_varlena(raw)
            if not isinstance(v, datum.Varlena) or v.kind != EXTERNAL or v.toast is None:
                value = datum.varlena_payload(raw, att.typid)
            else:
                payload = self._toast_value(v.toast)
                value = payload if not isinstance(payload, bytes) else self.formatter.payload_text(att.typid, payload)
        else:
            value = self.formatter.text(att.typid, raw)
        if isinstance(value, str):
            return value
        if isinstance(value, Undecoded):
            return "\\x" + value.hex
        message = value.message if isinstance(value, Unreadable) else str(value)
        code = value.code if isinstance(value, Unreadable) else "rows.value.unreadable"
        self.findings.append(Finding(code, f"column {att.name!r}: {message}", ERROR, relation=self.label,
                                     block=blkno, item=lp))
        return None

    def _toast_value(self, pointer: ToastPointer):
        rel = pointer.va_toastrelid
        if rel not in self._toast:
            toast = self.relation.toast if self.relation.toast is not None and self.relation.toast.oid == rel else \
                next((r for r in self.relation.database.relations() if r.oid == rel), None)
            self._toast[rel] = None if toast is None or not toast.forks.get("main") else \
                ToastStore(toast, self.cluster.clog, self._max_chunk)
        store = self._toast[rel]
        if store is None:
            return Unreadable("toast.relation_missing", f"TOAST value {pointer.va_valueid}: TOAST relation {rel} "
                              "is not in the catalog or has no file")
        return store.fetch(pointer)
