"""One way to name what a command reads: a segment file, or a data directory with --db/--rel.

``resolve_fork`` turns the user's words into a RelationFork plus what is known about where
it came from (major, checksums, access method), reading only what it needs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pgpage.decode.page import PageContext
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.relfile import FORKS, RelationFork, open_segment_file


@dataclass
class ForkTarget:
    fork: RelationFork
    context: PageContext
    label: str  # what to call it in output: a path, or db.schema.name


def find_data_directory(path: Path) -> Path | None:
    """The data directory a relation file lies in (``base/<db>/f``, ``global/f`` or a tablespace), if any."""
    for parent in list(path.resolve().parents)[:6]:
        if (parent / "global" / "pg_control").is_file() and (parent / "PG_VERSION").is_file():
            return parent
    return None


def _major_near(path: Path) -> int | None:
    from pgpage.decode.versions import major_from_pg_version
    for candidate in (path.parent / "PG_VERSION", path.parent.parent / "PG_VERSION"):
        try:
            return major_from_pg_version(candidate.read_text())
        except (OSError, ValueError):
            continue
    return None


def resolve_fork(target: str, db: str | None, rel: str | None, fork: str) -> ForkTarget:
    if fork not in FORKS:
        raise PgpageError(f"--fork must be one of {', '.join(FORKS)}", ExitCode.USAGE)
    path = Path(target)
    if path.is_dir():
        from pgpage.storage.datadir import open_data_directory
        if not rel:
            raise PgpageError(f"{target} is a directory: name a relation with --rel (and --db)", ExitCode.USAGE)
        return open_data_directory(path).fork_target(db, rel, fork)
    if db or rel:
        raise PgpageError("--db and --rel go with a data directory, not a file", ExitCode.USAGE)
    datadir = find_data_directory(path) if path.exists() else None
    checksums = relseg = block_size = None
    if datadir is not None:
        try:
            from pgpage.decode.control import decode_control
            control = decode_control((datadir / "global" / "pg_control").read_bytes())
            if control["crc_ok"]:
                checksums = control["data_checksum_version"] != 0
                relseg, block_size = control["relseg_size"], control["blcksz"]
        except (OSError, PgpageError):
            pass  # a damaged pg_control only costs us these hints; `scan` reports it
    kw = {"relseg_size": relseg} if relseg else {}
    relfork = open_segment_file(path, block_size, **kw)
    ctx = PageContext(fork=relfork.fork, major=_major_near(path), checksums=checksums,
                      relation=relfork.name, block_size=relfork.block_size)
    return ForkTarget(relfork, ctx, str(path))
