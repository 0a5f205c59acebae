"""BRIN pages as pageinspect's brinfuncs.c shows them, from the page image (and, for the summaries, the index's
columns and operator classes from the catalogs).

``decode_brin_page`` (any page): ``brin_page_type``, ``brin_metapage_info`` (block 0), ``brin_revmap_data``
(revmap pages: every entry, ``(0,0)`` where no summary is). ``brin_page_items`` of a regular page needs a
``BrinDesc`` (what each index column stores: minmax 2 values of its type, inclusion the union and two bools,
minmax-multi one ``pg_brin_minmax_multi_summary``, bloom one ``pg_brin_bloom_summary``), printed as
pageinspect prints them: ``{v1 .. v2 .. v3}``, the summaries through their types' output functions
(brin_minmax_multi_summary_out, brin_bloom_summary_out).
"""
from __future__ import annotations

from dataclasses import dataclass

from kaitaistruct import KaitaiStructError

from pgpage.decode import datum
from pgpage.decode.deform import Attribute, deform_tuple
from pgpage.decode.flags import LP_UNUSED
from pgpage.decode.ksy.brin_page import BrinPage
from pgpage.decode.ksy.constants import (BRIN_PAGETYPE_META, BRIN_PAGETYPE_REGULAR, BRIN_PAGETYPE_REVMAP,
                                         SIZEOF_BrinTuple, SizeofHeapTupleHeader)
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.ksy.type_oids import (ANYRANGEOID, BOOLOID, PG_BRIN_BLOOM_SUMMARYOID,
                                         PG_BRIN_MINMAX_MULTI_SUMMARYOID)
from pgpage.decode.pagebase import format_tid, maxalign
from pgpage.decode.versions import BRIN_EMPTY_RANGE_SINCE
from pgpage.findings import ERROR

PAGE_TYPE_NAMES = {BRIN_PAGETYPE_META: "meta", BRIN_PAGETYPE_REVMAP: "revmap", BRIN_PAGETYPE_REGULAR: "regular"}
SERIALIZED_RANGES_SIZE = LAYOUTS["brin_page::serialized_ranges"]["size"]
NO_SUMMARY = "(0,0)"
# a summary type as the disk descriptor stores it: varlena, int alignment (pg_type.dat)
_SUMMARY = {PG_BRIN_MINMAX_MULTI_SUMMARYOID: (-1, "i", False), PG_BRIN_BLOOM_SUMMARYOID: (-1, "i", False)}
_BOOL = (1, "c", True)


def page_type_name(raw: bytes) -> str:
    """brin_page_type: the special space's last uint16."""
    t = int.from_bytes(raw[-2:], "little")
    return PAGE_TYPE_NAMES.get(t, f"unknown ({t:02x})")


def decode_brin_page(parsed_page, raw: bytes, kind: str, ctx, page: dict, find) -> None:
    """Add brin_page_type, brin_metapage_info and brin_revmap_data to ``page`` (as decode_page builds it)."""
    from pgpage.decode.otheram import decode_other_am_page
    decode_other_am_page(parsed_page, raw, kind, page, find)
    page["brin_page_type"] = page_type_name(raw)
    parsed = BrinPage.from_bytes(raw)
    if kind == "brin_meta":
        try:
            m = parsed.meta
        except (KaitaiStructError, EOFError) as e:
            find("brin.meta.bad_magic", f"a BRIN metapage without BRIN_META_MAGIC: {e}")
            return
        page["brin_metapage_info"] = {"magic": f"0x{m.brin_magic:08X}", "version": m.brin_version,
                                      "pagesperrange": m.pages_per_range, "lastrevmappage": m.last_revmap_page}
    elif kind == "brin_revmap":
        page["brin_revmap_data"] = [{"pages": format_tid(t.block_number, t.ip_posid)} for t in parsed.rm_tids]


# ------------------------------------------------------------------ summaries
@dataclass(frozen=True)
class BrinColumn:
    attnum: int
    name: str
    typid: int                 # the index attribute's type (anyrange for range_inclusion_ops)
    opcname: str | None        # None: pg_opclass could not tell
    stored: tuple[Attribute, ...]   # the values this column's summary keeps (oi_typcache)

    @property
    def family(self) -> str | None:
        for suffix in ("minmax_multi", "minmax", "inclusion", "bloom"):
            if self.opcname and self.opcname.endswith(f"_{suffix}_ops"):
                return suffix
        return None


def brin_columns(attributes: list[dict], indclass: list[int], opclasses: dict[int, dict]) -> list[BrinColumn]:
    """The index's columns (pg_attribute rows of the index, pg_index.indclass, pg_opclass rows by oid)."""
    out = []
    for i, a in enumerate(attributes):
        opc = opclasses.get(indclass[i]) if i < len(indclass) else None
        col = BrinColumn(a["attnum"], a["attname"], a["atttypid"], opc["opcname"] if opc else None, ())
        own = Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"])
        family = col.family
        if family == "minmax":
            stored = (own, own)
        elif family == "inclusion":
            stored = (own, Attribute("unmergeable", BOOLOID, *_BOOL), Attribute("contains_empty", BOOLOID, *_BOOL))
        elif family in ("minmax_multi", "bloom"):
            typid = PG_BRIN_MINMAX_MULTI_SUMMARYOID if family == "minmax_multi" else PG_BRIN_BLOOM_SUMMARYOID
            stored = (Attribute("summary", typid, *_SUMMARY[typid]),)
        else:
            stored = ()
        out.append(BrinColumn(col.attnum, col.name, col.typid, col.opcname, stored))
    return out


def brin_page_items(raw: bytes, items: list[dict], columns: list[BrinColumn], major: int | None, formatter,
                    find) -> list[dict]:
    """brin_page_items's rows: per used line pointer one row per index column, an unused one a row of nulls."""
    empty_col = major is None or major >= BRIN_EMPTY_RANGE_SINCE
    out = []
    for lp in items:
        n = lp["lp"]
        if lp["lp_flags"] == LP_UNUSED:
            row = {"itemoffset": n, "blknum": None, "attnum": None, "allnulls": None, "hasnulls": None,
                   "placeholder": None}
            out.append({**row, **({"empty": None} if empty_col else {}), "value": None})
            continue
        tup = raw[lp["lp_off"]:lp["lp_off"] + lp["lp_len"]]
        out += _tuple_rows(n, tup, columns, empty_col, formatter, find)
    return out


def _tuple_rows(n: int, tup: bytes, columns: list[BrinColumn], empty_col: bool, formatter, find) -> list[dict]:
    if len(tup) < SIZEOF_BrinTuple:
        find("brin.item.too_short", f"item {n}: {len(tup)} bytes hold no BRIN tuple", item=n, actual=len(tup))
        return []
    t = BrinPage.BrinTuple.from_bytes(tup[:SIZEOF_BrinTuple])
    natts = len(columns)
    nullbits = tup[SIZEOF_BrinTuple:] if t.has_nulls else b""
    allnulls = [t.has_nulls and _bit(nullbits, i) for i in range(natts)]
    hasnulls = [t.has_nulls and _bit(nullbits, natts + i) for i in range(natts)]
    # the stored values of the columns that have any, laid out as heap_fill_tuple lays out a tuple's data
    # (aligned from the data offset, short varlena headers unaligned): read them with the heap deformer,
    # the data placed at a heap tuple header's (MAXALIGNed) size so that its alignment is the same
    wanted = [(c, a) for c, nulls in zip(columns, allnulls) if not nulls for a in c.stored]
    pad = maxalign(SizeofHeapTupleHeader)
    values: dict[int, list] = {}
    if t.data_offset > len(tup):
        find("brin.item.bad_offset", f"item {n}: data offset {t.data_offset} is past its {len(tup)} bytes", item=n,
             actual=t.data_offset)
    elif wanted:
        d = deform_tuple(bytes(pad) + tup[t.data_offset:], pad, len(wanted), [a for _, a in wanted])
        for f in d.findings:
            if f.severity == ERROR:   # not the warnings: a BRIN tuple's length is MAXALIGNed past its data
                find("brin.item.undecodable", f"item {n}: {f.message}", item=n)
        for (c, a), v in zip(wanted, d.attrs):
            values.setdefault(c.attnum, []).append(v.raw if v.status == "value" else None)
    rows = []
    for i, c in enumerate(columns):
        row = {"itemoffset": n, "blknum": t.bt_blkno, "attnum": c.attnum, "allnulls": allnulls[i],
               "hasnulls": hasnulls[i], "placeholder": t.is_placeholder}
        if empty_col:
            row["empty"] = t.is_empty_range
        row["value"] = None if allnulls[i] else _summary_text(c, values.get(c.attnum, []), formatter)
        rows.append(row)
    return rows


def _bit(bits: bytes, i: int) -> bool:
    return (i >> 3) < len(bits) and bool(bits[i >> 3] & (1 << (i & 7)))


def _summary_text(c: BrinColumn, raws: list, formatter) -> str | None:
    """pageinspect's ``{v1 .. v2}``: each stored value through its type's output function."""
    if not c.stored or len(raws) != len(c.stored) or any(r is None for r in raws):
        return None
    texts = [_value_text(a.typid, raw, formatter) for a, raw in zip(c.stored, raws)]
    return None if any(x is None for x in texts) else "{" + " .. ".join(texts) + "}"


def _value_text(typid: int, raw: bytes, formatter) -> str | None:
    if typid in (PG_BRIN_MINMAX_MULTI_SUMMARYOID, PG_BRIN_BLOOM_SUMMARYOID):
        payload = datum.varlena_payload(raw, typid)
        if not isinstance(payload, bytes):
            return None
        return (minmax_multi_summary_text(payload, formatter) if typid == PG_BRIN_MINMAX_MULTI_SUMMARYOID
                else bloom_summary_text(payload))
    if typid == ANYRANGEOID:   # range_inclusion_ops: the range value names its own type
        payload = datum.varlena_payload(raw, typid)
        if not isinstance(payload, bytes) or len(payload) < 4:
            return None
        typid = int.from_bytes(payload[:4], "little")
    text = formatter.text(typid, raw)
    return text if isinstance(text, str) else None


def bloom_summary_text(payload: bytes) -> str | None:
    """brin_bloom_summary_out."""
    try:
        f = BrinPage.BloomFilter.from_bytes(payload)
    except (KaitaiStructError, EOFError):
        return None
    return f"{{mode: hashed  nhashes: {f.nhashes}  nbits: {f.nbits}  nbits_set: {f.nbits_set}}}"


def minmax_multi_summary_text(payload: bytes, formatter) -> str | None:
    """brin_minmax_multi_summary_out: the counts, then the ranges ("a ... b") and the single values, each list
    as a text[] prints."""
    try:
        s = BrinPage.SerializedRanges.from_bytes(payload)
    except (KaitaiStructError, EOFError):
        return None
    storage = formatter.catalog.storage(s.typid)
    if storage is None or s.nranges < 0 or s.nvalues < 0:
        return None
    typlen = storage[0]
    off, texts = SERIALIZED_RANGES_SIZE, []
    for _ in range(2 * s.nranges + s.nvalues):
        if typlen > 0:
            size = typlen
        elif typlen == -1:
            v = datum.parse_varlena(payload, off)
            if isinstance(v, datum.DatumError):
                return None
            size = v.total_len
        else:
            end = payload.find(b"\0", off)
            size = (end - off + 1) if end >= 0 else -1
        if size <= 0 or off + size > len(payload):
            return None
        text = formatter.text(s.typid, payload[off:off + size])
        if not isinstance(text, str):
            return None
        texts.append(text)
        off += size
    out = f"{{nranges: {s.nranges}  nvalues: {s.nvalues}  maxvalues: {s.maxvalues}"
    ranges = [f"{texts[2 * i]} ... {texts[2 * i + 1]}" for i in range(s.nranges)]
    if ranges:
        out += " ranges: " + datum.array_literal(ranges, [len(ranges)], [1])
    singles = texts[2 * s.nranges:]
    if singles:
        out += " values: " + datum.array_literal(singles, [len(singles)], [1])
    return out + "}"

