"""pgpage heap: HOT chains, bloat, hint bits, freezing and visibility of one heap, offline."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status
from pgpage.findings import ExitCode, PgpageError

MAP_METRICS = ("dead", "fill", "hints", "vm")


def heap_command(target, db, rel, json_out, map_metric, jobs: int = 1) -> int:
    from pgpage.passes.heap import HeapPass
    from pgpage.render.progress import progress

    if map_metric is not None and map_metric not in MAP_METRICS:
        raise PgpageError(f"--map takes one of {', '.join(MAP_METRICS)}", ExitCode.USAGE)
    heap = HeapPass(target, db, rel)
    with progress("heap", heap.blocks) as advance:
        doc = heap.document(jobs, on_chunk=advance)

    def text(d):
        from pgpage.render.heap import render_heap  # Rich loads only for people's output
        render_heap(d, map_metric)

    emit(doc, json_out, text)
    return exit_status(doc["findings"])
