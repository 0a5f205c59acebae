# GENERATED FILE - DO NOT EDIT.
# Source: formats/gin_page.ksy (sha256 879084ce492384c27e47549f85ffea4e72df3c738bf671af1ef4af56c7d2fe68)
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
    
    Parse with `GinPage.from_bytes(page)`. Posting tree and entry tree item layouts are not
    described here.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/ginblock.h
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
