"""Whole-cluster `pgpage diff` against a real PostgreSQL (Debian's 15, tests/livepg.py): a cluster of
several databases is stopped and copied, runs a workload (updates, VACUUM FULL, TRUNCATE, CLUSTER,
DROP TABLE, CREATE DATABASE, DROP DATABASE, a VACUUM that writes only a table's FSM), is stopped and
copied again. What the diff must say comes from the server's own catalogs on both sides (pg_database,
pg_class oids and pg_relation_filenode) and, for the FSM-only table, from pg_relation_size and
pageinspect's get_raw_page, never from pgpage's output."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from livepg import Server

SETUP = {
    "d1": ["CREATE TABLE t_upd (id int PRIMARY KEY, v int)",
           "INSERT INTO t_upd SELECT i, i FROM generate_series(1, 2000) i",
           "CREATE TABLE t_vf (id int PRIMARY KEY, pad text)",
           "INSERT INTO t_vf SELECT i, md5(i::text) FROM generate_series(1, 2000) i",
           "DELETE FROM t_vf WHERE id % 2 = 0",
           "CREATE TABLE t_trunc (id int PRIMARY KEY, pad text)",
           "INSERT INTO t_trunc SELECT i, repeat('x', 3000) FROM generate_series(1, 50) i",  # a TOAST table too
           "CREATE TABLE t_clu (id int, v int)", "CREATE INDEX t_clu_v ON t_clu (v)",
           "INSERT INTO t_clu SELECT i, (i * 7919) % 1000 FROM generate_series(1, 1000) i",
           "CREATE TABLE t_drop (id int PRIMARY KEY, pad text)",
           "INSERT INTO t_drop SELECT i, repeat('y', 3000) FROM generate_series(1, 20) i",
           "CREATE TABLE t_gin (id int, tags int[])", "CREATE INDEX t_gin_tags ON t_gin USING gin (tags)",
           "CREATE INDEX t_gin_id ON t_gin USING hash (id)", "CREATE INDEX t_gin_btree ON t_gin (id)",
           "INSERT INTO t_gin SELECT i, ARRAY[i, i % 7] FROM generate_series(1, 100) i",
           "CREATE EXTENSION pageinspect",
           "SELECT count(*) FROM t_upd", "SELECT count(*) FROM t_vf", "SELECT count(*) FROM t_clu"],
    "d2": ["CREATE TABLE d2t (id int, v int)", "INSERT INTO d2t SELECT i, i FROM generate_series(1, 500) i"],
    "d3": ["CREATE TABLE d3t (id int)", "INSERT INTO d3t SELECT generate_series(1, 100)"],
}
WORKLOAD = [
    ("d1", "UPDATE t_upd SET v = v + 1 WHERE id <= 200"),
    ("d1", "VACUUM FULL t_vf"),
    ("d1", "TRUNCATE t_trunc"),
    ("d1", "CLUSTER t_clu USING t_clu_v"),
    ("d1", "DROP TABLE t_drop"),
    ("d1", "VACUUM t_fsm"),  # COPY FREEZE left its pages frozen and all-visible: VACUUM writes its FSM alone
    ("d1", "CREATE TABLE t_new AS SELECT generate_series(1, 100) AS id"),
    ("d1", "INSERT INTO t_gin SELECT i, ARRAY[i, i % 7] FROM generate_series(101, 200) i"),
    ("d2", "UPDATE d2t SET v = v + 1"),
    ("postgres", "CREATE DATABASE d4"),
    ("postgres", "DROP DATABASE d3"),
]
RELKINDS_WITH_STORAGE = "('r','i','t','S','m')"


def launch(srv: Server) -> None:
    opts = f"-c listen_addresses='' -c unix_socket_directories={srv.root} -c autovacuum=off"
    srv.run("pg_ctl", "-D", str(srv.data), "-l", str(srv.root / "log"), "-o", opts, "-w", "start")


def catalog_facts(srv: Server) -> dict:
    """{database oid: (name, {pg_class oid: (relname, filenode)})} for every database that takes connections."""
    with srv.connect() as c:
        dbs = c.execute("SELECT oid, datname, datallowconn FROM pg_database").fetchall()
    out = {}
    for oid, name, allow in dbs:
        rels = None
        if allow:
            with srv.connect(name) as c:
                rels = {r[0]: (r[1], r[2]) for r in c.execute(
                    f"SELECT oid::int, relname, pg_relation_filenode(oid)::int FROM pg_class"
                    f" WHERE relkind IN {RELKINDS_WITH_STORAGE} AND relpersistence = 'p' AND NOT relisshared")}
        out[int(oid)] = (name, rels)
    return out


def fsm_table_facts(srv: Server) -> dict:
    with srv.connect("d1") as c:
        c.execute("CHECKPOINT")
        n = c.execute("SELECT pg_relation_size('t_fsm') / 8192").fetchone()[0]
        # past pd_lsn and pd_checksum: the checksum in shared buffers is set only on the copy written out
        pages = [c.execute("SELECT md5(substring(get_raw_page('t_fsm', %s) from 11))", (i,)).fetchone()[0]
                 for i in range(n)]
        return {"main_pages": pages, "fsm_bytes": c.execute("SELECT pg_relation_size('t_fsm', 'fsm')").fetchone()[0],
                "oid": c.execute("SELECT 't_fsm'::regclass::oid::int").fetchone()[0]}


STAT_COUNTERS = ("n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "n_tup_del")


def stats_facts(srv: Server) -> dict:
    """{(database, table oid): pg_stat_user_tables' n_tup_* } as the server counts them before its shutdown."""
    out = {}
    for db in ("d1", "d2"):
        with srv.connect(db) as c:
            for relid, *counts in c.execute(f"SELECT relid::int, {', '.join(STAT_COUNTERS)} FROM pg_stat_user_tables"):
                out[(db, relid)] = dict(zip(STAT_COUNTERS, counts))
    return out


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    srv = Server()
    try:
        srv.start()
        with srv.connect() as c:
            for db in SETUP:
                c.execute(f"CREATE DATABASE {db}")
        for db, stmts in SETUP.items():
            with srv.connect(db) as c:
                for sql in stmts:
                    c.execute(sql)
        with srv.connect("d1") as c:
            c.autocommit = False
            c.execute("CREATE TABLE t_fsm (id int, pad text)")
            with c.cursor().copy("COPY t_fsm FROM STDIN (FREEZE)") as cp:
                for i in range(1, 1001):
                    cp.write_row((i, f"row {i}"))
            c.commit()
        before_facts, before_fsm = catalog_facts(srv), fsm_table_facts(srv)
        before_stats = stats_facts(srv)
        srv.stop()
        root = tmp_path_factory.mktemp("diff-live")
        shutil.copytree(srv.data, root / "before", symlinks=True)
        launch(srv)
        for db, sql in WORKLOAD:
            with srv.connect(db) as c:
                c.execute(sql)
        after_facts, after_fsm = catalog_facts(srv), fsm_table_facts(srv)
        after_stats = stats_facts(srv)
        srv.stop()
        shutil.copytree(srv.data, root / "after", symlinks=True)
    finally:
        srv.stop("immediate")
        srv.remove()
    yield {"before": root / "before", "after": root / "after", "facts": (before_facts, after_facts),
           "fsm": (before_fsm, after_fsm), "stats": (before_stats, after_stats)}


def pgpage(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def doc(snapshots):
    run = pgpage("diff", snapshots["before"], snapshots["after"], "--json")
    assert run.returncode == 1, run.stderr
    return json.loads(run.stdout)


def test_databases_created_and_dropped(snapshots, doc):
    before, after = snapshots["facts"]
    expected = {oid: "in both" if oid in after else "dropped" for oid in before}
    expected.update({oid: "created" for oid in after if oid not in before})
    assert {d["oid"]: d["status"] for d in doc["databases"]} == expected
    names = {d["name"]: d["status"] for d in doc["databases"]}
    assert names["d3"] == "dropped" and names["d4"] == "created" and names["d1"] == names["d2"] == "in both"
    assert doc["databases_changed"] == 2


def test_relations_matched_by_database_and_oid(snapshots, doc):
    """Every relation of every database both snapshots hold: dropped when its pg_class row is gone,
    created when it is new, rewritten when pg_relation_filenode moved, in place otherwise."""
    before, after = snapshots["facts"]
    got = {(r["database"], r["oid"]): r for r in doc["relations"]}
    expected = {}
    for oid, (name, b_rels) in before.items():
        if oid not in after or b_rels is None:
            continue
        a_rels = after[oid][1]
        for rel in set(b_rels) | set(a_rels):
            b, a = b_rels.get(rel), a_rels.get(rel)
            expected[name, rel] = ("dropped" if a is None else "created" if b is None
                                   else "rewritten" if a[1] != b[1] else "in place")
    assert {k: got[k]["status"] for k in expected if k in got} == expected
    assert set(expected) <= set(got)
    assert len(expected) > 800  # 4 databases of about 225 relations each
    # the shared catalogs (global/) once, in no database; pg_database changed (d3 gone, d4 new)
    shared = [r for r in doc["relations"] if r["database"] is None]
    assert len(shared) == len({r["oid"] for r in shared}) > 10
    assert {r["name"]: r.get("changed") for r in shared}["pg_catalog.pg_database"]
    d1 = {r["name"]: r for r in doc["relations"] if r["database"] == "d1"}
    for table in ("t_vf", "t_trunc", "t_clu"):
        assert d1[f"public.{table}"]["status"] == "rewritten"
        assert d1[f"public.{table}"]["before"]["relfilenode"] != d1[f"public.{table}"]["after"]["relfilenode"]
    assert d1["public.t_drop"]["status"] == d1["public.t_drop_pkey"]["status"] == "dropped"
    assert d1["public.t_upd"]["status"] == "in place" and d1["public.t_upd"]["changed"]
    # template0 takes no connections and nothing ran in it: every relation in place, byte for byte
    t0 = [r for r in doc["relations"] if r["database"] == "template0"]
    assert t0 and all(r["status"] == "in place" and r["changed"] is False for r in t0)


def test_a_table_whose_fsm_alone_changed(snapshots, doc):
    (b, a) = snapshots["fsm"]
    assert b["main_pages"] == a["main_pages"] and b["fsm_bytes"] == 0 < a["fsm_bytes"]  # the server's word
    (r,) = [r for r in doc["relations"] if r["database"] == "d1" and r["oid"] == a["oid"]]
    assert r["status"] == "in place" and r["changed"]
    assert r["forks"]["fsm"]["changed"] and r["forks"]["fsm"]["after_bytes"] == a["fsm_bytes"]
    assert r["forks"]["fsm"]["before_bytes"] == 0
    assert not r["forks"]["main"]["changed"]


def test_identical_snapshots_exit_0(snapshots):
    run = pgpage("diff", snapshots["before"], snapshots["before"])
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "no differences"


def test_text_of_a_whole_cluster_diff(snapshots):
    run = pgpage("diff", snapshots["before"], snapshots["after"], "--all")
    assert run.returncode == 1
    out = run.stdout
    assert "database d3" in out and "dropped" in out and "database d4" in out
    assert "d1: public.t_vf" in out and "REWRITTEN" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_statistics_delta_is_what_the_server_counted(snapshots, doc):
    """Each changed table's n_tup_* between the snapshots, from the two statistics files, equals
    pg_stat_user_tables read on the server before each clean shutdown (after minus before)."""
    before, after = snapshots["stats"]
    compared = {}
    for r in doc["relations"]:
        key = (r.get("database"), r.get("oid"))
        if r.get("statistics") is None or key not in after:
            continue
        st = r["statistics"]
        assert st["exact"], st
        expected = {k: after[key][k] - before.get(key, dict.fromkeys(STAT_COUNTERS, 0))[k] for k in STAT_COUNTERS}
        assert {k: st[k] for k in STAT_COUNTERS} == expected, r["name"]
        compared[r["name"]] = expected
    assert compared["public.t_upd"]["n_tup_upd"] == 200          # the workload's UPDATE, as the server counted it
    assert compared["public.d2t"]["n_tup_upd"] == 500
    assert len(compared) >= 4


def test_rewritten_or_created_relation_whose_file_is_missing(snapshots, tmp_path):
    """A copy of AFTER without t_vf's new file (VACUUM FULL moved pg_relation_filenode) and without
    t_new's (created between the snapshots): relation.file_missing for both, not "rewritten" with 0
    bytes nor silently nothing; with the directory of d2 gone too, d2 is not "dropped"."""
    before, after = snapshots["facts"]
    d1 = next(oid for oid, (name, _) in after.items() if name == "d1")
    d2 = next(oid for oid, (name, _) in after.items() if name == "d2")
    oids = {name: (oid, node) for oid, (name, node) in after[d1][1].items()}
    assert oids["t_vf"][1] != before[d1][1][oids["t_vf"][0]][1] and oids["t_new"][0] not in before[d1][1]
    copy = tmp_path / "after"
    shutil.copytree(snapshots["after"], copy, symlinks=True)
    for name in ("t_vf", "t_new"):
        (copy / "base" / str(d1) / str(oids[name][1])).unlink()
    shutil.rmtree(copy / "base" / str(d2))
    run = pgpage("diff", snapshots["before"], copy, "--json")
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    got = {(r["database"], r["oid"]): r for r in doc["relations"]}
    for name in ("t_vf", "t_new"):
        r = got["d1", oids[name][0]]
        assert r["status"] == "file missing after" and r["finding"]["code"] == "relation.file_missing", r
        assert f"base/{d1}/{oids[name][1]}" in r["finding"]["message"]
    assert got["d1", oids["t_vf"][0]]["before"]["relfilenode"] == before[d1][1][oids["t_vf"][0]][1]
    (db2,) = [d for d in doc["databases"] if d["oid"] == d2]
    assert db2["status"] == "directory missing after" and db2["finding"]["code"] == "database.directory_missing"
    d2_rels = {oid for (db, oid), r in got.items() if db == "d2"}
    assert d2_rels == set(before[d2][1]) and all(got["d2", o]["status"] == "file missing after" for o in d2_rels)
    text = pgpage("diff", snapshots["before"], copy, "--all").stdout
    assert "public.t_new (table, heap)  FILE MISSING AFTER" in text and "DIRECTORY MISSING AFTER" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_ratios_divide_by_the_servers_counts(snapshots, doc):
    """Both statistics files current: bytes and index entries per row change divide by pg_stat_user_tables'
    n_tup_ins + n_tup_upd + n_tup_del as read on the server, and the text says whose count it is."""
    before, after = snapshots["stats"]
    for r in doc["relations"]:
        key = (r.get("database"), r.get("oid"))
        wa = r.get("write_amplification")
        if wa is None or key not in after:
            continue
        d = {k: after[key][k] - before.get(key, dict.fromkeys(STAT_COUNTERS, 0))[k] for k in STAT_COUNTERS}
        changes = d["n_tup_ins"] + d["n_tup_upd"] + d["n_tup_del"]
        assert wa["ratios_per"] == {"source": "pg_stat", "exact": True, "row_versions": d["n_tup_ins"] + d["n_tup_upd"],
                                    "row_changes": changes}, r["name"]
        assert wa["logical_row_changes"] == changes
        assert wa["total_bytes_per_row_change"] == (round(wa["total_bytes_written"] / changes, 1) if changes else None)
    t_upd = next(r for r in doc["relations"] if r["name"] == "public.t_upd")
    assert t_upd["write_amplification"]["ratios_per"]["row_changes"] == 200
    text = pgpage("diff", snapshots["before"], snapshots["after"], "--db", "d1", "--rel", "t_upd").stdout
    per = round(t_upd["write_amplification"]["total_bytes_written"] / 200, 1)
    assert f"per row change: {per:,} bytes (200 inserts, updates and deletes, pg_stat's count)" in text


def test_entries_of_other_access_methods_are_not_counted(snapshots, doc):
    """t_gin gained 100 rows (pg_stat's n_tup_ins) under a GIN, a hash and a B-tree index: the B-tree's
    entries are counted, the others' are "not counted", never "no row versions written"."""
    before, after = snapshots["stats"]
    (r,) = [r for r in doc["relations"] if r["database"] == "d1" and r["name"] == "public.t_gin"]
    key = ("d1", r["oid"])
    assert after[key]["n_tup_ins"] - before[key]["n_tup_ins"] == 100
    idx = {i["name"]: i for i in r["indexes"]}
    assert {n: (i["am"], i["entries_counted"]) for n, i in idx.items()} == {
        "public.t_gin_tags": ("gin", False), "public.t_gin_id": ("hash", False), "public.t_gin_btree": ("btree", True)}
    assert idx["public.t_gin_btree"]["entries_added"] == 100
    assert idx["public.t_gin_tags"]["entries_added"] is None is idx["public.t_gin_tags"]["entries_per_row_version"]
    wa = r["write_amplification"]
    assert wa["index_entries_added"] is None and wa["index_entries_per_row_version"] is None
    assert sorted(wa["indexes_not_counted"]) == ["public.t_gin_id", "public.t_gin_tags"]
    text = pgpage("diff", snapshots["before"], snapshots["after"], "--db", "d1", "--rel", "t_gin").stdout
    line = next(x for x in text.splitlines() if x.startswith("  index entries:"))
    assert "t_gin_tags not counted (gin)" in line and "t_gin_id not counted (hash)" in line
    assert "t_gin_btree +100" in line and "no row versions written" not in text
