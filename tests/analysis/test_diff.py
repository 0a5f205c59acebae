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
        assert t1_t2[f"public.{index}"]["changed"] is False  # byte-identical
    assert r["write_amplification"]["index_entries_added"] == 0
    assert {i["name"]: i["entries_added"] for i in r["indexes"]} == {
        "public.hot_pkey": 0, "public.hot_prenom": 0, "public.hot_c2": 0}


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
    doc = diff_pass.diff_document(str(path / stem), str(SNAP / "t2" / "data" / "base" / path.name / stem), None, None)
    assert doc["relations"][0]["pages"]["page_classes"] == rel["pages"]["page_classes"]


# Every scenario pair of consecutive snapshots and its tables: the figures against the server's counters.
PAIRS = [("t1", "t2", "hint_load"), ("t2", "t3", "hint_load"), ("t3", "t4", "hint_load"), ("t1", "t2", "hot"),
         ("t2", "t3", "hot"), ("t1", "t2", "bloat"), ("t2", "t3", "bloat"), ("t3", "t4", "bloat"),
         ("t1", "t2", "dedup_dup"), ("t1", "t2", "dedup_uniq"), ("t1", "t2", "uber")]


@pytest.fixture(scope="module")
def diffs():
    cache = {}

    def get(b, a):
        if (b, a) not in cache:
            cache[b, a] = {r["name"]: r for r in diff_pass.compare_clusters(data(b), data(a), None, None)["relations"]}
        return cache[b, a]
    return get


def counter_delta(b: str, a: str, table: str) -> dict:
    sb, sa = stats(b, table), stats(a, table)
    return {k: sa[k] - sb[k] for k in ("n_tup_ins", "n_tup_upd", "n_tup_del", "n_tup_hot_upd")}


@pytest.mark.parametrize("b,a,table", PAIRS)
def test_write_amplification_against_the_servers_counters(diffs, b, a, table):
    """Row versions written, HOT and non-HOT updates: never more than pg_stat_user_tables counted, and
    exactly as many row versions wherever no line pointer was pruned and reused in between (every pair
    but the HOT-only ones: their heap-only slots are reused within the two pages)."""
    d = counter_delta(b, a, table)
    r = diffs(b, a)[f"public.{table}"]
    if r.get("statistics") is not None:  # both snapshots keep their shutdown's statistics file
        assert r["statistics"]["exact"] and {k: r["statistics"][k] for k in d} == d
    wa = r.get("write_amplification")
    if not any(d.values()):
        assert wa is None or wa["row_versions_written"] == 0
        return
    t = r["pages"]["tuples"]
    versions = d["n_tup_ins"] + d["n_tup_upd"]
    assert wa["row_versions_written"] <= versions
    if d["n_tup_hot_upd"] < d["n_tup_upd"] or d["n_tup_upd"] == 0:
        assert wa["row_versions_written"] == versions  # no HOT slot reuse: every version is seen
    assert wa["hot_updates_at_least"] <= d["n_tup_hot_upd"]
    if d["n_tup_hot_upd"]:
        assert wa["hot_updates_at_least"] > 0
    assert t["new_versions"] - t["heap_only_versions"] <= d["n_tup_upd"] - d["n_tup_hot_upd"]
    assert wa["logical_row_changes"] <= versions + d["n_tup_del"]


def test_hot_scenario_index_entries_per_row_version(diffs):
    """hot s2_hot -> s3_nonhot: 1,200 non-HOT updates, most of their versions pruned to LP_DEAD since;
    the indexes gained 1,689 entries (pageinspect's leaf TIDs): about 1.4 per row version, not 15.5."""
    r = diffs("t2", "t3")["public.hot"]
    d = counter_delta("t2", "t3", "hot")
    gained = sum(leaf_tids("t3", i) - leaf_tids("t2", i) for i in ("hot_pkey", "hot_prenom", "hot_c2"))
    wa = r["write_amplification"]
    assert wa["row_versions_written"] == d["n_tup_upd"] == 1200
    assert wa["index_entries_added"] == gained == 1689
    assert wa["index_entries_per_row_version"] == round(gained / d["n_tup_upd"], 2) == 1.41
    assert {i["name"]: i["entries_added"] for i in r["indexes"]} == {
        f"public.{i}": leaf_tids("t3", i) - leaf_tids("t2", i) for i in ("hot_pkey", "hot_prenom", "hot_c2")}


def test_pages_and_bytes_written_per_row_change(diffs):
    """bloat s1 -> s2_updated: the pages written are the pages whose bytes differ, on every fork."""
    r = diffs("t1", "t2")["public.bloat"]
    wa = r["write_amplification"]
    forks = r["forks"]
    assert wa["table_pages_written"] == sum(f["pages_changed"] + f["pages_added"] for f in forks.values())
    sizes = {s_["relname"]: s_ for s_ in json.loads((SNAP / "t2" / "oracle" / "stats.json").read_text())["sizes"]}
    assert forks["main"]["after_bytes"] == sizes["bloat"]["main"] and forks["fsm"]["after_bytes"] == sizes["bloat"]["fsm"]
    assert wa["table_bytes_written"] == wa["table_pages_written"] * 8192
    assert wa["table_bytes_per_row_change"] == round(wa["table_bytes_written"] / counter_delta("t1", "t2", "bloat")["n_tup_upd"], 1)


def test_freezing_is_not_hint_bits(diffs):
    """hint_bits s3_vacuumed -> s4_frozen (VACUUM FREEZE): every tuple frozen, no hint bits counted."""
    r = diffs("t3", "t4")["public.hint_load"]
    pc, hp, t = r["pages"]["page_classes"], r["pages"]["hint_prediction"], r["pages"]["tuples"]
    frozen = sum(1 for page in oracle("t4", "hint_load")["forks"]["main"] for i in page["heap_page_items"]
                 if i["t_infomask"] is not None and i["t_infomask"] & 0x0300 == 0x0300)
    assert t["frozen"] == frozen == 2000
    assert pc["freezing"] == pc["changed"] == 9
    assert pc["hint_bits"] == pc["hint_bits_only"] == hp["hinted"] == 0
    # and the first read after the load: hint bits, nothing else
    pc2 = diffs("t1", "t2")["public.hint_load"]["pages"]["page_classes"]
    assert pc2["hint_bits"] == pc2["changed"] and pc2["freezing"] == pc2["all_visible_set"] == 0


def test_vacuum_sets_all_visible(diffs):
    """bloat s2_updated -> s3_vacuumed: PD_ALL_VISIBLE counted as itself, on the pages VACUUM marked."""
    r = diffs("t2", "t3")["public.bloat"]
    visible = sum(1 for page in oracle("t3", "bloat")["forks"]["main"] if page["page_header"]["flags"] & 4)
    assert r["pages"]["page_classes"]["all_visible_set"] == visible > 0


def test_same_keys_with_and_without_rel(diffs):
    whole = diffs("t2", "t3")["public.hot"]
    alone = {r["name"]: r for r in diff_pass.compare_clusters(data("t2"), data("t3"), None, "hot")["relations"]}
    assert set(alone) == {"public.hot", "public.hot_pkey", "public.hot_prenom", "public.hot_c2"}
    assert alone["public.hot"]["write_amplification"] == whole["write_amplification"]
    assert alone["public.hot"]["indexes"] == whole["indexes"]


def test_missing_file_is_not_a_drop(diffs):
    """t3 keeps no file of uber (the snapshot was pruned) while pg_class still has its row: the server
    never dropped it (no DROP TABLE in the timeline of statements it ran)."""
    assert "drop table" not in (FIXTURES / "scenarios" / "timeline.json").read_text().lower()
    r = diffs("t2", "t3")["public.uber"]
    assert r["status"] == "file missing after" and r["finding"]["code"] == "relation.file_missing"
    assert not [x for x in diffs("t2", "t3").values() if x["status"] == "dropped"]


def test_fsm_only_change_cut_to_half_a_page(tmp_path):
    """A copy of t1 whose only change is hint_load's FSM cut to half a page: a difference, exit 1."""
    import shutil
    after = tmp_path / "data"
    shutil.copytree(SNAP / "t1" / "data", after, symlinks=True)
    rel = diff_pass.compare_clusters(data("t1"), data("t1"), None, "hint_load")["relations"][0]
    fsm = next(after.glob(f"base/*/{rel['before']['relfilenode']}_fsm"))
    size = fsm.stat().st_size
    with open(fsm, "r+b") as f:
        f.truncate(size - 4096)
    run = subprocess.run([sys.executable, "-m", "pgpage", "diff", data("t1"), str(after), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    (changed,) = [r for r in doc["relations"] if r.get("changed") or r["status"] != "in place"]
    assert changed["name"] == "public.hint_load"
    assert changed["forks"]["fsm"] == {"before_bytes": size, "after_bytes": size - 4096, "pages_changed": 0,
                                       "pages_added": 0, "pages_removed": 1, "changed": True}
    assert not changed["forks"]["main"]["changed"]


def test_missing_database_directory_is_not_a_drop(tmp_path):
    """A copy of t2 without base/16384 while global/pg_database still has the row: not "dropped" but
    database.directory_missing, and every relation the server listed with a file there (catalog.json's
    pg_class and pg_relation_filepath) relation.file_missing in AFTER; the shared catalogs still compared."""
    import shutil
    catalog = json.loads((SNAP / "t2" / "oracle" / "catalog.json").read_text())
    after = tmp_path / "data"
    shutil.copytree(SNAP / "t2" / "data", after, symlinks=True)
    shutil.rmtree(after / "base" / str(catalog["database_oid"]))
    run = subprocess.run([sys.executable, "-m", "pgpage", "diff", data("t2"), str(after), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    (db,) = doc["databases"]
    assert (db["oid"], db["name"]) == (catalog["database_oid"], catalog["datname"])
    assert db["status"] == "directory missing after" and db["finding"]["code"] == "database.directory_missing"
    in_db = {r["oid"] for r in catalog["relations"] if r["filepath"].startswith("base/")}
    shared = {r["oid"] for r in catalog["relations"] if r["filepath"].startswith("global/")}
    got = {r["oid"]: r for r in doc["relations"]}
    assert {o for o, r in got.items() if r["status"] == "file missing after"} == in_db
    assert all(got[o]["finding"]["code"] == "relation.file_missing" for o in in_db)
    assert {o for o, r in got.items() if r["status"] == "in place"} == shared and shared
    assert not [r for r in doc["relations"] if r["status"] in ("dropped", "created")]
    text = subprocess.run([sys.executable, "-m", "pgpage", "diff", data("t2"), str(after)],
                          capture_output=True, text=True, timeout=300).stdout
    assert "DIRECTORY MISSING AFTER" in text and "dropped" not in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_hot_story_ratios_divide_by_the_servers_count(tmp_path):
    """hot s1 -> s2_hot: 2,000 HOT updates (stats.json, read before each snapshot's clean shutdown). The
    snapshots keep that shutdown's pg_stat/: the diff counts 2,000 updates, all HOT, and divides by them.
    Copies without pg_stat/ fall back on the pages: a lower bound (slots reused), ratios marked at most."""
    import shutil
    d = counter_delta("t1", "t2", "hot")
    assert d["n_tup_upd"] == d["n_tup_hot_upd"] == 2000 and d["n_tup_ins"] == d["n_tup_del"] == 0

    def hot(b, a):
        r = diff_pass.compare_clusters(b, a, None, "hot")["relations"]
        return next(x for x in r if x["name"] == "public.hot")
    r = hot(data("t1"), data("t2"))
    assert {k: r["statistics"][k] for k in d} == d and r["statistics"]["exact"]
    wa = r["write_amplification"]
    assert wa["ratios_per"] == {"source": "pg_stat", "exact": True, "row_versions": 2000, "row_changes": 2000}
    assert wa["total_bytes_per_row_change"] == round(wa["total_bytes_written"] / 2000, 1)
    text = subprocess.run([sys.executable, "-m", "pgpage", "diff", data("t1"), data("t2"), "--rel", "hot"],
                          capture_output=True, text=True, timeout=300).stdout
    assert "pg_stat: 2,000 of 2,000 updates HOT (100.0%)" in text
    assert f"per row change: {wa['total_bytes_per_row_change']:,} bytes (2,000 inserts, updates and deletes" in text

    copies = []
    for t in ("t1", "t2"):
        shutil.copytree(SNAP / t / "data", tmp_path / t, symlinks=True)
        shutil.rmtree(tmp_path / t / "pg_stat")
        copies.append(str(tmp_path / t))
    r = hot(*copies)
    wa = r["write_amplification"]
    per = wa["ratios_per"]
    assert per == {"source": "pages", "exact": False, "row_versions": wa["row_versions_written"],
                   "row_changes": wa["logical_row_changes"]}
    assert 0 < per["row_changes"] < 2000
    assert wa["total_bytes_per_row_change"] == round(wa["total_bytes_written"] / per["row_changes"], 1)
    text = subprocess.run([sys.executable, "-m", "pgpage", "diff", *copies, "--rel", "hot"],
                          capture_output=True, text=True, timeout=300).stdout
    assert f"per row change: ≤{wa['total_bytes_per_row_change']:,} bytes (≥{per['row_changes']:,} changes counted" in text
