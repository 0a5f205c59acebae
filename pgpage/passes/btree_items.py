"""The export's ``btree_items``: every item of a B-tree as `index --block` shows it (``bt_page_items`` with the keys),
a chunk of pages at a time.

The pages a B-tree is made of (leaf and internal pages whose header, line pointers and tuples are what nbtree
writes) are read as arrays: the item fields from the tuples' 8-byte headers, nbtree's reading of t_tid as
``formats/nbtree.ksy`` gives it (posting lists, pivots' key counts and heap TIDs), and the keys printed by the
compiled printer (``decode.printer``) as ``analysis.btree.keys`` prints them (no catalog: built-in types, time
stamps with time zone in UTC). A page that is anything else (the metapage, deleted and half-dead pages, damage),
and the keys of an index whose types the printer does not print, go through ``page_view``, one page at a time.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pgpage.analysis.btree.keys import page_view
from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_LEAF, BTP_META, INDEX_ALT_TID_MASK, INDEX_NULL_MASK,
                                         INDEX_SIZE_MASK, LP_DEAD, P_HIKEY, P_NONE, SIZE_OF_BT_OPAQUE,
                                         SIZE_OF_ITEM_POINTER, SIZE_OF_PAGE_HEADER, SIZEOF_IndexTupleData,
                                         bt_opaque)
from pgpage.decode.ksy.constants import INDEX_VAR_MASK
from pgpage.decode.vector import decode_headers, decode_line_pointers
from pgpage.passes.arrowtext import tid_texts

DATA_AT, DATA_AT_WITH_NULLS = 8, 16         # IndexInfoFindDataOffset: MAXALIGN(8 [+ the 4-byte bitmap])


def item_rows(chunk: np.ndarray, first: int, ctx, attrs, printers) -> Iterator[dict | list]:
    """The items of a chunk of B-tree pages (global block numbers from ``first``), in block order, by runs of
    pages: a run read as arrays as a dict of columns (numpy and Arrow arrays), a run of pages read one at a time
    as a list of each page's row dicts. ``attrs``: the index's attributes; ``printers``: ``key_printers``'."""
    chunk = np.ascontiguousarray(chunk)
    n, bs = chunk.shape
    h, op = decode_headers(chunk), bt_opaque(chunk)
    flags = op["btpo_flags"].astype(np.int64)
    lower, upper, special = (x.astype(np.int64) for x in (h.lower, h.upper, h.special))
    plain = (~h.is_new & ((flags & (BTP_META | BTP_DELETED | BTP_HALF_DEAD)) == 0)
             & (special == bs - SIZE_OF_BT_OPAQUE) & (SIZE_OF_PAGE_HEADER <= lower) & (lower <= upper)
             & (upper <= special))
    lps = decode_line_pointers(chunk, h)
    flat = chunk.reshape(-1)
    at = lps.page.astype(np.int64) * bs + lps.off

    words = flat.view("<u2")

    def u16(pos):     # (a position past the chunk is an item the checks below send to page_view)
        pos = np.clip(pos, 0, flat.size - 2)
        if not (pos & 1).any():   # (MAXALIGNed items: every field at an even byte, one gather of words)
            return words[pos >> 1].astype(np.int64)
        return flat[pos].astype(np.int64) | (flat[pos + 1].astype(np.int64) << 8)
    sane = ((lps.len >= SIZEOF_IndexTupleData) & (lps.off >= SIZE_OF_PAGE_HEADER)
            & (lps.off + lps.len <= special[lps.page]))
    info, posid = u16(at + 6), u16(at + 4)
    bi_hi, bi_lo = u16(at), u16(at + 2)
    size = info & INDEX_SIZE_MASK
    alt = (info & INDEX_ALT_TID_MASK) != 0
    posting = alt & ((posid & BT_IS_POSTING) != 0)
    pivot_tuple = alt & ~posting
    ntids = np.where(posting, posid & BT_OFFSET_MASK, 0)
    # what page_view reads more than this: an item past its line pointer, a posting list past its tuple
    sane &= ((size >= SIZEOF_IndexTupleData) & (size <= lps.len)
             & (~posting | ((bi_lo >= SIZEOF_IndexTupleData) & (bi_lo + SIZE_OF_ITEM_POINTER * ntids <= size))))
    bad_page = np.zeros(n, dtype=bool)
    np.logical_or.at(bad_page, lps.page, ~sane)
    fast = plain & ~bad_page
    for lo, hi in _runs(fast):
        if not fast[lo]:    # (a metapage has no items: not decoded to say so)
            yield [_page_rows(chunk[p].tobytes(), first + p, ctx, attrs) for p in range(lo, hi)
                   if not (flags[p] & BTP_META and not h.is_new[p])]
            continue
        sel = np.flatnonzero((lps.page >= lo) & (lps.page < hi))
        page = lps.page[sel]
        leaf = (flags[page] & BTP_LEAF) != 0
        rightmost = op["btpo_next"][page] == P_NONE
        lp = lps.lp[sel].astype(np.int64)
        high_key = leaf & ~rightmost & (lp == P_HIKEY)
        pivot = ~leaf | high_key
        a, s = at[sel], size[sel]
        pt, po = pivot_tuple[sel], posting[sel]
        heap_tid_attr = pt & ((posid[sel] & BT_PIVOT_HEAP_TID_ATTR) != 0)
        ctid = tid_texts(bi_hi[sel] << 16 | bi_lo[sel], posid[sel])
        post_at = a + bi_lo[sel]
        hid_at = a + np.maximum(s - SIZE_OF_ITEM_POINTER, 0)
        # htid: a posting list's first TID, a pivot's heap TID (when it keeps one), a plain leaf tuple's t_tid
        from_posting = po & (ntids[sel] > 0)
        from_pivot = ~po & heap_tid_attr & (s >= SIZEOF_IndexTupleData + SIZE_OF_ITEM_POINTER)
        from_ctid = ~po & ~pt & ~pivot
        where = np.where(from_posting, post_at, hid_at)
        block, offset = np.where(from_ctid, bi_hi[sel] << 16 | bi_lo[sel], u16(where) << 16 | u16(where + 2)), \
            np.where(from_ctid, posid[sel], u16(where + 4))
        htid = tid_texts(block, offset, null=~(from_posting | from_pivot | from_ctid))
        counts = leaf & ~high_key
        heap_tids = np.where(counts, np.where(po, ntids[sel], from_posting | from_pivot | from_ctid), 0)
        # the keys: a pivot's kept attributes (none for an internal page's first data key: minus infinity)
        natts = np.where(pt, np.minimum(posid[sel] & BT_OFFSET_MASK, len(attrs or ())), len(attrs or ()))
        natts = np.where(~leaf & (lp == np.where(rightmost, 1, 2)), 0, natts)
        end = np.where(po, np.minimum(bi_lo[sel], s), np.where(heap_tid_attr, s - SIZE_OF_ITEM_POINTER, s))
        keys = _keys(chunk, a, end, info[sel], natts, attrs, printers, page, lp, first, ctx)
        yield {"blkno": first + page, "btpo_level": op["btpo_level"][page].astype(np.int64),
               "leaf": leaf, "itemoffset": lp, "ctid": ctid, "itemlen": s, "nulls": (info[sel] & INDEX_NULL_MASK) != 0,
               "vars": (info[sel] & INDEX_VAR_MASK) != 0,
               "dead": np.ma.masked_array(lps.flags[sel] == LP_DEAD, mask=pivot), "high_key": high_key,
               "htid": htid, "posting": po, "heap_tids": heap_tids, "key": keys}


def _runs(mask: np.ndarray) -> Iterator[tuple[int, int]]:
    """Maximal runs of equal values of ``mask``: (start, stop)."""
    cuts = np.flatnonzero(np.diff(mask.astype(np.int8))) + 1
    edges = [0, *cuts.tolist(), len(mask)]
    return zip(edges[:-1], edges[1:])


def _keys(chunk, at, end, info, natts, attrs, printers, page, lp, first, ctx):
    """Each item's key texts (its first ``natts`` attributes; None for NULL) as an Arrow list array: printed by
    ``printers(natts)`` where it prints them (the items with every attribute read as a table at once, the
    others' lines, pivots whose trailing attributes were cut off, one by one), else as ``page_view`` decodes them
    (a page at a time)."""
    from pgpage.passes.arrowtext import arrow, buffer_strings
    pa = arrow()
    n, width = len(at), len(attrs or ())
    if not width:
        return pa.nulls(n, pa.list_(pa.string()))
    hasnull = (info & INDEX_NULL_MASK) != 0
    flat = chunk.reshape(-1)
    t_hoff = np.where(hasnull, DATA_AT_WITH_NULLS, DATA_AT)
    printer = printers(width)
    whole = np.flatnonzero(natts == width) if printer is not None else np.zeros(0, dtype=np.int64)
    cells, printed = [], []       # the whole items' key texts (row by row), and which items they are
    declined = [] if printer is not None else list(range(n))
    empty = np.flatnonzero(natts == 0)   # an internal page's minus infinity: no key (an empty list)
    python: dict[int, list | None] = {}
    if printer is None:
        declined = [k for k in declined if natts[k] != 0]
    # (each count of attributes a pivot kept has its printer: the walk reads as many attributes as it prints)
    cut = np.flatnonzero((natts != width) & (natts > 0)) if printer is not None else np.zeros(0, dtype=np.int64)
    groups = [(whole, printer)] + [(cut[natts[cut] == k], printers(k)) for k in np.unique(natts[cut]).tolist()]
    for group, printer in groups:
        if printer is None:
            declined += group.tolist()
            continue
        pos = 0
        while pos < len(group):
            g = group[pos:]
            done, _, ok = printer.lines(flat, at[g], end[g], t_hoff[g], natts[g], hasnull[g])
            taken = g[:done]
            declined += taken[~ok].tolist()
            values, lengths = printer.values[ok], printer.lengths[ok]   # (each key's text: typed "text")
            if group is whole:
                cells.append(buffer_strings(values.reshape(-1), lengths.reshape(-1), printer.data))
                printed.append(taken[ok])
            else:
                data = printer.data
                for k, starts, sizes in zip(taken[ok].tolist(), values.tolist(), lengths.tolist()):
                    python[k] = [None if size < 0 else data[s:s + size].tobytes().decode("utf-8")
                                 for s, size in zip(starts, sizes)]
            pos += done
    views: dict[int, dict] = {}
    for k in declined:
        p = int(page[k])
        if p not in views:
            view = page_view(chunk[p].tobytes(), first + p, ctx, attrs)
            views[p] = {it["itemoffset"]: it for it in view.get("bt_page_items") or []}
        it = views[p].get(int(lp[k])) or {}
        python[k] = None if it.get("keys") is None else [x.get("value") for x in it["keys"] if not x.get("truncated")]
    printed_at = np.concatenate(printed) if printed else np.zeros(0, dtype=np.int64)
    values = pa.concat_arrays(cells) if cells else pa.nulls(0, pa.string())
    # the printed items and the empty ones, in item order: a list of ``width`` values or of none (natts 0) each
    listed = np.sort(np.concatenate([printed_at, empty])) if len(empty) else printed_at
    offsets = np.zeros(len(listed) + 1, dtype=np.int32)
    np.cumsum(np.where(natts[listed] == 0, 0, width), out=offsets[1:])
    lists = pa.ListArray.from_arrays(pa.array(offsets), values)
    rest = np.array(sorted(python), dtype=np.int64)
    if rest.size:
        lists = pa.concat_arrays([lists, pa.array([python[k] for k in rest.tolist()], pa.list_(pa.string()))])
    where = np.concatenate([listed, rest])     # ``lists``' items, in the order they are in it
    if np.array_equal(where, np.arange(n)):
        return lists
    order = np.empty(n, dtype=np.int64)            # item -> its place in ``lists``
    order[where] = np.arange(n)
    return lists.take(pa.array(order))


def _page_rows(raw: bytes, blkno: int, ctx, attrs) -> list[dict]:
    """One page's items as `index --block` decodes them (``page_view``), as rows."""
    page = page_view(raw, blkno, ctx, attrs)
    opaque = page.get("bt_page_opaque") or {}
    flags = opaque.get("btpo_flags") or 0
    if flags & BTP_META:
        return []
    leaf = bool(flags & BTP_LEAF)
    rows = []
    for it in page.get("bt_page_items") or []:
        tids = it.get("tids")
        high_key = bool(it.get("high_key"))
        counts = leaf and not high_key and it.get("itemlen") is not None
        rows.append({"blkno": blkno, "btpo_level": opaque.get("btpo_level"), "leaf": leaf,
                     "itemoffset": it["itemoffset"], "ctid": it.get("ctid"), "itemlen": it.get("itemlen"),
                     "nulls": it.get("nulls"), "vars": it.get("vars"), "dead": it.get("dead"),
                     "high_key": high_key, "htid": it.get("htid"), "posting": tids is not None,
                     "heap_tids": (len(tids) if tids is not None else int(it.get("htid") is not None))
                     if counts else 0,
                     "key": None if it.get("keys") is None else
                     [k.get("value") for k in it["keys"] if not k.get("truncated")]})
    return rows


def key_printers(attrs, major: int | None):
    """``printers(k)``: the compiled printer of a B-tree's first k attributes (a leaf tuple's keys, k the index's
    key count, or a pivot's that kept k) as ``analysis.btree.keys`` prints them: no catalog, time stamps with time
    zone in UTC; None when it does not print every one's type. Each made once."""
    from functools import lru_cache

    from pgpage.analysis.rowstatus import STATUS_NAMES
    from pgpage.decode.kernels import TABLES
    from pgpage.decode.printer import PrintedTypes
    from pgpage.decode.values import ValueFormatter
    printed = PrintedTypes(ValueFormatter(major=major, timezone="UTC"))

    @lru_cache(maxsize=None)
    def printers(k: int):
        if not attrs or not k:
            return None
        some = list(attrs)[:k]
        return printed.printer(some, list(range(k)), printed.kinds(some), STATUS_NAMES, False, index_tuples=True,
                               typed=[TABLES.TYPED_MODES.index("text")] * k)
    return printers
