"""pg_node_tree's text form, as outfuncs.c writes it (majors 10 to 18), read into Python values.

The form is self-describing, so it is read generically (readfuncs.c's pg_strtok and nodeRead, without their
per-node tables): ``{NAME :field value ...}`` is a ``Node`` (named as 15+ names it: ``NODE_RENAMED``); ``(...)`` a list, ``(i 1 2)``/``(o ...)``/``(x ...)``
lists of ints, OIDs, XIDs and ``(b 1 2)`` a Bitmapset (all Python lists of ints); ``<>`` is None (a NULL pointer,
an empty list, an empty string); ``"..."`` a String value node (str); a bare number an int; ``true``/``false``
bools; any other token a str (field values: names, enum numbers, ``char`` fields). A Const's datum,
``len [ b0 b1 ... ]``, is ``bytes`` (signed chars as outDatum prints them; a by-value datum keeps its first
``len`` bytes). A field with several bare values (plan nodes' column arrays before 16) is a list of them.

Bad input raises ``NodeTreeError`` with the offset; nesting deeper than ``MAX_DEPTH`` is refused.
"""
from __future__ import annotations

from dataclasses import dataclass, field

MAX_DEPTH = 10000   # nodes and lists open at once (the reader does not recurse)


class NodeTreeError(ValueError):
    """The text is not a node tree; the message says where."""


@dataclass
class Node:
    type: str                       # the outfuncs name: OPEXPR, VAR, QUERY, ...
    fields: dict = field(default_factory=dict)

    def __getitem__(self, name: str):
        return self.fields[name]

    def get(self, name: str, default=None):
        return self.fields.get(name, default)


# outfuncs' names before 15 (hand-written then) that 15's generated ones replaced: nodes come out under the new
NODE_RENAMED = {"RTE": "RANGETBLENTRY", "CASE": "CASEEXPR", "WHEN": "CASEWHEN", "ARRAY": "ARRAYEXPR",
                "ROW": "ROWEXPR", "ROWCOMPARE": "ROWCOMPAREEXPR", "COALESCE": "COALESCEEXPR", "MINMAX": "MINMAXEXPR",
                "COLLATE": "COLLATEEXPR", "ARRAYREF": "SUBSCRIPTINGREF"}
_DELIMS = " \n\t(){}"
_INT_LIST_TAGS = {"i", "o", "x", "b"}


def _tokens(text: str):
    """pg_strtok: (raw token, offset) pairs; a raw token keeps its backslashes (they decide its kind)."""
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \n\t":
            i += 1
        if i >= n:
            return
        start = i
        if text[i] in "(){}":
            i += 1
        else:
            while i < n and text[i] not in _DELIMS:
                i += 2 if text[i] == "\\" and i + 1 < n else 1
        yield text[start:i], start


def _debackslash(raw: str) -> str:
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            i += 1
        out.append(raw[i])
        i += 1
    return "".join(out)


def _number(raw: str):
    """An int or float for a token nodeTokenType calls a number (not escaped), else None."""
    c = raw[0]
    if not (c.isdigit() or (c in "+-" and len(raw) > 1 and (raw[1].isdigit() or raw[1] == "."))
            or (c == "." and len(raw) > 1 and raw[1].isdigit())):
        return None
    try:
        return int(raw)
    except ValueError:
        try:
            return float(raw)
        except ValueError:
            return None


class _Frame:
    """A node or a list being read: what the values read next go into."""
    __slots__ = ("node", "items", "field", "values")

    def __init__(self, node: Node | None):
        self.node = node            # None: a list
        self.items: list = []       # the list's items
        self.field: str | None = None
        self.values: list = []      # the node's current field's values

    def close_field(self) -> None:
        if self.field is not None:
            v = self.values
            self.node.fields[self.field] = None if not v else v[0] if len(v) == 1 else v
        self.field, self.values = None, []


class _Reader:
    """readfuncs' nodeRead as a loop over a stack of frames (no recursion: nesting is bounded by MAX_DEPTH,
    not by Python's stack)."""

    def __init__(self, text: str):
        self.toks = list(_tokens(text))
        self.pos = 0
        self.text = text

    def error(self, what: str) -> NodeTreeError:
        at = self.toks[self.pos - 1][1] if 0 < self.pos <= len(self.toks) else len(self.text)
        return NodeTreeError(f"node tree: {what} at offset {at}")

    def peek(self) -> str | None:
        return self.toks[self.pos][0] if self.pos < len(self.toks) else None

    def take(self) -> str:
        if self.pos >= len(self.toks):
            self.pos += 1
            raise self.error("unexpected end")
        self.pos += 1
        return self.toks[self.pos - 1][0]

    def read(self):
        stack: list[_Frame] = []
        result, done = None, False
        while not done:
            raw = self.take()
            top = stack[-1] if stack else None
            if raw == "{":
                name = self.take()
                if name in _DELIMS or name.startswith(":"):
                    raise self.error(f"node without a name ({name!r})")
                if len(stack) >= MAX_DEPTH:
                    raise self.error(f"nesting deeper than {MAX_DEPTH}")
                stack.append(_Frame(Node(NODE_RENAMED.get(name, name))))
                continue
            if raw == "(":
                if self.peek() in _INT_LIST_TAGS:
                    value = self.int_list()
                else:
                    if len(stack) >= MAX_DEPTH:
                        raise self.error(f"nesting deeper than {MAX_DEPTH}")
                    stack.append(_Frame(None))
                    continue
            elif raw == "}":
                if top is None or top.node is None:
                    raise self.error("unexpected '}'")
                top.close_field()
                value = stack.pop().node
            elif raw == ")":
                if top is None or top.node is not None:
                    raise self.error("unexpected ')'")
                value = stack.pop().items
            elif top is not None and top.node is not None and raw.startswith(":") and len(raw) > 1:
                top.close_field()
                top.field = raw[1:]
                continue
            elif raw == "[" and top is not None and top.node is not None and top.values \
                    and isinstance(top.values[-1], int):
                top.values[-1] = self.datum(top.values[-1])
                continue
            else:
                value = self.scalar(raw)
            # the value goes into the innermost open node's field or list, or is the tree itself
            top = stack[-1] if stack else None
            if top is None:
                result, done = value, True
            elif top.node is None:
                top.items.append(value)
            elif top.field is None:
                raise self.error(f"a value where a field of {top.node.type} was expected")
            else:
                top.values.append(value)
        return result

    @staticmethod
    def scalar(raw: str):
        if raw == "<>":
            return None
        num = _number(raw)
        if num is not None:
            return num
        if raw == "true":
            return True
        if raw == "false":
            return False
        if len(raw) >= 2 and raw[0] == '"' and raw[-1] == '"':
            return _debackslash(raw[1:-1])
        return _debackslash(raw)

    def int_list(self) -> list[int]:
        self.take()   # the tag
        items = []
        while self.peek() != ")":
            raw = self.take()
            num = _number(raw)
            if not isinstance(num, int):
                raise self.error(f"{raw!r} in an integer list")
            items.append(num)
        self.take()
        return items

    def datum(self, length: int) -> bytes:
        out = bytearray()
        while self.peek() != "]":
            raw = self.take()
            num = _number(raw)
            if not isinstance(num, int) or not -128 <= num <= 255:
                raise self.error(f"{raw!r} in a datum")
            out.append(num & 0xFF)
        self.take()
        if length > len(out):
            raise self.error(f"datum of {length} bytes holds {len(out)}")
        return bytes(out[:length])


def parse(text: str):
    """The value of a pg_node_tree text (a Node, a list of them, ...); NodeTreeError when it is not one."""
    if not isinstance(text, str):
        raise NodeTreeError("node tree: not a text")
    r = _Reader(text)
    if not r.toks:
        raise NodeTreeError("node tree: empty")
    value = r.read()
    if r.pos != len(r.toks):
        r.pos += 1
        raise r.error("trailing text")
    return value
