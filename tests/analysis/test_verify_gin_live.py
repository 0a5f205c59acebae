"""GIN rules that need a taller index than the fixtures hold, on one a real server builds (PostgreSQL 15): an entry
tree with an internal root, and a posting tree with an internal root (key 1 is in every row). The index as the
server leaves it verifies clean; each damage of a copy of its pages is found at its block and item."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from livepg import running_server
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.gin import GinVerifier
from pgpage.decode import gin
from pgpage.decode.indextuple import index_columns
from pgpage.storage.target import resolve

BS = 8192


@pytest.fixture(scope="module")
def tall():
    """(pages of the index as an array, its columns, its blocks by kind)."""
    with running_server() as srv:
        with srv.connect() as c:
            c.execute("CREATE TABLE t (id int, tags int[])")
            c.execute("INSERT INTO t SELECT i, ARRAY[1, i % 500, 100000 + i] FROM generate_series(1, 40000) i")
            c.execute("CREATE INDEX t_tags ON t USING gin (tags) WITH (fastupdate = off)")
            c.execute("CHECKPOINT")
        srv.stop()
        t = resolve(str(srv.data), "postgres", "t_tags", "main")
        image = np.frombuffer(b"".join(t.fork.read_block(b) for b in range(t.fork.end_block)),
                              dtype=np.uint8).reshape(-1, BS).copy()
        columns = index_columns(t.relation, t.database)
    kinds: dict[str, list[int]] = {}
    for b in range(image.shape[0]):
        kinds.setdefault(gin.page_kind(gin.opaque_of(image[b].tobytes())[2]), []).append(b)
    return image, columns, kinds


def verify(image, columns) -> list[tuple]:
    v = GinVerifier(VerifyContext(relation="t_tags", major=15, checksums=False), image.shape[0], columns, None)
    return [(f.code, f.block, f.item) for f in v.feed(image, 0) + v.finish()]


def put(image, blk: int, at: int, fmt: str, *values) -> None:
    data = struct.pack("<" + fmt, *values)
    image[blk, at:at + len(data)] = np.frombuffer(data, dtype=np.uint8)


def get(image, blk: int, at: int, fmt: str):
    return struct.unpack_from("<" + fmt, image[blk].tobytes(), at)


def item_off(image, blk: int, n: int) -> int:
    return get(image, blk, 24 + 4 * (n - 1), "I")[0] & 0x7FFF


def test_the_index_is_tall_and_clean(tall):
    image, columns, kinds = tall
    assert {"entry_internal", "entry_leaf", "data_internal", "data_leaf"} <= set(kinds), kinds
    assert verify(image, columns) == []


def test_posting_tree_internal_page_rules(tall):
    image, columns, kinds = tall
    blk = kinds["data_internal"][0]
    maxoff = gin.opaque_of(image[blk].tobytes())[1]
    assert maxoff >= 3 and gin.opaque_of(image[blk].tobytes())[0] == 0xFFFFFFFF   # the root: rightmost

    swapped = image.copy()              # the keys of items 1 and 2 exchanged
    k1, k2 = (gin.DATA_START + i * 10 + 4 for i in (0, 1))
    a, b = swapped[blk, k1:k1 + 6].copy(), swapped[blk, k2:k2 + 6].copy()
    swapped[blk, k1:k1 + 6], swapped[blk, k2:k2 + 6] = b, a
    assert ("gin.data.order", blk, 2) in verify(swapped, columns)

    lower = image.copy()
    put(lower, blk, 12, "H", get(lower, blk, 12, "H")[0] - 10)
    assert ("gin.data.bad_lower", blk, None) in verify(lower, columns)

    last = image.copy()                 # the rightmost page's last key is (0,0)
    put(last, blk, gin.DATA_START + (maxoff - 1) * 10 + 4, "HHH", 0, 7, 1)
    assert ("gin.data.bad_rightmost_key", blk, maxoff) in verify(last, columns)


def test_posting_tree_leaf_within_its_right_bound(tall):
    image, columns, kinds = tall
    blk = next(b for b in kinds["data_leaf"] if gin.opaque_of(image[b].tobytes())[0] != 0xFFFFFFFF)
    damaged = image.copy()
    put(damaged, blk, 24, "HHH", 0, 0, 1)      # the right bound (0,1): below every TID of the page
    assert ("gin.data.tid_exceeds_bound", blk, None) in verify(damaged, columns)


def test_entry_tree_rules(tall):
    image, columns, kinds = tall
    root = 1
    assert kinds["entry_internal"] == [root]
    first_child = get(image, root, item_off(image, root, 1), "HH")
    first_child = first_child[0] << 16 | first_child[1]

    bigger = image.copy()               # the first leaf's last key raised above its downlink's key
    nitems = (get(bigger, first_child, 12, "H")[0] - 24) // 4
    off = item_off(bigger, first_child, nitems)
    put(bigger, first_child, off + 8, "i", 2**31 - 1)
    assert ("gin.entry.parent_key", first_child, None) in verify(bigger, columns)

    to_meta = image.copy()              # a downlink to the metapage
    put(to_meta, root, item_off(to_meta, root, 2), "HH", 0, 0)
    assert ("gin.tree.bad_child", 0, None) in verify(to_meta, columns)

    zeroed = image.copy()               # a leaf the root links to, zeroed
    child = get(image, root, item_off(image, root, 2), "HH")
    child = child[0] << 16 | child[1]
    zeroed[child] = 0
    assert ("gin.tree.zero_page", child, None) in verify(zeroed, columns)

    twice = image.copy()                # two downlinks to one leaf
    put(twice, root, item_off(twice, root, 3), "HH", *get(twice, root, item_off(twice, root, 2), "HH"))
    assert ("gin.tree.revisited", child, None) in verify(twice, columns)

    sideways = image.copy()             # an entry leaf's rightlink to a posting tree leaf
    put(sideways, first_child, BS - 8, "I", kinds["data_leaf"][0])
    assert ("gin.sibling.kind_mismatch", first_child, None) in verify(sideways, columns)
