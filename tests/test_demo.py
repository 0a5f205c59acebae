"""The demo cluster (demo/data, the README's first command): complete, clean, and telling its stories.

Everything goes through pgpage's real entry point (``python -m pgpage``) and is compared with
demo/oracle.json, what the PostgreSQL 17 server that wrote the cluster said about it
(fixtures/make_demo.py): every file and every relation's fork sizes, pg_stat_user_tables,
and, read on a hot standby copy of the stopped cluster (no pruning, no hint bits written),
pgstattuple, pgstatindex, pg_visibility_map_summary, and counts by pageinspect over the committed
pages.  Never with what pgpage printed before.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "demo"
DATA = DEMO / "data"
PGPAGE = [sys.executable, "-m", "pgpage"]
STORY_TABLES = ("hot_updates", "bloated", "bulk_load", "dups", "customers")
FORK_SUFFIX = {"main": "", "fsm": "_fsm", "vm": "_vm", "init": "_init"}


def pgpage(*args) -> subprocess.CompletedProcess:
    return subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=REPO)


def pgpage_json(*args) -> dict:
    r = pgpage(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def oracle() -> dict:
    return json.loads((DEMO / "oracle.json").read_text())


@pytest.fixture(scope="module")
def scan() -> tuple[subprocess.CompletedProcess, dict]:
    r = pgpage("scan", DATA, "--json")
    return r, json.loads(r.stdout)


def table(oracle: dict, name: str) -> dict:
    return oracle["standby"]["tables"][name]


# ------------------------------------------------------------------------------- complete


def test_every_file_the_server_wrote_is_there(oracle):
    files = oracle["files"]
    for path, size in files.items():
        p = DATA / path
        assert p.is_file(), f"{path} missing"
        assert p.stat().st_size == size, path
    on_disk = {str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file()}
    assert on_disk == set(files) | set(oracle["gitkeep"])  # nothing else
    assert all(Path(g).name == ".gitkeep" and (DATA / g).stat().st_size == 0 for g in oracle["gitkeep"])
    # one database, WAL and the transaction status files kept
    assert oracle["live"]["databases"] == ["demo"]
    assert sorted(p.name for p in (DATA / "base").iterdir()) == [str(oracle["live"]["database_oid"])]
    assert any(len(Path(f).name) == 24 and f.startswith("pg_wal/") for f in files)
    assert any(f.startswith("pg_xact/") for f in files) and "global/pg_control" in files


def test_every_relation_has_its_files(oracle):
    rels = oracle["live"]["relations"]
    assert len(rels) > 200  # the catalogs of a whole database, not a pruned copy
    for r in rels:
        assert (DATA / r["filepath"]).is_file(), r["relname"]
        for fork, suffix in FORK_SUFFIX.items():
            if r[fork]:
                assert (DATA / (r["filepath"] + suffix)).stat().st_size == r[fork], (r["relname"], fork)


def test_the_demo_stays_small(oracle):
    disk = sum(p.lstat().st_blocks * 512 for p in [DATA, *DATA.rglob("*")])
    assert disk < 8 * 1024 * 1024
    assert oracle["size"]["apparent_bytes"] == sum(oracle["files"].values())


# ------------------------------------------------------------------------------- clean


def test_scan_exits_0_with_no_error_finding(scan, oracle):
    r, doc = scan
    assert r.returncode == 0, r.stderr
    assert doc["schema"] == "pgpage.scan/1"
    c = doc["cluster"]
    assert (c["major"], c["data_checksums"], c["state"]) == (17, True, "DB_SHUTDOWNED")
    (db,) = doc["databases"]
    findings = doc["findings"] + db["findings"] + [f for rel in db["relations"] for f in rel["findings"]]
    assert not [f for f in findings if f.get("severity", "error") in ("error", "warning")], findings
    # every relation the server has, with the server's fork sizes
    rels = {rel["name"]: rel for rel in db["relations"]}
    assert set(rels) == {f"{r['nspname']}.{r['relname']}" for r in oracle["live"]["relations"]}
    for r in oracle["live"]["relations"]:
        got = rels[f"{r['nspname']}.{r['relname']}"]
        assert got["fork_bytes"] == {f: r[f] for f in FORK_SUFFIX if r[f] or f == "main"}, r["relname"]
        assert got["health"]["checksum_failures"] in (0, None), r["relname"]


def test_scan_health_is_pgstattuples(scan, oracle):
    _, doc = scan
    rels = {rel["name"]: rel for rel in doc["databases"][0]["relations"]}
    for t in STORY_TABLES:
        h, want = rels[f"public.{t}"]["health"], table(oracle, t)
        p = want["pgstattuple"]
        assert (h["live_tuples"], h["dead_tuples"], h["dead_bytes"], h["free_bytes"]) == (
            p["tuple_count"], p["dead_tuple_count"], p["dead_tuple_len"], p["free_space"]), t
        assert h["pages_needing_hints"] == want["pages"]["pages_with_unhinted"], t
        if rels[f"public.{t}"]["fork_bytes"].get("vm"):
            assert h["all_visible_pages"] == want["pg_visibility_map_summary"]["all_visible"], t


def test_the_readme_first_command():
    readme = (REPO / "README.md").read_text()
    first = readme.split("```sh\n", 1)[1].split("\n", 1)[0]
    assert first.startswith("pip install . && pgpage scan demo/data")
    args = first.split("pgpage ", 1)[1].replace("'", "").split()
    r = pgpage(*args)
    assert r.returncode == 0, r.stderr
    assert "error" not in r.stdout and "Traceback" not in r.stderr
    for t in STORY_TABLES:
        assert f"public.{t} " in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 100


def test_verify_finds_nothing():
    r = pgpage("verify", DATA)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "result: clean" in r.stdout


# ------------------------------------------------------------------------------- the stories


def test_hot_updates(oracle):
    """HOT chains behind redirects, heap-only tuples, and no index entry for a HOT update."""
    doc = pgpage_json("heap", DATA, "--rel", "hot_updates")
    want = table(oracle, "hot_updates")
    assert doc["pgstattuple"] == want["pgstattuple"]
    pages, hot = want["pages"], doc["hot"]
    assert (hot["redirects"], hot["heap_only_tuples"], hot["hot_updated_tuples"]) == (
        pages["lp_redirect"], pages["heap_only_tuples"], pages["hot_updated_tuples"])
    assert hot["hot_updated_tuples"] > 0 and hot["hot_update_percent"] > 0
    assert doc["line_pointers"]["lp_dead"] == pages["lp_dead"]
    stat = oracle["live"]["pg_stat_user_tables"]["hot_updates"]
    assert stat["n_tup_hot_upd"] > 0.9 * stat["n_tup_upd"]
    # each index holds one entry per row plus one per non-HOT update, none per HOT update
    non_hot = stat["n_tup_upd"] - stat["n_tup_hot_upd"]
    for name in ("hot_updates_pkey", "hot_updates_grp"):
        idx = pgpage_json("index", DATA, "--rel", name)
        leaf = oracle["standby"]["indexes"][name]["leaf_items"]
        assert idx["deduplication"]["tids"] == leaf["tids"] == 300 + non_hot


def test_bloated(oracle):
    """A full UPDATE: every old version still on disk as a dead tuple."""
    doc = pgpage_json("heap", DATA, "--rel", "bloated")
    want = table(oracle, "bloated")
    assert doc["pgstattuple"] == want["pgstattuple"]
    assert doc["pgstattuple"]["dead_tuple_count"] == want["pgstattuple"]["tuple_count"] > 0
    assert doc["blocks"] == want["pages"]["blocks"]
    assert doc["bloat"]["vacuum_reclaims_bytes"] == want["pgstattuple"]["dead_tuple_len"]


def test_bulk_load_waits_for_its_hint_bits(oracle):
    """Never read since COPY: the next read sets every tuple's hint bits, dirtying every page."""
    doc = pgpage_json("heap", DATA, "--rel", "bulk_load")
    want = table(oracle, "bulk_load")
    pages = want["pages"]
    assert doc["pgstattuple"] == want["pgstattuple"]
    hb = doc["hint_bits"]
    assert hb["xmin_unhinted"] == pages["xmin_unhinted"] == want["pgstattuple"]["tuple_count"]
    assert hb["pages_next_read_will_dirty"] == pages["pages_with_unhinted"] == pages["blocks"] - pages["new_pages"]
    r = pgpage("heap", DATA, "--rel", "bulk_load", "--map", "hints")
    assert r.returncode == 0 and f"the next read dirties {pages['pages_with_unhinted']} pages" in r.stdout


@pytest.mark.parametrize("name", STORY_TABLES)
def test_pgstattuple_and_hints_of_every_story_table(oracle, name):
    doc = pgpage_json("heap", DATA, "--rel", name)
    want = table(oracle, name)
    assert doc["pgstattuple"] == want["pgstattuple"]
    assert doc["hint_bits"]["xmin_unhinted"] == want["pages"]["xmin_unhinted"]
    assert doc["hint_bits"]["pages_next_read_will_dirty"] == want["pages"]["pages_with_unhinted"]
    assert not [f for f in doc["findings"] if f["severity"] in ("error", "warning")]


def test_deduplication(oracle):
    """The same column indexed twice: with deduplication it is smaller."""
    ix = oracle["standby"]["indexes"]
    got = {n: pgpage_json("index", DATA, "--rel", n) for n in ("dups_k", "dups_k_nodedup")}
    for n, doc in got.items():
        assert doc["pgstatindex"] == {k: ix[n]["pgstatindex"][k] for k in doc["pgstatindex"]}, n
        d, leaf = doc["deduplication"], ix[n]["leaf_items"]
        assert (d["posting_tuples"], d["plain_tuples"], d["tids"]) == (
            leaf["posting_tuples"], leaf["plain_tuples"], leaf["tids"]), n
        assert not [f for f in doc["findings"] if f["severity"] in ("error", "warning")], n
    assert ix["dups_k"]["pgstatindex"]["index_size"] < ix["dups_k_nodedup"]["pgstatindex"]["index_size"]
    assert got["dups_k"]["deduplication"]["posting_tuples"] > 0


def test_deleted_rows_are_recovered(oracle):
    """pgpage rows --all prints the deleted customers with the values the server showed before."""
    cu = oracle["customers"]
    cols = cu["columns"]
    before = {row[0]: dict(zip(cols, row)) for row in cu["before"]}
    after = {row[0]: dict(zip(cols, row)) for row in oracle["standby"]["customers_after"]}
    r = pgpage("rows", DATA, "--rel", "customers", "--all", "--json")
    assert r.returncode == 0, r.stderr
    versions = [json.loads(line) for line in r.stdout.splitlines()]
    deleted = [v for v in versions if v["status"] == "deleted"]
    assert sorted(v["values"]["id"] for v in deleted) == sorted(str(i) for i in cu["delete"]["ids"])
    for v in deleted:
        assert v["xmax"] == cu["delete"]["xid"]
        assert v["values"] == before[v["values"]["id"]]
    (updated,) = [v for v in versions if v["status"] == "updated"]
    assert updated["xmax"] == cu["update"]["xid"] and updated["values"] == before["3"]
    live = {v["values"]["id"]: v["values"] for v in versions if v["status"] == "live"}
    assert live == after
    # without --all: what a SELECT returns now
    r = pgpage("rows", DATA, "--rel", "customers", "--json")
    assert {json.loads(line)["values"]["id"] for line in r.stdout.splitlines()} == set(after)


def test_maps_of_an_empty_table_are_not_unknown():
    """A table without pages has no page for a visibility map or free space map to describe, so that none is
    there says nothing is unknown, unlike a table with pages and no map (the demo's story tables, never vacuumed)."""
    empty = pgpage_json("heap", DATA, "--rel", "pg_catalog.pg_default_acl")
    assert empty["blocks"] == 0 and not empty["visibility"]["vm_present"]
    assert not [f for f in empty["findings"] if f["code"] in ("heap.vm.missing", "heap.fsm.missing")]
    bloated = pgpage_json("heap", DATA, "--rel", "public.bloated")
    assert bloated["blocks"] and "heap.vm.missing" in {f["code"] for f in bloated["findings"]}
