"""Storage (smgr) records: CREATE and TRUNCATE described as pg_waldump words them."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import FORK_NAMES, Record, unpacker

CREATE = unpacker("xlog_records::xl_smgr_create")
TRUNCATE = unpacker("xlog_records::xl_smgr_truncate")
GLOBALTABLESPACE_OID, DEFAULTTABLESPACE_OID = 1664, 1663


def relpath(spc: int, db: int, rel: int, fork: int = 0) -> str:
    """``relpathperm`` of common/relpath.c (tablespaces other than the two built in: pg_tblspc/..., with the
    catalog version directory pgpage does not know here, so only the OIDs)."""
    suffix = "" if fork == 0 else f"_{FORK_NAMES[fork] if 0 <= fork < len(FORK_NAMES) else fork}"
    if spc == GLOBALTABLESPACE_OID:
        return f"global/{rel}{suffix}"
    if spc == DEFAULTTABLESPACE_OID:
        return f"base/{db}/{rel}{suffix}"
    return f"pg_tblspc/{spc}/{db}/{rel}{suffix}"


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    if name == "CREATE":
        spc, db, rel, fork = CREATE.unpack_from(rec.main_data)
        return relpath(spc, db, rel, fork)
    if name == "TRUNCATE":
        blkno, spc, db, rel, flags = TRUNCATE.unpack_from(rec.main_data)
        return f"{relpath(spc, db, rel)} to {blkno} blocks flags {flags}"
    return None
