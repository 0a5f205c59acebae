#!/usr/bin/env python3
"""`pgpage verify` against `pg_checksums --check` on the same files, in one run: MB/s per core on the heap table
and on a B-tree index of run_bench.py's table, and the ratios issue 19's targets are stated in.

Not part of the test suite. Needs Debian's PostgreSQL 15 (``apt-get install -y postgresql postgresql-contrib``).
It builds run_bench.py's table (``--rows`` rows of (int, md5 text, timestamptz), two B-tree indexes, VACUUMed,
2% HOT-updated, 1% deleted, hint bits set, checkpointed; data checksums on), stops the server cleanly, reads the
files into the page cache, then measures warm, ``--runs`` times each in turns (median):

* ``pg_checksums --check --filenode N`` of the heap and of the index (the server's own binary, cluster stopped);
* ``pgpage verify DATADIR --db bench --rel bench --jobs 1`` and ``--rel bench_id --jobs 1`` (output to /dev/null),
  and ``--rel bench_id --jobs 1 --heapallindexed``;
* before the server stops, amcheck in it on the same relations (``bt_index_check``, with and without
  heapallindexed, and ``verify_heapam``), for scale: what a DBA runs today.

and prints MB/s (1 MB = 10^6 bytes of relation files) and the ratios: the targets are verify >= 1000 MB/s on the
heap and >= 500 MB/s on the B-tree, on one core.

    python bench/verify_bench.py                         # 12 M rows (a 1 GB heap, a 270 MB index)
    python bench/verify_bench.py --keep                  # ... and keep the cluster (prints where)
    python bench/verify_bench.py --reuse /tmp/pgpage-verify-bench-XXXX
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import MB, PGBIN, Server, as_postgres, build, machine, relation_files, run, timed  # noqa: E402


def cpu_runs(cmds: dict[str, list[str]], runs: int) -> dict[str, dict]:
    """Each command ``runs`` times in turns: median wall seconds, and median CPU seconds (user + system, of the
    command and its children), which a busy machine distorts less than the wall clock."""
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(runs):
        for key, cmd in cmds.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall, _, _ = timed(cmd)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            walls[key].append(wall)
            cpus[key].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return {k: {"seconds": statistics.median(walls[k]), "cpu": statistics.median(cpus[k]), "best": min(walls[k])}
            for k in cmds}


# amcheck in the server on the same relations, one backend (one core), by the server's own clock: a peer for
# scale, not a like-for-like check (bt_index_check reads no table; pgpage's verify of an index also checks that
# every heap TID lands on a line pointer that can hold it, which reads the table's pages)
AMCHECK = {"amcheck bt_index_check": ("bench_id", "SELECT bt_index_check('bench_id')"),
           "amcheck bt_index_check hai": ("bench_id", "SELECT bt_index_check('bench_id', true)"),
           "amcheck verify_heapam": ("bench", "SELECT count(*) FROM verify_heapam('bench')")}
HAI = "verify bench_id --hai"   # pgpage verify --heapallindexed of the index, beside amcheck's


def amcheck_runs(server: Server, rels: dict, runs: int) -> dict[str, tuple[str, float]]:
    """The median seconds of each AMCHECK statement, ``runs`` times in turns, the relations' files warm."""
    server.sql("CREATE EXTENSION IF NOT EXISTS amcheck")
    for files, _, _ in rels.values():
        for f in files:
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
    seconds: dict[str, list[float]] = {k: [] for k in AMCHECK}
    for _ in range(runs):
        for what, (_, query) in AMCHECK.items():
            seconds[what].append(server.sql(query, timing=True)[1])
    return {what: (name, statistics.median(seconds[what])) for what, (name, _) in AMCHECK.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=12_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--reuse", default=None, help="a work directory this script's --keep (or run_bench.py's) left")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--build-only", action="store_true", help="build the cluster, keep it, measure nothing")
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if not (PGBIN / "initdb").exists():
        print(f"missing {PGBIN / 'initdb'}: apt-get install -y postgresql postgresql-contrib", file=sys.stderr)
        return 2
    work = Path(args.reuse) if args.reuse else Path(tempfile.mkdtemp(prefix="pgpage-verify-bench-",
                                                                     dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    keep = args.keep or args.build_only or bool(args.reuse)
    try:
        if not args.reuse:
            print(f"building {args.rows} rows in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            build(server, args.rows)
        else:
            server.start()
        rels = {}
        for name in ("bench", "bench_id"):
            files, size = relation_files(server, name)
            rels[name] = (files, size, server.sql(f"SELECT pg_relation_filenode('{name}')"))
        amcheck = {} if args.build_only else amcheck_runs(server, rels, args.runs)
        server.stop()   # a clean shutdown: quiet files, and pg_checksums runs only on a stopped cluster
        if args.build_only:
            return 0
        for files, _, _ in rels.values():      # into the page cache
            for f in files:
                with open(f, "rb") as fh:
                    while fh.read(1 << 24):
                        pass
        pgpage = [sys.executable, "-m", "pgpage"]
        # the compiled kernel is built (or found) once before anything is timed
        run([sys.executable, "-c", "from pgpage.decode import clib; clib.lib()"])
        cmds = {}
        for name, (files, size, filenode) in rels.items():
            cmds[f"pg_checksums {name}"] = as_postgres([str(PGBIN / "pg_checksums"), "--check", "-D", str(pgdata),
                                                        "--filenode", filenode])
            cmds[f"verify {name}"] = pgpage + ["verify", str(pgdata), "--db", "bench", "--rel", name, "--jobs", "1"]
        cmds[HAI] = cmds["verify bench_id"] + ["--heapallindexed"]
        res = cpu_runs(cmds, args.runs)
        m = machine()
        print(f"\n{m.get('cpu', '')}, {m.get('nproc', '')} cores, load average {os.getloadavg()[0]:.1f};"
              f" medians of {args.runs} runs, warm, one core (MB/s over wall and over CPU seconds; best s: the"
              " fastest run, which shows when the VM changed speed between runs)")
        print(f"{'':28s}{'MB':>8s}{'wall s':>9s}{'MB/s':>8s}{'CPU s':>9s}{'MB/s':>8s}{'best s':>9s}")
        speed = {}
        for name, (files, size, _) in rels.items():
            for what in ("verify", "pg_checksums"):
                r = res[f"{what} {name}"]
                speed[what, name] = size / MB / r["seconds"], size / MB / r["cpu"]
                print(f"{what + ' ' + name:28s}{size / MB:8.0f}{r['seconds']:9.2f}{speed[what, name][0]:8.0f}"
                      f"{r['cpu']:9.2f}{speed[what, name][1]:8.0f}{r['best']:9.2f}")
        r = res[HAI]
        size = rels["bench_id"][1]
        print(f"{HAI:28s}{size / MB:8.0f}{r['seconds']:9.2f}{size / MB / r['seconds']:8.0f}{r['cpu']:9.2f}"
              f"{size / MB / r['cpu']:8.0f}{r['best']:9.2f}")
        for what, (name, seconds) in amcheck.items():
            size = rels[name][1]
            print(f"{what:28s}{size / MB:8.0f}{seconds:9.2f}{size / MB / seconds:8.0f}")
        print()
        if "amcheck bt_index_check hai" in amcheck:
            print(f"verify --heapallindexed: {amcheck['amcheck bt_index_check hai'][1] / r['seconds']:.2f}x the speed"
                  " of amcheck's bt_index_check(heapallindexed) (wall)")
        for name, target, kind in (("bench", 1000, "heap"), ("bench_id", 500, "B-tree")):
            (v, vc), (c, cc) = speed["verify", name], speed["pg_checksums", name]
            print(f"{kind:7s} verify {v:5.0f} MB/s wall, {vc:5.0f} MB/s CPU (target {target}:"
                  f" {'met' if min(v, vc) >= target else 'met on CPU time' if vc >= target else 'NOT met'});"
                  f" {v / c:.2f}x pg_checksums --check (wall), {vc / cc:.2f}x (CPU)")
        return 0
    finally:
        server.stop()
        if keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
