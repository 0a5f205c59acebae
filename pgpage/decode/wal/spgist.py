"""SP-GiST records described as spgdesc.c words them: ADD_LEAF and VACUUM_ROOT."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

ADD_LEAF = unpacker("xlog_records::xl_spgist_add_leaf")
VACUUM_ROOT = unpacker("xlog_records::xl_spgist_vacuum_root")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "ADD_LEAF":
        new_page, nulls, leaf, head, parent, node = ADD_LEAF.unpack_from(data)
        return (f"off: {leaf}, headoff: {head}, parentoff: {parent}, nodeI: {node}"
                + (" (newpage)" if new_page else "") + (" (nulls)" if nulls else ""))
    if name == "VACUUM_ROOT":
        return f"ndelete: {VACUUM_ROOT.unpack_from(data)[0]}"
    return None
