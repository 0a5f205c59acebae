"""Every field of every page of every fixture hash index, for every major, against pageinspect's hash functions
(hash_page_type, hash_page_stats, hash_page_items, hash_metapage_info, hash_bitmap_info) on the same bytes."""
from __future__ import annotations

import pytest

from indexes_oracle import BLCKSZ, case_id, index_cases, index_path, oracle, read_block
from pgpage.decode.hash import HashBitmap, add_bitmap_info
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext

FUNCTIONS = ("hash_page_stats", "hash_page_items", "hash_metapage_info", "hash_bitmap_info")


@pytest.mark.parametrize("major,name", index_cases("hash"), ids=case_id)
def test_hash_pages_equal_pageinspect(major, name):
    ctx = PageContext(fork="main", am="hash", major=major, checksums=True, relation=name, block_size=BLCKSZ)
    bitmap = HashBitmap(lambda b: read_block(major, name, b))
    compared = 0
    for want in oracle(major, name)["pages"]:
        blkno = want["blkno"]
        got = decode_page(read_block(major, name, blkno), blkno, ctx)
        add_bitmap_info(got, bitmap)
        assert not got["findings"], (blkno, got["findings"])
        if got["page_type"] == "new":
            assert want["hash_page_type"] == "unused"
        else:
            assert got["hash_page_type"] == want["hash_page_type"], blkno
        for fn in FUNCTIONS:
            # pageinspect's refusal (another kind of page) is an absent key here
            assert got.get(fn) == want[fn], (blkno, fn)
            compared += want[fn] is not None
        if want["hash_bitmap_info"] is None:
            assert bitmap.info(blkno)[1] == want["errors"]["hash_bitmap_info"], blkno
    assert compared > len(oracle(major, name)["pages"])
    assert index_path(major, name).stat().st_size // BLCKSZ == len(oracle(major, name)["pages"])


@pytest.mark.parametrize("major,name", index_cases("hash"), ids=case_id)
def test_whole_index_reads_equal_the_generated_parser(major, name):
    """read_metapage and bitmap_words (the whole-index passes' reads, at the layout's offsets) give what the
    generated parser's ``meta`` and ``bitmap_words`` give, on the first pages and on copies with bits flipped."""
    import numpy as np
    from kaitaistruct import KaitaiStructError

    from indexes_oracle import mutated_pages
    from pgpage.decode.hash import META_COLUMNS, bitmap_words, read_metapage
    from pgpage.decode.ksy.hash_page import HashPage

    def parsed_meta(raw):
        try:
            m = HashPage.from_bytes(raw).meta
        except (KaitaiStructError, EOFError):
            return None
        return {column: getattr(m, field) for column, field in META_COLUMNS.items()}
    pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)[:3]
    copies = [pages] + [mutated_pages(pages, seed) for seed in range(20)]
    raws = [page.tobytes() for copy in copies for page in copy]
    assert read_metapage(raws[0]) is not None
    for raw in raws:
        assert read_metapage(raw) == parsed_meta(raw)
        assert bitmap_words(raw) == list(HashPage.from_bytes(raw).bitmap_words)
