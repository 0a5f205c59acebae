"""ReplicationOrigin records described as replorigindesc.c words them: SET (an origin's progress) and DROP."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.control import format_lsn
from pgpage.decode.wal.record import Record, unpacker

SET = unpacker("xlog_records::xl_replorigin_set")
DROP = unpacker("xlog_records::xl_replorigin_drop")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name == "SET":
        lsn, node, force = SET.unpack_from(rec.main_data)
        return f"set {node}; lsn {format_lsn(lsn)}; force: {force}"
    if name == "DROP":
        return f"drop {DROP.unpack_from(rec.main_data)[0]}"
    return None
