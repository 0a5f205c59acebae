"""pgpage rows: what the rows of a table hold, every version on disk with --all."""
from __future__ import annotations

from pgpage.cli.common import exit_status, refuse_output_inside
from pgpage.findings import ExitCode, PgpageError


def _rendered_part(csv_out: bool, all_versions: bool):
    """What a worker does with its part of the table: its CSV lines (no header) or JSON records, as UTF-8
    bytes to a binary stream; returns how many rows they hold."""
    import io

    from pgpage.render import rows as render

    def work(part, raw) -> int:
        out = io.TextIOWrapper(io.BufferedWriter(raw, 1 << 20), encoding="utf-8", newline="")
        if csv_out:
            n = render.write_csv(part.column_names, part, all_versions, out, header=False)
        else:
            n = render.write_json_lines(part.column_names, part, out)
        out.flush()
        return n
    return work


def rows_command(*, target, db=None, rel=None, all_versions=False, columns=None, blocks=None, csv_out=False,
                 json_out=False, timezone=None, wide=False, jobs: int = 1, status=None, xid=None, ctid=None,
                 schema=None, toast=None, encoding=None, dropped=False, parquet=None, wal=None) -> int:
    from pgpage.passes.rows import STATUS_NAMES, RowOptions, parse_filter, table_rows
    from pgpage.render import rows as render

    if sum((csv_out, json_out, parquet is not None)) > 1:
        raise PgpageError("give only one of --csv, --json and --parquet", ExitCode.USAGE)
    if wide and (csv_out or json_out):
        raise PgpageError("--wide goes with the table for people: --csv and --json always hold whole values",
                          ExitCode.USAGE)
    if columns is not None and not all(c.strip() for c in columns.split(",")):
        raise PgpageError(f"--columns {columns!r}: an empty column name (give names separated by commas)",
                          ExitCode.USAGE)
    only = parse_filter(status, xid, ctid)
    all_versions = all_versions or bool(only) or wal is not None   # a filter looks among every version
    if wal is not None:
        jobs = 1      # (the WAL's versions follow all the pages', which they must not repeat: one process)
    options = RowOptions(all_versions=all_versions, carve=all_versions, only=only, timezone=timezone,
                         encoding=encoding, dropped=dropped, wal=wal,
                         columns=[c.strip() for c in columns.split(",")] if columns else None)
    if toast is not None and schema is None:
        raise PgpageError("--toast goes with --schema (with the catalog, the TOAST table is found through it)",
                          ExitCode.USAGE)
    if parquet is not None:
        if wide:
            raise PgpageError("--wide goes with the table for people: --parquet holds whole values", ExitCode.USAGE)
        options.timezone = "UTC"   # (the values are instants: Arrow's timestamps with zone are UTC)
        refuse_output_inside(parquet, target, "--parquet")
    if schema is not None:
        from pgpage.passes.schemarows import schema_rows
        table = schema_rows(target, db, rel, schema, toast, options, blocks)
    else:
        table = table_rows(target, db, rel, options, blocks)
    if parquet is not None:
        return parquet_rows(table, parquet)
    if jobs != 1 and (csv_out or json_out):      # a table for people is written by one process
        import sys

        if csv_out:
            render.write_csv(table.column_names, (), all_versions)
        sys.stdout.flush()                           # the workers write after this, each through its own copy

        def write(data: bytes) -> None:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        count = sum(table.in_parallel(_rendered_part(csv_out, all_versions), jobs, write))
    elif csv_out:
        count = render.write_csv(table.column_names, table, all_versions)
    elif json_out:
        count = render.write_json_lines(table.column_names, table)
    else:
        count = render.write_table(table.column_names, table.text_records(), all_versions, wide)
    statuses = dict(zip(STATUS_NAMES, table.status_counts.tolist()))
    render.write_summary(table.label, count, statuses, all_versions, table.timezone, table.findings)
    return exit_status(table.findings)


def parquet_rows(table, path: str) -> int:
    """`rows --parquet FILE`: the rows (every version with --all) with typed columns (``passes.export.RowColumns``),
    one Parquet file; the count and findings on stderr as for the other outputs."""
    from pgpage.passes.export import RowColumns, rows_batches
    from pgpage.passes.rows import STATUS_NAMES
    from pgpage.render import rows as render
    from pgpage.render.parquet import write_table_file
    findings: list = []
    count = write_table_file(path, lambda sink: findings.extend(rows_batches(table, sink)),
                             RowColumns(table).schema())
    render.write_summary(table.label, count, dict(zip(STATUS_NAMES, table.status_counts.tolist())),
                         table.options.all_versions, table.timezone, findings)
    return exit_status(findings)
