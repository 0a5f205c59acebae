"""`rows --status/--xid/--ctid`: which row versions a read keeps, decided over a chunk's arrays at once.

A filter implies ``--all``: the versions it names are looked for among every version on disk (pruned ones
included), and printed with ctid, xmin, xmax, status and lp_off. ``--status live`` alone thus prints what a plain
``rows`` prints, with those columns. A pruned version has no line pointer: its ctid is ``(block,0)``.
Pure functions; no I/O.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pgpage.analysis.rowstatus import STATUS_NAMES
from pgpage.findings import ExitCode, PgpageError

_CTID = re.compile(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*")
MAX_BLOCK, MAX_OFFSET, MAX_XID = 0xFFFFFFFF, 0xFFFF, 0xFFFFFFFF


@dataclass(frozen=True)
class RowFilter:
    statuses: tuple[int, ...] = ()            # STATUS_NAMES indexes; empty: any
    xids: tuple[int, ...] = ()                # xmin or xmax is one of them; empty: any
    ctids: tuple[tuple[int, int], ...] = ()   # (block, offset); empty: any

    def __bool__(self) -> bool:
        return bool(self.statuses or self.xids or self.ctids)

    def mask(self, status: np.ndarray, xmin: np.ndarray, xmax: np.ndarray, block: np.ndarray,
             item: np.ndarray) -> np.ndarray:
        """Which versions (arrays of a chunk's versions) every given filter keeps."""
        keep = np.ones(len(status), dtype=bool)
        if self.statuses:
            keep &= np.isin(status, self.statuses)
        if self.xids:
            keep &= np.isin(xmin, self.xids) | np.isin(xmax, self.xids)
        if self.ctids:
            keep &= np.isin((block.astype(np.int64) << 16) | item, [(b << 16) | o for b, o in self.ctids])
        return keep


def parse_filter(statuses: str | None, xids: list[int] | None, ctids: list[str] | None) -> RowFilter:
    """The filter of ``--status a,b`` (STATUS_NAMES), ``--xid N`` and ``--ctid '(B,O)'`` (each repeatable); a
    usage error (exit 2) names what is wrong."""
    wanted: list[int] = []
    for name in (statuses.split(",") if statuses is not None else []):
        name = name.strip()
        if name not in STATUS_NAMES:
            raise PgpageError(f"--status {name!r}: not a status (they are: {', '.join(STATUS_NAMES)})",
                              ExitCode.USAGE)
        wanted.append(STATUS_NAMES.index(name))
    for x in xids or []:
        if not 0 <= x <= MAX_XID:
            raise PgpageError(f"--xid {x}: not a transaction id (0 to {MAX_XID})", ExitCode.USAGE)
    pairs = []
    for text in ctids or []:
        m = _CTID.fullmatch(text)
        if m is None or int(m[1]) > MAX_BLOCK or int(m[2]) > MAX_OFFSET:
            raise PgpageError(f"--ctid {text!r}: not a ctid (give it as '(block,offset)', e.g. '(0,1)')",
                              ExitCode.USAGE)
        pairs.append((int(m[1]), int(m[2])))
    return RowFilter(tuple(dict.fromkeys(wanted)), tuple(dict.fromkeys(xids or [])), tuple(dict.fromkeys(pairs)))
