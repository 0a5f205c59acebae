"""jsonpath (OID 4072, PostgreSQL 12+): the flattened item tree, printed as ``jsonpath_out`` prints it.

Transcribes ``src/include/utils/jsonpath.h`` and ``src/backend/utils/adt/jsonpath.c``
(``flattenJsonPathParseItem`` writes the bytes, ``jspInitByBuffer`` reads them,
``printJsonPathItem``, ``jspOperationName`` and ``operationPriority`` print them).

Layout (the varlena header is gone)::

    uint32 header      JSONPATH_VERSION 0x01 | JSONPATH_LAX 0x80000000 (clear: "strict ")
    data:              items; the root item at data offset 0

    item:  uint8 type (JsonPathItemType), zero padding to a 4-byte boundary of ``data``,
           int32 nextPos (offset of the next item in the chain from this item's first byte, 0 = none),
           then by type:
             string, key, variable   int32 len, len bytes, '\\0'
             numeric                 a numeric varlena (4-byte header)
             bool                    one byte, 0 or 1
             binary operators, starts with, .decimal()
                                     int32 left, int32 right (offsets from this item; 0 = none)
             !, is unknown, unary +/-, ?(filter), exists, .datetime() and the 17+ datetime methods
                                     int32 arg (0 = none)
             [subscripts]            int32 n, then n pairs (int32 from, int32 to; to 0 = no range)
             .**{first to last}      uint32 first, uint32 last (0xFFFFFFFF = last)
             like_regex              uint32 flags (i s m x q = 0x01 0x02 0x04 0x08 0x10),
                                     int32 expr, int32 len, len bytes, '\\0'
             $, @, [*], .*, last, methods without arguments: nothing

Every argument and next item is written after its parent (offsets are positive) and each item is
referred to once. The walk uses an explicit stack (no recursion) and visits each item once, so
bad bytes cannot make it loop or blow up; bytes no server writes raise ValueError.

Version history (checked against servers 12-18, which wrote and printed the values in the tests):

* 13 inserted ``jpiDatetime`` (``.datetime()``) after ``jpiDouble``: the type numbers of
  ``keyvalue``, ``subscript``, ``last``, ``starts with`` and ``like_regex`` are one lower in 12.
* 15 prints a numeric literal that has a next item in parentheses (``(1)."a"``; 12-14: ``1."a"``),
  as 15's scanner refuses trailing junk after a number.
* 17 added ``.bigint()``, ``.boolean()``, ``.date()``, ``.decimal([p[, s]])``, ``.integer()``,
  ``.number()``, ``.string()``, ``.time([p])``, ``.time_tz([p])``, ``.timestamp([p])`` and
  ``.timestamp_tz([p])``, appended to the enum (the string methods after them are 19's).
"""
from __future__ import annotations

import struct

from pgpage.decode.typeout.jsonb import json_quote
from pgpage.decode.ksy.type_oids import JSONPATHARRAYOID, JSONPATHOID


JSONPATH_VERSION = 0x01
JSONPATH_LAX = 0x80000000
PG_UINT32_MAX = 0xFFFFFFFF

JSP_REGEX_FLAGS = ((0x01, "i"), (0x02, "s"), (0x04, "m"), (0x08, "x"), (0x10, "q"))

# JsonPathItemType, by value, in each major (see the module docstring).
_COMMON = ("Null", "String", "Numeric", "Bool", "And", "Or", "Not", "IsUnknown", "Equal", "NotEqual",
           "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Add", "Sub", "Mul", "Div", "Mod",
           "Plus", "Minus", "AnyArray", "AnyKey", "IndexArray", "Any", "Key", "Current", "Root",
           "Variable", "Filter", "Exists", "Type", "Size", "Abs", "Floor", "Ceiling", "Double")
_ITEM_TYPES_12 = _COMMON + ("KeyValue", "Subscript", "Last", "StartsWith", "LikeRegex")
_ITEM_TYPES_13 = _COMMON + ("Datetime", "KeyValue", "Subscript", "Last", "StartsWith", "LikeRegex")
_ITEM_TYPES_17 = _ITEM_TYPES_13 + ("Bigint", "Boolean", "Date", "Decimal", "Integer", "Number",
                                   "StringFunc", "Time", "TimeTz", "Timestamp", "TimestampTz")


def item_types(major: int | None) -> tuple[str, ...]:
    if major is None or major >= 17:
        return _ITEM_TYPES_17
    if major >= 13:
        return _ITEM_TYPES_13
    if major == 12:
        return _ITEM_TYPES_12
    raise ValueError(f"jsonpath does not exist before PostgreSQL 12 (major {major})")


_OPERATORS = {"And": "&&", "Or": "||", "Equal": "==", "NotEqual": "!=", "Less": "<", "Greater": ">",
              "LessOrEqual": "<=", "GreaterOrEqual": ">=", "Add": "+", "Sub": "-", "Mul": "*",
              "Div": "/", "Mod": "%", "StartsWith": "starts with"}
_PRIORITY = {"Or": 0, "And": 1, "Equal": 2, "NotEqual": 2, "Less": 2, "Greater": 2, "LessOrEqual": 2,
             "GreaterOrEqual": 2, "StartsWith": 2, "Add": 3, "Sub": 3, "Mul": 4, "Div": 4, "Mod": 4,
             "Plus": 5, "Minus": 5}                 # operationPriority: everything else is 6
_METHODS = {"Type": ".type()", "Size": ".size()", "Abs": ".abs()", "Floor": ".floor()",
            "Ceiling": ".ceiling()", "Double": ".double()", "KeyValue": ".keyvalue()",
            "Bigint": ".bigint()", "Boolean": ".boolean()", "Date": ".date()", "Integer": ".integer()",
            "Number": ".number()", "StringFunc": ".string()", "Current": "@", "Root": "$",
            "AnyArray": "[*]", "Last": "last", "Null": "null"}
# methods with one optional argument: the name printed before it
_ARG_METHODS = {"Datetime": ".datetime(", "Time": ".time(", "TimeTz": ".time_tz(",
                "Timestamp": ".timestamp(", "TimestampTz": ".timestamp_tz("}
_UNARY_ARG = {"Not", "IsUnknown", "Plus", "Minus", "Filter", "Exists", *_ARG_METHODS}
_OPTIONAL_ARG = set(_ARG_METHODS) | {"Decimal"}


def _priority(name: str) -> int:
    return _PRIORITY.get(name, 6)


class _Reader:
    """Bounds-checked reads from the jsonpath data (everything after the 4-byte header)."""
    __slots__ = ("data", "types")

    def __init__(self, data: bytes, types: tuple[str, ...]):
        self.data = data
        self.types = types

    def int32(self, pos: int, signed: bool = True) -> int:
        if pos < 0 or pos + 4 > len(self.data):
            raise ValueError("jsonpath item runs past the end of the value")
        return struct.unpack_from("<i" if signed else "<I", self.data, pos)[0]

    def type_at(self, pos: int) -> str:
        if pos < 0 or pos >= len(self.data):
            raise ValueError("jsonpath item offset outside the value")
        code = self.data[pos]
        if code >= len(self.types) or self.types[code] == "Subscript":
            raise ValueError(f"jsonpath item type {code}")
        return self.types[code]

    def child(self, pos: int, offset: int, optional: bool = False) -> int | None:
        """The position of an argument or next item ``offset`` bytes after item ``pos``."""
        if offset == 0 and optional:
            return None
        if offset <= 0:
            raise ValueError(f"jsonpath item offset {offset}")
        self.type_at(pos + offset)
        return pos + offset

    def string(self, pos: int, what: str) -> tuple[str, int]:
        """int32 length, the bytes, a NUL: the quoted text and the position after the NUL."""
        n = self.int32(pos)
        end = pos + 4 + n
        if n < 0 or end >= len(self.data) or self.data[end] != 0:
            raise ValueError(f"jsonpath {what} cut off or not NUL-terminated")
        return json_quote(self.data[pos + 4:end], f"jsonpath {what}"), end + 1

    def numeric(self, pos: int, major) -> tuple[str, int]:
        header = self.int32(pos, signed=False)
        size = header >> 2
        if header & 0x03 or size < 6 or pos + size > len(self.data):
            raise ValueError("jsonpath numeric literal is not a whole 4-byte-header numeric")
        from pgpage.decode.datum import decode_numeric  # here: datum imports this module
        text = decode_numeric(self.data[pos + 4:pos + size], major)
        if not isinstance(text, str):
            raise ValueError(f"jsonpath numeric: {text.message}")
        return text, pos + size


def _any_bounds(first: int, last: int) -> str:
    if first == 0 and last == PG_UINT32_MAX:
        return "**"
    if first == last:
        return "**{last}" if first == PG_UINT32_MAX else "**{%d}" % first
    if first == PG_UINT32_MAX:
        return "**{last to %d}" % last
    if last == PG_UINT32_MAX:
        return "**{%d to last}" % first
    return "**{%d to %d}" % (first, last)


def _item_parts(r: _Reader, pos: int, in_key: bool, brackets: bool, major) -> tuple[list, int | None, int]:
    """One item of ``printJsonPathItem``: its text as strings and (position, in_key, brackets)
    tasks for its arguments, in print order; the position of its next item (or None); and where
    its own bytes end."""
    name = r.type_at(pos)
    body = (pos + 4) & ~3                          # past the type byte and its padding
    next_pos = r.child(pos, r.int32(body), optional=True)
    p = end = body + 4
    if name in _METHODS:
        parts = [_METHODS[name]]
    elif name in ("String", "Key", "Variable"):
        text, end = r.string(p, "key" if name == "Key" else name.lower())
        parts = ["." if name == "Key" and in_key else "$" if name == "Variable" else "", text]
    elif name == "Numeric":
        text, end = r.numeric(p, major)
        parens = next_pos is not None and (major is None or major >= 15)
        parts = ["(", text, ")"] if parens else [text]
    elif name == "Bool":
        if p >= len(r.data) or r.data[p] > 1:
            raise ValueError("jsonpath bool literal is not 0 or 1")
        parts = ["true" if r.data[p] else "false"]
        end = p + 1
    elif name in _OPERATORS:
        left = r.child(pos, r.int32(p))
        right = r.child(pos, r.int32(p + 4))
        mine, end = _priority(name), p + 8
        parts = ["(" if brackets else "",
                 (left, False, _priority(r.type_at(left)) <= mine), f" {_OPERATORS[name]} ",
                 (right, False, _priority(r.type_at(right)) <= mine),
                 ")" if brackets else ""]
    elif name == "Decimal":
        left = r.child(pos, r.int32(p), optional=True)
        right = r.child(pos, r.int32(p + 4), optional=True)
        parts, end = [".decimal("], p + 8
        if left is not None:
            parts.append((left, False, False))
        if right is not None:
            parts += [",", (right, False, False)]
        parts.append(")")
    elif name in _UNARY_ARG:
        arg = r.child(pos, r.int32(p), optional=name in _OPTIONAL_ARG)
        task, end = (arg, False, False), p + 4
        if name == "Not":
            parts = ["!(", task, ")"]
        elif name == "IsUnknown":
            parts = ["(", task, ") is unknown"]
        elif name == "Filter":
            parts = ["?(", task, ")"]
        elif name == "Exists":
            parts = ["exists (", task, ")"]
        elif name in ("Plus", "Minus"):
            parts = ["(" if brackets else "", "+" if name == "Plus" else "-",
                     (arg, False, _priority(r.type_at(arg)) <= _priority(name)), ")" if brackets else ""]
        else:
            parts = [_ARG_METHODS[name]] + ([task] if arg is not None else []) + [")"]
    elif name == "AnyKey":
        parts = [".*" if in_key else "*"]
    elif name == "Any":
        parts = ["." if in_key else "", _any_bounds(r.int32(p, False), r.int32(p + 4, False))]
        end = p + 8
    elif name == "IndexArray":
        n = r.int32(p)
        if n <= 0 or p + 4 + 8 * n > len(r.data):
            raise ValueError(f"jsonpath subscript list of {n} entries")
        parts, end = ["["], p + 4 + 8 * n
        for i in range(n):
            at = p + 4 + 8 * i
            frm = r.child(pos, r.int32(at))
            to = r.child(pos, r.int32(at + 4), optional=True)
            parts += ["," if i else "", (frm, False, False)]
            if to is not None:
                parts += [" to ", (to, False, False)]
        parts.append("]")
    elif name == "LikeRegex":
        flags = r.int32(p, False)
        if flags & ~0x1F:
            raise ValueError(f"jsonpath like_regex flags 0x{flags:x}")
        expr = r.child(pos, r.int32(p + 4))
        pattern, end = r.string(p + 8, "like_regex pattern")
        parts = ["(" if brackets else "", (expr, False, _priority(r.type_at(expr)) <= _priority(name)),
                 " like_regex ", pattern]
        if flags:
            parts.append(' flag "' + "".join(c for bit, c in JSP_REGEX_FLAGS if flags & bit) + '"')
        parts.append(")" if brackets else "")
    else:                                          # pragma: no cover (every type is handled)
        raise ValueError(f"jsonpath item {name}")
    return parts, next_pos, end


def jsonpath_out(payload: bytes, major: int | None = None) -> str:
    """The text of a jsonpath value (``payload``: the bytes after its varlena header)."""
    buf = bytes(payload)
    if len(buf) < 5:
        raise ValueError("jsonpath shorter than its header and one item")
    header = struct.unpack_from("<I", buf, 0)[0]
    if header & ~JSONPATH_LAX != JSONPATH_VERSION:
        raise ValueError(f"jsonpath header 0x{header:08x}")
    r = _Reader(buf[4:], item_types(major))
    out = [] if header & JSONPATH_LAX else ["strict "]
    tasks: list = [(0, False, True)]               # the root: printBracketes true
    seen: set[int] = set()
    last_end = 0
    while tasks:
        task = tasks.pop()
        if isinstance(task, str):
            out.append(task)
            continue
        pos, in_key, brackets = task
        if pos in seen:
            raise ValueError("jsonpath item referred to twice")
        seen.add(pos)
        parts, next_pos, end = _item_parts(r, pos, in_key, brackets, major)
        last_end = max(last_end, end)
        if next_pos is not None:
            parts.append((next_pos, True, True))
        tasks.extend(reversed(parts))
    if last_end != len(r.data):
        # flattenJsonPathParseItem appends every item once: the last one ends the value
        raise ValueError(f"jsonpath has {len(r.data) - last_end} bytes its items do not use")
    return "".join(out)


TYPES = {
    JSONPATHOID: ("jsonpath", -1, "i", False, JSONPATHARRAYOID),
}

OUTPUT = {
    JSONPATHOID: jsonpath_out,
}
