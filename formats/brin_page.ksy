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
types:
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
