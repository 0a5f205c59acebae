"""Where output goes: JSON documents and records on stdout, people's text through Rich.

This module and its siblings are the only places that import Rich. JSON never passes
through Rich (it wraps long lines when piped).
"""
from __future__ import annotations

import json
import os
import re
import sys
from typing import Iterable, Iterator

SCHEMA_VERSION = 1
WIDTH = 100  # human output's width into a pipe or a file (no terminal, no COLUMNS)
MIN_WIDTH = 40  # narrower than this, folded lines would be mostly indentation


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


def percent(value: float | None, digits: int = 0) -> str:
    """A percentage with ``digits`` decimals ("" for None). One strictly between 0 and 100 is not printed as
    either: 99.97 is "99" (digits 0), 0.3 is "1"; only all is 100 and only nothing is 0."""
    if value is None:
        return ""
    text = f"{value:.{digits}f}"
    if 0 < value < 100 and float(text) in (0, 100):
        text = f"{10.0 ** -digits if float(text) == 0 else 100 - 10.0 ** -digits:.{digits}f}"
    return text


def text_width() -> int:
    """Columns for people's text: ``COLUMNS`` when set, else the terminal's width, else WIDTH (a pipe or file)."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    if sys.stdout.isatty():
        try:
            return max(MIN_WIDTH, os.get_terminal_size(sys.stdout.fileno()).columns)
        except (OSError, ValueError):
            pass
    return WIDTH


def console() -> "Printer":
    """People's text on stdout, text_width() columns, colour only on a terminal."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:  # Rich would exit 1, the status of findings: the CLI ends it as a pipe
            raise BrokenPipeError
    return Printer(PipeConsole(file=_Lines(sys.stdout), width=text_width(), highlight=False, soft_wrap=False,
                               force_terminal=None))


class _Lines:
    """stdout for Rich, each line written without trailing blanks (Rich pads a table's last column and its
    title to the table's width)."""

    def __init__(self, stream):
        self.stream = stream
        self.tail = ""

    def write(self, text: str) -> int:
        *lines, self.tail = (self.tail + text).split("\n")
        if lines:
            self.stream.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self.tail:
            self.stream.write(self.tail)
            self.tail = ""
        self.stream.flush()

    def __getattr__(self, name):  # isatty, fileno, encoding: the stream's
        return getattr(self.stream, name)


# where a line may fold: the blanks after a comma, semicolon or colon, runs of two or more blanks (which part a
# line's figures) and the blank before a parenthesis, outside parentheses first; a single blank between words is
# inside a phrase
PHRASE_BREAK = re.compile(r"(?<=[,;:]) +| {2,}| (?=\()")
WORD_BREAK = re.compile(r" +")


class Printer:
    """A Rich console whose lines of text fold between phrases: a line wider than the console breaks at the
    last phrase break that fits (between words only when a phrase is wider than a line, inside a word only when
    a word is), and its continuation lines are indented past the line's own indentation (``hang`` columns when
    given). A table keeps its figures whole: only its columns with a max_width (names, key bytes: cut with an
    ellipsis anyway) narrow to fit, down to NARROWEST_CUT; past that it is wider than the console."""

    def __init__(self, rich_console):
        self.console = rich_console
        self.width = rich_console.width

    def print(self, *objects, hang: int | None = None, **options) -> None:
        from rich.table import Table
        from rich.text import Text
        if len(objects) == 1 and isinstance(objects[0], Table) and not options:
            self._table(objects[0])
        elif len(objects) == 1 and isinstance(objects[0], (str, Text)) and not options:
            text = objects[0] if isinstance(objects[0], Text) else Text(objects[0])  # a str is not markup
            for line in text.split("\n", allow_blank=True) if "\n" in text.plain else [text]:
                for part in fold(line, self.width, hang):
                    self.console.print(part, soft_wrap=True)
        else:
            self.console.print(*objects, **options)


    def _table(self, table) -> None:
        """The table laid out here as Rich lays out a borderless one (box None, no edge padding, one blank each
        side of a cell: two between columns), each cell cut with an ellipsis at its column's width and justified:
        Rich's own layout measures and renders every cell through several layers, about 1.5 ms a row (4 of the
        8 seconds of `scan --deep` of a cluster of 2,800 relations)."""
        from rich.text import Text
        columns = table.columns
        cells = [[c if isinstance(c, Text) else Text(c) for c in col._cells] for col in columns]
        heads = [c.header if isinstance(c.header, Text) else Text(c.header, style=table.header_style or "")
                 for c in columns]
        widths = []
        for col, head, column_cells in zip(columns, heads, cells):
            natural = max([head.cell_len] + [t.cell_len for t in column_cells])
            widths.append(natural if col.max_width is None else min(natural, col.max_width))
        gaps = 2 * (len(columns) - 1)
        for i, col in enumerate(columns):
            if col.max_width and sum(widths) + gaps > self.width:
                rest = sum(widths) + gaps - widths[i]      # the table without this column's text
                widths[i] = min(widths[i], max(NARROWEST_CUT, min(col.max_width, self.width - rest)))
        table_width = sum(widths) + gaps
        lines = []
        if table.title:
            title = Text(table.title, style=table.title_style or "") if isinstance(table.title, str) else table.title
            lines += title.wrap(self.console, table_width, justify="left", overflow="fold")
        for row in ([heads] if table.show_header else []) + [list(r) for r in zip(*cells)]:
            line = Text()
            for i, (cell, col, width) in enumerate(zip(row, columns, widths)):
                cell = cell.copy()
                if cell.cell_len > width:
                    cell.truncate(width, overflow=col.overflow or "ellipsis")
                if col.justify == "right":
                    cell.rstrip()
                    cell.pad_left(width - cell.cell_len)
                else:
                    cell.pad_right(width - cell.cell_len)
                if i:
                    line.append("  ")
                line.append_text(cell)
            lines.append(line)
        self.console.width = max(self.width, table_width)  # a table wider than the console is not folded
        for line in lines:
            self.console.print(line, soft_wrap=True)
        self.console.width = self.width


NARROWEST_CUT = 12  # a name column is not cut narrower than this


def fold(text, width: int, hang: int | None = None) -> list:
    """``text`` (a Rich Text of one line) as lines of at most ``width`` cells (see Printer)."""
    from rich.cells import cell_len
    from rich.text import Text
    plain = text.plain
    if cell_len(plain) <= width:
        return [text]
    indent = len(plain) - len(plain.lstrip(" "))
    hang = min(indent + 2 if hang is None else hang, width // 2)
    depth, outside = 0, []  # outside[i]: position i is outside any parenthesis
    for ch in plain:
        depth = max(0, depth + (ch == "(") - (ch == ")"))
        outside.append(depth == 0 or ch == "(")
    lines, start, room = [], 0, width
    while True:
        end = _fitting(plain, start, room)
        if end >= len(plain):
            lines.append(text[start:])
            break
        words = start + len(plain[start:]) - len(plain[start:].lstrip(" "))  # past the first line's indentation
        cut = _last_break(PHRASE_BREAK, plain, words, end, outside) or _last_break(PHRASE_BREAK, plain, words, end)
        if cut is not None:  # a phrase that would not fit a line of its own either fills this one first
            following = PHRASE_BREAK.search(plain, cut.end() + 1)
            if cell_len(plain[cut.end():following.start() if following else len(plain)]) > width - hang:
                cut = None
        cut = cut or _last_break(WORD_BREAK, plain, words, end)
        stop, after = (cut.start(), cut.end()) if cut else (max(end, start + 1),) * 2
        lines.append(text[start:stop])
        start, room = after, width - hang
    return [line if n == 0 else Text(" " * hang) + line for n, line in enumerate(lines)]


def _fitting(plain: str, start: int, room: int) -> int:
    """The largest end such that plain[start:end] takes at most ``room`` cells."""
    if plain.isascii():
        return min(len(plain), start + room)
    from rich.cells import get_character_cell_size
    end, used = start, 0
    while end < len(plain) and used + get_character_cell_size(plain[end]) <= room:
        used += get_character_cell_size(plain[end])
        end += 1
    return end


def _last_break(pattern: re.Pattern, plain: str, first: int, end: int, outside: list[bool] | None = None):
    """The last match of ``pattern`` that starts after ``first`` and at or before ``end`` (and, given ``outside``,
    outside parentheses), or None."""
    last = None
    for m in pattern.finditer(plain, first + 1):
        if m.start() > end:
            break
        if outside is None or outside[m.start()]:
            last = m
    return last
