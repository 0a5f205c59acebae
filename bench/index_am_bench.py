#!/usr/bin/env python3
"""`pgpage index` and `pgpage verify` of every index access method against `pg_filedump -i` on the same index
files, in one run (issue 41's target: each at least 3x pg_filedump's throughput, memory flat).

Not part of the test suite. Needs Debian's PostgreSQL 15 with contrib and pg_filedump (``apt-get install -y
postgresql postgresql-contrib postgresql-filedump``). It builds one table of ``--rows`` rows (a tsvector, an int[],
a box, a point, an int and a text) and one index of each access method on it (GIN on the tsvector and on the
int[], GiST on the box, SP-GiST on the point, hash on the int, BRIN on the int, bloom on the int and the text),
deletes and updates some rows, checkpoints, stops the server, then measures warm, ``--runs`` times each in turns
(median), per index:

* ``pg_filedump -i FILE``                                   (every item decoded, printed)
* ``pgpage index DATADIR --db bench --rel INDEX --json``    (pages by kind, items, free space, the AM's statistics)
* ``pgpage verify DATADIR --db bench --rel INDEX --json``   (the AM's structure rules)

and prints MB/s (1 MB = 10^6 bytes of index files), each pgpage command's ratio to pg_filedump's (the target:
>= 3) and peak RSS. pgpage's times include its start (Python, the catalogs): on small indexes that dominates.

    python bench/index_am_bench.py                   # 2 M rows
    python bench/index_am_bench.py --rows 20000      # a quick try (a few MB of indexes)
    python bench/index_am_bench.py --rows 10000000 --indexes am_gist_box,am_hash_id --keep   # larger, fewer
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import MB, PGBIN, Server, as_postgres, interleaved_runs, machine, relation_files, run  # noqa: E402

INDEXES = {   # name -> CREATE INDEX tail
    "am_gin_tsv": "USING gin (tsv) WITH (fastupdate = off)",
    "am_gin_tags": "USING gin (tags) WITH (fastupdate = off)",
    "am_gist_box": "USING gist (bx)",
    "am_spgist_pt": "USING spgist (pt)",
    "am_hash_id": "USING hash (id)",
    "am_brin_id": "USING brin (id)",
    "am_bloom": "USING bloom (id, k)",
}


def build(server: Server, rows: int, indexes: dict) -> None:
    s = server.sql
    s("CREATE DATABASE bench", db="postgres")
    s("CREATE EXTENSION bloom")
    s("CREATE TABLE t (id int, k text, tsv tsvector, tags int[], bx box, pt point)")
    step = 500_000
    for lo in range(1, rows + 1, step):
        hi = min(rows, lo + step - 1)
        s(f"INSERT INTO t SELECT g, 'k' || (g % 1000), to_tsvector('simple', 'w' || (g % 997) || ' v' || (g % 101)"
          f" || ' u' || (g % 13) || ' x' || g), ARRAY[g % 50, g % 7000], box(point(g % 1000, g / 1000),"
          f" point(g % 1000 + 1.5, g / 1000 + 0.5)), point(g % 1000, g / 1000) FROM generate_series({lo}, {hi}) g")
    for name, tail in indexes.items():
        s(f"CREATE INDEX {name} ON t {tail}")
    s("DELETE FROM t WHERE id % 97 = 0")
    s("UPDATE t SET k = k || 'u' WHERE id % 89 = 0")
    s("CHECKPOINT")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement (the median is reported)")
    ap.add_argument("--workdir", default=None, help="where to put the cluster (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the cluster afterwards (for --reuse)")
    ap.add_argument("--reuse", default=None, help="a work directory a previous --keep left: skip the build")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    ap.add_argument("--indexes", default=",".join(INDEXES), help="the indexes to build and measure (comma-separated"
                    f" names of: {', '.join(INDEXES)})")
    args = ap.parse_args()
    indexes = {name: INDEXES[name] for name in args.indexes.split(",")}
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)   # pgpage measured as installed: byte-compiled once
    for tool in (PGBIN / "initdb", Path(shutil.which("pg_filedump") or "/nonexistent")):
        if not tool.exists():
            print(f"missing {tool}: apt-get install -y postgresql postgresql-contrib postgresql-filedump",
                  file=sys.stderr)
            return 2
    work = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="pgpage-am-bench-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    results: dict = {"machine": machine(), "rows": args.rows, "runs": args.runs, "indexes": {}}
    try:
        if not args.reuse:
            print(f"building the cluster in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            t0 = time.perf_counter()
            build(server, args.rows, indexes)
            results["build_seconds"] = round(time.perf_counter() - t0, 1)
        else:
            server.start()
        files = {name: relation_files(server, name) for name in indexes}
        server.stop()
        pgpage = [sys.executable, "-m", "pgpage"]
        for name, (paths, size) in files.items():
            for p in paths:       # warm: every file in the page cache
                p.read_bytes()
            dump = ["sh", "-c", " ".join(f"pg_filedump -i '{p}'" for p in paths) + " > /dev/null"]
            r = interleaved_runs({"pg_filedump -i": dump,
                                  "index": [*pgpage, "index", str(pgdata), "--db", "bench", "--rel", name, "--json"],
                                  "verify": [*pgpage, "verify", str(pgdata), "--db", "bench", "--rel", name,
                                             "--json"]}, args.runs)
            base = r["pg_filedump -i"]["seconds"]
            row = {"bytes": size, **{k: {"seconds": round(v["seconds"], 3), "mb_s": round(size / MB / v["seconds"], 1),
                                         "peak_rss_mb": v["peak_rss_mb"],
                                         "ratio": round(base / v["seconds"], 2)} for k, v in r.items()}}
            results["indexes"][name] = row
            print(f"{name:14} {size / MB:8.1f} MB   pg_filedump -i {row['pg_filedump -i']['mb_s']:7.1f} MB/s   "
                  f"index {row['index']['mb_s']:7.1f} MB/s (x{row['index']['ratio']})   "
                  f"verify {row['verify']['mb_s']:7.1f} MB/s (x{row['verify']['ratio']})")
    finally:
        server.stop()
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
        if args.keep or args.reuse:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
