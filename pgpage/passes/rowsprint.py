"""The compiled printer's side of `rows --csv` and `--json` (``passes.rows.TableRows`` inherits it): a chunk's
versions handed to ``decode.printer`` with their out-of-line values fetched from TOAST (``passes.toast``), the
texts it declines printed by Python and given back to it, so that each line is written once, in ctid order.
Apart from passes/rows.py only to keep each module to one concern: the reading of rows there, the printing here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pgpage.analysis.rowstatus import PRUNED
from pgpage.analysis.verify.toast import read_pointers
from pgpage.decode import datum, kernels
from pgpage.decode.datum import TOAST_LZ4_COMPRESSION_ID, VARHDRSZ, VARLENA_EXTSIZE_BITS, VARLENA_EXTSIZE_MASK
from pgpage.decode.flags import HEAP_HASEXTERNAL, HEAP_HASNULL
from pgpage.passes.rowdamage import checksum_runs
from pgpage.passes.toast import FETCH_BYTES, ondisk_pointers

MEMO_BYTES, MEMO_VALUES = 64, 4096   # rows --csv/--json: the texts Python prints kept by value (_given_texts)


@dataclass
class TypedLines:
    """A run of versions the compiled printer took with typed columns (``TableRows.arrow_stream``): their CSV
    lines (no system columns; a field left empty where its value is typed), the versions (a ``ChunkVersions``),
    and per version and printed column ``values`` and ``lengths`` as ``kernels.CsvPrinter`` gives them, with the
    bytes of their text values (``data``: the printer's buffer, good until the stream's next item)."""
    text: bytes
    versions: object
    values: np.ndarray
    lengths: np.ndarray
    data: np.ndarray


class CompiledPrinting:
    """``TableRows``'s methods that feed the compiled printer (they use its attributes: attrs, columns, formatter,
    findings, cluster, relation; ``c``: a ``passes.rows.ChunkVersions``)."""

    def _printed_chunk(self, printer, c, system: bool, json: bool = False):
        """``_csv_chunk`` of a chunk, whose versions on pages that fail their checksum Python prints (flagged), as
        those from WAL (their LSN, an lp_off only a full-page image knows)."""
        if self.wal is not None and self.wal.holds(c):
            yield from self.versions(c)
            return
        for which, flagged in checksum_runs(c.block, self.checksum_failures):
            if flagged:
                yield from self.versions(c, which=which)
            else:
                yield from self._csv_chunk(printer, c if which is None else c.take(which), system, json)

    def _csv_chunk(self, printer, c, system: bool, json: bool = False):
        """One chunk's CSV (or JSON records): the printer's text, and between its runs the versions it declined
        (Python's)."""
        hasnull = (c.infomask & HEAP_HASNULL) != 0
        given = self._given_texts(printer, c, hasnull)
        # (a pruned version's JSON record, which has its lp_off, is Python's: a status the printer does not know)
        sys_cols = np.stack([c.block, c.item, c.xmin, c.xmax, np.where(c.status == PRUNED, -1, c.status)] + (
            [c.xmin_state, c.xmax_state, c.ctid_block, c.ctid_offset, c.infomask, c.infomask2]) if json else
            [c.block, c.item, c.xmin, c.xmax, c.status, c.lp_off]) if system else None
        n, first, stop, toasted = len(c.start), 0, 0, None
        while first < n:
            if first >= stop:   # (a window's values, fetched once however many calls print its lines)
                stop, toasted = self._toasted_values(printer, c, hasnull, first)
            done, ends, ok = printer.lines(c.flat, c.start[first:stop], c.length[first:stop], c.t_hoff[first:stop],
                                           c.natts[first:stop], hasnull[first:stop],
                                           sys_cols[:, first:stop] if system else None,
                                           (given[0], given[1][first:stop], given[2][first:stop]) if given else None,
                                           toasted)
            if done == 0:     # the printer always takes or declines the first line; never loop
                raise AssertionError("pgp_csv_rows made no progress")
            out = printer.out
            declined = np.flatnonzero(~ok)
            if len(declined) and not self._inline_lz4:   # one declined for an lz4 value stored inline: from the next
                # window on, such values are inflated for the printer (a table that has one mostly has many)
                lz4 = self._varlenas(c, hasnull, declined + first, [i for _, i in self._printed_varlenas(printer)])[3]
                self._inline_lz4 = bool(lz4.any())
            python_rows = self.versions(c, which=declined + first) if len(declined) else iter(())
            run = self._run if printer.typed is None else self._typed_run(printer, c, first)
            at = prev = 0
            for k in declined.tolist():
                end = int(ends[k])
                if k > prev:
                    yield run(out[at:end].tobytes(), prev, k)
                yield next(python_rows)
                at, prev = end, k + 1
            if done > prev:
                yield run(out[at:int(ends[done - 1])].tobytes(), prev, done)
            first += done
            toasted = toasted and (toasted[0], toasted[1][done:], toasted[2][done:])

    @staticmethod
    def _run(text: bytes, start: int, stop: int) -> tuple[bytes, int]:
        return text, stop - start

    @staticmethod
    def _typed_run(printer, c, first: int):
        """How a call's runs of lines are handed on with typed columns: ``TypedLines`` whose ``data`` is the
        printer's own buffer, which its next call writes again: a run must be read before the stream's next item is
        taken (copying a whole 2 GB table's text through it cost more than the rest of the batch)."""
        def run(text: bytes, start: int, stop: int) -> TypedLines:
            return TypedLines(text, c.take(slice(first + start, first + stop)), printer.values[start:stop],
                              printer.lengths[start:stop], printer.data)
        return run

    def _toasted_values(self, printer, c, hasnull: np.ndarray, first: int):
        """The values the printer cannot read from a chunk's tuples, in its printed columns, from ``first`` on: those
        of TOAST pointers (``ToastStore.fetch``), and once a table showed one (``_inline_lz4``) lz4-compressed values
        stored inline; up to the versions whose values come to about FETCH_BYTES (memory stays flat): (stop, (bytes,
        start, length)), start and length of shape (stop - first, printed columns), each value a varlena with a
        4-byte header (pglz-compressed as stored: the printer inflates it), start -1 where the version's own bytes
        are printed (a value that could not be fetched or inflated: the printer declines the version, Python
        prints it with its findings); (len, None) when no version from ``first`` has one."""
        n = len(c.start)
        if printer.params[kernels.TABLES.CSV_PARAMS.index("index_tuples")]:
            return n, None
        external = (c.infomask[first:] & HEAP_HASEXTERNAL) != 0
        rows = first + (np.arange(n - first) if self._inline_lz4 else np.flatnonzero(external))
        if not len(rows):
            return n, None
        cols = self._printed_varlenas(printer)
        attrs = [i for _, i in cols]
        fast, pos, lens, lz4 = self._varlenas(c, hasnull, rows, attrs)
        cell_at, pointers = ondisk_pointers(c.flat, c.start[rows], fast, pos[:, attrs], lens[:, attrs])
        pointers &= external[rows - first][:, None]
        ptr = read_pointers(c.flat, np.where(pointers, cell_at, 0).reshape(-1)).reshape(pointers.shape)
        extsize = ptr["va_extinfo"].astype(np.int64) & VARLENA_EXTSIZE_MASK
        # what each version's values come to (an inline lz4 value: its raw size, va_tcinfo's); the versions up to
        # about FETCH_BYTES are done now
        tcinfo = c.flat[np.where(lz4, cell_at, 0)[..., None] + np.arange(4, 8)].copy().view("<u4")[..., 0]
        size = np.where(pointers, extsize, 0) + np.where(lz4, tcinfo.astype(np.int64) & VARLENA_EXTSIZE_MASK, 0)
        before = np.cumsum(size.sum(axis=1)) - size.sum(axis=1)
        over = np.flatnonzero(before > FETCH_BYTES)
        done = int(over[0]) if len(over) else len(rows)
        stop = int(rows[done]) if done < len(rows) else n
        start = np.full((n - first, len(printer.cols)), -1, dtype=np.int64)
        length = np.zeros_like(start)
        pieces, at = [], 0
        printed = np.array([k for k, _ in cols], dtype=np.int64)
        # lz4-compressed values, inline and out of line, are inflated here (the lz4 package; the printer inflates
        # only pglz, and declines other methods: Python prints the version, as one that cannot be inflated)
        lz4_values = [(int(rows[j]) - first, int(printed[x]), c.flat[cell_at[j, x]:cell_at[j, x] + lens[j, attrs[x]]])
                      for j, x in zip(*np.nonzero(lz4[:done]))]
        j, x = np.nonzero(pointers[:done])
        cell = ptr[j, x]
        for rel in np.unique(cell["va_toastrelid"]).tolist():
            mine = np.flatnonzero(cell["va_toastrelid"] == rel)
            store = self._toast_store(rel)
            if store is None:     # the values cannot be read: the printer declines their versions
                continue
            row, k, p = rows[j[mine]] - first, printed[x[mine]], cell[mine]
            values = store.fetch(p, inflate=False)
            lz4_method = (extsize[j[mine], x[mine]] < p["va_rawsize"].astype(np.int64) - VARHDRSZ) \
                & ((p["va_extinfo"] >> VARLENA_EXTSIZE_BITS) == TOAST_LZ4_COMPRESSION_ID)
            w = np.flatnonzero((values.start >= 0) & ~lz4_method)
            start[row[w], k[w]], length[row[w], k[w]] = at + values.start[w], values.length[w]
            pieces.append(values.data)
            at += len(values.data)
            lz4_values += [(int(row[m]), int(k[m]), values[m])
                           for m in np.flatnonzero((values.start >= 0) & lz4_method).tolist()]
        for row, k, value in lz4_values:
            value = datum.varlena_payload(bytes(value))
            if isinstance(value, bytes):   # (with a 4-byte varlena header)
                start[row, k], length[row, k] = at, len(value) + VARHDRSZ
                pieces.append(np.frombuffer(((len(value) + VARHDRSZ) << 2).to_bytes(VARHDRSZ, "little") + value,
                                            dtype=np.uint8))
                at += len(value) + VARHDRSZ
        # (given even with no value: the printer then walks over the pointers of columns it does not print)
        data = np.concatenate(pieces) if pieces else np.zeros(1, dtype=np.uint8)
        return stop, (data, start[:stop - first], length[:stop - first])

    def _printed_varlenas(self, printer) -> list[tuple[int, int]]:
        """(printed column, attribute) of the varlena columns the printer reads from the tuples."""
        given = kernels.TABLES.CSV_KINDS.index("given")
        return [(k, i) for k, (i, kind) in enumerate(zip(printer.cols.tolist(), printer.kinds.tolist()))
                if kind != given and self._attlen[i] == -1]

    def _varlenas(self, c, hasnull: np.ndarray, rows: np.ndarray, cols: list[int]):
        """``kernels.deform_offsets`` of versions ``rows`` (TOAST pointers read as such), and of columns ``cols``
        (varlenas), where each holds an lz4-compressed value stored inline: a 4-byte compressed header whose
        va_tcinfo names lz4 (the printer inflates only pglz)."""
        fast, pos, lens = kernels.deform_offsets(c.flat, c.start[rows], c.length[rows], c.t_hoff[rows], c.natts[rows],
                                                 hasnull[rows], self._attlen, self._attalign, toast_pointers=True)
        if not cols:
            return fast, pos, lens, np.zeros((len(rows), 0), dtype=bool)
        ok = fast[:, None] & (pos[:, cols] >= 0) & (lens[:, cols] >= 8)
        at = np.where(ok, c.start[rows][:, None] + pos[:, cols], 0)
        top = c.flat[at + 7] >> 6     # va_tcinfo's compression method bits (the value is at least 8 bytes)
        return fast, pos, lens, ok & ((c.flat[at] & 3) == 2) & (top == TOAST_LZ4_COMPRESSION_ID)

    def _given_texts(self, printer, c, hasnull: np.ndarray):
        """The texts of the columns the printer takes from Python (kind "given"), for the versions of a chunk whose
        attributes the compiled walk finds: (UTF-8 bytes, start, length), start and length of shape (versions,
        columns), start -1 for NULL and -2 for a version Python prints whole (one of its values could not be read:
        its findings then come once, when Python prints it); None when there are no such columns."""
        kinds = printer.kinds.tolist()
        given = [(i, a) for (i, a), k in zip(self.columns, kinds) if k == kernels.TABLES.CSV_KINDS.index("given")]
        if not given:
            return None
        fast, pos, lens = kernels.deform_offsets(c.flat, c.start, c.length, c.t_hoff, c.natts, hasnull, self._attlen,
                                                 self._attalign)
        cols = [i for i, _ in given]
        pos, lens = pos[:, cols].tolist(), lens[:, cols].tolist()
        buf = c.flat.tobytes()
        starts, blocks, items = c.start.tolist(), c.block.tolist(), c.item.tolist()
        start = np.full((len(starts), len(given)), -2, dtype=np.int64)
        length = np.zeros_like(start)
        # each column's texts by the bytes they were printed from (an enum's few labels, a status array's few
        # values...: printed once), for short values, while there are not too many
        memo = [self._given_memos.setdefault(i, {}) for i in cols]
        pieces: list[bytes] = []
        at = 0
        for j in np.flatnonzero(fast).tolist():
            s, p, ln, findings = starts[j], pos[j], lens[j], len(self.findings)
            row: list[bytes | None] = []
            for g, (_, a) in enumerate(given):
                raw = buf[s + p[g]:s + p[g] + ln[g]] if p[g] >= 0 else None
                b = memo[g].get(raw) if raw is not None else None
                if b is None and raw is not None:
                    text = self.value_text(a, raw, blocks[j], items[j])
                    if text is None:
                        break
                    b = text.encode("utf-8", "surrogatepass")   # (the printer declines what is not UTF-8)
                    if len(raw) <= MEMO_BYTES and len(memo[g]) < MEMO_VALUES:
                        memo[g][raw] = b
                row.append(b)
            if len(self.findings) > findings or len(row) < len(given):
                del self.findings[findings:]     # Python prints this version: its findings come then
                continue
            for g, b in enumerate(row):
                if b is None:
                    start[j, g] = -1
                    continue
                start[j, g], length[j, g] = at, len(b)
                pieces.append(b)
                at += len(b)
        text = np.frombuffer(b"".join(pieces) or b"\0", dtype=np.uint8)
        return text, start, length

