"""BRIN records described as brindesc.c words them: SAMEPAGE_UPDATE."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

SAMEPAGE_UPDATE = unpacker("xlog_records::xl_brin_samepage_update")


def describe(rec: Record, major: int) -> str | None:
    if versions.wal_record_type(major, rec.rmid, rec.info) == "SAMEPAGE_UPDATE":
        return f"offnum {SAMEPAGE_UPDATE.unpack_from(rec.main_data)[0]}"
    return None
