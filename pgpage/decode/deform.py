"""Heap tuple deforming: find each attribute's bytes in a tuple, exactly as PostgreSQL does.

This follows ``heap_deform_tuple`` (``access/common/heaptuple.c``) with the macros of
``access/tupmacs.h``; nothing else about the data is assumed:

* The data area starts at ``t_hoff`` (the header, null bitmap and, before 12, the OID come before
  it). Offsets are aligned relative to the start of the data area, as PostgreSQL's ``off`` is.
* An attribute is NULL when the tuple has a null bitmap and its bit is clear
  (``att_isnull``: bit set = NOT null). NULLs take no space.
* ``att_align_pointer``: a varlena (attlen -1) whose first byte is non-zero is *not* aligned,
  because a 1-byte-header varlena or a TOAST pointer is stored unaligned and alignment padding is
  always zero bytes; anything else is aligned to its attalign ('c' 1, 's' 2, 'i' 4, 'd' 8).
* ``att_addlength_pointer``: fixed width adds attlen; a varlena adds VARSIZE_ANY (1-byte header:
  ``byte >> 1``; TOAST pointer: 2 + the vartag's pointer size; 4-byte header: ``word >> 2``); a
  cstring (attlen -2) adds strlen + 1.
* Attributes past the tuple's own attribute count (``t_infomask2 & HEAP_NATTS_MASK``) were added to
  the table after the row was written: they read as the column's missing value
  (``pg_attribute.attmissingval``, 11+, when ``atthasmissing``), else NULL (``getmissingattr``).
* Dropped columns keep their storage and are walked like any other; they are flagged, not skipped.

Bad input is normal input here: a datum that would run past the end of the tuple, a varlena header
no server writes, or a null bitmap that is too short stops the walk with a structured error on that
attribute (and ``heap.deform.unreachable`` on the ones after it, whose place cannot be known) and a
``Finding``; nothing is read past the tuple's bytes and no exception escapes. The loop runs at most
once per attribute of the descriptor.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Sequence

from pgpage.decode import datum as _datum
from pgpage.decode.datum import ATTALIGN_BYTES, DatumError, Varlena, parse_varlena, split_array, varlena_payload
from pgpage.decode.flags import HEAP_HASOID_OLD
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.findings import ERROR, WARNING, Finding

MAX_TUPLE_ATTRIBUTE_NUMBER = 1664          # MaxTupleAttributeNumber (htup_details.h)

# Attribute statuses.
VALUE = "value"        # stored in the tuple: ``raw`` holds its bytes
NULL = "null"          # stored as NULL (null bitmap bit clear)
MISSING = "missing"    # beyond the tuple's natts: ``raw`` is attmissingval's bytes, or None (NULL)
ERROR_STATUS = "error"  # could not be located or read: see ``error``


@dataclass(frozen=True)
class Attribute:
    """What the deformer needs to know of one column (a pg_attribute row, or a CatalogColumn).

    ``attmissingval`` is the raw datum of ``pg_attribute.attmissingval`` as stored (a varlena
    one-element array of the column's type); the deformer takes the element out itself.
    """
    name: str
    typid: int
    attlen: int                  # >0 fixed width, -1 varlena, -2 cstring
    attalign: str                # 'c', 's', 'i', 'd'
    attbyval: bool
    attisdropped: bool = False
    atthasmissing: bool = False
    attmissingval: bytes | None = None

    @classmethod
    def from_column(cls, col: Any) -> "Attribute":
        """From anything with name/typid/attlen/attalign/attbyval (e.g. versions.CatalogColumn)."""
        return cls(col.name, col.typid, col.attlen, col.attalign, col.attbyval,
                   bool(getattr(col, "attisdropped", False)), bool(getattr(col, "atthasmissing", False)),
                   getattr(col, "attmissingval", None))


@dataclass(slots=True)  # not frozen: one per attribute of every row read, and a frozen __init__ is 6x slower
class AttrDatum:
    """One attribute of one tuple as found by ``deform_tuple``."""
    attnum: int                          # 1-based
    name: str
    typid: int
    attlen: int
    status: str                          # VALUE, NULL, MISSING or ERROR_STATUS
    raw: bytes | None = None             # the datum's exact bytes (a varlena with its header)
    offset: int | None = None            # where ``raw`` starts, from the start of the tuple
    varlena: Varlena | None = None       # parsed header, for varlena values
    dropped: bool = False                # attisdropped: storage of a dropped column
    error: DatumError | None = None

    @property
    def isnull(self) -> bool:
        return self.status == NULL or (self.status == MISSING and self.raw is None)

    def to_json(self) -> dict:
        d: dict = {"attnum": self.attnum, "name": self.name, "status": self.status}
        if self.offset is not None:
            d["offset"] = self.offset
        if self.raw is not None:
            d["length"] = len(self.raw)
        if self.varlena is not None:
            d["varlena"] = self.varlena.to_json()
        if self.dropped:
            d["dropped"] = True
        if self.error is not None:
            d["error"] = self.error.to_json()
        return d


@dataclass(frozen=True)
class DeformedTuple:
    attrs: tuple[AttrDatum, ...]
    natts: int                           # attribute count stored in the tuple (t_infomask2)
    data_end: int | None                 # tuple offset just past the last stored attribute
    findings: tuple[Finding, ...] = ()

    @property
    def ok(self) -> bool:
        return not any(f.severity == ERROR for f in self.findings)

    def __getitem__(self, name: str) -> AttrDatum:
        for a in self.attrs:
            if a.name == name:
                return a
        raise KeyError(name)

    def values(self, *, major: int | None = None, encoding: str = "utf-8",
               include_dropped: bool = False) -> dict:
        """Column name -> decoded value (``datum.decode_datum``); None for NULL, ``Unreadable``
        for attributes that could not be read."""
        out = {}
        for a in self.attrs:
            if a.dropped and not include_dropped:
                continue
            out[a.name] = decode_attr(a, major=major, encoding=encoding)
        return out


def decode_attr(a: AttrDatum, *, major: int | None = None, encoding: str = "utf-8"):
    """Decode one deformed attribute (None for NULL)."""
    if a.status == ERROR_STATUS:
        err = a.error
        return _datum.Unreadable(err.code if err else "heap.deform.error",
                                 err.message if err else "attribute could not be read")
    if a.raw is None:
        return None
    return _datum.decode_datum(a.typid, a.raw, major=major, encoding=encoding, attlen=a.attlen)


def heap_oid_old(tuple_data: bytes, t_hoff: int, t_infomask: int) -> int | None:
    """Before 12: the OID a WITH OIDS row keeps in its header (HEAP_HASOID_OLD), the 4 bytes ending
    at t_hoff (``HeapTupleHeaderGetOidOld``). None if the flag is clear or t_hoff is implausible."""
    if not t_infomask & HEAP_HASOID_OLD:
        return None
    if t_hoff < SizeofHeapTupleHeader + 4 or t_hoff > len(tuple_data):
        return None
    return struct.unpack_from("<I", tuple_data, t_hoff - 4)[0]


def _missing_value(att, attnum: int) -> AttrDatum:
    base = dict(attnum=attnum, name=att.name, typid=att.typid, attlen=att.attlen,
                dropped=bool(getattr(att, "attisdropped", False)))
    mv = getattr(att, "attmissingval", None)
    if not getattr(att, "atthasmissing", False) or mv is None:
        return AttrDatum(status=MISSING, **base)
    payload = varlena_payload(mv)
    if not isinstance(payload, bytes):
        err = DatumError("heap.deform.bad_missingval", f"attmissingval of {att.name!r} is unreadable")
        return AttrDatum(status=ERROR_STATUS, error=err, **base)
    parts = split_array(payload, att.attlen, att.attalign)
    if isinstance(parts, DatumError) or len(parts[3]) != 1:
        msg = parts.message if isinstance(parts, DatumError) else f"{len(parts[3])} elements, not 1"
        err = DatumError("heap.deform.bad_missingval", f"attmissingval of {att.name!r}: {msg}")
        return AttrDatum(status=ERROR_STATUS, error=err, **base)
    elem = parts[3][0]
    if elem is None:
        return AttrDatum(status=MISSING, **base)
    vl = None
    if att.attlen == -1:
        vl = parse_varlena(elem, 0, len(elem))
        if isinstance(vl, DatumError):
            vl = None
    return AttrDatum(status=MISSING, raw=bytes(elem), varlena=vl, **base)


def deform_tuple(tuple_data: bytes, t_hoff: int, natts: int, attrs: Sequence[Any], *,
                 null_bitmap: bytes | None = None, hasvarwidth: bool | None = None,
                 hasexternal: bool | None = None) -> DeformedTuple:
    """Walk a heap tuple's attributes.

    ``tuple_data``: the tuple's bytes from its first header byte, exactly ``lp_len`` long (nothing
    past it is ever read). ``t_hoff``: the header's t_hoff. ``natts``: ``t_infomask2 &
    HEAP_NATTS_MASK``. ``attrs``: the relation's attributes in attnum order, each with name, typid,
    attlen, attalign, attbyval and optionally attisdropped, atthasmissing, attmissingval
    (``Attribute`` or ``versions.CatalogColumn``). ``null_bitmap``: t_bits when HEAP_HASNULL is set,
    else None. ``hasvarwidth``/``hasexternal``: the HEAP_HASVARWIDTH/HEAP_HASEXTERNAL flags if known;
    a tuple whose contents disagree with them gets a warning.

    Returns one ``AttrDatum`` per descriptor attribute, and findings:
    ``heap.deform.bad_t_hoff``, ``heap.deform.datum_overrun`` (and the ``datum.varlena.*`` codes of a
    bad header), ``heap.deform.bitmap_short``, ``heap.deform.unreachable`` (error), and warnings
    ``heap.deform.natts_exceeds_descriptor``, ``heap.deform.length_mismatch`` (the last attribute
    does not end where the tuple does), ``heap.deform.varwidth_mismatch``,
    ``heap.deform.external_mismatch``.
    """
    data = tuple_data
    n = len(data)
    findings: list[Finding] = []
    out: list[AttrDatum] = []

    natts = int(natts)
    desc_natts = len(attrs)
    if natts > desc_natts:
        findings.append(Finding("heap.deform.natts_exceeds_descriptor",
                                f"tuple holds {natts} attributes, the relation has {desc_natts}",
                                severity=WARNING, expected=desc_natts, actual=natts))
    stored = min(natts, desc_natts)

    broken: DatumError | None = None
    if t_hoff < SizeofHeapTupleHeader or t_hoff > n:
        broken = DatumError("heap.deform.bad_t_hoff", f"t_hoff {t_hoff} is outside the tuple "
                            f"(header {SizeofHeapTupleHeader}, tuple {n} bytes)",
                            expected=f"{SizeofHeapTupleHeader}..{n}", actual=t_hoff)
        findings.append(broken.to_finding())

    saw_varwidth = False
    saw_external = False
    off = t_hoff                                   # absolute offset in the tuple
    for i, att in enumerate(attrs):
        attnum = i + 1
        dropped = bool(getattr(att, "attisdropped", False))
        if i >= natts:
            out.append(_missing_value(att, attnum))
            continue
        if broken is not None:
            out.append(AttrDatum(attnum, att.name, att.typid, att.attlen, ERROR_STATUS,
                                 dropped=dropped, error=DatumError(
                                     "heap.deform.unreachable", "an earlier attribute could not be "
                                     "read, so this one cannot be located")))
            continue
        if null_bitmap is not None:
            if (i >> 3) >= len(null_bitmap):
                broken = DatumError("heap.deform.bitmap_short",
                                    f"null bitmap has {len(null_bitmap) * 8} bits, attribute {attnum} "
                                    f"needs one", expected=(stored + 7) // 8, actual=len(null_bitmap))
                findings.append(broken.to_finding())
                out.append(AttrDatum(attnum, att.name, att.typid, att.attlen, ERROR_STATUS,
                                     dropped=dropped, error=broken))
                continue
            if not null_bitmap[i >> 3] & (1 << (i & 7)):
                out.append(AttrDatum(attnum, att.name, att.typid, att.attlen, NULL, None, None,
                                     None, dropped))
                continue

        attlen = att.attlen
        align = ATTALIGN_BYTES.get(att.attalign, 1)
        rel = off - t_hoff                          # PostgreSQL aligns the data-relative offset
        if attlen == -1 and off < n and data[off] != 0:
            pos = off                               # 1-byte header or TOAST pointer: unaligned
        else:
            pos = t_hoff + ((rel + align - 1) & ~(align - 1))

        err: DatumError | None = None
        vl: Varlena | None = None
        length = 0
        if pos >= n:                                # every datum is at least one byte
            err = DatumError("heap.deform.datum_overrun",
                             f"attribute {attnum} ({att.name}) would start at {pos}, past the tuple end {n}",
                             offset=pos, expected=f"< {n}", actual=pos)
        elif attlen > 0:
            length = attlen
            if pos + length > n:
                err = DatumError("heap.deform.datum_overrun",
                                 f"attribute {attnum} ({att.name}) needs {length} bytes at {pos}, "
                                 f"the tuple ends at {n}", offset=pos, expected=pos + length, actual=n)
        elif attlen == -1:
            v = parse_varlena(data, pos, n)
            if isinstance(v, DatumError):
                code = "heap.deform.datum_overrun" if v.code == "datum.varlena.overrun" else v.code
                err = DatumError(code, f"attribute {attnum} ({att.name}): {v.message}",
                                 offset=pos, expected=v.expected, actual=v.actual)
            else:
                vl = v
                length = v.total_len
                saw_varwidth = True
                if v.kind == _datum.EXTERNAL:
                    saw_external = True
        elif attlen == -2:
            nul = data.find(b"\0", pos, n)
            if nul < 0:
                err = DatumError("heap.deform.datum_overrun",
                                 f"cstring attribute {attnum} ({att.name}) has no NUL before the tuple end",
                                 offset=pos, expected="NUL", actual=n)
            else:
                length = nul - pos + 1
                saw_varwidth = True
        else:
            err = DatumError("heap.deform.bad_attlen", f"attribute {attnum} ({att.name}) has attlen "
                             f"{attlen}", offset=pos, actual=attlen)

        if err is not None:
            broken = err
            findings.append(err.to_finding())
            out.append(AttrDatum(attnum, att.name, att.typid, attlen, ERROR_STATUS, None, pos,
                                 None, dropped, err))
            continue
        out.append(AttrDatum(attnum, att.name, att.typid, attlen, VALUE,
                             bytes(data[pos:pos + length]), pos, vl, dropped))
        off = pos + length

    data_end = None
    if broken is None:
        data_end = off
        if natts <= desc_natts and off != n:
            findings.append(Finding("heap.deform.length_mismatch",
                                    f"attributes end at {off}, the tuple is {n} bytes",
                                    severity=WARNING, expected=n, actual=off))
        if hasvarwidth is not None and bool(hasvarwidth) != saw_varwidth and natts <= desc_natts:
            findings.append(Finding("heap.deform.varwidth_mismatch",
                                    "HEAP_HASVARWIDTH " + ("set but no variable-width value stored"
                                                          if hasvarwidth else
                                                          "clear but a variable-width value is stored"),
                                    severity=WARNING, expected=saw_varwidth, actual=bool(hasvarwidth)))
        if hasexternal is not None and bool(hasexternal) != saw_external and natts <= desc_natts:
            findings.append(Finding("heap.deform.external_mismatch",
                                    "HEAP_HASEXTERNAL " + ("set but no TOAST pointer stored"
                                                          if hasexternal else
                                                          "clear but a TOAST pointer is stored"),
                                    severity=WARNING, expected=saw_external, actual=bool(hasexternal)))
    return DeformedTuple(tuple(out), natts, data_end, tuple(findings))
