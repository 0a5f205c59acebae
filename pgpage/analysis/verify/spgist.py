"""SP-GiST structure rules, offline (spgist_private.h, spgutils.c, spgvacuum.c; amcheck has no SP-GiST check).

Per page: the page rules (``check_pages``), the special space's size and SPGIST_PAGE_ID, known flag bits, the
metapage's magic at block 0, line pointers (LP_NORMAL with storage: SP-GiST keeps placeholders instead of freeing
line pointers), nRedirection and nPlaceholder against the tuples in those states, a leaf's chain link (nextOffset)
to an item of its page, an inner tuple's nodes filling the tuple exactly, redirections inside the index. Across
pages (``finish``): every node's downlink names an existing item of a page of the same tree (nulls or not), a
redirect's target too.
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.pages import check_pages
from pgpage.decode import spgist
from pgpage.decode.indextuple import read_tid, t_info, tuple_size
from pgpage.decode.ksy.constants import (LP_NORMAL, SGLT_NEXTOFFSET_MASK, SPGIST_LEAF, SPGIST_MAGIC_NUMBER,
                                         SPGIST_META, SPGIST_NULLS, SPGIST_PAGE_ID, SIZEOF_SpGistDeadTupleData,
                                         SIZEOF_SpGistLeafTupleData, SizeOfPageHeaderData)
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.page import AM_SPECIAL_SIZE, bad_special_size
from pgpage.decode.vector import column, line_pointers_of
from pgpage.findings import Finding

INVALID_BLOCK = 0xFFFFFFFF
META_BLKNO = 0
KNOWN_FLAGS = sum(spgist.FLAG_WORDS)
STATE = {name: value for value, name in spgist.STATES.items()}
OPAQUE = "spgist_page::spgist_page_opaque_data"
LEAF, DEAD = spgist.LEAF, spgist.DEAD
ITEM_POINTER = LAYOUTS["pg_page::item_pointer"]["fields"]


class SpgistVerifier:
    """Feed the main fork's chunks in block order, then ``finish``."""

    def __init__(self, ctx: VerifyContext, nblocks: int, columns=None, order_reason: str | None = None):
        self.ctx, self.nblocks = ctx, nblocks
        self.flags = np.full(nblocks, -1, dtype=np.int32)        # -1: not an SP-GiST page (or new)
        self.nitems = np.zeros(nblocks, dtype=np.int32)
        self.links: list[tuple[int, int, int, int, bool]] = []   # (block, item, target block, offset, to redirect)

    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        ctx = self.ctx
        pc = check_pages(chunk, first, ctx)
        out = list(pc.findings)
        h = pc.headers
        size = chunk.shape[1]
        n = max(min(chunk.shape[0], self.nblocks - first), 0)
        clean = self._clean_leaves(chunk, first, pc.valid, h, n) | self._clean_inner(chunk, first, pc.valid, h, n)
        rest = np.flatnonzero(pc.valid[:n] & ~clean[:n])
        lps = line_pointers_of(chunk, h, rest)
        starts = np.searchsorted(lps.page, np.arange(len(rest) + 1))
        for k, i in enumerate(rest.tolist()):   # the others page by page: their findings
            blkno = first + i
            special = size - int(h.special[i])
            if special != AM_SPECIAL_SIZE["spgist"]:
                out.append(ctx.finding("spgist.page.bad_special_size", bad_special_size("spgist", blkno, special),
                                       blkno, expected=size - AM_SPECIAL_SIZE["spgist"], actual=int(h.special[i])))
                continue
            raw = chunk[i].tobytes()
            o = spgist.opaque_of(raw)
            if o["spgist_page_id"] != SPGIST_PAGE_ID:
                out.append(ctx.finding("spgist.page.bad_page_id", f"spgist_page_id 0x{o['spgist_page_id']:04X},"
                                       f" expected 0x{SPGIST_PAGE_ID:04X}", blkno, expected=SPGIST_PAGE_ID,
                                       actual=o["spgist_page_id"]))
                continue
            flags = o["flags"]
            if flags & ~KNOWN_FLAGS:
                out.append(ctx.finding("spgist.page.bad_flags", f"flags 0x{flags:04X} has unknown bits", blkno,
                                       actual=flags))
            self.flags[blkno] = flags
            if (blkno == META_BLKNO) != bool(flags & SPGIST_META):
                out.append(ctx.finding("spgist.meta.misplaced", f"block {blkno} is {'not ' if blkno == 0 else ''}"
                                       "flagged SPGIST_META; the metapage is block 0", blkno, actual=flags))
            if flags & SPGIST_META:
                magic = spgist.metapage_info(raw)["magic_number"]
                if magic != SPGIST_MAGIC_NUMBER:
                    out.append(ctx.finding("spgist.meta.bad_magic", f"metapage magic 0x{magic:08X}, expected"
                                           f" 0x{SPGIST_MAGIC_NUMBER:08X}", blkno, expected=SPGIST_MAGIC_NUMBER,
                                           actual=magic))
                continue
            sl = slice(starts[k], starts[k + 1])
            self.nitems[blkno] = starts[k + 1] - starts[k]
            out += self._items(raw, blkno, flags, o, zip(lps.lp[sl].tolist(), lps.off[sl].tolist(),
                                                         lps.flags[sl].tolist(), lps.len[sl].tolist()))
        return out

    def _clean_leaves(self, chunk: np.ndarray, first: int, valid: np.ndarray, h, n: int) -> np.ndarray:
        """The leaf pages of the chunk on which no page or item rule has anything to say (the compiled sieve,
        decode/_amindex.c), and what the rules across pages need of them (flags, item count, redirects) noted; True
        for those pages. The others are read page by page."""
        return self._sieved(chunk, first, valid, h, n, "leaf")

    def _clean_inner(self, chunk: np.ndarray, first: int, valid: np.ndarray, h, n: int) -> np.ndarray:
        """``_clean_leaves`` of the inner pages (their nodes' downlinks noted)."""
        return self._sieved(chunk, first, valid, h, n, "inner")

    def _sieved(self, chunk: np.ndarray, first: int, valid: np.ndarray, h, n: int, kind: str) -> np.ndarray:
        from pgpage.decode.clib import KernelUnavailable
        from pgpage.decode.kernels import SIEVE_CHECK, verify_spgist_sieve
        size = chunk.shape[1]
        base = size - AM_SPECIAL_SIZE["spgist"]
        col = lambda f: column(chunk, OPAQUE, f, base).astype(np.int64)  # noqa: E731
        flags = col("flags")
        blocks = first + np.arange(len(chunk))
        page_ok = valid & (size - h.special.astype(np.int64) == AM_SPECIAL_SIZE["spgist"]) & \
            (col("spgist_page_id") == SPGIST_PAGE_ID) & (flags & ~KNOWN_FLAGS == 0) & \
            ((flags & SPGIST_LEAF != 0) == (kind == "leaf")) & (flags & SPGIST_META == 0) & (blocks != META_BLKNO)
        page_ok[n:] = False
        if not page_ok.any():
            return page_ok
        try:
            clean, links = verify_spgist_sieve(np.ascontiguousarray(chunk), page_ok * SIEVE_CHECK[kind], h.nlp,
                                               np.column_stack([col("n_redirection"), col("n_placeholder")]),
                                               self._sieve_params(base))
        except KernelUnavailable:       # no C compiler: every page item by item
            return np.zeros(len(chunk), dtype=bool)
        idx = np.flatnonzero(clean)
        self.flags[blocks[idx]] = flags[idx]
        self.nitems[blocks[idx]] = h.nlp[idx]
        self.links += zip((first + links[:, 0]).tolist(), links[:, 1].tolist(), links[:, 2].tolist(),
                          links[:, 3].tolist(), (links[:, 4] == 1).tolist())
        return clean

    def _sieve_params(self, base: int) -> list[int]:
        """pgp_verify_spgist_sieve's SG_ parameters, from the layouts."""
        (_, (_, st_shift, st_width)), (_, (_, nn_shift, nn_width)), (_, (_, pf_shift, pf_width)) = (
            spgist.INNER[f] for f in ("tupstate", "n_nodes", "prefix_size"))
        new_format = self.ctx.major is None or self.ctx.major >= spgist.LEAF_NULLS_SINCE
        return [base, st_shift, (1 << st_width) - 1, nn_shift,
                (1 << nn_width) - 1, pf_shift, (1 << pf_width) - 1, spgist.SGITHDRSZ, LEAF["t_info"][0],
                SGLT_NEXTOFFSET_MASK if new_format else 0xFFFF, DEAD["pointer"][0], INVALID_BLOCK]

    def _items(self, raw: bytes, blkno: int, flags: int, o: dict, items) -> list[Finding]:
        ctx, out = self.ctx, []
        end = len(raw) - AM_SPECIAL_SIZE["spgist"]
        leaf = bool(flags & SPGIST_LEAF)
        counts = {name: 0 for name in STATE}
        items = list(items)
        for lp, off, lpflags, length in items:
            if lpflags != LP_NORMAL or length < 4:
                out.append(ctx.finding("spgist.item.bad_lp", f"line pointer state {lpflags} with lp_len {length}:"
                                       " SP-GiST keeps LP_NORMAL items with storage only", blkno, lp,
                                       actual=[lpflags, length]))
                continue
            if off < SizeOfPageHeaderData or off + length > end:
                out.append(ctx.finding("spgist.item.out_of_bounds", f"item {off}..{off + length} is not inside the"
                                       f" page's tuple space ..{end}", blkno, lp, actual=[off, length]))
                continue
            tup = raw[off:off + length]
            word = int.from_bytes(tup[:4], "little")
            state = spgist.STATES[spgist._bits(word, spgist.INNER, "tupstate")]
            counts[state] += 1
            if state != "live":
                if length < SIZEOF_SpGistDeadTupleData:
                    out.append(ctx.finding("spgist.item.too_short", f"a {state} tuple of {length} bytes", blkno, lp,
                                           expected=SIZEOF_SpGistDeadTupleData, actual=length))
                elif state == "redirect":
                    block, offset = read_tid(tup, spgist.DEAD["pointer"][0])
                    self.links.append((blkno, lp, block, offset, True))
                continue
            if leaf:
                if length < SIZEOF_SpGistLeafTupleData:
                    out.append(ctx.finding("spgist.item.too_short", f"a leaf tuple of {length} bytes", blkno, lp,
                                           expected=SIZEOF_SpGistLeafTupleData, actual=length))
                    continue
                row = spgist.leaf_tuple(tup, (), self.ctx.major, True)
                nxt = row["next_offset"]
                if nxt > len(items) or nxt == lp:
                    out.append(ctx.finding("spgist.leaf.bad_next", f"nextOffset {nxt} is not another item of this"
                                           f" page (1..{len(items)})", blkno, lp, actual=nxt))
                continue
            out += self._inner(tup, blkno, lp)
        for name, field, c_name, code in (("redirect", "n_redirection", "nRedirection", "spgist.page.redirect_count"),
                                          ("placeholder", "n_placeholder", "nPlaceholder",
                                           "spgist.page.placeholder_count")):
            if counts[name] != o[field]:
                out.append(ctx.finding(code, f"{counts[name]} {name} tuples, the page's {c_name} says {o[field]}",
                                       blkno, expected=o[field], actual=counts[name]))
        return out

    def _inner(self, tup: bytes, blkno: int, lp: int) -> list[Finding]:
        row = spgist.inner_tuple(tup, None, self.ctx.major)
        if row.get("error"):
            return [self.ctx.finding("spgist.inner.bad_nodes", row["error"], blkno, lp)]
        at = spgist.SGITHDRSZ + row["prefix_size"] + sum(n["size"] for n in row["nodes"])
        out = []
        if at != len(tup):
            out.append(self.ctx.finding("spgist.inner.bad_size", f"prefix and nodes take {at} bytes, the tuple"
                                        f" {len(tup)}", blkno, lp, expected=len(tup), actual=at))
        pos = spgist.SGITHDRSZ + row["prefix_size"]
        for n in row["nodes"]:
            block, offset = read_tid(tup, pos)
            pos += tuple_size(t_info(tup, pos))
            if block != INVALID_BLOCK:
                self.links.append((blkno, lp, block, offset, False))
        return out

    def finish(self) -> list[Finding]:
        """Each link's target judged with numpy; the links that break a rule, in page and item order (the order
        the pages' own reading gives), said one by one."""
        out, ctx = [], self.ctx
        if not self.links:
            return out
        links = np.array(self.links, dtype=np.int64)
        links = links[np.lexsort((links[:, 1], links[:, 0]))]
        blkno, block, offset = links[:, 0], links[:, 2], links[:, 3]
        inside = (block >= 0) & (block < self.nblocks)
        target = np.where(inside, block, 0)
        flags = np.where(inside, self.flags[target], -1)
        nulls = flags & SPGIST_NULLS != 0
        broken = (flags < 0) | (flags & SPGIST_META != 0) | ~((offset > 0) & (offset <= self.nitems[target])) | \
            (nulls != (self.flags[blkno] & SPGIST_NULLS != 0))
        for blkno, lp, block, offset, redirect in links[broken].tolist():
            what = "redirect" if redirect else "downlink"
            code = "spgist.redirect.bad_target" if redirect else "spgist.downlink.bad_target"
            if not 0 <= block < self.nblocks or self.flags[block] < 0 or self.flags[block] & SPGIST_META:
                out.append(ctx.finding(code, f"{what} to ({block},{offset}), not an SP-GiST"
                                       " tree page of this index", blkno, lp, actual=[block, offset]))
            elif not 0 < offset <= self.nitems[block]:
                out.append(ctx.finding(code, f"{what} to ({block},{offset}): the page has"
                                       f" {self.nitems[block]} items", blkno, lp, actual=[block, offset]))
            elif bool(self.flags[block] & SPGIST_NULLS) != bool(self.flags[blkno] & SPGIST_NULLS):
                out.append(ctx.finding("spgist.downlink.nulls_mismatch", f"{what} to ({block},{offset}) crosses"
                                       " between the nulls tree and the other", blkno, lp, actual=[block, offset]))
        return out
