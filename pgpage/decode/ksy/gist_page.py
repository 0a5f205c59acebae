# GENERATED FILE - DO NOT EDIT.
# Source: formats/gist_page.ksy (sha256 af18ae021c9b11c1a92ec59ea6ad41179f218243f79029ef4d0a78a3c445b7e4)
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

class GistPage(KaitaiStruct):
    """One page of a GiST index: the standard page header and line pointers, and a 16-byte
    GISTPageOpaqueData in the special space ending in gist_page_id = GIST_PAGE_ID (0xFF81).
    GiST has no metapage; block 0 is the root (GIST_ROOT_BLKNO). A page deleted by
    PostgreSQL 13+ (F_DELETED) holds GISTDeletedPageContents at PageGetContents.
    
    Parse with `GistPage.from_bytes(page)`; index tuples are generic IndexTupleData.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/gist.h
    """

    class GistConstants(IntEnum):
        gist_page_id = 65409

    class GistFlags(IntEnum):
        f_leaf = 1
        f_deleted = 2
        f_tuples_deleted = 4
        f_follow_right = 8
        f_has_garbage = 16
    def __init__(self, _io, _parent=None, _root=None):
        super(GistPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.deleted_page_contents
        if hasattr(self, '_m_deleted_page_contents'):
            pass
            self._m_deleted_page_contents._fetch_instances()

        _ = self.opaque
        if hasattr(self, '_m_opaque'):
            pass
            self._m_opaque._fetch_instances()


    class GistDeletedPageContents(KaitaiStruct):
        """Tuple area of a deleted GiST page (PostgreSQL 13+)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GistPage.GistDeletedPageContents, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.delete_xid = self._io.read_u8le()


        def _fetch_instances(self):
            pass


    class GistPageOpaqueData(KaitaiStruct):
        """Special space of every GiST page, 16 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(GistPage.GistPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.nsn = pg_page.PgPage.PageXlogRecPtr(self._io)
            self.rightlink = self._io.read_u4le()
            self.flags = self._io.read_u2le()
            self.gist_page_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass
            self.nsn._fetch_instances()


    @property
    def deleted_page_contents(self):
        """GISTDeletedPageContents of a deleted page (F_DELETED; PostgreSQL 13+ layout)."""
        if hasattr(self, '_m_deleted_page_contents'):
            return self._m_deleted_page_contents

        if  ((self._io.size() >= 40) and (self.opaque.flags & 2 != 0)) :
            pass
            _pos = self._io.pos()
            self._io.seek(24)
            self._m_deleted_page_contents = GistPage.GistDeletedPageContents(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_deleted_page_contents', None)

    @property
    def opaque(self):
        """GISTPageOpaqueData (the last 16 bytes of the page)."""
        if hasattr(self, '_m_opaque'):
            return self._m_opaque

        if self._io.size() >= 40:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 16)
            self._m_opaque = GistPage.GistPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_opaque', None)
