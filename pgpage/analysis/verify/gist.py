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
from pgpage.analysis.verify.pages import check_pages, generic_findings
from pgpage.decode import gist
from pgpage.decode.indextuple import SIZEOF_INDEX_TUPLE, data_offset, read_tid, t_info, tuple_size
from pgpage.decode.ksy.constants import (F_DELETED, F_LEAF, GIST_PAGE_ID, INDEX_NULL_MASK, INDEX_SIZE_MASK, LP_DEAD,
                                         LP_NORMAL, SIZEOF_ItemIdData, SizeOfPageHeaderData)
from pgpage.decode.ksy.type_oids import BOXOID
from pgpage.decode.page import AM_SPECIAL_SIZE
from pgpage.decode.pagebase import maxalign
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import column, line_pointers_of
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
        # the downlinks of the pages the sieve passed, as arrays (parent, item, child, key box, has a box) per
        # chunk; those of the pages read item by item (``_items``): internal page -> [(item, child, box or None)]
        self.link_arrays: list[tuple] = []
        self.downlinks: dict[int, list] = {}
        self.union = np.zeros((nblocks, 4))       # page -> the union of its keys, where they are boxes
        self.has_union = np.zeros(nblocks, dtype=bool)
        cols = list(columns or [])
        self.box_keys = len(cols) == 1 and cols[0].typid == BOXOID
        self.max_offset = ctx.block_size // SIZEOF_ItemIdData

    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        ctx = self.ctx
        pc = check_pages(chunk, first, ctx)
        out = generic_findings(pc, chunk, first, ctx, "gist")
        h = pc.headers
        size = chunk.shape[1]
        own = pc.valid & (size - h.special.astype(np.int64) == AM_SPECIAL_SIZE["gist"])
        n = max(min(chunk.shape[0], self.nblocks - first), 0)
        self.kind[first + np.flatnonzero(pc.zero[:n])] = NEW
        clean = self._clean_pages(chunk, first, own, h, n)
        rest = np.flatnonzero(own[:n] & ~clean[:n])
        lps = line_pointers_of(chunk, h, rest)
        starts = np.searchsorted(lps.page, np.arange(len(rest) + 1))
        for k, i in enumerate(rest.tolist()):     # the others page by page: their findings
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
            sl = slice(starts[k], starts[k + 1])
            out += self._items(raw, blkno, leaf, zip(lps.lp[sl].tolist(), lps.off[sl].tolist(),
                                                     lps.flags[sl].tolist(), lps.len[sl].tolist()))
        return out

    def _clean_pages(self, chunk: np.ndarray, first: int, own: np.ndarray, h, n: int) -> np.ndarray:
        """The live GiST pages of the chunk on which no page or item rule has anything to say, found by the compiled
        sieve (decode/_amindex.c), and what the rules across pages need of them (kind, downlinks, the union of their
        box keys) noted; True for those pages. The others are left to ``_items``, page by page."""
        from pgpage.decode.clib import KernelUnavailable
        from pgpage.decode.kernels import SIEVE_CHECK, verify_gist_sieve
        size = chunk.shape[1]
        base = size - AM_SPECIAL_SIZE["gist"]
        col = lambda f: column(chunk, OPAQUE, f, base).astype(np.int64)  # noqa: E731
        flags, rightlink = col("flags"), col("rightlink")
        page_ok = own & (col("gist_page_id") == GIST_PAGE_ID) & (flags & ~KNOWN_FLAGS == 0) & \
            (flags & F_DELETED == 0) & ((rightlink == INVALID_BLOCK) | (rightlink < self.nblocks))
        page_ok[n:] = False
        leaf = flags & F_LEAF != 0
        check = np.where(page_ok, np.where(leaf, SIEVE_CHECK["leaf"], SIEVE_CHECK["inner"]), 0)
        try:
            clean, unions, has_union = verify_gist_sieve(np.ascontiguousarray(chunk), check, h.nlp, [
                base, self.max_offset, int(self.box_keys), TUPLE_IS_VALID])
        except KernelUnavailable:       # no C compiler: every page item by item
            return np.zeros(len(chunk), dtype=bool)
        idx = np.flatnonzero(clean)
        self.kind[first + idx] = np.where(leaf[idx], LEAF, INTERNAL)
        boxed = np.flatnonzero(has_union)
        self.union[first + boxed], self.has_union[first + boxed] = unions[boxed], True
        inner = np.flatnonzero(clean & ~leaf)
        if len(inner):
            self._downlinks(chunk, first, inner, h)
        return clean

    def _downlinks(self, chunk: np.ndarray, first: int, pages: np.ndarray, h) -> None:
        """The downlinks (item, child, key box or None) of the chunk's internal ``pages`` (their indexes) the sieve
        passed (every tuple in bounds, of its size), read with numpy over their line pointers."""
        lps = line_pointers_of(chunk, h, pages)
        page, lp, at = pages[lps.page], lps.lp, lps.off.astype(np.int64)
        u16 = lambda k: chunk[page, at + k].astype(np.int64) | chunk[page, at + k + 1].astype(np.int64) << 8  # noqa
        block = u16(ITEM_POINTER["bi_hi"][0]) << 16 | u16(ITEM_POINTER["bi_lo"][0])
        boxes, has_box = np.zeros((len(page), 4)), np.zeros(len(page), dtype=bool)
        if self.box_keys:     # _box: four float8 at the data offset of a tuple without nulls
            info = u16(INDEX_T_INFO)
            has_box = (info & INDEX_NULL_MASK == 0) & (SIZEOF_INDEX_TUPLE + 32 <= info & INDEX_SIZE_MASK)
            where = np.where(has_box, at + SIZEOF_INDEX_TUPLE, SizeOfPageHeaderData)
            raw = chunk[page[:, None], where[:, None] + np.arange(32)]
            boxes = np.ascontiguousarray(raw).view("<f8").reshape(-1, 4)
        self.link_arrays.append((first + page, lp.astype(np.int64), block, boxes, has_box))

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
            self.union[blkno], self.has_union[blkno] = union, True
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
        links = self.links()
        if not self.downlinks and (links is None or self._tree_sound(*links)):
            return out
        return self._walk(links)

    def links(self) -> tuple | None:
        """The sieved pages' downlinks: (parent, item, child, key box, has a box) arrays, or None."""
        return tuple(np.concatenate(a) for a in zip(*self.link_arrays)) if self.link_arrays else None

    def _tree_sound(self, parent, item, child, box, has_box) -> bool:
        """Whether ``_walk`` would find nothing, level by level with numpy: from the root, every downlink to a live
        page inside the index, no page reached twice, every leaf at one depth, every child's keys inside its
        downlink's box. ``parent`` ascends (the pages were fed in block order)."""
        n, kind = self.nblocks, self.kind
        starts, ends = np.searchsorted(parent, np.arange(n)), np.searchsorted(parent, np.arange(n), side="right")
        seen = np.zeros(n, dtype=bool)
        level, depth, leaf_depths = np.array([ROOT_BLKNO]), 0, set()
        while len(level):
            if seen[level].any() or len(np.unique(level)) != len(level):
                return False
            seen[level] = True
            if (kind[level] == LEAF).any():
                leaf_depths.add(depth)
            counts = ends[level] - starts[level]
            links = np.repeat(starts[level] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
            kids = child[links]
            if ((kids < 0) | (kids >= n)).any() or not np.isin(kind[kids], (LEAF, INTERNAL)).all():
                return False
            keyed = has_box[links] & self.has_union[kids]
            outer, inner = box[links][keyed], self.union[kids[keyed]]
            if not ((outer[:, :2] >= inner[:, :2]).all() and (outer[:, 2:] <= inner[:, 2:]).all()):
                return False
            level, depth = kids, depth + 1
        return len(leaf_depths) <= 1

    def facts(self, links) -> tuple[dict, dict]:
        """What the walk reads: internal page -> [(item, child, key box or None)], and page -> union of its boxes."""
        downlinks = dict(self.downlinks)
        if links is not None:
            parent, item, child, box, has_box = links
            rows = [(it, c, tuple(b) if hb else None) for it, c, b, hb in zip(item.tolist(), child.tolist(),
                                                                            box.tolist(), has_box.tolist())]
            starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]]).tolist() + [len(parent)]
            for a, b in zip(starts[:-1], starts[1:]):
                downlinks[int(parent[a])] = rows[a:b]
        boxed = np.flatnonzero(self.has_union)
        return downlinks, dict(zip(boxed.tolist(), map(tuple, self.union[boxed].tolist())))

    def _walk(self, links) -> list[Finding]:
        """The tree walked from the root page by page, each rule's findings where it fails."""
        out, ctx = [], self.ctx
        downlinks, boxes = self.facts(links)
        visited = bytearray(self.nblocks)
        kinds = self.kind.tolist()   # (plain lists: a walk of scalars)
        stack = [(ROOT_BLKNO, 0, None, None, None)]     # (block, depth, parent, item, parent's key)
        leaf_depth = None
        while stack:
            blkno, depth, parent, item, key = stack.pop()
            if visited[blkno]:
                out.append(ctx.finding("gist.tree.revisited", f"block {blkno} is reached again from block {parent}"
                                       f" item {item}", parent, item, actual=blkno))
                continue
            visited[blkno] = 1
            kind = kinds[blkno]
            if kind == LEAF:
                if leaf_depth is None:
                    leaf_depth = depth
                elif depth != leaf_depth:
                    out.append(ctx.finding("gist.tree.uneven_depth", f"leaf at depth {depth}, other leaves at"
                                           f" {leaf_depth}", blkno, expected=leaf_depth, actual=depth))
            child_box = boxes.get(blkno)
            if key is not None and child_box is not None and not _contains(key, child_box):
                out.append(ctx.finding("gist.key.not_contained", f"the keys of block {blkno} are not inside its"
                                       f" downlink's box in block {parent} item {item}", parent, item, actual=blkno))
            for lp, child, box in reversed(downlinks.get(blkno, [])):
                if not 0 <= child < self.nblocks:
                    out.append(ctx.finding("gist.downlink.out_of_range", f"downlink to block {child}, past the"
                                           f" index's {self.nblocks} blocks", blkno, lp, actual=child))
                elif kinds[child] not in (LEAF, INTERNAL):
                    what = {NEW: "a new (all-zero) page", DELETED: "a deleted page"}.get(kinds[child],
                                                                                        "not a GiST page")
                    out.append(ctx.finding("gist.downlink.bad_child", f"downlink to block {child}, {what}", blkno, lp,
                                           actual=child))
                else:
                    stack.append((child, depth + 1, blkno, lp, box))
        return sorted(out, key=lambda f: (f.block if f.block is not None else -1, f.item or 0))


def _contains(outer: tuple, inner: tuple) -> bool:
    """box_contain: (high x, high y, low x, low y) of ``inner`` within ``outer``'s."""
    return outer[0] >= inner[0] and outer[1] >= inner[1] and outer[2] <= inner[2] and outer[3] <= inner[3]
