"""What a B-tree block is, for the analysis: nbtree.h's page flags, index tuple masks and sizes
(``access/nbtree.h``, ``access/itup.h``), and the kinds a block is sorted into (the metapage, leaf,
internal, half-dead, deleted, new, or not a readable B-tree page at all)."""
from __future__ import annotations

import numpy as np

from pgpage.decode.flags import LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED  # noqa: F401 (for the B-tree analysis)
# nbtree.h's and itup.h's flags, masks and sizes, from the .ksy (the same names as the compiled B-tree pass reads)
from pgpage.decode.ksy.constants import (BT_IS_POSTING, BT_OFFSET_MASK, BT_PIVOT_HEAP_TID_ATTR,  # noqa: F401
                                         BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_HAS_GARBAGE,
                                         BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, BTP_ROOT, BTP_SPLIT_END,
                                         BTREE_MAGIC, INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_SIZE_MASK,
                                         SIZEOF_BTPageOpaqueData as SIZE_OF_BT_OPAQUE, SIZEOF_IndexTupleData,
                                         SIZEOF_ItemPointerData as SIZE_OF_ITEM_POINTER)
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS
from pgpage.decode.vector import SIZE_OF_ITEM_ID, SIZE_OF_PAGE_HEADER

BTP_KNOWN_FLAGS = sum(ENUMS["nbtree::btpo_flags"])   # every flag nbtree.h defines (0x1FF)
P_NONE, P_HIKEY = 0, 1
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
    return (block_size - SIZE_OF_PAGE_HEADER) // (((SIZEOF_IndexTupleData + 1 + 7) & ~7) + SIZE_OF_ITEM_ID)

# what a block is, for this analysis
NEW, META, LEAF, INTERNAL, HALF_DEAD, DELETED, BAD = range(7)
KIND_NAMES = {NEW: "new", META: "meta", LEAF: "leaf", INTERNAL: "internal", HALF_DEAD: "half_dead",
              DELETED: "deleted", BAD: "not_btree"}
IN_TREE = (LEAF, INTERNAL, HALF_DEAD)
