"""Why updates were not HOT, on the stories fixtures of every major there (fixtures/make_stories.py:
10, 13, 15, 17, 18).

The truth is the fixture's oracle/versions.json.gz: pageinspect's heap_page_items of every page, read
on the server after the update pass (which old versions a non-HOT update replaced, and whether their
successor went to another page), and the workload (tests/stories_workload.py: what each table's
UPDATE changed, so why a version that stayed on its page was not HOT; upd_brin's is HOT on 16+).
The index definitions pgpage reads from pg_index (indkey, indexprs, indpred node strings, whose format
changes across majors) must equal the server's.
"""
from __future__ import annotations

import gzip
import json
from functools import lru_cache

import pytest

from conftest import FIXTURES
from stories_workload import heap_truth

from pgpage.passes.hotcause import why_not_hot
from pgpage.storage.datadir import open_data_directory

STORIES = FIXTURES / "stories"
STORY_MAJORS = (10, 13, 15, 17, 18)
TABLES = ("hot_unindexed", "upd_indexed", "upd_jsonb", "upd_partial", "upd_nofit", "upd_brin")


@lru_cache(maxsize=None)
def oracle(major: int) -> dict:
    with gzip.open(STORIES / f"pg{major}" / "oracle" / "versions.json.gz") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def stories_db(major: int):
    cluster = open_data_directory(STORIES / f"pg{major}" / "data")
    return cluster, cluster.database("stories")


def truth(major: int, table: str) -> dict:
    items = [(p["blkno"], i["lp"], i["t_xmin"], i["t_xmax"], i["t_ctid"], i["t_infomask2"])
             for p in oracle(major)["tables"][table]["pages"] for i in p["items"] if i["lp_flags"] == 1]
    return heap_truth(table, major, items)


def test_every_story_major_is_there():
    assert sorted(int(p.name[2:]) for p in STORIES.glob("pg*")) == list(STORY_MAJORS)
    assert all(oracle(m)["major"] == m for m in STORY_MAJORS)


@pytest.mark.parametrize("major", STORY_MAJORS, ids=lambda m: f"pg{m}")
def test_pg_index_definitions_equal_the_servers(major):
    _, db = stories_db(major)
    rels = {r.name: r for r in db.relations()}
    for name, ix in oracle(major)["indexes"].items():
        row = rels[name].index_row
        assert [int(k) for k in ix["indkey"].split()] == row["indkey"], name
        assert (row["indexprs"], row["indpred"]) == (ix["indexprs"], ix["indpred"]), name
        assert rels[name].am == ix["amname"] and rels[name].table.name == ix["table"]


@pytest.mark.parametrize("major", STORY_MAJORS, ids=lambda m: f"pg{m}")
@pytest.mark.parametrize("table", TABLES)
def test_why_not_hot_equals_heap_page_items(major, table):
    cluster, db = stories_db(major)
    t = truth(major, table)
    w = why_not_hot(cluster, db.relation(table))
    keys = ("not_hot", "causes", "other_page_too", "by_index")
    assert [w[k] for k in keys] == [t[k] for k in keys]
    assert w["unknown_reasons"] == {"successor_not_on_disk": 0, "values_unreadable": 0, "none_of_the_above": 0}
    for e in w["examples"]:
        assert t["olds"][e["ctid"]] == e["cause"], e
    if table == "upd_brin":      # the summarizing index: HOT on 16+, a cause before
        assert (t["hot"] > 0) == (major >= 16) and (t["causes"]["summarizing_column"] > 0) == (major < 16)
    if table in ("upd_indexed", "upd_jsonb", "upd_partial"):
        assert t["causes"]["indexed_column"] > 0     # the fixture has a case of each cause it is about
    if table == "upd_nofit":
        assert t["causes"]["other_page"] > 0


@pytest.mark.parametrize("major", STORY_MAJORS, ids=lambda m: f"pg{m}")
def test_heap_whole_database_json(major):
    """`pgpage heap DATADIR --db stories --json` through the real entry point: each table's why_not_hot."""
    from typer.testing import CliRunner
    from pgpage.cli.main import app
    r = CliRunner().invoke(app, ["heap", str(STORIES / f"pg{major}" / "data"), "--db", "stories", "--json"])
    assert r.exit_code in (0, 1), r.output
    tables = {d["relation"]: d for d in json.loads(r.stdout)["tables"]}
    assert sorted(tables) == sorted(f"stories.public.{t}" for t in TABLES)
    for table in TABLES:
        t, w = truth(major, table), tables[f"stories.public.{table}"]["why_not_hot"]
        assert (w["not_hot"], w["causes"]) == (t["not_hot"], t["causes"])


@pytest.mark.parametrize("major", STORY_MAJORS, ids=lambda m: f"pg{m}")
def test_since_xid_keeps_the_updates_from_that_xid_on(major):
    """`diff`'s filter: the update pass of upd_indexed is one transaction (heap_page_items' t_xmax)."""
    cluster, db = stories_db(major)
    xmaxes = {i["t_xmax"] for p in oracle(major)["tables"]["upd_indexed"]["pages"] for i in p["items"]
              if i["lp_flags"] == 1 and i["t_xmax"]}
    assert len(xmaxes) == 1
    x = xmaxes.pop()
    rel = db.relation("upd_indexed")
    n = truth(major, "upd_indexed")["not_hot"]
    assert n > 0
    assert why_not_hot(cluster, rel, since_xid=x)["not_hot"] == n
    assert why_not_hot(cluster, rel, since_xid=x + 1)["not_hot"] == 0
    assert why_not_hot(cluster, rel, since_xid=x - 2 ** 31 + 1)["not_hot"] == n      # still before x, mod 2^32


def test_heap_stands_when_the_columns_cannot_be_read(tmp_path):
    """pg_attribute's file gone from a copy: `heap --rel` still reports, why_not_hot is null with a finding."""
    import shutil
    from typer.testing import CliRunner
    from pgpage.cli.main import app
    data = tmp_path / "data"
    shutil.copytree(STORIES / "pg15" / "data", data)
    _, db = stories_db(15)
    for f in (data / db.path.relative_to(STORIES / "pg15" / "data")).glob(f"{db.filenode_map[1249]}*"):
        f.unlink()
    r = CliRunner().invoke(app, ["heap", str(data), "--db", "stories", "--rel", "upd_indexed", "--json"])
    doc = json.loads(r.stdout)
    assert doc["why_not_hot"] is None and doc["hot"]["non_hot_updated_tuples"] == truth(15, "upd_indexed")["not_hot"]
    assert "heap.why_not_hot.unavailable" in {f["code"] for f in doc["findings"]}
