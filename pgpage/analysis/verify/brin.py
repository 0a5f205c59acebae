"""A BRIN index's structure checked offline: the metapage, the revmap pages, and every revmap entry pointing at
a summary tuple of the range it stands for.

Pages arrive a chunk at a time (``feed``: the revmap entries and each regular page's tuples reduced to integer
arrays with numpy, offsets from the layout); ``finish`` joins them. Rules (src/backend/access/brin/README,
brin_revmap.c):
- block 0 is the metapage (BRIN_PAGETYPE_META, BRIN_META_MAGIC, version 1), blocks 1..lastRevmapPage are
  revmap pages, the later ones regular pages (or new);
- entry i of revmap page p (counting from block 1) stands for heap range r = (p - 1) * REVMAP_PAGE_MAXITEMS + i
  starting at heap block r * pagesPerRange; a non-zero entry names a regular page and a used item on it whose
  BRIN tuple's bt_blkno is that heap block;
- every summary tuple is named by exactly one entry (a tuple no entry names is left over: a warning).
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.ksy.constants import (BRIN_CURRENT_VERSION, BRIN_META_MAGIC, BRIN_PAGETYPE_META,
                                         BRIN_PAGETYPE_REGULAR, BRIN_PAGETYPE_REVMAP, LP_NORMAL, SIZEOF_BrinTuple,
                                         SizeOfPageHeaderData)
from pgpage.decode.pagebase import maxalign
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import column, decode_headers, decode_line_pointers, u4_at
from pgpage.findings import WARNING, Finding

META = "brin_page::brin_meta_page_data"
SPECIAL = "brin_page::brin_special_space"
SPECIAL_SIZE = LAYOUTS[SPECIAL]["size"]
CONTENTS = maxalign(SizeOfPageHeaderData)     # PageGetContents
TID = LAYOUTS["pg_page::item_pointer"]["size"]


class BrinVerifier:
    def __init__(self, ctx: VerifyContext, nblocks: int):
        self.ctx, self.nblocks = ctx, nblocks
        self.meta: dict | None = None
        self.revmap_items = 0    # REVMAP_PAGE_MAXITEMS, from the block size
        self.page_type = np.zeros(nblocks, dtype=np.int64)    # 0: new or not a BRIN page
        self.maxoff = np.zeros(nblocks, dtype=np.int64)
        self.entries: list[np.ndarray] = []     # (revmap block, entry, block, offset) of non-zero entries
        self.tuples: list[np.ndarray] = []      # (block, offset, bt_blkno) of the used items of regular pages

    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        bs = chunk.shape[1]
        self.revmap_items = (bs - CONTENTS - SPECIAL_SIZE) // TID
        h = decode_headers(chunk)
        ptype = column(chunk, SPECIAL, "type", bs - SPECIAL_SIZE).astype(np.int64)
        ok = ~h.is_new & (bs - h.special.astype(np.int64) == SPECIAL_SIZE)
        blocks = first + np.arange(chunk.shape[0])
        k = min(len(blocks), self.nblocks - first)
        self.page_type[first:first + k] = np.where(ok, ptype, 0)[:k]
        self.maxoff[first:first + k] = h.nlp[:k]
        if first == 0 and ok[0] and ptype[0] == BRIN_PAGETYPE_META:
            m = {f: int(column(chunk[:1], META, f, CONTENTS)[0]) for f in
                 ("brin_magic", "brin_version", "pages_per_range", "last_revmap_page")}
            self.meta = m
        revmap = np.flatnonzero(ok & (ptype == BRIN_PAGETYPE_REVMAP))
        if len(revmap):
            n = self.revmap_items
            words = np.ascontiguousarray(chunk[revmap, CONTENTS:CONTENTS + n * TID]).view("<u2").reshape(
                len(revmap), n, 3).astype(np.int64)
            blk = (words[:, :, 0] << 16) | words[:, :, 1]
            off = words[:, :, 2]
            page, idx = np.nonzero((blk != 0) | (off != 0))
            self.entries.append(np.stack([blocks[revmap[page]], idx, blk[page, idx], off[page, idx]], axis=1))
        regular = ok & (ptype == BRIN_PAGETYPE_REGULAR)
        if regular.any():
            lps = decode_line_pointers(chunk, h)
            keep = regular[lps.page] & (lps.flags == LP_NORMAL) & (lps.len >= SIZEOF_BrinTuple) & (lps.off + SIZEOF_BrinTuple <= bs)
            page, lp, off = lps.page[keep], lps.lp[keep], lps.off[keep]
            bt_blkno = u4_at(chunk.reshape(-1), page * bs + off)   # BrinTuple.bt_blkno, the tuple's first field
            self.tuples.append(np.stack([blocks[page], lp, bt_blkno], axis=1))
        return []

    def finish(self) -> list[Finding]:
        ctx, m, n = self.ctx, self.meta, self.nblocks
        if n == 0:
            return []
        if m is None or m["brin_magic"] != BRIN_META_MAGIC:
            return [ctx.finding("brin.meta.missing", "block 0 is not a BRIN metapage (BRIN_PAGETYPE_META,"
                                " BRIN_META_MAGIC): the revmap cannot be found", 0)]
        out = []
        if m["brin_version"] != BRIN_CURRENT_VERSION:
            out.append(ctx.finding("brin.meta.bad_version", f"BRIN metapage version {m['brin_version']}, expected"
                                   f" {BRIN_CURRENT_VERSION}", 0, expected=BRIN_CURRENT_VERSION,
                                   actual=m["brin_version"]))
        last, ppr = m["last_revmap_page"], m["pages_per_range"]
        if ppr < 1 or not 1 <= last < n:
            return out + [ctx.finding("brin.meta.bad_revmap", f"pagesPerRange {ppr}, lastRevmapPage {last} (of {n}"
                                      " blocks): the revmap cannot be read", 0, actual=last)]
        for blk in np.flatnonzero(self.page_type[1:last + 1] != BRIN_PAGETYPE_REVMAP) + 1:
            out.append(ctx.finding("brin.revmap.not_revmap", f"block {blk} is within the revmap (1..{last}) but is not"
                                   " a revmap page", int(blk)))
        entries = np.concatenate(self.entries) if self.entries else np.zeros((0, 4), dtype=np.int64)
        tuples = np.concatenate(self.tuples) if self.tuples else np.zeros((0, 3), dtype=np.int64)
        per_page = self.revmap_items
        tuple_at = {(int(b), int(o)): int(s) for b, o, s in tuples}
        named: dict[tuple[int, int], int] = {}
        for rblk, idx, blk, off in entries.tolist():
            rng = (rblk - 1) * per_page + idx
            where = dict(block=rblk, item=idx + 1)
            if not 0 < blk < n or self.page_type[blk] != BRIN_PAGETYPE_REGULAR or not 0 < off <= self.maxoff[blk]:
                out.append(ctx.finding("brin.revmap.bad_pointer", f"revmap entry {idx} (range {rng}, heap block"
                                       f" {rng * ppr}) points at ({blk},{off}), not an item of a regular page",
                                       **where, actual=f"({blk},{off})"))
                continue
            if (blk, off) not in tuple_at:
                out.append(ctx.finding("brin.revmap.bad_pointer", f"revmap entry {idx} (range {rng}) points at"
                                       f" ({blk},{off}), an unused or unreadable item", **where, actual=f"({blk},{off})"))
                continue
            if (blk, off) in named:
                out.append(ctx.finding("brin.revmap.duplicate", f"revmap entries for ranges {named[(blk, off)]} and"
                                       f" {rng} both point at ({blk},{off})", **where))
            named[(blk, off)] = rng
            if tuple_at[(blk, off)] != rng * ppr:
                out.append(ctx.finding("brin.revmap.wrong_range", f"revmap entry {idx} is for heap block {rng * ppr}"
                                       f" but the summary at ({blk},{off}) is for heap block {tuple_at[(blk, off)]}",
                                       blk, off, expected=rng * ppr, actual=tuple_at[(blk, off)]))
        for (blk, off), start in tuple_at.items():
            if (blk, off) not in named:
                out.append(ctx.finding("brin.item.orphan", f"the summary of heap block {start} at ({blk},{off}) is"
                                       " named by no revmap entry", blk, off, severity=WARNING))
        return sorted(out, key=lambda f: (f.block if f.block is not None else -1, f.item or 0))

    def summary(self) -> dict:
        """Pages by kind and the revmap's coverage (for `pgpage index`)."""
        names = {BRIN_PAGETYPE_META: "meta", BRIN_PAGETYPE_REVMAP: "revmap", BRIN_PAGETYPE_REGULAR: "regular"}
        kinds = {name: int((self.page_type == t).sum()) for t, name in names.items()}
        kinds["new_or_other"] = int(self.nblocks - sum(kinds.values()))
        tuples = np.concatenate(self.tuples) if self.tuples else np.zeros((0, 3), dtype=np.int64)
        entries = sum(len(e) for e in self.entries)
        return {"pages": kinds, "summarized_ranges": entries, "summary_tuples": int(len(tuples))}
