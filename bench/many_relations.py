#!/usr/bin/env python3
"""pgpage on a cluster of many small relations: wall time and peak RSS of `pgpage scan` and `pgpage heap`.

Not part of the test suite. Like run_bench.py it needs Debian's PostgreSQL 15 and pgpage installed. It builds a
database of ``--tables`` tables, each with a primary key and a text column (so a TOAST table and its index too:
four relations a table, 20 000 tables make about 80 000 relations), CHECKPOINTs, stops the server, and measures
warm, ``--runs`` times each, with ``/usr/bin/time``'s peak RSS of the largest process:

    pgpage scan DATA --json --jobs 1 / --jobs 2     (output to /dev/null: streamed, as into any pipe or file)
    pgpage heap DATA --db many --rel t1 --json      (one table found through catalogs of 80 000 relations)

    python bench/many_relations.py                   # 20 000 tables: about 5 minutes to build
    python bench/many_relations.py --tables 2000     # a quick look
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import PGBIN, Server, as_postgres, run, timed  # noqa: E402

PER_STATEMENT = 500  # tables created per DO block (each takes 4 locks: the lock table holds 6400)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None, help="where to put the cluster (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the cluster afterwards (for --reuse)")
    ap.add_argument("--reuse", default=None, help="a work directory a previous --keep left: skip the build")
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # measured as installed (see run_bench.py)
    work = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="pgpage-many-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    try:
        if not args.reuse:
            print(f"building {args.tables} tables in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            server.sql("CREATE DATABASE many", db="postgres")
            for lo in range(1, args.tables + 1, PER_STATEMENT):
                hi = min(args.tables, lo + PER_STATEMENT - 1)
                server.sql(f"DO $$ BEGIN FOR i IN {lo}..{hi} LOOP"
                           " EXECUTE format('CREATE TABLE t%s (id int PRIMARY KEY, v text)', i);"
                           " EXECUTE format('INSERT INTO t%s SELECT g, md5(g::text) FROM generate_series(1, 10) g', i);"
                           " END LOOP; END $$", db="many")
            server.sql("CHECKPOINT", db="many")
            server.stop()
        relations = int(run(["sh", "-c", f"ls {pgdata}/base/*/ | grep -cE '^[0-9]+$'"]).stdout)
        print(f"{relations} relation main forks in {pgdata}", file=sys.stderr)
        pgpage = [sys.executable, "-m", "pgpage"]
        commands = {f"scan --jobs {j}": [*pgpage, "scan", str(pgdata), "--json", "--jobs", str(j)] for j in (1, 2)}
        commands["heap --rel t1"] = [*pgpage, "heap", str(pgdata), "--db", "many", "--rel", "t1", "--json"]
        print(f"\n{'command':<22}{'seconds (median)':>18}{'peak RSS MB':>14}  exit")
        for label, cmd in commands.items():
            timed(cmd)  # warm
            runs = [timed(cmd) for _ in range(args.runs)]
            print(f"{label:<22}{statistics.median(r[0] for r in runs):>18.2f}{max(r[1] for r in runs):>14}"
                  f"  {runs[0][2]}")
    finally:
        server.stop()
        if not (args.keep or args.reuse):
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
