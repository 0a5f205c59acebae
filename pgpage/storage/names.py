"""Relation names as psql takes them.

``\\d "Sales"."Mixed Case"`` and ``\\d sales.orders`` name relations the way SQL does: an unquoted
identifier folds to lower case, a double-quoted one keeps its case, spaces and dots (``""`` inside
quotes is one ``"``), and an unquoted dot splits the schema from the name (psql's
``processSQLNamePattern``, without its wildcards: a command names one relation).
"""
from __future__ import annotations

import difflib
import re

from pgpage.findings import ExitCode, PgpageError


def split_name(text: str) -> tuple[str | None, str]:
    """(schema or None, name) of ``[schema.]name`` as psql reads it."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == '"':
                if text[i + 1:i + 2] == '"':   # "" inside quotes is a literal quote
                    current.append('"')
                    i += 1
                else:
                    quoted = False
            else:
                current.append(ch)
        elif ch == '"':
            quoted = True
        elif ch == ".":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch.lower())
        i += 1
    if quoted:
        raise PgpageError(f"{text!r}: unterminated double quote in a relation name", ExitCode.USAGE)
    parts.append("".join(current))
    if len(parts) > 2 or any(p == "" for p in parts):
        raise PgpageError(f"{text!r} is not a relation name: give [schema.]name (quote a name holding dots:"
                          ' \'"my.table"\')', ExitCode.USAGE)
    return (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])


def name_pattern(text: str):
    """A psql pattern (``\\dt``'s, pg_dump -t's: ``processSQLNamePattern``) as (schema regex or None, name regex):
    what ``split_name`` reads, with ``*`` and ``?`` wildcards outside double quotes (inside them, as they are)."""
    parts, current, quoted, i = [], [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            if quoted and text[i + 1:i + 2] == '"':
                current.append(re.escape('"'))
                i += 1
            else:
                quoted = not quoted
        elif quoted:
            current.append(re.escape(ch))
        elif ch == ".":
            parts.append("".join(current))
            current = []
        elif ch == "*":
            current.append(".*")
        elif ch == "?":
            current.append(".")
        else:
            current.append(re.escape(ch.lower()))
        i += 1
    parts.append("".join(current))
    compiled = [re.compile(f"^(?:{p})$", re.S) for p in parts[-2:]]
    return (compiled[0], compiled[1]) if len(compiled) == 2 else (None, compiled[0])


def quote_ident(name: str) -> str:
    """``name`` as SQL must spell it (quote_ident: quoted unless lower-case letters, digits and _)."""
    if name and (name[0].islower() or name[0] == "_") and all(c.islower() or c.isdigit() or c == "_" for c in name) \
            and name.isascii():
        return name
    return '"' + name.replace('"', '""') + '"'


def spelled(schema: str | None, name: str | None) -> str:
    """How to name a relation to psql (and to --rel): ``schema.name``, each part quoted where needed; a schema
    the catalogs do not name (pg_namespace damaged) left out, a name they do not give as ``?``."""
    relname = "?" if name is None else quote_ident(name)
    return relname if schema is None else f"{quote_ident(schema)}.{relname}"


def suggestions(schema: str | None, name: str, known: list[tuple[str, str]], limit: int = 3) -> list[str]:
    """Spellings of relations the user may have meant: the same name in another case or schema first,
    then close names (difflib)."""
    same = [(s, n) for s, n in known if n.lower() == name.lower() and (schema is None or s.lower() == schema.lower()
                                                                     or n != name)]
    if not same:
        close = difflib.get_close_matches(name, sorted({n for _, n in known}), n=limit, cutoff=0.75)
        same = [(s, n) for s, n in known if n in close]
    return [spelled(s, n) for s, n in sorted(same, key=lambda sn: (sn[0] != (schema or "public"), sn))[:limit]]
