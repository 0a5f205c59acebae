"""`pgpage dump`'s oracle (issue 40): the dump of each fixture cluster (fixtures/dump/pgNN, made by
fixtures/make_dump.py) restores with `psql -v ON_ERROR_STOP=1 -f` into an empty database of a fresh server of the
same major, and the restored database, described by the same queries as the original was
(``tests/dump_oracle.capture``), equals the original object by object; on 15, Debian's `pg_dump --schema-only` of
the restored database equals the one of the original stored with the fixture.

One server per major, started once for the module and reused by its tests (each in a database of its own).
"""
from __future__ import annotations

import difflib
import gzip
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, REQUIRED_MAJORS

sys.path.insert(0, str(REPO / "tests"))
from dump_oracle import capture  # noqa: E402
from livepg import Server, major_bindir  # noqa: E402

DUMPS = FIXTURES / "dump"
MAJORS = sorted(REQUIRED_MAJORS)     # (a major whose fixture is missing fails: fixtures/make_dump.py makes it)
DB = "dumpdb"
PSQL = Path("/usr/lib/postgresql/15/bin/psql")        # (the npm builds have no client; 15's talks to 10-18)
PG_DUMP = Path("/usr/lib/postgresql/15/bin/pg_dump")


def pgpage(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=600)


class Restore:
    """A major's fixture unpacked and a server of that major to restore dumps into."""

    def __init__(self, major: int, work: Path):
        self.major, self.work = major, work
        with tarfile.open(DUMPS / f"pg{major}" / "data.tar.xz") as tf:
            tf.extractall(work, filter="data")
        self.data = work / "data"
        with gzip.open(DUMPS / f"pg{major}" / "oracle.json.gz") as f:
            self.oracle = json.load(f)
        self.server = Server(major_bindir(major))
        self.server.start()
        self.databases = 0

    def dump(self, *options: str) -> tuple[Path, subprocess.CompletedProcess]:
        out = self.work / f"dump{len(list(self.work.glob('*.sql')))}.sql"
        return out, pgpage("dump", str(self.data), "--db", DB, "-o", str(out), *options)

    def psql(self, database: str, script: Path) -> subprocess.CompletedProcess:
        shutil.chown(script, "postgres") if self.server.user else None
        cmd = [str(PSQL), "-X", "-q", "-h", str(self.server.root), "-U", "postgres", "-d", database,
               "-v", "ON_ERROR_STOP=1", "-f", str(script)]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

    def new_database(self, name: str = DB) -> str:
        """An empty database (``name`` once: the oracle's columns carry the database's name)."""
        with self.server.connect() as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}"')
            c.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return name

    def objects(self, database: str) -> dict:
        with self.server.connect(database) as c:
            c.execute("SET search_path = public")
            return capture(lambda sql: [tuple(r) for r in c.execute(sql).fetchall()])["objects"]

    def close(self) -> None:
        self.server.stop("immediate")
        self.server.remove()


@pytest.fixture(scope="module", params=MAJORS, ids=[f"pg{m}" for m in MAJORS])
def restore(request, tmp_path_factory):
    r = Restore(request.param, tmp_path_factory.mktemp(f"dump{request.param}"))
    yield r
    r.close()


@pytest.fixture(scope="module")
def restored(restore):
    """The whole dump of the fixture, restored into database dumpdb: (dump, pgpage's result, psql's result)."""
    script, result = restore.dump()
    restore.new_database()
    return script, result, restore.psql(DB, script)


def differences(expected: dict, actual: dict) -> list[str]:
    """Object by object: what is missing, extra, or different (as a unified diff of the object's JSON)."""
    out = []
    for kind in sorted(set(expected) | set(actual)):
        want, got = expected.get(kind, {}), actual.get(kind, {})
        for key in sorted(set(want) | set(got)):
            if key not in got:
                out.append(f"{kind} {key}: missing from the restored database")
            elif key not in want:
                out.append(f"{kind} {key}: not in the original")
            elif want[key] != got[key]:
                a = json.dumps(want[key], indent=1, sort_keys=True).splitlines()
                b = json.dumps(got[key], indent=1, sort_keys=True).splitlines()
                out.append(f"{kind} {key}:\n" + "\n".join(difflib.unified_diff(a, b, "original", "restored",
                                                                               lineterm="", n=0)))
    return out


def test_dump_restores_and_compares_equal(restore, restored):
    script, result, psql = restored
    assert result.returncode == 0, result.stderr
    assert psql.returncode == 0, psql.stderr[-3000:]
    assert "ERROR" not in psql.stderr, psql.stderr[-3000:]
    diff = differences(restore.oracle["objects"], restore.objects(DB))
    assert not diff, f"{len(diff)} objects differ:\n" + "\n".join(diff[:40])


def test_dump_holds_every_table_and_its_rows(restore, restored):
    """The script has a COPY block for every table of the original (not the materialized views: refreshed), and
    pgpage counts the rows the original holds."""
    script, result, _ = restored
    rows = restore.oracle["objects"]["rows"]
    matviews = {k for k, v in restore.oracle["objects"]["views"].items() if v["relkind"] == "m"}
    part = r'(?:"(?:[^"]|"")*"|[^ ."]+)'
    copied = re.findall(rf"^COPY ({part}\.{part}) \(", script.read_text(), re.M)
    assert sorted(map(_unquoted, copied)) == sorted(k for k in rows if k not in matviews)
    total = sum(v["count"] for k, v in rows.items() if k not in matviews)
    assert re.search(rf": \d+ tables, {total} rows", result.stderr), result.stderr


def _unquoted(name: str) -> str:
    return ".".join(p[1:-1].replace('""', '"') if p.startswith('"') else p
                    for p in re.findall(r'"(?:[^"]|"")*"|[^.]+', name))


@pytest.mark.parametrize("restore", [15], indirect=True, ids=["pg15"])   # (Debian's pg_dump; stored on 15)
def test_pg_dump_schema_of_the_restore_equals_the_original(restore, restored):
    with gzip.open(DUMPS / "pg15" / "pg_dump.sql.gz", "rt") as f:
        original = f.read()
    r = subprocess.run([str(PG_DUMP), "-h", str(restore.server.root), "-U", "postgres", "--schema-only", DB],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr

    def stable(text: str) -> list[str]:      # (15.14+ writes a random key on \restrict and \unrestrict)
        return [line for line in text.splitlines() if not line.startswith(("\\restrict", "\\unrestrict"))]
    diff = list(difflib.unified_diff(stable(original), stable(r.stdout), "original", "restored", lineterm=""))
    assert not diff, "\n".join(diff[:80])


@pytest.mark.parametrize("restore", [15, MAJORS[-1]], indirect=True, ids=["pg15", f"pg{MAJORS[-1]}"])
def test_schema_only_then_data_only(restore):
    """--schema-only restores the objects with no rows; --data-only into it then gives the rows and the
    sequences' values: together, the whole database."""
    schema, r1 = restore.dump("--schema-only")
    data, r2 = restore.dump("--data-only")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert "COPY " not in schema.read_text() and "setval" not in schema.read_text()
    assert "CREATE " not in data.read_text() and "ALTER " not in data.read_text()
    db = restore.new_database("sections")
    assert restore.psql(db, schema).returncode == 0
    with restore.server.connect(db) as c:
        tables = c.execute("SELECT oid::regclass::text FROM pg_class WHERE relkind = 'r' AND relnamespace IN"
                           " (SELECT oid FROM pg_namespace WHERE nspname IN ('app', 'Mixed Case'))").fetchall()
        assert len(tables) > 10 and all(c.execute(f"SELECT count(*) FROM {t}").fetchone()[0] == 0 for t, in tables)
    psql = restore.psql(db, data)
    assert psql.returncode == 0, psql.stderr[-3000:]
    got, want = restore.objects(db), restore.oracle["objects"]
    assert got["rows"] == want["rows"] and got["sequences"] == want["sequences"]


@pytest.mark.parametrize("restore", [15], indirect=True, ids=["pg15"])
def test_table_pattern_selects_as_pg_dump_t(restore):
    script, r = restore.dump("--table", "app.order*")
    assert r.returncode == 0, r.stderr
    text = script.read_text()
    assert "CREATE TABLE app.orders (" in text and "COPY app.orders " in text
    assert "CREATE VIEW app.order_lines" in text
    assert "CREATE TABLE app.items" not in text and "CREATE TYPE" not in text and "CREATE SCHEMA" not in text
    assert "ADD CONSTRAINT orders_pkey PRIMARY KEY (id)" in text


@pytest.mark.parametrize("restore", [15], indirect=True, ids=["pg15"])
def test_damaged_default_is_a_comment_and_the_rest_restores(restore, tmp_path):
    """A real pg_attrdef page whose node tree is damaged (one node's name overwritten, the checksum made right):
    the table is an SQL comment naming it, a finding says why, the exit status is 1, what needs the table (its
    data, indexes, foreign keys, views) is left out, and the rest of the script restores with ON_ERROR_STOP."""
    from pgpage.decode.checksum import checksum_page
    from pgpage.passes.dumpcatalog import DumpCatalog
    from pgpage.storage.datadir import open_data_directory

    data = tmp_path / "data"
    shutil.copytree(restore.data, data)
    db = open_data_directory(data).database(DB)
    cat = DumpCatalog(db)
    items = next(r for r in db.relations() if r.qualified_name == "app.items")
    qty = next(a["attnum"] for a in cat.attributes(items.oid) if a["attname"] == "qty")
    row = next(r for r in cat.rows("pg_attrdef") if r["adrelid"] == items.oid and r["adnum"] == qty)
    assert row["adbin"].startswith("{OPEXPR"), row["adbin"][:40]     # (2 * 3 + 1)
    block = int(row["_tid"].strip("()").split(",")[0])
    path = data / "base" / str(db.oid) / str(cat.catalog_classes["pg_attrdef"]["relfilenode"])
    blob = bytearray(path.read_bytes())
    page = blob[block * 8192:(block + 1) * 8192]
    at = page.find(row["adbin"].encode())
    assert at > 0 and page.find(row["adbin"].encode(), at + 1) < 0
    page[at + 1:at + 7] = b"ZZEXPR"
    page[8:10] = checksum_page(bytes(page), block).to_bytes(2, "little")
    blob[block * 8192:(block + 1) * 8192] = page
    path.write_bytes(bytes(blob))

    out = tmp_path / "damaged.sql"
    r = pgpage("dump", str(data), "--db", DB, "-o", str(out))
    assert r.returncode == 1, r.stderr
    assert "dump.object.unprintable (app.items): TABLE app.items is not in the dump" in r.stderr
    text = out.read_text()
    assert "-- pgpage: TABLE app.items could not be written" in text
    assert "CREATE TABLE app.items" not in text and "COPY app.items " not in text
    assert "-- pgpage: CONSTRAINT app.orders orders_item_id_fkey is left out" in text
    assert "-- pgpage: VIEW app.order_lines could not be written: it reads app.items" in text
    db_name = restore.new_database("damaged")
    psql = restore.psql(db_name, out)
    assert psql.returncode == 0, psql.stderr[-3000:]
    got, want = restore.objects(db_name), restore.oracle["objects"]
    assert "app.items" not in got["rows"] and got["rows"]["app.orders"] == want["rows"]["app.orders"]
    assert got["enums"] == want["enums"] and got["domains"] == want["domains"]


def table_digests(server: Server, database: str) -> dict[str, tuple[int, str]]:
    """Each user table's row count and md5 of its sorted rows (as dump_oracle's rows), from a live server."""
    with server.connect(database) as c:
        tables = c.execute("""SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
                                AND n.nspname NOT LIKE 'pg\\_toast%'""").fetchall()
        return {f"{s}.{t}": tuple(c.execute(f"SELECT count(*), md5(string_agg(t::text, E'\\n' ORDER BY t::text))"
                                            f' FROM ONLY "{s}"."{t}" t').fetchone()) for s, t in tables}


@pytest.mark.parametrize("restore", [17], indirect=True, ids=["pg17"])
def test_demo_cluster_dump_restores_with_the_same_rows(restore, tmp_path):
    """The README's example: the bundled demo cluster (PostgreSQL 17) dumped offline and restored by psql holds
    the rows the original holds, as a server started on a copy of demo/data reads them."""
    out = tmp_path / "demo.sql"
    r = pgpage("dump", "demo/data", "--db", "demo", "-o", str(out))
    assert r.returncode == 0, r.stderr
    db = restore.new_database("demo")
    psql = restore.psql(db, out)
    assert psql.returncode == 0, psql.stderr[-3000:]
    original = Server(major_bindir(17))
    try:
        shutil.copytree(REPO / "demo" / "data", original.data, ignore=shutil.ignore_patterns(".gitkeep"))
        if original.user:
            subprocess.run(["chown", "-R", original.user, str(original.root)], check=True)
        original.data.chmod(0o700)
        original.opts = f"-c listen_addresses='' -c unix_socket_directories={original.root} -c autovacuum=off"
        original.restart()
        want = table_digests(original, "demo")
    finally:
        original.stop("immediate")
        original.remove()
    assert want and table_digests(restore.server, db) == want
