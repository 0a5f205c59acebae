"""Which structure each byte of a page belongs to, for `pgpage page --hex` (as pg_filedump -f and pg_hexedit show).

The map is built from the page ``decode.page`` decoded (its header, line pointers, tuple headers), so it says
exactly what the decoded fields say: a range per structure, ``[start, end)`` in page offsets, with the line
pointer it belongs to. Ranges may overlap or leave gaps on a damaged page (two line pointers to the same bytes,
an item past pd_special): the map reports what the pointers claim, the bytes decide nothing.
"""
from __future__ import annotations

from pgpage.decode.flags import LP_REDIRECT
from pgpage.decode.ksy.constants import (INDEX_NULL_MASK, SIZEOF_IndexTupleData as INDEX_TUPLE_HEADER,
                                         SIZEOF_ItemIdData as ITEM_ID, SIZEOF_ItemPointerData as ITEM_POINTER,
                                         SizeofHeapTupleHeader as HEAP_TUPLE_HEADER,
                                         SizeOfPageHeaderData as PAGE_HEADER)
from pgpage.decode.pagebase import maxalign
from pgpage.decode.vector import line_pointer_fields

INDEX_BITMAP = 4             # IndexAttributeBitMapData: INDEX_MAX_KEYS / 8 bytes
OID = 4


def _r(start: int, end: int, structure: str, lp: int | None = None) -> dict:
    return {"start": start, "end": end, "structure": structure, "lp": lp}


def page_ranges(raw: bytes, page: dict) -> list[dict]:
    """The byte ranges of one decoded page, sorted by offset; each {start, end, structure, lp}."""
    size = len(raw)
    h = page.get("page_header")
    kind = page.get("page_type")
    if h is None or kind in ("new", "truncated", "unknown"):
        return [_r(0, size, "page" if kind != "new" else "zeroes")] if size else []
    lower, upper, special = h["lower"], h["upper"], h["special"]
    ranges = [_r(0, min(PAGE_HEADER, size), "page_header")]
    if kind == "vm":  # the map is the page's contents after the (MAXALIGNed) header
        ranges.append(_r(maxalign(PAGE_HEADER), size, "visibility_map"))
        return ranges
    if kind == "fsm":  # FSMPageData: fp_next_slot, then the binary tree of categories
        ranges += [_r(PAGE_HEADER, PAGE_HEADER + 4, "fp_next_slot"), _r(PAGE_HEADER + 4, size, "fsm_nodes")]
        return ranges
    lp_end = min(max(lower, PAGE_HEADER), size)
    contents = _contents(kind, page)
    if contents:  # a page whose contents are one struct, not line pointers (pd_lower ends the struct)
        if lp_end > PAGE_HEADER:
            ranges.append(_r(PAGE_HEADER, lp_end, contents))
        lp_end = PAGE_HEADER
    for n, start in enumerate(range(PAGE_HEADER, lp_end - ITEM_ID + 1, ITEM_ID), start=1):
        ranges.append(_r(start, start + ITEM_ID, "line_pointer", n))
    if lower < upper <= size:
        ranges.append(_r(lower, upper, "free_space"))
    if special < size:
        ranges.append(_r(special, size, "special"))
    for lp, off, length, item in _items(raw, page, lp_end):
        if length == 0 or off >= size:
            continue
        end = min(off + length, size)
        if "t_hoff" in item:
            ranges += _heap_tuple(off, end, item, lp)
        elif "itemoffset" in item:
            ranges += _index_tuple(raw, off, end, item, lp)
        else:
            ranges.append(_r(off, end, "item", lp))
    _fill_tuple_space(ranges, upper, min(special, size))
    ranges.sort(key=lambda r: (r["start"], -r["end"]))
    return ranges


def hex_records(raw: bytes, page: dict, item: int | None = None) -> list[dict]:
    """`--hex`'s records: the page's ranges (or only those of line pointer ``item``), each with its bytes in hex."""
    ranges = page_ranges(raw, page)
    if item is not None:
        ranges = [r for r in ranges if r["lp"] == item]
    for r in ranges:
        r["hex"] = raw[r["start"]:r["end"]].hex()
    return ranges


def _contents(kind: str, page: dict) -> str | None:
    if kind == "btree_meta" or "meta" in page:
        return "metapage"
    if kind == "btree_deleted" and not page.get("bt_page_items"):
        return "deleted_page_data"  # 14+: BTDeletedPageData (safexid) instead of items
    if kind == "brin_revmap":
        return "revmap"
    return None


def _items(raw: bytes, page: dict, lp_end: int):
    """(lp, lp_off, lp_len, the decoder's row) of every line pointer (ItemIdData: 15 + 2 + 15 bits)."""
    rows = page.get("heap_page_items") or page.get("bt_page_items") or []
    for n, start in enumerate(range(PAGE_HEADER, lp_end - ITEM_ID + 1, ITEM_ID), start=1):
        word = int.from_bytes(raw[start:start + ITEM_ID], "little")
        off, flags, length = line_pointer_fields(word)
        yield n, off, length if flags != LP_REDIRECT else 0, rows[n - 1] if n <= len(rows) else {}


def _heap_tuple(off: int, end: int, it: dict, lp: int) -> list[dict]:
    if it["t_hoff"] is None:  # no readable tuple header (too short, misaligned...): the item as a whole
        return [_r(off, end, "item", lp)]
    hoff = it["t_hoff"]
    out = [_r(off, min(off + HEAP_TUPLE_HEADER, end), "tuple_header", lp)]
    at = off + HEAP_TUPLE_HEADER
    if it["t_bits"] is not None:
        bitmap_end = at + len(it["t_bits"]) // 8
        out.append(_r(at, bitmap_end, "null_bitmap", lp))
        at = bitmap_end
    data = min(off + hoff, end)
    if it["t_oid"] is not None:  # pre-12 WITH OIDS: the oid is the header's last 4 bytes
        if at < data - OID:
            out.append(_r(at, data - OID, "padding", lp))
        out.append(_r(data - OID, data, "oid", lp))
    elif at < data:
        out.append(_r(at, data, "padding", lp))
    if data < end:
        out.append(_r(data, end, "tuple_data", lp))
    return out


def _index_tuple(raw: bytes, off: int, end: int, row: dict, lp: int) -> list[dict]:
    if row["itemlen"] is None:
        return [_r(off, end, "item", lp)]
    t_info = int.from_bytes(raw[off + 6:off + 8], "little")
    out = [_r(off, off + INDEX_TUPLE_HEADER, "tuple_header", lp)]
    at = off + INDEX_TUPLE_HEADER
    if t_info & INDEX_NULL_MASK:
        out.append(_r(at, at + INDEX_BITMAP, "null_bitmap", lp))
        at += INDEX_BITMAP
    data = off + maxalign(at - off)  # IndexInfoFindDataOffset
    if at < data:
        out.append(_r(at, data, "padding", lp))
    key_end = data + (len(row["data"]) + 1) // 3 if row["data"] else data
    tup_end = min(off + row["itemlen"], end)
    if key_end > data:
        out.append(_r(data, key_end, "tuple_data", lp))
    if key_end < tup_end:
        rest = "posting_list" if row["tids"] is not None else "heap_tid" if row["htid"] and row.get("natts") is not None \
            else "padding"
        if rest == "heap_tid" and tup_end - key_end > ITEM_POINTER:
            out.append(_r(key_end, tup_end - ITEM_POINTER, "padding", lp))
            key_end = tup_end - ITEM_POINTER
        out.append(_r(key_end, tup_end, rest, lp))
    if tup_end < end:
        out.append(_r(tup_end, end, "padding", lp))
    return out


def _fill_tuple_space(ranges: list[dict], upper: int, special: int) -> None:
    """Bytes of the tuple space no line pointer claims (space a prune or vacuum left): 'unclaimed'."""
    claimed = sorted((r["start"], r["end"]) for r in ranges if r["lp"] is not None and r["structure"] != "line_pointer")
    at = upper
    for start, end in claimed + [(special, special)]:
        if start > at and at < special:
            ranges.append(_r(at, min(start, special), "unclaimed"))
        at = max(at, end)
