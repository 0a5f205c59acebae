"""Issue 39, item 2: damaged values are never data.

Copies of the real fixture clusters of every major with one value's bytes damaged (the page checksum recomputed,
so that what is tested is the value's decoding): a text value that is not UTF-8, a jsonb entry running past its
container, a numeric digit over 9999, an array with 2^31-1 dimensions, a TOAST pointer to a value the TOAST table
does not hold. Each comes out NULL (an empty unquoted field in CSV, where the empty string is ``""``; ``null`` in
JSON) with a finding naming its ctid and column, the record's ``damage`` naming the column, and exit status 1;
every other value equals what the server printed (the rows oracle). A page whose checksum fails (a byte of its
free space changed) is a ``checksum.mismatch`` finding with its block, and its rows are still printed, each
flagged.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys

import pytest

from conftest import FIXTURES, MAJORS, rel_oracle
from valuedamage import Damaged, where

from pgpage.findings import names_a_code

BLCKSZ = 8192


def varlena_header(raw: bytes) -> int:
    return 1 if raw[0] & 1 else 4


# (ctid, column, where in the value and what to write there, the finding)
ROW_TYPES_DAMAGE = [
    ((0, 2), "c_text", lambda raw: (varlena_header(raw), b"\xff\xfe"), "datum.text.bad_encoding"),
    ((0, 3), "c_jsonb", lambda raw: (varlena_header(raw) + 4, b"\xff\xff\xff\x0f"), "datum.jsonb.bad_value"),
    ((0, 4), "c_numeric", lambda raw: (len(raw) - 2, (10000).to_bytes(2, "little")), "datum.numeric.bad_digit"),
    ((0, 2), "c_int4arr", lambda raw: (varlena_header(raw), b"\xff\xff\xff\x7f"), "datum.array.bad_ndim"),
]
TOAST_DAMAGE = ((0, 5), "body", "toast.chunk_missing")   # va_valueid of an external value: no such chunks
VA_VALUEID_AT = 10      # in a TOAST pointer: 0x01, vartag, va_rawsize, va_extinfo, then va_valueid


# before 12 the server printed floats with a fixed number of digits and pgpage prints 12's shortest exact ones
# (tests/passes/test_rows_fixtures.py compares those by value): columns of these types are left out here
FLOAT_BEARING = {"real", "double precision", "point", "box", "lseg", "line", "path", "polygon", "circle", "box[]"}


def oracle(major: int, table: str) -> tuple[list[str], dict[str, dict]]:
    """The columns compared and, by ctid, the values the server printed."""
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rows" / f"{table}.json.gz") as f:
        doc = json.load(f)
    names = [c["name"] for c in doc["columns"]]
    keep = [c["name"] for c in doc["columns"] if c["type"] not in FLOAT_BEARING]
    return keep, {r[0]: {k: v for k, v in zip(names, r[3:]) if k in keep} for r in doc["rows"]}


def rows(data, table: str, *args):
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", "pgpage", "--rel", table, *args],
                       capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    return r


@pytest.fixture(params=MAJORS, ids=lambda m: f"pg{m}")
def damaged(request, tmp_path):
    major = request.param
    d = Damaged(major, tmp_path)
    for ctid, column, change, _ in ROW_TYPES_DAMAGE:
        v = where(major, "row_types", ctid, column)
        at, new = change(v.raw)
        d.write(v.path, v.offset + at, new)
    ctid, column, _ = TOAST_DAMAGE
    v = where(major, "toasty", ctid, column)
    assert v.raw[0] == 1                                  # a TOAST pointer
    d.write(v.path, v.offset + VA_VALUEID_AT, b"\xf0\xff\xff\xff")
    # a byte of block 1's free space, its checksum left as it was
    page = next(p for p in rel_oracle(major, "row_types")["forks"]["main"] if p["blkno"] == 1)
    lower, upper = page["page_header"]["lower"], page["page_header"]["upper"]
    assert upper - lower > 8
    d.write(rel_oracle(major, "row_types")["filepath"], BLCKSZ + (lower + upper) // 2, b"\x5a", fix_checksum=False)
    return major, d.data


def test_codes_are_registered():
    codes = {c for *_, c in ROW_TYPES_DAMAGE} | {TOAST_DAMAGE[2], "checksum.mismatch", "rows.value.unreadable"}
    assert all(names_a_code(c) for c in codes)


def test_damaged_values_are_null_with_a_finding(damaged):
    major, data = damaged
    names, want = oracle(major, "row_types")
    r = rows(data, "row_types", "--json", "--columns", ",".join(names))
    assert r.returncode == 1
    recs = {x["ctid"]: x for x in map(json.loads, r.stdout.splitlines())}
    assert set(recs) == set(want)
    bad: dict[str, dict[str, str]] = {}
    for (b, i), column, _, code in ROW_TYPES_DAMAGE:
        bad.setdefault(f"({b},{i})", {})[column] = code
    for ctid, rec in recs.items():
        expected = dict(want[ctid])
        damage = rec.get("damage", [])
        for column, code in bad.get(ctid, {}).items():
            expected[column] = None
            assert {"code": code, "column": column} in damage
        if ctid.startswith("(1,"):
            assert {"code": "checksum.mismatch"} in damage
        assert rec["values"] == expected, ctid
        assert not damage or ctid in bad or ctid.startswith("(1,")
    for (b, i), column, _, code in ROW_TYPES_DAMAGE:
        assert f"{code}: block {b} item {i} column {column!r}" in r.stderr, r.stderr
    assert "checksum.mismatch: block 1 " in r.stderr


def test_csv_null_is_an_empty_field_and_the_empty_string_quoted(damaged):
    major, data = damaged
    _, want = oracle(major, "row_types")
    r = rows(data, "row_types", "--csv", "--columns", "c_text")
    assert r.returncode == 1
    lines = r.stdout.split("\n")
    assert lines[0] == "c_text"
    ctids = list(want)
    assert want[ctids[0]]["c_text"] == "" and lines[1] == '""'                # (0,1): the empty string
    assert ctids[1] == "(0,2)" and lines[2] == ""                              # (0,2): damaged, NULL
    got = list(csv.reader(io.StringIO(r.stdout)))[1:]
    assert got[1] == [] and got[0] == [""]


def test_table_for_people_marks_what_is_not_data(damaged):
    major, data = damaged
    r = rows(data, "row_types", "--all", "--columns", "id,c_jsonb")
    assert r.returncode == 1
    bad = {f"({b},{i})": f"{column}: {code}" for (b, i), column, _, code in ROW_TYPES_DAMAGE if column == "c_jsonb"}
    assert bad and "(0,2)" not in bad
    for args in (["--all"], []):
        r = rows(data, "row_types", *args, "--columns", "id,c_jsonb")
        assert r.returncode == 1 and "<" not in r.stdout
        cells = [[x.strip() for x in line.split("|")] for line in r.stdout.splitlines()[2:]]
        for c in cells:
            ctid, _, note = c[0].partition(" [")     # what is wrong with the version follows its ctid, whole
            notes = (["checksum.mismatch"] if ctid.startswith("(1,") else []) + ([bad[ctid]] if ctid in bad else [])
            assert note == ("; ".join(notes) + "]" if notes else ""), ctid
            if ctid in bad:
                assert c[-1] == ""           # no placeholder: empty, as NULL is; the note says why


def test_toast_pointer_to_no_value(damaged):
    major, data = damaged
    names, want = oracle(major, "toasty")
    r = rows(data, "toasty", "--json")
    assert r.returncode == 1
    (b, i), column, code = TOAST_DAMAGE
    recs = {x["ctid"]: x for x in map(json.loads, r.stdout.splitlines())}
    for ctid, rec in recs.items():
        expected = dict(want[ctid])
        if ctid == f"({b},{i})":
            expected[column] = None
            assert rec["damage"] == [{"code": code, "column": column}]
        assert rec["values"] == expected
    assert f"{code}: block {b} item {i} column {column!r}" in r.stderr, r.stderr
