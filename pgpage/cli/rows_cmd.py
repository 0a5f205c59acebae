"""pgpage rows: what the rows of a table hold, every version on disk with --all."""
from __future__ import annotations

from pathlib import Path

from pgpage.cli.common import exit_status, parse_block_range
from pgpage.findings import ExitCode, PgpageError


def _relation(target: str, db: str | None, rel: str | None):
    """(cluster, relation): a data directory with --rel, or a table's file inside one."""
    from pgpage.storage.datadir import open_data_directory
    from pgpage.storage.target import find_data_directory
    path = Path(target)
    if path.is_dir():
        if not rel:
            raise PgpageError(f"{target} is a directory: name a table with --rel (and --db)", ExitCode.USAGE)
        cluster = open_data_directory(path)
        return cluster, cluster.database(db).relation(rel)
    if not path.exists():
        raise PgpageError(f"{target}: no such file or directory", ExitCode.UNREADABLE)
    if db or rel:
        raise PgpageError("--db and --rel go with a data directory, not a file", ExitCode.USAGE)
    home = find_data_directory(path)
    if home is None:
        raise PgpageError(f"{target}: rows need the catalogs to know the columns: give the data directory the"
                          " file belongs to (this file is not inside one)", ExitCode.USAGE)
    cluster = open_data_directory(home)
    stem = path.name.split(".")[0]
    database = cluster.database(path.parent.name if path.parent.name.isdigit() else None)
    return cluster, database.relation(stem)


def _rendered_part(csv_out: bool, all_versions: bool):
    """What a worker does with its part of the table: its CSV lines (no header) or JSON records, as UTF-8
    bytes, and how many rows they hold."""
    import io

    from pgpage.render import rows as render

    def work(part) -> tuple[bytes, int]:
        buf = io.BytesIO()
        out = io.TextIOWrapper(buf, encoding="utf-8", newline="")
        if csv_out:
            n = render.write_csv(part.column_names, part, all_versions, out, header=False)
        else:
            n = render.write_json_lines(part.column_names, part, out)
        out.flush()
        return buf.getvalue(), n
    return work


def rows_command(target, db, rel, all_versions, columns, blocks, csv_out, json_out, timezone, wide,
                 jobs: int = 1) -> int:
    from pgpage.passes.rows import STATUS_NAMES, RowOptions, TableRows
    from pgpage.render import rows as render

    if csv_out and json_out:
        raise PgpageError("give only one of --csv and --json", ExitCode.USAGE)
    cluster, relation = _relation(target, db, rel)
    options = RowOptions(all_versions=all_versions, timezone=timezone,
                         columns=[c.strip() for c in columns.split(",")] if columns else None)
    if blocks is not None:
        fork = relation.forks.get("main")
        first, end = (fork.first_block, fork.end_block) if fork is not None else (0, 0)
        options.start, options.stop = parse_block_range(None, blocks, False, first, end)
    table = TableRows(cluster, relation, options)
    if jobs != 1 and (csv_out or json_out):      # a table for people is written by one process
        import sys

        from pgpage.parallel import default_jobs
        if csv_out:
            render.write_csv(table.column_names, (), all_versions)
        sys.stdout.flush()
        count = 0
        for data, n in table.in_parallel(_rendered_part(csv_out, all_versions), jobs or default_jobs()):
            sys.stdout.buffer.write(data)
            count += n
        sys.stdout.buffer.flush()
    elif csv_out:
        count = render.write_csv(table.column_names, table, all_versions)
    elif json_out:
        count = render.write_json_lines(table.column_names, table)
    else:
        count = render.write_table(table.column_names, table, all_versions, wide)
    statuses = dict(zip(STATUS_NAMES, table.status_counts.tolist()))
    render.write_summary(table.label, count, statuses, all_versions, table.timezone, table.findings)
    return exit_status(table.findings)
