"""SP-GiST pages, which pageinspect does not read: the page opaque (flags, nRedirection, nPlaceholder), the
metapage's last-used-page cache, inner tuples (state, allTheSame, prefix, nodes with their downlinks and labels)
and leaf tuples (state, the chain's next offset, the heap TID, the value), REDIRECT/DEAD/PLACEHOLDER tuples
with their pointer and xid. Field names follow spgist_private.h; pg_filedump -i prints the same fields.

Prefix and label types are the opclass config's choice and not in the catalog: they are read for the built-in
opclasses of the index's column type (quad_point_ops: a point prefix, kd_point_ops: a float8 one, told apart by
the prefix's size; text_ops: a text prefix and int2 labels, a char before 11), else shown as bytes.
"""
from __future__ import annotations

import struct

from pgpage.decode.deform import Attribute, deform_tuple
from pgpage.decode.indextuple import SIZEOF_INDEX_TUPLE, read_tid, t_info, tuple_size, value_text
from pgpage.decode.ksy.constants import (INDEX_NULL_MASK, SGLT_HASNULLMASK, SGLT_NEXTOFFSET_MASK, SPGIST_LEAF,
                                         SPGIST_META, SPGIST_NULLS, SIZEOF_SpGistDeadTupleData,
                                         SIZEOF_SpGistInnerTupleData, SIZEOF_SpGistLeafTupleData,
                                         SizeOfPageHeaderData)
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.ksy.type_oids import POINTOID, TEXTOID
from pgpage.decode.pagebase import PageContext, format_tid, line_pointers, maxalign

OPAQUE = LAYOUTS["spgist_page::spgist_page_opaque_data"]
INNER = LAYOUTS["spgist_page::spgist_inner_tuple"]["fields"]
LEAF = LAYOUTS["spgist_page::spgist_leaf_tuple"]["fields"]
DEAD = LAYOUTS["spgist_page::spgist_dead_tuple"]["fields"]
STATES = {v: k.lower().removeprefix("spgist_") for v, k in ENUMS["spgist_page::spgist_tuple_state"].items()}
FLAG_WORDS = {bit: name.lower().removeprefix("spgist_") for bit, name in ENUMS["spgist_page::spgist_flags"].items()}
SPGIST_LIVE = 0
SGITHDRSZ = maxalign(SIZEOF_SpGistInnerTupleData)
SGLTHDRSZ = maxalign(SIZEOF_SpGistLeafTupleData)
LEAF_NULLS_SINCE = 14          # t_info's nulls-bitmap bit (before: t_info is nextOffset alone)
INT2_LABELS_SINCE = 11         # text_ops' labels: int2 from 11, "char" before
DATUM_SIZE = 8                 # a pass-by-value prefix or label is stored as a Datum


def _bits(word: int, fields: dict, name: str) -> int:
    _, (_, shift, width) = fields[name]
    return word >> shift & ((1 << width) - 1)


def opaque_of(raw) -> dict:
    base = len(raw) - OPAQUE["size"]
    return {name: int.from_bytes(raw[base + off:base + off + 2], "little")
            for name, (off, _) in OPAQUE["fields"].items()}


def flag_words(flags: int) -> list[str]:
    out = [w for bit, w in FLAG_WORDS.items() if flags & bit]
    rest = flags & ~sum(FLAG_WORDS)
    if rest:
        out.append(f"{rest:x}")
    return out


def metapage_info(raw) -> dict:
    meta = LAYOUTS["spgist_page::spgist_meta_page_data"]
    base = SizeOfPageHeaderData
    magic = int.from_bytes(raw[base:base + 4], "little")
    off, (_, _, count) = meta["fields"]["last_used_pages"]
    pages = []
    for i in range(count):
        at = base + off + 8 * i
        pages.append({"blkno": int.from_bytes(raw[at:at + 4], "little"),
                      "free_space": int.from_bytes(raw[at + 4:at + 8], "little", signed=True)})
    return {"magic_number": magic, "last_used_pages": pages}


def _prefix_text(column: Attribute | None, data: bytes, major) -> str | None:
    """A prefix of the built-in opclasses of the column's type, as text (None when not one of them)."""
    typid = column.typid if column is not None else None
    if typid == POINTOID and len(data) == 16:          # quad_point_ops: the centroid
        x, y = struct.unpack("<dd", data)
        from pgpage.decode.datum import format_float
        return f"({format_float(x)},{format_float(y)})"
    if typid == POINTOID and len(data) == DATUM_SIZE:  # kd_point_ops: a coordinate, a float8 Datum
        from pgpage.decode.datum import format_float
        return format_float(struct.unpack("<d", data)[0])
    if typid == TEXTOID:
        from pgpage.decode.datum import decode_datum, to_pg_text
        return to_pg_text(TEXTOID, decode_datum(TEXTOID, data, major=major))
    return None


def _label_text(column: Attribute | None, data: bytes, major) -> str | None:
    """text_ops' node label: the next byte of the strings below it (-1: the string ends here, -2: a
    placeholder label of an allTheSame tuple, 11+), an int2 (11+) or "char" stored as a Datum."""
    if column is None or column.typid != TEXTOID or len(data) != DATUM_SIZE:
        return None
    if major is not None and major < INT2_LABELS_SINCE:
        return str(struct.unpack_from("<b", data)[0])
    return str(struct.unpack_from("<h", data)[0])


def inner_tuple(tup: bytes, column, major) -> dict:
    word = int.from_bytes(tup[:4], "little")
    n_nodes, prefix_size = _bits(word, INNER, "n_nodes"), _bits(word, INNER, "prefix_size")
    row = {"all_the_same": bool(_bits(word, INNER, "all_the_same")), "n_nodes": n_nodes,
           "prefix_size": prefix_size, "prefix": None, "nodes": []}
    if prefix_size:
        data = bytes(tup[SGITHDRSZ:SGITHDRSZ + prefix_size])
        text = _prefix_text(column, data, major)
        row["prefix"] = text if text is not None else data.hex()
    at = SGITHDRSZ + prefix_size
    for n in range(n_nodes):
        if at + SIZEOF_INDEX_TUPLE > len(tup):
            row["error"] = f"node {n} at {at} runs past the tuple's {len(tup)} bytes"
            break
        info = t_info(tup, at)
        size = tuple_size(info)
        block, offset = read_tid(tup, at)
        node = {"node": n, "downlink": format_tid(block, offset), "size": size,
                "null": bool(info & INDEX_NULL_MASK), "label": None}
        if not node["null"] and size > SIZEOF_INDEX_TUPLE:
            data = bytes(tup[at + SIZEOF_INDEX_TUPLE:at + size])
            text = _label_text(column, data, major)
            node["label"] = text if text is not None else data.hex()
        row["nodes"].append(node)
        if size < SIZEOF_INDEX_TUPLE:
            row["error"] = f"node {n} says it is {size} bytes"
            break
        at += size
    return row


def leaf_tuple(tup: bytes, columns, major, nulls_page: bool) -> dict:
    info = int.from_bytes(tup[LEAF["t_info"][0]:LEAF["t_info"][0] + 2], "little")
    new_format = major is None or major >= LEAF_NULLS_SINCE
    row = {"next_offset": info & SGLT_NEXTOFFSET_MASK if new_format else info,
           "heap_ptr": format_tid(*read_tid(tup, LEAF["heap_ptr"][0])), "value": None}
    if nulls_page or not columns:
        if not nulls_page:
            row["value_data"] = bytes(tup[SGLTHDRSZ:]).hex()
        return row
    bitmap = tup[SIZEOF_SpGistLeafTupleData:SGLTHDRSZ] if new_format and info & SGLT_HASNULLMASK else None
    pad = b"\0" * 16   # deform_tuple walks a heap tuple: a header in front, alignment relative to the data
    attrs = deform_tuple(pad + bytes(tup), 16 + SGLTHDRSZ, len(columns), list(columns), null_bitmap=bitmap).attrs
    row["value"], ok = value_text(attrs[0], major)
    if len(attrs) > 1:
        row["include"] = [value_text(a, major)[0] for a in attrs[1:]]
    if not ok:
        row["value_error"] = True
    return row


def dead_tuple(tup: bytes) -> dict:
    return {"next_offset": int.from_bytes(tup[DEAD["next_offset"][0]:DEAD["next_offset"][0] + 2], "little"),
            "pointer": format_tid(*read_tid(tup, DEAD["pointer"][0])),
            "xid": int.from_bytes(tup[DEAD["xid"][0]:DEAD["xid"][0] + 4], "little")}


def page_tuples(raw, parsed_page, ctx: PageContext, flags: int, find) -> list[dict]:
    """Every line pointer's tuple, by its tupstate: inner or leaf (live), or a dead tuple's fields."""
    leaf = bool(flags & SPGIST_LEAF)
    end = len(raw) - OPAQUE["size"]
    columns = ctx.index_columns
    rows = []
    for lp in line_pointers(parsed_page):
        off, length = lp["lp_off"], lp["lp_len"]
        row = {"itemoffset": lp["lp"], "lp_flags": lp["lp_flags"], "tupstate": None, "size": None}
        rows.append(row)
        if length < 4 or off < SizeOfPageHeaderData or off + length > end:
            if lp["lp_flags"] or length:
                find("spgist.item.out_of_bounds", f"item {off}..{off + length} is not a tuple inside the page's"
                     " tuple space", item=lp["lp"], actual=[off, length])
            continue
        tup = raw[off:off + length]
        word = int.from_bytes(tup[:4], "little")
        state = _bits(word, INNER, "tupstate")
        row["tupstate"] = STATES[state]
        if state != SPGIST_LIVE:
            row["size"] = _bits(word, DEAD, "size")
            if length >= SIZEOF_SpGistDeadTupleData:
                row.update(dead_tuple(tup))
        elif leaf:
            row["size"] = _bits(word, LEAF, "size")
            if length >= SIZEOF_SpGistLeafTupleData:
                row.update(leaf_tuple(tup, columns, ctx.major, bool(flags & SPGIST_NULLS)))
        else:
            row["size"] = length
            row.update(inner_tuple(tup, columns[0] if columns else None, ctx.major))
        if row.get("error"):
            find("spgist.item.undecodable", row["error"], item=lp["lp"])
    return rows


def decode_spgist_page(parsed_page, raw: bytes, ctx: PageContext, page: dict, find) -> None:
    o = opaque_of(raw)
    page["spgist_page_opaque_info"] = {"flags": flag_words(o["flags"]), "flag_bits": o["flags"],
                                       "nRedirection": o["n_redirection"], "nPlaceholder": o["n_placeholder"]}
    if o["flags"] & SPGIST_META:
        page["spgist_metapage_info"] = metapage_info(raw)
        return
    key = "spgist_leaf_tuples" if o["flags"] & SPGIST_LEAF else "spgist_inner_tuples"
    page[key] = page_tuples(raw, parsed_page, ctx, o["flags"], find)
