"""Heap tuples as WAL records hold them, rebuilt as redo rebuilds them (heapam.c heap_xlog_insert,
heap_xlog_multi_insert, heap_xlog_update), and the tuples of full-page images. For `rows --wal`
(passes.walrows): the tuples' bytes go to the same decoder as the tuples of pages.

A record's new tuple is its block 0 data: an ``xl_heap_header`` (MULTI_INSERT: an ``xl_multi_insert_tuple``
per tuple, SHORTALIGNed), then the tuple from its null bitmap on. The HeapTupleHeader is rebuilt from those
fields, the record's xid as xmin, and the place the tuple went to as its t_ctid. An UPDATE of a tuple on the
same page may leave out the bytes the new tuple shares with the old one at its start (after the bitmap) and at
its end (XLH_UPDATE_PREFIX_FROM_OLD / SUFFIX_FROM_OLD); they are taken from the old tuple, which the caller
finds. A block whose record carries its full-page image has no data: the image holds the tuple.
Pure functions; malformed input raises ``RecordError``.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from pgpage.decode import versions
from pgpage.decode.flags import HEAP_XMAX_IS_MULTI, LP_NORMAL
from pgpage.decode.ksy.constants import (XLH_UPDATE_PREFIX_FROM_OLD, XLH_UPDATE_SUFFIX_FROM_OLD, XLHL_XMAX_IS_MULTI,
                                         XLOG_HEAP_INIT_PAGE, SizeofHeapTupleHeader)
from pgpage.decode.vector import decode_heap_chunk, tuple_has_header
from pgpage.decode.wal.heap import DELETE, INSERT, MULTI_INSERT, UPDATE
from pgpage.decode.wal.record import Record, RecordError, page_image, unpacker

HEAP_HEADER = unpacker("xlog_records::xl_heap_header")              # t_infomask2, t_infomask, t_hoff
MULTI_INSERT_TUPLE = unpacker("xlog_records::xl_multi_insert_tuple")  # datalen, t_infomask2, t_infomask, t_hoff
TUPLE_HEADER = unpacker("heap_tuple")   # t_xmin, t_xmax, t_field3, bi_hi, bi_lo, ip_posid, t_infomask2, ...
FIRST_OFFSET = 1            # FirstOffsetNumber: an initialised page's first tuple


@dataclass
class WalTuple:
    """A tuple version a record holds: where it went, its bytes (header rebuilt), the record that holds it."""
    lsn: int
    block: int
    offset: int
    data: bytes
    xmin: int
    xmax: int
    infomask: int
    lp_off: int | None = None    # where it lies in its page, when a full-page image says
    xmax_multi: bool = False     # xmax is a MultiXactId (its image's HEAP_XMAX_IS_MULTI, or its ender's XLHL_ bit)


def tuple_bytes(xmin: int, xmax: int, block: int, offset: int, infomask2: int, infomask: int, t_hoff: int,
                body: bytes) -> bytes:
    """A HeapTupleHeader as redo writes it (cmin FirstCommandId: 0), then ``body`` (bitmap, padding, data)."""
    return TUPLE_HEADER.pack(xmin, xmax, 0, block >> 16, block & 0xFFFF, offset, infomask2, infomask, t_hoff) + body


def _type(rec: Record, major: int) -> str:
    return versions.wal_record_type(major, rec.rmid, rec.info).removesuffix("+INIT")


def _check(cond: bool, rec: Record, what: str) -> None:
    if not cond:
        raise RecordError(f"{versions.rmgr_name(rec.rmid)} record: {what}")


def inserted(rec: Record, major: int, old_tuple) -> list[WalTuple]:
    """The tuples a heap INSERT, UPDATE, HOT_UPDATE or Heap2 MULTI_INSERT record puts on its block 0, from the
    block's data ([] when it has none: its image holds them). ``old_tuple(block, offset)``: the bytes of the tuple
    an UPDATE replaced (for its prefix and suffix), or None when unknown (the new tuple then cannot be rebuilt:
    ``RecordError``)."""
    name = _type(rec, major)
    heap = rec.rmid == versions.RMGR_HEAP
    block = rec.block(0)
    if block is None or not block.data_length or block.fork != "main":
        return []
    data = rec.block_data(block)
    main = rec.main_data
    if heap and name == "INSERT":
        _check(len(main) >= INSERT.size and len(data) >= HEAP_HEADER.size, rec, "INSERT shorter than its header")
        offnum, _ = INSERT.unpack_from(main)
        infomask2, infomask, t_hoff = HEAP_HEADER.unpack_from(data)
        return [WalTuple(rec.lsn, block.block, offnum, tuple_bytes(rec.xid, 0, block.block, offnum, infomask2,
                                                                  infomask, t_hoff, data[HEAP_HEADER.size:]),
                         rec.xid, 0, infomask)]
    if heap and name in ("UPDATE", "HOT_UPDATE"):
        _check(len(main) >= UPDATE.size, rec, "UPDATE shorter than its main data")
        _, old_off, _, flags, new_xmax, new_off = UPDATE.unpack_from(main)
        pos = prefix = suffix = 0
        if flags & XLH_UPDATE_PREFIX_FROM_OLD:
            (prefix,), pos = struct.unpack_from("<H", data, pos), pos + 2
        if flags & XLH_UPDATE_SUFFIX_FROM_OLD:
            (suffix,), pos = struct.unpack_from("<H", data, pos), pos + 2
        _check(len(data) >= pos + HEAP_HEADER.size, rec, "UPDATE's new tuple shorter than its header")
        infomask2, infomask, t_hoff = HEAP_HEADER.unpack_from(data, pos)
        body = data[pos + HEAP_HEADER.size:]
        if prefix or suffix:
            old_ref = rec.block(1) or block
            old = old_tuple(old_ref.block, old_off)
            if old is None:
                raise RecordError(f"the tuple it updated, ({old_ref.block},{old_off}), is known neither from the "
                                  f"WAL nor from the page: its first {prefix} and last {suffix} bytes are not known")
            old_hoff = TUPLE_HEADER.unpack_from(old)[-1]
            _check(old_hoff + prefix <= len(old) and suffix <= len(old) - old_hoff, rec,
                   f"prefix {prefix} and suffix {suffix} longer than the old tuple")
            bitmap = t_hoff - SizeofHeapTupleHeader
            if prefix:
                body = body[:bitmap] + old[old_hoff:old_hoff + prefix] + body[bitmap:]
            if suffix:
                body += old[len(old) - suffix:]
        return [WalTuple(rec.lsn, block.block, new_off, tuple_bytes(rec.xid, new_xmax, block.block, new_off,
                                                                   infomask2, infomask, t_hoff, body),
                         rec.xid, new_xmax, infomask)]
    if not heap and name == "MULTI_INSERT":
        _check(len(main) >= MULTI_INSERT.size, rec, "MULTI_INSERT shorter than its main data")
        _, ntuples = MULTI_INSERT.unpack_from(main)
        init = bool(rec.info & XLOG_HEAP_INIT_PAGE)
        if not init:
            _check(len(main) >= MULTI_INSERT.size + 2 * ntuples, rec, "MULTI_INSERT's offsets cut short")
        offsets = (range(FIRST_OFFSET, FIRST_OFFSET + ntuples) if init
                   else struct.unpack_from(f"<{ntuples}H", main, MULTI_INSERT.size))
        out, pos = [], 0
        for offnum in offsets:
            pos += pos & 1                  # SHORTALIGN
            _check(pos + MULTI_INSERT_TUPLE.size <= len(data), rec, "MULTI_INSERT's tuples cut short")
            datalen, infomask2, infomask, t_hoff = MULTI_INSERT_TUPLE.unpack_from(data, pos)
            pos += MULTI_INSERT_TUPLE.size
            _check(pos + datalen <= len(data), rec, "MULTI_INSERT's tuple longer than its data")
            out.append(WalTuple(rec.lsn, block.block, offnum, tuple_bytes(rec.xid, 0, block.block, offnum, infomask2,
                                                                         infomask, t_hoff, data[pos:pos + datalen]),
                                rec.xid, 0, infomask))
            pos += datalen
        return out
    return []


def image_tuples(rec: Record, ref) -> list[WalTuple]:
    """The tuples (LP_NORMAL line pointers with a whole header) of the full-page image of block reference
    ``ref``, read with the page decoder."""
    page = np.frombuffer(page_image(rec, ref), dtype=np.uint8).reshape(1, -1)
    hc = decode_heap_chunk(page, ref.block)
    items, tups = hc.items, hc.tuples
    if hc.headers.is_new[0]:
        return []
    good = set(np.flatnonzero((items.flags == LP_NORMAL) & tuple_has_header(items, page.shape[1])).tolist())
    out = []
    for k in range(len(tups.item)):
        i = int(tups.item[k])
        if i not in good:
            continue
        off, ln = int(items.off[i]), int(items.len[i])
        out.append(WalTuple(rec.lsn, ref.block, int(items.lp[i]), page[0, off:off + ln].tobytes(),
                            int(tups.t_xmin[k]), int(tups.t_xmax[k]), int(tups.t_infomask[k]), off,
                            bool(int(tups.t_infomask[k]) & HEAP_XMAX_IS_MULTI)))
    return out


def deleted(rec: Record, major: int) -> tuple[int, int, int, bool] | None:
    """(block, offset, xmax, whether xmax is a MultiXactId) of the tuple a heap DELETE, UPDATE or HOT_UPDATE
    record ends, else None."""
    if rec.rmid != versions.RMGR_HEAP:
        return None
    name = _type(rec, major)
    block = rec.block(0)
    if block is None:
        return None
    if name == "DELETE" and len(rec.main_data) >= DELETE.size:
        xmax, offnum, infobits, _ = DELETE.unpack_from(rec.main_data)
        return block.block, offnum, xmax, bool(infobits & XLHL_XMAX_IS_MULTI)
    if name in ("UPDATE", "HOT_UPDATE") and len(rec.main_data) >= UPDATE.size:
        old_xmax, old_off, old_infobits, *_ = UPDATE.unpack_from(rec.main_data)
        return (rec.block(1) or block).block, old_off, old_xmax, bool(old_infobits & XLHL_XMAX_IS_MULTI)
    return None

