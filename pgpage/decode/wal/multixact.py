"""MultiXact records described as mxactdesc.c words them: the SLRU page zeroed (an int64 from 17, int
before), and a new multixact with its members and their lock modes."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.wal.record import Record, unpacker

CREATE = unpacker("xlog_records::xl_multixact_create")
MEMBER = unpacker("xlog_records::xl_multixact_member")
_STATUS = {name: value for value, name in ENUMS["xlog_records::multixact_status"].items()}
STATUS_WORDS = {_STATUS["MultiXactStatusForKeyShare"]: "keysh", _STATUS["MultiXactStatusForShare"]: "sh",
                _STATUS["MultiXactStatusForNoKeyUpdate"]: "fornokeyupd", _STATUS["MultiXactStatusForUpdate"]: "forupd",
                _STATUS["MultiXactStatusNoKeyUpdate"]: "nokeyupd", _STATUS["MultiXactStatusUpdate"]: "upd"}
PAGENO_INT64_SINCE = 17


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name in ("ZERO_OFF_PAGE", "ZERO_MEM_PAGE"):
        return str(struct.unpack_from("<q" if major >= PAGENO_INT64_SINCE else "<i", data)[0])
    if name == "CREATE_ID":
        mid, moff, n = CREATE.unpack_from(data)
        members = (MEMBER.unpack_from(data, CREATE.size + i * MEMBER.size) for i in range(n))
        return f"{mid} offset {moff} nmembers {n}: " + "".join(
            f"{xid} ({STATUS_WORDS.get(status, 'unk')}) " for xid, status in members)
    return None
