"""pgpage scan through its real entry point on real fixture clusters."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import catalog_oracle, data_dir, rel_oracle

PGPAGE = [sys.executable, "-m", "pgpage"]


def scan(*args):
    return subprocess.run([*PGPAGE, "scan", *map(str, args)], capture_output=True, text=True, timeout=300)


def test_scan_json_matches_server(major):
    r = scan(data_dir(major), "--json")
    doc = json.loads(r.stdout)
    assert doc["schema"] == "pgpage.scan/1"
    oracle = catalog_oracle(major)
    c = doc["cluster"]
    assert c["major"] == major and c["data_checksums"] is True
    cp = oracle["control"]["checkpoint"]
    assert f"{c['next_xid_epoch']}:{c['next_xid']}" == cp["next_xid"]
    assert (c["oldest_xid"], c["next_multixact"], c["checkpoint_lsn"]) == (
        cp["oldest_xid"], cp["next_multixact_id"], cp["checkpoint_lsn"])
    (db,) = doc["databases"]
    assert db["name"] == oracle["datname"]
    rels = {r["name"]: r for r in db["relations"]}
    for row in oracle["relations"]:
        name = f"{row['nspname']}.{row['relname']}"
        assert name in rels, name
        assert rels[name]["relfilenode"] == (row["relfilenode"] or rels[name]["relfilenode"])
    # the fast pass agrees with pgstattuple
    for relname in ("heap_hot", "heap_aborted", "heap_locks", "toasty"):
        want = rel_oracle(major, relname)["pgstattuple"]
        h = rels[f"public.{relname}"]["health"]
        assert (h["live_tuples"], h["dead_tuples"], h["free_bytes"]) == (
            want["tuple_count"], want["dead_tuple_count"], want["free_space"]), relname
        assert h["checksum_failures"] == 0


def test_scan_text_fits_100_columns_and_filters():
    r = scan(data_dir(17), "--kind", "btree", "--top", "3")
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "PostgreSQL 17" in lines[0]
    table_lines = [line for line in lines if line.startswith("public.")]
    assert len(table_lines) == 3 and all(" btree " in line for line in table_lines)


def test_scan_refuses_a_non_data_directory(tmp_path):
    r = scan(tmp_path)
    assert r.returncode == 3 and "not a PostgreSQL data directory" in r.stderr
    assert "Traceback" not in r.stderr


def test_scan_deep_carries_the_heap_report():
    r = scan(data_dir(16), "--deep", "--name", "public.heap_hot", "--json")
    (rel,) = json.loads(r.stdout)["databases"][0]["relations"]
    assert rel["heap"]["pgstattuple"] == rel_oracle(16, "heap_hot")["pgstattuple"]
    assert rel["heap"]["hot"]["redirects"] > 0
    text = scan(data_dir(16), "--deep", "--name", "public.heap_hot")
    assert "heap detail" in text.stdout
