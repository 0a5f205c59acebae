"""Database records (15+: CREATE_FILE_COPY, CREATE_WAL_LOG, DROP) described as pg_waldump words them."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

CREATE_FILE_COPY = unpacker("xlog_records::xl_dbase_create_file_copy_rec")
CREATE_WAL_LOG = unpacker("xlog_records::xl_dbase_create_wal_log_rec")
DROP = unpacker("xlog_records::xl_dbase_drop_rec")
DESCRIBED_SINCE = 15        # the record layouts described here are those of 15+ (DROP's changed then)


def describe(rec: Record, major: int) -> str | None:
    if major < DESCRIBED_SINCE:
        return None
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "CREATE_FILE_COPY":
        db, ts, src_db, src_ts = CREATE_FILE_COPY.unpack_from(data)
        return f"copy dir {src_ts}/{src_db} to {ts}/{db}"
    if name == "CREATE_WAL_LOG":
        db, ts = CREATE_WAL_LOG.unpack_from(data)
        return f"create dir {ts}/{db}"
    if name == "DROP":
        db, n = DROP.unpack_from(data)
        return "dir" + "".join(f" {ts}/{db}" for ts in struct.unpack_from(f"<{n}I", data, DROP.size))
    return None
