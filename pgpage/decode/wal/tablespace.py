"""Tablespace records described as tblspcdesc.c words them: CREATE with its directory, DROP."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

TBLSPC = unpacker("xlog_records::xl_tblspc_rec")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    (ts_id,) = TBLSPC.unpack_from(data)
    if name == "CREATE":
        path = data[TBLSPC.size:].split(b"\0", 1)[0].decode("utf-8", "replace")
        return f'{ts_id} "{path}"'
    if name == "DROP":
        return str(ts_id)
    return None
