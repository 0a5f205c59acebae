"""pgpage page: decode pages of one fork."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status


def page_command(target, block, blocks, all_blocks, db, rel, fork, json_out) -> int:
    from pgpage.passes.page import page_document

    doc = page_document(target, db, rel, fork, block, blocks, all_blocks)

    def text(d):
        from pgpage.render.page import render_pages  # Rich loads only for people's output
        render_pages(d)

    emit(doc, json_out, text)
    return exit_status(doc["findings"] + [f for p in doc["pages"] for f in p["findings"]])
