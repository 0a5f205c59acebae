"""record_out (``utils/adt/rowtypes.c``): a composite value as the server prints it, ``(1,"a b")``.

A composite datum is a heap tuple whose header's first word is the varlena header (``DatumTupleFields``:
datum_len_, datum_typmod, datum_typeid, then t_ctid, t_infomask2, t_infomask and t_hoff as in any tuple; the
layout is ``heap_tuple``'s). Its attributes are the composite type's relation's pg_attribute rows, dropped ones
walked over and not printed; they are found by the same deformer as a table's rows (``deform.deform_tuple``),
each printed by its own type's output (``element_text``), then quoted as record_out quotes: an empty string,
or one holding ``"`` ``\\`` ``(`` ``)`` ``,`` or white space, between double quotes with ``"`` and ``\\``
doubled; a NULL field is nothing.
"""
from __future__ import annotations

from pgpage.decode.datum import Undecoded, Unreadable
from pgpage.decode.deform import deform_tuple
from pgpage.decode.flags import HEAP_HASNULL, HEAP_NATTS_MASK
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.ksy.layouts import LAYOUTS

_HEADER = LAYOUTS["heap_tuple"]["fields"]
_VARHDRSZ = _HEADER["t_xmax"][0]          # datum_len_ overlays t_xmin: the 4-byte varlena header
_SPECIAL = frozenset('"\\(),') | frozenset(" \t\n\r\v\f")


def record_text(payload: bytes, attrs, element_text) -> str | Unreadable | Undecoded:
    """The text of a composite value (``payload``: after its varlena header), of the type whose attributes are
    ``attrs`` (``deform.Attribute``, attnum order); an attribute's text from ``element_text(typid, raw)``, whose
    non-text answer (Unreadable, Undecoded) is the whole value's."""
    data = bytes(_VARHDRSZ) + payload
    if len(data) < SizeofHeapTupleHeader:
        return Unreadable("datum.record.bad_value", f"composite value of {len(payload)} bytes is shorter than its"
                          " tuple header", payload.hex())
    get = lambda name: int.from_bytes(data[_HEADER[name][0]:_HEADER[name][0] + int(_HEADER[name][1][1])],  # noqa: E731
                                      "little")
    infomask, t_hoff = get("t_infomask"), get("t_hoff")
    bitmap = data[SizeofHeapTupleHeader:t_hoff] if infomask & HEAP_HASNULL else None
    d = deform_tuple(data, t_hoff, get("t_infomask2") & HEAP_NATTS_MASK, attrs, null_bitmap=bitmap)
    if not d.ok:
        return Unreadable("datum.record.bad_value", next(f.message for f in d.findings if f.severity == "error"),
                          payload.hex())
    fields = []
    for a in d.attrs:
        if a.dropped:
            continue
        if a.isnull:
            fields.append("")
            continue
        text = element_text(a.typid, a.raw)
        if not isinstance(text, str):
            return text
        fields.append(quoted(text))
    return "(" + ",".join(fields) + ")"


def quoted(text: str) -> str:
    """A field as record_out writes it."""
    if text and not any(ch in _SPECIAL for ch in text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '""') + '"'
