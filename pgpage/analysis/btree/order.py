"""Key order of a B-tree, compared as amcheck's ``bt_index_check``/``bt_index_parent_check`` compare
(``contrib/amcheck/verify_nbtree.c``, ``_bt_compare`` in ``access/nbtree/nbtsearch.c``).

``KeyOrder`` knows how to compare the index's key columns exactly, for the types whose order is
computable without the server (integers, oid, bool, float4/8, numeric, date/time types, uuid,
bytea, and text/varchar/bpchar/name under a collation that sorts as memcmp, which
``collation_sorts_as_bytes`` tells), honouring indoption (DESC, NULLS FIRST) and NULLs; ``key_order``
says why when it cannot (another type, collation or operator class), and the caller reports that
once per index instead of guessing.

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

import numpy as np

from pgpage.analysis.btree.pages import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BTP_DELETED,
                                         BTP_HALF_DEAD, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, INDEX_ALT_TID_MASK,
                                         INDEX_NULL_MASK, INDEX_SIZE_MASK, LP_DEAD, LP_NORMAL, P_HIKEY, P_NONE,
                                         SIZE_OF_BT_OPAQUE, SIZE_OF_ITEM_POINTER, SIZE_OF_PAGE_HEADER,
                                         bt_opaque, max_index_tuples_per_page)
from pgpage.decode.ksy.constants import SIZEOF_IndexTupleData
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.ksy.type_oids import (BOOLOID, BPCHAROID, BYTEAOID, CHAROID, CSTRINGOID, DATEOID, FLOAT4OID,
                                         FLOAT8OID, INT2OID, INT4OID, INT8OID, INTERVALOID, NAMEOID, NUMERICOID,
                                         OIDOID, OIDVECTOROID, REGPROCOID, TEXTOID, TIMEOID, TIMESTAMPOID,
                                         TIMESTAMPTZOID, TIMETZOID, UUIDOID, VARCHAROID)
from pgpage.decode.vector import SIZE_OF_ITEM_ID, decode_headers, line_pointer_fields, run_positions, sorted_unique
from pgpage.findings import INFO, Finding

_PD_LOWER = LAYOUTS["pg_page::page_header"]["fields"]["pd_lower"][0]
# where BTPageOpaqueData's btpo_next and btpo_flags are, from the page's end
_BTPO_NEXT, _BTPO_FLAGS = (LAYOUTS["nbtree::bt_page_opaque_data"]["fields"][f][0] - SIZE_OF_BT_OPAQUE
                           for f in ("btpo_next", "btpo_flags"))

C_COLLATIONS = {950: "C", 951: "POSIX"}
DEFAULT_COLLATION = 100
INDOPTION_DESC, INDOPTION_NULLS_FIRST = 0x1, 0x2
FIRST_NORMAL_OBJECT_ID = 16384  # opclasses below are built in: their order is the type's default order


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
    p = varlena_payload(raw, NUMERICOID)
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
    BOOLOID: ("bool", _fixed("B", bool), False),
    INT8OID: ("int8", _fixed("q"), False),
    INT2OID: ("int2", _fixed("h"), False),
    INT4OID: ("int4", _fixed("i"), False),
    OIDOID: ("oid", _fixed("I"), False),
    REGPROCOID: ("regproc", _fixed("I"), False),
    CHAROID: ("char", _fixed("B"), False),            # "char" compares as an unsigned byte
    OIDVECTOROID: ("oidvector", _oidvector, False),
    FLOAT4OID: ("float4", _fixed("f", _float), False),
    FLOAT8OID: ("float8", _fixed("d", _float), False),
    NUMERICOID: ("numeric", _numeric, False),
    DATEOID: ("date", _fixed("i"), False),
    TIMEOID: ("time", _fixed("q"), False),
    TIMESTAMPOID: ("timestamp", _fixed("q"), False),
    TIMESTAMPTZOID: ("timestamptz", _fixed("q"), False),
    TIMETZOID: ("timetz", _timetz, False),
    INTERVALOID: ("interval", _interval, False),
    UUIDOID: ("uuid", lambda raw: bytes(raw) if len(raw) == 16 else _bad(raw), False),
    BYTEAOID: ("bytea", _varlena(BYTEAOID), False),
    TEXTOID: ("text", _varlena(TEXTOID), True),
    VARCHAROID: ("varchar", _varlena(VARCHAROID), True),
    BPCHAROID: ("bpchar", _varlena(BPCHAROID, lambda p: p.rstrip(b" ")), True),   # bpchar ignores trailing spaces
    NAMEOID: ("name", lambda raw: bytes(raw).split(b"\0", 1)[0], True),
    CSTRINGOID: ("cstring", lambda raw: bytes(raw).split(b"\0", 1)[0], True),  # name_ops keeps names as cstring (12+)
}


# the compiled comparison's kind of each type, by its name in decode/_btorder.c's ORDER_KINDS (kernels.TABLES); the
# others are compared in Python only
C_KINDS = {BOOLOID: "uint", INT8OID: "int", INT2OID: "int", INT4OID: "int", OIDOID: "uint", REGPROCOID: "uint",
           CHAROID: "uint", FLOAT4OID: "float4", FLOAT8OID: "float8", DATEOID: "int", TIMEOID: "int",
           TIMESTAMPOID: "int", TIMESTAMPTZOID: "int", UUIDOID: "bytes", BYTEAOID: "varlena", TEXTOID: "varlena",
           VARCHAROID: "varlena", BPCHAROID: "bpchar", NAMEOID: "name", CSTRINGOID: "cstring"}
ALIGN_BYTES = {"c": 1, "s": 2, "i": 4, "d": 8}


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


def _collated(collation_key: Callable, type_key: Callable) -> Callable:
    def key(raw):
        payload = type_key(raw)
        try:
            return collation_key(payload)
        except UnicodeDecodeError:
            raise Uncomparable("text that is not UTF-8") from None
    return key


class KeyOrder:
    """How to compare an index's tuples: the key columns' types and indoption."""

    def __init__(self, attrs: Sequence, nkeyatts: int, natts: int, indoption: Sequence[int], heapkeyspace: bool,
                 collation_keys: Sequence | None = None):
        self.attrs = list(attrs)
        self.nkey = nkeyatts
        self.natts = natts
        # a column under a collation that does not sort as bytes: the collation's key of the type's key (the text)
        colls = list(collation_keys or []) + [None] * nkeyatts
        self.keyfns = [TYPES[a.typid][1] if colls[i] is None else _collated(colls[i], TYPES[a.typid][1])
                       for i, a in enumerate(self.attrs[:nkeyatts])]
        self.desc = [bool(o & INDOPTION_DESC) for o in indoption[:nkeyatts]]
        self.nulls_first = [bool(o & INDOPTION_NULLS_FIRST) for o in indoption[:nkeyatts]]
        self.hk = heapkeyspace
        # fixed-width key columns: where each lies in a tuple without NULLs (data from byte 8, aligned)
        self.fixed = None
        if all(a.attlen > 0 for a in self.attrs[:nkeyatts]):
            off, self.fixed = 8, []
            for a in self.attrs[:nkeyatts]:
                al = ALIGN_BYTES.get(a.attalign, 1)
                off = (off + al - 1) // al * al
                self.fixed.append((off, off + a.attlen))
                off += a.attlen
        # the compiled comparison's key spec (decode/_btorder.c), when every key column's type has a kind there
        self.cspec = None
        keys = self.attrs[:nkeyatts]
        if all(a.typid in C_KINDS for a in keys) and not any(colls):   # the compiled code compares bytes
            from pgpage.decode.kernels import TABLES
            self.cspec = np.array([nkeyatts, natts, int(heapkeyspace)] + [
                v for i, a in enumerate(keys) for v in (TABLES.ORDER_KINDS.index(C_KINDS[a.typid]), a.attlen,
                                                        ALIGN_BYTES.get(a.attalign, 1),
                                                        int(self.desc[i]), int(self.nulls_first[i]))], dtype=np.int64)

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


def collation_sorts_as_bytes(provider: str | None, locale: str | None) -> bool:
    """Whether text under a collation sorts as memcmp sorts its bytes, so that pgpage computes its order: libc's C
    and POSIX (``collate_is_c`` in pg_locale.c), under any name or oid (ucs_basic before 17, CREATE COLLATION ...
    FROM "C"), libc's C.UTF-8 (glibc's strcoll in it is code point order, the bytes of UTF-8 text), and every
    locale of the builtin provider (17+: C, C.UTF-8, PG_UNICODE_FAST). ``provider``: collprovider or
    datlocprovider ("c" libc, also when the catalog has no such column (before 15), "b" builtin, "i" ICU);
    ``locale``: libc's collcollate/datcollate, the builtin provider's colllocale/datlocale.

    C.UTF-8 is code point order in glibc 2.35 on; the distributions' own earlier C.UTF-8 put code points that were
    unassigned when the locale was built (newer emoji, say) after all others, and PostgreSQL records no version for
    C.* locales: an order finding in such an index names that cause (``C_UTF8_CAVEAT``)."""
    if provider == "b":
        return True
    return provider in ("c", None) and isinstance(locale, str) and (
        locale in ("C", "POSIX") or locale.lower().replace("-", "") in C_UTF8_LOCALES)


C_UTF8_LOCALES = ("c.utf8",)   # libc's names of C.UTF-8 (C.UTF-8, C.utf8), lower case without the hyphen


def key_order(attrs: Sequence | None, index_row: dict | None, db_collation: str | None, db_as_bytes: bool,
              collation: Callable[[int], dict | None] | None = None,
              sort_key: Callable[[dict], tuple[Callable | None, str | None]] | None = None,
              db_row: dict | None = None) -> tuple[str | None, list]:
    """(None, the key columns' collation sort keys) when the order of the index's keys is computable, else (why not
    ("type X", 'collation "Y"', "operator class N", ...), []). ``db_collation``: what collation 100 (default) means,
    the database's locale, for the message; ``db_as_bytes``: whether it sorts as memcmp
    (``collation_sorts_as_bytes``); ``collation``: a pg_collation row by oid (collname, collprovider, collcollate
    or colllocale, collversion), when known; ``sort_key``: a collation row to (sort key of a text payload, None) or
    (None, why not) (``collation.collation_sort_key``), for collations that do not sort as bytes; ``db_row``: the
    database's locale as such a row. The sort keys: one per key column, None where the type's own order holds."""
    row = index_row or {}
    nkey = row.get("indnkeyatts", row.get("indnatts"))
    if not attrs or not isinstance(nkey, int) or nkey < 1 or len(attrs) < nkey:
        return "index columns unknown", []
    for cls in list(row.get("indclass") or [])[:nkey]:
        if not isinstance(cls, int) or cls >= FIRST_NORMAL_OBJECT_ID:
            return f"operator class {cls}", []
    colls = list(row.get("indcollation") or [])
    keys: list = [None] * nkey
    for i, a in enumerate(attrs[:nkey]):
        t = TYPES.get(a.typid)
        if t is None:
            from pgpage.decode.datum import type_info
            ti = type_info(a.typid)
            return f"type {ti.name if ti else a.typid}", []
        if not t[2]:
            continue
        coll = colls[i] if i < len(colls) else None
        known = None
        if coll == DEFAULT_COLLATION:
            if db_as_bytes:
                continue
            known = db_row
            if known is None or sort_key is None:
                return f"collation default ({db_collation or 'unknown'})", []
        elif coll in C_COLLATIONS or coll == 0:     # 0: name before 12, compared with strncmp
            continue
        else:
            known = collation(coll) if collation is not None and isinstance(coll, int) else None
            if known is not None and collation_sorts_as_bytes(known.get("collprovider"),
                                                              known.get("colllocale") or known.get("collcollate")):
                continue
            if known is None or sort_key is None:
                name = known.get("collname") if known is not None else None
                return (f'collation "{name}"' if name else f"collation {coll}"), []
        keys[i], why = sort_key(known)
        if why is not None:
            return why, []
    if not isinstance(row.get("indoption"), (list, tuple)) or len(row["indoption"]) < nkey:
        return "indoption unknown", []
    return None, keys


# ---------------------------------------------------------------------------- the checks, page by page
# the items of each page the rules across pages compare: high key, first and last data items, smallest (without an
# order: high keys alone)
HIKEY, FIRST, LAST, LOW = range(4)
READ_BYTES = 16 << 20   # pages read again at a time by ``finish``: 16 MB (2048 pages of 8 kB)
POOL_BYTES = 64 << 20   # the items' bytes kept from the scan, at most: the others are read again by ``finish``
NOT_KEPT = 0xFFFFFFFF   # (OrderCheck.off: an item whose bytes are not in the pool)


class _Pool:
    """Item bytes, appended end to end in one growing buffer (a page's kept items cost no Python object)."""

    def __init__(self, capacity: int):
        # (np.empty's pages are not resident until written: a big buffer costs only what is put in it, and
        # growing by copies, which holds both buffers at once, is left to a pool that outgrows it)
        self.buf = np.empty(capacity, dtype=np.uint8)
        self.fill = 0

    def put_many(self, flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Each ``flat[starts[i]:starts[i] + lengths[i]]``; their offsets in the pool."""
        total = int(lengths.sum())
        if self.fill + total > len(self.buf):
            grown = np.empty(max(len(self.buf) * 3 // 2, self.fill + total), dtype=np.uint8)
            grown[:self.fill] = self.buf[:self.fill]
            self.buf = grown
        ends = np.cumsum(lengths)
        idx = np.repeat(starts - (ends - lengths), lengths) + np.arange(total)
        self.buf[self.fill:self.fill + total] = flat[idx]
        offs = self.fill + ends - lengths
        self.fill += total
        return offs

    def get(self, off: int, length: int) -> bytes:
        return self.buf[off:off + length].tobytes()


class OrderCheck:
    """amcheck's key order rules over a whole index of ``nblocks`` blocks; ``order`` None checks only what needs
    no order (child high keys against their parents' separators). Each page's own items are checked as it comes
    (``add_page``, or ``add_verified`` for pages the compiled check found in order); of each page only its links
    and the items the rules across pages compare are kept: their line pointer numbers (and the internal pages'
    block numbers), 40 bytes a block with an order, 16 without, and, while the pool has room (``POOL_BYTES``),
    their bytes and the internal pages' pivots. ``finish`` runs those rules, a batch at a time, reading again
    only the pages whose items the pool had no room for (at random, for an index in random order: memory stays
    bounded however big the index, and an index whose items fit is not read again)."""

    def __init__(self, relation: str | None, order: KeyOrder | None, heapkeyspace: bool, find: Callable,
                 nblocks: int, block_size: int):
        self.rel = relation
        self.block_size = block_size
        self.order = order
        self.hk = heapkeyspace
        self.find = find            # find(code, message, block, item)
        slots = 1 if order is None else 4
        self.flags = np.full(nblocks, -1, dtype=np.int32)         # -1: no page kept
        self.next = np.zeros(nblocks, dtype=np.uint32)
        self.lpno = np.zeros((slots, nblocks), dtype=np.int16)    # HIKEY, FIRST, LAST, LOW: line pointer, 0 none
        self.off = np.full((slots, nblocks), NOT_KEPT, dtype=np.uint32)   # their bytes in the pool
        self.len = np.zeros((slots, nblocks), dtype=np.uint16)
        self.parents: list[int] = []   # internal pages with a downlink
        # those whose pivots the pool had room for: (line pointer numbers, pool offsets, lengths) from P_FIRSTDATAKEY on
        self.pivots: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.pool = _Pool(POOL_BYTES + 2 * READ_BYTES)   # the items kept, and those of a batch read again
        self.kept = 0    # the pool's bytes kept by the scan (finish's batches go after them)

    def _keep(self, slot: int, blocks, flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        """Items ``flat[starts[i]:starts[i] + lengths[i]]`` of ``blocks`` into the pool, if it has room for all."""
        if self.pool.fill + int(lengths.sum()) <= POOL_BYTES:
            self.off[slot, blocks], self.len[slot, blocks] = self.pool.put_many(flat, starts, lengths), lengths

    def _keep_pivots(self, blkno: int, nn: np.ndarray, flat: np.ndarray, starts: np.ndarray,
                     lengths: np.ndarray) -> None:
        """An internal page's items ``nn`` (``flat[starts[i]:starts[i] + lengths[i]]``), if the pool has room."""
        if self.pool.fill + int(lengths.sum()) <= POOL_BYTES:
            self.pivots[blkno] = (nn.astype(np.int16), self.pool.put_many(flat, starts, lengths).astype(np.uint32),
                                  lengths.astype(np.uint16))

    def _keep_raw(self, slot: int, blkno: int, raw: bytes) -> None:
        self._keep(slot, np.array([blkno]), np.frombuffer(raw, dtype=np.uint8), np.zeros(1, dtype=np.int64),
                   np.array([len(raw)]))

    def _low_is_first(self, blocks) -> None:
        """The smallest item of these pages (a block or an array of them) is their first data item: LOW shares
        FIRST's line pointer and bytes."""
        self.lpno[LOW, blocks], self.off[LOW, blocks], self.len[LOW, blocks] = (
            self.lpno[FIRST, blocks], self.off[FIRST, blocks], self.len[FIRST, blocks])

    def _items(self, page: bytes) -> list[tuple[int, bytes]]:
        lower = int.from_bytes(page[_PD_LOWER:_PD_LOWER + 2], "little")
        out = []
        for n in range(1, max(0, (lower - SIZE_OF_PAGE_HEADER) // SIZE_OF_ITEM_ID) + 1):
            at = SIZE_OF_PAGE_HEADER + SIZE_OF_ITEM_ID * (n - 1)
            off, flags, length = line_pointer_fields(int.from_bytes(page[at:at + SIZE_OF_ITEM_ID], "little"))
            if flags not in (LP_NORMAL, LP_DEAD) or length < SIZEOF_IndexTupleData \
                    or off + length > len(page) - SIZE_OF_BT_OPAQUE:
                return []       # the page rules report it; no order on a page that cannot be read
            out.append((n, page[off:off + length]))
        return out

    def add_page(self, blkno: int, page: bytes) -> None:
        """One tree page (not the metapage, not deleted; the caller knows its header is sane)."""
        flags = int.from_bytes(page[_BTPO_FLAGS:_BTPO_FLAGS + 2], "little")
        nxt = int.from_bytes(page[_BTPO_NEXT:_BTPO_NEXT + 4], "little")
        if flags & (BTP_DELETED | BTP_META):
            return
        items = self._items(page)
        self.flags[blkno], self.next[blkno] = flags, nxt
        leaf, rightmost = bool(flags & BTP_LEAF), nxt == P_NONE
        firstkey = 1 if rightmost else 2
        hikey = items[0][1] if not rightmost and items else None
        if hikey is not None:
            self.lpno[HIKEY, blkno] = P_HIKEY
            self._keep_raw(HIKEY, blkno, hikey)
        data = [(n, raw) for n, raw in items if n >= firstkey]
        if not leaf:
            if data:
                self.parents.append(blkno)
                lengths = np.array([len(raw) for _, raw in data])
                self._keep_pivots(blkno, np.array([n for n, _ in data]), np.frombuffer(b"".join(r for _, r in data),
                                  dtype=np.uint8), np.cumsum(lengths) - lengths, lengths)
            data = data[1:]           # minus infinity
        if not data or self.order is None:   # without an order, only high keys and pivots are compared
            return
        self.lpno[FIRST, blkno], self.lpno[LAST, blkno] = data[0][0], data[-1][0]
        self._keep_raw(FIRST, blkno, data[0][1])
        self._keep_raw(LAST, blkno, data[-1][1])
        if flags & BTP_HALF_DEAD:
            return      # amcheck skips ignorable pages as targets
        o = self.order
        try:
            parsed = [(n, o.item(raw)) for n, raw in data]
            hikey_item = o.item(hikey) if hikey is not None else None
        except Uncomparable:
            return
        kind = "heap" if leaf else "index"
        low = None
        for k, (n, it) in enumerate(parsed):
            if hikey_item is not None:
                probe = it if it.maxtid is None else Item(it.natts, it.vals, it.maxtid, None, it.tid)
                ok = o.less_equal(probe, hikey_item) if leaf else o.less(probe, hikey_item)
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
        if low == 0:
            self._low_is_first(blkno)
        else:
            self.lpno[LOW, blkno] = data[low][0]
            self._keep_raw(LOW, blkno, data[low][1])

    def add_verified(self, chunk: np.ndarray, rows: np.ndarray, blocks: np.ndarray, low: np.ndarray,
                     nlp: np.ndarray, opaque: np.ndarray) -> None:
        """Pages ``chunk[rows]`` (blocks ``blocks``) whose items the compiled check found in order and within
        their high key (``low``: the line pointer number of each one's smallest data item; 0 when no order is
        checked): what ``add_page`` keeps of them, in arrays. ``nlp``, ``opaque``: every page of the chunk's
        line pointer count (``decode_headers``) and special area (``bt_opaque``)."""
        if not len(rows):
            return
        op = opaque[rows]
        flags, nxt = op["btpo_flags"].astype(np.int64), op["btpo_next"].astype(np.int64)
        maxoff = nlp[rows]
        leaf, rightmost = (flags & BTP_LEAF) != 0, nxt == P_NONE
        firstkey = np.where(rightmost, 1, 2)
        self.flags[blocks], self.next[blocks] = flags, nxt
        first = np.where(leaf, firstkey, firstkey + 1)
        lps = {HIKEY: np.where(rightmost, 0, P_HIKEY)}
        if self.order is not None:   # without an order, only high keys and pivots are compared
            lps.update({FIRST: first, LAST: maxoff, LOW: np.where(low == first, 0, low)})   # LOW 0: FIRST's
        bs = chunk.shape[1]
        flat, words = chunk.reshape(-1), chunk.view("<u4")   # (line pointers are 4-byte aligned)
        for slot, n in lps.items():
            has = n > 0
            b, r, n = blocks[has], rows[has], n[has]
            self.lpno[slot, b] = n
            off, _, length = line_pointer_fields(words[r, SIZE_OF_PAGE_HEADER // 4 + n - 1].astype(np.int64))
            self._keep(slot, b, flat, r * bs + off, length)
        if self.order is not None:
            self._low_is_first(blocks[low == first])
        for i in np.flatnonzero(~leaf & (maxoff >= firstkey)):
            self.parents.append(int(blocks[i]))
            nn = np.arange(firstkey[i], maxoff[i] + 1)
            off, _, length = line_pointer_fields(words[rows[i], SIZE_OF_PAGE_HEADER // 4 + nn - 1].astype(np.int64))
            self._keep_pivots(int(blocks[i]), nn, flat, rows[i] * bs + off, length)

    # ------------------------------------------------------------------ across pages
    def finish(self, read_blocks: Callable[[np.ndarray], np.ndarray]) -> None:
        """Siblings, then parents and children. ``read_blocks(sorted block numbers)``: their pages again, a uint8
        array (n, block size) valid until the next call (``RelationFork.block_reader``)."""
        self.kept = self.pool.fill
        self._cross_page(read_blocks)
        self._parent_child(read_blocks)

    def _pool_items(self, pages: np.ndarray, want: np.ndarray, blocks: np.ndarray, n: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
        """Line pointers ``n`` (0: none) of the pages of ``blocks`` read again (``pages``: those of the sorted
        ``want``, which holds every block) into the pool: (offsets, lengths), the length -1 where there is no item,
        or the page is no longer what the scan kept (its flags or right link moved: a live server's split) or the
        line pointer cannot be read."""
        bs = pages.shape[1]
        flat, words = pages.reshape(-1), pages.view("<u4")   # (whole pages: line pointers are 4-byte aligned)
        row = np.searchsorted(want, blocks)
        n = n.astype(np.int64)
        op = bt_opaque(pages)[row]
        same = (op["btpo_flags"] == self.flags[blocks]) & (op["btpo_next"] == self.next[blocks])
        nlp = decode_headers(pages).nlp[row]
        at = SIZE_OF_PAGE_HEADER // 4 + np.clip(n, 1, (bs - SIZE_OF_PAGE_HEADER) // 4) - 1
        off, lf, length = line_pointer_fields(words[row, at].astype(np.int64))
        ok = same & (n > 0) & (n <= nlp) & ((lf == LP_NORMAL) | (lf == LP_DEAD)) & (length >= 8) \
            & (off + length <= bs - SIZE_OF_BT_OPAQUE)
        offs = self.pool.put_many(flat, row * bs + np.where(ok, off, 0), np.where(ok, length, 0))
        return offs, np.where(ok, length, -1)

    def _kept_or_read(self, read_blocks: Callable, *wanted: tuple[np.ndarray, int]
                      ) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each (blocks, slot) of ``wanted``, every block having that item: the items' (pool offsets,
        lengths), kept by the scan or read again (``_pool_items``: the pages of those not kept, read once)."""
        out = [(self.off[s, b].astype(np.int64), self.len[s, b].astype(np.int64)) for b, s in wanted]
        missing = [self.off[s, b] == NOT_KEPT for b, s in wanted]
        want = sorted_unique(np.concatenate([b[m] for (b, _), m in zip(wanted, missing)]))
        if len(want):
            pages = read_blocks(want)
            for (b, s), m, (off, length) in zip(wanted, missing, out):
                off[m], length[m] = self._pool_items(pages, want, b[m], self.lpno[s, b[m]])
        return out

    def _relate_many(self, op: str, a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> list:
        """``op`` of pairs of pooled items (offsets and lengths): by the compiled comparison, and for the pairs it
        cannot read through ``KeyOrder.item`` (None where Python cannot either)."""
        from pgpage.decode.kernels import btree_relate_many
        n = len(a[0])
        o = self.order
        if not n:
            return []
        if op == "identical" or o.cspec is not None:
            spec = o.cspec if o is not None and o.cspec is not None else np.zeros(3, dtype=np.int64)
            got, readable = btree_relate_many(self.pool.buf, a, b, spec, op, 4 if self.hk else 6)
        else:
            got, readable = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        out = (got != 0).tolist()
        for i in np.flatnonzero(~readable).tolist():
            try:
                r = getattr(o, op)(o.item(self.pool.get(int(a[0][i]), int(a[1][i]))),
                                   o.item(self.pool.get(int(b[0][i]), int(b[1][i]))))
            except Uncomparable:
                r = None
            out[i] = None if r is None else bool(r)
        return out

    def _right_of(self, blkno: int) -> int | None:
        """The first non-ignorable page right of ``blkno`` (bt_right_page_check_scankey)."""
        seen, nblocks = 0, len(self.flags)
        nxt = int(self.next[blkno])
        while nxt != P_NONE and seen < nblocks:
            if nxt >= nblocks or self.flags[nxt] < 0:
                return None
            if not self.flags[nxt] & BTP_HALF_DEAD:
                return nxt
            nxt, seen = int(self.next[nxt]), seen + 1
        return None

    def _cross_page(self, read_blocks: Callable) -> None:
        if self.order is None:
            return
        fl, nblocks = self.flags, len(self.flags)
        blocks = np.flatnonzero((fl >= 0) & (self.lpno[LAST] > 0) & (self.next != P_NONE) & ((fl & BTP_HALF_DEAD) == 0))
        right = self.next[blocks].astype(np.int64)
        simple = (right < nblocks)
        simple[simple] &= (fl[right[simple]] >= 0) & ((fl[right[simple]] & BTP_HALF_DEAD) == 0)
        for i in np.flatnonzero(~simple):         # a missing or half-dead right sibling: follow the links
            r = self._right_of(int(blocks[i]))
            right[i] = -1 if r is None else r
        keep = right >= 0
        blocks, right = blocks[keep], right[keep]
        keep = (self.lpno[FIRST, right] > 0) & (((fl[right] ^ fl[blocks]) & BTP_LEAF) == 0)
        blocks, right = blocks[keep], right[keep]
        step = max(1, READ_BYTES // self.block_size // 2)
        for lo in range(0, len(blocks), step):
            b, r = blocks[lo:lo + step], right[lo:lo + step]
            self.pool.fill = self.kept
            last, first = self._kept_or_read(read_blocks, (b, LAST), (r, FIRST))
            sel = np.flatnonzero((last[1] >= 0) & (first[1] >= 0))
            ok = self._relate_many("greater", (first[0][sel], first[1][sel]), (last[0][sel], last[1][sel]))
            for blkno, good in zip(b[sel].tolist(), ok):
                if good is False:
                    n = int(self.lpno[LAST, blkno])
                    self.find("btree.order.cross_page", f"cross page item order invariant violated for index"
                              f" \"{self.rel}\": last item on page tid=({blkno},{n})", blkno, n)

    def _parent_child(self, read_blocks: Callable) -> None:
        parents = sorted_unique(np.array(self.parents, dtype=np.int64))
        parents = parents[(self.flags[parents] & BTP_HALF_DEAD) == 0]
        # as many parents at a time as have at most READ_BYTES of children (one parent at least)
        step = max(1, READ_BYTES // self.block_size // max_index_tuples_per_page(self.block_size))
        for lo in range(0, len(parents), step):
            batch = parents[lo:lo + step]
            self.pool.fill = self.kept
            self._parents(read_blocks, batch)

    def _pivots(self, read_blocks: Callable, batch: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every pivot of the internal pages ``batch`` from P_FIRSTDATAKEY on, ordered by page and line pointer:
        (page, line pointer number, pool offset, length (-1: unreadable)), kept by the scan or read again."""
        parts = [(np.full(len(self.pivots[p][0]), p), *self.pivots[p]) for p in batch.tolist() if p in self.pivots]
        unkept = np.array([p for p in batch.tolist() if p not in self.pivots], dtype=np.int64)
        if len(unkept):
            pages = read_blocks(unkept)
            firstkey = np.where(self.next[unkept] == P_NONE, 1, 2)
            counts = np.maximum(decode_headers(pages).nlp - firstkey + 1, 0)
            parent = np.repeat(unkept, counts)
            n = np.repeat(firstkey, counts) + run_positions(counts)
            parts.append((parent, n, *self._pool_items(pages, unkept, parent, n)))
        parent, n, off, length = (np.concatenate([p[j] for p in parts]).astype(np.int64) for j in range(4))
        at = np.lexsort((n, parent))
        return parent[at], n[at], off[at], length[at]

    def _parents(self, read_blocks: Callable, batch: np.ndarray) -> None:
        """The rules between the internal pages ``batch`` and their children."""
        o, fl, nblocks = self.order, self.flags, len(self.flags)
        # every pivot of every parent: its parent, position k, line pointer number, bytes; the child it points to
        parent, n, off, length = self._pivots(read_blocks, batch)
        k = np.arange(len(parent)) - np.searchsorted(parent, parent)
        hikey_off, hikey_len = np.zeros(len(batch), dtype=np.int64), np.full(len(batch), -1, dtype=np.int64)
        has = self.lpno[HIKEY, batch] > 0
        (hikey_off[has], hikey_len[has]), = self._kept_or_read(read_blocks, (batch[has], HIKEY))
        read = length >= 0
        if not read.any():
            return
        parent, k, n, off, length = parent[read], k[read], n[read], off[read], length[read]
        head = self.pool.buf[off[:, None] + np.arange(4)].astype(np.int64)
        child = head[:, 1] << 24 | head[:, 0] << 16 | head[:, 3] << 8 | head[:, 2]
        valid = child < nblocks
        cf = np.where(valid, fl[np.where(valid, child, 0)], -1)
        valid &= (cf >= 0) & ((cf & BTP_HALF_DEAD) == 0)
        c = np.where(valid, child, 0)
        # the child's high key: a copy of the next separator, or of the parent's high key
        last = np.append(parent[1:] != parent[:-1], True)
        at = np.searchsorted(batch, parent)
        upper_off = np.where(last, hikey_off[at], np.append(off[1:], -1))
        upper_len = np.where(last, hikey_len[at], np.append(length[1:], -1))
        rule = valid & (self.next[c] != P_NONE) & ((cf & BTP_INCOMPLETE_SPLIT) == 0) & (self.lpno[HIKEY, c] > 0)
        for i in np.flatnonzero(rule & (upper_len < 0)):
            self.find("btree.order.child_high_key", "child high key is greater than rightmost pivot key on target"
                      f" level in index \"{self.rel}\": target block={parent[i]} child block={child[i]}",
                      int(child[i]), P_HIKEY)
        rule &= upper_len >= 0
        # the children's high keys and smallest items (a minus infinity pivot bounds nothing)
        low_rule = valid & (k > 0) & (self.lpno[LOW, c] > 0) if o is not None else None
        wanted = [(c[rule], HIKEY)] + ([(c[low_rule], LOW)] if o is not None else [])
        hikey, *low = self._kept_or_read(read_blocks, *wanted)
        sel = np.flatnonzero(rule)[hikey[1] >= 0]
        same = self._relate_many("identical", (hikey[0][hikey[1] >= 0], hikey[1][hikey[1] >= 0]),
                                 (upper_off[sel], upper_len[sel]))
        for i, good in zip(sel.tolist(), same):
            if not good:
                self.find("btree.order.child_high_key", "mismatch between parent key and child high key in index"
                          f" \"{self.rel}\": target block={parent[i]} child block={child[i]}", int(child[i]), P_HIKEY)
        if o is None:
            return
        low_off, low_len = low[0]
        sel = np.flatnonzero(low_rule)[low_len >= 0]
        ok = self._relate_many("less", (off[sel], length[sel]), (low_off[low_len >= 0], low_len[low_len >= 0]))
        for i, good in zip(sel.tolist(), ok):
            if good is not False:
                continue
            blkno, ch = int(parent[i]), int(child[i])
            try:     # the separator is not below the child's smallest item: name every child item it is not below
                sep = o.item(self.pool.get(int(off[i]), int(length[i])))
                items = self._items(read_blocks(np.array([ch]))[0].tobytes())
                firstkey = 1 if self.next[ch] == P_NONE else 2
                data = [(m, r) for m, r in items if m >= firstkey][0 if fl[ch] & BTP_LEAF else 1:]
                bad = [m for m, r in data if not o.less(sep, o.item(r))]
            except Uncomparable:
                continue
            for m in bad:
                self.find("btree.order.downlink_lower_bound", "down-link lower bound invariant violated for"
                          f" index \"{self.rel}\": parent block={blkno} (item {n[i]}) child index"
                          f" tid=({ch},{m})", ch, m)


def _fmt(tid: tuple) -> str:
    return f"({tid[0]},{tid[1]})"


def not_checked(relation: str | None, reason: str) -> Finding:
    return Finding("btree.order.not_checked", f"order not checked: {reason}", INFO, relation=relation, fork="main")
