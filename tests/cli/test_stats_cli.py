"""`pgpage heap` and `pgpage scan` with the statistics file of a clean shutdown (fixtures/stories), through the
real entry point: the counters equal the server's pg_stat_user_tables, the HOT ratio is exact with them and
a lower bound from the pages without them, and the text says which."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import FIXTURES

PGPAGE = [sys.executable, "-m", "pgpage"]
STORIES = FIXTURES / "stories"


def run(*args):
    return subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=300)


def _oracle(major: int) -> dict:
    doc = json.loads((STORIES / f"pg{major}" / "oracle" / "stats.json").read_text())
    return {r["relname"]: r for r in doc["pg_stat_user_tables"]}


def test_heap_json_and_text_with_the_statistics_file():
    for major, rel in ((13, "hot_unindexed"), (18, "upd_jsonb")):
        want = _oracle(major)[rel]
        r = run("heap", STORIES / f"pg{major}" / "data", "--db", "stories", "--rel", rel, "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        st = doc["statistics"]
        assert st["status"] == "current"
        assert {k: st[k] for k in want if k not in ("relid", "schemaname", "relname")} == {
            k: v for k, v in want.items() if k not in ("relid", "schemaname", "relname")}
        assert doc["hot_ratio"]["exact"] is True
        assert (doc["hot_ratio"]["hot"], doc["hot_ratio"]["updated"]) == (want["n_tup_hot_upd"], want["n_tup_upd"])
        text = run("heap", STORIES / f"pg{major}" / "data", "--db", "stories", "--rel", rel).stdout
        pct = 100 * want["n_tup_hot_upd"] / want["n_tup_upd"]
        assert f"{pct:.1f}% HOT ({want['n_tup_hot_upd']} of {want['n_tup_upd']} updates), exact" in text
        assert f"{want['n_tup_ins']} inserted, {want['n_tup_upd']} updated ({want['n_tup_hot_upd']} HOT)" in text
        assert f"seq_scan {want['seq_scan']}, idx_scan {want['idx_scan']}" in text


def test_heap_without_the_file_gives_a_lower_bound_and_says_so(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(STORIES / "pg17" / "data", data)
    shutil.rmtree(data / "pg_stat")
    r = run("heap", data, "--db", "stories", "--rel", "hot_unindexed", "--json")
    doc = json.loads(r.stdout)
    assert doc["statistics"] == {"status": "absent", "source": "pg_stat/pgstat.stat"}
    assert doc["hot_ratio"]["exact"] is False
    assert doc["hot_ratio"]["hot"] == doc["hot"]["hot_updated_tuples"] == 96   # every HOT version still on disk
    text = run("heap", data, "--db", "stories", "--rel", "hot_unindexed").stdout
    assert ">= 100.0% HOT (96 of the 96 updated versions on disk), a lower bound from the pages" in text
    assert "pg_stat/pgstat.stat: absent" in text


def test_scan_carries_the_statistics():
    want = _oracle(10)
    r = run("scan", STORIES / "pg10" / "data", "--json", "--kind", "heap", "--deep")
    assert r.returncode == 1 and not r.stderr   # 1: the files pruned from the fixture are relation.file_missing
    doc = json.loads(r.stdout)
    assert doc["cluster"]["statistics"]["status"] == "current"
    rels = {x["name"]: x for x in next(d for d in doc["databases"] if d["name"] == "stories")["relations"]}
    for name, row in want.items():
        entry = rels[f"public.{name}"]
        assert entry["statistics"]["n_tup_upd"] == row["n_tup_upd"]
        assert entry["statistics"]["n_tup_hot_upd"] == row["n_tup_hot_upd"]
        assert entry["statistics"]["last_analyze"] == row["last_analyze"]
        assert entry["hot_ratio"]["exact"] is True
    text = run("scan", STORIES / "pg10" / "data", "--kind", "heap").stdout
    assert "statistics pg_stat/global.stat, pg_stat/db_<oid>.stat: current" in text
    line = next(x for x in text.splitlines() if x.startswith("public.hot_unindexed") and "100" in x.split())
    assert line.split()[1:5] == ["300", "96", "100", "10"]
    assert max(len(x) for x in text.splitlines()) <= 100
    indexes = json.loads((STORIES / "pg10" / "oracle" / "stats.json").read_text())["pg_stat_user_indexes"]
    text = run("scan", STORIES / "pg10" / "data", "--kind", "btree").stdout
    assert "index statistics (current)" in text
    for row in indexes:
        if row["indexrelname"].endswith("_pkey"):   # the primary keys served the lookups
            line = next(x for x in text.splitlines() if x.startswith(f"public.{row['indexrelname']} ")
                        and len(x.split()) == 4)
            assert line.split()[1:] == [str(row["idx_scan"]), str(row["idx_tup_read"]), str(row["idx_tup_fetch"])]
            assert row["idx_scan"] >= 3


def test_a_stale_file_is_said_and_not_trusted(tmp_path):
    import os
    data = tmp_path / "data"
    shutil.copytree(STORIES / "pg15" / "data", data)
    old = (data / "pg_stat" / "pgstat.stat").stat().st_mtime - 10 ** 6   # long before the shutdown checkpoint
    os.utime(data / "pg_stat" / "pgstat.stat", (old, old))
    doc = json.loads(run("heap", data, "--db", "stories", "--rel", "upd_indexed", "--json").stdout)
    assert doc["statistics"]["status"] == "stale" and doc["hot_ratio"]["exact"] is False
    assert "stats.stale" in [f["code"] for f in doc["findings"]]
    text = run("scan", data, "--kind", "heap").stdout
    assert "statistics pg_stat/pgstat.stat: stale" in text and "HOT ratios are lower bounds" in text
    assert "stats.stale" in text


def _index_oracle(major: int, table: str) -> dict:
    doc = json.loads((STORIES / f"pg{major}" / "oracle" / "stats.json").read_text())
    return {r["indexrelname"]: r for r in doc["pg_stat_user_indexes"] if r["relname"] == table}


def test_heap_shows_each_indexs_scans():
    """`heap` of a table: pg_stat_user_indexes' idx_scan, idx_tup_read, idx_tup_fetch of each of its indexes,
    as the server gave them before its shutdown (the table's idx_scan is their sum)."""
    for major, rel in ((13, "hot_unindexed"), (17, "upd_jsonb"), (18, "upd_jsonb")):
        want = _index_oracle(major, rel)
        assert len(want) >= 2 and any(r["idx_scan"] for r in want.values())
        doc = json.loads(run("heap", STORIES / f"pg{major}" / "data", "--db", "stories", "--rel", rel, "--json").stdout)
        got = {i["indexrelname"]: i for i in doc["statistics"]["indexes"]}
        assert set(got) == set(want)
        for name, row in want.items():
            assert got[name]["indexrelid"] == row["indexrelid"]
            assert {k: got[name][k] for k in row if k in got[name] and k != "indexrelid"} == {
                k: v for k, v in row.items() if k in ("idx_scan", "last_idx_scan", "idx_tup_read", "idx_tup_fetch",
                                                      "indexrelname")}
        assert sum(r["idx_scan"] for r in want.values()) == doc["statistics"]["idx_scan"]
        text = run("heap", STORIES / f"pg{major}" / "data", "--db", "stories", "--rel", rel).stdout
        for name, row in want.items():
            assert (f"index {name}: idx_scan {row['idx_scan']}, idx_tup_read {row['idx_tup_read']},"
                    f" idx_tup_fetch {row['idx_tup_fetch']}") in text


def test_scan_text_shows_when_tables_were_vacuumed_and_analyzed():
    """The newest of last_vacuum and last_autovacuum (and of the analyzes), to the second in UTC, as
    pg_stat_user_tables gave them; whole column headers in 100 columns (a wider COLUMNS or terminal gets lines
    as wide as it: issue 42)."""
    import os
    want = _oracle(17)
    r = subprocess.run([*PGPAGE, "scan", str(STORIES / "pg17" / "data"), "--kind", "heap"], capture_output=True,
                       text=True, timeout=300, env={**os.environ, "COLUMNS": "100"})
    lines = r.stdout.splitlines()
    assert max(len(x) for x in lines) <= 100
    lines = lines[next(i for i, x in enumerate(lines) if x.startswith("database stories ")):]  # not other, added
    head = next(x for x in lines if x.startswith("relation") and "vacuums" in x)
    assert head.split() == ["relation", "vacuums", "last", "vacuum", "(UTC)", "analyzes", "last", "analyze", "(UTC)"]
    shown = 0
    for name, row in want.items():
        line = next((x for x in lines[lines.index(head):] if x.startswith(f"public.{name} ")), None)
        counts = (row["vacuum_count"] + row["autovacuum_count"], row["analyze_count"] + row["autoanalyze_count"])
        if not any(counts):
            assert line is None
            continue
        shown += 1

        def newest(what):
            t = [row[f"last_{what}"], row[f"last_auto{what}"]]
            return max((x for x in t if x), default=None)
        for what in ("vacuum", "analyze"):
            ts = newest(what)
            assert (ts[:19].replace("T", " ") if ts else "never") in line
        assert line.split()[1] == str(counts[0])
    assert shown >= 2
