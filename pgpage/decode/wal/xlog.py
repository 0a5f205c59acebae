"""XLOG records: the ones pg_waldump gives no description (FPI, FPI_FOR_HINT, SWITCH) and the checkpoint's
are left to pg_waldump's own words; here only what is plain: none of them carries main data worth a
sentence except NEXTOID (the next OID) and the checkpoints, which pgpage does not describe yet."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name == "NEXTOID":
        return str(struct.unpack_from("<I", rec.main_data)[0])
    return None
