"""Heap tuple deforming, checked against a real server.

A session fixture starts Debian's PostgreSQL 15 (or every server named in PGPAGE_TEST_PG_BINDIRS,
colon-separated bin directories) in a temporary directory, socket only, and stops it afterwards.
Tables are built to hit every alignment, NULLs in odd places, short and long varlenas, inline
compression, TOAST pointers, dropped columns and fast ADD COLUMN defaults; then every tuple of every
page (``get_raw_page``) is deformed with the relation's attributes as *decoded from pg_attribute's
own pages* with ``versions.pg_attribute_layout``, and compared

* value by value with the server's own text (``col`` in a SELECT, ordered by ctid), and
* attribute by attribute with pageinspect's raw bytes (``heap_page_item_attrs``).

Other test modules import ``pg`` and the helpers from here (tests/decode has no __init__.py, so
pytest puts this directory on sys.path).
"""
from __future__ import annotations

import dataclasses
import json
import os
import struct
from pathlib import Path

import pytest

from pgpage.decode import datum, versions
from pgpage.decode.deform import (ERROR_STATUS, MISSING, NULL, VALUE, Attribute, decode_attr,
                                  deform_tuple, heap_oid_old)

import psycopg  # noqa: F401  (a test dependency: pip install -e .[test])

from livepg import Server as LiveServer  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BINDIR = "/usr/lib/postgresql/15/bin"


# ---------------------------------------------------------------------------------------------
# A throwaway server (tests/livepg.py), set up to print values the way the decoders render them
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Session:
    conn: object
    major: int


def _bindirs() -> list[str]:
    env = os.environ.get("PGPAGE_TEST_PG_BINDIRS")
    return [d for d in env.split(":") if d] if env else [DEFAULT_BINDIR]


@pytest.fixture(scope="session", params=_bindirs())
def pg(request):
    srv = LiveServer(Path(request.param))
    try:
        srv.start("fsync=off", "full_page_writes=off")
        conn = srv.connect()
        major = versions.major_from_pg_version(conn.execute("SHOW server_version_num").fetchone()[0])
        # before 12, extra_float_digits 3 is the setting that prints floats exactly (%.17g)
        efd = 1 if major >= 12 else 3
        for stmt in ("SET TimeZone = 'UTC'", "SET DateStyle = 'ISO'", "SET IntervalStyle = 'postgres'",
                     "SET bytea_output = 'hex'", f"SET extra_float_digits = {efd}", "CREATE EXTENSION pageinspect"):
            conn.execute(stmt)
        yield Session(conn, major)
        conn.close()
    finally:
        srv.stop("immediate")
        srv.remove()


# ---------------------------------------------------------------------------------------------
# Pages and tuple headers, with plain struct (the Kaitai parsers are another module's job)
# ---------------------------------------------------------------------------------------------

LP_NORMAL = 1
HEAP_HASNULL = 0x0001
HEAP_HASVARWIDTH = 0x0002
HEAP_HASEXTERNAL = 0x0004
HEAP_XMIN_COMMITTED = 0x0100
HEAP_XMIN_INVALID = 0x0200
HEAP_XMAX_INVALID = 0x0800


@dataclasses.dataclass
class Tup:
    blk: int
    lp: int
    data: bytes
    xmin: int
    xmax: int
    infomask2: int
    infomask: int
    hoff: int

    @property
    def natts(self):
        return self.infomask2 & 0x07FF

    @property
    def bitmap(self):
        if not self.infomask & HEAP_HASNULL:
            return None
        return self.data[23:23 + (self.natts + 7) // 8]

    @property
    def ctid(self):
        return f"({self.blk},{self.lp})"


def page_tuples(page: bytes, blk: int):
    """LP_NORMAL tuples of one heap page."""
    pd_lower = struct.unpack_from("<H", page, 12)[0]
    for i in range(max(0, min((pd_lower - 24) // 4, 2048))):
        w = struct.unpack_from("<I", page, 24 + 4 * i)[0]
        off, flags, ln = w & 0x7FFF, (w >> 15) & 3, w >> 17
        if flags != LP_NORMAL or ln < 23 or off + ln > len(page):
            continue
        t = page[off:off + ln]
        xmin, xmax = struct.unpack_from("<II", t, 0)
        im2, im, hoff = struct.unpack_from("<HHB", t, 18)
        yield Tup(blk, i + 1, t, xmin, xmax, im2, im, hoff)


def deform(t: Tup, attrs):
    return deform_tuple(t.data, t.hoff, t.natts, attrs, null_bitmap=t.bitmap,
                        hasvarwidth=bool(t.infomask & HEAP_HASVARWIDTH),
                        hasexternal=bool(t.infomask & HEAP_HASEXTERNAL))


def rel_pages(conn, rel: str) -> list[bytes]:
    nblocks = conn.execute("SELECT pg_relation_size(%s::regclass) / 8192", (rel,)).fetchone()[0]
    return [conn.execute("SELECT get_raw_page(%s, 'main', %s)", (rel, b)).fetchone()[0]
            for b in range(nblocks)]


def rel_tuples(conn, rel: str):
    out = []
    for blk, page in enumerate(rel_pages(conn, rel)):
        out.extend(page_tuples(page, blk))
    return out


def server_text_rows(conn, sql: str, params=()):
    """Rows of raw text as the server's output functions wrote them (no client-side parsing)."""
    cur = conn.execute(sql, params)
    res = cur.pgresult
    return [[None if (v := res.get_value(r, c)) is None else bytes(v).decode()
             for c in range(res.nfields)] for r in range(res.ntuples)]


def catalog_attributes(srv, relid: int) -> list[Attribute]:
    """A relation's attributes, read from pg_attribute's *pages* with versions' layout.

    The server only says which pg_attribute row versions are the live ones (their ctids); every
    field comes from the bytes, and is checked against the server's answer."""
    conn, major = srv.conn, srv.major
    layout = versions.pg_attribute_layout(major)
    live = server_text_rows(conn, "SELECT ctid::text, attname::text, atttypid::oid::text, "
                            "attlen, attalign, attbyval, attisdropped, "
                            "attnum FROM pg_attribute WHERE attrelid = %s AND attnum > 0 "
                            "ORDER BY attnum", (relid,))
    pages: dict[int, bytes] = {}
    attrs = []
    for ctid, name, typid, attlen, attalign, attbyval, dropped, attnum in live:
        blk, lp = map(int, ctid.strip("()").split(","))
        if blk not in pages:
            pages[blk] = conn.execute("SELECT get_raw_page('pg_attribute', 'main', %s)",
                                      (blk,)).fetchone()[0]
        t = next(x for x in page_tuples(pages[blk], blk) if x.lp == lp)
        d = deform(t, layout)
        assert d.ok, d.findings
        v = d.values(major=major)
        assert v["attname"] == name and str(v["atttypid"]) == typid
        assert (v["attlen"], v["attalign"], v["attbyval"]) == (int(attlen), attalign, attbyval == "t")
        assert v["attisdropped"] == (dropped == "t") and v["attnum"] == int(attnum)
        mv = d["attmissingval"] if "attmissingval" in v else None
        attrs.append(Attribute(v["attname"], v["atttypid"], v["attlen"], v["attalign"], v["attbyval"],
                               v["attisdropped"], bool(v.get("atthasmissing")),
                               mv.raw if mv is not None and mv.status == VALUE else None))
    return attrs


_REG_TYPES = {24, 2202, 2203, 2204, 2205, 2206, 3734, 3769, 4089, 4096, 4191}


def compare_relation(srv, rel: str):
    """Deform + decode every tuple of ``rel`` and compare with the server's text and with
    pageinspect's raw attribute bytes. Returns (values compared, raw attributes compared).

    Floats are compared as text from 12 on; before 12 the server prints them with a fixed number
    of digits (not the shortest exact form), so there they are compared by value."""
    conn, major = srv.conn, srv.major
    float_by_value = major < 12
    relid = conn.execute("SELECT %s::regclass::oid", (rel,)).fetchone()[0]
    attrs = catalog_attributes(srv, relid)
    cols = [(i, a) for i, a in enumerate(attrs) if not a.attisdropped and a.typid != 1034]
    select = ", ".join(f'"{a.name}"::oid' if a.typid in _REG_TYPES else f'"{a.name}"'
                       for _, a in cols)
    rows = {r[0]: r[1:] for r in server_text_rows(conn, f"SELECT ctid::text, {select} FROM {rel}")}
    n_values = n_raw = 0
    seen = set()
    for blk, page in enumerate(rel_pages(conn, rel)):
        raw_attrs = {lp: a for lp, a in conn.execute(
            "SELECT lp, t_attrs FROM heap_page_item_attrs(%s, %s::regclass) WHERE lp_flags = 1",
            (page, rel)).fetchall()}
        for t in page_tuples(page, blk):
            d = deform(t, attrs)
            assert d.ok and not d.findings, (t.ctid, d.findings)
            # raw bytes, every attribute (dropped ones included) against pageinspect
            expect_raw = raw_attrs[t.lp]
            for a, exp in zip(d.attrs, expect_raw):
                if a.status == VALUE:
                    assert a.raw == exp, (rel, t.ctid, a.name)
                else:
                    assert a.status in (NULL, MISSING) and exp is None, (rel, t.ctid, a.name)
                n_raw += 1
            if t.ctid not in rows:
                continue                               # a dead row version
            seen.add(t.ctid)
            for (i, a), server in zip(cols, rows[t.ctid]):
                value = _decoded(d.attrs[i], major)
                if isinstance(value, datum.ToastPointer):
                    continue                           # checked in test_storage_kinds_seen
                got = datum.to_pg_text(a.typid, value)
                if float_by_value and a.typid in (700, 701, 1021, 1022) and server and got:
                    f4 = a.typid in (700, 1021)
                    assert got == server or _floats(got, f4) == _floats(server, f4), \
                        (rel, t.ctid, a.name, got, server)
                else:
                    assert got == server, (rel, t.ctid, a.name, got, server)
                n_values += 1
    assert seen == set(rows), set(rows) - seen
    return n_values, n_raw


def _floats(text, float4=False):
    """Float text (or a float array's) as the exact binary values it stands for (a float4 read by strtof: through
    a double it can round to the neighbour, 7.038531e-26 does)."""
    if not float4:
        return [struct.pack("<d", float(x)) for x in text.strip("{}").split(",") if x != "NULL"]
    import ctypes
    strtof = ctypes.CDLL(None).strtof
    strtof.restype, strtof.argtypes = ctypes.c_float, [ctypes.c_char_p, ctypes.c_void_p]
    return [struct.pack("<f", strtof(x.encode(), None)) for x in text.strip("{}").split(",") if x != "NULL"]


def _decoded(a, major):
    return decode_attr(a, major=major)


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------

ALIGN_SQL = """
CREATE TABLE t_align (c1 bool, c2 int8, c3 "char", c4 int2, c5 text, c6 int4, c7 bool,
                      c8 float8, c9 text, c10 int2, c11 varchar, c12 int8, c13 "char",
                      c14 bytea, c15 timestamptz, c16 name, c17 bool, c18 interval, c19 int4);
INSERT INTO t_align
SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g % 2 = 0 END,
       CASE WHEN g % 5 = 1 THEN NULL ELSE g::int8 * 1000000007 END,
       CASE WHEN g % 11 = 3 THEN NULL ELSE chr(65 + g % 26)::"char" END,
       CASE WHEN g % 3 = 0 THEN NULL ELSE (g * 37 % 32767)::int2 END,
       CASE WHEN g % 4 = 0 THEN NULL WHEN g % 4 = 1 THEN '' WHEN g % 4 = 2 THEN repeat('x', g % 130)
            ELSE repeat(md5(g::text), 1 + g % 5) END,
       CASE WHEN g % 6 = 5 THEN NULL ELSE -g END,
       g % 3 = 1,
       CASE WHEN g % 9 = 2 THEN NULL ELSE g / 7.0 END,
       CASE WHEN g % 2 = 0 THEN NULL ELSE 'é' || g END,
       g::int2,
       CASE WHEN g % 8 = 0 THEN NULL ELSE repeat('v', g % 200) END,
       CASE WHEN g % 10 = 0 THEN NULL ELSE -g * 99991 END,
       'z',
       CASE WHEN g % 3 = 2 THEN NULL ELSE decode(repeat(to_hex(g), 1 + g % 70), 'escape') END,
       CASE WHEN g % 5 = 0 THEN NULL ELSE timestamptz '2001-02-03 04:05:06.789+00' + g * interval '17 hours 3.25 seconds' END,
       CASE WHEN g % 7 = 1 THEN NULL ELSE 'name_' || g END,
       CASE WHEN g % 2 = 1 THEN NULL ELSE true END,
       CASE WHEN g % 4 = 3 THEN NULL ELSE g * interval '1 day 3 hours 0.5 seconds' END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g END
FROM generate_series(1, 400) g;
-- a row of all NULLs and a row with none
INSERT INTO t_align VALUES (NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO t_align VALUES (true, 1, 'a', 2, 'b', 3, false, 4.5, 'c', 5, 'd', 6, 'e', '\\x00ff', '2020-01-01', 'n', true, '1 second', 7);
"""

STORAGE_SQL = """
CREATE TABLE t_storage (id int, m text, x text, e text, b bytea, n int8);
ALTER TABLE t_storage ALTER COLUMN m SET STORAGE main;
ALTER TABLE t_storage ALTER COLUMN b SET STORAGE main;
INSERT INTO t_storage
SELECT g,
       CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('compressible ' || g, 40 + g * 3) END,
       CASE WHEN g % 3 = 0 THEN (SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 80) i)
            WHEN g % 3 = 1 THEN repeat('toast me ', 500 + g)
            ELSE 'short' END,
       CASE WHEN g % 4 = 0 THEN 'tiny' ELSE repeat('y', 100 + g) END,
       CASE WHEN g % 2 = 0 THEN NULL ELSE decode(repeat('abcd', 300 + g), 'hex') END,
       g
FROM generate_series(1, 60) g;
"""

DROP_SQL = """
CREATE TABLE t_drop (a int, b text, c int8, d text, e bool);
INSERT INTO t_drop SELECT g, 'b' || g, g * 10, CASE WHEN g % 3 = 0 THEN NULL ELSE repeat('d', g) END,
       g % 2 = 0 FROM generate_series(1, 50) g;
ALTER TABLE t_drop DROP COLUMN b;
INSERT INTO t_drop (a, c, d, e) SELECT g, g * 10, 'after drop', NULL FROM generate_series(51, 60) g;
ALTER TABLE t_drop ADD COLUMN f int DEFAULT 42;
ALTER TABLE t_drop ADD COLUMN g text DEFAULT 'missing default';
ALTER TABLE t_drop ADD COLUMN h int8;
ALTER TABLE t_drop ADD COLUMN i timestamptz DEFAULT '1999-12-31 23:59:59.5+00';
ALTER TABLE t_drop ADD COLUMN j numeric DEFAULT 3.14159;
INSERT INTO t_drop (a, c, f, g) SELECT g, g, NULL, CASE WHEN g % 2 = 0 THEN 'set' END FROM generate_series(61, 70) g;
ALTER TABLE t_drop DROP COLUMN d;
UPDATE t_drop SET e = true WHERE a % 10 = 0;
"""

WIDE_SQL = """
CREATE TABLE t_wide (""" + ", ".join(f"w{i} int" for i in range(1, 41)) + """);
INSERT INTO t_wide SELECT """ + ", ".join(
    f"CASE WHEN (g + {i}) % {2 + i % 5} = 0 THEN NULL ELSE g * {i} END" for i in range(1, 41)) + """
FROM generate_series(1, 30) g;
"""


@pytest.fixture(scope="session")
def tables(pg):
    conn = pg.conn
    conn.execute(ALIGN_SQL)
    conn.execute(STORAGE_SQL)
    conn.execute(DROP_SQL)
    conn.execute(WIDE_SQL)
    conn.execute("CHECKPOINT")
    return pg


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

CATALOGS = versions.CATALOGS_WITH_LAYOUT


def test_catalog_layouts_match_live_server(pg):
    conn, major = pg.conn, pg.major
    n = 0
    for cat in CATALOGS:
        rows = conn.execute(
            "SELECT attname::text, atttypid::int, attlen, attalign::text, attbyval FROM pg_attribute "
            "WHERE attrelid = %s AND attnum > 0 ORDER BY attnum", (versions.CATALOG_OIDS[cat],)).fetchall()
        assert [tuple(c) for c in versions.catalog_columns(cat, major)] == [tuple(r) for r in rows], cat
        n += len(rows)
    assert n > 100


def _catalog_live_rows(conn, cat):
    return {r[0]: r[1:] for r in server_text_rows(conn, f"SELECT ctid::text, * FROM {cat}")}


def test_catalogs_decode_like_server(pg):
    """Every row of the eight catalogs, read with versions' layouts, equals the server's text
    (aclitem[] and anyarray columns excepted: the first is not decoded, the second is compared
    in test_missing_and_dropped)."""
    conn, major = pg.conn, pg.major
    compared = 0
    for cat in CATALOGS:
        layout = versions.catalog_columns(cat, major)
        has_oid_col = versions.catalog_has_oid_system_column(cat, major)
        cols = ", ".join(
            f"{c.name}::oid" if c.typid in _REG_TYPES else c.name for c in layout)
        oid_sel = "oid::text, " if has_oid_col else ""
        rows = {r[0]: r[1:] for r in server_text_rows(
            conn, f"SELECT ctid::text, {oid_sel}{cols} FROM {cat}")}
        seen = 0
        for t in rel_tuples(conn, cat):
            if t.ctid not in rows:
                continue
            seen += 1
            d = deform(t, layout)
            assert d.ok and not d.findings, (cat, t.ctid, d.findings)
            server = rows[t.ctid]
            if has_oid_col:
                assert str(heap_oid_old(t.data, t.hoff, t.infomask)) == server[0]
                server = server[1:]
            for col, a, text in zip(layout, d.attrs, server):
                if col.typid in (1034, 2277):
                    continue
                got = datum.to_pg_text(col.typid, datum.decode_datum(col.typid, a.raw, major=major)
                                       if a.raw is not None else None)
                if col.typid == 700 and major < 12:
                    assert float(got) == float(text), (cat, t.ctid, col.name, got, text)
                else:
                    assert got == text, (cat, t.ctid, col.name, got, text)
                compared += 1
        assert seen == len(rows), cat
    assert compared > 10000


def test_user_tables_match_server(tables):
    total_values = total_raw = 0
    for rel in ("t_align", "t_storage", "t_drop", "t_wide"):
        nv, nr = compare_relation(tables, rel)
        assert nv > 0 and nr > 0
        total_values += nv
        total_raw += nr
    assert total_values > 9000


def test_storage_kinds_seen(tables):
    """The storage table really holds every varlena kind, and TOAST pointers describe the value."""
    conn, major = tables.conn, tables.major
    relid = conn.execute("SELECT 't_storage'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(tables, relid)
    toastrel = conn.execute("SELECT reltoastrelid::int FROM pg_class WHERE oid = %s", (relid,)).fetchone()[0]
    chunk_ids = {r[0] for r in conn.execute(f"SELECT DISTINCT chunk_id::int FROM pg_toast.pg_toast_{relid}")}
    lengths = {r[0]: r[1:] for r in server_text_rows(
        conn, "SELECT ctid::text, octet_length(m), octet_length(x), octet_length(e), octet_length(b) FROM t_storage")}
    kinds = set()
    for t in rel_tuples(conn, "t_storage"):
        d = deform(t, attrs)
        for a, n in zip(d.attrs[1:5], lengths[t.ctid]):
            if a.varlena is None:
                continue
            kinds.add(a.varlena.kind)
            if a.varlena.kind == datum.EXTERNAL:
                tp = a.varlena.toast
                assert tp.va_toastrelid == toastrel and tp.va_valueid in chunk_ids
                assert tp.va_rawsize == int(n) + 4
                v = datum.decode_datum(a.typid, a.raw, major=major)
                assert isinstance(v, datum.ToastPointer) and datum.to_json(v)["toast"]["va_valueid"] == tp.va_valueid
            elif a.varlena.kind == datum.COMPRESSED:
                assert a.varlena.rawsize == int(n) and a.varlena.compression == "pglz"
    assert kinds == {datum.PLAIN, datum.SHORT, datum.COMPRESSED, datum.EXTERNAL}


def test_missing_and_dropped(tables):
    conn, major = tables.conn, tables.major
    relid = conn.execute("SELECT 't_drop'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(tables, relid)
    assert [a.attisdropped for a in attrs] == [False, True, False, True, False] + [False] * 5
    # attmissingval as decoded from pg_attribute's pages equals the server's text
    server_mv = dict(conn.execute("SELECT attname::text, attmissingval::text FROM pg_attribute "
                                  "WHERE attrelid = %s AND attnum > 0", (relid,)).fetchall()
                     if major >= 11 else [])
    for a in attrs:
        if a.attmissingval is not None:
            v = datum.decode_datum(2277, a.attmissingval, major=major)
            assert datum.to_pg_text(2277, v) == server_mv[a.name]
    # fast ADD COLUMN ... DEFAULT (atthasmissing) exists from 11; 10 rewrites the table instead
    assert sum(a.atthasmissing for a in attrs) == (4 if major >= 11 else 0)
    statuses = {MISSING: 0, VALUE: 0, NULL: 0}
    for t in rel_tuples(conn, "t_drop"):
        for a in deform(t, attrs).attrs:
            statuses[a.status] += 1
    assert statuses[VALUE] and statuses[NULL] and (statuses[MISSING] or major < 11)


def test_mutated_tuples_never_escape(tables):
    """Truncate and corrupt real tuples: every outcome is a structured result; nothing is read
    past the bytes given (the slices prove it) and no exception escapes."""
    conn = tables.conn
    relid = conn.execute("SELECT 't_align'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(tables, relid)
    tuples = rel_tuples(conn, "t_align")[:40]
    errors = 0
    for t in tuples:
        for cut in range(0, len(t.data), 3):
            d = deform_tuple(t.data[:cut], t.hoff, t.natts, attrs, null_bitmap=t.bitmap)
            assert len(d.attrs) == len(attrs)
            for a in d.attrs:
                if a.status == VALUE:
                    assert a.offset + len(a.raw) <= cut
            if not d.ok:
                errors += 1
                bad = [a for a in d.attrs if a.status == ERROR_STATUS]
                assert bad and bad[0].error.code.startswith(("heap.deform.", "datum.varlena."))
                for f in d.findings:
                    assert f.code and f.message
                    json.dumps(f.to_json())
        # t_hoff garbage
        for hoff in (0, 22, len(t.data) + 1, 255):
            d = deform_tuple(t.data, hoff, t.natts, attrs, null_bitmap=t.bitmap)
            assert not d.ok or hoff <= len(t.data)
        # natts larger than the descriptor, bitmap too short
        d = deform_tuple(t.data, t.hoff, len(attrs) + 5, attrs, null_bitmap=b"")
        assert not d.ok or t.bitmap is None
    assert errors > 100


def _compiled(data: bytes, hoff: int, natts: int, hasnull: bool, attrs):
    """kernels.deform_offsets on one tuple: (ok, pos, len)."""
    import numpy as np
    from pgpage.decode import kernels
    from pgpage.decode.datum import ATTALIGN_BYTES
    ok, pos, lens = kernels.deform_offsets(
        np.frombuffer(data, dtype=np.uint8).copy() if data else np.zeros(1, dtype=np.uint8), [0], [len(data)],
        [hoff], [natts], [hasnull], np.array([a.attlen for a in attrs], dtype=np.int64),
        np.array([ATTALIGN_BYTES.get(a.attalign, 1) for a in attrs], dtype=np.int64))
    return bool(ok[0]), pos[0].tolist(), lens[0].tolist()


def test_compiled_offsets_agree_with_deform(tables):
    """The compiled walk the catalog reader takes (kernels.deform_offsets) puts every attribute where
    deform_tuple does, on every tuple of the user tables and the catalogs (every alignment, NULLs, short,
    long, compressed and TOAST-pointer varlenas, dropped and missing columns) and on each of them cut short
    or given a wrong t_hoff; it refuses a tuple only where deform_tuple reports something or a column needs
    more than an offset (a TOAST pointer, a missing value), and never accepts one deform_tuple reports on."""
    from pgpage.decode.datum import EXTERNAL
    conn = tables.conn
    cases = []
    for rel in ("t_align", "t_storage", "t_drop", "t_wide", "pg_class", "pg_attribute", "pg_type"):
        relid = conn.execute("SELECT %s::regclass::oid", (rel,)).fetchone()[0]
        attrs = catalog_attributes(tables, relid)
        for k, t in enumerate(rel_tuples(conn, rel)):
            hasnull = bool(t.infomask & HEAP_HASNULL)
            cases.append((t.data, t.hoff, t.natts, hasnull, attrs))
            if k < 150:
                cases += [(t.data[:cut], t.hoff, t.natts, hasnull, attrs) for cut in range(t.hoff, len(t.data), 5)]
                cases.append((t.data, t.hoff + 8, t.natts, hasnull, attrs))
    accepted = refused_clean = 0
    for data, hoff, natts, hasnull, attrs in cases:
        ok, pos, lens = _compiled(data, hoff, natts, hasnull, attrs)
        d = deform_tuple(data, hoff, natts, attrs, null_bitmap=data[23:hoff] if hasnull else None)
        if ok:
            accepted += 1
            assert not d.findings and all(a.status in (VALUE, NULL) for a in d.attrs)
            assert pos == [a.offset if a.status == VALUE else -1 for a in d.attrs]
            assert [n for n, p in zip(lens, pos) if p >= 0] == [len(a.raw) for a in d.attrs if a.status == VALUE]
        elif not d.findings:
            refused_clean += 1
            assert any(a.status == MISSING or (a.varlena is not None and a.varlena.kind == EXTERNAL)
                       for a in d.attrs)
    assert accepted > 2000 and refused_clean > 10 and len(cases) - accepted > 2000


def test_random_bytes_hypothesis(tables):
    import hypothesis
    from hypothesis import given, settings, strategies as st

    conn = tables.conn
    relid = conn.execute("SELECT 't_storage'::regclass::oid").fetchone()[0]
    attrs = catalog_attributes(tables, relid) + [
        Attribute("cs", 2275, -2, "c", False), Attribute("u", 2950, 16, "c", False)]

    @settings(max_examples=150, deadline=None)
    @given(st.binary(min_size=0, max_size=300), st.integers(0, 64), st.integers(0, 20),
           st.one_of(st.none(), st.binary(max_size=3)))
    def run(data, hoff, natts, bitmap):
        d = deform_tuple(data, hoff, natts, attrs, null_bitmap=bitmap, hasvarwidth=True)
        for a in d.attrs:
            if a.status == VALUE:
                assert a.offset + len(a.raw) <= len(data)
                v = datum.decode_datum(a.typid, a.raw, attlen=a.attlen)
                datum.to_pg_text(a.typid, v)
                json.dumps(datum.to_json(v))
    run()


# ---------------------------------------------------------------------------------------------
# Real fixture clusters (fixtures/pg<MAJOR>/), committed by the fixtures work
# ---------------------------------------------------------------------------------------------

def _fixture_majors():
    root = Path(os.environ.get("PGPAGE_FIXTURES", REPO / "fixtures"))
    if not root.is_dir():
        return []
    out = []
    for p in sorted(root.glob("pg*")):
        if (p / "oracle" / "catalog.json").is_file() and (p / "data").is_dir() and p.name[2:].isdigit():
            out.append(int(p.name[2:]))
    return out


def read_relation_file(path: Path) -> list[bytes]:
    """All blocks of a relation's main fork, across 1 GiB segments."""
    pages = []
    seg = 0
    while True:
        p = path if seg == 0 else path.with_name(f"{path.name}.{seg}")
        if not p.exists():
            break
        data = p.read_bytes()
        pages.extend(data[i:i + 8192] for i in range(0, len(data) - 8191, 8192))
        seg += 1
    return pages


def read_filenode_map(path: Path) -> dict[int, int]:
    """pg_filenode.map: oid -> filenode (magic, count, then (oid, filenode) pairs)."""
    data = path.read_bytes()
    magic, num = struct.unpack_from("<ii", data, 0)
    assert magic == 0x592717
    return {struct.unpack_from("<I", data, 8 + 8 * i)[0]: struct.unpack_from("<I", data, 12 + 8 * i)[0]
            for i in range(min(num, 64))}


HEAP_XMAX_COMMITTED = 0x0400
HEAP_XMAX_LOCK_ONLY = 0x0080
HEAP_XMAX_EXCL_LOCK = 0x0040
HEAP_XMAX_KEYSHR_LOCK = 0x0010
HEAP_XMAX_IS_MULTI = 0x1000


def _xmax_is_lock_only(infomask: int) -> bool:
    # HEAP_XMAX_IS_LOCKED_ONLY (htup_details.h)
    return bool(infomask & HEAP_XMAX_LOCK_ONLY) or (
        not infomask & HEAP_XMAX_IS_MULTI
        and infomask & (HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK) == HEAP_XMAX_EXCL_LOCK)


def live_rows(tuples, attrs, key):
    # ``tuples``: Tup objects, or (Tup, DeformedTuple) pairs already deformed with ``attrs``
    """Pick the live version of each catalog row, from hint bits and row versions alone.

    Deliberately simple (real visibility, with pg_xact, belongs to another module):
    * a version whose inserter is known aborted (HEAP_XMIN_INVALID without HEAP_XMIN_COMMITTED,
      i.e. not frozen) is dead;
    * a version with a real deleter (xmax set, HEAP_XMAX_INVALID clear, not lock-only) is dead if
      the deleter is known committed (HEAP_XMAX_COMMITTED), or, unhinted, if a newer version of
      the same row exists (another version of the same key inserted by that very xmax);
    * of what is left for one key, a version with HEAP_XMIN_COMMITTED beats an unhinted one, then
      the higher xmin wins. Unhinted inserters are taken as committed.
    """
    versions_by_key: dict = {}
    for item in tuples:
        t, d = item if isinstance(item, tuple) else (item, None)
        if t.infomask & HEAP_XMIN_INVALID and not t.infomask & HEAP_XMIN_COMMITTED:
            continue
        d = d or deform(t, attrs)
        if not d.ok:
            continue
        versions_by_key.setdefault(key(t, d), []).append((t, d))
    out = {}
    for k, vs in versions_by_key.items():
        xmins = {t.xmin for t, _ in vs}
        live = []
        for t, d in vs:
            deleter = (t.xmax != 0 and not t.infomask & HEAP_XMAX_INVALID
                       and not _xmax_is_lock_only(t.infomask))
            if deleter and (t.infomask & HEAP_XMAX_COMMITTED or t.xmax in xmins):
                continue
            live.append((t, d))
        if live:
            t, d = max(live, key=lambda v: (bool(v[0].infomask & HEAP_XMIN_COMMITTED), v[0].xmin))
            out[k] = (t, d)
    return out


def _catalog_rows(major, path: Path, catalog: str):
    """Live rows of one catalog file, decoded with versions' layout: {oid (or key): values}."""
    layout = versions.catalog_columns(catalog, major)
    old_oids = versions.catalog_has_oid_system_column(catalog, major)
    tuples = [t for b, p in enumerate(read_relation_file(path)) for t in page_tuples(p, b)]
    pairs = []
    for t in tuples:                       # every version of every row deforms cleanly
        d = deform(t, layout)
        assert d.ok and not d.findings, (catalog, t.ctid, d.findings)
        pairs.append((t, d))

    def key(t, d):
        if catalog == "pg_attribute":
            return (decode_attr(d["attrelid"]), decode_attr(d["attnum"]))
        if catalog == "pg_index":
            return decode_attr(d["indexrelid"])
        return heap_oid_old(t.data, t.hoff, t.infomask) if old_oids else decode_attr(d["oid"])

    return {k: d.values(major=major) for k, (t, d) in live_rows(pairs, layout, key).items()}


def _fixtures_root() -> Path:
    return Path(os.environ.get("PGPAGE_FIXTURES", REPO / "fixtures"))


@pytest.mark.parametrize("major", _fixture_majors() or [pytest.param(0, marks=pytest.mark.skip(
    reason="no fixture clusters under fixtures/ yet"))])
def test_fixture_catalogs(major):
    """Offline, from the committed files only: pg_class and pg_attribute (found through
    pg_filenode.map) decoded with versions' layouts find every relation of the oracle with its
    oid, relname, relkind, relfilenode (or mapped filenode = the oracle's file path) and relnatts
    attribute rows; pg_index, pg_database and the other kept catalogs decode to the oracle too."""
    base = _fixtures_root() / f"pg{major}"
    oracle = json.loads((base / "oracle" / "catalog.json").read_text())
    data = base / "data"
    assert versions.major_from_pg_version((data / "PG_VERSION").read_text()) == major
    db_oid = oracle["database_oid"]
    dbdir = data / "base" / str(db_oid)
    dbmap = read_filenode_map(dbdir / "pg_filenode.map")
    globalmap = read_filenode_map(data / "global" / "pg_filenode.map")

    classes = _catalog_rows(major, dbdir / str(dbmap[versions.PG_CLASS_OID]), "pg_class")
    attrs = _catalog_rows(major, dbdir / str(dbmap[versions.PG_ATTRIBUTE_OID]), "pg_attribute")

    def file_of(oid: int, v: dict) -> str:
        if v["relfilenode"]:
            return str(v["relfilenode"])
        return str((globalmap if v["relisshared"] else dbmap)[oid])

    checked = 0
    for rel in oracle["relations"]:
        v = classes.get(rel["oid"])
        assert v is not None, rel["relname"]
        assert (v["relname"], v["relkind"], v["relfilenode"]) == \
            (rel["relname"], rel["relkind"], rel["relfilenode"]), rel["relname"]
        assert rel["filepath"].endswith("/" + file_of(rel["oid"], v)), rel
        assert v["relnatts"] == rel["relnatts"]
        for n in range(1, v["relnatts"] + 1):
            a = attrs.get((rel["oid"], n))
            assert a is not None and a["attrelid"] == rel["oid"], (rel["relname"], n)
        assert (rel["oid"], v["relnatts"] + 1) not in attrs
        checked += 1
    assert checked == len(oracle["relations"]) > 10

    # the other kept catalogs, through pg_class's filenode (or the maps), with the fallback layouts
    files = {v["relname"]: (data / rel["filepath"]) for rel in oracle["relations"]
             for v in [classes[rel["oid"]]] if v["relnamespace"] == versions.NAMESPACE_OIDS["pg_catalog"]}
    index = _catalog_rows(major, files["pg_index"], "pg_index")
    for want in oracle["indexes"]:
        got = index[want["indexrelid"]]
        for k, val in want.items():
            assert got[k] == val, (want["indexrelid"], k)
        assert len(got["indkey"]) == got["indnatts"] and len(got["indclass"]) == got["indnkeyatts" if
                                                                                    major >= 11 else "indnatts"]
    dbs = _catalog_rows(major, files["pg_database"], "pg_database")
    for want in oracle["pg_database"]:
        got = dbs[want["oid"]]
        for k, val in want.items():
            if k != "oid":
                assert got[k] == val, k
    nsp = _catalog_rows(major, files["pg_namespace"], "pg_namespace")
    assert {nsp[o]["nspname"] for o in versions.NAMESPACE_OIDS.values()} == set(versions.NAMESPACE_OIDS)
    am = _catalog_rows(major, files["pg_am"], "pg_am")
    assert {"heap", "btree"} <= {v["amname"] for v in am.values()} or major < 12
    assert {"btree", "hash", "gist", "gin", "spgist", "brin"} <= {v["amname"] for v in am.values()}
    types = _catalog_rows(major, files["pg_type"], "pg_type")
    assert types[23]["typname"] == "int4" and types[23]["typlen"] == 4
    spc = _catalog_rows(major, files["pg_tablespace"], "pg_tablespace")
    assert {spc[o]["spcname"] for o in versions.TABLESPACE_OIDS.values()} == set(versions.TABLESPACE_OIDS)
