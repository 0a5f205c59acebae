"""Datums: varlena headers, inline decompression and value decoders by type OID.

Two jobs, kept apart:

* **bytes -> value**: ``decode_datum(typid, raw)`` takes the exact bytes of one attribute as the
  deformer found them in a tuple (a varlena *with* its header) and returns a JSON-friendly Python
  value: ``bool``, ``int``, ``float``, ``str``, ``list`` (arrays, int2vector, oidvector), or one of
  the typed stand-ins below when the value cannot be shown as such. It never raises on bad bytes.
* **value -> text**: ``to_pg_text(typid, value)`` renders a decoded value the way the type's output
  function does on a server with ``DateStyle=ISO``, ``IntervalStyle=postgres``, ``TimeZone=UTC``,
  ``bytea_output=hex`` and ``extra_float_digits=1`` (the default from 12 on). The tests compare this
  with the server's own text, value by value. A timestamptz (alone, in an array, as a range bound) is
  shown in another zone when the decoders are given ``timezone``: a TimeZone setting as ``pgtz``
  reads it ('America/New_York', 'UTC', '+05:30', ...); a name the server would refuse raises
  ValueError at once, before any bytes are looked at.

Typed stand-ins (each has ``to_json()``; ``to_json(value)`` converts a whole decoded value):

* ``Unreadable``  the bytes are not a valid value of the type (bad header, corrupt pglz stream, bad
  UTF-8): a dotted code and message, never a made-up value.
* ``ToastPointer`` an external (out-of-line) TOAST pointer. Fetching the chunks is another module's job.
* ``Undecoded``   a well-formed value this module does not decode (unknown type, ``aclitem``, an
  lz4-compressed value without the ``lz4`` package): its bytes as hex and a note.

Varlena headers (``varatt.h`` 16+, ``postgres.h`` before), little-endian first byte:
``xxxxxx00`` 4-byte header, plain; ``xxxxxx10`` 4-byte header, inline-compressed (a second word,
va_tcinfo, holds the raw size in its low 30 bits and, from 14, the method in the top 2);
``xxxxxxx1`` 1-byte header (length = byte >> 1, unaligned); ``00000001`` external: a vartag byte
follows (18 = on-disk TOAST pointer, 16 bytes ``varatt_external``).
"""
from __future__ import annotations

import inspect
import math
import struct
from dataclasses import dataclass, field

from pgpage.decode import pgtz, typeout
from pgpage.decode.encodings import STORED_TEXT
from pgpage.decode.ksy.type_oids import (ACLITEMARRAYOID, ACLITEMOID, ANYARRAYOID, BOOLARRAYOID, BOOLOID,
                                         BPCHARARRAYOID, BPCHAROID, BYTEAARRAYOID, BYTEAOID, CHARARRAYOID, CHAROID,
                                         CIDARRAYOID, CIDOID, CSTRINGARRAYOID, CSTRINGOID, DATEARRAYOID, DATEOID,
                                         FLOAT4ARRAYOID, FLOAT4OID, FLOAT8ARRAYOID, FLOAT8OID, INT2ARRAYOID, INT2OID,
                                         INT2VECTORARRAYOID, INT2VECTOROID, INT4ARRAYOID, INT4OID, INT8ARRAYOID,
                                         INT8OID, INTERVALARRAYOID, INTERVALOID, JSONARRAYOID, JSONOID, NAMEARRAYOID,
                                         NAMEOID, NUMERICARRAYOID, NUMERICOID, OIDARRAYOID, OIDOID, OIDVECTORARRAYOID,
                                         OIDVECTOROID, PG_NODE_TREEOID, REGCLASSARRAYOID, REGCLASSOID,
                                         REGCOLLATIONARRAYOID, REGCOLLATIONOID, REGCONFIGARRAYOID, REGCONFIGOID,
                                         REGDICTIONARYARRAYOID, REGDICTIONARYOID, REGNAMESPACEARRAYOID,
                                         REGNAMESPACEOID, REGOPERARRAYOID, REGOPERATORARRAYOID, REGOPERATOROID,
                                         REGOPEROID, REGPROCARRAYOID, REGPROCEDUREARRAYOID, REGPROCEDUREOID,
                                         REGPROCOID, REGROLEARRAYOID, REGROLEOID, REGTYPEARRAYOID, REGTYPEOID,
                                         TEXTARRAYOID, TEXTOID, TIDARRAYOID, TIDOID, TIMEARRAYOID, TIMEOID,
                                         TIMESTAMPARRAYOID, TIMESTAMPOID, TIMESTAMPTZARRAYOID, TIMESTAMPTZOID,
                                         TIMETZARRAYOID, TIMETZOID, UNKNOWNOID, UUIDARRAYOID, UUIDOID,
                                         VARCHARARRAYOID, VARCHAROID, XID8ARRAYOID, XID8OID, XIDARRAYOID, XIDOID,
                                         XMLARRAYOID, XMLOID)
from pgpage.findings import ERROR, Finding

VARHDRSZ = 4
VARHDRSZ_SHORT = 1
VARHDRSZ_EXTERNAL = 2

VARTAG_INDIRECT = 1
VARTAG_EXPANDED_RO = 2
VARTAG_EXPANDED_RW = 3
VARTAG_ONDISK = 18
VARATT_EXTERNAL = "<iIII"   # va_rawsize, va_extinfo, va_valueid, va_toastrelid (ToastPointer's fields after vartag)
# Size of the pointer that follows each vartag (VARTAG_SIZE). Only ONDISK belongs on disk: the others
# are in-memory pointers (8 bytes on a 64-bit server) and are reported if met in a file.
_VARTAG_SIZE = {VARTAG_INDIRECT: 8, VARTAG_EXPANDED_RO: 8, VARTAG_EXPANDED_RW: 8, VARTAG_ONDISK: 16}
VARTAG_NAMES = {VARTAG_INDIRECT: "VARTAG_INDIRECT", VARTAG_EXPANDED_RO: "VARTAG_EXPANDED_RO",
                VARTAG_EXPANDED_RW: "VARTAG_EXPANDED_RW", VARTAG_ONDISK: "VARTAG_ONDISK"}

TOAST_PGLZ_COMPRESSION_ID = 0
TOAST_LZ4_COMPRESSION_ID = 1
COMPRESSION_NAMES = {TOAST_PGLZ_COMPRESSION_ID: "pglz", TOAST_LZ4_COMPRESSION_ID: "lz4"}
VARLENA_EXTSIZE_BITS = 30
VARLENA_EXTSIZE_MASK = (1 << VARLENA_EXTSIZE_BITS) - 1

# Varlena kinds, after the macros that test them.
PLAIN = "plain"              # VARATT_IS_4B_U: 4-byte header, uncompressed
COMPRESSED = "compressed"    # VARATT_IS_4B_C: 4-byte header, compressed inline
SHORT = "short"              # VARATT_IS_1B:   1-byte header, uncompressed, unaligned
EXTERNAL = "external"        # VARATT_IS_1B_E: TOAST pointer (0x01, vartag, pointer)

MAX_ARRAY_DIMS = 6           # MAXDIM
_DECODE_DEPTH_LIMIT = 4      # arrays of arrays of ... never nest on disk; stop runaway recursion


# ---------------------------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DatumError:
    """Why a datum could not be located or parsed; ``to_finding()`` turns it into a Finding."""
    code: str                     # dotted, e.g. "heap.deform.datum_overrun"
    message: str
    offset: int | None = None     # byte offset the problem was found at (tuple-relative in deform)
    expected: object = None
    actual: object = None

    def to_finding(self, **where) -> Finding:
        return Finding(code=self.code, message=self.message, severity=ERROR,
                       expected=self.expected, actual=self.actual, **where)

    def to_json(self) -> dict:
        d = {"error": self.code, "message": self.message}
        for k in ("offset", "expected", "actual"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        return d


@dataclass(frozen=True)
class ToastPointer:
    """An on-disk external TOAST pointer (``varatt_external``), described, not fetched."""
    vartag: int
    va_rawsize: int       # original datum size *including* its 4-byte header
    va_extinfo: int       # external saved size (low 30 bits) | compression method (top 2 bits)
    va_valueid: int       # chunk_id in the TOAST table
    va_toastrelid: int    # OID of the TOAST table

    @property
    def va_extsize(self) -> int:
        return self.va_extinfo & VARLENA_EXTSIZE_MASK

    @property
    def is_compressed(self) -> bool:
        # VARATT_EXTERNAL_IS_COMPRESSED: stored size smaller than the raw data size
        return self.va_extsize < self.va_rawsize - VARHDRSZ

    @property
    def compression(self) -> str | None:
        if not self.is_compressed:
            return None
        cmid = self.va_extinfo >> VARLENA_EXTSIZE_BITS
        return COMPRESSION_NAMES.get(cmid, f"unknown({cmid})")

    def to_json(self) -> dict:
        return {"toast": {"vartag": self.vartag, "va_rawsize": self.va_rawsize,
                          "va_extinfo": self.va_extinfo, "va_extsize": self.va_extsize,
                          "compression": self.compression, "va_valueid": self.va_valueid,
                          "va_toastrelid": self.va_toastrelid}}

    def __str__(self) -> str:
        comp = f", {self.compression}-compressed to {self.va_extsize} bytes" if self.is_compressed else ""
        return (f"<toast value {self.va_valueid} in relation {self.va_toastrelid}: "
                f"{self.va_rawsize - VARHDRSZ} bytes{comp}>")


@dataclass(slots=True)  # not frozen: one per varlena read (see deform.AttrDatum)
class Varlena:
    """A parsed varlena header and the bytes it covers."""
    kind: str                         # PLAIN, COMPRESSED, SHORT or EXTERNAL
    header_len: int                   # 4, 8 (compressed: header + va_tcinfo), 1, or 2 (external)
    total_len: int                    # VARSIZE_ANY: header included
    data: bytes                       # what follows the header (compressed: the compressed stream;
                                      # external: the pointer bytes)
    rawsize: int | None = None        # COMPRESSED: size once decompressed (header not included)
    compression: str | None = None    # COMPRESSED: "pglz", "lz4" or "unknown(n)"
    vartag: int | None = None         # EXTERNAL
    toast: ToastPointer | None = None  # EXTERNAL with VARTAG_ONDISK

    def to_json(self) -> dict:
        d = {"kind": self.kind, "header_len": self.header_len, "total_len": self.total_len}
        if self.kind == COMPRESSED:
            d.update(rawsize=self.rawsize, compression=self.compression)
        if self.kind == EXTERNAL:
            d["vartag"] = self.vartag
            if self.toast is not None:
                d.update(self.toast.to_json())
        return d


@dataclass(frozen=True)
class Unreadable:
    """A value that could not be read: a dotted code, why, and the bytes (hex) when known."""
    code: str
    message: str
    hex: str | None = None

    def to_json(self) -> dict:
        d = {"unreadable": self.code, "message": self.message}
        if self.hex is not None:
            d["hex"] = self.hex
        return d

    def __str__(self) -> str:
        return f"<unreadable: {self.message}>"


@dataclass(frozen=True)
class Undecoded:
    """A well-formed value that is not decoded here: its bytes in hex and a note."""
    typid: int
    hex: str
    note: str = ""

    def to_json(self) -> dict:
        d = {"type_oid": self.typid, "hex": self.hex}
        if self.note:
            d["note"] = self.note
        return d

    def __str__(self) -> str:
        return f"<{self.note}>" if self.note else "\\x" + self.hex


@dataclass(frozen=True)
class PgArray:
    """An array whose lower bounds are not all 1 (otherwise arrays decode to plain lists)."""
    lbounds: tuple[int, ...]
    elements: list = field(default_factory=list)   # nested per dimension

    def to_json(self) -> dict:
        return {"lower_bounds": list(self.lbounds), "elements": to_json(self.elements)}


def to_json(value):
    """A decoded value with every typed stand-in turned into its JSON form."""
    if isinstance(value, (Unreadable, Undecoded, ToastPointer, PgArray, DatumError)):
        return value.to_json()
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return _float_special(value)
    return value


class PglzError(ValueError):
    pass


# ---------------------------------------------------------------------------------------------
# Varlena headers
# ---------------------------------------------------------------------------------------------

def parse_varlena(buf, offset: int = 0, end: int | None = None) -> Varlena | DatumError:
    """Parse the varlena that starts at ``buf[offset]`` and must end by ``end`` (default: len(buf)).

    Never reads at or past ``end``: a header or body that would is a DatumError
    (``datum.varlena.overrun``), as are lengths no server writes (``datum.varlena.bad_length``) and
    unknown vartags (``datum.varlena.bad_vartag``, whose size cannot be known).
    """
    if end is None:
        end = len(buf)
    end = min(end, len(buf))
    if offset < 0 or offset >= end:
        return DatumError("datum.varlena.overrun", "varlena starts at or past the end of the data",
                          offset=offset, expected=f"< {end}", actual=offset)
    b0 = buf[offset]
    avail = end - offset
    if b0 == 0x01:                                    # VARATT_IS_1B_E
        if avail < VARHDRSZ_EXTERNAL:
            return DatumError("datum.varlena.overrun", "external TOAST pointer header is cut off",
                              offset=offset, expected=VARHDRSZ_EXTERNAL, actual=avail)
        tag = buf[offset + 1]
        size = _VARTAG_SIZE.get(tag)
        if size is None:
            return DatumError("datum.varlena.bad_vartag", f"unknown vartag {tag} in a TOAST pointer",
                              offset=offset, expected=VARTAG_ONDISK, actual=tag)
        total = VARHDRSZ_EXTERNAL + size
        if total > avail:
            return DatumError("datum.varlena.overrun", "TOAST pointer runs past the end of the data",
                              offset=offset, expected=total, actual=avail)
        data = bytes(buf[offset + 2: offset + total])
        toast = None
        if tag == VARTAG_ONDISK:
            rawsize, extinfo, valueid, toastrelid = struct.unpack_from(VARATT_EXTERNAL, data, 0)
            toast = ToastPointer(tag, rawsize, extinfo, valueid, toastrelid)
        return Varlena(EXTERNAL, VARHDRSZ_EXTERNAL, total, data, vartag=tag, toast=toast)
    if b0 & 0x01:                                     # VARATT_IS_1B: 1-byte header
        total = b0 >> 1
        if total > avail:
            return DatumError("datum.varlena.overrun", "short varlena runs past the end of the data",
                              offset=offset, expected=total, actual=avail)
        return Varlena(SHORT, VARHDRSZ_SHORT, total, bytes(buf[offset + 1: offset + total]))
    if avail < VARHDRSZ:
        return DatumError("datum.varlena.overrun", "4-byte varlena header is cut off",
                          offset=offset, expected=VARHDRSZ, actual=avail)
    word = struct.unpack_from("<I", buf, offset)[0]
    total = word >> 2                                 # VARSIZE_4B
    if (b0 & 0x03) == 0x02:                           # VARATT_IS_4B_C
        if total < VARHDRSZ + 4:
            return DatumError("datum.varlena.bad_length", "compressed varlena shorter than its header",
                              offset=offset, expected=">= 8", actual=total)
        if total > avail:
            return DatumError("datum.varlena.overrun", "compressed varlena runs past the end of the data",
                              offset=offset, expected=total, actual=avail)
        tcinfo = struct.unpack_from("<I", buf, offset + 4)[0]
        cmid = tcinfo >> VARLENA_EXTSIZE_BITS
        return Varlena(COMPRESSED, VARHDRSZ + 4, total, bytes(buf[offset + 8: offset + total]),
                       rawsize=tcinfo & VARLENA_EXTSIZE_MASK,
                       compression=COMPRESSION_NAMES.get(cmid, f"unknown({cmid})"))
    if total < VARHDRSZ:                              # VARATT_IS_4B_U
        return DatumError("datum.varlena.bad_length", "varlena shorter than its own 4-byte header",
                          offset=offset, expected=">= 4", actual=total)
    if total > avail:
        return DatumError("datum.varlena.overrun", "varlena runs past the end of the data",
                          offset=offset, expected=total, actual=avail)
    return Varlena(PLAIN, VARHDRSZ, total, bytes(buf[offset + 4: offset + total]))


def pglz_decompress(src: bytes, rawsize: int, check_complete: bool = True) -> bytes:
    """PostgreSQL's pglz decompressor (``common/pg_lzcompress.c``), in Python.

    The stream is groups of one control byte and up to eight items, LSB first: a 0 bit is one literal
    byte, a 1 bit a 2-3 byte tag ``[len-3:4 | off_hi:4] [off_lo:8] [len-18 if len == 18]`` that
    copies ``len`` bytes from ``off`` bytes back (overlaps repeat). Raises PglzError on a tag that
    points before the output or a stream that does not give exactly ``rawsize`` bytes.
    Bounded: every step consumes input.
    """
    out = bytearray()
    sp, n = 0, len(src)
    while sp < n and len(out) < rawsize:
        ctrl = src[sp]
        sp += 1
        for bit in range(8):
            if sp >= n or len(out) >= rawsize:
                break
            if ctrl & (1 << bit):
                if sp + 1 >= n:
                    raise PglzError("pglz tag cut off")
                b0, b1 = src[sp], src[sp + 1]
                sp += 2
                length = (b0 & 0x0F) + 3
                off = ((b0 & 0xF0) << 4) | b1
                if length == 18:
                    if sp >= n:
                        raise PglzError("pglz tag cut off")
                    length += src[sp]
                    sp += 1
                if off == 0 or off > len(out):
                    raise PglzError(f"pglz back-reference {off} before the start of the output")
                length = min(length, rawsize - len(out))
                start = len(out) - off
                if off >= length:
                    out += out[start:start + length]
                else:                               # overlapping copy: the last `off` bytes repeat
                    pattern = bytes(out[start:])
                    out += (pattern * (length // off + 1))[:length]
            else:
                out.append(src[sp])
                sp += 1
    if check_complete and (len(out) != rawsize or sp != n):
        raise PglzError(f"pglz stream gave {len(out)} of {rawsize} bytes "
                        f"(used {sp} of {n} input bytes)")
    return bytes(out)


def lz4_available() -> bool:
    try:
        import lz4.block  # noqa: F401
    except ImportError:
        return False
    return True


def lz4_decompress(src: bytes, rawsize: int) -> bytes | None:
    """LZ4 block decompression through the optional ``lz4`` package; None if it is not installed.
    Raises ValueError on a corrupt block."""
    try:
        import lz4.block
    except ImportError:
        return None
    try:
        out = lz4.block.decompress(src, uncompressed_size=rawsize)
    except Exception as exc:   # lz4.block.LZ4BlockError
        raise ValueError(str(exc)) from exc
    if len(out) != rawsize:
        raise ValueError(f"lz4 block gave {len(out)} of {rawsize} bytes")
    return out


def varlena_payload(raw, typid: int = 0):
    """The uncompressed bytes a varlena datum holds (header removed), inline detoasting included.

    Returns ``bytes``, or a ``ToastPointer`` (external: not fetched here), ``Undecoded`` (lz4 without
    the lz4 package) or ``Unreadable`` (bad header, corrupt compressed data)."""
    v = parse_varlena(raw, 0, len(raw))
    if isinstance(v, DatumError):
        return Unreadable(v.code, v.message, bytes(raw).hex())
    return _payload_of(v, typid, bytes(raw))


def _payload_of(v: Varlena, typid: int, raw: bytes):
    if v.kind in (PLAIN, SHORT):
        return v.data
    if v.kind == EXTERNAL:
        if v.toast is not None:
            return v.toast
        return Unreadable("datum.toast.not_on_disk_pointer",
                          f"in-memory TOAST pointer ({VARTAG_NAMES.get(v.vartag)}) found on disk",
                          raw.hex())
    # COMPRESSED
    if v.compression == "pglz":
        try:
            return pglz_decompress(v.data, v.rawsize)
        except PglzError as exc:
            return Unreadable("datum.pglz.corrupt", str(exc), raw.hex())
    if v.compression == "lz4":
        try:
            out = lz4_decompress(v.data, v.rawsize)
        except ValueError as exc:
            return Unreadable("datum.lz4.corrupt", str(exc), raw.hex())
        if out is None:
            return Undecoded(typid, raw.hex(),
                             f"lz4-compressed, {len(v.data)} bytes ({v.rawsize} uncompressed); "
                             f"install the lz4 package to decode")
        return out
    return Unreadable("datum.varlena.bad_compression",
                      f"unknown compression method {v.compression}", raw.hex())


# ---------------------------------------------------------------------------------------------
# Type table
# ---------------------------------------------------------------------------------------------

class TypeInfo(tuple):
    """(name, typlen, typalign, typbyval, elem): elem is the element type OID for array types."""
    __slots__ = ()

    def __new__(cls, name, typlen, typalign, typbyval, elem=0):
        return tuple.__new__(cls, (name, typlen, typalign, typbyval, elem))

    name = property(lambda s: s[0])
    typlen = property(lambda s: s[1])
    typalign = property(lambda s: s[2])
    typbyval = property(lambda s: s[3])
    elem = property(lambda s: s[4])


# Built-in types (pg_type.dat; the same OIDs and storage in 10-18, except aclitem: see versions.py).
TYPES: dict[int, TypeInfo] = {
    BOOLOID: TypeInfo("bool", 1, "c", True),
    BYTEAOID: TypeInfo("bytea", -1, "i", False),
    CHAROID: TypeInfo("char", 1, "c", True),
    NAMEOID: TypeInfo("name", 64, "c", False),
    INT8OID: TypeInfo("int8", 8, "d", True),
    INT2OID: TypeInfo("int2", 2, "s", True),
    INT2VECTOROID: TypeInfo("int2vector", -1, "i", False, INT2OID),
    INT4OID: TypeInfo("int4", 4, "i", True),
    REGPROCOID: TypeInfo("regproc", 4, "i", True),
    TEXTOID: TypeInfo("text", -1, "i", False),
    OIDOID: TypeInfo("oid", 4, "i", True),
    TIDOID: TypeInfo("tid", 6, "s", False),
    XIDOID: TypeInfo("xid", 4, "i", True),
    CIDOID: TypeInfo("cid", 4, "i", True),
    OIDVECTOROID: TypeInfo("oidvector", -1, "i", False, OIDOID),
    JSONOID: TypeInfo("json", -1, "i", False),
    XMLOID: TypeInfo("xml", -1, "i", False),
    PG_NODE_TREEOID: TypeInfo("pg_node_tree", -1, "i", False),
    FLOAT4OID: TypeInfo("float4", 4, "i", True),
    FLOAT8OID: TypeInfo("float8", 8, "d", True),
    UNKNOWNOID: TypeInfo("unknown", -2, "c", False),
    ACLITEMOID: TypeInfo("aclitem", 0, "i", False),   # 12 bytes 'i' before 16, 16 bytes 'd' from 16
    BPCHAROID: TypeInfo("bpchar", -1, "i", False),
    VARCHAROID: TypeInfo("varchar", -1, "i", False),
    DATEOID: TypeInfo("date", 4, "i", True),
    TIMEOID: TypeInfo("time", 8, "d", True),
    TIMESTAMPOID: TypeInfo("timestamp", 8, "d", True),
    TIMESTAMPTZOID: TypeInfo("timestamptz", 8, "d", True),
    INTERVALOID: TypeInfo("interval", 16, "d", False),
    TIMETZOID: TypeInfo("timetz", 12, "d", False),
    NUMERICOID: TypeInfo("numeric", -1, "i", False),
    REGPROCEDUREOID: TypeInfo("regprocedure", 4, "i", True),
    REGOPEROID: TypeInfo("regoper", 4, "i", True),
    REGOPERATOROID: TypeInfo("regoperator", 4, "i", True),
    REGCLASSOID: TypeInfo("regclass", 4, "i", True),
    REGTYPEOID: TypeInfo("regtype", 4, "i", True),
    CSTRINGOID: TypeInfo("cstring", -2, "c", False),
    UUIDOID: TypeInfo("uuid", 16, "c", False),
    REGCONFIGOID: TypeInfo("regconfig", 4, "i", True),
    REGDICTIONARYOID: TypeInfo("regdictionary", 4, "i", True),
    REGNAMESPACEOID: TypeInfo("regnamespace", 4, "i", True),
    REGROLEOID: TypeInfo("regrole", 4, "i", True),
    REGCOLLATIONOID: TypeInfo("regcollation", 4, "i", True),
    XID8OID: TypeInfo("xid8", 8, "d", True),
}

# Array types: OID -> element OID (typarray of each type above).
ARRAY_TYPES: dict[int, int] = {
    BOOLARRAYOID: BOOLOID, BYTEAARRAYOID: BYTEAOID, CHARARRAYOID: CHAROID, NAMEARRAYOID: NAMEOID,
    INT8ARRAYOID: INT8OID, INT2ARRAYOID: INT2OID, INT2VECTORARRAYOID: INT2VECTOROID, INT4ARRAYOID: INT4OID,
    REGPROCARRAYOID: REGPROCOID, TEXTARRAYOID: TEXTOID, OIDARRAYOID: OIDOID, TIDARRAYOID: TIDOID, XIDARRAYOID: XIDOID,
    CIDARRAYOID: CIDOID, OIDVECTORARRAYOID: OIDVECTOROID, JSONARRAYOID: JSONOID, XMLARRAYOID: XMLOID,
    FLOAT4ARRAYOID: FLOAT4OID, FLOAT8ARRAYOID: FLOAT8OID, ACLITEMARRAYOID: ACLITEMOID, BPCHARARRAYOID: BPCHAROID,
    VARCHARARRAYOID: VARCHAROID, DATEARRAYOID: DATEOID, TIMEARRAYOID: TIMEOID, TIMESTAMPARRAYOID: TIMESTAMPOID,
    TIMESTAMPTZARRAYOID: TIMESTAMPTZOID, INTERVALARRAYOID: INTERVALOID, TIMETZARRAYOID: TIMETZOID,
    NUMERICARRAYOID: NUMERICOID, REGPROCEDUREARRAYOID: REGPROCEDUREOID, REGOPERARRAYOID: REGOPEROID,
    REGOPERATORARRAYOID: REGOPERATOROID, REGCLASSARRAYOID: REGCLASSOID, REGTYPEARRAYOID: REGTYPEOID,
    CSTRINGARRAYOID: CSTRINGOID, UUIDARRAYOID: UUIDOID, REGCONFIGARRAYOID: REGCONFIGOID,
    REGDICTIONARYARRAYOID: REGDICTIONARYOID, REGNAMESPACEARRAYOID: REGNAMESPACEOID, REGROLEARRAYOID: REGROLEOID,
    REGCOLLATIONARRAYOID: REGCOLLATIONOID, XID8ARRAYOID: XID8OID,
}
# The other built-in types' storage and output functions (decode/typeout/, one module per family).
for _oid, (_name, _typlen, _typalign, _typbyval, _array) in typeout.TYPES.items():
    TYPES[_oid] = TypeInfo(_name, _typlen, _typalign, _typbyval)
    if _array:
        ARRAY_TYPES[_array] = _oid
for _arr, _elem in ARRAY_TYPES.items():
    TYPES.setdefault(_arr, TypeInfo("_" + TYPES[_elem].name, -1, "d" if TYPES[_elem].typalign == "d" else "i",
                                    False, _elem))

TYPES[ANYARRAYOID] = TypeInfo("anyarray", -1, "d", False)

_TEXT_TYPES = {TEXTOID, BPCHAROID, VARCHAROID, JSONOID, PG_NODE_TREEOID, UNKNOWNOID, CSTRINGOID}
_OID_TYPES = {REGPROCOID, OIDOID, XIDOID, CIDOID, REGPROCEDUREOID, REGOPEROID, REGOPERATOROID, REGCLASSOID,
              REGTYPEOID, REGCONFIGOID, REGDICTIONARYOID, REGNAMESPACEOID, REGROLEOID, REGCOLLATIONOID}
VECTOR_TYPES = {INT2VECTOROID, OIDVECTOROID}   # arrays printed as space-separated lists
_FIXED_FORMATS = {INT2OID: "<h", INT4OID: "<i", INT8OID: "<q", XID8OID: "<Q", FLOAT4OID: "<f", FLOAT8OID: "<d"}
_FIXED_FORMATS.update({t: "<I" for t in _OID_TYPES})


def _takes_timezone(fn) -> bool:
    try:
        return "timezone" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# typeout output functions that print timestamptz values inside (tstzrange, tstzmultirange): those that
# take a ``timezone`` keyword are given the decoders' zone.
_ZONED_OUTPUT = {oid for oid, fn in typeout.OUTPUT.items() if _takes_timezone(fn)}


def type_info(typid: int) -> TypeInfo | None:
    return TYPES.get(typid)


# ---------------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------------

def decode_datum(typid: int, raw, *, attlen: int | None = None, major: int | None = None,
                 encoding: str = "utf-8", timezone: str | None = None):
    """Decode one attribute's bytes (a varlena with its header; a fixed-width value exactly
    ``attlen`` bytes) into a JSON-friendly value or a typed stand-in. Never raises on bad bytes.

    ``attlen`` is only needed for types not in ``TYPES``. ``major`` selects version-dependent
    readings (numeric Infinity before 14 is invalid, for instance); None means "latest".
    ``timezone`` is the TimeZone timestamptz values are shown in (None: UTC); ValueError if the
    server would refuse it.
    """
    if timezone is not None:
        pgtz.get_zone(timezone)
    raw = bytes(raw)
    info = TYPES.get(typid)
    typlen = info.typlen if info is not None and info.typlen != 0 else attlen
    if info is None or typid == ACLITEMOID:
        if typlen == -1:
            payload = varlena_payload(raw, typid)
            if not isinstance(payload, bytes):
                return payload
            return Undecoded(typid, payload.hex(), "type not decoded")
        return Undecoded(typid, raw.hex(), "type not decoded")
    if typlen == -1:
        payload = varlena_payload(raw, typid)
        if not isinstance(payload, bytes):
            return payload
        return decode_payload(typid, payload, major=major, encoding=encoding, timezone=timezone)
    if typlen == -2:
        return _decode_text(raw[:-1] if raw.endswith(b"\0") else raw, encoding)
    if len(raw) != typlen:
        return Unreadable("datum.bad_length", f"{info.name} needs {typlen} bytes, got {len(raw)}",
                          raw.hex())
    return _decode_fixed(typid, raw, major=major, encoding=encoding, timezone=timezone)


def decode_payload(typid: int, payload: bytes, *, major: int | None = None,
                   encoding: str = "utf-8", timezone: str | None = None, _depth: int = 0):
    """Decode the uncompressed content of a varlena of type ``typid`` (header already removed).
    This is also the entry point for values reassembled from a TOAST table. ``timezone`` as for
    ``decode_datum``."""
    if timezone is not None:
        pgtz.get_zone(timezone)
    payload = bytes(payload)
    output = typeout.OUTPUT.get(typid)
    if output is not None:
        return _typeout(typid, output, payload, major, timezone, encoding)
    if typid in _TEXT_TYPES:
        return _decode_text(payload, encoding)
    if typid == BYTEAOID:
        return "\\x" + payload.hex()
    if typid == NUMERICOID:
        return decode_numeric(payload, major=major)
    if typid == ANYARRAYOID:      # pg_attribute.attmissingval, pg_statistic.stavalues*
        return decode_array(payload, major=major, encoding=encoding, timezone=timezone, _depth=_depth)
    info = TYPES.get(typid)
    if info is not None and info.elem:
        if info.elem == 1033:
            return Undecoded(typid, payload.hex(), "aclitem[] not decoded")
        return decode_array(payload, major=major, encoding=encoding, timezone=timezone, _depth=_depth,
                            expect_elem=info.elem, flat=typid in VECTOR_TYPES)
    return Undecoded(typid, payload.hex(), "type not decoded")


def _decode_text(b: bytes, encoding: str):
    try:
        return b.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return Unreadable("datum.text.bad_encoding", f"not valid {encoding}: {exc}", b.hex())


def _typeout(typid: int, output, payload: bytes, major, timezone: str | None = None, encoding: str = "utf-8"):
    """A ``typeout`` output function's text, or Unreadable for bytes it refuses; the text inside the value (jsonb
    strings, lexemes, xml) read in ``encoding`` (``encodings.STORED_TEXT``)."""
    token = STORED_TEXT.set(encoding)
    try:
        if timezone is not None and typid in _ZONED_OUTPUT:
            return output(payload, major, timezone=timezone)
        return output(payload, major)
    except (ValueError, struct.error, IndexError) as exc:
        return Unreadable(f"datum.{TYPES[typid].name}.bad_value", str(exc) or "not a valid value", payload.hex())
    finally:
        STORED_TEXT.reset(token)


def _decode_fixed(typid: int, raw: bytes, *, major, encoding, timezone: str | None = None):
    output = typeout.OUTPUT.get(typid)
    if output is not None:
        return _typeout(typid, output, raw, major, timezone, encoding)
    fmt = _FIXED_FORMATS.get(typid)
    if fmt is not None:
        if typid == FLOAT4OID:
            return _float4_value(int.from_bytes(raw, "little"))
        v = struct.unpack(fmt, raw)[0]
        if typid == FLOAT8OID:
            return v if math.isfinite(v) else _float_special(v)
        return v
    if typid == BOOLOID:
        if raw[0] > 1:
            return Unreadable("datum.bool.bad_value", f"bool byte is {raw[0]}, not 0 or 1", raw.hex())
        return raw[0] == 1
    if typid == CHAROID:
        return _char_value(raw[0], major)
    if typid == NAMEOID:
        return _decode_text(raw.split(b"\0", 1)[0], encoding)
    if typid == TIDOID:
        bi_hi, bi_lo, posid = struct.unpack("<HHH", raw)
        return f"({(bi_hi << 16) | bi_lo},{posid})"
    if typid == UUIDOID:
        h = raw.hex()
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
    if typid == DATEOID:
        return format_date(struct.unpack("<i", raw)[0])
    if typid == TIMEOID:
        return format_time(struct.unpack("<q", raw)[0])
    if typid == TIMETZOID:
        t, zone = struct.unpack("<qi", raw)
        return format_time(t) + _format_tz(zone)
    if typid in (TIMESTAMPOID, TIMESTAMPTZOID):
        try:
            return format_timestamp(struct.unpack("<q", raw)[0], tz=typid == TIMESTAMPTZOID, timezone=timezone)
        except ValueError as exc:
            return Unreadable("datum.timestamp.out_of_range", str(exc), raw.hex())
    if typid == INTERVALOID:
        return format_interval(*struct.unpack("<qii", raw), major=major)
    return Undecoded(typid, raw.hex(), "type not decoded")


def decode_fixed_column(typid: int, raw, *, major: int | None = None, encoding: str = "utf-8") -> list | None:
    """``decode_datum`` of every row of ``raw`` (uint8 array, shape (n, typlen)), each one value of the
    fixed-width type ``typid``: the same values, decoded a column at a time, for the integer, oid, bool, char
    and name types catalogs are made of (how the catalog reader keeps up with tens of thousands of rows);
    None for any other type."""
    import numpy as np
    info = TYPES.get(typid)
    if info is None or raw.ndim != 2 or raw.shape[1] != info.typlen:
        return None
    fmt = _FIXED_FORMATS.get(typid)
    if fmt is not None and typid not in (FLOAT4OID, FLOAT8OID):
        return np.ascontiguousarray(raw).view(np.dtype(fmt)).reshape(-1).tolist()
    if typid == BOOLOID:
        return [b == 1 if b <= 1 else _decode_fixed(16, bytes([b]), major=major, encoding=encoding)
                for b in raw[:, 0].tolist()]
    if typid == CHAROID:
        return [_char_value(b, major) for b in raw[:, 0].tolist()]
    if typid == NAMEOID:
        flat, width = raw.tobytes(), info.typlen
        return [_decode_text(flat[i:i + width].split(b"\0", 1)[0], encoding) for i in range(0, len(flat), width)]
    return None


def _char_value(b: int, major) -> str:
    # charout: NUL is the empty string. A byte >= 0x80 is written \ooo (octal), as charout does
    # from 15 on; before 15 the server wrote the raw byte, which is no character by itself.
    if b == 0:
        return ""
    if b >= 0x80:
        return "\\%03o" % b
    return chr(b)


# -- floats --------------------------------------------------------------------------------------

def _float_special(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    return "Infinity" if v > 0 else "-Infinity"


class Float4(float):
    """A decoded float4: the Python float of the digits the server prints (1.1, not 1.100000023841858, and so
    in JSON), remembering the float4's own bits, which those digits do not always give back: read as a double
    and rounded to float4 they can land on the neighbour (0x15ae43fd prints 7.038531e-26, whose double rounds
    to the float4 that prints 7.0385313e-26). ``to_pg_text`` prints from the bits."""
    __slots__ = ("bits",)

    def __new__(cls, bits: int):
        sign = "-" if bits >> 31 else ""
        if bits & 0x7FFFFFFF == 0:
            self = super().__new__(cls, sign + "0")
        else:
            digits, dexp = _shortest(bits, float4=True)
            self = super().__new__(cls, "%s%s.%se%d" % (sign, digits[0], digits[1:], dexp))
        self.bits = bits
        return self

    def __reduce__(self):                       # pickled by its bits (to --jobs workers and back)
        return Float4, (self.bits,)


def _float4_value(bits: int):
    """A float4, given as its 32 bits, as a Float4 (NaN and the infinities as their text)."""
    if bits & 0x7F800000 == 0x7F800000:
        return _float_special(struct.unpack("<f", struct.pack("<I", bits))[0])
    return Float4(bits)


def _shortest(bits: int, float4: bool) -> tuple[str, int]:
    """The digits float4out/float8out print for a finite nonzero float given by its bits (sign ignored), and
    the decimal exponent of the first: PostgreSQL's Ryu (src/common/f2s.c, d2s.c). A whole number below 2^24
    (2^53) is its own digits (f2d_small_int); otherwise, of the decimals k * 10^p strictly between the midpoints
    to the neighbouring floats (both ends excluded: PostgreSQL builds Ryu with STRICTLY_SHORTEST 0, so 48085872
    does not print as 4.808587e+07), those of the largest p (the fewest digits), and of them the one nearest to
    the value, half-way to even (2545.03125 prints 2545.0312). Below a power of two the neighbour is half as far
    (mmShift in f2d), so the shortest may lie on the far side of the correctly rounded decimal (2^87 prints
    1.5474251e+26, not 1.54742505e+26)."""
    mbits, bias = (23, 150) if float4 else (52, 1075)
    frac, exp = bits & ((1 << mbits) - 1), (bits >> mbits) & (0xFF if float4 else 0x7FF)
    m, e = (frac | 1 << mbits, exp - bias) if exp else (frac, 1 - bias)
    if -mbits <= e <= 0 and m & ((1 << -e) - 1) == 0:
        s = str(m >> -e)
        return s.rstrip("0"), len(s) - 1
    # the value and the midpoints in units of 2^(e-2), as in f2d
    lo, mid, hi = 4 * m - (1 if frac == 0 and exp > 1 else 2), 4 * m, 4 * m + 2
    e -= 2

    def nearest(p: int):
        """The k * 10^p strictly between lo and hi nearest to mid, or None (all scaled to integers)."""
        scale = (1 << max(e, 0)) * 10 ** max(-p, 0)
        unit = (1 << max(-e, 0)) * 10 ** max(p, 0)
        kmin, kmax = lo * scale // unit + 1, (hi * scale - 1) // unit
        if kmin > kmax:
            return None
        k, r = divmod(mid * scale, unit)
        k += 2 * r > unit or (2 * r == unit and k & 1)          # half-way: to even, as f2d rounds
        return min(max(k, kmin), kmax)

    # a start near the interval's width; some k * 10^p lies inside at every p below the largest that has one
    p = math.floor(math.log10(hi - lo) + e * math.log10(2))
    k = nearest(p)
    while k is None:
        p -= 1
        k = nearest(p)
    while (up := nearest(p + 1)) is not None:
        p, k = p + 1, up
    s = str(k)
    return s.rstrip("0"), p + len(s) - 1


def format_float(v, float4: bool = False) -> str:
    """float4out/float8out text (12+, extra_float_digits >= 1: the shortest exact digits): fixed notation when
    the decimal exponent is in [-4, 15) (float8) or [-4, 6) (float4), otherwise ``d.ddde+XX``. A float4 is
    printed from its bits when it is a decoded Float4, else from the float4 nearest to ``v``."""
    if isinstance(v, str):            # NaN / Infinity as decoded
        return v
    if not math.isfinite(v):
        return _float_special(v)
    if isinstance(v, Float4) and float4:
        bits = v.bits
    else:
        bits = struct.unpack("<I", struct.pack("<f", v))[0] if float4 else \
            struct.unpack("<Q", struct.pack("<d", v))[0]
    sign_bit = 31 if float4 else 63
    sign = "-" if bits >> sign_bit else ""
    if bits & ((1 << sign_bit) - 1) == 0:
        return sign + "0"
    digits, dexp = _shortest(bits, float4)
    if -4 <= dexp < (6 if float4 else 15):
        if dexp >= 0:
            out = digits[:dexp + 1].ljust(dexp + 1, "0")
            if len(digits) > dexp + 1:
                out += "." + digits[dexp + 1:]
        else:
            out = "0." + "0" * (-dexp - 1) + digits
    else:
        out = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        out += "e%s%02d" % ("-" if dexp < 0 else "+", abs(dexp))
    return sign + out


# -- dates and times -----------------------------------------------------------------------------

POSTGRES_EPOCH_JDATE = 2451545          # 2000-01-01
USECS_PER_DAY = 86_400_000_000
USECS_PER_HOUR = 3_600_000_000
USECS_PER_MINUTE = 60_000_000
USECS_PER_SEC = 1_000_000
DATEVAL_NOBEGIN = -(2 ** 31)
DATEVAL_NOEND = 2 ** 31 - 1
DT_NOBEGIN = -(2 ** 63)
DT_NOEND = 2 ** 63 - 1
_UNIX_EPOCH_SECS = 946_684_800          # (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY


def j2date(jd: int) -> tuple[int, int, int]:
    """Julian day -> (year, month, day), PostgreSQL's j2date (year <= 0 is BC: 0 = 1 BC)."""
    julian = (jd + 32044) & 0xFFFFFFFF
    quad = julian // 146097
    extra = ((julian - quad * 146097) * 4 + 3) & 0xFFFFFFFF
    julian = (julian + 60 + quad * 3 + extra // 146097) & 0xFFFFFFFF
    quad = julian // 1461
    julian -= quad * 1461
    y = julian * 4 // 1461
    julian = ((julian + 305) % 365 if y != 0 else (julian + 306) % 366) + 123
    y += quad * 4
    year = y - 4800
    quad = julian * 2141 // 65536
    day = julian - 7834 * quad // 256
    month = (quad + 10) % 12 + 1
    return year, month, day


def _ymd_text(year: int, month: int, day: int) -> tuple[str, bool]:
    bc = year <= 0
    return "%04d-%02d-%02d" % (1 - year if bc else year, month, day), bc


def format_date(days: int) -> str:
    """date_out, ISO: days since 2000-01-01."""
    if days == DATEVAL_NOBEGIN:
        return "-infinity"
    if days == DATEVAL_NOEND:
        return "infinity"
    text, bc = _ymd_text(*j2date(days + POSTGRES_EPOCH_JDATE))
    return text + (" BC" if bc else "")


def _seconds_text(sec: int, fsec: int) -> str:
    s = "%02d" % abs(sec)
    if fsec:
        s += ("." + "%06d" % abs(fsec)).rstrip("0")
    return s


def format_time(usecs: int) -> str:
    """time_out: microseconds since midnight."""
    hour, rem = divmod(usecs, USECS_PER_HOUR)
    minute, rem = divmod(rem, USECS_PER_MINUTE)
    sec, fsec = divmod(rem, USECS_PER_SEC)
    return "%02d:%02d:%s" % (hour, minute, _seconds_text(sec, fsec))


def _format_tz(zone_seconds_west: int) -> str:
    # EncodeTimezone: sign, hours, then :MM and :SS only when not zero
    tz = -zone_seconds_west
    sign = "-" if tz < 0 else "+"
    tz = abs(tz)
    h, rem = divmod(tz, 3600)
    m, s = divmod(rem, 60)
    out = "%s%02d" % (sign, h)
    if m or s:
        out += ":%02d" % m
    if s:
        out += ":%02d" % s
    return out


def format_timestamp(usecs: int, tz: bool = False, timezone: str | None = None) -> str:
    """timestamp_out / timestamptz_out, ISO DateStyle. A timestamptz (``tz``) is shown in
    ``timezone`` (a TimeZone setting, see ``pgtz``; None: UTC) as timestamp2tm + EncodeDateTime do:
    the UTC date must be a valid Julian day (else ValueError: the server refuses to print it), then
    the zone's offset at that second moves the wall clock and is printed after it (``+05:30``,
    ``-04:56:02``), before `` BC``."""
    if usecs == DT_NOBEGIN:
        return "-infinity"
    if usecs == DT_NOEND:
        return "infinity"
    jd = usecs // USECS_PER_DAY + POSTGRES_EPOCH_JDATE
    if jd < 0 or jd > 2 ** 31 - 1:
        raise ValueError(f"timestamp {usecs} is out of range")
    offset = 0
    if tz and timezone is not None:
        # pg_localtime of the whole second (fractions stay as they are: offsets are whole seconds)
        offset = pgtz.get_zone(timezone).utc_offset(usecs // USECS_PER_SEC + _UNIX_EPOCH_SECS)
        usecs += offset * USECS_PER_SEC
    date, time = divmod(usecs, USECS_PER_DAY)
    text, bc = _ymd_text(*_j2date_any(date + POSTGRES_EPOCH_JDATE))
    text += " " + format_time(time)
    if tz:
        text += _format_tz(-offset)
    return text + (" BC" if bc else "")


def _j2date_any(jd: int) -> tuple[int, int, int]:
    """j2date for any Julian day: a local date may fall before day 0 (4714-11-24 BC 00:00 UTC seen
    west of Greenwich); the Gregorian calendar repeats every 146097 days (400 years)."""
    if jd >= 0:
        return j2date(jd)
    cycles = -jd // 146097 + 1
    year, month, day = j2date(jd + cycles * 146097)
    return year - 400 * cycles, month, day


def format_interval(time: int, day: int, month: int, major: int | None = None) -> str:
    """interval_out, IntervalStyle=postgres (``1 year 2 mons 3 days 04:05:06.5``)."""
    if major is None or major >= 17:
        if time == DT_NOBEGIN and day == -(2 ** 31) and month == -(2 ** 31):
            return "-infinity"
        if time == DT_NOEND and day == 2 ** 31 - 1 and month == 2 ** 31 - 1:
            return "infinity"
    year, mon = _cdiv(month, 12)
    hour, time = _cdiv(time, USECS_PER_HOUR)
    minute, time = _cdiv(time, USECS_PER_MINUTE)
    sec, fsec = _cdiv(time, USECS_PER_SEC)
    parts: list[str] = []
    state = {"is_zero": True, "is_before": False}

    def add(value: int, unit: str):
        if value == 0:
            return
        parts.append("%s%s%d %s%s" % ("" if state["is_zero"] else " ",
                                      "+" if state["is_before"] and value > 0 else "",
                                      value, unit, "" if value == 1 else "s"))
        state["is_before"] = value < 0
        state["is_zero"] = False

    add(year, "year")
    add(mon, "mon")
    add(day, "day")
    if state["is_zero"] or hour or minute or sec or fsec:
        minus = hour < 0 or minute < 0 or sec < 0 or fsec < 0
        parts.append("%s%s%02d:%02d:%s" % ("" if state["is_zero"] else " ",
                                            "-" if minus else ("+" if state["is_before"] else ""),
                                            abs(hour), abs(minute), _seconds_text(sec, fsec)))
    return "".join(parts)


def _cdiv(a: int, b: int) -> tuple[int, int]:
    """C integer division (truncating toward zero) and its remainder."""
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - q * b


# -- numeric -------------------------------------------------------------------------------------

NUMERIC_SIGN_MASK = 0xC000
NUMERIC_POS = 0x0000
NUMERIC_NEG = 0x4000
NUMERIC_SHORT = 0x8000
NUMERIC_SPECIAL = 0xC000
NUMERIC_EXT_SIGN_MASK = 0xF000
NUMERIC_NAN = 0xC000
NUMERIC_PINF = 0xD000
NUMERIC_NINF = 0xF000
NUMERIC_DSCALE_MASK = 0x3FFF
NUMERIC_SHORT_SIGN_MASK = 0x2000
NUMERIC_SHORT_DSCALE_MASK = 0x1F80
NUMERIC_SHORT_DSCALE_SHIFT = 7
NUMERIC_SHORT_WEIGHT_SIGN_MASK = 0x0040
NUMERIC_SHORT_WEIGHT_MASK = 0x003F
NBASE = 10000
DEC_DIGITS = 4


def decode_numeric(payload: bytes, major: int | None = None):
    """NumericData (``utils/adt/numeric.c``) -> exact decimal text, as numeric_out writes it.

    Layout after the varlena header: a uint16 header word. Top bits 11 (NUMERIC_SPECIAL): NaN 0xC000,
    +Infinity 0xD000, -Infinity 0xF000 (14+). Top bits 10 (NUMERIC_SHORT): sign 0x2000, display scale
    in bits 7-12, weight as a 7-bit signed number in bits 0-6. Otherwise (long form) the word is
    sign (0x4000 = negative) | dscale (14 bits), then an int16 weight. Then base-10000 int16 digits;
    ``weight`` is the power of 10000 of the first digit.
    """
    if len(payload) < 2:
        return Unreadable("datum.numeric.bad_header", "numeric shorter than its 2-byte header",
                          payload.hex())
    header = struct.unpack_from("<H", payload, 0)[0]
    if (header & NUMERIC_SIGN_MASK) == NUMERIC_SPECIAL:
        ext = header & NUMERIC_EXT_SIGN_MASK
        if ext == NUMERIC_NAN:
            return "NaN"
        if ext in (NUMERIC_PINF, NUMERIC_NINF) and (major is None or major >= 14):
            return "Infinity" if ext == NUMERIC_PINF else "-Infinity"
        return Unreadable("datum.numeric.bad_special", f"numeric special header 0x{header:04x}",
                          payload.hex())
    if header & NUMERIC_SHORT:
        negative = bool(header & NUMERIC_SHORT_SIGN_MASK)
        dscale = (header & NUMERIC_SHORT_DSCALE_MASK) >> NUMERIC_SHORT_DSCALE_SHIFT
        weight = header & NUMERIC_SHORT_WEIGHT_MASK
        if header & NUMERIC_SHORT_WEIGHT_SIGN_MASK:
            weight -= NUMERIC_SHORT_WEIGHT_MASK + 1
        start = 2
    else:
        if len(payload) < 4:
            return Unreadable("datum.numeric.bad_header", "long numeric header cut off", payload.hex())
        if header & NUMERIC_SIGN_MASK not in (NUMERIC_POS, NUMERIC_NEG):
            return Unreadable("datum.numeric.bad_sign", f"numeric sign 0x{header:04x}", payload.hex())
        negative = (header & NUMERIC_SIGN_MASK) == NUMERIC_NEG
        dscale = header & NUMERIC_DSCALE_MASK
        weight = struct.unpack_from("<h", payload, 2)[0]
        start = 4
    body = payload[start:]
    if len(body) % 2:
        return Unreadable("datum.numeric.odd_length", "numeric digits are not whole int16s",
                          payload.hex())
    digits = struct.unpack("<%dh" % (len(body) // 2), body)
    if any(d < 0 or d >= NBASE for d in digits):
        return Unreadable("datum.numeric.bad_digit", "numeric digit outside 0..9999", payload.hex())
    return _numeric_text(negative, weight, dscale, digits)


def _numeric_text(negative: bool, weight: int, dscale: int, digits) -> str:
    """get_str_from_var: integer part from the digits up to ``weight``, then exactly ``dscale``
    fractional decimal digits (zero-filled past the stored digits, truncated otherwise)."""
    nd = len(digits)

    def digit(i):
        return digits[i] if 0 <= i < nd else 0

    out = ["-"] if negative else []
    if weight < 0:
        out.append("0")
    else:
        out.append(str(digit(0)))
        out.extend("%04d" % digit(i) for i in range(1, weight + 1))
    if dscale > 0:
        frac = []
        i = weight + 1
        need = dscale
        while need > 0:
            frac.append("%04d" % digit(i))
            i += 1
            need -= DEC_DIGITS
        out.append("." + "".join(frac)[:dscale])
    return "".join(out)


# -- arrays --------------------------------------------------------------------------------------

def _maxalign(n: int) -> int:
    return (n + 7) & ~7


ATTALIGN_BYTES = {"c": 1, "s": 2, "i": 4, "d": 8}  # pg_type.typalign / attalign


def split_array(payload: bytes, elem_len: int | None = None, elem_align: str | None = None):
    """Split an array (ArrayType, ``utils/array.h``) into its elements' raw bytes.

    ``payload`` is the array's content after its varlena header. Layout, offsets from the start of
    the 4-byte-header form (a short-header array is read as PostgreSQL reads it: expanded to a
    4-byte header first, so element alignment is relative to that): ``int32 ndim | int32 dataoffset
    (0 = no null bitmap) | Oid elemtype | int32 dims[ndim] | int32 lbound[ndim] | null bitmap |
    data at dataoffset or MAXALIGN(16 + 8*ndim)``. Elements are aligned by their typalign (no
    short-header exception inside arrays).

    Returns ``(elemtype, dims, lbounds, items)`` with items a flat list of ``bytes`` or ``None``
    (NULL), or a DatumError. Element storage is taken from ``elem_len``/``elem_align`` or else from
    ``TYPES``; every count is bounded by the bytes present.
    """
    buf = b"\0\0\0\0" + bytes(payload)          # the 4-byte-header image PostgreSQL works on
    end = len(buf)
    if end < 16:
        return DatumError("datum.array.bad_header", "array shorter than its 16-byte header",
                          expected=16, actual=end)
    ndim, dataoffset, elemtype = struct.unpack_from("<iiI", buf, 4)
    if ndim == 0:
        return elemtype, (), (), []
    if not 0 < ndim <= MAX_ARRAY_DIMS:
        return DatumError("datum.array.bad_ndim", f"array has {ndim} dimensions",
                          expected=f"0..{MAX_ARRAY_DIMS}", actual=ndim)
    hdr = 16 + 8 * ndim
    if hdr > end:
        return DatumError("datum.array.bad_header", "array dimensions cut off", expected=hdr, actual=end)
    dims = struct.unpack_from("<%di" % ndim, buf, 16)
    lbounds = struct.unpack_from("<%di" % ndim, buf, 16 + 4 * ndim)
    nitems = 1
    for d in dims:
        if d < 0:
            return DatumError("datum.array.bad_dims", f"negative array dimension {d}", actual=d)
        nitems *= d
        if nitems > end * 8:                     # even all-NULL items need a bitmap bit each
            return DatumError("datum.array.bad_dims", "array claims more items than its bytes hold",
                              actual=list(dims))
    if elem_len is None or elem_align is None:
        info = TYPES.get(elemtype)
        if info is None or info.typlen == 0:
            return DatumError("datum.array.unknown_elemtype", f"array of unknown type {elemtype}",
                              actual=elemtype)
        elem_len, elem_align = info.typlen, info.typalign
    bitmap = None
    if dataoffset:
        nbytes = (nitems + 7) // 8
        if hdr + nbytes > end or dataoffset < hdr + nbytes or dataoffset > end:
            return DatumError("datum.array.bad_dataoffset", f"array dataoffset {dataoffset} is invalid",
                              actual=dataoffset)
        bitmap = buf[hdr:hdr + nbytes]
        off = dataoffset
    else:
        off = _maxalign(hdr)
    align = ATTALIGN_BYTES.get(elem_align, 1)
    items: list = []
    for i in range(nitems):
        if bitmap is not None and not (bitmap[i >> 3] & (1 << (i & 7))):
            items.append(None)
            continue
        off = (off + align - 1) & ~(align - 1)
        if elem_len > 0:
            ln = elem_len
        elif elem_len == -1:
            v = parse_varlena(buf, off, end)
            if isinstance(v, DatumError):
                return DatumError("datum.array.bad_element", f"array element {i + 1}: {v.message}",
                                  offset=off - 4, actual=v.code)
            ln = v.total_len
        else:                                        # -2: cstring
            nul = buf.find(b"\0", off, end)
            if nul < 0:
                return DatumError("datum.array.bad_element", f"array element {i + 1} has no NUL",
                                  offset=off - 4)
            ln = nul - off + 1
        if off + ln > end:
            return DatumError("datum.array.overrun", f"array element {i + 1} runs past the array",
                              offset=off - 4, expected=off + ln, actual=end)
        items.append(buf[off:off + ln])
        off += ln
    return elemtype, dims, lbounds, items


def _nest(items: list, dims) -> list:
    if len(dims) <= 1:
        return list(items)
    step = 1
    for d in dims[1:]:
        step *= d
    return [_nest(items[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]


def decode_array(payload: bytes, *, major: int | None = None, encoding: str = "utf-8",
                 timezone: str | None = None, expect_elem: int | None = None, flat: bool = False,
                 _depth: int = 0):
    """An array's content (after its varlena header) -> nested lists (PgArray if a lower bound is
    not 1), or one flat list with ``flat`` (int2vector and oidvector: one dimension, lower bound 0,
    written without bounds). Elements decode with ``decode_datum`` (``timezone`` passed on)."""
    if timezone is not None:
        pgtz.get_zone(timezone)
    if _depth > _DECODE_DEPTH_LIMIT:
        return Unreadable("datum.array.too_deep", "arrays nested too deeply", payload.hex())
    parts = split_array(payload)
    if isinstance(parts, DatumError):
        return Unreadable(parts.code, parts.message, payload.hex())
    elemtype, dims, lbounds, items = parts
    if expect_elem is not None and elemtype != expect_elem and dims:
        return Unreadable("datum.array.elemtype_mismatch",
                          f"array of type {elemtype} where {expect_elem} was expected", payload.hex())
    values = []
    for it in items:
        if it is None:
            values.append(None)
        else:
            values.append(decode_datum(elemtype, it, major=major, encoding=encoding, timezone=timezone))
    if flat:
        return values
    nested = _nest(values, dims)
    if lbounds and any(lb != 1 for lb in lbounds):
        return PgArray(tuple(lbounds), nested)
    return nested


# ---------------------------------------------------------------------------------------------
# Text rendering
# ---------------------------------------------------------------------------------------------

# Characters that make array_out quote an element, besides its type's delimiter (pg_type.typdelim: ","
# for every built-in type but box, ";", whose own text has commas and is written bare in box[]).
_ARRAY_SPECIAL = set('{}"\\') | set(" \t\n\r\v\f")
_ARRAY_DELIMITERS = {603: ";"}


def to_pg_text(typid: int, value) -> str | None:
    """Render a decoded value as the type's output function would (see the module docstring for
    the session settings assumed). None for SQL NULL; typed stand-ins render as ``<...>``: a value
    printed as data is first checked with ``unreadable_part`` (no text stands in for damaged bytes)."""
    if value is None:
        return None
    if isinstance(value, (Unreadable, Undecoded, ToastPointer)):
        return str(value)
    if typid in VECTOR_TYPES:
        if isinstance(value, PgArray):
            value = value.elements
        return " ".join(str(v) for v in value)
    info = TYPES.get(typid)
    if info is not None and info.elem:
        return _array_text(info.elem, value)
    if typid == BOOLOID or (isinstance(value, bool) and typid not in TYPES):
        return "t" if value else "f"
    if typid == FLOAT4OID:
        return format_float(value, float4=True)
    if typid == FLOAT8OID or (isinstance(value, float) and typid not in TYPES):
        return format_float(value)
    if isinstance(value, (list, PgArray)):          # anyarray: element type known only per value
        return _array_text(0, value)
    return str(value)


def unreadable_part(value) -> Unreadable | None:
    """The ``Unreadable`` a decoded value is or holds (an array's element, at any depth), None if none."""
    if isinstance(value, Unreadable):
        return value
    if isinstance(value, PgArray):
        value = value.elements
    if isinstance(value, list):
        for v in value:
            bad = unreadable_part(v)
            if bad is not None:
                return bad
    return None


def _array_text(elem: int, value) -> str:
    """A decoded array (nested lists, or a PgArray) as array_out prints it."""
    lbounds = None
    if isinstance(value, PgArray):
        lbounds, value = value.lbounds, value.elements
    dims, level = [], value
    while isinstance(level, list) and level:
        dims.append(len(level))
        level = level[0]
    flat = value
    for _ in dims[1:]:
        flat = [x for sub in flat for x in sub]
    texts = [None if v is None else to_pg_text(elem, v) for v in flat]
    return array_literal(texts, dims, lbounds or [1] * len(dims), _ARRAY_DELIMITERS.get(elem, ","))


def array_literal(texts: list, dims, lbounds, delim: str = ",") -> str:
    """array_out's text from the elements' own texts (flat, row-major; None for NULL): ``{a,b}``, nested per
    dimension, ``[lb:ub]=`` bounds first when a lower bound is not 1, elements quoted when array_in could
    not read them back bare (empty, ``NULL``, a delimiter, quote, backslash, brace or white space)."""
    def quoted(s):
        if s is None:
            return "NULL"
        if s == "" or s.upper() == "NULL" or delim in s or any(ch in _ARRAY_SPECIAL for ch in s):
            return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return s

    if not dims:
        return "{}"
    body = _nest([quoted(t) for t in texts], dims)

    def join(v):
        return "{" + delim.join(join(x) if isinstance(x, list) else x for x in v) + "}"
    prefix = ""
    if any(lb != 1 for lb in lbounds):
        prefix = "".join("[%d:%d]" % (lb, lb + d - 1) for lb, d in zip(lbounds, dims)) + "="
    return prefix + join(body)
