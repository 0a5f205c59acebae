"""The rules every page of every fork obeys (``PageIsVerifiedExtended``'s): the checksum when data
checksums are on, a sane page header, an all-zero page for a new one. The same codes as ``pgpage page``
uses for one page."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.checksum import checksum_pages
from pgpage.decode.flags import PD_VALID_FLAG_BITS
from pgpage.decode.page import AM_SPECIAL_SIZE as SPECIAL_SIZE, bad_special_size
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, PageHeaders, decode_headers
from pgpage.findings import ERROR, WARNING, Finding

MAXALIGN = 8
PG_PAGE_LAYOUT_VERSION = 4


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
    zero = np.zeros(n, dtype=bool)   # all-zero pages: only a page with pd_upper 0 can be one (no pass over the rest)
    maybe = np.flatnonzero(h.upper == 0)
    zero[maybe] = ~chunk[maybe].any(axis=1)
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


# the access methods whose own page check demands their special space's size of every page of the main fork
# (_hash_checkpage, gistcheckpage); B-trees' is checked in verify/btree.py, heaps' in verify/heap.py; GIN,
# SP-GiST and BRIN read theirs unchecked
AM_SPECIAL_SIZE = {am: SPECIAL_SIZE[am] for am in ("hash", "gist")}


def verify_generic_chunk(chunk: np.ndarray, first: int, ctx: VerifyContext, am: str | None = None) -> list[Finding]:
    """Checksums and header sanity: FSM and VM forks, init forks, and access methods without a rule set
    here (hash, GiST, GIN, SP-GiST, BRIN); for hash and GiST (``am``, main fork) the special space's size."""
    return generic_findings(check_pages(chunk, first, ctx), chunk, first, ctx, am)


def generic_findings(pc: PageCheck, chunk: np.ndarray, first: int, ctx: VerifyContext, am: str | None) -> list[Finding]:
    """``verify_generic_chunk``'s findings from the chunk's ``check_pages`` (a verifier that needs its headers
    too checks the pages once)."""
    want = AM_SPECIAL_SIZE.get(am) if ctx.fork == "main" else None
    if want is None:
        return pc.findings
    size = chunk.shape[1]
    special = size - pc.headers.special.astype(np.int64)
    found = list(pc.findings)
    for i in np.flatnonzero(pc.valid & (special != want)):
        found.append(ctx.finding(f"{am}.page.bad_special_size", bad_special_size(am, first + i, special[i]),
                                 first + int(i), expected=size - want, actual=int(pc.headers.special[i])))
    return sorted(found, key=lambda f: f.block)


def checksum_votes(chunk: np.ndarray, first: int) -> tuple[int, int, int]:
    """(pages whose stored checksum verifies, pages that carry a non-zero one, pages that are not new) of a
    chunk: how a file whose cluster is unknown shows whether data checksums were on (``checksums_decided``)."""
    h = decode_headers(chunk)
    old = (h.upper != 0) & chunk.any(axis=1)        # PageIsNew pages carry no checksum
    ok = old & (checksum_pages(chunk, first) == h.checksum)
    return int(ok.sum()), int((old & (h.checksum != 0)).sum()), int(old.sum())


def checksums_decided(verified: int, carrying: int, pages: int) -> tuple[bool | None, str]:
    """(data checksums on, off or unknown; the rule that decided) from ``checksum_votes`` over a whole file: on
    when a majority of its pages that are not new, and at least 2, carry a checksum that verifies (then a
    mismatch is an error, as with pg_control saying so); off when none carries one (pd_checksum stays 0 with
    checksums off); else unknown (a mismatch is a warning)."""
    if verified >= 2 and 2 * verified > pages:
        return True, f"on ({verified} of {pages} pages verify)"
    if pages and not carrying:
        return None, f"off/unknown (none of {pages} pages carries a checksum)"
    return None, f"off/unknown ({verified} of {pages} pages verify)"
