"""Generic IndexTupleData reading shared by the GIN, GiST and SP-GiST decoders: the 8-byte header, the
attributes behind it (deformed as a heap tuple's, against the index's columns), a value as text.

An index's columns are what its pg_attribute rows say: the opclass's storage type (``opckeytype``) where it
has one (GIN tsvector_ops stores text, GiST point_ops boxes), else the indexed column's type. They come with
the catalog (``PageContext.index_columns``); without it keys are shown as bytes.
"""
from __future__ import annotations

from typing import Sequence

from pgpage.decode.deform import NULL, VALUE, Attribute, decode_attr, deform_tuple
from pgpage.decode.ksy.constants import INDEX_NULL_MASK, INDEX_SIZE_MASK
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.pagebase import format_tid, maxalign

ITEM_POINTER = LAYOUTS["pg_page::item_pointer"]
SIZEOF_INDEX_TUPLE = ITEM_POINTER["size"] + 2          # IndexTupleData: t_tid, t_info
SIZEOF_NULL_BITMAP = 4                                  # IndexAttributeBitMapData (INDEX_MAX_KEYS bits)
_HI, _LO, _POSID = (ITEM_POINTER["fields"][f][0] for f in ("bi_hi", "bi_lo", "ip_posid"))


def read_tid(raw, at: int) -> tuple[int, int]:
    """The (block, offset) of the ItemPointerData at byte ``at``."""
    hi = raw[at + _HI] | raw[at + _HI + 1] << 8
    lo = raw[at + _LO] | raw[at + _LO + 1] << 8
    return hi << 16 | lo, raw[at + _POSID] | raw[at + _POSID + 1] << 8


def tid_text(raw, at: int) -> str:
    return format_tid(*read_tid(raw, at))


def t_info(raw, at: int = 0) -> int:
    return raw[at + 6] | raw[at + 7] << 8


def tuple_size(info: int) -> int:
    return info & INDEX_SIZE_MASK


def data_offset(info: int) -> int:
    """IndexInfoFindDataOffset: the header, and the null bitmap when INDEX_NULL_MASK is set, MAXALIGNed."""
    return maxalign(SIZEOF_INDEX_TUPLE + (SIZEOF_NULL_BITMAP if info & INDEX_NULL_MASK else 0))


def deform_index_tuple(tup: bytes, attrs: Sequence[Attribute], end: int | None = None):
    """The attributes of one index tuple (its bytes; ``end``: where its attributes stop, before AM data such
    as a GIN posting list), as ``deform.AttrDatum``s."""
    info = t_info(tup)
    start = data_offset(info)
    bitmap = tup[SIZEOF_INDEX_TUPLE:SIZEOF_INDEX_TUPLE + SIZEOF_NULL_BITMAP] if info & INDEX_NULL_MASK else None
    end = len(tup) if end is None else max(min(end, len(tup)), start)
    pad = b"\0" * 16  # deform_tuple walks a heap tuple: a header in front, alignment relative to the data
    return deform_tuple(pad + bytes(tup[:end]), start + 16, len(attrs), list(attrs), null_bitmap=bitmap).attrs


def value_text(a, major: int | None) -> tuple[str | None, bool]:
    """(the value as its type's output function prints it, None for NULL; whether it could be read)."""
    from pgpage.decode.datum import to_pg_text
    if a.status == NULL:
        return None, True
    v = decode_attr(a, major=major)
    return (to_pg_text(a.typid, v), True) if a.status == VALUE else (str(v), False)


def attribute_of(typid: int, name: str = "") -> Attribute | None:
    """A built-in type as a column (an int2 attnum, a key type the catalog names), None when unknown."""
    from pgpage.decode.datum import type_info
    t = type_info(typid)
    if t is None or t.typlen == 0:
        return None
    return Attribute(name or t.name, typid, t.typlen, t.typalign, t.typbyval)


def index_columns(relation, database) -> tuple[Attribute, ...]:
    """An index's columns from its pg_attribute rows (empty when the catalog cannot say)."""
    if relation is None or database is None or not isinstance(relation.oid, int):
        return ()
    out = []
    for a in database.attributes(relation.oid):
        try:
            out.append(Attribute(str(a["attname"]), int(a["atttypid"]), int(a["attlen"]), str(a["attalign"]),
                                 a.get("attbyval") is True))
        except (KeyError, TypeError, ValueError):
            return ()
    return tuple(out)
