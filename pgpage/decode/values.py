"""Column values as PostgreSQL's output functions print them, for any column type a catalog names.

``datum`` knows the built-in types by OID. A table's columns may also be of types made with
CREATE TYPE / CREATE DOMAIN: enums (the label is in pg_enum), domains (printed as their base type),
ranges and multiranges over any subtype (pg_range), arrays of all of these. ``TypeCatalog`` holds what
pg_type, pg_enum and pg_range say about them; ``ValueFormatter.text`` resolves a column's type through
it and prints a value exactly as ``col::text`` would in a session with the cluster's TimeZone,
DateStyle ISO, IntervalStyle postgres and bytea_output hex.

A value whose type cannot be printed (an extension's base type, a composite) comes back as
``datum.Undecoded`` (its bytes in hex), one whose bytes are not a valid value as ``datum.Unreadable``:
never an exception, never a guess.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from pgpage.decode import datum
from pgpage.decode.datum import DatumError, Undecoded, Unreadable
from pgpage.decode.ksy.type_oids import (BOOLOID, BOXOID, BYTEAOID, CIDOID, CIDROID, DATEOID, FLOAT4OID, FLOAT8OID,
                                         INETOID, INT2OID, INT4OID, INT8OID, JSONBOID, JSONOID, NUMERICOID, OIDOID,
                                         REGCLASSOID, REGCOLLATIONOID, REGCONFIGOID, REGDICTIONARYOID,
                                         REGNAMESPACEOID, REGOPERATOROID, REGOPEROID, REGPROCEDUREOID, REGPROCOID,
                                         REGROLEOID, REGTYPEOID, TIMEOID, TIMESTAMPOID, TIMESTAMPTZOID, TIMETZOID,
                                         UUIDOID, XID8OID, XIDOID)

TYPTYPE_BASE, TYPTYPE_COMPOSITE, TYPTYPE_DOMAIN, TYPTYPE_ENUM, TYPTYPE_PSEUDO, TYPTYPE_RANGE, TYPTYPE_MULTIRANGE = \
    "b", "c", "d", "e", "p", "r", "m"
_DOMAIN_DEPTH_LIMIT = 16   # domains over domains: a catalog cycle must not loop


@dataclass(frozen=True)
class PgType:
    """The pg_type facts printing needs."""
    oid: int
    name: str
    typtype: str
    typlen: int
    typalign: str
    typbyval: bool
    typdelim: str = ","
    typelem: int = 0
    typbasetype: int = 0
    typrelid: int = 0

    @property
    def is_array(self) -> bool:
        # a true array type: varlena with an element type (typlen -1); fixed-length types with a typelem
        # (name, point) are not arrays
        return self.typelem != 0 and self.typlen == -1


class TypeCatalog:
    """pg_type rows by OID, enum labels by OID, range subtypes, multirange ranges."""

    def __init__(self, types: dict[int, PgType], enum_labels: dict[int, str] | None = None,
                 range_subtypes: dict[int, int] | None = None, multirange_ranges: dict[int, int] | None = None,
                 relation_attributes=None):
        self.types = types
        self.enum_labels = enum_labels or {}
        self.range_subtypes = range_subtypes or {}
        self.multirange_ranges = multirange_ranges or {}
        # pg_attribute rows of a relation by its oid (a composite type's columns: typrelid's); None: none known
        self.relation_attributes = relation_attributes
        self._composites: dict[int, list] = {}

    @classmethod
    def from_rows(cls, type_rows, enum_rows=(), range_rows=(), relation_attributes=None) -> "TypeCatalog":
        """From decoded pg_type, pg_enum and pg_range rows (dicts keyed by column name); ``relation_attributes``
        as the constructor takes it."""
        types = {}
        for r in type_rows:
            try:
                t = PgType(int(r["oid"]), str(r["typname"]), str(r["typtype"]), int(r["typlen"]),
                           str(r["typalign"]), r["typbyval"] is True, str(r.get("typdelim") or ","),
                           int(r.get("typelem") or 0), int(r.get("typbasetype") or 0), int(r.get("typrelid") or 0))
            except (KeyError, TypeError, ValueError):
                continue          # an unreadable row: its type prints as undecoded
            types[t.oid] = t
        labels = {int(r["oid"]): str(r["enumlabel"]) for r in enum_rows
                  if isinstance(r.get("oid"), int) and isinstance(r.get("enumlabel"), str)}
        subtypes, multis = {}, {}
        for r in range_rows:
            if isinstance(r.get("rngtypid"), int) and isinstance(r.get("rngsubtype"), int):
                subtypes[r["rngtypid"]] = r["rngsubtype"]
                if r.get("rngmultitypid"):
                    multis[r["rngmultitypid"]] = r["rngtypid"]
        return cls(types, labels, subtypes, multis, relation_attributes)

    def get(self, typid: int) -> PgType | None:
        return self.types.get(typid)

    def composite_attributes(self, typid: int) -> list:
        """The attributes of composite type ``typid`` (its relation's pg_attribute rows, dropped ones included),
        as the deformer takes them; [] when they cannot be read."""
        if typid not in self._composites:
            from pgpage.decode.deform import Attribute
            t = self.types.get(typid)
            rows = self.relation_attributes(t.typrelid) if t is not None and self.relation_attributes else []
            try:
                self._composites[typid] = [
                    Attribute(r["attname"], r["atttypid"], r["attlen"], r["attalign"], r["attbyval"] is True,
                              r.get("attisdropped") is True) for r in rows]
            except (KeyError, TypeError):
                self._composites[typid] = []
        return self._composites[typid]

    def storage(self, typid: int) -> tuple[int, str] | None:
        """(typlen, typalign) of a type, from the catalog or the built-in table."""
        t = self.types.get(typid)
        if t is not None:
            return t.typlen, t.typalign
        info = datum.TYPES.get(typid)
        return (info.typlen, info.typalign) if info is not None else None


class ValueFormatter:
    """``text(typid, raw)``: a stored datum as the server prints it (None for NULL).

    ``raw`` is the datum as it lies in the tuple (a varlena with its header, inline-compressed or not)
    or, through ``payload_text``, a varlena's content once detoasted. ``timezone`` is an IANA zone name
    (None: UTC) for timestamptz values.
    """

    def __init__(self, catalog: TypeCatalog | None = None, major: int | None = None,
                 timezone: str | None = None, encoding: str = "utf-8"):
        self.catalog = catalog or TypeCatalog({})
        self.major = major
        self.timezone = timezone
        self.encoding = encoding

    # -- entry points ---------------------------------------------------------------------------
    def text(self, typid: int, raw: bytes):
        """The text of a datum as stored in a tuple or an array."""
        kind, target = self.resolve(typid)
        if kind == "builtin":
            return _text_or_unreadable(target, self._builtin(target, raw, stored=True))
        typlen = self._typlen(target)
        if typlen == -1:
            payload = datum.varlena_payload(raw, target)
            if not isinstance(payload, bytes):
                return payload
            return self._user_payload(kind, target, payload)
        return self._user_payload(kind, target, bytes(raw))

    def payload_text(self, typid: int, payload: bytes):
        """The text of a varlena's content (header removed, decompressed): a value reassembled from TOAST."""
        kind, target = self.resolve(typid)
        if kind == "builtin":
            return _text_or_unreadable(target, self._builtin(target, payload, stored=False))
        return self._user_payload(kind, target, payload)

    def decodable(self, typid: int) -> bool:
        """False for a type whose values can only be shown as hex (an extension's, a composite)."""
        kind, target = self.resolve(typid)
        if kind == "array":
            return self.decodable(self.catalog.get(target).typelem)
        return kind != "undecoded"

    # -- type resolution --------------------------------------------------------------------------
    def resolve(self, typid: int) -> tuple[str, int]:
        """(how to print, the type to print as): domains become their base type."""
        for _ in range(_DOMAIN_DEPTH_LIMIT):
            t = self.catalog.get(typid)
            if t is not None and t.typtype == TYPTYPE_DOMAIN and t.typbasetype:
                typid = t.typbasetype
                continue
            if t is None or typid in datum.TYPES:
                return ("builtin" if typid in datum.TYPES else "undecoded"), typid
            if t.typtype == TYPTYPE_ENUM:
                return "enum", typid
            if t.typtype == TYPTYPE_RANGE and typid in self.catalog.range_subtypes:
                return "range", typid
            if t.typtype == TYPTYPE_MULTIRANGE and typid in self.catalog.multirange_ranges:
                return "multirange", typid
            if t.is_array and self.catalog.storage(t.typelem) is not None:
                return "array", typid
            if t.typtype == TYPTYPE_COMPOSITE and self.catalog.composite_attributes(typid):
                return "composite", typid
            return "undecoded", typid
        return "undecoded", typid

    def _typlen(self, typid: int) -> int:
        st = self.catalog.storage(typid)
        return st[0] if st else -1

    # -- printing -----------------------------------------------------------------------------------
    def _builtin(self, typid: int, raw: bytes, stored: bool):
        kw = {"major": self.major, "encoding": self.encoding}
        if self.timezone is not None:
            kw["timezone"] = self.timezone
        if stored:
            return datum.decode_datum(typid, raw, **kw)
        return datum.decode_payload(typid, raw, **kw)

    def _user_payload(self, kind: str, typid: int, payload: bytes):
        if kind == "enum":
            if len(payload) != 4:
                return Unreadable("datum.enum.bad_length", f"an enum value is 4 bytes, not {len(payload)}",
                                  payload.hex())
            oid = int.from_bytes(payload, "little")
            label = self.catalog.enum_labels.get(oid)
            if label is None:
                return Unreadable("datum.enum.unknown_label", f"no pg_enum row has oid {oid}", payload.hex())
            return label
        if kind == "array":
            return self._array_text(self.catalog.get(typid), payload)
        if kind == "composite":
            from pgpage.decode.typeout.record import record_text
            return record_text(payload, self.catalog.composite_attributes(typid), self.text)
        if kind in ("range", "multirange"):
            from pgpage.decode.typeout import ranges
            rngtypid = typid if kind == "range" else self.catalog.multirange_ranges[typid]
            subtype = self.catalog.range_subtypes[rngtypid]
            fn = ranges.range_text if kind == "range" else ranges.multirange_text
            try:
                return fn(payload, subtype, self.major, timezone=self.timezone, element_text=self.text,
                          storage=self.catalog.storage(subtype))
            except ValueError as exc:
                return Unreadable(f"datum.{kind}.bad_value", str(exc), payload.hex())
        return Undecoded(typid, payload.hex(), f"type {self._name(typid)} is not decoded")

    def _name(self, typid: int) -> str:
        t = self.catalog.get(typid)
        return t.name if t is not None else str(typid)

    def _array_text(self, arr: PgType, payload: bytes):
        elem = self.catalog.get(arr.typelem)
        elem_len, elem_align = self.catalog.storage(arr.typelem)
        parts = datum.split_array(payload, elem_len, elem_align)
        if isinstance(parts, DatumError):
            return Unreadable(parts.code, parts.message, payload.hex())
        _, dims, lbounds, items = parts
        texts = []
        for it in items:
            if it is None:
                texts.append(None)
                continue
            t = self.text(arr.typelem, it)
            if isinstance(t, (Unreadable, Undecoded)):
                return t
            texts.append(t)
        delim = elem.typdelim if elem is not None else ","
        return datum.array_literal(texts, dims, lbounds, delim)


def _text_or_unreadable(typid: int, value):
    """A decoded built-in value's text, or the ``Unreadable`` it is or holds (an array's element)."""
    bad = datum.unreadable_part(value)
    return bad if bad is not None else datum.to_pg_text(typid, value)


# ---------------------------------------------------------------------------------------------------
# Typed Python values (the API's rows): read back from the exact text, as a client library would
# ---------------------------------------------------------------------------------------------------

_INT_TYPES = {INT8OID, INT2OID, INT4OID, OIDOID, XIDOID, CIDOID, XID8OID, REGPROCOID, REGPROCEDUREOID, REGOPEROID,
              REGOPERATOROID, REGCLASSOID, REGTYPEOID, REGCONFIGOID, REGDICTIONARYOID, REGNAMESPACEOID, REGROLEOID,
              REGCOLLATIONOID}


def python_value(formatter: ValueFormatter, typid: int, text: str | None):
    """A value's text as a Python object: int, float, Decimal, bool, bytes, UUID, date/time/datetime
    (aware for timestamptz and timetz), parsed JSON, ipaddress objects, lists for arrays (lower bounds
    dropped); the text itself for every other type, and for values Python cannot hold (infinity, BC
    dates, years past 9999)."""
    return python_converter(formatter, typid)(text)


def python_converter(formatter: ValueFormatter, typid: int):
    """``python_value`` for values of one type: the type resolved once (a column's values, a row after another)."""
    kind, target = formatter.resolve(typid)
    if target in datum.VECTOR_TYPES:   # int2vector, oidvector: their elements apart by spaces, no braces
        elem = python_converter(formatter, datum.TYPES[target].elem)
        return lambda text: None if text is None else [elem(x) for x in text.split()]
    if kind == "array":
        t = formatter.catalog.get(target)
        elem, delim = python_converter(formatter, t.typelem), t.typdelim or ","
        return lambda text: None if text is None else array_items(text, elem, delim)
    if kind != "builtin":
        return _same
    info = datum.TYPES.get(target)
    if info is not None and info.elem and target not in datum.VECTOR_TYPES:
        elem, delim = python_converter(formatter, info.elem), ";" if info.elem == BOXOID else ","
        return lambda text: None if text is None else array_items(text, elem, delim)
    parse = _scalar_parsers().get(target)
    if parse is None:
        return _same

    def convert(text: str | None):
        if text is None:
            return None
        try:
            return parse(text)
        except ValueError:
            return text
    return convert


def _same(text: str | None):
    return text


@functools.cache
def _scalar_parsers() -> dict:
    """How each type's text reads back as a Python object, by type oid (the types not here stay text)."""
    import datetime as dt
    import ipaddress
    import json
    import uuid
    from decimal import Decimal
    return {**{t: int for t in _INT_TYPES}, FLOAT4OID: float, FLOAT8OID: float, NUMERICOID: Decimal,
            BOOLOID: lambda text: text == "t", BYTEAOID: lambda text: bytes.fromhex(text[2:]), UUIDOID: uuid.UUID,
            **dict.fromkeys((JSONOID, JSONBOID), json.JSONDecoder(parse_float=Decimal).decode),
            INETOID: ipaddress.ip_interface, CIDROID: ipaddress.ip_network, DATEOID: dt.date.fromisoformat,
            TIMEOID: dt.time.fromisoformat, TIMETZOID: lambda text: dt.time.fromisoformat(_iso_offset(text)),
            TIMESTAMPOID: dt.datetime.fromisoformat,
            TIMESTAMPTZOID: lambda text: dt.datetime.fromisoformat(_iso_offset(text))}


def _iso_offset(text: str) -> str:
    """PostgreSQL's ``+05`` / ``-04:56:02`` offsets in the form fromisoformat reads (``+05:00``)."""
    sign = max(text.rfind("+"), text.rfind("-"))
    if sign < 0 or ":" in text[sign:] or " BC" in text:
        return text
    return text + ":00"


def array_items(text: str, convert, delim: str = ","):
    """array_in's reading of an array literal's text: nested lists of converted elements (None for NULL)."""
    if text.startswith("["):
        text = text[text.index("=") + 1:]
    if not text.startswith("{"):
        return text        # not an array literal: kept as it is, never a half-read list
    stack: list[list] = []
    out = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            stack.append([])
            i += 1
        elif c == "}":
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                out = done
            i += 1
        elif c == delim:
            i += 1
        elif c == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                buf.append(text[j])
                j += 1
            stack[-1].append(convert("".join(buf)))
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in (delim, "}"):
                j += 1
            item = text[i:j]
            stack[-1].append(None if item == "NULL" else convert(item))
            i = j
    return out
