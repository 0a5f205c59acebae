meta:
  id: spgist_page
  title: PostgreSQL SP-GiST index page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of an SP-GiST index: the standard page header and line pointers, and an 8-byte
  SpGistPageOpaqueData in the special space ending in spgist_page_id = SPGIST_PAGE_ID
  (0xFF82). Block 0 is the metapage (SPGIST_META) with SpGistMetaPageData at PageGetContents.

  Parse with `SpgistPage.from_bytes(page)`.
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
enums:
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
