"""Range and multirange types: range_out and multirange_out (``utils/adt/rangetypes.c``,
``utils/adt/multirangetypes.c``, ``include/utils/rangetypes.h``, ``include/utils/multirangetypes.h``).

A range (rangetypes.c range_serialize / range_deserialize; the same from 9.2 to 18)::

    int32 vl_len_        varlena header
    Oid   rangetypid     the range type's own OID
    lower bound          if RANGE_HAS_LBOUND(flags); never padded (offset 8 is MAXALIGNed)
    upper bound          if RANGE_HAS_UBOUND(flags); aligned to the subtype's typalign, except a
                         varlena whose first byte is not a pad byte (a 1-byte header: att_align_pointer)
    char  flags          the last byte: RANGE_EMPTY 0x01, RANGE_LB_INC 0x02, RANGE_UB_INC 0x04,
                         RANGE_LB_INF 0x08, RANGE_UB_INF 0x10, RANGE_LB_NULL 0x20 and RANGE_UB_NULL
                         0x40 (never set), RANGE_CONTAIN_EMPTY 0x80 (GiST internal keys only)

Bounds are stored as in a heap tuple: fixed-width values as their typlen bytes, varlenas detoasted
and given a 1-byte header when they fit (datum_write), no TOAST pointers. range_serialize never marks
an infinite bound inclusive and writes an empty range as RANGE_EMPTY alone.

A multirange (PostgreSQL 14+; multirangetypes.c make_multirange / multirange_get_range)::

    int32  vl_len_
    Oid    multirangetypid
    uint32 rangeCount
    uint32 items[rangeCount - 1]   for range i >= 1: every MULTIRANGE_ITEM_OFFSET_STRIDE (4)th item is
                                   the offset of its bounds with MULTIRANGE_ITEM_OFF_BIT 0x80000000,
                                   the others the length of the range before it
    uint8  flags[rangeCount]       each range's flags (never RANGE_EMPTY: empty ranges are dropped)
    padding to the subtype's typalign
    each range's bounds as in a range (from its offset 8 on), padded to typalign

Offsets above count from the varlena header's first byte, as in the 4-byte-header image the server
reads (a short-header value is expanded first), which is what alignment is relative to.

Bounds print through the subtype's output function (``datum.decode_datum`` + ``datum.to_pg_text``)
and range_bound_escape: quoted when empty or holding ``" \\ ( ) [ ] ,`` or white space, with ``"`` and
``\\`` doubled. A user-defined range type's subtype is known only from pg_range: ``range_text`` and
``multirange_text`` take it; OUTPUT registers the built-in types.
"""
from __future__ import annotations

import struct

from pgpage.decode import pgtz
from pgpage.decode.ksy.type_oids import (DATEMULTIRANGEARRAYOID, DATEMULTIRANGEOID, DATEOID, DATERANGEARRAYOID,
                                         DATERANGEOID, INT4MULTIRANGEARRAYOID, INT4MULTIRANGEOID, INT4OID,
                                         INT4RANGEARRAYOID, INT4RANGEOID, INT8MULTIRANGEARRAYOID, INT8MULTIRANGEOID,
                                         INT8OID, INT8RANGEARRAYOID, INT8RANGEOID, NUMERICOID, NUMMULTIRANGEARRAYOID,
                                         NUMMULTIRANGEOID, NUMRANGEARRAYOID, NUMRANGEOID, TIMESTAMPOID,
                                         TIMESTAMPTZOID, TSMULTIRANGEARRAYOID, TSMULTIRANGEOID, TSRANGEARRAYOID,
                                         TSRANGEOID, TSTZMULTIRANGEARRAYOID, TSTZMULTIRANGEOID, TSTZRANGEARRAYOID,
                                         TSTZRANGEOID)

RANGE_EMPTY = 0x01
RANGE_LB_INC = 0x02
RANGE_UB_INC = 0x04
RANGE_LB_INF = 0x08
RANGE_UB_INF = 0x10
RANGE_LB_NULL = 0x20
RANGE_UB_NULL = 0x40
RANGE_CONTAIN_EMPTY = 0x80
MULTIRANGE_ITEM_OFF_BIT = 0x80000000
MULTIRANGE_ITEM_OFFSET_STRIDE = 4

RANGE_HEADER = 8            # sizeof(RangeType): vl_len_ + rangetypid
MULTIRANGE_HEADER = 12      # sizeof(MultirangeType): vl_len_ + multirangetypid + rangeCount

_ALIGN = {"c": 1, "s": 2, "i": 4, "d": 8}

# pg_type.dat (ranges: 9.2+, multiranges: 14+; the OIDs never change).
TYPES = {
    INT4RANGEOID: ("int4range", -1, "i", False, INT4RANGEARRAYOID),
    NUMRANGEOID: ("numrange", -1, "i", False, NUMRANGEARRAYOID),
    TSRANGEOID: ("tsrange", -1, "d", False, TSRANGEARRAYOID),
    TSTZRANGEOID: ("tstzrange", -1, "d", False, TSTZRANGEARRAYOID),
    DATERANGEOID: ("daterange", -1, "i", False, DATERANGEARRAYOID),
    INT8RANGEOID: ("int8range", -1, "d", False, INT8RANGEARRAYOID),
    INT4MULTIRANGEOID: ("int4multirange", -1, "i", False, INT4MULTIRANGEARRAYOID),
    NUMMULTIRANGEOID: ("nummultirange", -1, "i", False, NUMMULTIRANGEARRAYOID),
    TSMULTIRANGEOID: ("tsmultirange", -1, "d", False, TSMULTIRANGEARRAYOID),
    TSTZMULTIRANGEOID: ("tstzmultirange", -1, "d", False, TSTZMULTIRANGEARRAYOID),
    DATEMULTIRANGEOID: ("datemultirange", -1, "i", False, DATEMULTIRANGEARRAYOID),
    INT8MULTIRANGEOID: ("int8multirange", -1, "d", False, INT8MULTIRANGEARRAYOID),
}
# pg_range.dat: range type -> subtype; multirange type -> range type.
RANGE_SUBTYPES = {INT4RANGEOID: INT4OID, NUMRANGEOID: NUMERICOID, TSRANGEOID: TIMESTAMPOID,
                  TSTZRANGEOID: TIMESTAMPTZOID, DATERANGEOID: DATEOID, INT8RANGEOID: INT8OID}
MULTIRANGE_RANGES = {INT4MULTIRANGEOID: INT4RANGEOID, NUMMULTIRANGEOID: NUMRANGEOID, TSMULTIRANGEOID: TSRANGEOID,
                     TSTZMULTIRANGEOID: TSTZRANGEOID, DATEMULTIRANGEOID: DATERANGEOID,
                     INT8MULTIRANGEOID: INT8RANGEOID}


def range_text(payload: bytes, subtype_oid: int, major: int | None = None, timezone: str | None = None, *,
               element_text=None, storage: tuple[int, str] | None = None, range_oid: int | None = None) -> str:
    """range_out of a range's content (after its varlena header) whose subtype is ``subtype_oid``.

    ``element_text(typid, raw)`` prints one bound from its stored bytes (default: ``datum``'s decoder,
    with ``major`` and ``timezone``); ``storage`` is the subtype's (typlen, typalign) when ``datum``
    does not know it; ``range_oid``, when given, must be the OID stored in the value. ValueError for
    bytes no server writes, a bound that cannot be printed, or a time zone the server refuses."""
    if timezone is not None:
        pgtz.get_zone(timezone)
    typlen, typalign = _storage(subtype_oid, storage)
    text_of = element_text or _element_text(major, timezone)
    buf = b"\0\0\0\0" + bytes(payload)
    if len(buf) < RANGE_HEADER + 1:
        raise ValueError(f"range of {len(buf)} bytes is shorter than its header and flags")
    stored = struct.unpack_from("<I", buf, 4)[0]
    if range_oid is not None and stored != range_oid:
        raise ValueError(f"range of type {stored} where {range_oid} was expected")
    flags = buf[-1]
    _check_flags(flags, in_multirange=False)
    end = len(buf) - 1
    lower, upper, stop = _bounds(buf, RANGE_HEADER, end, flags, typlen, typalign)
    if stop != end:
        raise ValueError(f"range has {end - stop} bytes between its bounds and its flags")
    return _deparse(flags, lower, upper, subtype_oid, text_of)


def multirange_text(payload: bytes, subtype_oid: int, major: int | None = None, timezone: str | None = None, *,
                    element_text=None, storage: tuple[int, str] | None = None,
                    multirange_oid: int | None = None) -> str:
    """multirange_out of a multirange's content (after its varlena header) whose ranges have the
    subtype ``subtype_oid``; the keywords as for ``range_text``."""
    if timezone is not None:
        pgtz.get_zone(timezone)
    typlen, typalign = _storage(subtype_oid, storage)
    text_of = element_text or _element_text(major, timezone)
    buf = b"\0\0\0\0" + bytes(payload)
    end = len(buf)
    if end < MULTIRANGE_HEADER:
        raise ValueError(f"multirange of {end} bytes is shorter than its 12-byte header")
    stored, count = struct.unpack_from("<II", buf, 4)
    if multirange_oid is not None and stored != multirange_oid:
        raise ValueError(f"multirange of type {stored} where {multirange_oid} was expected")
    flags_at = MULTIRANGE_HEADER + 4 * max(count - 1, 0)
    if flags_at + count > end:
        raise ValueError(f"multirange of {count} ranges runs past its {end} bytes")
    begin = _align(flags_at + count, typalign)
    ranges = []
    prev_offset = next_offset = 0
    for i in range(count):
        offset = 0
        if i > 0:
            item = struct.unpack_from("<I", buf, MULTIRANGE_HEADER + 4 * (i - 1))[0]
            has_offset = bool(item & MULTIRANGE_ITEM_OFF_BIT)
            if has_offset != (i % MULTIRANGE_ITEM_OFFSET_STRIDE == 0):
                raise ValueError(f"multirange item {i} 0x{item:08x}: an offset where a length belongs or "
                                 f"the reverse")
            value = item & ~MULTIRANGE_ITEM_OFF_BIT
            offset = value if has_offset else prev_offset + value
        if offset != next_offset:
            raise ValueError(f"multirange range {i} at offset {offset}, not {next_offset} where range "
                             f"{i - 1} ends")
        flags = buf[flags_at + i]
        _check_flags(flags, in_multirange=True)
        start = begin + offset
        lower, upper, stop = _bounds(buf, start, end, flags, typlen, typalign)
        ranges.append(_deparse(flags, lower, upper, subtype_oid, text_of))
        prev_offset, next_offset = offset, offset + _align(stop - start, typalign)
    if begin + next_offset != end:          # multirange_size_estimate: nothing after the last range
        raise ValueError(f"multirange of {end} bytes where its ranges end at {begin + next_offset}")
    return "{" + ",".join(ranges) + "}"


def _storage(subtype_oid: int, storage) -> tuple[int, str]:
    if storage is None:
        from pgpage.decode import datum
        info = datum.TYPES.get(subtype_oid)
        storage = (info.typlen, info.typalign) if info is not None else None
    if storage is None or storage[0] == 0 or storage[0] < -2 or storage[1] not in _ALIGN:
        raise ValueError(f"subtype {subtype_oid}: storage unknown")
    return storage


def _element_text(major, timezone):
    from pgpage.decode import datum

    def text(typid: int, raw: bytes):
        value = datum.decode_datum(typid, raw, major=major, timezone=timezone)
        bad = datum.unreadable_part(value)      # (refused by _bound_text: no placeholder in a bound)
        return bad if bad is not None else datum.to_pg_text(typid, value)
    return text


def _check_flags(flags: int, in_multirange: bool) -> None:
    if flags & (RANGE_LB_NULL | RANGE_UB_NULL):
        raise ValueError(f"range flags 0x{flags:02x}: RANGE_LB_NULL/RANGE_UB_NULL are never stored")
    if in_multirange and flags & (RANGE_EMPTY | RANGE_CONTAIN_EMPTY):
        raise ValueError(f"range flags 0x{flags:02x} in a multirange, which holds no empty range")
    if flags & RANGE_EMPTY and flags & ~(RANGE_EMPTY | RANGE_CONTAIN_EMPTY):
        raise ValueError(f"range flags 0x{flags:02x}: an empty range with bound flags")
    if (flags & RANGE_LB_INF and flags & RANGE_LB_INC) or (flags & RANGE_UB_INF and flags & RANGE_UB_INC):
        raise ValueError(f"range flags 0x{flags:02x}: an infinite bound marked inclusive")


def _has_lower(flags: int) -> bool:
    return not flags & (RANGE_EMPTY | RANGE_LB_NULL | RANGE_LB_INF)     # RANGE_HAS_LBOUND


def _has_upper(flags: int) -> bool:
    return not flags & (RANGE_EMPTY | RANGE_UB_NULL | RANGE_UB_INF)     # RANGE_HAS_UBOUND


def _bounds(buf: bytes, off: int, end: int, flags: int, typlen: int, typalign: str):
    """range_deserialize's walk from ``off`` (never past ``end``): (lower bytes or None, upper bytes or
    None, offset after the last bound)."""
    if off > end:
        raise ValueError(f"range bounds start at {off}, past the end ({end})")
    lower = upper = None
    if _has_lower(flags):
        lower, off = _fetch(buf, off, end, typlen, "lower")
    if _has_upper(flags):
        if not (typlen == -1 and off < end and buf[off] != 0):      # att_align_pointer
            off = _align(off, typalign)
        upper, off = _fetch(buf, off, end, typlen, "upper")
    return lower, upper, off


def _fetch(buf: bytes, off: int, end: int, typlen: int, which: str) -> tuple[bytes, int]:
    if typlen > 0:
        size = typlen
    elif typlen == -1:
        from pgpage.decode import datum
        v = datum.parse_varlena(buf, off, end)
        if isinstance(v, datum.DatumError):
            raise ValueError(f"{which} bound: {v.message}")
        size = v.total_len
    else:                                               # -2: a NUL-terminated cstring
        nul = buf.find(b"\0", off, end)
        if nul < 0:
            raise ValueError(f"{which} bound: a cstring without its NUL")
        size = nul - off + 1
    if off + size > end:
        raise ValueError(f"{which} bound of {size} bytes at {off} runs past the end ({end})")
    return bytes(buf[off:off + size]), off + size


def _deparse(flags: int, lower, upper, subtype_oid: int, text_of) -> str:
    """range_deparse."""
    if flags & RANGE_EMPTY:
        return "empty"
    out = ["[" if flags & RANGE_LB_INC else "("]
    if lower is not None:
        out.append(_escape(_bound_text(text_of, subtype_oid, lower, "lower")))
    out.append(",")
    if upper is not None:
        out.append(_escape(_bound_text(text_of, subtype_oid, upper, "upper")))
    out.append("]" if flags & RANGE_UB_INC else ")")
    return "".join(out)


def _bound_text(text_of, subtype_oid: int, raw: bytes, which: str) -> str:
    text = text_of(subtype_oid, raw)
    if not isinstance(text, str):
        raise ValueError(f"{which} bound: {text}")
    return text


_BOUND_SPECIAL = frozenset('"\\()[],') | frozenset(" \t\n\r\v\f")


def _escape(value: str) -> str:
    """range_bound_escape."""
    if value and not any(ch in _BOUND_SPECIAL for ch in value):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '""') + '"'


def _align(off: int, typalign: str) -> int:
    a = _ALIGN[typalign]
    return (off + a - 1) & ~(a - 1)


def _range_output(range_oid: int, subtype_oid: int):
    def output(payload: bytes, major=None, timezone: str | None = None) -> str:
        return range_text(payload, subtype_oid, major, timezone, range_oid=range_oid)
    output.__name__ = f"{TYPES[range_oid][0]}_out"
    return output


def _multirange_output(multirange_oid: int, subtype_oid: int):
    def output(payload: bytes, major=None, timezone: str | None = None) -> str:
        return multirange_text(payload, subtype_oid, major, timezone, multirange_oid=multirange_oid)
    output.__name__ = f"{TYPES[multirange_oid][0]}_out"
    return output


OUTPUT = {oid: _range_output(oid, sub) for oid, sub in RANGE_SUBTYPES.items()}
OUTPUT.update({oid: _multirange_output(oid, RANGE_SUBTYPES[rng]) for oid, rng in MULTIRANGE_RANGES.items()})
