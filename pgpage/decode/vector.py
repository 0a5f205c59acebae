"""Vectorised decoding of many pages at once, for whole-relation scans.

The generated Kaitai parsers build one Python object per field (about 6.6 MB/s); a scan of a
relation instead decodes a chunk of pages as numpy arrays: every page header, every line
pointer, every heap tuple header. Offsets and widths come from ``ksy/layouts.py``, which
``formats/generate.py`` derives from the same ``.ksy`` files the parsers are compiled from,
so the two decoders cannot disagree on a layout (and tests check them page by page).

The rules for which line pointers have a tuple header to read are pageinspect's
(heap_page_items): the item has storage (lp_len > 0), is at least MAXALIGN(23) = 24 bytes,
its offset is MAXALIGNed, and it ends inside the page.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pgpage.decode.ksy.constants import SIZEOF_ItemIdData, SizeofHeapTupleHeader, SizeOfPageHeaderData
from pgpage.decode.ksy.layouts import LAYOUTS

SIZE_OF_PAGE_HEADER = SizeOfPageHeaderData
SIZE_OF_ITEM_ID = SIZEOF_ItemIdData
MIN_HEAP_TUPLE_SIZE = (SizeofHeapTupleHeader + 7) & ~7  # MinHeapTupleSize: MAXALIGN(SizeofHeapTupleHeader)
_NP = {"u1": np.uint8, "u2": np.dtype("<u2"), "u4": np.dtype("<u4"), "u8": np.dtype("<u8")}


def _field(type_name: str, field: str) -> tuple[int, str]:
    return LAYOUTS[type_name]["fields"][field]


def _bits(type_name: str, field: str) -> tuple[int, int]:
    _, (kind, shift, width) = LAYOUTS[type_name]["fields"][field]
    assert kind == "bits"
    return shift, (1 << width) - 1


def column(chunk: np.ndarray, type_name: str, field: str, base: int = 0) -> np.ndarray:
    """One fixed-offset field of every page in the chunk (e.g. pd_lower); a chunk of one row reads one page."""
    off, kind = _field(type_name, field)
    size = np.dtype(_NP[kind]).itemsize
    return np.ascontiguousarray(chunk[:, base + off: base + off + size]).view(_NP[kind]).reshape(-1)


@dataclass
class PageHeaders:
    lsn: np.ndarray          # uint64
    checksum: np.ndarray     # uint16, as stored
    flags: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    special: np.ndarray
    pagesize_version: np.ndarray
    prune_xid: np.ndarray
    is_new: np.ndarray       # PageIsNew (pd_upper == 0)
    nlp: np.ndarray          # line pointers to read: PageGetMaxOffsetNumber clamped to the page


@dataclass
class LinePointers:
    """Every line pointer of the chunk, page-major; ``page`` indexes the chunk's pages."""
    page: np.ndarray
    lp: np.ndarray           # offset number, 1-based
    off: np.ndarray
    flags: np.ndarray
    len: np.ndarray


@dataclass
class TupleHeaders:
    """Heap tuple headers of the line pointers that have one (``item`` indexes LinePointers)."""
    item: np.ndarray
    t_xmin: np.ndarray
    t_xmax: np.ndarray
    t_field3: np.ndarray
    ctid_block: np.ndarray
    ctid_offset: np.ndarray
    t_infomask2: np.ndarray
    t_infomask: np.ndarray
    t_hoff: np.ndarray


@dataclass
class HeapChunk:
    first_blkno: int
    block_size: int
    headers: PageHeaders
    items: LinePointers
    tuples: TupleHeaders
    pages: np.ndarray | None = None  # the page images decoded (uint8, (n, BLCKSZ)), for the compiled passes

    @property
    def npages(self) -> int:
        return len(self.headers.lower)


_BITS_SET = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """The distinct values of ``a``, sorted: ``np.unique`` without its plain path's import of numpy.ma
    (18 ms, in every worker process that first calls it)."""
    a = np.sort(np.ravel(a))
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if len(a) else a


def count_set_bits(a: np.ndarray) -> int:
    """The bits set in a uint8 array (a bitmap: VM bits, blocks seen)."""
    return int(_BITS_SET[a].sum(dtype=np.int64))


def decode_headers(chunk: np.ndarray) -> PageHeaders:
    t = "pg_page::page_header"
    col = lambda f: column(chunk, t, f)  # noqa: E731
    lower, upper = col("pd_lower"), col("pd_upper")
    block_size = chunk.shape[1]
    is_new = upper == 0
    max_lp = (block_size - SIZE_OF_PAGE_HEADER) // SIZE_OF_ITEM_ID
    nlp = (np.minimum(lower.astype(np.int64), block_size) - SIZE_OF_PAGE_HEADER) // SIZE_OF_ITEM_ID
    nlp = np.clip(nlp, 0, max_lp)
    nlp[is_new] = 0
    lsn = (col("pd_lsn.xlogid").astype(np.uint64) << np.uint64(32)) | col("pd_lsn.xrecoff").astype(np.uint64)
    return PageHeaders(lsn, col("pd_checksum"), col("pd_flags"), lower, upper, col("pd_special"),
                       col("pd_pagesize_version"), col("pd_prune_xid"), is_new, nlp)


def new_not_zeroed(chunk: np.ndarray) -> list[tuple[int, int]]:
    """(page, its non-zero bytes) of the chunk's pages with pd_upper 0 (PageIsNew) that are not all zeros:
    PostgreSQL accepts a new page only all zeros (PageIsVerifiedExtended), and reads none of its items."""
    pages = np.flatnonzero(column(chunk, "pg_page::page_header", "pd_upper") == 0)
    counts = np.count_nonzero(chunk[pages], axis=1) if len(pages) else pages
    return [(p, c) for p, c in zip(pages.tolist(), counts.tolist()) if c]


def _line_pointer_words(chunk: np.ndarray, headers: PageHeaders):
    """(words, mask): the pages' line pointer arrays as (pages, most line pointers) uint32 words, and which of them
    each page has (its pd_lower's count); None when no page has one."""
    maxlp = int(headers.nlp.max()) if len(headers.nlp) else 0
    if maxlp == 0:
        return None
    words = np.ascontiguousarray(chunk[:, SIZE_OF_PAGE_HEADER:SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * maxlp])
    return words.view("<u4").reshape(chunk.shape[0], maxlp), np.arange(maxlp) < headers.nlp[:, None]


def decode_line_pointers(chunk: np.ndarray, headers: PageHeaders) -> LinePointers:
    lp = _line_pointer_words(chunk, headers)
    if lp is None:
        empty = np.zeros(0, dtype=np.int64)
        return LinePointers(empty, empty, empty, empty, empty)
    words, mask = lp
    page, idx = np.nonzero(mask)
    return LinePointers(page, idx + 1, *line_pointer_fields(words[mask].astype(np.int64)))


def line_pointer_states(chunk: np.ndarray, headers: PageHeaders) -> np.ndarray:
    """Each page's line pointers (those ``decode_line_pointers`` gives) counted by lp_flags: LP_UNUSED, LP_NORMAL,
    LP_REDIRECT, LP_DEAD, (pages, 4), without making the line pointers."""
    out = np.zeros((chunk.shape[0], 4), dtype=np.int64)
    lp = _line_pointer_words(chunk, headers)
    if lp is not None:
        words, mask = lp
        shift, bits = _LP_BITS[1]
        flags = np.where(mask, (words >> shift) & bits, 4)   # (4: past the page's line pointers)
        for state in range(4):
            out[:, state] = np.count_nonzero(flags == state, axis=1)
    return out


def line_pointers_of(chunk: np.ndarray, headers: PageHeaders, pages: np.ndarray) -> LinePointers:
    """The line pointers of the chunk's pages ``pages`` (indexes, ascending) only; ``page`` indexes ``pages``."""
    sub = PageHeaders(*(getattr(headers, f.name)[pages] for f in fields(headers)))
    return decode_line_pointers(chunk[pages], sub)


def u4_at(flat: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The little-endian uint32 starting at each offset ``at`` of the byte array ``flat`` (int64 values)."""
    if not len(at):
        return np.zeros(0, dtype=np.int64)
    at = np.asarray(at, dtype=np.int64)
    return (flat[at].astype(np.int64) | flat[at + 1].astype(np.int64) << 8 | flat[at + 2].astype(np.int64) << 16
            | flat[at + 3].astype(np.int64) << 24)


def run_positions(counts: np.ndarray) -> np.ndarray:
    """0, 1, .., counts[i] - 1 for each i, one run after the other (the position of each element of
    ``np.repeat(x, counts)`` within its run)."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def line_pointer_fields(word):
    """ItemIdData's (lp_off, lp_flags, lp_len) of line pointer words (read as little-endian uint32, int64 arrays
    or a Python int), bit positions from the layout."""
    (s_off, m_off), (s_fl, m_fl), (s_len, m_len) = _LP_BITS
    return (word >> s_off) & m_off, (word >> s_fl) & m_fl, (word >> s_len) & m_len


_LP_BITS = tuple(_bits("pg_page::item_id", f) for f in ("lp_off", "lp_flags", "lp_len"))


def tuple_has_header(items: LinePointers, block_size: int) -> np.ndarray:
    """pageinspect's rule for "this item's tuple header can be read"."""
    return ((items.len >= MIN_HEAP_TUPLE_SIZE) & (items.off % 8 == 0)
            & (items.off + items.len <= block_size))


def _record_dtype(type_name: str, size: int) -> np.dtype:
    """A numpy record type with the primitive fields of a fixed-size .ksy type at their offsets."""
    names, formats, offsets = [], [], []
    for name, (off, kind) in LAYOUTS[type_name]["fields"].items():
        if isinstance(kind, str):
            names.append(name)
            formats.append(_NP[kind])
            offsets.append(off)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size})


# HeapTupleHeaderData's 23 bytes, read as three MAXALIGNed words per tuple
HEAP_TUPLE_WORDS = 3
HEAP_TUPLE_RECORD = _record_dtype("heap_tuple", 8 * HEAP_TUPLE_WORDS)


def decode_tuple_headers(chunk: np.ndarray, items: LinePointers) -> TupleHeaders:
    """Tuple headers of the items that have one: three 8-byte words gathered per tuple (its
    offset is MAXALIGNed, so word gathers are exact), then viewed through the layout."""
    block_size = chunk.shape[1]
    sel = np.flatnonzero(tuple_has_header(items, block_size))
    words = np.ascontiguousarray(chunk).reshape(-1).view("<u8")
    first_word = (items.page[sel] * block_size + items.off[sel]) // 8
    # (a take per word: numpy's 1-D take is about twice as fast as one 2-D fancy index of the same words)
    gathered = np.stack([words[first_word + k] for k in range(HEAP_TUPLE_WORDS)], axis=1)
    rec = gathered.view(HEAP_TUPLE_RECORD).reshape(-1)
    ctid_block = (rec["t_ctid.bi_hi"].astype(np.uint32) << np.uint32(16)) | rec["t_ctid.bi_lo"]
    return TupleHeaders(sel, rec["t_xmin"], rec["t_xmax"], rec["t_field3"], ctid_block, rec["t_ctid.ip_posid"],
                        rec["t_infomask2"], rec["t_infomask"], rec["t_hoff"])


def decode_heap_chunk(chunk: np.ndarray, first_blkno: int) -> HeapChunk:
    headers = decode_headers(chunk)
    items = decode_line_pointers(chunk, headers)
    return HeapChunk(first_blkno, chunk.shape[1], headers, items, decode_tuple_headers(chunk, items), chunk)
