"""Pages of the other index access methods: recognised, their special space and metapage shown.

Hash, GiST, GIN, SP-GiST and BRIN pages get their opaque data (under PostgreSQL's field
names, flags named) and line pointers; their tuples are not interpreted yet.
"""
from __future__ import annotations

from pgpage.decode.ksy.brin_page import BrinPage
from pgpage.decode.ksy.gin_page import GinPage
from pgpage.decode.ksy.gist_page import GistPage
from pgpage.decode.ksy.hash_page import HashPage
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.ksy.spgist_page import SpgistPage
from pgpage.decode.pagebase import flag_names, line_pointers

# page kind: (parser, opaque type, its flag field, flag enum, metapage type, "is a metapage" test)
AMS = {
    "hash": (HashPage, "hash_page::hash_page_opaque_data", "hasho_flag", "hash_page::hasho_flag",
             "hash_page::hash_meta_page_data", lambda o: o.hasho_flag & 0x8),
    "gist": (GistPage, "gist_page::gist_page_opaque_data", "flags", "gist_page::gist_flags", None, None),
    "gin": (GinPage, "gin_page::gin_page_opaque_data", "flags", "gin_page::gin_flags",
            "gin_page::gin_meta_page_data", lambda o: o.flags & 0x8),
    "spgist": (SpgistPage, "spgist_page::spgist_page_opaque_data", "flags", "spgist_page::spgist_flags",
               "spgist_page::spgist_meta_page_data", lambda o: o.flags & 0x1),
    "brin_meta": (BrinPage, "brin_page::brin_special_space", "flags", "brin_page::brin_flags",
                  "brin_page::brin_meta_page_data", lambda o: True),
    "brin_revmap": (BrinPage, "brin_page::brin_special_space", "flags", "brin_page::brin_flags", None, None),
    "brin_regular": (BrinPage, "brin_page::brin_special_space", "flags", "brin_page::brin_flags", None, None),
}


def _fields(obj, layout_type: str) -> dict:
    """The primitive fields of a parsed fixed-size type, in layout order."""
    out = {}
    for name, (_, kind) in LAYOUTS[layout_type]["fields"].items():
        if "." in name or not isinstance(kind, str):
            continue
        value = getattr(obj, name)
        if hasattr(value, "lsn"):
            value = value.lsn
        out[name] = value
    return out


def decode_other_am_page(parsed_page, raw: bytes, kind: str, page: dict, find) -> None:
    parser, opaque_type, flag_field, flag_enum, meta_type, is_meta = AMS[kind]
    parsed = parser.from_bytes(raw)
    opaque = parsed.special if kind.startswith("brin") else parsed.opaque
    special = _fields(opaque, opaque_type)
    special["flag_names"] = flag_names(getattr(opaque, flag_field), ENUMS[flag_enum])
    page["special"] = special
    page["items"] = line_pointers(parsed_page)  # first: a metapage the parser cannot finish still shows them
    if meta_type and is_meta(opaque):
        page["meta"] = _fields(parsed.meta, meta_type)
