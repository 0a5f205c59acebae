"""pgpage report: the other commands' JSON documents as one self-contained HTML file.

From a data directory the report runs the passes the commands run, in this process (``ClusterScan`` with
--deep, ``HeapPass``, ``IndexPass``, ``diff_document``; verify's records through its command), and takes
their documents as the commands print them with ``--json`` (the same JSON encoding), so the page shows
exactly what `pgpage scan --deep --json`, `heap --json`, `index --json` and `diff --json` print for the
same files; ``--from DIR`` renders such documents saved earlier.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from fnmatch import fnmatchcase
from pathlib import Path

from pgpage.cli.common import exit_status
from pgpage.findings import ExitCode, PgpageError

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")  # in the table, in detail only when --rel names them


def report_command(*, target: str | None, output: str, db: str | None = None, rel: str | None = None,
                   before: str | None = None, from_dir: str | None = None, top: int = 20, jobs: int = 1,
                   verify: bool = False) -> int:
    try:
        import jinja2  # noqa: F401  (the report extra)
        import plotly  # noqa: F401
        from pgpage.render.report import ReportInputs, render_report
    except ImportError as e:
        raise PgpageError(f"pgpage report needs the report extra: pip install 'pgpage[report]' ({e})",
                          ExitCode.USAGE) from None
    if (target is None) == (from_dir is None):
        raise PgpageError("give a data directory or --from DIR (saved --json outputs), not both", ExitCode.USAGE)
    check_output(Path(output), [Path(p) for p in (target, before) if p is not None])
    if from_dir is not None:
        if db or rel or before or verify:
            raise PgpageError("--db, --rel, --before and --verify go with a data directory, not --from",
                              ExitCode.USAGE)
        if not Path(from_dir).is_dir():
            raise PgpageError(f"{from_dir}: not a directory", ExitCode.UNREADABLE)
        inputs = ReportInputs.from_directory(from_dir)
    else:
        inputs = gather(target, db, rel, before, top, jobs, verify)
    html = render_report(inputs)
    try:
        Path(output).write_text(html, encoding="utf-8")
    except OSError as e:   # what os.access could not foresee (a read-only file system, /proc)
        raise PgpageError(f"-o {output}: {e.strerror or e}", ExitCode.USAGE) from None
    findings = [f for d in inputs.scan["databases"] for r in d["relations"] for f in r["findings"]]
    findings += [f for d in inputs.scan["databases"] for f in d.get("findings", [])]
    findings += [f for doc in inputs.heaps + inputs.indexes for f in doc.get("findings", [])]
    findings += inputs.scan.get("findings", [])
    findings += [f for f in inputs.verify or [] if f.get("type") == "finding" and f.get("fails")]
    return exit_status(findings)


def check_output(output: Path, inputs: list[Path]) -> None:
    """Refuse, before any work, an output file that cannot be written, or that lies inside a data directory being
    read (pgpage never writes to what it inspects)."""
    where = output.resolve()
    if output.is_dir():
        raise PgpageError(f"-o {output}: is a directory: name the HTML file to write", ExitCode.USAGE)
    if not where.parent.is_dir():
        raise PgpageError(f"-o {output}: no directory {output.parent}", ExitCode.USAGE)
    if not os.access(where if where.exists() else where.parent, os.W_OK):
        raise PgpageError(f"-o {output}: not writable", ExitCode.USAGE)
    for p in inputs:
        if p.is_dir() and where.is_relative_to(p.resolve()):
            raise PgpageError(f"-o {output}: inside {p}, which is being read: pgpage never writes into what it"
                              " inspects", ExitCode.USAGE)


def as_printed(doc: dict) -> dict:
    """A pass's document as `--json` prints it (iterators as lists, bytes as hex, numpy scalars as numbers)."""
    from pgpage.render.output import _jsonable, materialized
    return json.loads(json.dumps(materialized(doc), default=_jsonable))


def command_lines(command, **options) -> list[dict]:
    """What a command streams with --json (newline-delimited records), run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        command(**options)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def gather(target: str, db: str | None, rel: str | None, before: str | None, top: int, jobs: int,
           verify: bool = False):
    from pgpage.cli.verify_cmd import verify_command
    from pgpage.passes.diff import diff_document
    from pgpage.passes.heap import HeapPass
    from pgpage.passes.index import IndexPass
    from pgpage.passes.scan import ClusterScan
    from pgpage.render.report import ReportInputs

    scan = as_printed(ClusterScan(target, db, None, None, rel, jobs, command="report (or give --from DIR)")
                      .document(deep=True))
    heaps = readable(lambda name_db, r: HeapPass(target, name_db, r).document(jobs), chosen(scan, rel, top, "heap"))
    indexes = readable(lambda name_db, r: IndexPass(target, name_db, r).document(jobs),
                       chosen(scan, rel, top, "btree"))
    one = rel if rel and not any(c in rel for c in "*?[") else None  # diff and verify take one name, no glob
    diff = as_printed(diff_document(before, target, db, one)) if before is not None else None
    records = command_lines(verify_command, target=target, db=db, rel=one, json_out=True, jobs=jobs) if verify else None
    return ReportInputs(scan, heaps, indexes, diff, records)


def readable(document, relations: list[tuple[str, str]]) -> list[dict]:
    """``document(db, name)`` of each relation as printed, leaving out those whose files cannot be read (the
    scan's relations table already carries their storage.unreadable finding)."""
    docs = []
    for name_db, r in relations:
        try:
            docs.append(as_printed(document(name_db, r)))
        except PgpageError as e:
            if e.exit_code != ExitCode.UNREADABLE:
                raise
    return docs


def chosen(scan: dict, rel: str | None, top: int, am: str) -> list[tuple[str, str]]:
    """The relations shown in detail: the user's (the catalogs' only when --rel names them), the largest
    ``top`` of each kind."""
    out = []
    for d in scan["databases"]:
        for r in d["relations"]:
            if r.get("am") != am or not (r.get("fork_bytes") or {}).get("main"):
                continue
            if am == "heap" and r.get("kind") not in ("table", "materialized view", "toast table"):
                continue
            if rel and not (fnmatchcase(r["name"], rel) or fnmatchcase(r["name"].split(".")[-1], rel)):
                continue
            if not rel and r["name"].split(".")[0] in SYSTEM_SCHEMAS:
                continue
            out.append((-(r.get("size_bytes") or 0), d["name"], r["name"]))
    out.sort()
    return [(dbname, name) for _, dbname, name in out[:top]]
