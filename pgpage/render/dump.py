"""`pgpage dump`'s script: the header (what the files cannot say), pg_dump's SET preamble, the parts the dump pass
gives (``passes.dump.Dump.parts``: statements, ``analysis.ddl``'s, and COPY blocks whose rows the compiled
printer writes straight to the file), and the closing lines (what reading the rows met)."""
from __future__ import annotations

from typing import BinaryIO

def _comment_lines(lines: list[str]) -> str:
    return "".join(f"-- {line}".rstrip() + "\n" for line in lines)


def _finding_line(f) -> str:
    where = f" ({f.relation})" if f.relation else ""
    return f"{f.severity} {f.code}{where}: {f.message}".replace("\n", " ")


def header(facts: list[str], major: int | None, database: str | None, encoding: str, findings: list) -> str:
    """pg_dump's opening lines, then what the dump saw: the source, pg_control's state, and the findings met
    reading the catalogs (those met reading the rows close the script)."""
    lines = ["PostgreSQL database dump, written by pgpage dump from the data files (no server was running",
             "for it): read offline, the catalogs and rows as a new transaction would see them.", "",
             f"Database: {database}; source major: {major}; the database's encoding: {encoding} (this script"
             " is UTF-8)", *facts]
    if findings:
        lines += ["", f"Findings reading the catalogs ({len(findings)}):"] + [f"  {_finding_line(f)}" for f in findings]
    return "--\n" + _comment_lines(lines) + "--\n\n"


def preamble(table_access_methods: bool) -> str:
    """pg_dump's SET lines: no timeouts, UTF-8 text, standard strings, an empty search_path (every name in the
    script is qualified), function bodies not checked; the default table access method where the major has one."""
    lines = ["SET statement_timeout = 0;", "SET lock_timeout = 0;", "SET idle_in_transaction_session_timeout = 0;",
             "SET client_encoding = 'UTF8';", "SET standard_conforming_strings = on;",
             "SELECT pg_catalog.set_config('search_path', '', false);", "SET check_function_bodies = false;",
             "SET xmloption = content;", "SET client_min_messages = warning;", "SET row_security = off;", "",
             "SET default_tablespace = '';", ""]
    if table_access_methods:
        lines += ["SET default_table_access_method = heap;", ""]
    return "\n".join(lines) + "\n"


def trailer(findings: list, database: str | None) -> str:
    """The closing lines: the findings met while writing (rows that could not be read, objects left out)."""
    lines = []
    if findings:
        lines += [f"Findings while writing the dump ({len(findings)}):"] + [f"  {_finding_line(f)}" for f in findings]
        lines.append("")
    lines.append(f"PostgreSQL database dump of {database} complete (pgpage dump)")
    return "--\n" + _comment_lines(lines) + "--\n"


def summary(result, database: str | None) -> str:
    """stderr's closing lines: what was written, the objects left out, the findings by code."""
    lines = [f"{database}: {result.tables} table{'s' if result.tables != 1 else ''}, {result.rows} rows"
             + (f"; {len(result.unprintable)} objects written as comments" if result.unprintable else "")]
    by_code: dict[str, list] = {}
    for f in result.findings:
        by_code.setdefault(f.code, []).append(f)
    for code, fs in sorted(by_code.items()):
        more = f" (and {len(fs) - 1} more)" if len(fs) > 1 else ""
        lines.append(_finding_line(fs[0]) + more)
    return "\n".join(lines) + "\n"


def write_script(out: BinaryIO, dump, facts: list[str]) -> None:
    """The whole script of ``dump`` (a ``passes.dump.Dump``) to the binary stream ``out``, a part at a time: each
    table's rows as COPY's text format, a chunk of lines at a time (memory stays flat)."""
    from pgpage.render.rows import _write_lines, copy_text_line
    dump.load()
    text = _Utf8(out)
    shown = {id(f) for f in dump.catalog_findings}
    text.write(header(facts, dump.cluster.major, dump.db.name, dump.encoding, dump.catalog_findings))
    text.write(preamble(dump.table_access_methods))
    for part in dump.parts():
        if isinstance(part, str):
            text.write(part)
            continue
        text.write(f"COPY {part.name} ({', '.join(part.columns)}) FROM stdin;\n")
        part.count = _write_lines(part.rows.copy_stream(), copy_text_line, text)
        text.write("\\.\n\n")
    text.write(trailer([f for f in dump.result.findings if id(f) not in shown], dump.db.name))
    out.flush()


class _Utf8:
    """A text stream over a binary one (``render.rows._write_lines`` writes the printer's UTF-8 to ``buffer``)."""

    encoding = "utf-8"

    def __init__(self, raw: BinaryIO):
        self.buffer = raw

    def write(self, text: str) -> None:
        self.buffer.write(text.encode("utf-8"))

    def flush(self) -> None:
        self.buffer.flush()
