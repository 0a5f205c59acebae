"""pgpage diff: what a workload did to the files, between two snapshots."""
from __future__ import annotations

from pgpage.cli.common import emit
from pgpage.findings import ExitCode


def diff_command(*, before: str, after: str, db=None, rel=None, details: bool = False, wal=None,
                 show_all: bool = False, json_out: bool = False) -> int:
    from pgpage.passes.diff import diff_document

    doc = diff_document(before, after, db, rel, details, wal)

    def text(d):
        from pgpage.render.diff import render_diff  # Rich loads only for people's output
        render_diff(d, show_all)

    emit(doc, json_out, text)
    return int(ExitCode.FINDINGS if doc["relations_changed"] or doc["databases_changed"] else ExitCode.CLEAN)
