"""Btree records: main data (formats/xlog_records.ksy) and descriptions as pg_waldump 16+ words them."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

INSERT = unpacker("xlog_records::xl_btree_insert")
NEWROOT = unpacker("xlog_records::xl_btree_newroot")
VACUUM = unpacker("xlog_records::xl_btree_vacuum_13")
VACUUM_COUNTS_SINCE = 13          # xl_btree_vacuum holds ndeleted/nupdated from 13 (lastBlockVacuumed before)


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name in ("INSERT_LEAF", "INSERT_UPPER", "INSERT_META"):
        return f"off: {INSERT.unpack_from(data)[0]}"
    if name == "NEWROOT":
        return f"level: {NEWROOT.unpack_from(data)[1]}"
    if name == "VACUUM" and major >= VACUUM_COUNTS_SINCE:
        ndeleted, nupdated = VACUUM.unpack_from(data)
        return f"ndeleted: {ndeleted}, nupdated: {nupdated}"
    return None
