meta:
  id: hash_page
  title: PostgreSQL hash index page
  application: PostgreSQL 10-18 (hash index version 4)
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a hash index: the standard page header and line pointers, and a 16-byte
  HashPageOpaqueData in the special space whose last u16, hasho_page_id, is always
  HASHO_PAGE_ID (0xFF80) - that is how a hash page is recognised. Block 0 is the metapage
  (LH_META_PAGE) with HashMetaPageData at PageGetContents.

  Parse with `HashPage.from_bytes(page)`. The opaque data is read from the last 16 bytes.
  Since PostgreSQL 10 (hash version 4, WAL-logged hash indexes) hashm_spares has
  HASH_MAX_SPLITPOINTS = 98 entries; hashm_mapp has HASH_MAX_BITMAPS = Min(BLCKSZ / 8, 1024).
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/hash.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  opaque:
    pos: _io.size - 16
    type: hash_page_opaque_data
    if: _io.size >= 40
    doc: HashPageOpaqueData (the last 16 bytes of the page).
  meta:
    pos: 24
    type: hash_meta_page_data
    doc: HashMetaPageData of block 0 (fails validation of hashm_magic on any other page).
  bitmap_words:
    pos: 24
    type: u4
    repeat: expr
    repeat-expr: '(_io.size - 24 - 16) / 4'
    doc: |
      A bitmap page's contents (HashPageGetBitmap, at PageGetContents): bit N of the page is set when
      overflow page N (of the bits this page covers) is in use. Only the first hashm_bmsize bytes are
      the bitmap; the count here is clamped by the page size.
types:
  hash_index_tuple:
    doc: |
      One hash index tuple: the 8-byte IndexTupleData, then the 32-bit hash code of the key (the only
      column a hash index stores, at MAXALIGN(sizeof(IndexTupleData)) = 8; hash index tuples have no
      nulls), read by _hash_get_indextuple_hashkey.
    seq:
      - id: t_tid
        type: pg_page::item_pointer
        doc: the heap TID
      - id: t_info
        type: u2
        doc: size (& INDEX_SIZE_MASK) and flag bits
      - id: hash_key
        -orig-id: hashkey
        type: u4
        doc: the hash code (uint32) of the indexed value

  hash_page_opaque_data:
    -orig-id: HashPageOpaqueData
    doc: Special space of every hash index page, 16 bytes.
    seq:
      - id: hasho_prevblkno
        type: u4
        doc: |
          previous overflow page in the bucket chain; for a bucket page, the maxbucket
          value as of the last split (a cache of hashm_maxbucket)
      - id: hasho_nextblkno
        type: u4
        doc: next overflow page in the bucket chain, or InvalidBlockNumber
      - id: hasho_bucket
        type: u4
        doc: bucket number this page belongs to
      - id: hasho_flag
        type: u2
        doc: page type code (& LH_PAGE_TYPE) + flag bits, see enum hasho_flag
      - id: hasho_page_id
        type: u2
        doc: for identification of hash indexes, HASHO_PAGE_ID (0xFF80)
    instances:
      page_type:
        value: hasho_flag & 0x000F
        doc: hasho_flag & LH_PAGE_TYPE
  hash_meta_page_data:
    -orig-id: HashMetaPageData
    doc: Contents of the hash metapage (block 0) at offset 24 of the page.
    seq:
      - id: hashm_magic
        type: u4
        valid: 0x6440640
        doc: magic no. for hash tables (HASH_MAGIC)
      - id: hashm_version
        type: u4
        doc: version ID (HASH_VERSION 4 since PostgreSQL 10)
      - id: hashm_ntuples
        type: f8
        doc: number of tuples stored in the table
      - id: hashm_ffactor
        type: u2
        doc: target fill factor (tuples/bucket)
      - id: hashm_bsize
        type: u2
        doc: index page size (bytes)
      - id: hashm_bmsize
        type: u2
        doc: bitmap array size (bytes) - must be a power of 2
      - id: hashm_bmshift
        type: u2
        doc: log2(bitmap array size in BITS)
      - id: hashm_maxbucket
        type: u4
        doc: ID of maximum bucket in use
      - id: hashm_highmask
        type: u4
        doc: mask to modulo into entire table
      - id: hashm_lowmask
        type: u4
        doc: mask to modulo into lower half of table
      - id: hashm_ovflpoint
        type: u4
        doc: splitpoint from which ovflpage being allocated
      - id: hashm_firstfree
        type: u4
        doc: lowest-number free ovflpage (bit#)
      - id: hashm_nmaps
        type: u4
        doc: number of bitmap pages
      - id: hashm_procid
        type: u4
        doc: hash function id from pg_proc (RegProcedure)
      - id: hashm_spares
        type: u4
        repeat: expr
        repeat-expr: 98
        doc: spare pages before each splitpoint (HASH_MAX_SPLITPOINTS entries)
      - id: hashm_mapp
        type: u4
        repeat: expr
        repeat-expr: 1024
        doc: blknos of ovfl bitmaps (HASH_MAX_BITMAPS entries at BLCKSZ >= 8192)
enums:
  hasho_flag:
    0x0001:
      id: lh_overflow_page
      -orig-id: LH_OVERFLOW_PAGE
    0x0002:
      id: lh_bucket_page
      -orig-id: LH_BUCKET_PAGE
    0x0004:
      id: lh_bitmap_page
      -orig-id: LH_BITMAP_PAGE
    0x0008:
      id: lh_meta_page
      -orig-id: LH_META_PAGE
    0x0010:
      id: lh_bucket_being_populated
      -orig-id: LH_BUCKET_BEING_POPULATED
    0x0020:
      id: lh_bucket_being_split
      -orig-id: LH_BUCKET_BEING_SPLIT
    0x0040:
      id: lh_bucket_needs_split_cleanup
      -orig-id: LH_BUCKET_NEEDS_SPLIT_CLEANUP
    0x0080:
      id: lh_page_has_dead_tuples
      -orig-id: LH_PAGE_HAS_DEAD_TUPLES
  hash_page_type:
    0:
      id: lh_unused_page
      -orig-id: LH_UNUSED_PAGE
    0x000f:
      id: lh_page_type
      -orig-id: LH_PAGE_TYPE
      doc: mask of the page type bits (OVERFLOW | BUCKET | BITMAP | META)
  hash_constants:
    2:
      id: hash_splitpoint_phase_bits
      -orig-id: HASH_SPLITPOINT_PHASE_BITS
      doc: a splitpoint group past the first ones is allocated in 2^2 phases
    10:
      id: hash_splitpoint_groups_with_one_phase
      -orig-id: HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE
      doc: the first 10 splitpoint groups are allocated in one phase each
    0xff80:
      id: hasho_page_id
      -orig-id: HASHO_PAGE_ID
    0x6440640:
      id: hash_magic
      -orig-id: HASH_MAGIC
    4:
      id: hash_version
      -orig-id: HASH_VERSION
