meta:
  id: spgist_page
  title: PostgreSQL SP-GiST index page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  bit-endian: le
  imports:
    - pg_page
doc: |
  One page of an SP-GiST index: the standard page header and line pointers, and an 8-byte
  SpGistPageOpaqueData in the special space ending in spgist_page_id = SPGIST_PAGE_ID
  (0xFF82). Block 0 is the metapage (SPGIST_META) with SpGistMetaPageData at PageGetContents.

  Parse with `SpgistPage.from_bytes(page)`. Inner pages hold spgist_inner_tuples (a prefix, then
  nNodes node tuples: IndexTupleData whose t_tid is the child's (block, offset) and whose data is the
  node's label), leaf pages (SPGIST_LEAF) spgist_leaf_tuples (the heap TID and the leaf value);
  either may hold spgist_dead_tuples (REDIRECT, DEAD, PLACEHOLDER). Every tuple starts with its
  tupstate in the low 2 bits. A prefix or label of a pass-by-value type is stored as a Datum (8
  bytes), others as their bytes, MAXALIGNed (SpGistGetInnerTypeSize). Which types an opclass uses
  for prefixes and labels is its config function's choice, not in the catalog.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/spgist_private.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  opaque:
    pos: _io.size - 8
    type: spgist_page_opaque_data
    if: _io.size >= 32
    doc: SpGistPageOpaqueData (the last 8 bytes of the page).
  meta:
    pos: 24
    type: spgist_meta_page_data
    doc: SpGistMetaPageData of block 0 (fails validation of magic_number on any other page).
types:
  spgist_page_opaque_data:
    -orig-id: SpGistPageOpaqueData
    doc: Special space of every SP-GiST page, 8 bytes.
    seq:
      - id: flags
        type: u2
        doc: see enum spgist_flags
      - id: n_redirection
        -orig-id: nRedirection
        type: u2
        doc: number of redirection tuples on page
      - id: n_placeholder
        -orig-id: nPlaceholder
        type: u2
        doc: number of placeholder tuples on page
      - id: spgist_page_id
        type: u2
        doc: for identification of SP-GiST indexes, SPGIST_PAGE_ID (0xFF82)
  spgist_meta_page_data:
    -orig-id: SpGistMetaPageData
    doc: Contents of the SP-GiST metapage.
    seq:
      - id: magic_number
        -orig-id: magicNumber
        type: u4
        valid: '0xBA0BABEE'
        doc: for identity cross-check (SPGIST_MAGIC_NUMBER)
      - id: last_used_pages
        -orig-id: lastUsedPages.cachedPage
        type: spgist_last_used_page
        repeat: expr
        repeat-expr: 8
        doc: SpGistLUPCache, SPGIST_CACHED_PAGES (8) entries
  spgist_last_used_page:
    -orig-id: SpGistLastUsedPage
    seq:
      - id: blkno
        type: u4
        doc: block number, or InvalidBlockNumber
      - id: free_space
        -orig-id: freeSpace
        type: s4
        doc: page's free space (could be obsolete!)
  spgist_inner_tuple:
    -orig-id: SpGistInnerTupleData
    doc: Header of an inner tuple (4 bytes; the prefix starts at SGITHDRSZ = MAXALIGN of it, 8).
    seq:
      - id: tupstate
        type: b2
        enum: spgist_tuple_state
        doc: LIVE/REDIRECT/DEAD/PLACEHOLDER
      - id: all_the_same
        -orig-id: allTheSame
        type: b1
        doc: all nodes in tuple are equivalent
      - id: n_nodes
        -orig-id: nNodes
        type: b13
        doc: number of nodes within inner tuple
      - id: prefix_size
        -orig-id: prefixSize
        type: b16
        doc: size of prefix, or 0 if none (MAXALIGNed)
  spgist_leaf_tuple:
    -orig-id: SpGistLeafTupleData
    doc: |
      Header of a leaf tuple (12 bytes; the value starts at SGLTHDRSZ = 16). t_info is nextOffset
      (OffsetNumber) before 14; from 14 its low 14 bits are, and 0x8000 says a nulls bitmap
      follows the header.
    seq:
      - id: tupstate
        type: b2
        enum: spgist_tuple_state
      - id: size
        type: b30
        doc: large enough for any palloc'able value
      - id: t_info
        type: u2
        doc: nextOffset, which links to the next tuple in chain, plus two flag bits (14+)
      - id: heap_ptr
        -orig-id: heapPtr
        type: pg_page::item_pointer
        doc: TID of represented heap tuple
  spgist_dead_tuple:
    -orig-id: SpGistDeadTupleData
    doc: A REDIRECT, DEAD or PLACEHOLDER tuple (16 bytes).
    seq:
      - id: tupstate
        type: b2
        enum: spgist_tuple_state
      - id: size
        type: b30
      - id: next_offset
        -orig-id: nextOffset
        type: u2
        doc: not used in dead tuples
      - id: pointer
        type: pg_page::item_pointer
        doc: redirection inside index
      - id: xid
        type: u4
        doc: ID of xact that inserted this tuple
enums:
  spgist_tuple_state:
    0:
      id: spgist_live
      -orig-id: SPGIST_LIVE
      doc: normal live tuple (either inner or leaf)
    1:
      id: spgist_redirect
      -orig-id: SPGIST_REDIRECT
      doc: temporary redirection placeholder
    2:
      id: spgist_dead
      -orig-id: SPGIST_DEAD
      doc: dead, cannot be removed because of links
    3:
      id: spgist_placeholder
      -orig-id: SPGIST_PLACEHOLDER
      doc: placeholder, used to preserve offsets
  spgist_leaf_t_info:
    0x3fff:
      id: sglt_nextoffset_mask
      -orig-id: SGLT_NEXTOFFSET_MASK
      doc: SGLT_GET_NEXTOFFSET's mask (14+; the whole t_info before)
    0x8000:
      id: sglt_hasnullmask
      -orig-id: SGLT_HASNULLMASK
      doc: SGLT_GET_HASNULLMASK's bit (14+)
  spgist_flags:
    0x0001:
      id: spgist_meta
      -orig-id: SPGIST_META
    0x0002:
      id: spgist_deleted
      -orig-id: SPGIST_DELETED
      doc: never set, but keep for backwards compatibility
    0x0004:
      id: spgist_leaf
      -orig-id: SPGIST_LEAF
    0x0008:
      id: spgist_nulls
      -orig-id: SPGIST_NULLS
  spgist_constants:
    0xff82:
      id: spgist_page_id
      -orig-id: SPGIST_PAGE_ID
    0xba0babee:
      id: spgist_magic_number
      -orig-id: SPGIST_MAGIC_NUMBER
