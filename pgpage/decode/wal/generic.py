"""Generic WAL records (generic_xlog.c, written by extensions such as bloom) described as genericdesc.c words
them: the (offset, length) of each change in the main data; the changes themselves are block data, so the
records of this era have no main data and say nothing."""
from __future__ import annotations

import struct

from pgpage.decode.wal.record import Record


def describe(rec: Record, major: int) -> str | None:
    data, pos, parts = rec.main_data, 0, []
    while pos + 4 <= len(data):
        offset, length = struct.unpack_from("<HH", data, pos)
        parts.append(f"offset {offset}, length {length}")
        pos += 4 + length
    return "; ".join(parts)
