#!/usr/bin/env python3
"""A/B timing of pgpage commands: two checkouts of pgpage on the same data directory, run in turns.

A structural change (a split, a refactor) must not make pgpage slower. This runs each command of the list with
checkout A, then B, then A again... (``--runs`` times each, alternating, so that load on the machine falls on
both alike), output to /dev/null, files warm, and prints the median wall time and CPU time (user + system, of the
command and its workers) of each and the ratios B/A: on a machine shared with other work the CPU time is the
figure to trust, the wall time stretching with the load.

    python bench/ab_bench.py --a /path/to/old-checkout --b . --data /path/to/pgdata --db bench --rel bench

Each checkout runs as ``python -m pgpage`` with PYTHONPATH set to it; its compiled kernel is built once before
timing (it is cached per source hash, so the two checkouts do not share one unless their C sources are equal).
Not part of the test suite. The cluster: any data directory (run_bench.py --build-only --keep builds one).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def commands(data: str, db: str, rel: str, index: str) -> dict[str, list[str]]:
    on = [data, "--db", db, "--rel"]
    return {
        "--help (start-up)": ["--help"],
        "page --block 100 --json": ["page", *on, rel, "--block", "100", "--json"],
        "heap": ["heap", *on, rel, "--jobs", "1"],
        "heap --jobs 2": ["heap", *on, rel, "--jobs", "2"],
        "index": ["index", *on, index, "--jobs", "1"],
        "verify (table)": ["verify", *on, rel, "--jobs", "1"],
        "verify (index)": ["verify", *on, index, "--jobs", "1"],
        "scan --deep": ["scan", data, "--deep", "--jobs", "1"],
        "rows --csv": ["rows", *on, rel, "--csv"],
        "rows --json": ["rows", *on, rel, "--json"],
    }


def timed(checkout: Path, argv: list[str], timeout: float) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit status) of one run."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "pgpage", *argv], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout, cwd=checkout)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, required=True, help="the checkout before (baseline)")
    ap.add_argument("--b", type=Path, required=True, help="the checkout after")
    ap.add_argument("--data", required=True)
    ap.add_argument("--db", default="bench")
    ap.add_argument("--rel", default="bench")
    ap.add_argument("--index", default="bench_id")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated command labels to run")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    cmds = commands(args.data, args.db, args.rel, args.index)
    if args.only:
        cmds = {k: v for k, v in cmds.items() if k in args.only.split(",")}
    checkouts = {"A": args.a.resolve(), "B": args.b.resolve()}
    for c in checkouts.values():   # builds (or finds) each checkout's compiled kernel, warms the files
        timed(c, ["heap", args.data, "--db", args.db, "--rel", args.rel], args.timeout)
    print(f"A = {checkouts['A']}\nB = {checkouts['B']}\n{args.runs} runs each, alternating; median seconds")
    print(f"{'command':<26} {'wall A':>8} {'wall B':>8} {'B/A':>6} {'CPU A':>8} {'CPU B':>8} {'B/A':>6}  exit A/B")
    for label, argv in cmds.items():
        wall: dict[str, list[float]] = {"A": [], "B": []}
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        codes: dict[str, set[int]] = {"A": set(), "B": set()}
        for i in range(args.runs):
            for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
                w, c, rc = timed(checkouts[side], argv, args.timeout)
                wall[side].append(w)
                cpu[side].append(c)
                codes[side].add(rc)
        wa, wb = statistics.median(wall["A"]), statistics.median(wall["B"])
        ca, cb = statistics.median(cpu["A"]), statistics.median(cpu["B"])
        print(f"{label:<26} {wa:>8.2f} {wb:>8.2f} {wb / wa:>6.2f} {ca:>8.2f} {cb:>8.2f} {cb / ca:>6.2f}"
              f"  {sorted(codes['A'])}/{sorted(codes['B'])}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
