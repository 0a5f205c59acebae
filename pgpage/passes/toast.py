"""Out-of-line values read from a TOAST table's pages: ``ToastStore.fetch`` is the one way pgpage fetches them;
``chunks`` and ``chunks_clean`` list a value's chunks for verify, which checks them as amcheck does.

A value's chunks are found as the server finds them, through the TOAST table's index on (chunk_id, chunk_seq)
(``analysis.btree.toastindex``): only the pages they lie on are read, and memory stays flat however large the TOAST
table. What the index does not give whole (damage in the index or the table, an index behind its table after a
crash) is answered from the placement of every chunk (``ChunkPlaces``: the table's tuple headers, read once), as is
everything when the index cannot be followed or there is none. Values are put back together as detoast does
(``decode.toast.reassemble``): those whose chunks are whole and in plain tuples with arrays and the compiled gather
(nearly all, and most of the time when a table has many), the others chunk by chunk.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pgpage.analysis.btree.toastindex import ToastIndex
from pgpage.analysis.verify.toast import CHUNK_BAD_HEADER, CHUNK_NULL, EXTERNAL_RECORD, ONDISK_POINTER_SIZE
from pgpage.decode import datum, kernels
from pgpage.decode.datum import VARHDRSZ, VARLENA_EXTSIZE_MASK, VARTAG_ONDISK, ToastPointer, Unreadable
from pgpage.decode.deform import VALUE, Attribute, deform_tuple
from pgpage.decode.flags import HEAP_HASNULL, HEAP_NATTS_MASK, LP_NORMAL
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.ksy.type_oids import BYTEAOID, INT4OID, OIDOID
from pgpage.decode.toast import TOAST_MAX_CHUNK_SIZE_8K, reassemble
from pgpage.decode.vector import MIN_HEAP_TUPLE_SIZE, SIZE_OF_PAGE_HEADER, decode_heap_chunk, line_pointer_fields
from pgpage.decode.xact import ST_ABORTED, xmin_states

FETCH_BYTES = 16 << 20   # values fetched or checked at a time: memory stays flat however big the values
CHUNK_T_HOFF = MIN_HEAP_TUPLE_SIZE   # a chunk tuple's t_hoff: MAXALIGN(SizeofHeapTupleHeader), no null bitmap
CHUNK_DATA_NULL_BIT = 1 << 2         # chunk_data, the third attribute, in the null bitmap
# the tuple header's fields, at their offsets in HeapTupleHeaderData
T_INFOMASK2, T_INFOMASK, T_HOFF = (LAYOUTS["heap_tuple"]["fields"][f][0] for f in ("t_infomask2", "t_infomask", "t_hoff"))
COLUMNS = (Attribute("chunk_id", OIDOID, 4, "i", True), Attribute("chunk_seq", INT4OID, 4, "i", True),
           Attribute("chunk_data", BYTEAOID, -1, "i", False))   # a TOAST table's


@dataclass
class ToastValues:
    """Values fetched together (``ToastStore.fetch``): value k is the varlena ``data[start[k]:start[k] +
    length[k]]`` (its 4-byte header, then the value), or, where start[k] is -1, ``unreadable[k]`` says why it
    cannot be read. One buffer for all: a caller that prints them takes them where they are."""
    data: np.ndarray
    start: np.ndarray
    length: np.ndarray
    unreadable: dict[int, Unreadable]

    def __len__(self) -> int:
        return len(self.start)

    def __getitem__(self, k: int) -> bytes | Unreadable:
        at = int(self.start[k])
        return self.unreadable[k] if at < 0 else self.data[at:at + int(self.length[k])].tobytes()

    def __iter__(self):
        return (self[k] for k in range(len(self)))


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

    def only(self, valueids: np.ndarray) -> "ChunkPlaces":
        """The chunks of ``valueids`` (sorted, unique) among these."""
        keep = np.isin(self.chunk_id, valueids)
        return ChunkPlaces(*(getattr(self, f.name)[keep] for f in fields(self)))


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
    null = ((infomask & HEAP_HASNULL) != 0) & (t_hoff > SizeofHeapTupleHeader) \
        & ((flat[np.minimum(at - t_hoff.astype(np.int64) + SizeofHeapTupleHeader, flat.size - 1)]
            & CHUNK_DATA_NULL_BIT) == 0)
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


def ondisk_pointers(flat: np.ndarray, starts: np.ndarray, walked: np.ndarray, pos: np.ndarray, lens: np.ndarray):
    """Of the values at ``pos`` (from each version's start, ``starts``; -1: none) of the versions the compiled walk
    took (``walked``; pos and lens hold nothing for the others): where each begins in ``flat`` (0 for none), and
    which are on-disk TOAST pointers: VARATT_IS_1B_E (0x01), VARTAG_ONDISK, their 18 bytes."""
    present = walked[:, None] & (pos >= 0)
    at = np.where(present, starts[:, None] + pos, 0)
    return at, present & (flat[at] == 0x01) & (flat[np.minimum(at + 1, flat.size - 1)] == VARTAG_ONDISK) \
        & (lens == ONDISK_POINTER_SIZE)


def _records(pointers) -> np.ndarray:
    """``pointers`` as varatt_external records (``read_pointers``' records are already)."""
    if isinstance(pointers, np.ndarray):
        return pointers
    return np.array([(p.va_rawsize, p.va_extinfo, p.va_valueid, p.va_toastrelid) for p in pointers],
                    dtype=EXTERNAL_RECORD)


def _varlena_header(size: np.ndarray | int, compressed) -> np.ndarray | int:
    """The 4-byte varlena header of ``size`` bytes of data (VARATT_IS_4B_U; VARATT_IS_4B_C when ``compressed``)."""
    return ((size + VARHDRSZ) << 2) | np.where(compressed, 0x02, 0)


def toast_max_chunk(cluster) -> int:
    """TOAST_MAX_CHUNK_SIZE of the cluster's build (pg_control; 8 KiB pages' when it cannot be read)."""
    return (cluster.control or {}).get("toast_max_chunk_size") or TOAST_MAX_CHUNK_SIZE_8K


def toast_index(toast) -> ToastIndex | None:
    """The B-tree index on (chunk_id, chunk_seq) of TOAST table ``toast`` (None: pg_index has none, or no file)."""
    for r in toast.database.relations():
        if (r.table is toast and r.access_method == "btree" and r.forks.get("main") is not None
                and list(r.index_row.get("indkey") or ())[:2] == [1, 2]):
            return ToastIndex(r.forks["main"])
    return None


class ToastStore:
    """The chunks of one TOAST table, found by (chunk_id, chunk_seq); a value's chunks are read when it is asked
    for, through the table's index (``index``, an ``analysis.btree.toastindex.ToastIndex``) while it can be
    followed."""

    def __init__(self, relation, clog, max_chunk: int, index: ToastIndex | None = None):
        self.relation = relation
        self.clog = clog
        self.max_chunk = max_chunk
        self.index = index
        self.fork = relation.forks.get("main")
        self.read_blocks = self.fork.block_reader() if self.fork is not None else None
        self._every: ChunkPlaces | None = None   # every chunk's place, when the index did not give a value whole

    @classmethod
    def open(cls, toast, cluster) -> "ToastStore":
        """The store of TOAST table ``toast`` (a ``datadir.Relation``) of ``cluster``, with its index."""
        return cls(toast, cluster.clog, toast_max_chunk(cluster), toast_index(toast))

    # ------------------------------------------------------------------------------------------ values
    def fetch(self, pointers, inflate: bool = True) -> ToastValues:
        """The values of ``pointers`` (ToastPointers, or varatt_external records as ``read_pointers`` gives them),
        all into this TOAST table, each as the varlena detoast makes of it: inflated, or with ``inflate`` False a
        compressed value as stored (a compressed varlena: va_tcinfo and the stream, for a caller that inflates
        it); an Unreadable for a value whose chunks are missing or wrong, which says which."""
        p = _records(pointers)
        if not len(p):
            return ToastValues(np.zeros(0, dtype=np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64), {})
        found = self._through_index(p["va_valueid"].astype(np.int64))
        places = self._every_chunk() if found is None else found
        data, start, length = self._gathered(places, p, inflate)
        others = np.flatnonzero(start < 0).tolist()
        unreadable: dict[int, Unreadable] = {}
        if not others:
            return ToastValues(data, start, length, unreadable)
        pointers = [ToastPointer(VARTAG_ONDISK, int(q["va_rawsize"]), int(q["va_extinfo"]), int(q["va_valueid"]),
                                 int(q["va_toastrelid"])) for q in p[others]]
        values = self._fetch_each(places, pointers, inflate)
        again = [i for i, v in enumerate(values) if isinstance(v, Unreadable)] if found is not None else []
        if again:   # what the index did not give whole, from every chunk's placement
            for i, value in zip(again, self._fetch_each(self._every_chunk(), [pointers[i] for i in again], inflate)):
                values[i] = value
        pieces, at = [data], len(data)
        for k, pointer, value in zip(others, pointers, values):
            if isinstance(value, Unreadable):
                unreadable[k] = value
                continue
            if inflate or not pointer.is_compressed:   # (reassemble gives the content alone)
                value = int(_varlena_header(len(value), False)).to_bytes(VARHDRSZ, "little") + value
            start[k], length[k] = at, len(value)
            pieces.append(np.frombuffer(value, dtype=np.uint8))
            at += len(value)
        return ToastValues(np.concatenate(pieces), start, length, unreadable)

    def _gathered(self, places: ChunkPlaces, p: np.ndarray, inflate: bool):
        """The values of records ``p`` that take no more than copying (uncompressed; with ``inflate`` False also
        compressed, their va_tcinfo naming the pointer's raw size as reassemble requires), with their chunks whole
        (``_clean_chunks``) in plain tuples (``_payloads``): copied from their pages by the compiled gather into
        one buffer, each after its 4-byte varlena header, written there; where each varlena starts (-1 for the
        others) and its length."""
        valueids = p["va_valueid"].astype(np.int64)
        extsize = p["va_extinfo"].astype(np.int64) & VARLENA_EXTSIZE_MASK
        rawsize = p["va_rawsize"].astype(np.int64) - VARHDRSZ
        compressed = extsize < rawsize
        start, length = np.full(len(p), -1, dtype=np.int64), np.zeros(len(p), dtype=np.int64)
        which = np.flatnonzero(_clean_chunks(places, valueids, extsize, self.max_chunk) & ~(compressed & inflate))
        if not len(which):
            return np.zeros(0, dtype=np.uint8), start, length
        ext, compressed, rawsize = extsize[which], compressed[which], rawsize[which]
        lo, _ = places.bounds(valueids[which])
        count = (ext + self.max_chunk - 1) // self.max_chunk
        first = np.cumsum(count) - count
        seq = np.arange(int(count.sum())) - np.repeat(first, count)   # (clean: rows lo.. hold chunk_seq 0, 1, ...)
        rows = np.repeat(lo, count) + seq
        flat, at, size, plain = self._payloads(places, rows)
        whole = np.logical_and.reduceat(plain & (size == places.chunk_size[rows]), first)
        stored = np.where(whole, ext + VARHDRSZ, 0)
        begin = np.cumsum(stored) - stored + VARHDRSZ      # where each value's data goes, after its header
        take = np.repeat(whole, count)
        data = np.empty(int(stored.sum()), dtype=np.uint8)
        kernels.gather(flat, at[take], size[take], data, (np.repeat(begin, count) + seq * self.max_chunk)[take])
        if len(data):
            tcinfo = data[np.minimum(begin[:, None] + np.arange(4), len(data) - 1)].copy().view("<u4")[:, 0]
            whole &= ~compressed | ((ext >= 4) & ((tcinfo.astype(np.int64) & VARLENA_EXTSIZE_MASK) == rawsize))
        w = np.flatnonzero(whole)
        header = _varlena_header(ext[w], compressed[w]).astype("<u4").view(np.uint8).reshape(-1, VARHDRSZ)
        data[(begin[w] - VARHDRSZ)[:, None] + np.arange(VARHDRSZ)] = header
        start[which[w]], length[which[w]] = begin[w] - VARHDRSZ, ext[w] + VARHDRSZ
        return data, start, length

    def _fetch_each(self, places: ChunkPlaces, pointers: list[ToastPointer], inflate: bool) -> list:
        """``reassemble`` of each of ``pointers`` from its chunks in ``places``, the pages they lie on read once:
        the data of a plain chunk tuple (``_payloads``) sliced from them; a value with any other chunk fetched
        alone (``_fetch_deformed``)."""
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
                out.append(self._fetch_deformed(places, pointer, inflate))
            else:
                out.append(self._reassembled(places, pointer, rows, payload.__getitem__, inflate))
        return out

    def _fetch_deformed(self, places: ChunkPlaces, pointer: ToastPointer, inflate: bool):
        """``reassemble`` of one value from its chunks in ``places``, each chunk tuple deformed."""
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
        off, lp_flags, length = line_pointer_fields(word)
        at = base + np.minimum(off, bs - CHUNK_T_HOFF - 8)
        im2 = flat[at + T_INFOMASK2].astype(np.int64) | (flat[at + T_INFOMASK2 + 1].astype(np.int64) << 8)
        im = flat[at + T_INFOMASK].astype(np.int64)    # the low byte, where HEAP_HASNULL is
        data = at + CHUNK_T_HOFF + 8      # chunk_data's varlena header, as the page holds it now
        b0 = flat[data].astype(np.int64)
        w4 = flat[np.minimum(data[:, None] + np.arange(4), flat.size - 1)].copy().view("<u4").reshape(-1)
        size = np.where(b0 & 1, (b0 >> 1) - 1, (w4.astype(np.int64) >> 2) - 4)
        header = np.where(b0 & 1, 1, 4)
        start = off + CHUNK_T_HOFF + 8 + header
        plain = ((lp_flags == LP_NORMAL) & (off + length <= bs) & ((im2 & HEAP_NATTS_MASK) == 3)
                 & ((im & HEAP_HASNULL) == 0) & (flat[at + T_HOFF] == CHUNK_T_HOFF) & (size >= 0)
                 & (((b0 & 3) == 0) | (((b0 & 1) == 1) & (b0 != 1))) & (start + size <= off + length))
        return flat, base + start, size, plain

    def _chunk_data(self, page: np.ndarray, block: int, item: int):
        lp = int(page[SIZE_OF_PAGE_HEADER + 4 * (item - 1):SIZE_OF_PAGE_HEADER + 4 * item].view("<u4")[0])
        off, _, length = line_pointer_fields(lp)
        tup = page[off:off + length].tobytes()
        infomask = int.from_bytes(tup[T_INFOMASK:T_INFOMASK + 2], "little")
        natts = int.from_bytes(tup[T_INFOMASK2:T_INFOMASK2 + 2], "little") & HEAP_NATTS_MASK
        d = deform_tuple(tup, tup[T_HOFF], natts, COLUMNS,
                         null_bitmap=tup[SizeofHeapTupleHeader:tup[T_HOFF]] if infomask & HEAP_HASNULL else None)
        a = d.attrs[2]
        if a.status != VALUE:
            return Unreadable("toast.chunk_unreadable", f"TOAST chunk ({block},{item}) of"
                              f" {self.relation.qualified_name}: chunk_data cannot be read")
        payload = datum.varlena_payload(a.raw)
        if not isinstance(payload, bytes):
            return Unreadable("toast.chunk_unreadable", f"TOAST chunk ({block},{item}) of "
                              f"{self.relation.qualified_name}: {payload}")
        return payload

    # ------------------------------------------------------------------------------------------ chunks
    def chunks(self, valueid: int) -> tuple[np.ndarray, np.ndarray]:
        """(chunk_seq, chunk_data size) of a value's chunks as its TOAST index gives them out (by chunk_seq),
        from the tuple headers of every chunk."""
        places = self._every_chunk()
        (lo,), (hi,) = places.bounds([valueid])
        rows = np.arange(lo, hi)
        live = rows[~places.aborted[lo:hi]]
        rows = live if len(live) else rows
        rows = rows[np.argsort(places.chunk_seq[rows], kind="stable")]
        return places.chunk_seq[rows], places.chunk_size[rows]

    def chunks_clean(self, valueids: np.ndarray, extsizes: np.ndarray) -> np.ndarray:
        """Of each value, whether ``analysis.verify.toast.chunk_problems`` finds nothing in its ``chunks``, where
        that can be told from arrays: every chunk of the value inserted by a transaction that did not abort,
        chunk_seq 0, 1, ... once each, each max_chunk bytes but the last, which holds the rest of va_extsize. False
        for the others (nearly none: the caller looks at those one by one, through ``chunks``). The chunks are
        found through the index while it can be followed (as ``fetch``), for values of about FETCH_BYTES at a
        time."""
        valueids = np.asarray(valueids, dtype=np.int64)
        extsizes = np.asarray(extsizes, dtype=np.int64)
        cuts = (np.flatnonzero(np.diff(np.cumsum(extsizes) // FETCH_BYTES)) + 1).tolist()
        clean = np.zeros(len(valueids), dtype=bool)
        for lo, hi in zip([0] + cuts, cuts + [len(valueids)]):
            places = self._through_index(valueids[lo:hi])
            clean[lo:hi] = _clean_chunks(self._every_chunk() if places is None else places, valueids[lo:hi],
                                         extsizes[lo:hi], self.max_chunk)
        return clean

    def _every_chunk(self) -> ChunkPlaces:
        """Every chunk tuple of the table, placed by reading the table once (the first time it is needed)."""
        if self._every is None:
            chunks = self.fork.iter_chunks() if self.fork is not None else ()
            self._every = ChunkPlaces.of_pages(((pages, first + np.arange(len(pages))) for first, pages in chunks),
                                               self.clog)
        return self._every

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
        return ChunkPlaces.of_pages([(self.read_blocks(blocks), blocks)], self.clog).only(ids)
