"""`rows --all`'s pruned versions: the tuples ``analysis.carve`` finds in a chunk's uncovered bytes (of pages whose
checksum verifies, on a cluster with data checksums), kept only when pg_xact knows their xids' fate and every
value prints, added to the chunk's versions with status
``pruned``, no line pointer (item 0) and where they lie (``lp_off``)."""
from __future__ import annotations

import numpy as np

from pgpage.analysis import carve
from pgpage.analysis.rowstatus import PRUNED, STATUS_NAMES
from pgpage.decode.checksum import checksum_pages
from pgpage.decode.deform import ERROR_STATUS, deform_tuple
from pgpage.decode.flags import HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASVARWIDTH, HEAP_NATTS_MASK
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.xact import (ST_ABORTED, ST_COMMITTED, ST_FROZEN, ST_UNKNOWN, xmax_states,
                                xmin_states)
from pgpage.findings import INFO, Finding

KNOWN_XMIN = (ST_COMMITTED, ST_ABORTED, ST_FROZEN)   # a pruned version's inserter ended one way or the other


def cluster_limits(cluster) -> tuple[int | None, int | None]:
    """(xid, multixact) no tuple on disk can have reached: past what pg_xact and pg_multixact have room for
    (``DataDirectory.id_reach``), low 32 bits; None where pg_control does not say."""
    xid, multi = cluster.id_reach
    return (None if xid is None else xid & 0xFFFFFFFF), multi


def pruned_versions(rows, first: int, pages: np.ndarray, hc, usable: np.ndarray, kept) -> dict | None:
    """The pruned versions of a chunk (``rows``: the TableRows reading it, ``kept``: the ChunkVersions of the
    versions line pointers hold, or None), as ChunkVersions' fields; None when there is none."""
    cluster = rows.cluster
    if cluster.checksums:      # a damaged page's free space could hold anything: only pages that verify
        failed = checksum_pages(pages, first) != hc.headers.checksum
        for page in np.flatnonzero(failed & usable).tolist():
            rows.findings.append(Finding("rows.carve.checksum_mismatch", "the page's checksum fails: its free space"
                                         " is not searched for pruned versions", INFO, relation=rows.label,
                                         block=first + page))
        usable = usable & ~failed
    free = carve.uncovered(pages, hc.headers, hc.items, usable)
    if not free.any():
        return None
    next_xid, next_multi = cluster_limits(cluster)
    has_oids = bool(rows.relation.row.get("relhasoids"))
    block_size = pages.shape[1]
    flat = np.ascontiguousarray(pages).reshape(-1)
    held = None if kept is None else carve.held_versions(flat, block_size, kept.start, kept.length, kept.xmin,
                                                         kept.t_hoff)
    found = carve.candidates(pages, free, rows.attrs, len(rows.attrs), has_oids, next_xid, next_multi, held)
    if not len(found.off):
        return None
    h = found.header
    infomask = h["t_infomask"].astype(np.int64)
    xmin, xmax = h["t_xmin"].astype(np.int64), h["t_xmax"].astype(np.int64)
    xmin_st, _ = xmin_states(infomask, xmin, cluster.clog)
    xmax_st, _ = xmax_states(infomask, xmax, cluster.clog, cluster.multi_update_xid)
    start = found.page * block_size + found.off
    which = np.flatnonzero(np.isin(xmin_st, KNOWN_XMIN) & (xmax_st != ST_UNKNOWN))
    # a pruned version compaction copied stays twice: before the values are printed (the costly check), the copy
    # with its deleter (the newest header) is kept
    which = which[np.lexsort((xmax[which] == 0, found.page[which]))]
    which = which[~carve.duplicates(flat, start[which], found.length[which], xmin[which],
                                    h["t_hoff"][which].astype(np.int64), first + found.page[which])]
    infomask2 = h["t_infomask2"].astype(np.int64)
    whole = _printed_whole(rows, flat, start[which], found.length[which], h["t_hoff"][which],
                           infomask2[which] & HEAP_NATTS_MASK, (infomask[which] & HEAP_HASNULL) != 0)
    which = which[whole | np.array([not w and _values_print(rows, flat, int(start[j]), int(found.length[j]), h[j],
                                                            first + int(found.page[j]))
                                    for j, w in zip(which.tolist(), whole.tolist())], dtype=bool)]
    which = np.sort(which[carve.disjoint(found.take(which))])
    if not len(which):
        return None
    h = h[which]
    ctid_block = (h["t_ctid.bi_hi"].astype(np.int64) << 16) | h["t_ctid.bi_lo"]
    infomask2 = infomask2[which]
    return dict(start=start[which], length=found.length[which], t_hoff=h["t_hoff"].astype(np.int64),
                natts=infomask2 & HEAP_NATTS_MASK, infomask=infomask[which], infomask2=infomask2,
                xmin=xmin[which], xmax=xmax[which], xmin_state=xmin_st[which], xmax_state=xmax_st[which],
                status=np.full(len(which), PRUNED, dtype=np.int8), block=first + found.page[which],
                item=np.zeros(len(which), dtype=np.int64), ctid_block=ctid_block,
                ctid_offset=h["t_ctid.ip_posid"].astype(np.int64), lp_off=found.off[which])


def _printed_whole(rows, flat: np.ndarray, start, length, t_hoff, natts, hasnull) -> np.ndarray:
    """Which tuples the compiled printer prints every column of (``decode.printer``): it declines a tuple with a
    value Python finds unreadable (and TOAST pointers, and what it does not port), so what it prints needs no
    Python check; the others get ``_values_print``."""
    ok = np.zeros(len(start), dtype=bool)
    printer = rows.__dict__.get("_carve_printer", False)
    if printer is False:     # (once per read: every column but the dropped ones)
        cols = [i for i, a in enumerate(rows.attrs) if not a.attisdropped]
        printer = rows._carve_printer = rows.printed.printer(
            rows.attrs, cols, rows.printed.kinds([rows.attrs[i] for i in cols]), STATUS_NAMES, system=False)
    at = 0
    while printer is not None and at < len(start):
        done, _, printed = printer.lines(flat, start[at:], length[at:], t_hoff[at:], natts[at:], hasnull[at:])
        ok[at:at + done] = printed
        at += done
    return ok


def _values_print(rows, flat: np.ndarray, start: int, length: int, h, blkno: int) -> bool:
    """Every attribute of the tuple (dropped ones aside) prints without a finding (``TableRows.value_text``,
    TOASTed values fetched): a candidate whose bytes only look like a tuple's fails here."""
    data = flat[start:start + length].tobytes()
    im, t_hoff = int(h["t_infomask"]), int(h["t_hoff"])
    natts = int(h["t_infomask2"]) & HEAP_NATTS_MASK
    bitmap = data[SizeofHeapTupleHeader:t_hoff] if im & HEAP_HASNULL else None
    d = deform_tuple(data, t_hoff, natts, rows.attrs, null_bitmap=bitmap, hasvarwidth=bool(im & HEAP_HASVARWIDTH),
                     hasexternal=bool(im & HEAP_HASEXTERNAL))
    if d.findings:
        return False
    before = len(rows.findings)
    try:
        for a, att in zip(d.attrs, rows.attrs):
            if att.attisdropped or a.raw is None:
                continue
            if a.status == ERROR_STATUS or rows.value_text(att, a.raw, blkno, 0) is None:
                return False
        return len(rows.findings) == before
    finally:
        del rows.findings[before:]     # a candidate's failures are not the table's findings
