"""Issue 23, item 5: a relation file given alone (no data directory, so no pg_control) decides from its own
pages whether data checksums were on: when a majority of its pages that are not new (and at least 2) carry a
checksum that verifies, a mismatch is an error (exit 1); the output says which rule decided.

Real pages: fixture segment files (clusters made with ``initdb -k``) with one page's byte changed, and a
table of a live server made without ``-k`` (checksums off, as ``SHOW data_checksums`` says).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import MAJORS, data_dir, rel_oracle
from livepg import running_server

BS = 8192


def verify(path):
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(path), "--json"], capture_output=True,
                       text=True, timeout=120)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    return r.returncode, recs[0], [x for x in recs if x["type"] == "finding"]


def alone(major: int, relname: str, tmp_path):
    """The relation's main fork copied out of its data directory, and the server's page oracle."""
    oracle = rel_oracle(major, relname)
    src = data_dir(major) / oracle["filepath"]
    dst = tmp_path / src.name
    shutil.copyfile(src, dst)
    return dst, oracle["forks"]["main"]


def flip(path, blkno: int) -> None:
    """Change one byte in the middle of a page (a bit rot the checksum catches), checksum left as it was."""
    with open(path, "r+b") as f:
        f.seek(blkno * BS + BS // 2)
        b = f.read(1)
        f.seek(blkno * BS + BS // 2)
        f.write(bytes([b[0] ^ 0x10]))


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
@pytest.mark.parametrize("relname", ["row_types", "idx_multilevel"])
def test_most_pages_verify_so_checksums_are_on(tmp_path, major, relname):
    path, pages = alone(major, relname, tmp_path)
    # the server's own verdict: page_checksum(page, blkno) equals the stored checksum on every page not new
    old = [p for p in pages if p["page_checksum"] is not None]
    assert len(old) >= 3 and all(p["page_checksum"] == p["page_header"]["checksum"] for p in old)
    rc, start, found = verify(path)
    assert rc == 0 and not found
    assert (start.get("data_checksums"), start["checksums_rule"]) == (True, f"on ({len(old)} of {len(old)} pages verify)")
    broken = old[1]["blkno"]
    flip(path, broken)
    rc, start, found = verify(path)
    assert rc == 1
    assert start["checksums_rule"] == f"on ({len(old) - 1} of {len(old)} pages verify)"
    assert [(f["code"], f["block"], f["severity"]) for f in found if f["code"].startswith("checksum")] == \
        [("checksum.mismatch", broken, "error")]


def test_one_of_two_is_not_a_majority(tmp_path):
    """A file of 2 pages, one broken: 1 of 2 verify, not a majority: unknown, the mismatch a warning."""
    path, pages = alone(MAJORS[-1], "heap_hot", tmp_path)
    assert len([p for p in pages if p["page_checksum"] is not None]) == 2
    flip(path, 0)
    rc, start, found = verify(path)
    assert rc == 0
    assert (start.get("data_checksums"), start["checksums_rule"]) == (None, "off/unknown (1 of 2 pages verify)")
    assert [(f["code"], f["block"], f["severity"]) for f in found] == [("checksum.mismatch", 0, "warning")]


def test_in_its_data_directory_pg_control_decides(tmp_path):
    rc, start, _ = verify(data_dir(MAJORS[-1]) / rel_oracle(MAJORS[-1], "row_types")["filepath"])
    assert (start.get("data_checksums"), start["checksums_rule"]) == (True, "on (pg_control)")


def test_a_file_from_a_cluster_without_checksums(tmp_path):
    with running_server(checksums=False) as srv:
        with srv.connect() as conn:
            assert conn.execute("SHOW data_checksums").fetchone()[0] == "off"
            conn.execute("CREATE TABLE t (id int, note text)")
            conn.execute("INSERT INTO t SELECT g, repeat('x', 50) FROM generate_series(1, 2000) g")
            conn.execute("CHECKPOINT")
            filepath = conn.execute("SELECT pg_relation_filepath('t')").fetchone()[0]
            pages = conn.execute("SELECT pg_relation_size('t') / 8192").fetchone()[0]
        rc, start, _ = verify(srv.data / filepath)   # inside its data directory: pg_control says off
        assert (start.get("data_checksums"), start["checksums_rule"]) == (False, "off (pg_control)")
        path = tmp_path / "t"
        shutil.copyfile(srv.data / filepath, path)
    assert pages >= 10
    rc, start, found = verify(path)
    assert (rc, found) == (0, [])
    assert (start.get("data_checksums"), start["checksums_rule"]) == \
        (None, f"off/unknown (none of {pages} pages carries a checksum)")
    flip(path, 3)   # no checksum to catch it: nothing to say, nothing to fail
    rc, start, found = verify(path)
    assert rc == 0 and not [f for f in found if f["code"].startswith("checksum")]
