# GENERATED FILE - DO NOT EDIT.
# Source: formats/hash_page.ksy (sha256 3c0ade264f1083ea3be95eaf73fc514468829f6b6a0b5103770a9847f4a81255)
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

class HashPage(KaitaiStruct):
    """One page of a hash index: the standard page header and line pointers, and a 16-byte
    HashPageOpaqueData in the special space whose last u16, hasho_page_id, is always
    HASHO_PAGE_ID (0xFF80) - that is how a hash page is recognised. Block 0 is the metapage
    (LH_META_PAGE) with HashMetaPageData at PageGetContents.
    
    Parse with `HashPage.from_bytes(page)`. The opaque data is read from the last 16 bytes.
    Since PostgreSQL 10 (hash version 4, WAL-logged hash indexes) hashm_spares has
    HASH_MAX_SPLITPOINTS = 98 entries; hashm_mapp has HASH_MAX_BITMAPS = Min(BLCKSZ / 8, 1024).
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/hash.h
    """

    class HashConstants(IntEnum):
        hash_splitpoint_phase_bits = 2
        hash_version = 4
        hash_splitpoint_groups_with_one_phase = 10
        hasho_page_id = 65408
        hash_magic = 105121344

    class HashPageType(IntEnum):
        lh_unused_page = 0
        lh_page_type = 15

    class HashoFlag(IntEnum):
        lh_overflow_page = 1
        lh_bucket_page = 2
        lh_bitmap_page = 4
        lh_meta_page = 8
        lh_bucket_being_populated = 16
        lh_bucket_being_split = 32
        lh_bucket_needs_split_cleanup = 64
        lh_page_has_dead_tuples = 128
    def __init__(self, _io, _parent=None, _root=None):
        super(HashPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.bitmap_words
        if hasattr(self, '_m_bitmap_words'):
            pass
            for i in range(len(self._m_bitmap_words)):
                pass


        _ = self.meta
        if hasattr(self, '_m_meta'):
            pass
            self._m_meta._fetch_instances()

        _ = self.opaque
        if hasattr(self, '_m_opaque'):
            pass
            self._m_opaque._fetch_instances()


    class HashIndexTuple(KaitaiStruct):
        """One hash index tuple: the 8-byte IndexTupleData, then the 32-bit hash code of the key (the only
        column a hash index stores, at MAXALIGN(sizeof(IndexTupleData)) = 8; hash index tuples have no
        nulls), read by _hash_get_indextuple_hashkey.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(HashPage.HashIndexTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.t_tid = pg_page.PgPage.ItemPointer(self._io)
            self.t_info = self._io.read_u2le()
            self.hash_key = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.t_tid._fetch_instances()


    class HashMetaPageData(KaitaiStruct):
        """Contents of the hash metapage (block 0) at offset 24 of the page."""
        def __init__(self, _io, _parent=None, _root=None):
            super(HashPage.HashMetaPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.hashm_magic = self._io.read_u4le()
            if not self.hashm_magic == 105121344:
                raise kaitaistruct.ValidationNotEqualError(105121344, self.hashm_magic, self._io, u"/types/hash_meta_page_data/seq/0")
            self.hashm_version = self._io.read_u4le()
            self.hashm_ntuples = self._io.read_f8le()
            self.hashm_ffactor = self._io.read_u2le()
            self.hashm_bsize = self._io.read_u2le()
            self.hashm_bmsize = self._io.read_u2le()
            self.hashm_bmshift = self._io.read_u2le()
            self.hashm_maxbucket = self._io.read_u4le()
            self.hashm_highmask = self._io.read_u4le()
            self.hashm_lowmask = self._io.read_u4le()
            self.hashm_ovflpoint = self._io.read_u4le()
            self.hashm_firstfree = self._io.read_u4le()
            self.hashm_nmaps = self._io.read_u4le()
            self.hashm_procid = self._io.read_u4le()
            self.hashm_spares = []
            for i in range(98):
                self.hashm_spares.append(self._io.read_u4le())

            self.hashm_mapp = []
            for i in range(1024):
                self.hashm_mapp.append(self._io.read_u4le())



        def _fetch_instances(self):
            pass
            for i in range(len(self.hashm_spares)):
                pass

            for i in range(len(self.hashm_mapp)):
                pass



    class HashPageOpaqueData(KaitaiStruct):
        """Special space of every hash index page, 16 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(HashPage.HashPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.hasho_prevblkno = self._io.read_u4le()
            self.hasho_nextblkno = self._io.read_u4le()
            self.hasho_bucket = self._io.read_u4le()
            self.hasho_flag = self._io.read_u2le()
            self.hasho_page_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass

        @property
        def page_type(self):
            """hasho_flag & LH_PAGE_TYPE."""
            if hasattr(self, '_m_page_type'):
                return self._m_page_type

            self._m_page_type = self.hasho_flag & 15
            return getattr(self, '_m_page_type', None)


    @property
    def bitmap_words(self):
        """A bitmap page's contents (HashPageGetBitmap, at PageGetContents): bit N of the page is set when
        overflow page N (of the bits this page covers) is in use. Only the first hashm_bmsize bytes are
        the bitmap; the count here is clamped by the page size.
        """
        if hasattr(self, '_m_bitmap_words'):
            return self._m_bitmap_words

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_bitmap_words = []
        for i in range(((self._io.size() - 24) - 16) // 4):
            self._m_bitmap_words.append(self._io.read_u4le())

        self._io.seek(_pos)
        return getattr(self, '_m_bitmap_words', None)

    @property
    def meta(self):
        """HashMetaPageData of block 0 (fails validation of hashm_magic on any other page)."""
        if hasattr(self, '_m_meta'):
            return self._m_meta

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_meta = HashPage.HashMetaPageData(self._io, self, self._root)
        self._io.seek(_pos)
        return getattr(self, '_m_meta', None)

    @property
    def opaque(self):
        """HashPageOpaqueData (the last 16 bytes of the page)."""
        if hasattr(self, '_m_opaque'):
            return self._m_opaque

        if self._io.size() >= 40:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 16)
            self._m_opaque = HashPage.HashPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_opaque', None)
