"""Where output goes: JSON documents and records on stdout, people's text through Rich.

This module and its siblings are the only places that import Rich. JSON never passes
through Rich (it wraps long lines when piped).
"""
from __future__ import annotations

import json
import sys
from typing import Iterable

SCHEMA_VERSION = 1
WIDTH = 100  # human output is laid out for 100 columns


def schema(name: str) -> str:
    return f"pgpage.{name}/{SCHEMA_VERSION}"


def emit_json(doc: dict) -> None:
    """Indented on a terminal; compact into a pipe or file (5x faster to write: the C encoder)."""
    compact = dict(separators=(",", ":")) if not sys.stdout.isatty() else dict(indent=1)
    sys.stdout.write(json.dumps(doc, default=_jsonable, **compact) + "\n")


def emit_json_lines(records: Iterable[dict]) -> None:
    """Newline-delimited JSON, one record per line, flushed as it goes (for streams)."""
    for rec in records:
        sys.stdout.write(json.dumps(rec, separators=(",", ":"), default=_jsonable) + "\n")


def _jsonable(value):
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if hasattr(value, "to_json"):
        return value.to_json()
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def console():
    """A Rich console on stdout: 100 columns, colour only on a terminal."""
    from rich.console import Console
    tty = sys.stdout.isatty()
    return Console(width=min(WIDTH, Console().width) if tty else WIDTH, highlight=False,
                   soft_wrap=False, force_terminal=None)


def err_console():
    from rich.console import Console
    return Console(stderr=True, highlight=False)
