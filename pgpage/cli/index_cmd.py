"""pgpage index: B-tree forensics offline (pgstatindex's figures, deduplication, dead items,
structure checks, the index against its table)."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status


def index_command(*, target: str, db: str | None = None, rel: str | None = None, json_out: bool = False,
                  show_map: bool = False, block: int | None = None, jobs: int = 1) -> int:
    from pgpage.passes.amindex import am_index_pass
    from pgpage.passes.index import open_index_pass
    from pgpage.render.progress import progress

    index = am_index_pass(target, db, rel, block) or open_index_pass(target, db, rel, block)
    with progress("index", index.blocks) as advance:
        doc = index.document(jobs, show_map, on_chunk=advance)

    def text(d):  # Rich loads only for people's output
        if d.get("am") in ("gin", "gist", "spgist"):
            from pgpage.render.index_am import render_am_index
            render_am_index(d)
        else:
            from pgpage.render.index import render_index
            render_index(d)

    emit(doc, json_out, text)
    return exit_status(doc["findings"] + (doc["block"]["findings"] if doc["block"] else []))
