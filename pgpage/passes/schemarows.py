"""`pgpage rows FILE --schema '...'`: a table's rows without its catalog (issue 39, item 5).

A bare relation segment file (copied out of its cluster), or a table whose pg_attribute is damaged, is read with
the columns the user gives (``decode.schema``): the same ``TableRows`` as with the catalog, handed the
attributes instead of reading them. Only built-in types are known (no pg_type to read). TOAST pointers are
followed into the TOAST file ``--toast`` gives, else reported: NULL and a finding that says so. Without a data
directory there is no pg_xact: a version's fate comes from its hint bits alone (``--all`` shows every one).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from pgpage.decode.datum import VARLENA_EXTSIZE_MASK, Unreadable
from pgpage.decode.schema import parse_schema
from pgpage.decode.values import TypeCatalog
from pgpage.decode.xact import ClogArray
from pgpage.findings import ExitCode, PgpageError
from pgpage.passes.blocks import parse_block_range
from pgpage.passes.rows import RowOptions, TableRows
from pgpage.passes.toast import ToastStore, toast_max_chunk
from pgpage.storage.target import resolve


class FileCluster:
    """What `rows` asks of a data directory, for a file that lies in none: no pg_xact, pg_multixact, pg_control
    or configuration (``major`` from a PG_VERSION beside the file, if any)."""

    def __init__(self, block_size: int, major: int | None):
        self.block_size, self.major = block_size, major
        self.clog = ClogArray({}, block_size)
        self.settings: dict[str, str] = {}
        self.checksums = None
        self.control = None
        self.id_reach = (None, None)    # no pg_xact nor pg_control: carving finds no xid it can vouch for

    def multi_update_xid(self, multis):
        return np.full(len(multis), -1, dtype=np.int64)     # (their members cannot be read)


class GivenDatabase:
    """The database of a relation whose columns are given: no catalog but the built-in types."""

    def __init__(self, name: str):
        self.name = name
        self.types = TypeCatalog({})

    def relations(self):
        return []


class GivenRelation:
    """A relation file read without its catalog row (``datadir.Relation``'s part that `rows` uses)."""
    kind, kind_name, oid, toast = "r", "table", None, None

    def __init__(self, name: str, fork, database: GivenDatabase):
        self.qualified_name, self.database = name, database
        self.forks = {"main": fork}
        self.row: dict = {}         # no pg_class row (relhasoids: unknown, taken as none)


class SchemaRows(TableRows):
    """``TableRows`` of a relation whose columns are given, its TOAST values from ``toast`` (a GivenRelation) when
    one is given, whatever TOAST relation oid the pointers name."""

    def __init__(self, cluster, relation, attrs, options: RowOptions, toast: GivenRelation | None):
        super().__init__(cluster, relation, options, attrs)
        self.given_toast = toast
        if not relation.database.name:      # a file alone: its name
            self.label = relation.qualified_name

    def _toast_store(self, rel: int):
        if self.given_toast is None:
            return None
        if rel not in self._toast:
            self._toast[rel] = ToastStore(self.given_toast, self.cluster.clog, toast_max_chunk(self.cluster))
        return self._toast[rel]

    def _toast_value(self, pointer):
        if self.given_toast is None:
            return Unreadable("rows.toast.not_followed", f"TOAST value {pointer.va_valueid} of TOAST relation "
                              f"{pointer.va_toastrelid}, {pointer.va_extinfo & VARLENA_EXTSIZE_MASK} bytes stored: not"
                              " followed (--toast FILE names the TOAST table's file)")
        return super()._toast_value(pointer)


def schema_rows(target: str, db: str | None, rel: str | None, schema: str, toast: str | None,
                options: RowOptions, blocks: str | None = None) -> SchemaRows:
    """`pgpage rows TARGET --schema ...` (``toast``: the TOAST table's file, --toast)."""
    attrs = parse_schema(schema)
    t = resolve(target, db, rel, "main")
    if t.fork is None or not t.fork.exists:
        raise PgpageError(f"{target}: no table file to read", ExitCode.UNREADABLE)
    cluster = t.cluster if t.cluster is not None else FileCluster(t.fork.block_size, t.context.major)
    name = t.relation.qualified_name if t.relation is not None else Path(t.fork.segment_path(0)).name
    database = GivenDatabase(t.database.name if t.database is not None else "")
    relation = GivenRelation(name, t.fork, database)
    given_toast = None
    if toast is not None:
        tt = resolve(toast, None, None, "main")
        given_toast = GivenRelation(Path(toast).name, tt.fork, database)
    if blocks is not None:
        options.start, options.stop = parse_block_range(None, blocks, False, t.fork.first_block, t.fork.end_block)
    return SchemaRows(cluster, relation, attrs, options, given_toast)
