"""The statistics file a clean shutdown wrote (fixtures/stories, make_stories.py), against the server's own
pg_stat_user_tables / pg_stat_user_indexes read right before that shutdown: every column, every major."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings, strategies as st

from pgpage.decode.pgstat import COUNTERS, decode_statistics
from pgpage.decode.versions import PGSTAT_FILE_FORMAT_ID
from pgpage.passes.stats import PAGES_SOURCE, cluster_statistics, hot_ratio, relation_statistics
from pgpage.storage.datadir import open_data_directory

STORIES = FIXTURES / "stories"
STORY_MAJORS = sorted(int(p.name[2:]) for p in STORIES.glob("pg*") if (p / "oracle" / "stats.json").is_file())
NAMES = ("relid", "indexrelid", "schemaname", "relname", "indexrelname")


def test_stories_cover_the_required_majors():
    assert {10, 13, 15, 17, 18} <= set(STORY_MAJORS)


def _oracle(major: int) -> dict:
    return json.loads((STORIES / f"pg{major}" / "oracle" / "stats.json").read_text())


@pytest.mark.parametrize("snapshot", ["", "before"])
@pytest.mark.parametrize("major", STORY_MAJORS)
def test_every_column_equals_the_views(major, snapshot):
    """Both snapshots (AFTER, and BEFORE the update pass), both databases the views were read in."""
    oracle = json.loads((STORIES / f"pg{major}" / snapshot / "oracle" / "stats.json").read_text())
    cluster = open_data_directory(str(STORIES / f"pg{major}" / snapshot / "data"))
    assert cluster_statistics(cluster)["status"] == "current"
    compared = 0
    for db, views in (("stories", oracle), *oracle["other_databases"].items()):
        by_oid = {r.oid: r for r in cluster.database(db).relations()}
        for view in ("pg_stat_user_tables", "pg_stat_user_indexes"):
            assert len(views[view]) >= (6 if db == "stories" else 1)
            for row in views[view]:
                got = relation_statistics(cluster, by_oid[row.get("indexrelid", row["relid"])])
                want = {k: v for k, v in row.items() if k not in NAMES}
                assert {k: v for k, v in got.items() if k not in ("status", "source")} == want, row["relname"]
                compared += len(want)
    assert compared > 140
    hot = {r["relname"]: r["n_tup_hot_upd"] for r in oracle["pg_stat_user_tables"]}
    # the stories did what they say
    assert hot["hot_unindexed"] == (0 if snapshot else 96) and hot["upd_indexed"] == 0


def _copy(tmp_path: Path, major: int) -> Path:
    dest = tmp_path / "data"
    shutil.copytree(STORIES / f"pg{major}" / "data", dest)
    return dest


def _stat_file(major: int) -> str:
    return "pgstat.stat" if major >= 15 else "db_%d.stat" % _oracle(major)["database_oid"]


@pytest.mark.parametrize("major", [10, 17])
def test_unknown_format_id_is_refused(tmp_path, major):
    data = _copy(tmp_path, major)
    path = data / "pg_stat" / _stat_file(major)
    raw = bytearray(path.read_bytes())
    raw[0] ^= 0x01
    path.write_bytes(bytes(raw))
    st = cluster_statistics(open_data_directory(str(data)))
    codes = [f.code for f in st["findings"]]
    assert "stats.format_unknown" in codes
    if major >= 15:
        assert st["status"] == "unreadable" and not st["relations"]
    bad = next(f for f in st["findings"] if f.code == "stats.format_unknown")
    assert bad.expected == PGSTAT_FILE_FORMAT_ID[major] and bad.actual == int.from_bytes(raw[:4], "little")


@pytest.mark.parametrize("major", [13, 18])
def test_truncated_file_is_a_finding(tmp_path, major):
    raw = (STORIES / f"pg{major}" / "data" / "pg_stat" / _stat_file(major)).read_bytes()
    for cut in (len(raw) - 1, len(raw) // 2, 7):
        out = decode_statistics({_stat_file(major): raw[:cut]}, major)
        assert [f.code for f in out["findings"]] in (["stats.truncated"], ["stats.entry_unknown"]), cut


def test_other_majors_format_is_refused():
    raw = (STORIES / "pg17" / "data" / "pg_stat" / "pgstat.stat").read_bytes()
    out = decode_statistics({"pgstat.stat": raw}, 15)   # a 17 file in a 15 cluster
    assert [f.code for f in out["findings"]] == ["stats.format_unknown"] and not out["relations"]


def test_absent_without_a_clean_shutdown(tmp_path):
    data = _copy(tmp_path, 17)
    shutil.rmtree(data / "pg_stat")
    cluster = open_data_directory(str(data))
    st = cluster_statistics(cluster)
    assert st["status"] == "absent" and [f.code for f in st["findings"]] == ["stats.absent"]
    rel = cluster.database("stories").relation("upd_indexed")
    stats = relation_statistics(cluster, rel)
    assert stats == {"status": "absent", "source": "pg_stat/pgstat.stat"}
    assert hot_ratio(stats, 3, 10) == {"hot": 3, "updated": 10, "ratio": 0.3, "exact": False,
                                       "source": PAGES_SOURCE}


@pytest.mark.parametrize("major", [10, 15])
def test_older_than_the_checkpoint_is_stale(tmp_path, major):
    data = _copy(tmp_path, major)
    cluster = open_data_directory(str(data))
    checkpoint = cluster.control["checkPointCopy"]["time"]
    if major >= 15:  # the file's time is its mtime
        os.utime(data / "pg_stat" / "pgstat.stat", (checkpoint - 60, checkpoint - 60))
    else:            # global.stat's stats_timestamp, 8 bytes after the format id
        path = data / "pg_stat" / "global.stat"
        raw = bytearray(path.read_bytes())
        ts = int.from_bytes(raw[4:12], "little", signed=True) - 3600 * 10 ** 6
        raw[4:12] = ts.to_bytes(8, "little", signed=True)
        path.write_bytes(bytes(raw))
    cluster = open_data_directory(str(data))
    st = cluster_statistics(cluster)
    assert st["status"] == "stale" and "stats.stale" in [f.code for f in st["findings"]]
    stats = relation_statistics(cluster, cluster.database("stories").relation("hot_unindexed"))
    assert stats["status"] == "stale" and hot_ratio(stats, 1, 2)["exact"] is False


def test_exact_hot_ratio_from_current_statistics():
    cluster = open_data_directory(str(STORIES / "pg17" / "data"))
    stats = relation_statistics(cluster, cluster.database("stories").relation("upd_brin"))
    assert hot_ratio(stats, 0, 0) == {"hot": 100, "updated": 100, "ratio": 1.0, "exact": True,
                                      "source": "pg_stat/pgstat.stat"}


_FUZZ_BASE = {m: (STORIES / f"pg{m}" / "data" / "pg_stat" / _stat_file(m)).read_bytes() for m in (13, 17, 18)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(major=st.sampled_from(sorted(_FUZZ_BASE)), data=st.data())
def test_damaged_statistics_files_never_raise(major, data):
    raw = bytearray(_FUZZ_BASE[major])
    for _ in range(data.draw(st.integers(1, 8))):   # flips and garbage runs after the (valid) format id
        at = data.draw(st.integers(4, len(raw) - 1))
        raw[at:at + data.draw(st.integers(1, 16))] = data.draw(st.binary(min_size=1, max_size=16))
    cut = data.draw(st.integers(0, len(raw)))
    out = decode_statistics({_stat_file(major): bytes(raw[:cut])}, major)
    assert isinstance(out["relations"], dict)
    for counters in out["relations"].values():
        assert set(counters) <= set(COUNTERS.values())


def test_the_demo_clusters_statistics_equal_its_oracle():
    """demo/data (make_demo.py) kept its pgstat.stat; its oracle read both views on the live server."""
    oracle = json.loads((FIXTURES.parent / "demo" / "oracle.json").read_text())["live"]
    cluster = open_data_directory(str(FIXTURES.parent / "demo" / "data"))
    (db,) = cluster.databases()
    compared = 0
    for view in ("pg_stat_user_tables", "pg_stat_user_indexes"):
        for name, row in oracle[view].items():
            got = relation_statistics(cluster, db.relation(name))
            assert got["status"] == "current"
            assert {k: got[k] for k in row if k in got} == {k: v for k, v in row.items() if k in got}, name
            compared += sum(1 for k in row if k in got)
    assert compared >= 50


@pytest.mark.parametrize("t", ["t1", "t2", "t3", "t4"])
def test_scenario_snapshots_statistics_equal_their_oracle(t):
    """The scenario snapshots (make_scenarios.py) keep the statistics file of the clean shutdown that made
    them: every column of the scenario tables and indexes equals stats.json, read live before that shutdown."""
    snap = FIXTURES / "scenarios" / "snapshots" / t
    oracle = json.loads((snap / "oracle" / "stats.json").read_text())
    cluster = open_data_directory(str(snap / "data"))
    assert cluster_statistics(cluster)["status"] == "current"
    by_oid = {r.oid: r for r in cluster.database("pgpage").relations()}
    compared = 0
    for view in ("pg_stat_user_tables", "pg_stat_user_indexes"):
        for row in oracle[view]:
            got = relation_statistics(cluster, by_oid[row.get("indexrelid", row["relid"])])
            want = {k: v for k, v in row.items() if k not in NAMES}
            assert {k: v for k, v in got.items() if k not in ("status", "source")} == want, row["relname"]
            compared += 1
    assert compared >= 2   # t4 keeps two tables (hint_load, bloat), without indexes
