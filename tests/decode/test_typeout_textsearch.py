"""tsvector and tsquery (decode/typeout/textsearch.py), checked value by value against a real
server's own text.

Uses the throwaway server of test_deform (the ``pg`` fixture): tables of text search values built
with to_tsvector/to_tsquery and friends, literal casts and random queries are read back from their
pages and every value (arrays of both types included) must print exactly as the server prints it.
Mutated and truncated real payloads and random bytes must give the text or an Unreadable value.
"""
from __future__ import annotations

import random

import pytest

from pgpage.decode import datum
from pgpage.decode.deform import VALUE
from pgpage.decode.typeout import textsearch

from test_deform import catalog_attributes, compare_relation, deform, pg, rel_tuples  # noqa: F401

TSVECTOR, TSQUERY, TSVECTOR_ARRAY, TSQUERY_ARRAY = 3614, 3615, 3643, 3645

# SQL expressions of type tsvector: positions, weights A-D, quoting, stripped, empty, long.
TSVECTORS = [
    "''::tsvector",
    "'a'::tsvector",
    "'a:1A b:2'::tsvector",
    "'a:1A,2B,3C,4D,5 b c:7'::tsvector",
    "'abc:1 de:2 f:3 ghij:4,5'::tsvector",             # odd and even lexeme lengths (pad bytes)
    "$$'quote''s':1 'back\\\\slash':2 'sp ace' 'x:y' '\"dq\"' '{br}'$$::tsvector",
    "'a:16383 b:1,16383 c:20000'::tsvector",            # the largest position (and a clamped one)
    "'é:1 ☃ 你好:3B ñandú'::tsvector",
    "strip('a:1A b:2 c'::tsvector)",
    "strip(to_tsvector('simple', 'strip these positions away'))",
    "to_tsvector('simple', '')",
    "to_tsvector('simple', 'The quick brown fox jumps over the lazy dog the the')",
    "to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs')",
    "to_tsvector('simple', 'it''s a back\\slash and an ''apostrophe'' here')",
    "setweight(to_tsvector('simple', 'a b c'), 'A') || setweight(to_tsvector('simple', 'c d'), 'B')",
    "setweight(to_tsvector('simple', 'x y'), 'C') || to_tsvector('simple', 'x z')",
    "ts_delete(to_tsvector('simple', 'one two three two'), 'two')",
    "ts_filter('a:1A b:2B c:3 d:4C'::tsvector, '{a,c}')",
    "array_to_tsvector('{x,\"y y\",z''q}')",
    "to_tsvector('simple', repeat('w ', 300))",          # more positions than tsvectorin keeps
    # compressed inline (pglz), then too big for that: TOASTed (compare_relation skips pointers)
    "to_tsvector('simple', (SELECT string_agg(repeat('x', 40) || g, ' ') FROM generate_series(1, 100) g))",
    "strip(to_tsvector('simple', (SELECT string_agg(repeat('y', 30) || g, ' ') FROM generate_series(1, 120) g)))",
    "to_tsvector('simple', (SELECT string_agg('word' || g, ' ') FROM generate_series(1, 600) g))",
]

# SQL expressions of type tsquery: every operator, phrase distances, prefix and weights,
# parentheses the server keeps or drops, queries built by the functions and operators.
TSQUERIES = [
    "''::tsquery",
    "'a'::tsquery",
    "'!a'::tsquery",
    "'!!a'::tsquery",
    "'a & b'::tsquery",
    "'a | b'::tsquery",
    "'a & b | c'::tsquery",
    "'a & (b | c)'::tsquery",
    "'(a | b) & c'::tsquery",
    "'!(a & b) <-> c:*'::tsquery",
    "'a <-> b'::tsquery",
    "'a <2> b'::tsquery",
    "'a <0> b'::tsquery",
    "'a <16384> b'::tsquery",
    "'a <-> (b <-> c)'::tsquery",
    "'(a <-> b) <-> c'::tsquery",
    "'a <-> (b & c)'::tsquery",
    "'(a & b) <-> c'::tsquery",
    "'(a | b) <3> !c'::tsquery",
    "'!a <-> !b'::tsquery",
    "'!(a <-> b)'::tsquery",
    "'!(a | b) & !(c & d)'::tsquery",
    "'a:AB'::tsquery",
    "'a:*ABCD'::tsquery",
    "'b:D & c:* & d:*C'::tsquery",
    "$$'quo''te' & 'back\\\\slash' & 'sp ace' | 'x:y'$$::tsquery",
    "'é & ☃:* | 你好:A'::tsquery",
    "to_tsquery('simple', 'fat & (rat | cat)')",
    "to_tsquery('english', 'the & fat:* & rats')",
    "to_tsquery('english', 'the')",
    "phraseto_tsquery('simple', 'the quick brown fox')",
    "phraseto_tsquery('english', 'the fat rats ate the cheese')",
    "plainto_tsquery('english', 'The Fat Rats')",
    "ts_rewrite('a & b'::tsquery, 'a'::tsquery, 'c | d'::tsquery)",
    "'a'::tsquery && 'b | c'::tsquery",
    "'a <-> b'::tsquery || 'c'::tsquery",
    "!!'a & b'::tsquery",
    "!!'a'::tsquery && 'b'::tsquery",
    "tsquery_phrase('a'::tsquery, 'b | c'::tsquery, 5)",
    "tsquery_phrase('a <-> b'::tsquery, 'c'::tsquery)",
    "(SELECT string_agg('t' || g, ' & ')::tsquery FROM generate_series(1, 150) g)",
    "(SELECT string_agg('p' || g, ' <-> ')::tsquery FROM generate_series(1, 120) g)",
]

ARRAYS = [
    ("tsvector[]", "ARRAY['a:1A b'::tsvector, NULL, ''::tsvector, $$'q''t' 'b\\\\s'$$::tsvector]"),
    ("tsvector[]", "'{}'::tsvector[]"),
    ("tsquery[]", "ARRAY['a & b'::tsquery, NULL, ''::tsquery, '!(a | b) <-> c:*A'::tsquery]"),
    ("tsquery[]", "ARRAY[$$'q''t' | 'b\\\\s'$$::tsquery]"),
]


def _major_extras(major: int) -> list[str]:
    extra = []
    if major >= 11:               # websearch_to_tsquery exists from 11
        extra += ["websearch_to_tsquery('english', '\"sad cat\" or \"fat rat\" -dog')",
                  "websearch_to_tsquery('simple', '-a -b or c')"]
    return extra


@pytest.fixture(scope="session")
def textsearch_table(pg):
    conn = pg.conn
    queries = TSQUERIES + _major_extras(pg.major)
    conn.execute("CREATE TABLE t_textsearch (id int, v tsvector, q tsquery, va tsvector[], qa tsquery[])")
    nrows = max(len(TSVECTORS), len(queries)) + 5
    tsv_arrays = [e for t, e in ARRAYS if t == "tsvector[]"]
    tsq_arrays = [e for t, e in ARRAYS if t == "tsquery[]"]
    for r in range(nrows):
        row = [TSVECTORS[r % len(TSVECTORS)], queries[r % len(queries)],
               tsv_arrays[r % len(tsv_arrays)], tsq_arrays[r % len(tsq_arrays)]]
        row = ["NULL" if r >= max(len(TSVECTORS), len(queries)) and (r + i) % 3 == 0 else v
               for i, v in enumerate(row)]
        conn.execute(f"INSERT INTO t_textsearch VALUES ({r}, {', '.join(row)})")
    conn.execute("CHECKPOINT")
    return pg


def test_textsearch_match_server(textsearch_table):
    pg = textsearch_table
    nv, _ = compare_relation(pg, "t_textsearch")
    # every kind of storage the values came in: short and long headers, inline compression, TOAST
    kinds = set()
    values = external = 0
    relid = pg.conn.execute("SELECT 't_textsearch'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    for t in rel_tuples(pg.conn, "t_textsearch"):
        for a in deform(t, attrs).attrs:
            values += 1
            if a.status == VALUE and a.varlena is not None:
                kinds.add((a.typid, a.varlena.kind))
                external += a.varlena.kind == datum.EXTERNAL
    assert nv == values - external and external <= 6
    assert {(TSVECTOR, datum.COMPRESSED), (TSVECTOR, datum.SHORT), (TSVECTOR, datum.EXTERNAL),
            (TSQUERY, datum.PLAIN), (TSVECTOR_ARRAY, datum.SHORT), (TSQUERY_ARRAY, datum.PLAIN)} <= kinds, kinds


# ---------------------------------------------------------------------------------------------
# Random queries and vectors: the server parses them, its text is the oracle
# ---------------------------------------------------------------------------------------------

WORDS = ["a", "b", "cat", "fat rat", "it's", "back\\slash", "é", "☃x", "x:y", "&", "!", "(", "q'\\'",
         "<->", "*", "long" * 20]


def _quoted(word: str) -> str:
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def _random_query(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        mods = ("*" if rng.random() < 0.3 else "") + "".join(w for w in "ABCD" if rng.random() < 0.2)
        return _quoted(rng.choice(WORDS)) + (":" + mods if mods else "")

    def sub():
        s = _random_query(rng, depth - 1)
        return f"({s})" if rng.random() < 0.6 else s

    op = rng.choice(["!", "&", "|", "<->", "<N>", "&", "|", "<->"])
    if op == "!":
        return "!" + sub()
    if op == "<N>":
        op = f"<{rng.choice([0, 1, 2, 3, 10, 255, 16384])}>"
    return f"{sub()} {op} {sub()}"


def _random_vector(rng: random.Random) -> str:
    lexemes = []
    for _ in range(rng.randint(0, 8)):
        word = _quoted(rng.choice(WORDS + [f"w{rng.randint(0, 50)}"]))
        if rng.random() < 0.7:
            word += ":" + ",".join(f"{rng.randint(1, 20000)}{rng.choice(['', 'A', 'B', 'C', 'D'])}"
                                   for _ in range(rng.randint(1, 5)))
        lexemes.append(word)
    return " ".join(lexemes)


def _lit(v: str) -> str:
    return "'" + v.replace("'", "''") + "'"


def test_random_queries_match_server(pg):
    conn = pg.conn
    rng = random.Random(3615)
    conn.execute("CREATE TABLE t_ts_random (q tsquery, v tsvector)")
    for _ in range(400):
        conn.execute(f"INSERT INTO t_ts_random VALUES ({_lit(_random_query(rng, rng.randint(0, 6)))}::tsquery, "
                     f"{_lit(_random_vector(rng))}::tsvector)")
    conn.execute("CHECKPOINT")
    nv, _ = compare_relation(pg, "t_ts_random")
    assert nv == 800
    assert conn.execute("SELECT count(*) FROM t_ts_random WHERE q::text LIKE '%( %'").fetchone()[0] > 50


def test_deep_query_without_recursion(pg):
    """A query of 250 terms, nested 499 items deep on the left (a plain-storage tuple holds
    little more), prints without Python recursion; and one built in Python far deeper still does."""
    conn = pg.conn
    conn.execute("CREATE TABLE t_ts_deep (q tsquery)")
    conn.execute("INSERT INTO t_ts_deep SELECT string_agg('d' || g, op)::tsquery FROM generate_series(1, 250) g, "
                 "unnest(ARRAY[' & ', ' | ', ' <-> ']) op GROUP BY op")
    conn.execute("CHECKPOINT")
    nv, _ = compare_relation(pg, "t_ts_deep")
    assert nv == 3
    # ((x & x) & x) & ... 5000 deep, laid out as tsquery.c lays it out: AND, right x, left subtree
    n = 5000
    item_and = [b"\x02\x02\x00\x00" + (2).to_bytes(4, "little") + bytes(4)] * (n - 1)
    val = bytes([1, 0, 0, 0]) + bytes(4) + (1).to_bytes(4, "little")      # 'x', length 1, offset 0
    items = b"".join(a + val for a in item_and) + val
    payload = (2 * n - 1).to_bytes(4, "little") + items + b"x\0"
    text = textsearch.tsquery_out(payload)
    assert text == " & ".join(["'x'"] * n)


# ---------------------------------------------------------------------------------------------
# Bad bytes: the text or an Unreadable, never an exception
# ---------------------------------------------------------------------------------------------

def _real_payloads(pg) -> dict[int, list[bytes]]:
    """Uncompressed payloads of every value of t_textsearch, by type."""
    conn = pg.conn
    relid = conn.execute("SELECT 't_textsearch'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(pg, relid)
    out: dict[int, list[bytes]] = {}
    for t in rel_tuples(conn, "t_textsearch"):
        for a in deform(t, attrs).attrs[1:]:
            if a.status == VALUE and a.varlena.kind != datum.COMPRESSED:
                payload = datum.varlena_payload(a.raw, a.typid)
                if isinstance(payload, bytes):
                    out.setdefault(a.typid, []).append(payload)
    return out


def _check(typid: int, payload: bytes):
    v = datum.decode_payload(typid, payload)
    assert isinstance(v, (str, datum.Unreadable, datum.PgArray, list)), v
    datum.to_pg_text(typid, v)
    if typid in textsearch.OUTPUT:
        try:
            assert isinstance(textsearch.OUTPUT[typid](payload, None), str)
        except ValueError:
            assert isinstance(v, datum.Unreadable) and v.code == f"datum.{datum.TYPES[typid].name}.bad_value"
    return v


def test_mutated_and_truncated_payloads(textsearch_table):
    payloads = _real_payloads(textsearch_table)
    assert set(payloads) == {TSVECTOR, TSQUERY, TSVECTOR_ARRAY, TSQUERY_ARRAY}
    rng = random.Random(3614)
    unreadable = 0
    for typid, values in payloads.items():
        for p in values:
            for cut in range(0, len(p), max(1, len(p) // 40)):
                v = _check(typid, p[:cut])
                unreadable += isinstance(v, datum.Unreadable)
            for _ in range(60):
                b = bytearray(p)
                for _ in range(rng.randint(1, 3)):
                    if b:
                        b[rng.randrange(len(b))] = rng.randrange(256)
                v = _check(typid, bytes(b))
                unreadable += isinstance(v, datum.Unreadable)
    assert unreadable > 100


def test_specific_bad_values():
    # a tsvector entry whose lexeme runs past the end
    bad = (1).to_bytes(4, "little") + ((3 << 1) | (5 << 12)).to_bytes(4, "little") + b"abc"
    v = datum.decode_payload(TSVECTOR, bad)
    assert isinstance(v, datum.Unreadable) and v.code == "datum.tsvector.bad_value"
    # a tsquery AND whose left pointer disagrees with the layout
    val = bytes([1, 0, 0, 0]) + bytes(4) + (1).to_bytes(4, "little")
    q = (3).to_bytes(4, "little") + b"\x02\x02\x00\x00" + (1).to_bytes(4, "little") + bytes(4) + val + val + b"x\0"
    v = datum.decode_payload(TSQUERY, q)
    assert isinstance(v, datum.Unreadable) and "left operand" in v.message
    # the same with the right pointer prints as the server would
    q = (3).to_bytes(4, "little") + b"\x02\x02\x00\x00" + (2).to_bytes(4, "little") + bytes(4) + val + val + b"x\0"
    assert datum.decode_payload(TSQUERY, q) == "'x' & 'x'"
    # stop-word placeholders, unknown operators, operands without their NUL
    for item in (bytes([3]) + bytes(11), b"\x02\x07" + bytes(10)):
        v = datum.decode_payload(TSQUERY, (1).to_bytes(4, "little") + item)
        assert isinstance(v, datum.Unreadable)
    v = datum.decode_payload(TSQUERY, (1).to_bytes(4, "little") + val + b"x")
    assert isinstance(v, datum.Unreadable) and "NUL" in v.message


def test_random_payloads_never_raise():
    from hypothesis import given, settings, strategies as st

    typids = [TSVECTOR, TSQUERY, TSVECTOR_ARRAY, TSQUERY_ARRAY]
    small_ints = st.integers(0, 6).map(lambda n: n.to_bytes(4, "little"))

    @settings(max_examples=600, deadline=None)
    @given(st.sampled_from(typids), st.one_of(st.binary(max_size=120),
                                              st.tuples(small_ints, st.binary(max_size=120)).map(b"".join)))
    def run(typid, payload):
        _check(typid, payload)
        header = (len(payload) + 4) << 2          # a 4-byte varlena header, little-endian
        v = datum.decode_datum(typid, header.to_bytes(4, "little") + payload)
        assert isinstance(v, (str, datum.Unreadable, datum.PgArray, list)), v
    run()
