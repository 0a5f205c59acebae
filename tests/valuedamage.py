"""Damaged copies of real fixture tables, one value at a time (issue 39: damaged values are never data).

``where(major, table, ctid, column)`` finds a value's bytes in the table's main fork of a fixture cluster (the
tuple from the server's own ``heap_page_items``, the attribute through ``deform_tuple``); ``Damaged`` is a private
copy of the cluster whose table file can be changed there, with its page checksum recomputed (so that what is
tested is the value's decoding, not the checksum) or left as it was.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from conftest import data_dir, rel_oracle
from mutation import recompute_checksums

BLCKSZ = 8192


@dataclass(frozen=True)
class Value:
    path: str          # the table's file, relative to the data directory
    offset: int        # of the value's first byte in that file
    raw: bytes         # the value as stored (a varlena with its header)


def where(major: int, table: str, ctid: tuple[int, int], column: str) -> Value:
    """Where column ``column`` of the tuple at ``ctid`` lies in ``table``'s file (pg15's catalog for the columns)."""
    from pgpage.decode.deform import Attribute, deform_tuple
    from pgpage.decode.ksy.constants import HEAP_NATTS_MASK, SizeofHeapTupleHeader
    from pgpage.storage.datadir import open_data_directory
    oracle = rel_oracle(major, table)
    page = next(p for p in oracle["forks"]["main"] if p["blkno"] == ctid[0])
    item = next(i for i in page["heap_page_items"] if i["lp"] == ctid[1])
    rel = open_data_directory(data_dir(major)).database("pgpage").relation(table)
    attrs = [Attribute(r["attname"], r["atttypid"], r["attlen"], r["attalign"], r["attbyval"] is True,
                       r.get("attisdropped") is True) for r in rel.database.attributes(rel.oid)]
    data = (data_dir(major) / oracle["filepath"]).read_bytes()[ctid[0] * BLCKSZ:][item["lp_off"]:][:item["lp_len"]]
    bitmap = data[SizeofHeapTupleHeader:item["t_hoff"]] if item["t_bits"] else None
    d = deform_tuple(data, item["t_hoff"], item["t_infomask2"] & HEAP_NATTS_MASK, attrs, null_bitmap=bitmap)
    a = d[column]
    assert a.raw is not None, (table, ctid, column, a.status)
    return Value(oracle["filepath"], ctid[0] * BLCKSZ + item["lp_off"] + a.offset, a.raw)


class Damaged:
    """A copy of fixture cluster ``major`` in ``tmp`` whose files ``write`` changes."""

    def __init__(self, major: int, tmp: Path):
        self.data = tmp / "data"
        shutil.copytree(data_dir(major), self.data)

    def write(self, path: str, offset: int, new: bytes, fix_checksum: bool = True) -> None:
        f = self.data / path
        original = f.read_bytes()
        data = bytearray(original)
        data[offset:offset + len(new)] = new
        if fix_checksum:
            assert recompute_checksums(data, original, BLCKSZ) == 1
        f.write_bytes(bytes(data))
