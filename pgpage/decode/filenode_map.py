"""Decode ``pg_filenode.map`` (RelMapFile): where the mapped catalogs keep their data.

Mapped catalogs (pg_class, pg_attribute, pg_proc, pg_type, their indexes and TOAST tables, and the
shared catalogs such as pg_database) have ``pg_class.relfilenode = 0``; their file name comes from
this map instead: ``global/pg_filenode.map`` for the shared ones, ``base/<dboid>/pg_filenode.map``
for the rest. Layout: ``formats/pg_filenode_map.ksy`` (512 bytes up to PG 15, 524 from PG 16,
told apart by the size).

``decode_filenode_map(data)`` returns::

    {"size": 512 | 524, "layout": "pg10-15" | "pg16+", "magic": int, "magic_ok": bool,
     "num_mappings": int (as stored), "max_mappings": 62 | 64,
     "mappings": [(mapoid, mapfilenode), ...]   (the first num_mappings, clamped to 0..max),
     "crc_offset", "crc_stored", "crc_computed", "crc_ok",
     "findings": [Finding.to_json(), ...]}

A damaged map still decodes (bad magic, CRC mismatch, num_mappings out of range, a slot in use
with a zero OID or file number are findings); only a size that is neither layout raises
DecodeError.
"""
from __future__ import annotations

from kaitaistruct import KaitaiStream, BytesIO

from pgpage.decode.crc32c import crc32c
from pgpage.decode.errors import DecodeError
from pgpage.decode.ksy.pg_filenode_map import PgFilenodeMap
from pgpage.findings import WARNING, Finding

SIZES = {512: "pg10-15", 524: "pg16+"}


def decode_filenode_map(data: bytes | bytearray | memoryview) -> dict:
    data = bytes(data)
    if len(data) not in SIZES:
        raise DecodeError(f"not a pg_filenode.map file: {len(data)} bytes, expected 512 (PostgreSQL 10-15) "
                          "or 524 (16+)")
    parsed = PgFilenodeMap(KaitaiStream(BytesIO(data)))
    used = parsed.num_mappings_clamped
    mappings = [(m.mapoid, m.mapfilenode) for m in parsed.mappings[:used]]
    computed = crc32c(data[:parsed.crc_offset])
    out = {
        "size": len(data),
        "layout": SIZES[len(data)],
        "magic": parsed.magic,
        "magic_ok": parsed.magic == parsed.relmapper_filemagic,
        "num_mappings": parsed.num_mappings,
        "max_mappings": parsed.max_mappings,
        "mappings": mappings,
        "crc_offset": parsed.crc_offset,
        "crc_stored": parsed.crc,
        "crc_computed": computed,
        "crc_ok": computed == parsed.crc,
    }
    findings = []
    if not out["magic_ok"]:
        findings.append(Finding("filenode_map.bad_magic", "pg_filenode.map magic is wrong",
                                expected=f"{parsed.relmapper_filemagic:#x}", actual=f"{parsed.magic:#x}"))
    if not out["crc_ok"]:
        findings.append(Finding("filenode_map.crc.mismatch", "pg_filenode.map CRC-32C does not match its contents",
                                expected=f"{parsed.crc:08x}", actual=f"{computed:08x}"))
    if parsed.num_mappings != used:
        findings.append(Finding("filenode_map.num_mappings.out_of_range",
                                f"num_mappings {parsed.num_mappings} is outside 0..{parsed.max_mappings}; "
                                f"reading {used}", expected=f"0..{parsed.max_mappings}",
                                actual=parsed.num_mappings))
    for i, (oid, filenode) in enumerate(mappings):
        if oid == 0 or filenode == 0:
            findings.append(Finding("filenode_map.mapping.zero", f"mapping {i} has a zero OID or file number",
                                    severity=WARNING, item=i, actual=[oid, filenode]))
    out["findings"] = [f.to_json() for f in findings]
    return out
