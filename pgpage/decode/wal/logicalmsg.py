"""LogicalMessage records (pg_logical_emit_message) described as logicalmsgdesc.c words them (14+): the kind,
the prefix, and the payload's bytes in hex."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, unpacker

MESSAGE = unpacker("xlog_records::xl_logical_message")


def describe(rec: Record, major: int) -> str | None:
    if versions.wal_record_type(major, rec.rmid, rec.info) != "MESSAGE":
        return None
    data = rec.main_data
    _, transactional, prefix_size, message_size = MESSAGE.unpack_from(data)
    prefix = data[MESSAGE.size:MESSAGE.size + prefix_size].split(b"\0", 1)[0].decode("utf-8", "replace")
    payload = data[MESSAGE.size + prefix_size:MESSAGE.size + prefix_size + message_size]
    return (f"{'transactional' if transactional else 'non-transactional'}, prefix \"{prefix}\"; payload "
            f"({message_size} bytes): " + " ".join(f"{b:02X}" for b in payload))
