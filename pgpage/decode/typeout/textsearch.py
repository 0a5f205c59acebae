"""Text search types: ``tsvector`` and ``tsquery`` printed as ``col::text`` prints them.

Transcribes ``tsvectorout`` (``src/backend/utils/adt/tsvector.c``) and ``tsqueryout`` with its
``infix`` printer (``src/backend/utils/adt/tsquery.c``); the layouts are those of
``src/include/tsearch/ts_type.h``. Layouts, operator codes, priorities and output are the same in
PostgreSQL 10-18 (the phrase operator ``<N>`` and the priority table below date from 9.6; the
infix printer has not changed since). Bit fields are read as GCC lays them out on a
little-endian server: the first field in the lowest bits.

tsvector (payload after the varlena header; typstorage extended, so it may be compressed)::

    int32      size             number of lexemes
    WordEntry  entries[size]    uint32 each: haspos:1 (bit 0), len:11 (bits 1-11),
                                pos:20 (bits 12-31, offset of the lexeme from STRPTR)
    STRPTR ->  lexeme storage   for each entry, at STRPTR + pos: len bytes of lexeme (no NUL);
                                if haspos: a pad byte to 2-byte alignment (SHORTALIGN(pos + len),
                                counted from STRPTR), uint16 npos, WordEntryPos pos[npos]
                                (uint16: weight:2 in bits 14-15, 3 = A .. 0 = D; position:14)

    Output: ``'lexeme'`` (``'`` and ``\\`` doubled), then ``:pos`` list with the weight letter
    after each position (D, weight 0, prints nothing), lexemes separated by one space. A
    stripped vector has haspos 0 everywhere; the empty vector prints as the empty string.

tsquery (typstorage plain: always a 4-byte header, never compressed)::

    int32      size             number of QueryItems (0: the empty query, printed as '')
    QueryItem  items[size]      12 bytes each, in prefix (Polish) order: an operator, then its
                                right operand's subtree, then its left operand's subtree
    operands                    NUL-terminated strings, one per QI_VAL item

    QueryOperand (type QI_VAL = 1):   int8 type, uint8 weight (bitmask A=8 B=4 C=2 D=1),
                                      bool prefix, pad, int32 valcrc,
                                      uint32 length:12 (bits 0-11), distance:20 (bits 12-31,
                                      offset of the string from the start of operands)
    QueryOperator (type QI_OPR = 2):  int8 type, int8 oper (NOT 1, AND 2, OR 3, PHRASE 4),
                                      int16 distance (of a phrase operator), uint32 left
                                      (item offset of the left operand; right is item + 1)

    Output: infix, an operator's subtree in ``( ... )`` when its priority is lower than its
    parent's (NOT 4, PHRASE 3, AND 2, OR 1) or when it is a phrase operator that is the right
    operand of a phrase operator; ``<->`` for distance 1, ``<N>`` otherwise; an operand as
    ``'word'`` followed by ``:`` + ``*`` (prefix) + weight letters when it has either.

Lexemes are decoded as UTF-8 (the output function is given no encoding). ``tsqueryout`` itself
walks the items recursively; here the tree is built and printed with explicit stacks, so a deep
query (``a & b & c & ...`` nests on the left) costs no Python recursion.
"""
from __future__ import annotations

from pgpage.decode.encodings import STORED_TEXT, stored_text

import struct
from pgpage.decode.ksy.type_oids import TSQUERYARRAYOID, TSQUERYOID, TSVECTORARRAYOID, TSVECTOROID


TYPES = {
    TSVECTOROID: ("tsvector", -1, "i", False, TSVECTORARRAYOID),
    TSQUERYOID: ("tsquery", -1, "i", False, TSQUERYARRAYOID),
}


def _lexeme_text(raw: bytes) -> str:
    """A lexeme as tsvectorout/infix quote it: between single quotes, ``'`` and ``\\`` doubled."""
    if b"\0" in raw:
        raise ValueError("lexeme contains a NUL byte")
    try:
        text = stored_text(raw)
    except UnicodeDecodeError:
        raise ValueError(f"lexeme is not valid {STORED_TEXT.get()}") from None
    return "'" + text.replace("'", "''").replace("\\", "\\\\") + "'"


# ---------------------------------------------------------------------------------------------
# tsvector
# ---------------------------------------------------------------------------------------------

_WORD_ENTRY = 4                     # sizeof(WordEntry)
_POS_WEIGHT = ("", "C", "B", "A")   # WEP_GETWEIGHT 0 is D, which tsvectorout leaves unprinted


def tsvector_out(payload: bytes, major: int | None = None) -> str:
    """tsvectorout: ``'a':1A,3 'b'`` for the payload of a tsvector."""
    if len(payload) < 4:
        raise ValueError(f"tsvector of {len(payload)} bytes has no lexeme count")
    (size,) = struct.unpack_from("<i", payload, 0)
    strptr = 4 + _WORD_ENTRY * size
    if size < 0 or strptr > len(payload):
        raise ValueError(f"tsvector claims {size} lexemes in {len(payload)} bytes")
    entries = struct.unpack_from(f"<{size}I", payload, 4)
    return " ".join(_word_entry_text(payload, strptr, entry) for entry in entries)


def _word_entry_text(payload: bytes, strptr: int, entry: int) -> str:
    haspos, length, pos = entry & 1, (entry >> 1) & 0x7FF, entry >> 12
    start = strptr + pos
    if start + length > len(payload):
        raise ValueError(f"lexeme at {pos} of {length} bytes runs past the tsvector")
    text = _lexeme_text(payload[start:start + length])
    if not haspos:
        return text
    posvec = strptr + ((pos + length + 1) & ~1)         # _POSVECPTR: SHORTALIGN from STRPTR
    if posvec + 2 > len(payload):
        raise ValueError(f"position count of lexeme at {pos} runs past the tsvector")
    (npos,) = struct.unpack_from("<H", payload, posvec)
    if posvec + 2 + 2 * npos > len(payload):
        raise ValueError(f"{npos} positions of lexeme at {pos} run past the tsvector")
    if npos == 0:
        return text                                     # POSDATALEN 0: no colon either
    positions = struct.unpack_from(f"<{npos}H", payload, posvec + 2)
    return text + ":" + ",".join(f"{p & 0x3FFF}{_POS_WEIGHT[p >> 14]}" for p in positions)


# ---------------------------------------------------------------------------------------------
# tsquery
# ---------------------------------------------------------------------------------------------

_QUERY_ITEM = 12                    # sizeof(QueryItem), the union of QueryOperand and QueryOperator
QI_VAL, QI_OPR, QI_VALSTOP = 1, 2, 3
OP_NOT, OP_AND, OP_OR, OP_PHRASE = 1, 2, 3, 4
# tsearch_op_priority (tsquery.c): NOT binds tightest, OR loosest.
_PRIORITY = {OP_NOT: 4, OP_AND: 2, OP_OR: 1, OP_PHRASE: 3}
_OPERAND_WEIGHTS = ((8, "A"), (4, "B"), (2, "C"), (1, "D"))


def tsquery_out(payload: bytes, major: int | None = None) -> str:
    """tsqueryout: the query in infix form, parenthesised as the server's ``infix`` does."""
    if len(payload) < 4:
        raise ValueError(f"tsquery of {len(payload)} bytes has no item count")
    (size,) = struct.unpack_from("<i", payload, 0)
    if size == 0:
        return ""
    operands_at = 4 + _QUERY_ITEM * size
    if size < 0 or operands_at > len(payload):
        raise ValueError(f"tsquery claims {size} items in {len(payload)} bytes")
    items = [_query_item(payload, 4 + _QUERY_ITEM * i, operands_at) for i in range(size)]
    return _infix(items, _operand_items(items))


def _query_item(payload: bytes, at: int, operands_at: int):
    """One QueryItem: ("val", printed operand) or ("opr", oper, distance, left)."""
    kind = payload[at]
    if kind == QI_VAL:
        weight, prefix = payload[at + 1], payload[at + 2]
        (bits,) = struct.unpack_from("<I", payload, at + 8)
        length, distance = bits & 0xFFF, bits >> 12
        if weight > 0xF or prefix > 1:
            raise ValueError(f"operand weight {weight:#x} / prefix flag {prefix} out of range")
        start = operands_at + distance
        end = payload.find(b"\0", start) if start < len(payload) else -1
        if end < 0:
            raise ValueError(f"operand at {distance} has no NUL before the end of the tsquery")
        if end - start != length:
            raise ValueError(f"operand at {distance} is {end - start} bytes, its item says {length}")
        return ("val", _operand_text(payload[start:end], weight, prefix))
    if kind == QI_OPR:
        oper = payload[at + 1]
        distance, left = struct.unpack_from("<hI", payload, at + 2)
        if oper not in _PRIORITY:
            raise ValueError(f"unknown tsquery operator {oper}")
        return ("opr", oper, distance, left)
    if kind == QI_VALSTOP:
        raise ValueError("stop-word placeholder left in a stored tsquery")
    raise ValueError(f"unknown tsquery item type {kind}")


def _operand_text(raw: bytes, weight: int, prefix: int) -> str:
    text = _lexeme_text(raw)
    if weight or prefix:
        text += ":" + ("*" if prefix else "") + "".join(
            letter for bit, letter in _OPERAND_WEIGHTS if weight & bit)
    return text


def _operand_items(items) -> list[tuple[int, ...]]:
    """Each operator's operand item indexes, (right, left) or (child,) for NOT, found as the
    prefix order lays them out (right subtree right after the operator, then the left one).

    Items are read from the last to the first with a stack of subtree roots: at an operator
    the top of the stack is the subtree starting right after it. A binary operator's stored
    ``left`` must name the same item (TS_execute follows it). NOT's ``left`` is not checked:
    the ``!!`` operator builds NOT nodes with ``left`` 0 (tsquery_op.c tsquery_not)."""
    operands: list[tuple[int, ...]] = [()] * len(items)
    roots: list[int] = []
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if item[0] == "opr":
            oper, left_offset = item[1], item[3]
            arity = 1 if oper == OP_NOT else 2
            if len(roots) < arity:
                raise ValueError(f"tsquery operator at item {i} lacks an operand")
            if arity == 1:
                operands[i] = (roots.pop(),)
            else:
                right, left = roots.pop(), roots.pop()
                if left - i != left_offset:
                    raise ValueError(f"tsquery operator at item {i} points at item {i + left_offset}"
                                     f" for its left operand, which is at item {left}")
                operands[i] = (right, left)
        roots.append(i)
    if len(roots) != 1:
        raise ValueError(f"tsquery items form {len(roots)} trees, not one")
    return operands


def _infix(items, operands) -> str:
    """infix(): left operand, operator, right operand, each operator's subtree parenthesised
    when its priority is lower than its parent's or it is a phrase in a phrase's right operand."""
    out: list[str] = []
    # work: text to emit, or (item, parent priority, is the right operand of a phrase operator)
    work: list = [(0, -1, False)]
    while work:
        task = work.pop()
        if isinstance(task, str):
            out.append(task)
            continue
        i, parent_priority, right_of_phrase = task
        item = items[i]
        if item[0] == "val":
            out.append(item[1])
            continue
        oper, distance = item[1], item[2]
        priority = _PRIORITY[oper]
        if oper == OP_NOT:
            # NOT has the highest priority: never parenthesised, kept as tsqueryout tests it
            paren = priority < parent_priority
            seq = ["!", (operands[i][0], priority, False)]
        else:
            paren = priority < parent_priority or (oper == OP_PHRASE and right_of_phrase)
            right, left = operands[i]
            seq = [(left, priority, False), _operator_text(oper, distance),
                   (right, priority, oper == OP_PHRASE)]
        if paren:
            seq = ["( ", *seq, " )"]
        work.extend(reversed(seq))
    return "".join(out)


def _operator_text(oper: int, distance: int) -> str:
    if oper == OP_OR:
        return " | "
    if oper == OP_AND:
        return " & "
    return " <-> " if distance == 1 else f" <{distance}> "


OUTPUT = {
    TSVECTOROID: tsvector_out,
    TSQUERYOID: tsquery_out,
}
