#!/usr/bin/env python3
"""`pgpage dump` against `pg_dump` of the same database from a running server, in one run (issue 40's speed
target: pgpage dump at least as fast as pg_dump, memory flat in the data size).

Not part of the test suite. Needs Debian's PostgreSQL 15 (``apt-get install -y postgresql postgresql-contrib``)
and pgpage importable from this checkout. It builds ``run_bench.py``'s table ((int, md5 text, timestamptz),
two indexes, HOT-updated and with deletions, checkpointed) with ``--rows`` rows, then measures warm, ``--runs``
times each (median):

* ``pg_dump -f /dev/null bench`` (plain format) against the running server;
* ``pgpage dump PGDATA --db bench -o /dev/null`` with the server stopped (the files read from the page cache);

and prints both, their ratio and pgpage's peak RSS.

    python bench/dump_bench.py --rows 20000        # a tiny try (seconds)
    python bench/dump_bench.py                     # 10 M rows (about 800 MB)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import (MB, PGBIN, Server, as_postgres, build, machine, median_run, relation_files,  # noqa: E402
                       run, timed)

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if not (PGBIN / "pg_dump").exists():
        print(f"missing {PGBIN / 'pg_dump'}: apt-get install -y postgresql postgresql-contrib", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="pgpage-dump-bench-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    results: dict = {"machine": machine(), "runs": args.runs}
    try:
        print(f"building {args.rows} rows in {work} ...", file=sys.stderr)
        run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
        server.start()
        build(server, args.rows)
        files, nbytes = relation_files(server, "bench")
        results["rows"] = int(server.sql("SELECT count(*) FROM bench"))
        results["heap_bytes"] = nbytes
        print(f"{results['rows']} live rows, {nbytes / MB:.0f} MB; pg_dump ...", file=sys.stderr)
        pg_dump = as_postgres([str(PGBIN / "pg_dump"), "-h", str(sock), "-U", "postgres", "-f", "/dev/null", "bench"])
        timed(pg_dump)                                                          # warm
        results["pg_dump"] = median_run(pg_dump, args.runs)
        server.stop()
        for f in files:                                                         # into the page cache
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        print("pgpage dump ...", file=sys.stderr)
        pgpage = [sys.executable, "-m", "pgpage", "dump", str(pgdata), "--db", "bench", "-o", "/dev/null"]
        # pgpage measured as installed: byte-compiled once (pip does it), not compiled from source on every start,
        # which PYTHONDONTWRITEBYTECODE forces (about 0.45 s a run); the bytecode goes to ~/.cache, not the checkout
        env = {**os.environ, "PYTHONPATH": str(REPO),
               "PYTHONPYCACHEPREFIX": str(Path.home() / ".cache" / "pgpage" / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        timed(pgpage, env)                                                      # warm: page cache and bytecode
        results["pgpage dump"] = median_run(pgpage, args.runs, env)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def report(r: dict) -> None:
    n, hb, m = r["rows"], r["heap_bytes"], r["machine"]
    print(f"\nmachine: {m['nproc']} x {m['cpu']}, {m['memory_gib']} GiB, Python {m['python']}, Linux {m['kernel']}")
    print(f"database: one table of {n} live rows (int, md5 text, timestamptz) and two indexes, {hb / MB:.0f} MB\n")
    print(f"{'what':<44} {'seconds':>8} {'rows/s':>11} {'MB/s':>7} {'peak RSS MB':>12}")
    for label, key in (("pg_dump (plain, from the running server)", "pg_dump"),
                       ("pgpage dump (the files, server stopped)", "pgpage dump")):
        v = r[key]
        s = v["seconds"]
        print(f"{label:<44} {s:>8.2f} {n / s:>11.0f} {hb / MB / s:>7.0f} {v['peak_rss_mb']:>12}")
    ratio = r["pg_dump"]["seconds"] / r["pgpage dump"]["seconds"]
    print(f"\ntarget (issue 40): pgpage dump vs pg_dump {ratio:.2f}x (target >= 1), "
          f"peak RSS {r['pgpage dump']['peak_rss_mb']} MB (flat in the data size)")


if __name__ == "__main__":
    sys.exit(main())
