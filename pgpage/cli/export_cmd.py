"""pgpage export: a cluster's storage as a Parquet dataset that DuckDB, pandas, Polars or Spark read, one cluster or a
fleet of snapshots at once.

Writes DIR/system_identifier=<id>/snapshot=<label>/<dataset>.parquet for the datasets of ``passes.export``
(cluster, relations, pages, tuples, btree_items, findings), with ``--rows`` rows/<schema>.<table>.parquet, with
``--wal`` wal_records.parquet and wal_blocks.parquet. Prints the snapshot's directory (``--json``: a
``pgpage.export/1`` document with every file and its rows). Exit 1 when the
findings written hold an error, as `pgpage verify` would.
"""
from __future__ import annotations

from pgpage.cli.common import refuse_output_inside
from pgpage.findings import ExitCode


def export_command(*, pgdata: str, output: str, db: str | None = None, rows: bool = False, wal: bool = False,
                   wal_dir: str | None = None, label: str | None = None, datasets: str | None = None,
                   json_out: bool = False) -> int:
    from pgpage.findings import PgpageError
    from pgpage.passes.export import DATASETS, WAL_DATASETS, ClusterExport, schema
    from pgpage.render.parquet import ParquetFiles, snapshot_directory
    from pgpage.render.progress import progress

    chosen = DATASETS
    if datasets is not None:
        chosen = tuple(d.strip() for d in datasets.split(",") if d.strip())
        unknown = [d for d in chosen if d not in DATASETS]
        if unknown or not chosen:
            raise PgpageError(f"--datasets: {', '.join(map(repr, unknown)) or 'none given'} (the datasets:"
                              f" {', '.join(DATASETS)})", ExitCode.USAGE)
    refuse_output_inside(output, pgdata, "-o")
    export = ClusterExport(pgdata, db, label=label, rows=rows, wal=wal, wal_dir=wal_dir)
    written = chosen + (WAL_DATASETS if export.wal else ())   # every file the snapshot gets, empty when none came
    directory = snapshot_directory(output, export.system_identifier, export.label)
    files = ParquetFiles(directory)
    counts: dict[str, int] = {}
    errors = 0
    table = None   # the rows file being written: tables come one after the other, each closed when done

    def sink(dataset: str, batch) -> None:
        nonlocal errors, table
        counts[dataset] = counts.get(dataset, 0) + batch.num_rows
        if dataset == "findings":
            errors += batch.column("severity").to_pylist().count("error")
        if table is not None and dataset != table:
            files.finish(table)
            table = None
        if dataset.startswith("rows/"):
            table = dataset
        files.write(dataset, batch)

    with progress("export", export.blocks_read(chosen)) as advance:
        export.run(sink, datasets=chosen, on_blocks=advance)
    files.close({name: schema(name) for name in written})
    if json_out:
        from pgpage.render.output import emit_json
        emit_json({"schema": "pgpage.export/1", "directory": str(directory),
                   "system_identifier": export.system_identifier, "snapshot": export.label,
                   "files": {f"{name}.parquet": counts.get(name, 0) for name in [*written, *sorted(
                       n for n in counts if n not in written)]}})
    else:
        print(directory)
    return int(ExitCode.FINDINGS if errors else ExitCode.CLEAN)
