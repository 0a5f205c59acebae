"""`pgpage diff BEFORE AFTER --wal W` on the stories snapshots: the WAL between them, per relation (issue 38,
part 2: the Uber figure in WAL bytes, full-page images, FPI_FOR_HINT).

The truth is the servers': pg_walinspect on the WAL between the snapshots' checkpoints (oracle/wal.json.gz,
made by fixtures/make_stories.py: pg_get_wal_stats on 15+, pg_get_wal_block_info summed per relation file on
16+), and on every major the rows each statement changed as pg_stat_user_tables counted them (stats.json).
"""
from __future__ import annotations

import gzip
import json
from functools import lru_cache

import pytest

from test_diff_stories import STORIES, STORY_MAJORS, TABLES, pgpage_diff, relations, server_delta, text_block


def majors(since: int = 10):
    """The story majors from ``since`` on (pg_walinspect: 15+, pg_get_wal_block_info: 16+)."""
    return pytest.mark.parametrize("major", [m for m in STORY_MAJORS if m >= since], ids=lambda m: f"pg{m}")


@lru_cache(maxsize=None)
def wal_oracle(major: int) -> dict:
    with gzip.open(STORIES / f"pg{major}" / "oracle" / "wal.json.gz") as f:
        return json.load(f)


@majors()
def test_row_changes_in_wal_are_the_servers_counts(major):
    """Heap INSERT/UPDATE/HOT_UPDATE/DELETE records per table = pg_stat_user_tables' counts between the snapshots."""
    _, doc = pgpage_diff(major, "before", "after", True)
    assert doc["wal"]["read"] and doc["wal"]["complete"], doc["wal"]
    assert doc["wal"]["start_lsn"] == wal_oracle(major)["before_checkpoint"]
    for db, names in (("stories", TABLES), ("other", ("items",))):
        rels, delta = relations(doc, db), server_delta(major, db)
        for name in names:
            wa, d = rels[name]["wal_amplification"], delta[name]
            assert (wa["insert"], wa["update"], wa["hot_update"], wa["delete"]) == (
                d["n_tup_ins"], d["n_tup_upd"] - d["n_tup_hot_upd"], d["n_tup_hot_upd"], d["n_tup_del"]), (db, name)
            assert wa["row_changes"] == d["n_tup_ins"] + d["n_tup_upd"] + d["n_tup_del"]


@majors()
def test_index_records_per_update(major):
    """Uber's figure: a non-HOT update of a table writes an index insert record into each of its B-trees (the
    partial index only for the rows its predicate takes), a HOT update none."""
    _, doc = pgpage_diff(major, "before", "after", True)
    rels = relations(doc, "stories")
    assert rels["hot_unindexed"]["wal_amplification"]["index_records"] == 0
    for name in ("upd_indexed", "upd_jsonb"):          # the primary key and the indexed column's index
        wa = rels[name]["wal_amplification"]
        assert wa["index_records"] == 2 * wa["update"] == 200 and wa["index_records_per_row_change"] == 2.0
        idx = [r for r in rels.values() if r["kind"] == "index" and r["name"].startswith(f"public.{name}_")]
        assert sum(r["wal"]["record_types"].get("Btree/INSERT_LEAF", 0) for r in idx) == 200
    assert rels["upd_nofit"]["wal_amplification"]["index_records"] == 100   # its primary key only


@majors(15)   # 10 and 13: the row counts above
def test_totals_equal_pg_get_wal_stats(major):
    o = wal_oracle(major)
    _, doc = pgpage_diff(major, "before", "after", True)
    w, stats = doc["wal"], o["stats_per_record"]
    assert w["end_lsn"] == o["end_lsn"]
    assert w["records"] == sum(r["count"] for r in stats)
    assert w["fpi_bytes"] == sum(r["fpi_size"] for r in stats)
    assert w["bytes"] == sum(r["record_size"] + r["fpi_size"] for r in stats)
    hint = next((r for r in stats if r["resource_manager/record_type"] == "XLOG/FPI_FOR_HINT"), None)
    assert w["fpi_for_hint_bytes"] == (hint["fpi_size"] if hint else 0) > 0    # the first reads set hint bits


@majors(16)
def test_every_relation_equals_pg_get_wal_block_info(major):
    """Per relation (all its forks), records by type and image bytes = pg_get_wal_block_info's, for every relation
    both snapshots hold in place (catalogs, shared catalogs, both databases)."""
    _, doc = pgpage_diff(major, "before", "after", True)
    db_oid = {d["name"]: d["oid"] for d in doc["databases"]}
    expected: dict = {}
    for b in wal_oracle(major)["blocks"]:
        e = expected.setdefault((b["reldatabase"], b["relfilenode"]), {"record_types": {}, "fpi_bytes": 0})
        key = f"{b['resource_manager']}/{b['record_type']}"
        e["record_types"][key] = e["record_types"].get(key, 0) + b["records"]
        e["fpi_bytes"] += b["fpi_bytes"]
    checked = set()
    for r in doc["relations"]:
        if r["status"] != "in place":
            continue
        key = (db_oid[r["database"]] if r["database"] else 0, r["after"]["relfilenode"])
        e = expected.pop(key, {"record_types": {}, "fpi_bytes": 0})
        assert (r["wal"]["record_types"], r["wal"]["fpi_bytes"]) == (e["record_types"], e["fpi_bytes"]), r["name"]
        if e["record_types"]:
            checked.add((r["database"], r["name"]))
    # every story table the update pass wrote was among them (and its WAL-logged catalogs too)
    assert {("stories", f"public.{t}") for t in TABLES} <= checked and any(db is None for db, _ in checked)


@majors()
def test_text_shows_wal_per_row_change(major):
    _, doc = pgpage_diff(major, "before", "after", True)
    _, text = pgpage_diff(major, "before", "after", False)
    w = doc["wal"]
    assert f"WAL {w['start_lsn']} → {w['end_lsn']}: {w['records']:,} records" in text
    wa = relations(doc, "stories")["upd_indexed"]["wal_amplification"]
    block = text_block(text, "stories", "upd_indexed")
    assert f"WAL: {wa['row_changes']:,} row changes ({wa['update']:,} updates)" in block
    assert f"{wa['bytes_per_row_change']:,} bytes each" in block and "2.0 per row change" in block
