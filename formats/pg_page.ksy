meta:
  id: pg_page
  title: PostgreSQL page header, line pointers and item pointers
  application: PostgreSQL 10-18 (heap, index, FSM and VM forks all share this header)
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  bit-endian: le
doc: |
  One database page (BLCKSZ bytes, normally 8192) as laid out by bufpage.h:

      +----------------+---------------------------------+
      | PageHeaderData | linp1 linp2 linp3 ...           |
      +-----------+----+---------------------------------+
      | ... linpN |                                      |
      +-----------+--------------------------------------+
      |           ^ pd_lower                             |
      |                                                  |
      |             v pd_upper                           |
      +-------------+------------------------------------+
      |             | tupleN ...                         |
      +-------------+------------------+-----------------+
      |       ... tuple3 tuple2 tuple1 | "special space" |
      +--------------------------------+-----------------+
                                       ^ pd_special

  Parse a whole page with `PgPage.from_bytes(page)`; the page size is the length of the
  buffer (`_io.size`), never taken from the header, so a damaged header cannot make the
  parser read outside the page. The line pointer count is PageGetMaxOffsetNumber clamped
  to the page: (min(pd_lower, page size) - 24) / 4, and 0 when pd_lower <= 24.

  The types here are imported by every other page family (nbtree, vm_page, fsm_page, ...).
  Only x86-64/little-endian pages are described: ItemIdData bit-field order is
  implementation-defined and GCC on little-endian allocates from the least significant bit.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/bufpage.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/itemid.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/itemptr.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/block.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/off.h
seq:
  - id: header
    type: page_header
  - id: linp
    -orig-id: pd_linp
    type: item_id
    repeat: expr
    repeat-expr: num_line_pointers
    doc: |
      Line pointer array (pd_linp[], offset numbers 1..N; linp[0] is offset number 1).
instances:
  page_size:
    value: _io.size
    doc: Length of the buffer being parsed (the real page size; compare with header.page_size_declared).
  num_line_pointers:
    value: |
      header.pd_lower > 24
        ? ((header.pd_lower < _io.size ? header.pd_lower : _io.size) - 24) / 4
        : 0
    doc: PageGetMaxOffsetNumber, clamped to the page (never negative, never past the end).
  special:
    pos: header.pd_special
    size: _io.size - header.pd_special
    if: header.pd_special >= 24 and header.pd_special <= _io.size
    doc: Raw special space, from pd_special to the end of the page (absent if pd_special is out of range).
  page_type_id:
    pos: _io.size - 2
    type: u2
    if: _io.size >= 26
    doc: |
      Last u16 of the page. Hash (0xFF80), GiST (0xFF81) and SP-GiST (0xFF82) store their page
      id here; BRIN its page type (0xF091-0xF093); nbtree its btpo_cycleid (<= MAX_BT_CYCLE_ID
      0xFF7F). GIN has no id (see gin_page.ksy). Use enum page_id to compare.
types:
  page_header:
    -orig-id: PageHeaderData
    -size-id: SizeOfPageHeaderData
    doc: PageHeaderData, 24 bytes (SizeOfPageHeaderData). MAXALIGN(24) = 24, so PageGetContents = page + 24.
    seq:
      - id: pd_lsn
        type: page_xlog_rec_ptr
        doc: LSN of the WAL record following the last change to this page.
      - id: pd_checksum
        type: u2
        doc: Page checksum (pg_checksum_page) if data checksums are enabled, else 0 or garbage.
      - id: pd_flags
        type: u2
        doc: Flag bits, see enum pd_flags (PD_VALID_FLAG_BITS 0x0007).
      - id: pd_lower
        type: u2
        doc: Offset to start of free space (end of the line pointer array).
      - id: pd_upper
        type: u2
        doc: Offset to end of free space (start of tuple data); 0 means PageIsNew.
      - id: pd_special
        type: u2
        doc: Offset to start of special space (page size if there is none).
      - id: pd_pagesize_version
        type: u2
        doc: Page size (high byte, & 0xFF00) | layout version (low byte; PG_PAGE_LAYOUT_VERSION 4 since 8.3).
      - id: pd_prune_xid
        type: u4
        doc: Oldest unpruned XMAX on page, or zero if none (a prune hint).
    instances:
      page_size_declared:
        value: pd_pagesize_version & 0xFF00
        doc: PageGetPageSize.
      layout_version:
        value: pd_pagesize_version & 0x00FF
        doc: PageGetPageLayoutVersion (4 = PostgreSQL 8.3+).
  page_xlog_rec_ptr:
    -orig-id: PageXLogRecPtr
    doc: An XLogRecPtr stored as two uint32 halves so that the page header needs only 4-byte alignment.
    seq:
      - id: xlogid
        type: u4
        doc: High 32 bits of the LSN.
      - id: xrecoff
        type: u4
        doc: Low 32 bits of the LSN.
    instances:
      lsn:
        value: (xlogid << 32) | xrecoff
        doc: The 64-bit LSN (PageXLogRecPtrGet); printed by PostgreSQL as "%X/%08X" xlogid, xrecoff.
  item_id:
    -orig-id: ItemIdData
    doc: |
      Line pointer: `unsigned lp_off:15, lp_flags:2, lp_len:15` in one little-endian 32-bit
      word w: lp_off = w & 0x7FFF, lp_flags = (w >> 15) & 3, lp_len = w >> 17.
    seq:
      - id: lp_off
        type: b15
        doc: Offset to tuple from start of page (LP_REDIRECT - offset number of the target line pointer).
      - id: lp_flags
        type: b2
        enum: lp_flags
        doc: State of the line pointer, see enum lp_flags.
      - id: lp_len
        type: b15
        doc: Byte length of tuple (0 for LP_UNUSED and LP_REDIRECT).
    instances:
      data:
        io: _io
        pos: lp_off
        size: lp_len
        if: lp_len > 0 and lp_off >= 24 and lp_off + lp_len <= _io.size
        doc: |
          The item's bytes when lp_off/lp_len lie inside the page (null otherwise). Only
          meaningful when the line pointer was parsed as part of a whole page.
  item_pointer:
    -orig-id: ItemPointerData
    doc: |
      Tuple identifier (block, offset), 6 bytes, 2-byte aligned. The block number is stored
      as BlockIdData {bi_hi, bi_lo}: block = bi_hi << 16 | bi_lo, not as a plain uint32.
    seq:
      - id: bi_hi
        -orig-id: ip_blkid.bi_hi
        type: u2
        doc: High 16 bits of the block number.
      - id: bi_lo
        -orig-id: ip_blkid.bi_lo
        type: u2
        doc: Low 16 bits of the block number.
      - id: ip_posid
        type: u2
        doc: Offset number (1-based line pointer index) or a special value, see enum special_offset_number.
    instances:
      block_number:
        value: (bi_hi << 16) | bi_lo
        doc: BlockIdGetBlockNumber(&ip_blkid); InvalidBlockNumber is 0xFFFFFFFF.
enums:
  lp_flags:
    0:
      id: lp_unused
      -orig-id: LP_UNUSED
      doc: unused (should always have lp_len=0)
    1:
      id: lp_normal
      -orig-id: LP_NORMAL
      doc: used (should always have lp_len>0)
    2:
      id: lp_redirect
      -orig-id: LP_REDIRECT
      doc: HOT redirect (should have lp_len=0)
    3:
      id: lp_dead
      -orig-id: LP_DEAD
      doc: dead, may or may not have storage
  pd_flags:
    0x0001:
      id: pd_has_free_lines
      -orig-id: PD_HAS_FREE_LINES
      doc: are there any unused line pointers?
    0x0002:
      id: pd_page_full
      -orig-id: PD_PAGE_FULL
      doc: not enough free space for new tuple?
    0x0004:
      id: pd_all_visible
      -orig-id: PD_ALL_VISIBLE
      doc: all tuples on page are visible to everyone
    0x0007:
      id: pd_valid_flag_bits
      -orig-id: PD_VALID_FLAG_BITS
      doc: OR of all valid pd_flags bits (a mask, not a flag)
  page_layout_version:
    4:
      id: pg_page_layout_version
      -orig-id: PG_PAGE_LAYOUT_VERSION
      doc: Layout version since PostgreSQL 8.3 (0 pre-7.3, 1 7.3/7.4, 2 8.0, 3 8.1/8.2).
  special_offset_number:
    0:
      id: invalid_offset_number
      -orig-id: InvalidOffsetNumber
    0xfffc:
      id: versioned_datum_offset_number
      -orig-id: VersionedDatumOffsetNumber
      doc: versioned composite datum (HEAP_IS_DATUM); recent minor releases only
    0xfffd:
      id: moved_partitions_offset_number
      -orig-id: MovedPartitionsOffsetNumber
      doc: t_ctid of a row moved to another partition by UPDATE (block is InvalidBlockNumber), PG11+
    0xfffe:
      id: spec_token_offset_number
      -orig-id: SpecTokenOffsetNumber
      doc: t_ctid holds a speculative-insertion token in ip_blkid
  page_id:
    0xff80:
      id: hasho_page_id
      -orig-id: HASHO_PAGE_ID
      doc: hash index page (access/hash.h)
    0xff81:
      id: gist_page_id
      -orig-id: GIST_PAGE_ID
      doc: GiST index page (access/gist.h)
    0xff82:
      id: spgist_page_id
      -orig-id: SPGIST_PAGE_ID
      doc: SP-GiST index page (access/spgist_private.h)
    0xf091:
      id: brin_pagetype_meta
      -orig-id: BRIN_PAGETYPE_META
      doc: BRIN metapage (access/brin_page.h)
    0xf092:
      id: brin_pagetype_revmap
      -orig-id: BRIN_PAGETYPE_REVMAP
      doc: BRIN range map page
    0xf093:
      id: brin_pagetype_regular
      -orig-id: BRIN_PAGETYPE_REGULAR
      doc: BRIN regular page
    0xff7f:
      id: max_bt_cycle_id
      -orig-id: MAX_BT_CYCLE_ID
      doc: largest btpo_cycleid an nbtree page may hold (a limit, not an id)
