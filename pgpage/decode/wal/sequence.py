"""Sequence records described as seqdesc.c words them: LOG names the sequence's relation file."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

SEQ = unpacker("xlog_records::xl_seq_rec")


def describe(rec: Record, major: int) -> str | None:
    if versions.wal_record_type(major, rec.rmid, rec.info) == "LOG":
        return "rel {}/{}/{}".format(*SEQ.unpack_from(rec.main_data))
    return None
