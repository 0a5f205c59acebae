meta:
  id: fsm_page
  title: PostgreSQL free space map page (_fsm fork)
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a relation's free space map fork: the standard 24-byte page header, then
  FSMPageData {int fp_next_slot; uint8 fp_nodes[]}. fp_nodes is a binary max-tree stored
  as an array (children of node i are 2i+1 and 2i+2): NodesPerPage = page size - 24 - 4 =
  8164 bytes at 8 KiB, of which the first NonLeafNodesPerPage = page size / 2 - 1 = 4095
  are internal nodes and the remaining LeafNodesPerPage = SlotsPerFSMPage = 4069 are leaves
  (leaf for slot s = fp_nodes[4095 + s]). Each node is a free-space category:
  free bytes / FSM_CAT_STEP (32); 255 means at least MaxFSMRequestSize.

  Parse with `FsmPage.from_bytes(page)`; all sizes follow the length of the buffer.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/fsm_internals.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/storage/freespace/freespace.c
seq:
  - id: header
    type: pg_page::page_header
  - id: fp_next_slot
    type: s4
    doc: next slot to be returned (a hint, may be out of range; it is an int, not a uint)
instances:
  nodes_per_page:
    value: _io.size - 28
    doc: NodesPerPage (8164 at 8 KiB).
  non_leaf_nodes_per_page:
    value: _io.size / 2 - 1
    doc: NonLeafNodesPerPage (4095 at 8 KiB).
  leaf_nodes_per_page:
    value: (_io.size - 28) - (_io.size / 2 - 1)
    doc: LeafNodesPerPage = SlotsPerFSMPage (4069 at 8 KiB).
  fp_nodes:
    pos: 28
    size: _io.size - 28
    doc: All nodes of the tree (non-leaf nodes first, then leaves).
  non_leaf_nodes:
    pos: 28
    size: _io.size / 2 - 1
    doc: fp_nodes[0 .. NonLeafNodesPerPage - 1]; fp_nodes[0] is the root (the page's maximum).
  leaf_nodes:
    pos: 28 + (_io.size / 2 - 1)
    size: (_io.size - 28) - (_io.size / 2 - 1)
    doc: fp_nodes[NonLeafNodesPerPage ..], one category per slot (heap block or lower-level FSM page).
enums:
  fsm_constants:
    32:
      id: fsm_cat_step
      -orig-id: FSM_CAT_STEP
      doc: bytes of free space per category step at 8 KiB (BLCKSZ / FSM_CATEGORIES)
    255:
      id: fsm_max_category
      -orig-id: FSM_CATEGORIES - 1
      doc: highest category, at least MaxFSMRequestSize free
    3:
      id: fsm_tree_depth
      -orig-id: FSM_TREE_DEPTH
      doc: levels of FSM pages at 8 KiB (SlotsPerFSMPage >= 1626)
