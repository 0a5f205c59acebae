"""RelMap records described as relmapdesc.c words them: UPDATE of a database's (or the shared) map."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

UPDATE = unpacker("xlog_records::xl_relmap_update")


def describe(rec: Record, major: int) -> str | None:
    if versions.wal_record_type(major, rec.rmid, rec.info) == "UPDATE":
        return "database {} tablespace {} size {}".format(*UPDATE.unpack_from(rec.main_data))
    return None
