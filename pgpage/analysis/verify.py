"""Integrity rules for whole forks, vectorised: page headers, checksums, heap line pointers, tuple
headers, transaction ids, HOT chains and the visibility map.

Pure functions over numpy chunks of pages (``RelationFork.iter_chunks``) plus what the caller knows
(``VerifyContext``: pg_control's xid horizon, pg_class's relfrozenxid, pg_xact); they return
``Finding`` lists and never read files. ``pgpage.passes.verify`` wires them to storage and
``pgpage.analysis.verify_btree`` holds the B-tree rules.

The heap rules follow amcheck's ``verify_heapam`` (``contrib/amcheck/verify_heapam.c``): the same
conditions, in the same order, with the same way of deciding when a tuple is too broken to look at
further (a bad ``t_hoff`` stops the visibility checks, an out-of-range xmin stops the xmax checks).
The VM rules are those of ``pg_check_visible``/``pg_check_frozen`` and of the warnings VACUUM prints
(``vacuumlazy.c``). Page header rules are ``PageIsVerifiedExtended``'s, with the same codes
``pgpage page`` uses for one page.

Offline there is no running server to ask, so two things differ from amcheck:

* Commit status comes from hint bits and pg_xact (``ClogArray``); where pg_xact does not cover an
  xid the status is unknown and the rules that need it are skipped rather than guessed.
* pg_control's next xid is that of the last checkpoint. After a clean shutdown nothing is newer;
  after a crash (or on a running server) newer xids are legitimate until WAL replay, so
  "in the future" and the cross-file rules (VM against heap) are warnings there (``consistent``).

Two rules go beyond verify_heapam: a HOT-updated tuple whose updater committed must be followed, at
its t_ctid on the same page, by a tuple that updater inserted (``heap.hot.xmin_mismatch``,
``heap.hot.broken_chain``, ``heap.hot.link_to_unused``, ``heap.hot.bad_link``), and a HOT chain never
leaves its page (``heap.hot.ctid_off_page``).

Every rule is a numpy expression over a whole chunk; Python loops run only over the tuples that
broke a rule (to word their messages) and over the tuples flagged HEAP_HASEXTERNAL, whose TOAST
pointers are found by walking their columns (``deform_tuple``).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from pgpage.analysis.heapstats import max_heap_tuples_per_page
from pgpage.decode.checksum import checksum_pages
from pgpage.decode.flags import (HEAP_HASEXTERNAL, HEAP_HASNULL, HEAP_HASOID_OLD, HEAP_HOT_UPDATED, HEAP_MOVED,
                                 HEAP_NATTS_MASK, HEAP_ONLY_TUPLE, HEAP_UPDATED, HEAP_XMAX_COMMITTED,
                                 HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMIN_FROZEN, HEAP_XMIN_INVALID, LP_DEAD,
                                 LP_NORMAL, LP_REDIRECT, LP_UNUSED, MOVED_PARTITIONS_OFFSET, PD_ALL_VISIBLE,
                                 PD_VALID_FLAG_BITS, SPEC_TOKEN_OFFSET)
from pgpage.decode.vector import (SIZE_OF_PAGE_HEADER, LinePointers, PageHeaders, decode_headers,
                                  decode_line_pointers, decode_tuple_headers)
from pgpage.decode.xact import (ST_ABORTED, ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS, ST_UNKNOWN, ClogArray,
                                xmax_is_locked_only, xmax_states, xmin_states)
from pgpage.findings import ERROR, WARNING, Finding

MAXALIGN = 8
PG_PAGE_LAYOUT_VERSION = 4
SIZEOF_HEAP_TUPLE_HEADER = 23
MIN_HEAP_TUPLE_SIZE = 24
FIRST_NORMAL_XID = 3


INVALID_BLOCK = 0xFFFFFFFF
SEQUENCE_MAGIC = 0x1717
VM_HEAP_BLOCKS_PER_BYTE = 4


def vm_heap_blocks_per_page(block_size: int) -> int:
    """HEAPBLOCKS_PER_PAGE: (BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * 4."""
    return (block_size - SIZE_OF_PAGE_HEADER) * VM_HEAP_BLOCKS_PER_BYTE


@dataclass
class VerifyContext:
    """What is known about the fork being verified. Unknown facts are None and skip their rules."""

    relation: str | None = None
    fork: str = "main"
    block_size: int = 8192
    major: int | None = None
    checksums: bool | None = None          # data checksums on/off per pg_control; None: unknown
    consistent: bool = True                # clean shutdown (or unknown): cross-file rules are errors
    # transaction horizon (pg_control's checkpoint, pg_class)
    next_full_xid: int | None = None
    oldest_xid: int | None = None
    relfrozenxid: int | None = None
    next_multi: int | None = None
    oldest_multi: int | None = None
    relminmxid: int | None = None
    # commit status
    clog: ClogArray | None = None
    multi_update_xid: Callable | None = None
    # the relation
    relnatts: int | None = None
    nblocks: int | None = None              # blocks of the main fork (ctid and VM rules)
    expected_special: int = 0               # special space size of a heap page (8 for sequences)
    # TOAST pointers: the table's columns (deform Attributes, asked for only when a tuple has an
    # external value), its reltoastrelid and whether pg_class holds that TOAST relation
    columns: Callable[[], list | None] | None = None
    toast_oid: int | None = None
    toast_exists: bool = False

    def finding(self, code: str, message: str, block: int | None = None, item: int | None = None,
                severity: str = ERROR, expected=None, actual=None, fork: str | None = None) -> Finding:
        return Finding(code, message, severity, self.relation, fork or self.fork,
                       None if block is None else int(block), None if item is None else int(item),
                       _plain(expected), _plain(actual))


def _plain(v):
    """numpy scalars and tuples as JSON-friendly Python values."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item"):
        return v.item()
    return v


# ------------------------------------------------------------------------------------------ pages
@dataclass
class PageCheck:
    """The outcome of the generic page rules for one chunk."""
    headers: PageHeaders
    zero: np.ndarray       # all-zero pages (PageIsNew and nothing else: valid, empty)
    valid: np.ndarray      # pages whose header can be trusted for further rules
    findings: list[Finding] = field(default_factory=list)


def check_pages(chunk: np.ndarray, first: int, ctx: VerifyContext) -> PageCheck:
    """PageIsVerifiedExtended for every page of the chunk: checksum, header sanity, new pages.

    Checksums are compared when pg_control says they are on; when that is unknown, only pages
    that carry a non-zero pd_checksum are compared and a mismatch is a warning (with checksums
    off, pd_checksum is 0, or on pages upgraded from 9.2 and older a leftover timeline id).
    """
    n, size = chunk.shape
    h = decode_headers(chunk)
    zero = ~chunk.any(axis=1)
    out: list[Finding] = []
    blocks = first + np.arange(n)
    if ctx.checksums is not False and n:
        computed = checksum_pages(chunk, first)
        stored = h.checksum
        bad = (computed != stored) & ~zero
        if ctx.checksums is None:
            bad &= stored != 0
        sev = ERROR if ctx.checksums else WARNING
        for i in np.flatnonzero(bad):
            out.append(ctx.finding("checksum.mismatch", f"stored checksum {int(stored[i])} != computed"
                                   f" {int(computed[i])}", blocks[i], severity=sev,
                                   expected=computed[i], actual=stored[i]))
    new = (h.upper == 0) & ~zero
    for i in np.flatnonzero(new):
        out.append(ctx.finding("page.new_not_zeroed", "pd_upper is 0 (a new page) but the page is not all"
                               " zeros", blocks[i], actual=int(np.count_nonzero(chunk[i]))))
    live = ~zero & ~new
    pagesize = (h.pagesize_version & 0xFF00).astype(np.int64)
    version = (h.pagesize_version & 0x00FF).astype(np.int64)
    lower, upper, special = (h.lower.astype(np.int64), h.upper.astype(np.int64), h.special.astype(np.int64))
    rules = [
        ("page.header.bad_pagesize", live & (pagesize != size),
         lambda i: f"pd_pagesize_version says {pagesize[i]}-byte pages, the file has {size}-byte blocks",
         lambda i: (size, pagesize[i])),
        ("page.header.bad_version", live & (version != PG_PAGE_LAYOUT_VERSION),
         lambda i: f"page layout version {version[i]}, expected {PG_PAGE_LAYOUT_VERSION}",
         lambda i: (PG_PAGE_LAYOUT_VERSION, version[i])),
        ("page.header.bad_flags", live & ((h.flags.astype(np.int64) & ~PD_VALID_FLAG_BITS) != 0),
         lambda i: f"pd_flags 0x{int(h.flags[i]):04X} has bits outside PD_VALID_FLAG_BITS",
         lambda i: (None, h.flags[i])),
        ("page.header.bad_lower", live & ((lower < SIZE_OF_PAGE_HEADER) | (lower > upper)),
         lambda i: f"pd_lower {lower[i]} is not between {SIZE_OF_PAGE_HEADER} and pd_upper {upper[i]}",
         lambda i: (None, lower[i])),
        ("page.header.bad_upper", live & (upper > special),
         lambda i: f"pd_upper {upper[i]} is past pd_special {special[i]}", lambda i: (None, upper[i])),
        ("page.header.bad_special", live & ((special > size) | (special % MAXALIGN != 0)),
         lambda i: f"pd_special {special[i]} is past the page end or not MAXALIGNed", lambda i: (None, special[i])),
    ]
    valid = live.copy()
    for code, mask, msg, ea in rules:
        for i in np.flatnonzero(mask):
            e, a = ea(i)
            out.append(ctx.finding(code, msg(i), blocks[i], expected=e, actual=a))
        valid &= ~mask
    return PageCheck(h, zero, valid, out)


# ------------------------------------------------------------------------------------------- xids
XID_OK, XID_INVALID, XID_IN_FUTURE, XID_BEFORE_OLDEST, XID_BEFORE_RELMIN = range(5)
_U32 = 1 << 32


def _full_xids(xids: np.ndarray, next_full: int) -> np.ndarray:
    """FullTransactionIdFromXidAndCtx: each 32-bit xid placed in the epoch that makes it nearest
    before (or at) the next full xid, clamped to FirstNormalTransactionId before epoch 0."""
    x = xids.astype(np.int64) & 0xFFFFFFFF
    next32 = next_full & 0xFFFFFFFF
    diff = ((next32 - x + (1 << 31)) % _U32) - (1 << 31)     # (int32)(next_xid - xid)
    full = next_full - diff
    clamp = (diff > 0) & ((next_full - FIRST_NORMAL_XID) < diff)
    full[clamp] = FIRST_NORMAL_XID
    return full


def xid_bounds(xids: np.ndarray, ctx: VerifyContext) -> np.ndarray:
    """get_xid_status's bounds verdict per xid: XID_OK, XID_INVALID (0), XID_IN_FUTURE,
    XID_BEFORE_OLDEST (pg_control's oldestXid), XID_BEFORE_RELMIN (relfrozenxid)."""
    x = xids.astype(np.int64)
    out = np.full(len(x), XID_OK, dtype=np.int8)
    out[x == 0] = XID_INVALID
    if ctx.next_full_xid is None:
        return out
    normal = x >= FIRST_NORMAL_XID
    full = _full_xids(x, ctx.next_full_xid)
    future = normal & (full >= ctx.next_full_xid)
    out[future] = XID_IN_FUTURE
    rest = normal & ~future
    if ctx.oldest_xid is not None and ctx.oldest_xid >= FIRST_NORMAL_XID:
        oldest = int(_full_xids(np.array([ctx.oldest_xid]), ctx.next_full_xid)[0])
        before = rest & (full < oldest)
        out[before] = XID_BEFORE_OLDEST
        rest &= ~before
    if ctx.relfrozenxid is not None and ctx.relfrozenxid >= FIRST_NORMAL_XID:
        relmin = int(_full_xids(np.array([ctx.relfrozenxid]), ctx.next_full_xid)[0])
        out[rest & (full < relmin)] = XID_BEFORE_RELMIN
    return out


def _precedes32(a: np.ndarray, b: int) -> np.ndarray:
    """MultiXactIdPrecedes / TransactionIdPrecedes: (int32)(a - b) < 0."""
    d = ((a.astype(np.int64) - b + (1 << 31)) % _U32) - (1 << 31)
    return d < 0


def mxid_bounds(mxids: np.ndarray, ctx: VerifyContext) -> np.ndarray:
    """check_mxid_in_range per multixact id (same verdict codes as xid_bounds)."""
    m = mxids.astype(np.int64)
    out = np.full(len(m), XID_OK, dtype=np.int8)
    out[m == 0] = XID_INVALID
    valid = m != 0
    if ctx.relminmxid:
        bad = valid & _precedes32(m, ctx.relminmxid)
        out[bad] = XID_BEFORE_RELMIN
        valid &= ~bad
    if ctx.oldest_multi:
        bad = valid & _precedes32(m, ctx.oldest_multi)
        out[bad] = XID_BEFORE_OLDEST
        valid &= ~bad
    if ctx.next_multi:
        out[valid & ~_precedes32(m, ctx.next_multi)] = XID_IN_FUTURE
    return out


def _epoch_xid(full: int) -> str:
    return f"{full >> 32}:{full & 0xFFFFFFFF}"


def _xid_message(what: str, xid: int, verdict: int, ctx: VerifyContext) -> tuple[str, str]:
    """(code suffix, amcheck's wording) for an xid bounds violation."""
    nf = ctx.next_full_xid or 0
    if verdict == XID_IN_FUTURE:
        return "in_future", f"{what} {xid} equals or exceeds next valid transaction ID {_epoch_xid(nf)}"
    if verdict == XID_BEFORE_OLDEST:
        old = int(_full_xids(np.array([ctx.oldest_xid]), nf)[0])
        return "before_oldest", f"{what} {xid} precedes oldest valid transaction ID {_epoch_xid(old)}"
    rel = int(_full_xids(np.array([ctx.relfrozenxid]), nf)[0])
    return "before_relfrozenxid", f"{what} {xid} precedes relation freeze threshold {_epoch_xid(rel)}"


# ------------------------------------------------------------------------------------------- heap
def verify_heap_chunk(chunk: np.ndarray, first: int, ctx: VerifyContext,
                      vm: tuple[np.ndarray, np.ndarray] | None = None) -> list[Finding]:
    """Every heap rule for one chunk of main-fork pages (global block numbers from ``first``).

    ``vm``: (all_visible, all_frozen) bits of the chunk's blocks from the visibility map, or None
    when the relation has no VM fork. Returns findings ordered by block and item.
    """
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
        bad_magic = valid & (magic != SEQUENCE_MAGIC)
        for i in np.flatnonzero(bad_magic):
            out.append(ctx.finding("sequence.bad_magic", f"sequence page magic 0x{int(magic[i]):X}, expected"
                                   f" 0x{SEQUENCE_MAGIC:X}", blocks[i], expected=SEQUENCE_MAGIC, actual=magic[i]))
    hv = replace(h, nlp=np.where(valid, h.nlp, 0))
    items = decode_line_pointers(chunk, hv)
    tup_findings, facts = _heap_items(chunk, first, ctx, hv, items)
    out += tup_findings
    out += _vm_rules(ctx, blocks, valid, pc.zero, h, items, facts, vm)
    out.sort(key=lambda f: (f.block if f.block is not None else -1, f.item or 0))
    return out


@dataclass
class _TupleFacts:
    """Per-tuple arrays the VM rules need (indexes into the chunk's line pointers)."""
    item: np.ndarray
    xmin_state: np.ndarray
    xmax_state: np.ndarray
    needs_freeze: np.ndarray


def _heap_items(chunk: np.ndarray, first: int, ctx: VerifyContext, h: PageHeaders, items: LinePointers):
    out: list[Finding] = []
    if len(items.lp) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return out, _TupleFacts(empty, empty.astype(np.int8), empty.astype(np.int8), empty.astype(bool))
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
    raw_hoff = SIZEOF_HEAP_TUPLE_HEADER + np.where(hasnull, (natts + 7) // 8, 0) + np.where(hasoid, 4, 0)
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
    mux = _bounded_multi_lookup(ctx)
    xmin_st, _ = xmin_states(im.astype(np.uint16), xmin, clog)
    xmax_st, _ = xmax_states(im.astype(np.uint16), xmax, clog, mux)
    frozen_hint = (im & HEAP_XMIN_FROZEN) == HEAP_XMIN_FROZEN

    # check_tuple_visibility: xmin bounds, then (inserter committed) xmax/multixact bounds
    xmin_verdict = np.where(frozen_hint, XID_OK, xid_bounds(xmin, ctx))
    status_ok = header_ok & (xmin_verdict == XID_OK) & (xmin != 0)
    for j in np.flatnonzero(header_ok & (xmin_verdict >= XID_IN_FUTURE)):
        suffix, msg = _xid_message("xmin", int(xmin[j]), int(xmin_verdict[j]), ctx)
        out.append(ctx.finding(f"heap.xid.xmin_{suffix}", msg, tblk[j], tlp[j], _future_severity(ctx, suffix),
                               actual=int(xmin[j])))
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
                               _future_severity(ctx, suffix), actual=int(xmax[j])))
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
        suffix, msg = _xid_message(what, int(update_xid[j]), int(xverdict[j]), ctx)
        out.append(ctx.finding(f"heap.xid.{what.replace(' ', '_')}_{suffix}", msg, tblk[j], tlp[j],
                               _future_severity(ctx, suffix), actual=int(update_xid[j])))

    # natts against the relation (check_tuple: only for tuples whose inserter committed)
    if ctx.relnatts is not None:
        each_t(inserted & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN)) & (natts > ctx.relnatts),
               "heap.tuple.too_many_attributes", lambda j: f"number of attributes {natts[j]} exceeds maximum"
               f" expected for table {ctx.relnatts}", expected=lambda j: ctx.relnatts, actual=lambda j: natts[j])

    # TOAST pointers of tuples that say they have external values (verify_heapam's check_tuple_attribute)
    if ctx.columns is not None:
        ext = np.flatnonzero(header_ok & ((im & HEAP_HASEXTERNAL) != 0) & ~xmin_invalid_hint)
        if len(ext):
            out += _toast_pointers(chunk, ctx, ext, tpage, tblk, tlp, items.off[ti], tlen, hoff, natts, hasnull)

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

    out += _hot_chains(ctx, items, blk, index, rd_valid, target, ti, header_ok, xmin, update_xid, multi,
                       im2, xmin_st, xmax_st, status_ok, hot_updated, lock_only, cblk, coff, tblk, tlp, tpage, maxoff)

    # what the VM rules need: visibility verdicts and pg_check_frozen's heap_tuple_needs_eventual_freeze
    needs_freeze = ((~frozen_hint & (xmin >= FIRST_NORMAL_XID))
                    | (((im & HEAP_XMAX_INVALID) == 0) & np.where(multi, xmax != 0, xmax >= FIRST_NORMAL_XID))
                    | (((im & HEAP_MOVED) != 0) & (field3 >= FIRST_NORMAL_XID)))
    xmin_vis = np.where(header_ok, xmin_st, ST_UNKNOWN)
    xmax_vis = np.where(header_ok, xmax_st, ST_UNKNOWN)
    return out, _TupleFacts(ti, xmin_vis.astype(np.int8), xmax_vis.astype(np.int8), needs_freeze)


def _future_severity(ctx: VerifyContext, suffix: str) -> str:
    """An xid newer than pg_control's next xid is only corruption when pg_control is current."""
    return ERROR if ctx.consistent or suffix != "in_future" else WARNING


def _bounded_multi_lookup(ctx: VerifyContext):
    """ctx.multi_update_xid, asked only about multixacts inside pg_control's range (-1 for others),
    so that garbage never sends the member lookup off into SLRU pages that do not exist."""
    if ctx.multi_update_xid is None:
        return None

    def lookup(multis: np.ndarray) -> np.ndarray:
        m = np.asarray(multis).astype(np.int64)
        out = np.full(len(m), -1, dtype=np.int64)
        ok = mxid_bounds(m, ctx) == XID_OK
        if ok.any():
            try:
                out[ok] = ctx.multi_update_xid(m[ok].astype(np.uint32))
            except Exception:  # pg_multixact itself damaged: the updater stays unknown
                pass
        return out
    return lookup


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


def _hot_chains(ctx, items, blk, index, rd_valid, target, ti, header_ok, xmin, update_xid, multi, im2,
                xmin_st, xmax_st, status_ok, hot_updated, lock_only, cblk, coff, tblk, tlp, tpage, maxoff):
    """verify_heapam's update chain validation, per page, for the whole chunk at once.

    Successors: a valid redirect's target, or a tuple's t_ctid when it names another item of the
    same page. Each item can be the successor of one predecessor (the first by offset wins, the
    others intersect). Plus one rule verify_heapam leaves out: a HOT-updated tuple whose updater
    committed must be followed, at its t_ctid, by a tuple whose xmin is that updater.
    """
    out: list[Finding] = []
    page, lp, flags = items.page, items.lp, items.flags
    ncols = index.shape[1]
    tuple_of_item = np.full(len(lp), -1, dtype=np.int64)
    tuple_of_item[ti] = np.arange(len(ti))
    lp_valid = rd_valid.copy()
    lp_valid[ti] = True   # verify_heapam: the line pointer passed its checks (the header may still be bad)

    # tuple successors on the same page
    same_page = (cblk == tblk) & (coff != tlp) & (coff >= 1) & (coff <= maxoff[ti])
    t_next_item = np.where(same_page, index[tpage, np.clip(coff, 0, ncols - 1)], -1)
    # edges: (source item, target item, kind) with kind 0 redirect, 1 tuple
    rsrc = np.flatnonzero(rd_valid)
    rdst = index[page[rsrc], target[rsrc]]
    tsrc_t = np.flatnonzero(t_next_item >= 0)
    tdst = t_next_item[tsrc_t]
    keep = lp_valid[tdst]
    tsrc_t, tdst = tsrc_t[keep], tdst[keep]
    # a tuple edge needs a tuple target whose xmin is this tuple's update xid (unknown multi: assume so)
    tgt_tuple = tuple_of_item[tdst]
    is_tuple_target = (flags[tdst] != LP_REDIRECT) & (tgt_tuple >= 0)
    tsrc_t, tdst, tgt_tuple = tsrc_t[is_tuple_target], tdst[is_tuple_target], tgt_tuple[is_tuple_target]
    cur_x = update_xid[tsrc_t]
    uncertain = multi[tsrc_t] & (cur_x < 0)
    matches = uncertain | ((cur_x > 0) & (cur_x == xmin[tgt_tuple]))
    tsrc_t, tdst, tgt_tuple, uncertain = tsrc_t[matches], tdst[matches], tgt_tuple[matches], uncertain[matches]
    tsrc = ti[tsrc_t]

    # redirect targets must be heap-only tuples
    rd_tuple = tuple_of_item[rdst]
    not_ho = (rd_tuple >= 0) & ((im2[np.maximum(rd_tuple, 0)] & HEAP_ONLY_TUPLE) == 0)
    for k in np.flatnonzero(not_ho):
        s = rsrc[k]
        out.append(ctx.finding("heap.hot.redirect_not_heap_only", "redirected line pointer points to a"
                               f" non-heap-only tuple at offset {lp[rdst[k]]}", blk[s],
                               lp[s], actual=int(lp[rdst[k]])))

    # predecessor claims, in offset order per page and target
    src = np.concatenate([rsrc, tsrc])
    dst = np.concatenate([rdst, tdst])
    kind = np.concatenate([np.zeros(len(rsrc), np.int8), np.ones(len(tsrc), np.int8)])
    tref = np.concatenate([np.full(len(rsrc), -1), tsrc_t])
    uref = np.concatenate([np.zeros(len(rsrc), bool), uncertain])
    order = np.lexsort((lp[src], dst))
    src, dst, kind, tref, uref = src[order], dst[order], kind[order], tref[order], uref[order]
    first = np.ones(len(dst), dtype=bool)
    first[1:] = dst[1:] != dst[:-1]
    has_pred = np.zeros(len(lp), dtype=bool)
    has_pred[dst[first]] = True
    winner_of = np.full(len(lp), -1, dtype=np.int64)
    winner_of[dst[first]] = src[first]
    for k in np.flatnonzero(~first):
        what = "redirect line pointer points" if kind[k] == 0 else "tuple points to new version"
        out.append(ctx.finding("heap.hot.chains_intersect", f"{what} at offset {lp[dst[k]]}, but offset"
                               f" {lp[winner_of[dst[k]]]} also points there", blk[src[k]], lp[src[k]],
                               actual=int(lp[dst[k]])))
    # HOT flags and commit status along tuple edges that won their target
    won = np.flatnonzero(first & (kind == 1) & ~uref)
    j, tj = tref[won], tuple_of_item[dst[won]]
    cur_hot = (im2[j] & HEAP_HOT_UPDATED) != 0
    next_ho = (im2[tj] & HEAP_ONLY_TUPLE) != 0
    nxt = lp[dst[won]]
    for k in np.flatnonzero(~cur_hot & next_ho):
        out.append(ctx.finding("heap.hot.non_hot_update_to_heap_only", "non-heap-only update produced a heap-only"
                               f" tuple at offset {nxt[k]}", tblk[j[k]], tlp[j[k]], actual=int(nxt[k])))
    for k in np.flatnonzero(cur_hot & ~next_ho):
        out.append(ctx.finding("heap.hot.hot_update_to_non_heap_only", "heap-only update produced a non-heap only"
                               f" tuple at offset {nxt[k]}", tblk[j[k]], tlp[j[k]], actual=int(nxt[k])))
    aborted = status_ok[j] & status_ok[tj] & (xmin_st[j] == ST_ABORTED) \
        & np.isin(xmin_st[tj], (ST_COMMITTED, ST_IN_PROGRESS))
    for k in np.flatnonzero(aborted):
        state = "committed" if xmin_st[tj[k]] == ST_COMMITTED else "in-progress"
        out.append(ctx.finding("heap.hot.aborted_xmin_updated", f"tuple with aborted xmin {xmin[j[k]]} was updated to"
                               f" produce a tuple at offset {nxt[k]} with {state} xmin {xmin[tj[k]]}", tblk[j[k]],
                               tlp[j[k]], actual=int(xmin[tj[k]])))
    # a chain starts at a redirect or a non-heap-only tuple
    root_ho = status_ok & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS)) & ~has_pred[ti] \
        & ((im2 & HEAP_ONLY_TUPLE) != 0)
    for j in np.flatnonzero(root_ho):
        out.append(ctx.finding("heap.hot.heap_only_root", "tuple is root of chain but is marked as heap-only tuple",
                               tblk[j], tlp[j]))
    # HOT-updated by a committed updater: the successor must be there, inserted by that updater
    committed_hot = np.flatnonzero(header_ok & hot_updated & ~lock_only & (xmax_st == ST_COMMITTED)
                                   & (cblk == tblk) & (coff != tlp) & (coff >= 1) & (update_xid > 0))
    last = maxoff[ti[committed_hot]]
    for j in committed_hot[coff[committed_hot] > last]:
        out.append(ctx.finding("heap.hot.bad_link", f"HOT-updated tuple's t_ctid names offset {coff[j]}, past the"
                               f" page's last line pointer {maxoff[ti[j]]}", tblk[j], tlp[j],
                               actual=f"({cblk[j]},{coff[j]})"))
    inside = committed_hot[coff[committed_hot] <= last]
    nitem = index[tpage[inside], coff[inside]]
    nflags = flags[nitem]
    names = {LP_UNUSED: "unused", LP_DEAD: "dead", LP_REDIRECT: "a redirect"}
    for k in np.flatnonzero(nflags != LP_NORMAL):
        j = inside[k]
        code = "heap.hot.link_to_unused" if nflags[k] == LP_UNUSED else "heap.hot.broken_chain"
        out.append(ctx.finding(code, f"HOT-updated tuple's successor at offset {coff[j]} is {names[int(nflags[k])]},"
                               f" though its updater {update_xid[j]} committed", tblk[j], tlp[j],
                               actual=f"({cblk[j]},{coff[j]})"))
    nt = tuple_of_item[nitem]
    ntc = np.maximum(nt, 0)
    mismatch = (nflags == LP_NORMAL) & (nt >= 0) & header_ok[ntc] & (xmin[ntc] != update_xid[inside])
    for k in np.flatnonzero(mismatch):
        j = inside[k]
        out.append(ctx.finding("heap.hot.xmin_mismatch", f"HOT-updated tuple's updater {update_xid[j]} is not the"
                               f" xmin {xmin[nt[k]]} of its successor at offset {coff[j]}", tblk[j], tlp[j],
                               expected=int(update_xid[j]), actual=int(xmin[nt[k]])))
    return out


VARLENA_SIZE_LIMIT = 0x3FFFFFFF
VALID_COMPRESSION_IDS = (0, 1)   # TOAST_PGLZ_COMPRESSION_ID, TOAST_LZ4_COMPRESSION_ID


def _toast_pointers(chunk, ctx: VerifyContext, sel, tpage, tblk, tlp, toff, tlen, hoff, natts, hasnull) -> list[Finding]:
    """The on-disk TOAST pointers of the selected tuples: an on-disk tag, sane sizes and compression,
    and the table's own TOAST relation named. Columns are walked with ``deform_tuple``."""
    from pgpage.decode.datum import EXTERNAL, VARTAG_ONDISK
    from pgpage.decode.deform import deform_tuple
    attrs = ctx.columns()
    if not attrs:
        return []
    out = []
    for j in sel:
        if natts[j] > len(attrs):
            continue          # too_many_attributes says so; the columns cannot be walked
        page, off, length, h = int(tpage[j]), int(toff[j]), int(tlen[j]), int(hoff[j])
        data = chunk[page, off:off + length].tobytes()
        d = deform_tuple(data, h, int(natts[j]), attrs, null_bitmap=data[SIZEOF_HEAP_TUPLE_HEADER:h] if hasnull[j] else None)
        blk, lp = tblk[j], tlp[j]
        for at in d.attrs:
            v = at.varlena
            if v is None or v.kind != EXTERNAL:
                if at.error is not None and at.error.code == "datum.varlena.bad_vartag":
                    out.append(ctx.finding("heap.toast.bad_vartag", f"attribute {at.attnum} ({at.name}): toasted"
                                           f" attribute has unexpected TOAST tag ({at.error.message})", blk, lp))
                continue
            if v.vartag != VARTAG_ONDISK or v.toast is None:
                out.append(ctx.finding("heap.toast.bad_vartag", f"attribute {at.attnum} ({at.name}): toasted attribute"
                                       f" has unexpected TOAST tag {v.vartag}", blk, lp, expected=VARTAG_ONDISK,
                                       actual=v.vartag))
                continue
            tp = v.toast
            if tp.va_rawsize > VARLENA_SIZE_LIMIT:
                out.append(ctx.finding("heap.toast.rawsize_too_large", f"toast value {tp.va_valueid} rawsize"
                                       f" {tp.va_rawsize} exceeds limit {VARLENA_SIZE_LIMIT}", blk, lp,
                                       actual=tp.va_rawsize))
            if tp.is_compressed and (tp.va_extinfo >> 30) not in VALID_COMPRESSION_IDS:
                out.append(ctx.finding("heap.toast.bad_compression", f"toast value {tp.va_valueid} has invalid"
                                       f" compression method id {tp.va_extinfo >> 30}", blk, lp,
                                       actual=tp.va_extinfo >> 30))
            if ctx.toast_oid is None:
                continue
            if not ctx.toast_oid:
                out.append(ctx.finding("heap.toast.no_toast_relation", f"toast value {tp.va_valueid} is external but"
                                       " relation has no toast relation", blk, lp, actual=tp.va_toastrelid))
            elif tp.va_toastrelid != ctx.toast_oid:
                out.append(ctx.finding("heap.toast.wrong_relation", f"toast value {tp.va_valueid} names TOAST relation"
                                       f" {tp.va_toastrelid}, the table's TOAST relation is {ctx.toast_oid}", blk, lp,
                                       expected=ctx.toast_oid, actual=tp.va_toastrelid))
            elif not ctx.toast_exists:
                out.append(ctx.finding("heap.toast.relation_missing", f"toast value {tp.va_valueid} names TOAST"
                                       f" relation {tp.va_toastrelid}, which pg_class does not hold", blk, lp,
                                       actual=tp.va_toastrelid))
    return out


# --------------------------------------------------------------------------------------------- VM
def vm_bits_for(vm_page_bytes: Callable[[int], np.ndarray | None], first: int, n: int,
                block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(all_visible, all_frozen) for heap blocks first..first+n-1, reading VM pages through
    ``vm_page_bytes(vm_blkno)`` (None beyond the VM fork: both bits clear)."""
    per_page = vm_heap_blocks_per_page(block_size)
    vis = np.zeros(n, dtype=bool)
    frz = np.zeros(n, dtype=bool)
    b = first
    while b < first + n:
        vblk, start = divmod(b, per_page)
        count = min(per_page - start, first + n - b)
        page = vm_page_bytes(vblk)
        if page is not None:
            body = page[SIZE_OF_PAGE_HEADER:]
            idx = start + np.arange(count)
            byte = body[idx // VM_HEAP_BLOCKS_PER_BYTE]
            shift = ((idx % VM_HEAP_BLOCKS_PER_BYTE) * 2).astype(np.uint8)
            bits = (byte >> shift) & 3
            vis[b - first:b - first + count] = (bits & 1) != 0
            frz[b - first:b - first + count] = (bits & 2) != 0
        b += count
    return vis, frz


def _vm_rules(ctx: VerifyContext, blocks, valid, zero, h: PageHeaders, items: LinePointers, facts: _TupleFacts,
              vm) -> list[Finding]:
    """The visibility map and PD_ALL_VISIBLE against what the page holds."""
    out: list[Finding] = []
    cross = ERROR if ctx.consistent else WARNING
    pd_vis = valid & ((h.flags & PD_ALL_VISIBLE) != 0)
    if vm is not None:
        vis, frz = vm
        for i in np.flatnonzero(frz & ~vis):
            out.append(ctx.finding("vm.frozen_not_visible", "the visibility map marks the block all-frozen"
                                   " but not all-visible", blocks[i], severity=cross))
        for i in np.flatnonzero(vis & zero):
            out.append(ctx.finding("vm.all_visible_new_page", "the visibility map marks an uninitialised (all-zero)"
                                   " page all-visible", blocks[i], severity=cross))
        for i in np.flatnonzero(vis & valid & ~pd_vis):   # VACUUM warns and clears the bit
            out.append(ctx.finding("vm.bit_without_pd_all_visible", "page is not marked all-visible but visibility map"
                                   " bit is set", blocks[i], severity=WARNING))
        for i in np.flatnonzero(pd_vis & ~vis):
            out.append(ctx.finding("vm.page_all_visible_not_in_vm", "page is marked all-visible (PD_ALL_VISIBLE) but"
                                   " its visibility map bit is clear", blocks[i], severity=WARNING))
    else:
        vis = frz = np.zeros(len(blocks), dtype=bool)
    claims = (vis & valid) | pd_vis
    if not claims.any():
        return out
    npages = len(blocks)
    # LP_DEAD items on a page that says every tuple is visible to everyone
    dead_items = items.flags == LP_DEAD
    dead_pages = np.zeros(npages, dtype=bool)
    dead_pages[items.page[dead_items]] = True
    for i in np.flatnonzero(claims & dead_pages):
        first_dead = items.lp[dead_items & (items.page == i)][0]
        code = "vm.all_visible_wrong" if vis[i] else "page.all_visible_wrong"
        out.append(ctx.finding(code, "page containing LP_DEAD items is marked as all-visible", blocks[i], first_dead,
                               severity=cross))
    # tuples that are not visible to everyone (pg_check_visible), or not frozen (pg_check_frozen)
    tpage = items.page[facts.item]
    tlp = items.lp[facts.item]
    xs, ms = facts.xmin_state, facts.xmax_state
    invisible = np.isin(xs, (ST_ABORTED, ST_IN_PROGRESS)) | np.isin(ms, (ST_COMMITTED, ST_IN_PROGRESS))
    invisible &= claims[tpage]
    for j in np.flatnonzero(invisible):
        i = tpage[j]
        why = ("its inserter aborted" if xs[j] == ST_ABORTED else "its inserter is in progress"
               if xs[j] == ST_IN_PROGRESS else "its deleter committed" if ms[j] == ST_COMMITTED
               else "its deleter is in progress")
        code = "vm.all_visible_wrong" if vis[i] else "page.all_visible_wrong"
        where = "the visibility map" if vis[i] else "PD_ALL_VISIBLE"
        out.append(ctx.finding(code, f"{where} says every tuple is visible to everyone, but {why}", blocks[i],
                               tlp[j], severity=cross))
    unfrozen = facts.needs_freeze & frz[tpage] & valid[tpage]
    for j in np.flatnonzero(unfrozen):
        out.append(ctx.finding("vm.all_frozen_wrong", "the visibility map marks the block all-frozen,"
                               " but this tuple still needs freezing", blocks[tpage[j]], tlp[j], severity=cross))
    return out


def vm_tail_findings(ctx: VerifyContext, vm_page_bytes: Callable[[int], np.ndarray | None], vm_nblocks: int,
                     heap_nblocks: int) -> list[Finding]:
    """VM bits set for heap blocks past the heap's end (truncation clears them)."""
    per_page = vm_heap_blocks_per_page(ctx.block_size)
    out = []
    for vblk in range(heap_nblocks // per_page, vm_nblocks):
        page = vm_page_bytes(vblk)
        if page is None:
            continue
        lo = max(heap_nblocks - vblk * per_page, 0)
        body = page[SIZE_OF_PAGE_HEADER:]
        idx = np.arange(lo, per_page)
        bits = (body[idx // 4] >> ((idx % 4) * 2).astype(np.uint8)) & 3
        setb = np.flatnonzero(bits != 0)
        if len(setb):
            b = vblk * per_page + int(idx[setb[0]])
            out.append(ctx.finding("vm.bits_beyond_heap_end", f"{len(setb)} heap blocks past the relation's end"
                                   f" ({heap_nblocks} blocks) have visibility map bits set (first: heap block {b})",
                                   vblk, fork="vm", severity=WARNING, actual=len(setb)))
    return out


def verify_generic_chunk(chunk: np.ndarray, first: int, ctx: VerifyContext) -> list[Finding]:
    """Checksums and header sanity only: FSM and VM forks, init forks, and access methods
    without a rule set here (hash, GiST, GIN, SP-GiST, BRIN)."""
    return check_pages(chunk, first, ctx).findings
