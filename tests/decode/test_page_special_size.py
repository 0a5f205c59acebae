"""Issue 23: a page of an index whose access method the catalog names, with a special space of another size,
is that AM's ``bad_special_size`` finding in `pgpage page`'s decoder, not a page of another AM; without a
catalog the special space decides. Real pages of every index AM of the pg15 fixture, pd_special moved."""
from __future__ import annotations

import struct

import pytest

from conftest import data_dir, rel_oracle
from pgpage.decode.checksum import checksum_page
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext

BS = 8192
# index -> (its access method, the special space its opaque struct takes, a block and its page type)
INDEXES = {"idx_multilevel": ("btree", 16, "btree_leaf", 1), "idx_hash": ("hash", 16, "hash", 1),
           "idx_gist": ("gist", 16, "gist", 0), "idx_gin": ("gin", 8, "gin", 1),
           "idx_spgist": ("spgist", 8, "spgist", 1), "idx_brin": ("brin", 8, "brin_regular", 2)}


def block(name: str, blkno: int) -> bytearray:
    raw = (data_dir(15) / rel_oracle(15, name)["filepath"]).read_bytes()
    return bytearray(raw[blkno * BS:(blkno + 1) * BS])


@pytest.mark.parametrize("name", sorted(INDEXES))
def test_special_size_of_another_am_is_a_finding(name):
    am, size, kind, blkno = INDEXES[name]
    page = block(name, blkno)
    ctx = PageContext(am=am, checksums=True, relation=name)
    sound = decode_page(bytes(page), blkno, ctx)
    assert sound["page_type"] == kind and sound["findings"] == []
    other = 8 if size == 16 else 16
    struct.pack_into("<H", page, 16, BS - other)
    struct.pack_into("<H", page, 8, checksum_page(bytes(page), blkno))
    moved = decode_page(bytes(page), blkno, ctx)
    assert moved["page_type"] == "unknown"
    assert [(f.code, f.severity, f.block, f.expected, f.actual, f.message) for f in moved["findings"]] == [
        (f"{am}.page.bad_special_size", "error", blkno, BS - size, BS - other,
         f"index contains corrupted page at block {blkno}: its special area is {other} bytes,"
         f" {dict(btree='a B-tree', hash='a hash', gist='a GiST', gin='a GIN', spgist='an SP-GiST', brin='a BRIN')[am]}"
         f" page's is {size}")]
    alone = decode_page(bytes(page), blkno, PageContext(checksums=True))   # no catalog: the special space decides
    assert not [f for f in alone["findings"] if f.code.endswith("bad_special_size")]
