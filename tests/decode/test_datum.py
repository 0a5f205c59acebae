"""Value decoders, checked value by value against a real server's own text.

Uses the throwaway server of test_deform (the ``pg`` fixture, shared for the session): a table
with one column per decoded type is filled with edge values, NULLs in a rotating pattern, and read
back from its pages; every value must render exactly as the server's output function renders it,
and every attribute's bytes must equal pageinspect's.
"""
from __future__ import annotations

import json
import random
import struct

import pytest

from pgpage.decode import datum
from pgpage.decode.deform import VALUE, decode_attr

import floatbits
from test_deform import catalog_attributes, compare_relation, deform, pg, rel_tuples  # noqa: F401

# type -> literals (SQL text, cast to the type). 'NULL' is SQL NULL.
VALUES: dict[str, list[str]] = {
    "bool": ["true", "false"],
    '"char"': ["a", "", "Z", "\\\\"],
    "name": ["x", "é_name", "n" * 63, ""],
    "int2": ["0", "-32768", "32767", "-1"],
    "int4": ["0", "-2147483648", "2147483647", "42"],
    "int8": ["0", "-9223372036854775808", "9223372036854775807", "-42"],
    "oid": ["0", "4294967295", "16384"],
    "xid": ["0", "3", "4294967295"],
    "cid": ["0", "7", "4294967295"],
    "regproc": ["boolin", "int4out", "-"],
    "float4": ["0", "-0", "1.1", "NaN", "Infinity", "-Infinity", "3.4028235e38", "1e-45", "123456",
               "1234567", "0.0001", "0.00001", "-2.5e-10"],
    "float8": ["0", "-0", "0.1", "NaN", "Infinity", "-Infinity", "1e15", "1e14", "1.5e300", "1e-300",
               "123456789012345.6", "5e-324", "1.7976931348623157e308", "-3.14159265358979"],
    "text": ["", "a", "x" * 126, "y" * 127, "z" * 300, "héllo wörld ☃", "quote ' \" back\\\\slash",
             "NULL", "tab\tnewline\n"],
    "varchar(300)": ["", "v", "w" * 200],
    "char(5)": ["ab", "", "abcde", "é"],
    "bytea": ["\\x", "\\x00", "\\xdeadbeef", "\\x" + "ab" * 200],
    "uuid": ["00000000-0000-0000-0000-000000000000", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
             "ffffffff-ffff-ffff-ffff-ffffffffffff"],
    "date": ["2000-01-01", "1999-12-31", "0001-01-01", "0001-12-31 BC", "4713-01-01 BC",
             "5874897-12-31", "infinity", "-infinity", "2024-02-29", "1900-03-01"],
    "time": ["00:00", "23:59:59.999999", "24:00:00", "12:34:56.5", "01:02:03.000001"],
    "timetz": ["12:34:56+05:30", "00:00:00-08", "01:02:03.25+00", "23:59:59.999999-12:45:30"],
    "timestamp": ["2000-01-01 00:00:00", "1999-12-31 23:59:59.999999", "0044-03-15 12:00 BC",
                  "294276-12-31 23:59:59.999999", "4713-01-01 00:00 BC", "infinity", "-infinity",
                  "1970-01-01 00:00:00.000001", "2024-02-29 12:00:00.5"],
    "timestamptz": ["2000-01-01 00:00:00+00", "1999-12-31 23:59:59.999999+00",
                    "0044-03-15 12:00+00 BC", "2024-06-01 12:00:00+02", "infinity", "-infinity",
                    "1901-12-13 20:45:52.123+00"],
    "interval": ["0", "1 year 2 mons 3 days 04:05:06.789", "-1 day", "-00:00:01.5", "1 day -00:00:01",
                 "-1 year -2 mons +3 days", "178000000 years", "00:00:00.000001", "1 mon -1 day",
                 "-2147483648 days", "-1 year +1 mon", "100 hours", "-100 hours -3 seconds"],
    "numeric": ["0", "0.0", "NaN", "-1.5", "1e100", "1e-100", "123456789.123456789", "-0.0001234",
                "99999999999999999999.99999", "0.000001", "1.00", "10000", "-10000.0001", "1e300",
                "12345678901234567890123456789012345678901234567890", "0.1", "9999", "-9999.9999",
                "1e-6", "1.5e-40", "100000000", "0.00000000000000000001"],
    "int2vector": ["1 2 3", "", "0", "-1 32767"],
    "oidvector": ["23 25", "", "4294967295"],
    "int4[]": ["{1,2,NULL,4}", "{}", "{{1,2},{3,4}}", "[0:2]={1,2,3}", "{NULL}", "[-5:-4]={7,8}"],
    "int2[]": ["{1,-2}", "{NULL,NULL,3}"],
    "int8[]": ["{9223372036854775807,NULL,-1}"],
    "float4[]": ["{1.1,NaN,-Infinity}"],
    "float8[]": ["{1.5,NaN,Infinity,-0,NULL}", "{0.1,1e-300}"],
    "bool[]": ["{t,f,NULL}"],
    "text[]": ['{"a b","",NULL,"NULL","q\\"uote","back\\\\slash","{x}",plain,"é"}', "{}",
               '{{a,b},{c,d}}', '{"' + "long" * 50 + '",short}'],
    "varchar[]": ['{a,"b,c"}'],
    "name[]": ["{x,y,NULL}"],
    '"char"[]': ["{a,b}"],
    "bytea[]": ['{"\\\\x01ff",NULL,"\\\\x"}'],
    "numeric[]": ["{1.5,NaN,-0.001,NULL,1e20}"],
    "date[]": ["{2000-01-01,infinity,NULL}"],
    "timestamptz[]": ['{"2000-01-01 00:00:00+00",NULL,-infinity}'],
    "timestamp[]": ['{"2000-01-01 00:00:00.25"}'],
    "interval[]": ['{"1 day",NULL,"-00:00:01"}'],
    "uuid[]": ["{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}"],
    "oid[]": ["{1,4294967295}"],
    "tid": ["(0,1)", "(4294967295,65535)", "(12,0)"],
    "json": ['{"a": [1, 2, {"b": null}]}', "[]"],
    "aclitem[]": ["{postgres=arwdDxt/postgres,=r/postgres}"],
}


def _columns(major: int):
    vals = dict(VALUES)
    if major >= 14:
        vals["numeric"] = vals["numeric"] + ["Infinity", "-Infinity"]
    if major >= 17:
        vals["interval"] = vals["interval"] + ["infinity", "-infinity"]
    if major < 12:
        vals["xid"] = vals["xid"]      # xid input is the same
    return vals


def _lit(v: str) -> str:
    return "'" + v.replace("'", "''") + "'"


@pytest.fixture(scope="session")
def types_table(pg):
    conn = pg.conn
    cols = _columns(pg.major)
    names = [f"c{i}" for i in range(len(cols))]
    conn.execute("CREATE TABLE t_types (id int, " +
                 ", ".join(f"{n} {t}" for n, t in zip(names, cols)) + ")")
    nrows = max(len(v) for v in cols.values()) * 3
    rng = random.Random(15)
    for r in range(nrows):
        row = []
        for ci, (t, vals) in enumerate(cols.items()):
            # every value appears at least once, NULLs rotate through the columns
            if (r + ci) % 5 == 4 or (r > len(vals) and rng.random() < 0.3):
                row.append("NULL")
            else:
                row.append(f"{_lit(vals[r % len(vals)])}::{t}")
        conn.execute(f"INSERT INTO t_types VALUES ({r}, {', '.join(row)})")
    conn.execute("CHECKPOINT")
    return pg


def test_types_match_server(types_table):
    nv, nr = compare_relation(types_table, "t_types")
    cols = _columns(types_table.major)
    assert nv > len(cols) * 20 and nr > nv


def test_aclitem_and_json_fallbacks(types_table):
    conn, major = types_table.conn, types_table.major
    relid = conn.execute("SELECT 't_types'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(types_table, relid)
    acl = next(i for i, a in enumerate(attrs) if a.typid == 1034)
    seen = 0
    for t in rel_tuples(conn, "t_types"):
        a = deform(t, attrs).attrs[acl]
        if a.status == VALUE:
            v = decode_attr(a, major=major)
            assert isinstance(v, datum.Undecoded) and v.typid == 1034
            assert json.loads(json.dumps(datum.to_json(v)))["hex"] == v.hex
            seen += 1
    assert seen


def test_floats_many(pg):
    """Shortest-exact float text (12+) for many random floats of every magnitude."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_floats (f4 float4, f8 float8)")
    conn.execute("SELECT setseed(0.25)")
    conn.execute("INSERT INTO t_floats SELECT (r * 10 ^ e)::float4, r * 10 ^ (e * 10) FROM "
                 "(SELECT (random() - 0.5) AS r, (g % 61 - 30) AS e FROM generate_series(1, 1500) g) s")
    # whole numbers (reltuples is one) either side of 2^24 and 2^53, where float spacing passes 1
    conn.execute("INSERT INTO t_floats SELECT (g * 104729 % 40000000 - 3)::float4, "
                 "g * 89 * 2 ^ (g % 30) - 1 FROM generate_series(1, 500) g")
    conn.execute("INSERT INTO t_floats VALUES (16777215, 9007199254740991), (16777217, 9007199254740993), "
                 "(48085872, 1e16), (-1, -1)")
    nv, _ = compare_relation(pg, "t_floats")
    assert nv == 3000 + 1000 + 8


def test_float_bit_patterns_of_every_class(pg):
    """float4out/float8out's text for bit patterns of every class (tests/floatbits.py: every power of two and its
    neighbours, subnormals, both ends of each range, short decimals that are midpoints, whole numbers, NaN
    payloads, infinities, zeros, tens of thousands of random patterns), stored bit for bit by binary COPY and
    read back from the pages: every value's text is the server's (before 12, where the server prints a fixed
    number of digits, the same value). The value keeps the float4's bits (JSON shows its digits)."""
    conn = pg.conn
    rng = random.Random(700)
    f4 = floatbits.patterns(floatbits.FLOAT4, rng, 40_000)
    f8 = floatbits.patterns(floatbits.FLOAT8, rng, 20_000)
    conn.execute("CREATE TABLE t_float_bits (f4 float4, f8 float8)")
    floatbits.copy_binary(conn, "t_float_bits", ["f4", "f8"], [
        (struct.pack(">I", f4[i]) if i < len(f4) else None, struct.pack(">Q", f8[i]) if i < len(f8) else None)
        for i in range(max(len(f4), len(f8)))])
    nv, _ = compare_relation(pg, "t_float_bits")
    assert nv == 2 * max(len(f4), len(f8)) > 80_000
    for b in f4[:: 97]:
        v = datum.decode_datum(700, struct.pack("<I", b))
        if isinstance(v, datum.Float4):
            assert v.bits == b and json.loads(json.dumps(v)) == v


def test_float4_digits_whose_double_is_another_float4():
    """0x15ae43fd prints 7.038531e-26 (the server's text), and that decimal read as a double and then
    rounded to float4 is 0x15ae43fe: the decoded value's text comes from its bits."""
    v = datum.decode_datum(700, struct.pack("<I", 0x15AE43FD))
    assert datum.to_pg_text(700, v) == "7.038531e-26" == repr(v)
    assert struct.unpack("<I", struct.pack("<f", v))[0] == 0x15AE43FE
    assert datum.to_pg_text(700, datum.decode_datum(700, struct.pack("<I", 0x15AE43FE))) == "7.0385313e-26"
    import pickle
    assert pickle.loads(pickle.dumps(v)).bits == 0x15AE43FD


def test_numeric_many(pg):
    """numerics of every shape: short and long headers, weights and scales either side of the
    short-header limits (weight -64..63, dscale 0..63)."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_num (n numeric, s numeric(1000, 500), m numeric(10, 4))")
    conn.execute("INSERT INTO t_num SELECT (random() - 0.5) * 10 ^ (g % 400 - 200), "
                 "(1::numeric / (g + 2))::numeric(1000, 500), (g * 1.2345)::numeric(10, 4) "
                 "FROM generate_series(1, 300) g")
    conn.execute("INSERT INTO t_num SELECT round((random() * 10 ^ (g % 150))::numeric, g % 80), NULL, "
                 "-g FROM generate_series(1, 300) g")
    nv, _ = compare_relation(pg, "t_num")
    assert nv == 1800


def _server_has_lz4(conn, major) -> bool:
    if major < 14:
        return False              # TOAST compression methods exist from 14
    return bool(conn.execute("SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
                             "WHERE name = 'default_toast_compression'").fetchone()[0])


def test_compressed_inline_pglz_and_lz4(pg):
    conn, major = pg.conn, pg.major
    lz4 = _server_has_lz4(conn, major)     # the npm builds of 14-18 are built without lz4
    conn.execute("CREATE TABLE t_comp (id int, p text, q bytea" + (", l text COMPRESSION lz4" if lz4 else "") + ")")
    for c in ("p", "q") + (("l",) if lz4 else ()):
        conn.execute(f"ALTER TABLE t_comp ALTER COLUMN {c} SET STORAGE main")
    conn.execute("INSERT INTO t_comp SELECT g, repeat('pglz ' || g, 200 + g * 10), "
                 "decode(repeat(md5(g::text), 100), 'hex')"
                 + (", repeat('lz4 ' || g, 300 + g)" if lz4 else "") + " FROM generate_series(1, 20) g")
    conn.execute("CHECKPOINT")
    relid = conn.execute("SELECT 't_comp'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    methods = set()
    for t in rel_tuples(conn, "t_comp"):
        for a in deform(t, attrs).attrs[1:]:
            if a.varlena is not None and a.varlena.kind == datum.COMPRESSED:
                methods.add(a.varlena.compression)
                if a.varlena.compression == "lz4" and not datum.lz4_available():
                    v = decode_attr(a, major=major)
                    assert isinstance(v, datum.Undecoded) and "lz4-compressed" in v.note
    assert "pglz" in methods and ("lz4" in methods or not lz4)
    if datum.lz4_available() or not lz4:
        compare_relation(pg, "t_comp")


def test_lz4_missing_is_described(pg, monkeypatch):
    """Without the lz4 package an lz4 datum is described, not failed."""
    assert _server_has_lz4(pg.conn, pg.major), "the test server has no lz4 TOAST compression"
    import builtins
    real_import = builtins.__import__

    def no_lz4(name, *a, **kw):
        if name.startswith("lz4"):
            raise ImportError("no lz4")
        return real_import(name, *a, **kw)

    conn = pg.conn
    conn.execute("CREATE TABLE IF NOT EXISTS t_lz4 (l text COMPRESSION lz4)")
    conn.execute("ALTER TABLE t_lz4 ALTER COLUMN l SET STORAGE main")
    conn.execute("INSERT INTO t_lz4 VALUES (repeat('lz4 lz4 ', 400))")
    relid = conn.execute("SELECT 't_lz4'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    a = deform(rel_tuples(conn, "t_lz4")[0], attrs).attrs[0]
    assert a.varlena.kind == datum.COMPRESSED and a.varlena.compression == "lz4"
    monkeypatch.setattr(builtins, "__import__", no_lz4)
    v = decode_attr(a, major=pg.major)
    assert isinstance(v, datum.Undecoded)
    assert v.note.startswith(f"lz4-compressed, {len(a.varlena.data)} bytes")


def test_pglz_corruption_is_reported(pg):
    """Mutations of real pglz streams give bytes or an Unreadable value, never an exception."""
    conn = pg.conn
    conn.execute("CREATE TABLE IF NOT EXISTS t_pglz (p text)")
    conn.execute("ALTER TABLE t_pglz ALTER COLUMN p SET STORAGE main")
    conn.execute("INSERT INTO t_pglz SELECT repeat('abc' || g, 1000) FROM generate_series(1, 3) g")
    relid = conn.execute("SELECT 't_pglz'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    raws = [deform(t, attrs).attrs[0].raw for t in rel_tuples(conn, "t_pglz")]
    assert raws and all(datum.parse_varlena(r).kind == datum.COMPRESSED for r in raws)
    rng = random.Random(7)
    unreadable = 0
    for raw in raws:
        for _ in range(300):
            b = bytearray(raw)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(8, len(b))] = rng.randrange(256)
            v = datum.decode_datum(25, bytes(b))
            assert isinstance(v, (str, datum.Unreadable))
            unreadable += isinstance(v, datum.Unreadable)
        # truncated stream: the header still claims the full length -> overrun, reported
        v = datum.decode_datum(25, raw[:len(raw) // 2])
        assert isinstance(v, datum.Unreadable) and v.code == "datum.varlena.overrun"
    assert unreadable > 0


def test_random_payloads_never_raise():
    import hypothesis
    from hypothesis import given, settings, strategies as st

    typids = sorted(datum.TYPES) + [9999]

    @settings(max_examples=400, deadline=None)
    @given(st.sampled_from(typids), st.binary(max_size=80))
    def run(typid, payload):
        info = datum.TYPES.get(typid)
        if info is not None and info.typlen > 0:
            payload = (payload + bytes(info.typlen))[:info.typlen]
        v = datum.decode_datum(typid, payload, attlen=-1)
        datum.to_pg_text(typid, v)
        json.dumps(datum.to_json(v))
        datum.decode_payload(typid, payload)
        datum.decode_numeric(payload)
        try:
            datum.pglz_decompress(payload, len(payload) * 3)
        except datum.PglzError:
            pass
    run()


def test_major_specific_readings():
    # numeric +Infinity is only a value from 14 on
    pinf = struct.pack("<H", datum.NUMERIC_PINF)
    assert datum.decode_numeric(pinf, major=14) == "Infinity"
    assert isinstance(datum.decode_numeric(pinf, major=13), datum.Unreadable)
    # interval infinity from 17 on
    inf = (datum.DT_NOEND, 2 ** 31 - 1, 2 ** 31 - 1)
    assert datum.format_interval(*inf, major=17) == "infinity"
    assert datum.format_interval(*inf, major=16) != "infinity"


@pytest.mark.parametrize("major", [10, 15, 18])
def test_fixed_columns_decode_as_single_values(major):
    """decode_fixed_column (the catalog reader's column-at-a-time path) gives exactly decode_datum's value
    for every row, including bytes no server writes: a bool byte of 2, chars at and past 0x80, names
    without a NUL or with bad UTF-8; types it does not take come back None."""
    import numpy as np
    rng = np.random.default_rng(major)
    taken = 0
    for typid, info in datum.TYPES.items():
        if info.typlen <= 0:
            continue
        raw = rng.integers(0, 256, size=(300, info.typlen), dtype=np.uint8)
        raw[:40] = 0
        raw[40:80, 0] = np.arange(40) % 3          # bools 0, 1, 2
        raw[80:120, 0] = 0x7E + np.arange(40) % 5  # chars around 0x80
        if typid == 19:
            raw[120:200, 10:] = 0                  # names of ten random bytes
            raw[200:240] = np.frombuffer(b"pg_class".ljust(64, b"\0"), dtype=np.uint8)
        got = datum.decode_fixed_column(typid, raw, major=major)
        if got is None:
            continue
        taken += 1
        want = [datum.decode_datum(typid, bytes(r), major=major) for r in raw]
        assert [(type(v), datum.to_json(v)) for v in got] == [(type(v), datum.to_json(v)) for v in want], info.name
    assert taken >= 8
