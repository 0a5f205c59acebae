"""pgpage diff: what a workload did to the files, between two snapshots."""
from __future__ import annotations

from pgpage.cli.common import emit
from pgpage.findings import ExitCode


def diff_command(*, before: str, after: str, db=None, rel=None, details: bool = False, wal=None,
                 show_all: bool = False, json_out: bool = False, parquet: str | None = None) -> int:
    from pgpage.passes.diff import diff_document

    if parquet is not None:
        from pgpage.cli.common import refuse_output_inside
        if json_out or details:
            from pgpage.findings import PgpageError
            raise PgpageError("--parquet writes a row per relation: give it without --json and --details",
                              ExitCode.USAGE)
        for read in (before, after):
            refuse_output_inside(parquet, read, "--parquet")
    doc = diff_document(before, after, db, rel, details, wal)
    if parquet is not None:   # export's diff dataset: what changed in each relation
        from pgpage.cli.common import write_parquet
        from pgpage.passes.export import diff_batches, schema
        write_parquet(parquet, diff_batches(doc), schema("diff"))
        return int(ExitCode.FINDINGS if doc["relations_changed"] or doc["databases_changed"] else ExitCode.CLEAN)

    def text(d):
        from pgpage.render.diff import render_diff  # Rich loads only for people's output
        render_diff(d, show_all)

    emit(doc, json_out, text)
    return int(ExitCode.FINDINGS if doc["relations_changed"] or doc["databases_changed"] else ExitCode.CLEAN)
