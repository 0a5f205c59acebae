# GENERATED FILE - DO NOT EDIT.
# Source: formats/spgist_page.ksy (sha256 eba127025da55d324058452d4a7096626f794c3d724308335540fe37c5744aa7)
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

class SpgistPage(KaitaiStruct):
    """One page of an SP-GiST index: the standard page header and line pointers, and an 8-byte
    SpGistPageOpaqueData in the special space ending in spgist_page_id = SPGIST_PAGE_ID
    (0xFF82). Block 0 is the metapage (SPGIST_META) with SpGistMetaPageData at PageGetContents.
    
    Parse with `SpgistPage.from_bytes(page)`. Inner pages hold spgist_inner_tuples (a prefix, then
    nNodes node tuples: IndexTupleData whose t_tid is the child's (block, offset) and whose data is the
    node's label), leaf pages (SPGIST_LEAF) spgist_leaf_tuples (the heap TID and the leaf value);
    either may hold spgist_dead_tuples (REDIRECT, DEAD, PLACEHOLDER). Every tuple starts with its
    tupstate in the low 2 bits. A prefix or label of a pass-by-value type is stored as a Datum (8
    bytes), others as their bytes, MAXALIGNed (SpGistGetInnerTypeSize). Which types an opclass uses
    for prefixes and labels is its config function's choice, not in the catalog.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/spgist_private.h
    """

    class SpgistConstants(IntEnum):
        spgist_page_id = 65410
        spgist_magic_number = 3121327086

    class SpgistFlags(IntEnum):
        spgist_meta = 1
        spgist_deleted = 2
        spgist_leaf = 4
        spgist_nulls = 8

    class SpgistLeafTInfo(IntEnum):
        sglt_nextoffset_mask = 16383
        sglt_hasnullmask = 32768

    class SpgistTupleState(IntEnum):
        spgist_live = 0
        spgist_redirect = 1
        spgist_dead = 2
        spgist_placeholder = 3
    def __init__(self, _io, _parent=None, _root=None):
        super(SpgistPage, self).__init__(_io)
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


    class SpgistDeadTuple(KaitaiStruct):
        """A REDIRECT, DEAD or PLACEHOLDER tuple (16 bytes)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistDeadTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tupstate = KaitaiStream.resolve_enum(SpgistPage.SpgistTupleState, self._io.read_bits_int_le(2))
            self.size = self._io.read_bits_int_le(30)
            self.next_offset = self._io.read_u2le()
            self.pointer = pg_page.PgPage.ItemPointer(self._io)
            self.xid = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.pointer._fetch_instances()


    class SpgistInnerTuple(KaitaiStruct):
        """Header of an inner tuple (4 bytes; the prefix starts at SGITHDRSZ = MAXALIGN of it, 8)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistInnerTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tupstate = KaitaiStream.resolve_enum(SpgistPage.SpgistTupleState, self._io.read_bits_int_le(2))
            self.all_the_same = self._io.read_bits_int_le(1) != 0
            self.n_nodes = self._io.read_bits_int_le(13)
            self.prefix_size = self._io.read_bits_int_le(16)


        def _fetch_instances(self):
            pass


    class SpgistLastUsedPage(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistLastUsedPage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.blkno = self._io.read_u4le()
            self.free_space = self._io.read_s4le()


        def _fetch_instances(self):
            pass


    class SpgistLeafTuple(KaitaiStruct):
        """Header of a leaf tuple (12 bytes; the value starts at SGLTHDRSZ = 16). t_info is nextOffset
        (OffsetNumber) before 14; from 14 its low 14 bits are, and 0x8000 says a nulls bitmap
        follows the header.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistLeafTuple, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.tupstate = KaitaiStream.resolve_enum(SpgistPage.SpgistTupleState, self._io.read_bits_int_le(2))
            self.size = self._io.read_bits_int_le(30)
            self.t_info = self._io.read_u2le()
            self.heap_ptr = pg_page.PgPage.ItemPointer(self._io)


        def _fetch_instances(self):
            pass
            self.heap_ptr._fetch_instances()


    class SpgistMetaPageData(KaitaiStruct):
        """Contents of the SP-GiST metapage."""
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistMetaPageData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.magic_number = self._io.read_u4le()
            if not self.magic_number == 3121327086:
                raise kaitaistruct.ValidationNotEqualError(3121327086, self.magic_number, self._io, u"/types/spgist_meta_page_data/seq/0")
            self.last_used_pages = []
            for i in range(8):
                self.last_used_pages.append(SpgistPage.SpgistLastUsedPage(self._io, self, self._root))



        def _fetch_instances(self):
            pass
            for i in range(len(self.last_used_pages)):
                pass
                self.last_used_pages[i]._fetch_instances()



    class SpgistPageOpaqueData(KaitaiStruct):
        """Special space of every SP-GiST page, 8 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(SpgistPage.SpgistPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.flags = self._io.read_u2le()
            self.n_redirection = self._io.read_u2le()
            self.n_placeholder = self._io.read_u2le()
            self.spgist_page_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    @property
    def meta(self):
        """SpGistMetaPageData of block 0 (fails validation of magic_number on any other page)."""
        if hasattr(self, '_m_meta'):
            return self._m_meta

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_meta = SpgistPage.SpgistMetaPageData(self._io, self, self._root)
        self._io.seek(_pos)
        return getattr(self, '_m_meta', None)

    @property
    def opaque(self):
        """SpGistPageOpaqueData (the last 8 bytes of the page)."""
        if hasattr(self, '_m_opaque'):
            return self._m_opaque

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_opaque = SpgistPage.SpgistPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_opaque', None)
