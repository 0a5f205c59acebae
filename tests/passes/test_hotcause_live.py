"""Why updates were not HOT, on a real server's files (Debian's PostgreSQL 15, tests/livepg.py).

The stories workload (tests/stories_workload.py) runs on a throwaway server; heap_page_items of every
table is read before a clean shutdown, and is the truth: which old versions were replaced by a
non-HOT update, and which of them went to another page. The rest stayed on their page, and the
workload says why (the column each table's UPDATE changed, and the index using it).
`pgpage heap --json` must give the same counts by cause and by index, and examples that are true.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from livepg import running_server
from stories_workload import PAGE_ITEMS_SQL, TABLES, heap_truth


@pytest.fixture(scope="module")
def stories():
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE DATABASE stories")
        conn.close()
        conn = srv.connect("stories")
        conn.execute("CREATE EXTENSION pageinspect")
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
        for sql in TABLES.values():
            conn.execute(sql)
        conn.execute("CHECKPOINT")
        truth = {t: heap_truth(t, major, conn.execute(PAGE_ITEMS_SQL, (t, t)).fetchall()) for t in TABLES}
        conn.close()
        srv.stop("fast")
        yield srv.data, major, truth


def heap(data, table, *extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", "heap", str(data), "--db", "stories", "--rel", table,
                           *extra], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("table", list(TABLES))
def test_heap_why_not_hot_equals_heap_page_items(stories, table):
    data, major, truth = stories
    t = truth[table]
    proc = heap(data, table, "--json")
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    w = doc["why_not_hot"]
    assert doc["hot"]["hot_updated_tuples"] == t["hot"]
    assert (w["not_hot"], w["causes"], w["by_index"]) == (t["not_hot"], t["causes"], t["by_index"])
    assert w["unknown_reasons"] == {"successor_not_on_disk": 0, "values_unreadable": 0, "none_of_the_above": 0}
    for e in w["examples"]:
        assert t["olds"][e["ctid"]] == e["cause"]
        if e["cause"] == "other_page":
            assert e["successor"].split(",")[0] != e["ctid"].split(",")[0]
            assert 0 <= e["old_page_free_now"] < 8192 and e["new_len"] > 24
            assert e["old_page_free_then_below"] == -(-e["new_len"] // 8) * 8 + 4
    # the workload's tables each have both kinds, or only one, and every cause found has examples
    assert {e["cause"] for e in w["examples"]} == {c for c, n in t["causes"].items() if n}


def test_heap_why_not_hot_text(stories):
    data, major, truth = stories
    out = heap(data, "upd_jsonb").stdout
    t = truth["upd_jsonb"]
    assert f"not HOT    {t['not_hot']} updates still on disk" in out
    assert f"{t['causes']['indexed_column']} indexed column changed" in out
    assert "upd_jsonb_k_idx (doc, in its expression)" in out
    out = heap(data, "upd_partial").stdout
    assert "upd_partial_a_idx (flag, in its predicate)" in out
    out = heap(data, "upd_brin").stdout
    n = truth["upd_brin"]["causes"]["summarizing_column"]
    assert major < 16 and n > 0 and f"{n} only a BRIN column changed" in out
    out = heap(data, "upd_nofit").stdout
    assert f"{truth['upd_nofit']['causes']['other_page']} new version on another page" in out
    assert "B free then" in out and "B now; new " in out


def test_heap_whole_database(stories):
    """`pgpage heap DATADIR --db stories`: every table, each with the figures `--rel` gives."""
    data, major, truth = stories
    proc = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(data), "--db", "stories", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "pgpage.heap.database/1" and doc["database"] == "stories"
    tables = {t["relation"]: t for t in doc["tables"]}
    assert sorted(tables) == sorted(f"stories.public.{t}" for t in TABLES)
    for name, t in truth.items():
        w = tables[f"stories.public.{name}"]["why_not_hot"]
        assert (w["not_hot"], w["causes"], w["by_index"]) == (t["not_hot"], t["causes"], t["by_index"])
    text = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(data), "--db", "stories"],
                          capture_output=True, text=True, timeout=300).stdout
    for name, t in truth.items():
        assert f"stories.public.{name} " in text
        assert f"not HOT    {t['not_hot']} updates still on disk" in text
    refused = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(data), "--db", "stories", "--map", "dead"],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "--rel" in refused.stderr


@pytest.fixture(scope="module")
def two_snapshots(tmp_path_factory):
    """BEFORE: the tables loaded and upd_indexed's update pass done; AFTER: the other tables' update passes.
    Both from clean shutdowns; heap_page_items read before the second one."""
    import shutil
    before = tmp_path_factory.mktemp("before") / "data"
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE DATABASE stories")
        conn.close()
        conn = srv.connect("stories")
        conn.execute("CREATE EXTENSION pageinspect")
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
        updates = {}
        for table, sql in TABLES.items():
            load, _, update = sql.rpartition("UPDATE")
            conn.execute(load)
            updates[table] = "UPDATE" + update
        # part of it before BEFORE (rows of block 0), the rest after (rows of block 1) through the primary key:
        # block 0 is not visited, so its old versions are not pruned away by the second pass
        conn.execute(updates["upd_indexed"].replace("id <= 100", "id <= 40"))
        updates["upd_indexed"] = ("SET enable_seqscan = off; SET enable_bitmapscan = off; "
                                  + updates["upd_indexed"].replace("id <= 100", "id BETWEEN 200 AND 240")
                                  + " RESET enable_seqscan; RESET enable_bitmapscan;")
        since = int(conn.execute("SELECT txid_current()").fetchone()[0]) + 1
        conn.execute("CHECKPOINT")
        conn.close()
        srv.stop("fast")
        shutil.copytree(srv.data, before, symlinks=True)
        srv.run("pg_ctl", "-D", str(srv.data), "-l", str(srv.root / "log"), "-o",
                f"-c listen_addresses='' -c unix_socket_directories={srv.root} -c autovacuum=off", "-w", "start")
        conn = srv.connect("stories")
        for sql in updates.values():
            conn.execute(sql)
        conn.execute("CHECKPOINT")
        items = {t: conn.execute(PAGE_ITEMS_SQL, (t, t)).fetchall() for t in TABLES}
        conn.close()
        srv.stop("fast")
        yield before, srv.data, {t: heap_truth(t, major, i, since) for t, i in items.items()}, \
            heap_truth("upd_indexed", major, items["upd_indexed"])


def test_diff_why_not_hot_of_the_updates_between_snapshots(two_snapshots):
    """`pgpage diff`: the non-HOT updates made between the snapshots, by cause, as heap_page_items says;
    half of upd_indexed's, made before BEFORE, are not among them (`heap` on AFTER shows them all)."""
    before, after, truth, upd_indexed_all = two_snapshots
    assert 0 < truth["upd_indexed"]["not_hot"] < upd_indexed_all["not_hot"]
    proc = subprocess.run([sys.executable, "-m", "pgpage", "diff", str(before), str(after), "--db", "stories",
                           "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    rels = {r["name"]: r for r in json.loads(proc.stdout)["relations"]}
    for table, t in truth.items():
        w = rels[f"public.{table}"]["why_not_hot"]
        assert (w["not_hot"], w["causes"], w["by_index"]) == (t["not_hot"], t["causes"], t["by_index"]), table
    text = subprocess.run([sys.executable, "-m", "pgpage", "diff", str(before), str(after), "--db", "stories"],
                          capture_output=True, text=True, timeout=300).stdout
    n = truth["upd_partial"]["causes"]["indexed_column"]
    assert f"upd_partial_a_idx: changed flag in {n} updates" in text
    proc = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(after), "--db", "stories", "--rel",
                           "upd_indexed", "--json"], capture_output=True, text=True, timeout=300)
    assert json.loads(proc.stdout)["why_not_hot"]["causes"] == upd_indexed_all["causes"]


def test_free_space_then_of_an_update_to_another_page():
    """Page 0 filled, its free space (pageinspect's page_header: upper - lower) read just before each
    UPDATE that cannot stay on it: `heap` bounds that figure from the new version's length alone, and the
    figure the server had then is under the bound."""
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION pageinspect")
        conn.execute("CREATE TABLE nofit (id int, pad text) WITH (fillfactor = 100)")
        conn.execute("INSERT INTO nofit SELECT i, repeat('x', 100) FROM generate_series(1, 60) i")
        holder = srv.connect()  # an older snapshot: no pruning of page 0 between the updates
        holder.autocommit = False
        holder.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        holder.execute("SELECT count(*) FROM nofit")
        free_then = {}
        for i in (1, 2, 3):
            free_then[i] = conn.execute("SELECT upper - lower FROM page_header(get_raw_page('nofit', 0))").fetchone()[0]
            conn.execute("UPDATE nofit SET pad = repeat('y', 100 + %s) WHERE id = %s", (i, i))
        items = conn.execute("SELECT lp, lp_len, t_ctid::text FROM heap_page_items(get_raw_page('nofit', 0))"
                             " WHERE lp <= 3").fetchall()
        succ = {r[0]: r[2] for r in items}
        lens = {}
        for i in (1, 2, 3):
            blk, off = succ[i].strip("()").split(",")
            assert blk != "0"  # the server put it on another page
            lens[i] = conn.execute("SELECT lp_len FROM heap_page_items(get_raw_page('nofit', %s)) WHERE lp = %s",
                                   (int(blk), int(off))).fetchone()[0]
        holder.rollback()
        holder.close()
        conn.close()
        srv.stop("fast")
        proc = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(srv.data), "--db", "postgres", "--rel", "nofit",
                               "--json"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode in (0, 1), proc.stderr
        examples = json.loads(proc.stdout)["why_not_hot"]["examples"]
        assert [e["ctid"] for e in examples] == ["(0,1)", "(0,2)", "(0,3)"]
        for e in examples:
            i = int(e["ctid"][3:-1])
            assert e["cause"] == "other_page" and e["new_len"] == lens[i]
            assert e["old_page_free_then_below"] == -(-lens[i] // 8) * 8 + 4
            assert free_then[i] < e["old_page_free_then_below"]


def test_why_not_hot_fetches_no_value_it_does_not_need(monkeypatch):
    """Updates whose new version went to another page, of a table no index reads a column of and of one whose
    expression index reads a column they changed: their values out of line in TOAST, the causes are
    heap_page_items' and the workload's, and no value is fetched (each was fetched one by one before: `diff` of a 1.3 GB TOAST table's updates took 70 s
    instead of 7; `heap` of 50 000 documents under an expression index 25 s instead of 0.6)."""
    from pgpage.passes.hotcause import why_not_hot
    from pgpage.passes.toast import ToastStore
    from pgpage.storage.datadir import open_data_directory
    tables = {"t_big": "CREATE TABLE t_big (id int, doc text, note text) WITH (fillfactor = 100)",
              "t_docs": "CREATE TABLE t_docs (id int, doc text, note text) WITH (fillfactor = 100);"
                        " CREATE INDEX t_docs_k ON t_docs ((left(doc, 8)))"}
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION pageinspect")
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
        truth = {}
        for t, create in tables.items():
            conn.execute(create)
            conn.execute(f"ALTER TABLE {t} ALTER doc SET STORAGE EXTERNAL")
            conn.execute(f"INSERT INTO {t} SELECT g, repeat(md5(g::text), 80), 'n' FROM generate_series(1, 300) g")
            conn.execute(f"UPDATE {t} SET note = repeat('y', 200), doc = doc || 'z' WHERE id <= 100")
            conn.execute("CHECKPOINT")
            truth[t] = heap_truth(t, major, conn.execute(PAGE_ITEMS_SQL, (t, t)).fetchall(),
                                  every_update=("indexed_column", "t_docs_k", "doc", "expression")
                                  if t == "t_docs" else None)
        conn.close()
        srv.stop("fast")

        def no_fetch(self, pointers, inflate=True):
            raise AssertionError("a value was fetched")
        monkeypatch.setattr(ToastStore, "fetch", no_fetch)
        cluster = open_data_directory(srv.data)
        for t in tables:
            w = why_not_hot(cluster, cluster.database("postgres").relation(t))
            # t_big: no index, every update moved; t_docs: moved too, and doc (in t_docs_k's expression) changed,
            # the cause a fillfactor would not cure
            moved = "other_page" if t == "t_big" else "indexed_column"
            assert truth[t]["causes"][moved] == truth[t]["not_hot"] >= 50
            assert truth[t]["other_page_too"]["indexed_column"] == (truth[t]["not_hot"] if t == "t_docs" else 0)
            keys = ("not_hot", "causes", "other_page_too", "by_index")
            assert [w[k] for k in keys] == [truth[t][k] for k in keys]


def test_why_not_hot_fetches_toasted_values_together(monkeypatch):
    """Updates that stayed on their page and changed an indexed column held out of line in TOAST (jsonb
    documents under an expression index): the causes are heap_page_items', and no value is fetched: the stored
    bytes are compared, as heap_update compares them (they were fetched a chunk at a time before: 10 000 such
    updates 1.8 s; one by one before that, 10.3 s)."""
    from pgpage.passes.hotcause import why_not_hot
    from pgpage.passes.toast import ToastStore
    from pgpage.storage.datadir import open_data_directory
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION pageinspect")
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
        conn.execute("CREATE TABLE upd_jsonb (id int PRIMARY KEY, doc jsonb) WITH (fillfactor = 50)")
        conn.execute("ALTER TABLE upd_jsonb ALTER doc SET STORAGE EXTERNAL")
        conn.execute("CREATE INDEX upd_jsonb_k_idx ON upd_jsonb ((doc->>'k'))")
        conn.execute("INSERT INTO upd_jsonb SELECT g, jsonb_build_object('k', g, 'body', (SELECT"
                     " string_agg(md5((g * i)::text), '') FROM generate_series(1, 120) i))"
                     " FROM generate_series(1, 400) g")
        conn.execute("""UPDATE upd_jsonb SET doc = doc || '{"k": 0}' WHERE id % 2 = 0""")
        conn.execute("CHECKPOINT")
        truth = heap_truth("upd_jsonb", major, conn.execute(PAGE_ITEMS_SQL, ("upd_jsonb", "upd_jsonb")).fetchall())
        conn.close()
        srv.stop("fast")
        calls = []
        fetch = ToastStore.fetch
        monkeypatch.setattr(ToastStore, "fetch", lambda self, pointers, inflate=True: calls.append(
            len(pointers)) or fetch(self, pointers, inflate))
        cluster = open_data_directory(srv.data)
        w = why_not_hot(cluster, cluster.database("postgres").relation("upd_jsonb"))
    assert truth["causes"]["indexed_column"] == truth["not_hot"] == 200
    assert (w["not_hot"], w["causes"], w["by_index"]) == (truth["not_hot"], truth["causes"], truth["by_index"])
    assert calls == []     # the TOAST pointers' own bytes differ (a new value, a new pointer): nothing fetched
