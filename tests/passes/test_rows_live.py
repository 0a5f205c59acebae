"""`pgpage rows` on the data directory of a running server, against the server's own text.

A throwaway PostgreSQL (tests/livepg.py) gets a table of user-defined types (an enum with a label added
out of order, a domain, a range over float8, arrays of them), values in and out of TOAST, a dropped and
an added column, then updates, deletes and an aborted insert; after a CHECKPOINT every value pgpage
reads from the files must equal ``col::text``, its CSV must equal ``COPY ... (FORMAT csv, HEADER)`` byte
for byte, and deleted versions must carry the values they had before the delete. A transaction left
open while the files are read is in progress: its rows are not returned, the row it deletes is.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from livepg import running_server

from pgpage.passes.rows import RowOptions, TableRows
from pgpage.storage.datadir import open_data_directory

ZONE = "Europe/Lisbon"


def server_text(conn, sql: str, params=()):
    """Rows of raw text as the server's output functions wrote them (no client-side parsing)."""
    res = conn.execute(sql, params).pgresult
    return [[None if (v := res.get_value(r, c)) is None else bytes(v).decode()
             for c in range(res.nfields)] for r in range(res.ntuples)]


@pytest.fixture(scope="module")
def server():
    with running_server() as srv:
        conn = srv.connect()
        conn.execute(f"ALTER SYSTEM SET timezone = '{ZONE}'")
        conn.execute("SELECT pg_reload_conf()")
        conn.close()
        conn = srv.connect()
        assert conn.execute("SHOW timezone").fetchone()[0] == ZONE
        for stmt in (
            "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
            "ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'",        # its oid sorts after 'happy'
            "CREATE DOMAIN posint AS int CHECK (VALUE > 0)",
            "CREATE DOMAIN shorttext AS varchar(20)",
            "CREATE TYPE floatrange AS RANGE (subtype = float8)",
            "CREATE EXTENSION hstore",                            # a type pgpage does not decode
            "CREATE TABLE t_rows (id int, m mood, gone text, d posint, s shorttext, ms mood[], fr floatrange,"
            " frs floatrange[], ts timestamptz, tsa timestamptz[], big text, h hstore)",
            "ALTER TABLE t_rows ALTER COLUMN big SET STORAGE external",
        ):
            conn.execute(stmt)
        conn.execute("""INSERT INTO t_rows SELECT g, (ARRAY['sad','meh','ok','happy'])[g % 4 + 1]::mood,
                        'x' || g, g, 's' || g, ARRAY['happy', NULL, 'meh']::mood[],
                        CASE g % 3 WHEN 0 THEN 'empty' WHEN 1 THEN '[1.5,2.25)' ELSE '(,3e100]' END::floatrange,
                        ARRAY['[1,2]'::floatrange, 'empty'],
                        timestamptz '1890-07-01 12:00+00' + g * interval '7 years 11 days 3 hours',
                        ARRAY[timestamptz '2000-06-01 00:00+00', NULL, 'infinity'],
                        CASE WHEN g % 5 = 0 THEN (SELECT string_agg(md5(g::text || i::text), '')
                                                  FROM generate_series(1, 200) i) END,
                        CASE WHEN g % 2 = 0 THEN hstore('k', g::text) END
                        FROM generate_series(1, 60) g""")
        conn.execute("ALTER TABLE t_rows DROP COLUMN gone")
        conn.execute("ALTER TABLE t_rows ADD COLUMN added int DEFAULT 7")
        conn.execute("ALTER TABLE t_rows ADD COLUMN note text DEFAULT 'late'")
        conn.execute("INSERT INTO t_rows (id, m, added, note) VALUES (100, 'ok', NULL, NULL), (101, 'sad', 1, 'x')")
        before = {r[0]: r for r in server_text(conn, "SELECT id::text, ctid::text, m::text, d::text, big::text"
                                                      " FROM t_rows")}
        # one transaction: a scan after a committed delete may prune the page (heap_page_prune_opt), and the
        # versions this test is about would be gone from the files
        with conn.transaction():
            conn.execute("UPDATE t_rows SET d = d + 1000 WHERE id % 10 = 1")
            conn.execute("DELETE FROM t_rows WHERE id % 10 = 5")             # deletes TOASTed values too
        with pytest.raises(Exception):
            with conn.transaction():
                conn.execute("INSERT INTO t_rows (id) VALUES (500), (501)")
                raise RuntimeError("roll back")
        conn.execute("CHECKPOINT")
        yield srv, conn, before
        conn.close()


def read_rows(srv, **options):
    cluster = open_data_directory(srv.data)
    table = TableRows(cluster, cluster.database("postgres").relation("t_rows"), RowOptions(**options))
    return table, list(table)


def test_values_equal_the_servers_text(server):
    srv, conn, _ = server
    table, rows = read_rows(srv)
    names = table.column_names
    assert names == ["id", "m", "d", "s", "ms", "fr", "frs", "ts", "tsa", "big", "h", "added", "note"]
    assert table.timezone == ZONE
    want = server_text(conn, "SELECT ctid::text, " + ", ".join(f"{n}::text" for n in names if n != "h")
                       + " FROM t_rows ORDER BY t_rows.ctid")
    assert [r.ctid for r in rows] == [w[0] for w in want]
    h = names.index("h")
    compared = 0
    for r, w in zip(rows, want):
        got = r.values[:h] + r.values[h + 1:]
        assert got == w[1:], r.ctid
        compared += len(got)
    assert compared == 56 * 12          # 62 rows, 6 deleted
    # the extension's type: its bytes in hex, and one finding saying so
    hexes = [r.values[h] for r in rows if r.values[h] is not None]
    assert hexes and all(v.startswith("\\x") for v in hexes)
    assert [f.code for f in table.findings] == ["rows.type.not_decoded"]


def test_csv_equals_copy(server):
    srv, conn, _ = server
    with conn.cursor().copy("COPY t_rows (id, m, d, s, ms, fr, frs, ts, tsa, big, added, note)"
                            " TO STDOUT (FORMAT csv, HEADER)") as copy:
        want = b"".join(bytes(b) for b in copy).decode()
    r = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(srv.data), "--db", "postgres", "--rel",
                        "t_rows", "--csv", "--columns", "id,m,d,s,ms,fr,frs,ts,tsa,big,added,note"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


def test_all_versions_keep_what_was_deleted(server):
    srv, conn, before = server
    table, rows = read_rows(srv, all_versions=True)
    by_status: dict[str, list] = {}
    for r in rows:
        by_status.setdefault(r.status, []).append(r)
    deleted = {r.values[0]: r for r in by_status["deleted"]}
    assert sorted(deleted, key=int) == [str(i) for i in range(5, 61, 10)]
    for key, r in deleted.items():
        assert [r.ctid, r.values[1], r.values[2], r.values[9]] == before[key][1:]   # big: reassembled from TOAST
    updated = by_status["updated"]
    assert sorted(r.values[0] for r in updated) == sorted(k for k in before if int(k) % 10 == 1)
    assert all(r.values[2] == before[r.values[0]][3] for r in updated)               # the old d
    assert sorted(r.values[0] for r in by_status["aborted"]) == ["500", "501"]
    assert not table.findings or [f.code for f in table.findings] == ["rows.type.not_decoded"]


def test_a_transaction_in_progress(server):
    srv, conn, _ = server
    other = srv.connect()
    try:
        other.autocommit = False
        other.execute("INSERT INTO t_rows (id) VALUES (900)")
        other.execute("DELETE FROM t_rows WHERE id = 2")
        conn.execute("CHECKPOINT")                       # the uncommitted versions reach the files
        _, live = read_rows(srv)
        ids = [r.values[0] for r in live]
        assert "900" not in ids and "2" in ids
        _, every = read_rows(srv, all_versions=True)
        mine = [r for r in every if r.values[0] == "900"]
        assert [r.status for r in mine] == ["in_progress"]
        two = [r for r in every if r.values[0] == "2"]
        assert [(r.status, r.xmax_status) for r in two] == [("live", "in progress")]
    finally:
        other.rollback()
        other.close()
