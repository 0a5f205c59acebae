"""One page image to a typed record, under pageinspect's names.

The generated Kaitai parsers (``pgpage.decode.ksy``) read the bytes; this module decides what
they mean: which kind of page it is, whether its header is sane, what each line pointer and
tuple says. It is for pages a person looks at (``pgpage page``); whole-relation scans use the
vectorised decoder in ``pgpage.decode.vector``.

Every page comes back as a dict, even a page that is garbage: problems become findings in
``page["findings"]`` and fields that could not be read are None.
"""
from __future__ import annotations

import numpy as np
from kaitaistruct import KaitaiStructError

from pgpage.decode.checksum import checksum_page
from pgpage.decode.control import format_lsn
from pgpage.decode.flags import PD_VALID_FLAG_BITS
from pgpage.decode.ksy.constants import (BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR, BRIN_PAGETYPE_REVMAP,
                                         BTP_DELETED, BTP_HALF_DEAD, BTP_LEAF, BTP_META, BTP_ROOT, GIST_PAGE_ID,
                                         HASHO_PAGE_ID, MAX_BT_CYCLE_ID, PG_PAGE_LAYOUT_VERSION, SEQ_MAGIC,
                                         SIZEOF_BTPageOpaqueData, SIZEOF_BrinSpecialSpace, SIZEOF_GISTPageOpaqueData,
                                         SIZEOF_GinPageOpaqueData, SIZEOF_HashPageOpaqueData,
                                         SIZEOF_SpGistPageOpaqueData, SPGIST_PAGE_ID, SizeOfPageHeaderData)
from pgpage.decode.extam import AM_OF_PAGE_ID as EXT_AM_OF_PAGE_ID
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.ksy.pg_page import PgPage
from pgpage.decode.pagebase import PageContext, flag_names, maxalign
from pgpage.decode.vector import column
from pgpage.findings import WARNING, Finding, a_or_an

_HEADER = "pg_page::page_header"
BRIN_PAGE_TYPES = {BRIN_PAGETYPE_META: "brin_meta", BRIN_PAGETYPE_REVMAP: "brin_revmap",
                   BRIN_PAGETYPE_REGULAR: "brin_regular"}

PD_FLAG_NAMES = ENUMS["pg_page::pd_flags"]

# the special space of an index access method's pages: MAXALIGN(sizeof) of BTPageOpaqueData, HashPageOpaqueData,
# GISTPageOpaqueData (16), GinPageOpaqueData, SpGistPageOpaqueData, BrinSpecialSpace (8). _bt_checkpage,
# _hash_checkpage and gistcheckpage refuse a page with another size ("index contains corrupted page")
AM_SPECIAL_SIZE = {am: maxalign(size) for am, size in (
    ("btree", SIZEOF_BTPageOpaqueData), ("hash", SIZEOF_HashPageOpaqueData), ("gist", SIZEOF_GISTPageOpaqueData),
    ("gin", SIZEOF_GinPageOpaqueData), ("spgist", SIZEOF_SpGistPageOpaqueData), ("brin", SIZEOF_BrinSpecialSpace))}
# the decoders of the access methods' own items, beside the special space otheram shows (imported when used)
INDEX_AM_DECODERS = {
    "gin": lambda: __import__("pgpage.decode.gin", fromlist=["_"]).decode_gin_page,
    "gist": lambda: __import__("pgpage.decode.gist", fromlist=["_"]).decode_gist_page,
    "spgist": lambda: __import__("pgpage.decode.spgist", fromlist=["_"]).decode_spgist_page,
}
AM_NAMES = {"btree": "B-tree", "hash": "hash", "gist": "GiST", "gin": "GIN", "spgist": "SP-GiST", "brin": "BRIN"}


def bad_special_size(am: str, blkno: int, special_size: int) -> str:
    """``{am}.page.bad_special_size``'s message, worded as PostgreSQL's page checks."""
    return (f"index contains corrupted page at block {blkno}: its special area is {special_size} bytes,"
            f" {a_or_an(AM_NAMES[am])} page's is {AM_SPECIAL_SIZE[am]}")


def decode_page(raw: bytes, blkno: int, ctx: PageContext) -> dict:
    """Decode one page image (global block number ``blkno``) into a dict of pageinspect names."""
    findings: list[Finding] = []

    def find(code: str, message: str, **kw) -> None:
        findings.append(Finding(code, message, relation=ctx.relation, fork=ctx.fork, block=blkno, **kw))

    page: dict = {"blkno": blkno, "page_type": None, "findings": findings}
    if len(raw) != ctx.block_size:
        find("page.truncated", f"only {len(raw)} of {ctx.block_size} bytes are present (torn or truncated file)",
             expected=ctx.block_size, actual=len(raw))
        page["page_type"] = "truncated"
        page["raw_header"] = raw[:SizeOfPageHeaderData]
        return page
    if not any(raw):
        page["page_type"] = "new"
        page["page_header"] = None
        page["checksum"] = {"stored": 0, "computed": None, "ok": None}
        return page

    parsed = PgPage.from_bytes(raw)
    hdr = parsed.header
    page["page_header"] = {
        "lsn": format_lsn(hdr.pd_lsn.lsn),
        "checksum": hdr.pd_checksum,
        "flags": hdr.pd_flags,
        "lower": hdr.pd_lower,
        "upper": hdr.pd_upper,
        "special": hdr.pd_special,
        "pagesize": hdr.page_size_declared,
        "version": hdr.layout_version,
        "prune_xid": hdr.pd_prune_xid,
        "flag_names": flag_names(hdr.pd_flags, PD_FLAG_NAMES),
    }
    computed = checksum_page(raw, blkno)
    ok = hdr.pd_checksum == computed
    page["page_checksum"] = computed
    page["checksum"] = {"stored": hdr.pd_checksum, "computed": computed, "ok": ok}
    if not ok and (ctx.checksums or (ctx.checksums is None and hdr.pd_checksum != 0)):
        find("checksum.mismatch", f"stored checksum {hdr.pd_checksum} != computed {computed}",
             expected=computed, actual=hdr.pd_checksum)

    if hdr.pd_upper == 0:  # PageIsNew: PostgreSQL accepts it only all zeros, and checks no header rule
        find("page.new_not_zeroed", "pd_upper is 0 (a new page) but the page is not all zeros",
             actual=sum(1 for b in raw if b))
        page["page_type"] = "new"
        return page
    header_ok = _check_header(parsed, ctx, find)
    page["page_type"] = kind = classify(parsed, raw, ctx, header_ok)
    if kind == "unknown":
        special_size = ctx.block_size - hdr.pd_special
        if header_ok and ctx.am in AM_SPECIAL_SIZE and special_size != AM_SPECIAL_SIZE[ctx.am]:
            find(f"{ctx.am}.page.bad_special_size", bad_special_size(ctx.am, blkno, special_size),
                 expected=ctx.block_size - AM_SPECIAL_SIZE[ctx.am], actual=hdr.pd_special)
        elif header_ok:
            find("page.unrecognised", "the special space matches no known access method", severity=WARNING)
        return page
    try:
        if kind == "heap" or kind == "sequence":
            from pgpage.decode.heap import decode_heap_page
            decode_heap_page(parsed, raw, ctx, page, find)
            if kind == "sequence":
                from pgpage.decode.ksy.seq_page import SeqPage
                page["sequence_magic"] = SeqPage.from_bytes(raw).special.magic
        elif kind.startswith("btree"):
            from pgpage.decode.nbtree import decode_btree_page
            decode_btree_page(raw, ctx, page, find)
        elif kind == "vm":
            from pgpage.decode.vmfsm import decode_vm_page
            decode_vm_page(raw, blkno, page)
        elif kind == "fsm":
            from pgpage.decode.vmfsm import decode_fsm_page
            decode_fsm_page(raw, page)
        elif kind == "hash":
            from pgpage.decode.hash import decode_hash_page
            decode_hash_page(parsed, raw, ctx, page, find)
        elif kind.startswith("brin"):
            from pgpage.decode.brin import decode_brin_page
            decode_brin_page(parsed, raw, kind, ctx, page, find)
        elif kind in EXT_AM_OF_PAGE_ID.values():
            from pgpage.decode.extam import decode_ext_am_page
            decode_ext_am_page(parsed, raw, kind, page, find)
        else:
            from pgpage.decode.otheram import decode_other_am_page
            decode_other_am_page(parsed, raw, kind, page, find)
            if kind in INDEX_AM_DECODERS:
                INDEX_AM_DECODERS[kind]()(parsed, raw, ctx, page, find)
    except (KaitaiStructError, EOFError, ValueError) as e:  # a structure the parser could not finish
        find("page.undecodable", f"{kind} page could not be decoded: {e}")
    return page


def raw_header_is_plausible(raw: bytes, block_size: int) -> bool:
    """Does this page image (or torn block) start with a PostgreSQL page header of this block size?"""
    if len(raw) < SizeOfPageHeaderData:
        return False
    word = int(column(np.frombuffer(raw[:SizeOfPageHeaderData], np.uint8)[None], _HEADER, "pd_pagesize_version")[0])
    return word & 0xFF00 == block_size and word & 0xFF == PG_PAGE_LAYOUT_VERSION


def counts_as_page(raw: bytes, block_size: int) -> bool:
    """Whether ``decode_page`` decodes more than a new page: not all zeros and pd_upper not 0, or torn."""
    if len(raw) != block_size:
        return True
    page = np.frombuffer(raw, np.uint8)[None]
    return bool(page.any()) and int(column(page, _HEADER, "pd_upper")[0]) != 0


def _check_header(parsed: PgPage, ctx: PageContext, find) -> bool:
    """PageHeaderIsValid's rules, as findings; False when the layout cannot be trusted."""
    h = parsed.header
    size = ctx.block_size
    ok = True
    if h.page_size_declared != size:
        find("page.header.bad_pagesize", f"pd_pagesize_version says {h.page_size_declared}-byte pages,"
             f" the file has {size}-byte blocks", expected=size, actual=h.page_size_declared)
        ok = False
    if h.layout_version != PG_PAGE_LAYOUT_VERSION:
        find("page.header.bad_version", f"page layout version {h.layout_version}, expected {PG_PAGE_LAYOUT_VERSION}",
             expected=PG_PAGE_LAYOUT_VERSION, actual=h.layout_version)
        ok = False
    if h.pd_flags & ~PD_VALID_FLAG_BITS:
        find("page.header.bad_flags", f"pd_flags 0x{h.pd_flags:04X} has bits outside PD_VALID_FLAG_BITS",
             actual=h.pd_flags)
        ok = False
    if h.pd_lower < SizeOfPageHeaderData or h.pd_lower > h.pd_upper:
        find("page.header.bad_lower", f"pd_lower {h.pd_lower} is not between {SizeOfPageHeaderData} and pd_upper"
             f" {h.pd_upper}", actual=h.pd_lower)
        ok = False
    if h.pd_upper > h.pd_special:
        find("page.header.bad_upper", f"pd_upper {h.pd_upper} is past pd_special {h.pd_special}", actual=h.pd_upper)
        ok = False
    if h.pd_special > size or h.pd_special != maxalign(h.pd_special):
        find("page.header.bad_special", f"pd_special {h.pd_special} is past the page end or not MAXALIGNed",
             actual=h.pd_special)
        ok = False
    return ok


def classify(parsed: PgPage, raw: bytes, ctx: PageContext, header_ok: bool) -> str:
    """What kind of page this is: the fork, else the catalog's AM, else the special space's signature. A page
    of an index whose access method the catalog names is "unknown" when its special space is not that AM's
    size (it is not decoded as another AM's)."""
    if ctx.fork == "vm":
        return "vm"
    if ctx.fork == "fsm":
        return "fsm"
    h = parsed.header
    if h.pd_upper == 0:
        return "new"  # PageIsNew, but not all zeros: the header decides nothing else
    if not header_ok and (h.pd_special > ctx.block_size or h.page_size_declared != ctx.block_size):
        return "unknown"
    special_size = ctx.block_size - h.pd_special
    if ctx.am in AM_SPECIAL_SIZE and special_size != AM_SPECIAL_SIZE[ctx.am]:
        return "unknown"
    if ctx.am in ("heap", None) and special_size == 0:
        return "heap"
    kind = special_kind(raw, ctx.block_size - special_size, btree=ctx.am in ("btree", None))
    if kind == "btree":
        return _btree_kind(raw)
    if kind == "brin":
        return BRIN_PAGE_TYPES[int.from_bytes(raw[-2:], "little")]
    return kind or "unknown"


def special_kind(raw, pd_special: int, btree: bool = True) -> str | None:
    """The access method (or "sequence") whose special space this page's is, by its size and signature; None if
    none. ``raw``: the page's bytes (any buffer); ``btree``: whether a 16-byte special space may be a B-tree's
    (it carries no page id, only a cycle id below MAX_BT_CYCLE_ID)."""
    size = len(raw)
    special_size = size - pd_special
    last_u16 = int(raw[size - 2]) | int(raw[size - 1]) << 8
    if special_size == 8 and int.from_bytes(bytes(raw[pd_special:pd_special + 4]), "little") == SEQ_MAGIC:
        return "sequence"  # sequence_magic {uint32 magic}, MAXALIGNed to 8 bytes
    if special_size == 16:
        if last_u16 == HASHO_PAGE_ID:
            return "hash"
        if last_u16 == GIST_PAGE_ID:
            return "gist"
        if last_u16 <= MAX_BT_CYCLE_ID and btree:
            return "btree"
    if special_size == 8:
        if last_u16 == SPGIST_PAGE_ID:
            return "spgist"
        if last_u16 in EXT_AM_OF_PAGE_ID:       # bloom, pgvector's IVFFlat and HNSW (never a GIN flags word)
            return EXT_AM_OF_PAGE_ID[last_u16]
        if last_u16 in BRIN_PAGE_TYPES:
            return "brin"
        return "gin"  # GIN's opaque carries no page id; it is what an 8-byte special space is left to be
    return None


def _btree_kind(raw: bytes) -> str:
    from pgpage.decode.ksy.nbtree import Nbtree
    flags = Nbtree.BtPageOpaqueData.from_bytes(raw[-16:]).btpo_flags
    if flags & BTP_META:
        return "btree_meta"
    if flags & BTP_DELETED:
        return "btree_deleted"
    if flags & BTP_HALF_DEAD:
        return "btree_half_dead"
    if flags & BTP_LEAF:
        return "btree_leaf"
    if flags & BTP_ROOT:
        return "btree_root"
    return "btree_internal"
