"""Issue 39, items 6 and 8: composite types print as the server prints them; `--dropped` shows dropped columns.

fixtures/values/pgNN's ``comp`` (fixtures/make_values.py): composite columns (nested, an array of composites
in two dimensions, NULL fields, a field of an enum and one of a domain), a numeric column dropped after four
rows were written, a row written after the drop and a row updated. The oracle: the server's SELECT and COPY
with client_encoding UTF8, and the dropped column's values read before the drop. pg_attribute's pre-drop row
of the column is on disk there (a snapshot held it from pruning), so `--dropped` prints the values typed; the
main fixtures' ``row_evolve`` dropped its text column ``b`` (values ``'b' || a`` for a 1..5, the workload of
fixtures/make_fixtures.py), whose pre-drop row is pruned or not by then: typed where it is there, else hex.
"""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tarfile

import pytest

from conftest import FIXTURES, MAJORS, data_dir

VALUES = FIXTURES / "values"
VALUE_MAJORS = tuple(sorted(int(p.name[2:]) for p in VALUES.glob("pg*") if (p / "oracle.json.gz").is_file()))


@pytest.fixture(scope="module", params=VALUE_MAJORS, ids=lambda m: f"pg{m}")
def cluster(request, tmp_path_factory):
    major = request.param
    dst = tmp_path_factory.mktemp(f"values{major}")
    with tarfile.open(VALUES / f"pg{major}" / "data.tar.xz") as tf:
        tf.extractall(dst, filter="data")
    with gzip.open(VALUES / f"pg{major}" / "oracle.json.gz") as f:
        return dst / "data", json.load(f)


def rows(data, db: str, table: str, *args):
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", db, "--rel", table, *args],
                       capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    return r


def records(r) -> list[dict]:
    return [json.loads(line) for line in r.stdout.split("\n") if line]


def test_composites_equal_copy_and_select(cluster):
    data, oracle = cluster
    table = oracle["databases"]["pgpage"]["tables"]["comp"]
    r = rows(data, "pgpage", "comp", "--csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout == table["copy_csv"]
    assert "(" in r.stdout and "rows.type.not_decoded" not in r.stderr
    names = [c["name"] for c in table["columns"]]
    got = {x["ctid"]: x["values"] for x in records(rows(data, "pgpage", "comp", "--json"))}
    assert got == {row[0]: dict(zip(names, row[3:])) for row in table["rows"]}


def test_dropped_column_typed_from_the_pre_drop_catalog_row(cluster):
    data, oracle = cluster
    r = rows(data, "pgpage", "comp", "--all", "--dropped", "--json")
    assert r.returncode == 0, r.stderr
    assert "rows.dropped.typed" in r.stderr and "of type numeric" in r.stderr
    got = {x["ctid"]: x["values"] for x in records(r)}
    before = dict(oracle["comp_dropped"])
    assert len(before) == 4 and {ctid: got[ctid]["dropped_5"] for ctid in before} == before
    assert all(v["dropped_5"] is None for ctid, v in got.items() if ctid not in before)   # written after the drop
    plain = {x["ctid"]: x["values"] for x in records(rows(data, "pgpage", "comp", "--all", "--json"))}
    assert {c: {k: v for k, v in vals.items() if k != "dropped_5"} for c, vals in got.items()} == plain


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_dropped_column_hex_or_typed(major):
    r = rows(data_dir(major), "pgpage", "row_evolve", "--all", "--dropped", "--json", "--columns", "a,dropped_2")
    assert r.returncode == 0, r.stderr
    versions = [(x["values"]["a"], x["values"]["dropped_2"]) for x in records(r)]
    stored = {str(a): f"b{a}" for a in range(1, 6)}
    if "rows.dropped.typed" in r.stderr:
        assert "of type text" in r.stderr
        want = stored
    else:
        assert "rows.dropped.untyped" in r.stderr and "attlen -1, attalign 'i'" in r.stderr
        want = {a: "\\x" + text.encode().hex() for a, text in stored.items()}
    # the rows written before the drop hold the values; those written after it (and new versions) NULL. Before
    # 11, ADD COLUMN ... DEFAULT (after the drop) rewrote the table, and a rewrite stores NULL in dropped columns
    if major < 11:
        want = {}
    assert {(a, v) for a, v in versions if v is not None} == set(want.items())
    assert len(versions) > len(want)
