"""Input no relation segment can be is refused from its stat, before it is opened or read: one line on stderr,
exit status 3 (unreadable input), never a clean report. And ``pgpage --version``."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from conftest import MAJORS, REPO, REQUIRED_MAJORS, data_dir

COMMANDS = ("verify", "page", "heap")
GiB = 1 << 30


def cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "pgpage", *map(str, args)], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def refused(r, *words):
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == ""  # no report, clean or otherwise
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pgpage: "), r.stderr
    for w in words:
        assert w in lines[0], r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_three_gigabyte_segment_is_refused_as_oversized(tmp_path, command):
    seg = tmp_path / "16384"
    with open(seg, "wb") as f:
        f.truncate(3 * GiB)  # sparse: no disk space taken
    # a sparse 3 GB file reads as 3 GB of zeros (about 11 s for verify): refused from its size it takes none of that
    r = cli(command, seg, timeout=30)
    refused(r, "segment.oversized", str(3 * GiB), str(GiB))


def test_oversized_uses_the_segment_size_of_pg_control(tmp_path):
    """Inside a data directory the limit is pg_control's RELSEG_SIZE x BLCKSZ (1 GiB in the fixtures, built with
    the defaults): a file one block over it is refused."""
    major = MAJORS[-1]
    copy = tmp_path / "data"
    shutil.copytree(data_dir(major), copy, symlinks=True)
    base = next(d for d in sorted((copy / "base").iterdir()) if d.is_dir())
    seg = base / "99999999"
    with open(seg, "wb") as f:
        f.truncate(GiB + 8192)
    refused(cli("verify", seg, timeout=30), "segment.oversized", str(GiB + 8192), str(GiB))


@pytest.mark.parametrize("command", COMMANDS)
def test_character_device_is_refused(command):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    refused(cli(command, "/dev/null"), "/dev/null", "character device")


@pytest.mark.parametrize("command", COMMANDS)
def test_fifo_is_refused_without_opening_it(tmp_path, command):
    fifo = tmp_path / "16384"
    os.mkfifo(fifo)
    # opening a FIFO with no writer blocks forever: the timeout fails the test if pgpage tries
    refused(cli(command, fifo, timeout=30), "FIFO")


def test_version_names_the_release_and_the_majors_read():
    r = cli("--version")
    assert r.returncode == 0 and r.stderr == ""
    with open(REPO / "pyproject.toml", "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert re.search(rf"\bpgpage {re.escape(version)}\b", r.stdout)
    # the majors the committed real-server fixtures cover are the ones pgpage reads
    listed = [int(m) for m in re.findall(r"\b1\d\b", r.stdout.split("PostgreSQL", 1)[1])]
    assert listed == list(REQUIRED_MAJORS)


def test_oversized_segment_inside_a_data_directory_is_a_finding_not_read(tmp_path):
    """A table's segment file grown to 3 GB inside a data directory: every command that reads the table says
    segment.oversized (an error: exit 1) and reads none of it (0 blocks, no row), instead of reading 3 GB of zeros
    as the table's pages; its index's heap checks say once that the table was not read."""
    import json
    major = MAJORS[-1]
    copy = tmp_path / "data"
    shutil.copytree(data_dir(major), copy, symlinks=True)
    from conftest import rel_oracle
    with open(copy / rel_oracle(major, "heap_hot")["filepath"], "r+b") as f:
        f.truncate(3 * GiB)
    db = ["--db", "pgpage"]
    for args in (("heap", *db, "--rel", "heap_hot"), ("rows", *db, "--rel", "heap_hot"),
                 ("page", *db, "--rel", "heap_hot", "--all"), ("scan", *db), ("verify", *db)):
        r = cli(*args, copy, "--json", timeout=60)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert "Traceback" not in r.stderr
        assert "segment.oversized" in r.stdout + r.stderr, args
    heap = json.loads(cli("heap", *db, "--rel", "heap_hot", copy, "--json").stdout)
    assert heap["blocks"] == 0
    verify = cli("verify", *db, copy, "--json").stdout
    assert "btree.heap.table_unreadable" in verify and "btree.heap.tid_beyond" not in verify
