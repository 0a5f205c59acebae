meta:
  id: brin_page
  title: PostgreSQL BRIN index page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a BRIN index: the standard page header and an 8-byte BrinSpecialSpace
  (uint16 vector[4]) whose last element is the page type (BRIN_PAGETYPE_META 0xF091,
  _REVMAP 0xF092, _REGULAR 0xF093) and whose element before it holds flags
  (BRIN_EVACUATE_PAGE). Block 0 is the metapage with BrinMetaPageData at PageGetContents.

  Parse with `BrinPage.from_bytes(page)`.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/brin_page.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  special:
    pos: _io.size - 8
    type: brin_special_space
    if: _io.size >= 32
    doc: BrinSpecialSpace (the last 8 bytes of the page).
  meta:
    pos: 24
    type: brin_meta_page_data
    doc: BrinMetaPageData of block 0 (fails validation of brin_magic on any other page).
  rm_tids:
    pos: 24
    type: pg_page::item_pointer
    repeat: expr
    repeat-expr: '(_io.size - 24 - 8) / 6'
    -orig-id: RevmapContents.rm_tids
    doc: |
      A revmap page's contents (at PageGetContents): REVMAP_PAGE_MAXITEMS item pointers, entry i naming the
      regular page and item of the summary of the i-th range this page covers ((0,0): none).
      REVMAP_PAGE_MAXITEMS = (BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BrinSpecialSpace)))
      / sizeof(ItemPointerData).
types:
  brin_tuple:
    -orig-id: BrinTuple
    doc: |
      The header of a BRIN summary tuple on a regular page (brin_tuple.h), 5 bytes: the range's first heap
      block and bt_info. With BRIN_NULLS_MASK a null bitmap follows at SizeOfBrinTuple: 2 bits per index
      column, first the "all nulls" bits of every column, then the "has nulls" bits (a set bit means
      null, the reverse of a heap tuple's). The stored values start at bt_info & BRIN_OFFSET_MASK.
    seq:
      - id: bt_blkno
        type: u4
        doc: heap block number that the tuple is for
      - id: bt_info
        type: u1
        doc: data offset (& BRIN_OFFSET_MASK) and flag bits, see enum brin_tuple_info
    instances:
      data_offset:
        value: bt_info & 0x1F
        doc: BrinTupleDataOffset (bt_info & BRIN_OFFSET_MASK)
      has_nulls:
        value: (bt_info & 0x80) != 0
        doc: BrinTupleHasNulls (BRIN_NULLS_MASK)
      is_placeholder:
        value: (bt_info & 0x40) != 0
        doc: BrinTupleIsPlaceholder (BRIN_PLACEHOLDER_MASK)
      is_empty_range:
        value: (bt_info & 0x20) != 0
        doc: BrinTupleIsEmptyRange (BRIN_EMPTY_RANGE_MASK, 16+; unused bit before)
  serialized_ranges:
    -orig-id: SerializedRanges
    doc: |
      A minmax-multi summary (brin_minmax_multi.c), the payload of a varlena of type
      pg_brin_minmax_multi_summary (its header removed): 2 * nranges + nvalues values of type typid
      follow, packed without alignment (fixed-width: typlen bytes; varlena: their own length).
    seq:
      - id: typid
        type: u4
        doc: type of values stored in the data array
      - id: nranges
        type: s4
        doc: number of ranges in the array (stored)
      - id: nvalues
        type: s4
        doc: number of values in the data array (all)
      - id: maxvalues
        type: s4
        doc: maximum number of values (reloption)
  bloom_filter:
    -orig-id: BloomFilter
    doc: |
      A bloom summary (brin_bloom.c), the payload of a varlena of type pg_brin_bloom_summary (its header
      removed): the filter's bitmap of nbits bits follows.
    seq:
      - id: flags
        type: u2
        doc: space for various flags (unused for now)
      - id: nhashes
        type: u1
        doc: number of hash functions
      - id: padding
        size: 1
        doc: alignment of nbits
      - id: nbits
        type: u4
        doc: number of bits in the bitmap (size)
      - id: nbits_set
        type: u4
        doc: number of bits set to 1
  brin_special_space:
    -orig-id: BrinSpecialSpace
    doc: uint16 vector[MAXALIGN(1) / sizeof(uint16)], 8 bytes.
    seq:
      - id: vector0
        -orig-id: vector[0]
        type: u2
        doc: unused
      - id: vector1
        -orig-id: vector[1]
        type: u2
        doc: unused
      - id: flags
        -orig-id: vector[2]
        type: u2
        doc: BrinPageFlags, see enum brin_flags
      - id: type
        -orig-id: vector[3]
        type: u2
        enum: brin_page_type
        doc: BrinPageType, see enum brin_page_type
  brin_meta_page_data:
    -orig-id: BrinMetaPageData
    doc: Contents of the BRIN metapage, 16 bytes.
    seq:
      - id: brin_magic
        -orig-id: brinMagic
        type: u4
        valid: '0xA8109CFA'
        doc: BRIN_META_MAGIC
      - id: brin_version
        -orig-id: brinVersion
        type: u4
        doc: BRIN_CURRENT_VERSION (1)
      - id: pages_per_range
        -orig-id: pagesPerRange
        type: u4
      - id: last_revmap_page
        -orig-id: lastRevmapPage
        type: u4
enums:
  brin_page_type:
    0xf091:
      id: brin_pagetype_meta
      -orig-id: BRIN_PAGETYPE_META
    0xf092:
      id: brin_pagetype_revmap
      -orig-id: BRIN_PAGETYPE_REVMAP
    0xf093:
      id: brin_pagetype_regular
      -orig-id: BRIN_PAGETYPE_REGULAR
  brin_tuple_info:
    0x1f:
      id: brin_offset_mask
      -orig-id: BRIN_OFFSET_MASK
    0x20:
      id: brin_empty_range_mask
      -orig-id: BRIN_EMPTY_RANGE_MASK
    0x40:
      id: brin_placeholder_mask
      -orig-id: BRIN_PLACEHOLDER_MASK
    0x80:
      id: brin_nulls_mask
      -orig-id: BRIN_NULLS_MASK
  brin_flags:
    0x0001:
      id: brin_evacuate_page
      -orig-id: BRIN_EVACUATE_PAGE
  brin_constants:
    0xa8109cfa:
      id: brin_meta_magic
      -orig-id: BRIN_META_MAGIC
    1:
      id: brin_current_version
      -orig-id: BRIN_CURRENT_VERSION
