"""Issue 39, item 5: `rows FILE --schema '...'` reads a table's file without its catalog.

Every table of every fixture cluster with rows oracle (the server's SELECT of every visible row), its main fork
copied out of the data directory (no pg_class, pg_attribute, pg_xact or pg_control beside it), read with the
columns given as the server's ``format_type`` names them (the oracle's column types): every value equals the
server's text. What a schema cannot say is left out of the comparison, each for its reason: an enum's label (a
type of the database's own: given as ``oid``, its pg_enum oid is printed, and an array of it names an element
type no built-in type has), a column added after a row was written (its value is the catalog's attmissingval:
NULL without it), and before 12 float digits (compared by value as tests/passes/test_rows_fixtures.py does). A
dropped column is given as ``dropped_N`` with a built-in type of its length and alignment. TOAST pointers are
reported without --toast and followed with it.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, MAJORS, REPO, catalog_oracle, data_dir, rel_oracle

from pgpage.decode.schema import parse_schema
from pgpage.findings import PgpageError
from pgpage.passes.rows import RowOptions
from pgpage.passes.schemarows import schema_rows
from pgpage.storage.datadir import open_data_directory

_spec = importlib.util.spec_from_file_location("rows_fixtures", REPO / "tests" / "passes" / "test_rows_fixtures.py")
_rows_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rows_fixtures)
same_text = _rows_fixtures.same_text

ENUMS = {"mood": "oid", "mood[]": "oid[]"}          # the fixture's own types, as a schema can give them
DOMAINS = {"posnum": "numeric", "label": "text"}    # a domain is stored as its base type
DROPPED_AS = {(4, "i"): "int4", (8, "d"): "int8", (2, "s"): "int2", (1, "c"): '"char"', (-1, "i"): "bytea",
              (-1, "d"): "int8[]"}


def oracle(major: int, table: str) -> dict:
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rows" / f"{table}.json.gz") as f:
        return json.load(f)


def tables(major: int) -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in (FIXTURES / f"pg{major}" / "oracle" / "rows").glob("*.gz"))


def schema_of(major: int, table: str) -> tuple[str, set[str]]:
    """The --schema text of a fixture table (its columns' types from the oracle, dropped ones by their storage:
    pg_attribute's, read by pgpage) and the names of its columns that have a missing value."""
    types = {c["name"]: c["type"] for c in oracle(major, table)["columns"]}
    rel = open_data_directory(data_dir(major)).database("pgpage").relation(table)
    cols, missing = [], set()
    for attnum, a in enumerate(rel.database.attributes(rel.oid), 1):
        if a["attisdropped"]:
            cols.append(f"dropped_{attnum} {DROPPED_AS[(a['attlen'], a['attalign'])]}")
            continue
        t = types[a["attname"]]
        cols.append(f'"{a["attname"]}" {ENUMS.get(t) or DOMAINS.get(t) or t}')
        if a.get("atthasmissing"):
            missing.add(a["attname"])
    return ", ".join(cols), missing


def bare_file(major: int, table: str, tmp_path) -> str:
    dst = tmp_path / f"{table}_main"
    shutil.copyfile(data_dir(major) / rel_oracle(major, table)["filepath"], dst)
    return str(dst)


def toast_file(major: int, table: str, tmp_path) -> str:
    rels = {r["oid"]: r for r in catalog_oracle(major)["relations"]}
    toast = rels[next(r for r in rels.values() if r["relname"] == table)["reltoastrelid"]]
    dst = tmp_path / f"{table}_toast"
    shutil.copyfile(data_dir(major) / toast["filepath"], dst)
    return str(dst)


def compare(major: int, table: str, records: dict, missing: set[str], toast: bool) -> int:
    """How many values were compared; fails on the first that differs without a reason."""
    doc = oracle(major, table)
    compared = 0
    for row in doc["rows"]:
        got = records[row[0]]["values"]
        for col, want in zip(doc["columns"], row[3:]):
            name, typ = col["name"], col["type"]
            if typ in ENUMS or (name in missing and got[name] is None):
                continue
            if not toast and want is not None and got[name] is None and any(
                    d.get("column") == name and d["code"] == "rows.toast.not_followed"
                    for d in records[row[0]].get("damage", ())):
                continue
            assert same_text(got[name], want, col["typid"], major), (row[0], name, got[name], want)
            compared += 1
    return compared


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_schema_values_equal_select(major, tmp_path):
    total = 0
    for table in tables(major):
        schema, missing = schema_of(major, table)
        doc = oracle(major, table)
        rows = schema_rows(bare_file(major, table, tmp_path), None, None, schema, None,
                           RowOptions(all_versions=True, timezone=doc["settings"]["TimeZone"]))
        records = {r["ctid"]: r for r in rows.text_records()}
        assert {r[0] for r in doc["rows"]} <= set(records), table
        total += compare(major, table, records, missing, toast=False)
    assert total > 2000


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_toast_reported_then_followed(major, tmp_path):
    schema, _ = schema_of(major, "toasty")
    doc = oracle(major, "toasty")
    main, toast = bare_file(major, "toasty", tmp_path), toast_file(major, "toasty", tmp_path)
    args = [sys.executable, "-m", "pgpage", "rows", main, "--schema", schema, "--json", "--all",
            "--timezone", doc["settings"]["TimeZone"]]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "rows.toast.not_followed" in r.stderr, r.stderr
    records = {x["ctid"]: x for x in map(json.loads, r.stdout.splitlines())}
    reported = [x for x in records.values() if x.get("damage")]
    assert reported and all(x["values"]["body"] is None for x in reported)
    compare(major, "toasty", records, set(), toast=False)
    r = subprocess.run(args + ["--toast", toast], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    records = {x["ctid"]: x for x in map(json.loads, r.stdout.splitlines())}
    assert not any(x.get("damage") for x in records.values())
    assert compare(major, "toasty", records, set(), toast=True) == len(doc["rows"]) * len(doc["columns"])


def test_csv_of_a_file_with_a_damaged_catalog_and_a_file_alone(tmp_path):
    """A data directory whose pg_attribute cannot be read: `rows` says so and points to --schema, which reads the
    table; the same columns read from the file alone give the same CSV."""
    major = MAJORS[-1]
    shutil.copytree(data_dir(major), tmp_path / "data")
    cluster = open_data_directory(tmp_path / "data")
    attribute = cluster.database("pgpage").relation("pg_attribute").forks["main"].segment_path(0)
    attribute.write_bytes(bytes(attribute.stat().st_size))
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", tmp_path / "data", "--db", "pgpage", "--rel",
                        "heap_wide", "--csv"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3 and "--schema" in r.stderr, r.stderr
    schema, _ = schema_of(major, "heap_wide")
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", tmp_path / "data", "--db", "pgpage", "--rel",
                        "heap_wide", "--csv", "--schema", schema], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    alone = subprocess.run([sys.executable, "-m", "pgpage", "rows", bare_file(major, "heap_wide", tmp_path),
                            "--csv", "--schema", schema], capture_output=True, text=True, timeout=120)
    assert alone.stdout == r.stdout and len(r.stdout.splitlines()) == len(oracle(major, "heap_wide")["rows"]) + 1


@pytest.mark.parametrize("text, oid", [
    ("integer", 23), ("int4", 23), ("character varying(10)", 1043), ("varchar(10)", 1043), ("numeric(10,2)", 1700),
    ("timestamp with time zone", 1184), ("timestamp(3) with time zone", 1184), ("int4[]", 1007),
    ("integer[][]", 1007), ("_int4", 1007), ('"char"', 18), ("character(5)", 1042), ("bit varying(8)", 1562),
    ("interval year to month", 1186), ("double precision", 701), ("timestamp without time zone[]", 1115),
])
def test_format_type_names(text, oid):
    assert parse_schema(f"x {text}")[0].typid == oid


@pytest.mark.parametrize("schema", ["x mood", "x", "a int4, a text", "x cstring"])
def test_schema_refused_with_one_line(schema):
    with pytest.raises(PgpageError):
        parse_schema(schema)
