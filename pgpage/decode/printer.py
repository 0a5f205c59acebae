"""Which values the compiled printer prints (``kernels.CsvPrinter``, ``pgp_csv_rows``), and its setup for a
table's columns or a B-tree's attributes.

The printer ports some of PostgreSQL's output functions; ``ValueFormatter`` (``decode.values``) is their Python
twin and prints everything else. This table, kept beside the printer's Python wrapper, says which types the port
covers: the types ``datum`` prints from their bytes alone, those of ``typeout`` listed in ``_PORTED``, enums, and
arrays, ranges and multiranges of these. A table's column of another type gets Python's texts, handed to the
printer (kind "given"); a B-tree's attribute of another type leaves the index to Python.
"""
from __future__ import annotations

import codecs
from functools import cached_property
from typing import NamedTuple

import numpy as np

from pgpage.decode import datum, kernels, pgtz, typeout
from pgpage.decode.datum import ATTALIGN_BYTES
from pgpage.decode.deform import Attribute
from pgpage.decode.typeout import ranges
from pgpage.decode.values import ValueFormatter

NESTED_KINDS = ("array", "range", "multirange")
STORED_TEXT_KINDS = ("text", "name", "jsonb", "tsvector", "xml")   # kinds whose values hold text as stored   # kinds whose values are made of values of another kind
# typeout's output functions the printer has too: jsonb, network types, bit strings, money, pg_lsn, tsvector,
# geometric types, xml
_PORTED = {3802, 869, 650, 829, 774, 1560, 1562, 790, 3220, 3614, 600, 601, 602, 603, 604, 628, 718, 142}
# the printer's kind (kernels.TABLES.CSV_KINDS) of each type it prints, by oid once domains are resolved, and
# the attlen a column of it must have
KINDS: dict[int, tuple[str, int]] = {
    16: ("bool", 1), 21: ("int2", 2), 23: ("int4", 4), 20: ("int8", 8), 5069: ("uint64", 8), 18: ("char", 1),
    19: ("name", 64), 17: ("bytea", -1), 2950: ("uuid", 16), 1082: ("date", 4), 1083: ("time", 8),
    1114: ("timestamp", 8), 1184: ("timestamptz", 8), 1700: ("numeric", -1), 700: ("float4", 4),
    701: ("float8", 8), 1186: ("interval", 16), 3802: ("jsonb", -1), 869: ("inet", -1), 650: ("cidr", -1),
    829: ("macaddr", 6), 774: ("macaddr8", 8), 1266: ("timetz", 12), 790: ("money", 8), 3220: ("pg_lsn", 8),
    1560: ("bit", -1), 1562: ("bit", -1), 3614: ("tsvector", -1), 600: ("point", 16), 601: ("lseg", 32),
    628: ("line", 24), 603: ("box", 32), 718: ("circle", 24), 602: ("path", -1), 604: ("polygon", -1),
    142: ("xml", -1), 27: ("tid", 6), 2275: ("name", -2),     # (cstring: a name_ops index's keys, 12+)
    **{t: ("text", -1) for t in (25, 1042, 1043, 114, 194)},     # text, bpchar, varchar, json, pg_node_tree
    **{t: ("uint32", 4) for t in (24, 26, 28, 29, 2202, 2203, 2204, 2205, 2206, 3734, 3769, 4089, 4096, 4191)},
}


class Nested(NamedTuple):
    """How the printer reads the values inside an array (its elements) or a range or multirange (its bounds):
    the order of the fields is the one ``CsvPrinter`` hands to C."""
    kind: str
    typlen: int
    align: int        # in bytes
    delimiter: int    # an array's element delimiter (its one byte); 0 for bounds
    typid: int        # the type oid each stored value must carry (an array's element type; a built-in range's
    #                   own oid; 0 for a range of pg_range's, which Python does not check either)


class PrintedTypes:
    """Which types the compiled printer prints for one session (``formatter``: its catalog, encoding and time
    zone), by type oid and attlen."""

    def __init__(self, formatter: ValueFormatter):
        self.formatter = formatter
        self.catalog = formatter.catalog

    @cached_property
    def zone(self) -> np.ndarray | None:
        """The session's time zone as the printer reads it (``pgtz.Zone``'s tables, which it ports), None when
        there are none to read (timestamptz then stays Python's)."""
        try:
            return kernels.zone_array(**pgtz.get_zone(self.formatter.timezone).rules()._asdict())
        except (TypeError, ValueError):
            return None

    def kinds(self, attrs: list[Attribute]) -> list[str | None]:
        """How the printer prints each of ``attrs``, None where it cannot."""
        return [self.kind(a.typid, a.attlen) for a in attrs]

    def kind(self, typid: int, typlen: int) -> str | None:
        """How the printer prints a value of this type and length, None if it cannot (an array: when it prints
        its elements, ``elements``; a range: when it prints its bounds, ``bounds``)."""
        kind, target = self.formatter.resolve(typid)
        t = self.catalog.get(target)
        if kind == "enum":
            return "enum" if typlen == 4 else None
        if kind == "array" or (kind == "builtin" and t is not None and t.is_array) or target in datum.VECTOR_TYPES:
            return "array" if self.elements(target) is not None and typlen == -1 else None
        if kind in ("range", "multirange") or target in ranges.RANGE_SUBTYPES or target in ranges.MULTIRANGE_RANGES:
            multi = kind == "multirange" or target in ranges.MULTIRANGE_RANGES
            return ("multirange" if multi else "range") if self.bounds(target) and typlen == -1 else None
        k = KINDS.get(target) if kind == "builtin" and (target not in typeout.OUTPUT or target in _PORTED) else None
        if k is not None and ((k[0] == "timestamptz" and self.zone is None)
                              or (k[0] in STORED_TEXT_KINDS and codecs.lookup(self.formatter.encoding).name != "utf-8")):
            return None      # (text is copied as it is stored: Python converts a database's other encoding)
        return k[0] if k is not None and k[1] == typlen else None

    def elements(self, array_typid: int) -> Nested | None:
        """An array type's elements as the printer reads them, when it prints them (not cstrings)."""
        t = self.catalog.get(array_typid)
        # (a vector's element type is known without a catalog: a B-tree's keys are printed with none)
        typelem = t.typelem if t is not None else datum.TYPES[array_typid].elem \
            if array_typid in datum.VECTOR_TYPES else None
        storage = self.catalog.storage(typelem) if typelem is not None else None
        if storage is None or (storage[0] != -1 and storage[0] <= 0):
            return None
        kind = self.kind(typelem, storage[0])
        elem = self.catalog.get(typelem)
        delim = (elem.typdelim if elem is not None else None) or ","
        if kind in (None, *NESTED_KINDS) or len(delim.encode()) != 1:
            return None
        # (int2vector and oidvector: delimiter 0, their elements space-separated without braces or quotes)
        return Nested(kind, storage[0], ATTALIGN_BYTES.get(storage[1], 1),
                      0 if array_typid in datum.VECTOR_TYPES else ord(delim), typelem)

    def bounds(self, typid: int) -> Nested | None:
        """A range or multirange type's bounds as the printer reads them, when it prints them."""
        catalog, builtin = self.catalog, typid in datum.TYPES
        rng = (ranges.MULTIRANGE_RANGES if builtin else catalog.multirange_ranges).get(typid, typid)
        subtype = (ranges.RANGE_SUBTYPES if builtin else catalog.range_subtypes).get(rng)
        storage = (datum.TYPES[subtype].typlen, datum.TYPES[subtype].typalign) if builtin and subtype in datum.TYPES \
            else catalog.storage(subtype) if not builtin and subtype is not None else None
        if storage is None or (storage[0] != -1 and storage[0] <= 0) or self.zone is None:
            return None      # (Python's range_text refuses every value in a time zone it cannot load)
        kind = self.kind(subtype, storage[0])
        if kind in (None, *NESTED_KINDS):
            return None
        return Nested(kind, storage[0], ATTALIGN_BYTES.get(storage[1], 1), 0, typid if builtin else 0)

    def printer(self, attrs: list[Attribute], cols: list[int], kinds: list[str | None], statuses: list[str],
                system: bool, index_tuples: bool = False,
                json: kernels.JsonRecords | None = None, copy_text: bool = False,
                typed: list[bool] | None = None) -> kernels.CsvPrinter | None:
        """The printer of attributes ``cols`` of ``attrs`` (a relation's, attnum order, dropped ones included),
        each printed as ``kinds`` says; None when it cannot print them all, or cannot write the names it would
        write unquoted (``statuses``, the row statuses, and ``json``'s verdicts, with ``system``). ``typed``: the
        columns whose values it writes as Arrow holds them (``kernels.CsvPrinter``)."""
        if not kinds or None in kinds:
            return None
        names = list(statuses) + (json.xid_states if json is not None else [])
        if system and any(not n or not n.isascii() or not n.isprintable() or set(n) & set(',"\\') for n in names):
            return None
        nested = {c: (self.elements if k == "array" else self.bounds)(self.formatter.resolve(attrs[cols[c]].typid)[1])
                  for c, k in enumerate(kinds) if k in NESTED_KINDS}
        return kernels.CsvPrinter([a.attlen for a in attrs], [ATTALIGN_BYTES.get(a.attalign, 1) for a in attrs],
                                  cols, kinds, self.zone if self.zone is not None else kernels.zone_array(fixed=0),
                                  list(statuses), system, self.formatter.major,
                                  single_column=not system and len(kinds) == 1, index_tuples=index_tuples,
                                  json=json, nested=nested, enum_labels=self.catalog.enum_labels,
                                  copy_text=copy_text, typed=typed)
