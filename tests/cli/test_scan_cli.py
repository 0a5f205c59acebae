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


def test_scan_json_into_a_pipe_is_written_as_read_and_equals_a_terminals(tmp_path, monkeypatch):
    """Into a pipe the document is streamed (each relation written as it is read), on a terminal made whole:
    the same document and exit status either way, with one worker or two, on a copy with a page whose checksum
    fails (exit 1; the finding in the relation's entry)."""
    import io
    import shutil

    from pgpage.cli.scan_cmd import scan_command
    from pgpage.storage.datadir import open_data_directory
    copy = tmp_path / "data"
    shutil.copytree(data_dir(17), copy)
    rel = open_data_directory(copy).database(None).relation("public.heap_hot")
    path = rel.forks["main"].segments[0][1]
    page = bytearray(path.read_bytes())
    page[8192 - 1] ^= 0x40  # block 0's last byte: tuple data, under the checksum
    path.write_bytes(bytes(page))

    class Out(io.StringIO):
        def __init__(self, tty):
            super().__init__()
            self.tty = tty

        def isatty(self):
            return self.tty

    docs = []
    for tty in (False, True):
        for jobs in (1, 2):
            out = Out(tty)
            monkeypatch.setattr(sys, "stdout", out)
            status = scan_command(pgdata=str(copy), json_out=True, jobs=jobs)
            monkeypatch.undo()
            assert status == 1
            assert ("\n " in out.getvalue()) == tty  # indented on a terminal only
            docs.append(json.loads(out.getvalue()))
    assert all(d == docs[0] for d in docs[1:])
    rels = {r["name"]: r for r in docs[0]["databases"][0]["relations"]}
    assert [f["block"] for f in rels["public.heap_hot"]["findings"] if f["code"] == "checksum.mismatch"] == [0]
    assert rels["public.heap_hot"]["health"]["checksum_failures"] == 1


def test_scan_hands_on_each_relation_before_reading_the_rest(monkeypatch):
    """scan_relations yields the biggest relation's entry after reading its forks, not after reading every
    relation's (what keeps `pgpage scan` of many relations flat); a task a batch, as a big cluster's are."""
    from pgpage.passes import scan as scan_pass
    monkeypatch.setattr(scan_pass, "BATCH_BLOCKS", 1)
    from pgpage.storage.datadir import open_data_directory
    cluster = open_data_directory(data_dir(17))
    rels = scan_pass.select_relations(cluster.database(None).relations(), None, None)
    total = sum(f.nblocks for r in rels for f in r.forks.values())
    read = []
    entries = scan_pass.scan_relations(cluster, rels, on_blocks=read.append)
    first = next(entries)
    assert first["name"] == rels[0].qualified_name and first["blocks"] == rels[0].forks["main"].nblocks
    assert 0 < sum(read) < total / 2
    assert [e["name"] for e in entries] == [r.qualified_name for r in rels[1:]] and sum(read) == total


def test_scan_text_lists_the_largest_relations_when_there_are_too_many(monkeypatch, capsys):
    """Past TEXT_ROWS relations a database's text table lists the largest ones (in its order) and says how many it
    left out; --json lists every one."""
    from pgpage.render import scan as render
    doc = json.loads(scan(data_dir(17), "--json").stdout)
    (db,) = doc["databases"]
    rels = db["relations"]
    monkeypatch.setattr(render, "TEXT_ROWS", 7)
    render.render_scan(doc)
    lines = capsys.readouterr().out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.split()[:2] == ["relation", "kind"]) + 1
    listed = [line.split()[0].rstrip("…") for line in lines[start:start + 7]]   # (a long name is cut: "…")
    largest = sorted(rels, key=lambda r: -r["size_bytes"])[:7]
    want = [r["name"] for r in rels if r in largest]
    assert len(want) == 7 and all(name.startswith(shown) for shown, name in zip(listed, want))
    assert lines[start + 7].strip() == f"... and {len(rels) - 7:,} smaller ones not listed (--json lists every" \
        " one; --top and --name choose which)"
