"""Issue 23, item 6: `pgpage verify` of a running cluster, and of one whose postmaster was killed, is quiet.

A real server (Debian's PostgreSQL 15, tests/livepg.py) runs a workload of updates, inserts, deletes and
row locks shared by two transactions (multixacts) with a CHECKPOINT every couple of seconds, while verify
reads its files several times; then the postmaster is killed with SIGKILL mid-workload and verify reads what
it left (pg_control still says "in production"). Tuples written since the last checkpoint carry xids past
pg_control's nextXid, and multixacts past its nextMulti, yet within what pg_xact and pg_multixact/offsets
hold on disk: no finding per tuple (they were 471,362 warnings in 10 runs of issue 23's), no error, one
``heap.xid.since_checkpoint`` note per relation at most.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

from livepg import running_server

PER_TUPLE = ("heap.xid.xmin_in_future", "heap.xid.xmax_in_future", "heap.xid.update_xid_in_future",
             "heap.multixact.in_future")
LIVE_RUNS = 3
CHECKPOINT_EVERY = 2.0


def verify(data) -> tuple[int, list[dict], dict]:
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(data), "--db", "postgres", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    recs = [json.loads(line) for line in r.stdout.splitlines()]
    return r.returncode, [x for x in recs if x["type"] == "finding"], recs[0]


def workload(srv, stop: threading.Event, checkpoints: threading.Event, seed: int) -> None:
    rng = random.Random(seed)
    with srv.connect() as a, srv.connect() as b, srv.connect() as c:
        last = time.monotonic()
        while not stop.is_set():
            k = rng.randint(1, 3000)
            op = rng.random()
            try:
                if op < 0.4:
                    a.execute("UPDATE t SET v = v + 1 WHERE id BETWEEN %s AND %s", (k, k + 20))
                elif op < 0.6:
                    a.execute("INSERT INTO t (id, v, note) SELECT g, 0, 'new' FROM generate_series(%s, %s) g"
                              " ON CONFLICT DO NOTHING", (3000 + k, 3000 + k + 10))
                elif op < 0.75:
                    a.execute("DELETE FROM t WHERE id BETWEEN %s AND %s", (k, k + 3))
                elif op < 0.85:   # two transactions share-lock the same rows: a multixact xmax
                    with a.transaction():
                        a.execute("SELECT 1 FROM t WHERE id BETWEEN %s AND %s FOR SHARE", (k, k + 5))
                        b.execute("SELECT 1 FROM t WHERE id BETWEEN %s AND %s FOR SHARE", (k, k + 5))
                else:
                    a.execute("UPDATE u SET n = n + 1 WHERE id = %s", (k % 50,))
            except Exception:   # the postmaster killed under us: the workload ends there
                return
            if checkpoints.is_set() and time.monotonic() - last > CHECKPOINT_EVERY:
                c.execute("CHECKPOINT")
                last = time.monotonic()


def check(findings: list[dict], label: str) -> Counter:
    codes = Counter(f["code"] for f in findings)
    errors = [f for f in findings if f["severity"] == "error"]
    assert not errors, (label, errors[:5])
    assert not [c for c in codes if c in PER_TUPLE], (label, codes)
    notes = Counter(f["relation"] for f in findings if f["code"] == "heap.xid.since_checkpoint")
    assert all(n == 1 for n in notes.values()), (label, notes)
    return codes


def test_verify_a_live_and_a_crashed_cluster_is_quiet():
    with running_server("shared_buffers=256kB") as srv:   # few buffers: pages written between checkpoints
        with srv.connect() as conn:
            conn.execute("CREATE TABLE t (id int PRIMARY KEY, v int, note text)")
            conn.execute("INSERT INTO t SELECT g, 0, repeat('x', 40) FROM generate_series(1, 3000) g")
            conn.execute("CREATE TABLE u (id int PRIMARY KEY, n int)")
            conn.execute("INSERT INTO u SELECT g, 0 FROM generate_series(0, 49) g")
            conn.execute("CHECKPOINT")
        stop, checkpoints = threading.Event(), threading.Event()
        checkpoints.set()
        worker = threading.Thread(target=workload, args=(srv, stop, checkpoints, 23))
        worker.start()
        runs = []
        try:
            while len(runs) < LIVE_RUNS:
                rc, findings, start = verify(srv.data)
                assert start["state"] == "DB_IN_PRODUCTION"
                codes = check(findings, f"live run {len(runs) + 1}")
                assert rc == 0, codes
                runs.append(codes)
            checkpoints.clear()          # no checkpoint in the last second before the kill
            time.sleep(1.5)
            pid = int((srv.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
            time.sleep(1.0)
        finally:
            stop.set()
            worker.join(30)
        rc, findings, start = verify(srv.data)
        assert start["state"] == "DB_IN_PRODUCTION"
        codes = check(findings, "after kill -9")
        assert rc == 0, codes
        # the tuples the workload wrote after the last checkpoint were seen, and told once
        assert [f["relation"] for f in findings if f["code"] == "heap.xid.since_checkpoint"
                and f["relation"] == "public.t"] == ["public.t"]
    print(f"{len(runs)} live runs, then one after kill -9:", runs, codes)
