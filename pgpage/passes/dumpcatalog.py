"""The catalogs `pgpage dump` reads, whole rows, offline.

``storage.datadir.Database`` reads the columns of a few catalogs that the other commands need (its
CATALOG_COLUMNS, with layouts from ``decode.versions``). A dump needs every column of many more catalogs
(pg_constraint, pg_attrdef, pg_description, pg_sequence, pg_depend, ...): each is read here with its own
pg_attribute rows as its layout, as the server deforms it, so that no second table of catalog layouts is kept.
A catalog is found by name in pg_catalog through pg_class (its relfilenode, or the filenode map for the
mapped ones); a value stored out of line (a long view's query) is fetched from the catalog's TOAST table when
asked for (``detoasted``). Visibility is decided as for every catalog (``decode.catalog``: hint bits, then pg_xact).
"""
from __future__ import annotations

from functools import cached_property

from pgpage.decode.catalog import read_catalog
from pgpage.decode.datum import VARHDRSZ, ToastPointer, Unreadable
from pgpage.decode.deform import Attribute
from pgpage.findings import WARNING, Finding
from pgpage.passes.toast import ToastStore

PG_CATALOG_NAMESPACE = 11       # pg_catalog's oid (pg_namespace.dat), the same in every major
FIRST_NORMAL_OBJECT_ID = 16384  # FirstNormalObjectId (transam.h): objects made after initdb


class DumpCatalog:
    """Whole rows of the catalogs of one database (``Database``), each catalog read once."""

    def __init__(self, db):
        self.db = db
        self.cluster = db.cluster
        self.findings: list[Finding] = []
        self._rows: dict[str, list[dict]] = {}
        self._attributes: dict[int, list[dict]] = {}
        self._toast: dict[int, ToastStore] = {}

    @cached_property
    def catalog_classes(self) -> dict[str, dict]:
        """pg_catalog's relations by name (their pg_class rows as Database reads them)."""
        return {r["relname"]: r for r in self.db.catalog_rows["pg_class"]
                if r.get("relnamespace") == PG_CATALOG_NAMESPACE and isinstance(r.get("relname"), str)}

    def _layout(self, relid: int) -> list[Attribute]:
        rows = self.db.attributes(relid)
        return [Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"] is True,
                          a.get("attisdropped") is True) for a in rows]

    def _fork(self, name: str):
        row = self.catalog_classes.get(name)
        if row is None:
            return None
        node = row["relfilenode"] or self.db.filenode_map.get(row["oid"])
        return None if not node else self.cluster.fork(self.db.path, str(node))

    def rows(self, name: str) -> list[dict]:
        """The visible rows of catalog ``name`` with every column; [] (and a finding) when it cannot be read."""
        if name not in self._rows:
            self._rows[name] = self._read(name)
        return self._rows[name]

    def _read(self, name: str, first_column=None) -> list[dict]:
        row = self.catalog_classes.get(name)
        fork = self._fork(name)
        layout = self._layout(row["oid"]) if row is not None else []
        if fork is None or not fork.exists or not layout:
            self.findings.append(Finding("catalog.missing", f"{name}: not found in pg_class, no file or no"
                                         " pg_attribute rows: what it holds is not in the dump", relation=name))
            return []
        scan = read_catalog(name, fork.iter_chunks(), self.cluster.major, self.cluster.clog, relation=name,
                            columns=layout, key="_tid", first_column=first_column)
        self.findings.extend(fork.findings)
        self.findings.extend(scan.findings)
        if scan.undecided:
            self.findings.append(Finding("catalog.visibility.undecided", f"{name}: {scan.undecided} rows kept"
                                         " without knowing whether their transaction committed", severity=WARNING,
                                         relation=name))
        return scan.rows

    def detoasted(self, value, catalog: str):
        """A text column's value, fetched from the catalog's TOAST table where it is stored out of line (a long
        view's query, a long default: fetched when asked for, not for every row of the catalog); an Unreadable (the
        value's finding) when it cannot be fetched or is not text."""
        if not isinstance(value, ToastPointer):
            return value
        pointer = value
        toast = next((r for r in self.db.relations() if r.oid == pointer.va_toastrelid), None)
        if toast is None or not toast.forks.get("main"):
            return Unreadable("toast.relation_missing", f"{catalog}: TOAST relation {pointer.va_toastrelid} is not"
                              " in the catalog or has no file")
        if toast.oid not in self._toast:
            self._toast[toast.oid] = ToastStore.open(toast, self.cluster)
        value = self._toast[toast.oid].fetch([pointer])[0]
        if isinstance(value, Unreadable):
            return value
        try:
            return bytes(value[VARHDRSZ:]).decode("utf-8")
        except UnicodeDecodeError as exc:
            return Unreadable("toast.value.not_text", f"{catalog}: TOAST value {pointer.va_valueid}: {exc}")

    def attributes(self, relid: int) -> list[dict]:
        """Every column of pg_attribute for the user columns of relation ``relid`` (attnum > 0, dropped ones
        included, in attnum order)."""
        if relid not in self._attributes:
            self.prefetch_attributes([relid])
        return self._attributes[relid]

    def prefetch_attributes(self, relids) -> None:
        want = {r for r in relids if r not in self._attributes}
        if not want:
            return
        by: dict[int, dict[int, dict]] = {r: {} for r in want}
        for r in self._read("pg_attribute", first_column=want):
            cols = by.get(r.get("attrelid"))
            if cols is not None and isinstance(r.get("attnum"), int) and r["attnum"] > 0:
                cols[r["attnum"]] = r
        for relid, cols in by.items():
            self._attributes[relid] = [cols[k] for k in sorted(cols)]

    def by(self, name: str, key: str) -> dict:
        """Catalog ``name``'s rows by the value of column ``key``."""
        return {r[key]: r for r in self.rows(name) if r.get(key) is not None}

    def user_objects(self, name: str) -> list[dict]:
        """Rows of an oid-keyed catalog made after initdb."""
        return [r for r in self.rows(name) if isinstance(r.get("oid"), int) and r["oid"] >= FIRST_NORMAL_OBJECT_ID]
