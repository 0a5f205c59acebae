"""``verify --heapallindexed`` requires recently dead versions in the index, as bt_index_parent_check does.

heapam_index_build_range_scan, scanning with SnapshotAny for bt_index_parent_check(heapallindexed), indexes
RECENTLY_DEAD versions (deleted by a committed transaction that some snapshot may still need), not DEAD ones.
A live server (tests/livepg.py): a row deleted and committed, then a transaction that keeps running (its xid
becomes the checkpoint's oldestActiveXid), then another row deleted and committed, a CHECKPOINT, and a crash
(stop -m immediate). In a copy of the crashed cluster the two rows' index entries are marked LP_DEAD (which
heapallindexed skips, as amcheck does): only the row deleted after the oldest running xid lacks its entry. After
recovery and a clean shutdown nothing is recently dead: neither is required.
"""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys

from livepg import running_server
from pgpage.decode.checksum import checksum_page

BS = 8192
LP_DEAD = 3


def mark_entries_dead(index_file, tids: set[str]) -> int:
    """Set LP_DEAD on the leaf items of the index whose heap TID is one of ``tids`` ("(b,o)"); checksums resealed."""
    buf = bytearray(index_file.read_bytes())
    marked = 0
    for blkno in range(1, len(buf) // BS):
        pg = blkno * BS
        if not struct.unpack_from("<H", buf, pg + BS - 4)[0] & 1:      # btpo_flags: BTP_LEAF
            continue
        lower = struct.unpack_from("<H", buf, pg + 12)[0]
        for n in range((lower - 24) // 4):
            lp = struct.unpack_from("<I", buf, pg + 24 + 4 * n)[0]
            off, flags = lp & 0x7FFF, (lp >> 15) & 3
            if flags != 1:
                continue
            hi, lo, posid = struct.unpack_from("<HHH", buf, pg + off)
            if f"({hi << 16 | lo},{posid})" in tids:
                struct.pack_into("<I", buf, pg + 24 + 4 * n, (lp & ~(3 << 15)) | (LP_DEAD << 15))
                marked += 1
        struct.pack_into("<H", buf, pg + 8, checksum_page(bytes(buf[pg:pg + BS]), blkno))
    index_file.write_bytes(buf)
    return marked


def heapallindexed_findings(data) -> tuple[int, list[dict]]:
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(data), "--db", "postgres", "--rel", "t_id",
                        "--heapallindexed", "--json"], capture_output=True, text=True, timeout=180)
    assert "Traceback" not in r.stderr, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    return r.returncode, [x for x in recs if x.get("type") == "finding" and x["code"].startswith("btree.heapall")]


def control(data) -> dict:
    from pgpage.storage.datadir import open_data_directory
    return open_data_directory(data).control


def test_recently_dead_versions_must_be_indexed(tmp_path):
    with running_server() as srv:
        c = srv.connect()
        c.execute("CREATE TABLE t (id int, pad text)")
        c.execute("INSERT INTO t SELECT i, repeat('x', 40) FROM generate_series(1, 400) i")
        c.execute("CREATE INDEX t_id ON t (id)")
        index_path = c.execute("SELECT pg_relation_filepath('t_id')").fetchone()[0]
        tid = dict(c.execute("SELECT id, ctid::text FROM t WHERE id IN (1, 2)").fetchall())
        with c.transaction():
            c.execute("DELETE FROM t WHERE id = 1")
            dead_xid = c.execute("SELECT txid_current()").fetchone()[0]
        running = srv.connect()
        running.execute("BEGIN")
        oldest = running.execute("SELECT txid_current()").fetchone()[0]      # keeps running until the crash
        with c.transaction():
            c.execute("DELETE FROM t WHERE id = 2")
            recent_xid = c.execute("SELECT txid_current()").fetchone()[0]
        c.execute("CHECKPOINT")
        assert dead_xid < oldest < recent_xid
        srv.stop("immediate")
        crashed = tmp_path / "crashed"
        shutil.copytree(srv.data, crashed)
        srv.restart()                      # recovery, then a clean shutdown
        srv.stop()
        clean = tmp_path / "clean"
        shutil.copytree(srv.data, clean)

    ctl = control(crashed)
    assert ctl["state_name"] == "DB_IN_PRODUCTION" and ctl["checkPointCopy"]["oldestActiveXid"] == oldest
    assert heapallindexed_findings(crashed) == (0, [])        # every version the index must hold, it holds
    assert mark_entries_dead(crashed / index_path, {tid[1], tid[2]}) == 2
    rc, found = heapallindexed_findings(crashed)
    assert rc == 1
    assert [(f["code"], f["severity"], f["actual"]) for f in found] == [
        ("btree.heapallindexed.missing", "error", tid[2])]
    assert found[0]["message"] == (
        f'heap tuple {tid[2]} from table "t" lacks matching index tuple within index "t_id" (recently dead: deleted'
        f" by xid {recent_xid}, not older than the last checkpoint's oldest running xid {oldest})")

    assert control(clean)["state_name"] == "DB_SHUTDOWNED"
    assert mark_entries_dead(clean / index_path, {tid[1], tid[2]}) == 2
    assert heapallindexed_findings(clean) == (0, [])          # a clean shutdown: nothing is recently dead
