"""Whole-cluster `pgpage diff BEFORE AFTER` (no --db) on the stories snapshots of 10, 13, 15, 17 and 18
(fixtures/make_stories.py): BEFORE is the cluster cleanly shut down right before the update pass, AFTER
right after it; between them `other`'s table `items` took inserts, updates and a delete, `gone` was
dropped and `added` created.

The truth is the servers': pg_database and txid_current() (catalog.json) of both snapshots,
pg_stat_user_tables read right before each clean shutdown (stats.json), the rows each statement's
command tag reported (versions.json.gz's steps), and heap_page_items of every page in AFTER
(versions.json.gz; tests/stories_workload.py says why a version that stayed on its page was not HOT).
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from functools import lru_cache

import pytest

from conftest import FIXTURES
from stories_workload import heap_truth, same_page_cause

STORIES = FIXTURES / "stories"
STORY_MAJORS = (10, 13, 15, 17, 18)
TABLES = ("hot_unindexed", "upd_indexed", "upd_jsonb", "upd_partial", "upd_nofit", "upd_brin")
COUNTERS = ("n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "n_tup_del")
VERB = {"INSERT": "n_tup_ins", "UPDATE": "n_tup_upd", "DELETE": "n_tup_del"}
HEAP_ONLY_TUPLE = 0x8000

pytestmark = pytest.mark.parametrize("major", STORY_MAJORS, ids=lambda m: f"pg{m}")


def snap(major: int, which: str):
    return STORIES / f"pg{major}" / ("before" if which == "before" else "") / "data"


def oracle(major: int, which: str, name: str) -> dict:
    return json.loads((snap(major, which).parent / "oracle" / name).read_text())


@lru_cache(maxsize=None)
def versions(major: int) -> dict:
    with gzip.open(STORIES / f"pg{major}" / "oracle" / "versions.json.gz") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def pgpage_diff(major: int, before: str, after: str, json_out: bool):
    """(exit status, stdout) of `python -m pgpage diff BEFORE AFTER [--json] --all --wal W` on a wide terminal (W:
    the WAL between the snapshots, kept apart: the pruned data directories have no pg_wal)."""
    args = [sys.executable, "-m", "pgpage", "diff", str(snap(major, before)), str(snap(major, after)), "--all",
            "--wal", str(STORIES / f"pg{major}" / "wal")]
    r = subprocess.run(args + (["--json"] if json_out else []), capture_output=True, text=True, timeout=300,
                       env={**os.environ, "COLUMNS": "200"})
    assert not r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout) if json_out else r.stdout


def relations(doc: dict, db: str) -> dict:
    return {r["name"].removeprefix("public."): r for r in doc["relations"] if r["database"] == db}


def text_block(text: str, db: str, table: str) -> str:
    """The lines the text output gives a table ("<db>: public.<table> (table, heap) ..." up to a blank line)."""
    blocks = text.split("\n\n")
    return next(b for b in blocks if b.lstrip("\n").startswith(f"{db}: public.{table} (table"))


def stat_rows(doc: dict, db: str) -> dict:
    rows = doc["pg_stat_user_tables"] if db == "stories" else doc["other_databases"][db]["pg_stat_user_tables"]
    return {r["relname"]: r for r in rows}


def server_delta(major: int, db: str) -> dict:
    """pg_stat_user_tables' n_tup_* in AFTER minus BEFORE, per table, as the server gave them."""
    b, a = stat_rows(oracle(major, "before", "stats.json"), db), stat_rows(oracle(major, "after", "stats.json"), db)
    assert {r["relid"] for r in b.values()} == {r["relid"] for r in a.values()}
    return {name: {k: a[name][k] - b[name][k] for k in COUNTERS} for name in a}


def tagged_rows(major: int, db: str, table: str) -> dict:
    """The rows the command tags of the statements between the snapshots reported, by counter."""
    out = {v: 0 for v in VERB.values()}
    for s in versions(major)["steps"]:
        words = s["sql"].split()
        target = words[2] if words[0] in ("INSERT", "DELETE") else words[1]
        if s["phase"] == "after" and s["db"] == db and words[0] in VERB and target == table:
            out[VERB[words[0]]] += s["rows"]
    return out


def page_items(major: int, db: str, table: str) -> list[tuple]:
    v = versions(major) if db == "stories" else versions(major)["other_databases"][db]
    return [(p["blkno"], i["lp"], i["t_xmin"], i["t_xmax"], i["t_ctid"], i["t_infomask2"])
            for p in v["tables"][table]["pages"] for i in p["items"] if i["lp_flags"] == 1]


def since(major: int) -> int:
    """An xid before every transaction between the snapshots: BEFORE's txid_current() + 1."""
    return oracle(major, "before", "catalog.json")["txid_current"] + 1


def test_identical_snapshots_have_no_difference(major):
    code, doc = pgpage_diff(major, "before", "before", True)
    assert code == 0 and doc["relations_changed"] == 0 and doc["databases_changed"] == 0
    assert {d["status"] for d in doc["databases"]} == {"in both"}
    assert not [r for r in doc["relations"] if r.get("changed") or r["status"] != "in place"]
    code, text = pgpage_diff(major, "before", "before", False)
    assert code == 0 and "no differences" in text


def test_every_database_of_both_snapshots(major):
    code, doc = pgpage_diff(major, "before", "after", True)
    assert code == 1 and "database" not in doc        # no --db: the whole cluster
    b = {d["oid"]: d["datname"] for d in oracle(major, "before", "catalog.json")["pg_database"]}
    a = {d["oid"]: d["datname"] for d in oracle(major, "after", "catalog.json")["pg_database"]}
    want = {o: ((a.get(o) or b[o]), "in both" if o in a and o in b else "created" if o in a else "dropped")
            for o in b.keys() | a.keys()}
    assert {d["oid"]: (d["name"], d["status"]) for d in doc["databases"]} == want
    assert sorted(want.values()) == [("added", "created"), ("gone", "dropped"), ("other", "in both"),
                                     ("stories", "in both")]
    assert doc["databases_changed"] == 2
    for db in ("stories", "other"):         # each database's tables, indexes and catalogs
        rels = relations(doc, db)
        assert {"pg_catalog.pg_class", "pg_catalog.pg_attribute"} <= set(rels)
    assert {f"{t}_pkey" for t in TABLES} | set(TABLES) <= set(relations(doc, "stories"))
    assert {"items", "items_pkey", "items_qty_idx"} <= set(relations(doc, "other"))
    code, text = pgpage_diff(major, "before", "after", False)
    for o, (name, status) in want.items():
        if status != "in both":
            assert f"database {name} (oid {o})  {status}" in text


def test_pg_stat_delta_equals_the_servers(major):
    """Per table of both databases: n_tup_* between the snapshots, exact, equal to stats.json AFTER minus
    BEFORE and to the rows the workload's command tags reported; the HOT share from them."""
    _, doc = pgpage_diff(major, "before", "after", True)
    _, text = pgpage_diff(major, "before", "after", False)
    for db, tables in (("stories", TABLES), ("other", ("items",))):
        want, rels = server_delta(major, db), relations(doc, db)
        assert sorted(want) == sorted(tables)
        for table in tables:
            w, st = want[table], rels[table]["statistics"]
            assert {k: st[k] for k in COUNTERS} == w and st["exact"] is True, (db, table)
            assert {k: w[k] for k in VERB.values()} == tagged_rows(major, db, table)
            assert st["hot_ratio"] == round(w["n_tup_hot_upd"] / w["n_tup_upd"], 4)
            per = rels[table]["write_amplification"]["ratios_per"]
            assert per == {"source": "pg_stat", "exact": True, "row_versions": w["n_tup_ins"] + w["n_tup_upd"],
                           "row_changes": w["n_tup_ins"] + w["n_tup_upd"] + w["n_tup_del"]}
            line = (f"pg_stat: {w['n_tup_hot_upd']:,} of {w['n_tup_upd']:,} updates HOT"
                    f" ({100 * w['n_tup_hot_upd'] / w['n_tup_upd']:.1f}%), {w['n_tup_ins']:,} inserted,"
                    f" {w['n_tup_del']:,} deleted (exact: the server's counters)")
            assert line in text_block(text, db, table), (db, table)
    stories = server_delta(major, "stories")
    assert stories["hot_unindexed"]["n_tup_hot_upd"] == stories["hot_unindexed"]["n_tup_upd"] == 96
    assert (stories["upd_brin"]["n_tup_hot_upd"] == 100) == (major >= 16)
    assert all(stories[t]["n_tup_hot_upd"] == 0 for t in ("upd_indexed", "upd_jsonb", "upd_partial", "upd_nofit"))


@pytest.mark.parametrize("table", TABLES)
def test_why_not_hot_between_the_snapshots(major, table):
    """The causes of the update pass's non-HOT updates, as heap_page_items in AFTER and the workload say."""
    _, doc = pgpage_diff(major, "before", "after", True)
    assert doc["before"]["next_xid"] >= since(major)
    t = heap_truth(table, major, page_items(major, "stories", table), since_xid=since(major))
    assert t == heap_truth(table, major, page_items(major, "stories", table))   # every update is of the pass
    w = relations(doc, "stories")[table]["why_not_hot"]
    keys = ("not_hot", "causes", "other_page_too", "by_index")
    assert [w[k] for k in keys] == [t[k] for k in keys]
    assert w["unknown_reasons"] == {"successor_not_on_disk": 0, "values_unreadable": 0, "none_of_the_above": 0}
    expect = same_page_cause(table, major)
    for e in w["examples"]:
        assert t["olds"][e["ctid"]] == e["cause"], e
        if e["cause"] != "other_page":
            cause, index, column, where = expect
            assert [(i["index"], i["columns"], i["in"]) for i in e["indexes"]] == [(index, [column], [where])]
    assert t["hot"] + t["not_hot"] == server_delta(major, "stories")[table]["n_tup_upd"]
    if expect is not None:   # a version that stayed on its page: blocked by that index's column
        assert t["causes"][expect[0]] > 0 and t["by_index"][expect[1]]["columns"] == {expect[2]: t["not_hot"]
                                                                                     - t["causes"]["other_page"]}
    if table == "upd_nofit":
        assert t["causes"] == {"other_page": t["not_hot"], "indexed_column": 0, "summarizing_column": 0,
                               "unknown": 0} and t["not_hot"] > 0
    if table == "hot_unindexed" or (table == "upd_brin" and major >= 16):
        assert t["not_hot"] == 0 and t["hot"] > 0
    _, text = pgpage_diff(major, "before", "after", False)
    block = text_block(text, "stories", table)
    if t["not_hot"]:
        assert f"not HOT:  {t['not_hot']:,} updates still on disk: " in block
        for index, e in t["by_index"].items():
            cols = ", ".join(f"{c} in {k:,}" for c, k in e["columns"].items())
            assert f"{index}: changed {cols} updates" in block
    else:
        assert "not HOT:" not in block


def test_other_databases_changes(major):
    """`other`.items: the rows the workload inserted, updated and deleted, on the pages and in pg_stat."""
    _, doc = pgpage_diff(major, "before", "after", True)
    r = relations(doc, "other")["items"]
    tags = tagged_rows(major, "other", "items")
    assert tags == {"n_tup_ins": 20, "n_tup_upd": 27, "n_tup_del": 8}       # as the workload's comments say
    items = page_items(major, "other", "items")
    new = since(major)
    updated = {(b, lp): ctid for b, lp, _, xmax, ctid, _ in items if xmax >= new and ctid != f"({b},{lp})"}
    successors = set(updated.values())
    deleted = [1 for b, lp, _, xmax, ctid, _ in items if xmax >= new and ctid == f"({b},{lp})"]
    inserted = [1 for b, lp, xmin, *_ in items if xmin >= new and f"({b},{lp})" not in successors]
    heap_only = [1 for *_, im2 in items if im2 & HEAP_ONLY_TUPLE]
    t = r["pages"]["tuples"]
    assert (t["inserted"], t["new_versions"], t["deleted"]) == (len(inserted), len(updated), len(deleted)) == (
        tags["n_tup_ins"], tags["n_tup_upd"], tags["n_tup_del"])
    assert t["heap_only_versions"] == len(heap_only) == server_delta(major, "other")["items"]["n_tup_hot_upd"]
    truth = heap_truth("items", major, items, since_xid=new)
    w = r["why_not_hot"]
    assert (w["not_hot"], w["causes"], w["other_page_too"], w["by_index"]) == (
        truth["not_hot"], truth["causes"], truth["other_page_too"], truth["by_index"])
    assert w["by_index"] == {"items_qty_idx": {"updates": 11, "columns": {"qty": 11}}}
