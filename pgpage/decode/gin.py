"""GIN pages under pageinspect's names: gin_metapage_info, gin_page_opaque_info, gin_leafpage_items, and
what pageinspect does not show: posting tree downlinks, entry tree tuples (key, null category, posting list or
posting tree root, downlink) and the pending list's tuples.

Layouts come from formats/gin_page.ksy (``LAYOUTS``, constants); posting lists are varbyte-encoded deltas
(ginpostinglist.c), decoded here with numpy so that whole-index passes (``passes.gin``) use the same code
as one page: ``page_items`` needs no Kaitai object and serves both.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.indextuple import (SIZEOF_INDEX_TUPLE, attribute_of, data_offset, deform_index_tuple, read_tid,
                                      t_info, tid_text, tuple_size, value_text)
from pgpage.decode.ksy.constants import (GIN_CAT_NORM_KEY, GIN_COMPRESSED, GIN_DATA, GIN_DELETED,
                                         GIN_INCOMPLETE_SPLIT, GIN_ITUP_COMPRESSED, GIN_LEAF, GIN_LIST,
                                         GIN_LIST_FULLROW, GIN_META, GIN_TREE_POSTING, INDEX_NULL_MASK,
                                         SIZEOF_GinPostingList, SIZEOF_ItemPointerData, SIZEOF_PostingItem,
                                         SizeOfPageHeaderData, MaxHeapTuplesPerPageBits)
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.ksy.type_oids import INT2OID
from pgpage.decode.pagebase import PageContext, format_tid, line_pointers, maxalign

OPAQUE = LAYOUTS["gin_page::gin_page_opaque_data"]
META = LAYOUTS["gin_page::gin_meta_page_data"]
CATEGORY_NAMES = {v: k.lower().removeprefix("gin_cat_") for v, k in ENUMS["gin_page::gin_null_category"].items()}
# pageinspect's gin_page_opaque_info names, by bit
FLAG_WORDS = {GIN_DATA: "data", GIN_LEAF: "leaf", GIN_DELETED: "deleted", GIN_META: "meta", GIN_LIST: "list",
              GIN_LIST_FULLROW: "list_fullrow", GIN_INCOMPLETE_SPLIT: "incomplete_split",
              GIN_COMPRESSED: "compressed"}
# gin_metapage_info's columns, from GinMetaPageData's fields
META_COLUMNS = {"head": "pending_head", "tail": "pending_tail", "tail_free_size": "tail_free_size",
                "n_pending_pages": "n_pending_pages", "n_pending_heap_tuples": "n_pending_tuples",
                "n_total_pages": "n_total_pages", "n_entry_pages": "n_entry_pages", "n_data_pages": "n_data_pages",
                "n_entries": "n_entries", "gin_version": "version"}
# posting tree pages: the right bound (an ItemPointerData MAXALIGNed) before the data (GinDataPageGetData)
DATA_START = SizeOfPageHeaderData + maxalign(SIZEOF_ItemPointerData)
OFFSET_BITS = MaxHeapTuplesPerPageBits
OFFSET_MASK = (1 << OFFSET_BITS) - 1
MAX_VARBYTE = 6   # 43-bit item pointers take at most 6 bytes; the 6th has no continuation bit


def opaque_of(raw) -> tuple[int, int, int]:
    """(rightlink, maxoff, flags) of the GinPageOpaqueData in the page's last 8 bytes."""
    base = len(raw) - OPAQUE["size"]
    f = OPAQUE["fields"]
    return (int.from_bytes(raw[base + f["rightlink"][0]:base + f["rightlink"][0] + 4], "little"),
            int.from_bytes(raw[base + f["maxoff"][0]:base + f["maxoff"][0] + 2], "little"),
            int.from_bytes(raw[base + f["flags"][0]:base + f["flags"][0] + 2], "little"))


def flag_words(flags: int) -> list[str]:
    """gin_page_opaque_info's flags: names in bit order, then any unknown bits as one hex word (to_hex32)."""
    out = [w for bit, w in FLAG_WORDS.items() if flags & bit]
    rest = flags & ~sum(FLAG_WORDS)
    if rest:
        out.append(f"{rest:x}")
    return out


def page_kind(flags: int) -> str:
    """What a GIN page holds, by its flags."""
    if flags & GIN_META:
        return "meta"
    if flags & GIN_DELETED:
        return "deleted"
    if flags & GIN_LIST:
        return "list"
    if flags & GIN_DATA:
        if not flags & GIN_LEAF:
            return "data_internal"
        return "data_leaf" if flags & GIN_COMPRESSED else "data_leaf_uncompressed"
    return "entry_leaf" if flags & GIN_LEAF else "entry_internal"


# page kinds by code (``page_kinds``): "other" (not a GIN page) and "new" for the passes that meet them
KINDS = ("other", "new", "meta", "deleted", "list", "data_internal", "data_leaf", "data_leaf_uncompressed",
         "entry_internal", "entry_leaf")
_KIND = {k: i for i, k in enumerate(KINDS)}


def page_kinds(flags: np.ndarray) -> np.ndarray:
    """page_kind of every page's flags, as codes into KINDS."""
    data_leaf = np.where(flags & GIN_COMPRESSED != 0, _KIND["data_leaf"], _KIND["data_leaf_uncompressed"])
    data = np.where(flags & GIN_LEAF != 0, data_leaf, _KIND["data_internal"])
    entry = np.where(flags & GIN_LEAF != 0, _KIND["entry_leaf"], _KIND["entry_internal"])
    return np.select([flags & GIN_META != 0, flags & GIN_DELETED != 0, flags & GIN_LIST != 0, flags & GIN_DATA != 0],
                     [_KIND["meta"], _KIND["deleted"], _KIND["list"], data], entry).astype(np.uint8)


def metapage_info(raw) -> dict:
    """gin_metapage_info."""
    out = {}
    for field, column in META_COLUMNS.items():
        off, kind = META["fields"][field]
        width = int(kind[1:])
        out[column] = int.from_bytes(raw[SizeOfPageHeaderData + off:SizeOfPageHeaderData + off + width], "little",
                                     signed=kind.startswith("s"))
    return out


# ------------------------------------------------------------------------- posting lists
class PostingListError(ValueError):
    pass


def _varbyte_scalar(b: bytes) -> list[int]:
    """decode_varbyte over a whole buffer, as PostgreSQL reads it (short buffers, and what numpy cannot group)."""
    out, i = [], 0
    while i < len(b):
        val, shift = 0, 0
        for k in range(MAX_VARBYTE):
            if i >= len(b):
                raise PostingListError("the last varbyte item runs past the segment's end")
            c = b[i]
            i += 1
            if k == MAX_VARBYTE - 1:
                val |= c << shift
                break
            val |= (c & 0x7F) << shift
            shift += 7
            if not c & 0x80:
                break
        out.append(val)
    return out


def varbyte_deltas(b: bytes) -> np.ndarray:
    """The integers of a varbyte-encoded buffer (each 7 data bits a byte, low first, a set high bit meaning
    more follow). Raises PostingListError when the last one is cut off."""
    a = np.frombuffer(b, dtype=np.uint8)
    if not len(a):
        return np.zeros(0, dtype=np.uint64)
    ends = np.flatnonzero(a < 0x80)
    starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else np.zeros(0, dtype=np.int64)
    if not len(ends) or ends[-1] != len(a) - 1 or (ends - starts).max() >= MAX_VARBYTE:
        return np.array(_varbyte_scalar(b), dtype=np.uint64)    # a 6-byte item or a cut-off end
    position = np.arange(len(a)) - np.repeat(starts, ends - starts + 1)
    parts = (a & 0x7F).astype(np.uint64) << (7 * position).astype(np.uint64)
    return np.add.reduceat(parts, starts)


def tid_value(block: int, offset: int) -> int:
    """itemptr_to_uint64."""
    return block << OFFSET_BITS | offset


SMALL_SEGMENT = 256   # encoded bytes below which a segment is decoded in plain Python (numpy's set-up costs more)


def segment_values(raw, at: int, end: int):
    """The item pointers (as tid_value integers: a list for a short segment, else a numpy uint64 array) of the
    compressed segment at ``at`` and the offset of the next one. Raises PostingListError when the segment does
    not fit before ``end``."""
    if at + SIZEOF_GinPostingList > end:
        raise PostingListError(f"a posting list header at {at} does not fit before {end}")
    first = tid_value(*read_tid(raw, at))
    nbytes = raw[at + 6] | raw[at + 7] << 8
    stop = at + SIZEOF_GinPostingList + nbytes
    if stop > end:
        raise PostingListError(f"a posting list of {nbytes} bytes at {at} runs past {end}")
    data = bytes(raw[at + SIZEOF_GinPostingList:stop])
    if nbytes < SMALL_SEGMENT:
        values = [first]
        for d in _varbyte_scalar(data):
            values.append(values[-1] + d)
        return values, stop + (nbytes & 1)
    deltas = varbyte_deltas(data)
    values = np.empty(len(deltas) + 1, dtype=np.uint64)
    values[0] = first
    np.cumsum(deltas, out=values[1:])
    values[1:] += np.uint64(first)
    return values, stop + (nbytes & 1)   # SHORTALIGN


def tid_texts(values: np.ndarray) -> list[str]:
    return [format_tid(int(v) >> OFFSET_BITS, int(v) & OFFSET_MASK) for v in values]


def iter_segments(raw) -> tuple[list[tuple[np.ndarray, int]], str | None]:
    """The segments of a compressed posting tree leaf up to pd_lower, as (item pointer values, offset), and why
    decoding stopped early (None when every segment decoded)."""
    lower = raw[12] | raw[13] << 8
    end = min(lower, len(raw) - OPAQUE["size"])
    out, at = [], DATA_START
    while at < end:
        try:
            values, nxt = segment_values(raw, at, end)
        except PostingListError as e:
            return out, str(e)
        out.append((values, at))
        at = nxt
    return out, None


def leaf_segments(raw) -> tuple[list[dict], str | None]:
    """gin_leafpage_items of a compressed posting tree leaf, and why decoding stopped early."""
    segments, error = iter_segments(raw)
    return [{"first_tid": tid_text(raw, at), "nbytes": raw[at + 6] | raw[at + 7] << 8, "tids": tid_texts(values),
             "offset": at} for values, at in segments], error


def uncompressed_tids(raw, maxoff: int) -> list[str]:
    """The ItemPointerData array of a pre-9.4 posting tree leaf (``maxoff`` of them), cut at the special space."""
    n = max(0, min(maxoff, (len(raw) - OPAQUE["size"] - DATA_START) // SIZEOF_ItemPointerData))
    return [tid_text(raw, DATA_START + i * SIZEOF_ItemPointerData) for i in range(n)]


def posting_items(raw, maxoff: int) -> list[dict]:
    """The PostingItems of an internal posting tree page (GinDataPageGetPostingItem 1..maxoff)."""
    n = max(0, min(maxoff, (len(raw) - OPAQUE["size"] - DATA_START) // SIZEOF_PostingItem))
    f = LAYOUTS["gin_page::gin_posting_item"]["fields"]
    out = []
    for i in range(n):
        at = DATA_START + i * SIZEOF_PostingItem
        hi = int.from_bytes(raw[at + f["child_blkno_hi"][0]:at + f["child_blkno_hi"][0] + 2], "little")
        lo = int.from_bytes(raw[at + f["child_blkno_lo"][0]:at + f["child_blkno_lo"][0] + 2], "little")
        out.append({"itemoffset": i + 1, "child_blkno": hi << 16 | lo, "key": tid_text(raw, at + f["key"][0])})
    return out


# ------------------------------------------------------------------------- entry and pending list tuples
def _key_attrs(columns, attnum: int | None):
    """The attributes a GIN tuple of column ``attnum`` is formed with: [int2 attnum,] key (ginstate->tupdesc)."""
    key = columns[attnum - 1] if attnum is not None and 0 < attnum <= len(columns) else None
    return [attribute_of(INT2OID, "attnum"), key] if len(columns) > 1 else [key]


def tuple_key(tup: bytes, columns, major: int | None, end: int) -> dict:
    """The attnum, null category and key (as text, or its bytes in hex when the key type is not known) of an
    entry or pending list tuple. ``columns``: the index's (``PageContext.index_columns``)."""
    info = t_info(tup)
    start = data_offset(info)
    multi = len(columns) > 1
    out = {"attnum": 1 if len(columns) == 1 else None, "category": "norm_key", "key": None}
    if multi:
        (att,) = deform_index_tuple(tup, _key_attrs(columns, None)[:1], end)
        out["attnum"] = int.from_bytes(att.raw, "little", signed=True) if att.raw is not None else None
    if info & INDEX_NULL_MASK:    # GinGetNullCategory: a byte after [attnum], where the key would start
        at = start + (2 if multi else 0)
        cat = tup[at] if at < len(tup) else None
        out["category"] = CATEGORY_NAMES.get(cat, cat)
        return out
    attrs = _key_attrs(columns, out["attnum"]) if columns else []
    if not columns or attrs[-1] is None:
        out["key_data"] = bytes(tup[start:end]).hex()
        return out
    text, ok = value_text(deform_index_tuple(tup, attrs, end)[-1], major)
    out["key"] = text
    if not ok:
        out["key_error"] = True
    return out


ALIGN = {"c": 1, "s": 2, "i": 4, "d": 8}


def key_datum(tup: bytes, columns, end: int) -> tuple[int, int, bytes | None] | None:
    """(attnum, null category, the key datum's exact bytes or None) of an entry or pending tuple, read directly
    (the fast path of tuple_key, for whole-index passes); None when the bytes do not hold them."""
    info = t_info(tup)
    off = data_offset(info)
    attnum = 1
    if len(columns) > 1:
        if off + 2 > end:
            return None
        attnum = int.from_bytes(tup[off:off + 2], "little", signed=True)
        if not 0 < attnum <= len(columns):
            return None
        off += 2
    if info & INDEX_NULL_MASK:
        return (attnum, tup[off], None) if off < len(tup) else None
    col = columns[attnum - 1]
    if col.attlen > 0:
        a = ALIGN.get(col.attalign, 1)
        off = (off + a - 1) // a * a
        size = col.attlen
    else:
        if off >= end:
            return None
        if tup[off] & 1:                  # a 1-byte varlena header: not aligned
            size = tup[off] >> 1 if tup[off] != 1 else 0
        else:
            off = (off + 3) // 4 * 4
            if off + 4 > end:
                return None
            size = int.from_bytes(tup[off:off + 4], "little") >> 2
    if size <= 0 or off + size > end:
        return None
    return attnum, GIN_CAT_NORM_KEY, bytes(tup[off:off + size])


def plain_payload(datum: bytes) -> bytes | None:
    """The payload of a varlena datum stored inline and uncompressed (a 1-byte or 4-byte header), else None."""
    if datum[0] & 1:
        return datum[1:] if datum[0] != 1 else None       # 0x01: an external TOAST pointer
    return datum[4:] if not datum[0] & 3 else None        # 0b10: compressed


def entry_tuple(raw, lp: dict, leaf: bool, columns, major: int | None) -> dict:
    """One entry tree tuple: its key, and a downlink (internal), a posting tree root, or its posting list."""
    off, length = lp["lp_off"], lp["lp_len"]
    tup = raw[off:off + length]
    row = {"itemoffset": lp["lp"], "lp_flags": lp["lp_flags"], "itemlen": None}
    if length < SIZEOF_INDEX_TUPLE or off < SizeOfPageHeaderData or off + length > len(raw) - OPAQUE["size"]:
        row["error"] = "out_of_bounds"
        return row
    info = t_info(tup)
    size = tuple_size(info)
    row["itemlen"] = size
    block, posid = read_tid(tup, 0)
    end = min(size, length)
    if not leaf:
        row["downlink"] = block
    elif posid == GIN_TREE_POSTING:
        row["posting_tree_root"] = block
    else:
        posting_at = block & ~GIN_ITUP_COMPRESSED
        row["nposting"] = posid
        row["compressed"] = bool(block & GIN_ITUP_COMPRESSED)
        end = min(posting_at, end)
        row.update(_entry_posting_list(tup, posting_at, posid, row["compressed"], min(size, length)))
    row.update(tuple_key(tup, columns, major, end))
    return row


def _entry_posting_list(tup, at: int, n: int, compressed: bool, size: int) -> dict:
    """ginReadTuple: a compressed segment (one) or ``n`` plain item pointers at ``at``."""
    if n == 0:
        return {"tids": []}
    if not compressed:
        if at + n * SIZEOF_ItemPointerData > size:
            return {"tids": None, "posting_error": f"{n} item pointers at {at} run past the tuple's {size} bytes"}
        return {"tids": [tid_text(tup, at + i * SIZEOF_ItemPointerData) for i in range(n)]}
    try:
        values, _ = segment_values(tup, at, size)
    except PostingListError as e:
        return {"tids": None, "posting_error": str(e)}
    out = {"tids": tid_texts(values)}
    if len(values) != n:
        out["posting_error"] = f"{n} items in the tuple header, {len(values)} decoded"
    return out


def pending_tuple(raw, lp: dict, columns, major: int | None) -> dict:
    """One pending list tuple (ginHeapTupleFastCollect): its heap TID and key."""
    off, length = lp["lp_off"], lp["lp_len"]
    tup = raw[off:off + length]
    row = {"itemoffset": lp["lp"], "lp_flags": lp["lp_flags"], "itemlen": None, "ctid": None}
    if length < SIZEOF_INDEX_TUPLE or off < SizeOfPageHeaderData or off + length > len(raw) - OPAQUE["size"]:
        row["error"] = "out_of_bounds"
        return row
    size = tuple_size(t_info(tup))
    row["itemlen"] = size
    row["ctid"] = tid_text(tup, 0)
    row.update(tuple_key(tup, columns, major, min(size, length)))
    return row


# ------------------------------------------------------------------------- one page
def decode_gin_page(parsed_page, raw: bytes, ctx: PageContext, page: dict, find) -> None:
    """``pgpage page`` of a GIN page: pageinspect's functions where it has them, the items where it has not."""
    rightlink, maxoff, flags = opaque_of(raw)
    kind = page_kind(flags)
    page["gin_page_opaque_info"] = {"rightlink": rightlink, "maxoff": maxoff, "flags": flag_words(flags),
                                    "flag_bits": flags, "kind": kind}
    if kind == "meta":
        page["gin_metapage_info"] = metapage_info(raw)
    elif kind == "data_leaf":
        rows, error = leaf_segments(raw)
        page["right_bound"] = tid_text(raw, SizeOfPageHeaderData)
        page["gin_leafpage_items"] = rows
        if error:
            find("gin.posting.undecodable", f"posting list segment {len(rows) + 1}: {error}",
                 item=len(rows) + 1)
    elif kind == "data_leaf_uncompressed":
        page["right_bound"] = tid_text(raw, SizeOfPageHeaderData)
        page["gin_data_leaf_tids"] = uncompressed_tids(raw, maxoff)
    elif kind == "data_internal":
        page["right_bound"] = tid_text(raw, SizeOfPageHeaderData)
        page["gin_posting_items"] = posting_items(raw, maxoff)
    elif kind in ("entry_leaf", "entry_internal", "list"):
        columns = ctx.index_columns
        rows = []
        for lp in line_pointers(parsed_page):
            row = (pending_tuple(raw, lp, columns, ctx.major) if kind == "list"
                   else entry_tuple(raw, lp, kind == "entry_leaf", columns, ctx.major))
            if row.get("error"):
                find("gin.item.out_of_bounds", f"item {lp['lp_off']}..{lp['lp_off'] + lp['lp_len']} is not a"
                     " tuple inside the page's tuple space", item=lp["lp"], actual=[lp["lp_off"], lp["lp_len"]])
            elif row.get("posting_error"):
                find("gin.posting.undecodable", row["posting_error"], item=lp["lp"])
            rows.append(row)
        page["gin_pending_items" if kind == "list" else "gin_entry_items"] = rows
