"""`pgpage dump`: a database as a plain SQL script that psql restores, read from the files alone.

The order is pg_dump's (``--format=plain``): extensions, schemas, types (in dependency order), sequences,
tables, views and materialized views (WITH NO DATA); then each table's live rows as a COPY block; then the
sequences' values; then PRIMARY KEY, UNIQUE, EXCLUDE and NOT VALID CHECK constraints, the indexes, the
FOREIGN KEYs, and REFRESH MATERIALIZED VIEW last. Each object's comments follow it.

Definitions come from the catalogs (``passes.dumpcatalog``), their expressions from the node trees they keep
(``decode.nodetree`` parses them, ``analysis.deparse`` prints them as ruleutils.c does, every name qualified: the
script runs with an empty search_path, as pg_dump's). An object whose tree cannot be printed is written as an SQL
comment naming it, with a finding, and so are the objects that need it (a table's data, constraints and indexes);
the rest of the dump goes on. Rows come from ``passes.rows.TableRows`` (the compiled printer), in COPY's text
format as pg_dump writes them, streamed a chunk at a time: memory stays flat.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from pgpage.analysis import ddl, deparse
from pgpage.analysis.ddl import qualified, quote_ident
from pgpage.decode import nodetree
from pgpage.decode.datum import Unreadable
from pgpage.decode.encodings import database_codec
from pgpage.decode.versions import TABLE_ACCESS_METHODS_SINCE
from pgpage.findings import Finding, PgpageError
from pgpage.passes.dumpcatalog import FIRST_NORMAL_OBJECT_ID, DumpCatalog
from pgpage.storage.names import name_pattern

SYSTEM_SCHEMAS = {"pg_catalog", "information_schema", "pg_toast"}
PRESENT_SCHEMAS = {"public"}        # in every new database: commented, not created
DEFAULT_PUBLIC_COMMENT = "standard public schema"
BUILTIN_EXTENSIONS = {"plpgsql"}    # in every new database
CLASS_OIDS = {"pg_class": 1259, "pg_type": 1247, "pg_namespace": 2615, "pg_constraint": 2606,
              "pg_extension": 3079}
RELKIND_WORDS = {"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW", "S": "SEQUENCE", "i": "INDEX",
                 "I": "INDEX", "f": "FOREIGN TABLE"}
DUMPED_CATALOGS = ("pg_namespace", "pg_depend", "pg_class", "pg_type", "pg_attrdef", "pg_constraint", "pg_index",
                   "pg_inherits", "pg_opclass", "pg_description", "pg_enum", "pg_range", "pg_sequence",
                   "pg_partitioned_table", "pg_rewrite", "pg_extension")
# of these the dump needs only the rows of objects made after initdb (DumpCatalog.user_rows), by this column
USER_ROWS = {"pg_class": "oid", "pg_constraint": "oid", "pg_index": "indexrelid", "pg_description": "objoid",
             "pg_rewrite": "oid"}
DEFAULT_COLLATION_OID = 100         # pg_collation.dat's "default"
RTE_RELID = re.compile(r":relid (\d+)")   # the relations a view's query reads (its RangeTblEntries)


@dataclass
class DumpOptions:
    schema_only: bool = False
    data_only: bool = False
    table: str | None = None        # a psql pattern, as pg_dump -t


@dataclass
class DumpResult:
    findings: list[Finding] = field(default_factory=list)
    tables: int = 0
    rows: int = 0
    unprintable: list[str] = field(default_factory=list)   # objects written as comments


@dataclass
class CopyData:
    """A table's rows: ``COPY name (columns) FROM stdin;`` and ``rows.copy_stream()``'s lines (``TableRows``)."""
    name: str                 # qualified
    columns: list[str]        # quoted
    rows: object
    count: int = 0            # rows written (the writer's)


class Unwritable(Exception):
    """An object that cannot be written: why (its tree cannot be printed, or something it needs is missing)."""


def source_facts(cluster) -> list[str]:
    """What the header says of the cluster: where it was read, pg_control's state and last checkpoint, and what a
    cluster not shut down cleanly means for the rows (transactions in progress at the crash never committed)."""
    c = cluster.control
    lines = [f"Data directory: {cluster.path}"]
    if c is None or not c.get("crc_ok"):
        return lines + ["pg_control: unreadable or failing its CRC: the cluster's state is unknown"]
    cp = c["checkPointCopy"]
    lines.append(f"pg_control: state {c['state_name']}, at {c['time_iso']}; latest checkpoint {c['checkPoint']}"
                 f" (redo {cp['redo']}), next xid {cp['nextFullXid']}")
    if c["state_name"] in ("DB_SHUTDOWNED", "DB_SHUTDOWNED_IN_RECOVERY"):
        lines.append("The cluster was shut down cleanly: no transaction was in progress.")
    else:
        lines.append("The cluster was not shut down cleanly: transactions in progress then never committed, and"
                     " their rows are not here; WAL after the last checkpoint was not replayed, so changes"
                     " committed since are missing where their pages were not written.")
    return lines


def open_dump(pgdata: str, db: str | None, options: DumpOptions) -> "Dump":
    """The dump of database ``db`` (None: the only one) of data directory ``pgdata``."""
    from pgpage.storage.datadir import open_data_directory
    cluster = open_data_directory(pgdata)
    return Dump(cluster, cluster.database(db), options)


class Dump:
    """One database's dump: ``load()``, then ``parts()`` (what ``render.dump.write_script`` writes); ``result``."""

    def __init__(self, cluster, db, options: DumpOptions | None = None, names=None):
        from pgpage.passes.catalognames import names_for
        self.cluster, self.db = cluster, db
        self.options = options or DumpOptions()
        self.cat = DumpCatalog(db)
        self.names = names if names is not None else names_for(db, qualify_all=True, catalog=self.cat)   # (path '')
        self.result = DumpResult()
        self.missing: set[int] = set()   # oids of objects written as comments (what needs them is left out too)

    # ------------------------------------------------------------------------------------------ what is dumped
    def _load(self) -> None:
        cat = self.cat
        # the catalogs' layouts and the columns of what may be dumped (relations, composite types): one read
        cat.prefetch_layouts(DUMPED_CATALOGS, (r["oid"] for r in self.db.catalog_rows["pg_class"]
                                               if isinstance(r.get("oid"), int) and r["oid"] >= FIRST_NORMAL_OBJECT_ID
                                               and r.get("relkind") in "rpvmScI"))
        for name in DUMPED_CATALOGS:     # each read once, now: their findings go in the script's header
            self.catalog(name)
        self.namespaces = {r["oid"]: r for r in self.catalog("pg_namespace") if isinstance(r.get("nspname"), str)}
        self.user_namespaces = {oid for oid, r in self.namespaces.items()
                                if r["nspname"] not in SYSTEM_SCHEMAS and not r["nspname"].startswith(("pg_temp_",
                                                                                                       "pg_toast"))}
        depend = self.catalog("pg_depend")
        self.extension_members = {(d["classid"], d["objid"]) for d in depend if d.get("deptype") == "e"}
        self.classes = {r["oid"]: r for r in self.catalog("pg_class") if isinstance(r.get("oid"), int)}
        self.types = {r["oid"]: r for r in self.catalog("pg_type") if isinstance(r.get("oid"), int)}
        # sequences' owners: (table, column) of serial ('a') and identity ('i') sequences
        self.owned_by = {d["objid"]: (d["refobjid"], d["refobjsubid"], d["deptype"]) for d in depend
                         if d.get("classid") == CLASS_OIDS["pg_class"] and d.get("refclassid") == CLASS_OIDS["pg_class"]
                         and d.get("deptype") in ("a", "i") and (d.get("refobjsubid") or 0) > 0
                         and self.classes.get(d["objid"], {}).get("relkind") == "S"}
        self.relations = [r for r in self.classes.values() if self._is_user(r["oid"], r.get("relnamespace"), "pg_class")
                          and r.get("relkind") in "rpvmSicI"]
        self.indexes = {r["indexrelid"]: r for r in self.catalog("pg_index")}
        if self.options.table:
            self.relations = self._matching(self.options.table)
        self.by_kind: dict[str, list[dict]] = {}
        for r in sorted(self.relations, key=lambda r: r["oid"]):
            self.by_kind.setdefault(r["relkind"], []).append(r)
        cat.prefetch_attributes(r["oid"] for r in self.relations if r["relkind"] != "i")
        self.attrdef = {(r["adrelid"], r["adnum"]): r.get("adbin") for r in self.catalog("pg_attrdef")}
        self.inherits: dict[int, list[tuple[int, int]]] = {}
        for r in self.catalog("pg_inherits"):
            self.inherits.setdefault(r["inhrelid"], []).append((r.get("inhseqno") or 0, r["inhparent"]))
        self.opclasses = {r["oid"]: r for r in self.catalog("pg_opclass")}
        self.ams = {r["oid"]: r["amname"] for r in self.db.catalog_rows["pg_am"]}
        self.comments: dict[tuple[int, int, int], str] = {}
        for d in self.catalog("pg_description"):
            text = cat.detoasted(d.get("description"), "pg_description")
            if isinstance(text, str):
                self.comments[(d["classoid"], d["objoid"], d["objsubid"])] = text
            else:
                self.result.findings.append(Finding("dump.object.unprintable", f"the comment on object"
                                                    f" {d['objoid']} cannot be read: it is not in the dump"))

    def catalog(self, name: str) -> list[dict]:
        """A catalog's rows as the dump reads them (``USER_ROWS``: only the objects made after initdb)."""
        return self.cat.user_rows(name, USER_ROWS[name]) if name in USER_ROWS else self.cat.rows(name)

    def _is_user(self, oid, namespace, catalog: str) -> bool:
        return (isinstance(oid, int) and oid >= FIRST_NORMAL_OBJECT_ID and namespace in self.user_namespaces
                and (CLASS_OIDS[catalog], oid) not in self.extension_members)

    def _matching(self, pattern: str) -> list[dict]:
        """pg_dump -t: the tables, views, materialized views and sequences the pattern names, the sequences
        they own, and their indexes."""
        schema_re, name_re = name_pattern(pattern)
        picked = {r["oid"] for r in self.relations if r["relkind"] in "rpvmS" and name_re.match(r["relname"])
                  and (schema_re is None or schema_re.match(self.namespaces[r["relnamespace"]]["nspname"]))}
        picked |= {seq for seq, (table, _, _) in self.owned_by.items() if table in picked}
        return [r for r in self.relations if r["oid"] in picked or (r["relkind"] in "iI" and (
            self.indexes.get(r["oid"], {}).get("indrelid") in picked))]

    def rel_name(self, oid: int) -> str:
        r = self.classes.get(oid)
        if r is None or r.get("relnamespace") not in self.namespaces:
            raise Unwritable(f"relation {oid} is not in pg_class")
        return qualified(self.namespaces[r["relnamespace"]]["nspname"], r["relname"])

    def type_name(self, oid: int) -> str:
        t = self.types.get(oid)
        if t is None or t.get("typnamespace") not in self.namespaces:
            raise Unwritable(f"type {oid} is not in pg_type")
        return qualified(self.namespaces[t["typnamespace"]]["nspname"], t["typname"])

    def text_of(self, value, what: str) -> str:
        """A catalog column that must be text (fetched from TOAST when stored there): refused (Unwritable) when it
        could not be read."""
        value = self.cat.detoasted(value, what)
        if isinstance(value, str):
            return value
        reason = value.message if isinstance(value, Unreadable) else "it is missing"
        raise Unwritable(f"{what} cannot be read: {reason}")

    def tree_of(self, value, what: str):
        """A pg_node_tree column parsed (``decode.nodetree``): refused (Unwritable) when it is not a node tree."""
        try:
            return nodetree.parse(self.text_of(value, what))
        except nodetree.NodeTreeError as exc:
            raise Unwritable(f"{what} is not a node tree: {exc}") from None

    def expression(self, value, what: str, relid: int | None = None) -> str:
        """pg_get_expr of a node tree column (over relation ``relid``'s columns)."""
        return deparse.expression(self.tree_of(value, what), self.names, relid)

    def collation_name(self, oid: int) -> str:
        return deparse.qualified(self.names, *self.names.collation(oid))

    def function_name(self, oid: int) -> str:
        return deparse.qualified(self.names, *self.names.function(oid))

    def operator_name(self, oid: int) -> str:
        """As an EXCLUDE constraint's element names it, in OPERATOR() (the operator's schema always said)."""
        schema, name = self.names.operator(oid)
        return f"OPERATOR({quote_ident(schema)}.{name})"

    def column_names(self, relid: int) -> dict[int, str]:
        return {a["attnum"]: a["attname"] for a in self.cat.attributes(relid)}

    # ------------------------------------------------------------------------------------------ writing
    def load(self) -> None:
        """Read the catalogs (``render.dump.write_script`` then writes the header with what this met)."""
        self._load()
        self.encoding = database_codec(self.db.row, None)[1]
        self.table_access_methods = (self.cluster.major or 0) >= TABLE_ACCESS_METHODS_SINCE
        self.pending: list[str] = []
        # what reading pg_class & co. met (not the check of every relation's files: each table's rows say theirs)
        self.db_findings = list(self.db.findings)

    @property
    def catalog_findings(self) -> list[Finding]:
        return self.cat.findings + self.db_findings

    def parts(self) -> Iterator["str | CopyData"]:
        """The script after its preamble, in pg_dump's order: SQL text, and each table's rows as a CopyData (whose
        ``count`` the writer sets before asking for the next part). ``result`` is complete at the end."""
        o = self.options
        if not o.data_only:
            self.pre_data()
            yield from self.flush()
        if not o.schema_only:
            yield from self.data()
        if not o.data_only:
            self.post_data()
        if not o.schema_only:
            self.refresh()
        yield from self.flush()
        self.result.findings[:0] = self.catalog_findings

    def flush(self) -> Iterator[str]:
        if self.pending:
            yield "".join(self.pending)
            self.pending = []

    def emit(self, text: str) -> None:
        self.pending.append(text)

    def entry(self, kind: str, name: str, text: str) -> None:
        """One object, with pg_dump's comment line before it."""
        schema = name.split(".", 1)[0] if "." in name else "-"
        self.emit(f"--\n-- Name: {name}; Type: {kind}; Schema: {schema}\n--\n\n{text}\n\n")

    def attempt(self, kind: str, name: str, oid: int | None, make) -> bool:
        """``make()``'s statements as one entry, or, when the object cannot be written (``Unwritable``, or a node
        tree deparse refuses), an SQL comment naming it and a finding."""
        try:
            text = make()
        except (Unwritable, deparse.Unprintable) as exc:
            self.unwritten(kind, name, oid, str(exc))
            return False
        self.entry(kind, name, text)
        return True

    def unwritten(self, kind: str, name: str, oid: int | None, reason: str) -> None:
        """An object left out: an SQL comment naming it, a finding; what needs it (``oid``) is left out too."""
        if oid is not None:
            self.missing.add(oid)
        self.result.unprintable.append(f"{kind} {name}")
        self.result.findings.append(Finding("dump.object.unprintable", f"{kind} {name} is not in the dump: {reason}",
                                            relation=name))
        self.emit(f"--\n-- pgpage: {kind} {name} could not be written: {reason}\n--\n\n")

    def comment_on(self, catalog: str, oid: int, what: str, subid: int = 0) -> str:
        text = self.comments.get((CLASS_OIDS[catalog], oid, subid))
        return "" if text is None else "\n" + ddl.comment(what, text)

    # ------------------------------------------------------------------------------------------ pre-data
    def pre_data(self) -> None:
        whole = not self.options.table
        if whole:
            self.extensions()
            self.schemas()
            self.all_types()
        serial = {seq for seq, (_, _, kind) in self.owned_by.items() if kind == "a"}
        identity = {seq for seq, (_, _, kind) in self.owned_by.items() if kind == "i"}
        for r in self.by_kind.get("S", []):
            if r["oid"] not in identity:
                self.attempt("SEQUENCE", self.rel_name(r["oid"]), r["oid"], lambda r=r: self.sequence(r))
        for r in self.tables_in_order():
            self.attempt("TABLE", self.rel_name(r["oid"]), r["oid"], lambda r=r: self.table(r))
        for seq in sorted(serial & {r["oid"] for r in self.by_kind.get("S", [])}):
            table, attnum, _ = self.owned_by[seq]
            if seq in self.missing or table in self.missing or table not in self.classes:
                continue
            column = self.column_names(table).get(attnum)
            if column is not None:
                self.entry("SEQUENCE OWNED BY", self.rel_name(seq),
                           f"ALTER SEQUENCE {self.rel_name(seq)} OWNED BY {self.rel_name(table)}."
                           f"{quote_ident(column)};")
        views = sorted(self.by_kind.get("v", []) + self.by_kind.get("m", []), key=lambda r: r["oid"])
        for r in views:
            kind = "VIEW" if r["relkind"] == "v" else "MATERIALIZED VIEW"
            self.attempt(kind, self.rel_name(r["oid"]), r["oid"], lambda r=r: self.view(r))

    def extensions(self) -> None:
        for e in sorted(self.catalog("pg_extension"), key=lambda e: e.get("extname") or ""):
            if e.get("extname") in BUILTIN_EXTENSIONS or e.get("extnamespace") not in self.namespaces:
                continue
            name = quote_ident(e["extname"])
            self.entry("EXTENSION", e["extname"], f"CREATE EXTENSION IF NOT EXISTS {name} WITH SCHEMA "
                       f"{quote_ident(self.namespaces[e['extnamespace']]['nspname'])};"
                       + self.comment_on("pg_extension", e.get("oid"), f"EXTENSION {name}"))

    def schemas(self) -> None:
        for oid in sorted(self.user_namespaces, key=lambda o: self.namespaces[o]["nspname"]):
            name = self.namespaces[oid]["nspname"]
            if name in PRESENT_SCHEMAS:
                text = self.comments.get((CLASS_OIDS["pg_namespace"], oid, 0))
                if text is not None and text != DEFAULT_PUBLIC_COMMENT:
                    self.entry("COMMENT", f"SCHEMA {name}", ddl.comment(f"SCHEMA {quote_ident(name)}", text))
                continue
            if (CLASS_OIDS["pg_namespace"], oid) in self.extension_members:
                continue
            self.entry("SCHEMA", name, f"CREATE SCHEMA {quote_ident(name)};"
                       + self.comment_on("pg_namespace", oid, f"SCHEMA {quote_ident(name)}"))

    # ---- types
    def all_types(self) -> None:
        """Enums, domains, composite types and ranges of the user's schemas, each after the types it uses."""
        wanted = {oid: t for oid, t in self.types.items() if self._is_user(oid, t.get("typnamespace"), "pg_type")
                  and (t.get("typtype") in "edr" or (t.get("typtype") == "c" and
                                                      self.classes.get(t.get("typrelid"), {}).get("relkind") == "c"))}
        done: set[int] = set()

        def visit(oid: int, path: tuple = ()) -> None:
            if oid in done or oid in path:     # (a cycle cannot be created; never loop on a damaged catalog)
                return
            for dep in self.type_dependencies(wanted[oid]):
                if dep in wanted:
                    visit(dep, path + (oid,))
            done.add(oid)
            self.attempt("TYPE" if wanted[oid]["typtype"] != "d" else "DOMAIN", self.type_name(oid), oid,
                         lambda: self.type_definition(wanted[oid]))
        for oid in sorted(wanted, key=lambda o: self.type_name(o)):
            visit(oid)

    def base_type(self, oid: int) -> int:
        """An array's element type (what a column of it needs created first), else the type itself."""
        t = self.types.get(oid, {})
        return t["typelem"] if t.get("typelem") and t.get("typlen") == -1 else oid

    def type_dependencies(self, t: dict) -> list[int]:
        kind = t["typtype"]
        if kind == "d":
            return [self.base_type(t["typbasetype"])]
        if kind == "c":
            return [self.base_type(a["atttypid"]) for a in self.cat.attributes(t["typrelid"])
                    if a.get("attisdropped") is not True]
        if kind == "r":
            rng = self.ranges.get(t["oid"])
            return [self.base_type(rng["rngsubtype"])] if rng else []
        return []

    @property
    def ranges(self) -> dict[int, dict]:
        return self.cat.by("pg_range", "rngtypid")

    def type_definition(self, t: dict) -> str:
        name, kind = self.type_name(t["oid"]), t["typtype"]
        if kind == "e":
            labels = sorted((e for e in self.catalog("pg_enum") if e.get("enumtypid") == t["oid"]),
                            key=lambda e: e["enumsortorder"])
            body = ",\n    ".join(ddl.literal(self.text_of(e["enumlabel"], "an enum label")) for e in labels)
            text = f"CREATE TYPE {name} AS ENUM (\n    {body}\n);"
        elif kind == "d":
            base = self.types.get(t["typbasetype"], {})
            text = f"CREATE DOMAIN {name} AS {self.names.type_name(t['typbasetype'], t.get('typtypmod', -1))}"
            if t.get("typcollation") and t["typcollation"] != base.get("typcollation"):
                text += f" COLLATE {self.collation_name(t['typcollation'])}"
            if t.get("typdefaultbin") is not None:
                text += f" DEFAULT {self.expression(t['typdefaultbin'], 'its default')}"
            if t.get("typnotnull") is True:
                text += " NOT NULL"
            checks = sorted((c for c in self.catalog("pg_constraint")
                             if c.get("contypid") == t["oid"] and c.get("contype") == "c"), key=lambda c: c["conname"])
            for c in checks:
                text += (f"\n\tCONSTRAINT {quote_ident(c['conname'])} CHECK ("
                         f"{self.expression(c.get('conbin'), 'its CHECK')})"
                         + ("" if c.get("convalidated") is not False else " NOT VALID"))
            text += ";"
            text += "".join(self.comment_on("pg_constraint", c["oid"], f"CONSTRAINT {quote_ident(c['conname'])} "
                                            f"ON DOMAIN {name}") for c in checks)
        elif kind == "c":
            cols = [self.column(t["typrelid"], a, defaults=False) for a in self.cat.attributes(t["typrelid"])
                    if a.get("attisdropped") is not True]
            text = f"CREATE TYPE {name} AS (\n\t" + ",\n\t".join(ddl.column_text(c) for c in cols) + "\n);"
        else:
            text = f"CREATE TYPE {name} AS RANGE (\n" + ",\n".join(f"    {o}" for o in self.range_options(t)) + "\n);"
        return text + self.comment_on("pg_type", t["oid"], f"{'DOMAIN' if kind == 'd' else 'TYPE'} {name}")

    def range_options(self, t: dict) -> list[str]:
        rng = self.ranges.get(t["oid"])
        if rng is None:
            raise Unwritable("its pg_range row is missing")
        out = [f"subtype = {self.names.type_name(rng['rngsubtype'], -1)}"]
        opc = self.opclasses.get(rng.get("rngsubopc"))
        if opc is not None and opc.get("opcdefault") is not True:
            out.append(f"subtype_opclass = {self.opclass_name(opc)}")
        if rng.get("rngcollation") and rng["rngcollation"] != self.types.get(rng["rngsubtype"], {}).get("typcollation"):
            out.append(f"collation = {self.collation_name(rng['rngcollation'])}")
        for key, word in (("rngcanonical", "canonical"), ("rngsubdiff", "subtype_diff")):
            if rng.get(key):
                out.append(f"{word} = {self.function_name(rng[key])}")
        if rng.get("rngmultitypid"):
            out.append(f"multirange_type_name = {self.type_name(rng['rngmultitypid'])}")
        return out

    def opclass_name(self, opc: dict) -> str:
        ns = self.namespaces.get(opc.get("opcnamespace"))
        return qualified(ns["nspname"], opc["opcname"]) if ns else quote_ident(opc["opcname"])

    # ---- sequences
    def sequence_params(self, seq: dict) -> ddl.Sequence:
        p = self.cat.by("pg_sequence", "seqrelid").get(seq["oid"])
        if p is None:
            raise Unwritable("its pg_sequence row is missing")
        return ddl.Sequence(self.rel_name(seq["oid"]), self.names.type_name(p["seqtypid"], -1), p["seqstart"],
                            p["seqincrement"], p["seqmin"], p["seqmax"], p["seqcache"], p["seqcycle"] is True)

    def sequence(self, seq: dict) -> str:
        name = self.rel_name(seq["oid"])
        return ddl.create_sequence(self.sequence_params(seq)).rstrip("\n") + self.comment_on(
            "pg_class", seq["oid"], f"SEQUENCE {name}")

    def sequence_value(self, seq: dict) -> tuple[int, bool]:
        """(last_value, is_called) from the sequence relation's one tuple."""
        from pgpage.decode.catalog import read_catalog
        from pgpage.decode.deform import Attribute
        rel = next((r for r in self.db.relations() if r.oid == seq["oid"]), None)
        fork = rel.forks.get("main") if rel is not None else None
        layout = [Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"] is True)
                  for a in self.db.attributes(seq["oid"])]
        if fork is None or not layout:
            raise Unwritable("its file or its columns cannot be found")
        scan = read_catalog(rel.qualified_name, fork.iter_chunks(), self.cluster.major, self.cluster.clog,
                            relation=rel.qualified_name, columns=layout, key="_tid")
        self.result.findings.extend(scan.findings)
        if len(scan.rows) != 1 or not isinstance(scan.rows[0].get("last_value"), int):
            raise Unwritable(f"its page holds {len(scan.rows)} readable tuples, not one")
        return scan.rows[0]["last_value"], scan.rows[0].get("is_called") is True

    # ---- tables
    def tables_in_order(self) -> list[dict]:
        """Tables and partitioned tables, each after its parents (inheritance, partitioning)."""
        tables = {r["oid"]: r for r in self.by_kind.get("r", []) + self.by_kind.get("p", [])}
        done, order = set(), []

        def visit(oid: int, path: tuple = ()) -> None:
            if oid in done or oid in path:
                return
            for _, parent in sorted(self.inherits.get(oid, [])):
                if parent in tables:
                    visit(parent, path + (oid,))
            done.add(oid)
            order.append(tables[oid])
        for oid in sorted(tables, key=lambda o: self.rel_name(o)):
            visit(oid)
        return order

    def column(self, relid: int, a: dict, defaults: bool = True) -> ddl.Column:
        typ = self.types.get(a["atttypid"], {})
        c = ddl.Column(a["attname"], self.names.type_name(a["atttypid"], a.get("atttypmod", -1)))
        if a.get("attcollation") and a["attcollation"] != typ.get("typcollation"):
            c.collation = self.collation_name(a["attcollation"])
        if defaults:
            if a.get("atthasdef") is True:
                tree = self.attrdef.get((relid, a["attnum"]))
                c.default = self.expression(tree, f"the default of column {a['attname']}", relid)
                c.generated = (a.get("attgenerated") or "").strip("\0") == "s"
            c.not_null = a.get("attnotnull") is True
        return c

    def table(self, r: dict) -> str:
        oid = r["oid"]
        name = self.rel_name(oid)
        t = ddl.Table(name, unlogged=r.get("relpersistence") == "u")
        parents = [p for _, p in sorted(self.inherits.get(oid, []))]
        if r.get("relispartition") is True:
            if not parents:
                raise Unwritable("a partition whose parent pg_inherits does not name")
            t.partition_of = self.rel_name(parents[0])
            bound = self.tree_of(r.get("relpartbound"), "its partition bound")
            t.bound = deparse.partition_bound(bound, self.names, oid)
        else:
            t.inherits = [self.rel_name(p) for p in parents]
        needed = [p for p in parents if p in self.missing] + [
            a["atttypid"] for a in self.cat.attributes(oid) if self.base_type(a["atttypid"]) in self.missing]
        if needed:
            what = self.rel_name(needed[0]) if needed[0] in self.classes else self.type_name(needed[0])
            raise Unwritable(f"it needs {what}, which could not be written")
        inherited = {a["attname"]: self.column(parents[0], a) for a in self.cat.attributes(parents[0])
                     if a.get("attisdropped") is not True} if t.partition_of else {}
        for a in self.cat.attributes(oid):
            if a.get("attisdropped") is True or (a.get("attislocal") is False and not t.partition_of):
                continue
            c = self.column(oid, a)
            if (a.get("attidentity") or "").strip("\0"):
                c.default = None         # (the identity's sequence is given below)
            if t.partition_of:           # a partition's columns are its parent's: only what it adds to them
                parent = inherited.get(c.name, ddl.Column(c.name, ""))
                c = ddl.Column(c.name, "WITH OPTIONS", default=c.default if c.default != parent.default else None,
                               not_null=c.not_null and not parent.not_null)
                if (a.get("attgenerated") or "").strip("\0") or (c.default is None and not c.not_null):
                    continue
            t.columns.append(c)
        inline = sorted((c for c in self.constraints_of(oid, "c") if c.get("convalidated") is not False
                         and c.get("conislocal") is not False), key=lambda c: c["conname"])
        t.checks = [(c["conname"], self.check(c)) for c in inline]
        if r["relkind"] == "p":
            t.partition_by = self.partition_key(oid)
        am = self.ams.get(r.get("relam"))
        if am and am != "heap" and r["relkind"] == "r":
            t.access_method = am
        t.options = ddl.reloptions_text(r.get("reloptions"))
        toast = self.classes.get(r.get("reltoastrelid"))
        if toast is not None:
            t.options += ddl.reloptions_text(toast.get("reloptions"), "toast.")
        text = ddl.create_table(t).rstrip("\n")
        for a in self.cat.attributes(oid):
            if a.get("attisdropped") is not True and a.get("attislocal") is not False:
                text += "".join("\n" + ddl.alter_column(name, a["attname"], clause)
                                for clause in self.column_settings(a))
        for a in self.cat.attributes(oid):
            kind = (a.get("attidentity") or "").strip("\0")
            if kind and a.get("attisdropped") is not True:
                seq = next((s for s, (table, attnum, dep) in self.owned_by.items()
                            if table == oid and attnum == a["attnum"] and dep == "i"), None)
                if seq is None:
                    raise Unwritable(f"the sequence of identity column {a['attname']} is not in pg_depend")
                text += "\n\n" + ddl.identity(name, a["attname"], kind == "a", self.sequence_params(
                    self.classes[seq])).rstrip("\n")
        text += self.comment_on("pg_class", oid, f"TABLE {name}")
        for a in self.cat.attributes(oid):
            text += self.comment_on("pg_class", oid, f"COLUMN {name}.{quote_ident(a['attname'])}", a["attnum"])
        for c in inline:
            text += self.comment_on("pg_constraint", c["oid"], f"CONSTRAINT {quote_ident(c['conname'])} ON {name}")
        return text

    def column_settings(self, a: dict) -> list[str]:
        """What pg_dump sets on a column after CREATE TABLE: its storage where it is not its type's, its compression
        method (14+) and statistics target where set."""
        out = []
        storage = ddl.STORAGE_WORDS.get(a.get("attstorage"))
        if storage and a.get("attstorage") != self.types.get(a["atttypid"], {}).get("typstorage"):
            out.append(f"SET STORAGE {storage}")
        method = ddl.COMPRESSION_WORDS.get((a.get("attcompression") or "").strip("\0"))
        if method:
            out.append(f"SET COMPRESSION {method}")
        target = a.get("attstattarget")
        if isinstance(target, int) and target >= 0:
            out.append(f"SET STATISTICS {target}")
        return out

    def constraints_of(self, relid: int, kind: str) -> list[dict]:
        return [c for c in self.constraints_all if c.get("conrelid") == relid and c.get("contype") == kind]

    @property
    def constraints_all(self) -> list[dict]:
        return self.catalog("pg_constraint")

    def check(self, c: dict) -> str:
        text = f"CHECK ({self.expression(c.get('conbin'), 'its CHECK expression', c['conrelid'])})"
        if c.get("connoinherit") is True:
            text += " NO INHERIT"
        return text

    def partition_key(self, relid: int) -> str:
        """pg_get_partkeydef: the strategy and each key, a column or an expression, with its opclass and
        collation where they are not the default."""
        p = self.cat.by("pg_partitioned_table", "partrelid").get(relid)
        if p is None:
            raise Unwritable("its pg_partitioned_table row is missing")
        exprs = self.key_expressions(p.get("partexprs"), "its partition key expressions", relid)
        keys = self.key_columns(relid, p["partattrs"], p.get("partclass") or [], p.get("partcollation") or [],
                                [], exprs)
        return f"{ddl.PARTITION_STRATEGIES.get(p['partstrat'], '?')} (" + \
            ", ".join(ddl.index_column_text(k, False) for k in keys) + ")"

    def key_expressions(self, value, what: str, relid: int):
        """An index's or partition key's expressions (pg_index.indexprs, partexprs), each as pg_get_indexdef prints
        a key: in parentheses unless a function call."""
        if value is None:
            return iter(())
        tree = self.tree_of(value, what)
        if not isinstance(tree, list):
            raise Unwritable(f"{what} are not a list")
        return iter([deparse.key_expression(item, self.names, relid) for item in tree])

    def key_columns(self, relid: int, attnums, classes, collations, options, exprs) -> list[ddl.IndexColumn]:
        """Index or partition key columns: a column by name or the next expression, with the opclass when it
        is not the default and the collation when it is not the key's own."""
        attrs = {a["attnum"]: a for a in self.cat.attributes(relid)}
        out = []
        for i, attnum in enumerate(attnums):
            if attnum == 0:
                try:
                    key = ddl.IndexColumn(next(exprs), expression=True)
                except StopIteration:
                    raise Unwritable("fewer key expressions than keys") from None
                own_collation = None
            else:
                a = attrs.get(attnum)
                if a is None:
                    raise Unwritable(f"key column {attnum} is not in pg_attribute")
                key = ddl.IndexColumn(quote_ident(a["attname"]))
                own_collation = a.get("attcollation")
            coll = collations[i] if i < len(collations) else 0
            if coll and coll != own_collation and not (key.expression and coll == DEFAULT_COLLATION_OID):
                key.collation = self.collation_name(coll)
            opc = self.opclasses.get(classes[i]) if i < len(classes) else None
            if opc is not None and opc.get("opcdefault") is not True:
                key.opclass = self.opclass_name(opc)
            key.option = options[i] if i < len(options) else 0
            out.append(key)
        return out

    # ---- views
    def view(self, r: dict) -> str:
        oid = r["oid"]
        name = self.rel_name(oid)
        rule = next((w for w in self.catalog("pg_rewrite") if w.get("ev_class") == oid
                     and w.get("rulename") == "_RETURN"), None)
        if rule is None:
            raise Unwritable("its _RETURN rule is not in pg_rewrite")
        text = self.text_of(rule.get("ev_action"), "its query")
        gone = [int(oid) for oid in RTE_RELID.findall(text) if int(oid) in self.missing]
        if gone:
            raise Unwritable(f"it reads {self.rel_name(gone[0])}, which could not be written")
        columns = [a["attname"] for a in self.cat.attributes(oid) if a.get("attisdropped") is not True]
        query = deparse.view_query(self.tree_of(text, "its query"), self.names, columns).rstrip().rstrip(";")
        options = [o for o in r.get("reloptions") or [] if not str(o).startswith("check_option=")]
        check = next((str(o).partition("=")[2] for o in r.get("reloptions") or []
                      if str(o).startswith("check_option=")), None)
        with_ = f" WITH ({', '.join(ddl.reloptions_text(options))})" if options else ""
        if r["relkind"] == "v":
            text = f"CREATE VIEW {name}{with_} AS\n{query}"
            if check:
                text += f"\n  WITH {check.upper()} CHECK OPTION"
            text += ";"
        else:
            text = f"CREATE MATERIALIZED VIEW {name}{with_} AS\n{query}\n  WITH NO DATA;"
        text += self.comment_on("pg_class", oid, f"{RELKIND_WORDS[r['relkind']]} {name}")
        for a in self.cat.attributes(oid):
            text += self.comment_on("pg_class", oid, f"COLUMN {name}.{quote_ident(a['attname'])}", a["attnum"])
        return text

    # ------------------------------------------------------------------------------------------ data
    def data(self) -> Iterator["str | CopyData"]:
        from pgpage.passes.rows import RowOptions, TableRows
        by_oid = {rel.oid: rel for rel in self.db.relations()}
        for r in self.data_order():
            name = self.rel_name(r["oid"])
            cols = [a["attname"] for a in self.cat.attributes(r["oid"]) if a.get("attisdropped") is not True
                    and not (a.get("attgenerated") or "").strip("\0")]
            try:
                if r["oid"] not in by_oid:
                    raise PgpageError("the database's relations do not hold it")
                rows = TableRows(self.cluster, by_oid[r["oid"]], RowOptions(columns=cols, timezone="UTC"))
            except PgpageError as exc:      # (its columns cannot be read: the table is there, empty)
                self.unwritten("TABLE DATA", name, None, str(exc))
                continue
            self.emit(f"--\n-- Data for Name: {name}; Type: TABLE DATA\n--\n\n")
            yield from self.flush()
            copy = CopyData(name, [quote_ident(c) for c in cols], rows)
            yield copy
            self.result.tables += 1
            self.result.rows += copy.count
            self.result.findings.extend(copy.rows.findings)
        for r in self.by_kind.get("S", []):
            if r["oid"] not in self.missing and self.owned_by.get(r["oid"], (None,))[0] not in self.missing:
                self.attempt("SEQUENCE SET", self.rel_name(r["oid"]), None, lambda r=r: self.setval(r))
        yield from self.flush()

    def data_order(self) -> list[dict]:
        """The tables with data by name, each after the tables its foreign keys reference (pg_dump's order, so that
        --data-only restores into a schema whose foreign keys are already there)."""
        tables = {r["oid"]: r for r in self.by_kind.get("r", []) if r["oid"] not in self.missing}
        refs: dict[int, set[int]] = {}
        for c in self.constraints_all:
            if c.get("contype") == "f" and c.get("conrelid") in tables and c.get("confrelid") != c.get("conrelid"):
                refs.setdefault(c["conrelid"], set()).add(c["confrelid"])
        done, order = set(), []

        def visit(oid: int, path: tuple = ()) -> None:
            if oid in done or oid in path:       # (a cycle of foreign keys: name order decides)
                return
            for ref in sorted(refs.get(oid, ()), key=self.rel_name):
                if ref in tables:
                    visit(ref, path + (oid,))
            done.add(oid)
            order.append(tables[oid])
        for oid in sorted(tables, key=self.rel_name):
            visit(oid)
        return order

    def setval(self, r: dict) -> str:
        value, called = self.sequence_value(r)
        return f"SELECT pg_catalog.setval({ddl.literal(self.rel_name(r['oid']))}, {value}, {str(called).lower()});"

    # ------------------------------------------------------------------------------------------ post-data
    def post_data(self) -> None:
        rels = {r["oid"] for r in self.relations}
        mine = [c for c in self.constraints_all if c.get("conrelid") in rels and c.get("contype") in "pucxf"
                and not c.get("conparentid") and c.get("conislocal") is not False]
        by_name = lambda c: (self.rel_name(c["conrelid"]), c["conname"])  # noqa: E731
        keys = sorted((c for c in mine if c["contype"] in "pux" or (c["contype"] == "c" and
                                                                    c.get("convalidated") is False)), key=by_name)
        for c in keys:
            self.constraint(c)
        backing = {c.get("conindid") for c in mine if c["contype"] in "pux"}
        attached = {r["inhrelid"] for r in self.catalog("pg_inherits")}
        for r in sorted(self.by_kind.get("i", []) + self.by_kind.get("I", []), key=lambda r: self.rel_name(r["oid"])):
            ix = self.indexes.get(r["oid"])
            if r["oid"] in backing or r["oid"] in attached or ix is None:
                continue        # (made by its constraint, or by its partitioned table's index)
            if ix["indrelid"] in self.missing:
                self.skip("INDEX", self.rel_name(r["oid"]), ix["indrelid"])
                continue
            self.attempt("INDEX", self.rel_name(r["oid"]), r["oid"], lambda r=r, ix=ix: ddl.create_index(
                self.index(r, ix)).rstrip("\n") + self.comment_on("pg_class", r["oid"],
                                                                  f"INDEX {self.rel_name(r['oid'])}"))
        for c in sorted((c for c in mine if c["contype"] == "f"), key=by_name):
            self.constraint(c)

    def refresh(self) -> None:
        """The materialized views' data: refreshed last, when everything they read is there (with the data)."""
        for r in self.by_kind.get("m", []):
            if r["oid"] not in self.missing and r.get("relispopulated") is not False:
                self.entry("MATERIALIZED VIEW DATA", self.rel_name(r["oid"]),
                           f"REFRESH MATERIALIZED VIEW {self.rel_name(r['oid'])};")

    def skip(self, kind: str, name: str, needed: int) -> None:
        self.emit(f"--\n-- pgpage: {kind} {name} is left out: it needs {self.rel_name(needed)}, which could"
                  " not be written\n--\n\n")

    def constraint(self, c: dict) -> None:
        table = self.rel_name(c["conrelid"])
        label = f"{table} {c['conname']}"
        for needed in (c["conrelid"], c.get("confrelid")):
            if needed in self.missing:
                self.skip("CONSTRAINT", label, needed)
                return

        def make() -> str:
            kind = c["contype"]
            later = ddl.deferrable(c.get("condeferrable") is True, c.get("condeferred") is True)
            if kind == "c":
                definition = self.check(c) + " NOT VALID"
            elif kind == "f":
                cols, ref = self.column_names(c["conrelid"]), self.column_names(c["confrelid"])
                definition = ddl.foreign_key([quote_ident(cols[k]) for k in c["conkey"]], self.rel_name(c["confrelid"]),
                                             [quote_ident(ref[k]) for k in c["confkey"]], c.get("confmatchtype"),
                                             c.get("confupdtype"), c.get("confdeltype"),
                                             [quote_ident(cols[k]) for k in c.get("confdelsetcols") or []], later,
                                             c.get("convalidated") is not False)
            else:
                ix_rel, ix = self.classes.get(c.get("conindid")), self.indexes.get(c.get("conindid"))
                if ix is None or ix_rel is None:
                    raise Unwritable("its index is not in pg_index")
                index = self.index(ix_rel, ix)
                if kind == "x":
                    for key, op in zip(index.columns, c.get("conexclop") or []):
                        key.operator = self.operator_name(op)
                definition = ddl.key_constraint(kind, index, later)
            return ddl.add_constraint(table, c["conname"], definition,
                                      only=self.classes[c["conrelid"]].get("relkind") != "p").rstrip("\n") + \
                self.comment_on("pg_constraint", c["oid"], f"CONSTRAINT {quote_ident(c['conname'])} ON {table}")
        self.attempt("CONSTRAINT" if c["contype"] != "f" else "FK CONSTRAINT", label, c.get("oid"), make)

    def index(self, r: dict, ix: dict) -> ddl.Index:
        relid = ix["indrelid"]
        am = self.ams.get(r.get("relam"), "btree")
        nkey = ix.get("indnkeyatts") or ix.get("indnatts") or len(ix["indkey"])
        exprs = self.key_expressions(ix.get("indexprs"), "its expressions", relid)
        keys = self.key_columns(relid, ix["indkey"][:nkey], ix.get("indclass") or [], ix.get("indcollation") or [],
                                ix.get("indoption") or [], exprs)
        names = self.column_names(relid)
        include = [quote_ident(names[k]) for k in ix["indkey"][nkey:] if k in names]
        predicate = self.expression(ix["indpred"], "its predicate", relid) \
            if ix.get("indpred") is not None else None
        return ddl.Index(r["relname"], self.rel_name(relid), am, keys, include, ix.get("indisunique") is True,
                         ix.get("indnullsnotdistinct") is True, am == "btree", ddl.reloptions_text(r.get("reloptions")),
                         predicate)
