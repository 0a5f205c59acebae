"""Carving: tuple versions whose line pointer is gone, found by their header's own consistency.

Pruning (``heap_page_prune``) turns a dead tuple's line pointer into LP_DEAD or LP_UNUSED (or an LP_REDIRECT
at its chain's root) and compacts the page (``PageRepairFragmentation``): the live tuples move towards the
page's end, and what lay below the new ``pd_upper`` is left as it was. The dead versions that lay there
(the last ones inserted on the page are at the lowest offsets) are still whole, in the free space between
``pd_lower`` and ``pd_upper``; so may be a tuple between live ones, or behind an LP_DEAD line pointer that
kept its storage.

``candidates`` looks at every MAXALIGNed offset of a page no line pointer covers and keeps a tuple header
only when everything in it agrees with what ``heap_form_tuple`` writes:

* ``t_hoff`` is exactly MAXALIGN(header + null bitmap for natts (+ the OID before 12)); natts is 1 to the
  relation's attribute count (a column added later leaves older tuples shorter, and the catalog does not
  say when it was added, so fewer is allowed: the missing ones read as the deformer reads them);
* no t_infomask2 bit outside natts and HEAP2_XACT_MASK; no HEAP_MOVED (pre-9.0 VACUUM FULL), no
  HEAP_XMAX_COMMITTED together with HEAP_XMAX_INVALID or HEAP_XMAX_IS_MULTI, no HEAP_HASOID_OLD where the
  table has no OIDs;
* the null bitmap (palloc0'd by ``heap_form_tuple``) has a NULL when HEAP_HASNULL is set, no bit past natts,
  and zeros up to ``t_hoff``;
* xmin is FrozenTransactionId or a normal xid, xmax is 0 (then neither HEAP_XMAX_COMMITTED nor
  HEAP_XMAX_IS_MULTI) or a normal xid (a multixact with HEAP_XMAX_IS_MULTI), and neither comes after what
  pg_xact (pg_multixact) has room for (``DataDirectory.id_reach``: a crashed server may have passed pg_control's
  next xid);
* the attributes deform (``decode.deform``) without a single finding, within the uncovered bytes, and the
  tuple's length is where the last one ends.

The caller then asks pg_xact (``passes.carve``: a verdict must be known), prints every value (none may be
unreadable), and drops copies: compaction copies live tuples, so a moved tuple's old bytes stay behind and
repeat a version a line pointer still holds (``held_versions``), and a version moved by two compactions
stays twice (``duplicates``). Pure functions over page bytes; no I/O.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pgpage.decode.datum import ATTALIGN_BYTES
from pgpage.decode.deform import deform_tuple
from pgpage.decode.flags import (HEAP2_XACT_MASK, HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASOID_OLD,
                                 HEAP_HASVARWIDTH, HEAP_MOVED, HEAP_NATTS_MASK, HEAP_XMAX_COMMITTED,
                                 HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, LP_NORMAL)
from pgpage.decode.ksy.constants import FirstNormalTransactionId, FrozenTransactionId, SizeofHeapTupleHeader
from pgpage.decode.vector import HEAP_TUPLE_RECORD, HEAP_TUPLE_WORDS, LinePointers, PageHeaders

MAXALIGN = ATTALIGN_BYTES["d"]          # MAXIMUM_ALIGNOF: tuples start at multiples of it
OID_BYTES = 4
XID_HALF = 1 << 31                      # xids compare modulo 2^32 (TransactionIdPrecedes)
T_HOFF_AT = HEAP_TUPLE_RECORD.fields["t_hoff"][1]
HELD_KEY = 16                           # data bytes a held version is looked up by (held_versions)


def maxalign(n):
    return (n + MAXALIGN - 1) & ~(MAXALIGN - 1)


@dataclass
class Carved:
    """Tuples found in a chunk's uncovered bytes: ``page`` (in the chunk), ``off`` (lp_off-like: from the page's
    start), ``length`` (lp_len-like), and the header fields as ``vector.decode_tuple_headers`` gives them."""
    page: np.ndarray
    off: np.ndarray
    length: np.ndarray
    header: np.ndarray       # HEAP_TUPLE_RECORD per tuple

    def take(self, which) -> "Carved":
        return Carved(self.page[which], self.off[which], self.length[which], self.header[which])


def uncovered(pages: np.ndarray, headers: PageHeaders, items: LinePointers, usable: np.ndarray) -> np.ndarray:
    """Per page and MAXALIGN word: True where no line pointer's tuple lies, between pd_lower and pd_special
    (of the ``usable`` pages only). An LP_DEAD line pointer's storage counts as uncovered: its tuple is dead."""
    n, block_size = pages.shape
    words = block_size // MAXALIGN
    diff = np.zeros((n, words + 1), dtype=np.int16)   # (at most MaxHeapTuplesPerPage tuples over a word)
    held = np.flatnonzero((items.flags == LP_NORMAL) & (items.len > 0))
    lo = np.clip(items.off[held] // MAXALIGN, 0, words)
    hi = np.clip(maxalign(items.off[held] + items.len[held]) // MAXALIGN, 0, words)
    np.add.at(diff, (items.page[held], lo), 1)
    np.add.at(diff, (items.page[held], hi), -1)
    covered = np.cumsum(diff, axis=1, dtype=np.int16)[:, :words] > 0
    at = np.arange(words) * MAXALIGN
    lower = maxalign(headers.lower.astype(np.int64))[:, None]
    special = np.minimum(headers.special.astype(np.int64), block_size)[:, None]
    return ~covered & (at >= lower) & (at + MAXALIGN <= special) & usable[:, None]


def _region_ends(free: np.ndarray) -> np.ndarray:
    """For each word, the byte offset where the run of free words it starts ends (0 where it is not free)."""
    n, words = free.shape
    idx = np.where(~free, np.arange(words), words)
    nxt = np.minimum.accumulate(idx[:, ::-1], axis=1)[:, ::-1]
    return np.where(free, nxt * MAXALIGN, 0)


def candidates(pages: np.ndarray, free: np.ndarray, attrs, natts_max: int, has_oids: bool,
               next_xid: int | None, next_multi: int | None, held: dict | None = None) -> Carved:
    """The tuples whose headers and attributes pass every check of the module's docstring, at any free
    MAXALIGNed offset, but copies of the versions in ``held`` (``held_versions``: those line pointers hold), found
    before the costly walk of their attributes, and tuples inside which another plausible header begins (its tail
    was overwritten). Overlapping ones are left to ``disjoint``."""
    n, block_size = pages.shape
    ends = _region_ends(free)
    page, word = np.nonzero(free)
    room = ends[page, word] - word * MAXALIGN
    ok = room >= HEAP_TUPLE_WORDS * MAXALIGN
    page, word = page[ok], word[ok]
    flat = np.ascontiguousarray(pages).reshape(-1)
    first = (page * block_size) // MAXALIGN + word
    # one byte first (a mostly empty page has a thousand free words): t_hoff MAXALIGNed, past the header
    t_hoff = flat[first * MAXALIGN + T_HOFF_AT]
    ok = (t_hoff % MAXALIGN == 0) & (t_hoff >= SizeofHeapTupleHeader)
    page, word, first = page[ok], word[ok], first[ok]
    rec = flat.view("<u8")[first[:, None] + np.arange(HEAP_TUPLE_WORDS)].view(HEAP_TUPLE_RECORD).reshape(-1)
    im = rec["t_infomask"].astype(np.int64)
    im2 = rec["t_infomask2"].astype(np.int64)
    natts = im2 & HEAP_NATTS_MASK
    bitmap = np.where(im & HEAP_HASNULL, (natts + 7) // 8, 0)
    oid = np.where(im & HEAP_HASOID_OLD, OID_BYTES, 0)
    good = ((rec["t_hoff"] == maxalign(SizeofHeapTupleHeader + bitmap + oid)) & (natts >= 1) & (natts <= natts_max)
            & ((im2 & ~(HEAP_NATTS_MASK | HEAP2_XACT_MASK)) == 0) & ((im & HEAP_MOVED) == 0)
            & ~(((im & HEAP_XMAX_COMMITTED) != 0) & ((im & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) != 0))
            & (has_oids | ((im & HEAP_HASOID_OLD) == 0)))
    xmin, xmax = rec["t_xmin"].astype(np.int64), rec["t_xmax"].astype(np.int64)
    good &= (xmin == FrozenTransactionId) | _normal_before(xmin, next_xid)
    multi = (im & HEAP_XMAX_IS_MULTI) != 0
    good &= np.where(xmax == 0, ~multi & ((im & HEAP_XMAX_COMMITTED) == 0),    # no deleter to have committed
                     np.where(multi, _before(xmax, next_multi), _normal_before(xmax, next_xid)))
    # where a plausible header begins: a later tuple written there overwrote whatever ran across it
    header_at = np.sort(page[good] * block_size + word[good] * MAXALIGN)
    keep_page, keep_off, keep_len, keep = [], [], [], []
    held = held or {}
    keys = sorted({len(k[2]) for k in held})       # (HELD_KEY, or shorter for a version with fewer data bytes)
    for j in np.flatnonzero(good).tolist():
        p, off = int(page[j]), int(word[j]) * MAXALIGN
        at, end = off + int(rec["t_hoff"][j]), int(ends[p, word[j]])
        head = pages[p, at:at + HELD_KEY].tobytes()
        if any(at + len(d) <= end and pages[p, at:at + len(d)].tobytes() == d
               for k in keys for d in held.get((p, int(rec["t_xmin"][j]), head[:k]), ())):
            continue
        length = _extent(pages[p], off, end, rec[j], attrs)
        if length is not None and not _overwritten(header_at, p * block_size + off, maxalign(length)):
            keep_page.append(p), keep_off.append(off), keep_len.append(length), keep.append(j)
    return Carved(np.array(keep_page, dtype=np.int64), np.array(keep_off, dtype=np.int64),
                  np.array(keep_len, dtype=np.int64), rec[keep])


def _overwritten(header_at: np.ndarray, start: int, extent: int) -> bool:
    """Another plausible tuple header begins inside [start, start + extent): that tuple was written after this one
    (else its header would hold this one's bytes, not a header's), over this one's tail."""
    at = np.searchsorted(header_at, start, side="right")
    return at < len(header_at) and header_at[at] < start + extent


def _before(xid: np.ndarray, limit: int | None) -> np.ndarray:
    """xid precedes ``limit`` (modulo 2^32); True everywhere when there is no limit to compare with."""
    if limit is None:
        return np.ones(len(xid), dtype=bool)
    return ((limit - xid) & 0xFFFFFFFF) - 1 < XID_HALF - 1


def _normal_before(xid: np.ndarray, next_xid: int | None) -> np.ndarray:
    return (xid >= FirstNormalTransactionId) & _before(xid, next_xid)


def _extent(page: np.ndarray, off: int, end: int, h, attrs) -> int | None:
    """The length of the tuple at ``off`` (bytes up to ``end`` free): where its attributes end, when its null
    bitmap and padding are as heap_form_tuple leaves them and the deformer reports nothing; else None."""
    data = page[off:end].tobytes()
    im, natts, t_hoff = int(h["t_infomask"]), int(h["t_infomask2"]) & HEAP_NATTS_MASK, int(h["t_hoff"])
    oid = OID_BYTES if im & HEAP_HASOID_OLD else 0
    bits = (natts + 7) // 8 if im & HEAP_HASNULL else 0
    bitmap = data[SizeofHeapTupleHeader:SizeofHeapTupleHeader + bits]
    if any(data[SizeofHeapTupleHeader + bits:t_hoff - oid]):
        return None                        # padding after the bitmap is zero (palloc0)
    if bits:
        full = int.from_bytes(bitmap, "little")
        if full >> natts or full == (1 << natts) - 1:
            return None                    # a bit past natts, or HEAP_HASNULL without a NULL
    d = deform_tuple(data, t_hoff, natts, attrs, null_bitmap=bitmap if bits else None,
                     hasvarwidth=bool(im & HEAP_HASVARWIDTH), hasexternal=bool(im & HEAP_HASEXTERNAL))
    if d.data_end is None or any(f.code != "heap.deform.length_mismatch" for f in d.findings):
        return None
    if d.data_end < t_hoff or off + maxalign(d.data_end) > end:
        return None
    return d.data_end


def disjoint(carved: Carved) -> np.ndarray:
    """Indexes of carved tuples that overlap no earlier one of the same page (by offset): bytes belong to one
    tuple at most."""
    order = np.lexsort((carved.off, carved.page))
    keep, page, reach = [], -1, 0
    for j in order.tolist():
        p, off = int(carved.page[j]), int(carved.off[j])
        if p != page:
            page, reach = p, 0
        if off >= reach:
            keep.append(j)
            reach = off + maxalign(int(carved.length[j]))
    return np.array(keep, dtype=np.int64)


def held_versions(flat: np.ndarray, block_size: int, starts, lengths, xmins, t_hoffs) -> dict:
    """The data bytes (past t_hoff) of tuples line pointers hold, by (page of the chunk, xmin, their first
    HELD_KEY bytes), for ``candidates``."""
    out: dict = {}
    for s, n, x, h in zip(starts.tolist(), lengths.tolist(), xmins.tolist(), t_hoffs.tolist()):
        data = flat[s + h:s + n].tobytes()
        out.setdefault((s // block_size, x, data[:HELD_KEY]), []).append(data)
    return out


def duplicates(flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray, xmins: np.ndarray, t_hoffs: np.ndarray,
               blocks: np.ndarray) -> np.ndarray:
    """Which tuples (at ``starts`` of ``flat``) repeat an earlier one of their block (same xmin and data bytes):
    a copy compaction left. The header is not compared: hint bits and xmax may have been set on one copy after
    the other was made."""
    out, known = np.zeros(len(starts), dtype=bool), set()
    for j, key in enumerate(_keys(flat, starts, lengths, xmins, t_hoffs, blocks)):
        out[j] = key in known
        known.add(key)
    return out


def _keys(flat, starts, lengths, xmins, t_hoffs, blocks):
    """(block, xmin, data bytes) of tuples."""
    for s, n, x, h, b in zip(starts.tolist(), lengths.tolist(), xmins.tolist(), t_hoffs.tolist(), blocks.tolist()):
        yield b, x, flat[s + h:s + n].tobytes()
