"""The index access method fixtures hold what they are made to show, and pgpage reads their page headers and
page kinds as each major's pageinspect does (the AM-specific fields are compared in each AM's own tests)."""
from __future__ import annotations

import pytest

from indexes_oracle import (BLCKSZ, INDEX_MAJORS, case_id, catalog, data_dir, index_cases, index_names, index_path,
                            oracle, read_block)
from conftest import REQUIRED_MAJORS
from pgpage.decode.control import parse_lsn
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext

HEADER_COLUMNS = ("flags", "lower", "upper", "special", "pagesize", "version", "prune_xid")
EVERY_MAJOR = {"gin_tsv", "gin_tags", "gin_jsonb", "gin_jsonb_path", "gin_pending", "gin_posting", "gist_box",
               "gist_point", "gist_tsv", "gist_range", "spgist_point", "spgist_text", "brin_minmax",
               "brin_inclusion", "hash_int", "hash_text", "bloom_docs", "words_c_utf8", "words_icu"}
FROM_14 = {"brin_multi", "brin_bloom"}   # minmax-multi and bloom operator classes are 14+
BRIN_KINDS = {"meta": "brin_meta", "revmap": "brin_revmap", "regular": "brin_regular"}


def test_every_major_has_every_index():
    assert INDEX_MAJORS == REQUIRED_MAJORS
    for m in INDEX_MAJORS:
        assert set(index_names(m)) == EVERY_MAJOR | (FROM_14 if m >= 14 else set()), m
        assert catalog(m)["major"] == m


def decoded(major: int, name: str):
    """(oracle page, pgpage's decode_page of the same block) for every block of an index."""
    o = oracle(major, name)
    ctx = PageContext(fork="main", am=o["amname"], major=major, checksums=True, relation=name, block_size=BLCKSZ)
    for want in o["pages"]:
        yield want, decode_page(read_block(major, name, want["blkno"]), want["blkno"], ctx)


@pytest.mark.parametrize("major,name", index_cases(), ids=case_id)
def test_file_is_what_the_server_measured(major, name):
    o = oracle(major, name)
    size = index_path(major, name).stat().st_size
    assert size == o["pg_relation_size"] == len(o["pages"]) * BLCKSZ
    assert [p["blkno"] for p in o["pages"]] == list(range(len(o["pages"])))


@pytest.mark.parametrize("major,name", index_cases(), ids=case_id)
def test_page_headers_and_kinds_equal_pageinspect(major, name):
    am = oracle(major, name)["amname"]
    for want, got in decoded(major, name):
        where = f"{name} block {want['blkno']}"
        wh, gh = want["page_header"], got["page_header"]
        assert not [f for f in got["findings"] if f.severity == "error"], where
        if gh is None:   # an all-zero page (hash allocates bucket pages in groups): pageinspect shows zeros
            assert got["page_type"] == "new" and all(not wh[k] for k in HEADER_COLUMNS), where
            assert parse_lsn(wh["lsn"]) == 0
            assert am != "hash" or want["hash_page_type"] == "unused", where
            continue
        assert parse_lsn(gh["lsn"]) == parse_lsn(wh["lsn"]), where
        assert gh["checksum"] == wh["checksum"] & 0xFFFF, where
        assert {k: gh[k] for k in HEADER_COLUMNS} == {k: wh[k] for k in HEADER_COLUMNS}, where
        if want.get("page_checksum") is not None:
            assert got["page_checksum"] == want["page_checksum"] & 0xFFFF, where
        if am == "brin":
            assert got["page_type"] == BRIN_KINDS[want["brin_page_type"]], where
        elif am == "btree":   # (the collations' B-trees: bt_page_stats is not captured, the kind is nbtree's)
            assert got["page_type"] == ("btree_meta" if want["blkno"] == 0 else "btree_leaf"), where   # (one leaf)
        else:
            assert got["page_type"] == am, where


@pytest.mark.parametrize("major,name", index_cases("spgist"), ids=case_id)
def test_spgist_oracle_carries_the_page_bytes(major, name):
    for want in oracle(major, name)["pages"]:
        assert bytes.fromhex(want["raw"]) == read_block(major, name, want["blkno"])


@pytest.mark.parametrize("major", INDEX_MAJORS, ids=case_id)
def test_the_fixtures_show_what_they_are_made_for(major):
    def pages(name, fn):
        return [p[fn] for p in oracle(major, name)["pages"] if p.get(fn) is not None]

    # a pending list left unflushed, counted alike by the metapage and pgstatginindex
    meta = pages("gin_pending", "gin_metapage_info")[0]
    stat = oracle(major, "gin_pending")["pgstatginindex"]
    assert meta["n_pending_pages"] == stat["pending_pages"] > 1
    assert meta["n_pending_tuples"] == stat["pending_tuples"] > 0
    # a posting tree: a compressed data leaf whose TIDs gin_leafpage_items lists
    leaves = [p for p in oracle(major, "gin_posting")["pages"]
              if "compressed" in (p["gin_page_opaque_info"] or {}).get("flags", [])]
    assert leaves and all(p["gin_leafpage_items"] for p in leaves)
    # hash: buckets split (more than the first two), overflow chains, the bitmap page, dead items
    for name in ("hash_int", "hash_text"):
        o = oracle(major, name)
        assert pages(name, "hash_metapage_info")[0]["maxbucket"] > 1, name
        assert pages(name, "hash_page_type").count("bitmap") == o["pgstathashindex"]["bitmap_pages"] == 1
        assert o["pgstathashindex"]["dead_items"] > 0, name
    assert oracle(major, "hash_text")["pgstathashindex"]["overflow_pages"] > 0
    # BRIN: ranges summarized, and the rows added after CREATE INDEX in ranges left unsummarized
    docs = next(r for r in catalog(major)["relations"] if r["relname"] == "docs")
    ranges = -(-(data_dir(major) / docs["filepath"]).stat().st_size // BLCKSZ // 2)   # pages_per_range = 2
    for name in {"brin_minmax", "brin_inclusion"} | (FROM_14 if major >= 14 else set()):
        summarized = [tid for r in pages(name, "brin_revmap_data") for tid in r if tid["pages"] != "(0,0)"]
        assert 0 < len(summarized) < ranges, name
        assert any(pages(name, "brin_page_items")), name
    if major >= 18:
        assert all(oracle(major, n)["gin_index_check"] == "ok" for n in index_names(major) if n.startswith("gin"))
