"""Range and multirange types, and timestamptz in named time zones, checked value by value against a
live server (the ``pg`` fixture of test_deform, shared for the session).

Every expected text is the server's own: tables are filled with edge values and NULLs, CHECKPOINTed,
and each value deformed from the raw pages must print exactly as ``col::text`` does, under
``SET TimeZone`` for each zone of ``ZONES`` where time zones matter (the session is put back to UTC
afterwards: other modules rely on it).
"""
from __future__ import annotations

import json
import random
import struct
import zoneinfo

import pytest

from pgpage.decode import datum, pgtz
from pgpage.decode.deform import VALUE
from pgpage.decode.typeout import ranges

from test_deform import catalog_attributes, deform, page_tuples, pg, rel_pages, server_text_rows  # noqa: F401

SKIP = object()


# ---------------------------------------------------------------------------------------------
# A compare_relation for any TimeZone and for user-defined types
# ---------------------------------------------------------------------------------------------

def compare_zone(srv, rel: str, timezone: str | None = None, custom: dict | None = None) -> int:
    """Every live value of ``rel`` deformed from its pages and printed (timestamptz in ``timezone``)
    against the server's text in a session with ``SET TimeZone = timezone``. ``custom`` maps a column
    name to ``fn(payload) -> str`` for types ``datum`` does not know. Returns the values compared."""
    conn, major = srv.conn, srv.major
    relid = conn.execute("SELECT %s::regclass::oid", (rel,)).fetchone()[0]
    attrs = catalog_attributes(srv, relid)
    cols = [(i, a) for i, a in enumerate(attrs) if not a.attisdropped]
    select = ", ".join(f'"{a.name}"' for _, a in cols)
    try:
        if timezone is not None:
            conn.execute("SELECT set_config('TimeZone', %s, false)", (timezone,))
        rows = {r[0]: r[1:] for r in server_text_rows(conn, f"SELECT ctid::text, {select} FROM {rel}")}
    finally:
        conn.execute("SET TimeZone = 'UTC'")
    compared, seen = 0, set()
    for blk, page in enumerate(rel_pages(conn, rel)):
        for t in page_tuples(page, blk):
            if t.ctid not in rows:
                continue
            seen.add(t.ctid)
            d = deform(t, attrs)
            assert d.ok and not d.findings, (rel, t.ctid, d.findings)
            for (i, a), server in zip(cols, rows[t.ctid]):
                got = _text(a, d.attrs[i], major, timezone, custom or {})
                if got is SKIP:
                    continue
                assert got == server, (rel, timezone, t.ctid, a.name, got, server)
                compared += 1
    assert seen == set(rows)
    return compared


def _text(attr, a, major, timezone, custom):
    if a.status != VALUE:
        return None
    if attr.name in custom:
        payload = datum.varlena_payload(a.raw)
        if isinstance(payload, datum.ToastPointer):
            return SKIP
        assert isinstance(payload, bytes), payload
        return custom[attr.name](payload)
    v = datum.decode_datum(attr.typid, a.raw, major=major, timezone=timezone, attlen=attr.attlen)
    if isinstance(v, datum.ToastPointer):
        return SKIP
    return datum.to_pg_text(attr.typid, v)


def _fill(conn, table: str, columns: dict[str, list[str]]):
    """CREATE TABLE with one column per type; each value (an SQL expression) appears at least once,
    NULLs rotate through the columns."""
    names = [f"c{i}" for i in range(len(columns))]
    conn.execute(f"CREATE TABLE {table} (id int, " +
                 ", ".join(f"{n} {t}" for n, t in zip(names, columns)) + ")")
    nrows = max(len(v) for v in columns.values()) + 3
    for r in range(nrows):
        row = []
        for ci, (t, vals) in enumerate(columns.items()):
            row.append("NULL" if (r + ci) % 6 == 5 else f"({vals[r % len(vals)]})::{t}")
        conn.execute(f"INSERT INTO {table} VALUES ({r}, {', '.join(row)})")
    conn.execute("CHECKPOINT")
    return dict(zip(names, columns))


# ---------------------------------------------------------------------------------------------
# Built-in range and multirange types
# ---------------------------------------------------------------------------------------------

LONG_NUMERIC = "9" * 300          # 150 bytes of digits: a bound with a 4-byte header, aligned
RANGES: dict[str, list[str]] = {
    "int4range": ["'[1,5)'", "'empty'", "'(,)'", "'[,10)'", "'(0,)'", "'[-2147483648,2147483647)'",
                  "'(0,1]'", "'[3,3]'"],
    "int8range": ["'[1,5)'", "'(,9223372036854775807)'", "'[-9223372036854775808,0]'", "'empty'", "'(,)'"],
    "numrange": ["'[1.5,2.5]'", "'(,0)'", "'empty'", "'[0.000001,1e20)'", "'(-1.5,)'",
                 f"'[-{LONG_NUMERIC},{LONG_NUMERIC}]'", f"'[1,{LONG_NUMERIC})'", f"'({LONG_NUMERIC},)'",
                 "'[NaN,NaN]'"],
    "tsrange": ["'[\"2000-01-01 00:00:00\",\"2000-01-02 00:00:00\")'", "'[-infinity,infinity]'",
                "'(,\"2000-01-01 00:00:00.5\")'", "'empty'",
                "'[\"4714-11-24 00:00:00 BC\",\"294276-12-31 23:59:59.999999\"]'"],
    "tstzrange": ["'[\"2000-01-01 00:00:00+00\",\"2021-07-01 12:00:00+00\")'", "'[-infinity,infinity)'",
                  "'[\"1800-01-01 00:00+00\",)'", "'[\"0044-03-15 12:00+00 BC\",\"2040-07-01 00:00+00\"]'",
                  "'empty'"],
    "daterange": ["'[2000-01-01,2000-02-01)'", "'(,infinity)'", "'[-infinity,2000-01-01]'", "'empty'",
                  "'[4713-01-01 BC,5874897-12-30]'", "'(,)'"],
    "int4range[]": ["ARRAY['[1,5)'::int4range, 'empty', NULL, '(,)']", "'{}'", "ARRAY[ARRAY['[1,2)'::int4range],"
                    " ARRAY['[3,4)'::int4range]]"],
    "numrange[]": [f"ARRAY['[1.5,2.5]'::numrange, NULL, '[1,{LONG_NUMERIC})']"],
    "tsrange[]": ["ARRAY['[\"2000-01-01 00:00:00\",)'::tsrange, 'empty']"],
    "tstzrange[]": ["ARRAY['[\"2000-01-01 00:00:00+00\",infinity)'::tstzrange, NULL]"],
    "daterange[]": ["ARRAY['[2000-01-01,2000-02-01)'::daterange, 'empty', NULL]"],
    "int8range[]": ["ARRAY['[1,5)'::int8range]"],
}
MULTIRANGES: dict[str, list[str]] = {
    "int4multirange": ["'{}'", "'{[1,5), [7,9)}'", "'{(,3), [5,7), [10,)}'", "'{(,)}'",
                       "'{[1,2),[3,4),[5,6),[7,8),[9,10),[11,12)}'",
                       "(SELECT range_agg(int4range(g * 3, g * 3 + 1)) FROM generate_series(1, 21) g)"],
    "int8multirange": ["'{[1,5), [9223372036854775806,)}'", "'{}'"],
    "nummultirange": ["'{[1.5,2.5], (3,)}'", f"'{{[1,{LONG_NUMERIC}), (-{LONG_NUMERIC}0,-{LONG_NUMERIC}]}}'",
                      f"'{{(,-1),[1,2),[3,4),[5,{LONG_NUMERIC}),[1{LONG_NUMERIC},)}}'", "'{}'"],
    "tsmultirange": ["'{[\"2000-01-01 00:00:00\",\"2000-01-02 00:00:00\"), [\"2001-01-01 00:00:00\",infinity]}'",
                     "'{}'"],
    "tstzmultirange": ["'{[\"2000-01-01 00:00:00+00\",\"2000-01-02 00:00:00+00\"), (\"2040-07-01 00:00+00\",)}'",
                       "'{(,)}'"],
    "datemultirange": ["'{[2000-01-01,2000-02-01), [2001-01-01,infinity)}'", "'{}'",
                       "(SELECT range_agg(daterange(d::date, d::date + 1)) FROM generate_series(date '2000-01-01', "
                       "date '2000-03-01', interval '3 days') d)"],
    "int4multirange[]": ["ARRAY['{[1,5), [7,9)}'::int4multirange, '{}', NULL]"],
    "nummultirange[]": ["ARRAY['{[1.5,2.5]}'::nummultirange]"],
    "tsmultirange[]": ["ARRAY['{}'::tsmultirange]"],
    "tstzmultirange[]": ["ARRAY['{[\"2000-01-01 00:00:00+00\",)}'::tstzmultirange, NULL]"],
    "datemultirange[]": ["ARRAY['{[2000-01-01,2000-02-01)}'::datemultirange]"],
    "int8multirange[]": ["ARRAY['{[1,5)}'::int8multirange]"],
}


@pytest.fixture(scope="session")
def range_table(pg):
    cols = dict(RANGES)
    if pg.major >= 14:
        cols.update(MULTIRANGES)
    _fill(pg.conn, "t_ranges", cols)
    return pg


def test_type_table_matches_server(pg):
    """TYPES, RANGE_SUBTYPES and MULTIRANGE_RANGES are pg_type's and pg_range's rows."""
    rows = pg.conn.execute("SELECT t.oid::int, t.typname::text, t.typlen, t.typalign::text, t.typbyval, "
                           "t.typarray::int FROM pg_type t WHERE t.typtype IN ('r', 'm') "
                           "AND t.oid < 16384").fetchall()
    server = {oid: (name, typlen, typalign, byval, arr) for oid, name, typlen, typalign, byval, arr in rows}
    expect = {oid: info for oid, info in ranges.TYPES.items() if pg.major >= 14 or oid in ranges.RANGE_SUBTYPES}
    assert server == expect
    cols = "rngtypid::int, rngsubtype::int" + (", rngmultitypid::int" if pg.major >= 14 else "")
    for row in pg.conn.execute(f"SELECT {cols} FROM pg_range WHERE rngtypid < 16384").fetchall():
        assert ranges.RANGE_SUBTYPES[row[0]] == row[1]
        if pg.major >= 14:
            assert ranges.MULTIRANGE_RANGES[row[2]] == row[0]


def test_builtin_ranges_match_server(range_table):
    n = compare_zone(range_table, "t_ranges")
    assert n > 150


def test_builtin_ranges_in_a_zone(range_table):
    """tstzrange bounds (in ranges, multiranges and arrays of both) follow the zone; the others do not."""
    assert compare_zone(range_table, "t_ranges", "Asia/Kolkata") > 150


# ---------------------------------------------------------------------------------------------
# User-defined range types: the subtype from pg_range, through range_text / multirange_text
# ---------------------------------------------------------------------------------------------

CUSTOM_RANGES = {
    # type name: (subtype, [SQL expressions])
    "textrange": ("text", ["textrange('a b', 'c,d')", "textrange(NULL, '')", "textrange('', 'a', '[]')",
                           "textrange('x\"y', 'z\\w', '[]')", "textrange(repeat('L', 200), repeat('M', 300))",
                           "textrange('a', repeat('é', 100))", "textrange('(', ')')", "textrange(' ', '~')",
                           "textrange('[x]', NULL)", "'empty'", "textrange('tab\tx', 'u')"]),
    "floatrange": ("float8", ["floatrange(-1.5, 2.25)", "floatrange('-Infinity', 'Infinity')",
                              "floatrange(0.1, NULL)", "floatrange('NaN', 'NaN', '[]')", "floatrange(1e-300, 1e300)"]),
    "intervalrange": ("interval", ["intervalrange('1 day', '2 days')", "intervalrange(NULL, '-1 year 2 mons')",
                                   "intervalrange('00:00:00.000001', '178000000 years', '[]')"]),
    "timetzrange": ("timetz", ["timetzrange('12:00+05:30', '13:00+05:30')", "timetzrange(NULL, '00:00-08')",
                               "timetzrange('01:02:03.25+00', '23:59:59.999999-12:45:30', '[]')"]),
    "charrange": ('"char"', ["charrange('a', 'z')", "charrange(NULL, 'Z')", "charrange('b', 'b', '[]')"]),
    "uuidrange": ("uuid", ["uuidrange('00000000-0000-0000-0000-000000000000', "
                           "'ffffffff-ffff-ffff-ffff-ffffffffffff')", "uuidrange(NULL, gen_random_uuid())"]),
    "namerange": ("name", ["namerange('a', 'pg_class')", "namerange(NULL, 'x y')"]),
    "byterange": ("bytea", ["byterange('\\x00', '\\xff')", "byterange('\\x', '\\xdeadbeef', '[]')",
                            "byterange(decode(repeat('ab', 200), 'hex'), NULL)"]),
    "rangerange": ("int4range", ["rangerange('[1,2)', '[3,4)')", "rangerange(NULL, 'empty', '(]')",
                                 "rangerange('(,1)', '(,)', '[]')"]),
    "moodrange": ("mood", ["moodrange('sad', 'happy')", "moodrange(NULL, 'ok', '(]')"]),
}
CUSTOM_MULTIRANGES = {
    "textmultirange": ["textmultirange(textrange('a', 'b'), textrange('c d', NULL))", "'{}'"],
    "intervalmultirange": ["intervalmultirange(intervalrange('1 day', '2 days'), intervalrange('3 days', NULL))"],
    "charmultirange": ["charmultirange(charrange('a', 'c'), charrange('x', 'z'), charrange('e', 'f'), "
                       "charrange('h', 'i'), charrange('k', 'l'), charrange('n', 'o'))"],
    "uuidmultirange": ["uuidmultirange(uuidrange(NULL, '10000000-0000-0000-0000-000000000000'), "
                       "uuidrange('20000000-0000-0000-0000-000000000000', NULL))"],
    "moodmultirange": ["moodmultirange(moodrange('sad', 'ok'), moodrange('happy', NULL))"],
}


def test_user_defined_ranges_match_server(pg):
    conn, major = pg.conn, pg.major
    conn.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    for name, (subtype, _) in CUSTOM_RANGES.items():
        conn.execute(f"CREATE TYPE {name} AS RANGE (subtype = {subtype})")
    cols = {name: vals for name, (_, vals) in CUSTOM_RANGES.items()}
    if major >= 14:
        cols.update(CUSTOM_MULTIRANGES)
    names = _fill(conn, "t_custom_ranges", cols)
    labels = {oid: label for oid, label in conn.execute("SELECT oid::int, enumlabel::text FROM pg_enum")}
    mood = conn.execute("SELECT 'mood'::regtype::oid::int").fetchone()[0]

    def element_text(typid, raw):          # what a caller with pg_enum at hand does for enum bounds
        if typid == mood:
            return labels[int.from_bytes(raw, "little")]
        return datum.to_pg_text(typid, datum.decode_datum(typid, raw, major=major))

    custom = {}
    for col, typname in names.items():
        if typname.endswith("multirange"):
            rng = conn.execute("SELECT rngtypid::int, rngsubtype::int, %s::regtype::oid::int FROM pg_range "
                               "WHERE rngmultitypid = %s::regtype", (typname, typname)).fetchone()
            sub, fn, kw = rng[1], ranges.multirange_text, {"multirange_oid": rng[2]}
        else:
            sub, oid = conn.execute("SELECT rngsubtype::int, rngtypid::int FROM pg_range "
                                    "WHERE rngtypid = %s::regtype", (typname,)).fetchone()
            fn, kw = ranges.range_text, {"range_oid": oid}
        if sub == mood:
            kw.update(element_text=element_text, storage=(4, "i"))
        custom[col] = (lambda f, s, k: lambda payload: f(payload, s, major, **k))(fn, sub, kw)
    assert compare_zone(pg, "t_custom_ranges", custom=custom) > 60


def test_range_of_another_type_is_refused():
    payload = struct.pack("<Iii", 3904, 1, 5) + bytes([ranges.RANGE_LB_INC])
    assert ranges.range_text(payload, 23, range_oid=3904) == "[1,5)"
    with pytest.raises(ValueError, match="3926"):
        ranges.range_text(payload, 23, range_oid=3926)
    with pytest.raises(ValueError, match="storage unknown"):
        ranges.range_text(payload, 987654)


# ---------------------------------------------------------------------------------------------
# timestamptz in named time zones
# ---------------------------------------------------------------------------------------------

ZONES = [
    "America/New_York",            # DST; LMT -04:56:02 before 1883
    "Asia/Kolkata",                # +05:30; LMT +05:53:28
    "Asia/Kathmandu",              # +05:45
    "Australia/Lord_Howe",         # half-hour DST, southern hemisphere
    "America/St_Johns",            # -03:30 with DST
    "Europe/Dublin",               # negative DST in the tz data, a reversed footer rule
    "Europe/Amsterdam",            # +00:19:32 and +00:20 before 1940
    "Africa/Casablanca",           # explicit transitions to 2087, then a fixed footer
    "Pacific/Apia",                # skipped 2011-12-30
    "America/Sao_Paulo",           # DST abolished in 2019: no rule after
    "Antarctica/Troll",            # -00 before 2005, +00/+02
    "UTC", "Etc/GMT+3", "america/new_york", "EST5EDT",
    "+05:30", "<+03>-03", "UTC+3",                        # POSIX sign
    "5.5", "-3", "-167.99",                               # hours, SQL sign
    "XXX3YYY", "AAA-10BBB,M10.1.0,M4.1.0/3",              # POSIX rules, default and given
]
TRANSITION_ZONES = ["America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "Africa/Casablanca",
                    "America/St_Johns", "Pacific/Apia", "Antarctica/Troll"]
MIN_TIMESTAMP = -211813488000000000          # 4714-11-24 00:00:00 UTC BC
END_TIMESTAMP = 9223371331200000000          # 294277-01-01 00:00:00 UTC (exclusive)
FIXED_INSTANTS = [
    "4714-11-24 00:00:00+00 BC", "4714-11-24 00:00:00.000001+00 BC", "0001-12-31 23:59:59+00 BC",
    "0001-01-01 00:00:00+00", "0044-03-15 12:00+00 BC", "1800-01-01 00:00+00", "1883-11-18 16:59:59+00",
    "1883-11-18 17:00:00+00", "1900-01-01 00:00+00", "1901-12-13 20:45:52+00", "1970-01-01 00:00+00",
    "2000-01-01 00:00+00", "2021-03-14 06:59:59.999999+00", "2021-03-14 07:00:00+00", "2021-11-07 05:59:59+00",
    "2021-11-07 06:00:00+00", "2021-10-31 00:59:59+00", "2021-10-31 01:00:00+00", "2037-12-31 23:59:59+00",
    "2038-01-19 03:14:07+00", "2038-01-19 03:14:08+00", "2040-03-11 06:59:59+00", "2040-03-11 07:00:00+00",
    "2100-07-01 12:00+00", "2369-12-31 23:59:59+00", "2370-01-01 00:00+00", "2400-03-12 07:00+00",
    "9999-12-31 23:59:59.999999+00", "10000-01-01 00:00+00", "12345-07-01 12:00+00", "99999-03-10 07:00+00",
    "294276-12-31 23:59:59.999999+00", "infinity", "-infinity",
]


def _utc_literal(usecs: int) -> str:
    return datum.format_timestamp(usecs, tz=True)


def _tz_instants() -> list[str]:
    """The fixed instants, a second either side of every transition of a few zones (and of their
    rules' transitions far in the future), and random instants over the whole range."""
    rng = random.Random(20)
    usecs = set()
    for name in TRANSITION_ZONES:
        z = pgtz.get_zone(name)
        for at in z._ats:
            usecs.update({(at - pgtz.TIME2000 + d) * 1_000_000 for d in (-1, 0)})
        if z._rule_ats:
            for at in z._rule_ats[140:150]:
                for cycles in (0, 1, 20, 700):
                    t = at + cycles * pgtz.SECSPERREPEAT - pgtz.TIME2000
                    usecs.update({(t + d) * 1_000_000 for d in (-1, 0)})
    usecs.update(rng.randrange(MIN_TIMESTAMP, END_TIMESTAMP) for _ in range(300))
    usecs.update(rng.randrange(-6_311_390_400_000_000, 15_778_800_000_000_000) for _ in range(300))  # 1800-2500
    usecs = {u for u in usecs if MIN_TIMESTAMP <= u < END_TIMESTAMP}
    return FIXED_INSTANTS + [_utc_literal(u) for u in sorted(usecs)]


@pytest.fixture(scope="session")
def tz_table(pg):
    conn = pg.conn
    multi = ", mr tstzmultirange" if pg.major >= 14 else ""
    conn.execute(f"CREATE TABLE t_tz (ts timestamptz, tsa timestamptz[], r tstzrange, plain timestamp{multi})")
    multi_expr = ", tstzmultirange(tstzrange(NULL, v, '()'), tstzrange(v, NULL, '()'))" if pg.major >= 14 else ""
    conn.execute(f"INSERT INTO t_tz SELECT v, ARRAY[v, NULL], tstzrange(v, NULL, '[)'), v::timestamp{multi_expr} "
                 f"FROM unnest(%s::timestamptz[]) v", (_tz_instants(),))
    conn.execute("INSERT INTO t_tz VALUES (NULL, NULL, NULL, NULL" + (", NULL)" if pg.major >= 14 else ")"))
    conn.execute("CHECKPOINT")
    return pg


@pytest.mark.parametrize("zone", ZONES)
def test_timestamptz_in_zone_matches_server(tz_table, zone):
    n = compare_zone(tz_table, "t_tz", zone)
    assert n > 3000


def test_zone_names_accepted_and_refused_like_the_server(pg):
    names = ZONES + ["Nope/Zone", "", "America", "zone.tab", "168", "-168", "XXX+167:59:59", "XXX+168",
                     "<+03", "1e1", " 5", "inf", "GMT", "Factory", "posixrules", "../etc/passwd",
                     "XXX3YYY,M3.2.0", "XXX3YYY,M13.1.0,M1.1.0", "AAA-10BBB,J60/-2,300/25", "0x10", " 0x1.8",
                     "0x", "nan", "-inf", "5 ", "right/UTC", "Etc/GMT-14", "Etc/GMT-15"]
    for name in names:
        try:
            pg.conn.execute("SELECT set_config('TimeZone', %s, false)", (name,))
            server_ok = True
        except Exception:
            server_ok = False
        finally:
            pg.conn.execute("SET TimeZone = 'UTC'")
        try:
            pgtz.get_zone(name)
            ours = True
        except ValueError:
            ours = False
        assert ours == server_ok, name


def test_unknown_zone_raises_at_entry():
    raw = struct.pack("<q", 0)
    range_payload = struct.pack("<Iqq", 3910, 0, 1) + bytes([ranges.RANGE_LB_INC])
    calls = [lambda z: datum.decode_datum(1184, raw, timezone=z),
             lambda z: datum.decode_datum(23, b"\0\0\0\0", timezone=z),
             lambda z: datum.decode_payload(3910, range_payload, timezone=z),
             lambda z: datum.decode_array(b"", timezone=z),
             lambda z: datum.format_timestamp(0, tz=True, timezone=z),
             lambda z: ranges.range_text(range_payload, 1184, timezone=z),
             lambda z: ranges.multirange_text(b"", 1184, timezone=z)]
    for call in calls:
        with pytest.raises(ValueError, match="unknown time zone 'Nope/Zone'"):
            call("Nope/Zone")
    assert datum.decode_payload(3910, range_payload, timezone="Asia/Kolkata") == \
        '["2000-01-01 05:30:00+05:30","2000-01-01 05:30:00.000001+05:30")'


def test_offsets_agree_with_zoneinfo():
    """Every zone zoneinfo knows, at random instants of years 1-9999 (where its datetime can follow):
    the same transitions, the same footer rules."""
    import datetime as dt
    utc = dt.timezone.utc
    rng = random.Random(7)
    lo, hi = -62135510400, 253402128000          # 0001-01-02 .. 9999-12-30
    checked = 0
    for name in sorted(zoneinfo.available_timezones()):
        zone, zi = pgtz.get_zone(name), zoneinfo.ZoneInfo(name)
        for _ in range(60):
            t = rng.randrange(lo, hi) if rng.random() < 0.5 else rng.randrange(-2 ** 31, 2 ** 32)
            want = dt.datetime.fromtimestamp(t, utc).astimezone(zi).utcoffset()
            assert zone.utc_offset(t) == int(want.total_seconds()), (name, t)
            checked += 1
    assert checked > 20000


# ---------------------------------------------------------------------------------------------
# Bad bytes
# ---------------------------------------------------------------------------------------------

def test_random_and_truncated_payloads_never_raise(range_table):
    """Random bytes, and real payloads cut short or with a byte changed, through decode_datum and
    decode_payload of every range and multirange type and their arrays: text or Unreadable."""
    from hypothesis import given, settings, strategies as st

    conn = range_table.conn
    real = []
    relid = conn.execute("SELECT 't_ranges'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(range_table, relid)
    for blk, page in enumerate(rel_pages(conn, "t_ranges")):
        for t in page_tuples(page, blk):
            for a, attr in zip(deform(t, attrs).attrs, attrs):
                if a.status == VALUE and attr.typid in datum.TYPES:
                    payload = datum.varlena_payload(a.raw)
                    if isinstance(payload, bytes):
                        real.append((attr.typid, payload))
    typids = sorted(set(ranges.TYPES) | {info[4] for info in ranges.TYPES.values()})

    def check(typid, payload, zone):
        for v in (datum.decode_payload(typid, payload, timezone=zone),
                  datum.decode_datum(typid, b"\0\0\0\0" + payload, timezone=zone),
                  datum.decode_datum(typid, payload, timezone=zone)):
            text = datum.to_pg_text(typid, v)
            assert text is None or isinstance(text, str)
            json.dumps(datum.to_json(v))
            if typid in ranges.TYPES:
                assert isinstance(v, (str, datum.Unreadable, datum.Undecoded, datum.ToastPointer)), v

    @settings(max_examples=600, deadline=None)
    @given(st.sampled_from(real), st.integers(0, 10 ** 6), st.integers(0, 255), st.booleans(),
           st.sampled_from([None, "America/New_York", "+05:30"]))
    def mutated(item, cut, byte, flip, zone):
        typid, payload = item
        b = bytearray(payload)
        if flip and b:
            b[cut % len(b)] = byte
            check(typid, bytes(b), zone)
        else:
            check(typid, bytes(b[:cut % (len(b) + 1)]), zone)

    @settings(max_examples=600, deadline=None)
    @given(st.sampled_from(typids), st.binary(max_size=120), st.sampled_from([None, "Europe/Dublin"]))
    def random_bytes(typid, payload, zone):
        check(typid, payload, zone)

    mutated()
    random_bytes()


def test_range_text_of_random_bytes_is_text_or_value_error():
    """range_text and multirange_text over subtypes of every storage (fixed by value and by reference,
    'c'/'s'/'i'/'d' aligned, varlena, a range): a str or ValueError, nothing else."""
    from hypothesis import given, settings, strategies as st

    subtypes = [23, 20, 18, 21, 701, 1186, 1266, 2950, 19, 25, 17, 1700, 3904, 1184]

    @settings(max_examples=800, deadline=None)
    @given(st.sampled_from(subtypes), st.binary(max_size=96), st.booleans())
    def run(subtype, payload, multi):
        fn = ranges.multirange_text if multi else ranges.range_text
        try:
            assert isinstance(fn(payload, subtype, 15, "America/New_York"), str)
        except ValueError:
            pass
    run()
