"""Every attribute of every checkable heap tuple, as verify_heapam's check_tuple_attribute walks them:
an attribute ending past the tuple, a TOAST tag no disk holds, and each on-disk TOAST pointer (with
its chunks, ``toast``); beyond amcheck, an inline-compressed value whose method is neither pglz nor lz4
(PostgreSQL's detoast: "invalid compression method id").

Which tuples: those check_tuple goes on to walk (the caller selects them): a sane header, an inserter
that committed, xmin and xmax within the horizons, no more attributes than the relation has. Only the
tuple's own attributes are walked (fewer than the relation's: the rest were added later).

How, without a Python loop per tuple: the compiled deformer ``rows`` uses (_heapscan.c's deform_one)
walks every such tuple in verify's heap sieve, which sets aside the pages where each one's attributes
lie within it, end where it does and hold no TOAST pointer. On the pages left, ``kernels.deform_offsets``
(the same walk, on-disk TOAST pointers taken as values) picks out the tuples it declines; only those are
walked again by ``deform.deform_tuple``. The TOAST pointers of the others are judged together
(``toast.pointers_findings``: arrays, then one by one only those a rule may fault).
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.toast import pointer_findings, pointers_findings
from pgpage.decode.datum import (ATTALIGN_BYTES, COMPRESSED, COMPRESSION_NAMES, EXTERNAL, VARTAG_ONDISK, Varlena,
                                 parse_varlena)
from pgpage.decode.deform import ERROR_STATUS, VALUE, deform_tuple
from pgpage.decode.flags import HEAP_HASEXTERNAL, HEAP_HASNULL
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.findings import Finding


def attribute_findings(chunk: np.ndarray, ctx: VerifyContext, sel: np.ndarray, tpage, tblk, tlp, toff, tlen, hoff,
                       natts, infomask, prunable) -> list[Finding]:
    """Findings on the attributes of tuples ``sel`` (indexes into the per-tuple arrays: page in the
    chunk, block, item, lp_off, lp_len, t_hoff, natts, t_infomask, and whether the deleter committed)."""
    from pgpage.decode import kernels
    attrs = ctx.columns() if ctx.columns is not None else None
    if not attrs or not len(sel):
        return []
    sel = sel[(natts[sel] > 0) & (natts[sel] <= len(attrs))]
    if not len(sel):
        return []
    attlen, attalign = column_layout(ctx)
    flat = np.ascontiguousarray(chunk).reshape(-1)
    start = tpage[sel].astype(np.int64) * chunk.shape[1] + toff[sel]
    hasnull = (infomask[sel] & HEAP_HASNULL) != 0
    declined, holders, columns, where = [], [], [], []
    for k in np.unique(natts[sel]).tolist():   # one walk per attribute count (rows added before ALTER TABLE ADD)
        g = np.flatnonzero(natts[sel] == k)
        ok, pos, _ = kernels.deform_offsets(flat, start[g], tlen[sel][g], hoff[sel][g], natts[sel][g], hasnull[g],
                                            attlen[:k], attalign[:k], toast_pointers=True)
        declined.append(g[~ok])
        # the on-disk TOAST pointers of the tuples the walk took (its only other values are plain ones)
        varlena = np.flatnonzero(attlen[:k] == -1)
        pos = pos[ok][:, varlena]
        at = start[g[ok]][:, None] + np.maximum(pos, 0)
        t, c = np.nonzero((pos >= 0) & (flat[at] == 0x01))     # (by tuple, then attribute)
        holders.append(g[ok][t])
        columns.append(varlena[c])
        where.append(at[t, c])
    out: list[tuple[int, list[Finding]]] = []
    for g in np.sort(np.concatenate(declined)).tolist():
        j = int(sel[g])
        s, n = int(start[g]), int(tlen[j])
        page_end = (s // chunk.shape[1] + 1) * chunk.shape[1]
        out.append((g, _walk(ctx, flat, s, n, page_end, attrs, int(hoff[j]), int(natts[j]), int(infomask[j]),
                             int(tblk[j]), int(tlp[j]), bool(prunable[j]))))
    g = np.concatenate(holders)
    j = sel[g]
    found = pointers_findings(ctx, flat, np.concatenate(where), tblk[j], tlp[j], np.concatenate(columns) + 1,
                              (infomask[j] & HEAP_HASEXTERNAL) != 0, np.asarray(prunable)[j])
    out += [(int(g[k]), f) for k, f in found.items()]
    out.sort(key=lambda kf: kf[0])   # (stable: a tuple's pointers in attribute order)
    return [f for _, fs in out for f in fs]


def column_layout(ctx: VerifyContext) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(attlen, attalign in bytes) of the relation's columns, as the compiled deformer takes them (None, None
    when the catalog does not say)."""
    attrs = ctx.columns() if ctx.columns is not None else None
    if not attrs:
        return None, None
    return (np.array([a.attlen for a in attrs], dtype=np.int64),
            np.array([ATTALIGN_BYTES.get(a.attalign, 1) for a in attrs], dtype=np.int64))


def _walk(ctx, flat, s, n, page_end, attrs, t_hoff, natts, infomask, blk, lp, prunable) -> list[Finding]:
    """One declined tuple through deform_tuple, its problems worded as check_tuple_attribute words them."""
    data = flat[s:s + n].tobytes()
    d = deform_tuple(data, t_hoff, natts, attrs,
                     null_bitmap=data[SizeofHeapTupleHeader:t_hoff] if infomask & HEAP_HASNULL else None)
    out = []
    prev_end = t_hoff
    for a in d.attrs[:natts]:
        if a.status == ERROR_STATUS:
            err = a.error
            if err.code == "datum.varlena.bad_vartag":
                out.append(ctx.finding("heap.toast.bad_vartag", f"toasted attribute has unexpected TOAST tag"
                                       f" {data[a.offset + 1]}", blk, lp, attnum=a.attnum, actual=data[a.offset + 1]))
            elif err.code == "heap.deform.datum_overrun":
                end = _amcheck_end(flat[s:page_end].tobytes(), prev_end, a.offset, a.attlen)   # (%u of attlen)
                out.append(ctx.finding("heap.tuple.attribute_beyond_end", f"attribute with length {a.attlen & 0xFFFFFFFF} ends"
                                       f" at offset {end} beyond total tuple length {n}", blk, lp, attnum=a.attnum,
                                       expected=n, actual=end))
            else:   # a varlena length no server writes: amcheck does not look, deform_tuple does
                out.append(ctx.finding("heap.tuple.bad_attribute", err.message, blk, lp, attnum=a.attnum,
                                       expected=err.expected, actual=err.actual))
            break    # where the next attribute starts cannot be known
        if a.status != VALUE:
            continue
        prev_end = a.offset + len(a.raw)
        v = a.varlena
        if v is not None and v.kind == COMPRESSED and v.compression not in COMPRESSION_NAMES.values():
            cmid = data[a.offset + 7] >> 6   # va_tcinfo's top 2 bits: what detoast would refuse
            out.append(ctx.finding("heap.tuple.bad_compression", f"invalid compression method id {cmid}", blk, lp,
                                   attnum=a.attnum, actual=cmid))
            continue
        if v is None or v.kind != EXTERNAL:
            continue
        if v.vartag != VARTAG_ONDISK or v.toast is None:
            out.append(ctx.finding("heap.toast.bad_vartag", f"toasted attribute has unexpected TOAST tag {v.vartag}",
                                   blk, lp, attnum=a.attnum, expected=VARTAG_ONDISK, actual=v.vartag))
            break
        out += pointer_findings(ctx, v.toast, blk, lp, a.attnum, bool(infomask & HEAP_HASEXTERNAL), prunable)
    return out


def _amcheck_end(page: bytes, prev_end: int, pos: int, attlen: int) -> int:
    """Where amcheck says an overrunning attribute ends (offsets from the tuple's start; ``page``: the
    bytes from the tuple's start to the page's end): it reads a datum's length from the page, past the
    tuple's end if need be, and so does this (after att_align_pointer's choice, made there too)."""
    if attlen > 0:
        return pos + attlen
    if attlen == -1:
        if prev_end < len(page) and page[prev_end] != 0:
            pos = prev_end
        v = parse_varlena(page, pos, len(page))
        size = v.total_len if isinstance(v, Varlena) else v.expected
        return pos + size if isinstance(size, int) else pos
    nul = page.find(b"\0", pos)      # a cstring
    return (nul if nul >= 0 else len(page)) + 1
