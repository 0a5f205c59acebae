"""The statistics file of a server with a logical replication slot and a subscription (Debian's
PostgreSQL 15, tests/livepg.py; PGPAGE_PG_BINDIR picks another build): the slot's entry ('N', by
name) and the subscription's ('S', kind 5) are framed, so every relation written after them is read;
every table's counters equal pg_stat_user_tables as the server gave it right before the clean shutdown."""
from __future__ import annotations

import datetime as dt

from livepg import running_server

from pgpage.decode.pgstat import PGSTAT_KIND_RELATION, decode_statistics
from pgpage.passes.stats import cluster_statistics, relation_statistics
from pgpage.storage.datadir import open_data_directory

NAMES = ("relid", "schemaname", "relname")
TABLES = 40


def _json(v):
    return v.isoformat() if isinstance(v, dt.datetime) else v


def test_tables_after_a_slot_and_a_subscription_are_read():
    with running_server("wal_level=logical") as srv:
        conn = srv.connect()
        for i in range(TABLES):
            conn.execute(f"CREATE TABLE t{i} (id int PRIMARY KEY, v int)")
            conn.execute(f"INSERT INTO t{i} SELECT g, g FROM generate_series(1, {10 + i}) g")
            conn.execute(f"UPDATE t{i} SET v = v + 1 WHERE id <= {i}")
            conn.execute(f"DELETE FROM t{i} WHERE id = {10 + i}")
        conn.execute("ANALYZE t3")
        conn.execute("SELECT pg_create_logical_replication_slot('slot_a', 'test_decoding')")
        conn.execute("SELECT count(*) FROM pg_logical_slot_get_changes('slot_a', NULL, NULL)")
        conn.execute("CREATE PUBLICATION pub FOR ALL TABLES")
        conn.execute("CREATE SUBSCRIPTION sub CONNECTION 'dbname=nowhere' PUBLICATION pub WITH (connect = false)")
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.close()
        with srv.connect() as conn:   # a new session sees what the first one flushed at its exit
            conn.execute("SELECT pg_stat_clear_snapshot()")
            cur = conn.execute("SELECT * FROM pg_stat_user_tables")
            cols = [d.name for d in cur.description]
            want = {r["relname"]: r for r in (dict(zip(cols, map(_json, row))) for row in cur.fetchall())}
            major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
            slots = conn.execute("SELECT count(*) FROM pg_stat_replication_slots").fetchone()[0]
        srv.stop("fast")

        raw = (srv.data / "pg_stat" / "pgstat.stat").read_bytes()
        from io import BytesIO

        from kaitaistruct import KaitaiStream

        from pgpage.decode.ksy.pgstat_shmem import PgstatShmem
        entries = PgstatShmem(major, KaitaiStream(BytesIO(raw))).entries
        markers = [(chr(e.marker), e.kind if e.marker != 0x45 else None) for e in entries]
        assert slots == 1 and ("N", 4) in markers        # the slot's entry, by name
        assert (("S", 5) in markers) == (major >= 16)     # 15 writes no entry for a subscription without errors
        assert markers[-1] == ("E", None)                 # framed to the end
        after_slot = markers[markers.index(("N", 4)):]
        assert ("S", PGSTAT_KIND_RELATION) in after_slot  # relations the old parser lost

        assert decode_statistics({"pgstat.stat": raw}, major)["findings"] == []
        cluster = open_data_directory(str(srv.data))
        assert cluster_statistics(cluster)["status"] == "current"
        db = cluster.database("postgres")
        assert len(want) == TABLES
        for name, row in want.items():
            got = relation_statistics(cluster, db.relation(name))
            assert {k: got[k] for k in row if k not in NAMES} == {k: v for k, v in row.items() if k not in NAMES}, name
        assert want["t3"]["last_analyze"] is not None and want["t39"]["n_tup_upd"] == 39
