#!/usr/bin/env python3
"""The large mutation campaign: damaged real files through every command (issue 42, item 7).

A case is one mutated input through one command (tests/mutation.py says how cases are made and judged); case
``i`` of seed ``S`` is always the same case, so a run is reproducible and resumable: every result is appended to
``--log`` (JSON lines), and a run with the same log goes on after the last case logged. At the end (or on
Ctrl-C) it prints counts by command, by kind of damage and by outcome, every failure with the line that
reproduces it, hangs, the peak RSS of a worker, and the rate.

    nice -n 19 python bench/mutation_campaign.py                        # 100,000 cases, seed 1
    nice -n 19 python bench/mutation_campaign.py --minutes 40           # as many as fit in 40 minutes
    python bench/mutation_campaign.py --log /tmp/m.jsonl --cases 500    # resumes /tmp/m.jsonl if it exists
    python bench/mutation_campaign.py --first 80000 --log /tmp/m2.jsonl # the later cases, on a second core
    python bench/mutation_campaign.py --replay /tmp/m.jsonl /tmp/m2.jsonl  # the cases that failed, run again
    python tests/mutation.py SEED INDEX                                 # one case again, with its traceback

Not part of the test suite (its CI-sized sample is tests/test_mutation_campaign.py).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mutation import Runner, outcome  # noqa: E402


def summary(results: list[dict], done: int, seconds: float) -> str:
    lines = []
    outcomes = Counter(outcome(r) for r in results)
    lines.append(f"cases: {len(results)}  outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for label, key in (("by command", "command"), ("by mutation kind", "kind"), ("by file kind", "target"),
                       ("by major", "major")):
        table: dict[str, Counter] = defaultdict(Counter)
        for r in results:
            table[str(r[key])][outcome(r)] += 1
        lines.append(f"{label}:")
        for k in sorted(table):
            c = table[k]
            lines.append(f"  {k:<22} {sum(c.values()):>7}  " + "  ".join(f"{o} {n}" for o, n in sorted(c.items())))
    fixed = sum(1 for r in results if r.get("checksum_fixed"))
    lines.append(f"checksum (or CRC) recomputed after the damage: {fixed} cases")
    rss = [r["maxrss_mb"] for r in results if r.get("maxrss_mb")]
    slow = max(results, key=lambda r: r["seconds"] or 0) if results else None
    lines.append(f"peak RSS of a worker: {max(rss):.0f} MB" if rss else "peak RSS: -")
    if slow:
        lines.append(f"slowest case: {slow['seconds']:.2f} s: {slow['reproducer']}")
    if seconds:
        lines.append(f"rate: {done / seconds:.2f} cases/s ({done} cases in {seconds:.0f} s this run)")
    failures = [r for r in results if r["failure"]]
    lines.append(f"failures: {len(failures)}")
    by_sig: dict[str, list[dict]] = defaultdict(list)
    for r in failures:
        last = [ln for ln in (r["detail"] if r["failure"] else "").strip().splitlines() if ln.strip()][-1:] or [""]
        by_sig[f"{r['failure']} | {r['command'].split()[0]} | {last[0][:160]}"].append(r)
    for sig, rs in sorted(by_sig.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  {len(rs):>5} x {sig}")
        lines.append(f"          e.g. {rs[0]['reproducer']}")
        lines.append(f"               pgpage {rs[0]['argv']}")
    return "\n".join(lines)


def replay(logs: list[Path], args) -> int:
    """Every case that failed in ``logs``, run again: one line each (then and now); 1 if any fails now."""
    failed = sorted({(r["index"], r["failure"]) for p in logs for r in map(json.loads, p.read_text().splitlines())
                     if r["failure"]})
    runner = Runner(case_seconds=args.case_seconds, rss_limit_mb=args.rss_limit_mb)
    still = 0
    try:
        for index, then in failed:
            r = runner.run(args.seed, index)
            still += r["failure"] is not None
            print(f"{index:>6}  then: {then:<18} now: {outcome(r):<10} {r['command']}")
    finally:
        runner.close()
    print(f"{len(failed)} cases that failed, {still} failing now")
    return 1 if still else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="Start at this case (a second process on another core takes"
                    " the later cases, with a log of its own).")
    ap.add_argument("--minutes", type=float, default=None, help="Stop after this long (resume later with --log).")
    ap.add_argument("--log", default=None, help="JSON lines of results (default /tmp/pgpage-mutation-SEED.jsonl).")
    ap.add_argument("--case-seconds", type=float, default=60.0)
    ap.add_argument("--rss-limit-mb", type=float, default=1024.0)
    ap.add_argument("--replay", nargs="*", metavar="LOG", default=None,
                    help="Run again every case that failed in these logs (or --log), with this code: their outcomes now.")
    args = ap.parse_args()
    log = Path(args.log or f"/tmp/pgpage-mutation-{args.seed}.jsonl")
    if args.replay is not None:
        return replay([Path(p) for p in args.replay] or [log], args)
    results = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    start = max(max((r["index"] for r in results), default=-1) + 1, args.first)
    print(f"seed {args.seed}, cases {start}..{args.cases - 1}, log {log}", file=sys.stderr)
    runner = Runner(case_seconds=args.case_seconds, rss_limit_mb=args.rss_limit_mb)

    def stop(signum, frame):                  # a background job ignores SIGINT: SIGTERM stops it the same way
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    began = time.monotonic()
    done = 0
    try:
        with log.open("a") as out:
            for i in range(start, args.cases):
                if args.minutes and time.monotonic() - began > args.minutes * 60:
                    break
                r = runner.run(args.seed, i)
                results.append(r)
                done += 1
                out.write(json.dumps(r) + "\n")
                out.flush()
                if r["failure"]:
                    print(f"[{i}] {r['failure']}: {r['reproducer']}", file=sys.stderr)
                if done % 500 == 0:
                    el = time.monotonic() - began
                    print(f"{i + 1} cases, {done / el:.2f}/s", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        runner.close()
    print(summary(results, done, time.monotonic() - began if done else 0))
    return 1 if any(r["failure"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
