meta:
  id: ext_index_page
  title: Pages of extensions' index access methods (contrib's bloom, pgvector's HNSW and IVFFlat)
  application: PostgreSQL 10-18 with contrib/bloom; pgvector 0.5+
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  Pages of index access methods that extensions add, for telling them apart: each ends in an 8-byte
  special space whose last two bytes are the AM's page id (bloom 0xFF83, IVFFlat 0xFF84, HNSW 0xFF90), and
  block 0 is a metapage that starts with the AM's magic number (at PageGetContents, offset 24). Their tuples
  are not described here: pgpage identifies and counts these pages, it does not decode them.

  A bloom page stores its tuples one after another from PageGetContents (no line pointers): maxoff of its
  special space is their count.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/contrib/bloom/bloom.h
  - https://github.com/pgvector/pgvector/blob/master/src/hnsw.h
  - https://github.com/pgvector/pgvector/blob/master/src/ivfflat.h
seq:
  - id: page
    type: pg_page
    doc: Page header (and what pd_lower spans).
instances:
  bloom_opaque:
    pos: _io.size - 8
    type: bloom_page_opaque_data
    if: _io.size >= 32
  vector_opaque:
    pos: _io.size - 8
    type: vector_page_opaque_data
    if: _io.size >= 32
  meta_magic:
    pos: 24
    type: u4
    if: _io.size >= 32
    doc: the first field of each AM's metapage (magickNumber / magicNumber)
types:
  bloom_page_opaque_data:
    -orig-id: BloomPageOpaqueData
    doc: Special space of every bloom page, 8 bytes.
    seq:
      - id: maxoff
        type: u2
        doc: number of index tuples on page
      - id: flags
        type: u2
        doc: see enum bloom_flags
      - id: unused
        type: u2
      - id: bloom_page_id
        type: u2
        doc: BLOOM_PAGE_ID (0xFF83)
  vector_page_opaque_data:
    -orig-id: HnswPageOpaqueData
    doc: Special space of every HNSW page and (as IvfflatPageOpaqueData, the same fields) every IVFFlat page.
    seq:
      - id: nextblkno
        type: u4
      - id: unused
        type: u2
      - id: page_id
        type: u2
        doc: HNSW_PAGE_ID (0xFF90) or IVFFLAT_PAGE_ID (0xFF84)
enums:
  bloom_flags:
    0x0001:
      id: bloom_meta
      -orig-id: BLOOM_META
    0x0002:
      id: bloom_deleted
      -orig-id: BLOOM_DELETED
  ext_page_id:
    0xff83:
      id: bloom_page_id
      -orig-id: BLOOM_PAGE_ID
      doc: contrib/bloom/bloom.h
    0xff84:
      id: ivfflat_page_id
      -orig-id: IVFFLAT_PAGE_ID
      doc: pgvector src/ivfflat.h
    0xff90:
      id: hnsw_page_id
      -orig-id: HNSW_PAGE_ID
      doc: pgvector src/hnsw.h
  ext_meta_magic:
    0xdbac0ded:
      id: bloom_magick_number
      -orig-id: BLOOM_MAGICK_NUMBER
      doc: contrib/bloom/bloom.h
    0x014ff1a7:
      id: ivfflat_magic_number
      -orig-id: IVFFLAT_MAGIC_NUMBER
    0xa953a953:
      id: hnsw_magic_number
      -orig-id: HNSW_MAGIC_NUMBER
