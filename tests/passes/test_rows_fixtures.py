"""`pgpage rows` on every fixture cluster (PostgreSQL 10-18), value by value against the server's own output.

The oracle (fixtures/pg<MAJOR>/oracle/rows/<table>.json.gz, made by fixtures/make_fixtures.py) holds, for every
table of schema public, the rows a SELECT returned after the workload (ctid, xmin, xmax and each column's text
from its output function, in the cluster's own TimeZone from postgresql.auto.conf), the exact text of
``COPY ... TO STDOUT (FORMAT csv, HEADER)``, and for ``row_history`` its rows before the deletes and updates, the
tuple versions pageinspect saw on disk, and which transaction did what.

Before 12 the server printed floats with a fixed number of digits (the oracle was taken with
extra_float_digits 3); pgpage prints the shortest exact digits of 12+ on every major, so there, and only for
float-bearing text (float4/float8, geometric types, their arrays), numbers are compared by value.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import struct
from functools import lru_cache

import pytest

from conftest import FIXTURES, MAJORS, data_dir

from pgpage.passes.rows import RowOptions, TableRows
from pgpage.render.rows import write_csv
from pgpage.storage.datadir import open_data_directory

FLOAT_TYPES = {700, 701, 1021, 1022, 600, 601, 628, 603, 602, 604, 718, 1017, 1018, 629, 1020, 1019, 1027, 719}
_NUMBER = re.compile(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|Infinity|NaN)")


@lru_cache(maxsize=None)
def oracle(major: int, table: str) -> dict:
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rows" / f"{table}.json.gz") as f:
        return json.load(f)


def tables(major: int) -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in (FIXTURES / f"pg{major}" / "oracle" / "rows").glob("*.gz"))


CASES = [(m, t) for m in MAJORS for t in tables(m)]


@lru_cache(maxsize=None)
def database(major: int):
    return open_data_directory(data_dir(major)).database("pgpage")


def read(major: int, table: str, **options):
    db = database(major)
    t = TableRows(db.cluster, db.relation(table), RowOptions(**options))
    return t, list(t)


def same_text(got: str | None, want: str | None, typid: int, major: int) -> bool:
    if got == want:
        return True
    if major >= 12 or typid not in FLOAT_TYPES or got is None or want is None:
        return False
    fmt = "<f" if typid in (700, 1021) else "<d"
    as_bits = lambda text: [struct.pack(fmt, float(x)) for x in _NUMBER.findall(text)]  # noqa: E731
    return _NUMBER.sub("#", got) == _NUMBER.sub("#", want) and as_bits(got) == as_bits(want)


def csv_fields(text: str) -> list[list[str | None]]:
    """COPY's CSV read back field by field, a quoted empty string ('') told apart from NULL (None)."""
    out, row, i, n = [], [], 0, len(text)
    while i < n:
        if text[i] == '"':
            j, buf = i + 1, []
            while True:
                k = text.index('"', j)
                buf.append(text[j:k])
                if text[k + 1:k + 2] == '"':
                    buf.append('"')
                    j = k + 2
                    continue
                i = k + 1
                break
            row.append("".join(buf))
        else:
            j = i
            while j < n and text[j] not in ",\n":
                j += 1
            row.append(text[i:j] or None)
            i = j
        if i < n and text[i] == "\n":
            out.append(row)
            row = []
        i += 1
    return out


@pytest.mark.parametrize("major,table", CASES, ids=[f"pg{m}-{t}" for m, t in CASES])
def test_rows_equal_the_servers_select(major, table):
    want = oracle(major, table)
    t, rows = read(major, table)
    assert t.column_names == [c["name"] for c in want["columns"]]
    assert t.timezone == want["settings"]["TimeZone"] == "America/New_York"
    assert [(r.ctid, str(r.xmin), str(r.xmax)) for r in rows] == [tuple(w[:3]) for w in want["rows"]]
    typids = [c["typid"] for c in want["columns"]]
    for r, w in zip(rows, want["rows"]):
        for name, typid, got, exp in zip(t.column_names, typids, r.values, w[3:]):
            assert same_text(got, exp, typid, major), (table, r.ctid, name, got, exp)
    assert not [f for f in t.findings if f.severity == "error"], t.findings


@pytest.mark.parametrize("major,table", CASES, ids=[f"pg{m}-{t}" for m, t in CASES])
def test_csv_equals_copy(major, table):
    want = oracle(major, table)
    t = TableRows(database(major).cluster, database(major).relation(table))
    out = io.StringIO()
    write_csv(t.column_names, t, False, out)
    if major >= 12:
        assert out.getvalue() == want["copy_csv"]
        return
    typids = [c["typid"] for c in want["columns"]]
    got_rows, want_rows = csv_fields(out.getvalue()), csv_fields(want["copy_csv"])
    assert got_rows[0] == want_rows[0] and len(got_rows) == len(want_rows)
    for g, w in zip(got_rows[1:], want_rows[1:]):
        assert all(same_text(a, b, typid, major) for a, b, typid in zip(g, w, typids)), (table, g, w)


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_history_every_version_with_its_fate(major):
    want = oracle(major, "row_history")
    t, rows = read(major, "row_history", all_versions=True)
    on_disk = {(f"({v['blkno']},{v['lp']})", v["t_xmin"], v["t_xmax"]) for v in want["versions"] if v["lp_flags"] == 1}
    assert {(r.ctid, r.xmin, r.xmax) for r in rows} == on_disk
    # deleted and updated versions keep the values they had before the workload
    before = {w[0]: w[3:] for w in want["before"]["rows"]}
    by_id: dict[str, list] = {}
    for r in rows:
        by_id.setdefault(r.values[0], []).append(r)
    story = {s["what"]: s for s in want["story"]}
    for what, status in (("delete", "deleted"), ("delete range", "deleted")):
        for i in story[what]["ids"]:
            (r,) = by_id[str(i)]
            assert r.status == status and r.values == before[r.ctid]
    for what in ("update HOT", "update non-HOT (key)"):
        for i in story[what]["ids"]:
            old = [r for r in rows if r.ctid in before and before[r.ctid][0] == str(i) and r.status == "updated"]
            assert len(old) == 1 and old[0].values == before[old[0].ctid]
            assert old[0].t_ctid != old[0].ctid
    assert sorted(r.values[0] for r in rows if r.status == "aborted") == \
        sorted([str(i) for i in story["aborted insert"]["ids"]] + [str(i) for i in story["aborted update"]["ids"]])
    # the aborted delete, the lock and the multixact updater leave these live, with the server's values
    live = {r.values[0]: r for r in rows if r.status == "live"}
    for i in (21, 22):
        assert str(i) in live
    assert live["23"].values[2] == next(w[5] for w in want["rows"] if w[3] == "23")
    hot = [r for r in rows if r.status == "updated" and "HEAP_HOT_UPDATED" in r.hot]
    assert hot


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_toast_values_of_deleted_rows(major):
    """toasty: the deleted row's out-of-line value is reassembled from chunks its delete also marked (the
    fixture script wrote it as 62 md5 digests of "4:1".."4:62": make_fixtures.py, toasty)."""
    t, rows = read(major, "toasty", all_versions=True)
    assert not t.findings
    (deleted,) = [r for r in rows if r.status == "deleted"]
    assert deleted.values[:2] == ["4", "external_uncompressed"]
    assert deleted.values[2] == "".join(hashlib.md5(f"4:{g}".encode()).hexdigest() for g in range(1, 63))
