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

import copy
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Iterator

import numpy as np

from pgpage.analysis.btree.toastindex import ToastIndex
from pgpage.analysis.rowstatus import LIVE, STATUS_NAMES, XID_STATE_NAMES, row_statuses
from pgpage.analysis.verify.toast import CHUNK_BAD_HEADER, CHUNK_NULL, ONDISK_POINTER_SIZE, read_pointers
from pgpage.decode import datum, pgtz, typeout
from pgpage.decode.datum import (ATTALIGN_BYTES, EXTERNAL, TOAST_LZ4_COMPRESSION_ID, VARHDRSZ, VARLENA_EXTSIZE_BITS,
                                 VARLENA_EXTSIZE_MASK, VARTAG_ONDISK, ToastPointer, Undecoded, Unreadable,
                                 parse_varlena)
from pgpage.decode.deform import (ERROR_STATUS, SIZEOF_HEAP_TUPLE_HEADER, VALUE, Attribute, deform_tuple,
                                  heap_oid_old)
from pgpage.decode.flags import (HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_HOT_UPDATED,
                                 HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, LP_NORMAL)
from pgpage.decode.toast import TOAST_MAX_CHUNK_SIZE_8K, reassemble
from pgpage.decode.typeout import ranges
from pgpage.decode.values import ValueFormatter
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_heap_chunk, new_not_zeroed, tuple_has_header
from pgpage.decode.xact import ST_ABORTED, xmax_states, xmin_states
from pgpage.findings import ERROR, INFO, WARNING, ExitCode, Finding, PgpageError, a_or_an
from pgpage.passes.blocks import parse_block_range
from pgpage.storage.datadir import open_data_directory
from pgpage.storage.target import resolve

DEFAULT_TIMEZONE = "GMT"   # the server's boot value of TimeZone when no configuration file sets it
MEMO_BYTES, MEMO_VALUES = 64, 4096   # rows --csv/--json: the texts Python prints kept by value (_given_texts)
RANGE_BLOCKS = 2048        # --jobs: a worker's piece of the table (16 MiB of 8 KiB pages; whole chunks)
# ... fewer blocks when TOASTed values make a block's rows large: a piece's rows about this many bytes of the
# table and its TOAST table (_part_blocks), at least MIN_PART_BLOCKS
PART_BYTES, MIN_PART_BLOCKS = 16 << 20, 64
CHUNK_T_HOFF = 24   # a TOAST chunk tuple's t_hoff: MAXALIGN(SizeofHeapTupleHeader), no null bitmap
TOASTED_BYTES = 16 << 20   # rows --csv/--json: TOASTed values fetched for the printer at a time (_toasted_values)

_NESTED_KINDS = ("array", "range", "multirange")   # the printer's kinds of values made of values of another kind
# typeout's output functions the printer has too: jsonb, network types, bit strings, money, pg_lsn, tsvector,
# geometric types, xml
_CSV_PORTED = {3802, 869, 650, 829, 774, 1560, 1562, 790, 3220, 3614, 600, 601, 602, 603, 604, 628, 718, 142}
# How the compiled CSV printer (kernels.CsvPrinter) prints a column, by its type once domains are resolved, and
# the attlen the column must have: the types datum prints from their bytes alone and those of _CSV_PORTED;
# enums, arrays of these, and ranges and multiranges over these are the printer's too (_csv_kind). A column of
# any other type (typeout's other families, types pgpage does not decode) gets Python's texts, given to the
# printer (_given_texts).
_CSV_KINDS: dict[int, tuple[str, int]] = {
    16: ("bool", 1), 21: ("int2", 2), 23: ("int4", 4), 20: ("int8", 8), 5069: ("uint64", 8), 18: ("char", 1),
    19: ("name", 64), 17: ("bytea", -1), 2950: ("uuid", 16), 1082: ("date", 4), 1083: ("time", 8),
    1114: ("timestamp", 8), 1184: ("timestamptz", 8), 1700: ("numeric", -1), 700: ("float4", 4),
    701: ("float8", 8), 1186: ("interval", 16), 3802: ("jsonb", -1), 869: ("inet", -1), 650: ("cidr", -1),
    829: ("macaddr", 6), 774: ("macaddr8", 8), 1266: ("timetz", 12), 790: ("money", 8), 3220: ("pg_lsn", 8),
    1560: ("bit", -1), 1562: ("bit", -1), 3614: ("tsvector", -1), 600: ("point", 16), 601: ("lseg", 32),
    628: ("line", 24), 603: ("box", 32), 718: ("circle", 24), 602: ("path", -1), 604: ("polygon", -1),
    142: ("xml", -1), 27: ("tid", 6),
    **{t: ("text", -1) for t in (25, 1042, 1043, 114, 194)},     # text, bpchar, varchar, json, pg_node_tree
    **{t: ("uint32", 4) for t in (24, 26, 28, 29, 2202, 2203, 2204, 2205, 2206, 3734, 3769, 4089, 4096, 4191)},
}


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


@dataclass
class ChunkPlaces:
    """Chunk tuples of a TOAST table by chunk_id and chunk_seq (sorted, stable): where each lies (block, item), its
    chunk_seq, whether its insert aborted, and its chunk_data's size (``_data_sizes``). 19 bytes a chunk."""
    chunk_id: np.ndarray
    chunk_seq: np.ndarray
    block: np.ndarray
    item: np.ndarray
    aborted: np.ndarray
    chunk_size: np.ndarray

    @classmethod
    def of_pages(cls, parts, clog) -> "ChunkPlaces":
        """The chunk tuples (every version, each LP_NORMAL tuple long enough for chunk_id and chunk_seq) of the
        pages of ``parts``, (pages, block number of each) pairs."""
        cols: list[list[np.ndarray]] = [[] for _ in fields(cls)]
        for pages, blocks in parts:
            hc = decode_heap_chunk(pages, 0)
            it, tup = hc.items, hc.tuples
            keep = np.flatnonzero((it.flags[tup.item] == LP_NORMAL)
                                  & (tup.t_hoff.astype(np.int64) + 8 <= it.len[tup.item]))
            start = it.page[tup.item[keep]] * pages.shape[1] + it.off[tup.item[keep]]
            at = start + tup.t_hoff[keep].astype(np.int64)
            head = pages.reshape(-1)[at[:, None] + np.arange(8)].copy().view("<u4")
            xst, _ = xmin_states(tup.t_infomask[keep].astype(np.int64), tup.t_xmin[keep].astype(np.int64), clog)
            for col, part in zip(cols, (head[:, 0], head[:, 1].view("<i4"), blocks[it.page[tup.item[keep]]],
                                        it.lp[tup.item[keep]], xst == ST_ABORTED,
                                        _data_sizes(pages, at, tup.t_infomask[keep], tup.t_hoff[keep],
                                                    start + it.len[tup.item[keep]]))):
                col.append(part)
        cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dtype=dt))
        chunk_id, chunk_seq = cat(cols[0], np.uint32), cat(cols[1], np.int32)
        order = np.lexsort((chunk_seq, chunk_id))   # as the index gives them out (stable: repeats in table order)
        return cls(chunk_id[order], chunk_seq[order], *(cat(c, dt)[order] for c, dt in zip(
            cols[2:], (np.uint32, np.uint16, bool, np.int32))))

    def bounds(self, valueids) -> tuple[np.ndarray, np.ndarray]:
        """Where the chunks of each of ``valueids`` start and end among the rows (searched as uint32, chunk_id's
        type: another would make numpy convert the whole array for every search)."""
        ids = np.asarray(valueids, dtype=np.uint32)
        return (np.searchsorted(self.chunk_id, ids, "left").astype(np.int64),
                np.searchsorted(self.chunk_id, ids, "right").astype(np.int64))

    def rows(self, lo: int, hi: int) -> list[int]:
        """A value's chunks (rows lo..hi-1, its chunk_id's): those whose insert did not abort (all when every one
        did), in block order."""
        rows = [r for r in range(lo, hi) if not self.aborted[r]] or list(range(lo, hi))
        return sorted(rows, key=lambda r: self.block[r])   # (stable)


def _data_sizes(pages: np.ndarray, at: np.ndarray, infomask, t_hoff, end: np.ndarray) -> np.ndarray:
    """chunk_data's size (VARSIZE - header, as amcheck's check_toast_tuple measures it) of the chunks whose
    data starts at ``at`` + 8 (``end``: where each tuple ends); CHUNK_NULL, CHUNK_BAD_HEADER when it has
    none (a NULL, or a header neither 4-byte plain nor 1-byte)."""
    flat = pages.reshape(-1)
    hdr = at + 8
    b0 = flat[np.minimum(hdr, flat.size - 1)].astype(np.int64)
    word = flat[np.minimum(hdr[:, None] + np.arange(4), flat.size - 1)].copy().view("<u4").reshape(-1)
    size = np.where(b0 & 1, (b0 >> 1) - 1, (word.astype(np.int64) >> 2) - 4)
    bad = (hdr >= end) | (((b0 & 1) == 0) & (((b0 & 3) != 0) | (hdr + 4 > end))) | (b0 == 1)
    size = np.where(bad, CHUNK_BAD_HEADER, size)
    null = ((infomask & HEAP_HASNULL) != 0) & (t_hoff > SIZEOF_HEAP_TUPLE_HEADER) \
        & ((flat[np.minimum(at - t_hoff.astype(np.int64) + SIZEOF_HEAP_TUPLE_HEADER, flat.size - 1)] & 4) == 0)
    return np.where(null, CHUNK_NULL, size)


def _clean_chunks(places: ChunkPlaces, valueids: np.ndarray, extsizes: np.ndarray, max_chunk: int) -> np.ndarray:
    """``ToastStore.chunks_clean`` of the values, their chunks in ``places``."""
    lo, hi = places.bounds(valueids)
    nchunks = (extsizes + max_chunk - 1) // max_chunk
    clean = (hi - lo == nchunks) & (nchunks > 0)
    which = np.flatnonzero(clean)
    if len(which):
        count = nchunks[which]
        first = np.cumsum(count) - count                       # each value's first row among ``rows``
        seq = np.arange(int(count.sum())) - np.repeat(first, count)   # the chunk_seq each row must hold
        rows = np.repeat(lo[which], count) + seq
        last = np.repeat(count - 1, count)
        size = np.where(seq < last, max_chunk, np.repeat(extsizes[which], count) - last * max_chunk)
        bad = (places.chunk_seq[rows] != seq) | (places.chunk_size[rows] != size) | places.aborted[rows]
        clean[which] = np.add.reduceat(bad, first) == 0
    return clean


def _ondisk_pointers(flat: np.ndarray, starts: np.ndarray, walked: np.ndarray, pos: np.ndarray, lens: np.ndarray):
    """Of the values at ``pos`` (from each version's start, ``starts``; -1: none) of the versions the compiled walk
    took (``walked``; pos and lens hold nothing for the others): where each begins in ``flat`` (0 for none), and
    which are on-disk TOAST pointers: VARATT_IS_1B_E (0x01), VARTAG_ONDISK, their 18 bytes."""
    present = walked[:, None] & (pos >= 0)
    at = np.where(present, starts[:, None] + pos, 0)
    return at, present & (flat[at] == 0x01) & (flat[np.minimum(at + 1, flat.size - 1)] == VARTAG_ONDISK) \
        & (lens == ONDISK_POINTER_SIZE)


def _pointer_key(p: ToastPointer) -> tuple[int, int, int, int]:
    return p.va_toastrelid, p.va_valueid, p.va_rawsize, p.va_extinfo


def toast_index(toast) -> ToastIndex | None:
    """The B-tree index on (chunk_id, chunk_seq) of TOAST table ``toast`` (None: pg_index has none, or no file)."""
    for r in toast.database.relations():
        if (r.table is toast and r.access_method == "btree" and r.forks.get("main") is not None
                and list(r.index_row.get("indkey") or ())[:2] == [1, 2]):
            return ToastIndex(r.forks["main"])
    return None


class ToastStore:
    """The chunks of one TOAST table, found by (chunk_id, chunk_seq); a value's chunks are read when it is asked
    for. With the table's index (``index``, an ``analysis.btree.toastindex.ToastIndex``) they are found through
    it, as the server finds them, and only the pages they lie on are read: memory stays flat however large the
    TOAST table. A value the index does not give whole (damage in the index or the table, an index behind its
    table after a crash) is answered from the placement of every chunk (``ChunkPlaces``, the table's tuple
    headers read once), as is every value when the index cannot be followed or there is none."""

    COLUMNS = (Attribute("chunk_id", 26, 4, "i", True), Attribute("chunk_seq", 23, 4, "i", True),
               Attribute("chunk_data", 17, -1, "i", False))

    def __init__(self, relation, clog, max_chunk: int, index=None):
        self.relation = relation
        self.clog = clog
        self.max_chunk = max_chunk
        self.index = index
        self.fork = relation.forks.get("main")
        self.read_blocks = self.fork.block_reader() if self.fork is not None else None
        self._every: ChunkPlaces | None = None

    def every_chunk(self) -> ChunkPlaces:
        """Every chunk tuple of the table, placed by reading the table once (the first time it is needed)."""
        if self._every is None:
            chunks = self.fork.iter_chunks() if self.fork is not None else ()
            self._every = ChunkPlaces.of_pages(((pages, first + np.arange(len(pages))) for first, pages in chunks),
                                               self.clog)
        return self._every

    def chunks(self, valueid: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk_seq, chunk_data size) of a value's chunks as its TOAST index gives them out (by chunk_seq),
        from the tuple headers of every chunk (``every_chunk``)."""
        places = self.every_chunk()
        (lo,), (hi,) = places.bounds([valueid])
        rows = np.arange(lo, hi)
        live = rows[~places.aborted[lo:hi]]
        rows = live if len(live) else rows
        rows = rows[np.argsort(places.chunk_seq[rows], kind="stable")]
        return places.chunk_seq[rows], places.chunk_size[rows]

    def chunks_clean(self, valueids: np.ndarray, extsizes: np.ndarray, max_chunk: int) -> np.ndarray:
        """Of each value, whether ``analysis.verify.toast.chunk_problems`` finds nothing in its ``chunks``, where
        that can be told from arrays: every chunk of the value inserted by a transaction that did not abort,
        chunk_seq 0, 1, ... once each, each max_chunk bytes but the last, which holds the rest of va_extsize. False
        for the others (nearly none: the caller looks at those one by one, through ``chunks``). The chunks are
        found through the index while it can be followed (as ``fetch_many``), for values of about TOASTED_BYTES at
        a time: memory stays flat however big the values and the TOAST table."""
        valueids = np.asarray(valueids, dtype=np.int64)
        extsizes = np.asarray(extsizes, dtype=np.int64)
        cuts = (np.flatnonzero(np.diff(np.cumsum(extsizes) // TOASTED_BYTES)) + 1).tolist()
        clean = np.zeros(len(valueids), dtype=bool)
        for lo, hi in zip([0] + cuts, cuts + [len(valueids)]):
            places = self._through_index(valueids[lo:hi])
            clean[lo:hi] = _clean_chunks(self.every_chunk() if places is None else places, valueids[lo:hi],
                                         extsizes[lo:hi], max_chunk)
        return clean

    def _through_index(self, valueids: np.ndarray) -> ChunkPlaces | None:
        """The chunks of ``valueids`` on the pages the index files them on (None: there is no index to follow;
        one that cannot be followed is given up for good)."""
        if self.index is None or self.fork is None:
            return None
        ids = np.unique(valueids)
        in_blocks = self.index.heap_blocks(ids)
        if in_blocks is None:
            self.index = None
            return None
        blocks = np.unique(in_blocks)
        blocks = blocks[blocks < self.fork.end_block]
        found = ChunkPlaces.of_pages([(self.read_blocks(blocks), blocks)], self.clog)
        keep = np.isin(found.chunk_id, ids)
        return ChunkPlaces(*(getattr(found, f.name)[keep] for f in fields(found)))

    def fetch(self, pointer: ToastPointer, inflate: bool = True):
        """The value's content (bytes), or an Unreadable saying which chunk is missing or wrong (``inflate``
        False: a compressed value as its compressed varlena, ``reassemble``)."""
        return self.fetch_many([pointer], inflate)[0]

    def fetch_many(self, pointers: list[ToastPointer], inflate: bool = True) -> list:
        """``fetch`` of each of ``pointers``: through the index while it can be followed, the values it does
        not give whole from every chunk's placement."""
        out: list = [None] * len(pointers)
        todo = list(range(len(pointers)))
        found = self._through_index(np.array([p.va_valueid for p in pointers], dtype=np.int64))
        if found is not None:
            for k, value in zip(todo, self._fetch_many(found, pointers, inflate)):
                out[k] = value
            todo = [k for k in todo if isinstance(out[k], Unreadable)]
        if todo:
            every = self._fetch_many(self.every_chunk(), [pointers[k] for k in todo], inflate)
            for k, value in zip(todo, every):
                out[k] = value
        return out

    def _fetch(self, places: ChunkPlaces, pointer: ToastPointer, inflate: bool):
        """One value from its chunks in ``places``, each chunk tuple deformed."""
        (lo,), (hi,) = places.bounds([pointer.va_valueid])
        rows = places.rows(lo, hi)
        blocks = np.unique(places.block[rows]).astype(np.int64)
        pages = self.read_blocks(blocks) if rows else None
        page_of = {b: i for i, b in enumerate(blocks.tolist())}
        return self._reassembled(places, pointer, rows, lambda r: self._chunk_data(
            pages[page_of[int(places.block[r])]], int(places.block[r]), int(places.item[r])), inflate)

    def _reassembled(self, places: ChunkPlaces, pointer: ToastPointer, rows: list[int], data_of, inflate: bool):
        """``reassemble`` of the value from its chunks ``rows`` (``data_of(row)``: its chunk_data, or an
        Unreadable that is the answer); a chunk_seq found twice is a duplicate, the last one read kept."""
        chunks: dict[int, bytes] = {}
        duplicates = []
        for r in rows:
            data = data_of(r)
            if isinstance(data, Unreadable):
                return data
            seq = int(places.chunk_seq[r])
            if seq in chunks:
                duplicates.append(seq)
            chunks[seq] = data
        return reassemble(pointer, chunks, self.max_chunk, tuple(duplicates), inflate)

    def _fetch_many(self, places: ChunkPlaces, pointers: list[ToastPointer], inflate: bool) -> list:
        """The values of ``pointers`` from their chunks in ``places``, the pages they lie on read once, in block
        order: the data of a plain chunk tuple (``_payloads``) is sliced from them; a value with any other chunk
        is fetched alone (``_fetch``: each chunk tuple deformed)."""
        ids = np.array([p.va_valueid for p in pointers], dtype=np.int64)
        lo, hi = places.bounds(ids)
        rows = np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist())] or [np.zeros(0, int)])
        payload: dict[int, bytes | None] = {}      # by row: its chunk data (None: not plain)
        if len(rows):
            flat, at, size, plain = self._payloads(places, rows)
            raw = flat.tobytes()
            for r, ok, a, n in zip(rows.tolist(), plain.tolist(), at.tolist(), size.tolist()):
                payload[r] = raw[a:a + n] if ok else None
        out = []
        for pointer, a, b in zip(pointers, lo.tolist(), hi.tolist()):
            rows = places.rows(a, b)
            if not rows or any(payload[r] is None for r in rows):
                out.append(self._fetch(places, pointer, inflate))
            else:
                out.append(self._reassembled(places, pointer, rows, payload.__getitem__, inflate))
        return out

    def _payloads(self, places: ChunkPlaces, rows: np.ndarray):
        """Where the chunk_data of chunks ``rows`` of ``places`` lies in their pages, read now: (the pages, flat;
        the first byte and the size of each chunk's data; whether its tuple is plain: three attributes, no nulls,
        a 24-byte header, chunk_data with a 1-byte or an uncompressed 4-byte header, within the tuple, what TOAST
        tables hold; the others must be deformed)."""
        blocks = np.unique(places.block[rows]).astype(np.int64)
        pages = self.read_blocks(blocks)
        bs = pages.shape[1]
        flat = pages.reshape(-1)
        base = np.searchsorted(blocks, places.block[rows]) * bs
        word = pages.view("<u4")[base // bs, SIZE_OF_PAGE_HEADER // 4 + places.item[rows] - 1].astype(np.int64)
        off, lp_flags, length = word & 0x7FFF, (word >> 15) & 3, word >> 17
        at = base + np.minimum(off, bs - CHUNK_T_HOFF - 8)
        im2 = flat[at + 18].astype(np.int64) | (flat[at + 19].astype(np.int64) << 8)
        im = flat[at + 20].astype(np.int64)
        data = at + CHUNK_T_HOFF + 8      # chunk_data's varlena header, as the page holds it now
        b0 = flat[data].astype(np.int64)
        w4 = flat[np.minimum(data[:, None] + np.arange(4), flat.size - 1)].copy().view("<u4").reshape(-1)
        size = np.where(b0 & 1, (b0 >> 1) - 1, (w4.astype(np.int64) >> 2) - 4)
        header = np.where(b0 & 1, 1, 4)
        start = off + CHUNK_T_HOFF + 8 + header
        plain = ((lp_flags == LP_NORMAL) & (off + length <= bs) & ((im2 & HEAP_NATTS_MASK) == 3)
                 & ((im & HEAP_HASNULL) == 0) & (flat[at + 22] == CHUNK_T_HOFF) & (size >= 0)
                 & (((b0 & 3) == 0) | (((b0 & 1) == 1) & (b0 != 1))) & (start + size <= off + length))
        return flat, base + start, size, plain

    def fetch_stored(self, valueids: np.ndarray, extsizes: np.ndarray, room: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The stored data of many values at once, for a caller that prints them: va_extsize bytes each (the
        value, or va_tcinfo and the compressed stream), one after another in one buffer, each after ``room``
        bytes left for the caller (a varlena header), and where each starts in it; -1 for a value whose chunks
        are not all there once each, in sequence, of their sizes and in plain tuples (``chunks_clean``,
        ``_payloads``): ``fetch_many`` gives those, or says why it cannot."""
        valueids, extsizes = np.asarray(valueids, dtype=np.int64), np.asarray(extsizes, dtype=np.int64)
        from pgpage.decode import kernels
        start = np.full(len(valueids), -1, dtype=np.int64)
        found = self._through_index(valueids)
        places = self.every_chunk() if found is None else found
        which = np.flatnonzero(_clean_chunks(places, valueids, extsizes, self.max_chunk))
        if not len(which):
            return np.zeros(0, dtype=np.uint8), start
        lo, _ = places.bounds(valueids[which])
        count = (extsizes[which] + self.max_chunk - 1) // self.max_chunk
        first = np.cumsum(count) - count
        seq = np.arange(int(count.sum())) - np.repeat(first, count)   # (clean: rows lo.. hold chunk_seq 0, 1, ...)
        rows = np.repeat(lo, count) + seq
        flat, at, size, plain = self._payloads(places, rows)
        whole = np.logical_and.reduceat(plain & (size == places.chunk_size[rows]), first)
        stored = np.where(whole, extsizes[which] + room, 0)
        begin = np.cumsum(stored) - stored + room
        take = np.repeat(whole, count)
        data = np.empty(int(stored.sum()), dtype=np.uint8)
        kernels.gather(flat, at[take], size[take], data, (np.repeat(begin, count) + seq * self.max_chunk)[take])
        start[which[whole]] = begin[whole]
        return data, start

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

    def take(self, which: np.ndarray) -> "ChunkVersions":
        return ChunkVersions(self.flat, *(getattr(self, f.name)[which] for f in fields(self)[1:]))


@dataclass
class RowOptions:
    all_versions: bool = False
    columns: list[str] | None = None   # names to print, in this order (default: every column)
    start: int | None = None           # block range [start, stop)
    stop: int | None = None
    timezone: str | None = None        # overrides the cluster's configuration


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


class TableRows:
    """The row versions of one table, in ctid order (iterate it), and what could not be read (``findings``,
    complete once iteration ends)."""

    def __init__(self, cluster, relation, options: RowOptions | None = None):
        self.options = options = options or RowOptions()
        if relation.kind not in "rtm":
            raise PgpageError(f"{relation.qualified_name} is {a_or_an(relation.kind_name)}: rows are read from tables",
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
        self._fetched: dict[tuple, object] = {}   # TOASTed values fetched ahead of their printing (versions)
        self._inline_lz4 = False   # an lz4-compressed value stored inline was seen (_toasted_values)
        self.status_counts = np.zeros(len(STATUS_NAMES), dtype=np.int64)   # versions printed, by status
        self.undecided = 0   # versions left out of the live rows because no commit status could be found
        control = cluster.control or {}
        self._max_chunk = control.get("toast_max_chunk_size") or TOAST_MAX_CHUNK_SIZE_8K

    def records(self) -> Iterator[dict]:
        """Each version as a record whose values are typed Python objects (``values.python_value``): the records of
        ``text_records``, their texts converted."""
        from pgpage.decode.values import python_converter
        convert = [python_converter(self.formatter, a.typid) for _, a in self.columns]
        for record in self.text_records():
            record["values"] = {n: f(v) for (n, v), f in zip(record["values"].items(), convert)}
            yield record

    def text_records(self) -> Iterator[dict]:
        """Each version as its record with the values as text (``RowVersion.record``): the compiled printer's
        ``rows --json`` records read back (``json_stream``), Python's for the versions it declined."""
        import json
        decode = json.JSONDecoder().decode
        for item in self.json_stream():
            if isinstance(item, RowVersion):
                yield item.record(self.column_names)
                continue
            for line in item[0].decode("utf-8").split("\n")[:-1]:   # (not splitlines: U+2028 stays raw in JSON)
                yield decode(line)

    def _type_name(self, typid: int) -> str:
        t = self.formatter.catalog.get(typid)
        return t.name if t is not None else f"oid {typid}"

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
        from pgpage.passes.parallel import InTurn, default_jobs, run_tasks
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
        """Blocks of a --jobs piece: RANGE_BLOCKS, or fewer when the TOAST table is many times the table (a piece's
        rows then come to many times its pages; a piece whose output passes InTurn's bound keeps a worker that is
        ahead waiting for its turn instead of reading on: 1.3 GB of TOAST under 26 MB of table, --jobs 2 took 22 s
        in pieces of 2,048 blocks, 13 s in pieces of 64, 18 s in one process)."""
        toast = self.relation.toast
        main = toast.forks.get("main") if toast is not None else None
        per_block = self.fork.block_size * (1 + (main.size_bytes if main is not None else 0)
                                            / max(self.fork.size_bytes, 1))
        return int(min(RANGE_BLOCKS, max(MIN_PART_BLOCKS, PART_BYTES // per_block)))

    def _select(self, first: int, pages: np.ndarray) -> "ChunkVersions | None":
        """The chunk's tuple versions this read prints, with their verdicts; pages and line pointers that hold no
        readable tuple become findings."""
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
        if not len(sel):
            return None
        its = tups.item[sel]
        infomask = tups.t_infomask[sel].astype(np.int64)
        xmin, xmax = tups.t_xmin[sel].astype(np.int64), tups.t_xmax[sel].astype(np.int64)
        xmin_st, _ = xmin_states(infomask, xmin, cluster.clog)
        xmax_st, _ = xmax_states(infomask, xmax, cluster.clog, cluster.multi_update_xid)
        blocks = first + items.page[its].astype(np.int64)
        lps = items.lp[its].astype(np.int64)
        ctid_block, ctid_offset = tups.ctid_block[sel].astype(np.int64), tups.ctid_offset[sel].astype(np.int64)
        status = row_statuses(xmin_st, xmax_st, blocks, lps, ctid_block, ctid_offset)
        self.undecided += int((status == STATUS_NAMES.index("unknown")).sum())
        keep = slice(None) if self.options.all_versions else np.flatnonzero(status == LIVE)
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
            ctid_offset=ctid_offset[keep])

    def versions(self, c: "ChunkVersions", which=None) -> Iterator[RowVersion]:
        """RowVersions of a chunk's versions (all, or the indexes ``which``), values printed here: the compiled
        walk finds the attributes of plain tuples, ``deform_tuple`` those it refuses."""
        from pgpage.decode import kernels
        if which is not None:
            c = c.take(np.asarray(which, dtype=np.int64))
        fast, pos, lens = kernels.deform_offsets(c.flat, c.start, c.length, c.t_hoff, c.natts,
                                                 (c.infomask & HEAP_HASNULL) != 0, self._attlen, self._attalign)
        buf = c.flat.tobytes() if len(c.start) > 64 else None    # one copy of the chunk, or a slice per tuple
        cols = self.columns
        batches = self._pointer_batches(c, fast)
        for j in range(len(c.start)):
            if batches and j == batches[0][0]:
                self._prefetch(batches.pop(0)[1])
            s, n = int(c.start[j]), int(c.length[j])
            data = buf[s:s + n] if buf is not None else c.flat[s:s + n].tobytes()
            blkno, lp, im = int(c.block[j]), int(c.item[j]), int(c.infomask[j])
            t_hoff = int(c.t_hoff[j])
            if fast[j]:
                p, ln = pos[j], lens[j]
                values = [None if p[i] < 0 else self._text(a, data[p[i]:p[i] + ln[i]], blkno, lp) for i, a in cols]
            else:
                values = self._walk(data, t_hoff, int(c.natts[j]), im, blkno, lp)
            yield RowVersion(blkno, lp, int(c.xmin[j]), int(c.xmax[j]), STATUS_NAMES[int(c.status[j])],
                             XID_STATE_NAMES[int(c.xmin_state[j])], XID_STATE_NAMES[int(c.xmax_state[j])],
                             f"({int(c.ctid_block[j])},{int(c.ctid_offset[j])})", im, int(c.infomask2[j]), values,
                             heap_oid_old(data, t_hoff, im))
        self._fetched.clear()

    def _pointer_batches(self, c: "ChunkVersions", fast: np.ndarray) -> list[tuple[int, list[ToastPointer]]]:
        """The on-disk TOAST pointers of the printed columns of a chunk's versions (those the compiled walk took
        are plain), in runs of versions whose values come to about TOASTED_BYTES: (the run's first version, its
        pointers), for ``versions`` to fetch a run's values together before it prints them."""
        from pgpage.decode import kernels
        cols = [i for i, a in self.columns if a.attlen == -1]
        rows = np.flatnonzero(~fast & ((c.infomask & HEAP_HASEXTERNAL) != 0))
        if not cols or not len(rows):
            return []
        ok, pos, lens = kernels.deform_offsets(c.flat, c.start[rows], c.length[rows], c.t_hoff[rows], c.natts[rows],
                                               (c.infomask[rows] & HEAP_HASNULL) != 0, self._attlen, self._attalign,
                                               toast_pointers=True)
        at, pointers = _ondisk_pointers(c.flat, c.start[rows], ok, pos[:, cols], lens[:, cols])
        j, x = np.nonzero(pointers)
        p = read_pointers(c.flat, at[j, x])
        size = (p["va_extinfo"].astype(np.int64) & VARLENA_EXTSIZE_MASK).tolist()
        out: list[tuple[int, list[ToastPointer]]] = []
        total = TOASTED_BYTES + 1
        for version, q, n in zip(rows[j].tolist(), p, size):
            if total > TOASTED_BYTES and (not out or out[-1][0] != version):
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
        by_relation: dict[int, list[ToastPointer]] = {}
        for q in pointers:
            by_relation.setdefault(q.va_toastrelid, []).append(q)
        for rel, mine in by_relation.items():
            store = self._toast_store(rel)
            if store is not None:
                for q, value in zip(mine, store.fetch_many(mine)):
                    self._fetched[_pointer_key(q)] = value

    # ------------------------------------------------------------------------------------------ CSV
    def csv_stream(self, system: bool = False) -> Iterator["tuple[bytes, int] | RowVersion"]:
        """The body of ``COPY ... TO (FORMAT csv)`` (``system``: ctid, xmin, xmax and status first), in ctid order
        and a chunk at a time: ``(text, rows)``, UTF-8 lines the compiled printer wrote for that many rows, or a
        RowVersion for a row it declined (``render.rows`` makes its line, as for every row when the printer
        cannot take the table: a column of a type it does not print)."""
        printer = self._csv_printer(system)
        if printer is None:
            yield from self
            return
        for chunk in self.chunks():
            yield from self._csv_chunk(printer, chunk, system)

    def json_stream(self) -> Iterator["tuple[bytes, int] | RowVersion"]:
        """``rows --json``'s records as ``csv_stream`` gives CSV lines: runs of them the compiled printer wrote
        (``(text, rows)``) between the versions it declined (``RowVersion.record`` makes their records)."""
        printer = self._csv_printer(system=True, json=True)
        if printer is None:
            yield from self
            return
        for chunk in self.chunks():
            yield from self._csv_chunk(printer, chunk, system=True, json=True)

    def csv_kinds(self, attrs: list[Attribute] | None = None) -> list[str | None]:
        """How the compiled printer prints each selected column (kernels.TABLES.CSV_KINDS), or each of ``attrs``,
        None where it cannot."""
        return [self._csv_kind(a.typid, a.attlen)
                for a in (attrs if attrs is not None else [a for _, a in self.columns])]

    def _csv_kind(self, typid: int, typlen: int) -> str | None:
        """How the compiled printer prints a value of this type and length, None if it cannot: an array when it
        prints its elements (``_array_elements``)."""
        import codecs
        kind, target = self.formatter._resolve(typid)
        t = self.formatter.catalog.get(target)
        if kind == "enum":
            return "enum" if typlen == 4 else None
        if kind == "array" or (kind == "builtin" and t is not None and t.is_array and target not in datum.VECTOR_TYPES):
            return "array" if self._array_elements(target) is not None and typlen == -1 else None
        if kind in ("range", "multirange") or target in ranges.RANGE_SUBTYPES or target in ranges.MULTIRANGE_RANGES:
            multi = kind == "multirange" or target in ranges.MULTIRANGE_RANGES
            return ("multirange" if multi else "range") if self._range_bounds(target) and typlen == -1 else None
        k = _CSV_KINDS.get(target) if kind == "builtin" and (target not in typeout.OUTPUT or target in _CSV_PORTED) \
            else None
        if k is not None and ((k[0] == "timestamptz" and self._csv_zone() is None)
                              or (k[0] in ("text", "name") and codecs.lookup(self.formatter.encoding).name != "utf-8")):
            return None      # (text is copied as it is stored)
        return k[0] if k is not None and k[1] == typlen else None

    def _array_elements(self, array_typid: int) -> tuple | None:
        """An array type's elements as the printer reads them, (kind, typlen, alignment in bytes, delimiter, type
        oid), when it prints them (not cstrings), else None."""
        t = self.formatter.catalog.get(array_typid)
        storage = self.formatter.catalog.storage(t.typelem) if t is not None else None
        if storage is None or (storage[0] != -1 and storage[0] <= 0):
            return None
        kind = self._csv_kind(t.typelem, storage[0])
        elem = self.formatter.catalog.get(t.typelem)
        delim = (elem.typdelim if elem is not None else None) or ","
        if kind in (None, "array", "range", "multirange") or len(delim.encode()) != 1:
            return None
        return kind, storage[0], ATTALIGN_BYTES.get(storage[1], 1), ord(delim), t.typelem

    def _range_bounds(self, typid: int) -> tuple | None:
        """A range or multirange type's bounds as the printer reads them, (kind, typlen, alignment in bytes, 0, the
        type oid each value must store: 0 for a type of pg_range's, which Python does not check), when it prints
        them, else None."""
        catalog, builtin = self.formatter.catalog, typid in datum.TYPES
        rng = (ranges.MULTIRANGE_RANGES if builtin else catalog.multirange_ranges).get(typid, typid)
        subtype = (ranges.RANGE_SUBTYPES if builtin else catalog.range_subtypes).get(rng)
        storage = (datum.TYPES[subtype].typlen, datum.TYPES[subtype].typalign) if builtin and subtype in datum.TYPES \
            else catalog.storage(subtype) if not builtin and subtype is not None else None
        if storage is None or (storage[0] != -1 and storage[0] <= 0) or self._csv_zone() is None:
            return None      # (Python's range_text refuses every value in a time zone it cannot load)
        kind = self._csv_kind(subtype, storage[0])
        if kind in (None, "array", "range", "multirange"):
            return None
        return kind, storage[0], ATTALIGN_BYTES.get(storage[1], 1), 0, typid if builtin else 0

    def _csv_zone(self):
        """The session's time zone for the printer (pgtz.Zone's tables, which it ports), None if they are not
        there to read (timestamptz then stays Python's)."""
        from pgpage.decode import kernels
        if not hasattr(self, "_zone_array"):
            try:
                z = pgtz.get_zone(self.timezone)
                self._zone_array = kernels.zone_array(z._ats, z._offs, z._rule_ats or (), z._rule_offs or (),
                                                      z._fixed, z._default, z._rule_std)
            except (AttributeError, TypeError, ValueError):
                self._zone_array = None
        return self._zone_array

    def _csv_printer(self, system: bool, index_attrs: list[Attribute] | None = None, json: bool = False):
        """The compiled printer of the selected columns, None when it cannot print them all; with ``index_attrs``
        (a B-tree's attributes, attnum order), of every attribute of that index's leaf tuples instead; with
        ``json``, of ``rows --json``'s records (``RowVersion.record``)."""
        import json as json_module

        from pgpage.decode import kernels
        kinds = self.csv_kinds(index_attrs)
        if index_attrs is None:   # a row's columns of other types: Python's texts, given to the printer
            kinds = ["given" if k is None else k for k in kinds]
        if not kinds or None in kinds:
            return None
        verdicts = [XID_STATE_NAMES.get(k) for k in range(len(XID_STATE_NAMES))]   # by the index the C reads
        names = list(STATUS_NAMES) + (verdicts if json else [])
        if system and any(not n or not n.isascii() or not n.isprintable() or set(n) & set(',"\\') for n in names):
            return None           # the printer writes these names as they are, unquoted
        records = None
        if json:
            if len(set(self.column_names)) != len(self.column_names):
                return None       # a record holds each name once (a dict)
            records = kernels.JsonRecords(verdicts, STATUS_NAMES.index("updated"),
                                          [json_module.dumps(n, ensure_ascii=False) + ":" for n in self.column_names])
        zone = self._csv_zone()
        attlen, attalign, cols = self._attlen, self._attalign, [i for i, _ in self.columns]
        if index_attrs is not None:
            attlen = [a.attlen for a in index_attrs]
            attalign = [ATTALIGN_BYTES.get(a.attalign, 1) for a in index_attrs]
            cols = list(range(len(index_attrs)))
        targets = [a for _, a in self.columns] if index_attrs is None else index_attrs
        nested = {c: (self._array_elements if k == "array" else self._range_bounds)(
            self.formatter._resolve(targets[c].typid)[1]) for c, k in enumerate(kinds) if k in _NESTED_KINDS}
        return kernels.CsvPrinter(attlen, attalign, cols, kinds,
                                  zone if zone is not None else kernels.zone_array(fixed=0), list(STATUS_NAMES),
                                  system, self.formatter.major, single_column=not system and len(kinds) == 1,
                                  index_tuples=index_attrs is not None, json=records, nested=nested,
                                  enum_labels=self.formatter.catalog.enum_labels)

    def _csv_chunk(self, printer, c: ChunkVersions, system: bool, json: bool = False):
        """One chunk's CSV (or JSON records): the printer's text, and between its runs the versions it declined
        (Python's)."""
        hasnull = (c.infomask & HEAP_HASNULL) != 0
        given = self._given_texts(printer, c, hasnull)
        sys_cols = np.stack([c.block, c.item, c.xmin, c.xmax, c.status] + (
            [c.xmin_state, c.xmax_state, c.ctid_block, c.ctid_offset, c.infomask, c.infomask2] if json else [])
        ) if system else None
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
            at = prev = 0
            for k in declined.tolist():
                end = int(ends[k])
                if k > prev:
                    yield out[at:end].tobytes(), k - prev
                yield next(python_rows)
                at, prev = end, k + 1
            if done > prev:
                yield out[at:int(ends[done - 1])].tobytes(), done - prev
            first += done
            toasted = toasted and (toasted[0], toasted[1][done:], toasted[2][done:])

    def _toasted_values(self, printer, c: ChunkVersions, hasnull: np.ndarray, first: int):
        """The values the printer cannot read from a chunk's tuples, in its printed columns, from ``first`` on: those
        of TOAST pointers, fetched from the TOAST table together (``_toast_values``), and once a table showed one
        (``_inline_lz4``), lz4-compressed values stored inline, inflated by the lz4 package; up to the versions
        whose values come to about TOASTED_BYTES (memory stays flat however big the values): (stop, (bytes, start,
        length)), start and length of shape (stop - first, printed columns), each value a varlena with a 4-byte
        header (a pglz-compressed one as stored: the printer inflates it), start -1 where the version's own bytes
        are printed (a value that could not be fetched or inflated: the printer declines the version, Python
        prints it with its findings); (len, None) when no version from ``first`` has one."""
        from pgpage.decode import kernels
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
        cell_at, pointers = _ondisk_pointers(c.flat, c.start[rows], fast, pos[:, attrs], lens[:, attrs])
        pointers &= external[rows - first][:, None]
        ptr = read_pointers(c.flat, np.where(pointers, cell_at, 0).reshape(-1)).reshape(pointers.shape)
        extsize = ptr["va_extinfo"].astype(np.int64) & VARLENA_EXTSIZE_MASK
        # what each version's values come to (an inline lz4 value: its raw size, va_tcinfo's); the versions up to
        # about TOASTED_BYTES are done now
        tcinfo = c.flat[np.where(lz4, cell_at, 0)[..., None] + np.arange(4, 8)].copy().view("<u4")[..., 0]
        size = np.where(pointers, extsize, 0) + np.where(lz4, tcinfo.astype(np.int64) & VARLENA_EXTSIZE_MASK, 0)
        before = np.cumsum(size.sum(axis=1)) - size.sum(axis=1)
        over = np.flatnonzero(before > TOASTED_BYTES)
        done = int(over[0]) if len(over) else len(rows)
        stop = int(rows[done]) if done < len(rows) else n
        start = np.full((n - first, len(printer.cols)), -1, dtype=np.int64)
        length = np.zeros_like(start)
        pieces: list[np.ndarray] = []
        at = 0

        def put(row: int, k: int, value: bytes) -> None:
            nonlocal at
            start[row, k], length[row, k] = at, len(value)
            pieces.append(np.frombuffer(value, dtype=np.uint8))
            at += len(value)

        printed = np.array([k for k, _ in cols], dtype=np.int64)
        for j, x in zip(*np.nonzero(lz4[:done])):
            value = datum.varlena_payload(c.flat[cell_at[j, x]:cell_at[j, x] + lens[j, attrs[x]]].tobytes())
            if isinstance(value, bytes):
                put(int(rows[j]) - first, int(printed[x]), ((len(value) + 4) << 2).to_bytes(4, "little") + value)
        j, x = np.nonzero(pointers[:done])
        cell = ptr[j, x]
        for rel in np.unique(cell["va_toastrelid"]).tolist():
            mine = np.flatnonzero(cell["va_toastrelid"] == rel)
            store = self._toast_store(rel)
            if store is None:     # the values cannot be read: the printer declines their versions
                continue
            row, k, p = rows[j[mine]] - first, printed[x[mine]], cell[mine]
            # a compressed value comes as its compressed varlena: the printer inflates pglz (and declines other
            # methods: Python prints the version); lz4 is inflated here (the lz4 package; a value it cannot inflate
            # is left to Python too). The values whose chunks are whole come at once (``fetch_stored``); the
            # others, and lz4's, one by one.
            ext, raw = extsize[j[mine], x[mine]], p["va_rawsize"].astype(np.int64)
            compressed = ext < raw - VARHDRSZ
            data, stored = store.fetch_stored(p["va_valueid"], ext, room=VARHDRSZ)
            # va_tcinfo of the compressed ones: their raw size must be the pointer's (else detoast refuses them)
            tc = data[np.minimum(np.maximum(stored, 0)[:, None] + np.arange(4), max(len(data) - 1, 0))].copy() \
                .view("<u4")[:, 0].astype(np.int64) if len(data) else np.zeros(len(stored), dtype=np.int64)
            lz4_method = (p["va_extinfo"] >> VARLENA_EXTSIZE_BITS) == TOAST_LZ4_COMPRESSION_ID
            whole = (stored >= 0) & ~(compressed & (lz4_method | (ext < 4)
                                                    | ((tc & VARLENA_EXTSIZE_MASK) != raw - VARHDRSZ)))
            w = np.flatnonzero(whole)
            if len(w):   # each a varlena: a 4-byte header (compressed: 0x02 in its low bits) in the room before it
                header = ((ext[w] + VARHDRSZ) << 2) | np.where(compressed[w], 0x02, 0)
                data[(stored[w] - VARHDRSZ)[:, None] + np.arange(VARHDRSZ)] = \
                    header.astype("<u4").view(np.uint8).reshape(-1, VARHDRSZ)
                start[row[w], k[w]], length[row[w], k[w]] = at + stored[w] - VARHDRSZ, ext[w] + VARHDRSZ
                pieces.append(data)
                at += len(data)
            others = np.flatnonzero(~whole)
            pointers_left = [ToastPointer(VARTAG_ONDISK, int(q["va_rawsize"]), int(q["va_extinfo"]),
                                          int(q["va_valueid"]), rel) for q in p[others]]
            for m, pointer, value in zip(others.tolist(), pointers_left, self._toast_values(rel, pointers_left)):
                method = pointer.compression
                if isinstance(value, bytes) and method == "lz4":
                    value, method = datum.varlena_payload(value), None
                if not isinstance(value, bytes):
                    continue
                put(int(row[m]), int(k[m]),
                    ((len(value) + 4) << 2).to_bytes(4, "little") + value if method is None else value)
        # (given even with no value: the printer then walks over the pointers of columns it does not print)
        data = np.concatenate(pieces) if pieces else np.zeros(1, dtype=np.uint8)
        return stop, (data, start[:stop - first], length[:stop - first])

    def _printed_varlenas(self, printer) -> list[tuple[int, int]]:
        """(printed column, attribute) of the varlena columns the printer reads from the tuples."""
        from pgpage.decode import kernels
        given = kernels.TABLES.CSV_KINDS.index("given")
        return [(k, i) for k, (i, kind) in enumerate(zip(printer.cols.tolist(), printer.kinds.tolist()))
                if kind != given and self._attlen[i] == -1]

    def _varlenas(self, c: ChunkVersions, hasnull: np.ndarray, rows: np.ndarray, cols: list[int]):
        """``kernels.deform_offsets`` of versions ``rows`` (TOAST pointers read as such), and of columns ``cols``
        (varlenas), where each holds an lz4-compressed value stored inline: a 4-byte compressed header whose
        va_tcinfo names lz4 (the printer inflates only pglz)."""
        from pgpage.decode import kernels
        fast, pos, lens = kernels.deform_offsets(c.flat, c.start[rows], c.length[rows], c.t_hoff[rows], c.natts[rows],
                                                 hasnull[rows], self._attlen, self._attalign, toast_pointers=True)
        if not cols:
            return fast, pos, lens, np.zeros((len(rows), 0), dtype=bool)
        ok = fast[:, None] & (pos[:, cols] >= 0) & (lens[:, cols] >= 8)
        at = np.where(ok, c.start[rows][:, None] + pos[:, cols], 0)
        top = c.flat[at + 7] >> 6     # va_tcinfo's compression method bits (the value is at least 8 bytes)
        return fast, pos, lens, ok & ((c.flat[at] & 3) == 2) & (top == TOAST_LZ4_COMPRESSION_ID)

    def _given_texts(self, printer, c: ChunkVersions, hasnull: np.ndarray):
        """The texts of the columns the printer takes from Python (kind "given"), for the versions of a chunk whose
        attributes the compiled walk finds: (UTF-8 bytes, start, length), start and length of shape (versions,
        columns), start -1 for NULL and -2 for a version Python prints whole (one of its values could not be read:
        its findings then come once, when Python prints it); None when there are no such columns."""
        from pgpage.decode import kernels
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
        memos = self.__dict__.setdefault("_given_memos", {})
        memo = [memos.setdefault(i, {}) for i in cols]
        pieces: list[bytes] = []
        at = 0
        for j in np.flatnonzero(fast).tolist():
            s, p, ln, findings = starts[j], pos[j], lens[j], len(self.findings)
            row: list[bytes | None] = []
            for g, (_, a) in enumerate(given):
                raw = buf[s + p[g]:s + p[g] + ln[g]] if p[g] >= 0 else None
                b = memo[g].get(raw) if raw is not None else None
                if b is None and raw is not None:
                    text = self._text(a, raw, blocks[j], items[j])
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

    def _toast_values(self, rel: int, pointers: list[ToastPointer]) -> list:
        """The values of ``pointers``, all into TOAST relation ``rel``, fetched together (``ToastStore.fetch_many``),
        compressed ones as their compressed varlenas; an Unreadable for each that cannot be."""
        store = self._toast_store(rel)
        if store is None:
            return [self._toast_value(p) for p in pointers]
        return store.fetch_many(pointers, inflate=False)

    def _toast_store(self, rel: int) -> ToastStore | None:
        """TOAST relation ``rel``'s chunks, found through its index (None: not in the catalog, or no file)."""
        if rel not in self._toast:
            toast = self.relation.toast if self.relation.toast is not None and self.relation.toast.oid == rel else \
                next((r for r in self.relation.database.relations() if r.oid == rel), None)
            self._toast[rel] = None if toast is None or not toast.forks.get("main") else \
                ToastStore(toast, self.cluster.clog, self._max_chunk, toast_index(toast))
        return self._toast[rel]

    def _toast_value(self, pointer: ToastPointer):
        value = self._fetched.pop(_pointer_key(pointer), None)
        if value is not None:
            return value
        store = self._toast_store(pointer.va_toastrelid)
        if store is None:
            return Unreadable("toast.relation_missing", f"TOAST value {pointer.va_valueid}: TOAST relation"
                              f" {pointer.va_toastrelid} is not in the catalog or has no file")
        return store.fetch(pointer)
