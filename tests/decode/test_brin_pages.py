"""Every field of every page of every fixture BRIN index, for every major, against pageinspect's BRIN functions
(brin_page_type, brin_metapage_info, brin_revmap_data, brin_page_items: minmax, inclusion, minmax-multi and
bloom summaries as pageinspect prints them) on the same bytes."""
from __future__ import annotations

import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, oracle, read_block
from pgpage.decode.brin import brin_columns, brin_page_items
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.decode.values import ValueFormatter
from pgpage.storage.datadir import open_data_directory


@pytest.mark.parametrize("major,name", index_cases("brin"), ids=case_id)
def test_brin_pages_equal_pageinspect(major, name):
    db = open_data_directory(data_dir(major)).database(None)
    rel = db.relation(name)
    columns = brin_columns(db.attributes(rel.oid), rel.index_row["indclass"], db.opclasses)
    formatter = ValueFormatter(db.types, major)
    ctx = PageContext(fork="main", am="brin", major=major, checksums=True, relation=name, block_size=BLCKSZ)
    items_seen = 0
    for want in oracle(major, name)["pages"]:
        blkno = want["blkno"]
        raw = read_block(major, name, blkno)
        got = decode_page(raw, blkno, ctx)
        assert not got["findings"], (blkno, got["findings"])
        assert got["brin_page_type"] == want["brin_page_type"]
        for fn in ("brin_metapage_info", "brin_revmap_data"):
            assert got.get(fn) == want[fn], (blkno, fn)
        if want["brin_page_type"] == "regular":
            found = []
            rows = brin_page_items(raw, got["items"], columns, major, formatter, lambda *a, **k: found.append(a))
            assert not found
            assert rows == want["brin_page_items"], blkno
            items_seen += len(rows)
    assert items_seen > 0
