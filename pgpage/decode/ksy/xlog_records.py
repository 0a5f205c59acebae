# GENERATED FILE - DO NOT EDIT.
# Source: formats/xlog_records.ksy (sha256 f36f977366d89d02e4ed4b325a577ed221635bf796550e58da47db823a0649ad)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class XlogRecords(KaitaiStruct):
    """The fixed part of the main data of the WAL records pgpage decodes, one type per C struct. A record's main
    data is unaligned (decode/wal/record.py hands it out as bytes); these layouts are the same in every major 10
    to 18 unless a type says otherwise. Block data (tuples, offsets arrays) is read by the resource managers'
    modules in decode/wal/.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/heapam_xlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/nbtxlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xact.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/storage/standbydefs.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/storage_xlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/heapam_xlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/hash_xlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/ginxlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/spgxlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/brin_xlog.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/commands/sequence.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/multixact.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/relmapper.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/commands/tablespace.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/replication/origin.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/replication/message.h
    """

    class HeapInfo(IntEnum):
        xlog_heap_init_page = 128

    class Infobits(IntEnum):
        xlhl_xmax_is_multi = 1
        xlhl_xmax_lock_only = 2
        xlhl_xmax_excl_lock = 4
        xlhl_xmax_keyshr_lock = 8
        xlhl_keys_updated = 16

    class MultixactStatus(IntEnum):
        multi_xact_status_for_key_share = 0
        multi_xact_status_for_share = 1
        multi_xact_status_for_no_key_update = 2
        multi_xact_status_for_update = 3
        multi_xact_status_no_key_update = 4
        multi_xact_status_update = 5

    class XactXinfo(IntEnum):
        xact_xinfo_has_dbinfo = 1
        xact_xinfo_has_subxacts = 2
        xact_xinfo_has_relfilenodes = 4
        xact_xinfo_has_invals = 8
        xact_xinfo_has_twophase = 16
        xact_xinfo_has_origin = 32
        xact_xinfo_has_ae_locks = 64
        xact_xinfo_has_gid = 128
        xact_xinfo_has_dropped_stats = 256
        xact_completion_apply_feedback = 536870912
        xact_completion_update_relcache_file = 1073741824
        xact_completion_force_sync_commit = 2147483648

    class XlhInsertFlags(IntEnum):
        xlh_insert_contains_new_tuple = 8

    class XlhUpdateFlags(IntEnum):
        xlh_update_prefix_from_old = 32
        xlh_update_suffix_from_old = 64

    class XlhpFlags(IntEnum):
        xlhp_is_catalog_rel = 2
        xlhp_cleanup_lock = 4
        xlhp_has_conflict_horizon = 8
        xlhp_has_freeze_plans = 16
        xlhp_has_redirections = 32
        xlhp_has_dead_items = 64
        xlhp_has_now_unused_items = 128
    def __init__(self, _io, _parent=None, _root=None):
        super(XlogRecords, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class CheckPointV1700(KaitaiStruct):
        """XLOG CHECKPOINT_SHUTDOWN/ONLINE main data from 17 on, where CheckPoint gained wal_level (in what was
        padding). Before 17 the record holds the CheckPoint of pg_control.ksy (check_point_v1002 in 10 and 11,
        check_point_v1201 in 12 to 16).
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.CheckPointV1700, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.redo = self._io.read_u8le()
            self.this_time_line_id = self._io.read_u4le()
            self.prev_time_line_id = self._io.read_u4le()
            self.full_page_writes = self._io.read_u1()
            self.pad_after_full_page_writes = self._io.read_bytes(3)
            self.wal_level = self._io.read_s4le()
            self.next_full_xid = self._io.read_u8le()
            self.next_oid = self._io.read_u4le()
            self.next_multi = self._io.read_u4le()
            self.next_multi_offset = self._io.read_u4le()
            self.oldest_xid = self._io.read_u4le()
            self.oldest_xid_db = self._io.read_u4le()
            self.oldest_multi = self._io.read_u4le()
            self.oldest_multi_db = self._io.read_u4le()
            self.pad_after_oldest_multi_db = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.oldest_commit_ts_xid = self._io.read_u4le()
            self.newest_commit_ts_xid = self._io.read_u4le()
            self.oldest_active_xid = self._io.read_u4le()
            self.pad_after_oldest_active_xid = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class SharedInvalidationMessage(KaitaiStruct):
        """one invalidation message (a 16-byte union; the fields pg_waldump prints)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.SharedInvalidationMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.id = self._io.read_s1()
            self.pad = self._io.read_bytes(3)
            self.db_id = self._io.read_u4le()
            self.rel_id = self._io.read_u4le()
            self.rest = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class XlBrinSamepageUpdate(KaitaiStruct):
        """BRIN SAMEPAGE_UPDATE."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBrinSamepageUpdate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeDedup(KaitaiStruct):
        """Btree DEDUP (13+)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeDedup, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.nintervals = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeDelete14(KaitaiStruct):
        """Btree DELETE, 14 and 15; the deleted and updated offsets are block 0's data."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeDelete14, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.latest_removed_xid = self._io.read_u4le()
            self.ndeleted = self._io.read_u2le()
            self.nupdated = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeDelete16(KaitaiStruct):
        """Btree DELETE from 16 (SizeOfBtreeDelete 9)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeDelete16, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.snapshot_conflict_horizon = self._io.read_u4le()
            self.ndeleted = self._io.read_u2le()
            self.nupdated = self._io.read_u2le()
            self.is_catalog_rel = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlBtreeInsert(KaitaiStruct):
        """Btree INSERT_LEAF, INSERT_UPPER, INSERT_META, INSERT_POST."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeInsert, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeMarkPageHalfdead(KaitaiStruct):
        """Btree MARK_PAGE_HALFDEAD."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeMarkPageHalfdead, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.poffset = self._io.read_u2le()
            self.pad = self._io.read_bytes(2)
            self.leafblk = self._io.read_u4le()
            self.leftblk = self._io.read_u4le()
            self.rightblk = self._io.read_u4le()
            self.topparent = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlBtreeMetadata14(KaitaiStruct):
        """Btree metapage contents in INSERT_META, NEWROOT, UNLINK_PAGE_META and META_CLEANUP block data, from 14."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeMetadata14, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.version = self._io.read_u4le()
            self.root = self._io.read_u4le()
            self.level = self._io.read_u4le()
            self.fastroot = self._io.read_u4le()
            self.fastlevel = self._io.read_u4le()
            self.last_cleanup_num_delpages = self._io.read_u4le()
            self.allequalimage = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlBtreeNewroot(KaitaiStruct):
        """Btree NEWROOT."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeNewroot, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.rootblk = self._io.read_u4le()
            self.level = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlBtreeReusePage14(KaitaiStruct):
        """Btree REUSE_PAGE, 14 and 15."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeReusePage14, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.spc_node = self._io.read_u4le()
            self.db_node = self._io.read_u4le()
            self.rel_node = self._io.read_u4le()
            self.block = self._io.read_u4le()
            self.latest_removed_full_xid = self._io.read_u8le()


        def _fetch_instances(self):
            pass


    class XlBtreeReusePage16(KaitaiStruct):
        """Btree REUSE_PAGE from 16 (SizeOfBtreeReusePage 25)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeReusePage16, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.spc_oid = self._io.read_u4le()
            self.db_oid = self._io.read_u4le()
            self.rel_number = self._io.read_u4le()
            self.block = self._io.read_u4le()
            self.snapshot_conflict_horizon = self._io.read_u8le()
            self.is_catalog_rel = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlBtreeSplit(KaitaiStruct):
        """Btree SPLIT_L and SPLIT_R from 13 (SizeOfBtreeSplit 10; before 13 the first three fields, firstright for firstrightoff)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeSplit, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.level = self._io.read_u4le()
            self.firstrightoff = self._io.read_u2le()
            self.newitemoff = self._io.read_u2le()
            self.postingoff = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeUnlinkPage14(KaitaiStruct):
        """Btree UNLINK_PAGE and UNLINK_PAGE_META from 14 (SizeOfBtreeUnlinkPage 36)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeUnlinkPage14, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.leftsib = self._io.read_u4le()
            self.rightsib = self._io.read_u4le()
            self.level = self._io.read_u4le()
            self.pad = self._io.read_bytes(4)
            self.safexid = self._io.read_u8le()
            self.leafleftsib = self._io.read_u4le()
            self.leafrightsib = self._io.read_u4le()
            self.leaftopparent = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlBtreeUpdate(KaitaiStruct):
        """one updated posting list tuple of a Btree VACUUM or DELETE (uint16 ptids[ndeletedtids] follow)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeUpdate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.ndeletedtids = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlBtreeVacuum13(KaitaiStruct):
        """Btree VACUUM from 13 on."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlBtreeVacuum13, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.ndeleted = self._io.read_u2le()
            self.nupdated = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlDbaseCreateFileCopyRec(KaitaiStruct):
        """Database CREATE (10-14) and CREATE_FILE_COPY (15+)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlDbaseCreateFileCopyRec, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.db_id = self._io.read_u4le()
            self.tablespace_id = self._io.read_u4le()
            self.src_db_id = self._io.read_u4le()
            self.src_tablespace_id = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlDbaseCreateWalLogRec(KaitaiStruct):
        """Database CREATE_WAL_LOG (15+)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlDbaseCreateWalLogRec, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.db_id = self._io.read_u4le()
            self.tablespace_id = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlDbaseDropRec(KaitaiStruct):
        """Database DROP (15+), its fixed part; Oid tablespace_ids[ntablespaces] follow."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlDbaseDropRec, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.db_id = self._io.read_u4le()
            self.ntablespaces = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlEndOfRecovery(KaitaiStruct):
        """XLOG END_OF_RECOVERY (17 adds an int wal_level after these)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlEndOfRecovery, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.end_time = self._io.read_s8le()
            self.this_time_line_id = self._io.read_u4le()
            self.prev_time_line_id = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlGinDeleteListPages(KaitaiStruct):
        """Gin DELETE_LISTPAGE (the metapage, then the number of pages deleted)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlGinDeleteListPages, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.metadata = self._io.read_bytes(56)
            self.ndeleted = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlGinInsert(KaitaiStruct):
        """Gin INSERT; two block numbers follow for a non-leaf insert, the payload is block 0's data."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlGinInsert, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.flags = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlGinInsertEntry(KaitaiStruct):
        """the head of a Gin INSERT's block 0 data on an entry page (an IndexTupleData follows)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlGinInsertEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offset = self._io.read_u2le()
            self.is_delete = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlGistPageDelete(KaitaiStruct):
        """GiST PAGE_DELETE from 13."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlGistPageDelete, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.delete_xid = self._io.read_u8le()
            self.downlink_offset = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlGistPageSplit(KaitaiStruct):
        """GiST PAGE_SPLIT, its fixed part."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlGistPageSplit, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.origrlink = self._io.read_u4le()
            self.pad = self._io.read_bytes(4)
            self.orignsn = self._io.read_u8le()
            self.origleaf = self._io.read_u1()
            self.pad2 = self._io.read_bytes(1)
            self.npage = self._io.read_u2le()
            self.markfollowright = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHashDelete(KaitaiStruct):
        """Hash DELETE."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHashDelete, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.clear_dead_marking = self._io.read_u1()
            self.is_primary_bucket_page = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHashInsert(KaitaiStruct):
        """Hash INSERT."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHashInsert, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHashUpdateMetaPage(KaitaiStruct):
        """Hash UPDATE_META_PAGE."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHashUpdateMetaPage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.ntuples = self._io.read_f8le()


        def _fetch_instances(self):
            pass


    class XlHeapDelete(KaitaiStruct):
        """Heap DELETE (SizeOfHeapDelete 8)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapDelete, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xmax = self._io.read_u4le()
            self.offnum = self._io.read_u2le()
            self.infobits_set = self._io.read_u1()
            self.flags = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHeapFreezePage10(KaitaiStruct):
        """Heap2 FREEZE_PAGE, 10 to 15 (xl_heap_freeze_tuple[ntuples] follow in block 0's data)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapFreezePage10, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.cutoff_xid = self._io.read_u4le()
            self.ntuples = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapFreezePage16(KaitaiStruct):
        """Heap2 FREEZE_PAGE, 16 (the plans and offsets are block 0's data)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapFreezePage16, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.snapshot_conflict_horizon = self._io.read_u4le()
            self.nplans = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapHeader(KaitaiStruct):
        """The header fields a heap INSERT's or UPDATE's new tuple carries in its block data (SizeOfHeapHeader 5),
        its null bitmap and data following; redo rebuilds the HeapTupleHeader from them.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.t_infomask2 = self._io.read_u2le()
            self.t_infomask = self._io.read_u2le()
            self.t_hoff = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHeapInplace(KaitaiStruct):
        """Heap INPLACE, its first field (18 adds invalidation messages after it)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapInplace, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapInplace18(KaitaiStruct):
        """Heap INPLACE from 18, its fixed part; SharedInvalidationMessage msgs[nmsgs] follow."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapInplace18, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()
            self.pad = self._io.read_bytes(2)
            self.db_id = self._io.read_u4le()
            self.ts_id = self._io.read_u4le()
            self.relcache_init_file_inval = self._io.read_u1()
            self.pad2 = self._io.read_bytes(3)
            self.nmsgs = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlHeapInsert(KaitaiStruct):
        """Heap INSERT (SizeOfHeapInsert 3)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapInsert, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offnum = self._io.read_u2le()
            self.flags = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHeapLock(KaitaiStruct):
        """Heap LOCK (SizeOfHeapLock 8; the first field is locking_xid before 16, xmax from 16)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapLock, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xmax = self._io.read_u4le()
            self.offnum = self._io.read_u2le()
            self.infobits_set = self._io.read_u1()
            self.flags = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHeapMultiInsert(KaitaiStruct):
        """Heap2 MULTI_INSERT, its fixed part; OffsetNumber offsets[ntuples] follow unless the page is new."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapMultiInsert, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.flags = self._io.read_u1()
            self.pad = self._io.read_bytes(1)
            self.ntuples = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapPrune16(KaitaiStruct):
        """Heap2 PRUNE, 14 to 16 (isCatalogRel from 16); the offsets arrays are block 0's data."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapPrune16, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.snapshot_conflict_horizon = self._io.read_u4le()
            self.nredirected = self._io.read_u2le()
            self.ndead = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapPrune17(KaitaiStruct):
        """Heap2 PRUNE_ON_ACCESS, PRUNE_VACUUM_SCAN, PRUNE_VACUUM_CLEANUP (17+); a TransactionId follows when XLHP_HAS_CONFLICT_HORIZON; block 0's data holds the freeze plans, the redirected, dead and unused offsets (each an xlhp_prune_items) and the frozen offsets, as the flags say."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapPrune17, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.reason = self._io.read_u1()
            self.flags = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlHeapUpdate(KaitaiStruct):
        """Heap UPDATE and HOT_UPDATE (SizeOfHeapUpdate 14)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapUpdate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.old_xmax = self._io.read_u4le()
            self.old_offnum = self._io.read_u2le()
            self.old_infobits_set = self._io.read_u1()
            self.flags = self._io.read_u1()
            self.new_xmax = self._io.read_u4le()
            self.new_offnum = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapVacuum14(KaitaiStruct):
        """Heap2 VACUUM, 14 to 16; the unused offsets are block 0's data."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapVacuum14, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.nunused = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlHeapVisible(KaitaiStruct):
        """Heap2 VISIBLE (cutoff_xid before 16, snapshotConflictHorizon from 16)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlHeapVisible, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.snapshot_conflict_horizon = self._io.read_u4le()
            self.flags = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlInvalidations(KaitaiStruct):
        """Standby INVALIDATIONS, its fixed part (SharedInvalidationMessage[nmsgs] follow)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlInvalidations, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.db_id = self._io.read_u4le()
            self.ts_id = self._io.read_u4le()
            self.relcache_init_file_inval = self._io.read_u1()
            self.pad = self._io.read_bytes(3)
            self.nmsgs = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlLogicalMessage(KaitaiStruct):
        """LogicalMessage MESSAGE, its fixed part (the NUL-terminated prefix, then the message, follow)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlLogicalMessage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.db_id = self._io.read_u4le()
            self.transactional = self._io.read_u1()
            self.pad = self._io.read_bytes(3)
            self.prefix_size = self._io.read_u8le()
            self.message_size = self._io.read_u8le()


        def _fetch_instances(self):
            pass


    class XlMultiInsertTuple(KaitaiStruct):
        """One tuple of a Heap2 MULTI_INSERT's block data (SizeOfMultiInsertTuple 7), SHORTALIGNed, its datalen
        bytes of null bitmap and data following.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlMultiInsertTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.datalen = self._io.read_u2le()
            self.t_infomask2 = self._io.read_u2le()
            self.t_infomask = self._io.read_u2le()
            self.t_hoff = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlMultixactCreate(KaitaiStruct):
        """MultiXact CREATE_ID, its fixed part (xl_multixact_member[nmembers] follow)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlMultixactCreate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.mid = self._io.read_u4le()
            self.moff = self._io.read_u4le()
            self.nmembers = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlMultixactMember(KaitaiStruct):
        """one member of a multixact."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlMultixactMember, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xid = self._io.read_u4le()
            self.status = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlRelmapUpdate(KaitaiStruct):
        """RelMap UPDATE, its fixed part (the map file's bytes follow)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlRelmapUpdate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.dbid = self._io.read_u4le()
            self.tsid = self._io.read_u4le()
            self.nbytes = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlReploriginDrop(KaitaiStruct):
        """ReplicationOrigin DROP."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlReploriginDrop, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.node_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlReploriginSet(KaitaiStruct):
        """ReplicationOrigin SET."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlReploriginSet, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.remote_lsn = self._io.read_u8le()
            self.node_id = self._io.read_u2le()
            self.force = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlRestorePoint(KaitaiStruct):
        """XLOG RESTORE_POINT, its fixed part (char rp_name[MAXFNAMELEN] follows)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlRestorePoint, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.rp_time = self._io.read_s8le()


        def _fetch_instances(self):
            pass


    class XlRunningXacts(KaitaiStruct):
        """Standby RUNNING_XACTS, its fixed part."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlRunningXacts, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xcnt = self._io.read_s4le()
            self.subxcnt = self._io.read_s4le()
            self.subxid_overflow = self._io.read_u1()
            self.pad = self._io.read_bytes(3)
            self.next_xid = self._io.read_u4le()
            self.oldest_running_xid = self._io.read_u4le()
            self.latest_completed_xid = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlSeqRec(KaitaiStruct):
        """Sequence LOG, its fixed part (the sequence's tuple follows)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSeqRec, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.spc_node = self._io.read_u4le()
            self.db_node = self._io.read_u4le()
            self.rel_node = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlSmgrCreate(KaitaiStruct):
        """Storage CREATE."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSmgrCreate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.spc_node = self._io.read_u4le()
            self.db_node = self._io.read_u4le()
            self.rel_node = self._io.read_u4le()
            self.fork_num = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlSmgrTruncate(KaitaiStruct):
        """Storage TRUNCATE."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSmgrTruncate, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.blkno = self._io.read_u4le()
            self.spc_node = self._io.read_u4le()
            self.db_node = self._io.read_u4le()
            self.rel_node = self._io.read_u4le()
            self.flags = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class XlSpgistAddLeaf(KaitaiStruct):
        """SPGist ADD_LEAF."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistAddLeaf, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.new_page = self._io.read_u1()
            self.stores_nulls = self._io.read_u1()
            self.offnum_leaf = self._io.read_u2le()
            self.offnum_head_leaf = self._io.read_u2le()
            self.offnum_parent = self._io.read_u2le()
            self.node_i = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlSpgistMoveLeafs(KaitaiStruct):
        """SPGist MOVE_LEAFS, its fixed part."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistMoveLeafs, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.n_moves = self._io.read_u2le()
            self.new_page = self._io.read_u1()
            self.replace_dead = self._io.read_u1()
            self.stores_nulls = self._io.read_u1()
            self.pad = self._io.read_bytes(1)
            self.offnum_parent = self._io.read_u2le()
            self.node_i = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlSpgistPickSplit(KaitaiStruct):
        """SPGist PICKSPLIT, its fixed part."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistPickSplit, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.is_root_split = self._io.read_u1()
            self.pad = self._io.read_bytes(1)
            self.n_delete = self._io.read_u2le()
            self.n_insert = self._io.read_u2le()
            self.init_src = self._io.read_u1()
            self.init_dest = self._io.read_u1()
            self.offnum_inner = self._io.read_u2le()
            self.init_inner = self._io.read_u1()
            self.stores_nulls = self._io.read_u1()
            self.inner_is_parent = self._io.read_u1()
            self.pad2 = self._io.read_bytes(1)
            self.offnum_parent = self._io.read_u2le()
            self.node_i = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlSpgistVacuumLeaf(KaitaiStruct):
        """SPGist VACUUM_LEAF, its fixed part."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistVacuumLeaf, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.n_dead = self._io.read_u2le()
            self.n_placeholder = self._io.read_u2le()
            self.n_move = self._io.read_u2le()
            self.n_chain = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlSpgistVacuumRedirect(KaitaiStruct):
        """SPGist VACUUM_REDIRECT (newestRedirectXid before 16, snapshotConflictHorizon from 16, isCatalogRel 16+)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistVacuumRedirect, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.n_to_placeholder = self._io.read_u2le()
            self.first_placeholder = self._io.read_u2le()
            self.snapshot_conflict_horizon = self._io.read_u4le()
            self.is_catalog_rel = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class XlSpgistVacuumRoot(KaitaiStruct):
        """SPGist VACUUM_ROOT, its first field."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlSpgistVacuumRoot, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.n_delete = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlStandbyLock(KaitaiStruct):
        """one lock of a Standby LOCK record (after an int32 nlocks)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlStandbyLock, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xid = self._io.read_u4le()
            self.db_oid = self._io.read_u4le()
            self.rel_oid = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlTblspcRec(KaitaiStruct):
        """Tablespace CREATE (a NUL-terminated path follows) and DROP."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlTblspcRec, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.ts_id = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class XlhpFreezePlan(KaitaiStruct):
        """one freeze plan (xl_heap_freeze_plan in 16, xlhp_freeze_plan from 17)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlhpFreezePlan, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xmax = self._io.read_u4le()
            self.t_infomask2 = self._io.read_u2le()
            self.t_infomask = self._io.read_u2le()
            self.frzflags = self._io.read_u1()
            self.pad = self._io.read_bytes(1)
            self.ntuples = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class XlhpFreezePlans(KaitaiStruct):
        """the head of block 0's freeze plans in the PRUNE_* records (17+); xlhp_freeze_plan plans[nplans] follow."""
        def __init__(self, _io, _parent=None, _root=None):
            super(XlogRecords.XlhpFreezePlans, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.nplans = self._io.read_u2le()
            self.pad = self._io.read_bytes(2)


        def _fetch_instances(self):
            pass
