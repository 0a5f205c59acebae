# GENERATED FILE - DO NOT EDIT.
# Source: formats/nbtree.ksy (sha256 a14c81411d593ec0124b60ee6f67a5003b11ace4914c2e9fafd9fa9da068397b)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import pg_page
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Nbtree(KaitaiStruct):
    """One page of a B-tree index: the standard page header and line pointers, a 16-byte
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
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/nbtree.h
    
    
    .. seealso::
       btpo union {level, xact}, btm_oldest_btpo_xact - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/access/nbtree.h
    
    
    .. seealso::
       btree version 2 metapage - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/nbtree.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/itup.h
    """

    class BtOffsetBits(IntEnum):
        bt_offset_mask = 4095
        bt_pivot_heap_tid_attr = 4096
        bt_is_posting = 8192
        bt_status_offset_mask = 61440

    class BtpoFlags(IntEnum):
        btp_leaf = 1
        btp_root = 2
        btp_deleted = 4
        btp_meta = 8
        btp_half_dead = 16
        btp_split_end = 32
        btp_has_garbage = 64
        btp_incomplete_split = 128
        btp_has_fullxid = 256

    class BtreeMagic(IntEnum):
        btree_magic = 340322

    class BtreeVersion(IntEnum):
        btree_min_version = 2
        btree_novac_version = 3
        btree_version = 4

    class TInfoBits(IntEnum):
        index_size_mask = 8191
        index_alt_tid_mask = 8192
        index_var_mask = 16384
        index_null_mask = 32768
    def __init__(self, _io, _parent=None, _root=None):
        super(Nbtree, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.deleted_page_data
        if hasattr(self, '_m_deleted_page_data'):
            pass
            self._m_deleted_page_data._fetch_instances()

        _ = self.meta
        if hasattr(self, '_m_meta'):
            pass
            self._m_meta._fetch_instances()

        _ = self.opaque
        if hasattr(self, '_m_opaque'):
            pass
            self._m_opaque._fetch_instances()


    class BtDeletedPageData(KaitaiStruct):
        """Tuple area of a page deleted by PostgreSQL 14+ (BTP_HAS_FULLXID); pd_lower = 24 + 8."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Nbtree.BtDeletedPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.safexid = self._io.read_u8le()


        def _fetch_instances(self):
            pass

        @property
        def safexid_epoch(self):
            """EpochFromFullTransactionId."""
            if hasattr(self, '_m_safexid_epoch'):
                return self._m_safexid_epoch

            self._m_safexid_epoch = self.safexid >> 32
            return getattr(self, '_m_safexid_epoch', None)

        @property
        def safexid_xid(self):
            """XidFromFullTransactionId."""
            if hasattr(self, '_m_safexid_xid'):
                return self._m_safexid_xid

            self._m_safexid_xid = self.safexid & 4294967295
            return getattr(self, '_m_safexid_xid', None)


    class BtIndexTuple(KaitaiStruct):
        """One nbtree index tuple, parsed from exactly the bytes of its item. The seq is the
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
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Nbtree.BtIndexTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.t_tid = pg_page.PgPage.ItemPointer(self._io)
            self.t_info = self._io.read_u2le()


        def _fetch_instances(self):
            pass
            self.t_tid._fetch_instances()
            _ = self.key_data
            if hasattr(self, '_m_key_data'):
                pass

            _ = self.null_bitmap
            if hasattr(self, '_m_null_bitmap'):
                pass

            _ = self.pivot_heap_tid
            if hasattr(self, '_m_pivot_heap_tid'):
                pass
                self._m_pivot_heap_tid._fetch_instances()

            _ = self.posting_list
            if hasattr(self, '_m_posting_list'):
                pass
                for i in range(len(self._m_posting_list)):
                    pass
                    self._m_posting_list[i]._fetch_instances()



        @property
        def alt_tid(self):
            """INDEX_ALT_TID_MASK (INDEX_AM_RESERVED_BIT)."""
            if hasattr(self, '_m_alt_tid'):
                return self._m_alt_tid

            self._m_alt_tid = self.t_info & 8192 != 0
            return getattr(self, '_m_alt_tid', None)

        @property
        def data_end(self):
            """End of the key data: the start of the posting list, or for a pivot with a heap TID
            the start of its MAXALIGN(sizeof(ItemPointerData)) = 8-byte slot (as pageinspect's
            bt_page_items "data" column counts it; the TID is the last 6 bytes of that slot).
            """
            if hasattr(self, '_m_data_end'):
                return self._m_data_end

            self._m_data_end = (self.posting_offset if self.posting_list_count > 0 else (self.size_clamped - 8 if  ((self.has_heap_tid_attr) and (self.size_clamped >= 16))  else self.size_clamped))
            return getattr(self, '_m_data_end', None)

        @property
        def data_offset(self):
            """IndexInfoFindDataOffset - MAXALIGN(8 [+ 4 for the null bitmap])."""
            if hasattr(self, '_m_data_offset'):
                return self._m_data_offset

            self._m_data_offset = (16 if self.has_nulls else 8)
            return getattr(self, '_m_data_offset', None)

        @property
        def has_heap_tid_attr(self):
            """BT_PIVOT_HEAP_TID_ATTR - the pivot stores a heap TID in its last 6 bytes."""
            if hasattr(self, '_m_has_heap_tid_attr'):
                return self._m_has_heap_tid_attr

            self._m_has_heap_tid_attr =  ((self.is_pivot) and (self.t_tid.ip_posid & 4096 != 0)) 
            return getattr(self, '_m_has_heap_tid_attr', None)

        @property
        def has_nulls(self):
            """INDEX_NULL_MASK."""
            if hasattr(self, '_m_has_nulls'):
                return self._m_has_nulls

            self._m_has_nulls = self.t_info & 32768 != 0
            return getattr(self, '_m_has_nulls', None)

        @property
        def has_varwidths(self):
            """INDEX_VAR_MASK."""
            if hasattr(self, '_m_has_varwidths'):
                return self._m_has_varwidths

            self._m_has_varwidths = self.t_info & 16384 != 0
            return getattr(self, '_m_has_varwidths', None)

        @property
        def is_pivot(self):
            """BTreeTupleIsPivot (can be false for pivots of version 2/3 indexes)."""
            if hasattr(self, '_m_is_pivot'):
                return self._m_is_pivot

            self._m_is_pivot =  ((self.alt_tid) and (self.t_tid.ip_posid & 8192 == 0)) 
            return getattr(self, '_m_is_pivot', None)

        @property
        def is_posting(self):
            """BTreeTupleIsPosting."""
            if hasattr(self, '_m_is_posting'):
                return self._m_is_posting

            self._m_is_posting =  ((self.alt_tid) and (self.t_tid.ip_posid & 8192 != 0)) 
            return getattr(self, '_m_is_posting', None)

        @property
        def key_data(self):
            """Raw key attribute bytes (pageinspect's "data" column shows the bytes after data_offset)."""
            if hasattr(self, '_m_key_data'):
                return self._m_key_data

            if self.data_end >= self.data_offset:
                pass
                _pos = self._io.pos()
                self._io.seek(self.data_offset)
                self._m_key_data = self._io.read_bytes(self.data_end - self.data_offset)
                self._io.seek(_pos)

            return getattr(self, '_m_key_data', None)

        @property
        def n_key_atts(self):
            """BTreeTupleGetNAtts for a pivot tuple (meaningful only when is_pivot)."""
            if hasattr(self, '_m_n_key_atts'):
                return self._m_n_key_atts

            self._m_n_key_atts = self.offset_bits
            return getattr(self, '_m_n_key_atts', None)

        @property
        def n_posting(self):
            """BTreeTupleGetNPosting."""
            if hasattr(self, '_m_n_posting'):
                return self._m_n_posting

            self._m_n_posting = (self.offset_bits if self.is_posting else 0)
            return getattr(self, '_m_n_posting', None)

        @property
        def null_bitmap(self):
            """IndexAttributeBitMapData (INDEX_MAX_KEYS / 8 bytes), bit set = attribute NOT null."""
            if hasattr(self, '_m_null_bitmap'):
                return self._m_null_bitmap

            if  ((self.has_nulls) and (self._io.size() >= 12)) :
                pass
                _pos = self._io.pos()
                self._io.seek(8)
                self._m_null_bitmap = self._io.read_bytes(4)
                self._io.seek(_pos)

            return getattr(self, '_m_null_bitmap', None)

        @property
        def offset_bits(self):
            """t_tid.ip_posid & BT_OFFSET_MASK - key attribute count (pivot) or nTIDs (posting)."""
            if hasattr(self, '_m_offset_bits'):
                return self._m_offset_bits

            self._m_offset_bits = self.t_tid.ip_posid & 4095
            return getattr(self, '_m_offset_bits', None)

        @property
        def pivot_heap_tid(self):
            """BTreeTupleGetHeapTID of a pivot tuple."""
            if hasattr(self, '_m_pivot_heap_tid'):
                return self._m_pivot_heap_tid

            if  ((self.has_heap_tid_attr) and (self.size_clamped >= 14)) :
                pass
                _pos = self._io.pos()
                self._io.seek(self.size_clamped - 6)
                self._m_pivot_heap_tid = pg_page.PgPage.ItemPointer(self._io)
                self._io.seek(_pos)

            return getattr(self, '_m_pivot_heap_tid', None)

        @property
        def posting_list(self):
            """The posting list (BTreeTupleGetPosting), sorted heap TIDs."""
            if hasattr(self, '_m_posting_list'):
                return self._m_posting_list

            if self.posting_list_count > 0:
                pass
                _pos = self._io.pos()
                self._io.seek(self.posting_offset)
                self._m_posting_list = []
                for i in range(self.posting_list_count):
                    self._m_posting_list.append(pg_page.PgPage.ItemPointer(self._io))

                self._io.seek(_pos)

            return getattr(self, '_m_posting_list', None)

        @property
        def posting_list_count(self):
            """Number of posting list TIDs read, n_posting clamped to the tuple."""
            if hasattr(self, '_m_posting_list_count'):
                return self._m_posting_list_count

            self._m_posting_list_count = ((self.n_posting if self.n_posting < (self.size_clamped - self.posting_offset) // 6 else (self.size_clamped - self.posting_offset) // 6) if  ((self.is_posting) and (self.posting_offset >= 8) and (self.posting_offset < self.size_clamped))  else 0)
            return getattr(self, '_m_posting_list_count', None)

        @property
        def posting_offset(self):
            """BTreeTupleGetPostingOffset (meaningful only when is_posting)."""
            if hasattr(self, '_m_posting_offset'):
                return self._m_posting_offset

            self._m_posting_offset = self.t_tid.block_number
            return getattr(self, '_m_posting_offset', None)

        @property
        def size_clamped(self):
            """IndexTupleSize clamped to the bytes available."""
            if hasattr(self, '_m_size_clamped'):
                return self._m_size_clamped

            self._m_size_clamped = (self.tuple_size if self.tuple_size < self._io.size() else self._io.size())
            return getattr(self, '_m_size_clamped', None)

        @property
        def status_bits(self):
            """t_tid.ip_posid & BT_STATUS_OFFSET_MASK."""
            if hasattr(self, '_m_status_bits'):
                return self._m_status_bits

            self._m_status_bits = self.t_tid.ip_posid & 61440
            return getattr(self, '_m_status_bits', None)

        @property
        def tuple_size(self):
            """IndexTupleSize (t_info & INDEX_SIZE_MASK)."""
            if hasattr(self, '_m_tuple_size'):
                return self._m_tuple_size

            self._m_tuple_size = self.t_info & 8191
            return getattr(self, '_m_tuple_size', None)


    class BtMetaPageData(KaitaiStruct):
        """Contents of the metapage (block 0), at offset 24 of the page; 48 bytes (sizeof with
        the alignment hole and tail padding). The fields after btm_fastlevel are valid only
        when btm_version >= 3 (BTREE_NOVAC_VERSION); on version 2 metapages they read as
        zero or garbage. pd_lower is set just past this struct (24 + 48 = 72).
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(Nbtree.BtMetaPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.btm_magic = self._io.read_u4le()
            if not self.btm_magic == 340322:
                raise kaitaistruct.ValidationNotEqualError(340322, self.btm_magic, self._io, u"/types/bt_meta_page_data/seq/0")
            self.btm_version = self._io.read_u4le()
            self.btm_root = self._io.read_u4le()
            self.btm_level = self._io.read_u4le()
            self.btm_fastroot = self._io.read_u4le()
            self.btm_fastlevel = self._io.read_u4le()
            self.btm_oldest_btpo_xact = self._io.read_u4le()
            self.alignment_hole = self._io.read_bytes(4)
            self.btm_last_cleanup_num_heap_tuples = self._io.read_f8le()
            self.btm_allequalimage = self._io.read_u1()
            self.tail_padding = self._io.read_bytes(7)


        def _fetch_instances(self):
            pass

        @property
        def btm_last_cleanup_num_delpages(self):
            """The PostgreSQL 14+ meaning of the 4 bytes at offset 24 of this struct."""
            if hasattr(self, '_m_btm_last_cleanup_num_delpages'):
                return self._m_btm_last_cleanup_num_delpages

            self._m_btm_last_cleanup_num_delpages = self.btm_oldest_btpo_xact
            return getattr(self, '_m_btm_last_cleanup_num_delpages', None)

        @property
        def has_novac_fields(self):
            """btm_version >= BTREE_NOVAC_VERSION, i.e. the fields after btm_fastlevel are valid."""
            if hasattr(self, '_m_has_novac_fields'):
                return self._m_has_novac_fields

            self._m_has_novac_fields = self.btm_version >= 3
            return getattr(self, '_m_has_novac_fields', None)

        @property
        def heapkeyspace(self):
            """BTREE_VERSION 4 (PostgreSQL 12+) - heap TID is part of the key space."""
            if hasattr(self, '_m_heapkeyspace'):
                return self._m_heapkeyspace

            self._m_heapkeyspace = self.btm_version >= 4
            return getattr(self, '_m_heapkeyspace', None)


    class BtPageOpaqueData(KaitaiStruct):
        """Special space of every nbtree page, 16 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Nbtree.BtPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.btpo_prev = self._io.read_u4le()
            self.btpo_next = self._io.read_u4le()
            self.btpo_level = self._io.read_u4le()
            self.btpo_flags = self._io.read_u2le()
            self.btpo_cycleid = self._io.read_u2le()


        def _fetch_instances(self):
            pass

        @property
        def btpo_xact(self):
            """btpo.xact, the same 4 bytes read as a TransactionId (pre-14 deleted pages)."""
            if hasattr(self, '_m_btpo_xact'):
                return self._m_btpo_xact

            self._m_btpo_xact = self.btpo_level
            return getattr(self, '_m_btpo_xact', None)


    @property
    def deleted_page_data(self):
        """BTDeletedPageData of a page deleted by PostgreSQL 14+ (BTP_HAS_FULLXID)."""
        if hasattr(self, '_m_deleted_page_data'):
            return self._m_deleted_page_data

        if  ((self._io.size() >= 40) and (self.opaque.btpo_flags & 256 != 0)) :
            pass
            _pos = self._io.pos()
            self._io.seek(24)
            self._m_deleted_page_data = Nbtree.BtDeletedPageData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_deleted_page_data', None)

    @property
    def meta(self):
        """BTMetaPageData at PageGetContents (block 0 only, BTP_META set). Reading it on a page
        that is not a metapage fails validation of btm_magic.
        """
        if hasattr(self, '_m_meta'):
            return self._m_meta

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_meta = Nbtree.BtMetaPageData(self._io, self, self._root)
        self._io.seek(_pos)
        return getattr(self, '_m_meta', None)

    @property
    def opaque(self):
        """BTPageOpaqueData, the special space (the last 16 bytes of the page)."""
        if hasattr(self, '_m_opaque'):
            return self._m_opaque

        if self._io.size() >= 40:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 16)
            self._m_opaque = Nbtree.BtPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_opaque', None)
