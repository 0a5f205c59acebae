#!/usr/bin/env python3
"""`pgpage wal --stats` against `pg_waldump --stats=record` on the same WAL segments (issue 38's target: at least
as fast), side by side.

Not part of the test suite. Needs Debian's PostgreSQL 15 (pg_waldump). Without ``--pgdata`` it makes a cluster
with 16 MB segments and ``wal_keep_size`` large enough to keep them all, runs a mixed workload (inserts, HOT and
non-HOT updates, deletes, a checkpoint in the middle so that full-page images appear) of ``--rows`` rows and
stops the server; with ``--pgdata DIR --start LSN --end LSN`` it reads a stopped cluster made before (a pgbench
run, say). Then it times each tool ``--runs`` times in turns over the same LSN range, output to /dev/null, after
one untimed run of each (the page cache warm, pgpage's bytecode compiled), and prints per tool the median wall
and CPU (user + system) seconds, the spread of each (max - min, the noise of a shared machine), and the
ratios pg_waldump / pgpage (>= 1 meets the target). CPU time is the fairer figure on a busy machine.

pgpage runs as an installed package would: its bytecode cached (``PYTHONPYCACHEPREFIX`` under ~/.cache/pgpage,
``PYTHONDONTWRITEBYTECODE`` dropped) instead of compiling every module on each run.

    python bench/wal_bench.py                 # about 200 MB of WAL
    python bench/wal_bench.py --rows 200000   # a quick look
    python bench/wal_bench.py --keep          # keep the cluster (prints where)
    python bench/wal_bench.py --pgdata /work/benchdata/wal-speed/data --start 0/1741570 --end 0/1DC92210
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one run of ``cmd``. (Not its peak RSS: wait4's counts the
    forked bench process's too.)"""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=REPO)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = 0        # reaped by wait4
    return wall, usage.ru_utime + usage.ru_stime


def compare(waldump: list[str], pgpage: list[str], runs: int) -> dict[str, list[tuple[float, float]]]:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(Path.home() / ".cache" / "pgpage" / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    timed(waldump), timed(pgpage, env)          # warm: the page cache, pgpage's bytecode and compiled library
    times: dict[str, list[tuple[float, float]]] = {"pg_waldump": [], "pgpage": []}
    for _ in range(runs):
        times["pg_waldump"].append(timed(waldump))
        times["pgpage"].append(timed(pgpage, env))
    return times


def report(times: dict[str, list[tuple[float, float]]]) -> None:
    med = {}
    for k, runs in times.items():
        wall, cpu = zip(*runs)
        med[k] = (statistics.median(wall), statistics.median(cpu))
        print(f"  {k:<11} wall {med[k][0]:6.3f} s (spread {max(wall) - min(wall):.3f})   "
              f"CPU {med[k][1]:6.3f} s (spread {max(cpu) - min(cpu):.3f})")
        print(f"  {'':<11} wall runs: {', '.join(f'{x:.3f}' for x in wall)}; CPU runs: {', '.join(f'{x:.3f}' for x in cpu)}")
    print(f"  ratio pg_waldump/pgpage: wall {med['pg_waldump'][0] / med['pgpage'][0]:.2f}, "
          f"CPU {med['pg_waldump'][1] / med['pgpage'][1]:.2f} (target >= 1)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--keep", action="store_true", help="keep the cluster (prints where)")
    ap.add_argument("--pgdata", help="a stopped cluster of PostgreSQL 15 to read instead of making one")
    ap.add_argument("--start", help="with --pgdata: the first LSN")
    ap.add_argument("--end", help="with --pgdata: the end LSN")
    args = ap.parse_args()
    from livepg import major_bindir
    bindir = major_bindir(15)
    if args.pgdata:
        if not (args.start and args.end):
            ap.error("--pgdata needs --start and --end")
        measure(bindir, Path(args.pgdata), args.start, args.end, args.runs)
        return 0
    from livepg import Server
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
        measure(bindir, srv.data, start, end, args.runs)
    finally:
        srv.stop("immediate")
        if args.keep:
            print(f"kept: {srv.data} (pgpage wal {srv.data} --start {start} --end {end} --stats)")
        else:
            srv.remove()
    return 0


def measure(bindir: Path, pgdata: Path, start: str, end: str, runs: int) -> None:
    pg_wal = pgdata / "pg_wal"
    size = sum(p.stat().st_size for p in pg_wal.glob("0*"))
    waldump = [str(bindir / "pg_waldump"), "-p", str(pg_wal), "-s", start, "-e", end, "--stats=record"]
    pgpage = [sys.executable, "-m", "pgpage", "wal", str(pgdata), "--start", start, "--end", end, "--stats"]
    print(f"WAL {start} .. {end} ({size / 1e6:.0f} MB of segments), {runs} runs each in turns, medians:")
    report(compare(waldump, pgpage, runs))


if __name__ == "__main__":
    sys.exit(main())
