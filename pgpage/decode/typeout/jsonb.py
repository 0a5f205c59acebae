"""jsonb (OID 3802): the on-disk JsonbContainer tree, printed as ``jsonb_out`` prints it.

Transcribes ``src/include/utils/jsonb.h`` (layout), ``src/backend/utils/adt/jsonb_util.c``
(``iteratorFromContainer``, ``JsonbIteratorNext``, ``fillJsonbValue``, ``convertJsonb*``, which say
what a server writes) and ``src/backend/utils/adt/jsonb.c`` (``JsonbToCStringWorker``,
``jsonb_put_escaped_value``). The format has not changed since 9.4 final, so it is the same for every
major 10-18 (9.4's betas stored end offsets in every JEntry; no released server wrote that).

Layout (the varlena header is gone: ``payload`` starts at ``Jsonb.root``)::

    JsonbContainer (4-byte aligned)
    +-----------+----------------------------+--------------------------------------+
    | uint32    | JEntry children[n]         | variable-length data of the children |
    | header    | (object: n keys, then      | (dataProper; offsets below count     |
    |           |  n values = 2n JEntrys)    |  from its first byte)                |
    +-----------+----------------------------+--------------------------------------+

    header:  JB_CMASK 0x0FFFFFFF  count (array elements, or object key/value pairs)
             JB_FSCALAR 0x10000000  a top-level scalar, stored as a one-element array
             JB_FOBJECT 0x20000000, JB_FARRAY 0x40000000  (exactly one of the two)

    JEntry:  JENTRY_OFFLENMASK 0x0FFFFFFF  the child's data length, or with JENTRY_HAS_OFF its
                                           end offset (every JB_OFFSET_STRIDE = 32nd child gets an
                                           offset; readers must follow the bit, not the stride)
             JENTRY_TYPEMASK 0x70000000  0 string, 0x1 numeric, 0x2 false, 0x3 true, 0x4 null,
                                         0x5 container (array or object); 0x6/0x7 are not used
             JENTRY_HAS_OFF 0x80000000

A child's data starts where the previous child's ends. Strings are their bytes (no NUL, no
quotes). A numeric and a nested container start 4-byte aligned *within dataProper*: the zero
padding before them belongs to their own data length. A numeric is a whole numeric varlena
(``VARSIZE_ANY``: a 4-byte header as numeric_in makes it); a nested container is a JsonbContainer.
Object keys are stored sorted (shorter first, then bytewise: ``lengthCompareJsonbString``), all keys
before all values, and the output prints them in that stored order. The root has no JEntry: its
header's flags say what it is.

Output (``JsonbToCString``, no indentation): ``[a, b]``, ``{"k": v, "k2": v2}``, ``[]``, ``{}``, a
raw scalar without brackets; strings through ``escape_json``; numerics through ``numeric_out``;
``true``, ``false``, ``null``. Bytes no server writes (bad flags, entries past their container,
non-zero padding, a NUL in a string, keys that are not strings, ...) raise ValueError.

Nesting is walked with an explicit stack, not recursion: the server prints any depth (its iterator
is not recursive), and each level costs at least 8 bytes (a JEntry and a header), so the stack is
bounded by the payload's length.
"""
from __future__ import annotations

from pgpage.decode.encodings import STORED_TEXT, stored_text

import struct
from pgpage.decode.ksy.type_oids import JSONBARRAYOID, JSONBOID


JB_CMASK = 0x0FFFFFFF
JB_FSCALAR = 0x10000000
JB_FOBJECT = 0x20000000
JB_FARRAY = 0x40000000

JENTRY_OFFLENMASK = 0x0FFFFFFF
JENTRY_TYPEMASK = 0x70000000
JENTRY_HAS_OFF = 0x80000000

JENTRY_ISSTRING = 0x00000000
JENTRY_ISNUMERIC = 0x10000000
JENTRY_ISBOOL_FALSE = 0x20000000
JENTRY_ISBOOL_TRUE = 0x30000000
JENTRY_ISNULL = 0x40000000
JENTRY_ISCONTAINER = 0x50000000

_FIXED_TEXT = {JENTRY_ISBOOL_FALSE: "false", JENTRY_ISBOOL_TRUE: "true", JENTRY_ISNULL: "null"}

# escape_json (utils/adt/json.c): these five and the quote and backslash by name, every other
# byte below 0x20 as \u00XX; everything else (non-ASCII included) as it is.
_ESCAPES = {i: "\\u%04x" % i for i in range(0x20)}
_ESCAPES.update({0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t",
                 0x22: '\\"', 0x5C: "\\\\"})


def _intalign(n: int) -> int:
    return (n + 3) & ~3


class _Container:
    """One JsonbContainer inside ``buf[start:end]``: its kind and its children as
    ``(entry type, data start, data end)`` with positions in ``buf``."""
    __slots__ = ("is_object", "is_scalar", "count", "children")

    def __init__(self, buf: bytes, start: int, end: int):
        if end - start < 4:
            raise ValueError("jsonb container shorter than its header")
        header = struct.unpack_from("<I", buf, start)[0]
        kind = header & (JB_FARRAY | JB_FOBJECT)
        if kind not in (JB_FARRAY, JB_FOBJECT) or header & ~(JB_CMASK | JB_FSCALAR | kind):
            raise ValueError(f"jsonb container header 0x{header:08x} is neither an array nor an object")
        self.is_object = kind == JB_FOBJECT
        self.is_scalar = bool(header & JB_FSCALAR)
        self.count = header & JB_CMASK
        if self.is_scalar and (self.is_object or self.count != 1):
            raise ValueError("jsonb scalar flag on a container that is not a one-element array")
        nentries = self.count * 2 if self.is_object else self.count
        data = start + 4 + 4 * nentries
        if data > end:
            raise ValueError(f"jsonb container of {self.count} children runs past its {end - start} bytes")
        entries = struct.unpack_from("<%dI" % nentries, buf, start + 4)
        children = []
        offset = 0
        for entry in entries:
            field = entry & JENTRY_OFFLENMASK
            stop = field if entry & JENTRY_HAS_OFF else offset + field   # JBE_ADVANCE_OFFSET
            if stop < offset or data + stop > end:
                raise ValueError("jsonb entry runs past its container")
            children.append((entry & JENTRY_TYPEMASK, data + offset, data + stop))
            offset = stop
        if data + offset != end:
            raise ValueError(f"jsonb container has {end - data - offset} bytes after its last child")
        self.children = children


def _aligned(buf: bytes, start: int, end: int) -> int:
    """Skip the zero padding before a numeric or a container. INTALIGN counts from dataProper, and
    every dataProper is 4-byte aligned from the root's start, so positions in ``buf`` align alike."""
    body = _intalign(start)
    if body > end or any(buf[start:body]):
        raise ValueError("jsonb padding is missing or not zero")
    return body


def json_quote(raw: bytes, what: str = "jsonb string") -> str:
    """``escape_json`` of a stored string (jsonpath's strings and keys print the same way)."""
    if b"\0" in raw:
        # jsonb_in and jsonpath_in refuse \u0000; up to 16 escape_json stopped at a NUL (it took a
        # C string), from 17 escape_json_with_len prints \u0000: no server wrote one to print
        raise ValueError(f"{what} holds a NUL byte")
    try:
        text = stored_text(raw)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} is not valid {STORED_TEXT.get()}: {exc.reason}") from None
    return '"' + text.translate(_ESCAPES) + '"'


def _string(buf: bytes, start: int, end: int) -> str:
    return json_quote(buf[start:end])


def _numeric(buf: bytes, start: int, end: int, major) -> str:
    body = _aligned(buf, start, end)
    if body >= end:
        raise ValueError("jsonb numeric is empty")
    first = buf[body]
    if first & 0x03 == 0x00:                   # 4-byte header (what numeric_in makes)
        if end - body < 4:
            raise ValueError("jsonb numeric header cut off")
        size, hdr = struct.unpack_from("<I", buf, body)[0] >> 2, 4
    elif first & 0x01 and first != 0x01:       # 1-byte header: read by pg_detoast_datum as well
        size, hdr = first >> 1, 1
    else:
        raise ValueError("jsonb numeric is compressed or a TOAST pointer")
    if size != end - body:
        raise ValueError(f"jsonb numeric of {size} bytes in an entry of {end - body}")
    from pgpage.decode.datum import decode_numeric  # here: datum imports this module
    text = decode_numeric(buf[body + hdr:end], major)
    if not isinstance(text, str):
        raise ValueError(f"jsonb numeric: {text.message}")
    return text


def _scalar(kind: int, buf: bytes, start: int, end: int, major) -> str:
    if kind == JENTRY_ISSTRING:
        return _string(buf, start, end)
    if kind == JENTRY_ISNUMERIC:
        return _numeric(buf, start, end, major)
    if kind in _FIXED_TEXT:
        if end != start:
            raise ValueError("jsonb true, false or null with data")
        return _FIXED_TEXT[kind]
    raise ValueError(f"jsonb entry type 0x{kind >> 28:x}")


def _open(buf: bytes, start: int, end: int) -> _Container:
    """A nested container (after its padding); the scalar flag belongs to the root only."""
    c = _Container(buf, _aligned(buf, start, end), end)
    if c.is_scalar:
        raise ValueError("jsonb scalar flag on a nested container")
    return c


def jsonb_out(payload: bytes, major: int | None = None) -> str:
    """The text of a jsonb value (``payload``: the bytes after its varlena header)."""
    buf = bytes(payload)
    root = _Container(buf, 0, len(buf))
    if root.is_scalar:
        kind, start, end = root.children[0]
        if kind == JENTRY_ISCONTAINER:
            raise ValueError("jsonb scalar pseudo-array holds a container")
        return _scalar(kind, buf, start, end, major)
    out = ["{" if root.is_object else "["]
    stack = [[root, 0]]                        # (container, index of its next child)
    while stack:
        frame = stack[-1]
        c, i = frame
        if i >= c.count:
            out.append("}" if c.is_object else "]")
            stack.pop()
            continue
        frame[1] = i + 1
        if i:
            out.append(", ")
        if c.is_object:
            kind, start, end = c.children[i]
            if kind != JENTRY_ISSTRING:
                raise ValueError("jsonb object key is not a string")
            out.append(_string(buf, start, end))
            out.append(": ")
            kind, start, end = c.children[c.count + i]
        else:
            kind, start, end = c.children[i]
        if kind == JENTRY_ISCONTAINER:
            child = _open(buf, start, end)
            out.append("{" if child.is_object else "[")
            stack.append([child, 0])
        else:
            out.append(_scalar(kind, buf, start, end, major))
    return "".join(out)


TYPES = {
    JSONBOID: ("jsonb", -1, "i", False, JSONBARRAYOID),
}

OUTPUT = {
    JSONBOID: jsonb_out,
}
