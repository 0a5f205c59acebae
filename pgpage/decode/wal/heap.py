"""Heap and Heap2 records: main data (formats/xlog_records.ksy) and descriptions as pg_waldump 16+ words them.

Parts 2 and 3 of issue 38 (rows from WAL) read the tuples from here too: an INSERT's or UPDATE's new tuple
is its block 0 data (``record.block_data(record.block(0))``: an xl_heap_header, then the tuple's bits and
data from its t_bits on).
"""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
import struct

from pgpage.decode.wal.record import Record, unpacker
from pgpage.decode.wal.standby import invalidations

INSERT = unpacker("xlog_records::xl_heap_insert")
DELETE = unpacker("xlog_records::xl_heap_delete")
UPDATE = unpacker("xlog_records::xl_heap_update")
LOCK = unpacker("xlog_records::xl_heap_lock")
INPLACE = unpacker("xlog_records::xl_heap_inplace")
VISIBLE = unpacker("xlog_records::xl_heap_visible")
INPLACE_18 = unpacker("xlog_records::xl_heap_inplace_18")
PRUNE_16 = unpacker("xlog_records::xl_heap_prune_16")
VACUUM_14 = unpacker("xlog_records::xl_heap_vacuum_14")
MULTI_INSERT = unpacker("xlog_records::xl_heap_multi_insert")
PRUNE_VACUUM_SPLIT = (14, 16)      # PRUNE and VACUUM as separate records (CLEAN before, PRUNE_* after)
INFOBITS = {bit: name.removeprefix("XLHL_XMAX_").removeprefix("XLHL_")
            for bit, name in ENUMS["xlog_records::infobits"].items()}
INPLACE_WITH_INVALS_SINCE = 18      # heap INPLACE carries invalidation messages from 18


def infobits(bits: int) -> str:
    return "[" + ", ".join(name for bit, name in INFOBITS.items() if bits & bit) + "]"


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info).removesuffix("+INIT")
    data = rec.main_data
    if name == "INSERT":
        off, flags = INSERT.unpack_from(data)
        return f"off: {off}, flags: 0x{flags:02X}"
    if name == "DELETE":
        xmax, off, bits, flags = DELETE.unpack_from(data)
        return f"xmax: {xmax}, off: {off}, infobits: {infobits(bits)}, flags: 0x{flags:02X}"
    if name in ("UPDATE", "HOT_UPDATE"):
        old_xmax, old_off, old_bits, flags, new_xmax, new_off = UPDATE.unpack_from(data)
        return (f"old_xmax: {old_xmax}, old_off: {old_off}, old_infobits: {infobits(old_bits)}, "
                f"flags: 0x{flags:02X}, new_xmax: {new_xmax}, new_off: {new_off}")
    if name == "LOCK":
        xmax, off, bits, flags = LOCK.unpack_from(data)
        return f"xmax: {xmax}, off: {off}, infobits: {infobits(bits)}, flags: 0x{flags:02X}"
    if name == "INPLACE":
        if major < INPLACE_WITH_INVALS_SINCE:
            return f"off: {INPLACE.unpack_from(data)[0]}"
        off, db, ts, init_file, nmsgs = INPLACE_18.unpack_from(data)
        return f"off: {off}" + (invalidations(data, INPLACE_18.size, nmsgs, db, ts, bool(init_file)) if nmsgs else "")
    return None


def _offsets(data: bytes, at: int, n: int) -> tuple[int, ...]:
    return struct.unpack_from(f"<{n}H", data, at)


def _array(items) -> str:
    return "[" + ", ".join(str(i) for i in items) + "]"


def describe2(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name == "VISIBLE":
        horizon, flags = VISIBLE.unpack_from(rec.main_data)
        return f"snapshotConflictHorizon: {horizon}, flags: 0x{flags:02X}"
    if name == "MULTI_INSERT" or name == "MULTI_INSERT+INIT":
        flags, ntuples = MULTI_INSERT.unpack_from(rec.main_data)
        text = f"ntuples: {ntuples}, flags: 0x{flags:02X}"
        block = rec.block(0)
        if block is not None and block.data_length and name == "MULTI_INSERT":
            text += ", offsets: " + _array(_offsets(rec.main_data, MULTI_INSERT.size, ntuples))
        return text
    lo, hi = PRUNE_VACUUM_SPLIT
    if lo <= major <= hi and name in ("PRUNE", "VACUUM"):
        block = rec.block(0)
        data = rec.block_data(block) if block is not None else b""
        if name == "VACUUM":
            (nunused,) = VACUUM_14.unpack_from(rec.main_data)
            return f"nunused: {nunused}" + (", unused: " + _array(_offsets(data, 0, nunused)) if data else "")
        horizon, nredirected, ndead = PRUNE_16.unpack_from(rec.main_data)
        text = f"snapshotConflictHorizon: {horizon}, nredirected: {nredirected}, ndead: {ndead}"
        if data:
            offsets = _offsets(data, 0, len(data) // 2)
            redirected = offsets[:2 * nredirected]
            dead = offsets[2 * nredirected:2 * nredirected + ndead]
            unused = offsets[2 * nredirected + ndead:]
            text += (f", nunused: {len(unused)}, redirected: ["
                     + ", ".join(f"{a}->{b}" for a, b in zip(redirected[::2], redirected[1::2]))
                     + f"], dead: {_array(dead)}, unused: {_array(unused)}")
        return text
    return None
