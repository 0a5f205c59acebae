"""GIN, GiST and SP-GiST indexes of every major 10-18 (fixtures/indexes): every page as each major's pageinspect
reads it (GIN: gin_page_opaque_info, gin_metapage_info, gin_leafpage_items; GiST: gist_page_opaque_info,
gist_page_items, 14+), SP-GiST items as pg_filedump -i reads them (fixtures/make_spgist_filedump.py),
pgstatginindex and GiST's pgstattuple through `pgpage index`, and `pgpage verify` finding nothing on any of them."""
from __future__ import annotations

import gzip
import json
from dataclasses import replace
from functools import lru_cache

import pytest
from typer.testing import CliRunner

from indexes_oracle import INDEXES, case_id, catalog, data_dir, index_cases, oracle
from pgpage.cli.main import app
from pgpage.decode.indextuple import index_columns
from pgpage.decode.page import decode_page
from pgpage.storage.target import resolve

AMS = ("gin", "gist", "spgist")
CASES = [c for am in AMS for c in index_cases(am)]


@lru_cache(maxsize=None)
def target(major: int, name: str):
    t = resolve(str(data_dir(major)), catalog(major)["datname"], name, "main")
    return t, replace(t.context, index_columns=index_columns(t.relation, t.database))


def decoded(major: int, name: str):
    """(oracle page, pgpage's page) for every block, decoded with the index's columns as `pgpage page` does."""
    t, ctx = target(major, name)
    for want in oracle(major, name)["pages"]:
        yield want, decode_page(t.fork.read_block(want["blkno"]), want["blkno"], ctx)


def cli(*args) -> tuple[int, str]:
    r = CliRunner().invoke(app, [str(a) for a in args])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout


def where_rel(major: int, name: str) -> list[str]:
    return [data_dir(major), "--db", catalog(major)["datname"], "--rel", name]


@pytest.mark.parametrize("major,name", index_cases("gin"), ids=case_id)
def test_gin_pages_equal_pageinspect(major, name):
    kinds = set()
    for want, got in decoded(major, name):
        where = f"pg{major} {name} block {want['blkno']}"
        assert got["findings"] == [], where
        opaque = got["gin_page_opaque_info"]
        kinds.add(opaque["kind"])
        assert {k: opaque[k] for k in ("rightlink", "maxoff", "flags")} == want["gin_page_opaque_info"], where
        assert got.get("gin_metapage_info") == want["gin_metapage_info"], where
        if want["gin_leafpage_items"] is None:
            assert "gin_leafpage_items" not in got, where
        else:
            assert [{k: s[k] for k in ("first_tid", "nbytes", "tids")} for s in got["gin_leafpage_items"]] == \
                want["gin_leafpage_items"], where
        for it in got.get("gin_entry_items", []) + got.get("gin_pending_items", []):
            assert it["key"] is not None or it["category"] != "norm_key", (where, it)
            if it.get("tids") is not None:
                assert len(it["tids"]) == it["nposting"] and "posting_error" not in it, (where, it)
    assert {"meta", "entry_leaf"} <= kinds


def test_gin_fixtures_show_every_kind_of_item():
    """Between them the GIN fixtures hold posting trees, inline posting lists, pending list tuples of a
    two-column index, and keys of every key type their opclasses store (text, int4)."""
    seen = set()
    for major, name in index_cases("gin"):
        for _, got in decoded(major, name):
            for it in got.get("gin_entry_items", []):
                seen.add("posting_tree" if "posting_tree_root" in it else "downlink" if "downlink" in it else "inline")
            for it in got.get("gin_pending_items", []):
                seen.add(f"pending attnum {it['attnum']}")
            seen.add(got["gin_page_opaque_info"]["kind"])
    assert {"posting_tree", "inline", "pending attnum 1", "pending attnum 2", "data_leaf", "list"} <= seen, seen


def test_gin_keys_are_the_indexed_values():
    """gin_tags (int[] array_ops) keys are the arrays' elements as int4 text, gin_tsv's the lexemes (text)."""
    for major in sorted({m for m, _ in index_cases("gin")}):
        tags = [it["key"] for _, got in decoded(major, "gin_tags") for it in got.get("gin_entry_items", [])
                if it["category"] == "norm_key"]
        assert tags and all(k.lstrip("-").isdigit() for k in tags), major
        assert tags == sorted(tags, key=int), major     # the leaf level in block order is the key order
        lexemes = [it["key"] for _, got in decoded(major, "gin_tsv") for it in got.get("gin_entry_items", [])]
        assert lexemes and all(k and k == k.strip() and not k.isdigit() for k in lexemes if k), major


@pytest.mark.parametrize("major,name", index_cases("gist"), ids=case_id)
def test_gist_pages_equal_pageinspect(major, name):
    compared = 0
    for want, got in decoded(major, name):
        where = f"pg{major} {name} block {want['blkno']}"
        assert got["findings"] == [], where
        if want.get("gist_page_opaque_info") is None:    # pageinspect reads GiST from 14
            assert major < 14 and got["gist_page_items"], where
            continue
        opaque = got["gist_page_opaque_info"]
        assert {k: opaque[k] for k in want["gist_page_opaque_info"]} == want["gist_page_opaque_info"], where
        assert [{k: it[k] for k in w} for it, w in zip(got["gist_page_items"], want["gist_page_items"])] == \
            want["gist_page_items"], where
        assert [(it["itemoffset"], it["ctid"], it["itemlen"]) for it in got["gist_page_items"]] == \
            [(w["itemoffset"], w["ctid"], w["itemlen"]) for w in want["gist_page_items_bytea"]], where
        compared += 1
    assert compared or major < 14


@lru_cache(maxsize=None)
def filedump(major: int, name: str) -> dict:
    with gzip.open(INDEXES / f"pg{major}" / "filedump" / f"{name}.json.gz") as f:
        return json.load(f)


@pytest.mark.parametrize("major,name", index_cases("spgist"), ids=case_id)
def test_spgist_items_equal_pg_filedump(major, name):
    blocks = filedump(major, name)["blocks"]
    states = set()
    for want, got in decoded(major, name):
        blkno = want["blkno"]
        assert got["findings"] == [] and got["page_type"] == "spgist"
        if blkno == 0:
            meta = got["spgist_metapage_info"]
            assert meta["magic_number"] == 0xBA0BABEE and got["spgist_page_opaque_info"]["flags"] == ["meta"]
            continue
        mine = []
        for it in got.get("spgist_inner_tuples", []) + got.get("spgist_leaf_tuples", []):
            states.add(it["tupstate"])
            row = {"item": it["itemoffset"], "state": it["tupstate"].upper()}
            if "nodes" in it:
                row.update(allTheSame=int(it["all_the_same"]), nNodes=it["n_nodes"], prefixSize=it["prefix_size"],
                           nodes=[{"downlink": n["downlink"], "size": n["size"], "null": int(n["null"])}
                                  for n in it["nodes"]])
            else:
                row.update(nextOffset=it["next_offset"], tid=it.get("heap_ptr", it.get("pointer")))
            mine.append(row)
        assert mine == blocks[str(blkno)], f"pg{major} {name} block {blkno}"
        if "spgist_leaf_tuples" in got:
            assert all(it["value"] is not None for it in got["spgist_leaf_tuples"] if it["tupstate"] == "live")
    assert {"live", "placeholder"} <= states


def test_spgist_prefixes_and_labels_are_read():
    """quad_point_ops prefixes are points (centroids); text_ops labels are the next byte of the strings."""
    pages = [got for _, got in decoded(15, "spgist_point")]
    prefixes = [it["prefix"] for p in pages for it in p.get("spgist_inner_tuples", []) if it["prefix_size"]]
    assert prefixes and all(p.startswith("(") and p.endswith(")") and p.count(",") == 1 for p in prefixes)
    labels = [n["label"] for _, got in decoded(15, "spgist_text") for it in got.get("spgist_inner_tuples", [])
              for n in it["nodes"]]
    assert labels and all(int(label) in range(-2, 256) for label in labels)


@pytest.mark.parametrize("major,name", index_cases("gin") + index_cases("gist"), ids=case_id)
def test_index_figures_equal_pgstatginindex_and_pgstattuple(major, name):
    code, out = cli("index", *where_rel(major, name), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["am"] == oracle(major, name)["amname"] and doc["findings"] == []
    if doc["am"] == "gin":
        assert doc["pgstatginindex"] == oracle(major, name)["pgstatginindex"]
    else:
        assert doc["pgstattuple"] == oracle(major, name)["pgstattuple"]
    assert sum(doc["pages"].values()) == doc["nblocks"] == len(oracle(major, name)["pages"])


def test_index_text_and_block():
    code, out = cli("index", *where_rel(15, "gin_pending"))
    stat = oracle(15, "gin_pending")["pgstatginindex"]
    assert code == 0 and f"pgstatginindex: version {stat['version']}  pending_pages {stat['pending_pages']}" \
        f"  pending_tuples {stat['pending_tuples']}" in out
    code, out = cli("index", *where_rel(15, "spgist_text"), "--json")
    doc = json.loads(out)
    assert doc["items"]["placeholder"] == sum(
        i["state"] == "PLACEHOLDER" for items in filedump(15, "spgist_text")["blocks"].values() for i in items)
    code, out = cli("index", *where_rel(15, "gist_box"), "--block", 0)
    assert code == 0 and "GiST  nsn" in out and "(bx)=(" in out


def test_page_text_of_each_kind():
    for name, block, words in (("gin_pending", 0, ("pending list: pending_head",)),
                               ("gin_posting", 2, ("segment first",)),
                               ("gist_range", 0, ("(span, during)=(",)),
                               ("spgist_text", 1, ("SP-GiST  flags",))):
        code, out = cli("page", *where_rel(15, name), "--block", block)
        assert code == 0 and all(w in out for w in words), (name, out)
        assert max(len(line) for line in out.splitlines()) <= 100


@pytest.mark.parametrize("major", sorted({m for m, _ in CASES}), ids=case_id)
def test_verify_finds_nothing_on_clean_indexes(major):
    for name in (n for m, n in CASES if m == major):
        code, out = cli("verify", *where_rel(major, name), "--json")
        records = [json.loads(line) for line in out.splitlines()]
        assert code == 0 and [r for r in records if r["type"] == "finding"] == [], (name, out[-2000:])
        (rel,) = [r for r in records if r["type"] == "relation"]
        assert rel["am"] == oracle(major, name)["amname"]


@pytest.mark.parametrize("name", ("gin_pending", "gin_posting", "gist_range", "spgist_text"))
def test_a_file_alone_is_read_without_the_catalog(tmp_path, name):
    """An index file copied out of its data directory: keys shown as bytes, figures from the pages, and verify
    clean but for the note that key order needs the catalog's columns."""
    from indexes_oracle import index_path
    copy = tmp_path / "16999"
    copy.write_bytes(index_path(15, name).read_bytes())
    code, out = cli("verify", copy, "--json")
    found = [json.loads(line) for line in out.splitlines() if '"finding"' in line]
    assert code == 0 and all(f["severity"] == "info" for f in found), found
    code, out = cli("index", copy, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["am"] == oracle(15, name)["amname"] and doc["relation"] == "16999"
    if doc["am"] == "gin":
        assert doc["pgstatginindex"] == oracle(15, name)["pgstatginindex"]
    code, out = cli("page", copy, "--block", 1, "--json")
    assert code == 0 and json.loads(out)["pages"][0]["findings"] == []


@pytest.mark.parametrize("major,name", CASES, ids=case_id)
def test_index_figures_agree_with_the_page_decoder(major, name):
    """`index` counts with numpy over chunks of pages; its counts equal those of `page`'s decoder, page by page."""
    from pgpage.analysis.amstats import STATS
    t, _ = target(major, name)
    stats = STATS[oracle(major, name)["amname"]](t.fork.block_size, major)
    for first, chunk in t.fork.iter_chunks():
        stats.add_chunk(first, chunk)
    items = stats.report()["items"]
    want: dict = {}
    for _, got in decoded(major, name):
        if "gin_page_opaque_info" in got:
            for it in got.get("gin_entry_items", []):
                if "downlink" in it:
                    continue
                want["entries"] = want.get("entries", 0) + 1
                want["posting_trees"] = want.get("posting_trees", 0) + ("posting_tree_root" in it)
                want["entry_tids"] = want.get("entry_tids", 0) + it.get("nposting", 0)
            want["posting_tree_tids"] = want.get("posting_tree_tids", 0) + sum(
                len(s["tids"]) for s in got.get("gin_leafpage_items", []))
            want["pending_list_tuples"] = want.get("pending_list_tuples", 0) + len(got.get("gin_pending_items", []))
        elif "gist_page_items" in got:
            leaf = "leaf" in got["gist_page_opaque_info"]["flags"]
            key = "leaf_tuples" if leaf else "downlinks"
            want[key] = want.get(key, 0) + sum(not it["dead"] for it in got["gist_page_items"])
        else:
            for it in got.get("spgist_inner_tuples", []) + got.get("spgist_leaf_tuples", []):
                key = it["tupstate"] if it["tupstate"] != "live" else \
                    "live_leaf" if "heap_ptr" in it else "live_inner"
                want[key] = want.get(key, 0) + 1
    assert {k: items.get(k, 0) for k in want} == want
