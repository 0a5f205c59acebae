"""XLOG records: checkpoints (their CheckPoint: pg_control.ksy's layout up to 16, xlog_records.ksy's from 17),
CHECKPOINT_REDO and NEXTOID described as pg_waldump 16+ words them; FPI, FPI_FOR_HINT and SWITCH are described
with nothing (xlogdesc.c has nothing to add for them)."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.control import format_lsn
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.wal.record import Record, unpacker
from pgpage.decode.wal.xact import timestamptz

WAL_LEVEL_IN_CHECKPOINT_SINCE = 17
END_OF_RECOVERY = unpacker("xlog_records::xl_end_of_recovery")
RESTORE_POINT = unpacker("xlog_records::xl_restore_point")
WAL_LEVELS = {k: v.removeprefix("WAL_LEVEL_").lower() for k, v in ENUMS["pg_control::wal_level"].items()}


def _checkpoint_type(major: int) -> str:
    if major >= WAL_LEVEL_IN_CHECKPOINT_SINCE:
        return "xlog_records::check_point_v1700"
    return "pg_control::check_point_v1201" if major >= 12 else "pg_control::check_point_v1002"


def _field(data: bytes, type_name: str, name: str) -> int:
    off, kind = LAYOUTS[type_name]["fields"][name]
    return struct.unpack_from({"u1": "<B", "u4": "<I", "s4": "<i", "u8": "<Q", "s8": "<q"}[kind], data, off)[0]


def checkpoint(data: bytes, major: int, online: bool) -> str:
    t = _checkpoint_type(major)
    f = lambda name: _field(data, t, name)  # noqa: E731
    if "next_full_xid" in LAYOUTS[t]["fields"]:
        epoch, xid = f("next_full_xid") >> 32, f("next_full_xid") & 0xFFFFFFFF
    else:
        epoch, xid = f("next_xid_epoch"), f("next_xid")
    level = ""
    if major >= WAL_LEVEL_IN_CHECKPOINT_SINCE:
        level = f"wal_level {WAL_LEVELS.get(f('wal_level'), f('wal_level'))}; "
    return (f"redo {format_lsn(f('redo'))}; tli {f('this_time_line_id')}; prev tli {f('prev_time_line_id')}; "
            f"fpw {'true' if f('full_page_writes') else 'false'}; {level}xid {epoch}:{xid}; oid {f('next_oid')}; "
            f"multi {f('next_multi')}; offset {f('next_multi_offset')}; oldest xid {f('oldest_xid')} in DB "
            f"{f('oldest_xid_db')}; oldest multi {f('oldest_multi')} in DB {f('oldest_multi_db')}; oldest/newest "
            f"commit timestamp xid: {f('oldest_commit_ts_xid')}/{f('newest_commit_ts_xid')}; oldest running xid "
            f"{f('oldest_active_xid')}; {'online' if online else 'shutdown'}")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name in ("CHECKPOINT_ONLINE", "CHECKPOINT_SHUTDOWN"):
        return checkpoint(rec.main_data, major, name == "CHECKPOINT_ONLINE")
    if name == "CHECKPOINT_REDO":
        level = struct.unpack_from("<i", rec.main_data)[0]
        return f"wal_level {WAL_LEVELS.get(level, level)}"
    if name == "END_OF_RECOVERY" and major < WAL_LEVEL_IN_CHECKPOINT_SINCE:     # (17 adds its wal_level)
        end_time, tli, prev = END_OF_RECOVERY.unpack_from(rec.main_data)
        return f"tli {tli}; prev tli {prev}; time {timestamptz(end_time)}"
    if name == "RESTORE_POINT":
        return rec.main_data[RESTORE_POINT.size:].split(b"\0", 1)[0].decode("utf-8", "replace")
    if name in ("FPI", "FPI_FOR_HINT", "SWITCH"):
        return ""
    if name == "NEXTOID":
        return str(struct.unpack_from("<I", rec.main_data)[0])
    return None
