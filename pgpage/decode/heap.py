"""Heap pages: heap_page_items and heap_tuple_infomask_flags, from the page image alone.

Follows pageinspect's heap_page_items: a line pointer's tuple header is decoded when the item
has storage, is at least a minimal tuple long, is MAXALIGNed and lies inside the page;
otherwise the tuple columns are None. Unlike pageinspect, an item that breaks those rules is
also reported as a finding.
"""
from __future__ import annotations

from kaitaistruct import KaitaiStructError

from pgpage.decode.flags import HEAP2_XACT_MASK, LP_NORMAL, LP_REDIRECT, LP_UNUSED
from pgpage.decode.ksy.constants import HEAP_MOVED, HEAP_XMAX_SHR_LOCK, HEAP_XMIN_FROZEN, SizeofHeapTupleHeader
from pgpage.decode.ksy.heap_tuple import HeapTuple
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.pagebase import PageContext, flag_names, format_tid, line_pointers, maxalign
from pgpage.decode.vector import MIN_HEAP_TUPLE_SIZE   # pageinspect's lower bound of a tuple's lp_len
from pgpage.findings import WARNING, a_or_an

INFOMASK_NAMES = ENUMS["heap_tuple::infomask_flags"]
INFOMASK2_NAMES = ENUMS["heap_tuple::infomask2_flags"]
# heap_tuple_infomask_flags' combined flags: multi-bit values, reported when every bit is set
COMBINED_FLAGS = [(HEAP_XMAX_SHR_LOCK, "HEAP_XMAX_SHR_LOCK"), (HEAP_XMIN_FROZEN, "HEAP_XMIN_FROZEN"),
                  (HEAP_MOVED, "HEAP_MOVED")]


def infomask_flags(t_infomask: int, t_infomask2: int, major: int | None = None) -> tuple[list[str], list[str]]:
    """(raw_flags, combined_flags) exactly as pageinspect's heap_tuple_infomask_flags gives them."""
    raw = flag_names(t_infomask, INFOMASK_NAMES)
    if major is not None and major < 12:
        raw = ["HEAP_HASOID" if f == "HEAP_HASOID_OLD" else f for f in raw]
    raw += flag_names(t_infomask2 & HEAP2_XACT_MASK, INFOMASK2_NAMES)
    combined = [name for mask, name in COMBINED_FLAGS if t_infomask & mask == mask]
    return raw, combined


def null_bitmap_text(t_bits: bytes) -> str:
    """pageinspect's t_bits: every bit of the BITMAPLEN(natts) bytes, '1' = not null (attribute i+1)."""
    return "".join("1" if t_bits[i >> 3] & (1 << (i & 7)) else "0" for i in range(len(t_bits) * 8))


def decode_heap_page(parsed, raw: bytes, ctx: PageContext, page: dict, find) -> None:
    """Fill ``page["heap_page_items"]`` and report line pointer and tuple header problems."""
    header = parsed.header
    items = []
    nitems = len(parsed.linp)
    for lp in line_pointers(parsed):
        off, flags, length, n = lp["lp_off"], lp["lp_flags"], lp["lp_len"], lp["lp"]
        lp.update(t_xmin=None, t_xmax=None, t_field3=None, t_ctid=None, t_infomask2=None, t_infomask=None,
                  t_hoff=None, t_bits=None, t_oid=None, t_data=None, raw_flags=None, combined_flags=None)
        items.append(lp)
        if flags == LP_REDIRECT and (off < 1 or off > nitems):
            find("heap.lp.bad_redirect", f"redirect to item {off}, the page has {nitems}", item=n, actual=off)
        if length == 0:
            if flags == LP_NORMAL:
                find("heap.lp.normal_without_storage", "LP_NORMAL line pointer with lp_len 0", item=n)
            if flags == LP_UNUSED and off:
                find("heap.lp.unused_with_offset", f"LP_UNUSED line pointer has lp_off {off}", item=n,
                     severity=WARNING)
            continue  # no storage: nothing more to read
        if flags in (LP_UNUSED, LP_REDIRECT):
            find("heap.lp.unexpected_storage", f"{lp['lp_flags_name']} line pointer has lp_len {length}", item=n,
                 actual=length)
        # From here on pageinspect's rule: an item with storage gets its tuple header read when it is
        # long enough, MAXALIGNed and inside the page (vector.tuple_has_header says the same).
        if off + length > len(raw) or off < header.pd_upper or off + length > header.pd_special:
            find("heap.lp.out_of_bounds", f"item {off}..{off + length} lies outside the tuple space"
                 f" {header.pd_upper}..{header.pd_special}", item=n, actual=[off, length])
            if off + length > len(raw):
                continue
        if off != maxalign(off):
            find("heap.lp.misaligned", f"lp_off {off} is not MAXALIGNed", item=n, actual=off)
            continue
        if length < MIN_HEAP_TUPLE_SIZE:
            find("heap.tuple.too_short", f"lp_len {length} is shorter than a tuple header ({MIN_HEAP_TUPLE_SIZE})",
                 item=n, actual=length)
            continue
        _decode_tuple_header(raw[off:off + length], lp, ctx, find, n)
    page["heap_page_items"] = items


def _decode_tuple_header(data: bytes, lp: dict, ctx: PageContext, find, n: int) -> None:
    try:
        tup = HeapTuple.from_bytes(data)
    except (KaitaiStructError, EOFError) as e:
        find("heap.tuple.undecodable", f"tuple header could not be read: {e}", item=n)
        return
    ctid = tup.t_ctid
    lp.update(t_xmin=tup.t_xmin, t_xmax=tup.t_xmax, t_field3=tup.t_field3,
              t_ctid=format_tid(ctid.block_number, ctid.ip_posid),
              t_infomask2=tup.t_infomask2, t_infomask=tup.t_infomask, t_hoff=tup.t_hoff)
    lp["raw_flags"], lp["combined_flags"] = infomask_flags(tup.t_infomask, tup.t_infomask2, ctx.major)
    natts = tup.natts
    bitmap_len = (natts + 7) // 8 if tup.has_nulls else 0
    if tup.t_hoff < SizeofHeapTupleHeader + bitmap_len or tup.t_hoff > len(data) or tup.t_hoff != maxalign(tup.t_hoff):
        find("heap.tuple.bad_hoff", f"t_hoff {tup.t_hoff} does not fit a header with {natts} attributes"
             f"{' and a null bitmap' if tup.has_nulls else ''} in {a_or_an(f'{len(data)}-byte')} item",
             item=n, actual=tup.t_hoff)
    elif tup.has_nulls:
        lp["t_bits"] = null_bitmap_text(tup.t_bits)
    if tup.has_oid_old and tup.oid is not None:
        lp["t_oid"] = tup.oid
    if SizeofHeapTupleHeader <= tup.t_hoff <= len(data):
        lp["t_data"] = data[tup.t_hoff:].hex()
