"""pgpage page: decode pages of one fork. One block is one JSON document; a range streams (text page by page,
--json as newline-delimited records: the fork's header line, then one page per line)."""
from __future__ import annotations

from pgpage.cli.common import exit_status


def page_command(*, target, block=None, blocks=None, all_blocks=False, db=None, rel=None, fork="main", json_out=False,
                 hex_dump=False, item=None, wal=None, lsn=None) -> int:
    from pgpage.passes.page import PageRun

    run = PageRun(target, db, rel, fork, block, blocks, all_blocks, hex_dump, item, wal=wal, lsn=lsn)
    if json_out:
        from pgpage.render.output import emit_json, emit_json_lines
        if run.single:
            doc = run.document()
            emit_json(doc)
            return exit_status(doc["findings"] + [f for p in doc["pages"] for f in p["findings"]])
        emit_json_lines([run.head])
        emit_json_lines(run.records())
    else:
        import sys

        from pgpage.render.page import page_text_words, render_pages  # Rich loads only for people's output
        # into a pipe or file (no colour) heap pages come as ready text from the compiled dumper
        render_pages(run.head, run.pages() if sys.stdout.isatty() else run.records(page_text_words(run.bit_names())),
                     lambda: run.heap_written)
    return exit_status(run.head["findings"] + ([{"severity": "error"}] if run.errors else []))
