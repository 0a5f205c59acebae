#!/usr/bin/env python3
"""Damaged fixture clusters through `export` and `rows --parquet`: the mutation campaign's cases (tests/mutation.py:
the same damage, file by file) with the Parquet commands, which the campaign's cycle of commands leaves out (adding
them would change every logged case of its seeds). Each case runs `export --db pgpage -o DIR` (every other one with
`--rows`), `rows --rel public.heap_hot --parquet FILE` and `rows --rel public.row_types --all --parquet FILE` on
the damaged copy; a case fails on a traceback or an exit status outside {0, 1, 3}.

    python bench/export_mutations.py --seed 7 --cases 600        # about a second a case
    python bench/export_mutations.py --seed 7 --first 148 --cases 1   # one case again
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from mutation import ALLOWED_STATUS, FIXTURES, Workspace, build, invoke, plan  # noqa: E402

COMMANDS = ["rows", "index", "verify"]   # (the cycle plan() picks targets by: tables, indexes and the rest)


def commands(data: str, out: str, rows: bool) -> list[list[str]]:
    return [["export", data, "-o", out, "--db", "pgpage", *(["--rows"] if rows else [])],
            ["rows", data, "--db", "pgpage", "--rel", "public.heap_hot", "--parquet", f"{out}/heap_hot.parquet"],
            ["rows", data, "--db", "pgpage", "--rel", "public.row_types", "--all", "--parquet", f"{out}/all.parquet"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--cases", type=int, default=600)
    args = ap.parse_args()
    os.environ["PGPAGE_DEBUG"] = "1"     # an escaped exception comes out whole
    ws = Workspace()
    failing, began = 0, time.monotonic()
    try:
        for index in range(args.first, args.first + args.cases):
            case, rng = plan(args.seed, index, COMMANDS)
            data = ws.data(case.major)
            f = data / case.target.path
            original = (FIXTURES / f"pg{case.major}" / "data" / case.target.path).read_bytes()
            f.write_bytes(build(case, rng, original))
            out = tempfile.mkdtemp(prefix="pgpage-export-mutation-")
            try:
                for argv in commands(str(data), out, rows=index % 2 == 0):
                    r = invoke(argv)
                    if r["escaped"] or "internal error" in r["stderr"] or r["status"] not in ALLOWED_STATUS:
                        failing += 1
                        print(f"[{index}] {case.reproducer()}: pgpage {' '.join(argv)}: exit {r['status']}\n"
                              f"{(r['escaped'] or r['stderr'])[-800:]}", flush=True)
            finally:
                f.write_bytes(original)
                shutil.rmtree(out, ignore_errors=True)
    finally:
        ws.close()
    print(f"{args.cases} cases (seed {args.seed} from {args.first}), {failing} failing, "
          f"{time.monotonic() - began:.0f} s")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
