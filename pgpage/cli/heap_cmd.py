"""pgpage heap: HOT chains, bloat, hint bits, freezing and visibility of one heap, offline."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status
from pgpage.findings import ExitCode, PgpageError

MAP_METRICS = ("dead", "fill", "hints", "vm")


def heap_command(target, db, rel, json_out, map_metric, jobs: int = 1) -> int:
    from pgpage import survey
    from pgpage.parallel import default_jobs
    from pgpage.render.progress import progress
    from pgpage.storage.target import resolve_fork

    if map_metric is not None and map_metric not in MAP_METRICS:
        raise PgpageError(f"--map takes one of {', '.join(MAP_METRICS)}", ExitCode.USAGE)
    t = resolve_fork(target, db, rel, "main")
    if not t.fork.exists:
        raise PgpageError(f"{t.label}: the main fork has no file", ExitCode.UNREADABLE)
    if t.relation is not None and t.relation.kind not in "rtm":
        raise PgpageError(f"{t.label} is a {t.relation.kind_name}, not a heap (use `pgpage index` for an index)",
                          ExitCode.USAGE)
    fillfactor = t.relation.fillfactor if t.relation is not None else 100
    with progress("heap", t.fork.nblocks) as advance:
        report = survey.heap_report(t.cluster, t.fork, t.sibling("vm"), t.sibling("fsm"), t.label,
                                    fillfactor, on_chunk=advance, jobs=jobs or default_jobs())
    doc = {"schema": "pgpage.heap/1", "relation": t.label, "blocks": t.fork.nblocks,
           "block_size": t.fork.block_size, "major": t.context.major, "fillfactor": fillfactor,
           **report}
    def text(d):
        from pgpage.render.heap import render_heap  # Rich loads only for people's output
        render_heap(d, map_metric)

    emit(doc, json_out, text)
    return exit_status(doc["findings"])
