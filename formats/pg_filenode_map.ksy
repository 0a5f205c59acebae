meta:
  id: pg_filenode_map
  title: PostgreSQL relation mapper file (pg_filenode.map), RelMapFile, PostgreSQL 10 to 18
  file-extension: map
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  RelMapFile: maps the OIDs of "mapped" catalogs (pg_class.relfilenode = 0: pg_class itself,
  pg_attribute, pg_proc, pg_type, their indexes and TOAST tables, and the shared catalogs such as
  pg_database and pg_authid) to the relfilenode that holds their data.  One file lives in global/
  (shared catalogs) and one in each database directory base/<dboid>/.

  Two layouts, told apart by the file size (nothing inside the file says which):

    majors   size  MAX_MAPPINGS  crc at  after crc
    10..15   512   62            504     int32 pad (the file had to be exactly one 512-byte sector,
                                         because it was overwritten in place)
    16..18   524   64            520     nothing (written to pg_filenode.map.tmp and renamed)

  crc is CRC-32C (Castagnoli) over bytes [0, crc_offset).  All MAX_MAPPINGS slots are always
  present (unused ones are zero); num_mappings says how many are in use.  It is an int32 read from
  the file: clamp it to [0, max_mappings] before trusting it (num_mappings_clamped does that).
  PG 16 renamed RelMapping.mapfilenode to mapfilenumber (type RelFileNumber, still a 32-bit Oid).
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/utils/cache/relmapper.c
  - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/backend/utils/cache/relmapper.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/utils/cache/relmapper.c
seq:
  - id: magic
    type: u4
    doc: RELMAPPER_FILEMAGIC, 0x592717 in every major 10 to 18; offset 0
  - id: num_mappings
    type: s4
    doc: number of valid RelMapping entries; offset 4
  - id: mappings
    type: rel_mapping
    repeat: expr
    repeat-expr: max_mappings
    doc: all MAX_MAPPINGS slots; only the first num_mappings_clamped are in use; offset 8
  - id: crc
    type: u4
    doc: 'pg_crc32c: CRC-32C of bytes [0, crc_offset); offset 504 (PG <= 15) or 520 (PG 16+)'
  - id: pad
    type: s4
    if: not is_v16
    doc: to make the struct exactly 512 bytes (PG <= 15 only); offset 508
instances:
  is_v16:
    value: _io.size == 524
    doc: true for the 524-byte layout of PostgreSQL 16 and later (chosen by file size)
  max_mappings:
    value: 'is_v16 ? 64 : 62'
    -orig-id: MAX_MAPPINGS
    doc: 62 up to PG 15, 64 from PG 16
  crc_offset:
    value: 8 + max_mappings * 8
    doc: offsetof(RelMapFile, crc); the CRC covers [0, crc_offset)
  num_mappings_clamped:
    value: 'num_mappings < 0 ? 0 : (num_mappings > max_mappings ? max_mappings : num_mappings)'
    doc: num_mappings limited to [0, max_mappings], so garbage cannot index past the array
  relmapper_filemagic:
    value: 0x592717
    -orig-id: RELMAPPER_FILEMAGIC
    doc: the value magic must have
types:
  rel_mapping:
    -orig-id: RelMapping
    doc: one mapped catalog
    seq:
      - id: mapoid
        type: u4
        doc: OID of a mapped catalog (pg_class.oid)
      - id: mapfilenode
        type: u4
        -orig-id: mapfilenode
        doc: its relfilenode, the file name under global/ or base/<dboid>/ (named mapfilenumber from PG 16)
