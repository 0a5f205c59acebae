"""Database records described as dbasedesc.c words them: CREATE (14; CREATE_FILE_COPY from 15), CREATE_WAL_LOG
(15+) and DROP (its list of tablespaces: the same layout in 14 and 15+)."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

CREATE_FILE_COPY = unpacker("xlog_records::xl_dbase_create_file_copy_rec")
CREATE_WAL_LOG = unpacker("xlog_records::xl_dbase_create_wal_log_rec")
DROP = unpacker("xlog_records::xl_dbase_drop_rec")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name in ("CREATE", "CREATE_FILE_COPY"):
        db, ts, src_db, src_ts = CREATE_FILE_COPY.unpack_from(data)
        return f"copy dir {src_ts}/{src_db} to {ts}/{db}"
    if name == "CREATE_WAL_LOG":
        db, ts = CREATE_WAL_LOG.unpack_from(data)
        return f"create dir {ts}/{db}"
    if name == "DROP":
        db, n = DROP.unpack_from(data)
        return "dir" + "".join(f" {ts}/{db}" for ts in struct.unpack_from(f"<{n}I", data, DROP.size))
    return None
