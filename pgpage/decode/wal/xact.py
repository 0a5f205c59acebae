"""Transaction records: COMMIT and ABORT (ParseCommitRecord / ParseAbortRecord of access/transam/xactdesc.c)
described as pg_waldump 16+ words them: the time, then the relations dropped, subtransactions, dropped
statistics and invalidation messages. Other transaction records get no description here."""
from __future__ import annotations

import datetime as _dt
import struct

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.wal.record import REL_FILE_NODE, Record
from pgpage.decode.wal.smgr import relpath
from pgpage.decode.wal.standby import invalidations

XINFO = {name: bit for bit, name in ENUMS["xlog_records::xact_xinfo"].items()}
XLOG_XACT_HAS_INFO = 0x80            # xl_info bit: an xl_xact_xinfo follows xact_time (access/xact.h)
POSTGRES_EPOCH = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)
DROPPED_STATS_ITEM_SIZE = {15: 12, 16: 12, 17: 12, 18: 16}   # xl_xact_stats_item: objoid became uint64 in 18


def timestamptz(usecs: int) -> str:
    """A TimestampTz as the server prints it in UTC: trailing zeros of the fraction dropped."""
    t = POSTGRES_EPOCH + _dt.timedelta(microseconds=usecs)
    frac = f".{t.microsecond:06d}".rstrip("0").rstrip(".")
    return t.strftime("%Y-%m-%d %H:%M:%S") + frac + "+00"


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name not in ("COMMIT", "ABORT"):
        return None
    data = rec.main_data
    (xact_time,) = struct.unpack_from("<q", data)
    pos, xinfo = 8, 0
    if rec.info & XLOG_XACT_HAS_INFO:
        (xinfo,) = struct.unpack_from("<I", data, pos)
        pos += 4
    db = ts = 0
    if xinfo & XINFO["XACT_XINFO_HAS_DBINFO"]:
        db, ts = struct.unpack_from("<II", data, pos)
        pos += 8
    subxacts = rels = stats = ()
    nmsgs, msgs_at = 0, 0
    if xinfo & XINFO["XACT_XINFO_HAS_SUBXACTS"]:
        (n,) = struct.unpack_from("<i", data, pos)
        subxacts = struct.unpack_from(f"<{n}I", data, pos + 4)
        pos += 4 + 4 * n
    if xinfo & XINFO["XACT_XINFO_HAS_RELFILENODES"]:
        (n,) = struct.unpack_from("<i", data, pos)
        rels = [REL_FILE_NODE.unpack_from(data, pos + 4 + i * REL_FILE_NODE.size) for i in range(n)]
        pos += 4 + n * REL_FILE_NODE.size
    if xinfo & XINFO["XACT_XINFO_HAS_DROPPED_STATS"] and major >= 15:
        (n,) = struct.unpack_from("<i", data, pos)
        size = DROPPED_STATS_ITEM_SIZE[major]
        stats = [struct.unpack_from("<iIQ" if size == 16 else "<iII", data, pos + 4 + i * size) for i in range(n)]
        pos += 4 + n * size
    if name == "COMMIT" and xinfo & XINFO["XACT_XINFO_HAS_INVALS"]:
        (nmsgs,) = struct.unpack_from("<i", data, pos)
        msgs_at = pos + 4
    text = timestamptz(xact_time)
    if rels:
        text += "; rels:" + "".join(f" {relpath(*r)}" for r in rels)
    if subxacts:
        text += "; subxacts:" + "".join(f" {x}" for x in subxacts)
    if stats:
        text += "; dropped stats:" + "".join(f" {k}/{d}/{o}" for k, d, o in stats)
    if nmsgs:
        text += invalidations(data, msgs_at, nmsgs, db, ts, bool(xinfo & XINFO["XACT_COMPLETION_UPDATE_RELCACHE_FILE"]))
    if xinfo & XINFO["XACT_COMPLETION_APPLY_FEEDBACK"]:
        text += "; apply_feedback"
    if xinfo & XINFO["XACT_COMPLETION_FORCE_SYNC_COMMIT"]:
        text += "; sync"
    return text
