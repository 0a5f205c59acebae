"""Standby records: RUNNING_XACTS and LOCK described as pg_waldump words them."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

RUNNING_XACTS = unpacker("xlog_records::xl_running_xacts")
LOCK = unpacker("xlog_records::xl_standby_lock")
INVALIDATIONS = unpacker("xlog_records::xl_invalidations")
MESSAGE = unpacker("xlog_records::shared_invalidation_message")     # id, dbId, relId
MESSAGE_KINDS = {-1: "catalog", -2: "relcache", -3: "smgr", -4: "relmap", -5: "snapshot"}   # storage/sinval.h


def invalidations(data: bytes, at: int, nmsgs: int, db: int, ts: int, init_file: bool) -> str:
    """standby_desc_invalidations: "; inval msgs: catcache 55 relcache 16397 ...", the relcache init file's
    invalidation first."""
    text = f"; relcache init file inval dbid {db} tsid {ts}" if init_file else ""
    text += "; inval msgs:"
    for i in range(nmsgs):
        kind, msg_db, rel = MESSAGE.unpack_from(data, at + i * MESSAGE.size)
        name = MESSAGE_KINDS.get(kind)
        if kind >= 0:
            text += f" catcache {kind}"
        elif name in ("catalog", "relcache", "snapshot"):
            text += f" {name} {rel}"
        elif name == "smgr":
            text += " smgr"
        elif name == "relmap":
            text += f" relmap db {msg_db}"
        else:
            text += f" unrecognized id {kind}"
    return text


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "RUNNING_XACTS":
        xcnt, subxcnt, overflow, next_xid, oldest, latest = RUNNING_XACTS.unpack_from(data)
        text = f"nextXid {next_xid} latestCompletedXid {latest} oldestRunningXid {oldest}"
        xids = struct.unpack_from(f"<{xcnt + subxcnt}I", data, RUNNING_XACTS.size)
        if xcnt:
            text += f"; {xcnt} xacts:" + "".join(f" {x}" for x in xids[:xcnt])
        if overflow:
            text += "; subxid overflowed"
        elif subxcnt:
            text += f"; {subxcnt} subxacts:" + "".join(f" {x}" for x in xids[xcnt:])
        return text
    if name == "INVALIDATIONS":
        db, ts, init_file, nmsgs = INVALIDATIONS.unpack_from(data)
        return invalidations(data, INVALIDATIONS.size, nmsgs, db, ts, bool(init_file)) if nmsgs else ""
    if name == "LOCK":
        (nlocks,) = struct.unpack_from("<i", data)
        locks = (LOCK.unpack_from(data, 4 + i * LOCK.size) for i in range(nlocks))
        return "".join(f"xid {xid} db {db} rel {rel} " for xid, db, rel in locks)
    return None
