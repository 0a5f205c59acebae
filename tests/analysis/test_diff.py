"""pgpage diff on snapshot pairs a real PostgreSQL 17 made before and after each workload
(fixtures/scenarios): what it says must agree with the server's own counters (stats.json) and
with pageinspect's view of both snapshots (oracle/rel)."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES
from pgpage.passes import diff as diff_pass

SNAP = FIXTURES / "scenarios" / "snapshots"


def data(t: str) -> str:
    return str(SNAP / t / "data")


def stats(t: str, relname: str) -> dict:
    rows = json.loads((SNAP / t / "oracle" / "stats.json").read_text())["pg_stat_user_tables"]
    return next(r for r in rows if r["relname"] == relname)


def oracle(t: str, relname: str) -> dict:
    with gzip.open(SNAP / t / "oracle" / "rel" / f"{relname}.json.gz") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def t1_t2():
    return {r["name"]: r for r in diff_pass.compare_clusters(data("t1"), data("t2"), None, None)["relations"]}


@pytest.fixture(scope="module")
def t2_t3():
    return {r["name"]: r for r in diff_pass.compare_clusters(data("t2"), data("t3"), None, None)["relations"]}


def leaf_tids(t: str, index: str) -> int:
    """Heap TIDs in an index's leaf pages, counted from pageinspect's bt_page_items of that snapshot."""
    n = 0
    for page in oracle(t, index)["forks"]["main"]:
        stats_ = page.get("bt_page_stats") or {}
        if stats_.get("type") not in ("l", "r") or not (stats_.get("btpo_flags", 0) & 1):
            continue
        rightmost = stats_["btpo_next"] == 0
        for item in page["bt_page_items"]:
            if not rightmost and item["itemoffset"] == 1:
                continue  # the high key
            n += len(item["tids"]) if item.get("tids") else 1
    return n


def test_bulk_load_then_count_changes_only_hint_bits_as_predicted(t1_t2):
    r = t1_t2["public.hint_load"]
    pc, hp = r["pages"]["page_classes"], r["pages"]["hint_prediction"]
    # pageinspect: on every page the tuples' infomasks differ between the snapshots
    before, after = oracle("t1", "hint_load")["forks"]["main"], oracle("t2", "hint_load")["forks"]["main"]
    pages_with_new_hints = sum(
        1 for b, a in zip(before, after)
        if any(x["t_infomask"] != y["t_infomask"] for x, y in zip(b["heap_page_items"], a["heap_page_items"])))
    assert pages_with_new_hints > 0
    assert pc["changed"] == pc["hint_bits_only"] == pages_with_new_hints
    assert hp["predicted"] == hp["hinted"] == hp["predicted_and_hinted"] == pages_with_new_hints
    assert r["pages"]["tuples"]["inserted"] == 0


def test_hot_updates_touch_no_index(t1_t2):
    r = t1_t2["public.hot"]
    s1, s2 = stats("t1", "hot"), stats("t2", "hot")
    hot_updates = s2["n_tup_hot_upd"] - s1["n_tup_hot_upd"]
    assert hot_updates == s2["n_tup_upd"] - s1["n_tup_upd"] > 0
    t = r["pages"]["tuples"]
    assert t["non_hot_updated"] == 0
    assert 0 < t["hot_updated"] + t["redirects_created"] <= hot_updates
    for index in ("hot_pkey", "hot_prenom", "hot_c2"):
        assert leaf_tids("t1", index) == leaf_tids("t2", index)
        assert t1_t2[f"public.{index}"]["index"]["delta"]["entries"] == 0
    assert r["write_amplification"]["index_entries_added"] == 0


def test_uber_story_no_index_growth(t1_t2):
    r = t1_t2["public.uber"]
    assert r["before"]["blocks"] == r["after"]["blocks"]
    assert r["pages"]["tuples"]["non_hot_updated"] == 0
    for i in r["indexes"]:
        assert i["entries_added"] == 0
        assert not t1_t2[i["name"]].get("changed")


def test_non_hot_updates_cost_index_entries(t2_t3):
    r = t2_t3["public.hot"]
    s2, s3 = stats("t2", "hot"), stats("t3", "hot")
    non_hot = (s3["n_tup_upd"] - s3["n_tup_hot_upd"]) - (s2["n_tup_upd"] - s2["n_tup_hot_upd"])
    assert non_hot > 0
    assert r["pages"]["tuples"]["non_hot_updated"] <= non_hot
    for index in ("hot_pkey", "hot_prenom", "hot_c2"):
        assert t2_t3[f"public.{index}"]["index"]["delta"]["entries"] == leaf_tids("t3", index) - leaf_tids("t2", index)
    assert r["write_amplification"]["index_entries_added"] > 0


def test_dedup_index_grows_less_than_its_twin(t1_t2):
    dedup, plain = t1_t2["public.dedup_k"]["index"], t1_t2["public.dedup_k_nodedup"]["index"]
    assert dedup["delta"]["entries"] == plain["delta"]["entries"] == \
        leaf_tids("t2", "dedup_k") - leaf_tids("t1", "dedup_k")
    grow = lambda i: i["after"]["pgstatindex"]["index_size"] - i["before"]["pgstatindex"]["index_size"]  # noqa
    assert grow(dedup) < grow(plain)
    assert grow(dedup) == oracle("t2", "dedup_k")["pgstatindex"]["index_size"] - \
        oracle("t1", "dedup_k")["pgstatindex"]["index_size"]
    assert dedup["after"]["posting_tuples"] > 0 and plain["after"]["posting_tuples"] == 0


def test_full_update_doubles_the_table(t1_t2):
    r = t1_t2["public.bloat"]
    s1, s2 = stats("t1", "bloat"), stats("t2", "bloat")
    assert r["after"]["blocks"] == 2 * r["before"]["blocks"]
    assert r["pages"]["tuples"]["new_versions"] == s2["n_tup_upd"] - s1["n_tup_upd"]
    assert r["heap"]["after"]["pgstattuple"] == oracle("t2", "bloat")["pgstattuple"]
    assert r["heap"]["after"]["pgstattuple"]["dead_tuple_count"] == s2["n_dead_tup"]


def test_vacuum_then_freezes(t2_t3):
    r = t2_t3["public.bloat"]
    assert r["heap"]["after"]["pgstattuple"]["dead_tuple_count"] == 0
    assert r["heap"]["after"]["pgstattuple"] == oracle("t3", "bloat")["pgstattuple"]
    assert r["pages"]["tuples"]["pruned"] == r["heap"]["before"]["pgstattuple"]["dead_tuple_count"]


def test_cli_exit_codes_and_text():
    run = lambda *a: subprocess.run([sys.executable, "-m", "pgpage", "diff", *a],  # noqa
                                    capture_output=True, text=True, timeout=300)
    same = run(data("t1"), data("t1"))
    assert same.returncode == 0 and "no differences" in same.stdout
    r = run(data("t1"), data("t2"), "--rel", "hint_load")
    assert r.returncode == 1
    assert "only hint bits" in r.stdout and "matches the prediction" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 100
    doc = json.loads(run(data("t1"), data("t2"), "--json").stdout)
    assert doc["schema"] == "pgpage.diff/1" and doc["relations_changed"] > 0


def test_two_relation_files():
    path = next(p for p in (SNAP / "t1" / "data" / "base").iterdir() if p.is_dir())
    rel = diff_pass.compare_clusters(data("t1"), data("t2"), None, "hint_load")["relations"][0]
    stem = str(rel["before"]["relfilenode"])
    doc = diff_pass.compare_files(str(path / stem), str(SNAP / "t2" / "data" / "base" / path.name / stem))
    assert doc["relations"][0]["pages"]["page_classes"] == rel["pages"]["page_classes"]
