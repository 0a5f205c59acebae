"""GiST structure rules, offline (gistcheckpage, gist.h, gistutil.c; amcheck has no GiST check before 19).

Per page: the page rules and the special space's size (``verify_generic_chunk``), GIST_PAGE_ID, known flag
bits, line pointers (LP_NORMAL or LP_DEAD items with storage: GiST compacts its pages), each tuple's size against
its line pointer, an internal tuple's t_tid offset (0xFFFF; 0xFFFE is a pre-9.1 invalid tuple that needs a
REINDEX), a leaf tuple's heap TID offset, rightlinks within the index. Across pages (``finish``): the tree walked
from the root (block 0): downlinks to live GiST pages inside the index, each reached once, every leaf at one depth;
for box keys (box_ops, point_ops), every child key inside its downlink's key (gist_box_union made the parent's).
"""
from __future__ import annotations

import struct

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.pages import check_pages, verify_generic_chunk
from pgpage.decode import gist
from pgpage.decode.indextuple import SIZEOF_INDEX_TUPLE, data_offset, read_tid, t_info, tuple_size
from pgpage.decode.ksy.constants import (F_DELETED, F_LEAF, GIST_PAGE_ID, INDEX_NULL_MASK, INDEX_SIZE_MASK, LP_DEAD,
                                         LP_NORMAL, SIZEOF_ItemIdData, SizeOfPageHeaderData)
from pgpage.decode.ksy.type_oids import BOXOID
from pgpage.decode.page import AM_SPECIAL_SIZE
from pgpage.decode.pagebase import maxalign
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import column, decode_line_pointers
from pgpage.findings import WARNING, Finding

INVALID_BLOCK = 0xFFFFFFFF
ROOT_BLKNO = 0
TUPLE_IS_VALID, TUPLE_IS_INVALID = 0xFFFF, 0xFFFE   # an internal tuple's t_tid offset (gist_private.h)
KNOWN_FLAGS = sum(gist.FLAG_WORDS)
NEW, OTHER, LEAF, INTERNAL, DELETED = range(5)
OPAQUE = "gist_page::gist_page_opaque_data"
ITEM_POINTER = LAYOUTS["pg_page::item_pointer"]["fields"]
INDEX_T_INFO = LAYOUTS["pg_page::item_pointer"]["size"]   # IndexTupleData's t_info follows its t_tid


class GistVerifier:
    """Feed the main fork's chunks in block order, then ``finish``. ``columns``: the index's pg_attribute
    columns (the box rule needs a single box column)."""

    def __init__(self, ctx: VerifyContext, nblocks: int, columns, order_reason: str | None = None):
        self.ctx, self.nblocks = ctx, nblocks
        self.kind = np.full(nblocks, OTHER, dtype=np.uint8)
        self.downlinks: dict[int, list] = {}      # internal page -> [(item, child, key box or None)]
        self.boxes: dict[int, tuple] = {}         # page -> the union of its keys, when they are boxes
        cols = list(columns or [])
        self.box_keys = len(cols) == 1 and cols[0].typid == BOXOID
        self.max_offset = ctx.block_size // SIZEOF_ItemIdData

    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        ctx = self.ctx
        out = verify_generic_chunk(chunk, first, ctx, "gist")
        pc = check_pages(chunk, first, ctx.__class__(block_size=ctx.block_size, checksums=False))
        h = pc.headers
        size = chunk.shape[1]
        own = pc.valid & (size - h.special.astype(np.int64) == AM_SPECIAL_SIZE["gist"])
        lps = decode_line_pointers(chunk, h)
        starts = np.searchsorted(lps.page, np.arange(chunk.shape[0] + 1))
        n = max(min(chunk.shape[0], self.nblocks - first), 0)
        self.kind[first + np.flatnonzero(pc.zero[:n])] = NEW
        clean = self._clean_pages(chunk, first, own, lps, n)
        for i in np.flatnonzero(own[:n] & ~clean[:n]).tolist():     # the others page by page: their findings
            blkno = first + i
            raw = chunk[i].tobytes()
            page_id = int.from_bytes(raw[-2:], "little")
            if page_id != GIST_PAGE_ID:
                out.append(ctx.finding("gist.page.bad_page_id", f"gist_page_id 0x{page_id:04X}, expected"
                                       f" 0x{GIST_PAGE_ID:04X}", blkno, expected=GIST_PAGE_ID, actual=page_id))
                continue
            o = gist.opaque_of(raw)
            flags = o["flags"]
            if flags & ~KNOWN_FLAGS:
                out.append(ctx.finding("gist.page.bad_flags", f"flags 0x{flags:04X} has unknown bits", blkno,
                                       actual=flags))
            if flags & F_DELETED:
                self.kind[blkno] = DELETED
                continue
            leaf = bool(flags & F_LEAF)
            self.kind[blkno] = LEAF if leaf else INTERNAL
            if o["rightlink"] != INVALID_BLOCK and o["rightlink"] >= self.nblocks:
                out.append(ctx.finding("gist.sibling.out_of_range", f"rightlink {o['rightlink']} is past the"
                                       f" index's {self.nblocks} blocks", blkno, actual=o["rightlink"]))
            sl = slice(starts[i], starts[i + 1])
            out += self._items(raw, blkno, leaf, zip(lps.lp[sl].tolist(), lps.off[sl].tolist(),
                                                     lps.flags[sl].tolist(), lps.len[sl].tolist()))
        return out

    def _clean_pages(self, chunk: np.ndarray, first: int, own: np.ndarray, lps, n: int) -> np.ndarray:
        """The live GiST pages of the chunk on which no page or item rule has anything to say, found with numpy
        over all their line pointers at once, and what the rules across pages need of them (kind, downlinks, the
        union of their box keys) noted; True for those pages. The others are left to ``_items``, page by page."""
        size = chunk.shape[1]
        base = size - AM_SPECIAL_SIZE["gist"]
        col = lambda f: column(chunk, OPAQUE, f, base).astype(np.int64)  # noqa: E731
        flags, rightlink = col("flags"), col("rightlink")
        page_ok = own & (col("gist_page_id") == GIST_PAGE_ID) & (flags & ~KNOWN_FLAGS == 0) & \
            (flags & F_DELETED == 0) & ((rightlink == INVALID_BLOCK) | (rightlink < self.nblocks))
        page_ok[n:] = False
        sel = page_ok[lps.page]
        page, lp, off = lps.page[sel], lps.lp[sel], lps.off[sel].astype(np.int64)
        length, lpflags = lps.len[sel].astype(np.int64), lps.flags[sel]
        ok = np.isin(lpflags, (LP_NORMAL, LP_DEAD)) & (length >= SIZEOF_INDEX_TUPLE) & \
            (off >= SizeOfPageHeaderData) & (off + length <= base)
        at = np.where(ok, off, SizeOfPageHeaderData)
        u16 = lambda k: chunk[page, at + k].astype(np.int64) | chunk[page, at + k + 1].astype(np.int64) << 8  # noqa
        info = u16(INDEX_T_INFO)
        tsize = info & INDEX_SIZE_MASK
        ok &= (tsize + 7) // 8 == (length + 7) // 8                     # MAXALIGN of both
        posid = u16(ITEM_POINTER["ip_posid"][0])
        leaf = (flags & F_LEAF != 0)[page]
        ok &= np.where(leaf, (posid > 0) & (posid <= self.max_offset), posid == TUPLE_IS_VALID)
        boxes = None
        if self.box_keys:     # _box: four float8 at the data offset of a tuple without nulls
            has_box = ok & (info & INDEX_NULL_MASK == 0) & (SIZEOF_INDEX_TUPLE + 32 <= tsize)
            where = np.where(has_box, at + SIZEOF_INDEX_TUPLE, SizeOfPageHeaderData)
            raw = chunk[page[:, None], where[:, None] + np.arange(32)]
            boxes = np.ascontiguousarray(raw).view("<f8").reshape(-1, 4)
            ok &= ~(has_box & np.isnan(boxes).any(axis=1))             # NaN: Python's max and min decide
        clean = page_ok.copy()
        clean[np.unique(page[~ok])] = False
        pstarts = np.searchsorted(page, np.arange(len(chunk) + 1))     # (line pointers come in page order)
        bi = chunk[page, at + ITEM_POINTER["bi_hi"][0]].astype(np.int64) | \
            chunk[page, at + ITEM_POINTER["bi_hi"][0] + 1].astype(np.int64) << 8
        lo = chunk[page, at + ITEM_POINTER["bi_lo"][0]].astype(np.int64) | \
            chunk[page, at + ITEM_POINTER["bi_lo"][0] + 1].astype(np.int64) << 8
        block = bi << 16 | lo
        for i in np.flatnonzero(clean).tolist():
            blkno = first + i
            self.kind[blkno] = LEAF if flags[i] & F_LEAF else INTERNAL
            mine = np.arange(pstarts[i], pstarts[i + 1])
            if not flags[i] & F_LEAF:
                self.downlinks[blkno] = [(it, b, tuple(x) if h else None) for it, b, x, h in zip(
                    lp[mine].tolist(), block[mine].tolist(),
                    boxes[mine].tolist() if boxes is not None else [None] * len(mine),
                    has_box[mine].tolist() if boxes is not None else [False] * len(mine))]
            if boxes is not None and has_box[mine].any():
                b = boxes[mine][has_box[mine]]
                self.boxes[blkno] = (float(b[:, 0].max()), float(b[:, 1].max()), float(b[:, 2].min()),
                                     float(b[:, 3].min()))
        return clean

    def _items(self, raw: bytes, blkno: int, leaf: bool, items) -> list[Finding]:
        ctx, out = self.ctx, []
        end = len(raw) - AM_SPECIAL_SIZE["gist"]
        links = [] if leaf else self.downlinks.setdefault(blkno, [])
        union = None
        for lp, off, flags, length in items:
            if flags not in (LP_NORMAL, LP_DEAD) or length < SIZEOF_INDEX_TUPLE:
                out.append(ctx.finding("gist.item.bad_lp", f"line pointer state {flags} with lp_len {length}: GiST"
                                       " keeps LP_NORMAL or LP_DEAD items with storage only", blkno, lp,
                                       actual=[flags, length]))
                continue
            if off < SizeOfPageHeaderData or off + length > end:
                out.append(ctx.finding("gist.item.out_of_bounds", f"item {off}..{off + length} is not inside the"
                                       f" page's tuple space ..{end}", blkno, lp, actual=[off, length]))
                continue
            tup = raw[off:off + length]
            size = tuple_size(t_info(tup))
            if maxalign(size) != maxalign(length):
                out.append(ctx.finding("gist.item.size_mismatch", f"IndexTupleSize {size}, lp_len {length}", blkno,
                                       lp, expected=length, actual=size))
                continue
            block, posid = read_tid(tup, 0)
            box = self._box(tup, size)
            if box is not None:
                union = box if union is None else (max(union[0], box[0]), max(union[1], box[1]),
                                                  min(union[2], box[2]), min(union[3], box[3]))
            if leaf:
                if not 0 < posid <= self.max_offset:
                    out.append(ctx.finding("gist.item.bad_heap_tid", f"leaf tuple's heap TID ({block},{posid}) has"
                                           " no valid offset", blkno, lp, actual=posid))
                continue
            if posid == TUPLE_IS_INVALID:
                out.append(ctx.finding("gist.item.invalid_tuple", "an invalid tuple left by a crash before 9.1:"
                                       " the index needs a REINDEX", blkno, lp, severity=WARNING))
            elif posid != TUPLE_IS_VALID:
                out.append(ctx.finding("gist.item.bad_downlink_offset", f"internal tuple's t_tid offset 0x{posid:04X}"
                                       f" is not 0x{TUPLE_IS_VALID:04X}", blkno, lp, actual=posid))
            links.append((lp, block, box))
        if union is not None:
            self.boxes[blkno] = union
        return out

    def _box(self, tup: bytes, size: int):
        """The tuple's box key (high x, high y, low x, low y), when the index keys boxes and this one is not NULL."""
        info = t_info(tup)
        if not self.box_keys or info & INDEX_NULL_MASK:
            return None
        at = data_offset(info)
        return struct.unpack_from("<4d", tup, at) if at + 32 <= size else None

    def finish(self) -> list[Finding]:
        out, ctx = [], self.ctx
        if not self.nblocks or self.kind[ROOT_BLKNO] not in (LEAF, INTERNAL):
            if self.nblocks and self.kind[ROOT_BLKNO] != OTHER:
                out.append(ctx.finding("gist.tree.bad_root", "block 0, the root, is not a live GiST page",
                                       ROOT_BLKNO))
            return out
        visited = np.zeros(self.nblocks, dtype=bool)
        stack = [(ROOT_BLKNO, 0, None, None, None)]     # (block, depth, parent, item, parent's key)
        leaf_depth = None
        while stack:
            blkno, depth, parent, item, key = stack.pop()
            if visited[blkno]:
                out.append(ctx.finding("gist.tree.revisited", f"block {blkno} is reached again from block {parent}"
                                       f" item {item}", parent, item, actual=blkno))
                continue
            visited[blkno] = True
            kind = self.kind[blkno]
            if kind == LEAF:
                if leaf_depth is None:
                    leaf_depth = depth
                elif depth != leaf_depth:
                    out.append(ctx.finding("gist.tree.uneven_depth", f"leaf at depth {depth}, other leaves at"
                                           f" {leaf_depth}", blkno, expected=leaf_depth, actual=depth))
            child_box = self.boxes.get(blkno)
            if key is not None and child_box is not None and not _contains(key, child_box):
                out.append(ctx.finding("gist.key.not_contained", f"the keys of block {blkno} are not inside its"
                                       f" downlink's box in block {parent} item {item}", parent, item, actual=blkno))
            for lp, child, box in reversed(self.downlinks.get(blkno, [])):
                if not 0 <= child < self.nblocks:
                    out.append(ctx.finding("gist.downlink.out_of_range", f"downlink to block {child}, past the"
                                           f" index's {self.nblocks} blocks", blkno, lp, actual=child))
                elif self.kind[child] not in (LEAF, INTERNAL):
                    what = {NEW: "a new (all-zero) page", DELETED: "a deleted page"}.get(int(self.kind[child]),
                                                                                        "not a GiST page")
                    out.append(ctx.finding("gist.downlink.bad_child", f"downlink to block {child}, {what}", blkno, lp,
                                           actual=child))
                else:
                    stack.append((child, depth + 1, blkno, lp, box))
        return sorted(out, key=lambda f: (f.block if f.block is not None else -1, f.item or 0))


def _contains(outer: tuple, inner: tuple) -> bool:
    """box_contain: (high x, high y, low x, low y) of ``inner`` within ``outer``'s."""
    return outer[0] >= inner[0] and outer[1] >= inner[1] and outer[2] <= inner[2] and outer[3] <= inner[3]
