"""pgpage index: B-tree forensics offline (pgstatindex's figures, deduplication, dead items,
structure checks, the index against its table)."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status


def index_command(*, target: str, db: str | None = None, rel: str | None = None, json_out: bool = False,
                  show_map: bool = False, block: int | None = None, jobs: int = 1, parquet: str | None = None) -> int:
    from pgpage.passes.index import open_index_pass
    from pgpage.render.progress import progress

    if parquet is not None:   # every item of the index, keys as text (export's btree_items)
        from pgpage.cli.common import refuse_output_inside, write_parquet
        from pgpage.findings import ExitCode, PgpageError
        from pgpage.passes.export import relation_batches, schema
        if json_out or show_map or block is not None:
            raise PgpageError("--parquet writes the index's items: give it without --json, --map and --block",
                              ExitCode.USAGE)
        refuse_output_inside(parquet, target, "--parquet")
        write_parquet(parquet, relation_batches("btree_items", target, db, rel, "index"), schema("btree_items"))
        return int(ExitCode.CLEAN)

    index = open_index_pass(target, db, rel, block)
    with progress("index", index.blocks) as advance:
        doc = index.document(jobs, show_map, on_chunk=advance)

    def text(d):  # Rich loads only for people's output
        from pgpage.render.index import render_index
        render_index(d)

    emit(doc, json_out, text)
    return exit_status(doc["findings"] + (doc["block"]["findings"] if doc["block"] else []))
