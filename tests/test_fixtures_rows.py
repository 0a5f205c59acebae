"""Self-check of the rows oracle (fixtures/pg<MAJOR>/oracle/rows/) and what it depends on.

This tests the committed fixtures, not pgpage: every ordinary table of schema public has a rows
document read with the cluster's own settings, COPY's CSV agrees with the rows, and the cluster
files the rows command needs (configuration, pg_enum, pg_range) are kept.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import re

from conftest import FIXTURES, catalog_oracle, data_dir

def rows_doc(major: int, relname: str) -> dict:
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rows" / f"{relname}.json.gz") as f:
        return json.load(f)


def tables(major: int) -> list[str]:
    return sorted(r["relname"] for r in catalog_oracle(major)["relations"]
                  if r["nspname"] == "public" and r["relkind"] == "r")


def ctid(text: str) -> tuple[int, int]:
    b, o = text.strip("()").split(",")
    return int(b), int(o)


def test_every_table_has_a_rows_document(major):
    names = sorted(p.name.removesuffix(".json.gz")
                   for p in (FIXTURES / f"pg{major}" / "oracle" / "rows").glob("*.json.gz"))
    assert names == tables(major)
    want = {"row_types", "row_history", "row_evolve", "toasty", "heap_wide", "heap_hot", "heap_locks"}
    assert want | ({"row_oids"} if major <= 11 else set()) <= set(names)
    assert ("row_oids" in names) == (major <= 11)


def test_rows_shape_settings_and_copy_csv_agree(major):
    for name in tables(major):
        d = rows_doc(major, name)
        assert d["relname"] == name
        st = d["settings"]
        assert st["TimeZone"] == "America/New_York" and st["DateStyle"] == "ISO, MDY"
        assert st["IntervalStyle"] == "postgres" and st["bytea_output"] == "hex"
        assert st["extra_float_digits"] == ("3" if major < 12 else "1")
        width = 3 + len(d["columns"])
        assert all(len(r) == width for r in d["rows"]), name
        assert [ctid(r[0]) for r in d["rows"]] == sorted(ctid(r[0]) for r in d["rows"]), name
        recs = list(csv.reader(io.StringIO(d["copy_csv"], newline="")))
        assert recs[0] == [c["name"] for c in d["columns"]], name
        assert len(recs) - 1 == len(d["rows"]), name
        for rec, row in zip(recs[1:], d["rows"]):  # CSV cannot tell NULL from '' apart
            assert (rec or [""]) == ["" if v is None else v for v in row[3:]], (name, row[0])


def test_row_types_columns_follow_the_major(major):
    d = rows_doc(major, "row_types")
    types = {c["name"]: c["type"] for c in d["columns"]}
    assert len(d["rows"]) >= 20
    assert ("c_int4multirange" in types) == (major >= 14)
    assert ("c_numeric_inf" in types) == (major >= 14)
    assert ("c_numeric_negscale" in types) == (major >= 15)
    assert ("c_interval_inf" in types) == (major >= 17)
    assert types["c_mood"] == "mood" and types["c_moodarr"] == "mood[]" and types["c_lbound"] == "integer[]"
    notes = " ".join(catalog_oracle(major).get("notes", []))
    if major < 17:
        assert "c_interval_inf" in notes
    # an all-NULL row and a row without NULLs
    assert any(all(v is None for v in r[4:]) for r in d["rows"])
    assert any(all(v is not None for v in r[3:]) for r in d["rows"])


def test_row_history_has_before_story_and_versions(major):
    d = rows_doc(major, "row_history")
    assert len(d["before"]["rows"]) == 40 and len(d["rows"]) == 34
    vers = d["versions"]
    assert all(v["lp_flags"] == 1 for v in vers)  # never pruned
    for s in d["story"]:
        xid = s["xid"] & 0xFFFFFFFF
        assert any(xid in (v["t_xmin"], v["t_xmax"]) for v in vers) or "MultiXact" in s["what"], s
    assert any(v["t_infomask"] & 0x1000 for v in vers)  # HEAP_XMAX_IS_MULTI
    assert {s["outcome"] for s in d["story"]} >= {"committed", "aborted"}


def test_cluster_files_for_rows_are_kept(major):
    cat = catalog_oracle(major)
    kept = set(cat["kept_files"])
    assert {"postgresql.conf", "postgresql.auto.conf"} <= kept
    for catalog in ("pg_enum", "pg_range"):
        (rel,) = [r for r in cat["relations"] if r["relname"] == catalog]
        assert rel["filepath"] in kept
    conf = (data_dir(major) / "postgresql.conf").read_text()
    auto = (data_dir(major) / "postgresql.auto.conf").read_text()
    assert re.findall(r"(?m)^timezone = '([^']*)'", conf) == ["Asia/Kolkata"]
    assert re.findall(r"(?m)^timezone = '([^']*)'", auto) == ["America/New_York"]
    assert cat["rows_settings"]["TimeZone"] == "America/New_York"
    mood = cat["pg_enum"]  # in enumsortorder
    assert [e["enumlabel"] for e in mood] == ["sad", "meh", "ok", "happy"]
    assert [e["enumlabel"] for e in sorted(mood, key=lambda e: e["oid"])] != ["sad", "meh", "ok", "happy"]
