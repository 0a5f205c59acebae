"""Where output goes: JSON documents and records on stdout, people's text through Rich.

This module and its siblings are the only places that import Rich. JSON never passes
through Rich (it wraps long lines when piped).
"""
from __future__ import annotations

import json
import sys
from typing import Iterable, Iterator

SCHEMA_VERSION = 1
WIDTH = 100  # human output is laid out for 100 columns


def schema(name: str) -> str:
    return f"pgpage.{name}/{SCHEMA_VERSION}"


def emit_json(doc: dict) -> None:
    """Indented on a terminal; compact into a pipe or file (5x faster to write: the C encoder). A value that is
    an iterator (`pgpage scan`'s relations) becomes a list; into a pipe or file it is written item by item as
    the iterator makes them, so the document is never whole in memory."""
    if sys.stdout.isatty():
        sys.stdout.write(json.dumps(materialized(doc), default=_jsonable, indent=1) + "\n")
    else:
        _write_streamed(sys.stdout.write, doc)
        sys.stdout.write("\n")


def materialized(value):
    """``value`` with every iterator in it (in dicts' values and iterators' items) turned into a list."""
    if isinstance(value, Iterator):
        return [materialized(v) for v in value]
    if isinstance(value, dict) and _holds_iterator(value):
        return {k: materialized(v) for k, v in value.items()}
    return value


def _holds_iterator(d: dict) -> bool:
    return any(isinstance(v, Iterator) or (isinstance(v, dict) and _holds_iterator(v)) for v in d.values())


def _write_streamed(write, value) -> None:
    """Compact JSON of ``value``, as ``json.dumps`` would write it, iterators as lists written item by item."""
    if isinstance(value, Iterator):
        write("[")
        for n, item in enumerate(value):
            write("," if n else "")
            _write_streamed(write, item)
        write("]")
    elif isinstance(value, dict) and _holds_iterator(value):
        write("{")
        for n, (key, item) in enumerate(value.items()):
            write(("," if n else "") + json.dumps(key) + ":")
            _write_streamed(write, item)
        write("}")
    else:
        write(json.dumps(value, separators=(",", ":"), default=_jsonable))


def emit_json_lines(records: Iterable[dict | bytes]) -> None:
    """Newline-delimited JSON, one record per line, flushed as it goes (for streams). A ``bytes`` record is
    lines already encoded (a compiled encoder's), written as they are."""
    for rec in records:
        if isinstance(rec, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(rec)
        else:
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

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:  # Rich would exit 1, the status of findings: the CLI ends it as a pipe
            raise BrokenPipeError
    tty = sys.stdout.isatty()
    return PipeConsole(width=min(WIDTH, Console().width) if tty else WIDTH, highlight=False,
                       soft_wrap=False, force_terminal=None)


def err_console():
    from rich.console import Console
    return Console(stderr=True, highlight=False)
