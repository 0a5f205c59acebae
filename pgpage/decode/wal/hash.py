"""Hash index records described as hashdesc.c words them (the same in every major 10 to 18, where hash
indexes became WAL-logged)."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, tf, unpacker

INSERT = unpacker("xlog_records::xl_hash_insert")
DELETE = unpacker("xlog_records::xl_hash_delete")
UPDATE_META_PAGE = unpacker("xlog_records::xl_hash_update_meta_page")


def c_g(value: float) -> str:
    """A double as C's ``%g`` prints it (6 significant digits, the shorter of %e and %f)."""
    return f"{value:g}"


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "INSERT":
        return f"off {INSERT.unpack_from(data)[0]}"
    if name == "DELETE":
        clear_dead, primary = DELETE.unpack_from(data)
        return f"clear_dead_marking {tf(clear_dead)}, is_primary {tf(primary)}"
    if name == "UPDATE_META_PAGE":
        return f"ntuples {c_g(UPDATE_META_PAGE.unpack_from(data)[0])}"
    return None
