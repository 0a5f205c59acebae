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

  Parse with `GinPage.from_bytes(page)`. Posting tree and entry tree item layouts are not
  described here.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/ginblock.h
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
enums:
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
