"""COPY's text format from the pages (`pgpage dump`'s data): the compiled printer's copy_text lines of every fixture
table (PostgreSQL 10-18) are the server's own values (the rows oracle: each column's text from its output
function) escaped as COPY's text format escapes them (``render.rows.copy_text_field``, CopyAttributeOutText), and
equal to the lines Python prints for the same rows (``render.rows.copy_text_line``), the compiled path's twin."""
from __future__ import annotations

import pytest

from pgpage.passes.rows import RowOptions, TableRows
from pgpage.render.rows import copy_text_field, copy_text_line
from test_rows_fixtures import CASES, database, oracle, same_text


def compiled_text(t: TableRows) -> str:
    return "".join(item[0].decode("utf-8") if isinstance(item, tuple) else copy_text_line(item)
                   for item in t.copy_stream())


@pytest.mark.parametrize("major,table", CASES, ids=[f"pg{m}-{t}" for m, t in CASES])
def test_copy_text_is_the_servers_values_escaped(major, table):
    want = oracle(major, table)
    db = database(major)
    got = compiled_text(TableRows(db.cluster, db.relation(table)))
    python = "".join(copy_text_line(r) for r in TableRows(db.cluster, db.relation(table)))
    assert got == python
    expected = ["\t".join(copy_text_field(v) for v in w[3:]) for w in want["rows"]]
    lines = got.split("\n")
    assert lines[-1] == "" and len(lines) - 1 == len(expected)
    if major >= 12:
        assert lines[:-1] == expected
        return
    typids = [c["typid"] for c in want["columns"]]   # (before 12 floats compare by value: test_rows_fixtures)
    for line, exp in zip(lines, expected):
        assert all(same_text(a, b, typid, major) for a, b, typid in zip(line.split("\t"), exp.split("\t"), typids))


def test_copy_text_escapes_what_copy_escapes():
    """Backslash, and \\b \\f \\n \\r \\t \\v as COPY writes them; other control characters and \\. as they are."""
    assert copy_text_field(None) == "\\N"
    assert copy_text_field("a\\b\tc\nd\re\bf\fg\vh\x01\\.") == "a\\\\b\\tc\\nd\\re\\bf\\fg\\vh\x01\\\\."
    db = database(15)
    t = TableRows(db.cluster, db.relation("misc_types"), RowOptions())
    assert compiled_text(t).count("\n") == len(oracle(15, "misc_types")["rows"])
