meta:
  id: xlog
  title: PostgreSQL write-ahead log (WAL) page headers, record headers and block references, PostgreSQL 10 to 18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  A WAL segment file (pg_wal/TTTTTTTTXXXXXXXXYYYYYYYY) is a run of XLOG_BLCKSZ (8 KB) pages. Every page
  starts with an XLogPageHeaderData; the first page of a segment with the long form
  (XLogLongPageHeaderData, XLP_LONG_HEADER) that also names the cluster (xlp_sysid), the segment size and
  the page size. Records (XLogRecord) start on MAXALIGN (8) boundaries, run over page and segment
  boundaries (a page whose first bytes continue a record says so with XLP_FIRST_IS_CONTRECORD and
  xlp_rem_len), and are laid out as:

    XLogRecord (24 bytes)
    XLogRecordBlockHeader ...                 one per block reference (id 0..XLR_MAX_BLOCK_ID), each followed by
      [XLogRecordBlockImageHeader             if BKPBLOCK_HAS_IMAGE
        [XLogRecordBlockCompressHeader]]      if the image has a hole and is compressed
      [RelFileNode]                           unless BKPBLOCK_SAME_REL
      BlockNumber
    [XLR_BLOCK_ID_ORIGIN, RepOriginId]
    [XLR_BLOCK_ID_TOPLEVEL_XID, TransactionId]   (14+)
    [XLogRecordDataHeaderShort | Long]        main data length
    block images and block data, in block-reference order
    main data

  None of the parts after XLogRecord is aligned. The layout of these structs is the same in every major
  10 to 18; what changed is the page magic (one per major), the meaning of the bimg_info bits (15 added
  lz4 and zstd), RelFileNode's name (RelFileLocator in 16) and the 14+ TOPLEVEL_XID id. Those version
  facts are in pgpage/decode/versions.py (WAL section).
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlogrecord.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlog_internal.h
  - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/access/xlogrecord.h
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/xlogrecord.h
types:
  page_header:
    -orig-id: XLogPageHeaderData
    doc: the short page header, every page but a segment's first; MAXALIGNed size 24 (SizeOfXLogShortPHD)
    seq:
      - id: xlp_magic
        type: u2
        doc: XLOG_PAGE_MAGIC of the major that wrote the page (decode/versions.py)
      - id: xlp_info
        type: u2
        doc: flag bits (xlp_info)
      - id: xlp_tli
        type: u4
        doc: TimeLineID of the first record on the page
      - id: xlp_pageaddr
        type: u8
        doc: XLOG address of this page
      - id: xlp_rem_len
        type: u4
        doc: bytes of the record continued from the previous page that are on this and later pages
      - id: pad
        size: 4
        doc: padding to MAXALIGN
  long_page_header:
    -orig-id: XLogLongPageHeaderData
    doc: the first page of every segment file; MAXALIGNed size 40 (SizeOfXLogLongPHD)
    seq:
      - id: std
        type: page_header
        doc: the standard header fields
      - id: xlp_sysid
        type: u8
        doc: system identifier of the cluster, as in pg_control
      - id: xlp_seg_size
        type: u4
        doc: wal_segment_size (cross-check)
      - id: xlp_xlog_blcksz
        type: u4
        doc: XLOG_BLCKSZ (cross-check)
  record:
    -orig-id: XLogRecord
    doc: the fixed record header (SizeOfXLogRecord = 24)
    seq:
      - id: xl_tot_len
        type: u4
        doc: total length of the entire record, this header included
      - id: xl_xid
        type: u4
        doc: transaction id
      - id: xl_prev
        type: u8
        doc: start of the previous record in the log
      - id: xl_info
        type: u1
        doc: flag bits; the high 4 (XLR_RMGR_INFO_MASK) are the resource manager's record type
      - id: xl_rmid
        type: u1
        doc: resource manager (RmgrId)
      - id: pad
        size: 2
        doc: padding, zero
      - id: xl_crc
        type: u4
        doc: CRC-32C of the record bytes after this header, then of this header up to xl_crc
  block_header:
    -orig-id: XLogRecordBlockHeader
    doc: one block reference (SizeOfXLogRecordBlockHeader = 4)
    seq:
      - id: id
        type: u1
        doc: block reference id, 0..XLR_MAX_BLOCK_ID (other values are the ids of block_ids)
      - id: fork_flags
        type: u1
        doc: fork number in the low 4 bits (BKPBLOCK_FORK_MASK), bkpblock flags in the high 4
      - id: data_length
        type: u2
        doc: bytes of the resource manager's payload for this block (the image not included)
  block_image_header:
    -orig-id: XLogRecordBlockImageHeader
    doc: follows a block header with BKPBLOCK_HAS_IMAGE (SizeOfXLogRecordBlockImageHeader = 5)
    seq:
      - id: length
        type: u2
        doc: bytes of page image stored in the record (after removing the hole, and compressed if so)
      - id: hole_offset
        type: u2
        doc: bytes before the hole
      - id: bimg_info
        type: u1
        doc: flag bits; their meaning changed in 15 (bimg_info_10 and bimg_info_15)
  block_compress_header:
    -orig-id: XLogRecordBlockCompressHeader
    doc: follows the image header when the image has a hole and is compressed
    seq:
      - id: hole_length
        type: u2
        doc: bytes in the hole
  rel_file_node:
    -orig-id: RelFileNode
    doc: the relation of a block reference (RelFileLocator from 16, same 12 bytes)
    seq:
      - id: spc_node
        -orig-id: spcNode
        type: u4
        doc: tablespace OID (spcOid from 16)
      - id: db_node
        -orig-id: dbNode
        type: u4
        doc: database OID, 0 for a shared relation (dbOid from 16)
      - id: rel_node
        -orig-id: relNode
        type: u4
        doc: relfilenode (relNumber from 16)
  data_header_short:
    -orig-id: XLogRecordDataHeaderShort
    doc: main data shorter than 256 bytes
    seq:
      - id: id
        type: u1
        doc: XLR_BLOCK_ID_DATA_SHORT
      - id: data_length
        type: u1
        doc: bytes of main data
  data_header_long:
    -orig-id: XLogRecordDataHeaderLong
    doc: main data of 256 bytes or more
    seq:
      - id: id
        type: u1
        doc: XLR_BLOCK_ID_DATA_LONG
      - id: data_length
        type: u4
        doc: bytes of main data, unaligned
enums:
  xlp_info:
    0x0001:
      id: xlp_first_is_contrecord
      -orig-id: XLP_FIRST_IS_CONTRECORD
      doc: the page starts with the rest of a record begun on an earlier page
    0x0002:
      id: xlp_long_header
      -orig-id: XLP_LONG_HEADER
      doc: the page has an XLogLongPageHeaderData (first page of a segment)
    0x0004:
      id: xlp_bkp_removable
      -orig-id: XLP_BKP_REMOVABLE
      doc: full-page images on this page may be removed by an archiver (not used by the server itself)
    0x0008:
      id: xlp_first_is_overwrite_contrecord
      -orig-id: XLP_FIRST_IS_OVERWRITE_CONTRECORD
      doc: the record continued on this page was abandoned and is overwritten (10.19+, 14+)
  block_ids:
    32:
      id: xlr_max_block_id
      -orig-id: XLR_MAX_BLOCK_ID
      doc: the highest block reference id
    252:
      id: xlr_block_id_toplevel_xid
      -orig-id: XLR_BLOCK_ID_TOPLEVEL_XID
      doc: a TransactionId follows, the top-level transaction of a subtransaction's record (14+)
    253:
      id: xlr_block_id_origin
      -orig-id: XLR_BLOCK_ID_ORIGIN
      doc: a RepOriginId (uint16) follows
    254:
      id: xlr_block_id_data_long
      -orig-id: XLR_BLOCK_ID_DATA_LONG
      doc: XLogRecordDataHeaderLong
    255:
      id: xlr_block_id_data_short
      -orig-id: XLR_BLOCK_ID_DATA_SHORT
      doc: XLogRecordDataHeaderShort
  bkpblock:
    0x0F:
      id: bkpblock_fork_mask
      -orig-id: BKPBLOCK_FORK_MASK
      doc: the fork number's bits
    0x10:
      id: bkpblock_has_image
      -orig-id: BKPBLOCK_HAS_IMAGE
      doc: an XLogRecordBlockImageHeader follows and the record holds a page image
    0x20:
      id: bkpblock_has_data
      -orig-id: BKPBLOCK_HAS_DATA
      doc: the record holds data_length bytes of payload for this block
    0x40:
      id: bkpblock_will_init
      -orig-id: BKPBLOCK_WILL_INIT
      doc: redo will re-initialise the page
    0x80:
      id: bkpblock_same_rel
      -orig-id: BKPBLOCK_SAME_REL
      doc: no RelFileNode follows, the block is of the previous reference's relation
  bimg_info_10:
    0x01:
      id: bkpimage_has_hole
      -orig-id: BKPIMAGE_HAS_HOLE
      doc: the image has a hole (10..18)
    0x02:
      id: bkpimage_is_compressed
      -orig-id: BKPIMAGE_IS_COMPRESSED
      doc: the image is compressed with pglz (10..14)
    0x04:
      id: bkpimage_apply
      -orig-id: BKPIMAGE_APPLY
      doc: redo restores the image (10..14)
  bimg_info_15:
    0x01:
      id: bkpimage_has_hole
      -orig-id: BKPIMAGE_HAS_HOLE
      doc: the image has a hole (10..18)
    0x02:
      id: bkpimage_apply
      -orig-id: BKPIMAGE_APPLY
      doc: redo restores the image (15+)
    0x04:
      id: bkpimage_compress_pglz
      -orig-id: BKPIMAGE_COMPRESS_PGLZ
      doc: compressed with pglz (15+)
    0x08:
      id: bkpimage_compress_lz4
      -orig-id: BKPIMAGE_COMPRESS_LZ4
      doc: compressed with lz4 (15+)
    0x10:
      id: bkpimage_compress_zstd
      -orig-id: BKPIMAGE_COMPRESS_ZSTD
      doc: compressed with zstd (15+)
  xlr_info:
    0x01:
      id: xlr_special_rel_update
      -orig-id: XLR_SPECIAL_REL_UPDATE
      doc: the record changes relation files in ways its block references do not say
    0x02:
      id: xlr_check_consistency
      -orig-id: XLR_CHECK_CONSISTENCY
      doc: wal_consistency_checking took a full-page image of every block
