"""Key order of a B-tree, compared as amcheck's ``bt_index_check``/``bt_index_parent_check`` compare
(``contrib/amcheck/verify_nbtree.c``, ``_bt_compare`` in ``access/nbtree/nbtsearch.c``).

``KeyOrder`` knows how to compare the index's key columns exactly, for the types whose order is
computable without the server (integers, oid, bool, float4/8, numeric, date/time types, uuid,
bytea, and text/varchar/bpchar/name under the C or POSIX collation), honouring indoption (DESC,
NULLS FIRST) and NULLs; ``key_order`` says why when it cannot (another type, collation or
operator class), and the caller reports that once per index instead of guessing.

``OrderCheck`` takes the index's pages one at a time (any order) and keeps, per page, only the
items the cross-page rules need (first, last, smallest data item, high key) and the pivots of
internal pages; ``finish`` runs the rules between siblings and between parent and child.
Every rule is amcheck's, with its message:

* item order: each item is strictly less than the next (heap TID as tiebreaker on heapkeyspace
  indexes, version 4; version 2/3 allows equal neighbours);
* high key: every item is <= the high key (leaf) or < it (internal);
* cross page: the right sibling's first data item is > the page's last item;
* down-link lower bound (parent check): a child's items are > its downlink's separator;
* child high key (parent check): a child's high key is byte-identical to the parent's next
  separator (or the parent's high key after its last downlink). This one needs no key order.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Callable, Sequence

from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, INDEX_ALT_TID_MASK,
                                         INDEX_NULL_MASK, INDEX_SIZE_MASK, LP_DEAD, LP_NORMAL, P_NONE,
                                         SIZE_OF_BT_OPAQUE, SIZE_OF_ITEM_POINTER, SIZE_OF_PAGE_HEADER)
from pgpage.findings import INFO, Finding

C_COLLATIONS = {950: "C", 951: "POSIX"}
DEFAULT_COLLATION = 100
INDOPTION_DESC, INDOPTION_NULLS_FIRST = 0x1, 0x2
FIRST_NORMAL_OBJECT_ID = 16384  # opclasses below are built in: their order is the type's default order
P_HIKEY = 1


class Uncomparable(Exception):
    """A datum whose value cannot be read (corrupt compressed data, lz4 without the package...)."""


def _fixed(fmt: str, of=lambda v: v):
    s = struct.Struct("<" + fmt)
    return lambda raw: of(s.unpack(raw)[0]) if len(raw) == s.size else _bad(raw)


def _bad(raw):
    raise Uncomparable(f"{len(raw)} bytes")


def _float(v: float):
    return (1, 0.0) if v != v else (0, v)   # PostgreSQL: NaN sorts above everything, -0 equals 0


def _varlena(typid: int, strip=None):
    def key(raw):
        from pgpage.decode.datum import varlena_payload
        p = varlena_payload(raw, typid)
        if not isinstance(p, bytes):
            raise Uncomparable(str(p))
        return strip(p) if strip else p
    return key


def _numeric(raw):
    from pgpage.decode.datum import decode_numeric, varlena_payload
    p = varlena_payload(raw, 1700)
    text = decode_numeric(p) if isinstance(p, bytes) else None
    if not isinstance(text, str):
        raise Uncomparable("numeric")
    if text == "NaN":
        return (1, Decimal(0))      # numeric NaN sorts above +Infinity
    try:
        return (0, Decimal(text))
    except InvalidOperation as e:
        raise Uncomparable(text) from e


def _oidvector(raw):
    """btoidvectorcmp: by length first, then element by element (unsigned)."""
    from pgpage.decode.datum import varlena_payload
    p = varlena_payload(raw, 30)
    if not isinstance(p, bytes) or len(p) < 12 or (len(p) - 20 if len(p) >= 20 else 0) % 4:
        raise Uncomparable("oidvector")
    n = (len(p) - 20) // 4 if len(p) >= 20 else 0     # ndim, dataoffset, elemtype, dim1, lbound1, values
    return (n, struct.unpack_from(f"<{n}I", p, 20))


def _timetz(raw):
    if len(raw) != 12:
        _bad(raw)
    t, zone = struct.unpack("<qi", raw)
    return (t + zone * 1_000_000, zone)     # timetz_cmp_internal: UTC time, then zone


def _interval(raw):
    if len(raw) != 16:
        _bad(raw)
    t, day, month = struct.unpack("<qii", raw)
    return (month * 30 + day) * 86_400_000_000 + t      # interval_cmp_value


# typid -> (name, key of the datum's exact bytes, collatable)
TYPES: dict[int, tuple[str, Callable, bool]] = {
    16: ("bool", _fixed("B", bool), False),
    20: ("int8", _fixed("q"), False),
    21: ("int2", _fixed("h"), False),
    23: ("int4", _fixed("i"), False),
    26: ("oid", _fixed("I"), False),
    24: ("regproc", _fixed("I"), False),
    18: ("char", _fixed("B"), False),            # "char" compares as an unsigned byte
    30: ("oidvector", _oidvector, False),
    700: ("float4", _fixed("f", _float), False),
    701: ("float8", _fixed("d", _float), False),
    1700: ("numeric", _numeric, False),
    1082: ("date", _fixed("i"), False),
    1083: ("time", _fixed("q"), False),
    1114: ("timestamp", _fixed("q"), False),
    1184: ("timestamptz", _fixed("q"), False),
    1266: ("timetz", _timetz, False),
    1186: ("interval", _interval, False),
    2950: ("uuid", lambda raw: bytes(raw) if len(raw) == 16 else _bad(raw), False),
    17: ("bytea", _varlena(17), False),
    25: ("text", _varlena(25), True),
    1043: ("varchar", _varlena(1043), True),
    1042: ("bpchar", _varlena(1042, lambda p: p.rstrip(b" ")), True),   # bpchar ignores trailing spaces
    19: ("name", lambda raw: bytes(raw).split(b"\0", 1)[0], True),
    2275: ("cstring", lambda raw: bytes(raw).split(b"\0", 1)[0], True),  # name_ops keeps names as cstring (12+)
}


class _Null:
    pass


NULL = _Null()


@dataclass(slots=True)
class Item:
    """One index tuple as ``_bt_compare`` sees it: its attribute count, key values (NULL or a key),
    heap TID (a scankey's scantid) and, for a posting list, its largest TID."""
    natts: int
    vals: tuple
    htid: tuple | None
    maxtid: tuple | None = None
    tid: tuple = (0, 0)      # t_tid as stored: the downlink or heap TID named in messages


class KeyOrder:
    """How to compare an index's tuples: the key columns' types and indoption."""

    def __init__(self, attrs: Sequence, nkeyatts: int, natts: int, indoption: Sequence[int], heapkeyspace: bool):
        self.attrs = list(attrs)
        self.nkey = nkeyatts
        self.natts = natts
        self.keyfns = [TYPES[a.typid][1] for a in self.attrs[:nkeyatts]]
        self.desc = [bool(o & INDOPTION_DESC) for o in indoption[:nkeyatts]]
        self.nulls_first = [bool(o & INDOPTION_NULLS_FIRST) for o in indoption[:nkeyatts]]
        self.hk = heapkeyspace
        # fixed-width key columns: where each lies in a tuple without NULLs (data from byte 8, aligned)
        self.fixed = None
        if all(a.attlen > 0 for a in self.attrs[:nkeyatts]):
            off, self.fixed = 8, []
            for a in self.attrs[:nkeyatts]:
                al = {"c": 1, "s": 2, "i": 4, "d": 8}.get(a.attalign, 1)
                off = (off + al - 1) // al * al
                self.fixed.append((off, off + a.attlen))
                off += a.attlen

    # ------------------------------------------------------------------ tuples
    def item(self, raw: bytes, pivot_natts: int | None = None) -> Item:
        """``raw``: the tuple's exact bytes. ``pivot_natts`` 0 for a minus-infinity item."""
        from pgpage.analysis.btree.keys import index_datums
        hi, lo, posid, info = _HEADER.unpack_from(raw, 0)
        size = min(info & INDEX_SIZE_MASK, len(raw))
        tid = (hi << 16 | lo, posid)
        alt = info & INDEX_ALT_TID_MASK
        posting = alt and self.hk and bool(posid & BT_IS_POSTING)
        natts, htid, maxtid, end = self.natts, None, None, size
        if posting:
            n, off = posid & BT_OFFSET_MASK, tid[0] & 0xFFFF
            if n < 1 or off + SIZE_OF_ITEM_POINTER * n > size:
                raise Uncomparable("posting list outside its tuple")
            end = off
            htid, maxtid = _tid(raw, off), _tid(raw, off + SIZE_OF_ITEM_POINTER * (n - 1))
        elif alt:
            natts = posid & BT_OFFSET_MASK
            if self.hk and posid & BT_PIVOT_HEAP_TID_ATTR:
                end = size - SIZE_OF_ITEM_POINTER
                htid = _tid(raw, end)
        elif self.hk:
            htid = tid
        if pivot_natts is not None:
            natts = pivot_natts
        nk = min(natts, self.nkey)
        if self.fixed is not None and not info & INDEX_NULL_MASK:
            if nk and self.fixed[nk - 1][1] > end:
                raise Uncomparable("key past the tuple's end")
            vals = tuple([fn(raw[a:b]) for fn, (a, b) in zip(self.keyfns[:nk], self.fixed)])
            return Item(natts, vals, htid if self.hk else None, maxtid if self.hk else None, tid)
        datums = index_datums(raw, self.attrs, nk, end) if nk else []
        vals = []
        for fn, d in zip(self.keyfns, datums):
            if d.isnull:
                vals.append(NULL)
            elif d.status != "value" or d.raw is None:
                raise Uncomparable(f"attribute {d.attnum} unreadable")
            else:
                vals.append(fn(d.raw))
        return Item(natts, tuple(vals), htid if self.hk else None, maxtid if self.hk else None, tid)

    # ------------------------------------------------------------------ _bt_compare and amcheck's invariants
    def compare(self, key: Item, tup: Item) -> int:
        """_bt_compare(scankey built from ``key`` (pivotsearch), ``tup``)."""
        keysz = min(key.natts, self.nkey)
        for i in range(min(tup.natts, keysz)):
            a, b = key.vals[i], tup.vals[i]
            if a is NULL or b is NULL:
                if a is b:
                    continue
                r = (-1 if self.nulls_first[i] else 1) if a is NULL else (1 if self.nulls_first[i] else -1)
                return r
            r = (a > b) - (a < b)
            if r:
                return -r if self.desc[i] else r
        if keysz > tup.natts:
            return 1        # the tuple's truncated attributes are minus infinity
        if key.htid is None:
            return 0
        if tup.htid is None:
            return 1
        r = (key.htid > tup.htid) - (key.htid < tup.htid)
        if r <= 0:
            return r
        if tup.maxtid is not None and key.htid <= tup.maxtid:
            return 0
        return 1

    def less(self, key: Item, upper: Item) -> bool:
        """invariant_l_offset: ``key`` is strictly less than ``upper`` (<= before heapkeyspace)."""
        cmp = self.compare(key, upper)
        if not self.hk:
            return cmp <= 0
        if cmp == 0:
            keysz, upp = min(key.natts, self.nkey), min(upper.natts, self.nkey)
            if keysz == upp:
                return key.htid is None and upper.htid is not None
            return keysz < upp
        return cmp < 0

    def less_equal(self, key: Item, upper: Item) -> bool:
        return self.compare(key, upper) <= 0

    def greater(self, key: Item, lower: Item) -> bool:
        cmp = self.compare(key, lower)
        return cmp >= 0 if not self.hk else cmp > 0


_HEADER = struct.Struct("<HHHH")     # IndexTupleData: t_tid (bi_hi, bi_lo, ip_posid), t_info
_TID = struct.Struct("<HHH")


def _tid(raw: bytes, off: int) -> tuple[int, int]:
    hi, lo, posid = _TID.unpack_from(raw, off)
    return (hi << 16 | lo, posid)


def key_order(attrs: Sequence | None, index_row: dict | None, db_collation: str | None) -> str | None:
    """None when the order of the index's keys is computable, else why not ("type X", "collation Y",
    "operator class N", ...). ``db_collation``: the database's datcollate (what collation 100 means),
    "" when its provider is not libc."""
    row = index_row or {}
    nkey = row.get("indnkeyatts", row.get("indnatts"))
    if not attrs or not isinstance(nkey, int) or nkey < 1 or len(attrs) < nkey:
        return "index columns unknown"
    for cls in list(row.get("indclass") or [])[:nkey]:
        if not isinstance(cls, int) or cls >= FIRST_NORMAL_OBJECT_ID:
            return f"operator class {cls}"
    colls = list(row.get("indcollation") or [])
    for i, a in enumerate(attrs[:nkey]):
        t = TYPES.get(a.typid)
        if t is None:
            from pgpage.decode.datum import type_info
            ti = type_info(a.typid)
            return f"type {ti.name if ti else a.typid}"
        if t[2]:
            coll = colls[i] if i < len(colls) else None
            if coll == DEFAULT_COLLATION:
                if db_collation not in ("C", "POSIX"):
                    return f"collation default ({db_collation or 'unknown'})"
            elif coll not in C_COLLATIONS and coll != 0:     # 0: name before 12, compared with strncmp
                return f"collation {coll}"
    if not isinstance(row.get("indoption"), (list, tuple)) or len(row["indoption"]) < nkey:
        return "indoption unknown"
    return None


# ---------------------------------------------------------------------------- the checks, page by page
@dataclass
class _Page:
    flags: int
    next: int
    first: bytes | None = None      # first data item (internal: after minus infinity)
    last: tuple | None = None       # (offset, bytes) of the last item
    low: tuple | None = None        # (offset, bytes) of the smallest data item
    hikey: bytes | None = None
    pivots: list | None = None      # internal pages: [(offset, bytes)] every item from P_FIRSTDATAKEY


class OrderCheck:
    """amcheck's key order rules over a whole index; ``order`` None checks only what needs no order
    (child high keys against their parents' separators)."""

    def __init__(self, relation: str | None, order: KeyOrder | None, heapkeyspace: bool, find: Callable):
        self.rel = relation
        self.order = order
        self.hk = heapkeyspace
        self.find = find            # find(code, message, block, item)
        self.pages: dict[int, _Page] = {}

    def _items(self, page: bytes) -> list[tuple[int, bytes]]:
        lower = int.from_bytes(page[12:14], "little")
        out = []
        for n in range(1, max(0, (lower - SIZE_OF_PAGE_HEADER) // 4) + 1):
            lp = int.from_bytes(page[SIZE_OF_PAGE_HEADER + 4 * (n - 1):SIZE_OF_PAGE_HEADER + 4 * n], "little")
            off, flags, length = lp & 0x7FFF, (lp >> 15) & 3, lp >> 17
            if flags not in (LP_NORMAL, LP_DEAD) or length < 8 or off + length > len(page) - SIZE_OF_BT_OPAQUE:
                return []       # the page rules report it; no order on a page that cannot be read
            out.append((n, page[off:off + length]))
        return out

    def add_page(self, blkno: int, page: bytes) -> None:
        """One tree page (not the metapage, not deleted; the caller knows its header is sane)."""
        flags = int.from_bytes(page[-4:-2], "little")
        nxt = int.from_bytes(page[-12:-8], "little")
        if flags & (BTP_DELETED | BTP_META):
            return
        items = self._items(page)
        p = self.pages[blkno] = _Page(flags, nxt)
        leaf, rightmost = bool(flags & BTP_LEAF), nxt == P_NONE
        firstkey = 1 if rightmost else 2
        if not rightmost and items:
            p.hikey = items[0][1]
        data = [(n, raw) for n, raw in items if n >= firstkey]
        if not leaf:
            p.pivots = data
            data = data[1:]           # minus infinity
        if not data:
            return
        p.first, p.last = data[0][1], data[-1]
        if self.order is None or flags & BTP_HALF_DEAD:
            return      # amcheck skips ignorable pages as targets
        o = self.order
        try:
            parsed = [(n, o.item(raw)) for n, raw in data]
            hikey = o.item(p.hikey) if p.hikey is not None else None
        except Uncomparable:
            return
        kind = "heap" if leaf else "index"
        low = None
        for k, (n, it) in enumerate(parsed):
            if hikey is not None:
                probe = it if it.maxtid is None else Item(it.natts, it.vals, it.maxtid, None, it.tid)
                ok = o.less_equal(probe, hikey) if leaf else o.less(probe, hikey)
                if not ok:
                    self.find("btree.order.high_key", f"high key invariant violated for index \"{self.rel}\":"
                              f" index tid=({blkno},{n}) points to {kind} tid={_fmt(it.tid)}", blkno, n)
            if k + 1 < len(parsed) and not o.less(it, parsed[k + 1][1]):
                m, nx = parsed[k + 1]
                self.find("btree.order.items", f"item order invariant violated for index \"{self.rel}\": lower"
                          f" index tid=({blkno},{n}) (points to {kind} tid={_fmt(it.tid)}) higher index"
                          f" tid=({blkno},{m}) (points to {kind} tid={_fmt(nx.tid)})", blkno, n)
            if low is None or o.compare(it, parsed[low][1]) < 0:
                low = k
        p.low = (parsed[low][0], data[low][1])

    # ------------------------------------------------------------------ across pages
    def finish(self, reread: Callable[[int], bytes | None]) -> None:
        """Siblings, then parents and children. ``reread(blkno)``: a page's bytes again (to name every
        child item under a bad separator)."""
        self._cross_page()
        self._parent_child(reread)

    def _right_of(self, blkno: int) -> _Page | None:
        """The first non-ignorable page right of ``blkno`` (bt_right_page_check_scankey)."""
        seen = 0
        nxt = self.pages[blkno].next
        while nxt != P_NONE and seen < len(self.pages):
            r = self.pages.get(nxt)
            if r is None:
                return None
            if not r.flags & BTP_HALF_DEAD:
                return r
            nxt, seen = r.next, seen + 1
        return None

    def _cross_page(self) -> None:
        o = self.order
        if o is None:
            return
        for blkno, p in self.pages.items():
            if p.last is None or p.next == P_NONE or p.flags & BTP_HALF_DEAD:
                continue
            r = self._right_of(blkno)
            if r is None or r.first is None or bool(r.flags & BTP_LEAF) != bool(p.flags & BTP_LEAF):
                continue
            try:
                ok = o.greater(o.item(r.first), o.item(p.last[1]))
            except Uncomparable:
                continue
            if not ok:
                self.find("btree.order.cross_page", f"cross page item order invariant violated for index"
                          f" \"{self.rel}\": last item on page tid=({blkno},{p.last[0]})", blkno, p.last[0])

    def _parent_child(self, reread: Callable[[int], bytes | None]) -> None:
        o = self.order
        for blkno, p in sorted(self.pages.items()):
            if p.pivots is None or p.flags & BTP_HALF_DEAD:
                continue
            for k, (n, raw) in enumerate(p.pivots):
                child = int.from_bytes(raw[0:2], "little") << 16 | int.from_bytes(raw[2:4], "little")
                c = self.pages.get(child)
                if c is None or c.flags & BTP_HALF_DEAD:
                    continue
                # the child's high key: a copy of the next separator, or of the parent's high key
                if c.next != P_NONE and not c.flags & BTP_INCOMPLETE_SPLIT and c.hikey is not None:
                    upper = p.pivots[k + 1][1] if k + 1 < len(p.pivots) else p.hikey
                    if upper is None:
                        self.find("btree.order.child_high_key", "child high key is greater than rightmost pivot"
                                  f" key on target level in index \"{self.rel}\": target block={blkno} child"
                                  f" block={child}", child, P_HIKEY)
                    elif not self._identical(c.hikey, upper):
                        self.find("btree.order.child_high_key", "mismatch between parent key and child high key"
                                  f" in index \"{self.rel}\": target block={blkno} child block={child}", child,
                                  P_HIKEY)
                if o is None or k == 0 or c.low is None:
                    continue        # minus infinity bounds nothing
                try:
                    sep = o.item(raw)
                    if o.less(sep, o.item(c.low[1])):
                        continue
                    page = reread(child)
                    items = self._items(page) if page is not None else []
                    firstkey = 1 if c.next == P_NONE else 2
                    data = [(m, r) for m, r in items if m >= firstkey][0 if c.flags & BTP_LEAF else 1:]
                    bad = [m for m, r in data if not o.less(sep, o.item(r))]
                except Uncomparable:
                    continue
                for m in bad:
                    self.find("btree.order.downlink_lower_bound", "down-link lower bound invariant violated for"
                              f" index \"{self.rel}\": parent block={blkno} (item {n}) child index"
                              f" tid=({child},{m})", child, m)

    def _identical(self, a: bytes, b: bytes) -> bool:
        """bt_pivot_tuple_identical: equal but for the downlink (and, before version 4, the offset)."""
        if (int.from_bytes(a[6:8], "little") & INDEX_SIZE_MASK) != (int.from_bytes(b[6:8], "little") & INDEX_SIZE_MASK):
            return False
        start = 4 if self.hk else 6
        size = int.from_bytes(a[6:8], "little") & INDEX_SIZE_MASK
        return a[start:size] == b[start:size]


def _fmt(tid: tuple) -> str:
    return f"({tid[0]},{tid[1]})"


def not_checked(relation: str | None, reason: str) -> Finding:
    return Finding("btree.order.not_checked", f"order not checked: {reason}", INFO, relation=relation, fork="main")
