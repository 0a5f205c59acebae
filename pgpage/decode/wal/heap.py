"""Heap and Heap2 records: main data (formats/xlog_records.ksy) and descriptions as pg_waldump 16+ words them.

Parts 2 and 3 of issue 38 (rows from WAL) read the tuples from here too: an INSERT's or UPDATE's new tuple
is its block 0 data (``record.block_data(record.block(0))``: an xl_heap_header, then the tuple's bits and
data from its t_bits on).
"""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.wal.record import Record, unpacker

INSERT = unpacker("xlog_records::xl_heap_insert")
DELETE = unpacker("xlog_records::xl_heap_delete")
UPDATE = unpacker("xlog_records::xl_heap_update")
LOCK = unpacker("xlog_records::xl_heap_lock")
INPLACE = unpacker("xlog_records::xl_heap_inplace")
VISIBLE = unpacker("xlog_records::xl_heap_visible")
INFOBITS = {bit: name.removeprefix("XLHL_XMAX_").removeprefix("XLHL_")
            for bit, name in ENUMS["xlog_records::infobits"].items()}
INPLACE_WITH_INVALS_SINCE = 18      # heap INPLACE carries invalidation messages from 18 (not described here)


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
    if name == "INPLACE" and major < INPLACE_WITH_INVALS_SINCE:
        return f"off: {INPLACE.unpack_from(data)[0]}"
    return None


def describe2(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name == "VISIBLE":
        horizon, flags = VISIBLE.unpack_from(rec.main_data)
        return f"snapshotConflictHorizon: {horizon}, flags: 0x{flags:02X}"
    return None
