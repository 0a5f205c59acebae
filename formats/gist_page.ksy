meta:
  id: gist_page
  title: PostgreSQL GiST index page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a GiST index: the standard page header and line pointers, and a 16-byte
  GISTPageOpaqueData in the special space ending in gist_page_id = GIST_PAGE_ID (0xFF81).
  GiST has no metapage; block 0 is the root (GIST_ROOT_BLKNO). A page deleted by
  PostgreSQL 13+ (F_DELETED) holds GISTDeletedPageContents at PageGetContents.

  Parse with `GistPage.from_bytes(page)`; index tuples are generic IndexTupleData.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/gist.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  opaque:
    pos: _io.size - 16
    type: gist_page_opaque_data
    if: _io.size >= 40
    doc: GISTPageOpaqueData (the last 16 bytes of the page).
  deleted_page_contents:
    pos: 24
    type: gist_deleted_page_contents
    if: _io.size >= 40 and (opaque.flags & 0x0002) != 0
    doc: GISTDeletedPageContents of a deleted page (F_DELETED; PostgreSQL 13+ layout).
types:
  gist_page_opaque_data:
    -orig-id: GISTPageOpaqueData
    doc: Special space of every GiST page, 16 bytes.
    seq:
      - id: nsn
        type: pg_page::page_xlog_rec_ptr
        doc: PageGistNSN, this value must change on page split
      - id: rightlink
        type: u4
        doc: next page if any
      - id: flags
        type: u2
        doc: see enum gist_flags
      - id: gist_page_id
        type: u2
        doc: for identification of GiST indexes, GIST_PAGE_ID (0xFF81)
  gist_deleted_page_contents:
    -orig-id: GISTDeletedPageContents
    doc: Tuple area of a deleted GiST page (PostgreSQL 13+).
    seq:
      - id: delete_xid
        -orig-id: deleteXid
        type: u8
        doc: FullTransactionId, last xid which could see the page in a scan
enums:
  gist_flags:
    0x0001:
      id: f_leaf
      -orig-id: F_LEAF
      doc: leaf page
    0x0002:
      id: f_deleted
      -orig-id: F_DELETED
      doc: the page has been deleted
    0x0004:
      id: f_tuples_deleted
      -orig-id: F_TUPLES_DELETED
      doc: old-style VACUUM FULL flag (some tuples have been deleted)
    0x0008:
      id: f_follow_right
      -orig-id: F_FOLLOW_RIGHT
      doc: page to the right has no downlink
    0x0010:
      id: f_has_garbage
      -orig-id: F_HAS_GARBAGE
      doc: some tuples on the page are dead, but not deleted yet
  gist_constants:
    0xff81:
      id: gist_page_id
      -orig-id: GIST_PAGE_ID
