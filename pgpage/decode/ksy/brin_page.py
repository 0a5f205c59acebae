# GENERATED FILE - DO NOT EDIT.
# Source: formats/brin_page.ksy (sha256 14363bc9e823f9b53af83473dc21545cd064738c5014bad4b888a8a794c9ec71)
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

        _ = self.special
        if hasattr(self, '_m_special'):
            pass
            self._m_special._fetch_instances()


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
