#!/usr/bin/env python3
"""pgpage's speed against pg_filedump, pgstattuple/pgstatindex and pg_checksums, on the same files, in one run.

Not part of the test suite (CI does not run it). It needs Debian's PostgreSQL 15 (``apt-get install -y
postgresql postgresql-contrib postgresql-filedump``) and pgpage installed (``pip install .``).

What it does:
1. starts a real PostgreSQL 15 server (``/usr/lib/postgresql/15/bin``, as user ``postgres`` when run as root,
   socket in a temporary directory, data checksums on);
2. builds a table of (int, md5 text, timestamptz) rows, by default about 6 GB (six 1 GiB segments), with two
   btree indexes, VACUUMs it, then HOT-updates 2% of the rows and deletes 1% (so there are HOT chains, dead
   tuples and pages that are not all-visible), runs pgstattuple once (hint bits) and CHECKPOINTs;
3. measures, warm (files in the page cache), each command ``--runs`` times (median; --jobs 1 and 2 in turns):
   pgstattuple and pgstatindex in the server; then with the server stopped cleanly (so nothing changes the
   files and pg_checksums can run): pg_filedump default and ``-i`` over the heap's segments (output to
   /dev/null), pg_filedump over the indexes, pg_checksums --check of the cluster, and ``pgpage heap``,
   ``pgpage index``, ``pgpage verify``, ``pgpage scan`` and ``pgpage scan --deep`` with --jobs 1 and 2,
   the checksum kernel alone, ``pgpage --help`` and the time to build the compiled scanner;
4. prints throughput (MB/s, 1 MB = 10^6 bytes), the ratios the targets of issue 8 are stated in, and peak RSS
   (``/usr/bin/time``'s maximum resident set size: the largest of the command's processes, a ``--jobs`` worker
   counting on its own);
5. stops the server and removes everything it made (``--keep`` keeps the cluster; ``--reuse DIR`` starts from a
   cluster a previous ``--keep`` left).

    python bench/run_bench.py                   # about 30 minutes on 2 cores (12 GB of disk, 16 GB of RAM)
    python bench/run_bench.py --rows 25000000   # 2 GB: the smallest the targets are about (1.5 GB and up)
    python bench/run_bench.py --rows 2000000    # a quick look (one segment; not what the targets are about)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PGBIN = Path("/usr/lib/postgresql/15/bin")
MB = 1e6


# ---------------------------------------------------------------------------------------------- helpers
def as_postgres(cmd: list[str]) -> list[str]:
    """Run a server tool as the postgres user when we are root (initdb and postgres refuse root)."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def timed(cmd: list[str], env: dict | None = None, timeout: float | None = None) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in MB of the largest of the command's processes, exit code); output to /dev/null.
    Past ``timeout`` seconds the command and its workers are killed and TimeoutExpired raised."""
    with tempfile.NamedTemporaryFile("r") as tf:
        full = ["/usr/bin/time", "-f", "%e %M", "-o", tf.name, *cmd] if Path("/usr/bin/time").exists() else cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
        try:
            _, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        wall = time.perf_counter() - t0
        rss = 0
        text = Path(tf.name).read_text().split()
        if len(text) >= 2:
            rss = int(text[-1]) // 1024
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {err[-2000:]}")
    return wall, rss, p.returncode


def median_run(cmd: list[str], runs: int, env: dict | None = None, timeout: float | None = None) -> dict:
    return interleaved_runs({"": cmd}, runs, env, timeout)[""]


def interleaved_runs(cmds: dict[str, list[str]], runs: int, env: dict | None = None,
                     timeout: float | None = None) -> dict[str, dict]:
    """Each command ``runs`` times, taking turns; per command the median wall time, every run's, the median CPU
    time of all its processes (user and system, every core's), and the peak RSS."""
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    rsss: dict[str, list[int]] = {k: [] for k in cmds}
    for _ in range(runs):
        for key, cmd in cmds.items():
            before = children_cpu()
            wall, rss, _ = timed(cmd, env, timeout)
            walls[key].append(wall)
            cpus[key].append(children_cpu() - before)
            rsss[key].append(rss)
    return {k: {"seconds": statistics.median(walls[k]), "all_seconds": walls[k],
                "cpu_seconds": statistics.median(cpus[k]), "peak_rss_mb": max(rsss[k])} for k in cmds}


def children_cpu() -> float:
    """User and system seconds of every process this one has waited for (and theirs, down the tree)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Server:
    def __init__(self, pgdata: Path, sock: Path):
        self.pgdata, self.sock = pgdata, sock

    def start(self) -> None:
        opts = (f"-c listen_addresses='' -c unix_socket_directories={self.sock} -c fsync=off -c autovacuum=off"
                " -c synchronous_commit=off -c full_page_writes=off -c max_wal_size=8GB -c checkpoint_timeout=1h"
                " -c maintenance_work_mem=512MB -c shared_buffers=256MB")
        run(as_postgres([str(PGBIN / "pg_ctl"), "-D", str(self.pgdata), "-w", "-l", str(self.pgdata.parent / "log"),
                         "-o", opts, "start"]))

    def stop(self) -> None:
        subprocess.run(as_postgres([str(PGBIN / "pg_ctl"), "-D", str(self.pgdata), "-w", "-m", "fast", "stop"]),
                       capture_output=True)

    def sql(self, query: str, db: str = "bench", timing: bool = False):
        cmd = [str(PGBIN / "psql") if (PGBIN / "psql").exists() else "psql", "-h", str(self.sock), "-U",
               "postgres", "-d", db, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        if timing:
            cmd += ["-c", "\\timing on"]
        out = run(cmd + ["-c", query]).stdout
        if timing:
            ms = [float(x) for x in re.findall(r"Time: ([\d.]+) ms", out)]
            return out, ms[-1] / 1000.0
        return out.strip()


def build(server: Server, rows: int) -> None:
    s = server.sql
    s("CREATE DATABASE bench", db="postgres")
    s("CREATE EXTENSION pgstattuple")
    s("CREATE TABLE bench (id int, md5 text, ts timestamptz) WITH (fillfactor = 95)")
    step = 2_000_000
    for lo in range(1, rows + 1, step):
        hi = min(rows, lo + step - 1)
        s(f"INSERT INTO bench SELECT g, md5(g::text), '2026-01-01'::timestamptz + g * interval '1 second'"
          f" FROM generate_series({lo}, {hi}) g")
    s("CREATE INDEX bench_id ON bench (id)")
    s("CREATE INDEX bench_md5 ON bench (md5)")
    s("VACUUM (ANALYZE) bench")
    s("UPDATE bench SET ts = ts + interval '1 day' WHERE id % 50 = 0")   # HOT: ts is not indexed
    s("DELETE FROM bench WHERE id % 97 = 0")
    s("SELECT count(*) FROM pgstattuple('bench')")                        # sets the hint bits, as any reader
    s("CHECKPOINT")


def relation_files(server: Server, rel: str) -> tuple[list[Path], int]:
    path = server.pgdata / server.sql(f"SELECT pg_relation_filepath('{rel}')")
    files = sorted(path.parent.glob(path.name + "*"), key=lambda p: (len(p.name), p.name))
    files = [f for f in files if re.fullmatch(re.escape(path.name) + r"(\.\d+)?", f.name)]
    return files, sum(f.stat().st_size for f in files)


def machine() -> dict:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem, 1), "python": platform.python_version(),
            "kernel": platform.release()}


def pgpage_has(command: str) -> tuple[bool, bool]:
    """(command exists, it takes --jobs)."""
    p = subprocess.run([sys.executable, "-m", "pgpage", command, "--help"], capture_output=True, text=True)
    return p.returncode == 0, "--jobs" in p.stdout


CHECKSUM_SNIPPET = """
import sys, time
from pgpage.storage.datadir import open_data_directory
from pgpage.passes.heap import fork_pass
from pgpage.decode.kernels import warm
warm()
cluster = open_data_directory(sys.argv[1])
rel = cluster.database("bench").relation("public.bench")
fork = rel.forks["main"]
t = time.perf_counter()
bad = fork_pass(fork, fork.first_block, fork.end_block, True)
print(time.perf_counter() - t, len(bad))
"""


ANALYSIS_SNIPPET = """
import sys, time
from pgpage.storage.datadir import open_data_directory
from pgpage.passes.heap import heap_report
from pgpage.decode.kernels import warm
warm()
cluster = open_data_directory(sys.argv[1])
rel = cluster.database("bench").relation("public.bench")
t = time.perf_counter()
heap_report(cluster, rel.forks["main"], rel.forks.get("vm"), rel.forks.get("fsm"), "bench", jobs=int(sys.argv[2]))
print(time.perf_counter() - t)
"""


# ---------------------------------------------------------------------------------------------- main
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=75_000_000, help="rows in the table (75M: about 6 GB)")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement (the median is reported)")
    ap.add_argument("--workdir", default=None, help="where to put the cluster (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the cluster afterwards (for --reuse)")
    ap.add_argument("--reuse", default=None, help="a work directory a previous --keep left: skip the build")
    ap.add_argument("--json", default=None, help="also write the results to this file")
    ap.add_argument("--timeout", type=float, default=240, help="seconds a pgpage command may take (then: reported"
                    " as not finished)")
    ap.add_argument("--build-only", action="store_true", help="build the cluster, keep it, measure nothing")
    args = ap.parse_args()
    # pgpage is measured as installed: byte-compiled once (pip does it; a checkout's first run writes
    # __pycache__), not compiled from source on every start, which this variable would force
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

    for tool in (PGBIN / "initdb", Path(shutil.which("pg_filedump") or "/nonexistent")):
        if not tool.exists():
            print(f"missing {tool}: apt-get install -y postgresql postgresql-contrib postgresql-filedump",
                  file=sys.stderr)
            return 2
    if args.reuse:
        work = Path(args.reuse)
    else:
        work = Path(tempfile.mkdtemp(prefix="pgpage-bench-", dir=args.workdir))
    pgdata, sock = work / "data", work / "sock"
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
    sock.mkdir(exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(sock, "postgres")
    server = Server(pgdata, sock)
    results: dict = {"machine": machine(), "rows": args.rows, "runs": args.runs}
    try:
        if not args.reuse:
            print(f"building the cluster in {work} ...", file=sys.stderr)
            run(as_postgres([str(PGBIN / "initdb"), "-k", "-D", str(pgdata), "-U", "postgres", "--no-sync"]))
            server.start()
            t0 = time.perf_counter()
            build(server, args.rows)
            results["build_seconds"] = round(time.perf_counter() - t0, 1)
            if args.build_only:
                args.keep = True
                return 0
        else:
            server.start()
        heap_files, heap_bytes = relation_files(server, "bench")
        idx = {name: relation_files(server, name) for name in ("bench_id", "bench_md5")}
        results["heap_bytes"] = heap_bytes
        results["heap_segments"] = len(heap_files)
        results["index_bytes"] = {k: v[1] for k, v in idx.items()}
        print(f"heap {heap_bytes / MB:.0f} MB in {len(heap_files)} segments; indexes "
              + ", ".join(f"{k} {v[1] / MB:.0f} MB" for k, v in idx.items()), file=sys.stderr)

        # ---------------------------------------------------------------- in the server, warm
        print("pgstattuple / pgstatindex ...", file=sys.stderr)
        server.sql("SELECT count(*) FROM pgstattuple('bench')")  # warm
        pst = [server.sql("SELECT * FROM pgstattuple('bench')", timing=True)[1] for _ in range(args.runs)]
        results["pgstattuple"] = {"seconds": statistics.median(pst), "all_seconds": pst}
        results["pgstatindex"] = {}
        for name in idx:
            server.sql(f"SELECT * FROM pgstatindex('{name}')")
            t = [server.sql(f"SELECT * FROM pgstatindex('{name}')", timing=True)[1] for _ in range(args.runs)]
            results["pgstatindex"][name] = {"seconds": statistics.median(t), "all_seconds": t}
        server.stop()  # a clean shutdown: quiet files for everything below, and pg_checksums can run

        # ---------------------------------------------------------------- on the files
        for f in [*heap_files, *(p for v in idx.values() for p in v[0])]:  # into the page cache
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        print("pg_filedump ...", file=sys.stderr)
        for label, opts in (("pg_filedump", []), ("pg_filedump -i", ["-i"])):
            walls = []
            for _ in range(args.runs):
                walls.append(sum(timed(["pg_filedump", *opts, str(f)])[0] for f in heap_files))
            results[label] = {"seconds": statistics.median(walls), "all_seconds": walls}
        walls = []
        for _ in range(args.runs):
            walls.append(sum(timed(["pg_filedump", str(f)])[0] for v in idx.values() for f in v[0]))
        results["pg_filedump indexes"] = {"seconds": statistics.median(walls), "all_seconds": walls}
        print("pg_checksums ...", file=sys.stderr)
        results["pg_checksums"] = median_run(as_postgres([str(PGBIN / "pg_checksums"), "--check", "-D", str(pgdata)]),
                                             args.runs)
        results["cluster_bytes"] = sum(p.stat().st_size for p in (pgdata / "base").rglob("*") if p.is_file())

        pgpage = [sys.executable, "-m", "pgpage"]
        # the compiled scanner: built once by `pip install .`; a source checkout builds it on first use
        print("pgpage: scanner build time ...", file=sys.stderr)
        built = run([sys.executable, "-c", "import sys, time; from pathlib import Path;"
                     " from pgpage.decode import kernels as k; t = time.perf_counter();"
                     " k.build(Path(sys.argv[1]) / 'scanner.so', k.source_sha()); print(time.perf_counter() - t)",
                     str(work)]).stdout
        results["scanner_build_seconds"] = round(float(built), 2)
        helps = []
        for _ in range(7):
            t0 = time.perf_counter()
            run([shutil.which("pgpage") or "pgpage", "--help"])  # (check: a failing entry point is no timing)
            helps.append(time.perf_counter() - t0)
        results["help_seconds"] = statistics.median(helps)

        print("pgpage ...", file=sys.stderr)
        commands = {
            "heap": (["heap", str(pgdata), "--db", "bench", "--rel", "bench", "--json"], heap_bytes),
            "scan": (["scan", str(pgdata), "--json"], results["cluster_bytes"]),
            "scan --deep": (["scan", str(pgdata), "--deep", "--json"], results["cluster_bytes"]),
        }
        for name in idx:
            commands[f"index {name}"] = (["index", str(pgdata), "--db", "bench", "--rel", name, "--json"], idx[name][1])
        commands["verify bench"] = (["verify", str(pgdata), "--db", "bench", "--rel", "bench", "--json"], heap_bytes)
        commands["verify cluster"] = (["verify", str(pgdata), "--json"], results["cluster_bytes"])
        results["pgpage"] = {}
        for label, (argv, nbytes) in commands.items():
            exists, has_jobs = pgpage_has(argv[0])
            if not exists:
                continue
            if has_jobs:  # a warm-up of each, then --jobs 1 and 2 in turns (a slow spell of this shared VM hits
                # both alike), the median of --runs each
                cmds = {f"{label} --jobs {jobs}": [*pgpage, *argv, "--jobs", str(jobs)] for jobs in (1, 2)}
                runs = args.runs
            else:  # one run
                cmds, runs = {label: [*pgpage, *argv]}, 1
            try:
                for cmd in cmds.values() if has_jobs else ():
                    timed(cmd, timeout=args.timeout)
                measured = interleaved_runs(cmds, runs, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                for key in cmds:
                    results["pgpage"][key] = {"timed_out": args.timeout, "bytes": nbytes}
                continue
            for key, r in measured.items():
                r["bytes"] = nbytes
                r["mb_per_s"] = nbytes / MB / r["seconds"]
                results["pgpage"][key] = r
        # the heap analysis alone, in-process, after the relation was found through the catalogs: what --jobs
        # spreads over cores (the command adds interpreter start-up and the catalog read, ~0.3 s here)
        walls: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.runs):
            for jobs in (1, 2):  # in turns, as the commands
                out = run([sys.executable, "-c", ANALYSIS_SNIPPET, str(pgdata), str(jobs)]).stdout.split()
                walls[jobs].append(float(out[0]))
        results["heap_analysis"] = {jobs: {"seconds": statistics.median(w), "all_seconds": w}
                                    for jobs, w in walls.items()}
        # the checksum kernel alone, in-process (no interpreter start-up): MB/s per core
        ck = []
        for _ in range(args.runs):
            out = run([sys.executable, "-c", CHECKSUM_SNIPPET, str(pgdata)]).stdout.split()
            ck.append(float(out[0]))
        results["checksum_pass"] = {"seconds": statistics.median(ck), "all_seconds": ck}
    finally:
        server.stop()
        if not args.keep and not args.reuse:
            shutil.rmtree(work, ignore_errors=True)
        elif args.keep:
            print(f"kept {work}", file=sys.stderr)

    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def report(r: dict) -> None:
    hb = r["heap_bytes"]
    m = r["machine"]
    rate = lambda nbytes, s: nbytes / MB / s  # noqa: E731
    print(f"\nmachine: {m['nproc']} x {m['cpu']}, {m['memory_gib']} GiB, Python {m['python']}, Linux {m['kernel']}")
    print(f"heap: {hb / MB:.0f} MB ({r['heap_segments']} segments, {r['rows']} rows); indexes: "
          + ", ".join(f"{k} {v / MB:.0f} MB" for k, v in r["index_bytes"].items())
          + f"; cluster base/: {r['cluster_bytes'] / MB:.0f} MB")
    rows = []
    fd = rate(hb, r["pg_filedump"]["seconds"])
    pst = rate(hb, r["pgstattuple"]["seconds"])
    rows.append(("pg_filedump (heap, default text)", r["pg_filedump"]["seconds"], fd, None))
    rows.append(("pg_filedump -i (heap)", r["pg_filedump -i"]["seconds"], rate(hb, r["pg_filedump -i"]["seconds"]), None))
    ib = sum(r["index_bytes"].values())
    rows.append(("pg_filedump (indexes)", r["pg_filedump indexes"]["seconds"], rate(ib, r["pg_filedump indexes"]["seconds"]),
                 None))
    rows.append(("pgstattuple (in server, warm)", r["pgstattuple"]["seconds"], pst, None))
    for k, v in r["pgstatindex"].items():
        rows.append((f"pgstatindex {k} (in server, warm)", v["seconds"], rate(r["index_bytes"][k], v["seconds"]), None))
    rows.append(("pg_checksums --check (cluster)", r["pg_checksums"]["seconds"],
                 rate(r["cluster_bytes"], r["pg_checksums"]["seconds"]), r["pg_checksums"]["peak_rss_mb"]))
    for k, v in r["pgpage"].items():
        if "timed_out" in v:
            print(f"pgpage {k}: did not finish in {v['timed_out']:.0f} s (killed)")
            continue
        rows.append((f"pgpage {k}", v["seconds"], v["mb_per_s"], v["peak_rss_mb"]))
    for jobs, v in r["heap_analysis"].items():
        rows.append((f"heap analysis alone, in-process, --jobs {jobs}", v["seconds"], rate(hb, v["seconds"]), None))
    rows.append(("checksum kernel alone (heap, 1 core)", r["checksum_pass"]["seconds"],
                 rate(hb, r["checksum_pass"]["seconds"]), None))
    print(f"\n{'what':<46} {'seconds':>8} {'MB/s':>8} {'peak RSS MB':>12}")
    for label, s, mbs, rss in rows:
        print(f"{label:<46} {s:>8.2f} {mbs:>8.0f} {rss if rss is not None else '':>12}")
    print(f"\npgpage --help: {r['help_seconds'] * 1000:.0f} ms; building the compiled scanner (cc -O3, once, at"
          f" pip install or a source checkout's first run): {r['scanner_build_seconds']:.1f} s")

    p = r["pgpage"]
    print("\ntargets (issue 8):")
    heap1 = p.get("heap --jobs 1")
    heap2 = p.get("heap --jobs 2")
    if heap1:
        print(f"  pgpage heap vs pg_filedump default: {heap1['mb_per_s'] / fd:.2f}x (target >= 3)")
        print(f"  pgpage heap vs pgstattuple in server: {heap1['mb_per_s'] / pst:.2f}x (target >= 1)")
        if heap2:
            print(f"  pgpage heap --jobs 2 vs pg_filedump: {heap2['mb_per_s'] / fd:.2f}x,"
                  f" vs pgstattuple: {heap2['mb_per_s'] / pst:.2f}x")
    print(f"  checksum verification per core: {rate(hb, r['checksum_pass']['seconds']):.0f} MB/s (target >= 1000)")
    peak = max((v["peak_rss_mb"] for v in p.values() if "peak_rss_mb" in v), default=0)
    print(f"  peak RSS of any pgpage command: {peak} MB (target < 300)")
    for k in sorted({k.rsplit(' --jobs', 1)[0] for k in p if "--jobs" in k}):
        a, b = p.get(f"{k} --jobs 1"), p.get(f"{k} --jobs 2")
        if a and b:
            print(f"  {k}: --jobs 2 is {a['seconds'] / b['seconds']:.2f}x faster than --jobs 1 (target >= 1.7)")
    ha = r["heap_analysis"]
    a1, a2 = ha.get(1) or ha.get("1"), ha.get(2) or ha.get("2")
    print(f"  heap analysis alone (no start-up, no catalog read): --jobs 2 is {a1['seconds'] / a2['seconds']:.2f}x"
          f" faster than --jobs 1; --jobs 1 vs pgstattuple: {rate(hb, a1['seconds']) / pst:.2f}x")
    print(f"  pgpage --help: {r['help_seconds'] * 1000:.0f} ms (target < 300)")


if __name__ == "__main__":
    sys.exit(main())
