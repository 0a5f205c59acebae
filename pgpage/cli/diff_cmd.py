"""pgpage diff: what a workload did to the files, between two snapshots."""
from __future__ import annotations

from pathlib import Path

from pgpage.cli.common import emit
from pgpage.findings import ExitCode, PgpageError


def diff_command(before: str, after: str, db, rel, details: bool, show_all: bool, json_out: bool) -> int:
    from pgpage import snapshots

    b, a = Path(before), Path(after)
    for p in (b, a):
        if not p.exists():
            raise PgpageError(f"{p}: no such file or directory", ExitCode.UNREADABLE)
    if b.is_dir() != a.is_dir():
        raise PgpageError("give two data directories or two relation files", ExitCode.USAGE)
    if b.is_dir():
        doc = snapshots.compare_clusters(before, after, db, rel, details)
    else:
        if db or rel:
            raise PgpageError("--db and --rel go with data directories", ExitCode.USAGE)
        doc = snapshots.compare_files(before, after)
    doc = {"schema": "pgpage.diff/1", **doc}
    differs = [r for r in doc["relations"] if r["status"] != "in place" or r.get("changed")]
    doc["relations_changed"] = len(differs)
    def text(d):
        from pgpage.render.diff import render_diff  # Rich loads only for people's output
        render_diff(d, show_all)

    emit(doc, json_out, text)
    return int(ExitCode.FINDINGS if differs else ExitCode.CLEAN)
