"""SQL statements of a plain dump, as pg_dump (``bin/pg_dump/pg_dump.c``) and the catalog functions it calls
(``pg_get_constraintdef``, ``pg_get_indexdef``, ``pg_get_partkeydef``: ``utils/adt/ruleutils.c``) spell them.

Pure: the callers give names already quoted and qualified and expressions already printed (``analysis.deparse``);
this module only puts the words in order. ``passes.dump`` reads the catalogs and calls these.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pgpage.analysis.deparse import quote_identifier as quote_ident, simple_quote_literal as literal

FK_ACTIONS = {"a": None, "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}   # confupdtype
FK_MATCH = {"f": " MATCH FULL", "p": " MATCH PARTIAL", "s": ""}                                  # confmatchtype
PARTITION_STRATEGIES = {"r": "RANGE", "l": "LIST", "h": "HASH"}                                  # partstrat
INDOPTION_DESC, INDOPTION_NULLS_FIRST = 1, 2                                                     # pg_index.h
STORAGE_WORDS = {"p": "PLAIN", "e": "EXTERNAL", "m": "MAIN", "x": "EXTENDED"}                    # attstorage
COMPRESSION_WORDS = {"p": "pglz", "l": "lz4"}                                                    # attcompression


def qualified(schema: str, name: str) -> str:
    return f"{quote_ident(schema)}.{quote_ident(name)}"


def reloptions_text(options, prefix: str = "") -> list[str]:
    """pg_class.reloptions ("name=value") as WITH (...) lists them: the value quoted as a literal."""
    out = []
    for opt in options or []:
        key, _, value = str(opt).partition("=")
        out.append(f"{prefix}{key}={literal(value)}")
    return out


@dataclass
class Column:
    """One column of CREATE TABLE / CREATE TYPE AS (...)."""
    name: str
    type: str                     # format_type, qualified
    collation: str | None = None  # qualified, when not the type's default
    default: str | None = None    # printed expression
    generated: bool = False       # default is a stored generation expression
    not_null: bool = False


def column_text(c: Column) -> str:
    text = f"{quote_ident(c.name)} {c.type}"
    if c.collation:
        text += f" COLLATE {c.collation}"
    if c.default is not None:
        text += f" GENERATED ALWAYS AS ({c.default}) STORED" if c.generated else f" DEFAULT {c.default}"
    if c.not_null:
        text += " NOT NULL"
    return text


@dataclass
class Table:
    name: str                                           # qualified
    columns: list[Column] = field(default_factory=list)
    checks: list[tuple[str, str]] = field(default_factory=list)   # (constraint name, CHECK (...) definition)
    unlogged: bool = False
    inherits: list[str] = field(default_factory=list)   # qualified parents
    partition_by: str | None = None                     # pg_get_partkeydef
    partition_of: str | None = None                     # qualified parent (a partition)
    bound: str | None = None                            # FOR VALUES ... / DEFAULT
    access_method: str | None = None                    # when not heap
    options: list[str] = field(default_factory=list)    # WITH (...) items


def create_table(t: Table) -> str:
    head = f"CREATE {'UNLOGGED ' if t.unlogged else ''}TABLE {t.name}"
    items = [column_text(c) for c in t.columns] + [f"CONSTRAINT {quote_ident(n)} {d}" for n, d in t.checks]
    if t.partition_of:
        head += f" PARTITION OF {t.partition_of}"
        body = (" (\n    " + ",\n    ".join(items) + "\n)") if items else ""
        text = f"{head}{body}\n{t.bound}"
    else:
        text = head + " (" + ("\n    " + ",\n    ".join(items) + "\n" if items else "") + ")"
        if t.inherits:
            text += f"\nINHERITS ({', '.join(t.inherits)})"
    if t.partition_by:
        text += f"\nPARTITION BY {t.partition_by}"
    if t.access_method:
        text += f"\nUSING {quote_ident(t.access_method)}"
    if t.options:
        text += f"\nWITH ({', '.join(t.options)})"
    return text + ";\n"


@dataclass
class Sequence:
    name: str                 # qualified
    type: str                 # format_type
    start: int
    increment: int
    minimum: int
    maximum: int
    cache: int
    cycle: bool


TYPE_RANGES = {"smallint": (-(1 << 15), (1 << 15) - 1), "integer": (-(1 << 31), (1 << 31) - 1),
               "bigint": (-(1 << 63), (1 << 63) - 1)}


def sequence_options(s: Sequence, indent: str = "    ") -> list[str]:
    """The options as pg_dump writes them (dumpSequence): NO MINVALUE/NO MAXVALUE where the bound is the default
    for the sign of the increment (AS is CREATE SEQUENCE's: an identity's type is its column's)."""
    low, high = TYPE_RANGES.get(s.type, TYPE_RANGES["bigint"])
    default_min, default_max = (1, high) if s.increment > 0 else (low, -1)
    out = [f"START WITH {s.start}", f"INCREMENT BY {s.increment}",
            "NO MINVALUE" if s.minimum == default_min else f"MINVALUE {s.minimum}",
            "NO MAXVALUE" if s.maximum == default_max else f"MAXVALUE {s.maximum}", f"CACHE {s.cache}"]
    if s.cycle:
        out.append("CYCLE")
    return [indent + o for o in out]


def create_sequence(s: Sequence) -> str:
    kind = [f"    AS {s.type}"] if s.type != "bigint" else []
    return f"CREATE SEQUENCE {s.name}\n" + "\n".join(kind + sequence_options(s)) + ";\n"


def identity(table: str, column: str, always: bool, s: Sequence) -> str:
    """ALTER TABLE ... ADD GENERATED ... AS IDENTITY, as pg_dump gives an identity column its sequence."""
    opts = "\n".join([f"    SEQUENCE NAME {s.name}"] + sequence_options(s))
    return (f"ALTER TABLE {table} ALTER COLUMN {quote_ident(column)} ADD GENERATED "
            f"{'ALWAYS' if always else 'BY DEFAULT'} AS IDENTITY (\n{opts}\n);\n")


@dataclass
class IndexColumn:
    key: str                          # a column name, quoted, or an expression (printed, in parentheses unless a
    #                                   function call: deparse.key_expression)
    expression: bool = False
    collation: str | None = None      # qualified, when not the key's own
    opclass: str | None = None        # qualified, when not the default
    option: int = 0                   # indoption bits
    operator: str | None = None       # EXCLUDE: the operator (qualified, OPERATOR(...) form)


def index_column_text(c: IndexColumn, ordered: bool) -> str:
    text = c.key
    if c.collation:
        text += f" COLLATE {c.collation}"
    if c.opclass:
        text += f" {c.opclass}"
    if ordered:
        desc, nulls_first = c.option & INDOPTION_DESC, c.option & INDOPTION_NULLS_FIRST
        if desc:
            text += " DESC" + ("" if nulls_first else " NULLS LAST")
        elif nulls_first:
            text += " NULLS FIRST"
    return text


@dataclass
class Index:
    name: str                 # unqualified (an index lives in its table's schema)
    table: str                # qualified
    am: str
    columns: list[IndexColumn]
    include: list[str] = field(default_factory=list)  # quoted column names
    unique: bool = False
    nulls_not_distinct: bool = False
    ordered: bool = True      # the AM orders (btree): DESC / NULLS are printed
    options: list[str] = field(default_factory=list)
    predicate: str | None = None


def index_body(ix: Index, with_using: bool = True) -> str:
    """USING am (keys) INCLUDE (...) NULLS NOT DISTINCT WITH (...) WHERE ..., pg_get_indexdef's tail."""
    keys = ", ".join(index_column_text(c, ix.ordered) + (f" WITH {c.operator}" if c.operator else "")
                     for c in ix.columns)
    text = f"USING {ix.am} ({keys})" if with_using else f"({keys})"
    if ix.include:
        text += f" INCLUDE ({', '.join(ix.include)})"
    if ix.nulls_not_distinct:
        text += " NULLS NOT DISTINCT"
    if ix.options:
        text += f" WITH ({', '.join(ix.options)})"
    if ix.predicate:
        text += f" WHERE {ix.predicate}"
    return text


def create_index(ix: Index) -> str:
    return (f"CREATE {'UNIQUE ' if ix.unique else ''}INDEX {quote_ident(ix.name)} ON {ix.table} "
            f"{index_body(ix)};\n")


def deferrable(deferrable: bool, deferred: bool) -> str:
    return (" DEFERRABLE" + (" INITIALLY DEFERRED" if deferred else "")) if deferrable else ""


def key_constraint(kind: str, ix: Index, deferrable_text: str) -> str:
    """PRIMARY KEY / UNIQUE / EXCLUDE as pg_get_constraintdef prints them from their index."""
    if kind == "x":
        return f"EXCLUDE {index_body(ix)}{deferrable_text}"
    cols = ", ".join(c.key for c in ix.columns)
    word = "PRIMARY KEY" if kind == "p" else "UNIQUE" + (" NULLS NOT DISTINCT" if ix.nulls_not_distinct else "")
    text = f"{word} ({cols})"
    if ix.include:
        text += f" INCLUDE ({', '.join(ix.include)})"
    if ix.options:
        text += f" WITH ({', '.join(ix.options)})"
    return text + deferrable_text


def foreign_key(cols: list[str], target: str, target_cols: list[str], match: str, on_update: str, on_delete: str,
                delete_set_cols: list[str] | None, deferrable_text: str, valid: bool) -> str:
    text = f"FOREIGN KEY ({', '.join(cols)}) REFERENCES {target}({', '.join(target_cols)}){FK_MATCH.get(match, '')}"
    if FK_ACTIONS.get(on_update):
        text += f" ON UPDATE {FK_ACTIONS[on_update]}"
    if FK_ACTIONS.get(on_delete):
        text += f" ON DELETE {FK_ACTIONS[on_delete]}"
        if delete_set_cols:
            text += f" ({', '.join(delete_set_cols)})"
    return text + deferrable_text + ("" if valid else " NOT VALID")


def add_constraint(table: str, name: str, definition: str, only: bool = True) -> str:
    return f"ALTER TABLE {'ONLY ' if only else ''}{table}\n    ADD CONSTRAINT {quote_ident(name)} {definition};\n"


def alter_column(table: str, column: str, clause: str) -> str:
    return f"ALTER TABLE ONLY {table} ALTER COLUMN {quote_ident(column)} {clause};"


def comment(what: str, text: str) -> str:
    return f"COMMENT ON {what} IS {literal(text)};\n"
