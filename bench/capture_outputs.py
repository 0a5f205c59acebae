"""Capture every command's output on every fixture, scenario and story, to prove a structural change changes nothing.

    python3 bench/capture_outputs.py capture OUTDIR [--pgpage 'python3 -m pgpage'] [--jobs 2]
    python3 bench/capture_outputs.py compare OUTDIR_BEFORE OUTDIR_AFTER

Run `capture` on the commit before the change (e.g. from a `git worktree` of it) and on the commit after, then
`compare`: every command's stdout and exit status must be identical. What legitimately changes from run to run
(elapsed times, rates, the report's generation time) is masked first. A relation that no command names is still read
by `scan`, `verify` and `page --all` of the whole cluster.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# elapsed times, rates and clock readings: the only parts of an output that may differ between two runs
MASKS = [re.compile(rb"\d+(\.\d+)?\s?(ms|s|MB/s|GB/s|rows/s)\b"), re.compile(rb'"(elapsed|seconds|duration)[^"]*": [0-9.e-]+')]
USER_SCHEMAS = ("pg_catalog.", "information_schema.", "pg_toast.")


def data_dirs() -> list[Path]:
    found = [p.parent.parent for p in sorted(ROOT.glob("fixtures/**/global/pg_control")) if ".cache" not in p.parts]
    found += [p.parent.parent for p in sorted(ROOT.glob("demo/**/global/pg_control"))]
    return found


def user_relations(pgpage: list[str], pgdata: Path) -> list[tuple[str, str, str, str]]:
    """(db, name, kind, am) of every relation outside the system schemas, from scan --json."""
    out = subprocess.run(pgpage + ["scan", str(pgdata), "--json"], capture_output=True)
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        return []
    return [(db["name"], r["name"], r["kind"], r.get("am") or "") for db in doc.get("databases", [])
            for r in db.get("relations", []) if not r["name"].startswith(USER_SCHEMAS)]


def commands(pgpage: list[str]) -> list[list[str]]:
    runs = []
    for d in data_dirs():
        p = str(d.relative_to(ROOT))
        runs += [["scan", p], ["scan", p, "--deep", "--json"], ["verify", p, "--json"], ["verify", p, "-v"]]
        for db, name, kind, am in user_relations(pgpage, d):
            rel = ["--db", db, "--rel", name]
            runs += [["page", p, *rel, "--all", "--json"]]
            if kind in ("table", "materialized view"):
                runs += [["heap", p, *rel], ["heap", p, *rel, "--json"], ["rows", p, *rel, "--csv"],
                         ["rows", p, *rel, "--all", "--json"], ["rows", p, *rel, "--all"]]
            if am == "btree":
                runs += [["index", p, *rel], ["index", p, *rel, "--json"]]
    for steps in sorted(ROOT.glob("fixtures/scenarios/*/steps.json")) + sorted(ROOT.glob("fixtures/stories/*")):
        snaps = sorted(q.parent.parent for q in steps.parent.glob("*/global/pg_control")) if steps.is_file() else \
            sorted(q.parent.parent for q in steps.glob("**/global/pg_control"))
        for a, b in zip(snaps, snaps[1:]):
            ra, rb = str(a.relative_to(ROOT)), str(b.relative_to(ROOT))
            runs += [["diff", ra, rb], ["diff", ra, rb, "--json"], ["diff", ra, rb, "--details", "--all"]]
    return runs


def key(args: list[str]) -> str:
    return hashlib.sha256("\0".join(args).encode()).hexdigest()[:20]


def masked(data: bytes) -> bytes:
    for m in MASKS:
        data = m.sub(b"<masked>", data)
    return data


def capture(outdir: Path, pgpage: list[str], jobs: int) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    runs = commands(pgpage)

    def one(args):
        r = subprocess.run(pgpage + args, capture_output=True, cwd=ROOT, env={"COLUMNS": "100", "PATH": "/usr/bin:/bin",
                                                                             "HOME": str(Path.home())})
        (outdir / key(args)).write_bytes(masked(r.stdout) + f"\n--exit {r.returncode}\n".encode())
        return args
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, runs))
    (outdir / "index.json").write_text(json.dumps({key(a): a for a in runs}, indent=0))
    print(f"{len(runs)} command runs captured in {outdir}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads((before / "index.json").read_text()), json.loads((after / "index.json").read_text())
    differ = [args for k, args in a.items() if k not in b or (before / k).read_bytes() != (after / k).read_bytes()]
    extra = [args for k, args in b.items() if k not in a]
    for args in differ:
        print("differs:", shlex.join(args))
    for args in extra:
        print("only after:", shlex.join(args))
    print(f"{len(a)} runs compared: {len(a) - len(differ)} identical, {len(differ)} different, {len(extra)} new")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("outdir", type=Path)
    c.add_argument("--pgpage", default=f"{sys.executable} -m pgpage")
    c.add_argument("--jobs", type=int, default=2)
    m = sub.add_parser("compare")
    m.add_argument("before", type=Path)
    m.add_argument("after", type=Path)
    args = ap.parse_args()
    if args.cmd == "capture":
        capture(args.outdir.resolve(), shlex.split(args.pgpage), args.jobs)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
