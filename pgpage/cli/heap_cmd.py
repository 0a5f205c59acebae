"""pgpage heap: HOT chains, bloat, hint bits, freezing and visibility of one heap, offline."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status
from pgpage.findings import ExitCode, PgpageError

MAP_METRICS = ("dead", "fill", "hints", "vm")


def heap_command(*, target, db=None, rel=None, json_out=False, map_metric=None, jobs: int = 1,
                 parquet: str | None = None) -> int:
    from pgpage.passes.heap import HeapPass
    from pgpage.render.progress import progress

    if parquet is not None:
        return parquet_command(target, db, rel, parquet, json_out or map_metric is not None)

    if map_metric is not None and map_metric not in MAP_METRICS:
        raise PgpageError(f"--map takes one of {', '.join(MAP_METRICS)}", ExitCode.USAGE)
    from pathlib import Path
    if rel is None and Path(target).is_dir():
        return database_command(target, db, json_out, map_metric, jobs)
    heap = HeapPass(target, db, rel)
    with progress("heap", heap.blocks) as advance:
        doc = heap.document(jobs, on_chunk=advance)

    def text(d):
        from pgpage.render.heap import render_heap  # Rich loads only for people's output
        render_heap(d, map_metric)

    emit(doc, json_out, text)
    return exit_status(doc["findings"])


def database_command(target, db, json_out, map_metric, jobs: int) -> int:
    """`pgpage heap DATADIR [--db]`: every table of the database, each as `heap --rel` reports it (no page map)."""
    from pgpage.passes.heap import DatabaseHeaps
    from pgpage.render.progress import progress

    if map_metric is not None:
        raise PgpageError("--map goes with one table (--rel)", ExitCode.USAGE)
    heaps = DatabaseHeaps(target, db)
    with progress("heap", heaps.blocks) as advance:
        doc = heaps.document(jobs, on_chunk=advance)

    def text(d):
        from pgpage.render.heap import render_heap_database
        render_heap_database(d)

    emit(doc, json_out, text)
    return exit_status(doc["findings"] + [f for t in doc["tables"] for f in t["findings"]])


def parquet_command(target, db, rel, path: str, other_output: bool) -> int:
    """`pgpage heap --rel T --parquet FILE`: every line pointer of the table with its tuple header, verdicts and
    flags (export's ``tuples`` dataset)."""
    from pgpage.cli.common import refuse_output_inside, write_parquet
    from pgpage.passes.export import relation_batches, schema
    if other_output:
        raise PgpageError("--parquet writes the table's tuples: give it without --json and --map", ExitCode.USAGE)
    refuse_output_inside(path, target, "--parquet")
    write_parquet(path, relation_batches("tuples", target, db, rel, "table"), schema("tuples"))
    return int(ExitCode.CLEAN)
