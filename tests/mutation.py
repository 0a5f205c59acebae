"""The mutation campaign's generator and runner: damaged real files through every command.

A *case* is one mutated input through one command, fully determined by ``(seed, index)``: the index picks the
command (``COMMANDS``, cycled) and the mutation kind (``KINDS``, cycled over the commands' cycles, so every pair
comes round), then ``random.Random(f"{seed}:{index}")`` picks the major, the file and the damage. The files are
real: every relation file, fork, catalog, pg_control, pg_filenode.map and pg_xact segment of the committed
fixture clusters (10 to 18). Damage is applied in a private copy of the fixture's data directory (the committed
files are only read), the command runs in-process through the real entry point ``pgpage.cli.main:run``, and the
file is put back before the next case.

``Runner`` runs cases in a worker process: a case that does not answer within ``case_seconds`` is a hang (the
worker is killed, and a new one takes the next case), a worker that dies is a crash (a fault in compiled code),
and the worker's peak RSS is checked after every case. A case *fails* when an exception escapes the entry point
or an "internal error" line is printed, the exit status is not 0, 1 or 3, stdout is not JSON lines where --json
was asked, the case hangs, the worker crashes, or the peak RSS passes ``rss_limit_mb``.

    python tests/mutation.py SEED INDEX      # one case, in this process, with the traceback if it fails
"""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import struct
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:       # this checkout's pgpage, also when run as a script or from bench/
    sys.path.insert(0, str(REPO))
FIXTURES = REPO / "fixtures"
MAJORS = tuple(m for m in range(10, 19) if (FIXTURES / f"pg{m}" / "oracle" / "catalog.json").is_file())
DB = "pgpage"
ALLOWED_STATUS = (0, 1, 3)
USER_TABLES = ("heap_hot", "misc_types", "toasty", "row_types", "heap_frozen")   # read when the damage is global


def _layouts():
    from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
    return LAYOUTS, ENUMS


def fields(struct_name: str) -> dict:
    return _layouts()[0][struct_name]["fields"]


def size_of(struct_name: str) -> int:
    return _layouts()[0][struct_name]["size"]


def enum_value(enum: str, name: str) -> int:
    return next(v for v, n in _layouts()[1][enum].items() if n == name)


# ------------------------------------------------------------------------------------------ the real files
@dataclass(frozen=True)
class Target:
    """One real file of a fixture cluster, and the names the commands reach it by."""
    major: int
    kind: str           # heap, toast, catalog, sequence, btree, toast_index, index_other, vm, fsm,
    #                     pg_control, filenode_map, pg_xact
    path: str           # relative to the data directory
    rel: str | None     # the relation it belongs to (schema.name), None for a cluster file
    am: str | None      # the relation's access method (for the main fork)
    table: str          # the table `heap` and `rows` read: the file's own, its owner's, or a user table
    index: str          # the B-tree `index` reads: the file's own, its table's, or any
    index_blocks: int   # how many blocks that index has


PAGED = {"heap", "toast", "catalog", "sequence", "btree", "toast_index", "index_other", "vm", "fsm"}
HEAPLIKE = {"heap", "toast", "catalog", "sequence"}
INDEXES = {"btree", "toast_index", "index_other"}


@lru_cache(maxsize=None)
def catalog(major: int) -> dict:
    return json.loads((FIXTURES / f"pg{major}" / "oracle" / "catalog.json").read_text())


@lru_cache(maxsize=None)
def targets(major: int) -> tuple[Target, ...]:
    cat = catalog(major)
    data = FIXTURES / f"pg{major}" / "data"
    by_oid = {r["oid"]: r for r in cat["relations"]}
    qual = {r["oid"]: f"{r['nspname']}.{r['relname']}" for r in cat["relations"]}
    owner_of_toast = {r["reltoastrelid"]: r["oid"] for r in cat["relations"] if r.get("reltoastrelid")}
    table_of_index = {i["indexrelid"]: i["indrelid"] for i in cat["indexes"]}
    btrees = sorted(r["oid"] for r in cat["relations"] if r["amname"] == "btree")
    btree_of_table = {}
    for ix in btrees:
        btree_of_table.setdefault(table_of_index.get(ix), ix)
    rng = random.Random(major)

    def user_table(oid):              # the user table whose commands read this relation's file
        oid = table_of_index.get(oid, oid)
        oid = owner_of_toast.get(oid, oid)
        r = by_oid.get(oid)
        return r["relname"] if r and r["nspname"] == "public" and r["relkind"] == "r" else rng.choice(USER_TABLES)

    def index_of(oid):
        if by_oid[oid]["amname"] == "btree":
            return qual[oid]
        ix = btree_of_table.get(oid) or btree_of_table.get(table_of_index.get(oid)) or rng.choice(btrees)
        return qual[ix]

    def blocks_of(qualified):
        r = next(r for r in cat["relations"] if f"{r['nspname']}.{r['relname']}" == qualified)
        return (data / r["filepath"]).stat().st_size // cat["block_size"]

    out = []
    for r in cat["relations"]:
        oid = r["oid"]
        if r["nspname"] == "pg_catalog":
            kind = "catalog"
        elif r["relkind"] == "t":
            kind = "toast"
        elif r["relkind"] == "S":
            kind = "sequence"
        elif r["relkind"] == "i":
            kind = "toast_index" if r["nspname"] == "pg_toast" else "btree" if r["amname"] == "btree" else "index_other"
        else:
            kind = "heap"
        for suffix, fork_kind in (("", kind), ("_vm", "vm"), ("_fsm", "fsm")):
            f = data / (r["filepath"] + suffix)
            if f.is_file() and f.stat().st_size > 0:
                index = index_of(oid)
                out.append(Target(major, fork_kind, r["filepath"] + suffix, qual[oid], r["amname"] if not suffix else None,
                                  user_table(oid), index, blocks_of(index)))
    any_btree = qual[btrees[0]]
    for path, kind in (("global/pg_control", "pg_control"), ("global/pg_filenode.map", "filenode_map"),
                       (f"base/{cat['database_oid']}/pg_filenode.map", "filenode_map")):
        out.append(Target(major, kind, path, None, None, rng.choice(USER_TABLES), any_btree, blocks_of(any_btree)))
    for f in sorted((data / "pg_xact").iterdir()):
        out.append(Target(major, "pg_xact", f"pg_xact/{f.name}", None, None, rng.choice(USER_TABLES), any_btree,
                          blocks_of(any_btree)))
    return tuple(out)


# -------------------------------------------------------------------------------------- field limits
def _limits(typ, current: int | float, page_offsets: bool, blcksz: int) -> list:
    """Values at the edges of a field's range (and of a page, for a field that holds an offset or a length)."""
    if typ == "f8":
        return [0.0, -1.0, math.nan, math.inf, -math.inf, 1e308]
    if isinstance(typ, tuple):                       # ('bits', start, width)
        bits, signed = typ[2], False
    else:
        bits, signed = int(typ[1:]) * 8, typ[0] == "s"
    if signed:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        values = [0, -1, 1, lo, hi, current - 1, current + 1]
    else:
        lo, hi = 0, (1 << bits) - 1
        values = [0, 1, hi, hi - 1, 1 << (bits - 1), current - 1, current + 1]
    if page_offsets:
        values += [23, 24, 25, blcksz // 2, blcksz - 8, blcksz - 1, blcksz, blcksz + 1, current + 8, current - 8]
    return [v for v in values if lo <= v <= hi and v != current] or [lo]


FORMATS = {"u1": "<B", "u2": "<H", "u4": "<I", "u8": "<Q", "s4": "<i", "s8": "<q", "f8": "<d"}   # .ksy types


def _get(data, at: int, typ, word: int):
    if isinstance(typ, tuple):
        w = int.from_bytes(data[at:at + word], "little")
        return (w >> typ[1]) & ((1 << typ[2]) - 1)
    return struct.unpack_from(FORMATS[typ], data, at)[0]


def _put(data, at: int, typ, word: int, value) -> None:
    if isinstance(typ, tuple):
        mask = ((1 << typ[2]) - 1) << typ[1]
        w = int.from_bytes(data[at:at + word], "little")
        data[at:at + word] = ((w & ~mask) | ((value << typ[1]) & mask)).to_bytes(word, "little")
        return
    struct.pack_into(FORMATS[typ], data, at, value)


def set_field_limit(rng, data, base: int, struct_name: str, names=None, page_offsets=False, blcksz=8192,
                    value=None) -> str:
    """One scalar field of ``struct_name`` (at ``base`` in ``data``) set to a limit value; says which."""
    flds = {n: ft for n, ft in fields(struct_name).items()
            if (isinstance(ft[1], tuple) and ft[1][0] == "bits") or ft[1] in FORMATS}
    name = rng.choice(sorted(n for n in (names or flds) if n in flds))
    off, typ = flds[name]
    at = base + off
    word = size_of(struct_name)
    if at < 0 or at + (word if isinstance(typ, tuple) else struct.calcsize(FORMATS[typ])) > len(data):
        return f"{name}: out of the file"
    current = _get(data, at, typ, word)
    new = value if value is not None else rng.choice(_limits(typ, current, page_offsets, blcksz))
    _put(data, at, typ, word, new)
    return f"{struct_name.split('::')[-1]}.{name}@{at}: {current} -> {new}"


# ---------------------------------------------------------------------------------------- page helpers
class Pages:
    """Where things are on a relation file's pages (offsets from the .ksy layouts)."""

    def __init__(self, data: bytearray, blcksz: int):
        self.data, self.blcksz = data, blcksz
        self.hdr = fields("pg_page::page_header")
        self.header_size = size_of("pg_page::page_header")
        self.lp_size = size_of("pg_page::item_id")

    @property
    def count(self) -> int:
        return len(self.data) // self.blcksz

    def u2(self, blk: int, name: str) -> int:
        return struct.unpack_from("<H", self.data, blk * self.blcksz + self.hdr[name][0])[0]

    def pick(self, rng) -> int:
        """A block that is not all zero when there is one."""
        n = max(1, self.count)
        used = [b for b in range(n) if any(self.data[b * self.blcksz:(b + 1) * self.blcksz])]
        return rng.choice(used or list(range(n)))

    def line_pointers(self, blk: int) -> list[tuple[int, int, int, int]]:
        """(at, lp_off, lp_flags, lp_len) of each line pointer the page's pd_lower covers."""
        lower = min(self.u2(blk, "pd_lower"), self.blcksz)
        base = blk * self.blcksz
        lp = fields("pg_page::item_id")
        out = []
        for at in range(base + self.header_size, base + lower - self.lp_size + 1, self.lp_size):
            out.append((at, *(_get(self.data, at, lp[n][1], self.lp_size) for n in ("lp_off", "lp_flags", "lp_len"))))
        return out

    def items(self, blk: int, min_len: int) -> list[int]:
        """File offsets of the page's LP_NORMAL items of at least ``min_len`` bytes lying inside the page."""
        normal = enum_value("pg_page::lp_flags", "LP_NORMAL")
        return [blk * self.blcksz + off for _, off, flags, length in self.line_pointers(blk)
                if flags == normal and length >= min_len and off + length <= self.blcksz]


def recompute_checksums(data: bytearray, original: bytes, blcksz: int) -> int:
    """pd_checksum recomputed on every changed, non-zero whole page (so the damage reaches what lies past the
    checksum check); returns how many."""
    from pgpage.decode.checksum import checksum_page
    at = fields("pg_page::page_header")["pd_checksum"][0]
    n = 0
    for b in range(len(data) // blcksz):
        page = data[b * blcksz:(b + 1) * blcksz]
        if page != original[b * blcksz:(b + 1) * blcksz] and any(page):
            struct.pack_into("<H", data, b * blcksz + at, checksum_page(bytes(page), b))
            n += 1
    return n


def recompute_crc(data: bytearray, kind: str) -> bool:
    """pg_control's or pg_filenode.map's CRC-32C recomputed (where the file is still long enough to hold it)."""
    from pgpage.decode.control import decode_control
    from pgpage.decode.crc32c import crc32c
    from pgpage.decode.filenode_map import decode_filenode_map
    try:
        crc_offset = (decode_control if kind == "pg_control" else decode_filenode_map)(bytes(data))["crc_offset"]
    except Exception:            # too damaged to say where its CRC is: leave it
        return False
    if crc_offset + 4 > len(data):
        return False
    struct.pack_into("<I", data, crc_offset, crc32c(bytes(data[:crc_offset])))
    return True


# ------------------------------------------------------------------------------------------- mutations
def _span(rng, t: Target, data, blcksz):
    """A region to damage: inside one page (favouring its header and its special space) or the whole file."""
    if t.kind in PAGED and len(data) >= blcksz:
        blk = Pages(data, blcksz).pick(rng)
        lo = blk * blcksz
        where = rng.random()
        if where < 0.3:
            return lo, lo + 64
        if where < 0.45:
            return lo + blcksz - 64, lo + blcksz
        return lo, lo + blcksz
    return 0, len(data)


def m_bitflip(rng, t, data, blcksz):
    lo, hi = _span(rng, t, data, blcksz)
    bits = [rng.randrange(lo * 8, hi * 8) for _ in range(rng.randint(1, 8))]
    for i in bits:
        data[i >> 3] ^= 1 << (i & 7)
    return f"bits {bits}"


def _run(fill):
    def mutate(rng, t, data, blcksz):
        lo, hi = _span(rng, t, data, blcksz)
        n = min(rng.choice([1, 2, 4, 8, 16, 64, 256, 1024]), hi - lo)
        at = rng.randrange(lo, hi - n + 1)
        data[at:at + n] = bytes(rng.getrandbits(8) for _ in range(n)) if fill is None else bytes([fill]) * n
        return f"{n} bytes at {at}"
    return mutate


def m_truncate_mid_page(rng, t, data, blcksz):
    blk = rng.randrange(max(1, len(data) // blcksz))
    cut = min(len(data) - 1, blk * blcksz + rng.randint(1, blcksz - 1))
    del data[cut:]
    return f"to {cut} bytes"


def m_truncate_mid_header(rng, t, data, blcksz):
    blk = rng.randrange(max(1, len(data) // blcksz))
    cut = min(len(data) - 1, blk * blcksz + rng.randint(1, size_of("pg_page::page_header") - 1))
    del data[cut:]
    return f"to {cut} bytes"


def m_truncate_empty(rng, t, data, blcksz):
    del data[:]
    return "to 0 bytes"


def m_zero_region(rng, t, data, blcksz):
    n = len(data) // blcksz
    if n and rng.random() < 0.4:
        blk = rng.randrange(n)
        data[blk * blcksz:(blk + 1) * blcksz] = bytes(blcksz)
        return f"block {blk} zeroed"
    size = min(len(data), rng.choice([512, 4096, blcksz, 2 * blcksz, 3 * blcksz]))
    at = rng.randrange(0, len(data) - size + 1)
    data[at:at + size] = bytes(size)
    return f"{size} bytes at {at} zeroed"


def m_swap(rng, t, data, blcksz):
    n = len(data) // blcksz
    if n >= 2 and rng.random() < 0.6:
        a, b = rng.sample(range(n), 2)
        pa, pb = bytes(data[a * blcksz:(a + 1) * blcksz]), bytes(data[b * blcksz:(b + 1) * blcksz])
        data[a * blcksz:(a + 1) * blcksz], data[b * blcksz:(b + 1) * blcksz] = pb, pa
        return f"blocks {a} and {b} swapped"
    lo, hi = _span(rng, t, data, blcksz)
    size = rng.randint(1, max(1, (hi - lo) // 2))
    a = rng.randrange(lo, hi - 2 * size + 1)
    b = rng.randrange(a + size, hi - size + 1)
    ra, rb = bytes(data[a:a + size]), bytes(data[b:b + size])
    data[a:a + size], data[b:b + size] = rb, ra
    return f"{size} bytes at {a} and {b} swapped"


def m_duplicate(rng, t, data, blcksz):
    n = len(data) // blcksz
    if n == 0:
        data += data
        return "file doubled"
    src = rng.randrange(n)
    page = bytes(data[src * blcksz:(src + 1) * blcksz])
    how = rng.random()
    if n >= 2 and how < 0.4:
        dst = rng.choice([b for b in range(n) if b != src])
        data[dst * blcksz:(dst + 1) * blcksz] = page
        return f"block {src} copied over block {dst}"
    if how < 0.7:
        data += page
        return f"block {src} appended"
    at = rng.randrange(n + 1)
    data[at * blcksz:at * blcksz] = page
    return f"block {src} inserted before block {at}"


HEADER_FIELDS = ("pd_lower", "pd_upper", "pd_special", "pd_pagesize_version")


def m_header_limit(rng, t, data, blcksz):
    p = Pages(data, blcksz)
    blk = p.pick(rng)
    base = blk * blcksz
    name = rng.choice(HEADER_FIELDS * 3 + ("pd_flags", "pd_prune_xid", "pd_lsn.xlogid", "pd_checksum"))
    if name == "pd_pagesize_version" and rng.random() < 0.6:     # another page size, another layout version
        version = _get(data, base + p.hdr[name][0], "u2", 2) & 0xFF
        current = _get(data, base + p.hdr[name][0], "u2", 2)
        value = rng.choice([v for v in (size | ver for size in (4096, 16384, 32768, blcksz)
                                        for ver in (version, version - 1, version + 1, 0)) if v != current])
        return f"block {blk} " + set_field_limit(rng, data, base, "pg_page::page_header", [name], value=value & 0xFFFF)
    return f"block {blk} " + set_field_limit(rng, data, base, "pg_page::page_header", [name], True, blcksz)


def m_lp_limit(rng, t, data, blcksz):
    p = Pages(data, blcksz)
    blk = p.pick(rng)
    lps = p.line_pointers(blk)
    if not lps:
        return m_header_limit(rng, t, data, blcksz)
    at = rng.choice(lps)[0]
    return f"block {blk} " + set_field_limit(rng, data, at, "pg_page::item_id", None, True, blcksz)


def m_tuple_limit(rng, t, data, blcksz):
    """A heap tuple header's field (t_hoff, the natts of t_infomask2, t_infomask, xids, t_ctid), or an index
    tuple's (t_info's size, posting-list counts in t_tid) at a limit."""
    p = Pages(data, blcksz)
    blk = p.pick(rng)
    if t.kind in HEAPLIKE:
        items = p.items(blk, size_of("heap_tuple"))
        if not items:
            return m_lp_limit(rng, t, data, blcksz)
        at = rng.choice(items)
        name = rng.choice(["t_hoff", "t_hoff", "natts", "natts", "t_infomask", "t_infomask2", "t_xmin", "t_xmax",
                           "t_field3", "t_ctid.bi_lo", "t_ctid.ip_posid"])
        if name == "natts":
            natts_mask = enum_value("heap_tuple::infomask2_masks", "HEAP_NATTS_MASK")
            off = fields("heap_tuple")["t_infomask2"][0]
            im2 = struct.unpack_from("<H", data, at + off)[0]
            natts = rng.choice([0, 1, natts_mask, (im2 & natts_mask) + 1, (im2 & natts_mask) - 1, 1600]) & natts_mask
            struct.pack_into("<H", data, at + off, (im2 & ~natts_mask) | natts)
            return f"block {blk} tuple@{at} natts {im2 & natts_mask} -> {natts}"
        return f"block {blk} tuple@{at} " + set_field_limit(rng, data, at, "heap_tuple", [name], name == "t_hoff", blcksz)
    items = p.items(blk, size_of("nbtree::bt_index_tuple"))
    if not items:
        return m_lp_limit(rng, t, data, blcksz)
    at = rng.choice(items)
    tf = fields("nbtree::bt_index_tuple")
    if rng.random() < 0.5:     # a posting list: BT_IS_POSTING with a count at its limits (INDEX_ALT_TID_MASK set)
        posting = enum_value("nbtree::bt_offset_bits", "BT_IS_POSTING")
        count_mask = enum_value("nbtree::bt_offset_bits", "BT_OFFSET_MASK")
        alt = enum_value("nbtree::t_info_bits", "INDEX_ALT_TID_MASK")
        count = rng.choice([0, 1, 2, count_mask, count_mask - 1, 400])
        struct.pack_into("<H", data, at + tf["t_tid.ip_posid"][0], posting | count)
        info = struct.unpack_from("<H", data, at + tf["t_info"][0])[0]
        struct.pack_into("<H", data, at + tf["t_info"][0], info | alt)
        if rng.random() < 0.5:   # where the posting list starts (t_tid's block number holds it)
            set_field_limit(rng, data, at, "nbtree::bt_index_tuple", ["t_tid.bi_lo"], True, blcksz)
        return f"block {blk} index tuple@{at} posting count {count}"
    if rng.random() < 0.5:
        size_mask = enum_value("nbtree::t_info_bits", "INDEX_SIZE_MASK")
        info = struct.unpack_from("<H", data, at + tf["t_info"][0])[0]
        size = rng.choice([0, 1, 8, size_mask, (info & size_mask) + 8, (info & size_mask) - 8, blcksz]) & size_mask
        struct.pack_into("<H", data, at + tf["t_info"][0], (info & ~size_mask) | size)
        return f"block {blk} index tuple@{at} size {info & size_mask} -> {size}"
    return f"block {blk} index tuple@{at} " + set_field_limit(rng, data, at, "nbtree::bt_index_tuple", None, True, blcksz)


SPECIAL = {"btree": "nbtree::bt_page_opaque_data", "hash": "hash_page::hash_page_opaque_data",
           "gist": "gist_page::gist_page_opaque_data", "gin": "gin_page::gin_page_opaque_data",
           "spgist": "spgist_page::spgist_page_opaque_data", "brin": "brin_page::brin_special_space"}
META = {"btree": "nbtree::bt_meta_page_data", "hash": "hash_page::hash_meta_page_data",
        "gin": "gin_page::gin_meta_page_data", "spgist": "spgist_page::spgist_meta_page_data",
        "brin": "brin_page::brin_meta_page_data"}


def m_special_limit(rng, t, data, blcksz):
    """An index page's special space (btpo_level, btpo_flags, sibling links, cycle id, page ids) at a limit."""
    struct_name = SPECIAL.get(t.am or "")
    if struct_name is None:
        return m_header_limit(rng, t, data, blcksz)
    p = Pages(data, blcksz)
    blk = p.pick(rng)
    special = p.u2(blk, "pd_special")
    if special + size_of(struct_name) > blcksz:
        special = blcksz - size_of(struct_name)
    names = None
    if t.am == "btree" and rng.random() < 0.5:
        names = ["btpo_level", "btpo_flags"]
    return f"block {blk} " + set_field_limit(rng, data, blk * blcksz + special, struct_name, names, False, blcksz)


def m_meta_limit(rng, t, data, blcksz):
    """A metapage field (B-tree, hash, GIN, SP-GiST, BRIN), a pg_control field (its CRC later recomputed in
    some cases), a pg_filenode.map word (magic, num_mappings, a mapping) or the FSM's fp_next_slot."""
    if t.kind == "pg_control":
        from pgpage.decode.control import decode_control
        try:
            d = decode_control(bytes(data))
            version = struct.unpack_from("<I", data, 8)[0]
            body = f"pg_control::control_v{version}"
            base = d["crc_offset"] - fields(body)["crc"][0]
            return set_field_limit(rng, data, base, body, [n for n in fields(body) if n != "crc"], False, blcksz)
        except Exception:
            pass
    if t.kind in ("pg_control", "filenode_map", "pg_xact"):
        at = rng.randrange(0, max(1, min(len(data), 512) // 4)) * 4
        word = struct.unpack_from("<I", data, at)[0] if at + 4 <= len(data) else 0
        value = rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, word + 1, word - 1, 62, 63, 64, 65]) & 0xFFFFFFFF
        if at + 4 <= len(data):
            struct.pack_into("<I", data, at, value)
        return f"word@{at}: {word} -> {value}"
    if t.kind == "fsm":
        return "block 0 " + set_field_limit(rng, data, 0, "fsm_page", ["fp_next_slot"], True, blcksz)
    struct_name = META.get(t.am or "")
    if struct_name is None or t.kind not in INDEXES:
        return m_header_limit(rng, t, data, blcksz)
    base = Pages(data, blcksz).header_size      # PageGetContents: the metapage struct follows the page header
    names = None
    if t.am == "btree" and rng.random() < 0.6:
        names = ["btm_root", "btm_level", "btm_fastroot", "btm_fastlevel", "btm_version", "btm_magic"]
    return "block 0 " + set_field_limit(rng, data, base, struct_name, names, False, blcksz)


KINDS = {
    # kind: (mutator, the target kinds it applies to)
    "bitflip": (m_bitflip, None),
    "run_random": (_run(None), None),
    "run_00": (_run(0x00), None),
    "run_ff": (_run(0xFF), None),
    "truncate_mid_page": (m_truncate_mid_page, None),
    "truncate_mid_header": (m_truncate_mid_header, PAGED),
    "truncate_empty": (m_truncate_empty, None),
    "zero_region": (m_zero_region, None),
    "swap": (m_swap, None),
    "duplicate_page": (m_duplicate, PAGED | {"pg_xact"}),
    "header_limit": (m_header_limit, PAGED),
    "lp_limit": (m_lp_limit, PAGED - {"vm", "fsm"}),
    "tuple_limit": (m_tuple_limit, HEAPLIKE | INDEXES),
    "special_limit": (m_special_limit, INDEXES),
    "meta_limit": (m_meta_limit, INDEXES | {"pg_control", "filenode_map", "fsm"}),
}
# the kinds whose damage a fresh checksum lets through to the page logic, in half of their cases
CHECKSUM_FIXABLE = {"bitflip", "run_random", "run_00", "run_ff", "swap", "header_limit", "lp_limit", "tuple_limit",
                    "special_limit", "meta_limit", "duplicate_page"}


# ------------------------------------------------------------------------------------------ the commands
@dataclass(frozen=True)
class Where:
    """The paths of one case: the mutated copy and the untouched fixture it came from."""
    data: str        # the mutated data directory
    file: str        # the mutated file in it
    orig_data: str   # the fixture's data directory (read only)
    orig_file: str
    html: str        # where `report` writes
    kind: str        # the mutation kind


def _rel_or_file(rng, t: Target, w: Where, rel: str | None) -> list[str]:
    if t.kind in ("pg_control", "filenode_map", "pg_xact") or rel is None or rng.random() < 0.5:
        return [w.data, "--db", DB, "--rel", rel] if rel else [w.data]
    return [w.file]


def c_page(*extra):
    def argv(rng, t, w):
        return ["page", w.file, "--all", *extra]
    return argv


def c_heap(rng, t, w):
    src = [w.file] if t.kind in HEAPLIKE - {"sequence"} and rng.random() < 0.4 else [w.data, "--db", DB, "--rel", t.table]
    return ["heap", *src, *rng.choice([[], ["--json"], ["--map", rng.choice(["dead", "fill", "hints", "vm"])]])]


def c_index(rng, t, w):
    src = [w.file] if t.kind in ("btree", "toast_index") and rng.random() < 0.4 else [w.data, "--db", DB, "--rel", t.index]
    # a block the index has whatever was damaged (one cut off is a usage error)
    cut = t.rel == t.index and "truncate" in w.kind
    block = [] if cut else ["--block", "1" if t.index_blocks > 1 else "0"]
    return ["index", *src, *rng.choice([[], ["--json"], ["--map"], block])]


def c_verify(rng, t, w):
    how = rng.random()
    src = [w.data] if how < 0.2 else _rel_or_file(rng, t, w, t.rel or t.table)
    return ["verify", *src, *rng.choice([[], ["--json"], ["-v"], ["--heapallindexed"]])]


def c_rows(*extra):
    def argv(rng, t, w):
        src = [w.file] if t.kind == "heap" and rng.random() < 0.3 else [w.data, "--db", DB, "--rel", t.table]
        return ["rows", *src, *extra]
    return argv


def c_diff(rng, t, w):
    if t.kind in PAGED - {"vm", "fsm"} and rng.random() < 0.5:    # diff compares main forks
        pair = [w.orig_file, w.file]
    else:
        pair = [w.orig_data, w.data] + (["--db", DB, "--rel", t.rel] if t.rel and rng.random() < 0.5 else [])
    return ["diff", *pair, *rng.choice([[], ["--json"], ["--details"], ["--details", "--json"], ["--all"]])]


def c_report(rng, t, w):
    return ["report", w.data, "--db", DB, "--rel", t.table if rng.random() < 0.7 else (t.rel or t.table).split(".")[-1],
            "-o", w.html, "--top", "3", *rng.choice([[], ["--verify"]])]


def report_installed() -> bool:
    try:
        import jinja2  # noqa: F401
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


COMMANDS = {
    "page": c_page(), "page --json": c_page("--json"), "page --hex": c_page("--hex"),
    "heap": c_heap, "index": c_index, "verify": c_verify,
    "rows": c_rows(), "rows --csv": c_rows("--csv"), "rows --json": c_rows("--json"), "rows --all": c_rows("--all"),
    "rows --all --json": c_rows("--all", "--json"),
    "diff": c_diff, "report": c_report,
}


def command_names() -> list[str]:
    return [c for c in COMMANDS if c != "report" or report_installed()]


@dataclass
class Case:
    seed: int
    index: int
    command: str
    kind: str
    major: int
    target: Target
    checksum_fixed: bool = False
    detail: str = ""
    argv: tuple = ()

    def reproducer(self) -> str:
        return (f"python tests/mutation.py {self.seed} {self.index}   # pg{self.major} {self.target.path} "
                f"({self.target.rel or self.target.kind}), {self.kind}: {self.detail}"
                f"{' (checksum recomputed)' if self.checksum_fixed else ''}; pgpage {self.command}")


CLUSTER_FILES = {"catalog", "pg_control", "filenode_map", "pg_xact"}
# the files each command reads (besides the cluster's): a case damages one of them when its kind of damage applies
READS = {"heap": {"heap", "toast", "vm", "fsm"}, "rows": {"heap", "toast", "toast_index"},
         "index": {"btree", "toast_index", "heap", "toast"}}


def plan(seed: int, index: int, commands: list[str]) -> tuple[Case, random.Random]:
    """Case ``index`` of campaign ``seed``: its command, mutation kind, major and file (not yet applied)."""
    kinds = list(KINDS)
    command = commands[index % len(commands)]
    kind = kinds[(index // len(commands)) % len(kinds)]
    rng = random.Random(f"{seed}:{index}")
    applies = KINDS[kind][1]
    major = rng.choice(MAJORS)
    fit = [t for t in targets(major) if applies is None or t.kind in applies]
    reads = READS.get(command.split()[0])
    read = [t for t in fit if reads is None or t.kind in reads | CLUSTER_FILES]
    target = rng.choice(read or fit)
    return Case(seed, index, command, kind, major, target), rng


def build(case: Case, rng: random.Random, original: bytes) -> bytes:
    """The mutated bytes of the case's file (``case.detail`` says what changed)."""
    blcksz = catalog(case.major)["block_size"]
    data = bytearray(original)
    case.detail = KINDS[case.kind][0](rng, case.target, data, blcksz)
    if case.kind in CHECKSUM_FIXABLE and rng.random() < 0.5:
        if case.target.kind in PAGED:
            case.checksum_fixed = recompute_checksums(data, original, blcksz) > 0
        elif case.target.kind in ("pg_control", "filenode_map"):
            case.checksum_fixed = recompute_crc(data, case.target.kind)
    return bytes(data)


# ---------------------------------------------------------------------------------------- one case, here
def invoke(argv: list[str]) -> dict:
    """``pgpage ARGV`` in this process through the console entry point, stdout and stderr captured."""
    from typer.testing import CliRunner   # (typer 0.28 carries click inside it: no click package to import)

    from pgpage.cli.main import run
    escaped = None
    status = None
    old_argv = sys.argv
    with CliRunner().isolation() as (out, err, _):
        sys.argv = ["pgpage", *argv]
        try:
            run()
            status = 0
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:            # run() lets nothing out but SystemExit (PGPAGE_DEBUG=1 shows what did)
            escaped = traceback.format_exc()
        finally:
            sys.argv = old_argv
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue().decode("utf-8", "replace")
    return {"status": status, "stdout": stdout, "stderr": stderr, "escaped": escaped}


def judge(argv: list[str], r: dict) -> str | None:
    """What is wrong with one command run (None: nothing)."""
    if r["escaped"]:
        return "traceback"
    if "internal error" in r["stderr"] or "Traceback (most recent call last)" in r["stderr"]:
        return "traceback"
    if r["status"] not in ALLOWED_STATUS:
        return f"exit {r['status']}"
    if "--json" in argv:
        for line in r["stdout"].splitlines():
            try:
                json.loads(line)
            except ValueError:
                return "bad json"
        if r["status"] in (0, 1) and not r["stdout"].strip() and argv[0] != "rows":
            return "bad json"      # a clean or findings answer with no document at all (rows: no row, no line)
    return None


class Workspace:
    """Private copies of the fixture data directories (made on first use), where cases are built and undone."""

    def __init__(self, root: str | None = None):
        self.root = Path(root or tempfile.mkdtemp(prefix="pgpage-mutation-"))
        self.copies: dict[int, Path] = {}
        self.originals: dict[tuple[int, str], bytes] = {}

    def data(self, major: int) -> Path:
        if major not in self.copies:
            d = self.root / f"pg{major}"
            shutil.copytree(FIXTURES / f"pg{major}" / "data", d)
            for f in d.rglob("*"):       # the fixture's files may be read-only; the copy's are ours to damage
                f.chmod(0o755 if f.is_dir() else 0o644)
            self.copies[major] = d
        return self.copies[major]

    def run_case(self, seed: int, index: int, commands: list[str]) -> dict:
        case, rng = plan(seed, index, commands)
        data = self.data(case.major)
        f = data / case.target.path
        key = (case.major, case.target.path)
        if key not in self.originals:
            self.originals[key] = (FIXTURES / f"pg{case.major}" / "data" / case.target.path).read_bytes()
        original = self.originals[key]
        mutated = build(case, rng, original)
        w = Where(str(data), str(f), str(FIXTURES / f"pg{case.major}" / "data"),
                  str(FIXTURES / f"pg{case.major}" / "data" / case.target.path), str(self.root / "report.html"), case.kind)
        argv = COMMANDS[case.command](rng, case.target, w)
        case.argv = tuple(argv)
        f.write_bytes(mutated)
        started = time.perf_counter()
        try:
            r = invoke(argv)
        finally:
            f.write_bytes(original)
        seconds = time.perf_counter() - started
        failure = judge(argv, r)
        return {"index": index, "command": case.command, "kind": case.kind, "major": case.major,
                "target": case.target.kind, "checksum_fixed": case.checksum_fixed, "status": r["status"],
                "failure": failure, "seconds": seconds, "reproducer": case.reproducer(),
                "argv": " ".join(argv),
                "detail": (r["escaped"] or r["stderr"])[-1500:] if failure else r["stderr"][-300:],
                "maxrss_mb": peak_rss_mb()}

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def peak_rss_mb() -> float:
    """This process's peak RSS since its exec (VmHWM). Not getrusage's ru_maxrss: Linux keeps that across exec,
    so a worker spawned (vfork + exec) by a pytest worker of 1 GB would start at 1 GB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ------------------------------------------------------------------------------------ the worker process
def _worker(conn, commands: list[str]) -> None:
    os.environ["PGPAGE_DEBUG"] = "1"     # an escaped exception comes out whole, with its traceback
    os.environ["COLUMNS"] = "100"
    ws = Workspace()
    try:
        while True:
            msg = conn.recv()
            if msg is None:
                break
            seed, index = msg
            conn.send(ws.run_case(seed, index, commands))
    finally:
        ws.close()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a live process has used (/proc/PID/stat); 0 when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Runner:
    """Cases through a worker process, each under a time limit; a hung or dead worker is replaced."""

    def __init__(self, case_seconds: float = 60.0, rss_limit_mb: float = 1024.0, commands: list[str] | None = None):
        self.case_seconds, self.rss_limit_mb = case_seconds, rss_limit_mb
        self.commands = commands or command_names()
        self.ctx = multiprocessing.get_context("spawn")
        self.proc = None
        self.fresh = False

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child, self.commands), daemon=True)
        self.proc.start()
        child.close()
        self.fresh = True      # its first case also imports pgpage and builds the compiled kernel

    def _stop(self, kill: bool) -> int | None:
        """Ends the worker; its exit status (negative: the signal that ended it)."""
        if self.proc is None:
            return None
        if kill and self.proc.is_alive():
            self.proc.kill()
        elif not kill:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        status, self.proc = self.proc.exitcode, None
        return status

    def run(self, seed: int, index: int) -> dict:
        if self.proc is None:
            self._start()
        self.conn.send((seed, index))
        limit = self.case_seconds * (4 if self.fresh else 1)
        self.fresh = False
        result = None
        cpu_at_start = _cpu_seconds(self.proc.pid)
        # a hang is a case that used its limit in CPU time: on a loaded machine (a campaign at nice 19) a case
        # may wait longer than that for a CPU; it is waited for, up to ten times the limit in wall time
        for _ in range(10):
            if self.conn.poll(limit):
                try:
                    result = self.conn.recv()
                except (EOFError, OSError):    # the worker died (a fault in compiled code, a kill)
                    result = {"failure": f"crash (worker exit {self._stop(kill=False)})"}
                break
            if _cpu_seconds(self.proc.pid) - cpu_at_start >= limit:
                break
        if result is None:
            self._stop(kill=True)
            result = {"failure": "hang"}
        if "index" not in result:         # hang or crash: say what the case was
            case, rng = plan(seed, index, self.commands)
            build(case, rng, (FIXTURES / f"pg{case.major}" / "data" / case.target.path).read_bytes())
            result.update(index=index, command=case.command, kind=case.kind, major=case.major,
                          target=case.target.kind, checksum_fixed=case.checksum_fixed, status=None,
                          seconds=limit, reproducer=case.reproducer(), argv="", detail="", maxrss_mb=None)
        elif result["maxrss_mb"] > self.rss_limit_mb and not result["failure"]:
            result["failure"] = f"memory ({result['maxrss_mb']:.0f} MB)"
            self._stop(kill=False)        # a fresh worker, so the next case's peak is its own
        return result

    def close(self) -> None:
        self._stop(kill=False)


def outcome(result: dict) -> str:
    return result["failure"] or f"exit {result['status']}"


if __name__ == "__main__":        # one case, in this process, whole traceback
    os.environ["PGPAGE_DEBUG"] = "1"
    seed_arg, index_arg = int(sys.argv[1]), int(sys.argv[2])
    ws = Workspace()
    try:
        res = ws.run_case(seed_arg, index_arg, command_names())
    finally:
        ws.close()
    print(res["reproducer"])
    print(res["argv"])
    print("outcome:", outcome(res), f"{res['seconds']:.2f} s")
    print(res["detail"])
