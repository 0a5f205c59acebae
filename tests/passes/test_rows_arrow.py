"""`rows --parquet`'s and export's rows with typed columns: the compiled printer writes the values of fixed-width
types, text and bytea as Arrow holds them (``passes.export.RowColumns.typed``), and the tables it gives equal
those read from the text of every value (`rows --csv`'s lines through Arrow's casts, ``rows_batches(typed=False)``),
with the same findings: on the fixture tables of every major, live rows and every version, and on copies whose
typed values and a page's checksum are damaged."""
from __future__ import annotations

import pytest

from conftest import MAJORS, rel_oracle
from valuedamage import Damaged, where

pa = pytest.importorskip("pyarrow")

from pgpage.passes.export import RowColumns, rows_batches, utc_rows  # noqa: E402
from pgpage.passes.rows import open_table  # noqa: E402
from pgpage.passes.rowsprint import TypedLines  # noqa: E402

BLCKSZ = 8192
# tables of typed columns of every kind (catalogs: name, oid, bool, int2, "char"), with TOASTed and compressed
# text, HOT chains, locks, dropped and added columns
TABLES = ("public.row_types", "public.heap_hot", "public.toasty", "public.heap_wide", "public.misc_types",
          "public.row_history", "public.row_evolve", "public.heap_locks", "pg_catalog.pg_class", "pg_catalog.pg_type",
          "pg_catalog.pg_attribute")
# row_types' columns of the kinds the printer writes typed (c_label: a domain over text)
ROW_TYPES_TYPED = {"id", "c_bool", "c_int2", "c_int4", "c_int8", "c_oid", "c_float4", "c_float8", "c_char", "c_varchar",
                   "c_text", "c_name", "c_bytea", "c_date", "c_timestamp", "c_timestamptz", "c_xid", "c_label"}


def varlena_header(raw: bytes) -> int:
    return 1 if raw[0] & 1 else 4


# (ctid, column, where in the value and what to write there): a text that is not UTF-8, a bool byte of 2, a
# timestamp past any year Arrow reads, a bytea whose length runs past its tuple
ROW_TYPES_DAMAGE = [
    ((0, 2), "c_text", lambda raw: (varlena_header(raw), b"\xff\xfe")),
    ((0, 1), "c_bool", lambda raw: (0, b"\x02")),
    ((0, 5), "c_timestamp", lambda raw: (0, b"\x00\x00\x00\x00\x00\x00\x00\x70")),
    ((0, 3), "c_bytea", lambda raw: (0, b"\xfc\xff\xff\x7f")),
]


def both_paths(data, table: str, all_versions: bool):
    """(typed, text): each (the Arrow table, its findings as JSON) of ``rows_batches`` with and without typed values."""
    cluster, relation = open_table(str(data), "pgpage", table)
    out = []
    for typed in (True, False):
        batches: list = []
        findings = rows_batches(utc_rows(cluster, relation, all_versions), batches.append, typed=typed)
        out.append((pa.Table.from_batches(batches), [f.to_json() for f in findings]))
    return out


def comparable(t):
    """Float columns as their text, so that a NaN equals a NaN (Arrow's ``equals`` holds no NaN equal)."""
    return pa.table([c.cast(pa.string()) if pa.types.is_floating(c.type) else c for c in t.columns],
                    names=t.column_names)


def assert_same(data, table: str, all_versions: bool):
    (typed, typed_findings), (text, text_findings) = both_paths(data, table, all_versions)
    assert typed.schema == text.schema, table
    assert typed.num_rows == text.num_rows > 0, table
    for name in typed.column_names:
        assert comparable(typed.select([name])).equals(comparable(text.select([name]))), (table, name)
    assert typed_findings == text_findings, table
    return typed_findings


def typed_values(data, table: str) -> dict[str, int]:
    """By typed column, how many of its values the printer wrote as Arrow holds them (every version)."""
    cluster, relation = open_table(str(data), "pgpage", table)
    rows = utc_rows(cluster, relation, all_versions=True)
    columns = RowColumns(rows)
    counts = dict.fromkeys((n for n, t in zip(columns.names, columns.typed) if t), 0)
    for item in rows.arrow_stream(columns.typed):
        if isinstance(item, TypedLines):
            for i, name in enumerate(columns.names):
                if name in counts:
                    counts[name] += int((item.lengths[:, i] >= 0).sum())
    return counts


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_typed_rows_equal_the_texts(major):
    from conftest import data_dir
    for table in TABLES:
        for all_versions in (False, True):
            assert_same(data_dir(major), table, all_versions)
    counts = typed_values(data_dir(major), "public.row_types")
    assert set(counts) == ROW_TYPES_TYPED
    assert all(counts.values()), counts     # every typed column had values written typed


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_damaged_typed_values_equal_the_texts(major, tmp_path):
    d = Damaged(major, tmp_path)
    for ctid, column, change in ROW_TYPES_DAMAGE:
        v = where(major, "row_types", ctid, column)
        at, new = change(v.raw)
        d.write(v.path, v.offset + at, new)
    # a byte of block 1's free space, its checksum left as it was: the page's versions are Python's, flagged
    oracle = rel_oracle(major, "row_types")
    page = next(p for p in oracle["forks"]["main"] if p["blkno"] == 1)
    lower, upper = page["page_header"]["lower"], page["page_header"]["upper"]
    d.write(oracle["filepath"], BLCKSZ + (lower + upper) // 2, b"\x5a", fix_checksum=False)
    for all_versions in (False, True):
        findings = assert_same(d.data, "public.row_types", all_versions)
        codes = {f["code"] for f in findings}
        assert {"checksum.mismatch", "datum.text.bad_encoding"} <= codes, codes
        assert any(f.get("block") == 0 and f.get("item") == 3 for f in findings), findings   # the bytea
