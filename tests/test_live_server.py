"""pgpage on the data directory of a running server: read-only, and its figures equal the
server's own (after a CHECKPOINT, since hint bits and pruning live in shared buffers first)."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from livepg import running_server


@pytest.fixture(scope="module")
def server():
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION pgstattuple")
        conn.execute("CREATE EXTENSION pg_visibility")
        conn.execute("CREATE TABLE live (id int PRIMARY KEY, v int, t text) WITH (fillfactor = 80)")
        conn.execute("INSERT INTO live SELECT i, i, md5(i::text) FROM generate_series(1, 20000) i")
        conn.execute("UPDATE live SET v = v + 1 WHERE id % 3 = 0")     # HOT
        conn.execute("DELETE FROM live WHERE id % 7 = 0")
        conn.execute("VACUUM live")
        conn.execute("UPDATE live SET v = v + 1 WHERE id % 5 = 0")
        conn.execute("CHECKPOINT")
        yield srv, conn
        conn.close()


def pgpage(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def tree_digest(root) -> dict:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and "pg_wal" not in p.parts and p.name != "postmaster.pid"}


def test_heap_on_a_running_server_equals_pgstattuple(server):
    srv, conn = server
    want = conn.execute("SELECT * FROM pgstattuple('live')").fetchone()
    cols = [d.name for d in conn.execute("SELECT * FROM pgstattuple('live')").description]
    conn.execute("CHECKPOINT")  # pgstattuple's scan may prune; the files must show what it counted
    r = pgpage("heap", srv.data, "--db", "postgres", "--rel", "public.live", "--json")
    assert r.returncode in (0, 1), r.stderr
    doc = json.loads(r.stdout)
    got = doc["pgstattuple"]
    for k, v in zip(cols, want):
        assert got[k] == (round(v, 2) if isinstance(v, float) else v), k
    vm = conn.execute("SELECT count(*) FILTER (WHERE all_visible), count(*) FILTER (WHERE all_frozen)"
                      " FROM pg_visibility_map('live')").fetchone()
    assert (doc["visibility"]["vm_all_visible_pages"], doc["visibility"]["vm_all_frozen_pages"]) == vm


def test_scan_of_a_running_server_names_its_relations(server):
    srv, conn = server
    r = pgpage("scan", srv.data, "--db", "postgres", "--kind", "table,btree", "--json")
    doc = json.loads(r.stdout)
    assert doc["cluster"]["state"] == "DB_IN_PRODUCTION"
    names = {x["name"] for x in doc["databases"][0]["relations"]}
    assert {"public.live", "public.live_pkey"} <= names
    (relfilenode,) = conn.execute("SELECT pg_relation_filenode('live')").fetchone()
    assert next(x for x in doc["databases"][0]["relations"] if x["name"] == "public.live")["relfilenode"] == relfilenode


def test_pgpage_never_writes_to_a_live_data_directory(server):
    srv, conn = server
    conn.execute("CHECKPOINT")
    before = tree_digest(srv.data / "base")
    for args in (("scan", srv.data), ("scan", srv.data, "--db", "postgres", "--name", "public.*", "--deep"),
                 ("heap", srv.data, "--db", "postgres", "--rel", "live"),
                 ("page", srv.data, "--db", "postgres", "--rel", "live", "--all")):
        pgpage(*args)
    assert tree_digest(srv.data / "base") == before
