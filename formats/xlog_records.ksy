meta:
  id: xlog_records
  title: PostgreSQL WAL records' main data (the structs pgpage describes), PostgreSQL 10 to 18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  The fixed part of the main data of the WAL records pgpage decodes, one type per C struct. A record's main
  data is unaligned (decode/wal/record.py hands it out as bytes); these layouts are the same in every major 10
  to 18 unless a type says otherwise. Block data (tuples, offsets arrays) is read by the resource managers'
  modules in decode/wal/.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/heapam_xlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/nbtxlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xact.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/storage/standbydefs.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/storage_xlog.h
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/heapam_xlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/hash_xlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/ginxlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/spgxlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/brin_xlog.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/commands/sequence.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/multixact.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/relmapper.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/commands/tablespace.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/replication/origin.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/replication/message.h
types:
  xl_heap_insert:
    doc: Heap INSERT (SizeOfHeapInsert 3)
    seq:
      - id: offnum
        type: u2
        doc: inserted tuple's offset
      - id: flags
        type: u1
        doc: XLH_INSERT_* bits
  xl_heap_delete:
    doc: Heap DELETE (SizeOfHeapDelete 8)
    seq:
      - id: xmax
        type: u4
        doc: xmax of the deleted tuple
      - id: offnum
        type: u2
        doc: deleted tuple's offset
      - id: infobits_set
        type: u1
        doc: infomask bits (XLHL_*)
      - id: flags
        type: u1
        doc: XLH_DELETE_* bits
  xl_heap_update:
    doc: Heap UPDATE and HOT_UPDATE (SizeOfHeapUpdate 14)
    seq:
      - id: old_xmax
        type: u4
        doc: xmax of the old tuple
      - id: old_offnum
        type: u2
        doc: old tuple's offset
      - id: old_infobits_set
        type: u1
        doc: infomask bits to set on the old tuple (XLHL_*)
      - id: flags
        type: u1
        doc: XLH_UPDATE_* bits
      - id: new_xmax
        type: u4
        doc: xmax of the new tuple
      - id: new_offnum
        type: u2
        doc: new tuple's offset
  xl_heap_lock:
    doc: Heap LOCK (SizeOfHeapLock 8; the first field is locking_xid before 16, xmax from 16)
    seq:
      - id: xmax
        -orig-id: locking_xid
        type: u4
        doc: might be a MultiXactId
      - id: offnum
        type: u2
        doc: locked tuple's offset on page
      - id: infobits_set
        type: u1
        doc: infomask and infomask2 bits to set (XLHL_*)
      - id: flags
        type: u1
        doc: XLH_LOCK_* flag bits
  xl_heap_inplace:
    doc: Heap INPLACE, its first field (18 adds invalidation messages after it)
    seq:
      - id: offnum
        type: u2
        doc: updated tuple's offset on page
  xl_heap_visible:
    doc: Heap2 VISIBLE (cutoff_xid before 16, snapshotConflictHorizon from 16)
    seq:
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u4
        doc: the newest xid the page's tuples may be visible to
      - id: flags
        type: u1
        doc: VISIBILITYMAP_ALL_VISIBLE 0x01, VISIBILITYMAP_ALL_FROZEN 0x02
  xl_btree_insert:
    doc: Btree INSERT_LEAF, INSERT_UPPER, INSERT_META, INSERT_POST
    seq:
      - id: offnum
        type: u2
        doc: where the tuple goes
  xl_btree_newroot:
    doc: Btree NEWROOT
    seq:
      - id: rootblk
        type: u4
        doc: location of new root (redundant with blk 0)
      - id: level
        type: u4
        doc: its tree level
  xl_btree_vacuum_13:
    doc: Btree VACUUM from 13 on
    seq:
      - id: ndeleted
        type: u2
        doc: index tuples deleted
      - id: nupdated
        type: u2
        doc: posting list tuples updated
  xl_running_xacts:
    doc: Standby RUNNING_XACTS, its fixed part
    seq:
      - id: xcnt
        type: s4
        doc: number of transaction ids in xids[]
      - id: subxcnt
        type: s4
        doc: number of subtransaction ids in xids[]
      - id: subxid_overflow
        type: u1
        doc: snapshot overflowed, subxids missing
      - id: pad
        size: 3
        doc: alignment
      - id: next_xid
        -orig-id: nextXid
        type: u4
        doc: xid from ShmemVariableCache->nextXid
      - id: oldest_running_xid
        -orig-id: oldestRunningXid
        type: u4
        doc: the oldest running transaction
      - id: latest_completed_xid
        -orig-id: latestCompletedXid
        type: u4
        doc: so we can set xmax
  xl_standby_lock:
    doc: one lock of a Standby LOCK record (after an int32 nlocks)
    seq:
      - id: xid
        type: u4
        doc: xid of holder of AccessExclusiveLock
      - id: db_oid
        -orig-id: dbOid
        type: u4
        doc: database of the locked relation
      - id: rel_oid
        -orig-id: relOid
        type: u4
        doc: the locked relation
  xl_smgr_create:
    doc: Storage CREATE
    seq:
      - id: spc_node
        type: u4
        doc: RelFileNode spcNode
      - id: db_node
        type: u4
        doc: RelFileNode dbNode
      - id: rel_node
        type: u4
        doc: RelFileNode relNode
      - id: fork_num
        -orig-id: forkNum
        type: s4
        doc: the fork created
  xl_smgr_truncate:
    doc: Storage TRUNCATE
    seq:
      - id: blkno
        type: u4
        doc: new length in blocks
      - id: spc_node
        type: u4
        doc: RelFileNode spcNode
      - id: db_node
        type: u4
        doc: RelFileNode dbNode
      - id: rel_node
        type: u4
        doc: RelFileNode relNode
      - id: flags
        type: s4
        doc: SMGR_TRUNCATE_HEAP 1, VM 2, FSM 4
  xl_invalidations:
    doc: Standby INVALIDATIONS, its fixed part (SharedInvalidationMessage[nmsgs] follow)
    seq:
      - id: db_id
        -orig-id: dbId
        type: u4
        doc: MyDatabaseId
      - id: ts_id
        -orig-id: tsId
        type: u4
        doc: MyDatabaseTableSpace
      - id: relcache_init_file_inval
        -orig-id: relcacheInitFileInval
        type: u1
        doc: invalidate relcache init files
      - id: pad
        size: 3
        doc: alignment
      - id: nmsgs
        type: s4
        doc: number of shared inval msgs
  shared_invalidation_message:
    -orig-id: SharedInvalidationMessage
    doc: one invalidation message (a 16-byte union; the fields pg_waldump prints)
    seq:
      - id: id
        type: s1
        doc: '>= 0 a catcache id; -1 catalog, -2 relcache, -3 smgr, -4 relmap, -5 snapshot'
      - id: pad
        size: 3
        doc: alignment
      - id: db_id
        -orig-id: dbId
        type: u4
        doc: database (rm.dbId for relmap)
      - id: rel_id
        -orig-id: relId
        type: u4
        doc: catId, relId (catalog, relcache, snapshot messages)
      - id: rest
        size: 4
        doc: the union's other fields
  check_point_v1700:
    -orig-id: CheckPoint
    doc: |
      XLOG CHECKPOINT_SHUTDOWN/ONLINE main data from 17 on, where CheckPoint gained wal_level (in what was
      padding). Before 17 the record holds the CheckPoint of pg_control.ksy (check_point_v1002 in 10 and 11,
      check_point_v1201 in 12 to 16).
    seq:
      - id: redo
        type: u8
        doc: next RecPtr available when we began to create CheckPoint (i.e. REDO start point)
      - id: this_time_line_id
        -orig-id: ThisTimeLineID
        type: u4
        doc: current TLI
      - id: prev_time_line_id
        -orig-id: PrevTimeLineID
        type: u4
        doc: previous TLI, if this record begins a new timeline
      - id: full_page_writes
        -orig-id: fullPageWrites
        type: u1
        doc: current full_page_writes
      - id: pad_after_full_page_writes
        size: 3
        doc: alignment
      - id: wal_level
        type: s4
        doc: current wal_level (WAL_LEVEL_MINIMAL 0, REPLICA 1, LOGICAL 2)
      - id: next_full_xid
        -orig-id: nextXid
        type: u8
        doc: next free transaction ID (FullTransactionId)
      - id: next_oid
        -orig-id: nextOid
        type: u4
        doc: next free OID
      - id: next_multi
        -orig-id: nextMulti
        type: u4
        doc: next free MultiXactId
      - id: next_multi_offset
        -orig-id: nextMultiOffset
        type: u4
        doc: next free MultiXact offset
      - id: oldest_xid
        -orig-id: oldestXid
        type: u4
        doc: cluster-wide minimum datfrozenxid
      - id: oldest_xid_db
        -orig-id: oldestXidDB
        type: u4
        doc: database with minimum datfrozenxid
      - id: oldest_multi
        -orig-id: oldestMulti
        type: u4
        doc: cluster-wide minimum datminmxid
      - id: oldest_multi_db
        -orig-id: oldestMultiDB
        type: u4
        doc: database with minimum datminmxid
      - id: pad_after_oldest_multi_db
        size: 4
        doc: alignment
      - id: time
        type: s8
        doc: time stamp of checkpoint
      - id: oldest_commit_ts_xid
        -orig-id: oldestCommitTsXid
        type: u4
        doc: oldest Xid with valid commit timestamp
      - id: newest_commit_ts_xid
        -orig-id: newestCommitTsXid
        type: u4
        doc: newest Xid with valid commit timestamp
      - id: oldest_active_xid
        -orig-id: oldestActiveXid
        type: u4
        doc: oldest XID still running (hot standby)
      - id: pad_after_oldest_active_xid
        size: 4
        doc: alignment
  xl_dbase_create_file_copy_rec:
    doc: Database CREATE (10-14) and CREATE_FILE_COPY (15+)
    seq:
      - id: db_id
        type: u4
        doc: the new database
      - id: tablespace_id
        type: u4
        doc: its tablespace
      - id: src_db_id
        type: u4
        doc: the template database
      - id: src_tablespace_id
        type: u4
        doc: the template's tablespace
  xl_dbase_create_wal_log_rec:
    doc: Database CREATE_WAL_LOG (15+)
    seq:
      - id: db_id
        type: u4
        doc: the new database
      - id: tablespace_id
        type: u4
        doc: its tablespace
  xl_dbase_drop_rec:
    doc: Database DROP (15+), its fixed part; Oid tablespace_ids[ntablespaces] follow
    seq:
      - id: db_id
        type: u4
        doc: the database dropped
      - id: ntablespaces
        type: s4
        doc: number of tablespace IDs
  xl_heap_prune_16:
    doc: Heap2 PRUNE, 14 to 16 (isCatalogRel from 16); the offsets arrays are block 0's data
    seq:
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u4
        doc: latestRemovedXid before 16
      - id: nredirected
        type: u2
        doc: redirected pairs of offsets
      - id: ndead
        type: u2
        doc: offsets made dead
  xl_heap_vacuum_14:
    doc: Heap2 VACUUM, 14 to 16; the unused offsets are block 0's data
    seq:
      - id: nunused
        type: u2
        doc: offsets set unused
  xl_heap_header:
    doc: |
      The header fields a heap INSERT's or UPDATE's new tuple carries in its block data (SizeOfHeapHeader 5),
      its null bitmap and data following; redo rebuilds the HeapTupleHeader from them.
    seq:
      - id: t_infomask2
        type: u2
        doc: the tuple's t_infomask2
      - id: t_infomask
        type: u2
        doc: the tuple's t_infomask
      - id: t_hoff
        type: u1
        doc: the tuple's t_hoff
  xl_multi_insert_tuple:
    doc: |
      One tuple of a Heap2 MULTI_INSERT's block data (SizeOfMultiInsertTuple 7), SHORTALIGNed, its datalen
      bytes of null bitmap and data following.
    seq:
      - id: datalen
        type: u2
        doc: bytes of the tuple after its HeapTupleHeader
      - id: t_infomask2
        type: u2
        doc: the tuple's t_infomask2
      - id: t_infomask
        type: u2
        doc: the tuple's t_infomask
      - id: t_hoff
        type: u1
        doc: the tuple's t_hoff
  xl_heap_multi_insert:
    doc: Heap2 MULTI_INSERT, its fixed part; OffsetNumber offsets[ntuples] follow unless the page is new
    seq:
      - id: flags
        type: u1
        doc: XLH_INSERT_* bits
      - id: pad
        size: 1
        doc: alignment
      - id: ntuples
        type: u2
        doc: tuples inserted
  xl_heap_inplace_18:
    doc: Heap INPLACE from 18, its fixed part; SharedInvalidationMessage msgs[nmsgs] follow
    seq:
      - id: offnum
        type: u2
        doc: updated tuple's offset on page
      - id: pad
        size: 2
        doc: alignment
      - id: db_id
        -orig-id: dbId
        type: u4
        doc: MyDatabaseId
      - id: ts_id
        -orig-id: tsId
        type: u4
        doc: MyDatabaseTableSpace
      - id: relcache_init_file_inval
        -orig-id: relcacheInitFileInval
        type: u1
        doc: invalidate relcache init files
      - id: pad2
        size: 3
        doc: alignment
      - id: nmsgs
        type: s4
        doc: number of shared inval msgs
  xl_heap_prune_17:
    doc: Heap2 PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN, PRUNE_VACUUM_CLEANUP (17+); a TransactionId follows when
      XLHP_HAS_CONFLICT_HORIZON; block 0's data holds the freeze plans, the redirected, dead and unused offsets
      (each an xlhp_prune_items) and the frozen offsets, as the flags say
    seq:
      - id: reason
        type: u1
        doc: PruneReason
      - id: flags
        type: u1
        doc: XLHP_* bits (xlhp_flags)
  xl_heap_freeze_page_16:
    doc: Heap2 FREEZE_PAGE, 16 (the plans and offsets are block 0's data)
    seq:
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u4
        doc: newest xid the frozen tuples may be visible to
      - id: nplans
        type: u2
        doc: freeze plans in block 0's data
  xlhp_freeze_plan:
    -orig-id: xl_heap_freeze_plan
    doc: one freeze plan (xl_heap_freeze_plan in 16, xlhp_freeze_plan from 17)
    seq:
      - id: xmax
        type: u4
        doc: the frozen tuples' new xmax
      - id: t_infomask2
        type: u2
        doc: their new t_infomask2
      - id: t_infomask
        type: u2
        doc: their new t_infomask
      - id: frzflags
        type: u1
        doc: XLH_FREEZE_XVAC / XLH_INVALID_XVAC
      - id: pad
        size: 1
        doc: alignment
      - id: ntuples
        type: u2
        doc: tuples frozen with this plan (their offsets follow all plans)
  xlhp_freeze_plans:
    doc: the head of block 0's freeze plans in the PRUNE_* records (17+); xlhp_freeze_plan plans[nplans] follow
    seq:
      - id: nplans
        type: u2
        doc: number of plans
      - id: pad
        size: 2
        doc: alignment of plans[] (offsetof(xlhp_freeze_plans, plans) is 4)
  xl_btree_split:
    doc: Btree SPLIT_L and SPLIT_R from 13 (SizeOfBtreeSplit 10; before 13 the first three fields, firstright for firstrightoff)
    seq:
      - id: level
        type: u4
        doc: tree level of page being split
      - id: firstrightoff
        type: u2
        doc: first origpage item on rightpage (firstright before 14)
      - id: newitemoff
        type: u2
        doc: new item's offset
      - id: postingoff
        type: u2
        doc: offset inside orig posting tuple (13+)
  xl_btree_dedup:
    doc: Btree DEDUP (13+)
    seq:
      - id: nintervals
        type: u2
        doc: deduplication intervals in block 0's data
  xl_btree_delete_14:
    doc: Btree DELETE, 14 and 15; the deleted and updated offsets are block 0's data
    seq:
      - id: latest_removed_xid
        -orig-id: latestRemovedXid
        type: u4
        doc: conflict horizon for hot standby
      - id: ndeleted
        type: u2
        doc: items deleted
      - id: nupdated
        type: u2
        doc: posting list tuples updated
  xl_btree_delete_16:
    doc: Btree DELETE from 16 (SizeOfBtreeDelete 9)
    seq:
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u4
        doc: conflict horizon for hot standby
      - id: ndeleted
        type: u2
        doc: items deleted
      - id: nupdated
        type: u2
        doc: posting list tuples updated
      - id: is_catalog_rel
        -orig-id: isCatalogRel
        type: u1
        doc: the index is of a catalog
  xl_btree_update:
    doc: one updated posting list tuple of a Btree VACUUM or DELETE (uint16 ptids[ndeletedtids] follow)
    seq:
      - id: ndeletedtids
        type: u2
        doc: TIDs deleted from the posting list
  xl_btree_mark_page_halfdead:
    doc: Btree MARK_PAGE_HALFDEAD
    seq:
      - id: poffset
        type: u2
        doc: deleted tuple id in parent page
      - id: pad
        size: 2
        doc: alignment
      - id: leafblk
        type: u4
        doc: leaf block ultimately being deleted
      - id: leftblk
        type: u4
        doc: leaf block's left sibling, if any
      - id: rightblk
        type: u4
        doc: leaf block's right sibling
      - id: topparent
        type: u4
        doc: topmost internal page in the subtree
  xl_btree_unlink_page_14:
    doc: Btree UNLINK_PAGE and UNLINK_PAGE_META from 14 (SizeOfBtreeUnlinkPage 36)
    seq:
      - id: leftsib
        type: u4
        doc: target block's left sibling, if any
      - id: rightsib
        type: u4
        doc: target block's right sibling
      - id: level
        type: u4
        doc: target block's level
      - id: pad
        size: 4
        doc: alignment of safexid
      - id: safexid
        type: u8
        doc: target block's BTPageSetDeleted() XID (FullTransactionId)
      - id: leafleftsib
        type: u4
        doc: leaf block's left sibling
      - id: leafrightsib
        type: u4
        doc: leaf block's right sibling
      - id: leaftopparent
        type: u4
        doc: next child down in the subtree
  xl_btree_reuse_page_14:
    doc: Btree REUSE_PAGE, 14 and 15
    seq:
      - id: spc_node
        type: u4
        doc: RelFileNode spcNode
      - id: db_node
        type: u4
        doc: RelFileNode dbNode
      - id: rel_node
        type: u4
        doc: RelFileNode relNode
      - id: block
        type: u4
        doc: the page reused
      - id: latest_removed_full_xid
        -orig-id: latestRemovedFullXid
        type: u8
        doc: conflict horizon (FullTransactionId)
  xl_btree_reuse_page_16:
    doc: Btree REUSE_PAGE from 16 (SizeOfBtreeReusePage 25)
    seq:
      - id: spc_oid
        -orig-id: spcOid
        type: u4
        doc: RelFileLocator spcOid
      - id: db_oid
        -orig-id: dbOid
        type: u4
        doc: RelFileLocator dbOid
      - id: rel_number
        -orig-id: relNumber
        type: u4
        doc: RelFileLocator relNumber
      - id: block
        type: u4
        doc: the page reused
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u8
        doc: conflict horizon (FullTransactionId)
      - id: is_catalog_rel
        -orig-id: isCatalogRel
        type: u1
        doc: the index is of a catalog
  xl_btree_metadata_14:
    doc: Btree metapage contents in INSERT_META, NEWROOT, UNLINK_PAGE_META and META_CLEANUP block data, from 14
    seq:
      - id: version
        type: u4
        doc: BTREE_VERSION
      - id: root
        type: u4
        doc: root block
      - id: level
        type: u4
        doc: root's level
      - id: fastroot
        type: u4
        doc: fast root block
      - id: fastlevel
        type: u4
        doc: fast root's level
      - id: last_cleanup_num_delpages
        type: u4
        doc: pages deleted by the last VACUUM
      - id: allequalimage
        type: u1
        doc: deduplication is safe
  xl_heap_freeze_page_10:
    doc: Heap2 FREEZE_PAGE, 10 to 15 (xl_heap_freeze_tuple[ntuples] follow in block 0's data)
    seq:
      - id: cutoff_xid
        type: u4
        doc: the freeze cutoff
      - id: ntuples
        type: u2
        doc: tuples frozen
  xl_hash_insert:
    doc: Hash INSERT
    seq:
      - id: offnum
        type: u2
        doc: where the tuple goes
  xl_hash_delete:
    doc: Hash DELETE
    seq:
      - id: clear_dead_marking
        type: u1
        doc: clear LH_PAGE_HAS_DEAD_TUPLES
      - id: is_primary_bucket_page
        type: u1
        doc: the page is the bucket's primary page
  xl_hash_update_meta_page:
    doc: Hash UPDATE_META_PAGE
    seq:
      - id: ntuples
        type: f8
        doc: the index's tuple count
  xl_gin_insert:
    -orig-id: ginxlogInsert
    doc: Gin INSERT; two block numbers follow for a non-leaf insert, the payload is block 0's data
    seq:
      - id: flags
        type: u2
        doc: GIN_INSERT_ISDATA 0x01, GIN_INSERT_ISLEAF 0x02, GIN_INSERT_SPLIT_ROOT 0x04
  xl_gin_insert_entry:
    -orig-id: ginxlogInsertEntry
    doc: the head of a Gin INSERT's block 0 data on an entry page (an IndexTupleData follows)
    seq:
      - id: offset
        type: u2
        doc: where the entry goes
      - id: is_delete
        -orig-id: isDelete
        type: u1
        doc: an old entry is replaced
  xl_gin_delete_list_pages:
    -orig-id: ginxlogDeleteListPages
    doc: Gin DELETE_LISTPAGE (the metapage, then the number of pages deleted)
    seq:
      - id: metadata
        size: 56
        doc: GinMetaPageData (gin_page.ksy gin_meta_page_data)
      - id: ndeleted
        type: s4
        doc: pending-list pages deleted
  xl_spgist_add_leaf:
    -orig-id: spgxlogAddLeaf
    doc: SPGist ADD_LEAF
    seq:
      - id: new_page
        -orig-id: newPage
        type: u1
        doc: init dest page
      - id: stores_nulls
        -orig-id: storesNulls
        type: u1
        doc: page is in the nulls tree
      - id: offnum_leaf
        -orig-id: offnumLeaf
        type: u2
        doc: offset where leaf tuple gets placed
      - id: offnum_head_leaf
        -orig-id: offnumHeadLeaf
        type: u2
        doc: offset of head tuple in chain, if any
      - id: offnum_parent
        -orig-id: offnumParent
        type: u2
        doc: where the parent downlink is, if any
      - id: node_i
        -orig-id: nodeI
        type: u2
        doc: which node of the parent
  xl_spgist_vacuum_root:
    -orig-id: spgxlogVacuumRoot
    doc: SPGist VACUUM_ROOT, its first field
    seq:
      - id: n_delete
        -orig-id: nDelete
        type: u2
        doc: tuples deleted from the root page
  xl_brin_samepage_update:
    doc: BRIN SAMEPAGE_UPDATE
    seq:
      - id: offnum
        type: u2
        doc: the updated range tuple
  xl_seq_rec:
    doc: Sequence LOG, its fixed part (the sequence's tuple follows)
    seq:
      - id: spc_node
        type: u4
        doc: RelFileNode spcNode
      - id: db_node
        type: u4
        doc: RelFileNode dbNode
      - id: rel_node
        type: u4
        doc: RelFileNode relNode
  xl_multixact_create:
    doc: MultiXact CREATE_ID, its fixed part (xl_multixact_member[nmembers] follow)
    seq:
      - id: mid
        type: u4
        doc: new MultiXact's ID
      - id: moff
        type: u4
        doc: its starting offset in members file
      - id: nmembers
        type: s4
        doc: number of member XIDs
  xl_multixact_member:
    -orig-id: MultiXactMember
    doc: one member of a multixact
    seq:
      - id: xid
        type: u4
        doc: the member transaction
      - id: status
        type: s4
        doc: MultiXactStatus (multixact_status)
  xl_relmap_update:
    doc: RelMap UPDATE, its fixed part (the map file's bytes follow)
    seq:
      - id: dbid
        type: u4
        doc: database ID, or 0 for shared map
      - id: tsid
        type: u4
        doc: database's tablespace, or pg_global
      - id: nbytes
        type: s4
        doc: size of relmap data
  xl_tblspc_rec:
    doc: Tablespace CREATE (a NUL-terminated path follows) and DROP
    seq:
      - id: ts_id
        type: u4
        doc: the tablespace
  xl_replorigin_set:
    doc: ReplicationOrigin SET
    seq:
      - id: remote_lsn
        type: u8
        doc: the origin's progress
      - id: node_id
        type: u2
        doc: RepOriginId
      - id: force
        type: u1
        doc: set even if it goes backwards
  xl_replorigin_drop:
    doc: ReplicationOrigin DROP
    seq:
      - id: node_id
        type: u2
        doc: RepOriginId
  xl_logical_message:
    doc: LogicalMessage MESSAGE, its fixed part (the NUL-terminated prefix, then the message, follow)
    seq:
      - id: db_id
        -orig-id: dbId
        type: u4
        doc: database Oid emitted from
      - id: transactional
        type: u1
        doc: is message transactional
      - id: pad
        size: 3
        doc: alignment
      - id: prefix_size
        type: u8
        doc: length of prefix, its NUL included
      - id: message_size
        type: u8
        doc: size of the message
  xl_end_of_recovery:
    doc: XLOG END_OF_RECOVERY (17 adds an int wal_level after these)
    seq:
      - id: end_time
        type: s8
        doc: TimestampTz of the end of recovery
      - id: this_time_line_id
        -orig-id: ThisTimeLineID
        type: u4
        doc: new TLI
      - id: prev_time_line_id
        -orig-id: PrevTimeLineID
        type: u4
        doc: previous TLI we forked off from
  xl_gist_page_split:
    -orig-id: gistxlogPageSplit
    doc: GiST PAGE_SPLIT, its fixed part
    seq:
      - id: origrlink
        type: u4
        doc: rightlink of the page before split
      - id: pad
        size: 4
        doc: alignment
      - id: orignsn
        type: u8
        doc: NSN of the page before split
      - id: origleaf
        type: u1
        doc: was the split page a leaf page?
      - id: pad2
        size: 1
        doc: alignment
      - id: npage
        type: u2
        doc: number of pages in the split
      - id: markfollowright
        type: u1
        doc: set F_FOLLOW_RIGHT flags
  xl_gist_page_delete:
    -orig-id: gistxlogPageDelete
    doc: GiST PAGE_DELETE from 13
    seq:
      - id: delete_xid
        -orig-id: deleteXid
        type: u8
        doc: last Xid which could see page in scan (FullTransactionId)
      - id: downlink_offset
        -orig-id: downlinkOffset
        type: u2
        doc: offset of downlink referencing this page
  xl_spgist_move_leafs:
    -orig-id: spgxlogMoveLeafs
    doc: SPGist MOVE_LEAFS, its fixed part
    seq:
      - id: n_moves
        -orig-id: nMoves
        type: u2
        doc: number of tuples moved from source page
      - id: new_page
        -orig-id: newPage
        type: u1
        doc: init dest page
      - id: replace_dead
        -orig-id: replaceDead
        type: u1
        doc: are we replacing a DEAD source tuple?
      - id: stores_nulls
        -orig-id: storesNulls
        type: u1
        doc: pages are in the nulls tree
      - id: pad
        size: 1
        doc: alignment
      - id: offnum_parent
        -orig-id: offnumParent
        type: u2
        doc: where the parent downlink is
      - id: node_i
        -orig-id: nodeI
        type: u2
        doc: which node of the parent
  xl_spgist_pick_split:
    -orig-id: spgxlogPickSplit
    doc: SPGist PICKSPLIT, its fixed part
    seq:
      - id: is_root_split
        -orig-id: isRootSplit
        type: u1
        doc: the root page was split
      - id: pad
        size: 1
        doc: alignment
      - id: n_delete
        -orig-id: nDelete
        type: u2
        doc: tuples removed from the source page
      - id: n_insert
        -orig-id: nInsert
        type: u2
        doc: new tuples
      - id: init_src
        -orig-id: initSrc
        type: u1
        doc: re-init source page
      - id: init_dest
        -orig-id: initDest
        type: u1
        doc: re-init dest page
      - id: offnum_inner
        -orig-id: offnumInner
        type: u2
        doc: where the new inner tuple goes
      - id: init_inner
        -orig-id: initInner
        type: u1
        doc: re-init inner page
      - id: stores_nulls
        -orig-id: storesNulls
        type: u1
        doc: pages are in the nulls tree
      - id: inner_is_parent
        -orig-id: innerIsParent
        type: u1
        doc: the inner tuple's page is the parent page
      - id: pad2
        size: 1
        doc: alignment
      - id: offnum_parent
        -orig-id: offnumParent
        type: u2
        doc: where the parent downlink is
      - id: node_i
        -orig-id: nodeI
        type: u2
        doc: which node of the parent
  xl_spgist_vacuum_leaf:
    -orig-id: spgxlogVacuumLeaf
    doc: SPGist VACUUM_LEAF, its fixed part
    seq:
      - id: n_dead
        -orig-id: nDead
        type: u2
        doc: tuples made DEAD
      - id: n_placeholder
        -orig-id: nPlaceholder
        type: u2
        doc: tuples made PLACEHOLDER
      - id: n_move
        -orig-id: nMove
        type: u2
        doc: tuples moved
      - id: n_chain
        -orig-id: nChain
        type: u2
        doc: tuples whose chain link changes
  xl_spgist_vacuum_redirect:
    -orig-id: spgxlogVacuumRedirect
    doc: SPGist VACUUM_REDIRECT (newestRedirectXid before 16, snapshotConflictHorizon from 16, isCatalogRel 16+)
    seq:
      - id: n_to_placeholder
        -orig-id: nToPlaceholder
        type: u2
        doc: redirects to make placeholders
      - id: first_placeholder
        -orig-id: firstPlaceholder
        type: u2
        doc: first placeholder tuple to remove
      - id: snapshot_conflict_horizon
        -orig-id: snapshotConflictHorizon
        type: u4
        doc: newest XID of removed redirects
      - id: is_catalog_rel
        -orig-id: isCatalogRel
        type: u1
        doc: the index is of a catalog (16+)
  xl_restore_point:
    doc: XLOG RESTORE_POINT, its fixed part (char rp_name[MAXFNAMELEN] follows)
    seq:
      - id: rp_time
        type: s8
        doc: TimestampTz of the restore point
enums:
  infobits:
    0x01:
      id: xlhl_xmax_is_multi
      -orig-id: XLHL_XMAX_IS_MULTI
      doc: IS_MULTI
    0x02:
      id: xlhl_xmax_lock_only
      -orig-id: XLHL_XMAX_LOCK_ONLY
      doc: LOCK_ONLY
    0x04:
      id: xlhl_xmax_excl_lock
      -orig-id: XLHL_XMAX_EXCL_LOCK
      doc: EXCL_LOCK
    0x08:
      id: xlhl_xmax_keyshr_lock
      -orig-id: XLHL_XMAX_KEYSHR_LOCK
      doc: KEYSHR_LOCK
    0x10:
      id: xlhl_keys_updated
      -orig-id: XLHL_KEYS_UPDATED
      doc: KEYS_UPDATED
  xact_xinfo:
    0x01:
      id: xact_xinfo_has_dbinfo
      -orig-id: XACT_XINFO_HAS_DBINFO
      doc: dbId and tsId follow
    0x02:
      id: xact_xinfo_has_subxacts
      -orig-id: XACT_XINFO_HAS_SUBXACTS
      doc: nsubxacts and their xids follow
    0x04:
      id: xact_xinfo_has_relfilenodes
      -orig-id: XACT_XINFO_HAS_RELFILENODES
      doc: nrels and RelFileNodes follow (XACT_XINFO_HAS_RELFILELOCATORS from 16)
    0x08:
      id: xact_xinfo_has_invals
      -orig-id: XACT_XINFO_HAS_INVALS
      doc: nmsgs and SharedInvalidationMessages follow (commit only)
    0x10:
      id: xact_xinfo_has_twophase
      -orig-id: XACT_XINFO_HAS_TWOPHASE
      doc: the prepared transaction's xid follows
    0x20:
      id: xact_xinfo_has_origin
      -orig-id: XACT_XINFO_HAS_ORIGIN
      doc: origin_lsn and origin_timestamp follow
    0x40:
      id: xact_xinfo_has_ae_locks
      -orig-id: XACT_XINFO_HAS_AE_LOCKS
      doc: the transaction held AccessExclusiveLocks
    0x80:
      id: xact_xinfo_has_gid
      -orig-id: XACT_XINFO_HAS_GID
      doc: the prepared transaction's GID follows the xid
    0x100:
      id: xact_xinfo_has_dropped_stats
      -orig-id: XACT_XINFO_HAS_DROPPED_STATS
      doc: nitems and xl_xact_stats_items follow the rels (15+)
    0x20000000:
      id: xact_completion_apply_feedback
      -orig-id: XACT_COMPLETION_APPLY_FEEDBACK
      doc: the commit asked for remote_apply feedback
    0x40000000:
      id: xact_completion_update_relcache_file
      -orig-id: XACT_COMPLETION_UPDATE_RELCACHE_FILE
      doc: relcache init files must be invalidated
    0x80000000:
      id: xact_completion_force_sync_commit
      -orig-id: XACT_COMPLETION_FORCE_SYNC_COMMIT
      doc: the commit was forced synchronous
  xlhp_flags:
    0x02:
      id: xlhp_is_catalog_rel
      -orig-id: XLHP_IS_CATALOG_REL
      doc: the relation is a catalog (for the conflict horizon)
    0x04:
      id: xlhp_cleanup_lock
      -orig-id: XLHP_CLEANUP_LOCK
      doc: redo needs a cleanup lock
    0x08:
      id: xlhp_has_conflict_horizon
      -orig-id: XLHP_HAS_CONFLICT_HORIZON
      doc: a snapshotConflictHorizon follows the struct
    0x10:
      id: xlhp_has_freeze_plans
      -orig-id: XLHP_HAS_FREEZE_PLANS
      doc: block 0's data starts with freeze plans
    0x20:
      id: xlhp_has_redirections
      -orig-id: XLHP_HAS_REDIRECTIONS
      doc: redirected offset pairs follow
    0x40:
      id: xlhp_has_dead_items
      -orig-id: XLHP_HAS_DEAD_ITEMS
      doc: dead offsets follow
    0x80:
      id: xlhp_has_now_unused_items
      -orig-id: XLHP_HAS_NOW_UNUSED_ITEMS
      doc: now unused offsets follow
  multixact_status:
    0:
      id: multi_xact_status_for_key_share
      -orig-id: MultiXactStatusForKeyShare
      doc: keysh
    1:
      id: multi_xact_status_for_share
      -orig-id: MultiXactStatusForShare
      doc: sh
    2:
      id: multi_xact_status_for_no_key_update
      -orig-id: MultiXactStatusForNoKeyUpdate
      doc: fornokeyupd
    3:
      id: multi_xact_status_for_update
      -orig-id: MultiXactStatusForUpdate
      doc: forupd
    4:
      id: multi_xact_status_no_key_update
      -orig-id: MultiXactStatusNoKeyUpdate
      doc: nokeyupd
    5:
      id: multi_xact_status_update
      -orig-id: MultiXactStatusUpdate
      doc: upd
  xlh_insert_flags:
    0x08:
      id: xlh_insert_contains_new_tuple
      -orig-id: XLH_INSERT_CONTAINS_NEW_TUPLE
      doc: a logical-decoding copy of the new tuple is in the record
  xlh_update_flags:
    0x20:
      id: xlh_update_prefix_from_old
      -orig-id: XLH_UPDATE_PREFIX_FROM_OLD
      doc: the new tuple's first bytes of data are the old tuple's (a uint16 length leads the block data)
    0x40:
      id: xlh_update_suffix_from_old
      -orig-id: XLH_UPDATE_SUFFIX_FROM_OLD
      doc: the new tuple's last bytes are the old tuple's (a uint16 length follows the prefix's)
  heap_info:
    0x80:
      id: xlog_heap_init_page
      -orig-id: XLOG_HEAP_INIT_PAGE
      doc: the record initialises its page (MULTI_INSERT's tuples then go to offsets 1, 2, ...)
