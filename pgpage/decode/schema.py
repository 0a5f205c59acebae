"""A table's columns given as text (`rows --schema`), for a file whose catalog is gone or damaged.

``parse_schema('id int4, t text, n numeric(10,2), ts timestamp with time zone, a int4[]')`` gives the same
``deform.Attribute`` records the catalog reader builds from pg_attribute, so that the rest of `rows` (the
deformer, the printers) reads the file as if the catalog had named them. Types are written as PostgreSQL
writes them (``format_type``: ``integer``, ``character varying(10)``, ``timestamp(3) with time zone``,
``"char"``, ``bit varying``) or by their pg_type names (``int4``, ``varchar``, ``timestamptz``, ``_int4``); a
type modifier says nothing about how a value is stored and is read past. Every built-in type pgpage prints is
known (``datum.TYPES``); types made with CREATE TYPE are not (give a domain's base type; an enum's value is
its pg_enum oid: ``oid``).

A column named ``dropped_N`` (pg_dirtyread's name for a dropped column) is one the table no longer shows: its
bytes are walked over, not printed.
"""
from __future__ import annotations

import re

from pgpage.decode import datum
from pgpage.decode.deform import Attribute
from pgpage.findings import ExitCode, PgpageError

# format_type's names (and SQL's other spellings) of types whose pg_type name differs
ALIASES = {
    "integer": "int4", "int": "int4", "smallint": "int2", "bigint": "int8", "real": "float4",
    "double precision": "float8", "float": "float8", "boolean": "bool", "character varying": "varchar",
    "character": "bpchar", "char": "bpchar", '"char"': "char", "decimal": "numeric", "bit varying": "varbit",
    "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
    "time without time zone": "time", "time with time zone": "timetz",
}
_TYPMOD = re.compile(r"\s*\([^)]*\)")
# interval's field restrictions (``interval year to month``) are a typmod too
_INTERVAL_FIELDS = re.compile(r"^interval\s+(year|month|day|hour|minute|second)\b.*$")
DROPPED = re.compile(r"^dropped_\d+$")
_BY_NAME = {info.name: oid for oid, info in datum.TYPES.items()}


def type_oid(text: str) -> int:
    """The oid of a built-in type written as ``format_type`` or pg_type writes it; PgpageError (usage) if none."""
    name = " ".join(text.strip().lower().split())
    dims = 0
    while True:
        m = re.search(r"\s*\[\d*\]$", name)
        if m is None:
            break
        name, dims = name[:m.start()], dims + 1
    if name.endswith(" array"):       # SQL's `integer ARRAY`
        name, dims = name[:-len(" array")], dims + 1
    name = _TYPMOD.sub("", name).strip()
    name = "interval" if _INTERVAL_FIELDS.match(name) else name
    name = ALIASES.get(name, name)
    oid = _BY_NAME.get(name)
    if oid is not None and dims:      # one array type holds every number of dimensions
        info = datum.TYPES[oid]
        oid = oid if info.elem and info.typlen == -1 else _BY_NAME.get(f"_{name}")
    if oid is None or name in ("anyarray", "cstring", "unknown"):
        raise PgpageError(f"--schema: type {text.strip()!r} is not a built-in type pgpage reads (give a domain's"
                          " base type, oid for an enum)", ExitCode.USAGE)
    return oid


def split_columns(text: str) -> list[str]:
    """The column definitions of a --schema text: split at the commas outside parentheses and quotes."""
    out, depth, quoted, at = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            out.append(text[at:i])
            at = i + 1
    out.append(text[at:])
    return [c.strip() for c in out]


def parse_schema(text: str) -> list[Attribute]:
    """The attributes of ``name type, ...`` in attnum order (every column the table's rows store, dropped ones
    included, as ``dropped_N``)."""
    attrs = []
    for col in split_columns(text):
        m = re.match(r'^\s*("(?:[^"]|"")+"|[^\s"]+)\s+(.+)$', col)
        if m is None:
            raise PgpageError(f"--schema: {col!r} is not `name type` (columns separated by commas)", ExitCode.USAGE)
        name = m.group(1)
        name = name[1:-1].replace('""', '"') if name.startswith('"') else name
        oid = type_oid(m.group(2))
        info = datum.TYPES[oid]
        attrs.append(Attribute(name, oid, info.typlen, info.typalign, info.typbyval, bool(DROPPED.match(name))))
    names = [a.name for a in attrs]
    if len(set(names)) != len(names):
        raise PgpageError(f"--schema: a column name is given twice ({', '.join(names)})", ExitCode.USAGE)
    return attrs
