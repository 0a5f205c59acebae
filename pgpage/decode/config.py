"""postgresql.conf syntax (``utils/misc/guc-file.l``), for the few settings pgpage needs offline.

One parameter per line: ``name = value`` (the ``=`` is optional), ``#`` starts a comment, a value is a
bare word or number or a single-quoted string in which ``''`` or ``\\'`` is a quote. Names are
case-insensitive. ``include``, ``include_if_exists`` and ``include_dir`` name other files, read in
place (the caller reads them: this module does no I/O). The last setting of a name wins, and
postgresql.auto.conf (ALTER SYSTEM) is read after postgresql.conf.
"""
from __future__ import annotations

import re

INCLUDE_DIRECTIVES = ("include", "include_if_exists", "include_dir")

_LINE = re.compile(r"""^\s*([A-Za-z_][\w.\-]*)\s*=?\s*('(?:[^'\\]|''|\\.)*'|[^\s#']+)?\s*(?:#.*)?$""")


def parse_conf(text: str) -> list[tuple[str, str, int]]:
    """(name lower-cased, value unquoted, line number) for every setting line, in order; lines that are
    not settings (blank, comments, garbage) are skipped."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        m = _LINE.match(line)
        if not m or m.group(2) is None:
            continue
        value = m.group(2)
        if value.startswith("'"):
            value = re.sub(r"''|\\(.)", lambda x: "'" if x.group(0) == "''" else x.group(1), value[1:-1])
        out.append((m.group(1).lower(), value, n))
    return out
