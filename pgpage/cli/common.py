"""Helpers every command body shares: finding tallies, output choice."""
from __future__ import annotations

from pgpage.findings import ERROR, ExitCode, PgpageError


def exit_status(findings) -> int:
    """1 when any finding (a Finding or its JSON dict) is an error, else 0."""
    def sev(f):
        return f.get("severity", ERROR) if isinstance(f, dict) else f.severity
    return int(ExitCode.FINDINGS if any(sev(f) == ERROR for f in findings) else ExitCode.CLEAN)


def emit(doc: dict, json_out: bool, render) -> None:
    """JSON to stdout, or the text renderer ``render(doc)``."""
    if json_out:
        from pgpage.render.output import emit_json
        emit_json(doc)
    else:
        render(doc)


def refuse_output_inside(output: str, read: str, option: str) -> None:
    """Refuse, before any work, an output that lies inside the data directory being read (pgpage never writes into
    what it inspects)."""
    from pathlib import Path
    where, source = Path(output).resolve(), Path(read).resolve()
    if source.is_dir() and where.is_relative_to(source):
        raise PgpageError(f"{option} {output}: inside {read}, which is being read: pgpage never writes into what it"
                          " inspects", ExitCode.USAGE)


def write_parquet(path: str, produce, schema) -> int:
    """`--parquet FILE`: the record batches ``produce(sink)`` makes (``passes.export``), as one Parquet file of
    ``schema``; returns the rows written."""
    from pgpage.render.parquet import write_table_file
    return write_table_file(path, produce, schema)
