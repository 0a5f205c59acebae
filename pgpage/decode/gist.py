"""GiST pages under pageinspect's names: gist_page_opaque_info and gist_page_items (14+), the keys printed from
the index's columns (pg_attribute: the opclass's storage type, a box for point_ops, gtsvector for tsvector_ops)
as pageinspect prints them: "(columns)=(values)", each value quoted as record_out quotes.

A leaf tuple's t_tid is a heap TID; an internal tuple's block is its child and its offset 0xFFFF. A page
deleted by 13+ (F_DELETED) holds GISTDeletedPageContents (its deleteXid) where items would be.
"""
from __future__ import annotations

from pgpage.decode.control import format_lsn
from pgpage.decode.indextuple import (SIZEOF_INDEX_TUPLE, deform_index_tuple, t_info, tid_text, tuple_size,
                                      value_text)
from pgpage.decode.ksy.constants import F_DELETED, F_LEAF, LP_DEAD, SizeOfPageHeaderData
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.ksy.type_oids import GTSVECTOROID
from pgpage.decode.pagebase import PageContext, line_pointers
from pgpage.decode.versions import GIST_DELETED_PAGE_CONTENTS_SINCE

OPAQUE = LAYOUTS["gist_page::gist_page_opaque_data"]
FLAG_WORDS = {bit: name.lower().removeprefix("f_") for bit, name in ENUMS["gist_page::gist_flags"].items()}

# gtsvector (tsgistidx.c): int32 flag, then CRCs (ARRKEY) or a signature (SIGNKEY, none when ALLISTRUE)
ARRKEY, SIGNKEY, ALLISTRUE = 0x01, 0x02, 0x04
GTHDRSIZE = 8   # VARHDRSZ + sizeof(int32)


def opaque_of(raw) -> dict:
    base = len(raw) - OPAQUE["size"]
    f = OPAQUE["fields"]

    def u(field, width):
        at = base + f[field][0]
        return int.from_bytes(raw[at:at + width], "little")
    return {"nsn": u("nsn.xlogid", 4) << 32 | u("nsn.xrecoff", 4), "rightlink": u("rightlink", 4),
            "flags": u("flags", 2)}


def flag_words(flags: int) -> list[str]:
    out = [w for bit, w in FLAG_WORDS.items() if flags & bit]
    rest = flags & ~sum(FLAG_WORDS)
    if rest:
        out.append(f"{rest:x}")
    return out


def gtsvector_text(payload: bytes) -> tuple[str, str | None]:
    """gtsvectorout's text of a gtsvector (its varlena header removed), and the signature's bytes in hex."""
    flag = int.from_bytes(payload[:4], "little")
    body = payload[GTHDRSIZE - 4:]
    if flag & ARRKEY:
        return f"{len(body) // 4} unique words", None
    if flag & ALLISTRUE:
        return "all true bits", None
    ones = sum(bin(b).count("1") for b in body)
    return f"{ones} true bits, {len(body) * 8 - ones} false bits", body.hex()


def _quoted(value: str) -> str:
    """record_out's quoting, which gist_page_items applies to each value."""
    if value and not any(c in '"\\(),' or c.isspace() for c in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '""') + '"'


def item_keys(tup: bytes, columns, major: int | None, leaf: bool, nkeyatts: int | None = None) -> dict:
    """The ``keys`` text of one tuple as gist_page_items prints it, and gtsvector signatures in hex."""
    cols = list(columns) if leaf or nkeyatts is None else list(columns)[:nkeyatts]
    out: dict = {"keys": None}
    values, signatures = [], []
    for a in deform_index_tuple(tup, cols, tuple_size(t_info(tup))):
        if a.typid == GTSVECTOROID and a.raw is not None:
            from pgpage.decode.datum import varlena_payload
            payload = varlena_payload(a.raw, a.typid)
            text, sign = gtsvector_text(payload) if isinstance(payload, bytes) else (str(payload), None)
            signatures.append(sign)
        else:
            text, _ = value_text(a, major)
        values.append("null" if text is None else text)
    names = ", ".join(c.name for c in cols)
    out["keys"] = f"({names})=({', '.join(_quoted(v) for v in values)})"
    if any(signatures):
        out["signatures"] = signatures
    return out


def page_items(raw, parsed_page, columns, major: int | None, leaf: bool, find) -> list[dict]:
    """gist_page_items: one row per line pointer (itemoffset, ctid, itemlen, dead, keys)."""
    rows = []
    end = len(raw) - OPAQUE["size"]
    for lp in line_pointers(parsed_page):
        off, length = lp["lp_off"], lp["lp_len"]
        row = {"itemoffset": lp["lp"], "ctid": None, "itemlen": None, "dead": lp["lp_flags"] == LP_DEAD,
               "keys": None, "lp_flags": lp["lp_flags"]}
        rows.append(row)
        if length < SIZEOF_INDEX_TUPLE or off < SizeOfPageHeaderData or off + length > end:
            find("gist.item.out_of_bounds", f"item {off}..{off + length} is not a tuple inside the page's tuple"
                 " space", item=lp["lp"], actual=[off, length])
            continue
        tup = raw[off:off + length]
        row["ctid"] = tid_text(tup, 0)
        row["itemlen"] = tuple_size(t_info(tup))
        if columns:
            row.update(item_keys(tup, columns, major, leaf))
        else:
            row["key_data"] = bytes(tup[SIZEOF_INDEX_TUPLE:]).hex()
    return rows


def decode_gist_page(parsed_page, raw: bytes, ctx: PageContext, page: dict, find) -> None:
    o = opaque_of(raw)
    page["gist_page_opaque_info"] = {
        "lsn": page["page_header"]["lsn"], "nsn": format_lsn(o["nsn"]), "rightlink": o["rightlink"],
        "flags": flag_words(o["flags"]), "flag_bits": o["flags"]}
    if o["flags"] & F_DELETED:
        if ctx.major is not None and ctx.major < GIST_DELETED_PAGE_CONTENTS_SINCE:
            page["delete_xid"] = str(page["page_header"]["prune_xid"])
        else:
            d = LAYOUTS["gist_page::gist_deleted_page_contents"]
            xid = int.from_bytes(raw[SizeOfPageHeaderData:SizeOfPageHeaderData + d["size"]], "little")
            page["delete_xid"] = f"{xid >> 32}:{xid & 0xFFFFFFFF}" if xid >> 32 else str(xid)
        page["gist_page_items"] = []
        return
    page["gist_page_items"] = page_items(raw, parsed_page, ctx.index_columns, ctx.major, bool(o["flags"] & F_LEAF),
                                         find)
