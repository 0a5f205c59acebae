"""System catalog rows read offline: pg_database, pg_class, pg_namespace, pg_am, pg_index, ...

A catalog is a heap like any other; its rows are deformed with the column layout of the
server's major (``versions.catalog_columns``) and filtered to the versions a new transaction
would see, using hint bits and pg_xact (the rules of ``analysis.heapstats``). A catalog keeps dead row
versions until VACUUM, so reading "every tuple" would list a renamed table twice.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Sequence

from kaitaistruct import KaitaiStructError

import numpy as np

from pgpage.analysis.heapstats import (ST_ABORTED, ST_COMMITTED, ST_IN_PROGRESS, ST_INVALID, ST_LOCK_ONLY, ST_UNKNOWN,
                                       ClogArray, xmax_states, xmin_states)
from pgpage.decode.deform import Attribute, deform_tuple, decode_attr
from pgpage.decode.ksy.heap_tuple import HeapTuple
from pgpage.decode.ksy.pg_page import PgPage
from pgpage.decode.versions import catalog_columns, catalog_has_oid_system_column
from pgpage.findings import Finding, WARNING

LP_NORMAL = 1
HEAP_HASNULL = 0x0001
HEAP_HASOID_OLD = 0x0008


@dataclass
class CatalogScan:
    """The rows of one catalog that are visible now, with what could not be read."""

    catalog: str
    rows: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    undecided: int = 0  # rows kept although pg_xact could not tell whether their inserter committed


def read_catalog(catalog: str, blocks: Iterator[tuple[int, bytes]], major: int,
                 clog: ClogArray, relation: str | None = None,
                 columns: Sequence[Attribute] | None = None, key: str = "oid",
                 wanted: set[str] | None = None) -> CatalogScan:
    """Visible rows of ``catalog`` from its main fork's ``(blkno, page)`` blocks.

    ``clog`` is pg_xact (hint bits decide first, as everywhere: ``analysis.heapstats``). ``columns`` overrides
    the built-in layout (e.g. columns read from pg_attribute). Rows are dicts of decoded
    column values (only the ``wanted`` ones, if given) plus ``oid`` (from the header before
    12) and ``_tid``.
    """
    scan = CatalogScan(catalog)
    cols = list(columns) if columns is not None else [Attribute.from_column(c) for c in catalog_columns(catalog, major)]
    oid_in_header = catalog_has_oid_system_column(catalog, major)
    candidates: dict[object, list[tuple[int, dict]]] = {}
    for blkno, raw in blocks:
        try:
            page = PgPage.from_bytes(raw)
        except (KaitaiStructError, EOFError):
            scan.findings.append(Finding("catalog.page.undecodable", f"{catalog} block {blkno} has no readable header",
                                         relation=relation, block=blkno))
            continue
        if page.header.pd_upper == 0:
            continue
        tuples = [(n, lp.data, HeapTuple.from_bytes(lp.data)) for n, lp in enumerate(page.linp, start=1)
                  if int(lp.lp_flags) == LP_NORMAL and lp.data is not None and lp.lp_len >= 24]
        if not tuples:
            continue
        infomask = np.array([t.t_infomask for _, _, t in tuples], dtype=np.int64)
        xmin_st, _ = xmin_states(infomask, np.array([t.t_xmin for _, _, t in tuples], dtype=np.int64), clog)
        xmax_st, _ = xmax_states(infomask, np.array([t.t_xmax for _, _, t in tuples], dtype=np.int64), clog)
        for (n, data, tup), smin, smax in zip(tuples, xmin_st.tolist(), xmax_st.tolist()):
            row, rank = _visible_row(data, tup, smin, smax, cols, major, oid_in_header, scan, relation, blkno, n,
                                     wanted)
            if row is not None:
                row["_tid"] = f"({blkno},{n})"
                candidates.setdefault(row.get(key, row["_tid"]), []).append((rank, row))
    for versions in candidates.values():
        versions.sort(key=lambda v: v[0])
        scan.rows.append(versions[-1][1])
        if len(versions) > 1 and versions[-1][0] == versions[-2][0]:
            scan.findings.append(Finding("catalog.row.ambiguous", f"{catalog}: {len(versions)} versions of row"
                                         f" {versions[-1][1].get(key)} look visible; keeping {versions[-1][1]['_tid']}",
                                         severity=WARNING, relation=relation))
    return scan


def _visible_row(data: bytes, tup, xmin_st: int, xmax_st: int, cols, major, oid_in_header, scan, relation, blkno,
                 n, wanted):
    """(row, rank) of a tuple a new snapshot would see, else (None, None).

    Rank orders versions of one key when pg_xact cannot decide: a hinted, settled version
    outranks one whose fate is unknown.
    """
    if xmin_st in (ST_ABORTED, ST_IN_PROGRESS) or xmax_st == ST_COMMITTED:
        return None, None
    rank = (xmin_st != ST_UNKNOWN) + (xmax_st in (ST_INVALID, ST_LOCK_ONLY, ST_ABORTED))
    if xmax_st in (ST_UNKNOWN, ST_IN_PROGRESS):
        rank -= 1
    if xmin_st == ST_UNKNOWN:
        scan.undecided += 1
    deformed = deform_tuple(data, tup.t_hoff, tup.natts, cols,
                            null_bitmap=tup.t_bits if tup.t_infomask & HEAP_HASNULL else None)
    for f in deformed.findings:
        scan.findings.append(Finding(f.code, f"{scan.catalog} {f.message}", f.severity, relation=relation,
                                     block=blkno, item=n))
    if not deformed.ok:
        return None, None
    row = {a.name: decode_attr(a, major=major) for a in deformed.attrs
           if not a.dropped and (wanted is None or a.name in wanted)}
    if oid_in_header:
        row = {"oid": tup.oid, **row}
    return row, rank
