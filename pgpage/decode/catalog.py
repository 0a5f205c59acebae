"""System catalog rows read offline: pg_database, pg_class, pg_namespace, pg_am, pg_index, ...

A catalog is a heap like any other; its rows are deformed with the column layout of the
server's major (``versions.catalog_columns``) and filtered to the versions a new transaction
would see, using hint bits and pg_xact (the verdicts of ``decode.xact``). A catalog keeps dead row
versions until VACUUM, so reading "every tuple" would list a renamed table twice.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from pgpage.decode.datum import ATTALIGN_BYTES, decode_datum, decode_fixed_column
from pgpage.decode.deform import Attribute, deform_tuple, decode_attr, heap_oid_old
from pgpage.decode.flags import HEAP_HASNULL, HEAP_NATTS_MASK, LP_NORMAL
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, decode_heap_chunk
from pgpage.decode.versions import catalog_columns, catalog_has_oid_system_column
from pgpage.decode.xact import (ST_ABORTED, ST_COMMITTED, ST_IN_PROGRESS, ST_INVALID, ST_LOCK_ONLY, ST_UNKNOWN, ClogArray,
                                xmax_states, xmin_states)
from pgpage.findings import Finding, WARNING


@dataclass
class CatalogScan:
    """The rows of one catalog that are visible now, with what could not be read."""

    catalog: str
    rows: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    undecided: int = 0  # rows kept although pg_xact could not tell whether their inserter committed


def read_catalog(catalog: str, chunks: Iterable[tuple[int, np.ndarray]], major: int,
                 clog: ClogArray, relation: str | None = None,
                 columns: Sequence[Attribute] | None = None, key: str = "oid",
                 wanted: set[str] | None = None, first_column: int | set[int] | range | None = None,
                 raw: set[str] = frozenset()) -> CatalogScan:
    """Visible rows of ``catalog`` from its main fork's ``(first block, pages)`` chunks.

    Tuple headers are decoded a chunk at a time (``decode.vector``) and visibility decided for all of them
    at once (hint bits first, then ``clog``, as everywhere: ``decode.xact``); only the rows a new
    snapshot sees are deformed. ``columns`` overrides the built-in layout (e.g. columns read from
    pg_attribute). ``first_column`` keeps only rows whose first column, an oid at t_hoff, has that value or
    one of those values (pg_attribute's attrelid: some relations' rows out of thousands; a range: the objects
    made after initdb, without deforming the system's). Rows are dicts of
    decoded column values (only the ``wanted`` ones, if given) plus ``oid`` (from the header before 12) and
    ``_tid``; the ``raw`` columns keep the datum's bytes as stored (None for NULL).
    """
    from pgpage.decode import kernels
    scan = CatalogScan(catalog)
    cols = list(columns) if columns is not None else [Attribute.from_column(c) for c in catalog_columns(catalog, major)]
    shape = _Shape(cols, wanted, raw)
    oid_in_header = catalog_has_oid_system_column(catalog, major)
    candidates: dict[object, list[tuple[int, dict]]] = {}
    for first, chunk in chunks:
        hc = decode_heap_chunk(chunk, first)
        items, tups, h = hc.items, hc.tuples, hc.headers
        bad = ~h.is_new & ((h.lower < SIZE_OF_PAGE_HEADER) | (h.lower > h.upper) | (h.upper > h.special)
                           | (h.special > chunk.shape[1]))
        for page in np.flatnonzero(bad).tolist():
            scan.findings.append(Finding("catalog.page.bad_header", f"{catalog} block {first + page}: pd_lower"
                                         f" {h.lower[page]}, pd_upper {h.upper[page]}, pd_special {h.special[page]}"
                                         " are out of order; the page's rows are not read",
                                         relation=relation, block=first + page))
        keep = (items.flags[tups.item] == LP_NORMAL) & ~bad[items.page[tups.item]]
        if isinstance(first_column, range):
            oids = _first_oid(chunk, items, tups)
            keep &= (oids >= first_column.start) & (oids < first_column.stop)
        elif first_column is not None:
            keep &= np.isin(_first_oid(chunk, items, tups), list(first_column) if isinstance(first_column, set)
                            else [first_column])
        sel = np.flatnonzero(keep)
        if not len(sel):
            continue
        infomask = tups.t_infomask[sel].astype(np.int64)
        xmin_st, _ = xmin_states(infomask, tups.t_xmin[sel].astype(np.int64), clog)
        xmax_st, _ = xmax_states(infomask, tups.t_xmax[sel].astype(np.int64), clog)
        its = tups.item[sel]
        chunk = np.ascontiguousarray(chunk)
        starts = items.page[its].astype(np.int64) * chunk.shape[1] + items.off[its]
        fast, pos, lens = kernels.deform_offsets(chunk, starts, items.len[its], tups.t_hoff[sel],
                                                 tups.t_infomask2[sel] & HEAP_NATTS_MASK,
                                                 (infomask & HEAP_HASNULL) != 0, shape.attlen, shape.attalign)
        # a version a new snapshot sees: its inserter did not abort and is not running, its deleter did not commit
        seen = ~np.isin(xmin_st, (ST_ABORTED, ST_IN_PROGRESS)) & (xmax_st != ST_COMMITTED)
        fast &= seen
        flat = chunk.reshape(-1)
        columns = shape.fixed_columns(flat, starts, fast, pos, major)
        per_tuple = zip(starts.tolist(), items.len[its].tolist(), items.page[its].tolist(), items.lp[its].tolist(),
                        tups.t_hoff[sel].tolist(), tups.t_infomask[sel].tolist(), tups.t_infomask2[sel].tolist(),
                        xmin_st.tolist(), xmax_st.tolist(), seen.tolist(), fast.tolist())
        for j, (start, length, page, n, t_hoff, t_infomask, t_infomask2, smin, smax, is_seen, is_fast) in \
                enumerate(per_tuple):
            if not is_seen:
                continue
            blkno = first + page
            row, rank = _visible_row(flat[start:start + length].tobytes(), t_hoff, t_infomask, t_infomask2, smin,
                                     smax, shape, major, oid_in_header, scan, relation, blkno, n,
                                     (j, pos[j].tolist(), lens[j].tolist(), columns) if is_fast else None)
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


def _first_oid(chunk: np.ndarray, items, tups) -> np.ndarray:
    """The 4-byte value at t_hoff of each tuple (its first column when that is an oid), -1 where the tuple
    is too short to hold one."""
    block_size = chunk.shape[1]
    t_hoff = tups.t_hoff.astype(np.int64)
    length = items.len[tups.item]
    inside = t_hoff + 4 <= length
    at = np.where(inside, items.page[tups.item] * block_size + items.off[tups.item] + t_hoff, 0)
    flat = chunk.reshape(-1)
    word = flat[at[:, None] + np.arange(4)].astype(np.int64) << np.array([0, 8, 16, 24])
    return np.where(inside, word.sum(axis=1), -1)


class _Shape:
    """A catalog's columns as ``kernels.deform_offsets`` takes them, and the ones a row keeps."""

    def __init__(self, cols: list[Attribute], wanted: set[str] | None, raw: set[str]):
        self.cols = cols
        self.wanted = wanted
        self.raw = raw
        self.attlen = np.array([c.attlen for c in cols], dtype=np.int64)
        self.attalign = np.array([ATTALIGN_BYTES.get(c.attalign, 1) for c in cols], dtype=np.int64)
        self.kept = [(i, c) for i, c in enumerate(cols)
                     if not c.attisdropped and (wanted is None or c.name in wanted)]

    def fixed_columns(self, flat: np.ndarray, starts: np.ndarray, fast: np.ndarray, pos: np.ndarray,
                      major) -> dict[int, list]:
        """{column index: value per tuple} for the kept fixed-width columns ``datum.decode_fixed_column``
        decodes, over the ``fast`` tuples (tuple j starts at ``flat[starts[j]]``; ``pos`` as deform_offsets
        gives it); an entry for a NULL or another tuple is None."""
        out = {}
        for i, c in self.kept:
            if c.attlen <= 0 or c.name in self.raw:
                continue
            rows = np.flatnonzero(fast & (pos[:, i] >= 0))
            at = starts[rows] + pos[rows, i]
            values = decode_fixed_column(c.typid, flat[at[:, None] + np.arange(c.attlen)], major=major)
            if values is None:
                continue
            if len(rows) == len(fast):     # (every tuple has the column: the values are the column)
                out[i] = values
                continue
            column = [None] * len(fast)
            for r, v in zip(rows.tolist(), values):
                column[r] = v
            out[i] = column
        return out


def _visible_row(data: bytes, t_hoff: int, infomask: int, infomask2: int, xmin_st: int, xmax_st: int,
                 shape: _Shape, major, oid_in_header, scan, relation, blkno, n, offsets):
    """(row, rank) of a tuple a new snapshot sees, or (None, None) if it cannot be read. ``offsets``: when
    ``kernels.deform_offsets`` found nothing to report in it, (its index j in the chunk's tuples, the pos and
    len of its attributes, ``_Shape.fixed_columns``), else None (``deform_tuple`` walks it, with its findings).

    Rank orders versions of one key when pg_xact cannot decide: a hinted, settled version
    outranks one whose fate is unknown.
    """
    rank = (xmin_st != ST_UNKNOWN) + (xmax_st in (ST_INVALID, ST_LOCK_ONLY, ST_ABORTED))
    if xmax_st in (ST_UNKNOWN, ST_IN_PROGRESS):
        rank -= 1
    if xmin_st == ST_UNKNOWN:
        scan.undecided += 1
    if offsets is not None:
        j, pos, lens, columns = offsets
        row = {c.name: columns[i][j] if i in columns else (
                   None if pos[i] < 0 else data[pos[i]:pos[i] + lens[i]] if c.name in shape.raw else
                   decode_datum(c.typid, data[pos[i]:pos[i] + lens[i]], major=major, attlen=c.attlen))
               for i, c in shape.kept}
    else:
        null_bitmap = data[SizeofHeapTupleHeader:t_hoff] if infomask & HEAP_HASNULL else None
        deformed = deform_tuple(data, t_hoff, infomask2 & HEAP_NATTS_MASK, shape.cols, null_bitmap=null_bitmap)
        for f in deformed.findings:
            scan.findings.append(Finding(f.code, f"{scan.catalog} {f.message}", f.severity, relation=relation,
                                         block=blkno, item=n))
        if not deformed.ok:
            return None, None
        row = {a.name: a.raw if a.name in shape.raw else decode_attr(a, major=major) for a in deformed.attrs
               if not a.dropped and (shape.wanted is None or a.name in shape.wanted)}
    if oid_in_header:
        row = {"oid": heap_oid_old(data, t_hoff, infomask), **row}
    return row, rank
