"""The Typer application. Each command is a thin function: parse, call, render, exit.

Heavy modules (numpy, Rich, the generated parsers) are imported inside the commands so
that ``pgpage --help`` stays fast.
"""
from __future__ import annotations

import copy
import gc
import os
import sys
from typing import Optional

import typer
from typer.core import TyperGroup

from pgpage.findings import ExitCode, PgpageError


class CommandsOnDemand(TyperGroup):
    """pgpage's command group, building a command's click command (Typer reads the function's signature and
    type hints: a few milliseconds each) when it is invoked or listed (``--help``), not every command on every
    run. ``run`` starts it with none built (``command_group``); built by Typer the usual way (``CliRunner``) it
    has them all."""

    def list_commands(self, ctx) -> list[str]:
        return [*self.commands, *(name for name in _registered() if name not in self.commands)]

    def get_command(self, ctx, cmd_name: str):
        info = _registered().get(cmd_name)
        if cmd_name not in self.commands and info is not None:
            self.commands[cmd_name] = typer.main.get_command_from_info(
                info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode)
        return self.commands.get(cmd_name)


def _registered() -> dict:
    """The commands registered on ``app``, by the name Typer gives them."""
    return {info.name or typer.main.get_command_name(info.callback.__name__): info for info in app.registered_commands}


def command_group() -> CommandsOnDemand:
    """``app``'s group (its options and callback) with no command built yet."""
    bare = copy.copy(app)
    bare.registered_commands = []
    return typer.main.get_group(bare)


app = typer.Typer(
    cls=CommandsOnDemand,
    name="pgpage",
    help="Offline, page-image forensic analyser for PostgreSQL data files.\n\n"
         "Reads data directories, relation files and segments directly (server up, down, crashed or copied)."
         " Never writes to what it reads. Exit status: 0 clean, 1 findings, 2 usage, 3 unreadable input.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)



def _version(value: bool) -> None:
    if value:
        from pgpage.passes.about import version_text
        print(version_text())
        raise typer.Exit(0)


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print pgpage's version and the PostgreSQL majors it reads, and exit."),
) -> None:
    """Offline, page-image forensic analyser for PostgreSQL data files."""


JSON_HELP = "Write JSON to stdout instead of text."
DB_HELP = "Database name (with a data directory as TARGET)."
REL_HELP = "Relation as [schema.]name, or its relfilenode (with a data directory as TARGET)."
FORK_HELP = "Fork to read: main, fsm, vm or init (with a data directory as TARGET)."
JOBS_HELP = "Worker processes reading the files (0: one per core). Results are the same for any number."


@app.command()
def page(
    target: str = typer.Argument(..., help="A relation segment file (any fork), or a data directory with --db/--rel."),
    block: Optional[int] = typer.Option(None, "--block", "-b", help="One block, by its global block number."),
    blocks: Optional[str] = typer.Option(None, "--blocks", help="A range A:B of global block numbers (B exclusive)."),
    all_blocks: bool = typer.Option(False, "--all", help="Every block of the file."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help=REL_HELP),
    fork: str = typer.Option("main", "--fork", help=FORK_HELP),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    hex_dump: bool = typer.Option(False, "--hex", help="The page's raw bytes, each range named by the structure"
                                  " it belongs to (header, line pointer, tuple header, data, free space, special)."),
    item: Optional[int] = typer.Option(None, "--item", help="With --hex: only line pointer N and its item's bytes."),
    wal: Optional[str] = typer.Option(None, "--wal", help="With --lsn: the WAL segments to read (default"
                                      " PGDATA/pg_wal)."),
    lsn: Optional[str] = typer.Option(None, "--lsn", help="The block as the newest full-page image in the WAL at or"
                                      " before this LSN holds it (a data directory, --rel and --block)."),
) -> None:
    """Decode pages: header, line pointers, tuples, index items, VM/FSM contents, checksums."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.page_cmd import page_command
    _run(page_command, options)


@app.command()
def scan(
    pgdata: str = typer.Argument(..., help="A PostgreSQL data directory (server up, down, crashed, or a copy)."),
    db: Optional[str] = typer.Option(None, "--db", help="Only this database."),
    top: Optional[int] = typer.Option(None, "--top", min=1, help="Only the N largest relations per database."),
    kind: Optional[str] = typer.Option(None, "--kind", help="Only these kinds, comma-separated: table, index, "
                                       "toast table, materialized view, sequence, or an AM such as btree."),
    name: Optional[str] = typer.Option(None, "--name", help="Only relations whose name matches this glob."),
    deep: bool = typer.Option(False, "--deep", help="Full heap analysis per table (HOT, hint bits, visibility,"
                              " freezing, bloat), as `pgpage heap` gives it."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP),
) -> None:
    """The cluster, its databases and relations: sizes, kinds, and a health line each."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.scan_cmd import scan_command
    _run(scan_command, options)


@app.command()
def heap(
    target: str = typer.Argument(..., help="A heap's segment file, or a data directory with --db/--rel"
                                 " (without --rel: every table of the database)."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help=REL_HELP),
    map_metric: Optional[str] = typer.Option(None, "--map", help="Draw a page map coloured by: dead, fill,"
                                             " hints (pages the next read dirties) or vm."),
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Write every line pointer of the table (tuple header, xmin/xmax verdicts, infomask flags) to this Parquet file instead (export's tuples dataset; needs pyarrow)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP),
) -> None:
    """Heap forensics: pgstattuple's figures, HOT chains and why updates were not HOT, hint bits, visibility,
    freezing, bloat."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.heap_cmd import heap_command
    _run(heap_command, options)


@app.command()
def index(
    target: str = typer.Argument(..., help="A B-tree index's file, or a data directory with --db/--rel."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help=REL_HELP),
    show_map: bool = typer.Option(False, "--map", help="Draw leaf page maps: density, dead items, posting share."),
    block: Optional[int] = typer.Option(None, "--block", "-b", help="Also show one page's items with keys decoded."),
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Write every item of the index (ctid, heap TIDs, posting, dead, key as text) to this Parquet file instead (export's btree_items dataset; needs pyarrow)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP),
) -> None:
    """B-tree forensics: pgstatindex's figures, deduplication, dead items, structure and heap-TID checks."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.index_cmd import index_command
    _run(index_command, options)


@app.command()
def verify(
    target: str = typer.Argument(..., help="A data directory (every relation), or a relation file; with --rel, one "
                                 "relation of the data directory."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help=REL_HELP),
    fork: Optional[str] = typer.Option(None, "--fork", help="Only this fork of --rel: main, fsm, vm or init."),
    json_out: bool = typer.Option(False, "--json", help="Stream findings as newline-delimited JSON records."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on", help="Code prefixes that fail the audit, comma-separated "
                                          "(checksum,heap.hot); -PREFIX excludes. Default: every error."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every finding, not only a summary by code."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP + " A data directory or database is"
                             " spread relation by relation."),
    heapallindexed: bool = typer.Option(False, "--heapallindexed", help="Also read each B-tree's table: every live"
                                        " row has its index entry, every entry the key of the row it points at"
                                        " (as amcheck's heapallindexed)."),
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Write the findings to this Parquet file instead of stdout (export's findings dataset; needs pyarrow)."),
) -> None:
    """Audit integrity: checksums, page and tuple structure, xids, HOT chains, B-trees, VM, control files."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.verify_cmd import verify_command
    _run(verify_command, options)


@app.command()
def diff(
    before: str = typer.Argument(..., help="The earlier snapshot: a data directory or a relation file."),
    after: str = typer.Argument(..., help="The later snapshot, of the same kind."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help="Only this relation ([schema.]name)."),
    details: bool = typer.Option(False, "--details", help="Per page: what changed on each changed page."),
    wal: Optional[str] = typer.Option(None, "--wal", help="The WAL segments between the snapshots (default: AFTER's"
                                      " pg_wal): per relation WAL bytes, full-page images, row changes."),
    show_all: bool = typer.Option(False, "--all", help="Every changed relation, not only the ten largest effects."),
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Write a row per relation (status, pages"
                                          " changed, versions written, HOT, index entries added) to this Parquet"
                                          " file instead (needs pyarrow)."),
    json_out: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """What happened between two snapshots: pages changed and why, tuples written, index growth.

    Exit status 1 when the snapshots differ, 0 when they do not (like diff(1))."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.diff_cmd import diff_command
    _run(diff_command, options)


@app.command()
def rows(
    target: str = typer.Argument(..., help="A data directory with --rel (and --db), or a table's file inside one."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help="Table as [schema.]name, or its relfilenode."),
    all_versions: bool = typer.Option(False, "--all", help="Every row version on disk (deleted, updated, aborted,"
                                      " in progress, and pruned ones whose bytes are still whole) with ctid, xmin,"
                                      " xmax, status and lp_off, not only the live rows."),
    status: Optional[str] = typer.Option(None, "--status", help="Only versions of these statuses, comma-separated"
                                         " (live, deleted, updated, moved, aborted, in_progress, unknown, pruned,"
                                         " wal);"
                                         " implies --all."),
    xid: Optional[list[int]] = typer.Option(None, "--xid", help="Only versions whose xmin or xmax is this xid"
                                            " (repeatable); implies --all."),
    ctid: Optional[list[str]] = typer.Option(None, "--ctid", help="Only the version at this ctid, as '(B,O)'"
                                             " (repeatable; a pruned version's is (B,0)); implies --all."),
    columns: Optional[str] = typer.Option(None, "--columns", help="Only these columns, comma-separated, in this"
                                          " order."),
    blocks: Optional[str] = typer.Option(None, "--blocks", help="Only blocks A:B (B exclusive)."),
    csv_out: bool = typer.Option(False, "--csv", help="CSV exactly as COPY ... TO STDOUT (FORMAT csv, HEADER) writes"
                                 " it (with --all, pgpage_ctid, pgpage_xmin, pgpage_xmax, pgpage_status and"
                                 " pgpage_lp_off come first)."),
    json_out: bool = typer.Option(False, "--json", help="Newline-delimited JSON, one record per row version."),
    timezone: Optional[str] = typer.Option(None, "--timezone", help="Print timestamptz in this zone (default: the"
                                           " cluster's timezone setting)."),
    wide: bool = typer.Option(False, "--wide", help="Show long values whole in the table."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP + " (--csv and --json)"),
    schema: Optional[str] = typer.Option(None, "--schema", help="The table's columns, 'name type, ...' with types as"
                                         " PostgreSQL names them (int4, numeric(10,2), timestamp with time zone,"
                                         " int4[]; dropped_N for a dropped column): read a file without its catalog."),
    dropped: bool = typer.Option(False, "--dropped", help="Also the values dropped columns still hold, as"
                                 " dropped_N: typed where pg_attribute's version from before the drop is on disk,"
                                 " else as hex."),
    encoding: Optional[str] = typer.Option(None, "--encoding", help="Read text as stored in this encoding"
                                           " (LATIN1, EUC_JP, WIN1251...; default: the database's, from"
                                           " pg_database), printed as UTF-8."),
    toast: Optional[str] = typer.Option(None, "--toast", help="With --schema: the TOAST table's file, to follow TOAST"
                                        " pointers into (without it they are reported, their values NULL)."),
    parquet: Optional[str] = typer.Option(None, "--parquet", help="Write the rows to this Parquet file, typed columns (ints, floats,"
                                          " decimals, timestamps with zone, dates, bytea, JSON, lists for arrays; text"
                                          " for the rest), instead of stdout. Needs pyarrow: pip install"
                                          " 'pgpage[parquet]'."),
    wal: Optional[str] = typer.Option(None, "--wal", help="Also the row versions only this directory's WAL segments"
                                      " still hold (inserted, updated or in a full-page image, since vacuumed, pruned"
                                      " or truncated away), status wal; implies --all."),
) -> None:
    """Row contents: the rows a new SELECT would return, or with --all every version on disk, values as the
    server prints them, TOAST reassembled. Read from the files alone."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.rows_cmd import rows_command
    _run(rows_command, options)


@app.command()
def report(
    target: Optional[str] = typer.Argument(None, help="A data directory (or give --from DIR instead)."),
    output: str = typer.Option(..., "--output", "-o", help="The HTML file to write."),
    db: Optional[str] = typer.Option(None, "--db", help="Only this database."),
    rel: Optional[str] = typer.Option(None, "--rel", help="Only relations whose name matches this glob."),
    before: Optional[str] = typer.Option(None, "--before", help="An earlier snapshot of the same cluster: the report"
                                         " adds what changed since (as `pgpage diff BEFORE TARGET`)."),
    from_dir: Optional[str] = typer.Option(None, "--from", help="Build the report from saved --json outputs in this"
                                           " directory (scan --deep, heap, index, diff, verify)."),
    top: int = typer.Option(20, "--top", min=0, help="Tables and B-tree indexes shown in detail (each)."),
    verify: bool = typer.Option(False, "--verify", help="Also run `pgpage verify` (the integrity audit: page and"
                                " tuple structure, HOT chains, B-tree rules, VM) and show its findings."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=0, help=JOBS_HELP),
) -> None:
    """One self-contained HTML file (no network request): the cluster, a sortable table of relations, per table
    page maps, HOT chains and bloat, per B-tree levels and deduplication, findings by code, and with --before
    what changed. Needs the report extra: pip install 'pgpage[report]'."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.report_cmd import report_command
    _run(report_command, options)


def _run(command, options: dict) -> None:
    """Run a command body with its options as keyword arguments and exit with its status. A reader that closes
    stdout early (`| head`) ends the command quietly, as SIGPIPE ends other tools (Click would exit 1, the
    status of findings)."""
    try:
        status = command(**options)
        sys.stdout.flush()  # inside the try: output still buffered meets the closed pipe here, not at exit
    except BrokenPipeError:
        status = _pipe_closed()
    raise typer.Exit(int(status))


def _pipe_closed() -> ExitCode:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush at exit
    return ExitCode.PIPE_CLOSED


@app.command()
def wal(
    pgdata: str = typer.Argument(..., help="A data directory (its pg_wal), or a directory of WAL segments."),
    wal_dir: Optional[str] = typer.Option(None, "--wal", help="Read the segments here (an archive, plain or"
                                          " .gz) instead of PGDATA/pg_wal; PGDATA still names relations."),
    start: Optional[str] = typer.Option(None, "--start", help="Only records starting at or after this LSN."),
    end: Optional[str] = typer.Option(None, "--end", help="Only records starting before this LSN."),
    rmgr: Optional[str] = typer.Option(None, "--rmgr", help="Only these resource managers, comma-separated"
                                       " (Heap, Heap2, Btree, Transaction, XLOG, ...)."),
    xid: Optional[int] = typer.Option(None, "--xid", help="Only records of this transaction id."),
    db: Optional[str] = typer.Option(None, "--db", help=DB_HELP),
    rel: Optional[str] = typer.Option(None, "--rel", help="Only records with a block of this relation."),
    timeline: Optional[int] = typer.Option(None, "--timeline", min=1, help="Follow this timeline's history"
                                           " (default: the newest timeline of the segments and .history files)."),
    stats: bool = typer.Option(False, "--stats", help="Counts and sizes per resource manager and record type,"
                               " as pg_waldump --stats and pg_get_wal_stats."),
    json_out: bool = typer.Option(False, "--json", help="Newline-delimited JSON records, then a summary."),
) -> None:
    """Decode WAL segments offline: every record of PostgreSQL 10-18, CRC checked, relations named."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.wal_cmd import wal_command
    _run(wal_command, options)


@app.command()
def export(
    pgdata: str = typer.Argument(..., help="A PostgreSQL data directory (server up, down, crashed, or a copy)."),
    output: str = typer.Option(..., "--output", "-o", help="The dataset directory: the snapshot is written to"
                               " DIR/system_identifier=ID/snapshot=LABEL/ (other snapshots in DIR are kept)."),
    db: Optional[str] = typer.Option(None, "--db", help="Only this database."),
    rows: bool = typer.Option(False, "--rows", help="Also each table's rows, typed, as rows/SCHEMA.TABLE.parquet"
                              " (one database: --db when the cluster has several)."),
    wal: bool = typer.Option(False, "--wal", help="Also the WAL of PGDATA/pg_wal: each record as"
                             " wal_records.parquet, each block reference as wal_blocks.parquet."),
    wal_dir: Optional[str] = typer.Option(None, "--wal-dir", help="Read the WAL's segments here (an archive, plain"
                                          " or .gz) instead of PGDATA/pg_wal (implies --wal)."),
    label: Optional[str] = typer.Option(None, "--label", help="The snapshot's name (default: pg_control's"
                                        " checkpoint time, as 20261125T031334Z)."),
    datasets: Optional[str] = typer.Option(None, "--datasets", help="Only these datasets, comma-separated: cluster,"
                                           " relations, pages, tuples, btree_items, findings (default: all)."),
    json_out: bool = typer.Option(False, "--json", help="Print the files written and their rows as JSON."),
) -> None:
    """Parquet for DuckDB, pandas, Polars, Spark: the cluster, relations, pages, tuples, B-tree items and findings
    (and with --rows the tables' rows, with --wal the WAL's records), partitioned by cluster and snapshot so that
    one query reads a fleet. Needs the parquet extra: pip install 'pgpage[parquet]'."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.export_cmd import export_command
    _run(export_command, options)


@app.command()
def dump(
    pgdata: str = typer.Argument(..., help="A PostgreSQL data directory (server down, crashed, or a copy)."),
    db: Optional[str] = typer.Option(None, "--db", help="The database to dump (needed when the cluster has"
                                     " several)."),
    output: str = typer.Option("-", "--output", "-o", help="The SQL script to write (default, or '-': stdout, as"
                               " pg_dump)."),
    schema_only: bool = typer.Option(False, "--schema-only", "-s", help="Only the definitions, no data."),
    data_only: bool = typer.Option(False, "--data-only", "-a", help="Only the data (COPY blocks and the"
                                   " sequences' values)."),
    table: Optional[str] = typer.Option(None, "--table", "-t", help="Only the tables, views and sequences this"
                                        " psql pattern names (as pg_dump -t: schema.name, * and ? wildcards)."),
) -> None:
    """A plain SQL script like pg_dump's that `psql -v ON_ERROR_STOP=1 -f FILE` restores into an empty
    database: schemas, types, sequences, tables, views, every table's live rows, constraints, indexes and
    comments, read from the files alone. Exit status 1 when an object could not be written (it is an SQL
    comment in the script) or rows could not be read."""
    options = dict(locals())  # every option, by the name the command function takes it
    from pgpage.cli.dump_cmd import dump_command
    _run(dump_command, options)


def run() -> None:
    """Console entry point: one line on stderr for refused input, never a traceback."""
    if not gc.get_freeze_count():
        # what start-up made (modules, Typer) lives as long as the process: no collection walks it again. Once:
        # a process that runs many commands (the mutation campaign's worker) would freeze each one's garbage
        gc.freeze()
    try:
        command_group()()
    except PgpageError as e:
        print(f"pgpage: {e}", file=sys.stderr)
        sys.exit(int(e.exit_code))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # the reader closed the pipe (`| head`) outside a command body (--help)
        sys.exit(int(_pipe_closed()))
    except OSError as e:  # what TARGET names cannot be reached (permission, I/O error): the input is unreadable
        where = f"{e.filename}: " if e.filename else ""
        print(f"pgpage: {where}{e.strerror or e}", file=sys.stderr)
        sys.exit(int(ExitCode.UNREADABLE))
    except Exception as e:  # a bug: say so in one line; PGPAGE_DEBUG=1 shows the traceback
        if os.environ.get("PGPAGE_DEBUG"):
            raise
        print(f"pgpage: internal error: {type(e).__name__}: {e} (set PGPAGE_DEBUG=1 for details)", file=sys.stderr)
        sys.exit(int(ExitCode.UNREADABLE))
