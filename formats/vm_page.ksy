meta:
  id: vm_page
  title: PostgreSQL visibility map page (_vm fork)
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  bit-endian: le
  imports:
    - pg_page
doc: |
  One page of a relation's visibility map fork: the standard 24-byte page header (no line
  pointers; PageInit leaves pd_lower at 24 and pd_upper = pd_special = page size), then a
  bitmap of MAPSIZE =
  page size - MAXALIGN(SizeOfPageHeaderData) = 8168 bytes at 8 KiB with
  BITS_PER_HEAPBLOCK = 2 bits per heap block, 4 heap blocks per byte, so one VM page
  covers 8168 * 4 = 32672 heap blocks.

  For heap block b: VM block = b / HEAPBLOCKS_PER_PAGE, byte = 24 + (b % HEAPBLOCKS_PER_PAGE) / 4,
  shift = (b % 4) * 2; bit 0 (<< shift) = VISIBILITYMAP_ALL_VISIBLE, bit 1 = VISIBILITYMAP_ALL_FROZEN.
  All-frozen implies all-visible; the heap page mirrors all-visible in PD_ALL_VISIBLE.

  Parse with `VmPage.from_bytes(page)`. `map_bytes` is the raw bitmap; `entries` decodes it
  as one vm_byte (4 heap blocks) per byte, which is slow and meant for a person looking
  at one page; a scan should take the bit positions from vm_byte in layouts.py.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/visibilitymapdefs.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/heap/visibilitymap.c MAPSIZE, HEAPBLK_TO_MAPBYTE, HEAPBLK_TO_OFFSET
seq:
  - id: header
    type: pg_page::page_header
instances:
  map_size:
    value: _io.size - 24
    doc: MAPSIZE, bytes of bitmap on this page (8168 at 8 KiB).
  heap_blocks_per_page:
    value: (_io.size - 24) * 4
    doc: HEAPBLOCKS_PER_PAGE (32672 at 8 KiB).
  map_bytes:
    pos: 24
    size: _io.size - 24
    doc: The raw bitmap (PageGetContents).
  entries:
    pos: 24
    type: vm_byte
    repeat: expr
    repeat-expr: _io.size - 24
    doc: The bitmap, one vm_byte per byte (entries[i] covers heap blocks 4i .. 4i+3 of this page).
types:
  vm_byte:
    doc: One bitmap byte, the 2-bit status of 4 consecutive heap blocks (lowest bits = first block).
    seq:
      - id: all_visible_0
        type: b1
        doc: VISIBILITYMAP_ALL_VISIBLE of heap block 4i + 0
      - id: all_frozen_0
        type: b1
        doc: VISIBILITYMAP_ALL_FROZEN of heap block 4i + 0
      - id: all_visible_1
        type: b1
        doc: VISIBILITYMAP_ALL_VISIBLE of heap block 4i + 1
      - id: all_frozen_1
        type: b1
        doc: VISIBILITYMAP_ALL_FROZEN of heap block 4i + 1
      - id: all_visible_2
        type: b1
        doc: VISIBILITYMAP_ALL_VISIBLE of heap block 4i + 2
      - id: all_frozen_2
        type: b1
        doc: VISIBILITYMAP_ALL_FROZEN of heap block 4i + 2
      - id: all_visible_3
        type: b1
        doc: VISIBILITYMAP_ALL_VISIBLE of heap block 4i + 3
      - id: all_frozen_3
        type: b1
        doc: VISIBILITYMAP_ALL_FROZEN of heap block 4i + 3
enums:
  visibilitymap_flags:
    0x01:
      id: visibilitymap_all_visible
      -orig-id: VISIBILITYMAP_ALL_VISIBLE
      doc: all tuples on the heap page are visible to all transactions
    0x02:
      id: visibilitymap_all_frozen
      -orig-id: VISIBILITYMAP_ALL_FROZEN
      doc: all tuples on the heap page are frozen
    0x03:
      id: visibilitymap_valid_bits
      -orig-id: VISIBILITYMAP_VALID_BITS
      doc: OR of all valid visibilitymap flags bits (a mask)
  vm_constants:
    2:
      id: bits_per_heapblock
      -orig-id: BITS_PER_HEAPBLOCK
      doc: bits of status per heap block
