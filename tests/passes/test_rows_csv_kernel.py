"""`pgpage rows --csv` through the compiled printer (``pgp_csv_rows``) against the pure Python path and the server.

The printer prints the tuples it can and hands the others back to Python in order, so the CSV must be the same
stream byte for byte as when Python prints every row: on every table of every committed fixture cluster (all
columns, and the columns the printer takes when a table has others), live rows and ``--all``; and on a live
server's table of random values of every kind the printer knows (integer extremes, text with quotes, commas,
newlines, unicode and empty strings, padded bpchar, numerics NaN/Infinity/huge/tiny, dates and timestamps BC,
infinite and past 9999, timestamptz around DST transitions in several zones, floats of random bits, NULLs),
where it must also equal the server's own ``COPY ... TO STDOUT (FORMAT csv, HEADER)``.
"""
from __future__ import annotations

import io
import json
import random
import shutil
import struct
import subprocess
import sys
from datetime import datetime, timedelta, timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest

import floatbits
from conftest import MAJORS, damaged, data_dir
from livepg import running_server

from pgpage.decode import kernels
from pgpage.decode import datum
from pgpage.passes.rows import RowOptions, RowVersion, TableRows
from pgpage.render.rows import write_csv, write_json_lines
from pgpage.storage.datadir import open_data_directory


def python_csv(cluster, relation, system: bool = False, **options) -> tuple[str, list]:
    """The CSV as the Python path prints every row (a plain iterator has no csv_stream), and its findings."""
    table = TableRows(cluster, relation, RowOptions(all_versions=system, **options))
    out = io.StringIO()
    write_csv(table.column_names, iter(table), system, out)
    return out.getvalue(), _findings(table)


def kernel_csv(cluster, relation, system: bool = False, **options) -> tuple[str, list, int, int]:
    """The CSV through TableRows.csv_stream (written to a UTF-8 byte stream, as to stdout), its findings, and how
    many rows the printer printed and declined."""
    table = TableRows(cluster, relation, RowOptions(all_versions=system, **options))
    counts = [0, 0]

    class Counting:
        column_names = table.column_names

        def csv_stream(self, system):
            return _counted(table.csv_stream(system), counts)

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    count = write_csv(table.column_names, Counting(), system, out)
    out.flush()
    assert count == sum(counts)
    return raw.getvalue().decode("utf-8"), _findings(table), *counts


def _counted(stream, counts: list[int]):
    """The stream, counting into ``counts`` the rows the printer printed and those it declined."""
    for item in stream:
        if isinstance(item, RowVersion):
            counts[1] += 1
        else:
            counts[0] += item[1]
        yield item


def python_json(cluster, relation, system: bool = False, **options) -> tuple[str, list]:
    """``rows --json`` as the Python path writes every record (``RowVersion.record``), and its findings."""
    table = TableRows(cluster, relation, RowOptions(all_versions=system, **options))
    out = io.StringIO()
    write_json_lines(table.column_names, iter(table), out)
    return out.getvalue(), _findings(table)


def kernel_json(cluster, relation, system: bool = False, **options) -> tuple[str, list, int, int]:
    """The records through TableRows.json_stream, written as to stdout, its findings, and how many rows the
    printer wrote and declined."""
    table = TableRows(cluster, relation, RowOptions(all_versions=system, **options))
    counts = [0, 0]

    class Counting:
        def json_stream(self):
            return _counted(table.json_stream(), counts)

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    count = write_json_lines(table.column_names, Counting(), out)
    out.flush()
    assert count == sum(counts)
    return raw.getvalue().decode("utf-8"), _findings(table), *counts


def _findings(table) -> list:
    return [(f.code, f.block, f.item, f.message) for f in table.findings]


# ------------------------------------------------------------------------------------------- fixtures
def fixture_tables():
    for major in MAJORS:
        cluster = open_data_directory(data_dir(major))
        for rel in cluster.database("pgpage").relations():
            if rel.kind == "r" and rel.qualified_name.startswith("public."):
                yield major, rel.qualified_name


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_tables_print_the_same(major):
    cluster = open_data_directory(data_dir(major))
    printed_total = 0
    tables = [r for r in cluster.database("pgpage").relations()
              if r.kind == "r" and r.qualified_name.startswith("public.")]
    assert tables
    for rel in tables:
        kinds = TableRows(cluster, rel).csv_kinds()
        names = TableRows(cluster, rel).column_names
        takes = [n for n, k in zip(names, kinds) if k is not None]
        selections = [None] + ([takes] if takes and len(takes) < len(names) else [])
        for system in (False, True):
            for columns in selections:
                want, want_findings = python_csv(cluster, rel, system, columns=columns)
                got, got_findings, printed, declined = kernel_csv(cluster, rel, system, columns=columns)
                assert got == want, (rel.qualified_name, system, columns)
                assert got_findings == want_findings, rel.qualified_name
                if columns is not None or None not in kinds:
                    printed_total += printed
    assert printed_total > 1000      # the printer did the work, not the Python path alone


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_tables_json_the_same(major):
    """``rows --json`` through the printer: the same records byte for byte as Python's json.dumps of each
    version's record, live rows and every version (successors, HOT flags, verdicts), on every fixture table."""
    cluster = open_data_directory(data_dir(major))
    printed_total = 0
    for rel in cluster.database("pgpage").relations():
        if rel.kind != "r" or not rel.qualified_name.startswith("public."):
            continue
        for system in (False, True):
            want, want_findings = python_json(cluster, rel, system)
            got, got_findings, printed, declined = kernel_json(cluster, rel, system)
            assert got == want, (rel.qualified_name, system)
            assert got_findings == want_findings, rel.qualified_name
            printed_total += printed
    assert printed_total > 1000


def test_small_buffer_splits_and_declines_long_lines(monkeypatch):
    """A buffer smaller than a chunk's text: the printer stops where it is full and is called again; a line
    longer than the whole buffer goes to Python."""
    major = MAJORS[-1]
    cluster = open_data_directory(data_dir(major))
    rel = cluster.database("pgpage").relation("toasty")
    want, _ = python_csv(cluster, rel, columns=["id", "kind"])
    want_all, _ = python_csv(cluster, rel, True)
    monkeypatch.setattr(kernels, "CSV_BUFFER", 40)
    got, _, printed, declined = kernel_csv(cluster, rel, columns=["id", "kind"])
    assert got == want and printed > 0
    got_all, _, _, declined_all = kernel_csv(cluster, rel, True)
    assert got_all == want_all and declined_all > declined


def test_mutated_pages_print_the_same(tmp_path):
    """Random bytes of a real table's pages changed: the printer declines what it cannot print exactly, never
    reads past a tuple, and the stream stays Python's (findings included)."""
    major = MAJORS[-1]
    shutil.copytree(data_dir(major), tmp_path / "data")
    cluster = open_data_directory(tmp_path / "data")
    rng = random.Random(7)
    printed_total = 0
    for relname in ("heap_wide", "btree_wide"):
        rel = cluster.database("pgpage").relation(relname)
        takes = [n for n, k in zip(TableRows(cluster, rel).column_names, TableRows(cluster, rel).csv_kinds()) if k]
        path = rel.forks["main"].segment_path(0)
        original = path.read_bytes()
        for _ in range(12):
            path.write_bytes(damaged(original, rng, rng.choice([1, 4, 20]), fix_checksums=True))
            for system in (False, True):
                mutated = open_data_directory(tmp_path / "data")
                rel = mutated.database("pgpage").relation(relname)
                want, want_findings = python_csv(mutated, rel, system, columns=takes)
                got, got_findings, printed, _ = kernel_csv(mutated, rel, system, columns=takes)
                assert got == want and got_findings == want_findings
                printed_total += printed
        path.write_bytes(original)
    assert printed_total > 1000


def test_mutated_pages_with_python_given_columns(tmp_path):
    """A table with columns of types only Python prints (row_types: tsquery; their texts are given to the
    printer) and one of geometric types and arrays: with random bytes of their pages changed, CSV and JSON stay
    Python's byte for byte and each finding comes once, in the same order, however the printer and Python share
    the rows."""
    major = MAJORS[-1]
    shutil.copytree(data_dir(major), tmp_path / "data")
    rng = random.Random(11)
    printed_total = 0
    rel = open_data_directory(tmp_path / "data").database("pgpage").relation("row_types")
    assert "given" in [kernels.TABLES.CSV_KINDS[k] for k in TableRows(
        open_data_directory(tmp_path / "data"), rel).csv_printer(False).kinds]
    for relname in ("row_types", "misc_types"):
        rel = open_data_directory(tmp_path / "data").database("pgpage").relation(relname)
        path = rel.forks["main"].segment_path(0)
        original = path.read_bytes()
        for round_ in range(13):
            path.write_bytes(damaged(original, rng, rng.choice([1, 4, 20]) if round_ else 0, fix_checksums=True))
            for system in (False, True):
                mutated = open_data_directory(tmp_path / "data")
                rel = mutated.database("pgpage").relation(relname)
                want, want_findings = python_csv(mutated, rel, system)
                got, got_findings, printed, _ = kernel_csv(mutated, rel, system)
                assert got == want and got_findings == want_findings
                want, want_findings = python_json(mutated, rel, system)
                got, got_findings, printed_json, _ = kernel_json(mutated, rel, system)
                assert got == want and got_findings == want_findings
                printed_total += printed + printed_json
        path.write_bytes(original)
    assert printed_total > 500


# ------------------------------------------------------------------------------------------- live server
ZONES = ["Europe/Lisbon", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "America/St_Johns",
         "Africa/Monrovia", "Pacific/Chatham", "Europe/Dublin", "UTC", "5.5", "EST5EDT"]
N_RANDOM = 2000
MIN_TIMESTAMP = -211813488000000000     # 4714-11-24 00:00:00 UTC BC
END_TIMESTAMP = 9223371331200000000     # 294277-01-01 00:00:00 UTC
MIN_DATE, END_DATE = -2451545 - 38, 2147483494    # 4714-11-24 BC, 5874898-01-01

COLUMNS = [  # name, type, what COPY prints differs from pgpage (reg* types print names)
    ("id", "int", False), ("b", "bool", False), ("i2", "int2", False), ("i4", "int4", False), ("i8", "int8", False),
    ("o", "oid", False), ("x", "xid", False), ("ci", "cid", False), ("x8", "xid8", False), ("rc", "regclass", True),
    ("c", '"char"', False), ("t", "text", False), ("vc", "varchar(40)", False), ("bp", "char(10)", False),
    ("bpn", "bpchar", False), ("j", "json", False), ("nm", "name", False), ("ba", "bytea", False),
    ("u", "uuid", False), ("gone", "int", False), ("d", "date", False), ("tm", "time", False),
    ("ts", "timestamp", False), ("tz", "timestamptz", False), ("n", "numeric", False), ("n2", "numeric(7,-2)", False),
    ("f4", "float4", False), ("f8", "float8", False), ("di", "dint", False), ("dt", "dtext", False),
]

TEXTS = ["", '"', '""', ",", "a,b", 'say "hi"', "line\nbreak", "cr\rhere", "crlf\r\n", "\\.", "\\", "NULL",
         " lead", "trail ", "é", "日本語", "🐘 elephant", "a\tb", "\u00a0", "x" * 39, "ñ,\"\n"]


def random_text(rng: random.Random, n: int) -> str:
    alphabet = 'abcXYZ019 ,"\n\r\\.;\'é日🐘\t'
    return "".join(rng.choice(alphabet) for _ in range(n))


def ts_text(usecs: int, tz: bool) -> str:
    return datum.format_timestamp(usecs, tz=tz)     # "+00" for timestamptz: an input the server reads exactly


def zone_edges(zone: str) -> list[int]:
    """UTC instants (PostgreSQL-epoch microseconds) around the offset changes of a zone in some years, found
    with Python's zoneinfo (sampled daily, then bisected to the second)."""
    try:
        z = ZoneInfo(zone)
    except Exception:
        return []
    epoch = datetime(2000, 1, 1, tzinfo=dt_timezone.utc)
    out = []
    for year in (1893, 1916, 1945, 1968, 1996, 2021, 2024, 2037, 2100, 2399):
        t = datetime(year, 1, 1, tzinfo=dt_timezone.utc)
        prev = t.astimezone(z).utcoffset()
        for day in range(1, 367):
            u = t + timedelta(days=1)
            off = u.astimezone(z).utcoffset()
            if off != prev:
                lo, hi = t, u
                while hi - lo > timedelta(seconds=1):
                    mid = lo + (hi - lo) / 2
                    mid = mid.replace(microsecond=0)
                    if mid.astimezone(z).utcoffset() == prev:
                        lo = mid
                    else:
                        hi = mid
                base = (hi - epoch) // timedelta(microseconds=1)
                out += [base - 1_000_001, base - 1, base, base + 1, base + 999_999]
                prev = off
            t = u
    return out


def float4_text(bits: int) -> str:
    f = struct.unpack("<f", struct.pack("<I", bits))[0]
    return "NaN" if f != f else ("Infinity" if f == float("inf") else "-Infinity" if f == float("-inf")
                                 else "%.9g" % f)


FLOAT8_EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                1.7976931348623157e308, -1.7976931348623157e308, 1.0, 0.1, 1 / 3, 2.0 ** 53, 2.0 ** 53 + 2,
                9007199254740991.0, 1e15, 1e16, 123456789012345.6, 1e-4, 1e-5, 0.0001234, 2.0 ** -1022,
                2.0 ** 1023, 4.35, 5e-310, 1e23, 8.41e21, 2.0 ** 60, 9.5e-5]
FLOAT4_EDGES = ["0", "-0", "1.4e-45", "1.17549435e-38", "3.40282347e38", "-3.40282347e38", "48085872", "1",
                "0.1", "16777216", "16777218", "1e-4", "1e-5", "999999", "1000000", "123456.7",
                "NaN", "Infinity", "-Infinity", "3.3554432e7", "8.589973e9"]   # 7.038531e-26: see below


# float4 values datum once printed unlike the server: 7.038531e-26, whose double rounds to the neighbouring float4
# (a decoded Float4 keeps its bits); and powers of two (2^87, 2^90, 2^-96) whose shortest digits lie on the wider
# side, not the correctly rounded one
FLOAT4_ONCE_DIFFERED = ["7.038531e-26", "1.5474251e+26", "1.2379401e+27", "1.2621775e-29"]


def random_rows(rng: random.Random, server_major: int) -> list[tuple]:
    rows = []
    edges = sorted({e for z in ZONES for e in zone_edges(z)})
    for i in range(N_RANDOM):
        def maybe(v, p=0.08):
            return None if rng.random() < p else v
        if i % 3 == 0:
            usecs = rng.randrange(MIN_TIMESTAMP, END_TIMESTAMP)
        elif i % 3 == 1 or not edges:
            usecs = rng.randrange(-3_200_000_000_000_000, 3_200_000_000_000_000)    # ~1900..2100
        else:
            usecs = rng.choice(edges) + rng.choice([0, 0, 1, -1, 500_000])
        ts_usecs = rng.randrange(MIN_TIMESTAMP, END_TIMESTAMP) if i % 2 else \
            rng.randrange(-80_000_000_000_000_000, 260_000_000_000_000_000)
        days = rng.randrange(MIN_DATE, END_DATE) if i % 2 else rng.randrange(-800_000, 3_000_000)
        intdig = rng.choice([0, 1, 3, 4, 5, 9, 20, 60])
        fracdig = rng.choice([0, 0, 1, 2, 4, 5, 8, 17, 40])
        num = (("-" if rng.random() < 0.4 else "") + (str(rng.randrange(1, 10)) + "".join(
            rng.choice("0123456789") for _ in range(intdig - 1)) if intdig else "0")
               + ("." + "".join(rng.choice("0123456789") for _ in range(fracdig)) if fracdig else ""))
        f8 = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        f8t = repr(f8) if f8 == f8 and abs(f8) != float("inf") else rng.choice(["NaN", "Infinity", "-Infinity"])
        if i % 4 == 0:      # nearer numbers: the fixed notation's ranges
            f8t = repr(rng.uniform(-1e6, 1e6) * 10.0 ** rng.randrange(-8, 17))
        text = rng.choice(TEXTS) if rng.random() < 0.3 else random_text(rng, rng.randrange(0, 30))
        rows.append((
            i, maybe(rng.choice(["t", "f"])), maybe(str(rng.randrange(-2 ** 15, 2 ** 15))),
            maybe(str(rng.choice([-2 ** 31, 2 ** 31 - 1, 0, rng.randrange(-2 ** 31, 2 ** 31)]))),
            maybe(str(rng.choice([-2 ** 63, 2 ** 63 - 1, rng.randrange(-2 ** 63, 2 ** 63)]))),
            maybe(str(rng.choice([0, 2 ** 32 - 1, rng.randrange(2 ** 32)]))), maybe(str(rng.randrange(2 ** 32))),
            maybe(str(rng.randrange(2 ** 32))), maybe(str(rng.randrange(2 ** 64))), maybe("pg_class"),
            maybe(rng.choice(["", "a", ",", '"', "\\n", "\\200", "\\377", "\\001", "z"])),
            maybe(text, 0.05), maybe(random_text(rng, rng.randrange(0, 40))),
            maybe(rng.choice(["", "a", "ab ", "日本", '","']) + random_text(rng, rng.randrange(0, 4))[:4]),
            maybe(rng.choice(["", "x  ", " y", "é "])),
            maybe(rng.choice(['{"a": 1}', '[1, "x,y"]', '"\\n"', "null", '  {"k" : "v"}  '])),
            maybe(random_text(rng, rng.randrange(0, 20))),
            maybe("\\x" + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 24))).hex()),
            maybe(str(__import__("uuid").UUID(int=rng.getrandbits(128)))),
            maybe(str(i)),
            maybe(rng.choice(["infinity", "-infinity"]) if rng.random() < 0.03 else datum.format_date(days)),
            maybe(rng.choice(["24:00:00", "00:00:00", "23:59:59.999999"]) if rng.random() < 0.05
                  else datum.format_time(rng.randrange(0, 86_400_000_000))),
            maybe(rng.choice(["infinity", "-infinity"]) if rng.random() < 0.03 else ts_text(ts_usecs, False)),
            maybe(rng.choice(["infinity", "-infinity"]) if rng.random() < 0.03 else ts_text(usecs, True), 0.04),
            maybe(rng.choice(["NaN", "Infinity", "-Infinity", "0", "-0.000", "1e-200", "9" * 120, "1e1000",
                              "0.00000000000000000001"]) if rng.random() < 0.1 else num),
            maybe(str(rng.randrange(-99999, 99999)) if server_major >= 15 else None),
            maybe(rng.choice(FLOAT4_EDGES) if rng.random() < 0.1 else float4_text(rng.getrandbits(32))),
            maybe(repr(rng.choice(FLOAT8_EDGES)) if rng.random() < 0.1 else f8t),
            maybe(str(rng.randrange(-2 ** 63, 2 ** 63))), maybe(rng.choice(TEXTS)),
        ))
    return rows


@pytest.fixture(scope="module")
def live():
    with running_server() as srv:
        conn = srv.connect()
        major = conn.info.server_version // 10000
        conn.execute("CREATE DOMAIN dint AS int8")
        conn.execute("CREATE DOMAIN dtext AS text")
        cols = [(n, t if n != "n2" or major >= 15 else "numeric") for n, t, _ in COLUMNS]
        conn.execute("CREATE TABLE t_kinds (" + ", ".join(f"{n} {t}" for n, t in cols) + ")")
        rows = random_rows(random.Random(20240611), major)
        with conn.cursor().copy("COPY t_kinds FROM STDIN") as cp:
            for r in rows:
                cp.write_row(r)
        # values the printer leaves to Python: inline-compressed, and TOASTed out of line
        conn.execute("INSERT INTO t_kinds (id, t, n) VALUES (100013, repeat('ab,', 3000), NULL),"
                     " (100002, (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g), 1),"
                     " (100003, 'x', (SELECT ('1' || repeat('7', 20000))::numeric))")
        conn.execute("INSERT INTO t_kinds (id, t) VALUES (100004, '\\.'), (100005, ''), (100006, NULL)")
        conn.execute("INSERT INTO t_kinds (id, n) VALUES (100007, '1e131071'), (100008, '1e-16383'),"
                     " (100009, ('-0.' || repeat('0', 16382) || '1')::numeric)")
        conn.execute("CREATE TABLE t_float4 (id int, f float4)")
        conn.execute("INSERT INTO t_float4 SELECT g, f::float4 FROM unnest(ARRAY[" + ", ".join(
            f"'{v}'" for v in FLOAT4_ONCE_DIFFERED + ["1.5", "48085872", "-0"]) + "]) WITH ORDINALITY AS u(f, g)")
        conn.execute("ALTER TABLE t_kinds DROP COLUMN gone")
        conn.execute("UPDATE t_kinds SET i4 = coalesce(i4, 0) / 2 WHERE id % 7 = 0")
        conn.execute("DELETE FROM t_kinds WHERE id % 11 = 0")
        conn.execute("CHECKPOINT")
        yield srv, conn
        conn.close()


def server_copy(conn, columns: list[str], zone: str) -> str:
    conn.execute(f"SET timezone = '{zone}'")
    with conn.cursor().copy(f"COPY t_kinds ({', '.join(columns)}) TO STDOUT (FORMAT csv, HEADER)") as copy:
        return b"".join(bytes(b) for b in copy).decode("utf-8")


def live_relation(srv):
    cluster = open_data_directory(srv.data)
    return cluster, cluster.database("postgres").relation("t_kinds")


def test_live_every_kind_equals_python_and_copy(live):
    srv, conn = live
    cluster, rel = live_relation(srv)
    table = TableRows(cluster, rel)
    assert None not in table.csv_kinds()
    assert set(table.csv_kinds()) >= {"bool", "int2", "int4", "int8", "uint32", "uint64", "char", "text", "name",
                                      "bytea", "uuid", "date", "time", "timestamp", "timestamptz", "numeric",
                                      "float4", "float8"}
    zone = "Europe/Lisbon"
    got, got_findings, printed, declined = kernel_csv(cluster, rel, timezone=zone)
    want, want_findings = python_csv(cluster, rel, timezone=zone)
    assert got == want
    assert got_findings == want_findings
    # no row left to Python: the printer decompresses the two inline-compressed values (pglz) and prints the one
    # out of line from the bytes Python fetched from the TOAST table
    assert declined == 0 and printed > N_RANDOM * 0.85
    same = [n for n, _, differs in COLUMNS if not differs and n != "gone"]
    got, *_ = kernel_csv(cluster, rel, timezone=zone, columns=same)
    assert got == server_copy(conn, same, zone)


def test_live_all_versions_equal_python(live):
    srv, _ = live
    cluster, rel = live_relation(srv)
    got, got_findings, printed, declined = kernel_csv(cluster, rel, True, timezone="UTC")
    want, want_findings = python_csv(cluster, rel, True, timezone="UTC")
    assert got == want and got_findings == want_findings
    assert printed > N_RANDOM and declined == 0


@pytest.mark.parametrize("wide", [False, True])
def test_live_table_view_equals_pythons(live, wide):
    """The table for people is made of the printer's records read back (``text_records``): the same text as from
    Python's records of every version (control characters escaped, long cells cut unless --wide), and the same
    findings."""
    from pgpage.render.rows import write_table
    srv, _ = live
    cluster, rel = live_relation(srv)
    printed, python = io.StringIO(), io.StringIO()
    table = TableRows(cluster, rel, RowOptions(all_versions=True))
    assert write_table(table.column_names, table.text_records(), True, wide, printed) > N_RANDOM
    reference = TableRows(cluster, rel, RowOptions(all_versions=True))
    write_table(reference.column_names, (row.record(reference.column_names) for row in reference), True, wide, python)
    assert printed.getvalue() == python.getvalue() and "\\n" in python.getvalue()
    assert _findings(table) == _findings(reference)


@pytest.mark.parametrize("zone", ZONES)
def test_live_timestamptz_in_zones(live, zone):
    srv, conn = live
    cluster, rel = live_relation(srv)
    columns = ["id", "tz", "ts", "d"]
    got, _, printed, declined = kernel_csv(cluster, rel, timezone=zone, columns=columns)
    assert declined == 0        # (the tuple with a TOAST pointer too: its value fetched by Python)
    assert got == server_copy(conn, columns, zone)
    want, _ = python_csv(cluster, rel, timezone=zone, columns=["tz"])
    got, *_ = kernel_csv(cluster, rel, timezone=zone, columns=["tz"])
    assert got == want


def test_live_single_column_quotes_backslash_dot(live):
    srv, conn = live
    cluster, rel = live_relation(srv)
    got, _, printed, declined = kernel_csv(cluster, rel, columns=["dt"])
    assert '\n"\\."\n' in got
    assert got == server_copy(conn, ["dt"], "UTC")
    got, _, printed, declined = kernel_csv(cluster, rel, columns=["t"])
    assert got == python_csv(cluster, rel, columns=["t"])[0] == server_copy(conn, ["t"], "UTC")


def copy_csv(conn, table: str) -> str:
    with conn.cursor().copy(f"COPY {table} TO STDOUT (FORMAT csv, HEADER)") as copy:
        return b"".join(bytes(b) for b in copy).decode()


def test_live_float4_double_rounding_and_powers_of_two(live):
    """The printer and Python print the server's digits for the float4 whose digits' double rounds to its
    neighbour and for powers of two whose shortest digits are not the correctly rounded ones; none declined."""
    srv, conn = live
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_float4")
    got, _, printed, declined = kernel_csv(cluster, rel)
    want, _ = python_csv(cluster, rel)
    assert got == want == copy_csv(conn, "t_float4")
    assert declined == 0 and printed == len(FLOAT4_ONCE_DIFFERED) + 3


def test_live_float_bit_patterns_equal_copy(live):
    """float4 and float8 bit patterns of every class (tests/floatbits.py: every power of two and its neighbours,
    subnormals, both ends of each range, short decimals that are midpoints, NaN payloads, infinities, zeros,
    tens of thousands of random patterns), stored bit for bit: the printer, declining none, and Python print the
    server's COPY byte for byte."""
    srv, conn = live
    rng = random.Random(701)
    f4 = floatbits.patterns(floatbits.FLOAT4, rng, 40_000)
    f8 = floatbits.patterns(floatbits.FLOAT8, rng, 20_000)
    n = max(len(f4), len(f8))
    conn.execute("CREATE TABLE t_float_bits (id int, f4 float4, f8 float8)")
    floatbits.copy_binary(conn, "t_float_bits", ["id", "f4", "f8"], [
        (struct.pack(">i", i), struct.pack(">I", f4[i]) if i < len(f4) else None,
         struct.pack(">Q", f8[i]) if i < len(f8) else None) for i in range(n)])
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_float_bits")
    server = copy_csv(conn, "t_float_bits")
    got, _, printed, declined = kernel_csv(cluster, rel)
    assert declined == 0 and printed == n > 50_000
    assert got == server
    want, _ = python_csv(cluster, rel)
    assert want == server


def test_live_cli_equals_copy(live):
    """The real entry point, writing to a pipe."""
    srv, conn = live
    columns = ["id", "b", "i8", "t", "bp", "ba", "u", "d", "ts", "tz", "n", "f4", "f8"]
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(srv.data), "--db", "postgres", "--rel",
                        "t_kinds", "--csv", "--columns", ",".join(columns), "--timezone", "America/New_York"],
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode("utf-8") == server_copy(conn, columns, "America/New_York")


JSON_TEXTS = ["".join(map(chr, range(1, 32))), '"quoted" \\ back\\slash', "\u2028\u2029 \x7f del", "🐘 é 日本語",
              "tab\there", "", "null", "\\u0041 not an escape"]


def test_live_json_values_are_the_servers_texts(live):
    """Every record's values are the server's texts of them (its output functions; JSON strings, NULL as null),
    for every kind the printer knows, texts with every control character, quotes, backslashes and non-ASCII among
    them; the printer's records equal Python's byte for byte, none left to Python."""
    srv, conn = live
    conn.execute("CREATE TABLE t_json (id int, t text, c \"char\", ba bytea, n name)")
    with conn.cursor().copy("COPY t_json (id, t, c, n) FROM STDIN") as cp:
        for i, text in enumerate(JSON_TEXTS):
            cp.write_row((i, text, chr(i % 32) if i % 32 else None, text[:20]))
    conn.execute("INSERT INTO t_json SELECT 100 + g, NULL, chr(g)::\"char\", decode(lpad(to_hex(g), 2, '0'), 'hex')"
                 " FROM generate_series(1, 127) g")
    conn.execute("UPDATE t_json SET t = t || '!' WHERE id % 5 = 0")
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    for name, columns in (("t_kinds", [n for n, _, differs in COLUMNS if not differs and n != "gone"]),
                          ("t_json", ["id", "t", "c", "ba", "n"])):
        rel = cluster.database("postgres").relation(name)
        got, got_findings, printed, declined = kernel_json(cluster, rel, timezone="Asia/Kolkata", columns=columns)
        want, want_findings = python_json(cluster, rel, timezone="Asia/Kolkata", columns=columns)
        assert got == want and got_findings == want_findings
        assert declined == 0 and printed > 100
        conn.execute("SET timezone = 'Asia/Kolkata'")
        # the output functions' texts (what ::text gives but for bool), NULL kept
        texts = ", ".join(f"CASE WHEN {c} IS NOT NULL THEN format('%s', {c}) END" for c in columns)
        server = {r[0]: list(r[1:]) for r in conn.execute(f"SELECT ctid::text, {texts} FROM {name}")}
        records = [json.loads(line) for line in got.split("\n")[:-1]]   # (splitlines also splits at U+2028)
        assert len(records) == len(server)
        for rec in records:
            assert list(rec["values"]) == columns
            assert list(rec["values"].values()) == server[rec["ctid"]], rec["ctid"]
    got_all, _, printed, _ = kernel_json(cluster, rel, True)
    assert got_all == python_json(cluster, rel, True)[0]
    assert '"status":"updated"' in got_all and '"successor":"(' in got_all and printed > 100


def test_live_python_given_columns_equal_copy(live):
    """A table of a type the printer leaves to Python (tsquery) beside ones it prints (an array, jsonb, an enum
    whose labels need quoting, an interval, text): Python's texts are given to the printer, and the CSV is the
    server's COPY, the records Python's."""
    srv, conn = live
    conn.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'so, \"happy\"')")
    conn.execute("CREATE TABLE t_given (id int, tags text[], doc jsonb, m mood, dur interval, q tsquery, t text)")
    conn.execute("INSERT INTO t_given SELECT g, CASE WHEN g % 7 > 0 THEN ARRAY['a' || g, 'b,c', NULL] END,"
                 " jsonb_build_object('k', g, 's', E'x,\\ny\"'), (enum_range(NULL::mood))[g % 3 + 1],"
                 " make_interval(days => g, secs => g / 7.0), ('w' || g || ' & !x:*')::tsquery,"
                 " CASE WHEN g % 5 > 0 THEN E'line\\n' || g END FROM generate_series(1, 3000) g")
    conn.execute("DELETE FROM t_given WHERE id % 13 = 0")
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_given")
    assert TableRows(cluster, rel).csv_kinds() == ["int4", "array", "jsonb", "enum", "interval", None, "text"]
    assert "given" in [kernels.TABLES.CSV_KINDS[k] for k in TableRows(cluster, rel).csv_printer(False).kinds]
    got, got_findings, printed, declined = kernel_csv(cluster, rel)
    assert got == copy_csv(conn, "t_given") == python_csv(cluster, rel)[0]
    assert printed == 3000 - 3000 // 13 and declined == 0 and not got_findings
    got, _, printed, declined = kernel_json(cluster, rel, True)
    assert got == python_json(cluster, rel, True)[0]
    assert printed == 3000 and declined == 0


def test_live_arrays_printed_as_array_out(live):
    """Arrays of the kinds the printer knows (every dimension count, lower bounds, NULL elements, texts array_out
    must quote: empty, NULL in any case, delimiters, quotes, backslashes, braces, white space, unicode), and a
    domain's: the printer's CSV is the server's COPY, its records Python's."""
    srv, conn = live
    rng = random.Random(5)
    elements = ["", "NULL", "null", "Null", "a b", "a,b", 'q"q', "b\\s", "{x}", "\t", "é日🐘", "x" * 30, "plain",
                "nullx", " ", ";"]
    conn.execute("CREATE DOMAIN posint AS int CHECK (VALUE > 0)")
    conn.execute("CREATE TABLE t_arrays (id int, i4 int[], i8 int8[], t text[], n numeric[], tz timestamptz[],"
                 " u uuid[], b bool[], f8 float8[], d date[], ba bytea[], vc varchar(5)[], p posint[], m int[][])")
    rows = []
    for i in range(1500):
        def arr(make, k=None):
            if rng.random() < 0.1:
                return None
            return [None if rng.random() < 0.15 else make() for _ in range(rng.randrange(0, 5) if k is None else k)]
        rows.append((i, arr(lambda: rng.randrange(-2 ** 31, 2 ** 31)), arr(lambda: rng.randrange(-2 ** 63, 2 ** 63)),
                     arr(lambda: rng.choice(elements) + random_text(rng, rng.randrange(0, 3))),
                     arr(lambda: str(rng.randrange(-10 ** 6, 10 ** 6)) + "." + str(rng.randrange(0, 999))),
                     arr(lambda: datetime(2000, 1, 1, tzinfo=dt_timezone.utc) + timedelta(seconds=rng.randrange(
                         -10 ** 9, 10 ** 9))),
                     arr(lambda: __import__("uuid").UUID(int=rng.getrandbits(128))), arr(lambda: rng.random() < 0.5),
                     arr(lambda: rng.uniform(-1e6, 1e6)), arr(lambda: datetime(2000, 1, 1).date() + timedelta(
                         days=rng.randrange(-10 ** 5, 10 ** 5))),
                     arr(lambda: bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 4)))),
                     arr(lambda: rng.choice(elements)[:5]), arr(lambda: rng.randrange(1, 100)),
                     [[rng.randrange(9) for _ in range(2)] for _ in range(rng.randrange(1, 3))]))
    with conn.cursor().copy("COPY t_arrays FROM STDIN") as cp:
        for r in rows:
            cp.write_row(r)
    conn.execute("UPDATE t_arrays SET i4 = '[0:1]={7,8}', m = '[2:3][-1:0]={{1,2},{3,4}}' WHERE id % 9 = 0")
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_arrays")
    assert TableRows(cluster, rel).csv_kinds()[1:] == ["array"] * 13
    conn.execute("SET timezone = 'UTC'")
    got, got_findings, printed, declined = kernel_csv(cluster, rel, timezone="UTC")
    assert got == copy_csv(conn, "t_arrays") == python_csv(cluster, rel, timezone="UTC")[0]
    assert printed == 1500 and declined == 0 and not got_findings
    got, _, printed, declined = kernel_json(cluster, rel, True, timezone="UTC")
    assert got == python_json(cluster, rel, True, timezone="UTC")[0]
    assert printed == 1500 + 1500 // 9 + 1 and declined == 0


def printed_like_copy(srv, conn, table: str, kinds: list) -> tuple[int, int]:
    """A live table through the printer, its columns of ``kinds``: the CSV is the server's COPY and Python's, the
    records (every version) Python's, no finding. (printed, declined)"""
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation(table)
    assert TableRows(cluster, rel).csv_kinds() == kinds
    got, got_findings, printed, declined = kernel_csv(cluster, rel)
    assert got == copy_csv(conn, table) == python_csv(cluster, rel)[0]
    assert not got_findings
    assert kernel_json(cluster, rel, True)[0] == python_json(cluster, rel, True)[0]
    return printed, declined


def test_live_intervals_equal_copy(live):
    """interval_out (IntervalStyle postgres) by the printer: random months, days and microseconds of every sign
    and size, each field alone, the extremes, and arrays of them: the CSV is the server's COPY, the records
    Python's."""
    srv, conn = live
    rng = random.Random(3)
    values = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (12, 0, 0), (-13, 1, -1), (0, 1, 0), (0, -1, 1), (0, 0, 1),
              (0, 0, -1), (0, 0, 1_000_000), (0, 0, -3_600_000_001), (2 ** 31 - 1, 2 ** 31 - 1, 2 ** 63 - 1),
              (-2 ** 31 + 1, -2 ** 31 + 1, -2 ** 63 + 1), (1, -1, 59_999_999), (-1, 1, -500_000)]
    for _ in range(1500):
        values.append((rng.choice([0, rng.randrange(-30, 30), rng.randrange(-2 ** 31 + 1, 2 ** 31)]),
                       rng.choice([0, rng.randrange(-40, 40), rng.randrange(-2 ** 31 + 1, 2 ** 31)]),
                       rng.choice([0, rng.randrange(-10 ** 11, 10 ** 11), rng.randrange(-2 ** 63 + 1, 2 ** 63),
                                   rng.randrange(-10 ** 6, 10 ** 6) * 10 ** rng.randrange(0, 7)])))
    conn.execute("CREATE TABLE t_interval (id int, iv interval, ivs interval[])")
    floatbits.copy_binary(conn, "t_interval", ["id", "iv", "ivs"], [
        (struct.pack(">i", i), struct.pack(">qii", us, d, m), None) for i, (m, d, us) in enumerate(values)])
    conn.execute("UPDATE t_interval SET ivs = ARRAY[iv, NULL, -iv] WHERE id % 3 = 0 AND iv > '-1000000 years'"
                 " AND iv < '1000000 years'")
    assert printed_like_copy(srv, conn, "t_interval", ["int4", "interval", "array"]) == (len(values), 0)


def random_json(rng: random.Random, depth: int = 0):
    """A random JSON value: objects (some of more than 32 keys: JEntry offsets), arrays, strings with quotes,
    backslashes, control characters and non-ASCII, numbers of every form, true, false, null."""
    pick = rng.random()
    if depth < 4 and pick < 0.25:
        keys = rng.choice([rng.randrange(0, 5), rng.randrange(0, 5), rng.randrange(30, 70) if depth == 0 else 2])
        return {random_text(rng, rng.randrange(0, 6)) + chr(rng.choice([0x41, 0x1F, 0x7F, 0x2028])): random_json(
            rng, depth + 1) for _ in range(keys)}
    if depth < 4 and pick < 0.45:
        return [random_json(rng, depth + 1) for _ in range(rng.choice([0, 1, 3, 40 if depth == 0 else 2]))]
    if pick < 0.65:
        return random_text(rng, rng.randrange(0, 12)) + rng.choice(["", "\x01", "\\", '"', "\u00e9"])
    if pick < 0.85:
        return rng.choice([rng.randrange(-10 ** 20, 10 ** 20), rng.uniform(-1e6, 1e6), 0, -0.0, 1e-7, 123.4500,
                           float(rng.randrange(10 ** 15)) * 10 ** rng.randrange(-30, 30)])
    return rng.choice([True, False, None])


def test_live_jsonb_equal_copy(live):
    """jsonb_out by the printer: random documents (nested objects and arrays, objects past 32 keys, strings
    that need escaping, numbers of every form, top-level scalars), alone and in arrays: the CSV is the server's
    COPY, the records Python's."""
    srv, conn = live
    rng = random.Random(17)
    # j kept inline and uncompressed, js compressed inline when big (pglz: the printer decompresses it)
    conn.execute("CREATE TABLE t_jsonb (id int, j jsonb, js jsonb[])")
    conn.execute("ALTER TABLE t_jsonb ALTER j SET STORAGE PLAIN, ALTER js SET STORAGE MAIN")
    with conn.cursor().copy("COPY t_jsonb (id, j) FROM STDIN") as cp:
        for i in range(1200):
            cp.write_row((i, None if i % 29 == 0 else json.dumps(random_json(rng))))
    conn.execute("UPDATE t_jsonb SET js = ARRAY[j, NULL, '{}'::jsonb] WHERE id % 4 = 0")
    printed, declined = printed_like_copy(srv, conn, "t_jsonb", ["int4", "jsonb", "array"])
    compressed = conn.execute("SELECT count(*) FROM t_jsonb WHERE pg_column_compression(js) = 'pglz'").fetchone()[0]
    assert declined == 0 and printed == 1200 and compressed > 10


def test_live_network_types_equal_copy(live):
    """network_out and the MAC types by the printer: random IPv4 and IPv6 addresses and masks (zero runs of every
    length and place, IPv4-mapped and -compatible forms), as inet and cidr, macaddr, macaddr8, and arrays."""
    srv, conn = live
    rng = random.Random(23)
    v6 = ["::", "::1", "::ffff:1.2.3.4", "::1.2.3.4", "::ffff:0:1.2.3.4", "1::", "1:0:0:2::3", "0:1:0:0:1:0:0:1",
          "fe80::1:0:0:0", "1:2:3:4:5:6:7:8", "::2:0:0:0:0:0:1"]
    rows = []
    for i in range(2000):
        if i % 2:
            words = [rng.choice([0, 0, 0, 1, 0xFFFF, rng.randrange(1 << 16)]) for _ in range(8)]
            addr = rng.choice(v6) if i % 7 == 0 else ":".join("%x" % w for w in words)
            bits = rng.choice([128, 128, rng.randrange(129)])
        else:
            addr = ".".join(str(rng.randrange(256)) for _ in range(4))
            bits = rng.choice([32, 32, rng.randrange(33)])
        mac = bytes(rng.getrandbits(8) for _ in range(8))
        rows.append((i, f"{addr}/{bits}", f"{addr}/{bits}", mac[:6].hex(":"), mac.hex(":")))
    conn.execute("CREATE TABLE t_network (id int, a inet, c cidr, m macaddr, m8 macaddr8, aa inet[])")
    with conn.cursor().copy("COPY t_network (id, a, c, m, m8) FROM STDIN") as cp:
        for r in rows:
            cp.write_row((r[0], r[1], str(__import__("ipaddress").ip_network(r[2], strict=False)), r[3], r[4]))
    conn.execute("UPDATE t_network SET aa = ARRAY[a, NULL, c::inet] WHERE id % 5 = 0")
    kinds = ["int4", "inet", "cidr", "macaddr", "macaddr8", "array"]
    assert printed_like_copy(srv, conn, "t_network", kinds) == (2000, 0)


def test_live_ranges_equal_copy(live):
    """range_out and multirange_out by the printer: random values of every built-in range type (empty, infinite,
    inclusive and exclusive bounds, numerics of every length, timestamps BC and infinite, dates at infinity), a
    pg_range type over text whose bounds need range_bound_escape's quotes (empty, quotes, backslashes, brackets,
    commas, white space) and one over float8, a domain over a range, and multiranges of them (past four ranges:
    offsets among the lengths): the CSV is the server's COPY, the records Python's."""
    srv, conn = live
    rng = random.Random(29)
    major = conn.info.server_version // 10000
    conn.execute("RESET timezone")
    conn.execute('CREATE TYPE textrange AS RANGE (subtype = text, collation = "C")')
    conn.execute("CREATE TYPE floatrange AS RANGE (subtype = float8)")
    conn.execute("CREATE DOMAIN nonempty AS int8range CHECK (NOT isempty(VALUE))")
    words = ["", 'a"b', "b\\c", "(x", "x]", "a,b", " ", "\t", "é日", "plain", "[", ")", "z" * 40, "NULL", "q q"]

    def bounds(make, lo_inf=0.1, hi_inf=0.1):
        lo, hi = sorted([make(), make()])
        return ((None if rng.random() < lo_inf else lo), (None if rng.random() < hi_inf else hi),
                rng.choice("[("), rng.choice("])"))

    def literal(b, quote=str):
        lo, hi, lb, ub = b
        if rng.random() < 0.05:
            return "empty"
        return lb + ("" if lo is None else quote(lo)) + "," + ("" if hi is None else quote(hi)) + ub

    def text_bound(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def multi(make, quote=str):
        points = sorted({make() for _ in range(2 * rng.randrange(0, 8))})
        return "{" + ",".join(f"[{quote(a)},{quote(b)})" for a, b in zip(points[::2], points[1::2])) + "}"

    def number():
        return str(rng.randrange(-10 ** rng.randrange(1, 30), 10 ** rng.randrange(1, 30))) + rng.choice(
            ["", "." + str(rng.randrange(10 ** 6))])

    def stamp():
        return (datetime(2000, 1, 1) + timedelta(seconds=rng.randrange(-6 * 10 ** 10, 10 ** 10))).isoformat() \
            if rng.random() < 0.9 else rng.choice(["-infinity", "infinity"])

    columns = {
        "i4": ("int4range", lambda: rng.randrange(-2 ** 31, 2 ** 31 - 1), str),
        "i8": ("int8range", lambda: rng.randrange(-2 ** 63, 2 ** 63 - 1), str),
        "nm": ("numrange", lambda: __import__("decimal").Decimal(number()), str),
        "ts": ("tsrange", stamp, lambda s: f'"{s}"'),
        "tz": ("tstzrange", stamp, lambda s: f'"{s}+03"' if "inf" not in s else s),
        "dt": ("daterange", lambda: (datetime(2000, 1, 1).date() + timedelta(days=rng.randrange(-10 ** 5, 10 ** 5))
                                     ).isoformat() if rng.random() < 0.95 else rng.choice(["-infinity", "infinity"]),
               str),
        "tx": ("textrange", lambda: rng.choice(words) + random_text(rng, rng.randrange(0, 2)), text_bound),
        "fl": ("floatrange", lambda: rng.choice([rng.uniform(-1e6, 1e6), float(rng.randrange(-9, 9)), 1e300, -1e-300,
                                                 float("inf")]), str),
        "ne": ("nonempty", lambda: rng.randrange(-99, 99), str),
    }
    multis = {"mi4": ("int4multirange", "i4"), "mnm": ("nummultirange", "nm"), "mtz": ("tstzmultirange", "tz"),
              "mtx": ("textmultirange", "tx")} if major >= 14 else {}
    conn.execute("CREATE TABLE t_ranges (id int, " + ", ".join(
        f"{c} {t}" for c, (t, *_) in [*columns.items(), *multis.items()]) + ")")
    rows = []
    for i in range(1500):
        row = [i]
        for c, (t, make, quote) in columns.items():
            value = None if rng.random() < 0.05 else literal(bounds(make), quote)
            row.append(f"[{-100 + make()},{100 + make()}]" if c == "ne" else value)
        for c, (t, base) in multis.items():
            row.append(None if rng.random() < 0.05 else multi(columns[base][1], columns[base][2]))
        rows.append(row)
    with conn.cursor().copy("COPY t_ranges FROM STDIN") as cp:
        for r in rows:
            cp.write_row(r)
    kinds = ["int4"] + ["range"] * len(columns) + ["multirange"] * len(multis)
    assert printed_like_copy(srv, conn, "t_ranges", kinds) == (1500, 0)


def test_live_text_search_bits_money_lsn_timetz_equal_copy(live):
    """tsvectorout, varbit_out, cash_out, pg_lsn_out and timetz_out by the printer: tsvectors of lexemes that need
    quotes doubled (quotes, backslashes, commas, spaces, unicode), with positions of every weight and stripped,
    empty ones; bit strings of every length (and bit(7)); money at both ends of int64; LSNs of every width;
    times with zones of hours, minutes and seconds, and arrays of them: the CSV is the server's COPY, the
    records Python's."""
    srv, conn = live
    rng = random.Random(31)
    conn.execute("RESET timezone")
    conn.execute("CREATE TABLE t_misc (id int, tv tsvector, vb varbit, b7 bit(7), m money, l pg_lsn, tt timetz,"
                 " tva tsvector[], ma money[], tta timetz[])")
    lexemes = ["it's", "back\\slash", "comma,", "two words", 'quo"te', "é日🐘", "x" * 50, "a", "'", "\\"]
    rows = []
    for i in range(1500):
        bits = "".join(rng.choice("01") for _ in range(rng.choice([0, 1, 7, 8, 9, rng.randrange(70)])))
        cents = rng.choice([-2 ** 63, 2 ** 63 - 1, 0, -1, rng.randrange(-10 ** 6, 10 ** 6),
                            rng.randrange(-2 ** 63, 2 ** 63)])
        lsn = rng.choice([0, 2 ** 64 - 1, rng.randrange(2 ** 32), rng.randrange(2 ** 64)])
        usecs = rng.randrange(24 * 3600 * 10 ** 6)
        offset = rng.choice([0, 3600 * rng.randrange(-15, 16), 60 * rng.randrange(-959, 960),
                             rng.randrange(-57599, 57600)])
        sign, a = ("-" if offset < 0 else "+"), abs(offset)
        rows.append((i, None if i % 17 == 0 else bits, "".join(rng.choice("01") for _ in range(7)),
                     f"{cents // 100}.{cents % 100:02d}" if cents >= 0 else f"-{-cents // 100}.{-cents % 100:02d}",
                     f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}",
                     f"{usecs // 3600 // 10 ** 6:02d}:{usecs // 60 // 10 ** 6 % 60:02d}:{usecs // 10 ** 6 % 60:02d}."
                     f"{usecs % 10 ** 6:06d}{sign}{a // 3600:02d}:{a // 60 % 60:02d}:{a % 60:02d}"))
    with conn.cursor().copy("COPY t_misc (id, vb, b7, m, l, tt) FROM STDIN") as cp:
        for r in rows:
            cp.write_row(r)
    for i in range(0, 1500, 3):
        words = " ".join(random_text(rng, rng.randrange(1, 6)).replace("'", "") for _ in range(rng.randrange(0, 6)))
        conn.execute("UPDATE t_misc SET tv = array_to_tsvector(%s::text[]) || setweight(to_tsvector('simple', %s),"
                     " %s) WHERE id = %s", (rng.sample(lexemes, rng.randrange(0, 4)), words, rng.choice("ABCD"), i))
    conn.execute("UPDATE t_misc SET tv = strip(tv) WHERE id % 7 = 0")
    conn.execute("UPDATE t_misc SET tva = ARRAY[tv, NULL, ''::tsvector], ma = ARRAY[m, NULL, m * -1],"
                 " tta = ARRAY[tt, NULL] WHERE id % 4 = 0 AND m > '-92233720368547758.08'")
    kinds = ["int4", "tsvector", "bit", "bit", "money", "pg_lsn", "timetz", "array", "array", "array"]
    assert printed_like_copy(srv, conn, "t_misc", kinds) == (1500, 0)


def test_live_typed_records_equal_the_servers_values(live):
    """``rel.rows()`` reads the printer's records back and converts their texts: its typed values are what psycopg
    makes of the same rows from the server (SELECT), and every version's record is the one Python's own path makes
    (``RowVersion.record`` with ``python_value``)."""
    from decimal import Decimal
    from functools import partial

    from psycopg.types.json import set_json_loads

    from pgpage.decode.values import python_value
    srv, conn = live
    conn.execute("RESET timezone")
    cols = ("id int, i8 bigint, n numeric, f float8, b bool, t text, ts timestamp, tz timestamptz, d date, tm time,"
            " ttz timetz, u uuid, by bytea, j jsonb, ip inet, c cidr, ta text[], ia int[], r int4range")
    conn.execute(f"CREATE TABLE t_typed ({cols})")
    conn.execute("INSERT INTO t_typed SELECT g, g::bigint * 1000000007, g / 7.0, g * 1.5e-3, g % 3 = 0,"
                 " CASE WHEN g % 4 > 0 THEN 'text, \"' || g || chr(8232) || E'\\n' END,"
                 " timestamp '2001-02-03 04:05:06' + g * interval '1 day',"
                 " timestamptz '1999-12-31 23:00+00' + g * interval '97 days 1 hour', date '2000-01-01' + g,"
                 " time '00:00' + g * interval '17 seconds', ('12:00+0' || (g % 9))::timetz, md5(g::text)::uuid,"
                 " decode(md5(g::text), 'hex'), jsonb_build_object('k', g, 'f', g / 8.0, 'a', jsonb_build_array(g)),"
                 " ('10.' || g % 200 || '.0.1/24')::inet, ('10.' || g % 200 || '.0.0/16')::cidr,"
                 " ARRAY['a', NULL, 'b c'], ARRAY[g, -g], int4range(g, g + 2) FROM generate_series(1, 600) g")
    conn.execute("UPDATE t_typed SET n = -n WHERE id % 5 = 0")
    conn.execute("DELETE FROM t_typed WHERE id % 11 = 0")
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_typed")
    set_json_loads(partial(json.loads, parse_float=Decimal), conn)
    cur = conn.execute("SELECT * FROM t_typed ORDER BY id")
    names = [d.name for d in cur.description]
    want = [dict(zip(names, row)) for row in cur.fetchall()]
    got = sorted((r["values"] for r in rel.rows()), key=lambda v: v["id"])
    assert len(got) == len(want) == 600 - 600 // 11
    assert [{**v, "r": None} for v in got] == [{**w, "r": None} for w in want]
    assert got[0]["r"] == "[1,3)"
    table = TableRows(cluster, rel, RowOptions(all_versions=True))
    types = [a.typid for _, a in table.columns]
    python = [row.record(table.column_names, [python_value(table.formatter, t, v) for t, v in zip(types, row.values)])
              for row in TableRows(cluster, rel, RowOptions(all_versions=True))]
    assert list(table.records()) == python
    assert {"live", "deleted"} <= {r["status"] for r in python}


def test_live_geometry_and_xml_equal_copy(live):
    """The geometric types' output functions by the printer, their coordinates float8 bit patterns of every class
    (zeros, subnormals, powers of two, NaN, infinities, random): point, lseg, line, box, circle, open and closed
    paths, polygons, box[] (';' between elements) and point[]; and xml, with and without a declaration (Python
    reprints those): the CSV is the server's COPY, the records Python's."""
    srv, conn = live
    rng = random.Random(37)
    bits = floatbits.patterns((52, 11), rng, 2000)
    rng.shuffle(bits)
    nums = iter(bits * 20)

    def f8(n, positive=False):
        return b"".join(struct.pack(">Q", next(nums) & ~(1 << 63) if positive else next(nums)) for _ in range(n))

    conn.execute("CREATE TABLE t_geo (id int, p point, s lseg, l line, b box, c circle, op path, cp path, pg polygon,"
                 " x xml, bs box[], ps point[])")
    def line():   # (line_recv refuses A and B both within 1e-6 of zero, NaN passing)
        while True:
            abc = f8(3)
            a, b, _ = struct.unpack(">3d", abc)
            if not (abs(a) <= 1e-6 and abs(b) <= 1e-6):
                return abc

    rows = []
    for i in range(1500):
        npts = rng.randrange(1, 6)
        rows.append((struct.pack(">i", i), f8(2), f8(4), line(), f8(4), f8(2) + f8(1, positive=True),
                     struct.pack(">Bi", 0, npts) + f8(2 * npts), struct.pack(">Bi", 1, npts) + f8(2 * npts),
                     struct.pack(">i", npts) + f8(2 * npts)))
    floatbits.copy_binary(conn, "t_geo", ["id", "p", "s", "l", "b", "c", "op", "cp", "pg"], rows)
    docs = ["<a>x, \"y\"</a>", "<?xml version=\"1.0\"?>\n<a/>", "<?xml version=\"1.1\" standalone=\"yes\"?><b>é</b>",
            "", "plain text", "<?xml-stylesheet href=\"s\"?><c/>", "<d>\n line</d>"]
    conn.execute("UPDATE t_geo SET x = (%s::text[])[id %% 7 + 1]::xml", (docs,))
    conn.execute("UPDATE t_geo SET bs = ARRAY[b, NULL, b], ps = ARRAY[p, NULL] WHERE id % 3 = 0")
    kinds = ["int4", "point", "lseg", "line", "box", "circle", "path", "path", "polygon", "xml", "array", "array"]
    printed, declined = printed_like_copy(srv, conn, "t_geo", kinds)
    assert printed == 1500 - declined and 1500 * 3 // 7 - 5 <= declined <= 1500 * 3 // 7 + 5   # the declarations


def test_live_compressed_values_damaged(live, tmp_path):
    """Inline-compressed values (pglz) the printer decompresses itself: as stored they equal COPY; with random bytes
    of a copy of their pages changed (control bytes, tags, literals, the sizes in their headers), the printer
    declines every value Python cannot decompress and prints the rest as Python does, findings included."""
    srv, conn = live
    rng = random.Random(41)
    conn.execute("CREATE TABLE t_pglz (id int, doc text, j jsonb, n numeric)")
    conn.execute("ALTER TABLE t_pglz ALTER doc SET STORAGE MAIN, ALTER j SET STORAGE MAIN, ALTER n SET STORAGE MAIN")
    with conn.cursor().copy("COPY t_pglz FROM STDIN") as cp:
        for i in range(300):
            words = [random_text(rng, rng.randrange(1, 8)) for _ in range(rng.randrange(5, 40))]
            doc = " ".join(rng.choice(words) for _ in range(rng.randrange(300, 900)))
            cp.write_row((i, doc, json.dumps({"k": i, "v": [rng.choice(words) for _ in range(400)]}),
                          "9" * rng.randrange(3000, 6000) + "." + "1" * rng.randrange(0, 900)))
    conn.execute("CHECKPOINT")
    assert conn.execute("SELECT count(*) FROM t_pglz WHERE pg_column_compression(doc) = 'pglz'"
                        " AND pg_column_compression(j) = 'pglz' AND pg_column_compression(n) = 'pglz'"
                        ).fetchone()[0] > 250
    assert printed_like_copy(srv, conn, "t_pglz", ["int4", "text", "jsonb", "numeric"]) == (300, 0)
    conn.execute("CREATE TABLE t_lz4 (id int, doc text COMPRESSION lz4)")   # lz4: Python's
    conn.execute("ALTER TABLE t_lz4 ALTER doc SET STORAGE MAIN")
    conn.execute("INSERT INTO t_lz4 SELECT g, repeat('lz4 ' || g, 900) FROM generate_series(1, 50) g")
    assert printed_like_copy(srv, conn, "t_lz4", ["int4", "text"]) == (0, 50)
    shutil.copytree(srv.data, tmp_path / "data", ignore=shutil.ignore_patterns("postmaster.pid", "pg_wal"))
    cluster = open_data_directory(tmp_path / "data")
    path = cluster.database("postgres").relation("t_pglz").forks["main"].segment_path(0)
    original = path.read_bytes()
    # and the raw size in the header of the first page's docs (id int4, then doc: its 4-byte header and va_tcinfo)
    # less, more, and lz4's method bits: a stream left over, or cut short (or not: a last tag cut), and Python's lz4
    sizes = bytearray(original)
    for k, change in enumerate([-50, 1, 1 << 30, -1, 7]):
        tup = struct.unpack_from("<I", sizes, 24 + 4 * k)[0] & 0x7FFF
        at = tup + sizes[tup + 22] + 4 + 4
        struct.pack_into("<I", sizes, at, struct.unpack_from("<I", sizes, at)[0] + change)
    printed, declined = printed_like_python(tmp_path / "data", "t_pglz", path, [bytes(sizes)] + [
        damaged(original, rng, rng.choice([4, 30, 200]), fix_checksums=True) for _ in range(8)])
    assert printed > 2000 and declined > 50


def printed_like_python(data, table: str, path, versions: list[bytes]) -> tuple[int, int]:
    """A live table's copy in ``data`` with each of ``versions`` written to ``path`` in turn: the printer's CSV
    (live rows and every version) and its findings equal Python's. (printed, declined) over all of them."""
    printed_total = declined_total = 0
    for version in versions:
        path.write_bytes(version)
        for system in (False, True):
            mutated = open_data_directory(data)
            rel = mutated.database("postgres").relation(table)
            want, want_findings = python_csv(mutated, rel, system)
            got, got_findings, printed, declined = kernel_csv(mutated, rel, system)
            assert got == want and got_findings == want_findings
            printed_total, declined_total = printed_total + printed, declined_total + declined
    return printed_total, declined_total


def test_live_toasted_values_fetched_for_the_printer(live, tmp_path):
    """Values out of line (TOAST pointers, compressed or not) are fetched by Python from the TOAST table and printed
    by the printer: they equal COPY; with random bytes of a copy of the TOAST table changed (chunks missing,
    sizes wrong, streams broken) and HEAP_HASEXTERNAL cleared on tuples that hold pointers, the rows Python cannot
    fetch are Python's, and the CSV and the findings equal Python's."""
    srv, conn = live
    rng = random.Random(43)
    conn.execute("CREATE TABLE t_ext (id int, doc text, j jsonb, a int[])")
    conn.execute("ALTER TABLE t_ext ALTER doc SET STORAGE EXTERNAL")
    with conn.cursor().copy("COPY t_ext FROM STDIN") as cp:
        for i in range(120):
            words = [random_text(rng, rng.randrange(1, 8)) for _ in range(30)]
            cp.write_row((i, random_text(rng, rng.choice([10, 3000, 6000])),
                          json.dumps({"k": i, "v": [rng.choice(words) for _ in range(rng.choice([3, 1500]))]}),
                          [rng.randrange(10 ** 9) for _ in range(rng.choice([2, 1500]))]))
    conn.execute("CHECKPOINT")
    assert conn.execute("SELECT count(*) FROM t_ext WHERE pg_column_size(doc) < octet_length(doc)"
                        " OR pg_column_compression(j) IS NOT NULL").fetchone()[0] > 30
    assert printed_like_copy(srv, conn, "t_ext", ["int4", "text", "jsonb", "array"]) == (120, 0)
    shutil.copytree(srv.data, tmp_path / "data", ignore=shutil.ignore_patterns("postmaster.pid", "pg_wal"))
    rel = open_data_directory(tmp_path / "data").database("postgres").relation("t_ext")
    heap, toast = rel.forks["main"].segment_path(0), rel.toast.forks["main"].segment_path(0)
    heap_bytes, toast_bytes = heap.read_bytes(), toast.read_bytes()
    flags = bytearray(heap_bytes)
    for k in range(6):   # HEAP_HASEXTERNAL cleared on the first page's first tuples
        tup = struct.unpack_from("<I", flags, 24 + 4 * k)[0] & 0x7FFF
        flags[tup + 20] &= ~0x04
    # checksums recomputed: the test is about the printer's logic past them (a page that fails its checksum has
    # its rows printed by Python, flagged)
    from mutation import recompute_checksums
    recompute_checksums(flags, heap_bytes, 8192)
    heap.write_bytes(bytes(flags))
    printed, declined = printed_like_python(tmp_path / "data", "t_ext", toast, [
        damaged(toast_bytes, rng, changes, fix_checksums=True) for changes in (3, 30, 300)])
    assert printed > 300 and declined > 30


def test_live_lz4_values_out_of_line_inflated_for_the_printer(live, tmp_path):
    """lz4-compressed values out of line are inflated by Python's lz4 package and printed by the printer: they equal
    COPY; with random bytes of a copy of the TOAST table changed (streams broken), the values lz4 cannot inflate
    leave their rows to Python, and the CSV and the findings equal Python's."""
    srv, conn = live
    rng = random.Random(59)
    conn.execute("CREATE TABLE t_lz4x (id int, doc text COMPRESSION lz4)")
    conn.execute("INSERT INTO t_lz4x SELECT g, (SELECT string_agg(md5((g * i)::text) || repeat('z', 90), '')"
                 " FROM generate_series(1, 80) i) FROM generate_series(1, 60) g")
    conn.execute("CHECKPOINT")
    assert conn.execute("SELECT count(*) FROM t_lz4x WHERE pg_column_compression(doc) = 'lz4'"
                        " AND pg_column_size(doc) > 2100").fetchone()[0] == 60
    assert printed_like_copy(srv, conn, "t_lz4x", ["int4", "text"]) == (60, 0)
    shutil.copytree(srv.data, tmp_path / "data", ignore=shutil.ignore_patterns("postmaster.pid", "pg_wal"))
    toast = open_data_directory(tmp_path / "data").database("postgres").relation("t_lz4x").toast
    path = toast.forks["main"].segment_path(0)
    printed, declined = printed_like_python(tmp_path / "data", "t_lz4x", path, [
        damaged(path.read_bytes(), rng, changes) for changes in (5, 50)])
    assert printed > 100 and declined > 5
    # and pointers whose va_extinfo names compression method 3, which no server writes: Python's
    heap = open_data_directory(tmp_path / "data").database("postgres").relation("t_lz4x").forks["main"].segment_path(0)
    methods = bytearray(heap.read_bytes())
    for k in range(5):
        tup = struct.unpack_from("<I", methods, 24 + 4 * k)[0] & 0x7FFF
        pointer = tup + methods[tup + 22] + 4          # after id: 0x01, the tag 18, va_rawsize, va_extinfo
        assert methods[pointer:pointer + 2] == b"\x01\x12" and methods[pointer + 9] >> 6 == 1   # lz4
        methods[pointer + 9] |= 0xC0
    printed, declined = printed_like_python(tmp_path / "data", "t_lz4x", heap, [bytes(methods)])
    assert declined >= 10


def test_live_lz4_values_inline_inflated_once_seen(live, tmp_path):
    """lz4-compressed values stored inline: the rows of the first chunk that holds one are Python's, then such
    values are inflated by the lz4 package and printed by the printer; all equal COPY, and with random bytes of a
    copy of the table changed, Python's CSV and findings."""
    srv, conn = live
    rng = random.Random(61)
    conn.execute("CREATE TABLE t_lz4i (id int, doc text COMPRESSION lz4, n text)")
    conn.execute("ALTER TABLE t_lz4i ALTER doc SET STORAGE MAIN")
    conn.execute("INSERT INTO t_lz4i SELECT g, (SELECT string_agg(md5((g * i)::text) || repeat('q', 60), '')"
                 " FROM generate_series(1, 40) i), CASE WHEN g % 5 = 0 THEN NULL ELSE g::text END"
                 " FROM generate_series(1, 4000) g")
    conn.execute("CHECKPOINT")
    assert conn.execute("SELECT count(*) FROM t_lz4i WHERE pg_column_compression(doc) = 'lz4'"
                        " AND pg_column_size(doc) < 2000").fetchone()[0] == 4000
    assert conn.execute("SELECT pg_relation_size('t_lz4i') / 8192").fetchone()[0] > 2 * 256   # chunks of 256 pages
    printed, declined = printed_like_copy(srv, conn, "t_lz4i", ["int4", "text", "text"])
    assert printed > 2000 and 0 < declined < 2000 and printed + declined == 4000
    shutil.copytree(srv.data, tmp_path / "data", ignore=shutil.ignore_patterns("postmaster.pid", "pg_wal"))
    path = open_data_directory(tmp_path / "data").database("postgres").relation("t_lz4i").forks["main"].segment_path(0)
    printed, declined = printed_like_python(tmp_path / "data", "t_lz4i", path, [
        damaged(path.read_bytes(), rng, changes, fix_checksums=True) for changes in (20, 400)])
    assert printed > 6000 and declined > 4000


def test_live_tids_equal_copy(live):
    """tidout by the printer: block numbers and offsets of every width (0, the largest), alone and in arrays."""
    srv, conn = live
    rng = random.Random(47)
    conn.execute("CREATE TABLE t_tid (id int, t tid, ts tid[])")
    with conn.cursor().copy("COPY t_tid (id, t) FROM STDIN") as cp:
        for i in range(1000):
            cp.write_row((i, f"({rng.choice([0, 2 ** 32 - 1, rng.randrange(2 ** 32), rng.randrange(1000)])},"
                             f"{rng.choice([0, 65535, rng.randrange(65536), rng.randrange(300)])})"))
    conn.execute("UPDATE t_tid SET ts = ARRAY[t, NULL, '(1,2)'] WHERE id % 3 = 0")
    assert printed_like_copy(srv, conn, "t_tid", ["int4", "tid", "array"]) == (1000, 0)


def _toast_pointers(cluster, rel) -> list:
    """Every TOAST pointer in the table's tuples (deform_tuple of each normal tuple, pg_attribute's columns)."""
    from pgpage.decode.deform import deform_tuple
    attrs = TableRows(cluster, rel, RowOptions()).attrs
    out = []
    for _, pages in rel.forks["main"].iter_chunks():
        for page in pages:
            lower = struct.unpack_from("<H", page, 12)[0]
            for k in range((lower - 24) // 4):
                w = struct.unpack_from("<I", page, 24 + 4 * k)[0]
                off, flags, length = w & 0x7FFF, (w >> 15) & 3, w >> 17
                if flags != 1:
                    continue
                tup = page[off:off + length].tobytes()
                im = struct.unpack_from("<H", tup, 20)[0]
                d = deform_tuple(tup, tup[22], struct.unpack_from("<H", tup, 18)[0] & 0x7FF, attrs,
                                 null_bitmap=tup[23:tup[22]] if im & 1 else None)
                for a in d.attrs:
                    v = datum.parse_varlena(a.raw) if a.raw is not None and a.attlen == -1 else None
                    if isinstance(v, datum.Varlena) and v.toast is not None:
                        out.append(v.toast)
    return out


def _as_fetched(pointer, value, inflate: bool):
    """A value reassembled on its own (``decode.toast.reassemble``: the content, or a compressed value not inflated as
    its compressed varlena) as ``ToastStore.fetch`` gives it: a varlena."""
    if not isinstance(value, bytes) or (pointer.is_compressed and not inflate):
        return value
    return ((len(value) + 4) << 2).to_bytes(4, "little") + value


def _same_value(a, b) -> bool:
    if isinstance(a, bytes) or isinstance(b, bytes):
        return a == b
    return (a.code, a.message) == (b.code, b.message)


def test_live_toast_values_fetched_together_equal_one_by_one(live, tmp_path):
    """ToastStore.fetch (the pages of many values read once, the data of plain chunk tuples sliced from them)
    gives what deforming each chunk tuple gives value by value, compressed values inflated or not: on a live TOAST
    table, and on copies whose chunk tuples are changed where the sliced path decides (the attribute count,
    HEAP_HASNULL, t_hoff, chunk_data's header, the line pointer's length) and at random."""
    from pgpage.passes.toast import ToastStore
    srv, conn = live
    rng = random.Random(53)
    conn.execute("CREATE TABLE t_many (id int, doc text, plain text)")
    conn.execute("ALTER TABLE t_many ALTER plain SET STORAGE EXTERNAL")
    conn.execute("INSERT INTO t_many SELECT g, (SELECT string_agg(md5((g * i)::text) || repeat('x', 90), '')"
                 " FROM generate_series(1, 60) i), repeat(md5(g::text), 80 + g % 7) FROM generate_series(1, 80) g")
    conn.execute("CHECKPOINT")
    assert conn.execute("SELECT count(*) FROM t_many WHERE pg_column_compression(doc) = 'pglz'"
                        " AND pg_column_size(doc) > 2100 AND pg_column_compression(plain) IS NULL").fetchone()[0] == 80
    shutil.copytree(srv.data, tmp_path / "data", ignore=shutil.ignore_patterns("postmaster.pid", "pg_wal"))
    cluster = open_data_directory(tmp_path / "data")
    rel = cluster.database("postgres").relation("t_many")
    pointers = _toast_pointers(cluster, rel)
    assert len(pointers) == 160 and sum(p.is_compressed for p in pointers) == 80
    toast = rel.toast.forks["main"].segment_path(0)
    original = toast.read_bytes()
    # the first chunk tuple of each of six pages (six values), each changed in one way
    lp_at = [8192 * k + 24 for k in range(6)]
    at = [8192 * k + (struct.unpack_from("<I", original, a)[0] & 0x7FFF) for k, a in enumerate(lp_at)]
    assert len({struct.unpack_from("<I", original, a + 24)[0] for a in at}) == 6
    changed = bytearray(original)
    changed[at[0] + 18] = 2                  # two attributes
    changed[at[1] + 20] |= 0x01              # HEAP_HASNULL
    changed[at[2] + 22] = 32                 # t_hoff (its chunk_id is read after it: a chunk missing from its value)
    changed[at[3] + 32] |= 0x02              # chunk_data's header: compressed
    changed[at[4] + 32] = 0x01               # ... a TOAST pointer
    struct.pack_into("<I", changed, lp_at[5], struct.unpack_from("<I", original, lp_at[5])[0] - (40 << 17))  # lp_len
    changed = bytes(changed)
    versions = [original, changed] + [damaged(original, rng, n) for n in (5, 50, 500)]
    sliced = 0
    for version in versions:
        toast.write_bytes(version)
        store = ToastStore(open_data_directory(tmp_path / "data").database("postgres").relation("t_many").toast,
                           cluster.clog, 1996)
        for inflate in (True, False):
            one = [_as_fetched(p, store._fetch_deformed(store._every_chunk(), p, inflate), inflate)
                   for p in pointers]   # every chunk tuple deformed
            calls = []
            fetch = store._fetch_deformed
            store._fetch_deformed = lambda places, p, inflate: calls.append(p) or fetch(places, p, inflate)
            many = list(store.fetch(pointers, inflate))
            del store._fetch_deformed
            assert all(_same_value(a, b) for a, b in zip(one, many)) and len(one) == len(many)
            sliced += len(pointers) - len(calls)
            if version is changed:   # the value of every chunk changed (and still filed under it): fetched alone
                assert {p.va_valueid for p in calls} == {struct.unpack_from("<I", changed, a + 24)[0]
                                                         for a in at[:2] + at[3:]}
            if version is original:
                assert not calls and all(isinstance(v, bytes) for v in many)
        if version is original:
            compressed = [v for p, v in zip(pointers, store.fetch(pointers, False)) if p.is_compressed]
            assert all(v[0] & 3 == 2 for v in compressed)     # as stored: the printer inflates them
    assert sliced > 1500


def test_live_int2vector_and_oidvector_equal_copy(live):
    """int2vector and oidvector columns (int2vectorout, oidvectorout: elements one space apart, no braces, an empty
    vector as nothing): the printer, declining none, and Python print the server's COPY byte for byte."""
    srv, conn = live
    conn.execute("CREATE TABLE t_vectors (id int, iv int2vector, ov oidvector)")
    values = [("1 2 3", "23 25"), ("", ""), ("0", "4294967295"), ("-1 32767", "0 1 2 3 4 5 6 7 8 9"), (None, None),
              (" ".join(str(v) for v in range(-50, 50)), "16384")]
    for i, (iv, ov) in enumerate(values):
        conn.execute("INSERT INTO t_vectors VALUES (%s, %s, %s)", (i, iv, ov))
    conn.execute("CHECKPOINT")
    cluster = open_data_directory(srv.data)
    rel = cluster.database("postgres").relation("t_vectors")
    got, _, printed, declined = kernel_csv(cluster, rel)
    want, _ = python_csv(cluster, rel)
    assert got == want == copy_csv(conn, "t_vectors")
    assert declined == 0 and printed == len(values)
