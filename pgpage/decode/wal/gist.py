"""GiST records described as gistdesc.c words them: PAGE_UPDATE says nothing more."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record


def describe(rec: Record, major: int) -> str | None:
    return "" if versions.wal_record_type(major, rec.rmid, rec.info) == "PAGE_UPDATE" else None
