"""Issue 23, item 4: a relation file inside a data directory that cannot be read.

The table ``btree_dup`` of a copy of a real fixture cluster is made unreadable for real: its file is
chmod 000 and owned by ``postgres``, and pgpage runs as root without the capabilities that let root
read any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, dropped with setpriv; as another user, the mode
alone does it); or the file is replaced by a directory (EISDIR). Then ``scan`` and ``verify`` report
one ``storage.unreadable`` finding and go on, a command on that one relation (``heap``, ``page``)
stops with one line and exit 3, and the table's B-tree indexes (``index``, ``verify``) say once that
their heap TIDs were not checked instead of blaming every TID.
"""
from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, data_dir

MAJOR = 15
TABLE = "btree_dup"
DROP_READ_ANY = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
                 "--bounding-set=-dac_override,-dac_read_search"]


def catalog() -> dict:
    return json.loads((FIXTURES / f"pg{MAJOR}" / "oracle" / "catalog.json").read_text())


def table_and_indexes() -> tuple[str, list[str]]:
    """The table's file (relative to the data directory) and its indexes' names, from the server's catalog."""
    rels = {r["oid"]: r for r in catalog()["relations"]}
    table = next(r for r in rels.values() if r["relname"] == TABLE and r["nspname"] == "public")
    indexes = sorted(rels[i["indexrelid"]]["relname"] for i in catalog()["indexes"] if i["indrelid"] == table["oid"])
    return table["filepath"], indexes


def run(*args):
    cmd = [sys.executable, "-m", "pgpage", *map(str, args)]
    if os.geteuid() == 0:
        cmd = DROP_READ_ANY + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module", params=["EACCES", "EISDIR"])
def damaged(request, tmp_path_factory):
    data = tmp_path_factory.mktemp(request.param) / "data"
    shutil.copytree(data_dir(MAJOR), data)
    filepath, _ = table_and_indexes()
    f = data / filepath
    if request.param == "EACCES":
        os.chmod(f, 0)
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(f, pw.pw_uid, pw.pw_gid)
        cat = subprocess.run((DROP_READ_ANY if os.geteuid() == 0 else []) + ["cat", str(f)], capture_output=True)
        assert cat.returncode != 0 and not cat.stdout   # the setup really makes it unreadable for the command
    else:
        f.unlink()
        f.mkdir()
    return request.param, data, f


def reason(kind: str) -> str:
    return os.strerror({"EACCES": 13, "EISDIR": 21}[kind])


def no_traceback(r) -> None:
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_scan_reports_the_unreadable_table_once(damaged):
    kind, data, f = damaged
    r = run("scan", data, "--json")
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    rels = {x["name"]: x for d in doc["databases"] for x in d["relations"]}
    found = [(name, g) for name, x in rels.items() for g in x["findings"] if g["code"] == "storage.unreadable"]
    found += [(None, g) for d in doc["databases"] for g in d["findings"] if g["code"] == "storage.unreadable"]
    assert len(found) == 1, found
    g = found[0][1]
    assert (g["relation"], g["fork"], g["severity"]) == (f"public.{TABLE}", "main", "error")
    assert reason(kind) in g["message"]
    if kind == "EACCES":   # listed, with no figures made up from blocks never read
        assert rels[f"public.{TABLE}"]["health"]["checksum_failures"] is None
        assert "live_tuples" not in rels[f"public.{TABLE}"]["health"]


@pytest.mark.parametrize("command", ["heap", "page"])
def test_one_relation_commands_stop_with_one_line(damaged, command):
    kind, data, f = damaged
    extra = ["--block", "0"] if command == "page" else []
    r = run(command, data, "--rel", TABLE, *extra)
    no_traceback(r)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    if kind == "EACCES":
        assert r.stderr.strip() == f"pgpage: {f}: {reason(kind)}"
        r = run(command, f, *extra)      # the file named alone
        no_traceback(r)
        assert r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_index_says_table_unreadable_once(damaged):
    kind, data, f = damaged
    _, indexes = table_and_indexes()
    for name in indexes:
        r = run("index", data, "--rel", name, "--json")
        no_traceback(r)
        assert r.returncode == 0, (name, r.stderr)   # the index itself is sound: warnings only
        doc = json.loads(r.stdout)
        codes = [g["code"] for g in doc["findings"]]
        assert not [c for c in codes if c not in ("btree.heap.table_unreadable", "btree.heap.table_missing")], codes
        assert len(codes) == 1 and doc["heap_check"] is None, codes
        if kind == "EACCES":
            assert codes == ["btree.heap.table_unreadable"] and reason(kind) in doc["findings"][0]["message"]
        text = run("index", data, "--rel", name)
        assert text.returncode == 0 and "table check  not done" in text.stdout, text.stderr


def test_verify_one_finding_for_the_table_one_per_index(damaged):
    kind, data, f = damaged
    _, indexes = table_and_indexes()
    r = run("verify", data, "--json")
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    found = [x for x in recs if x.get("type") == "finding"]
    unreadable = [x for x in found if x["code"] == "storage.unreadable"]
    assert [(x["relation"], x["fork"], x["severity"]) for x in unreadable] == [(f"public.{TABLE}", "main", "error")]
    assert reason(kind) in unreadable[0]["message"]
    heap_errors = [x for x in found if x["code"].startswith("btree.heap.") and x["severity"] == "error"]
    assert heap_errors == []
    per_index = sorted(x["relation"] for x in found if x["code"] == "btree.heap.table_unreadable")
    assert per_index == [f"public.{i}" for i in indexes]
    if kind == "EACCES":
        r = run("verify", data, "--rel", TABLE, "--json")   # the table alone
        no_traceback(r)
        assert r.returncode == 1
        assert [json.loads(line)["code"] for line in r.stdout.splitlines()
                if json.loads(line).get("type") == "finding"] == ["storage.unreadable"]


def test_readable_copy_has_none_of_these(tmp_path):
    """The same commands on the untouched fixture: no such finding (the findings above come from the damage)."""
    _, indexes = table_and_indexes()
    r = run("verify", data_dir(MAJOR), "--json")
    codes = {json.loads(line).get("code") for line in r.stdout.splitlines()}
    assert not codes & {"storage.unreadable", "btree.heap.table_unreadable"}
    doc = json.loads(run("index", data_dir(MAJOR), "--rel", indexes[0], "--json").stdout)
    assert doc["heap_check"]["tids_checked"] > 0 and doc["findings"] == []


def table_records(recs: list[dict], indexes: list[str]) -> list[tuple]:
    """(code, relation, severity) of the findings about the table and its indexes."""
    names = {f"public.{TABLE}"} | {f"public.{i}" for i in indexes}
    return sorted((x["code"], x["relation"], x["severity"]) for x in recs
                  if x.get("type") == "finding" and x.get("relation") in names)


def test_heapallindexed_adds_nothing_for_an_unreadable_table(damaged):
    """--heapallindexed does not read the table again for each index (each used to add a storage.unreadable
    error of the table's file under the index's name): the table's one finding, one note per index."""
    kind, data, f = damaged
    _, indexes = table_and_indexes()
    r = run("verify", data, "--heapallindexed", "--json")
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert table_records(recs, indexes) == sorted(
        [("storage.unreadable", f"public.{TABLE}", "error")]
        + [("btree.heap.table_unreadable", f"public.{i}", "warning") for i in indexes])
    without = [json.loads(line) for line in run("verify", data, "--json").stdout.splitlines()]
    assert table_records(without, indexes) == table_records(recs, indexes)


@pytest.mark.parametrize("extra", [[], ["--heapallindexed"]])
def test_verify_one_index_names_its_unreadable_table(damaged, extra):
    """An index verified alone: the table's file finding (an error: the index's heap checks could not be made)
    and the index's note, never "result: clean"."""
    kind, data, f = damaged
    r = run("verify", data, "--rel", "idx_two", "--json", *extra)
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    found = [json.loads(line) for line in r.stdout.splitlines() if json.loads(line).get("type") == "finding"]
    assert [(x["code"], x["relation"], x["severity"]) for x in found] == [
        ("storage.unreadable", f"public.{TABLE}", "error"), ("btree.heap.table_unreadable", "public.idx_two", "warning")]
    assert reason(kind) in found[0]["message"] and reason(kind) in found[1]["message"]
    text = run("verify", data, "--rel", "idx_two", *extra)
    assert text.returncode == 1 and "result: clean" not in text.stdout and "FAILED" in text.stdout, text.stdout


@pytest.fixture(scope="module")
def deleted(tmp_path_factory):
    """A copy of the cluster with the table's main file deleted."""
    data = tmp_path_factory.mktemp("deleted") / "data"
    shutil.copytree(data_dir(MAJOR), data)
    (data / table_and_indexes()[0]).unlink()
    return data


def test_verify_with_the_table_file_deleted(deleted):
    """relation.file_missing once for the table (as scan and verify report a catalog row with no file), each
    index's heap checks btree.heap.table_missing (as `index` says); an index alone: both, exit 1."""
    filepath, indexes = table_and_indexes()
    r = run("verify", deleted, "--heapallindexed", "--json")
    no_traceback(r)
    assert r.returncode == 1, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    assert table_records(recs, indexes) == sorted(
        [("relation.file_missing", f"public.{TABLE}", "error")]
        + [("btree.heap.table_missing", f"public.{i}", "warning") for i in indexes])
    missing = next(x for x in recs if x.get("code") == "relation.file_missing")
    assert missing["message"].endswith(f"has no file {filepath}")
    for extra in ([], ["--heapallindexed"]):
        r = run("verify", deleted, "--rel", "idx_two", "--json", *extra)
        assert r.returncode == 1, r.stderr
        found = [json.loads(line) for line in r.stdout.splitlines() if json.loads(line).get("type") == "finding"]
        assert [(x["code"], x["relation"]) for x in found] == [("relation.file_missing", f"public.{TABLE}"),
                                                                ("btree.heap.table_missing", "public.idx_two")]
        assert "result: clean" not in run("verify", deleted, "--rel", "idx_two", *extra).stdout


def test_a_block_size_no_build_has_is_a_finding(tmp_path):
    """pg_control's block size with its CRC recomputed over it, 8191: no PostgreSQL is built so (1-32 kB, powers of
    two); scan says so and reads the relation files in default blocks, as the real server's files are."""
    import struct
    import subprocess
    import sys

    from conftest import data_dir
    from pgpage.decode.control import decode_control
    from pgpage.decode.crc32c import crc32c
    import shutil
    d = tmp_path / "data"
    shutil.copytree(data_dir(15), d)
    control = d / "global" / "pg_control"
    control.chmod(0o644)
    raw = bytearray(control.read_bytes())
    decoded = decode_control(bytes(raw))
    at = raw.find(struct.pack("<I", decoded["blcksz"]), 0, decoded["crc_offset"])
    struct.pack_into("<I", raw, at, 8191)
    struct.pack_into("<I", raw, decoded["crc_offset"], crc32c(bytes(raw[:decoded["crc_offset"]])))
    control.write_bytes(bytes(raw))
    assert decode_control(bytes(raw))["blcksz"] == 8191
    r = subprocess.run([sys.executable, "-m", "pgpage", "scan", str(d), "--json"], capture_output=True, text=True)
    import json
    doc = json.loads(r.stdout)
    assert r.returncode == 1
    assert [f["code"] for f in doc["findings"] if f["code"].startswith("control.")] == ["control.block_size.invalid"]
    original = json.loads(subprocess.run([sys.executable, "-m", "pgpage", "scan", str(data_dir(15)), "--json"],
                                         capture_output=True, text=True).stdout)

    def heap(doc):
        return next(x for db in doc["databases"] for x in db["relations"] if x["name"] == "public.heap_frozen")
    assert heap(doc)["blocks"] == heap(original)["blocks"] > 0
    assert heap(doc)["health"] == heap(original)["health"]
