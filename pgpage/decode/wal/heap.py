"""Heap and Heap2 records: main data (formats/xlog_records.ksy) and descriptions as each major's heapdesc.c
words them: ``key: value, ...`` from 16; 14 and 15 print ``off 1 flags 0x00`` and the infobits as words each
followed by a space (``out_infobits``).

Parts 2 and 3 of issue 38 (rows from WAL) read the tuples from here too: an INSERT's or UPDATE's new tuple
is its block 0 data (``record.block_data(record.block(0))``: an xl_heap_header, then the tuple's bits and
data from its t_bits on).
"""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
import struct

from pgpage.decode.wal.record import Record, array_text, offsets, unpacker
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
PRUNE_17 = unpacker("xlog_records::xl_heap_prune_17")
FREEZE_PAGE_16 = unpacker("xlog_records::xl_heap_freeze_page_16")
FREEZE_PLAN = unpacker("xlog_records::xlhp_freeze_plan")
FREEZE_PLANS = unpacker("xlog_records::xlhp_freeze_plans")
XLHP = {name: bit for bit, name in ENUMS["xlog_records::xlhp_flags"].items()}
FREEZE_PLANS_DESCRIBED = (16, 16)  # FREEZE_PAGE with plans (16); 17 folded freezing into the PRUNE_* records
INFOBITS = {bit: name.removeprefix("XLHL_XMAX_").removeprefix("XLHL_")
            for bit, name in ENUMS["xlog_records::infobits"].items()}
INPLACE_WITH_INVALS_SINCE = 18      # heap INPLACE carries invalidation messages from 18
FREEZE_PAGE_10 = unpacker("xlog_records::xl_heap_freeze_page_10")
KEY_VALUE_WORDS_SINCE = 16          # 16 reworded heapdesc.c


def infobits(bits: int) -> str:
    return "[" + ", ".join(name for bit, name in INFOBITS.items() if bits & bit) + "]"


def out_infobits(bits: int) -> str:
    """heapdesc.c's out_infobits before 16: each name followed by a space."""
    return "".join(f"{name} " for bit, name in INFOBITS.items() if bits & bit)


def _describe_15(name: str, data: bytes) -> str | None:
    if name == "INSERT":
        off, flags = INSERT.unpack_from(data)
        return f"off {off} flags 0x{flags:02X}"
    if name == "DELETE":
        _, off, bits, flags = DELETE.unpack_from(data)
        return f"off {off} flags 0x{flags:02X} {out_infobits(bits)}"
    if name in ("UPDATE", "HOT_UPDATE"):
        old_xmax, old_off, old_bits, flags, new_xmax, new_off = UPDATE.unpack_from(data)
        return f"off {old_off} xmax {old_xmax} flags 0x{flags:02X} {out_infobits(old_bits)}; new off {new_off} xmax {new_xmax}"
    if name == "LOCK":
        xmax, off, bits, flags = LOCK.unpack_from(data)
        return f"off {off}: xid {xmax}: flags 0x{flags:02X} {out_infobits(bits)}"
    if name == "INPLACE":
        return f"off {INPLACE.unpack_from(data)[0]}"
    return None


def _describe2_15(name: str, data: bytes) -> str | None:
    if name == "PRUNE":
        horizon, nredirected, ndead = PRUNE_16.unpack_from(data)
        return f"latestRemovedXid {horizon} nredirected {nredirected} ndead {ndead}"
    if name == "VACUUM":
        return f"nunused {VACUUM_14.unpack_from(data)[0]}"
    if name == "FREEZE_PAGE":
        cutoff, ntuples = FREEZE_PAGE_10.unpack_from(data)
        return f"cutoff xid {cutoff} ntuples {ntuples}"
    if name == "VISIBLE":
        cutoff, flags = VISIBLE.unpack_from(data)
        return f"cutoff xid {cutoff} flags 0x{flags:02X}"
    if name in ("MULTI_INSERT", "MULTI_INSERT+INIT"):
        flags, ntuples = MULTI_INSERT.unpack_from(data)
        return f"{ntuples} tuples flags 0x{flags:02X}"
    return None


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info).removesuffix("+INIT")
    data = rec.main_data
    if major < KEY_VALUE_WORDS_SINCE:
        return _describe_15(name, data)
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


def _plans(data: bytes, at: int, nplans: int, offsets_at: int) -> tuple[str, int]:
    """The freeze plans as heapdesc.c's plan_elem_desc prints them, each with its tuples' offsets (which follow
    all plans, from ``offsets_at``); and where the offsets end."""
    parts = []
    for i in range(nplans):
        xmax, infomask2, infomask, _, ntuples = FREEZE_PLAN.unpack_from(data, at + i * FREEZE_PLAN.size)
        offs = offsets(data, offsets_at, ntuples)
        offsets_at += 2 * ntuples
        parts.append(f"{{ xmax: {xmax}, infomask: {infomask}, infomask2: {infomask2}, ntuples: {ntuples}, "
                     f"offsets: {array_text(offs)} }}")
    return "[" + ", ".join(parts) + "]", offsets_at


def _prune_17(rec: Record) -> str:
    """PRUNE_ON_ACCESS / PRUNE_VACUUM_SCAN / PRUNE_VACUUM_CLEANUP (heap_xlog_deserialize_prune_and_freeze)."""
    data = rec.main_data
    _, flags = PRUNE_17.unpack_from(data)
    text = ""
    if flags & XLHP["XLHP_HAS_CONFLICT_HORIZON"]:
        text = f"snapshotConflictHorizon: {struct.unpack_from('<I', data, PRUNE_17.size)[0]}"
    text += f", isCatalogRel: {'T' if flags & XLHP['XLHP_IS_CATALOG_REL'] else 'F'}"
    block = rec.block(0)
    if block is None or not block.data_length:
        return text
    bd = rec.block_data(block)
    pos, nplans, plans_at = 0, 0, 0
    if flags & XLHP["XLHP_HAS_FREEZE_PLANS"]:
        (nplans,) = FREEZE_PLANS.unpack_from(bd, 0)
        plans_at = FREEZE_PLANS.size
        pos = plans_at + nplans * FREEZE_PLAN.size
    lists = {}
    for name, width in (("XLHP_HAS_REDIRECTIONS", 2), ("XLHP_HAS_DEAD_ITEMS", 1), ("XLHP_HAS_NOW_UNUSED_ITEMS", 1)):
        n = 0
        if flags & XLHP[name]:
            (n,) = struct.unpack_from("<H", bd, pos)
            lists[name] = offsets(bd, pos + 2, n * width)
            pos += 2 + 2 * n * width
        else:
            lists[name] = ()
    redirected, dead, unused = (lists[k] for k in ("XLHP_HAS_REDIRECTIONS", "XLHP_HAS_DEAD_ITEMS",
                                                     "XLHP_HAS_NOW_UNUSED_ITEMS"))
    text += (f", nplans: {nplans}, nredirected: {len(redirected) // 2}, ndead: {len(dead)}, "
             f"nunused: {len(unused)}")
    if nplans:
        text += ", plans: " + _plans(bd, plans_at, nplans, pos)[0]
    if redirected:
        text += ", redirected: [" + ", ".join(f"{a}->{b}" for a, b in zip(redirected[::2], redirected[1::2])) + "]"
    if dead:
        text += f", dead: {array_text(dead)}"
    if unused:
        text += f", unused: {array_text(unused)}"
    return text


def describe2(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if major < KEY_VALUE_WORDS_SINCE:
        return _describe2_15(name, rec.main_data)
    if name == "VISIBLE":
        horizon, flags = VISIBLE.unpack_from(rec.main_data)
        return f"snapshotConflictHorizon: {horizon}, flags: 0x{flags:02X}"
    if name == "MULTI_INSERT" or name == "MULTI_INSERT+INIT":
        flags, ntuples = MULTI_INSERT.unpack_from(rec.main_data)
        text = f"ntuples: {ntuples}, flags: 0x{flags:02X}"
        block = rec.block(0)
        if block is not None and block.data_length and name == "MULTI_INSERT":
            text += ", offsets: " + array_text(offsets(rec.main_data, MULTI_INSERT.size, ntuples))
        return text
    if name.startswith("PRUNE_"):
        return _prune_17(rec)
    if name == "FREEZE_PAGE" and FREEZE_PLANS_DESCRIBED[0] <= major <= FREEZE_PLANS_DESCRIBED[1]:
        horizon, nplans = FREEZE_PAGE_16.unpack_from(rec.main_data)
        text = f"snapshotConflictHorizon: {horizon}, nplans: {nplans}"
        block = rec.block(0)
        if block is not None and block.data_length:
            text += ", plans: " + _plans(rec.block_data(block), 0, nplans, nplans * FREEZE_PLAN.size)[0]
        return text
    lo, hi = PRUNE_VACUUM_SPLIT
    if lo <= major <= hi and name in ("PRUNE", "VACUUM"):
        block = rec.block(0)
        data = rec.block_data(block) if block is not None else b""
        if name == "VACUUM":
            (nunused,) = VACUUM_14.unpack_from(rec.main_data)
            return f"nunused: {nunused}" + (", unused: " + array_text(offsets(data, 0, nunused)) if data else "")
        horizon, nredirected, ndead = PRUNE_16.unpack_from(rec.main_data)
        text = f"snapshotConflictHorizon: {horizon}, nredirected: {nredirected}, ndead: {ndead}"
        if data:
            items = offsets(data, 0, len(data) // 2)
            redirected = items[:2 * nredirected]
            dead = items[2 * nredirected:2 * nredirected + ndead]
            unused = items[2 * nredirected + ndead:]
            text += (f", nunused: {len(unused)}, redirected: ["
                     + ", ".join(f"{a}->{b}" for a, b in zip(redirected[::2], redirected[1::2]))
                     + f"], dead: {array_text(dead)}, unused: {array_text(unused)}")
        return text
    return None
