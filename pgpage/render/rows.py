"""`pgpage rows` output: COPY's CSV, newline-delimited JSON records, or an aligned table for people.

Rows are written as they come (a batch at a time for the table), so memory stays flat however many
rows a table has.
"""
from __future__ import annotations

import json
import re
import sys
from itertools import islice
from typing import Iterable

from pgpage.findings import damage_text
from pgpage.render.output import WIDTH

TEXT_BATCH = 200          # rows aligned together in the table
TEXT_CELL = 40            # widest cell of the table unless --wide
SYSTEM_COLUMNS = ("ctid", "xmin", "xmax", "status")
# rows --csv --all: where each version lies, besides (lp_off: a pruned version has no line pointer, item 0), and what
# is wrong with it (a failed page checksum, the columns left NULL because they could not be read)
CSV_SYSTEM_COLUMNS = SYSTEM_COLUMNS + ("lp_off", "damage")
CSV_PREFIX = "pgpage_"    # COPY into a table with the same columns: no clash with ctid, xmin, ... (system columns)


def metadata_names(names: list[str]) -> list[str]:
    """rows --csv --all's names of its own columns (CSV_SYSTEM_COLUMNS): CSV_PREFIX before each, the prefix
    lengthened by an underscore while one of them is a name of the table's own columns."""
    prefix = CSV_PREFIX
    while any(prefix + m in names for m in CSV_SYSTEM_COLUMNS):
        prefix += "_"
    return [prefix + m for m in CSV_SYSTEM_COLUMNS]


def csv_field(value: str | None, single_column: bool = False) -> str:
    """One field as ``COPY ... (FORMAT csv)`` writes it (``commands/copyto.c`` CopyAttributeOutCSV): NULL
    as nothing; quoted when it holds the delimiter, a quote, CR or LF, is the empty string (which would
    read back as NULL), or is ``\\.`` alone on its line; quotes doubled."""
    if value is None:
        return ""
    if (value == "" or any(c in value for c in ',"\n\r') or (single_column and value == "\\.")):
        return '"' + value.replace('"', '""') + '"'
    return value


COPY_TEXT_ESCAPES = {"\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
COPY_TEXT_SPECIAL = re.compile("[\\\\\b\f\n\r\t\v]")


def copy_text_field(value: str | None) -> str:
    """One field as COPY's text format writes it (``commands/copyto.c`` CopyAttributeOutText, tab the delimiter):
    NULL as ``\\N``; backslash and \\b \\f \\n \\r \\t \\v escaped with a backslash."""
    if value is None:
        return "\\N"
    return COPY_TEXT_SPECIAL.sub(lambda m: COPY_TEXT_ESCAPES[m.group()], value)


def copy_text_line(row) -> str:
    """A row version's line of COPY's text format (its values only)."""
    return "\t".join(copy_text_field(v) for v in row.values) + "\n"


def _system(row) -> list[str]:
    return [row.ctid, str(row.xmin), str(row.xmax), row.status, None if row.lp_off is None else str(row.lp_off),
            damage_text(row.damage)]


def csv_line(row, system: bool, single: bool) -> str:
    """One row version's CSV line (``system``: ctid, xmin, xmax, status and lp_off first)."""
    fields = (_system(row) if system else []) + row.values
    return ",".join(csv_field(v, single) for v in fields) + "\n"


def _utf8_buffer(out):
    """The binary stream under a text stream that encodes UTF-8 (the compiled printer's text is written there
    as it is), else None."""
    import codecs
    buffer, encoding = getattr(out, "buffer", None), getattr(out, "encoding", None)
    try:
        return buffer if buffer is not None and encoding and codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None


def write_csv(names: list[str], rows: Iterable, system: bool, out=None, header: bool = True) -> int:
    """COPY rel TO STDOUT (FORMAT csv, HEADER); ``system`` puts ctid, xmin, xmax, status and lp_off first, named
    by ``metadata_names``. ``rows``: row
    versions, or a ``TableRows``, whose ``csv_stream`` gives runs of lines printed by the compiled printer
    ((text, count): UTF-8 bytes) between the versions it left to Python."""
    columns = (metadata_names(names) if system else []) + names
    single = len(columns) == 1
    stream = rows.csv_stream(system) if hasattr(rows, "csv_stream") else rows
    head = ",".join(csv_field(n, single) for n in columns) + "\n" if header else ""
    return _write_lines(stream, lambda row: csv_line(row, system, single), out or sys.stdout, head)


def write_json_lines(names: list[str], rows: Iterable, out=None) -> int:
    """One JSON record per row version (``RowVersion.record``), a line each; from a ``TableRows``, runs of
    records the compiled printer wrote (``json_stream``) between those it left to Python."""
    stream = rows.json_stream() if hasattr(rows, "json_stream") else rows
    return _write_lines(stream, lambda row: json.dumps(row.record(names), ensure_ascii=False,
                                                       separators=(",", ":")) + "\n", out or sys.stdout)


def _write_lines(stream: Iterable, line_of, out, head: str = "") -> int:
    """``head``, then the stream's lines: (UTF-8 bytes, rows) as they are, a row version as ``line_of`` makes its
    line; how many rows."""
    n = 0
    binary = _utf8_buffer(out)
    if binary is None:
        out.write(head)
        for item in stream:
            if isinstance(item, tuple):
                out.write(item[0].decode("utf-8"))
                n += item[1]
            else:
                out.write(line_of(item))
                n += 1
        return n
    out.flush()
    binary.write(head.encode("utf-8"))
    for item in stream:
        if isinstance(item, tuple):
            binary.write(item[0])
            n += item[1]
        else:
            binary.write(line_of(item).encode("utf-8"))
            n += 1
    binary.flush()
    return n


def _lp_off(record: dict) -> str | None:
    return None if record.get("lp_off") is None else str(record["lp_off"])


def _cell(value: str | None, limit: int | None) -> str:
    text = "" if value is None else value.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if limit is not None and len(text) > limit:
        return text[:limit - 1] + "…"
    return text


def _marked(record: dict, system: bool) -> list:
    """A record's cells for people: its system columns (or ctid) and values (a value that could not be read is
    empty, as NULL is: never a placeholder), what is wrong with the version (``damage``, ``passes.rowdamage``)
    after the ctid (``(1,3) [checksum.mismatch; doc: datum.jsonb.bad_value]``)."""
    damage = damage_text(record.get("damage"))
    head = [str(record[k]) for k in SYSTEM_COLUMNS] + [_lp_off(record)] if system else [record["ctid"]]
    if damage is not None:
        head[0] += f" [{damage}]"
    return head + list(record["values"].values())


def write_table(names: list[str], records: Iterable[dict], system: bool, wide: bool, out=None) -> int:
    """psql-like aligned columns of row versions' records with their values as text (``TableRows.text_records``),
    a batch of rows at a time (a header per batch); with ``system`` lp_off says where a pruned version was found (empty
    for the others: their ctid names their line pointer); NULL prints as nothing, control characters escaped; cells cut
    at TEXT_CELL characters unless ``wide``."""
    out = out or sys.stdout
    header = (list(SYSTEM_COLUMNS) + ["lp_off"] if system else ["ctid"]) + names
    limit = None if wide else TEXT_CELL
    records = iter(records)
    n = 0
    while True:
        batch = list(islice(records, TEXT_BATCH))
        if not batch:
            break
        # (the system cells whole: a damage note cut would not say which column)
        cells = [[_cell(v, limit if i >= len(header) - len(names) else None) for i, v in enumerate(_marked(r, system))]
                 for r in batch]
        widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(header)]
        if n:
            out.write("\n")
        out.write(" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip() + "\n")
        out.write("-+-".join("-" * w for w in widths) + "\n")
        for c in cells:
            out.write(" | ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip() + "\n")
        n += len(batch)
    return n


def write_summary(label: str, count: int, statuses: dict[str, int], all_versions: bool, timezone: str,
                  findings: list, err=None) -> None:
    """The closing lines on stderr: how many rows (by status, with --all), the time zone used, the findings by
    code."""
    err = err or sys.stderr
    what = "row versions" if all_versions else "rows"
    tally = ""
    if all_versions and count:
        tally = ": " + ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in statuses.items() if n)
    err.write(f"{label}: {count} {what}{tally} (timestamptz in {timezone})\n")
    by_code: dict[str, list] = {}
    for f in findings:
        by_code.setdefault(f.code, []).append(f)
    for code, fs in sorted(by_code.items()):
        first = fs[0]
        where = "" if first.block is None else f" block {first.block}" + ("" if first.item is None else
                                                                            f" item {first.item}")
        more = f" (and {len(fs) - 1} more)" if len(fs) > 1 else ""
        err.write(f"{first.severity} {code}:{where} {first.message}{more}"[:WIDTH * 3] + "\n")
