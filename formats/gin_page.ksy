meta:
  id: gin_page
  title: PostgreSQL GIN index page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a GIN index: the standard page header and an 8-byte GinPageOpaqueData in
  the special space. GIN has no page id: its opaque data ends in the flags word, so a GIN
  page is recognised by an 8-byte special space (pd_special = page size - 8) whose last
  u16 is not an SP-GiST/BRIN id and has only GIN flag bits (< 0x100). Block 0 is the
  metapage (GIN_META) with GinMetaPageData at PageGetContents.

  Parse with `GinPage.from_bytes(page)`. The items by kind of page (flags):

  * GIN_META: GinMetaPageData at PageGetContents (24).
  * entry tree (no GIN_DATA): IndexTuples behind line pointers. A leaf tuple's t_tid says where
    its posting list is (GinGetPostingOffset: block number & ~GIN_ITUP_COMPRESSED, from the tuple's
    start) and how many TIDs it holds (GinGetNPosting: ip_posid), or, with ip_posid =
    GIN_TREE_POSTING, the root block of a posting tree; an internal tuple's t_tid block is its
    downlink. Keys: [int2 attnum if the index has several columns,] the key datum, and a
    GinNullCategory byte when the key is NULL (INDEX_NULL_MASK).
  * posting tree (GIN_DATA): the page's right bound (ItemPointerData, MAXALIGNed to 8) at 24, then
    on an internal page `maxoff` gin_posting_items, on a leaf page compressed gin_posting_lists up
    to pd_lower (GIN_COMPRESSED, 9.4+) or `maxoff` ItemPointerData (pre-9.4 format).
  * pending list (GIN_LIST): IndexTuples whose t_tid is the heap TID, keys as on entry pages.

  Posting list contents are varbyte-encoded deltas (ginpostinglist.c): decoded in Python.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/ginblock.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/gin/ginpostinglist.c
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  opaque:
    pos: _io.size - 8
    type: gin_page_opaque_data
    if: _io.size >= 32
    doc: GinPageOpaqueData (the last 8 bytes of the page).
  meta:
    pos: 24
    type: gin_meta_page_data
    doc: GinMetaPageData of block 0 (no magic number; check GIN_META in opaque.flags).
types:
  gin_page_opaque_data:
    -orig-id: GinPageOpaqueData
    doc: Special space of every GIN page, 8 bytes.
    seq:
      - id: rightlink
        type: u4
        doc: next page if any
      - id: maxoff
        type: u2
        doc: |
          number of PostingItems on GIN_DATA & ~GIN_LEAF page; on GIN_LIST page, number of
          heap tuples
      - id: flags
        type: u2
        doc: see enum gin_flags
  gin_meta_page_data:
    -orig-id: GinMetaPageData
    doc: Contents of the GIN metapage, 56 bytes.
    seq:
      - id: head
        type: u4
        doc: head of the pending list (GIN_LIST pages)
      - id: tail
        type: u4
        doc: tail of the pending list
      - id: tail_free_size
        -orig-id: tailFreeSize
        type: u4
        doc: free space in bytes in the pending list's tail page
      - id: n_pending_pages
        -orig-id: nPendingPages
        type: u4
        doc: number of pages in the pending list
      - id: n_pending_heap_tuples
        -orig-id: nPendingHeapTuples
        type: s8
        doc: number of heap tuples in the pending list
      - id: n_total_pages
        -orig-id: nTotalPages
        type: u4
        doc: statistics for planner use (accurate as of last VACUUM)
      - id: n_entry_pages
        -orig-id: nEntryPages
        type: u4
      - id: n_data_pages
        -orig-id: nDataPages
        type: u4
      - id: alignment_hole
        size: 4
        doc: padding before the int64 (not a PostgreSQL field)
      - id: n_entries
        -orig-id: nEntries
        type: s8
      - id: gin_version
        -orig-id: ginVersion
        type: s4
        doc: GIN version number (2 for indexes initialized in 9.4 or later, GIN_CURRENT_VERSION)
      - id: tail_padding
        size: 4
        doc: padding to sizeof(GinMetaPageData) (not a PostgreSQL field)
  gin_posting_item:
    -orig-id: PostingItem
    doc: Downlink of an internal posting tree page, 10 bytes (2-byte aligned).
    seq:
      - id: child_blkno_hi
        -orig-id: child_blkno.bi_hi
        type: u2
      - id: child_blkno_lo
        -orig-id: child_blkno.bi_lo
        type: u2
      - id: key
        type: pg_page::item_pointer
        doc: greatest TID of the child's subtree; (0,0) on the rightmost item of a level
    instances:
      child_blkno:
        value: (child_blkno_hi << 16) | child_blkno_lo
  gin_posting_list_header:
    -orig-id: GinPostingList
    doc: |
      The fixed head of a compressed posting list segment (offsetof(GinPostingList, bytes)); nbytes
      varbyte-encoded deltas follow, and the next segment starts SHORTALIGN(nbytes) after them.
    seq:
      - id: first
        type: pg_page::item_pointer
        doc: first item in this posting list (unpacked)
      - id: nbytes
        type: u2
        doc: number of bytes that follow
  gin_posting_list:
    doc: One compressed posting list segment with its encoded bytes.
    seq:
      - id: header
        type: gin_posting_list_header
      - id: bytes
        size: header.nbytes
        doc: varbyte encoded items
enums:
  gin_null_category:
    0:
      id: gin_cat_norm_key
      -orig-id: GIN_CAT_NORM_KEY
      doc: normal, non-null key value
    1:
      id: gin_cat_null_key
      -orig-id: GIN_CAT_NULL_KEY
      doc: null key value
    2:
      id: gin_cat_empty_item
      -orig-id: GIN_CAT_EMPTY_ITEM
      doc: placeholder for zero-key item
    3:
      id: gin_cat_null_item
      -orig-id: GIN_CAT_NULL_ITEM
      doc: placeholder for null item
  gin_tuple_constants:
    0xffff:
      id: gin_tree_posting
      -orig-id: GIN_TREE_POSTING
      doc: ip_posid of an entry tuple whose t_tid block is a posting tree's root
    0x80000000:
      id: gin_itup_compressed
      -orig-id: GIN_ITUP_COMPRESSED
      doc: set in the posting offset of a tuple whose posting list is compressed (9.4+)
  gin_posting_list_constants:
    11:
      id: max_heap_tuples_per_page_bits
      -orig-id: MaxHeapTuplesPerPageBits
      doc: low bits of a varbyte-encoded item pointer that hold its offset number
  gin_version:
    2:
      id: gin_current_version
      -orig-id: GIN_CURRENT_VERSION
      doc: indexes initialized in 9.4 or later; 1 may hold uncompressed posting lists
  gin_flags:
    0x0001:
      id: gin_data
      -orig-id: GIN_DATA
    0x0002:
      id: gin_leaf
      -orig-id: GIN_LEAF
    0x0004:
      id: gin_deleted
      -orig-id: GIN_DELETED
    0x0008:
      id: gin_meta
      -orig-id: GIN_META
    0x0010:
      id: gin_list
      -orig-id: GIN_LIST
    0x0020:
      id: gin_list_fullrow
      -orig-id: GIN_LIST_FULLROW
      doc: makes sense only on GIN_LIST page
    0x0040:
      id: gin_incomplete_split
      -orig-id: GIN_INCOMPLETE_SPLIT
      doc: page was split, but parent not updated
    0x0080:
      id: gin_compressed
      -orig-id: GIN_COMPRESSED
