#!/usr/bin/env python3
"""`pgpage rows --csv` against the server's COPY and `pg_filedump -D` on the same table, in one run.

Not part of the test suite. Needs Debian's PostgreSQL 15 and pg_filedump (``apt-get install -y postgresql
postgresql-contrib postgresql-filedump``) and pgpage installed. It builds the table of ``run_bench.py``
((int, md5 text, timestamptz), HOT-updated and with deletions, checkpointed) with ``--rows`` rows, then measures
warm, ``--runs`` times each (median), in turns:

* ``COPY bench TO '/dev/null' (FORMAT csv)`` in the server (its own rows/s on one core, data cached);
* ``pg_filedump -D int,text,timestamptz`` over the table's segments, to /dev/null, with the server stopped;
* ``pgpage rows --csv`` with ``--jobs 1`` and ``--jobs 2``, to /dev/null, with the server stopped;
* ``pgpage rows --json --jobs 1`` beside the server's JSON of the same rows,
  ``COPY (SELECT row_to_json(bench) FROM bench) TO '/dev/null'``: a record per row, as pgpage's.

and prints the ratios the rows issue states its targets in: pgpage at least as fast as pg_filedump -D, at least
half of COPY on one core, faster than COPY with --jobs 2, peak RSS under 300 MB.

    python bench/rows_bench.py                    # 10 M rows (about 800 MB)
    python bench/rows_bench.py --rows 75000000    # the 6 GB table of run_bench.py
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import MB, PGBIN, Server, as_postgres, build, interleaved_runs, machine, relation_files, run, timed  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--reuse", default=None, help="a work directory run_bench.py --keep (or this script's --keep) left")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for tool in (PGBIN / "initdb", Path(shutil.which("pg_filedump") or "/nonexistent")):
        if not tool.exists():
            print(f"missing {tool}: apt-get install -y postgresql postgresql-contrib postgresql-filedump",
                  file=sys.stderr)
            return 2
    work = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="pgpage-rows-bench-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    results: dict = {"machine": machine(), "runs": args.runs}
    try:
        if not args.reuse:
            print(f"building {args.rows} rows in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            build(server, args.rows)
        else:
            server.start()
        files, nbytes = relation_files(server, "bench")
        results["rows"] = int(server.sql("SELECT count(*) FROM bench"))
        results["heap_bytes"] = nbytes
        print(f"{results['rows']} live rows, {nbytes / MB:.0f} MB", file=sys.stderr)
        print("COPY in the server ...", file=sys.stderr)
        server.sql("COPY bench TO '/dev/null' (FORMAT csv)")                      # warm
        copies = [server.sql("COPY bench TO '/dev/null' (FORMAT csv)", timing=True)[1] for _ in range(args.runs)]
        results["copy"] = {"seconds": statistics.median(copies), "all_seconds": copies}
        to_json = "COPY (SELECT row_to_json(bench) FROM bench) TO '/dev/null'"
        copies = [server.sql(to_json, timing=True)[1] for _ in range(args.runs)]
        results["copy json"] = {"seconds": statistics.median(copies), "all_seconds": copies}
        server.stop()

        for f in files:                                                         # into the page cache
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        print("pg_filedump -D ...", file=sys.stderr)
        walls = []
        for _ in range(args.runs):
            walls.append(sum(timed(["pg_filedump", "-D", "int,text,timestamptz", str(f)])[0] for f in files))
        results["pg_filedump -D"] = {"seconds": statistics.median(walls), "all_seconds": walls}
        print("pgpage rows --csv ...", file=sys.stderr)
        pgpage = [sys.executable, "-m", "pgpage", "rows", str(pgdata), "--db", "bench", "--rel", "bench", "--csv"]
        cmds = {f"--jobs {j}": [*pgpage, "--jobs", str(j)] for j in (1, 2)}
        cmds["--json --jobs 1"] = [*pgpage[:-1], "--json", "--jobs", "1"]
        for cmd in cmds.values():
            timed(cmd)                                                          # warm-up
        results["pgpage rows --csv"] = interleaved_runs(cmds, args.runs)
        results["pgpage rows --json"] = {"--jobs 1": results["pgpage rows --csv"].pop("--json --jobs 1")}
    finally:
        server.stop()
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        elif not args.reuse:
            shutil.rmtree(work, ignore_errors=True)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def report(r: dict) -> None:
    n, hb, m = r["rows"], r["heap_bytes"], r["machine"]
    print(f"\nmachine: {m['nproc']} x {m['cpu']}, {m['memory_gib']} GiB, Python {m['python']}, Linux {m['kernel']}")
    print(f"table: {n} live rows (int, md5 text, timestamptz), {hb / MB:.0f} MB\n")
    print(f"{'what':<40} {'seconds':>8} {'rows/s':>11} {'MB/s':>7} {'peak RSS MB':>12}")
    lines = [("COPY ... TO '/dev/null' (in server)", r["copy"], None),
             ("pg_filedump -D int,text,timestamptz", r["pg_filedump -D"], None)]
    lines += [(f"pgpage rows --csv {k}", v, v["peak_rss_mb"]) for k, v in r["pgpage rows --csv"].items()]
    if "copy json" in r:
        lines += [("COPY (SELECT row_to_json(..)) (in server)", r["copy json"], None),
                  ("pgpage rows --json --jobs 1", r["pgpage rows --json"]["--jobs 1"],
                   r["pgpage rows --json"]["--jobs 1"]["peak_rss_mb"])]
    for label, v, rss in lines:
        s = v["seconds"]
        print(f"{label:<40} {s:>8.2f} {n / s:>11.0f} {hb / MB / s:>7.0f} {rss if rss is not None else '':>12}")
    one, two = r["pgpage rows --csv"]["--jobs 1"]["seconds"], r["pgpage rows --csv"]["--jobs 2"]["seconds"]
    copy, fd = r["copy"]["seconds"], r["pg_filedump -D"]["seconds"]
    print("\ntargets (rows issue):")
    print(f"  pgpage rows --csv vs pg_filedump -D: {fd / one:.2f}x (target >= 1)")
    print(f"  pgpage rows --csv vs COPY, one core: {copy / one:.2f}x (target >= 0.5)")
    print(f"  pgpage rows --csv --jobs 2 vs COPY: {copy / two:.2f}x (target > 1)")
    if "copy json" in r:
        print(f"  pgpage rows --json vs the server's row_to_json, one core: "
              f"{r['copy json']['seconds'] / r['pgpage rows --json']['--jobs 1']['seconds']:.2f}x")
    peak = max(v["peak_rss_mb"] for v in r["pgpage rows --csv"].values())
    print(f"  peak RSS: {peak} MB (target < 300)")


if __name__ == "__main__":
    t0 = time.perf_counter()
    rc = main()
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    sys.exit(rc)
