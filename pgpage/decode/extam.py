"""Pages of extensions' index access methods: contrib's bloom and pgvector's HNSW and IVFFlat, told apart by the
page id their 8-byte special space ends in and, on block 0, the magic number their metapage starts with
(formats/ext_index_page.ksy). pgpage identifies and counts them; it does not decode their tuples, and says so.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.ksy.constants import (BLOOM_DELETED, BLOOM_MAGICK_NUMBER, BLOOM_META, BLOOM_PAGE_ID,
                                         HNSW_MAGIC_NUMBER, HNSW_PAGE_ID, IVFFLAT_MAGIC_NUMBER, IVFFLAT_PAGE_ID,
                                         SizeOfPageHeaderData)
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.pagebase import flag_names, line_pointers
from pgpage.decode.vector import column
from pgpage.findings import INFO

AM_OF_PAGE_ID = {BLOOM_PAGE_ID: "bloom", IVFFLAT_PAGE_ID: "ivfflat", HNSW_PAGE_ID: "hnsw"}
PAGE_ID_OF_AM = {am: page_id for page_id, am in AM_OF_PAGE_ID.items()}
META_MAGIC = {"bloom": BLOOM_MAGICK_NUMBER, "ivfflat": IVFFLAT_MAGIC_NUMBER, "hnsw": HNSW_MAGIC_NUMBER}
AM_NAMES = {"bloom": "bloom", "ivfflat": "pgvector IVFFlat", "hnsw": "pgvector HNSW"}
BLOOM_OPAQUE = "ext_index_page::bloom_page_opaque_data"
VECTOR_OPAQUE = "ext_index_page::vector_page_opaque_data"
SPECIAL_SIZE = LAYOUTS[BLOOM_OPAQUE]["size"]
META_MAGIC_AT = SizeOfPageHeaderData   # PageGetContents: each metapage's magic comes first


def not_decoded_message(am: str) -> str:
    return (f"{AM_NAMES[am]} index pages are identified (page id, metapage magic) and counted; their tuples are not"
            " decoded")


def meta_magic(raw) -> int:
    return int.from_bytes(bytes(raw[META_MAGIC_AT:META_MAGIC_AT + 4]), "little")


def decode_ext_am_page(parsed_page, raw: bytes, kind: str, page: dict, find) -> None:
    """The special space under its C names, the metapage's magic, the line pointers (a bloom page has none: its
    tuples follow each other), and the note that nothing more is decoded."""
    chunk = np.frombuffer(raw, np.uint8)[None]
    base = len(raw) - SPECIAL_SIZE
    layout = BLOOM_OPAQUE if kind == "bloom" else VECTOR_OPAQUE
    special = {f: int(column(chunk, layout, f, base)[0]) for f in LAYOUTS[layout]["fields"]}
    if kind == "bloom":
        special["flag_names"] = flag_names(special["flags"], ENUMS["ext_index_page::bloom_flags"])
    page["special"] = special
    page["items"] = [] if kind == "bloom" else line_pointers(parsed_page)
    magic = meta_magic(raw)
    if magic == META_MAGIC[kind]:
        page["meta_magic"] = f"0x{magic:08X}"
    find("index.am.not_decoded", not_decoded_message(kind), severity=INFO)


def chunk_page_kinds(chunk: np.ndarray, am: str, first: int) -> tuple[dict, int]:
    """Pages of a chunk by kind (meta, deleted for bloom, pages, new, other: not this AM's) and the tuples bloom's
    pages hold (their maxoff)."""
    base = chunk.shape[1] - SPECIAL_SIZE
    page_id = column(chunk, VECTOR_OPAQUE, "page_id", base)
    upper = column(chunk, "pg_page::page_header", "pd_upper")
    new = upper == 0
    own = ~new & (page_id == PAGE_ID_OF_AM[am])
    meta = np.zeros(len(chunk), dtype=bool)
    if first == 0 and len(chunk) and own[0]:
        meta[0] = meta_magic(chunk[0]) == META_MAGIC[am]
    kinds = {"new": int(new.sum()), "other": int((~new & ~own).sum()), "meta": int(meta.sum())}
    tuples = 0
    if am == "bloom":
        flags = column(chunk, BLOOM_OPAQUE, "flags", base).astype(np.int64)
        meta |= own & (flags & BLOOM_META != 0)
        kinds["meta"] = int(meta.sum())
        deleted = own & ~meta & (flags & BLOOM_DELETED != 0)
        kinds["deleted"] = int(deleted.sum())
        live = own & ~meta & ~deleted
        kinds["pages"] = int(live.sum())
        tuples = int(column(chunk, BLOOM_OPAQUE, "maxoff", base)[live].astype(np.int64).sum())
    else:
        kinds["pages"] = int((own & ~meta).sum())
    return kinds, tuples
