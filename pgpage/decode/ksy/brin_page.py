# GENERATED FILE - DO NOT EDIT.
# Source: formats/brin_page.ksy (sha256 d06e541d0e64aa71a3ba5375e34133d3d655e9c37b95c27e1f95cf7a9f341828)
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

class BrinPage(KaitaiStruct):
    """One page of a BRIN index: the standard page header and an 8-byte BrinSpecialSpace
    (uint16 vector[4]) whose last element is the page type (BRIN_PAGETYPE_META 0xF091,
    _REVMAP 0xF092, _REGULAR 0xF093) and whose element before it holds flags
    (BRIN_EVACUATE_PAGE). Block 0 is the metapage with BrinMetaPageData at PageGetContents.
    
    Parse with `BrinPage.from_bytes(page)`.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/brin_page.h
    """

    class BrinConstants(IntEnum):
        brin_current_version = 1
        brin_meta_magic = 2819661050

    class BrinFlags(IntEnum):
        brin_evacuate_page = 1

    class BrinPageType(IntEnum):
        brin_pagetype_meta = 61585
        brin_pagetype_revmap = 61586
        brin_pagetype_regular = 61587

    class BrinTupleInfo(IntEnum):
        brin_offset_mask = 31
        brin_empty_range_mask = 32
        brin_placeholder_mask = 64
        brin_nulls_mask = 128
    def __init__(self, _io, _parent=None, _root=None):
        super(BrinPage, self).__init__(_io)
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

        _ = self.rm_tids
        if hasattr(self, '_m_rm_tids'):
            pass
            for i in range(len(self._m_rm_tids)):
                pass
                self._m_rm_tids[i]._fetch_instances()


        _ = self.special
        if hasattr(self, '_m_special'):
            pass
            self._m_special._fetch_instances()


    class BloomFilter(KaitaiStruct):
        """A bloom summary (brin_bloom.c), the payload of a varlena of type pg_brin_bloom_summary (its header
        removed): the filter's bitmap of nbits bits follows.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(BrinPage.BloomFilter, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.flags = self._io.read_u2le()
            self.nhashes = self._io.read_u1()
            self.padding = self._io.read_bytes(1)
            self.nbits = self._io.read_u4le()
            self.nbits_set = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class BrinMetaPageData(KaitaiStruct):
        """Contents of the BRIN metapage, 16 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BrinPage.BrinMetaPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.brin_magic = self._io.read_u4le()
            if not self.brin_magic == 2819661050:
                raise kaitaistruct.ValidationNotEqualError(2819661050, self.brin_magic, self._io, u"/types/brin_meta_page_data/seq/0")
            self.brin_version = self._io.read_u4le()
            self.pages_per_range = self._io.read_u4le()
            self.last_revmap_page = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class BrinSpecialSpace(KaitaiStruct):
        """uint16 vector[MAXALIGN(1) / sizeof(uint16)], 8 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(BrinPage.BrinSpecialSpace, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.vector0 = self._io.read_u2le()
            self.vector1 = self._io.read_u2le()
            self.flags = self._io.read_u2le()
            self.type = KaitaiStream.resolve_enum(BrinPage.BrinPageType, self._io.read_u2le())


        def _fetch_instances(self):
            pass


    class BrinTuple(KaitaiStruct):
        """The header of a BRIN summary tuple on a regular page (brin_tuple.h), 5 bytes: the range's first heap
        block and bt_info. With BRIN_NULLS_MASK a null bitmap follows at SizeOfBrinTuple: 2 bits per index
        column, first the "all nulls" bits of every column, then the "has nulls" bits (a set bit means
        null, the reverse of a heap tuple's). The stored values start at bt_info & BRIN_OFFSET_MASK.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(BrinPage.BrinTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.bt_blkno = self._io.read_u4le()
            self.bt_info = self._io.read_u1()


        def _fetch_instances(self):
            pass

        @property
        def data_offset(self):
            """BrinTupleDataOffset (bt_info & BRIN_OFFSET_MASK)."""
            if hasattr(self, '_m_data_offset'):
                return self._m_data_offset

            self._m_data_offset = self.bt_info & 31
            return getattr(self, '_m_data_offset', None)

        @property
        def has_nulls(self):
            """BrinTupleHasNulls (BRIN_NULLS_MASK)."""
            if hasattr(self, '_m_has_nulls'):
                return self._m_has_nulls

            self._m_has_nulls = self.bt_info & 128 != 0
            return getattr(self, '_m_has_nulls', None)

        @property
        def is_empty_range(self):
            """BrinTupleIsEmptyRange (BRIN_EMPTY_RANGE_MASK, 16+; unused bit before)."""
            if hasattr(self, '_m_is_empty_range'):
                return self._m_is_empty_range

            self._m_is_empty_range = self.bt_info & 32 != 0
            return getattr(self, '_m_is_empty_range', None)

        @property
        def is_placeholder(self):
            """BrinTupleIsPlaceholder (BRIN_PLACEHOLDER_MASK)."""
            if hasattr(self, '_m_is_placeholder'):
                return self._m_is_placeholder

            self._m_is_placeholder = self.bt_info & 64 != 0
            return getattr(self, '_m_is_placeholder', None)


    class SerializedRanges(KaitaiStruct):
        """A minmax-multi summary (brin_minmax_multi.c), the payload of a varlena of type
        pg_brin_minmax_multi_summary (its header removed): 2 * nranges + nvalues values of type typid
        follow, packed without alignment (fixed-width: typlen bytes; varlena: their own length).
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(BrinPage.SerializedRanges, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.typid = self._io.read_u4le()
            self.nranges = self._io.read_s4le()
            self.nvalues = self._io.read_s4le()
            self.maxvalues = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    @property
    def meta(self):
        """BrinMetaPageData of block 0 (fails validation of brin_magic on any other page)."""
        if hasattr(self, '_m_meta'):
            return self._m_meta

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_meta = BrinPage.BrinMetaPageData(self._io, self, self._root)
        self._io.seek(_pos)
        return getattr(self, '_m_meta', None)

    @property
    def rm_tids(self):
        """A revmap page's contents (at PageGetContents): REVMAP_PAGE_MAXITEMS item pointers, entry i naming the
        regular page and item of the summary of the i-th range this page covers ((0,0): none).
        REVMAP_PAGE_MAXITEMS = (BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(BrinSpecialSpace)))
        / sizeof(ItemPointerData).
        """
        if hasattr(self, '_m_rm_tids'):
            return self._m_rm_tids

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_rm_tids = []
        for i in range(((self._io.size() - 24) - 8) // 6):
            self._m_rm_tids.append(pg_page.PgPage.ItemPointer(self._io))

        self._io.seek(_pos)
        return getattr(self, '_m_rm_tids', None)

    @property
    def special(self):
        """BrinSpecialSpace (the last 8 bytes of the page)."""
        if hasattr(self, '_m_special'):
            return self._m_special

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_special = BrinPage.BrinSpecialSpace(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_special', None)
