"""The names ``analysis.deparse`` prints, read offline from a database's catalogs (``names_for(db)``).

pg_proc, pg_operator, pg_type and pg_collation are read whole (with their pg_attribute columns, through
``dumpcatalog.DumpCatalog``), once; pg_class and pg_attribute through the database's own readers. The search
path decides what is qualified, as in a session: ``qualify_all=False`` is a default session's (``public``
on the path, what pg_get_expr and pg_get_viewdef print there), ``qualify_all=True`` is pg_dump's
``search_path = ''`` (everything outside pg_catalog qualified). Constants are printed by the column value
printer (``values.ValueFormatter``) in ``timezone`` (UTC by default: what a dump writes reads back the same in
any zone).
"""
from __future__ import annotations

from functools import cached_property

from pgpage.analysis.deparse import Unprintable, format_type, qualified
from pgpage.decode.datum import Undecoded, Unreadable
from pgpage.decode.ksy.type_oids import REGCLASSOID, REGPROCOID, REGTYPEOID
from pgpage.decode.values import ValueFormatter

PG_CATALOG = "pg_catalog"


class CatalogNames:
    """``deparse.Names`` over a ``storage.datadir.Database``."""

    def __init__(self, db, qualify_all: bool = False, timezone: str = "UTC", catalog=None):
        from pgpage.passes.dumpcatalog import DumpCatalog
        self.db = db
        self.catalog = catalog if catalog is not None else DumpCatalog(db)
        self.major = db.cluster.major
        self.path = () if qualify_all else ("public",)
        self.formatter = ValueFormatter(db.types, db.cluster.major, timezone)

    def table(self, catalog: str) -> list[dict]:
        """The visible rows of a catalog of the database (``dumpcatalog.DumpCatalog``'s: each catalog read once,
        shared with the dump when it gives its own)."""
        return self.catalog.rows(catalog)

    def _by_oid(self, catalog: str, name: str, namespace: str) -> dict[int, tuple[str, str]]:
        out = {}
        for r in self.table(catalog):
            try:
                out[int(r["oid"])] = (self.namespaces.get(int(r[namespace]), "?"), r[name])
            except (KeyError, TypeError, ValueError):
                continue     # an unreadable row: what it names is unknown (Unprintable when asked)
        return out

    @cached_property
    def namespaces(self) -> dict[int, str]:
        return {r["oid"]: r["nspname"] for r in self.db.catalog_rows["pg_namespace"]}

    @cached_property
    def functions(self) -> dict[int, tuple[str, str]]:
        return self._by_oid("pg_proc", "proname", "pronamespace")

    @cached_property
    def operators(self) -> dict[int, tuple[str, str]]:
        return self._by_oid("pg_operator", "oprname", "oprnamespace")

    @cached_property
    def operator_kinds(self) -> dict[int, str]:
        return {r["oid"]: r.get("oprkind") for r in self.table("pg_operator") if isinstance(r.get("oid"), int)}

    @cached_property
    def collations(self) -> dict[int, tuple[str, str]]:
        return self._by_oid("pg_collation", "collname", "collnamespace")

    @cached_property
    def types(self) -> dict[int, dict]:
        out = {}
        for r in self.table("pg_type"):
            try:
                out[int(r["oid"])] = {"typname": r["typname"], "schema": self.namespaces.get(int(r["typnamespace"]), "?"),
                                      "typtype": r["typtype"], "typelem": int(r["typelem"]),
                                      "typrelid": int(r["typrelid"]), "typcollation": int(r["typcollation"]),
                                      "typlen": int(r["typlen"]), "typstorage": r["typstorage"]}
            except (KeyError, TypeError, ValueError):
                continue
        return out

    @cached_property
    def relations(self) -> dict[int, tuple[str, str]]:
        return {r["oid"]: (self.namespaces.get(r["relnamespace"], "?"), r["relname"])
                for r in self.db.catalog_rows["pg_class"]}

    # ---- deparse.Names
    def visible(self, schema: str) -> bool:
        return schema == PG_CATALOG or schema in self.path

    @staticmethod
    def _get(table: dict, oid: int, what: str):
        found = table.get(oid)
        if found is None:
            raise Unprintable(f"{what} {oid}, which the catalog does not have")
        return found

    def function(self, oid: int) -> tuple[str, str]:
        return self._get(self.functions, oid, "function")

    def operator(self, oid: int) -> tuple[str, str]:
        return self._get(self.operators, oid, "operator")

    def operator_kind(self, oid: int) -> str:
        return self._get(self.operator_kinds, oid, "operator")

    def relation(self, oid: int) -> tuple[str, str]:
        return self._get(self.relations, oid, "relation")

    def collation(self, oid: int) -> tuple[str, str]:
        return self._get(self.collations, oid, "collation")

    def column(self, relid: int, attnum: int) -> str:
        for a in self.db.attributes(relid):
            if a.get("attnum") == attnum:
                return a["attname"]
        raise Unprintable(f"column {attnum} of relation {relid}, which the catalog does not have")

    def type_info(self, oid: int) -> dict:
        return self.types.get(oid) or {}

    def type_name(self, oid: int, typmod: int) -> str:
        info = self._get(self.types, oid, "type")
        if info["typelem"] and info["typlen"] == -1 and info["typstorage"] != "p":   # an array (format_type's test)
            elem = self._get(self.types, info["typelem"], "type")
            return format_type(info["typelem"], typmod, elem, qualified(self, elem["schema"], elem["typname"])) + "[]"
        return format_type(oid, typmod, info, qualified(self, info["schema"], info["typname"]))

    def value_text(self, typid: int, raw: bytes) -> str:
        if typid in (REGCLASSOID, REGTYPEOID, REGPROCOID) and len(raw) == 4:
            # their output functions print names (the value printer, without this catalog, the number)
            oid = int.from_bytes(raw, "little")
            if typid == REGTYPEOID:
                return self.type_name(oid, -1)
            schema, name = self.relation(oid) if typid == REGCLASSOID else self.function(oid)
            return qualified(self, schema, name)
        text = self.formatter.text(typid, raw)
        if text is None or isinstance(text, (Undecoded, Unreadable)):
            raise Unprintable(f"CONST of type {typid} ({text})")
        return str(text)


def names_for(db, qualify_all: bool = False, timezone: str = "UTC", catalog=None) -> CatalogNames:
    """The names of ``db``'s catalogs, for ``analysis.deparse`` (``catalog``: a ``dumpcatalog.DumpCatalog`` of
    ``db`` to read them through, e.g. the dump's own)."""
    return CatalogNames(db, qualify_all, timezone, catalog)
