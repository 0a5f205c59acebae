"""GIN structure rules, offline: amcheck's ``gin_index_check`` (contrib/amcheck/verify_gin.c, 18) and what the
metapage, the pending list and the sibling links promise (ginblock.h, ginfast.c).

Feed the main fork's chunks in block order, then ``finish``. Per page (``feed``): the special space's size, line
pointers (GIN uses LP_NORMAL items with storage only), each tuple's size against its line pointer, entry keys in
strictly ascending order (ginCompareAttEntries: attnum, null category, then the key type's order, when
``KeySpec.reason`` says it is computable), posting lists decodable, holding as many TIDs as their tuple says, in
ascending order, with valid offsets; posting tree pages' pd_lower against maxoff, their keys in order and the
rightmost item's (0,0) key, leaves' TIDs within their right bound. Across pages (``finish``): the metapage, the
pending list from head to tail (GIN_LIST pages, nPendingPages of them holding nPendingHeapTuples, tailFreeSize),
rightlinks to pages of the same kind, and the trees walked from the root (block 1) and from each posting tree root:
every leaf at one depth, a child's keys within its downlink's key, posting tree high keys equal to the parent's.

Memory: per block a kind and a rightlink (5 bytes), and the keys of internal pages and the last key of each entry
leaf (for the parent rule), the posting tree roots and downlinks.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pgpage.analysis.btree.order import TYPES as ORDERED_TYPES, Uncomparable
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.pages import check_pages
from pgpage.decode import gin
from pgpage.decode.indextuple import read_tid, t_info, tuple_size
from pgpage.decode.ksy.type_oids import BYTEAOID, INT2OID, INT4OID, INT8OID, TEXTOID, VARCHAROID
from pgpage.decode.ksy.constants import (GIN_CURRENT_VERSION, GIN_ITUP_COMPRESSED, GIN_META, GIN_TREE_POSTING,
                                         LP_NORMAL, SIZEOF_ItemIdData, SIZEOF_PostingItem, SizeOfPageHeaderData)
from pgpage.decode.page import AM_SPECIAL_SIZE, bad_special_size
from pgpage.decode.pagebase import format_tid, maxalign
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import column, decode_headers, decode_line_pointers
from pgpage.findings import INFO, WARNING, Finding

INVALID_BLOCK = 0xFFFFFFFF
META_BLKNO, ROOT_BLKNO = 0, 1
KIND = {k: i for i, k in enumerate(gin.KINDS)}
CATEGORY = {name: code for code, name in gin.CATEGORY_NAMES.items()}
BYTE_ORDERED = {TEXTOID, VARCHAROID, BYTEAOID}   # order.TYPES compares their payloads' bytes
SIEVE_INT_TYPES = {INT2OID, INT4OID, INT8OID}     # ... and these as signed integers, as the compiled sieve does
ALIGN_BYTES = {"c": 1, "s": 2, "i": 4, "d": 8}
OPAQUE_TYPE = "gin_page::gin_page_opaque_data"
ITEM_ID_BITS = tuple(LAYOUTS["pg_page::item_id"]["fields"][f][1][1:] for f in ("lp_off", "lp_len"))  # (shift, width)


def max_offset_number(block_size: int) -> int:
    """MaxOffsetNumber: BLCKSZ / sizeof(ItemIdData)."""
    return block_size // SIZEOF_ItemIdData


def max_index_tuples(block_size: int) -> int:
    """MaxIndexTuplesPerPage: (BLCKSZ - SizeOfPageHeaderData) / (MAXALIGN(sizeof(IndexTupleData) + 1) + sizeof(ItemIdData))."""
    return (block_size - SizeOfPageHeaderData) // (maxalign(8 + 1) + SIZEOF_ItemIdData)


@dataclass
class EntryKey:
    """A tuple's key as ginCompareAttEntries orders it."""
    attnum: int
    category: int
    key: object = None

    def sort_key(self):
        return (self.attnum, self.category, self.key if self.category == 0 else 0)


@dataclass
class PageInfo:
    """What the cross-page rules need of one internal page or entry leaf."""
    downlinks: list = field(default_factory=list)    # entry internal: (child, EntryKey); data internal: (child, tid)
    last_key: object = None                          # entry leaf: its last EntryKey
    bound: tuple | None = None                       # posting tree page: its right bound
    max_tid: tuple | None = None                     # posting tree leaf: its greatest TID
    roots: list = field(default_factory=list)        # entry leaf: (item, posting tree root)


def item_id(raw: bytes, lp: int) -> tuple[int, int]:
    """(lp_off, lp_len) of line pointer ``lp`` (1-based)."""
    word = int.from_bytes(raw[SizeOfPageHeaderData + SIZEOF_ItemIdData * (lp - 1):
                              SizeOfPageHeaderData + SIZEOF_ItemIdData * lp], "little")
    return tuple((word >> shift) & ((1 << width) - 1) for shift, width in ITEM_ID_BITS)


class GinVerifier:
    """``columns``: the index's pg_attribute columns (deform Attributes); ``order_reason``: why key order cannot be
    computed (None when it can)."""

    def __init__(self, ctx: VerifyContext, nblocks: int, columns, order_reason: str | None):
        self.ctx, self.nblocks = ctx, nblocks
        self.columns = list(columns or [])
        self.order_reason = order_reason if self.columns else (order_reason or "index columns unknown")
        self.keyfns = [ORDERED_TYPES[c.typid][1] if c.typid in ORDERED_TYPES else None for c in self.columns]
        # keys whose order is their payload's bytes: an uncompressed one is compared without varlena_payload
        self.plain = [c.typid in BYTE_ORDERED for c in self.columns]
        if self.order_reason is None and not all(self.keyfns):
            self.order_reason = "key type not ordered offline"
        self.kind = np.zeros(nblocks, dtype=np.uint8)
        self.rightlink = np.full(nblocks, INVALID_BLOCK, dtype=np.uint32)
        self.maxoff = np.zeros(nblocks, dtype=np.uint16)
        self.free = np.zeros(nblocks, dtype=np.int32)
        self.info: dict[int, PageInfo] = {}
        self.meta: dict | None = None
        self.max_offset = max_offset_number(ctx.block_size)
        self.sieve = self._sieve_params()

    def _sieve_params(self) -> list[int]:
        """The compiled sieve's parameters (decode/_gin.c); entry leaves are not sieved ("not_sieved") where it
        cannot stand for the per-item rules: several key columns, or an order it does not compute (a key type other
        than bytes or a signed integer)."""
        from pgpage.decode.kernels import GIN_SIEVE_ORDER
        col = self.columns[0] if len(self.columns) == 1 else None
        order = "none"
        if len(self.columns) > 1:
            order = "not_sieved"
        elif col is not None and self.order_reason is None:
            order = "bytes" if self.plain[0] else "int" if col.typid in SIEVE_INT_TYPES else "not_sieved"
        return [self.max_offset, max_index_tuples(self.ctx.block_size), int(col is not None),
                col.attlen if col is not None else 0, ALIGN_BYTES.get(col.attalign, 1) if col is not None else 1,
                GIN_SIEVE_ORDER[order]]

    def _sieved(self, chunk: np.ndarray, check: np.ndarray, nlp: np.ndarray) -> tuple[np.ndarray, ...]:
        """(per page of the chunk: True where the sieve found nothing the per-page rules could report; a posting
        tree leaf's greatest TID value; an entry leaf's posting tree roots)."""
        from pgpage.decode.clib import KernelUnavailable
        from pgpage.decode.kernels import verify_gin_sieve
        if check.any():
            try:
                flagged, max_tid, roots, _ = verify_gin_sieve(np.ascontiguousarray(chunk), check, nlp, self.sieve)
                return flagged == 0, max_tid, roots
            except KernelUnavailable:       # no C compiler: every page item by item
                pass
        n = len(chunk)
        return np.zeros(n, dtype=bool), np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------------ per page
    def feed(self, chunk: np.ndarray, first: int) -> list[Finding]:
        """The pages the compiled sieve passes (entry and posting tree leaves with nothing to report) are only
        noted for the rules across pages, all at once; the others are read page by page."""
        from pgpage.decode.kernels import GIN_SIEVE_CHECK
        ctx = self.ctx
        pc = check_pages(chunk, first, ctx)
        out = list(pc.findings)
        n = max(min(chunk.shape[0], self.nblocks - first), 0)
        size = chunk.shape[1]
        h = pc.headers
        special = size - h.special.astype(np.int64)
        base = size - AM_SPECIAL_SIZE["gin"]
        flags = column(chunk, OPAQUE_TYPE, "flags", base).astype(np.int64)
        kinds = gin.page_kinds(flags)
        gin_page = pc.valid & (special == AM_SPECIAL_SIZE["gin"])
        gin_page[n:] = False
        blocks = first + np.arange(len(chunk))
        check = np.where(gin_page & (kinds == KIND["entry_leaf"]), GIN_SIEVE_CHECK["entry_leaf"],
                         np.where(gin_page & (kinds == KIND["data_leaf"]), GIN_SIEVE_CHECK["data_leaf"], 0))
        check[blocks == META_BLKNO] = 0          # block 0 must be the metapage: its rule is read page by page
        clean, max_tid, nroots = self._sieved(chunk, check, h.nlp)
        clean &= check != 0
        # what every GIN page leaves for the rules across pages, all at once
        sel = np.flatnonzero(gin_page)
        self.kind[blocks[:n][pc.zero[:n]]] = KIND["new"]
        self.kind[blocks[sel]] = kinds[sel]
        self.rightlink[blocks[sel]] = column(chunk, OPAQUE_TYPE, "rightlink", base)[sel]
        self.maxoff[blocks[sel]] = column(chunk, OPAQUE_TYPE, "maxoff", base)[sel]
        self.free[blocks[sel]] = np.maximum(h.upper.astype(np.int64) - h.lower.astype(np.int64), 0)[sel]
        for i in np.flatnonzero(clean).tolist():
            blkno = first + i
            if kinds[i] == KIND["entry_leaf"]:
                self._clean_entry_leaf(chunk[i].tobytes(), blkno, int(h.nlp[i]), int(nroots[i]))
            else:
                top = int(max_tid[i])
                self.info[blkno] = PageInfo(bound=read_tid(chunk[i].tobytes(), SizeOfPageHeaderData), max_tid=(
                    top >> gin.OFFSET_BITS, top & gin.OFFSET_MASK) if top else None)
        rest = np.flatnonzero(pc.valid[:n] & ~clean[:n])
        sub = chunk[rest]      # the pages read page by page, and their line pointers
        lps = decode_line_pointers(sub, decode_headers(sub))
        starts = np.searchsorted(lps.page, np.arange(len(rest) + 1))
        for k, i in enumerate(rest.tolist()):
            blkno = first + i
            if special[i] != AM_SPECIAL_SIZE["gin"]:
                out.append(ctx.finding("gin.page.bad_special_size", bad_special_size("gin", blkno, int(special[i])),
                                       blkno, expected=size - AM_SPECIAL_SIZE["gin"], actual=int(h.special[i])))
                continue
            raw = chunk[i].tobytes()
            rightlink, maxoff, flags = gin.opaque_of(raw)
            kind = gin.page_kind(flags)
            if blkno == META_BLKNO and kind != "meta":
                out.append(ctx.finding("gin.meta.bad_flags", f"block 0 is not a GIN metapage: flags 0x{flags:04X},"
                                       f" expected GIN_META (0x{GIN_META:04X})", blkno, expected=GIN_META,
                                       actual=flags))
            sl = slice(starts[k], starts[k + 1])
            items = list(zip(lps.lp[sl].tolist(), lps.off[sl].tolist(), lps.flags[sl].tolist(), lps.len[sl].tolist()))
            if kind == "meta":
                out += self._meta(raw, blkno, flags)
            elif kind in ("entry_leaf", "entry_internal"):
                out += self._entry_page(raw, blkno, kind == "entry_leaf", rightlink, items)
            elif kind == "data_internal":
                out += self._data_internal(raw, blkno, rightlink, maxoff, int(h.lower[i]))
            elif kind in ("data_leaf", "data_leaf_uncompressed"):
                out += self._data_leaf(raw, blkno, rightlink, maxoff, kind == "data_leaf")
        return out

    def _meta(self, raw: bytes, blkno: int, flags: int) -> list[Finding]:
        out = []
        if blkno != META_BLKNO:
            out.append(self.ctx.finding("gin.meta.misplaced", f"block {blkno} is flagged GIN_META; the metapage is"
                                        " block 0", blkno, expected=META_BLKNO, actual=blkno))
            return out
        if flags != GIN_META:
            out.append(self.ctx.finding("gin.meta.bad_flags", f"the metapage's flags are 0x{flags:04X}, not GIN_META"
                                        " alone", blkno, expected=GIN_META, actual=flags))
        self.meta = m = gin.metapage_info(raw)
        if not 0 <= m["version"] <= GIN_CURRENT_VERSION:
            out.append(self.ctx.finding("gin.meta.bad_version", f"ginVersion {m['version']} is not 0..."
                                        f"{GIN_CURRENT_VERSION}", blkno, expected=GIN_CURRENT_VERSION,
                                        actual=m["version"]))
        return out

    def _entry_key(self, tup: bytes, end: int) -> EntryKey | None:
        """The tuple's attnum, category and (when the order is computable) key's sort value; None unreadable."""
        if not self.columns:            # no catalog: nothing to read the key with, nor to order it by
            return EntryKey(0, 0)
        got = gin.key_datum(tup, self.columns, end)
        if got is None:
            return None
        attnum, category, raw = got
        if raw is None or self.order_reason is not None:
            return EntryKey(attnum, category)
        if self.plain[attnum - 1]:
            payload = gin.plain_payload(raw)
            if payload is not None:
                return EntryKey(attnum, category, payload)
        try:
            return EntryKey(attnum, category, self.keyfns[attnum - 1](raw))
        except Uncomparable:
            return None

    def _item_checks(self, raw: bytes, blkno: int, items) -> tuple[list[Finding], list]:
        """PageGetItemIdCareful and the tuple size rule; the items that pass, as (lp, tuple bytes)."""
        ctx, out, good = self.ctx, [], []
        end = len(raw) - AM_SPECIAL_SIZE["gin"]
        if len(items) > max_index_tuples(len(raw)):
            out.append(ctx.finding("gin.page.too_many_items", f"{len(items)} line pointers, more than"
                                   f" MaxIndexTuplesPerPage {max_index_tuples(len(raw))}", blkno,
                                   expected=max_index_tuples(len(raw)), actual=len(items)))
        for lp, off, flags, length in items:
            if off + length > end or off < SizeOfPageHeaderData and length:
                out.append(ctx.finding("gin.item.out_of_bounds", f"line pointer points past the end of tuple space:"
                                       f" lp_off {off}, lp_len {length}", blkno, lp, actual=[off, length]))
                continue
            if flags != LP_NORMAL or length == 0:
                out.append(ctx.finding("gin.item.bad_lp", f"invalid line pointer storage: lp_flags {flags}, lp_len"
                                       f" {length} (GIN uses LP_NORMAL items with storage only)", blkno, lp,
                                       expected=LP_NORMAL, actual=[flags, length]))
                continue
            tup = raw[off:off + length]
            size = tuple_size(t_info(tup)) if length >= 8 else 0
            if maxalign(length) != maxalign(size):
                out.append(ctx.finding("gin.item.size_mismatch", f"inconsistent tuple sizes: IndexTupleSize {size},"
                                       f" lp_len {length}", blkno, lp, expected=length, actual=size))
                continue
            good.append((lp, tup))
        return out, good

    def _entry_page(self, raw: bytes, blkno: int, leaf: bool, rightlink: int, items) -> list[Finding]:
        ctx = self.ctx
        out, good = self._item_checks(raw, blkno, items)
        info = self.info[blkno] = PageInfo()
        prev = None
        maxoff = items[-1][0] if items else 0
        for lp, tup in good:
            block, posid = read_tid(tup, 0)
            size = tuple_size(t_info(tup))
            end = size
            if leaf and posid != GIN_TREE_POSTING:
                end = min(block & ~GIN_ITUP_COMPRESSED, size)
                out += self._entry_posting(tup, blkno, lp, block, posid, size)
            elif leaf:
                info.roots.append((lp, block))
            key = self._entry_key(tup, end)
            if key is None:
                out.append(ctx.finding("gin.entry.undecodable", "the entry's attribute number, null category or key"
                                       " cannot be read", blkno, lp))
                prev = None
                continue
            if not leaf:
                info.downlinks.append((block, key, lp))
            last_of_rightmost = not leaf and lp == maxoff and rightlink == INVALID_BLOCK
            if prev is not None and not last_of_rightmost and self.order_reason is None \
                    and prev.sort_key() >= key.sort_key():
                out.append(ctx.finding("gin.entry.order", f"wrong tuple order on entry tree page: item {lp} is not"
                                       f" greater than item {lp - 1}", blkno, lp))
            prev = key
        if leaf:
            info.last_key = prev
        return out

    def _clean_entry_leaf(self, raw: bytes, blkno: int, nlp: int, nroots: int) -> None:
        """What the cross-page rules need of an entry leaf the sieve passed (its ``nlp`` tuples all in bounds): its
        ``nroots`` posting tree roots, its last key."""
        info = self.info[blkno] = PageInfo()
        for lp in range(1, nlp + 1) if nroots else ():
            off = item_id(raw, lp)[0]
            block, posid = read_tid(raw, off)
            if posid == GIN_TREE_POSTING:
                info.roots.append((lp, block))
        if nlp:
            off, length = item_id(raw, nlp)
            tup = raw[off:off + length]
            block, posid = read_tid(tup, 0)
            end = tuple_size(t_info(tup))
            if posid != GIN_TREE_POSTING:
                end = min(block & ~GIN_ITUP_COMPRESSED, end)
            info.last_key = self._entry_key(tup, end)

    def _entry_posting(self, tup: bytes, blkno: int, lp: int, block: int, n: int, size: int) -> list[Finding]:
        """ginReadTupleWithoutState and the TIDs it reads."""
        ctx = self.ctx
        at = block & ~GIN_ITUP_COMPRESSED
        if n == 0:
            return []
        if block & GIN_ITUP_COMPRESSED:
            try:
                values, _ = gin.segment_values(tup, at, size)
            except gin.PostingListError as e:
                return [ctx.finding("gin.posting.undecodable", f"posting list: {e}", blkno, lp)]
            if len(values) != n:
                return [ctx.finding("gin.posting.count_mismatch", f"number of items mismatch in GIN entry tuple,"
                                    f" {n} in tuple header, {len(values)} decoded", blkno, lp, expected=n,
                                    actual=len(values))]
        else:
            if at + 6 * n > size:
                return [ctx.finding("gin.posting.undecodable", f"{n} item pointers at {at} run past the tuple's"
                                    f" {size} bytes", blkno, lp)]
            values = [gin.tid_value(*read_tid(tup, at + 6 * k)) for k in range(n)]
        return self._tids(values, blkno, lp, "entry's posting list")

    def _tids(self, values, blkno: int, item: int | None, what: str) -> list[Finding]:
        """Valid offsets, strictly ascending (``values``: tid_value integers, a list or a numpy array)."""
        if isinstance(values, list):     # a short list: plain Python (numpy's set-up would cost more)
            if all(0 < v & gin.OFFSET_MASK <= self.max_offset for v in values) and \
                    all(a < b for a, b in zip(values, values[1:])):
                return []
            values = np.array(values, dtype=np.uint64)
        out = []
        offsets = values & np.uint64(gin.OFFSET_MASK)
        bad = np.flatnonzero((offsets == 0) | (offsets > self.max_offset))
        if len(bad):
            v = int(values[bad[0]])
            out.append(self.ctx.finding("gin.posting.invalid_tid", f"{what} contains invalid heap pointer"
                                        f" {format_tid(v >> gin.OFFSET_BITS, v & gin.OFFSET_MASK)}", blkno, item,
                                        actual=len(bad)))
        if len(values) > 1 and not (np.diff(values.astype(np.int64)) > 0).all():
            k = int(np.flatnonzero(np.diff(values.astype(np.int64)) <= 0)[0])
            out.append(self.ctx.finding("gin.posting.unsorted", f"{what} is not in ascending TID order at its"
                                        f" {k + 2}th TID", blkno, item, actual=k + 1))
        return out

    def _data_internal(self, raw: bytes, blkno: int, rightlink: int, maxoff: int, lower: int) -> list[Finding]:
        ctx = self.ctx
        out = []
        if (lower - gin.DATA_START) // SIZEOF_PostingItem != maxoff:
            out.append(ctx.finding("gin.data.bad_lower", f"unexpected pd_lower {lower} in posting tree page with"
                                   f" maxoff {maxoff}", blkno, expected=gin.DATA_START + maxoff * SIZEOF_PostingItem,
                                   actual=lower))
        items = gin.posting_items(raw, maxoff)
        info = self.info[blkno] = PageInfo(bound=read_tid(raw, SizeOfPageHeaderData))
        prev = None
        for it in items:
            i = it["itemoffset"]
            key = read_tid(raw, gin.DATA_START + (i - 1) * SIZEOF_PostingItem + 4)
            info.downlinks.append((it["child_blkno"], key, i))
            if i == maxoff and rightlink == INVALID_BLOCK:
                if key != (0, 0):
                    out.append(ctx.finding("gin.data.bad_rightmost_key", f"rightmost posting tree page has"
                                           f" unexpected last key {format_tid(*key)}", blkno, i,
                                           expected="(0,0)", actual=format_tid(*key)))
            elif prev is not None and key < prev:
                out.append(ctx.finding("gin.data.order", f"wrong tuple order in posting tree, offset {i}", blkno, i))
            prev = key
        return out

    def _data_leaf(self, raw: bytes, blkno: int, rightlink: int, maxoff: int, compressed: bool) -> list[Finding]:
        ctx = self.ctx
        out = []
        bound = read_tid(raw, SizeOfPageHeaderData)
        if compressed:
            segments, error = gin.iter_segments(raw)
            if error:
                out.append(ctx.finding("gin.posting.undecodable", f"posting list segment {len(segments) + 1}: {error}",
                                       blkno, len(segments) + 1))
            values = np.concatenate([np.asarray(v, dtype=np.uint64) for v, _ in segments]) if segments \
                else np.zeros(0, dtype=np.uint64)
        else:
            values = np.array([gin.tid_value(*read_tid(raw, gin.DATA_START + 6 * k))
                               for k in range(min(maxoff, (len(raw) - gin.DATA_START) // 6))], dtype=np.uint64)
        out += self._tids(values, blkno, None, "posting tree leaf")
        info = self.info[blkno] = PageInfo(bound=bound)
        if len(values):
            top = int(values.max())
            info.max_tid = (top >> gin.OFFSET_BITS, top & gin.OFFSET_MASK)
            if rightlink != INVALID_BLOCK and info.max_tid > bound:
                out.append(ctx.finding("gin.data.tid_exceeds_bound", f"TID {format_tid(*info.max_tid)} exceeds the"
                                       f" page's right bound {format_tid(*bound)}", blkno,
                                       expected=format_tid(*bound), actual=format_tid(*info.max_tid)))
        return out

    # ------------------------------------------------------------------ across pages
    def finish(self) -> list[Finding]:
        out = []
        if self.order_reason is not None:
            out.append(Finding("gin.order.not_checked", f"entry key order not checked: {self.order_reason}", INFO,
                               relation=self.ctx.relation, fork="main"))
        out += self._pending_list()
        out += self._siblings()
        out += self._entry_tree()
        return sorted(out, key=lambda f: (f.block if f.block is not None else -1, f.item or 0))

    def _kind(self, blkno: int) -> str:
        return gin.KINDS[self.kind[blkno]] if 0 <= blkno < self.nblocks else "outside"

    def _pending_list(self) -> list[Finding]:
        m, ctx = self.meta, self.ctx
        if m is None:
            return []
        head, tail = m["pending_head"], m["pending_tail"]
        out, pages, tuples, blk, seen, last = [], 0, 0, head, set(), None
        while blk != INVALID_BLOCK and blk not in seen:
            seen.add(blk)
            if self._kind(blk) != "list":
                out.append(ctx.finding("gin.pending.bad_page", f"pending list page {blk} (from the metapage's head"
                                       f" {head}) is {self._kind(blk)}, not a GIN_LIST page", blk,
                                       expected="list", actual=self._kind(blk)))
                return out
            pages += 1
            tuples += int(self.maxoff[blk])
            last = blk
            blk = int(self.rightlink[blk])
        if blk != INVALID_BLOCK:
            out.append(ctx.finding("gin.pending.cycle", f"the pending list's rightlinks come back to block {blk}",
                                   blk))
            return out
        if last != (tail if tail != INVALID_BLOCK else None):
            out.append(ctx.finding("gin.pending.bad_tail", f"the pending list ends at block {last}, the metapage's"
                                   f" tail is {tail}", META_BLKNO, expected=tail, actual=last))
        if pages != m["n_pending_pages"]:
            out.append(ctx.finding("gin.pending.page_count", f"the pending list has {pages} pages, the metapage"
                                   f" says nPendingPages {m['n_pending_pages']}", META_BLKNO,
                                   expected=m["n_pending_pages"], actual=pages))
        if tuples != m["n_pending_tuples"]:
            out.append(ctx.finding("gin.pending.tuple_count", f"the pending list's pages hold {tuples} heap tuples,"
                                   f" the metapage says nPendingHeapTuples {m['n_pending_tuples']}", META_BLKNO,
                                   expected=m["n_pending_tuples"], actual=tuples))
        if last is not None and int(self.free[last]) != m["tail_free_size"]:
            out.append(ctx.finding("gin.pending.tail_free_size", f"the tail page {last} has {int(self.free[last])}"
                                   f" bytes free, the metapage says tailFreeSize {m['tail_free_size']}", last,
                                   expected=m["tail_free_size"], actual=int(self.free[last]), severity=WARNING))
        return out

    def _siblings(self) -> list[Finding]:
        """Each live page's rightlink names a page of the same kind (the next page of its level)."""
        out, ctx = [], self.ctx
        linked = ("list", "data_internal", "data_leaf", "data_leaf_uncompressed", "entry_internal", "entry_leaf")
        for blkno in np.flatnonzero(np.isin(self.kind, [KIND[k] for k in linked])):
            right = int(self.rightlink[blkno])
            if right == INVALID_BLOCK:
                continue
            kind = self._kind(int(blkno))
            if not 0 <= right < self.nblocks:
                out.append(ctx.finding("gin.sibling.out_of_range", f"rightlink {right} is past the index's"
                                       f" {self.nblocks} blocks", blkno, actual=right))
            elif self._kind(right) != kind and {kind, self._kind(right)} != {"data_leaf", "data_leaf_uncompressed"}:
                out.append(ctx.finding("gin.sibling.kind_mismatch", f"rightlink {right} of this {kind} page is"
                                       f" {self._kind(right)}", blkno, expected=kind, actual=self._kind(right)))
        return out

    def _entry_tree(self) -> list[Finding]:
        """gin_check_parent_keys_consistency: the entry tree from the root, then each posting tree."""
        out, ctx = [], self.ctx
        if self.nblocks <= ROOT_BLKNO:
            return out
        visited: set[int] = set()
        stack = [(ROOT_BLKNO, 0, None, None)]       # (block, depth, parent block, parent's key for it)
        leaf_depth = None
        roots = []
        while stack:
            blkno, depth, parent, parent_key = stack.pop()
            kind = self._kind(blkno)
            if blkno in visited:
                out.append(ctx.finding("gin.tree.revisited", f"block {blkno} is reached twice from the root (again"
                                       f" from block {parent})", blkno, actual=parent))
                continue
            visited.add(blkno)
            if kind == "new":
                out.append(ctx.finding("gin.tree.zero_page", f"unexpected zero page at block {blkno} (a downlink of"
                                       f" block {parent})", blkno, actual=parent))
                continue
            if kind not in ("entry_leaf", "entry_internal"):
                out.append(ctx.finding("gin.tree.bad_child", f"block {blkno}, reached from "
                                       f"{'the root' if parent is None else f'block {parent}'}, is {kind}, not an"
                                       " entry tree page", blkno, expected="entry", actual=kind))
                continue
            info = self.info.get(blkno) or PageInfo()
            if kind == "entry_leaf":
                if leaf_depth is None:
                    leaf_depth = depth
                elif depth != leaf_depth:
                    out.append(ctx.finding("gin.tree.uneven_depth", f"internal pages traversal encountered leaf page"
                                           f" unexpectedly on block {blkno} (depth {depth}, other leaves {leaf_depth})",
                                           blkno, expected=leaf_depth, actual=depth))
                if parent_key is not None and info.last_key is not None and self.order_reason is None \
                        and info.last_key.sort_key() > parent_key.sort_key():
                    out.append(ctx.finding("gin.entry.parent_key", f"the page's last key is greater than its downlink's"
                                           f" key in block {parent}", blkno, actual=parent))
                roots += [(blkno, lp, root) for lp, root in info.roots]
                continue
            rightmost = int(self.rightlink[blkno]) == INVALID_BLOCK
            last = info.downlinks[-1][2] if info.downlinks else None
            for child, key, lp in reversed(info.downlinks):
                child_key = None if (rightmost and lp == last) else key
                stack.append((child, depth + 1, blkno, child_key))
        for blkno, lp, root in roots:
            out += self._posting_tree(root, blkno, lp, visited)
        return out

    def _posting_tree(self, root: int, entry_blk: int, entry_lp: int, visited: set) -> list[Finding]:
        """gin_check_posting_tree_parent_keys_consistency of the tree rooted at ``root``."""
        out, ctx = [], self.ctx
        stack = [(root, 0, None, None)]
        leaf_depth = None
        while stack:
            blkno, depth, parent, parent_key = stack.pop()
            kind = self._kind(blkno)
            if blkno in visited:
                out.append(ctx.finding("gin.tree.revisited", f"posting tree block {blkno} is reached twice (again"
                                       f" from block {parent if parent is not None else entry_blk})", blkno,
                                       actual=parent if parent is not None else entry_blk))
                continue
            visited.add(blkno)
            if kind not in ("data_leaf", "data_leaf_uncompressed", "data_internal"):
                src = f"block {parent}" if parent is not None else f"the entry at block {entry_blk} item {entry_lp}"
                out.append(ctx.finding("gin.tree.bad_child", f"block {blkno}, reached from {src}, is {kind}, not a"
                                       " posting tree page", blkno, expected="data", actual=kind))
                continue
            info = self.info.get(blkno) or PageInfo()
            if kind != "data_internal":
                if leaf_depth is None:
                    leaf_depth = depth
                elif depth != leaf_depth:
                    out.append(ctx.finding("gin.tree.uneven_depth", f"posting tree leaf on block {blkno} at depth"
                                           f" {depth}, other leaves at {leaf_depth}", blkno, expected=leaf_depth,
                                           actual=depth))
                if parent_key is not None and parent_key[1] != 0 and info.max_tid is not None \
                        and info.max_tid > parent_key:
                    out.append(ctx.finding("gin.data.tid_exceeds_parent", f"tid {format_tid(*info.max_tid)} exceeds"
                                           f" parent's high key {format_tid(*parent_key)} (block {parent})", blkno,
                                           expected=format_tid(*parent_key), actual=format_tid(*info.max_tid)))
                continue
            rightlink = int(self.rightlink[blkno])
            if parent_key is not None and parent_key != (INVALID_BLOCK, 0) and rightlink != INVALID_BLOCK \
                    and info.bound != parent_key:
                out.append(ctx.finding("gin.data.high_key_mismatch", f"posting tree page's high key"
                                       f" {format_tid(*info.bound)} doesn't match the downlink's key"
                                       f" {format_tid(*parent_key)} in block {parent}", blkno,
                                       expected=format_tid(*parent_key), actual=format_tid(*info.bound)))
            if parent_key is not None and info.downlinks and parent_key < info.downlinks[-1][1] \
                    and not (rightlink == INVALID_BLOCK):
                out.append(ctx.finding("gin.data.key_exceeds_parent", "posting item exceeds parent's high key",
                                       blkno, info.downlinks[-1][2]))
            for child, key, _ in reversed(info.downlinks):
                stack.append((child, depth + 1, blkno, None if rightlink == INVALID_BLOCK else key))
        return out
