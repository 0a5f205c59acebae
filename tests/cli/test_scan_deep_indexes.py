"""`pgpage scan --deep` of the index fixtures of every major: each GIN, GiST, SP-GiST, hash and BRIN index has its
figures (pages by kind, live and dead items, free space) beside the tables', equal to what each major's pageinspect
and pgstattuple said of its pages."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from indexes_oracle import INDEX_MAJORS, case_id, data_dir, index_names, oracle
from pgpage.cli.main import app

runner = CliRunner()


def deep_indexes(major: int) -> dict[str, dict]:
    r = runner.invoke(app, ["scan", str(data_dir(major)), "--deep", "--kind", "index", "--json"])
    assert r.exit_code in (0, 1), r.stdout    # (the fixtures' clusters lack some catalogs' files: findings)
    rels = [x for d in json.loads(r.stdout)["databases"] for x in d["relations"]]
    return {x["name"].removeprefix("public."): x for x in rels}


def free_space(pages: list[dict]) -> int:
    """PageGetExactFreeSpace summed over the pages that are not new, from pageinspect's page_header."""
    return sum(max(p["page_header"]["upper"] - p["page_header"]["lower"], 0) for p in pages
               if p["page_header"]["upper"] != 0)


def line_pointers(page: dict) -> int:
    return (page["page_header"]["lower"] - 24) // 4


@pytest.mark.parametrize("major", INDEX_MAJORS, ids=case_id)
def test_scan_deep_gives_every_fixture_index_its_figures(major):
    got = deep_indexes(major)
    for name in index_names(major):
        want = oracle(major, name)
        pages, am = want["pages"], want["amname"]
        if am == "btree":     # (B-trees: their figures are `pgpage index`'s)
            assert "index" not in got[name]
            continue
        x = got[name]["index"]
        assert x["am"] == am and x["nblocks"] == len(pages) == want["pg_relation_size"] // 8192, name
        assert sum(x["pages"].values()) == len(pages), name
        assert x["free_space"] == free_space(pages), name
        items = x["items"]
        if am == "bloom":
            assert x["pages"] == {"meta": 1, "pages": len(pages) - 1}, name
            assert items == {"tuples": want["heap_line_pointers"]}, name
        elif am == "hash":
            types = [p["hash_page_type"] for p in pages]
            assert x["pages"] == {t: types.count(t) for t in set(types)}, name
            st = [p["hash_page_stats"] for p in pages if p.get("hash_page_stats")]
            assert items == {"live_items": sum(s["live_items"] for s in st),
                             "dead_items": sum(s["dead_items"] for s in st)}, name
            assert (items["live_items"], items["dead_items"]) == (want["pgstathashindex"]["live_items"],
                                                                  want["pgstathashindex"]["dead_items"]), name
            assert x["pgstathashindex"]["bucket_pages"] == want["pgstathashindex"]["bucket_pages"], name
        elif am == "brin":
            types = [p["brin_page_type"] for p in pages]
            assert x["pages"] == {t: types.count(t) for t in set(types)}, name
            assert items["live_items"] == sum(len({r["itemoffset"] for r in p["brin_page_items"] or []})
                                              for p in pages), name   # (a row per item and column)
        elif am == "gin":
            assert x["pgstatginindex"] == want["pgstatginindex"], name
            flags = [set(p["gin_page_opaque_info"]["flags"]) for p in pages]
            assert x["pages"].get("meta") == sum("meta" in f for f in flags) == 1, name
            assert x["pages"].get("list", 0) == sum("list" in f for f in flags), name
            tuples = sum(line_pointers(p) for p, f in zip(pages, flags) if not f & {"meta", "data", "deleted"})
            assert items["live_items"] + items["dead_items"] == tuples, name
        elif am == "gist":
            assert x["pgstattuple"] == want["pgstattuple"], name
            if "gist_page_opaque_info" in pages[0]:    # pageinspect 14+
                leaf = sum("leaf" in p["gist_page_opaque_info"]["flags"] for p in pages)
                assert x["pages"]["leaf"] == leaf and x["pages"]["internal"] == len(pages) - leaf, name
                dead = sum(it["dead"] for p in pages for it in p["gist_page_items"] or [])
                assert items["dead_items"] == dead, name
        r = x["reclaimable"]
        assert r["bytes"] == r["pages"] * 8192
        assert x["reindex_reclaims_at_most"] == x["free_space"] + x["dead_item_bytes"] + r["bytes"]


def test_scan_deep_text_shows_the_index_detail():
    r = runner.invoke(app, ["scan", str(data_dir(15)), "--deep", "--name", "public.gin_pending"])
    assert "index detail" in r.stdout and "entry_leaf 1 list 5 meta 1" in r.stdout
