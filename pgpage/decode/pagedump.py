"""The compiled page dumper (``_pagedump.c``): heap and B-tree pages as `pgpage page` records (JSON, or the text),
many at a time.

A page the C code is sure decode.page would report nothing on comes back as its JSON line, byte for byte what
``json.dumps`` of ``decode_page``'s record gives; any other page comes back as None and the caller decodes it
with ``decode_page`` (the rules for damaged pages, and their findings, are written once, in Python).
Offsets come from ``decode/ksy/layouts.py``, as for the scanner.
"""
from __future__ import annotations

import ctypes
import json
from functools import lru_cache
from typing import Iterator

import numpy as np

from pgpage.decode.checksum import checksum_pages
from pgpage.decode.heap import INFOMASK2_NAMES, INFOMASK_NAMES
from pgpage.decode.clib import lib
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.nbtree import BTPO_FLAG_NAMES
from pgpage.decode.page import PD_FLAG_NAMES
from pgpage.decode.pagebase import LP_FLAG_NAMES

# the C code's layout slots (_pagedump.c: L_*), each (type, field) in layouts.py, or a type's size
_LAYOUT = [("pg_page::page_header", "pd_lsn"), ("pg_page::page_header", "pd_checksum"),
           ("pg_page::page_header", "pd_flags"), ("pg_page::page_header", "pd_lower"),
           ("pg_page::page_header", "pd_upper"), ("pg_page::page_header", "pd_special"),
           ("pg_page::page_header", "pd_pagesize_version"), ("pg_page::page_header", "pd_prune_xid"),
           ("pg_page::page_header", None), ("heap_tuple", "t_xmin"), ("heap_tuple", "t_xmax"),
           ("heap_tuple", "t_field3"), ("heap_tuple", "t_ctid.bi_hi"), ("heap_tuple", "t_ctid.bi_lo"),
           ("heap_tuple", "t_ctid.ip_posid"), ("heap_tuple", "t_infomask2"), ("heap_tuple", "t_infomask"),
           ("heap_tuple", "t_hoff"), ("heap_tuple", None),
           ("nbtree::bt_page_opaque_data", "btpo_prev"), ("nbtree::bt_page_opaque_data", "btpo_next"),
           ("nbtree::bt_page_opaque_data", "btpo_level"), ("nbtree::bt_page_opaque_data", "btpo_flags"),
           ("nbtree::bt_page_opaque_data", "btpo_cycleid"), ("nbtree::bt_page_opaque_data", None),
           ("nbtree::bt_index_tuple", "t_tid.bi_hi"), ("nbtree::bt_index_tuple", "t_tid.bi_lo"),
           ("nbtree::bt_index_tuple", "t_tid.ip_posid"), ("nbtree::bt_index_tuple", "t_info")]
HEAP2_XACT_BITS = (13, 14, 15)  # _pagedump.c prints infomask2's names only for these (HEAP2_XACT_MASK)
KINDS = {"heap": 1, "btree": 2}  # _pagedump.c: KIND_HEAP, KIND_BTREE


@lru_cache(maxsize=None)
def _tables():
    layout = np.array([LAYOUTS[t]["size"] if f is None else LAYOUTS[t]["fields"][f][0] for t, f in _LAYOUT],
                      dtype=np.int64)
    names = [json.dumps(INFOMASK_NAMES.get(1 << b, f"0x{1 << b:04X}")) for b in range(16)]
    names += [json.dumps(INFOMASK2_NAMES[1 << b]) if b in HEAP2_XACT_BITS else '""' for b in range(16)]
    names += [json.dumps(LP_FLAG_NAMES[f]) for f in range(4)]
    names += [json.dumps(PD_FLAG_NAMES.get(1 << b, f"0x{1 << b:04X}")) for b in range(16)]
    names += [json.dumps(name) for name in bit_names()["btpo_flags"]]
    c_names = (ctypes.c_char_p * len(names))(*[n.encode() for n in names])
    L = lib()
    for fn in (L.pgp_dump_json, L.pgp_dump_text):
        fn.restype = ctypes.c_int64
        fn.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                       ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                       ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p]
    return layout, c_names


def bit_names() -> dict:
    """Each flag bit's name (16 of t_infomask; t_infomask2's in HEAP2_XACT_MASK, else ""; 16 of pd_flags and of
    btpo_flags), unknown bits as decode.pagebase.flag_names writes them."""
    def named(names: dict) -> list[str]:
        return [names.get(1 << b, f"0x{1 << b:04X}") for b in range(16)]
    return {"infomask": named(INFOMASK_NAMES),
            "infomask2": [INFOMASK2_NAMES[1 << b] if b in HEAP2_XACT_BITS else "" for b in range(16)],
            "pd_flags": named(PD_FLAG_NAMES), "btpo_flags": named(BTPO_FLAG_NAMES)}


def mismatch_rule(checksums: bool | None) -> int:
    """When decode.page reports a checksum mismatch: 1 always (checksums on), 2 when pd_checksum is not 0
    (unknown), 0 never (off)."""
    return 1 if checksums else 2 if checksums is None else 0


class PageDumper:
    """Heap and B-tree pages as `pgpage page` records, a chunk at a time: JSON lines, or (``text_words`` given:
    the renderer's words, see _pagedump.c's text) the text render/page.py prints without colour. ``ams``: the
    access methods the pages may be of (the catalog's, or both for a file alone); ``major`` the server's (None:
    unknown, read as the newest, as decode.nbtree does)."""

    def __init__(self, text_words: list[str] | None = None, ams: tuple[str, ...] = ("heap", "btree"),
                 major: int | None = None):
        self.kinds = sum(KINDS[am] for am in ams)
        self.major = major or 0
        self.seen = ctypes.c_int64(0)  # the kinds of page written so far (KINDS' bits)
        self.out = np.empty(8 << 20, dtype=np.uint8)
        self.ends = np.empty(0, dtype=np.int64)
        self.words = None
        if text_words is not None:
            self._keep = [w.encode() for w in text_words]
            self.words = (ctypes.c_char_p * len(self._keep))(*self._keep)

    @property
    def heap_written(self) -> bool:
        return bool(self.seen.value & KINDS["heap"])

    def pieces(self, pages: np.ndarray, first_blkno: int, checksums: bool | None) -> Iterator[bytes | int]:
        """The chunk's pages in order: bytes (the records of a run of pages, ready to write) or an int (the index
        in ``pages`` of a page the caller decodes itself)."""
        layout, names = _tables()
        fn = lib().pgp_dump_json if self.words is None else lib().pgp_dump_text
        n, bs = pages.shape
        pages = np.ascontiguousarray(pages)
        computed = np.ascontiguousarray(checksum_pages(pages, first_blkno))
        if len(self.ends) < n:
            self.ends = np.empty(n, dtype=np.int64)
        i = 0
        while i < n:
            done = fn(pages[i:].ctypes.data, n - i, bs, first_blkno + i, computed[i:].ctypes.data,
                      mismatch_rule(checksums), self.kinds, self.major, layout.ctypes.data,
                      names if self.words is None else self.words, self.out.ctypes.data, len(self.out),
                      self.ends.ctypes.data, ctypes.byref(self.seen))
            if done < 0:  # a page needs more room than the buffer has
                self.out = np.empty(-done, dtype=np.uint8)
                continue
            at = pos = 0  # out[at:pos]: the records not yet given out
            for k, end in enumerate(self.ends[:done].tolist()):
                if end >= 0:
                    pos = end
                    continue
                if pos > at:
                    yield bytes(self.out[at:pos])
                    at = pos
                yield i + k
            if pos > at:
                yield bytes(self.out[at:pos])
            i += done
