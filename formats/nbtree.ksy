meta:
  id: nbtree
  title: PostgreSQL B-tree index page (nbtree)
  application: PostgreSQL 10-18 (btree versions 2, 3 and 4)
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One page of a B-tree index: the standard page header and line pointers, a 16-byte
  BTPageOpaqueData in the special space, and either index tuples, the metapage contents
  (block 0, BTP_META) or, on a deleted page of PostgreSQL 14+, BTDeletedPageData.

  Parse a whole page with `Nbtree.from_bytes(page)`; parse one index tuple from the bytes
  of its item (page[lp_off : lp_off + lp_len]) with `Nbtree.BtIndexTuple.from_bytes(item)`.
  The opaque data is read from the last 16 bytes of the page, where nbtree always puts it
  (PageInit with sizeof(BTPageOpaqueData)); comparing pd_special with page size - 16 is left
  to Python.

  Versions: btm_version 2 (before PostgreSQL 11: only the first six metapage fields are
  valid), 3 (PostgreSQL 11: no heap TID in the key space), 4 (PostgreSQL 12+: heap TID
  tiebreaker and suffix truncation; deduplication/posting lists from PostgreSQL 13 when
  btm_allequalimage). PostgreSQL 14 renamed btm_oldest_btpo_xact to
  btm_last_cleanup_num_delpages and turned the btpo union {level, xact} into btpo_level,
  storing the deleted page's 64-bit safexid in the tuple area (BTP_HAS_FULLXID); the
  version number did not change, so which name applies is decided by the server major in
  Python.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/nbtree.h
  - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/access/nbtree.h btpo union {level, xact}, btm_oldest_btpo_xact
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/nbtree.h btree version 2 metapage
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/itup.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  opaque:
    pos: _io.size - 16
    type: bt_page_opaque_data
    if: _io.size >= 40
    doc: BTPageOpaqueData, the special space (the last 16 bytes of the page).
  meta:
    pos: 24
    type: bt_meta_page_data
    doc: |
      BTMetaPageData at PageGetContents (block 0 only, BTP_META set). Reading it on a page
      that is not a metapage fails validation of btm_magic.
  deleted_page_data:
    pos: 24
    type: bt_deleted_page_data
    if: _io.size >= 40 and (opaque.btpo_flags & 0x0100) != 0
    doc: BTDeletedPageData of a page deleted by PostgreSQL 14+ (BTP_HAS_FULLXID).
types:
  bt_page_opaque_data:
    -orig-id: BTPageOpaqueData
    doc: Special space of every nbtree page, 16 bytes.
    seq:
      - id: btpo_prev
        type: u4
        doc: left sibling, or P_NONE (0) if leftmost
      - id: btpo_next
        type: u4
        doc: right sibling, or P_NONE (0) if rightmost
      - id: btpo_level
        -orig-id: btpo.level
        type: u4
        doc: |
          tree level, zero for leaf pages. Up to PostgreSQL 13 this was the union
          btpo {uint32 level; TransactionId xact;} and a deleted page (BTP_DELETED without
          BTP_HAS_FULLXID) holds btpo.xact here, the next transaction ID when it was deleted.
      - id: btpo_flags
        type: u2
        doc: flag bits, see enum btpo_flags
      - id: btpo_cycleid
        type: u2
        doc: vacuum cycle ID of latest split (<= MAX_BT_CYCLE_ID 0xFF7F)
    instances:
      btpo_xact:
        value: btpo_level
        doc: btpo.xact, the same 4 bytes read as a TransactionId (pre-14 deleted pages).
  bt_meta_page_data:
    -orig-id: BTMetaPageData
    doc: |
      Contents of the metapage (block 0), at offset 24 of the page; 48 bytes (sizeof with
      the alignment hole and tail padding). The fields after btm_fastlevel are valid only
      when btm_version >= 3 (BTREE_NOVAC_VERSION); on version 2 metapages they read as
      zero or garbage. pd_lower is set just past this struct (24 + 48 = 72).
    seq:
      - id: btm_magic
        type: u4
        valid: 0x053162
        doc: should contain BTREE_MAGIC (0x053162)
      - id: btm_version
        type: u4
        doc: nbtree version (always <= BTREE_VERSION), see enum btree_version
      - id: btm_root
        type: u4
        doc: current root location
      - id: btm_level
        type: u4
        doc: tree level of the root page
      - id: btm_fastroot
        type: u4
        doc: current "fast" root location
      - id: btm_fastlevel
        type: u4
        doc: tree level of the "fast" root page
      - id: btm_oldest_btpo_xact
        type: u4
        doc: |
          version >= 3. PostgreSQL 11-13: TransactionId btm_oldest_btpo_xact, oldest
          btpo.xact among all deleted pages. PostgreSQL 14+: uint32
          btm_last_cleanup_num_delpages, number of deleted pages during last cleanup
          (see the instance of that name).
      - id: alignment_hole
        size: 4
        doc: padding before the float8 (not a PostgreSQL field)
      - id: btm_last_cleanup_num_heap_tuples
        type: f8
        doc: version >= 3. Number of heap tuples during last cleanup (deprecated in PostgreSQL 14+, always -1 there).
      - id: btm_allequalimage
        type: u1
        doc: PostgreSQL 13+ (bool). Are all columns "equalimage"? Deduplication is used only when true (and version 4).
      - id: tail_padding
        size: 7
        doc: padding to sizeof(BTMetaPageData) (not a PostgreSQL field)
    instances:
      btm_last_cleanup_num_delpages:
        value: btm_oldest_btpo_xact
        doc: The PostgreSQL 14+ meaning of the 4 bytes at offset 24 of this struct.
      has_novac_fields:
        value: btm_version >= 3
        doc: btm_version >= BTREE_NOVAC_VERSION, i.e. the fields after btm_fastlevel are valid.
      heapkeyspace:
        value: btm_version >= 4
        doc: BTREE_VERSION 4 (PostgreSQL 12+) - heap TID is part of the key space.
  bt_deleted_page_data:
    -orig-id: BTDeletedPageData
    doc: Tuple area of a page deleted by PostgreSQL 14+ (BTP_HAS_FULLXID); pd_lower = 24 + 8.
    seq:
      - id: safexid
        type: u8
        doc: FullTransactionId (epoch << 32 | xid) after which the page may be recycled (BTPageIsRecyclable).
    instances:
      safexid_epoch:
        value: safexid >> 32
        doc: EpochFromFullTransactionId
      safexid_xid:
        value: safexid & 0xFFFFFFFF
        doc: XidFromFullTransactionId
  bt_index_tuple:
    -orig-id: IndexTupleData
    doc: |
      One nbtree index tuple, parsed from exactly the bytes of its item. The seq is the
      generic 8-byte IndexTupleData; the instances apply nbtree's reading of t_tid:

      * plain non-pivot tuple (leaf): t_tid is the heap TID.
      * posting list tuple (PostgreSQL 13+; INDEX_ALT_TID_MASK set and BT_IS_POSTING in
        t_tid.ip_posid): nTIDs = ip_posid & BT_OFFSET_MASK, the posting list (sorted heap
        TIDs) starts at byte offset t_tid.block_number from the start of the tuple.
      * pivot tuple (INDEX_ALT_TID_MASK set, BT_IS_POSTING clear): block_number is the
        downlink; ip_posid & BT_OFFSET_MASK is the number of key attributes kept by suffix
        truncation; BT_PIVOT_HEAP_TID_ATTR means a heap TID is in the last 6 bytes.
        Version 2/3 indexes may have pivots without INDEX_ALT_TID_MASK.

      Every count and offset is clamped to min(IndexTupleSize, bytes given).

      A page deleted by PostgreSQL 14+ has pd_lower = 24 + 8, so its "line pointers" are
      really BTDeletedPageData.safexid: check BTP_DELETED/BTP_HAS_FULLXID before reading
      items (as pageinspect's bt_page_items does).
    seq:
      - id: t_tid
        type: pg_page::item_pointer
        doc: reference TID to heap tuple (or downlink / posting list location, see above)
      - id: t_info
        type: u2
        doc: size (& INDEX_SIZE_MASK) and flag bits, see enum t_info_bits
    instances:
      tuple_size:
        value: t_info & 0x1FFF
        doc: IndexTupleSize (t_info & INDEX_SIZE_MASK).
      size_clamped:
        value: 'tuple_size < _io.size ? tuple_size : _io.size'
        doc: IndexTupleSize clamped to the bytes available.
      has_nulls:
        value: (t_info & 0x8000) != 0
        doc: INDEX_NULL_MASK
      has_varwidths:
        value: (t_info & 0x4000) != 0
        doc: INDEX_VAR_MASK
      alt_tid:
        value: (t_info & 0x2000) != 0
        doc: INDEX_ALT_TID_MASK (INDEX_AM_RESERVED_BIT)
      offset_bits:
        value: t_tid.ip_posid & 0x0FFF
        doc: t_tid.ip_posid & BT_OFFSET_MASK - key attribute count (pivot) or nTIDs (posting).
      status_bits:
        value: t_tid.ip_posid & 0xF000
        doc: t_tid.ip_posid & BT_STATUS_OFFSET_MASK
      is_posting:
        value: alt_tid and (t_tid.ip_posid & 0x2000) != 0
        doc: BTreeTupleIsPosting
      is_pivot:
        value: alt_tid and (t_tid.ip_posid & 0x2000) == 0
        doc: BTreeTupleIsPivot (can be false for pivots of version 2/3 indexes)
      n_posting:
        value: 'is_posting ? offset_bits : 0'
        doc: BTreeTupleGetNPosting
      posting_offset:
        value: t_tid.block_number
        doc: BTreeTupleGetPostingOffset (meaningful only when is_posting)
      posting_list_count:
        value: |
          (is_posting and posting_offset >= 8 and posting_offset < size_clamped)
            ? (n_posting < (size_clamped - posting_offset) / 6 ? n_posting : (size_clamped - posting_offset) / 6)
            : 0
        doc: Number of posting list TIDs read, n_posting clamped to the tuple.
      posting_list:
        pos: posting_offset
        type: pg_page::item_pointer
        repeat: expr
        repeat-expr: posting_list_count
        if: posting_list_count > 0
        doc: The posting list (BTreeTupleGetPosting), sorted heap TIDs.
      n_key_atts:
        value: offset_bits
        doc: BTreeTupleGetNAtts for a pivot tuple (meaningful only when is_pivot).
      has_heap_tid_attr:
        value: is_pivot and (t_tid.ip_posid & 0x1000) != 0
        doc: BT_PIVOT_HEAP_TID_ATTR - the pivot stores a heap TID in its last 6 bytes.
      pivot_heap_tid:
        pos: size_clamped - 6
        type: pg_page::item_pointer
        if: has_heap_tid_attr and size_clamped >= 14
        doc: BTreeTupleGetHeapTID of a pivot tuple.
      null_bitmap:
        pos: 8
        size: 4
        if: has_nulls and _io.size >= 12
        doc: IndexAttributeBitMapData (INDEX_MAX_KEYS / 8 bytes), bit set = attribute NOT null.
      data_offset:
        value: 'has_nulls ? 16 : 8'
        doc: IndexInfoFindDataOffset - MAXALIGN(8 [+ 4 for the null bitmap]).
      data_end:
        value: |
          (posting_list_count > 0)
            ? posting_offset
            : ((has_heap_tid_attr and size_clamped >= 16) ? size_clamped - 8 : size_clamped)
        doc: |
          End of the key data: the start of the posting list, or for a pivot with a heap TID
          the start of its MAXALIGN(sizeof(ItemPointerData)) = 8-byte slot (as pageinspect's
          bt_page_items "data" column counts it; the TID is the last 6 bytes of that slot).
      key_data:
        pos: data_offset
        size: data_end - data_offset
        if: data_end >= data_offset
        doc: Raw key attribute bytes (pageinspect's "data" column shows the bytes after data_offset).
enums:
  btpo_flags:
    0x0001:
      id: btp_leaf
      -orig-id: BTP_LEAF
      doc: leaf page, i.e. not internal page
    0x0002:
      id: btp_root
      -orig-id: BTP_ROOT
      doc: root page (has no parent)
    0x0004:
      id: btp_deleted
      -orig-id: BTP_DELETED
      doc: page has been deleted from tree
    0x0008:
      id: btp_meta
      -orig-id: BTP_META
      doc: meta-page
    0x0010:
      id: btp_half_dead
      -orig-id: BTP_HALF_DEAD
      doc: empty, but still in tree
    0x0020:
      id: btp_split_end
      -orig-id: BTP_SPLIT_END
      doc: rightmost page of split group
    0x0040:
      id: btp_has_garbage
      -orig-id: BTP_HAS_GARBAGE
      doc: page has LP_DEAD tuples (deprecated)
    0x0080:
      id: btp_incomplete_split
      -orig-id: BTP_INCOMPLETE_SPLIT
      doc: right sibling's downlink is missing
    0x0100:
      id: btp_has_fullxid
      -orig-id: BTP_HAS_FULLXID
      doc: contains BTDeletedPageData (PostgreSQL 14+)
  btree_version:
    2:
      id: btree_min_version
      -orig-id: BTREE_MIN_VERSION
      doc: before PostgreSQL 11; only the first six metapage fields
    3:
      id: btree_novac_version
      -orig-id: BTREE_NOVAC_VERSION
      doc: PostgreSQL 11; all metapage fields, no heap TID in the key space
    4:
      id: btree_version
      -orig-id: BTREE_VERSION
      doc: PostgreSQL 12+; heapkeyspace
  btree_magic:
    0x053162:
      id: btree_magic
      -orig-id: BTREE_MAGIC
      doc: magic number in metapage
  t_info_bits:
    0x1fff:
      id: index_size_mask
      -orig-id: INDEX_SIZE_MASK
      doc: IndexTupleSize mask (a mask, not a flag)
    0x2000:
      id: index_alt_tid_mask
      -orig-id: INDEX_ALT_TID_MASK
      doc: INDEX_AM_RESERVED_BIT as used by nbtree
    0x4000:
      id: index_var_mask
      -orig-id: INDEX_VAR_MASK
      doc: has variable-width attribute(s)
    0x8000:
      id: index_null_mask
      -orig-id: INDEX_NULL_MASK
      doc: has null attribute(s)
  bt_offset_bits:
    0x0fff:
      id: bt_offset_mask
      -orig-id: BT_OFFSET_MASK
      doc: number of key attributes (pivot) or of heap TIDs (posting)
    0x1000:
      id: bt_pivot_heap_tid_attr
      -orig-id: BT_PIVOT_HEAP_TID_ATTR
      doc: pivot tuple has a heap TID in its last 6 bytes
    0x2000:
      id: bt_is_posting
      -orig-id: BT_IS_POSTING
      doc: posting list tuple (PostgreSQL 13+)
    0xf000:
      id: bt_status_offset_mask
      -orig-id: BT_STATUS_OFFSET_MASK
      doc: the 4 status bits of t_tid.ip_posid
