"""jsonb (and jsonb[]) read from the pages of a real server, value by value against ``col::text``.

Uses the throwaway server of test_deform (the ``pg`` fixture). Every expected text comes from the
server: literals of every shape (scalars, escapes, empty containers, duplicate keys, keys of every
length, more than JB_OFFSET_STRIDE children, numerics after strings so that padding appears),
random documents, deep nesting, values compressed inline and values moved out to a TOAST table
(whose chunks are read back from the TOAST table's own pages). jsonpath (12+) likewise: every
form of its grammar that the server under test accepts, jsonpath[], long chains and deep nesting.

With PGPAGE_TEST_PG_BINDIRS naming the servers of 10-18 (see fixtures/make_fixtures.py for the
builds), every test runs once per major.
"""
from __future__ import annotations

import json
import random

import psycopg
import pytest

from pgpage.decode import datum
from pgpage.decode.deform import VALUE, decode_attr
from pgpage.decode.typeout import jsonb, jsonpath

from test_deform import (catalog_attributes, compare_relation, deform, pg, rel_tuples,  # noqa: F401
                         server_text_rows)

LITERALS = [
    # scalars (stored as one-element pseudo-arrays)
    "null", "true", "false", "0", "-0", "1", "-1.5", "1.000", "0.0001", "1e100", "1E-50", "-2.5e+3",
    "123456789012345678901234567890.123456789", "9999", "10000", "0.00000000000000000001",
    '""', '"a"', '"NaN"',
    # escape_json: named escapes, other control characters, quote, backslash, a solidus (not escaped
    # on output), non-ASCII kept, DEL kept
    r'"tab\there\nnl\rcr\bbs\fff"', r'"\u0001\u0007\u000b\u001f\u0020"', r'"q\"uote b\\ack \/sol"',
    '"é ☃ 😀 \u00e9"', r'"\u00e9\u2603\ud83d\ude00"', '"\x7f"', '"{braces}, [brackets]"',
    # empty and nested containers
    "[]", "{}", "[[]]", "[{}]", '{"a": {}}', '{"a": []}', "[[[[[]]]]]", '[null, true, false]',
    '{"": ""}', '{"": {"": []}}',
    # key order is (length, bytes); duplicate keys: the last one wins
    '{"bb": 1, "a": 2, "ccc": 3, "b": 4, "aa": 5}', '{"a": 1, "a": 2}', '{"é": 1, "e": 2, "z": 3}',
    '{"k": "v", "n": 1.5, "t": true, "f": false, "z": null, "arr": [1, "two", 3.0, [4]], "obj": {"x": -0.5}}',
    # numerics after odd-length strings (alignment padding), strings after numerics
    '["a", 1, "bc", 2.5, "def", -3, "ghij", 4e10, 5]', '{"a": "x", "bb": 1, "ccc": "yy", "dddd": 22.25}',
    # more children than JB_OFFSET_STRIDE (32): offsets, not lengths, every 32nd JEntry
    "[" + ", ".join(str(i) for i in range(100)) + "]",
    "[" + ", ".join('"%s"' % ("s" * (i % 7)) for i in range(70)) + "]",
    "{" + ", ".join('"k%d": %d' % (i, i) for i in range(80)) + "}",
    "{" + ", ".join('"%s": "%s"' % ("k" * (1 + i % 40), "v" * i) for i in range(40)) + "}",
    '{"outer": [' + ", ".join('{"i": %d, "s": "%s"}' % (i, "x" * i) for i in range(40)) + "]}",
]

# SQL expressions that make jsonb values by other paths than jsonb_in
EXPRESSIONS = [
    "to_jsonb(1.50::numeric)", "to_jsonb('NaN'::numeric)", "to_jsonb(12345678901234567890::numeric)",
    "to_jsonb('text with \"quotes\"'::text)", "to_jsonb(now() - now())", "to_jsonb(true)",
    "jsonb_build_object('n', 2.0::numeric, 's', 'x', 'a', ARRAY[1, 2], 'o', jsonb_build_object())",
    "jsonb_build_array(1, 'two', NULL, 3.25::numeric, ARRAY['a', NULL])",
    "'{\"a\": {\"b\": [1, 2, 3]}}'::jsonb #- '{a,b,1}'", "'[1, 2]'::jsonb || '[3]'::jsonb",
    "jsonb_set('{\"a\": [1, {\"b\": 2}]}', '{a,1,b}', '\"deep\"')",
    "(SELECT jsonb_agg(g * 1.1) FROM generate_series(1, 50) g)",
    "(SELECT jsonb_object_agg('key' || g, g) FROM generate_series(1, 45) g)",
]

ARRAYS = [
    "ARRAY['{\"a\": 1}'::jsonb, NULL, '\"x\"', '1', '[]', '{}', 'null', '\"\"', '\"a b\"']",
    "ARRAY[]::jsonb[]",
    "ARRAY[['[1]'::jsonb, '2'::jsonb], ['\"NULL\"'::jsonb, '{\"q\\\"\": \"\\\\\"}'::jsonb]]",
    "'[0:1]={\"[true]\",\"false\"}'::jsonb[]",
]


def _random_string(rng: random.Random) -> str:
    alphabet = 'abcXYZ 09_-"\\/\t\n\r\b\f\x01\x1féü☃😀{}[],:'
    return "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 2, 5, 12, 40])))


def _random_number(rng: random.Random) -> str:
    sign = rng.choice(["", "-"])
    digits = str(rng.randrange(10 ** rng.randrange(1, 25)))
    frac = rng.choice(["", "." + str(rng.randrange(10 ** rng.randrange(1, 12))).zfill(rng.randrange(1, 12))])
    exp = rng.choice(["", "", "e" + str(rng.randrange(-60, 60)), "E+" + str(rng.randrange(0, 30))])
    return sign + digits + frac + exp


def _random_json(rng: random.Random, depth: int = 0) -> str:
    """JSON text built by hand, so that numbers keep every textual form JSON allows."""
    pick = rng.randrange(8 if depth < 4 else 5)
    if pick == 0:
        return rng.choice(["null", "true", "false"])
    if pick in (1, 2):
        return _random_number(rng)
    if pick in (3, 4):
        return json.dumps(_random_string(rng), ensure_ascii=rng.random() < 0.3)
    n = rng.choice([[0, 1, 2, 3, 7, 33, 40], [0, 1, 2, 3, 5], [0, 1, 2]][min(depth, 2)])
    if pick in (5, 6):
        return "[" + ", ".join(_random_json(rng, depth + 1) for _ in range(n)) + "]"
    return "{" + ", ".join(json.dumps(_random_string(rng)) + ": " + _random_json(rng, depth + 1)
                           for _ in range(n)) + "}"


def _lit(v: str) -> str:
    return "'" + v.replace("'", "''") + "'"


def _toast_chunks(srv, rel: str) -> dict[int, bytes]:
    """chunk_id -> its chunks' bytes in chunk_seq order, read from the pages of ``rel``'s TOAST table."""
    conn = srv.conn
    toast = conn.execute("SELECT reltoastrelid FROM pg_class WHERE oid = %s::regclass", (rel,)).fetchone()[0]
    if not toast:
        return {}
    toast_name = conn.execute("SELECT %s::regclass::text", (toast,)).fetchone()[0]
    attrs = catalog_attributes(srv, toast)
    parts: dict[int, list] = {}
    for t in rel_tuples(conn, toast_name):
        d = deform(t, attrs)
        chunk_id, chunk_seq = (decode_attr(a, major=srv.major) for a in d.attrs[:2])
        parts.setdefault(chunk_id, []).append((chunk_seq, datum.varlena_payload(d.attrs[2].raw)))
    return {cid: b"".join(data for _, data in sorted(chunks)) for cid, chunks in parts.items()}


def _detoast(ptr: datum.ToastPointer, chunks: dict[int, bytes]) -> bytes:
    """An out-of-line value's content: its chunks joined, decompressed when it is compressed."""
    stored = chunks[ptr.va_valueid]
    assert len(stored) == ptr.va_extsize
    if not ptr.is_compressed:
        return stored
    # a compressed external value keeps va_tcinfo (raw size, method) in front of the stream
    if ptr.compression == "lz4":
        return datum.lz4_decompress(stored[4:], ptr.va_rawsize - 4)
    assert ptr.compression == "pglz"
    return datum.pglz_decompress(stored[4:], ptr.va_rawsize - 4)


def _compare(srv, rel: str) -> tuple[int, list[datum.ToastPointer]]:
    """compare_relation (every value against the server's text), then every value it leaves aside
    because it lives out of line: reassembled from the TOAST table's pages, decoded and compared
    with the server's text of that row. Returns (values compared, the TOAST pointers met)."""
    nv, _ = compare_relation(srv, rel)
    conn, major = srv.conn, srv.major
    relid = conn.execute("SELECT %s::regclass::oid", (rel,)).fetchone()[0]
    attrs = catalog_attributes(srv, relid)
    chunks = None
    pointers = []
    for t in rel_tuples(conn, rel):
        for a in deform(t, attrs).attrs:
            ptr = decode_attr(a, major=major)
            if not isinstance(ptr, datum.ToastPointer):
                continue
            if chunks is None:
                chunks = _toast_chunks(srv, rel)
            value = datum.decode_payload(a.typid, _detoast(ptr, chunks), major=major)
            server = server_text_rows(conn, f'SELECT "{a.name}"::text FROM {rel} WHERE ctid = %s::tid',
                                      (t.ctid,))
            assert datum.to_pg_text(a.typid, value) == server[0][0], (rel, t.ctid, a.name)
            pointers.append(ptr)
    return nv + len(pointers), pointers


@pytest.fixture(scope="session")
def jsonb_table(pg):
    conn = pg.conn
    conn.execute("CREATE TABLE t_jsonb (id int, j jsonb, ja jsonb[], n numeric)")
    rows = [f"{_lit(v)}::jsonb" for v in LITERALS] + EXPRESSIONS
    rng = random.Random(3802)
    rows += [f"{_lit(_random_json(rng))}::jsonb" for _ in range(400)]
    for i, expr in enumerate(rows):
        arr = ARRAYS[i % len(ARRAYS)] if i % 3 == 0 else "NULL"
        conn.execute(f"INSERT INTO t_jsonb VALUES ({i}, {expr}, {arr}, {i}.5)")
    conn.execute("INSERT INTO t_jsonb VALUES (-1, NULL, NULL, NULL)")
    # numerics taken from a column (a short varlena header on the page) into a jsonb value
    conn.execute("INSERT INTO t_jsonb SELECT -2, jsonb_build_object('n', n, 'a', jsonb_build_array(n, n * 2)),"
                 " ARRAY[to_jsonb(n)], n FROM t_jsonb WHERE n IS NOT NULL AND id < 20")
    conn.execute("CHECKPOINT")
    return pg, len(rows)


def test_jsonb_matches_server(jsonb_table):
    srv, nrows = jsonb_table
    nv, _ = _compare(srv, "t_jsonb")
    assert nv == 4 * (nrows + 1 + 20)


def test_deep_nesting(pg):
    """Thousands of levels: the walk is iterative, the server prints any depth it stored."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_jsonb_deep (j jsonb)")
    for depth in (1, 2, 100, 2000):
        conn.execute("INSERT INTO t_jsonb_deep VALUES (%s::jsonb)", ("[" * depth + "]" * depth,))
        obj = '{"k": ' * depth + '"leaf"' + "}" * depth
        conn.execute("INSERT INTO t_jsonb_deep VALUES (%s::jsonb)", (obj,))
        mixed = "".join('[1, {"a": ' if i % 2 else '{"b": [' for i in range(depth // 2 * 2))
        mixed += "null" + "".join("}]" if i % 2 else "]}" for i in reversed(range(depth // 2 * 2)))
        conn.execute("INSERT INTO t_jsonb_deep VALUES (%s::jsonb)", (mixed,))
    conn.execute("CHECKPOINT")
    nv, _ = _compare(pg, "t_jsonb_deep")
    assert nv == 12


def test_compressed_inline(pg):
    """Large documents kept in the heap (STORAGE main) are pglz-compressed inline; datum
    decompresses them before the output function sees them."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_jsonb_main (id int, j jsonb)")
    conn.execute("ALTER TABLE t_jsonb_main ALTER COLUMN j SET STORAGE main")
    conn.execute("INSERT INTO t_jsonb_main SELECT g, (SELECT jsonb_agg(jsonb_build_object("
                 "'i', i, 'name', 'item ' || i, 'price', i * 1.25, 'tags', ARRAY['a', 'b'], "
                 "'ok', i % 2 = 0)) "
                 "FROM generate_series(1, 40 + g * 10) i) FROM generate_series(1, 12) g")
    conn.execute("CHECKPOINT")
    relid = conn.execute("SELECT 't_jsonb_main'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    kinds = {deform(t, attrs).attrs[1].varlena.kind for t in rel_tuples(conn, "t_jsonb_main")}
    assert datum.COMPRESSED in kinds
    nv, _ = compare_relation(pg, "t_jsonb_main")
    assert nv == 24


def test_toasted_out_of_line(pg):
    """Documents too large for the page go to the TOAST table, compressed (default storage) or
    not (EXTERNAL storage)."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_jsonb_toast (id int, j jsonb, e jsonb, a jsonb[])")
    conn.execute("ALTER TABLE t_jsonb_toast ALTER COLUMN e SET STORAGE external")
    conn.execute("INSERT INTO t_jsonb_toast SELECT g, d, d, ARRAY[d, NULL, d] FROM (SELECT g, (SELECT "
                 "jsonb_object_agg('key ' || i, "
                 "jsonb_build_array(i, md5((g * i)::text), i / 7.0, i % 3 = 0, NULL)) "
                 "FROM generate_series(1, 300 * g) i) AS d FROM generate_series(1, 4) g) s")
    conn.execute("CHECKPOINT")
    nv, pointers = _compare(pg, "t_jsonb_toast")
    assert nv == 16 and len(pointers) == 12
    assert 0 < sum(p.is_compressed for p in pointers) < 12


def test_random_and_truncated_payloads_never_raise(jsonb_table):
    """Random bytes, and real payloads cut short or with bytes changed, give the text or an
    Unreadable value, never an exception, through decode_payload and decode_datum."""
    from hypothesis import given, settings, strategies as st

    srv, _ = jsonb_table
    relid = srv.conn.execute("SELECT 't_jsonb'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(srv, relid)
    payloads = []
    for t in rel_tuples(srv.conn, "t_jsonb"):
        a = deform(t, attrs).attrs[1]
        if a.status == VALUE and a.raw is not None:
            p = datum.varlena_payload(a.raw)
            if isinstance(p, bytes):
                payloads.append(p)
    assert len(payloads) > 400
    for p in payloads:
        assert isinstance(datum.decode_payload(3802, p), str)

    def check(payload: bytes):
        v = datum.decode_payload(3802, payload)
        assert isinstance(v, (str, datum.Unreadable))
        if isinstance(v, datum.Unreadable):
            assert v.code == "datum.jsonb.bad_value"
        raw = (len(payload) + 4 << 2).to_bytes(4, "little") + payload
        assert isinstance(datum.decode_datum(3802, raw), (str, datum.Unreadable))
        assert isinstance(datum.decode_datum(3807, raw), (list, datum.PgArray, datum.Unreadable))

    @settings(max_examples=600, deadline=None, derandomize=True)
    @given(st.sampled_from(payloads), st.integers(0, 10 ** 6),
           st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), max_size=4))
    def mutated(payload, cut, changes):
        b = bytearray(payload[:cut % (len(payload) + 1)])
        for pos, byte in changes:
            if b:
                b[pos % len(b)] = byte
        check(bytes(b))

    @settings(max_examples=600, deadline=None, derandomize=True)
    @given(st.binary(max_size=120))
    def random_bytes(payload):
        check(payload)

    mutated()
    random_bytes()
    # every prefix of a few real payloads: a cut value is never read past its end
    for p in payloads[:40]:
        for n in range(len(p)):
            v = datum.decode_payload(3802, p[:n])
            assert isinstance(v, datum.Unreadable), (p.hex(), n)


def test_bytes_no_server_writes_are_refused():
    """A few hand-made defects, each refused with a message (never printed as something else)."""
    one = bytes.fromhex("01000010" "00000000")          # header says scalar, no flag of array
    with pytest.raises(ValueError):
        jsonb.jsonb_out(one)
    empty_array = (jsonb.JB_FARRAY).to_bytes(4, "little")
    assert jsonb.jsonb_out(empty_array) == "[]"
    with pytest.raises(ValueError):                       # a byte after the last child
        jsonb.jsonb_out(empty_array + b"\0")
    both = (jsonb.JB_FARRAY | jsonb.JB_FOBJECT).to_bytes(4, "little")
    with pytest.raises(ValueError):
        jsonb.jsonb_out(both)
    # ["a\0b"]: a NUL inside a string (jsonb_in refuses \u0000)
    one_string = (jsonb.JB_FARRAY | 1).to_bytes(4, "little") + (3).to_bytes(4, "little")
    with pytest.raises(ValueError):
        jsonb.jsonb_out(one_string + b"a\0b")
    # the same with "a b": accepted, printed with quotes
    assert jsonb.jsonb_out(one_string + b"a b") == '["a b"]'
    # a JEntry of type 6 (unused)
    bad_type = (jsonb.JB_FARRAY | 1).to_bytes(4, "little") + (0x60000000).to_bytes(4, "little")
    with pytest.raises(ValueError):
        jsonb.jsonb_out(bad_type)


# ---------------------------------------------------------------------------------------------
# jsonpath (12+)
# ---------------------------------------------------------------------------------------------

# Paths in every form the grammar has (many from PostgreSQL's own regression test, jsonpath.sql);
# each is kept where the server under test accepts it (.datetime() is 13+, .decimal() 17+, ...).
JSONPATHS = [
    "$", "strict $", "lax $", "$.a", "$.a.v", "$.a.*", "$.*[*]", "$.a[*]", "$.a[*][*]", "$[*]", "$[0]",
    "$[*][0]", "$[*].a", "$[*][0].a.b", "$.a.**.b", "$.a.**{2}.b", "$.a.**{2 to 2}.b",
    "$.a.**{2 to 5}.b", "$.a.**{0 to 5}.b", "$.a.**{5 to last}.b", "$.a.**{last}.b",
    "$.a.**{last to 5}.b", "$.**", "$.**{0}", "$+1", "$-1", "$--+1", "$.a/+-1", "1 * 2 + 4 % -3 != false",
    r'"\b\f\r\n\t\v\"' + "\\'" + r'\\"', r'"\x50\u0067\u{53}\u{051}\u{00004C}"',
    r'$.foo\x50\u0067\u{53}\u{051}\u{00004C}\t\"bar', '$."key with spaces"', '$."é☃😀"', r'$."\u0001"',
    "$.g ? ($.a == 1)", "$.g ? (@ == 1)", "$.g ? (@.a == 1)", "$.g ? (@.a == 1 || @.a == 4)",
    "$.g ? (@.a == 1 && @.a == 4)", "$.g ? (@.a == 1 || @.a == 4 && @.b == 7)",
    "$.g ? (@.a == 1 || !(@.a == 4) && @.b == 7)",
    "$.g ? (@.a == 1 || !(@.x >= 123 || @.a == 4) && @.b == 7)", '$.g ? (@.x >= @[*]?(@.a > "abc"))',
    "$.g ? ((@.x >= 123 || @.a == 4) is unknown)", "$.g ? (exists (@.x))",
    "$.g ? (exists (@.x ? (@ == 14)))", "$.g ? ((@.x >= 123 || @.a == 4) && exists (@.x ? (@ == 14)))",
    "$.g ? (+@.x >= +-(+@.a + 2))", "$a", "$a.b", "$a[*]", "$.g ? (@.zip == $zip)", '$"var with space"',
    "$.a[1,2, 3 to 16]", "$.a[$a + 1, ($b[*]) to -($[0] * 2)]", "$.a[$.a.size() - 3]", 
    '"last"', "$.last", "$[last]", "$[$[0] ? (last > 0)]", "$[last - 1 to last]",
    "null.type()", "1.type()", "(1).type()", "1.2.type()", '"aaa".type()', "true.type()", "false",
    "$.double().floor().ceiling().abs()", "$.keyvalue().key", "$.size().type()",
    '$ ? (@ starts with "abc")', "$ ? (@ starts with $var)", '$ ? (@ like_regex "pattern")',
    '$ ? (@ like_regex "pattern" flag "")', '$ ? (@ like_regex "pattern" flag "i")',
    '$ ? (@ like_regex "pattern" flag "is")', '$ ? (@ like_regex "pattern" flag "isim")',
    '$ ? (@ like_regex "p\\\\d+" flag "q")',
    '$ ? (@ like_regex "a" flag "smixq")', '$ ? (@.a + 1 like_regex "x")',
    "$ < 1", "($ < 1) || $.a.b <= $x", "($).a.b", "($.a.b).c.d", "($.a.b + -$.x.y).c.d",
    "(-+$.a.b).c.d", "1 + ($.a.b + 2).c.d", "1 + ($.a.b > 2).c.d", "($)", "(($))",
    "((($ + 1)).a + ((2)).b ? ((((@ > 1)) || (exists(@.c)))))", "$ ? (@.a < -10.1e+1)",
    "$ ? (@.a < +.1e-1)", "$ ? (@.a < 1e1)", "0", "00", "0.0", "0.000", "0.000e1", "0.0010e-1",
    "0.0010e+2", "(1.2).e", "1e3", "1.2e3", "(1.2).e3", "(1.).e", "-1.5", "- 1.5", "+1.5",
    "123456789012345678901234567890.123", "1e-30", "$.a * 2 / 3 % 4 - 5", "$.a - (2 - 3)",
    "($.a - 2) - 3", "-($.a * 2)", "(-$.a) * 2", "$.a == 1 && ($.b == 2 || $.c == 3)",
    "!($.a == 1) || $.b == 2", "strict $.a ? (@ > 1 && @ < 10)[*].b ? (exists (@.c))",
    # 13+
    "$.datetime()", '$.datetime("HH24:MI")', '$.a.datetime("YYYY-MM-DD").type()',
    # 16+: other bases and underscores in numbers
    "0x42", "0b101", "0o17", "1_000_000", "$[0x1]",
    # 17+
    "$.bigint()", "$.boolean()", "$.date()", "$.decimal()", "$.decimal(4)", "$.decimal(4,2)",
    "$.integer()", "$.number()", "$.string()", "$.time()", "$.time(2)", "$.time_tz()", "$.time_tz(3)",
    "$.timestamp()", "$.timestamp(1)", "$.timestamp_tz()", "$.timestamp_tz(6)",
    "$.a.decimal(10, 2).string().type()",
    # a long chain and deep nesting
    "$" + ".k" * 3000, "$" + "[0]" * 500, "(" * 300 + "$" + " + 1)" * 300,
    "$ ? (" + " && ".join("@.a%d == %d" % (i, i) for i in range(300)) + ")",
]


@pytest.fixture(scope="session")
def jsonpath_table(pg):
    if pg.major < 12:
        pytest.skip("jsonpath is new in PostgreSQL 12")
    conn = pg.conn
    conn.execute("CREATE TABLE t_jsonpath (id int, p jsonpath, pa jsonpath[])")
    accepted = []
    for i, text in enumerate(JSONPATHS):
        try:
            conn.execute("SELECT %s::jsonpath", (text,))
        except psycopg.Error:
            continue
        accepted.append(text)
        arr = "ARRAY[%s::jsonpath, NULL, '$.x']" if i % 4 == 0 else "NULL::jsonpath[]"
        conn.execute(f"INSERT INTO t_jsonpath VALUES ({i}, %s::jsonpath, {arr})",
                     (text, text) if i % 4 == 0 else (text,))
    conn.execute("INSERT INTO t_jsonpath VALUES (-1, NULL, ARRAY[]::jsonpath[])")
    conn.execute("CHECKPOINT")
    return pg, accepted


def test_jsonpath_matches_server(jsonpath_table):
    srv, accepted = jsonpath_table
    # some paths are new syntax (13: .datetime(), 15: 0x1, 17: .bigint(), ...), a few are refused
    # from 15 (trailing junk after a number: "1.type()")
    assert len(accepted) >= len(JSONPATHS) - 34
    nv, pointers = _compare(srv, "t_jsonpath")
    assert nv == 3 * (len(accepted) + 1)


def test_jsonpath_payloads_never_raise(jsonpath_table):
    """Mutated, truncated and random jsonpath payloads: the text or Unreadable, never an exception."""
    from hypothesis import given, settings, strategies as st

    srv, _ = jsonpath_table
    relid = srv.conn.execute("SELECT 't_jsonpath'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(srv, relid)
    payloads = []
    for t in rel_tuples(srv.conn, "t_jsonpath"):
        a = deform(t, attrs).attrs[1]
        if a.status == VALUE and a.raw is not None:
            p = datum.varlena_payload(a.raw)
            if isinstance(p, bytes):
                payloads.append(p)
    assert len(payloads) > 100

    def check(payload: bytes, major):
        v = datum.decode_payload(4072, payload, major=major)
        assert isinstance(v, (str, datum.Unreadable))
        raw = (len(payload) + 4 << 2).to_bytes(4, "little") + payload
        assert isinstance(datum.decode_datum(4073, raw, major=major), (list, datum.PgArray, datum.Unreadable))

    @settings(max_examples=800, deadline=None, derandomize=True)
    @given(st.sampled_from(payloads), st.integers(0, 10 ** 6),
           st.lists(st.tuples(st.integers(0, 10 ** 6), st.integers(0, 255)), max_size=4),
           st.sampled_from([None, 11, 12, 13, 15, 17, 18]))
    def mutated(payload, cut, changes, major):
        b = bytearray(payload[:cut % (len(payload) + 1)])
        for pos, byte in changes:
            if b:
                b[pos % len(b)] = byte
        check(bytes(b), major)

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(st.binary(max_size=100))
    def random_bytes(payload):
        check(b"\x01\x00\x00\x80" + payload, None)
        check(payload, None)

    mutated()
    random_bytes()
    for p in payloads[:60]:
        for n in range(len(p)):
            assert isinstance(datum.decode_payload(4072, p[:n], major=srv.major), datum.Unreadable)


def test_jsonpath_major_differences():
    """The numbering of 12 and the parentheses of 15+, on bytes a 12/13 server wrote (probed by
    hand on 12.22 and 13.23; test_jsonpath_matches_server checks each server's own)."""
    keyvalue_12 = bytes.fromhex("010000801b000000080000002500000000000000")
    keyvalue_13 = bytes.fromhex("010000801b000000080000002600000000000000")
    assert jsonpath.jsonpath_out(keyvalue_12, 12) == "$.keyvalue()"
    assert jsonpath.jsonpath_out(keyvalue_13, 13) == "$.keyvalue()"
    with pytest.raises(ValueError):              # 38 is jpiSubscript in 12: never stored
        jsonpath.jsonpath_out(keyvalue_13, 12)
    with pytest.raises(ValueError):              # no jsonpath before 12
        jsonpath.jsonpath_out(keyvalue_13, 11)
