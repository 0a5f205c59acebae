"""int2vector and oidvector values as Python objects (``values.python_converter``): their text has no braces
(``1 2``, as the server prints pg_index.indkey), so the array reader must not take them; `Relation.rows()` of a
catalog with them (pg_proc's proargtypes, pg_index's indkey) failed with an IndexError."""
from __future__ import annotations

import json

from conftest import FIXTURES, data_dir
from pgpage.decode.values import ValueFormatter, python_value
from pgpage.storage.datadir import open_data_directory

INT2VECTOROID, OIDVECTOROID, INT4ARRAYOID = 22, 30, 1007


def test_vectors_are_lists_of_ints():
    f = ValueFormatter()
    assert python_value(f, INT2VECTOROID, "1 3 2") == [1, 3, 2]
    assert python_value(f, OIDVECTOROID, "") == []
    assert python_value(f, INT4ARRAYOID, "{1,NULL,3}") == [1, None, 3]
    assert python_value(f, INT4ARRAYOID, "not an array") == "not an array"     # kept, never half read


def test_catalog_rows_with_vectors():
    """pg_index's indkey through the typed rows of the catalog: as many attribute numbers as the server's pg_index
    said each index has (indnatts, the fixture's catalog oracle captured by make_fixtures.py), all of them
    columns (> 0) but where an index has an expression (0)."""
    major = 15
    db = open_data_directory(data_dir(major)).database("pgpage")
    with open(FIXTURES / f"pg{major}" / "oracle" / "catalog.json") as fh:
        oracle = json.load(fh)
    rows = {r["values"]["indexrelid"]: r["values"]["indkey"] for r in db.relation("pg_catalog.pg_index").rows()}
    want = {i["indexrelid"]: i["indnatts"] for i in oracle["indexes"]}
    assert len(want) > 5 and {oid: len(rows[oid]) for oid in want} == want
    assert all(isinstance(k, int) and k >= 0 for oid in want for k in rows[oid])
