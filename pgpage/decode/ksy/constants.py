# GENERATED FILE - DO NOT EDIT.
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned) from:
#  formats/brin_page.ksy (sha256 d06e541d0e64aa71a3ba5375e34133d3d655e9c37b95c27e1f95cf7a9f341828)
#  formats/ext_index_page.ksy (sha256 975659deee78787eeed9ec32a63c81f2252745e68b84ec05faad6df293048d77)
#  formats/fsm_page.ksy (sha256 6c1139ed564b6d57ffb05e20b42092927a7f81fcda10d158f2ff17e09f8db678)
#  formats/gin_page.ksy (sha256 cc81a5d8a995539586f64eab8bf98d21833ab41a1ffbe1619325a29565fc7d1d)
#  formats/gist_page.ksy (sha256 af18ae021c9b11c1a92ec59ea6ad41179f218243f79029ef4d0a78a3c445b7e4)
#  formats/hash_page.ksy (sha256 3c0ade264f1083ea3be95eaf73fc514468829f6b6a0b5103770a9847f4a81255)
#  formats/heap_tuple.ksy (sha256 f1f86cc2699c447947c68badd54505dbe5daad68f93b49793bb001cdd33daaf2)
#  formats/nbtree.ksy (sha256 a14c81411d593ec0124b60ee6f67a5003b11ace4914c2e9fafd9fa9da068397b)
#  formats/pg_control.ksy (sha256 dfc2b7f8dc0d45df3ff96a0704d3dbe631261deacba64afeff41a74b4d348501)
#  formats/pg_filenode_map.ksy (sha256 3e456ad97ae2abae683700fe2cf86be320e4157b09a2cbc224eeb766af6dd8ce)
#  formats/pg_multixact.ksy (sha256 c2926354371b0893f8b90d4123ac580c669dd4dbc55d2a0271276fd4b0e132d2)
#  formats/pg_page.ksy (sha256 99c9aaa07d6bd5c203741319ff30204e49f41401658caeb731894a1505319ff4)
#  formats/pg_xact.ksy (sha256 7481e17bb813b844aad4243e7940d0a8e19e3e43c448691d48698245153390ac)
#  formats/pgstat_collector.ksy (sha256 1dfc0297089643608fb3d6ccddf3fdafbf2f7f1daae2103286ed69cb3fb1dd5a)
#  formats/pgstat_shmem.ksy (sha256 6710e8709e6947e4339e696d46a93040a2bdcd879207656a9ada90afadf1af66)
#  formats/pgstat_tab_entry.ksy (sha256 154e0d1f20e7323116c50f1c7de46d9e8ad576b18fc9b4551b6824c194e1b09f)
#  formats/seq_page.ksy (sha256 b5095b1495f3153a4e1ae61894121a7254d883f23d394a718bc64414ff316b84)
#  formats/spgist_page.ksy (sha256 eba127025da55d324058452d4a7096626f794c3d724308335540fe37c5744aa7)
#  formats/vm_page.ksy (sha256 b7c8213a8c424bc2d3f7ba09a1dff5e14e7e8b148b7cd539726aad9614a6417a)
#  formats/xlog.ksy (sha256 d8f3d2efb0ec22bed489894f921a1a4540dccfee87479d9083b3fff8462d2fa0)
#  formats/xlog_records.ksy (sha256 f36f977366d89d02e4ed4b325a577ed221635bf796550e58da47db823a0649ad)
"""Every constant formats/*.ksy define, by PostgreSQL's name: flag bits, masks, special values and
the sizes of the fixed-size types. The compiled kernel includes the same table as ``pgp_layout.h``;
see formats/generate.py (``build_constants``) for how a constant is named."""

# formats/brin_page.ksy: brin_page::brin_page_type
BRIN_PAGETYPE_META = 0xf091
BRIN_PAGETYPE_REVMAP = 0xf092
BRIN_PAGETYPE_REGULAR = 0xf093

# formats/brin_page.ksy: brin_page::brin_tuple_info
BRIN_OFFSET_MASK = 31
BRIN_EMPTY_RANGE_MASK = 32
BRIN_PLACEHOLDER_MASK = 64
BRIN_NULLS_MASK = 128

# formats/brin_page.ksy: brin_page::brin_flags
BRIN_EVACUATE_PAGE = 1

# formats/brin_page.ksy: brin_page::brin_constants
BRIN_META_MAGIC = 0xa8109cfa
BRIN_CURRENT_VERSION = 1

# formats/ext_index_page.ksy: ext_index_page::bloom_flags
BLOOM_META = 1
BLOOM_DELETED = 2

# formats/ext_index_page.ksy: ext_index_page::ext_page_id
BLOOM_PAGE_ID = 0xff83  # contrib/bloom/bloom.h
IVFFLAT_PAGE_ID = 0xff84  # pgvector src/ivfflat.h
HNSW_PAGE_ID = 0xff90  # pgvector src/hnsw.h

# formats/ext_index_page.ksy: ext_index_page::ext_meta_magic
BLOOM_MAGICK_NUMBER = 0xdbac0ded  # contrib/bloom/bloom.h
IVFFLAT_MAGIC_NUMBER = 0x14ff1a7
HNSW_MAGIC_NUMBER = 0xa953a953

# formats/fsm_page.ksy: fsm_page::fsm_constants
FSM_CAT_STEP = 32  # bytes of free space per category step at 8 KiB (BLCKSZ / FSM_CATEGORIES)
FSM_TREE_DEPTH = 3  # levels of FSM pages at 8 KiB (SlotsPerFSMPage >= 1626)

# formats/gin_page.ksy: gin_page::gin_null_category
GIN_CAT_NORM_KEY = 0  # normal, non-null key value
GIN_CAT_NULL_KEY = 1  # null key value
GIN_CAT_EMPTY_ITEM = 2  # placeholder for zero-key item
GIN_CAT_NULL_ITEM = 3  # placeholder for null item

# formats/gin_page.ksy: gin_page::gin_tuple_constants
GIN_TREE_POSTING = 0xffff  # ip_posid of an entry tuple whose t_tid block is a posting tree's root
GIN_ITUP_COMPRESSED = 0x80000000  # set in the posting offset of a tuple whose posting list is compressed (9.4+)

# formats/gin_page.ksy: gin_page::gin_posting_list_constants
MaxHeapTuplesPerPageBits = 11  # low bits of a varbyte-encoded item pointer that hold its offset number

# formats/gin_page.ksy: gin_page::gin_version
GIN_CURRENT_VERSION = 2  # indexes initialized in 9.4 or later; 1 may hold uncompressed posting lists

# formats/gin_page.ksy: gin_page::gin_flags
GIN_DATA = 1
GIN_LEAF = 2
GIN_DELETED = 4
GIN_META = 8
GIN_LIST = 16
GIN_LIST_FULLROW = 32  # makes sense only on GIN_LIST page
GIN_INCOMPLETE_SPLIT = 64  # page was split, but parent not updated
GIN_COMPRESSED = 128

# formats/gist_page.ksy: gist_page::gist_flags
F_LEAF = 1  # leaf page
F_DELETED = 2  # the page has been deleted
F_TUPLES_DELETED = 4  # old-style VACUUM FULL flag (some tuples have been deleted)
F_FOLLOW_RIGHT = 8  # page to the right has no downlink
F_HAS_GARBAGE = 16  # some tuples on the page are dead, but not deleted yet

# formats/gist_page.ksy: gist_page::gist_constants
GIST_PAGE_ID = 0xff81

# formats/hash_page.ksy: hash_page::hasho_flag
LH_OVERFLOW_PAGE = 1
LH_BUCKET_PAGE = 2
LH_BITMAP_PAGE = 4
LH_META_PAGE = 8
LH_BUCKET_BEING_POPULATED = 16
LH_BUCKET_BEING_SPLIT = 32
LH_BUCKET_NEEDS_SPLIT_CLEANUP = 64
LH_PAGE_HAS_DEAD_TUPLES = 128

# formats/hash_page.ksy: hash_page::hash_page_type
LH_UNUSED_PAGE = 0
LH_PAGE_TYPE = 15  # mask of the page type bits (OVERFLOW | BUCKET | BITMAP | META)

# formats/hash_page.ksy: hash_page::hash_constants
HASH_SPLITPOINT_PHASE_BITS = 2  # a splitpoint group past the first ones is allocated in 2^2 phases
HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE = 10  # the first 10 splitpoint groups are allocated in one phase each
HASHO_PAGE_ID = 0xff80
HASH_MAGIC = 0x6440640
HASH_VERSION = 4

# formats/heap_tuple.ksy: heap_tuple::infomask_flags
HEAP_HASNULL = 1  # has null attribute(s)
HEAP_HASVARWIDTH = 2  # has variable-width attribute(s)
HEAP_HASEXTERNAL = 4  # has external stored attribute(s)
HEAP_HASOID_OLD = 8  # has an object-id field (HEAP_HASOID up to PostgreSQL 11)
HEAP_XMAX_KEYSHR_LOCK = 16  # xmax is a key-shared locker
HEAP_COMBOCID = 32  # t_cid is a combo CID
HEAP_XMAX_EXCL_LOCK = 64  # xmax is exclusive locker
HEAP_XMAX_LOCK_ONLY = 128  # xmax, if valid, is only a locker
HEAP_XMIN_COMMITTED = 0x100  # t_xmin committed
HEAP_XMIN_INVALID = 0x200  # t_xmin invalid/aborted
HEAP_XMAX_COMMITTED = 0x400  # t_xmax committed
HEAP_XMAX_INVALID = 0x800  # t_xmax invalid/aborted
HEAP_XMAX_IS_MULTI = 0x1000  # t_xmax is a MultiXactId
HEAP_UPDATED = 0x2000  # this is UPDATEd version of row
HEAP_MOVED_OFF = 0x4000  # moved to another place by pre-9.0 VACUUM FULL; kept for binary upgrade support
HEAP_MOVED_IN = 0x8000  # moved from another place by pre-9.0 VACUUM FULL; kept for binary upgrade support

# formats/heap_tuple.ksy: heap_tuple::infomask_combined
HEAP_XMAX_SHR_LOCK = 80  # (HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK); also the value of HEAP_LOCK_MASK
HEAP_XMIN_FROZEN = 0x300  # (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID)
HEAP_IS_DATUM = 0xc00  # (HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID) on a versioned composite datum; recent minor releases only
HEAP_MOVED = 0xc000  # (HEAP_MOVED_OFF | HEAP_MOVED_IN)
HEAP_XACT_MASK = 0xfff0  # visibility-related bits of t_infomask (a mask)

# formats/heap_tuple.ksy: heap_tuple::infomask2_flags
HEAP_KEYS_UPDATED = 0x2000  # tuple was updated and key cols modified, or tuple deleted
HEAP_HOT_UPDATED = 0x4000  # tuple was HOT-updated
HEAP_ONLY_TUPLE = 0x8000  # this is heap-only tuple

# formats/heap_tuple.ksy: heap_tuple::infomask2_masks
HEAP_NATTS_MASK = 0x7ff  # 11 bits for number of attributes (0x1800 are free)
HEAP2_XACT_MASK = 0xe000  # visibility-related bits of t_infomask2

# formats/heap_tuple.ksy: heap_tuple::special_xid
InvalidTransactionId = 0
BootstrapTransactionId = 1
FrozenTransactionId = 2
FirstNormalTransactionId = 3

# formats/nbtree.ksy: nbtree::btpo_flags
BTP_LEAF = 1  # leaf page, i.e. not internal page
BTP_ROOT = 2  # root page (has no parent)
BTP_DELETED = 4  # page has been deleted from tree
BTP_META = 8  # meta-page
BTP_HALF_DEAD = 16  # empty, but still in tree
BTP_SPLIT_END = 32  # rightmost page of split group
BTP_HAS_GARBAGE = 64  # page has LP_DEAD tuples (deprecated)
BTP_INCOMPLETE_SPLIT = 128  # right sibling's downlink is missing
BTP_HAS_FULLXID = 0x100  # contains BTDeletedPageData (PostgreSQL 14+)

# formats/nbtree.ksy: nbtree::btree_version
BTREE_MIN_VERSION = 2  # before PostgreSQL 11; only the first six metapage fields
BTREE_NOVAC_VERSION = 3  # PostgreSQL 11; all metapage fields, no heap TID in the key space
BTREE_VERSION = 4  # PostgreSQL 12+; heapkeyspace

# formats/nbtree.ksy: nbtree::btree_magic
BTREE_MAGIC = 0x53162  # magic number in metapage

# formats/nbtree.ksy: nbtree::t_info_bits
INDEX_SIZE_MASK = 0x1fff  # IndexTupleSize mask (a mask, not a flag)
INDEX_ALT_TID_MASK = 0x2000  # INDEX_AM_RESERVED_BIT as used by nbtree
INDEX_VAR_MASK = 0x4000  # has variable-width attribute(s)
INDEX_NULL_MASK = 0x8000  # has null attribute(s)

# formats/nbtree.ksy: nbtree::bt_offset_bits
BT_OFFSET_MASK = 0xfff  # number of key attributes (pivot) or of heap TIDs (posting)
BT_PIVOT_HEAP_TID_ATTR = 0x1000  # pivot tuple has a heap TID in its last 6 bytes
BT_IS_POSTING = 0x2000  # posting list tuple (PostgreSQL 13+)
BT_STATUS_OFFSET_MASK = 0xf000  # the 4 status bits of t_tid.ip_posid

# formats/pg_control.ksy: pg_control::db_state
DB_STARTUP = 0
DB_SHUTDOWNED = 1
DB_SHUTDOWNED_IN_RECOVERY = 2
DB_SHUTDOWNING = 3
DB_IN_CRASH_RECOVERY = 4
DB_IN_ARCHIVE_RECOVERY = 5
DB_IN_PRODUCTION = 6

# formats/pg_control.ksy: pg_control::wal_level
WAL_LEVEL_MINIMAL = 0
WAL_LEVEL_REPLICA = 1
WAL_LEVEL_LOGICAL = 2

# formats/pg_multixact.ksy: pg_multixact::multi_xact_status
MultiXactStatusForKeyShare = 0  # SELECT ... FOR KEY SHARE; pg_get_multixact_members() mode "keysh"
MultiXactStatusForShare = 1  # SELECT ... FOR SHARE; "sh"
MultiXactStatusForNoKeyUpdate = 2  # SELECT ... FOR NO KEY UPDATE; "fornokeyupd"
MultiXactStatusForUpdate = 3  # SELECT ... FOR UPDATE; "forupd"
MultiXactStatusNoKeyUpdate = 4  # an UPDATE that changes no key column; "nokeyupd"
MultiXactStatusUpdate = 5  # other UPDATEs and DELETE; "upd"

# formats/pg_page.ksy: pg_page::lp_flags
LP_UNUSED = 0  # unused (should always have lp_len=0)
LP_NORMAL = 1  # used (should always have lp_len>0)
LP_REDIRECT = 2  # HOT redirect (should have lp_len=0)
LP_DEAD = 3  # dead, may or may not have storage

# formats/pg_page.ksy: pg_page::pd_flags
PD_HAS_FREE_LINES = 1  # are there any unused line pointers?
PD_PAGE_FULL = 2  # not enough free space for new tuple?
PD_ALL_VISIBLE = 4  # all tuples on page are visible to everyone
PD_VALID_FLAG_BITS = 7  # OR of all valid pd_flags bits (a mask, not a flag)

# formats/pg_page.ksy: pg_page::page_layout_version
PG_PAGE_LAYOUT_VERSION = 4  # Layout version since PostgreSQL 8.3 (0 pre-7.3, 1 7.3/7.4, 2 8.0, 3 8.1/8.2).

# formats/pg_page.ksy: pg_page::special_offset_number
InvalidOffsetNumber = 0
VersionedDatumOffsetNumber = 0xfffc  # versioned composite datum (HEAP_IS_DATUM); recent minor releases only
MovedPartitionsOffsetNumber = 0xfffd  # t_ctid of a row moved to another partition by UPDATE (block is InvalidBlockNumber), PG11+
SpecTokenOffsetNumber = 0xfffe  # t_ctid holds a speculative-insertion token in ip_blkid

# formats/pg_page.ksy: pg_page::page_id
SPGIST_PAGE_ID = 0xff82  # SP-GiST index page (access/spgist_private.h)
MAX_BT_CYCLE_ID = 0xff7f  # largest btpo_cycleid an nbtree page may hold (a limit, not an id)

# formats/pg_xact.ksy: pg_xact::transaction_status
TRANSACTION_STATUS_IN_PROGRESS = 0  # also what an xid not yet assigned reads as, and what a transaction cut off by a crash keeps (it is never marked aborted; PostgreSQL treats it as aborted once it is not running)
TRANSACTION_STATUS_COMMITTED = 1
TRANSACTION_STATUS_ABORTED = 2
TRANSACTION_STATUS_SUB_COMMITTED = 3  # subtransaction committed, parent's commit not yet recorded (transient)

# formats/seq_page.ksy: seq_page::seq_constants
SEQ_MAGIC = 0x1717

# formats/spgist_page.ksy: spgist_page::spgist_tuple_state
SPGIST_LIVE = 0  # normal live tuple (either inner or leaf)
SPGIST_REDIRECT = 1  # temporary redirection placeholder
SPGIST_DEAD = 2  # dead, cannot be removed because of links
SPGIST_PLACEHOLDER = 3  # placeholder, used to preserve offsets

# formats/spgist_page.ksy: spgist_page::spgist_leaf_t_info
SGLT_NEXTOFFSET_MASK = 0x3fff  # SGLT_GET_NEXTOFFSET's mask (14+; the whole t_info before)
SGLT_HASNULLMASK = 0x8000  # SGLT_GET_HASNULLMASK's bit (14+)

# formats/spgist_page.ksy: spgist_page::spgist_flags
SPGIST_META = 1
SPGIST_DELETED = 2  # never set, but keep for backwards compatibility
SPGIST_LEAF = 4
SPGIST_NULLS = 8

# formats/spgist_page.ksy: spgist_page::spgist_constants
SPGIST_MAGIC_NUMBER = 0xba0babee

# formats/vm_page.ksy: vm_page::visibilitymap_flags
VISIBILITYMAP_ALL_VISIBLE = 1  # all tuples on the heap page are visible to all transactions
VISIBILITYMAP_ALL_FROZEN = 2  # all tuples on the heap page are frozen
VISIBILITYMAP_VALID_BITS = 3  # OR of all valid visibilitymap flags bits (a mask)

# formats/vm_page.ksy: vm_page::vm_constants
BITS_PER_HEAPBLOCK = 2  # bits of status per heap block

# formats/xlog.ksy: xlog::xlp_info
XLP_FIRST_IS_CONTRECORD = 1  # the page starts with the rest of a record begun on an earlier page
XLP_LONG_HEADER = 2  # the page has an XLogLongPageHeaderData (first page of a segment)
XLP_BKP_REMOVABLE = 4  # full-page images on this page may be removed by an archiver (not used by the server itself)
XLP_FIRST_IS_OVERWRITE_CONTRECORD = 8  # the record continued on this page was abandoned and is overwritten (10.19+, 14+)

# formats/xlog.ksy: xlog::block_ids
XLR_MAX_BLOCK_ID = 32  # the highest block reference id
XLR_BLOCK_ID_TOPLEVEL_XID = 252  # a TransactionId follows, the top-level transaction of a subtransaction's record (14+)
XLR_BLOCK_ID_ORIGIN = 253  # a RepOriginId (uint16) follows
XLR_BLOCK_ID_DATA_LONG = 254  # XLogRecordDataHeaderLong
XLR_BLOCK_ID_DATA_SHORT = 255  # XLogRecordDataHeaderShort

# formats/xlog.ksy: xlog::bkpblock
BKPBLOCK_FORK_MASK = 15  # the fork number's bits
BKPBLOCK_HAS_IMAGE = 16  # an XLogRecordBlockImageHeader follows and the record holds a page image
BKPBLOCK_HAS_DATA = 32  # the record holds data_length bytes of payload for this block
BKPBLOCK_WILL_INIT = 64  # redo will re-initialise the page
BKPBLOCK_SAME_REL = 128  # no RelFileNode follows, the block is of the previous reference's relation

# formats/xlog.ksy: xlog::bimg_info_10
BKPIMAGE_HAS_HOLE_10 = 1  # the image has a hole (10..18)
BKPIMAGE_IS_COMPRESSED_10 = 2  # the image is compressed with pglz (10..14)
BKPIMAGE_APPLY_10 = 4  # redo restores the image (10..14)

# formats/xlog.ksy: xlog::bimg_info_15
BKPIMAGE_HAS_HOLE_15 = 1  # the image has a hole (10..18)
BKPIMAGE_APPLY_15 = 2  # redo restores the image (15+)
BKPIMAGE_COMPRESS_PGLZ_15 = 4  # compressed with pglz (15+)
BKPIMAGE_COMPRESS_LZ4_15 = 8  # compressed with lz4 (15+)
BKPIMAGE_COMPRESS_ZSTD_15 = 16  # compressed with zstd (15+)

# formats/xlog.ksy: xlog::xlr_info
XLR_SPECIAL_REL_UPDATE = 1  # the record changes relation files in ways its block references do not say
XLR_CHECK_CONSISTENCY = 2  # wal_consistency_checking took a full-page image of every block

# formats/xlog_records.ksy: xlog_records::infobits
XLHL_XMAX_IS_MULTI = 1  # IS_MULTI
XLHL_XMAX_LOCK_ONLY = 2  # LOCK_ONLY
XLHL_XMAX_EXCL_LOCK = 4  # EXCL_LOCK
XLHL_XMAX_KEYSHR_LOCK = 8  # KEYSHR_LOCK
XLHL_KEYS_UPDATED = 16  # KEYS_UPDATED

# formats/xlog_records.ksy: xlog_records::xact_xinfo
XACT_XINFO_HAS_DBINFO = 1  # dbId and tsId follow
XACT_XINFO_HAS_SUBXACTS = 2  # nsubxacts and their xids follow
XACT_XINFO_HAS_RELFILENODES = 4  # nrels and RelFileNodes follow (XACT_XINFO_HAS_RELFILELOCATORS from 16)
XACT_XINFO_HAS_INVALS = 8  # nmsgs and SharedInvalidationMessages follow (commit only)
XACT_XINFO_HAS_TWOPHASE = 16  # the prepared transaction's xid follows
XACT_XINFO_HAS_ORIGIN = 32  # origin_lsn and origin_timestamp follow
XACT_XINFO_HAS_AE_LOCKS = 64  # the transaction held AccessExclusiveLocks
XACT_XINFO_HAS_GID = 128  # the prepared transaction's GID follows the xid
XACT_XINFO_HAS_DROPPED_STATS = 0x100  # nitems and xl_xact_stats_items follow the rels (15+)
XACT_COMPLETION_APPLY_FEEDBACK = 0x20000000  # the commit asked for remote_apply feedback
XACT_COMPLETION_UPDATE_RELCACHE_FILE = 0x40000000  # relcache init files must be invalidated
XACT_COMPLETION_FORCE_SYNC_COMMIT = 0x80000000  # the commit was forced synchronous

# formats/xlog_records.ksy: xlog_records::xlhp_flags
XLHP_IS_CATALOG_REL = 2  # the relation is a catalog (for the conflict horizon)
XLHP_CLEANUP_LOCK = 4  # redo needs a cleanup lock
XLHP_HAS_CONFLICT_HORIZON = 8  # a snapshotConflictHorizon follows the struct
XLHP_HAS_FREEZE_PLANS = 16  # block 0's data starts with freeze plans
XLHP_HAS_REDIRECTIONS = 32  # redirected offset pairs follow
XLHP_HAS_DEAD_ITEMS = 64  # dead offsets follow
XLHP_HAS_NOW_UNUSED_ITEMS = 128  # now unused offsets follow

# formats/xlog_records.ksy: xlog_records::xlh_insert_flags
XLH_INSERT_CONTAINS_NEW_TUPLE = 8  # a logical-decoding copy of the new tuple is in the record

# formats/xlog_records.ksy: xlog_records::xlh_update_flags
XLH_UPDATE_PREFIX_FROM_OLD = 32  # the new tuple's first bytes of data are the old tuple's (a uint16 length leads the block data)
XLH_UPDATE_SUFFIX_FROM_OLD = 64  # the new tuple's last bytes are the old tuple's (a uint16 length follows the prefix's)

# formats/xlog_records.ksy: xlog_records::heap_info
XLOG_HEAP_INIT_PAGE = 128  # the record initialises its page (MULTI_INSERT's tuples then go to offsets 1, 2, ...)

# formats/brin_page.ksy: sizes in bytes
SIZEOF_BrinTuple = 5  # brin_page::brin_tuple
SIZEOF_SerializedRanges = 16  # brin_page::serialized_ranges
SIZEOF_BloomFilter = 12  # brin_page::bloom_filter
SIZEOF_BrinSpecialSpace = 8  # brin_page::brin_special_space
SIZEOF_BrinMetaPageData = 16  # brin_page::brin_meta_page_data

# formats/ext_index_page.ksy: sizes in bytes
SIZEOF_BloomPageOpaqueData = 8  # ext_index_page::bloom_page_opaque_data
SIZEOF_HnswPageOpaqueData = 8  # ext_index_page::vector_page_opaque_data

# formats/gin_page.ksy: sizes in bytes
SIZEOF_GinPageOpaqueData = 8  # gin_page::gin_page_opaque_data
SIZEOF_GinMetaPageData = 56  # gin_page::gin_meta_page_data
SIZEOF_PostingItem = 10  # gin_page::gin_posting_item
SIZEOF_GinPostingList = 8  # gin_page::gin_posting_list_header

# formats/gist_page.ksy: sizes in bytes
SIZEOF_GISTPageOpaqueData = 16  # gist_page::gist_page_opaque_data
SIZEOF_GISTDeletedPageContents = 8  # gist_page::gist_deleted_page_contents

# formats/hash_page.ksy: sizes in bytes
SIZEOF_HashPageOpaqueData = 16  # hash_page::hash_page_opaque_data
SIZEOF_HashMetaPageData = 0x11bc  # hash_page::hash_meta_page_data

# formats/heap_tuple.ksy: sizes in bytes
SizeofHeapTupleHeader = 23  # heap_tuple

# formats/nbtree.ksy: sizes in bytes
SIZEOF_BTPageOpaqueData = 16  # nbtree::bt_page_opaque_data
SIZEOF_BTMetaPageData = 48  # nbtree::bt_meta_page_data
SIZEOF_BTDeletedPageData = 8  # nbtree::bt_deleted_page_data
SIZEOF_IndexTupleData = 8  # nbtree::bt_index_tuple

# formats/pg_filenode_map.ksy: sizes in bytes
SIZEOF_RelMapping = 8  # pg_filenode_map::rel_mapping

# formats/pg_page.ksy: sizes in bytes
SizeOfPageHeaderData = 24  # pg_page::page_header
SIZEOF_PageXLogRecPtr = 8  # pg_page::page_xlog_rec_ptr
SIZEOF_ItemIdData = 4  # pg_page::item_id
SIZEOF_ItemPointerData = 6  # pg_page::item_pointer

# formats/pgstat_collector.ksy: sizes in bytes
SIZEOF_PgStat_StatFuncEntry = 24  # pgstat_collector::func_entry

# formats/seq_page.ksy: sizes in bytes
SIZEOF_sequence_magic = 4  # seq_page::sequence_magic
SIZEOF_FormData_pg_sequence_data = 17  # seq_page::form_data_pg_sequence_data

# formats/spgist_page.ksy: sizes in bytes
SIZEOF_SpGistPageOpaqueData = 8  # spgist_page::spgist_page_opaque_data
SIZEOF_SpGistMetaPageData = 68  # spgist_page::spgist_meta_page_data
SIZEOF_SpGistLastUsedPage = 8  # spgist_page::spgist_last_used_page
SIZEOF_SpGistInnerTupleData = 4  # spgist_page::spgist_inner_tuple
SIZEOF_SpGistLeafTupleData = 12  # spgist_page::spgist_leaf_tuple
SIZEOF_SpGistDeadTupleData = 16  # spgist_page::spgist_dead_tuple

# formats/xlog.ksy: sizes in bytes
SIZEOF_XLogPageHeaderData = 24  # xlog::page_header
SIZEOF_XLogLongPageHeaderData = 40  # xlog::long_page_header
SIZEOF_XLogRecord = 24  # xlog::record
SIZEOF_XLogRecordBlockHeader = 4  # xlog::block_header
SIZEOF_XLogRecordBlockImageHeader = 5  # xlog::block_image_header
SIZEOF_XLogRecordBlockCompressHeader = 2  # xlog::block_compress_header
SIZEOF_RelFileNode = 12  # xlog::rel_file_node
SIZEOF_XLogRecordDataHeaderShort = 2  # xlog::data_header_short
SIZEOF_XLogRecordDataHeaderLong = 5  # xlog::data_header_long

# formats/xlog_records.ksy: sizes in bytes
SIZEOF_SharedInvalidationMessage = 16  # xlog_records::shared_invalidation_message
SIZEOF_CheckPoint = 88  # xlog_records::check_point_v1700
SIZEOF_xl_heap_freeze_plan = 12  # xlog_records::xlhp_freeze_plan
SIZEOF_ginxlogInsert = 2  # xlog_records::xl_gin_insert
SIZEOF_ginxlogInsertEntry = 3  # xlog_records::xl_gin_insert_entry
SIZEOF_ginxlogDeleteListPages = 60  # xlog_records::xl_gin_delete_list_pages
SIZEOF_spgxlogAddLeaf = 10  # xlog_records::xl_spgist_add_leaf
SIZEOF_spgxlogVacuumRoot = 2  # xlog_records::xl_spgist_vacuum_root
SIZEOF_MultiXactMember = 8  # xlog_records::xl_multixact_member
SIZEOF_gistxlogPageSplit = 21  # xlog_records::xl_gist_page_split
SIZEOF_gistxlogPageDelete = 10  # xlog_records::xl_gist_page_delete
SIZEOF_spgxlogMoveLeafs = 10  # xlog_records::xl_spgist_move_leafs
SIZEOF_spgxlogPickSplit = 18  # xlog_records::xl_spgist_pick_split
SIZEOF_spgxlogVacuumLeaf = 8  # xlog_records::xl_spgist_vacuum_leaf
SIZEOF_spgxlogVacuumRedirect = 9  # xlog_records::xl_spgist_vacuum_redirect
