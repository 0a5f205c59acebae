# GENERATED FILE - DO NOT EDIT.
# Source: formats/ext_index_page.ksy (sha256 975659deee78787eeed9ec32a63c81f2252745e68b84ec05faad6df293048d77)
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

class ExtIndexPage(KaitaiStruct):
    """Pages of index access methods that extensions add, for telling them apart: each ends in an 8-byte
    special space whose last two bytes are the AM's page id (bloom 0xFF83, IVFFlat 0xFF84, HNSW 0xFF90), and
    block 0 is a metapage that starts with the AM's magic number (at PageGetContents, offset 24). Their tuples
    are not described here: pgpage identifies and counts these pages, it does not decode them.
    
    A bloom page stores its tuples one after another from PageGetContents (no line pointers): maxoff of its
    special space is their count.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/contrib/bloom/bloom.h
    
    
    .. seealso::
       Source - https://github.com/pgvector/pgvector/blob/master/src/hnsw.h
    
    
    .. seealso::
       Source - https://github.com/pgvector/pgvector/blob/master/src/ivfflat.h
    """

    class BloomFlags(IntEnum):
        bloom_meta = 1
        bloom_deleted = 2

    class ExtMetaMagic(IntEnum):
        ivfflat_magic_number = 22016423
        hnsw_magic_number = 2840832339
        bloom_magick_number = 3685486061

    class ExtPageId(IntEnum):
        bloom_page_id = 65411
        ivfflat_page_id = 65412
        hnsw_page_id = 65424
    def __init__(self, _io, _parent=None, _root=None):
        super(ExtIndexPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.bloom_opaque
        if hasattr(self, '_m_bloom_opaque'):
            pass
            self._m_bloom_opaque._fetch_instances()

        _ = self.meta_magic
        if hasattr(self, '_m_meta_magic'):
            pass

        _ = self.vector_opaque
        if hasattr(self, '_m_vector_opaque'):
            pass
            self._m_vector_opaque._fetch_instances()


    class BloomPageOpaqueData(KaitaiStruct):
        """Special space of every bloom page, 8 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(ExtIndexPage.BloomPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.maxoff = self._io.read_u2le()
            self.flags = self._io.read_u2le()
            self.unused = self._io.read_u2le()
            self.bloom_page_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class VectorPageOpaqueData(KaitaiStruct):
        """Special space of every HNSW page and (as IvfflatPageOpaqueData, the same fields) every IVFFlat page."""
        def __init__(self, _io, _parent=None, _root=None):
            super(ExtIndexPage.VectorPageOpaqueData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.nextblkno = self._io.read_u4le()
            self.unused = self._io.read_u2le()
            self.page_id = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    @property
    def bloom_opaque(self):
        if hasattr(self, '_m_bloom_opaque'):
            return self._m_bloom_opaque

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_bloom_opaque = ExtIndexPage.BloomPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_bloom_opaque', None)

    @property
    def meta_magic(self):
        """the first field of each AM's metapage (magickNumber / magicNumber)."""
        if hasattr(self, '_m_meta_magic'):
            return self._m_meta_magic

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(24)
            self._m_meta_magic = self._io.read_u4le()
            self._io.seek(_pos)

        return getattr(self, '_m_meta_magic', None)

    @property
    def vector_opaque(self):
        if hasattr(self, '_m_vector_opaque'):
            return self._m_vector_opaque

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_vector_opaque = ExtIndexPage.VectorPageOpaqueData(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_vector_opaque', None)
