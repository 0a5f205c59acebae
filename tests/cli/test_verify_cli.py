"""pgpage verify through its real entry points: Typer's CliRunner in-process, and ``python -m pgpage``
for exit statuses of refused input. Text and newline-delimited JSON."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from conftest import MAJORS, REPO, catalog_oracle, data_dir
from pgpage.cli.main import app

runner = CliRunner()
LATEST = MAJORS[-1]
SCHEMA = "pgpage.verify/1"


def run(*args):
    r = runner.invoke(app, ["verify", *map(str, args)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r


def records(output: str) -> list[dict]:
    lines = output.splitlines()
    recs = [json.loads(line) for line in lines]
    assert recs[0]["type"] == "start" and recs[-1]["type"] == "summary"
    assert all(r["schema"] == SCHEMA and r["type"] in ("start", "finding", "relation", "summary") for r in recs)
    return recs


def cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "pgpage", "verify", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def filepath(major: int, relname: str) -> str:
    return next(r["filepath"] for r in catalog_oracle(major)["relations"] if r["relname"] == relname)


@pytest.fixture
def damaged(tmp_path):
    """A copy of the latest fixture with one checksum broken (heap_hot block 1) and one line
    pointer pushed out of its page (heap_frozen block 0, item 3; checksum recomputed)."""
    from pgpage.decode.checksum import checksum_page
    d = tmp_path / "data"
    shutil.copytree(data_dir(LATEST), d)
    f = d / filepath(LATEST, "heap_hot")
    data = bytearray(f.read_bytes())
    data[8192 + 8100] ^= 0x40
    f.write_bytes(bytes(data))
    f = d / filepath(LATEST, "heap_frozen")
    page = bytearray(f.read_bytes()[:8192])
    w = struct.unpack_from("<I", page, 24 + 8)[0]
    struct.pack_into("<I", page, 24 + 8, (w & ~0x7FFF) | 8160)
    page[8:10] = b"\0\0"
    page[8:10] = struct.pack("<H", checksum_page(bytes(page), 0))
    f.write_bytes(bytes(page) + f.read_bytes()[8192:])
    return d


# ------------------------------------------------------------------------------------ clean input
def test_relation_text_clean():
    r = run(data_dir(LATEST), "--rel", "heap_hot")
    assert r.exit_code == 0
    assert "verify public.heap_hot" in r.output
    assert f"PostgreSQL {LATEST}" in r.output and "checksums on" in r.output
    assert "verified 1 relation, 3 forks, 6 blocks" in r.output
    assert "result: clean" in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 100


def test_relation_json_clean():
    r = run(data_dir(LATEST), "--rel", "idx_multilevel", "--json")
    assert r.exit_code == 0
    recs = records(r.output)
    start, summary = recs[0], recs[-1]
    assert start["scope"] == "relation" and start["relation"] == "public.idx_multilevel" and start["major"] == LATEST
    assert start["data_checksums"] is True and start["state"] == "DB_SHUTDOWNED"
    rel = [x for x in recs if x["type"] == "relation"]
    assert len(rel) == 1 and rel[0]["am"] == "btree" and rel[0]["kind"] == "index" and rel[0]["forks"] == {"main": 9}
    assert summary["findings"] == 0 and summary["failing"] == 0 and summary["exit_status"] == 0
    assert summary["blocks"] == 9 and summary["relations"] == 1


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_every_major_cluster_verifies_but_for_the_pruned_files(major):
    """A pruned fixture is clean once the deliberately missing catalog files are left out of the
    audit; without that, it fails on exactly those (relation.file_missing)."""
    r = run(data_dir(major), "--json")
    recs = records(r.output)
    assert r.exit_code == 1
    assert set(recs[-1]["by_code"]) == {"relation.file_missing"}
    assert len([x for x in recs if x["type"] == "relation"]) >= 40
    r = run(data_dir(major), "--fail-on", "-relation.file_missing")
    assert r.exit_code == 0, r.output[-2000:]
    assert "result: passed (no finding fails the audit)" in r.output
    assert "relation.file_missing" in r.output


def test_relation_whose_file_is_missing_fails(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(data_dir(LATEST), d)
    (d / filepath(LATEST, "heap_wide")).unlink()
    r = run(d, "--rel", "heap_wide", "--json")
    recs = records(r.output)
    assert r.exit_code == 1
    assert [(x["code"], x["relation"]) for x in recs if x["type"] == "finding"] == [("relation.file_missing",
                                                                                   "public.heap_wide")]


def test_file_target_inside_a_data_directory():
    f = data_dir(LATEST) / filepath(LATEST, "heap_hot")
    r = run(f, "--json")
    assert r.exit_code == 0
    recs = records(r.output)
    assert recs[0]["scope"] == "file" and recs[0]["relation"] == "public.heap_hot"
    assert [x["forks"] for x in recs if x["type"] == "relation"] == [{"main": 2, "vm": 1}]


def test_file_target_on_its_own(tmp_path):
    """A relation file copied out of its cluster: page rules only (no catalog, no pg_control)."""
    src = data_dir(LATEST) / filepath(LATEST, "idx_multilevel")
    f = tmp_path / "16500"
    shutil.copy(src, f)
    r = run(f)
    assert r.exit_code == 0, r.output
    assert "result: clean" in r.output
    r = run(f, "--json")
    recs = records(r.output)
    assert [x["am"] for x in recs if x["type"] == "relation"] == ["btree"]


# ---------------------------------------------------------------------------------- damaged input
def test_damage_found_text_and_json(damaged):
    r = run(damaged, "--rel", "heap_hot")
    assert r.exit_code == 1
    assert "checksum.mismatch" in r.output and "block 1" in r.output and "FAILED" in r.output
    r = run(damaged, "--rel", "heap_frozen", "--json")
    assert r.exit_code == 1
    found = [x for x in records(r.output) if x["type"] == "finding"]
    assert [(x["code"], x["block"], x["item"], x["relation"], x["fork"], x["fails"]) for x in found] == \
        [("heap.lp.out_of_bounds", 0, 3, "public.heap_frozen", "main", True)]
    assert found[0]["database"] == "pgpage" and found[0]["severity"] == "error" and found[0]["message"]


def test_whole_damaged_cluster_streams_every_finding(damaged):
    r = run(damaged, "--json", "--fail-on", "-relation.file_missing")
    assert r.exit_code == 1
    recs = records(r.output)
    got = {(x["code"], x.get("relation"), x.get("block")) for x in recs if x["type"] == "finding"
           and x["code"] != "relation.file_missing"}
    assert got == {("checksum.mismatch", "public.heap_hot", 1), ("heap.lp.out_of_bounds", "public.heap_frozen", 0)}
    assert recs[-1]["failing"] == 2


def test_fail_on_selects_what_fails(damaged):
    assert run(damaged, "--rel", "heap_hot", "--fail-on", "checksum").exit_code == 1
    r = run(damaged, "--rel", "heap_hot", "--fail-on", "heap,btree", "--json")
    assert r.exit_code == 0
    recs = records(r.output)
    assert [x["fails"] for x in recs if x["type"] == "finding"] == [False]
    assert recs[-1]["findings"] == 1 and recs[-1]["failing"] == 0
    assert run(damaged, "--rel", "heap_hot", "--fail-on", "checksum.mismatch").exit_code == 1
    # prefixes end at a dot: "check" names no code, a usage error rather than an audit that selects nothing
    refused = runner.invoke(app, ["verify", str(damaged), "--rel", "heap_hot", "--fail-on", "check"]).exception
    assert getattr(refused, "exit_code", None) == 2 and "'check' names no finding code" in str(refused)
    assert run(damaged, "--rel", "heap_hot", "--fail-on", "*.mismatch").exit_code == 1
    assert run(damaged, "--rel", "heap_hot", "--fail-on", "all,-checksum").exit_code == 0


def test_verbose_lists_each_finding(damaged):
    r = run(damaged, "--rel", "heap_frozen", "-v")
    assert r.exit_code == 1
    assert any(line.startswith("FAIL error") and "heap.lp.out_of_bounds" in line and "item 3" in line
               for line in r.output.splitlines())


# ------------------------------------------------------------------------------- refused input
def test_exit_statuses_of_refused_input(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    p = cli(empty)
    assert p.returncode == 3 and "not a PostgreSQL data directory" in p.stderr and p.stdout == ""
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n" * 3000)
    p = cli(junk)
    assert p.returncode == 3 and "not a PostgreSQL relation file" in p.stderr
    assert cli(tmp_path / "missing").returncode == 3
    assert cli(data_dir(LATEST), "--fork", "vm").returncode == 2
    assert cli(data_dir(LATEST), "--rel", "heap_hot", "--fork", "bogus").returncode == 2
    assert cli(data_dir(LATEST), "--rel", "no_such_table").returncode == 2
    assert cli(data_dir(LATEST) / filepath(LATEST, "heap_hot"), "--db", "pgpage").returncode == 2
    assert cli(data_dir(LATEST), "--rel", "heap_hot", "--fail-on", ",").returncode == 2


def test_entry_point_json_is_one_record_per_line(damaged):
    p = cli(damaged, "--rel", "heap_hot", "--json")
    assert p.returncode == 1 and p.stderr == ""
    recs = records(p.stdout)
    assert [x["code"] for x in recs if x["type"] == "finding"] == ["checksum.mismatch"]


def test_jobs_do_not_change_the_records():
    """--jobs 2 spreads the cluster's relations over two worker processes: the same records, in the same order."""
    one, two = cli(data_dir(LATEST), "--json", "--jobs", "1"), cli(data_dir(LATEST), "--json", "--jobs", "2")
    assert one.returncode == two.returncode == 1, one.stderr + two.stderr  # the pruned catalogs' files are missing
    a, b = records(one.stdout), records(two.stdout)
    for summary in (a[-1], b[-1]):
        summary.pop("seconds")
    assert a == b
    assert sum(r["type"] == "relation" for r in a) > 40
