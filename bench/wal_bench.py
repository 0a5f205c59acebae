#!/usr/bin/env python3
"""`pgpage wal --stats` against `pg_waldump --stats=record` on the same WAL segments (issue 38's target: at least
as fast), side by side.

Not part of the test suite. Needs Debian's PostgreSQL 15 (pg_waldump). It makes a cluster with 16 MB segments and
``wal_keep_size`` large enough to keep them all, runs a mixed workload (inserts, HOT and non-HOT updates, deletes,
a checkpoint in the middle so that full-page images appear) of ``--rows`` rows, stops the server, then times each
tool ``--runs`` times in turns over the same LSN range (median wall time, output to /dev/null) and prints the
ratio (pg_waldump's time / pgpage's: >= 1 meets the target).

    python bench/wal_bench.py                 # about 200 MB of WAL
    python bench/wal_bench.py --rows 200000   # a quick look
    python bench/wal_bench.py --keep          # keep the cluster (prints where)
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", action="store_true", help="keep the cluster (prints where)")
    args = ap.parse_args()
    from livepg import Server, major_bindir
    bindir = major_bindir(15)
    srv = Server(bindir)
    try:
        srv.start("wal_keep_size=4GB", "max_wal_size=4GB")
        with srv.connect() as c:
            c.execute("CREATE TABLE b (id int PRIMARY KEY, v text, n int)")
            start = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
            c.execute(f"INSERT INTO b SELECT g, md5(g::text), 0 FROM generate_series(1, {args.rows}) g")
            c.execute("CHECKPOINT")
            c.execute("UPDATE b SET n = n + 1 WHERE id % 4 = 0")
            c.execute("UPDATE b SET id = -id WHERE id % 10 = 1")
            c.execute("DELETE FROM b WHERE id % 7 = 0")
            end = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
        srv.stop()
        pg_wal = srv.data / "pg_wal"
        size = sum(p.stat().st_size for p in pg_wal.glob("0*"))
        waldump = [str(bindir / "pg_waldump"), "-p", str(pg_wal), "-s", start, "-e", end, "--stats=record"]
        pgpage = [sys.executable, "-m", "pgpage", "wal", str(srv.data), "--start", start, "--end", end, "--stats"]
        times: dict[str, list[float]] = {"pg_waldump": [], "pgpage": []}
        for _ in range(args.runs):
            times["pg_waldump"].append(timed(waldump))
            times["pgpage"].append(timed(pgpage))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"WAL {start} .. {end} ({size / 1e6:.0f} MB of segments), {args.runs} runs, median wall time:")
        for k, v in med.items():
            print(f"  {k:<11} {v:7.2f} s   runs: {', '.join(f'{x:.2f}' for x in times[k])}")
        print(f"  ratio pg_waldump/pgpage: {med['pg_waldump'] / med['pgpage']:.2f} (target >= 1)")
    finally:
        srv.stop("immediate")
        if args.keep:
            print(f"kept: {srv.data} (pgpage wal {srv.data} --start {start} --end {end} --stats)")
        else:
            srv.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
