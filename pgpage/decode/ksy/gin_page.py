# GENERATED FILE - DO NOT EDIT.
# Source: formats/gin_page.ksy (sha256 cc81a5d8a995539586f64eab8bf98d21833ab41a1ffbe1619325a29565fc7d1d)
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

class GinPage(KaitaiStruct):
    """One page of a GIN index: the standard page header and an 8-byte GinPageOpaqueData in
    the special space. GIN has no page id: its opaque data ends in the flags word, so a GIN
    page is recognised by an 8-byte special space (pd_special = page size - 8) whose last
    u16 is not an SP-GiST/BRIN id and has only GIN flag bits (< 0x100). Block 0 is the
    metapage (GIN_META) with GinMetaPageData at PageGetContents.
    
    Parse with `GinPage.from_bytes(page)`. The items by kind of page (flags):
    
    * GIN_META: GinMetaPageData at PageGetContents (24).
    * entry tree (no GIN_DATA): IndexTuples behind line pointers. A leaf tuple's t_tid says where
      its posting list is (GinGetPostingOffset: block number & ~GIN_ITUP_COMPRESSED, from the tuple's
      start) and how many TIDs it holds (GinGetNPosting: ip_posid), or, with ip_posid =
      GIN_TREE_POSTING, the root block of a posting tree; an internal tuple's t_tid block is its
      downlink. Keys: [int2 attnum if the index has several columns,] the key datum, and a
      GinNullCategory byte when the key is NULL (INDEX_NULL_MASK).
    * posting tree (GIN_DATA): the page's right bound (ItemPointerData, MAXALIGNed to 8) at 24, then
      on an internal page `maxoff` gin_posting_items, on a leaf page compressed gin_posting_lists up
      to pd_lower (GIN_COMPRESSED, 9.4+) or `maxoff` ItemPointerData (pre-9.4 format).
    * pending list (GIN_LIST): IndexTuples whose t_tid is the heap TID, keys as on entry pages.
    
    Posting list contents are varbyte-encoded deltas (ginpostinglist.c): decoded in Python.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/ginblock.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/gin/ginpostinglist.c
    """

    class GinFlags(IntEnum):
        gin_data = 1
        gin_leaf = 2
        gin_deleted = 4
        gin_meta = 8
        gin_list = 16
        gin_list_fullrow = 32
        gin_incomplete_split = 64
        gin_compressed = 128

    class GinNullCategory(IntEnum):
        gin_cat_norm_key = 0
        gin_cat_null_key = 1
        gin_cat_empty_item = 2
        gin_cat_null_item = 3

    class GinPostingListConstants(IntEnum):
        max_heap_tuples_per_page_bits = 11

    class GinTupleConstants(IntEnum):
        gin_tree_posting = 65535
        gin_itup_compressed = 2147483648

    class GinVersion(IntEnum):
        gin_current_version = 2
    def __init__(self, _io, _parent=None, _root=None):
        super(GinPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.meta
        if hasattr(self, '_m_meta'):
            pass
            self._m_meta._fetch_instances()

        _ = self.opaque
        if hasattr(self, '_m_opaque'):
            pass
            self._m_opaque._fetch_instances()


    class GinMetaPageData(KaitaiStruct):
        """Contents of the GIN metapage, 56 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GinPage.GinMetaPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.head = self._io.read_u4le()
            self.tail = self._io.read_u4le()
            self.tail_free_size = self._io.read_u4le()
            self.n_pending_pages = self._io.read_u4le()
            self.n_pending_heap_tuples = self._io.read_s8le()
            self.n_total_pages = self._io.read_u4le()
            self.n_entry_pages = self._io.read_u4le()
            self.n_data_pages = self._io.read_u4le()
            self.alignment_hole = self._io.read_bytes(4)
            self.n_entries = self._io.read_s8le()
            self.gin_version = self._io.read_s4le()
            self.tail_padding = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class GinPageOpaqueData(KaitaiStruct):
        """Special space of every GIN page, 8 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GinPage.GinPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.rightlink = self._io.read_u4le()
            self.maxoff = self._io.read_u2le()
            self.flags = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class GinPostingItem(KaitaiStruct):
        """Downlink of an internal posting tree page, 10 bytes (2-byte aligned)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GinPage.GinPostingItem, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.child_blkno_hi = self._io.read_u2le()
            self.child_blkno_lo = self._io.read_u2le()
            self.key = pg_page.PgPage.ItemPointer(self._io)


        def _fetch_instances(self):
            pass
            self.key._fetch_instances()

        @property
        def child_blkno(self):
            if hasattr(self, '_m_child_blkno'):
                return self._m_child_blkno

            self._m_child_blkno = self.child_blkno_hi << 16 | self.child_blkno_lo
            return getattr(self, '_m_child_blkno', None)


    class GinPostingList(KaitaiStruct):
        """One compressed posting list segment with its encoded bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GinPage.GinPostingList, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.header = GinPage.GinPostingListHeader(self._io, self, self._root)
            self.bytes = self._io.read_bytes(self.header.nbytes)


        def _fetch_instances(self):
            pass
            self.header._fetch_instances()


    class GinPostingListHeader(KaitaiStruct):
        """The fixed head of a compressed posting list segment (offsetof(GinPostingList, bytes)); nbytes
        varbyte-encoded deltas follow, and the next segment starts SHORTALIGN(nbytes) after them.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(GinPage.GinPostingListHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.first = pg_page.PgPage.ItemPointer(self._io)
            self.nbytes = self._io.read_u2le()


        def _fetch_instances(self):
            pass
            self.first._fetch_instances()


    @property
    def meta(self):
        """GinMetaPageData of block 0 (no magic number; check GIN_META in opaque.flags)."""
        if hasattr(self, '_m_meta'):
            return self._m_meta

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_meta = GinPage.GinMetaPageData(self._io, self, self._root)
        self._io.seek(_pos)
        return getattr(self, '_m_meta', None)

    @property
    def opaque(self):
        """GinPageOpaqueData (the last 8 bytes of the page)."""
        if hasattr(self, '_m_opaque'):
            return self._m_opaque

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_opaque = GinPage.GinPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_opaque', None)
