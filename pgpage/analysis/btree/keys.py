"""One index page a person looks at: decoded as ``pgpage page`` decodes it, each item with its key
columns decoded with the index's attributes (pivots' truncated attributes, NULLs, minus infinity)."""
from __future__ import annotations

from typing import Sequence

from pgpage.analysis.btree.pages import (BTP_LEAF, INDEX_NULL_MASK, INDEX_SIZE_MASK, P_NONE, SIZE_OF_ITEM_POINTER,
                                         SIZE_OF_PAGE_HEADER)
from pgpage.decode.deform import deform_tuple
from pgpage.decode.pagebase import PageContext
from pgpage.decode.vector import line_pointer_fields


def index_datums(raw: bytes, attrs: Sequence, natts: int, end: int | None = None) -> tuple:
    """The first ``natts`` attributes of one index tuple (its exact bytes; ``end``: where its key data
    ends, before a posting list or a pivot's heap TID), deformed as a heap tuple's (``deform.AttrDatum``)."""
    info = int.from_bytes(raw[6:8], "little")
    has_nulls = bool(info & INDEX_NULL_MASK)
    start = 16 if has_nulls else 8
    bitmap = raw[8:12] if has_nulls and len(raw) >= 12 else None
    pad = b"\0" * 16  # deform_tuple wants a heap-sized header before the data; alignment is data-relative
    end = len(raw) if end is None else end
    return deform_tuple(pad + bytes(raw[:max(end, start)]), start + 16, natts, list(attrs),
                        null_bitmap=bitmap).attrs


def decode_index_keys(raw: bytes, attrs: Sequence, major: int | None, pivot_natts: int | None = None,
                      posting_offset: int | None = None, heap_tid_attr: bool = False) -> list[dict]:
    """The key columns of one index tuple (its exact bytes), decoded with the index's
    attributes (``deform.Attribute``, attnum order). A pivot's truncated attributes come back
    as ``truncated`` (minus infinity for the search), NULLs as ``null``."""
    from pgpage.decode.datum import Unreadable, to_pg_text, type_info, unreadable_part
    from pgpage.decode.deform import NULL, VALUE, decode_attr
    if len(raw) < 8:
        return []
    info = int.from_bytes(raw[6:8], "little")
    size = min(info & INDEX_SIZE_MASK, len(raw))
    end = size
    if posting_offset is not None:
        end = min(posting_offset, size)
    elif heap_tid_attr:
        end = size - SIZE_OF_ITEM_POINTER
    natts = len(attrs) if pivot_natts is None else min(pivot_natts, len(attrs))
    deformed_attrs = index_datums(raw, attrs, natts, end)
    out = []
    for i, a in enumerate(deformed_attrs):
        t = type_info(a.typid)
        row = {"attnum": a.attnum, "name": a.name, "type": t.name if t else str(a.typid)}
        if i >= natts:
            row["truncated"] = True
            row["value"] = None
        elif a.status == NULL:
            row["null"] = True
            row["value"] = None
        else:
            v = decode_attr(a, major=major)
            text = (unreadable_part(v) or to_pg_text(a.typid, v)) if a.status == VALUE else v
            row["value"] = text if text is None or isinstance(text, str) else None   # damaged bytes are no value
            if a.status != VALUE or isinstance(text, Unreadable):
                row["error"] = text.message if isinstance(text, Unreadable) else True
        out.append(row)
    return out


def page_view(raw: bytes, blkno: int, ctx: PageContext, attrs: Sequence | None) -> dict:
    """One index page decoded as ``pgpage page`` does (pageinspect's names), each item with its
    key columns decoded beside the raw ``data`` when the index's attributes are known."""
    from pgpage.decode.page import decode_page
    page = decode_page(raw, blkno, ctx)
    items = page.get("bt_page_items") or []
    if not attrs or not items:
        return page
    from kaitaistruct import KaitaiStructError
    from pgpage.decode.ksy.nbtree import Nbtree
    opaque = page.get("bt_page_opaque") or {}
    internal = not opaque.get("btpo_flags", 0) & BTP_LEAF
    first_data = 1 if opaque.get("btpo_next") == P_NONE else 2  # P_FIRSTDATAKEY
    for it in items:
        if it.get("itemlen") is None:
            continue
        n = it["itemoffset"]
        lp = int.from_bytes(raw[SIZE_OF_PAGE_HEADER + 4 * (n - 1):SIZE_OF_PAGE_HEADER + 4 * n], "little")
        off, _, length = line_pointer_fields(lp)
        tup_raw = raw[off:off + length]
        try:
            tup = Nbtree.BtIndexTuple.from_bytes(tup_raw)
            pivot_natts = tup.n_key_atts if tup.is_pivot else None
            if internal and n == first_data:
                pivot_natts = 0  # "minus infinity": no key at all (version 2/3 pivots carry no count)
            it["keys"] = decode_index_keys(tup_raw, attrs, ctx.major, pivot_natts=pivot_natts,
                                           posting_offset=tup.posting_offset if tup.is_posting else None,
                                           heap_tid_attr=bool(tup.has_heap_tid_attr))
        except (KaitaiStructError, EOFError, ValueError):
            it["keys"] = None
    return page
