"""Heap line pointers and tuple headers, verify_heapam's rules in its order: line pointers in bounds,
aligned, not overlapping, redirects to the right items; tuple headers (t_hoff, infomask combinations),
xmin and xmax against the horizons, t_ctid; then the HOT chains (``hot``), the TOAST pointers
(``toast``) and the VM rules (``vm``) of the same chunk. ``verify_heap_chunk`` runs them all.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from pgpage.analysis.heapstats import max_heap_tuples_per_page
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.hot import hot_chain_findings
from pgpage.analysis.verify.pages import MAXALIGN, check_pages
from pgpage.analysis.verify.tuples import attribute_findings, column_layout
from pgpage.analysis.verify.vm import TupleFacts, vm_rules
from pgpage.analysis.verify.xids import (FIRST_NORMAL_XID, XID_BEFORE_OLDEST, XID_BEFORE_RELMIN, XID_IN_FUTURE,
                                         XID_INVALID, XID_OK, _full_xids, bounded_multi_lookup, clog_missing,
                                         clog_missing_message, future_severity, mxid_bounds, since_checkpoint,
                                         since_checkpoint_finding, xid_bounds, xid_message)
from pgpage.decode.flags import (HEAP_HASNULL, HEAP_HASOID_OLD, HEAP_HOT_UPDATED, HEAP_MOVED,
                                 HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, HEAP_UPDATED, HEAP_XMAX_COMMITTED,
                                 HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID, LP_DEAD,
                                 LP_NORMAL, LP_REDIRECT, LP_UNUSED, MOVED_PARTITIONS_OFFSET, SPEC_TOKEN_OFFSET)
from pgpage.decode.ksy.constants import SEQ_MAGIC, SizeofHeapTupleHeader
from pgpage.decode.vector import (MIN_HEAP_TUPLE_SIZE, LinePointers, PageHeaders, decode_line_pointers,
                                  decode_tuple_headers)
from pgpage.decode.xact import (ST_COMMITTED, ST_FROZEN, ST_UNKNOWN, ClogArray, xmax_is_locked_only, xmax_states,
                                xmin_states)
from pgpage.findings import ERROR, WARNING, Finding

INVALID_BLOCK = 0xFFFFFFFF


def verify_heap_chunk(chunk: np.ndarray, first: int, ctx: VerifyContext,
                      vm: tuple[np.ndarray, np.ndarray] | None = None) -> list[Finding]:
    """Every heap rule for one chunk of main-fork pages (global block numbers from ``first``).

    ``vm``: (all_visible, all_frozen) bits of the chunk's blocks from the visibility map, or None
    when the relation has no VM fork. Returns findings ordered by block and item.

    Every rule judges a page on its own, so the compiled sieve (``kernels.verify_heap_sieve``) first sets
    aside the pages on which no rule can fire, and the rules below run on the runs of pages left.
    """
    n = chunk.shape[0]
    if ctx.expected_special or not n or not chunk.flags.c_contiguous:
        return _verify_heap_pages(chunk, first, ctx, vm)
    from pgpage.decode.kernels import verify_heap_sieve
    flagged = verify_heap_sieve(chunk, first, _sieve_params(ctx, vm is not None), *(vm or (None, None)),
                                ctx.clog or ClogArray({}), *column_layout(ctx))
    edges = np.flatnonzero(np.diff(np.concatenate(([0], flagged, [0])).astype(np.int8)))
    out: list[Finding] = []
    for a, b in zip(edges[::2], edges[1::2]):
        out += _verify_heap_pages(chunk[a:b], first + int(a), ctx, vm and (vm[0][a:b], vm[1][a:b]))
    return out


def _sieve_params(ctx: VerifyContext, has_vm: bool) -> dict:
    """What the sieve needs to know of ``ctx``: the horizons as full xids, as ``xid_bounds`` places them."""
    from pgpage.decode.checksum import PD_CHECKSUM_KEEP, PD_CHECKSUM_WORD
    from pgpage.decode.vector import HEAP_TUPLE_RECORD
    never = -(1 << 62)
    p = {"checksums": int(ctx.checksums is not False), "checksum_word": PD_CHECKSUM_WORD,
         "checksum_keep": int(PD_CHECKSUM_KEEP), "has_bounds": int(ctx.next_full_xid is not None),
         "next_full": ctx.next_full_xid or 0, "oldest_full": never, "relmin_full": never,
         "relnatts": -1 if ctx.relnatts is None else ctx.relnatts, "nblocks": -1 if ctx.nblocks is None else ctx.nblocks,
         "toast": int(ctx.columns is not None), "has_vm": int(has_vm), "has_resolver": 0,
         "t_field3": HEAP_TUPLE_RECORD.fields["t_field3"][1], "t_hoff": HEAP_TUPLE_RECORD.fields["t_hoff"][1]}
    if ctx.next_full_xid is not None:
        for key, xid in (("oldest_full", ctx.oldest_xid), ("relmin_full", ctx.relfrozenxid)):
            if xid is not None and xid >= FIRST_NORMAL_XID:
                p[key] = int(_full_xids(np.array([xid]), ctx.next_full_xid)[0])
    return p


def _verify_heap_pages(chunk: np.ndarray, first: int, ctx: VerifyContext,
                       vm: tuple[np.ndarray, np.ndarray] | None = None) -> list[Finding]:
    """verify_heap_chunk's rules, on every page of ``chunk``."""
    pc = check_pages(chunk, first, ctx)
    out = pc.findings
    n, size = chunk.shape
    h = pc.headers
    blocks = first + np.arange(n)
    special_size = size - h.special.astype(np.int64)
    wrong_special = pc.valid & (special_size != ctx.expected_special)
    for i in np.flatnonzero(wrong_special):
        what = "a sequence page has an 8-byte special space" if ctx.expected_special else "a heap page has no special space"
        out.append(ctx.finding("heap.page.special_space", f"pd_special is {int(h.special[i])}: {what}"
                               " (is this page from another relation?)", blocks[i],
                               expected=size - ctx.expected_special, actual=h.special[i]))
    valid = pc.valid & ~wrong_special
    if ctx.expected_special == 8:
        magic = np.ascontiguousarray(chunk[:, size - 8:size - 4]).view("<u4").reshape(-1)
        bad_magic = valid & (magic != SEQ_MAGIC)
        for i in np.flatnonzero(bad_magic):
            out.append(ctx.finding("sequence.bad_magic", f"sequence page magic 0x{int(magic[i]):X}, expected"
                                   f" 0x{SEQ_MAGIC:X}", blocks[i], expected=SEQ_MAGIC, actual=magic[i]))
    hv = replace(h, nlp=np.where(valid, h.nlp, 0))
    items = decode_line_pointers(chunk, hv)
    tup_findings, facts = _heap_items(chunk, first, ctx, hv, items)
    out += tup_findings
    out += vm_rules(ctx, blocks, valid, pc.zero, h, items, facts, vm)
    out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
    return out


def _heap_items(chunk: np.ndarray, first: int, ctx: VerifyContext, h: PageHeaders, items: LinePointers):
    out: list[Finding] = []
    if len(items.lp) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return out, TupleFacts(empty, empty.astype(np.int8), empty.astype(np.int8), empty.astype(bool))
    page, lp, off, flags, length = items.page, items.lp, items.off, items.flags, items.len
    blk = first + page
    upper = h.upper.astype(np.int64)[page]
    special = h.special.astype(np.int64)[page]
    maxoff = h.nlp[page]
    storage = length > 0

    def each(mask, code, msg, severity=ERROR, expected=None, actual=None):
        for k in np.flatnonzero(mask):
            out.append(ctx.finding(code, msg(k), blk[k], lp[k], severity,
                                   expected(k) if expected else None, actual(k) if actual else None))

    unused, normal, redirect, dead = flags == LP_UNUSED, flags == LP_NORMAL, flags == LP_REDIRECT, flags == LP_DEAD
    names = {LP_UNUSED: "LP_UNUSED", LP_REDIRECT: "LP_REDIRECT"}
    each((unused | redirect) & storage, "heap.lp.unexpected_storage",
         lambda k: f"{names[int(flags[k])]} line pointer has lp_len {length[k]}", actual=lambda k: length[k])
    each(unused & ~storage & (off != 0), "heap.lp.unused_with_offset",
         lambda k: f"LP_UNUSED line pointer has lp_off {off[k]}", WARNING, actual=lambda k: off[k])
    each(normal & ~storage, "heap.lp.normal_without_storage", lambda k: "LP_NORMAL line pointer with lp_len 0")
    spans = (normal | dead) & storage
    oob = spans & ((off < upper) | (off + length > special))
    each(oob, "heap.lp.out_of_bounds", lambda k: f"item {off[k]}..{off[k] + length[k]} lies outside the tuple"
         f" space {upper[k]}..{special[k]}", actual=lambda k: [off[k], length[k]])
    misaligned = spans & (off % MAXALIGN != 0)
    each(misaligned, "heap.lp.misaligned", lambda k: f"line pointer to page offset {off[k]} is not maximally aligned",
         actual=lambda k: off[k])
    short = normal & storage & ~misaligned & (length < MIN_HEAP_TUPLE_SIZE)
    each(short, "heap.tuple.too_short", lambda k: f"line pointer length {length[k]} is less than the minimum tuple"
         f" header size {MIN_HEAP_TUPLE_SIZE}", actual=lambda k: length[k])
    out += _overlaps(ctx, blk, page, lp, off, length, spans & ~oob)

    # redirects: in range, to a used, non-dead, non-redirect item (verify_heapam's first loop)
    index = np.full((chunk.shape[0], int(h.nlp.max()) + 2 if len(h.nlp) else 2), -1, dtype=np.int64)
    index[page, lp] = np.arange(len(lp))
    rd = redirect & ~storage
    target = np.where(rd, off, 0)
    bad_rd = rd & ((target < 1) | (target > maxoff))
    each(bad_rd, "heap.lp.bad_redirect", lambda k: f"line pointer redirection to item at offset {target[k]}"
         f" {'precedes minimum offset 1' if target[k] < 1 else f'exceeds maximum offset {maxoff[k]}'}",
         actual=lambda k: target[k])
    rd_ok = rd & ~bad_rd
    tgt_item = np.where(rd_ok, index[page, np.clip(target, 0, index.shape[1] - 1)], -1)
    tgt_flags = np.where(tgt_item >= 0, flags[np.maximum(tgt_item, 0)], -1)
    for fl, code, what in ((LP_UNUSED, "heap.hot.link_to_unused", "an unused item"),
                           (LP_DEAD, "heap.hot.redirect_to_dead", "a dead item"),
                           (LP_REDIRECT, "heap.hot.redirect_to_redirect", "another redirected line pointer")):
        each(rd_ok & (tgt_flags == fl), code, lambda k, what=what: f"redirected line pointer points to {what} at"
             f" offset {target[k]}", actual=lambda k: target[k])
    rd_valid = rd_ok & (tgt_flags == LP_NORMAL)

    # tuple headers of the items that passed the line pointer rules
    t = decode_tuple_headers(chunk, items)
    tupok = normal & storage & ~oob & ~misaligned & (length >= MIN_HEAP_TUPLE_SIZE)
    keep = tupok[t.item]
    ti = t.item[keep]
    xmin, xmax = t.t_xmin[keep].astype(np.int64), t.t_xmax[keep].astype(np.int64)
    field3 = t.t_field3[keep].astype(np.int64)
    cblk, coff = t.ctid_block[keep].astype(np.int64), t.ctid_offset[keep].astype(np.int64)
    im2, im = t.t_infomask2[keep].astype(np.int64), t.t_infomask[keep].astype(np.int64)
    hoff = t.t_hoff[keep].astype(np.int64)
    tpage, tlp, tlen, tblk = page[ti], lp[ti], length[ti], blk[ti]

    def each_t(mask, code, msg, severity=ERROR, expected=None, actual=None):
        for j in np.flatnonzero(mask):
            out.append(ctx.finding(code, msg(j), tblk[j], tlp[j], severity,
                                   expected(j) if expected else None, actual(j) if actual else None))

    # check_tuple_header
    natts = im2 & HEAP_NATTS_MASK
    hasnull = (im & HEAP_HASNULL) != 0
    hasoid = (im & HEAP_HASOID_OLD) != 0
    raw_hoff = SizeofHeapTupleHeader + np.where(hasnull, (natts + 7) // 8, 0) + np.where(hasoid, 4, 0)
    expected_hoff = (raw_hoff + MAXALIGN - 1) & ~(MAXALIGN - 1)
    beyond = hoff > tlen
    each_t(beyond, "heap.tuple.bad_hoff", lambda j: f"data begins at offset {hoff[j]} beyond the tuple length"
           f" {tlen[j]}", actual=lambda j: hoff[j])
    wrong_hoff = hoff != expected_hoff      # verify_heapam reports both when both hold
    each_t(wrong_hoff, "heap.tuple.bad_hoff", lambda j: f"tuple data should begin at byte {expected_hoff[j]}, but"
           f" actually begins at byte {hoff[j]} ({natts[j]} attribute{'s' if natts[j] != 1 else ''},"
           f" {'has nulls' if hasnull[j] else 'no nulls'}{', has oid' if hasoid[j] else ''})",
           expected=lambda j: expected_hoff[j], actual=lambda j: hoff[j])
    header_ok = ~beyond & ~wrong_hoff
    multi = (im & HEAP_XMAX_IS_MULTI) != 0
    each_t(((im & HEAP_XMAX_COMMITTED) != 0) & multi, "heap.tuple.multi_committed",
           lambda j: "multixact should not be marked committed", actual=lambda j: im[j])
    xmin_invalid_hint = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_INVALID
    hot_updated = ((im2 & HEAP_HOT_UPDATED) != 0) & ((im & HEAP_XMAX_INVALID) == 0) & ~xmin_invalid_hint
    each_t(hot_updated & ~multi & (xmax == 0), "heap.tuple.hot_updated_without_xmax",
           lambda j: "tuple has been HOT updated, but xmax is 0")
    heap_only = (im2 & HEAP_ONLY_TUPLE) != 0
    each_t(heap_only & ((im & HEAP_UPDATED) == 0), "heap.tuple.heap_only_not_updated",
           lambda j: "tuple is heap only, but not the result of an update", actual=lambda j: im[j])

    # commit status, from hint bits then pg_xact (decode.xact's vectorised verdicts)
    clog = ctx.clog or ClogArray({})
    mux = bounded_multi_lookup(ctx)
    xmin_st, xmin_hinted = xmin_states(im.astype(np.uint16), xmin, clog)
    xmax_st, xmax_hinted = xmax_states(im.astype(np.uint16), xmax, clog, mux)
    frozen_hint = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN

    # check_tuple_visibility: xmin bounds, then (inserter committed) xmax/multixact bounds
    xmin_verdict = np.where(frozen_hint, XID_OK, xid_bounds(xmin, ctx))
    status_ok = header_ok & (xmin_verdict == XID_OK) & (xmin != 0)
    for j in np.flatnonzero(header_ok & (xmin_verdict >= XID_IN_FUTURE)):
        suffix, msg = xid_message("xmin", int(xmin[j]), int(xmin_verdict[j]), ctx)
        out.append(ctx.finding(f"heap.xid.xmin_{suffix}", msg, tblk[j], tlp[j], future_severity(ctx, suffix),
                               actual=int(xmin[j])))
    recent = header_ok & ~frozen_hint & since_checkpoint(xmin, ctx) | header_ok & ((im & HEAP_XMAX_INVALID) == 0) & (
        np.where(multi, since_checkpoint(xmax, ctx, multi=True), since_checkpoint(xmax, ctx)))
    if recent.any():   # counted here, told once per relation (passes.verify)
        out.append(since_checkpoint_finding(ctx, int(recent.sum())))
    inserted = status_ok & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN, ST_UNKNOWN))
    lock_only = xmax_is_locked_only(im.astype(np.uint16))
    mverdict = np.where(inserted & multi, mxid_bounds(xmax, ctx), XID_OK)
    mnames = {XID_INVALID: ("invalid", "multitransaction ID is invalid"),
              XID_BEFORE_RELMIN: ("before_relminmxid", "multitransaction ID {x} precedes relation minimum"
                                  f" multitransaction ID threshold {ctx.relminmxid}"),
              XID_BEFORE_OLDEST: ("before_oldest", "multitransaction ID {x} precedes oldest valid multitransaction"
                                  f" ID threshold {ctx.oldest_multi}"),
              XID_IN_FUTURE: ("in_future", "multitransaction ID {x} equals or exceeds next valid multitransaction"
                              f" ID {ctx.next_multi}")}
    for j in np.flatnonzero(mverdict != XID_OK):
        suffix, msg = mnames[int(mverdict[j])]
        out.append(ctx.finding(f"heap.multixact.{suffix}", msg.format(x=int(xmax[j])), tblk[j], tlp[j],
                               future_severity(ctx, suffix), actual=int(xmax[j])))
    deleting = inserted & (mverdict == XID_OK) & ((im & HEAP_XMAX_INVALID) == 0) & ~lock_only
    update_xid = xmax.copy()
    if deleting.any() and (deleting & multi).any():
        sel = np.flatnonzero(deleting & multi)
        update_xid[sel] = mux(xmax[sel]) if mux else -1
    plain_x = deleting & ((~multi & (xmax != 0)) | (multi & (update_xid >= 0)))
    no_updater = deleting & multi & (update_xid == 0)
    each_t(no_updater, "heap.multixact.no_update_xid", lambda j: "update xid is invalid",
           actual=lambda j: xmax[j])
    xverdict = np.where(plain_x & (update_xid > 0), xid_bounds(np.maximum(update_xid, 0), ctx), XID_OK)
    for j in np.flatnonzero(xverdict >= XID_IN_FUTURE):
        what = "update xid" if multi[j] else "xmax"
        suffix, msg = xid_message(what, int(update_xid[j]), int(xverdict[j]), ctx)
        out.append(ctx.finding(f"heap.xid.{what.replace(' ', '_')}_{suffix}", msg, tblk[j], tlp[j],
                               future_severity(ctx, suffix), actual=int(update_xid[j])))

    # pg_xact must hold the status of every xid within the horizons that a reader would look up there (no hint
    # bit says it): PostgreSQL fails such a read with "could not access status of transaction"
    if len(clog.seg_start):
        for what, xs, need in (("xmin", xmin, status_ok & ~xmin_hinted & ~frozen_hint),
                               ("xmax", xmax, plain_x & ~multi & (xverdict == XID_OK) & ~xmax_hinted)):
            lost = need & (xs >= FIRST_NORMAL_XID) & clog_missing(xs, clog)
            for j in np.flatnonzero(lost):
                out.append(ctx.finding(f"heap.xid.{what}_status_missing", clog_missing_message(int(xs[j]), clog),
                                       tblk[j], tlp[j], ERROR if ctx.consistent else WARNING, actual=int(xs[j])))

    # natts against the relation (check_tuple: only for tuples whose inserter committed)
    if ctx.relnatts is not None:
        each_t(inserted & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN)) & (natts > ctx.relnatts),
               "heap.tuple.too_many_attributes", lambda j: f"number of attributes {natts[j]} exceeds maximum"
               f" expected for table {ctx.relnatts}", expected=lambda j: ctx.relnatts, actual=lambda j: natts[j])

    # every attribute of the tuples check_tuple walks: header sane, inserter committed, xmin and xmax in bounds
    if ctx.columns is not None:
        walk = np.flatnonzero(inserted & ~xmin_invalid_hint & (mverdict == XID_OK) & (xverdict < XID_IN_FUTURE))
        out += attribute_findings(chunk, ctx, walk, tpage, tblk, tlp, items.off[ti], tlen, hoff, natts, im,
                                  (xmax_st == ST_COMMITTED) & ~lock_only)

    # ctid sanity
    special_ctid = (coff == SPEC_TOKEN_OFFSET) | ((cblk == INVALID_BLOCK) & (coff == MOVED_PARTITIONS_OFFSET))
    ctid_checked = header_ok & (xmin != 0) & ~special_ctid
    each_t(ctid_checked & (coff == 0), "heap.ctid.invalid", lambda j: f"t_ctid ({cblk[j]},0) has offset 0",
           actual=lambda j: f"({cblk[j]},{coff[j]})")
    mhtpp = max_heap_tuples_per_page(ctx.block_size)
    each_t(ctid_checked & (coff > mhtpp), "heap.ctid.offset_out_of_range", lambda j: f"t_ctid ({cblk[j]},{coff[j]})"
           f" names an offset past MaxHeapTuplesPerPage {mhtpp}", actual=lambda j: f"({cblk[j]},{coff[j]})")
    updated_committed = ctid_checked & (xmax_st == ST_COMMITTED) & ~lock_only
    off_page = ctid_checked & hot_updated & ~lock_only & (cblk != tblk)
    each_t(off_page, "heap.hot.ctid_off_page", lambda j: f"HOT-updated tuple's t_ctid ({cblk[j]},{coff[j]}) leaves"
           f" block {tblk[j]}: a HOT chain never leaves its page", actual=lambda j: f"({cblk[j]},{coff[j]})")
    if ctx.nblocks is not None:
        each_t(updated_committed & (cblk != tblk) & (cblk >= ctx.nblocks) & (coff > 0),
               "heap.ctid.block_beyond_end", lambda j: f"updated tuple's t_ctid ({cblk[j]},{coff[j]}) is past the"
               f" relation's {ctx.nblocks} blocks", WARNING, actual=lambda j: f"({cblk[j]},{coff[j]})")

    out += hot_chain_findings(ctx, items, blk, index, rd_valid, target, ti, header_ok, xmin, update_xid, multi,
                       im2, xmin_st, xmax_st, status_ok, hot_updated, lock_only, cblk, coff, tblk, tlp, tpage, maxoff)

    # what the VM rules need: visibility verdicts and pg_check_frozen's heap_tuple_needs_eventual_freeze
    needs_freeze = ((~frozen_hint & (xmin >= FIRST_NORMAL_XID))
                    | (((im & HEAP_XMAX_INVALID) == 0) & np.where(multi, xmax != 0, xmax >= FIRST_NORMAL_XID))
                    | (((im & HEAP_MOVED) != 0) & (field3 >= FIRST_NORMAL_XID)))
    xmin_vis = np.where(header_ok, xmin_st, ST_UNKNOWN)
    xmax_vis = np.where(header_ok, xmax_st, ST_UNKNOWN)
    return out, TupleFacts(ti, xmin_vis.astype(np.int8), xmax_vis.astype(np.int8), needs_freeze)


def _overlaps(ctx, blk, page, lp, off, length, mask) -> list[Finding]:
    """Line pointers whose byte ranges overlap on the same page (two tuples sharing bytes)."""
    sel = np.flatnonzero(mask)
    if len(sel) < 2:
        return []
    order = sel[np.lexsort((off[sel], page[sel]))]
    a, b = order[:-1], order[1:]
    clash = (page[a] == page[b]) & (off[a] + length[a] > off[b])
    out = []
    for x, y in zip(a[clash], b[clash]):
        out.append(ctx.finding("heap.lp.overlap", f"item {lp[y]} ({off[y]}..{off[y] + length[y]}) overlaps item"
                               f" {lp[x]} ({off[x]}..{off[x] + length[x]})", blk[y], lp[y],
                               actual=[int(lp[x]), int(lp[y])]))
    return out
