"""`pgpage verify`'s GIN, GiST and SP-GiST rules on damaged copies of real pages (fixtures/indexes, PostgreSQL 15
and 18): each damage is found at its block and item, and the undamaged copy gives no finding. The rules that need
a taller tree than the fixtures hold (entry and posting tree internal pages) are in test_verify_gin_live.py."""
from __future__ import annotations

import struct
from functools import lru_cache

import numpy as np
import pytest

from indexes_oracle import catalog, data_dir, index_path
from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.indextuple import index_columns
from pgpage.passes.verify import KEYED_AM_VERIFIERS
from pgpage.storage.target import resolve

BS = 8192


@lru_cache(maxsize=None)
def columns(major: int, name: str):
    t = resolve(str(data_dir(major)), catalog(major)["datname"], name, "main")
    return t.relation.access_method, index_columns(t.relation, t.database)


def pages(major: int, name: str) -> np.ndarray:
    raw = index_path(major, name).read_bytes()
    return np.frombuffer(raw, dtype=np.uint8).reshape(-1, BS).copy()


def verify(major: int, name: str, image: np.ndarray) -> list[tuple]:
    am, cols = columns(major, name)
    v = KEYED_AM_VERIFIERS[am]()(VerifyContext(relation=name, major=major, checksums=False), image.shape[0], cols, None)
    return [(f.code, f.block, f.item) for f in v.feed(image, 0) + v.finish()]


def lp(image, blk: int, n: int) -> tuple[int, int, int]:
    """(lp_off, lp_flags, lp_len) of line pointer n."""
    w = int.from_bytes(image[blk, 24 + 4 * (n - 1):28 + 4 * (n - 1)].tobytes(), "little")
    return w & 0x7FFF, (w >> 15) & 3, w >> 17


def set_lp(image, blk: int, n: int, off: int, flags: int, length: int) -> None:
    image[blk, 24 + 4 * (n - 1):28 + 4 * (n - 1)] = np.frombuffer(
        struct.pack("<I", off | flags << 15 | length << 17), dtype=np.uint8)


def put(image, blk: int, at: int, fmt: str, *values) -> None:
    data = struct.pack("<" + fmt, *values)
    image[blk, at:at + len(data)] = np.frombuffer(data, dtype=np.uint8)


def get(image, blk: int, at: int, fmt: str):
    return struct.unpack_from("<" + fmt, image[blk].tobytes(), at)


def tuple_at(image, blk: int, n: int) -> int:
    return lp(image, blk, n)[0]


def swap_items(image, blk: int, a: int, b: int) -> None:
    la, lb = lp(image, blk, a), lp(image, blk, b)
    set_lp(image, blk, a, *lb)
    set_lp(image, blk, b, *la)


def first_inline_entry(image, blk: int) -> int:
    """The first entry of a GIN entry leaf whose posting list is inline and compressed, with 2+ TIDs."""
    n = 1
    while True:
        hi, lo, posid = get(image, blk, tuple_at(image, blk, n), "HHH")
        if posid != 0xFFFF and posid >= 2 and hi & 0x8000:
            return n
        n += 1


def gin_mutations():
    """(index, description, damage(image), the findings it must give as (code, block, item))."""
    def swap(image):
        swap_items(image, 1, 2, 3)

    def count(image):
        n = first_inline_entry(image, 1)
        off = tuple_at(image, 1, n)
        put(image, 1, off + 4, "H", get(image, 1, off + 4, "H")[0] + 1)
        count.item = n

    def cut(image):
        n = first_inline_entry(image, 1)
        off = tuple_at(image, 1, n)
        hi, lo = get(image, 1, off, "HH")
        at = off + ((hi << 16 | lo) & 0x7FFFFFFF)
        nbytes = get(image, 1, at + 6, "H")[0]
        image[1, at + 8 + nbytes - 1] |= 0x80      # the last varbyte says another byte follows
        cut.item = n

    def dead(image):
        off, _, length = lp(image, 1, 4)
        set_lp(image, 1, 4, off, 3, length)

    def longer(image):
        off, flags, length = lp(image, 1, 5)
        set_lp(image, 1, 5, off, flags, length + 8)

    def outside(image):
        _, flags, length = lp(image, 1, 6)
        set_lp(image, 1, 6, BS - 8 - length + 8, flags, length)

    def meta_flags(image):
        put(image, 0, BS - 2, "H", 0x0009)

    def pending_pages(image):
        put(image, 0, 24 + 12, "I", get(image, 0, 24 + 12, "I")[0] + 1)

    def pending_tuples(image):
        put(image, 0, 24 + 16, "q", get(image, 0, 24 + 16, "q")[0] + 1)

    def pending_tail(image):
        put(image, 0, 24 + 4, "I", 3)

    def pending_to_entry(image):
        put(image, 2, BS - 8, "I", 1)             # the first list page's rightlink to the entry leaf

    def rightlink_past_end(image):
        put(image, 1, BS - 8, "I", image.shape[0] + 5)

    def unsorted_leaf(image):
        put(image, 2, 32, "HHH", 0x7FFF, 0xFFFF, 1)   # the first segment's first TID far above the rest

    def invalid_offset(image):
        hi, lo, _ = get(image, 2, 32, "HHH")
        put(image, 2, 32, "HHH", hi, lo, 0)

    def posting_root_to_meta(image):
        n = 1
        while get(image, 1, tuple_at(image, 1, n) + 4, "H")[0] != 0xFFFF:
            n += 1
        put(image, 1, tuple_at(image, 1, n), "HH", 0, 0)
        posting_root_to_meta.item = n

    return [
        ("gin_tags", "two entries swapped", swap, lambda: [("gin.entry.order", 1, 3)]),
        ("gin_tags", "an entry's TID count raised", count, lambda: [("gin.posting.count_mismatch", 1, count.item)]),
        ("gin_tags", "a posting list cut mid-item", cut, lambda: [("gin.posting.undecodable", 1, cut.item)]),
        ("gin_tsv", "an entry's line pointer marked dead", dead, lambda: [("gin.item.bad_lp", 1, 4)]),
        ("gin_tsv", "a line pointer 8 bytes longer than its tuple", longer,
         lambda: [("gin.item.size_mismatch", 1, 5)]),
        ("gin_tsv", "a line pointer past the tuple space", outside, lambda: [("gin.item.out_of_bounds", 1, 6)]),
        ("gin_tsv", "the metapage's flags", meta_flags, lambda: [("gin.meta.bad_flags", 0, None)]),
        ("gin_pending", "nPendingPages raised", pending_pages, lambda: [("gin.pending.page_count", 0, None)]),
        ("gin_pending", "nPendingHeapTuples raised", pending_tuples, lambda: [("gin.pending.tuple_count", 0, None)]),
        ("gin_pending", "the pending tail moved", pending_tail, lambda: [("gin.pending.bad_tail", 0, None)]),
        ("gin_pending", "a pending page linked to the entry tree", pending_to_entry,
         lambda: [("gin.pending.bad_page", 1, None), ("gin.sibling.kind_mismatch", 2, None)]),
        ("gin_tsv", "a rightlink past the index's end", rightlink_past_end,
         lambda: [("gin.sibling.out_of_range", 1, None)]),
        ("gin_posting", "a posting tree leaf's TIDs out of order", unsorted_leaf,
         lambda: [("gin.posting.unsorted", 2, None)]),
        ("gin_posting", "a TID with offset 0", invalid_offset, lambda: [("gin.posting.invalid_tid", 2, None)]),
        ("gin_posting", "a posting tree root pointing at the metapage", posting_root_to_meta,
         lambda: [("gin.tree.bad_child", 0, None)]),
    ]


def gist_mutations():
    def box_outside(image):
        off = tuple_at(image, 2, 1)
        put(image, 2, off + 8, "d", 1e9)          # a leaf box's high x far outside its parent's box

    def downlink_past_end(image):
        put(image, 0, tuple_at(image, 0, 2), "HH", 0, 99)

    def downlink_offset(image):
        put(image, 0, tuple_at(image, 0, 1) + 4, "H", 7)

    def invalid_tuple(image):
        put(image, 0, tuple_at(image, 0, 1) + 4, "H", 0xFFFE)

    def page_id(image):
        put(image, 1, BS - 2, "H", 0xFF80)

    def unused_lp(image):
        set_lp(image, 1, 3, 0, 0, 0)

    def downlink_to_root(image):
        put(image, 0, tuple_at(image, 0, 2), "HH", 0, 0)

    def leaf_offset_zero(image):
        put(image, 1, tuple_at(image, 1, 2) + 4, "H", 0)

    def deleted_leaf(image):
        put(image, 2, BS - 4, "H", 0x0003)

    def unknown_flag(image):
        put(image, 1, BS - 4, "H", 0x0101)

    return [
        ("gist_box", "a leaf box outside its downlink's box", box_outside, lambda: [("gist.key.not_contained", 0, 2)]),
        ("gist_box", "a downlink past the end", downlink_past_end, lambda: [("gist.downlink.out_of_range", 0, 2)]),
        ("gist_point", "an internal tuple's offset not 0xFFFF", downlink_offset,
         lambda: [("gist.item.bad_downlink_offset", 0, 1)]),
        ("gist_point", "a pre-9.1 invalid tuple", invalid_tuple, lambda: [("gist.item.invalid_tuple", 0, 1)]),
        ("gist_tsv", "the page id of a hash page", page_id, lambda: [("gist.page.bad_page_id", 1, None),
                                                                     ("gist.downlink.bad_child", 0, 1)]),
        ("gist_tsv", "a line pointer set unused", unused_lp, lambda: [("gist.item.bad_lp", 1, 3)]),
        ("gist_range", "a downlink back to the root", downlink_to_root, lambda: [("gist.tree.revisited", 0, 2)]),
        ("gist_range", "a leaf tuple's heap TID offset 0", leaf_offset_zero, lambda: [("gist.item.bad_heap_tid", 1, 2)]),
        ("gist_range", "a leaf flagged deleted", deleted_leaf, lambda: [("gist.downlink.bad_child", 0, 2)]),
        ("gist_range", "an unknown flag bit", unknown_flag, lambda: [("gist.page.bad_flags", 1, None)]),
    ]


def spgist_mutations():
    def leaf_block(image):
        """The first leaf page of the main tree (SPGIST_LEAF without SPGIST_NULLS)."""
        return next(b for b in range(1, image.shape[0]) if get(image, b, BS - 8, "H")[0] == 4)

    def inner_block(image):
        return next(b for b in range(1, image.shape[0]) if not get(image, b, BS - 8, "H")[0] & 5)

    def live_leaf(image, b):
        """The second live tuple of leaf page b (its state: the low 2 bits of the first byte)."""
        nitems = (get(image, b, 12, "H")[0] - 24) // 4
        live = [n for n in range(1, nitems + 1) if image[b, tuple_at(image, b, n)] & 3 == 0]
        return live[1]

    def placeholder(image):
        b = leaf_block(image)
        image[b, tuple_at(image, b, live_leaf(image, b))] |= 3   # a live leaf tuple's state set to PLACEHOLDER
        placeholder.blk = b

    def redirects(image):
        b = leaf_block(image)
        put(image, b, BS - 6, "H", get(image, b, BS - 6, "H")[0] + 2)
        redirects.blk = b

    def next_offset(image):
        b = leaf_block(image)
        next_offset.blk, next_offset.item = b, live_leaf(image, b)
        put(image, b, tuple_at(image, b, next_offset.item) + 4, "H", 999)

    def node_downlink(image):
        b = inner_block(image)
        prefix = get(image, b, tuple_at(image, b, 1), "I")[0] >> 16
        put(image, b, tuple_at(image, b, 1) + 8 + prefix, "HHH", 0, 0, 1)   # the first node to the metapage
        node_downlink.blk = b

    def node_count(image):
        b = inner_block(image)
        off = tuple_at(image, b, 1)
        word = get(image, b, off, "I")[0]
        put(image, b, off, "I", word - (1 << 3))   # nNodes (bits 3..15) one less: the last node is left over
        node_count.blk = b

    def magic(image):
        put(image, 0, 24, "I", 0xBA0BABEF)

    return [
        ("spgist_point", "a live leaf tuple turned placeholder", placeholder,
         lambda: [("spgist.page.placeholder_count", placeholder.blk, None)]),
        ("spgist_point", "nRedirection raised", redirects, lambda: [("spgist.page.redirect_count", redirects.blk, None)]),
        ("spgist_text", "a leaf chain link past the page's items", next_offset,
         lambda: [("spgist.leaf.bad_next", next_offset.blk, next_offset.item)]),
        ("spgist_text", "a node's downlink to the metapage", node_downlink,
         lambda: [("spgist.downlink.bad_target", node_downlink.blk, 1)]),
        ("spgist_text", "an inner tuple's node count one short", node_count,
         lambda: [("spgist.inner.bad_size", node_count.blk, 1)]),
        ("spgist_point", "the metapage's magic", magic, lambda: [("spgist.meta.bad_magic", 0, None)]),
    ]


MUTATIONS = gin_mutations() + gist_mutations() + spgist_mutations()


@pytest.mark.parametrize("major", (15, 18))
@pytest.mark.parametrize("name,what,damage,expected", MUTATIONS, ids=[m[1] for m in MUTATIONS])
def test_damage_is_found_at_its_block_and_item(major, name, what, damage, expected):
    image = pages(major, name)
    assert verify(major, name, image) == [], "the undamaged copy is clean"
    damage(image)
    found = verify(major, name, image)
    assert set(expected()) <= set(found), found
