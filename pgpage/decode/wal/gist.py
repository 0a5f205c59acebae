"""GiST records described as gistdesc.c words them: PAGE_UPDATE says nothing more, PAGE_SPLIT the number of
pages, PAGE_DELETE the deleting xid and the parent's downlink."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

PAGE_SPLIT = unpacker("xlog_records::xl_gist_page_split")
PAGE_DELETE = unpacker("xlog_records::xl_gist_page_delete")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "PAGE_UPDATE":
        return ""
    if name == "PAGE_SPLIT":
        return f"page_split: splits to {PAGE_SPLIT.unpack_from(data)[3]} pages"
    if name == "PAGE_DELETE":
        xid, downlink = PAGE_DELETE.unpack_from(data)
        return f"deleteXid {xid >> 32}:{xid & 0xFFFFFFFF}; downlink {downlink}"
    return None
