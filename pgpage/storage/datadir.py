"""A PostgreSQL data directory read offline: cluster, databases, relations, their files.

This is pgpage's Python API as much as the CLI's foundation::

    from pgpage.storage.datadir import open_data_directory
    cluster = open_data_directory("/var/lib/postgresql/15/main")
    cluster.major, cluster.control["checkPointCopy"]["nextXid"]
    for db in cluster.databases():
        for rel in db.relations():
            rel.qualified_name, rel.kind, rel.am, rel.forks["main"].nblocks
            for blkno, page in rel.forks["main"].iter_blocks(): ...

Names come from the catalogs themselves (pg_database through ``global/pg_filenode.map``;
pg_class, pg_namespace, pg_am, pg_index through each database's map), decoded with the
server major's layouts and filtered by hint bits and pg_xact. Everything is read-only and
lazy: nothing is read until asked for, and each catalog is read once.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pgpage.findings import ERROR, INFO, WARNING, ExitCode, Finding, PgpageError
from pgpage.storage.names import spelled, split_name, suggestions
from pgpage.storage.relfile import (DEFAULT_BLCKSZ, DEFAULT_RELSEG_SIZE, FORK_SUFFIX, FORKS, RelationFork, Unreadable,
                                    directory_listing, parse_segment_name, segment_files)

GLOBALTABLESPACE_OID = 1664
DEFAULTTABLESPACE_OID = 1663
# the columns pgpage uses of each catalog (decoding the others would only cost time)
CATALOG_COLUMNS = {
    "pg_database": {"oid", "datname", "dattablespace", "datfrozenxid", "datminmxid", "datallowconn", "datistemplate",
                    "datcollate", "datlocprovider", "datlocale", "daticulocale", "datcollversion", "encoding"},
    "pg_tablespace": {"oid", "spcname"},
    "pg_class": {"oid", "relname", "relnamespace", "relam", "relfilenode", "reltablespace", "reltoastrelid",
                 "relisshared", "relpersistence", "relkind", "relnatts", "relfrozenxid", "relminmxid", "reloptions",
                 "reltuples"},
    "pg_namespace": {"oid", "nspname"},
    "pg_am": {"oid", "amname", "amtype"},
    "pg_index": {"indexrelid", "indrelid", "indnatts", "indnkeyatts", "indisunique", "indisprimary", "indkey",
                 "indexprs", "indpred", "indcollation", "indclass", "indoption"},
    "pg_attribute": {"attrelid", "attname", "atttypid", "attlen", "attnum", "atttypmod", "attbyval", "attalign",
                     "attisdropped", "attcollation", "atthasmissing", "attmissingval"},
    "pg_type": {"oid", "typname", "typnamespace", "typlen", "typbyval", "typtype", "typdelim", "typrelid", "typelem",
                "typalign", "typbasetype"},
    "pg_enum": {"oid", "enumtypid", "enumsortorder", "enumlabel"},
    "pg_range": {"rngtypid", "rngsubtype", "rngmultitypid"},
    "pg_collation": {"oid", "collname", "collprovider", "collcollate", "colllocale", "colliculocale", "collversion",
                     "collisdeterministic"},
    "pg_opclass": {"oid", "opcname", "opcintype", "opckeytype"},
}
RAW_COLUMNS = {"attmissingval",  # kept as the stored datum: the deformer takes the value out with the column's type
               "enumlabel"}      # ... a label is text in the database's encoding (Database.types reads it)
CATALOG_OIDS = {"pg_database": 1262, "pg_tablespace": 1213, "pg_class": 1259, "pg_namespace": 2615,
                "pg_am": 2601, "pg_index": 2610, "pg_attribute": 1249, "pg_type": 1247, "pg_enum": 3501,
                "pg_range": 3541, "pg_collation": 3456, "pg_opclass": 2616}
RELKIND_NAMES = {"r": "table", "i": "index", "S": "sequence", "t": "toast table", "v": "view",
                 "m": "materialized view", "c": "composite type", "f": "foreign table",
                 "p": "partitioned table", "I": "partitioned index"}
RELKINDS_WITH_STORAGE = set("ritmS")
HEAP_KINDS = set("rtm")  # tables, TOAST tables, materialized views: heap pages and tuples
PERSISTENCE_NAMES = {"p": "permanent", "u": "unlogged", "t": "temporary"}
MULTIXACT_STATUS_NO_KEY_UPDATE = 4  # MultiXactStatusNoKeyUpdate; Update is 5: the updating members
NOT_RELATION_FILES = {"PG_VERSION", "pg_filenode.map", "pg_internal.init", "pg_filenode.map.tmp"}


class DataDirectory:
    """A data directory. Construct with ``open_data_directory``."""

    def __init__(self, path: Path):
        self.path = path
        self.findings: list[Finding] = []
        self._listings: dict[Path, dict[str, int]] = {}
        self._segment_files: dict[Path, dict[tuple[str, str], list[tuple[str, int]]]] = {}
        self._directories: dict[tuple[int, int], Path] = {}

    # ---------------------------------------------------------------- cluster-wide facts
    @cached_property
    def major(self) -> int | None:
        from pgpage.decode.versions import major_from_pg_version
        try:
            return major_from_pg_version((self.path / "PG_VERSION").read_text())
        except (OSError, ValueError) as e:
            self.findings.append(Finding("cluster.pg_version.unreadable", f"PG_VERSION: {e}"))
            return None

    @cached_property
    def control(self) -> dict | None:
        """global/pg_control decoded (with ``crc_ok``), or None when it is missing or not a control file."""
        from pgpage.decode.control import decode_control
        try:
            control = decode_control((self.path / "global" / "pg_control").read_bytes())
        except OSError as e:
            self.findings.append(Finding("cluster.control.missing", f"global/pg_control: {e.strerror}"))
            return None
        except PgpageError as e:
            self.findings.append(Finding("cluster.control.unreadable", f"global/pg_control: {e}"))
            return None
        for f in control.get("findings", []):
            self.findings.append(Finding(**{k: v for k, v in f.items() if k in Finding.__dataclass_fields__}))
        return control

    @property
    def block_size(self) -> int:
        from pgpage.decode.control import usable_sizes
        return usable_sizes(self.control)[0] or DEFAULT_BLCKSZ

    @property
    def relseg_size(self) -> int:
        from pgpage.decode.control import usable_sizes
        return usable_sizes(self.control)[1] or DEFAULT_RELSEG_SIZE

    @property
    def checksums(self) -> bool | None:
        c = self.control
        return (c["data_checksum_version"] != 0) if c and c["crc_ok"] else None

    @cached_property
    def xact_segments(self) -> dict[str, bytes]:
        """pg_xact's segment files, read once: {name: bytes}."""
        from pgpage.decode.xact import parse_segment_name as slru_segno
        segments = {}
        xdir = self.path / "pg_xact"
        if not xdir.is_dir():
            xdir = self.path / "pg_clog"  # before PostgreSQL 10
        try:
            names = sorted(p.name for p in xdir.iterdir() if slru_segno(p.name) is not None)
        except OSError:
            self.findings.append(Finding("cluster.pg_xact.missing", "pg_xact/ is missing: commit status comes"
                                         " from hint bits only", severity=WARNING))
            return segments
        for name in names:
            try:
                segments[name] = (xdir / name).read_bytes()
            except OSError as e:  # the other segments still answer for their transactions
                self.findings.append(Finding("storage.unreadable", f"{xdir.name}/{name}: {e.strerror or e}: the"
                                             " commit status of its transactions comes from hint bits only",
                                             actual=e.strerror or str(e)))
        return segments

    @cached_property
    def statistics_files(self) -> dict[str, tuple[bytes, float]]:
        """pg_stat/'s files, read once: {name: (bytes, mtime)}; empty when there are none (the server deletes
        them at startup and after a crash: only a cluster stopped cleanly and not started since has them)."""
        out = {}
        try:
            for p in sorted((self.path / "pg_stat").iterdir()):
                if p.is_file() and p.name.endswith(".stat"):
                    out[p.name] = (p.read_bytes(), p.stat().st_mtime)
        except OSError:
            pass
        return out

    @cached_property
    def multixact(self):
        """pg_multixact as ``MultiXactMembers`` (bounded by pg_control's next multi and offset)."""
        from pgpage.decode.xact import MultiXactMembers, parse_segment_name as slru_segno

        def segments(sub: str) -> dict[str, bytes]:
            d = self.path / "pg_multixact" / sub
            try:
                return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if slru_segno(p.name) is not None}
            except OSError:
                return {}
        cp = (self.control or {}).get("checkPointCopy", {})
        return MultiXactMembers(segments("offsets"), segments("members"), cp.get("nextMulti"),
                                cp.get("nextMultiOffset"), self.block_size)

    @cached_property
    def id_reach(self) -> tuple[int | None, int | None]:
        """(full xid, multixact id) past the last ones pg_xact's and pg_multixact/offsets' pages on disk hold
        room for, counting from pg_control's checkpoint on (``decode.xact.slru_reach``); None where pg_control
        does not say where to start. What a server running or crashed since that checkpoint may have handed out."""
        from pgpage.decode.xact import CLOG_XACTS_PER_BYTE, parse_segment_name as slru_segno, slru_reach
        cp = (self.control or {}).get("checkPointCopy", {})
        xid, multi = cp.get("nextFullXid"), cp.get("nextMulti")
        bs = self.block_size
        if xid is not None:
            sizes = {slru_segno(name): len(data) for name, data in self.xact_segments.items()}
            xid += slru_reach(sizes, bs * CLOG_XACTS_PER_BYTE, bs, xid)
        if multi:
            try:
                d = self.path / "pg_multixact" / "offsets"
                sizes = {slru_segno(p.name): p.stat().st_size for p in d.iterdir() if slru_segno(p.name) is not None}
            except OSError:
                sizes = {}
            multi = (multi + slru_reach(sizes, bs // 4, bs, multi)) & 0xFFFFFFFF or 1
        return xid, multi

    def multi_update_xid(self, multis):
        """For each multixact id (numpy array), the xid of its updating member, 0 when it only
        locked, -1 when its members cannot be read."""
        import numpy as np
        out = np.empty(len(multis), dtype=np.int64)
        cache: dict[int, int] = {}
        for i, m in enumerate(multis.tolist()):
            if m not in cache:
                members = self.multixact.members(m)
                updaters = [x["xid"] for x in members or [] if x["status"] >= MULTIXACT_STATUS_NO_KEY_UPDATE]
                cache[m] = -1 if members is None else (updaters[0] if updaters else 0)
            out[i] = cache[m]
        return out

    @cached_property
    def clog(self):
        """pg_xact as a vectorised ``ClogArray``. After a clean shutdown nothing is still running,
        so an xid pg_xact shows in progress never committed."""
        from pgpage.decode.xact import ClogArray, parse_segment_name as slru_segno
        segments = {slru_segno(name): data for name, data in self.xact_segments.items()}
        state = (self.control or {}).get("state_name")
        return ClogArray(segments, self.block_size,
                         in_progress_is_aborted=state in ("DB_SHUTDOWNED", "DB_SHUTDOWNED_IN_RECOVERY"))

    @cached_property
    def settings(self) -> dict[str, str]:
        """Parameters set in postgresql.conf and postgresql.auto.conf (ALTER SYSTEM, read last), includes
        followed: {lower-cased name: value}. Debian and others keep postgresql.conf outside the data
        directory; then only postgresql.auto.conf is here."""
        from pgpage.decode.config import INCLUDE_DIRECTIVES, parse_conf
        found: dict[str, str] = {}

        def read(path: Path, depth: int, required: bool) -> None:
            if depth > 10:            # include loops (guc-file.l stops at the same depth)
                return
            try:
                text = path.read_text(errors="replace")
            except OSError:
                if required:
                    self.findings.append(Finding("cluster.config.unreadable", f"{path}: cannot be read",
                                                 severity=INFO))
                return
            for name, value, _ in parse_conf(text):
                if name not in INCLUDE_DIRECTIVES:
                    found[name] = value
                    continue
                target = path.parent / value
                if name == "include_dir":
                    try:
                        names = sorted(p for p in target.iterdir() if p.name.endswith(".conf")
                                       and not p.name.startswith("."))
                    except OSError:
                        names = []
                    for p in names:
                        read(p, depth + 1, True)
                else:
                    read(target, depth + 1, name == "include")

        for name in ("postgresql.conf", "postgresql.auto.conf"):
            if (self.path / name).exists():
                read(self.path / name, 0, True)
        return found

    # ---------------------------------------------------------------- files
    def fork(self, directory: Path, stem: str, fork: str = "main") -> RelationFork:
        return RelationFork(directory, stem, fork, self.block_size, self.relseg_size, listing=self.listing(directory))

    def listing(self, directory: Path) -> dict[str, int]:
        """A directory's {file name: size}, read once per data directory object."""
        if directory not in self._listings:
            self._listings[directory] = directory_listing(directory)
        return self._listings[directory]

    def segment_files(self, directory: Path) -> dict[tuple[str, str], list[tuple[str, int]]]:
        """``relfile.segment_files`` of a directory's listing, made once per data directory object (a check of
        every fork's files would otherwise parse every name of the directory once per fork)."""
        if directory not in self._segment_files:
            self._segment_files[directory] = segment_files(self.listing(directory))
        return self._segment_files[directory]

    def tablespace_directory(self, spcoid: int, dboid: int) -> Path:
        """Where a database's files in a tablespace live (one Path per pair: hundreds of relations ask)."""
        key = (spcoid, dboid)
        if key not in self._directories:
            self._directories[key] = self._tablespace_directory(spcoid, dboid)
        return self._directories[key]

    def _tablespace_directory(self, spcoid: int, dboid: int) -> Path:
        if spcoid == GLOBALTABLESPACE_OID:
            return self.path / "global"
        if spcoid in (0, DEFAULTTABLESPACE_OID):
            return self.path / "base" / str(dboid)
        link = self.path / "pg_tblspc" / str(spcoid)
        try:
            versions = sorted(p for p in link.iterdir() if p.name.startswith(f"PG_{self.major}_"))
        except OSError:
            versions = []
        return (versions[0] if versions else link / f"PG_{self.major}_unknown") / str(dboid)

    def _catalog_fork(self, catalog: str, mapping: dict[int, int], directory: Path) -> RelationFork | None:
        filenode = mapping.get(CATALOG_OIDS[catalog])
        return None if filenode is None else self.fork(directory, str(filenode))

    def read_catalog(self, catalog: str, fork: RelationFork | None, findings: list[Finding], key: str = "oid",
                     first_column: int | set[int] | None = None):
        from pgpage.decode.catalog import read_catalog
        if fork is None or not fork.exists:
            findings.append(Finding("catalog.missing", f"{catalog}: its file is missing, so what it names is unknown",
                                    relation=catalog))
            return []
        if self.major is None:
            return []
        scan = read_catalog(catalog, fork.iter_chunks(), self.major, self.clog, relation=catalog, key=key,
                            wanted=CATALOG_COLUMNS.get(catalog), first_column=first_column, raw=RAW_COLUMNS)
        findings.extend(fork.findings)
        findings.extend(scan.findings)
        if scan.undecided:
            findings.append(Finding("catalog.visibility.undecided", f"{catalog}: {scan.undecided} rows kept without"
                                    " knowing whether their transaction committed (pg_xact does not cover them)",
                                    severity=WARNING, relation=catalog))
        return scan.rows

    @cached_property
    def global_map(self) -> dict[int, int]:
        return self._filenode_map(self.path / "global" / "pg_filenode.map", self.findings)

    def _filenode_map(self, path: Path, findings: list[Finding]) -> dict[int, int]:
        from pgpage.decode.filenode_map import decode_filenode_map
        try:
            m = decode_filenode_map(path.read_bytes())
        except OSError as e:
            findings.append(Finding("filenode_map.missing", f"{path.relative_to(self.path)}: {e.strerror}"))
            return {}
        except PgpageError as e:
            findings.append(Finding("filenode_map.unreadable", f"{path.relative_to(self.path)}: {e}"))
            return {}
        if not m["crc_ok"]:
            findings.append(Finding("filenode_map.crc_mismatch", f"{path.relative_to(self.path)}: stored CRC"
                                    f" {m['crc_stored']:08x} != computed {m['crc_computed']:08x}; mappings used anyway",
                                    expected=m["crc_computed"], actual=m["crc_stored"]))
        return dict(m["mappings"])

    @cached_property
    def tablespaces(self) -> dict[int, str]:
        rows = self.read_catalog("pg_tablespace", self._catalog_fork("pg_tablespace", self.global_map,
                                                                      self.path / "global"), self.findings)
        return {r["oid"]: r["spcname"] for r in rows}

    def databases(self) -> list["Database"]:
        return list(self._databases)

    @cached_property
    def _databases(self) -> list["Database"]:
        rows = self.read_catalog("pg_database", self._catalog_fork("pg_database", self.global_map,
                                                                    self.path / "global"), self.findings)
        dbs = [Database(self, r["oid"], r["datname"], r["dattablespace"], r) for r in rows]
        if not rows:  # no readable pg_database: fall back to the directories under base/
            for p in sorted((self.path / "base").glob("*")):
                if p.name.isdigit():
                    dbs.append(Database(self, int(p.name), None, DEFAULTTABLESPACE_OID, {}))
        self._check_tablespace_links()
        for db in dbs:
            if not db.path.is_dir():
                self.findings.append(Finding("database.directory_missing", f"database {db.name} (oid {db.oid}):"
                                             f" {db.path.relative_to(self.path)} is missing", relation=db.name))
        return sorted(dbs, key=lambda d: str(d.name or ""))  # a damaged pg_database row's name is Unreadable

    def _check_tablespace_links(self) -> None:
        """Each entry of pg_tblspc must lead to a directory (a tablespace's location): a symlink whose target
        is gone leaves every relation in that tablespace unreadable."""
        try:
            entries = sorted((self.path / "pg_tblspc").iterdir())
        except OSError:
            return
        for link in entries:
            if link.is_symlink() and not link.exists():
                try:
                    target = os.readlink(link)
                except OSError:
                    target = "?"
                self.findings.append(Finding("tablespace.link_dangling", f"pg_tblspc/{link.name} points at"
                                             f" {target}, which is missing: the relations of tablespace"
                                             f" {link.name} cannot be read"))

    def database(self, name: str | None) -> "Database":
        dbs = [d for d in self.databases() if d.path.is_dir()]
        if name is None:
            if len(dbs) == 1:
                return dbs[0]
            raise PgpageError(f"{self.path} holds {len(dbs)} databases ({', '.join(str(d.name or d.oid) for d in dbs)}):"
                              " choose one with --db", ExitCode.USAGE)
        for d in dbs:
            if d.name == name or str(d.oid) == name:
                return d
        there = f"no database {name!r} in {self.path} (there are: {', '.join(str(d.name or d.oid) for d in dbs)})"
        if any(d.name is None for d in dbs):    # pg_database gave no row: the directories' OIDs are all we know
            raise PgpageError(f"{there}: pg_database names none of them (no readable row); give the database's"
                              f" OID{_damage_note(self.findings)}", ExitCode.UNREADABLE)
        raise PgpageError(there + _damage_note(self.findings), _not_found_status(self.findings))


def _not_found_status(findings: list[Finding], gaps: list[str] = ()) -> ExitCode:
    """A name not found is a usage error, unless the catalogs that hold the names could not be read whole: then
    it may be in what was lost, and the input is what is wrong."""
    return ExitCode.UNREADABLE if gaps or any(f.severity == ERROR for f in findings) else ExitCode.USAGE


def _damage_note(findings: list[Finding], gaps: list[str] = ()) -> str:
    errors = [f"{f.code}: {f.message}" for f in findings if f.severity == ERROR]
    if not gaps and not errors:
        return ""
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return "; the catalogs that name them are damaged: " + "; ".join([*gaps, *errors[:1]]) + more


@dataclass
class Database:
    cluster: DataDirectory
    oid: int
    name: str | None
    tablespace: int
    row: dict
    findings: list[Finding] = field(default_factory=list)
    orphans: dict[str, list[str]] | None = None  # files no pg_class row names, once relations() has looked

    @property
    def path(self) -> Path:
        return self.cluster.tablespace_directory(self.tablespace, self.oid)

    @cached_property
    def filenode_map(self) -> dict[int, int]:
        return self.cluster._filenode_map(self.path / "pg_filenode.map", self.findings)

    def _catalog(self, catalog: str, class_rows: dict[int, dict], key: str = "oid",
                 findings: list[Finding] | None = None) -> list[dict]:
        """Rows of a catalog of this database, found through the map or through pg_class; what went wrong goes to
        ``findings`` (default: the database's)."""
        fork = self.cluster._catalog_fork(catalog, self.filenode_map, self.path)
        row = class_rows.get(CATALOG_OIDS[catalog])
        if fork is None and row is not None and row["relfilenode"]:
            fork = self.cluster.fork(self.path, str(row["relfilenode"]))
        return self.cluster.read_catalog(catalog, fork, self.findings if findings is None else findings, key)

    @cached_property
    def catalog_rows(self) -> dict[str, list[dict]]:
        """The visible rows of pg_class, pg_namespace, pg_am and pg_index: what the relations are built from."""
        class_rows = {r["oid"]: r for r in self._catalog("pg_class", {})}
        return {"pg_class": list(class_rows.values()), "pg_namespace": self._catalog("pg_namespace", class_rows),
                "pg_am": self._catalog("pg_am", class_rows),
                "pg_index": self._catalog("pg_index", class_rows, key="indexrelid")}

    @cached_property
    def types(self):
        """pg_type, pg_enum and pg_range as a ``values.TypeCatalog`` (what printing a column's values needs)."""
        from pgpage.decode.encodings import database_codec
        from pgpage.decode.values import TypeCatalog
        class_rows = {r["oid"]: r for r in self.catalog_rows["pg_class"]}
        codec = database_codec(self.row, None)[0]
        enums = [{**r, "enumlabel": _name_text(r.get("enumlabel"), codec)} for r in self._catalog("pg_enum", class_rows)]
        return TypeCatalog.from_rows(self._catalog("pg_type", class_rows), enums,
                                     self._catalog("pg_range", class_rows, key="rngtypid"), self.attributes)

    @cached_property
    def collations(self) -> dict[int, dict]:
        """pg_collation's rows by oid (name, provider, locale); empty when the catalog cannot be read
        (then the oid names a collation: what went wrong reading it is not this database's finding)."""
        class_rows = {r["oid"]: r for r in self.catalog_rows["pg_class"]}
        rows = self._catalog("pg_collation", class_rows, findings=[])
        return {r["oid"]: r for r in rows if isinstance(r.get("oid"), int)}

    @cached_property
    def opclasses(self) -> dict[int, dict]:
        """pg_opclass's rows by oid (name, input and key type): which BRIN summary an index column keeps. Empty
        when the catalog cannot be read (then the columns' summaries are not decoded; said where asked)."""
        class_rows = {r["oid"]: r for r in self.catalog_rows["pg_class"]}
        rows = self._catalog("pg_opclass", class_rows, findings=[])
        return {r["oid"]: r for r in rows if isinstance(r.get("oid"), int)}

    def catalog_state(self) -> tuple:
        """What reading the catalogs learnt (rows, the filenode map, findings), to hand to ``adopt_catalogs``
        of this database's object in another process."""
        return self.catalog_rows, self.filenode_map, self.findings

    def adopt_catalogs(self, state: tuple) -> None:
        self.__dict__["catalog_rows"], self.__dict__["filenode_map"], self.findings = state

    @cached_property
    def _relations(self) -> list["Relation"]:
        rows = self.catalog_rows
        namespaces = {r["oid"]: r["nspname"] for r in rows["pg_namespace"]}
        ams = {r["oid"]: r["amname"] for r in rows["pg_am"]}
        indexes = {r["indexrelid"]: r for r in rows["pg_index"]}
        rels = [Relation(self, row, namespaces.get(row["relnamespace"]), ams.get(row["relam"]),
                         indexes.get(row["oid"])) for row in rows["pg_class"]]
        by_oid = {r.oid: r for r in rels}
        for r in rels:
            if r.index_row is not None:
                r.table = by_oid.get(r.index_row["indrelid"])
            if r.row["reltoastrelid"]:
                toast = by_oid.get(r.row["reltoastrelid"])
                r.toast = toast
                if toast is not None:
                    toast.toast_parent = r
        return rels

    def relations(self) -> list["Relation"]:
        """Every relation, with the database's files checked against them (orphans, missing files) once:
        finding one relation by name (``relation``) does not need the check."""
        rels = self._relations
        if self.orphans is None:
            self._check_files(rels)
        return list(rels)

    def attributes(self, relid: int) -> list[dict]:
        """pg_attribute rows of one relation (user columns, attnum > 0, in attnum order); [] when
        pg_attribute is missing. Only that relation's rows are deformed (attrelid is the first column)."""
        cache = self.__dict__.setdefault("_attribute_rows", {})
        if relid not in cache:
            fork = self.cluster._catalog_fork("pg_attribute", self.filenode_map, self.path)
            rows = self.cluster.read_catalog("pg_attribute", fork, self.findings, key="_tid",  # no one-column key
                                             first_column=relid)
            cols = {r["attnum"]: r for r in rows if r.get("attrelid") == relid and (r.get("attnum") or 0) > 0}
            cache[relid] = [cols[k] for k in sorted(cols)]
        return cache[relid]

    def prefetch_attributes(self, relids) -> None:
        """pg_attribute rows of many relations in one read (``attributes`` then answers from memory)."""
        cache = self.__dict__.setdefault("_attribute_rows", {})
        want = {r for r in relids if r not in cache}
        if len(want) < 2:
            return
        fork = self.cluster._catalog_fork("pg_attribute", self.filenode_map, self.path)
        by: dict[int, dict] = {r: {} for r in want}
        # findings of a damaged pg_attribute are attributes()'s to report (once), not this read's
        for r in self.cluster.read_catalog("pg_attribute", fork, [], key="_tid", first_column=want):
            cols = by.get(r.get("attrelid"))
            if cols is not None and (r.get("attnum") or 0) > 0:
                cols[r["attnum"]] = r
        for relid, cols in by.items():
            cache[relid] = [cols[k] for k in sorted(cols)]

    def forget_attributes(self) -> None:
        """Drop the pg_attribute rows ``attributes`` and ``prefetch_attributes`` kept."""
        self.__dict__.pop("_attribute_rows", None)

    def relation(self, name: str) -> "Relation":
        """By [schema.]name as psql takes it (``storage.names``), or by oid or relfilenode."""
        rels = self._relations
        schema, relname = split_name(name)
        hits = [r for r in rels if r.name == relname and (schema is None or r.namespace == schema)]
        if len(hits) > 1 and schema is None:
            hits = [r for r in hits if r.namespace == "public"] or hits
        if not hits and name.isdigit():
            hits = [r for r in rels if r.relfilenode == int(name)] or [r for r in rels if r.oid == int(name)]
        if len(hits) == 1:
            return hits[0]
        if not hits:    # a database always has pg_class rows, each in a schema pg_namespace names
            unnamed = sum(not isinstance(r.namespace, str) for r in rels) if schema else 0   # (None or Unreadable)
            gaps = (["pg_class gave no row"] if not rels else []) + (
                [f"pg_namespace does not name the schema of {unnamed} relations"] if unnamed else []) + (
                self._class_gaps())
            maybe = suggestions(schema, relname, [(r.namespace, r.name) for r in rels
                                                  if isinstance(r.namespace, str) and isinstance(r.name, str)])
            hint = f": did you mean {' or '.join(maybe)}?" if maybe else ""
            raise PgpageError(f"no relation {name!r} in database {self.name}{hint}{_damage_note(self.findings, gaps)}",
                              _not_found_status(self.findings, gaps))
        raise PgpageError(f"{name!r} is ambiguous in database {self.name}: "
                          f"{', '.join(spelled(r.namespace, r.name) if r.namespace else r.qualified_name for r in hits)}",
                          ExitCode.USAGE)

    def _class_gaps(self) -> list[str]:
        """pg_class's blocks whose rows may be gone (asked only when a name is not found): blocks that fail their
        checksum (a page replaced by another breaks no other rule the catalog reader checks), all-zero blocks
        before its last one (a page zeroed, or never written after a crash: its rows, if any, are lost), blocks
        with tuple bytes but no line pointer to them (pd_lower cut back), and rows seen twice (a page copied over
        another, its checksum made good: the rows it held are gone)."""
        import numpy as np

        from pgpage.decode.checksum import chunk_checksum_failures
        from pgpage.decode.vector import decode_headers
        fork = self.cluster._catalog_fork("pg_class", self.filenode_map, self.path)
        if fork is None or not fork.exists:
            return []
        bad, zeroed, unpointed = [], [], []
        for first, chunk in fork.iter_chunks():
            if self.cluster.checksums:
                bad += chunk_checksum_failures(chunk, first)
            zeroed += (first + np.flatnonzero(~chunk.any(axis=1))).tolist()
            h = decode_headers(chunk)   # heap pages keep pd_upper at pd_special while no item has storage
            unpointed += (first + np.flatnonzero(~h.is_new & (h.nlp == 0) & (h.upper < h.special))).tolist()
        zeroed = [b for b in zeroed if b < fork.end_block - 1]
        blocks = lambda bs: f"block{'s' if len(bs) > 1 else ''} {', '.join(map(str, bs))}"  # noqa: E731
        gaps = [f"pg_class fails its checksum at {blocks(bad)}"] if bad else []
        if zeroed:
            gaps.append(f"pg_class {blocks(zeroed)} {'are' if len(zeroed) > 1 else 'is'} all zeros")
        if unpointed:
            gaps.append(f"pg_class {blocks(unpointed)} {'hold' if len(unpointed) > 1 else 'holds'} tuple data"
                        " but no line pointer")
        twice = sum(f.code == "catalog.row.ambiguous" and f.relation == "pg_class" for f in self.findings)
        if twice:
            gaps.append(f"pg_class holds {twice} row{'s' if twice > 1 else ''} twice (a page copied over another?)")
        return gaps

    def _check_files(self, rels: list["Relation"]) -> None:
        """Orphan files (no pg_class row) and rows whose file is missing."""
        known: set[tuple[Path, str]] = set()
        for r in rels:
            if r.has_storage:
                known.add((r.directory, r.file_stem))
                if not r.forks.get("main") and (r.directory / r.file_stem).is_dir():  # not a file: unreadable
                    self.findings.append(Unreadable(r.directory / r.file_stem, IsADirectoryError(
                        errno.EISDIR, os.strerror(errno.EISDIR))).finding(r.qualified_name, "main"))
                elif not r.forks.get("main"):
                    self.findings.append(Finding("relation.file_missing", f"{r.kind_name} with relfilenode"
                                                 f" {r.relfilenode} has no file"
                                                 f" {r.directory.relative_to(self.cluster.path)}/{r.file_stem}",
                                                 relation=r.qualified_name))
        names = sorted(self.cluster.listing(self.path))
        orphans: dict[str, list[str]] = {}
        for n in names:
            if n in NOT_RELATION_FILES:
                continue
            parsed = parse_segment_name(n)
            if parsed is None:
                if not n.startswith("pgsql_tmp"):
                    self.findings.append(Finding("database.stray_file", f"{n} is not a relation file's name",
                                                 severity=INFO, relation=self.name))
                continue
            stem = parsed.stem.split("_")[-1] if parsed.stem.startswith("t") else parsed.stem
            if (self.path, stem) not in known and (self.path, parsed.stem) not in known:
                orphans.setdefault(parsed.stem, []).append(n)
        for stem, files in orphans.items():
            self.findings.append(Finding("relation.orphan_file", f"{', '.join(files)}: no pg_class row has"
                                         f" relfilenode {stem}", severity=WARNING, relation=self.name))
        self.orphans = orphans


@dataclass
class Relation:
    database: Database
    row: dict
    namespace: str | None
    am: str | None
    index_row: dict | None
    table: "Relation | None" = None
    toast: "Relation | None" = None
    toast_parent: "Relation | None" = None

    @property
    def oid(self) -> int:
        return self.row["oid"]

    @property
    def name(self) -> str:
        return self.row["relname"]

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name

    @property
    def kind(self) -> str:
        return self.row["relkind"]

    @property
    def kind_name(self) -> str:
        return RELKIND_NAMES.get(self.kind, self.kind)

    @property
    def persistence(self) -> str:
        return PERSISTENCE_NAMES.get(self.row["relpersistence"], self.row["relpersistence"])

    @property
    def has_storage(self) -> bool:
        return self.kind in RELKINDS_WITH_STORAGE

    @property
    def access_method(self) -> str | None:
        """The AM by name; tables before 12 (no table AMs yet) are heap."""
        if self.am:
            return self.am
        return "heap" if self.kind in "rtmS" else None

    @property
    def relfilenode(self) -> int:
        node = self.row["relfilenode"]
        if node == 0:  # a mapped catalog: the map knows
            mapping = self.database.cluster.global_map if self.row["relisshared"] else self.database.filenode_map
            node = mapping.get(self.oid, 0)
        return node

    def rows(self, all_versions: bool = False, timezone: str | None = None, wal: str | None = None):
        """This table's rows as records (dicts: ctid, xmin, xmax, status, ..., ``values`` by column name) with
        typed Python values: the rows a new SELECT returns, or every version on disk with ``all_versions`` (pruned ones
        too: ``passes.carve``), and with ``wal`` (a directory of WAL segments; implies ``all_versions``) the versions
        only its WAL still holds (status ``wal``, their ``lsn``: ``passes.walrows``).
        ``passes.rows.TableRows`` gives the values as text and the findings (what could not be read)."""
        from pgpage.passes.rows import RowOptions, TableRows
        all_versions = all_versions or wal is not None
        return TableRows(self.database.cluster, self, RowOptions(all_versions=all_versions, carve=all_versions,
                                                                 timezone=timezone, wal=wal)).records()

    @cached_property
    def directory(self) -> Path:
        spc = GLOBALTABLESPACE_OID if self.row["relisshared"] else (self.row["reltablespace"] or self.database.tablespace)
        return self.database.cluster.tablespace_directory(spc, self.database.oid)

    @cached_property
    def file_stem(self) -> str:
        stem = str(self.relfilenode)
        if self.row["relpersistence"] == "t":  # temp files carry the owning backend: t<backend>_<relfilenode>
            hits = sorted(self.directory.glob(f"t*_{stem}"))
            if hits:
                return hits[0].name.split(".")[0].removesuffix("_fsm").removesuffix("_vm")
        return stem

    @cached_property
    def forks(self) -> dict[str, RelationFork]:
        if not self.has_storage:
            return {}
        cluster = self.database.cluster
        present = cluster.listing(self.directory)  # a fork exists when its first segment does
        forks = (cluster.fork(self.directory, self.file_stem, fork) for fork in FORKS
                 if self.file_stem + FORK_SUFFIX[fork] in present)
        return {f.fork: f for f in forks if f.exists}

    @property
    def size_bytes(self) -> int:
        return sum(f.size_bytes for f in self.forks.values())

    def reloption(self, name: str) -> str | None:
        """One storage parameter from pg_class.reloptions ("fillfactor", "deduplicate_items", ...)."""
        for opt in self.row.get("reloptions") or []:
            key, _, value = str(opt).partition("=")
            if key == name:
                return value
        return None

    @property
    def fillfactor(self) -> int:
        """The fillfactor pages are filled to (100 for heaps when unset)."""
        value = self.reloption("fillfactor")
        return int(value) if value and value.isdigit() else 100


def open_data_directory(path: str | Path) -> DataDirectory:
    """Open a data directory, or refuse with one line if it is not one."""
    p = Path(path)
    if not p.is_dir():
        raise PgpageError(f"{p}: {'not a directory' if p.exists() else 'no such file or directory'}",
                          ExitCode.UNREADABLE)
    if not (p / "PG_VERSION").is_file() or not (p / "global").is_dir():
        raise PgpageError(f"{p}: not a PostgreSQL data directory (no PG_VERSION and global/)", ExitCode.UNREADABLE)
    return DataDirectory(p)


def _name_text(raw, codec: str) -> str | None:
    """A name column's stored bytes (NAMEDATALEN, NUL-padded) as text in the database's encoding; None when they
    are not (the row's label is then unknown: its values are reported, not guessed)."""
    if not isinstance(raw, (bytes, bytearray)):
        return None
    try:
        return bytes(raw).split(b"\0", 1)[0].decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None
