"""`pgpage rows` through its real entry point, on real fixture clusters and damaged copies of them.

Damage is done to copies of real pages (a TOAST chunk's line pointer cleared, a tuple's length cut, a page
header's bounds crossed): every row that can still be read is printed with the values an undamaged copy gives,
and what cannot be read is a finding with its block and item, never a traceback.
"""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import FIXTURES, data_dir
from mutation import recompute_checksums

from pgpage.storage.datadir import open_data_directory

MAJOR = 15          # Debian's build: toasty has lz4 values too


def oracle_rows(major: int, table: str) -> dict:
    import gzip
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rows" / f"{table}.json.gz") as f:
        return json.load(f)


def pgpage(*args):
    return subprocess.run([sys.executable, "-m", "pgpage", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def cluster_copy(tmp_path):
    dst = tmp_path / "data"
    shutil.copytree(data_dir(MAJOR), dst)
    return dst


def relation_file(datadir, name, toast=False):
    rel = open_data_directory(datadir).database("pgpage").relation(name)
    rel = rel.toast if toast else rel
    return rel.forks["main"].segment_path(0)


def json_rows(*args):
    r = pgpage("rows", *args, "--json")
    return r, [json.loads(line) for line in r.stdout.splitlines()]


def test_text_json_and_csv_agree(cluster_copy):
    r_text = pgpage("rows", cluster_copy, "--rel", "heap_wide", "--columns", "id,c03")
    assert r_text.returncode == 0, r_text.stderr
    lines = r_text.stdout.splitlines()
    assert lines[0].split("|")[0].strip() == "ctid" and lines[0].split("|")[2].strip() == "c03"
    r, recs = json_rows(cluster_copy, "--rel", "heap_wide", "--columns", "id,c03")
    assert r.returncode == 0
    assert len(recs) == len(lines) - 2 and all(set(x["values"]) == {"id", "c03"} for x in recs)
    r_csv = pgpage("rows", cluster_copy, "--rel", "heap_wide", "--columns", "id,c03", "--csv")
    body = r_csv.stdout.splitlines()
    assert body[0] == "id,c03" and len(body) == len(recs) + 1
    for rec, line in zip(recs, body[1:]):
        assert line == f"{rec['values']['id']},{rec['values']['c03'] if rec['values']['c03'] is not None else ''}"
    assert "rows (timestamptz in" in r_csv.stderr


def test_blocks_and_all(cluster_copy):
    _, every = json_rows(cluster_copy, "--rel", "heap_hot", "--all")
    _, first = json_rows(cluster_copy, "--rel", "heap_hot", "--all", "--blocks", "0:1")
    assert first == [x for x in every if x["ctid"].startswith("(0,")] and len(first) < len(every)
    _, live = json_rows(cluster_copy, "--rel", "heap_hot")
    assert live == [{k: v for k, v in x.items()} for x in every if x["status"] == "live"]
    assert {x["status"] for x in every} >= {"live", "updated"}


def test_usage_errors(cluster_copy):
    r = pgpage("rows", cluster_copy, "--rel", "heap_wide", "--columns", "nope")
    assert r.returncode == 2 and "no column 'nope'" in r.stderr and "Traceback" not in r.stderr
    r = pgpage("rows", cluster_copy, "--rel", "idx_dup")
    assert r.returncode == 2 and "rows are read from tables" in r.stderr
    r = pgpage("rows", cluster_copy, "--rel", "heap_wide", "--timezone", "Mars/Olympus")
    assert r.returncode == 2 and "Mars/Olympus" in r.stderr


def test_missing_toast_chunk_is_one_null_value(cluster_copy):
    _, good = json_rows(cluster_copy, "--rel", "toasty", "--all")
    toast = relation_file(cluster_copy, "toasty", toast=True)
    page = bytearray(toast.read_bytes()[:8192])
    word = struct.unpack_from("<I", page, 24)[0]            # chunk at line pointer 1: make it LP_UNUSED
    struct.pack_into("<I", page, 24, word & ~(3 << 15))
    with open(toast, "r+b") as f:
        f.write(page)
    r, damaged = json_rows(cluster_copy, "--rel", "toasty", "--all")
    assert r.returncode == 1 and "toast.chunk_missing" in r.stderr
    assert [x["ctid"] for x in damaged] == [x["ctid"] for x in good]
    changed = [(g, d) for g, d in zip(good, damaged) if g != d]
    assert changed and all(d["values"]["body"] is None and g["values"]["body"] is not None
                           and {**d["values"], "body": 0} == {**g["values"], "body": 0} for g, d in changed)


def test_cut_tuple_and_crossed_page_bounds(cluster_copy):
    _, good = json_rows(cluster_copy, "--rel", "heap_wide", "--all")
    path = relation_file(cluster_copy, "heap_wide")
    data = bytearray(path.read_bytes())
    word = struct.unpack_from("<I", data, 24 + 4 * 2)[0]    # block 0, item 3: keep only its header
    struct.pack_into("<I", data, 24 + 4 * 2, (word & 0x1FFFF) | (24 << 17))
    nblocks = len(data) // 8192
    if nblocks > 1:                                           # the last block: pd_lower past pd_upper
        struct.pack_into("<H", data, 8192 * (nblocks - 1) + 12, 8000)
    recompute_checksums(data, path.read_bytes(), 8192)        # (what is tested lies past the checksum)
    path.write_bytes(bytes(data))
    r, damaged = json_rows(cluster_copy, "--rel", "heap_wide", "--all")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "heap.deform" in r.stderr
    cut = next(x for x in damaged if x["ctid"] == "(0,3)")
    assert cut["values"]["id"] is None
    others = [x for x in good if x["ctid"] != "(0,3)" and (nblocks == 1 or not x["ctid"].startswith(f"({nblocks - 1},"))]
    assert [x for x in damaged if x["ctid"] != "(0,3)"] == others
    if nblocks > 1:
        assert "page.header.bad_bounds" in r.stderr


def test_python_api_typed_values():
    from decimal import Decimal
    rel = open_data_directory(data_dir(MAJOR)).database("pgpage").relation("heap_wide")
    recs = list(rel.rows())
    assert recs and all(r["status"] == "live" for r in recs)
    first = recs[0]["values"]
    assert isinstance(first["id"], int)
    assert any(isinstance(v, Decimal) for r in recs for v in r["values"].values())


@pytest.mark.parametrize("kept", [None, 64])
@pytest.mark.parametrize("fmt", ["--csv", "--json"])
def test_jobs_give_the_same_output(cluster_copy, monkeypatch, capfdbinary, fmt, kept):
    """--jobs 2 over parts of one block each: byte for byte what one process writes, same summary; also when a
    part keeps at most 64 bytes until its turn (then writes straight through)."""
    from pgpage.cli.rows_cmd import rows_command
    from pgpage.passes import parallel
    from pgpage.passes import rows as rows_pass
    monkeypatch.setattr(rows_pass, "RANGE_BLOCKS", 1)
    if kept is not None:
        monkeypatch.setattr(parallel, "TURN_BUFFER_BYTES", kept)
    outs = []
    for jobs in (1, 2):
        rc = rows_command(target=str(cluster_copy), rel="row_history", all_versions=True, csv_out=fmt == "--csv",
                          json_out=fmt == "--json", jobs=jobs)
        outs.append((rc, *capfdbinary.readouterr()))
    assert outs[0] == outs[1]
    # every version on disk (pageinspect's LP_NORMAL items), the live ones = the server's SELECT
    want = oracle_rows(MAJOR, "row_history")
    on_disk = sum(v["lp_flags"] == 1 for v in want["versions"])
    assert outs[0][0] == 0 and outs[0][1].count(b"\n") == on_disk + (fmt == "--csv")
    assert f"{on_disk} row versions: {len(want['rows'])} live, ".encode() in outs[0][2]
