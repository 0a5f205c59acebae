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
from pgpage.decode.versions import CATALOG_OIDS
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
        self._rows: dict[tuple[str, str | None], list[dict]] = {}
        self._attributes: dict[int, list[dict]] = {}
        self._toast: dict[int, ToastStore] = {}

    @cached_property
    def catalog_classes(self) -> dict[str, dict]:
        """pg_catalog's relations by name (their pg_class rows as Database reads them)."""
        return {r["relname"]: r for r in self.db.catalog_rows["pg_class"]
                if r.get("relnamespace") == PG_CATALOG_NAMESPACE and isinstance(r.get("relname"), str)}

    def _layout(self, relid: int) -> list[Attribute]:
        # pg_attribute's own from the database's reader (its built-in layout), the others' from the rows
        # prefetch_attributes read for many relations at once
        rows = self.db.attributes(relid) if relid == CATALOG_OIDS["pg_attribute"] else self.attributes(relid)
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
        if (name, None) not in self._rows:
            self._rows[name, None] = self._read(name)
        return self._rows[name, None]

    def user_rows(self, name: str, key: str = "oid") -> list[dict]:
        """The visible rows of catalog ``name`` whose column ``key`` is an object made after initdb (its oid, or
        the object a row is about): where ``key`` is the first column, the system's rows are not deformed (most
        of pg_description, pg_rewrite's rules of the system's views); else they are dropped once read."""
        if (name, key) not in self._rows:
            rows = self._read(name, user_key=key)
            self._rows[name, key] = [r for r in rows if isinstance(r.get(key), int)
                                     and r[key] >= FIRST_NORMAL_OBJECT_ID]
        return self._rows[name, key]

    def _read(self, name: str, first_column=None, user_key: str | None = None) -> list[dict]:
        row = self.catalog_classes.get(name)
        fork = self._fork(name)
        layout = self._layout(row["oid"]) if row is not None else []
        if fork is None or not fork.exists or not layout:
            self.findings.append(Finding("catalog.missing", f"{name}: not found in pg_class, no file or no"
                                         " pg_attribute rows: what it holds is not in the dump", relation=name))
            return []
        if user_key is not None and layout[0].name == user_key:
            first_column = range(FIRST_NORMAL_OBJECT_ID, 1 << 32)
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

    def prefetch_layouts(self, catalogs, relids=()) -> None:
        """The pg_attribute rows of the catalogs ``rows`` and ``user_rows`` will read (their layouts) and of
        relations ``relids``, in one read of pg_attribute instead of one a catalog."""
        self.prefetch_attributes([self.catalog_classes[n]["oid"] for n in catalogs if n in self.catalog_classes]
                                 + list(relids))

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

