"""What a B-tree block is, for the analysis: nbtree.h's page flags, index tuple masks and sizes
(``access/nbtree.h``, ``access/itup.h``), and the kinds a block is sorted into (the metapage, leaf,
internal, half-dead, deleted, new, or not a readable B-tree page at all)."""
from __future__ import annotations

import numpy as np

from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS

# nbtree.h
BTP_LEAF, BTP_ROOT, BTP_DELETED, BTP_META, BTP_HALF_DEAD = 0x1, 0x2, 0x4, 0x8, 0x10
BTP_SPLIT_END, BTP_HAS_GARBAGE, BTP_INCOMPLETE_SPLIT, BTP_HAS_FULLXID = 0x20, 0x40, 0x80, 0x100
BTP_KNOWN_FLAGS = sum(ENUMS["nbtree::btpo_flags"])   # every flag nbtree.h defines (0x1FF)
P_NONE, P_HIKEY = 0, 1
INDEX_SIZE_MASK, INDEX_ALT_TID_MASK, INDEX_NULL_MASK = 0x1FFF, 0x2000, 0x8000
BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR, BT_IS_POSTING = 0x0FFF, 0x1000, 0x2000
SIZE_OF_PAGE_HEADER = 24
SIZE_OF_ITEM_ID = 4
SIZE_OF_ITEM_POINTER = 6
SIZE_OF_BT_OPAQUE = LAYOUTS["nbtree::bt_page_opaque_data"]["size"]
LP_UNUSED, LP_NORMAL, LP_REDIRECT, LP_DEAD = 0, 1, 2, 3
BTREE_MAGIC = 0x053162
_OPAQUE_NAMES = ("btpo_prev", "btpo_next", "btpo_level", "btpo_flags", "btpo_cycleid")
_OPAQUE = np.dtype({  # BTPageOpaqueData as a numpy record, from the layout (little-endian u2/u4 fields)
    "names": _OPAQUE_NAMES, "itemsize": SIZE_OF_BT_OPAQUE,
    "formats": ["<" + LAYOUTS["nbtree::bt_page_opaque_data"]["fields"][f][1] for f in _OPAQUE_NAMES],
    "offsets": [LAYOUTS["nbtree::bt_page_opaque_data"]["fields"][f][0] for f in _OPAQUE_NAMES]})


def bt_opaque(pages: np.ndarray) -> np.ndarray:
    """Each page's special area as BTPageOpaqueData: records of btpo_prev, btpo_next, btpo_level, btpo_flags,
    btpo_cycleid."""
    return np.ascontiguousarray(pages[:, pages.shape[1] - SIZE_OF_BT_OPAQUE:]).view(_OPAQUE).reshape(-1)


def max_index_tuples_per_page(block_size: int) -> int:
    """MaxIndexTuplesPerPage: (BLCKSZ - header) / (MAXALIGN(sizeof(IndexTupleData) + 1) + sizeof(ItemIdData))."""
    return (block_size - SIZE_OF_PAGE_HEADER) // (16 + 4)

# what a block is, for this analysis
NEW, META, LEAF, INTERNAL, HALF_DEAD, DELETED, BAD = range(7)
KIND_NAMES = {NEW: "new", META: "meta", LEAF: "leaf", INTERNAL: "internal", HALF_DEAD: "half_dead",
              DELETED: "deleted", BAD: "not_btree"}
IN_TREE = (LEAF, INTERNAL, HALF_DEAD)
