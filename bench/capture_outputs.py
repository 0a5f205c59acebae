"""Capture every command's output on every fixture, scenario and story, to prove a structural change changes nothing.

    python3 bench/capture_outputs.py capture OUTDIR [--part K --parts N]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # this checkout's pgpage, whatever is installed (a worktree of the commit before)
# elapsed times, rates and clock readings: the only parts of an output that may differ between two runs
MASKS = [re.compile(rb"\d+(\.\d+)?\s?(ms|s|MB/s|GB/s|rows/s)\b"), re.compile(rb'"(elapsed|seconds|duration)[^"]*":\s?[0-9.e-]+')]
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


def run_in_process(args: list[str]) -> tuple[bytes, int]:
    """One command run in this process (no interpreter start-up: about 5x faster over thousands of runs): its
    stdout and exit status, as the console entry point would give them."""
    import contextlib
    import io
    import os

    from pgpage.cli.main import app
    from pgpage.findings import PgpageError
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True)
    os.environ["COLUMNS"] = "100"
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = app(args, standalone_mode=False) or 0
        except PgpageError as e:
            code = int(e.exit_code)
        except SystemExit as e:
            code = e.code or 0
        except Exception as e:  # noqa: BLE001  (a bug: recorded as the entry point reports it)
            out.write(f"internal error: {type(e).__name__}")
            code = 3
        out.flush()
    return raw.getvalue(), int(code)


def capture(outdir: Path, pgpage: list[str], jobs: int, part: int = 0, parts: int = 1) -> None:
    """Every command of ``commands`` (or every ``parts``-th from ``part``) run in this process."""
    outdir.mkdir(parents=True, exist_ok=True)
    runs = commands(pgpage)
    for args in runs[part::parts]:
        stdout, code = run_in_process(args)
        (outdir / key(args)).write_bytes(masked(stdout) + f"\n--exit {code}\n".encode())
    (outdir / "index.json").write_text(json.dumps({key(a): a for a in runs}, indent=0))
    print(f"{len(runs[part::parts])} command runs captured in {outdir}")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads((before / "index.json").read_text()), json.loads((after / "index.json").read_text())
    differ = [args for k, args in a.items() if k not in b or masked((before / k).read_bytes())
              != masked((after / k).read_bytes())]
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
    c.add_argument("--jobs", type=int, default=1)
    c.add_argument("--part", type=int, default=0, help="with --parts N: this process's share (run N of them)")
    c.add_argument("--parts", type=int, default=1)
    m = sub.add_parser("compare")
    m.add_argument("before", type=Path)
    m.add_argument("after", type=Path)
    args = ap.parse_args()
    if args.cmd == "capture":
        capture(args.outdir.resolve(), shlex.split(args.pgpage), args.jobs, args.part, args.parts)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
