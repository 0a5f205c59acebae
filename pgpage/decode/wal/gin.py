"""GIN records described as gindesc.c words them: INSERT on an entry page (its children when not a leaf, or
that a full-page image stands for it), DELETE_LISTPAGE, and the records it describes with nothing."""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, tf, unpacker

INSERT = unpacker("xlog_records::xl_gin_insert")
INSERT_ENTRY = unpacker("xlog_records::xl_gin_insert_entry")
DELETE_LIST_PAGES = unpacker("xlog_records::xl_gin_delete_list_pages")
GIN_INSERT_ISDATA, GIN_INSERT_ISLEAF = 0x01, 0x02          # access/ginxlog.h
NOTHING_TO_SAY = ("UPDATE_META_PAGE", "INSERT_LISTPAGE", "VACUUM_PAGE")


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name in NOTHING_TO_SAY:
        return ""
    if name == "DELETE_LISTPAGE":
        return f"ndeleted: {DELETE_LIST_PAGES.unpack_from(data)[0]}"     # (the metapage is skipped)
    if name != "INSERT":
        return None
    (flags,) = INSERT.unpack_from(data)
    text = f"isdata: {tf(flags & GIN_INSERT_ISDATA)} isleaf: {tf(flags & GIN_INSERT_ISLEAF)}"
    if not flags & GIN_INSERT_ISLEAF:
        hi, lo, right = struct.unpack_from("<HHI", data, INSERT.size)    # BlockIdData, then a BlockNumber
        text += f" children: {hi << 16 | lo}/{right}"
    block = rec.block(0)
    if block is not None and block.has_image:
        return text + (" (full page image)" if block.apply_image else " (full page image, for WAL verification)")
    if flags & GIN_INSERT_ISDATA:
        return None                  # a posting tree page's change (desc_recompress_leaf): not described here
    return text + f" isdelete: {tf(INSERT_ENTRY.unpack_from(rec.block_data(block))[1])}"
