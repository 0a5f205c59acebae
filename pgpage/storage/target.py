"""One way to name what a command reads: a segment file, or a data directory with --db/--rel.

``resolve_fork`` turns the user's words into a RelationFork plus what is known about where
it came from (major, checksums, access method), reading only what it needs.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pgpage.decode.pagebase import PageContext
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.datadir import DataDirectory, open_data_directory
from pgpage.storage.relfile import FORKS, RelationFork, open_segment_file


@dataclass
class ForkTarget:
    fork: RelationFork
    context: PageContext
    label: str  # what to call it in output: a path, or db.schema.name
    cluster: object = None   # the DataDirectory the file lies in, when there is one
    relation: object = None  # the catalog's Relation, when named through a data directory

    def sibling(self, fork: str) -> RelationFork | None:
        """Another fork of the same relation (e.g. the _vm of a main fork), if its file exists."""
        f = RelationFork(self.fork.directory, self.fork.stem, fork, self.fork.block_size, self.fork.relseg_size)
        return f if f.exists else None


def fork_target(cluster: DataDirectory, db: str | None, rel: str, fork: str) -> ForkTarget:
    """A fork of a relation the catalogs of database ``db`` name (its file need not exist)."""
    relation = cluster.database(db).relation(rel)
    f = relation.forks.get(fork) or cluster.fork(relation.directory, relation.file_stem, fork)
    ctx = PageContext(fork=fork, am=relation.am if fork == "main" else None, major=cluster.major,
                      checksums=cluster.checksums, relation=relation.qualified_name, block_size=cluster.block_size)
    return ForkTarget(f, ctx, f"{relation.database.name}.{relation.qualified_name}", cluster, relation)


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
        if not rel:
            raise PgpageError(f"{target} is a directory: name a relation with --rel (and --db)", ExitCode.USAGE)
        return fork_target(open_data_directory(path), db, rel, fork)
    if not path.exists():
        raise PgpageError(f"{target}: no such file or directory", ExitCode.UNREADABLE)
    if db or rel:
        raise PgpageError("--db and --rel go with a data directory, not a file", ExitCode.USAGE)
    datadir = find_data_directory(path)
    checksums = relseg = block_size = cluster = None
    if datadir is not None:
        cluster = DataDirectory(datadir)
        if cluster.control and cluster.control["crc_ok"]:  # a damaged pg_control only costs us these hints
            checksums, relseg, block_size = cluster.checksums, cluster.relseg_size, cluster.block_size
    kw = {"relseg_size": relseg} if relseg else {}
    relfork = open_segment_file(path, block_size, **kw)
    ctx = PageContext(fork=relfork.fork, major=_major_near(path), checksums=checksums,
                      relation=relfork.name, block_size=relfork.block_size)
    return ForkTarget(relfork, ctx, str(path), cluster)
