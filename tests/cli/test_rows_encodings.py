"""Issue 39, item 7: text of databases that are not UTF-8 printed as a UTF-8 client receives it.

fixtures/values/pgNN (fixtures/make_values.py): databases in LATIN1, EUC_JP, WIN1251, KOI8R, EUC_KR, EUC_CN,
EUC_TW and SQL_ASCII with a table of text-like columns (text, varchar, char, name, json, jsonb, text[], an
enum with labels beyond ASCII), and the server's SELECT and COPY CSV of it in a session with client_encoding
UTF8. `rows` reads each database's encoding from pg_database and prints the same texts, byte for byte; EUC_TW
(no converter here) gives NULL and a finding for each value beyond ASCII, never bytes passed off as text.
"""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tarfile

import pytest

from conftest import FIXTURES

from pgpage.decode.encodings import encoding_name

VALUES = FIXTURES / "values"
MAJORS = tuple(sorted(int(p.name[2:]) for p in VALUES.glob("pg*") if (p / "oracle.json.gz").is_file()))
UNCONVERTED = {"EUC_TW"}


@pytest.fixture(scope="module", params=MAJORS, ids=lambda m: f"pg{m}")
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
    """--json's records (one a line: not str.splitlines, which also splits at U+0085 in a value)."""
    return [json.loads(line) for line in r.stdout.split("\n") if line]


def encoded(oracle: dict) -> list[str]:
    return [db for db, d in oracle["databases"].items() if d["encoding_name"] != "UTF8"]


def test_every_fixture_major_is_there():
    assert 15 in MAJORS and len(MAJORS) >= 2


def test_encoding_numbers_are_the_servers(cluster):
    _, oracle = cluster
    assert len(encoded(oracle)) >= 7
    for db, d in oracle["databases"].items():
        assert encoding_name(d["encoding"]) == d["encoding_name"], db


def test_json_values_equal_select(cluster):
    data, oracle = cluster
    for db in encoded(oracle):
        d = oracle["databases"][db]
        table = d["tables"]["enc"]
        names = [c["name"] for c in table["columns"]]
        r = rows(data, db, "enc", "--json")
        got = {x["ctid"]: x["values"] for x in records(r)}
        assert set(got) == {row[0] for row in table["rows"]}, db
        beyond_ascii = 0
        for row in table["rows"]:
            want = dict(zip(names, row[3:]))
            if d["encoding_name"] in UNCONVERTED:
                for name, value in want.items():
                    if value is not None and not value.isascii():
                        assert got[row[0]][name] is None, (db, row[0], name)
                        beyond_ascii += 1
                    else:
                        assert got[row[0]][name] == value, (db, row[0], name)
                continue
            assert got[row[0]] == want, (db, row[0])
            beyond_ascii += sum(v is not None and not v.isascii() for v in want.values())
        assert beyond_ascii >= 5, db
        if d["encoding_name"] in UNCONVERTED:
            assert r.returncode == 1 and f"no converter from {d['encoding_name']}" in r.stderr, r.stderr
        else:
            assert r.returncode == 0, (db, r.stderr)


def test_csv_equals_copy(cluster):
    data, oracle = cluster
    for db in encoded(oracle):
        d = oracle["databases"][db]
        if d["encoding_name"] in UNCONVERTED:
            continue
        r = rows(data, db, "enc", "--csv")
        assert r.stdout == d["tables"]["enc"]["copy_csv"], db


def test_encoding_override(cluster):
    """--encoding reads the stored bytes in another encoding: the LATIN1 database's bytes read as WIN1251 are
    other letters (and the same as LATIN1 they are the server's); a name that is no encoding is a usage error."""
    data, oracle = cluster
    table = oracle["databases"]["latin1"]["tables"]["enc"]
    first = next(row for row in table["rows"] if row[4] and not row[4].isascii())     # (ctid, xmin, xmax, id, t)
    stored = first[4].encode("latin-1")
    r = rows(data, "latin1", "enc", "--json", "--columns", "t", "--encoding", "WIN1251")
    got = {x["ctid"]: x["values"]["t"] for x in records(r)}
    assert got[first[0]] == stored.decode("cp1251") != first[4]
    r = rows(data, "latin1", "enc", "--json", "--columns", "t", "--encoding", "LATIN1")
    assert r.returncode == 0
    assert {x["ctid"]: x["values"]["t"] for x in records(r)}[first[0]] == first[4]
    r = rows(data, "latin1", "enc", "--csv", "--encoding", "no-such-encoding")
    assert r.returncode == 2 and r.stdout == "" and "--encoding" in r.stderr


def test_sql_ascii_bytes_that_are_not_utf8(cluster, tmp_path):
    """SQL_ASCII stores what clients send, unconverted: a byte that is not UTF-8 (0xE9 written over the first
    letter of a text value, the page checksum recomputed) cannot be printed as the UTF-8 a client would get:
    NULL with a finding naming the column; `--encoding LATIN1` reads it as a LATIN1 client would."""
    import shutil

    from mutation import recompute_checksums

    from pgpage.storage.datadir import open_data_directory
    data, oracle = cluster
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    path = open_data_directory(copy).database("sqlascii").relation("enc").forks["main"].segment_path(0)
    original = path.read_bytes()
    at = original.index(b"plain ascii")          # id 1's t: the first of its columns holding the text
    changed = bytearray(original)
    changed[at] = 0xE9
    assert recompute_checksums(changed, original, 8192) == 1
    path.write_bytes(bytes(changed))
    r = rows(copy, "sqlascii", "enc", "--json", "--columns", "id,t,v")
    assert r.returncode == 1 and "datum.text.bad_encoding" in r.stderr and "column 't'" in r.stderr
    got = {x["values"]["id"]: x for x in records(r)}
    assert got["1"]["values"] == {"id": "1", "t": None, "v": "plain ascii"}
    assert got["1"]["damage"] == [{"code": "datum.text.bad_encoding", "column": "t"}]
    r = rows(copy, "sqlascii", "enc", "--json", "--columns", "id,t", "--encoding", "LATIN1")
    assert r.returncode == 0 and {x["values"]["id"]: x["values"]["t"] for x in records(r)}["1"] == "élain ascii"
