"""What a command's TARGET names, worked out in one place for every command.

The words a user has, all accepted by every command that reads a relation:
- a data directory, with ``--db`` (which database: name or oid; optional when there is one) and ``--rel``
  (``[schema.]name`` as psql takes it, or an oid or relfilenode; see ``storage.names``) and ``--fork``;
- a relation's file inside a data directory (``base/16384/16385``, ``global/1262``, ``..._vm``, a
  tablespace's file): the relation the catalogs name by that file, its fork from the file's name;
- a segment (``16385.1``): that segment alone;
- any other file: read as a stand-alone relation file (a page image copied out), without catalogs.

``resolve`` returns a ``Target``; a command asks for what it needs (``need_relation`` for `rows`, whose
columns come from the catalogs; ``whole`` for commands that also read a whole data directory or database).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from pgpage.decode.pagebase import PageContext
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.datadir import DataDirectory, Database, Relation, open_data_directory
from pgpage.storage.relfile import FORKS, RelationFork, open_segment_file, parse_segment_name


@dataclass
class Target:
    label: str                         # what to call it in output: a path, or db.schema.name
    cluster: DataDirectory | None = None    # the data directory TARGET is or lies in
    database: Database | None = None
    relation: Relation | None = None   # named by --rel, or the relation a file inside a data directory belongs to
    fork: RelationFork | None = None   # the fork to read; None for a whole data directory or database
    context: PageContext | None = None
    path: Path | None = None           # the file TARGET named (None for a data directory)
    segno: int | None = None           # the segment a ``.N`` file names alone

    def sibling(self, fork: str) -> RelationFork | None:
        """Another fork of the same relation (e.g. the _vm of a main fork), if its file exists."""
        f = RelationFork(self.fork.directory, self.fork.stem, fork, self.fork.block_size, self.fork.relseg_size)
        return f if f.exists else None


def resolve(target: str, db: str | None = None, rel: str | None = None, fork: str | None = "main", *,
            whole: bool = False, need_relation: bool = False, what: str = "relation") -> Target:
    """The ``Target`` of TARGET with --db/--rel/--fork. ``fork`` None: every fork (verify); ``whole``: a data
    directory without --rel is accepted (the target is its database, or the cluster); ``what`` names what --rel
    must name, for the error texts ("table", "index")."""
    if fork is not None and fork not in FORKS:
        raise PgpageError(f"--fork must be one of {', '.join(FORKS)}", ExitCode.USAGE)
    path = Path(target)
    if path.is_dir():
        cluster = open_data_directory(path)
        if not rel:
            if not whole:
                raise PgpageError(f"{target} is a directory: name a {what} with --rel (and --db)", ExitCode.USAGE)
            return Target(str(path), cluster, cluster.database(db) if db else None)
        return relation_target(cluster, cluster.database(db).relation(rel), fork or "main")
    if not path.exists() and not path.is_symlink():
        raise PgpageError(f"{target}: no such file or directory", ExitCode.UNREADABLE)
    if db or rel:
        raise PgpageError("--db and --rel go with a data directory, not a file", ExitCode.USAGE)
    return file_target(path, need_relation, what)


def cluster_target(target: str, db: str | None = None, *, command: str = "this command") -> Target:
    """A data directory (and --db) for a command that reads whole clusters; a file is refused with one line."""
    t = resolve(target, db, whole=True)
    if t.fork is not None:
        raise PgpageError(f"{target} is a file: {command} reads a data directory (one relation's file: `pgpage heap`,"
                          " `index` or `page`)", ExitCode.USAGE)
    return t


def relation_target(cluster: DataDirectory, relation: Relation, fork: str = "main") -> Target:
    """A fork of a relation the catalogs name (its file need not exist)."""
    f = relation.forks.get(fork) or cluster.fork(relation.directory, relation.file_stem, fork)
    ctx = PageContext(fork=fork, am=relation.am if fork == "main" else None, major=cluster.major,
                      checksums=cluster.checksums, relation=relation.qualified_name, block_size=cluster.block_size)
    return Target(f"{relation.database.name}.{relation.qualified_name}", cluster, relation.database, relation, f, ctx)


def file_target(path: Path, need_relation: bool = False, what: str = "relation") -> Target:
    """A file: its data directory and catalog relation when it lies in one, else a stand-alone relation file."""
    home = find_data_directory(path)
    cluster = relation = None
    trusted = False   # pg_control readable: its block size, segment size and checksum setting hold for the file
    if home is not None:
        cluster = DataDirectory(home)
        trusted = bool(cluster.control and cluster.control["crc_ok"])
    parsed = parse_segment_name(path.name)
    if trusted and parsed is not None:
        try:
            relation = relation_of_file(cluster, path)
        except PgpageError:   # catalogs unreadable: the file is still read on its own
            relation = None
    if need_relation and relation is None:
        why = "this file is not inside one" if home is None else "no catalog of it names this file"
        raise PgpageError(f"{path}: a {what}'s columns come from the catalogs: give the data directory the file"
                          f" belongs to ({why})", ExitCode.USAGE)
    kw = {"relseg_size": cluster.relseg_size} if trusted else {}
    relfork = open_segment_file(path, cluster.block_size if trusted else None, **kw)
    ctx = PageContext(fork=relfork.fork, major=_major_near(path), checksums=cluster.checksums if trusted else None,
                      relation=relfork.name, block_size=relfork.block_size)
    t = Target(str(path), cluster, None, None, relfork, ctx, path, parsed.segno if parsed else None)
    if relation is not None:
        t.database, t.relation = relation.database, relation
        t.context = replace(ctx, relation=relation.qualified_name,
                            am=relation.access_method if relfork.fork == "main" else None)
    return t


def relation_of_file(cluster: DataDirectory, path: Path) -> Relation | None:
    """The catalog relation whose files include ``path``: found in the database its directory names
    (``base/<oid>``, a tablespace's ``<oid>``; ``global`` is every database's), by file stem and directory."""
    parsed = parse_segment_name(path.name)
    if parsed is None:
        return None
    directory = path.resolve().parent
    dbs = [d for d in cluster.databases() if d.path.is_dir()]
    if directory.name.isdigit():
        dbs = [d for d in dbs if d.oid == int(directory.name)] or dbs
    for d in dbs[:1] if directory.name == "global" else dbs:
        for r in d.relations():
            if r.has_storage and r.file_stem == parsed.stem and r.directory.resolve() == directory:
                return r
    return None


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
