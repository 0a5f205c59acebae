#!/usr/bin/env python3
"""`pgpage page --all` against pg_filedump on the same 1 GiB segments, in one run (issue 19's targets).

Not part of the test suite. Needs Debian's PostgreSQL 15 and pg_filedump (``apt-get install -y postgresql
postgresql-contrib postgresql-filedump``). It builds the table of ``run_bench.py`` ((int, md5 text, timestamptz),
HOT-updated and with deletions, checkpointed, with B-tree indexes on id and md5) with ``--rows`` rows (20 M by
default: a heap of about 1.6 GB and an md5 index of about 1.2 GB, so both have a full 1 GiB first segment), stops
the server, then measures warm (files in the page cache), ``--runs`` times each in turns (median), output to
/dev/null, wall time and peak RSS (``/usr/bin/time``), on the first segment of the heap and of the md5 index:

* ``pgpage page SEG --blocks 0:N``          vs ``pg_filedump SEG``     (text)
* ``pgpage page SEG --blocks 0:N --json``   vs ``pg_filedump -i SEG``  (decoded items)

(``--blocks 0:N``: the segment's N blocks; pgpage reads a fork's base file name as the whole fork, all its
segments, where pg_filedump reads the one file.)

and prints the ratios the targets are stated in: pgpage's throughput at least pg_filedump's (ratio >= 1), peak
RSS under 150 MB. pgpage is this checkout's (``python -m pgpage`` with this repository on PYTHONPATH).

    python bench/page_bench.py                             # about 10 minutes to build, then the runs
    python bench/page_bench.py --keep                      # keep the cluster (prints where)
    python bench/page_bench.py --reuse /tmp/pgpage-page-bench-XXXX
    python bench/page_bench.py --rows 2000000              # a quick look (segments far below 1 GiB)
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
from run_bench import MB, PGBIN, Server, as_postgres, build, interleaved_runs, machine, relation_files, run, timed  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GIB = 2 ** 30


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--reuse", default=None, help="a work directory this script's --keep (or run_bench.py's) left")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds one pgpage command may take")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for tool in (PGBIN / "initdb", Path(shutil.which("pg_filedump") or "/nonexistent")):
        if not tool.exists():
            print(f"missing {tool}: apt-get install -y postgresql postgresql-contrib postgresql-filedump",
                  file=sys.stderr)
            return 2
    work = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="pgpage-page-bench-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    results: dict = {"machine": machine(), "runs": args.runs}
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        if not args.reuse:
            print(f"building {args.rows} rows in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            build(server, args.rows)
        else:
            server.start()
        segments = {"heap": relation_files(server, "bench")[0][0], "btree": relation_files(server, "bench_md5")[0][0]}
        server.stop()
        pgpage = [sys.executable, "-m", "pgpage", "page"]
        for kind, seg in segments.items():
            size = seg.stat().st_size
            results[kind] = r = {"file": str(seg), "bytes": size}
            print(f"{kind}: {seg} ({size / MB:.0f} MB{'' if size >= GIB else ', less than 1 GiB'})", file=sys.stderr)
            with open(seg, "rb") as fh:  # into the page cache
                while fh.read(1 << 24):
                    pass
            timed([*pgpage, str(seg), "--block", "0"], env)  # warm-up (byte-compiles, builds the C library)
            # the segment's blocks alone: pgpage reads a fork's base file name as the whole fork (every segment)
            blocks = ["--blocks", f"0:{size // 8192}"]
            for label, ours, theirs in (("text", [*pgpage, str(seg), *blocks], ["pg_filedump", str(seg)]),
                                        ("json", [*pgpage, str(seg), *blocks, "--json"],
                                         ["pg_filedump", "-i", str(seg)])):
                print(f"  {label} ...", file=sys.stderr)
                r[label] = interleaved_runs({"pgpage": ours, "pg_filedump": theirs}, args.runs, env, args.timeout)
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
    m = r["machine"]
    print(f"\nmachine: {m['nproc']} x {m['cpu']}, {m['memory_gib']} GiB, Python {m['python']}, Linux {m['kernel']}")
    print(f"median of {r['runs']} runs, warm, output to /dev/null\n")
    print(f"{'segment':<7} {'what':<34} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12} {'ratio':>7}")
    for kind in ("heap", "btree"):
        seg = r[kind]
        for label, flag, theirs in (("text", "", "pg_filedump"), ("json", " --json", "pg_filedump -i")):
            m_ours, m_theirs = seg[label]["pgpage"], seg[label]["pg_filedump"]
            ratio = m_theirs["seconds"] / m_ours["seconds"]  # > 1: pgpage is faster
            for what, x, rt in ((f"pgpage page --blocks 0:N{flag}", m_ours, f"{ratio:.2f}x"), (theirs, m_theirs, "")):
                print(f"{kind:<7} {what:<34} {x['seconds']:>8.2f} {seg['bytes'] / MB / x['seconds']:>8.0f}"
                      f" {x['peak_rss_mb']:>12} {rt:>7}")
    print("\nratio: pg_filedump's time / pgpage's (target >= 1.00x); peak RSS target < 150 MB")


if __name__ == "__main__":
    sys.exit(main())
