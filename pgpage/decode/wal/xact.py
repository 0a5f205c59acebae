"""Transaction records: COMMIT and ABORT (ParseCommitRecord / ParseAbortRecord of access/transam/xactdesc.c)
described as pg_waldump 16+ words them: the time, then the relations dropped, subtransactions, dropped
statistics and invalidation messages. Other transaction records get no description here."""
from __future__ import annotations

import datetime as _dt
import struct
from dataclasses import dataclass, field

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.wal.record import REL_FILE_NODE, Record
from pgpage.decode.wal.smgr import relpath
from pgpage.decode.wal.standby import MESSAGE, invalidations

XINFO = {name: bit for bit, name in ENUMS["xlog_records::xact_xinfo"].items()}
XLOG_XACT_HAS_INFO = 0x80            # xl_info bit: an xl_xact_xinfo follows xact_time (access/xact.h)
POSTGRES_EPOCH = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)
DROPPED_STATS_ITEM_SIZE = {15: 12, 16: 12, 17: 12, 18: 16}   # xl_xact_stats_item: objoid became uint64 in 18


def timestamptz(usecs: int) -> str:
    """A TimestampTz as the server prints it in UTC: trailing zeros of the fraction dropped."""
    t = POSTGRES_EPOCH + _dt.timedelta(microseconds=usecs)
    frac = f".{t.microsecond:06d}".rstrip("0").rstrip(".")
    return t.strftime("%Y-%m-%d %H:%M:%S") + frac + "+00"


@dataclass
class ParsedXact:
    """What a COMMIT, ABORT, COMMIT_PREPARED or ABORT_PREPARED record says (xl_xact_parsed_commit)."""
    name: str
    xact_time: int
    xinfo: int
    db: int = 0
    ts: int = 0
    subxacts: tuple[int, ...] = ()
    rels: list = field(default_factory=list)
    stats: list = field(default_factory=list)
    nmsgs: int = 0
    msgs_at: int = 0
    twophase_xid: int | None = None     # the prepared transaction a *_PREPARED record ends

    def xids(self, rec: Record) -> list[int]:
        """The transactions whose fate the record decides: the prepared one (else the record's own), then its
        subtransactions."""
        return [rec.xid if self.twophase_xid is None else self.twophase_xid, *self.subxacts]


def parse(rec: Record, major: int) -> ParsedXact | None:
    """ParseCommitRecord / ParseAbortRecord: the parts of a transaction's end record, in their order (database,
    subtransactions, relations to drop, dropped statistics 15+, invalidations, the prepared transaction); None
    for other records."""
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name not in ("COMMIT", "ABORT", "COMMIT_PREPARED", "ABORT_PREPARED"):
        return None
    data = rec.main_data
    (xact_time,) = struct.unpack_from("<q", data)
    pos, xinfo = 8, 0
    if rec.info & XLOG_XACT_HAS_INFO:
        (xinfo,) = struct.unpack_from("<I", data, pos)
        pos += 4
    x = ParsedXact(name, xact_time, xinfo)
    if xinfo & XINFO["XACT_XINFO_HAS_DBINFO"]:
        x.db, x.ts = struct.unpack_from("<II", data, pos)
        pos += 8
    if xinfo & XINFO["XACT_XINFO_HAS_SUBXACTS"]:
        (n,) = struct.unpack_from("<i", data, pos)
        x.subxacts = struct.unpack_from(f"<{n}I", data, pos + 4)
        pos += 4 + 4 * n
    if xinfo & XINFO["XACT_XINFO_HAS_RELFILENODES"]:
        (n,) = struct.unpack_from("<i", data, pos)
        x.rels = [REL_FILE_NODE.unpack_from(data, pos + 4 + i * REL_FILE_NODE.size) for i in range(n)]
        pos += 4 + n * REL_FILE_NODE.size
    if xinfo & XINFO["XACT_XINFO_HAS_DROPPED_STATS"] and major >= 15:
        (n,) = struct.unpack_from("<i", data, pos)
        size = DROPPED_STATS_ITEM_SIZE[major]
        x.stats = [struct.unpack_from("<iIQ" if size == 16 else "<iII", data, pos + 4 + i * size) for i in range(n)]
        pos += 4 + n * size
    if xinfo & XINFO["XACT_XINFO_HAS_INVALS"]:
        (x.nmsgs,) = struct.unpack_from("<i", data, pos)
        x.msgs_at = pos + 4
        pos += 4 + x.nmsgs * MESSAGE.size      # SharedInvalidationMessage
    if xinfo & XINFO["XACT_XINFO_HAS_TWOPHASE"]:
        (x.twophase_xid,) = struct.unpack_from("<I", data, pos)
    return x


def describe(rec: Record, major: int) -> str | None:
    x = parse(rec, major)
    if x is None or x.name not in ("COMMIT", "ABORT"):
        return None
    text = timestamptz(x.xact_time)
    if x.rels:
        text += "; rels:" + "".join(f" {relpath(*r)}" for r in x.rels)
    if x.subxacts:
        text += "; subxacts:" + "".join(f" {sub}" for sub in x.subxacts)
    if x.stats:
        text += "; dropped stats:" + "".join(f" {k}/{d}/{o}" for k, d, o in x.stats)
    if x.nmsgs and x.name == "COMMIT":
        text += invalidations(rec.main_data, x.msgs_at, x.nmsgs, x.db, x.ts,
                              bool(x.xinfo & XINFO["XACT_COMPLETION_UPDATE_RELCACHE_FILE"]))
    if x.xinfo & XINFO["XACT_COMPLETION_APPLY_FEEDBACK"]:
        text += "; apply_feedback"
    if x.xinfo & XINFO["XACT_COMPLETION_FORCE_SYNC_COMMIT"]:
        text += "; sync"
    return text
