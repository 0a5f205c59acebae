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


def rows_command(target, db, rel, all_versions, columns, blocks, csv_out, json_out, timezone, wide) -> int:
    from pgpage.passes.rows import RowOptions, TableRows
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
    if csv_out:
        count = render.write_csv(table.column_names, table, all_versions)
    elif json_out:
        count = render.write_json_lines(table.column_names, table)
    else:
        count = render.write_table(table.column_names, table, all_versions, wide)
    findings = [*table.findings]
    render.write_summary(table.label, count, all_versions, table.timezone, findings)
    return exit_status(findings)
