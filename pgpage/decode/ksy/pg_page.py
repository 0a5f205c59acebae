# GENERATED FILE - DO NOT EDIT.
# Source: formats/pg_page.ksy (sha256 99c9aaa07d6bd5c203741319ff30204e49f41401658caeb731894a1505319ff4)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgPage(KaitaiStruct):
    """One database page (BLCKSZ bytes, normally 8192) as laid out by bufpage.h:
    
        +----------------+---------------------------------+
        | PageHeaderData | linp1 linp2 linp3 ...           |
        +-----------+----+---------------------------------+
        | ... linpN |                                      |
        +-----------+--------------------------------------+
        |           ^ pd_lower                             |
        |                                                  |
        |             v pd_upper                           |
        +-------------+------------------------------------+
        |             | tupleN ...                         |
        +-------------+------------------+-----------------+
        |       ... tuple3 tuple2 tuple1 | "special space" |
        +--------------------------------+-----------------+
                                         ^ pd_special
    
    Parse a whole page with `PgPage.from_bytes(page)`; the page size is the length of the
    buffer (`_io.size`), never taken from the header, so a damaged header cannot make the
    parser read outside the page. The line pointer count is PageGetMaxOffsetNumber clamped
    to the page: (min(pd_lower, page size) - 24) / 4, and 0 when pd_lower <= 24.
    
    The types here are imported by every other page family (nbtree, vm_page, fsm_page, ...).
    Only x86-64/little-endian pages are described: ItemIdData bit-field order is
    implementation-defined and GCC on little-endian allocates from the least significant bit.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/bufpage.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/itemid.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/itemptr.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/block.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/off.h
    """

    class LpFlags(IntEnum):
        lp_unused = 0
        lp_normal = 1
        lp_redirect = 2
        lp_dead = 3

    class PageId(IntEnum):
        brin_pagetype_meta = 61585
        brin_pagetype_revmap = 61586
        brin_pagetype_regular = 61587
        max_bt_cycle_id = 65407
        hasho_page_id = 65408
        gist_page_id = 65409
        spgist_page_id = 65410

    class PageLayoutVersion(IntEnum):
        pg_page_layout_version = 4

    class PdFlags(IntEnum):
        pd_has_free_lines = 1
        pd_page_full = 2
        pd_all_visible = 4
        pd_valid_flag_bits = 7

    class SpecialOffsetNumber(IntEnum):
        invalid_offset_number = 0
        versioned_datum_offset_number = 65532
        moved_partitions_offset_number = 65533
        spec_token_offset_number = 65534
    def __init__(self, _io, _parent=None, _root=None):
        super(PgPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.header = PgPage.PageHeader(self._io, self, self._root)
        self.linp = []
        for i in range(self.num_line_pointers):
            self.linp.append(PgPage.ItemId(self._io, self, self._root))



    def _fetch_instances(self):
        pass
        self.header._fetch_instances()
        for i in range(len(self.linp)):
            pass
            self.linp[i]._fetch_instances()

        _ = self.page_type_id
        if hasattr(self, '_m_page_type_id'):
            pass

        _ = self.special
        if hasattr(self, '_m_special'):
            pass


    class ItemId(KaitaiStruct):
        """Line pointer: `unsigned lp_off:15, lp_flags:2, lp_len:15` in one little-endian 32-bit
        word w: lp_off = w & 0x7FFF, lp_flags = (w >> 15) & 3, lp_len = w >> 17.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgPage.ItemId, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.lp_off = self._io.read_bits_int_le(15)
            self.lp_flags = KaitaiStream.resolve_enum(PgPage.LpFlags, self._io.read_bits_int_le(2))
            self.lp_len = self._io.read_bits_int_le(15)


        def _fetch_instances(self):
            pass
            _ = self.data
            if hasattr(self, '_m_data'):
                pass


        @property
        def data(self):
            """The item's bytes when lp_off/lp_len lie inside the page (null otherwise). Only
            meaningful when the line pointer was parsed as part of a whole page.
            """
            if hasattr(self, '_m_data'):
                return self._m_data

            if  ((self.lp_len > 0) and (self.lp_off >= 24) and (self.lp_off + self.lp_len <= self._io.size())) :
                pass
                io = self._io
                _pos = io.pos()
                io.seek(self.lp_off)
                self._m_data = io.read_bytes(self.lp_len)
                io.seek(_pos)

            return getattr(self, '_m_data', None)


    class ItemPointer(KaitaiStruct):
        """Tuple identifier (block, offset), 6 bytes, 2-byte aligned. The block number is stored
        as BlockIdData {bi_hi, bi_lo}: block = bi_hi << 16 | bi_lo, not as a plain uint32.
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgPage.ItemPointer, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.bi_hi = self._io.read_u2le()
            self.bi_lo = self._io.read_u2le()
            self.ip_posid = self._io.read_u2le()


        def _fetch_instances(self):
            pass

        @property
        def block_number(self):
            """BlockIdGetBlockNumber(&ip_blkid); InvalidBlockNumber is 0xFFFFFFFF."""
            if hasattr(self, '_m_block_number'):
                return self._m_block_number

            self._m_block_number = self.bi_hi << 16 | self.bi_lo
            return getattr(self, '_m_block_number', None)


    class PageHeader(KaitaiStruct):
        """PageHeaderData, 24 bytes (SizeOfPageHeaderData). MAXALIGN(24) = 24, so PageGetContents = page + 24."""
        def __init__(self, _io, _parent=None, _root=None):
            super(PgPage.PageHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.pd_lsn = PgPage.PageXlogRecPtr(self._io, self, self._root)
            self.pd_checksum = self._io.read_u2le()
            self.pd_flags = self._io.read_u2le()
            self.pd_lower = self._io.read_u2le()
            self.pd_upper = self._io.read_u2le()
            self.pd_special = self._io.read_u2le()
            self.pd_pagesize_version = self._io.read_u2le()
            self.pd_prune_xid = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.pd_lsn._fetch_instances()

        @property
        def layout_version(self):
            """PageGetPageLayoutVersion (4 = PostgreSQL 8.3+)."""
            if hasattr(self, '_m_layout_version'):
                return self._m_layout_version

            self._m_layout_version = self.pd_pagesize_version & 255
            return getattr(self, '_m_layout_version', None)

        @property
        def page_size_declared(self):
            """PageGetPageSize."""
            if hasattr(self, '_m_page_size_declared'):
                return self._m_page_size_declared

            self._m_page_size_declared = self.pd_pagesize_version & 65280
            return getattr(self, '_m_page_size_declared', None)


    class PageXlogRecPtr(KaitaiStruct):
        """An XLogRecPtr stored as two uint32 halves so that the page header needs only 4-byte alignment."""
        def __init__(self, _io, _parent=None, _root=None):
            super(PgPage.PageXlogRecPtr, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xlogid = self._io.read_u4le()
            self.xrecoff = self._io.read_u4le()


        def _fetch_instances(self):
            pass

        @property
        def lsn(self):
            """The 64-bit LSN (PageXLogRecPtrGet); printed by PostgreSQL as "%X/%08X" xlogid, xrecoff."""
            if hasattr(self, '_m_lsn'):
                return self._m_lsn

            self._m_lsn = self.xlogid << 32 | self.xrecoff
            return getattr(self, '_m_lsn', None)


    @property
    def num_line_pointers(self):
        """PageGetMaxOffsetNumber, clamped to the page (never negative, never past the end)."""
        if hasattr(self, '_m_num_line_pointers'):
            return self._m_num_line_pointers

        self._m_num_line_pointers = (((self.header.pd_lower if self.header.pd_lower < self._io.size() else self._io.size()) - 24) // 4 if self.header.pd_lower > 24 else 0)
        return getattr(self, '_m_num_line_pointers', None)

    @property
    def page_size(self):
        """Length of the buffer being parsed (the real page size; compare with header.page_size_declared)."""
        if hasattr(self, '_m_page_size'):
            return self._m_page_size

        self._m_page_size = self._io.size()
        return getattr(self, '_m_page_size', None)

    @property
    def page_type_id(self):
        """Last u16 of the page. Hash (0xFF80), GiST (0xFF81) and SP-GiST (0xFF82) store their page
        id here; BRIN its page type (0xF091-0xF093); nbtree its btpo_cycleid (<= MAX_BT_CYCLE_ID
        0xFF7F). GIN has no id (see gin_page.ksy). Use enum page_id to compare.
        """
        if hasattr(self, '_m_page_type_id'):
            return self._m_page_type_id

        if self._io.size() >= 26:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 2)
            self._m_page_type_id = self._io.read_u2le()
            self._io.seek(_pos)

        return getattr(self, '_m_page_type_id', None)

    @property
    def special(self):
        """Raw special space, from pd_special to the end of the page (absent if pd_special is out of range)."""
        if hasattr(self, '_m_special'):
            return self._m_special

        if  ((self.header.pd_special >= 24) and (self.header.pd_special <= self._io.size())) :
            pass
            _pos = self._io.pos()
            self._io.seek(self.header.pd_special)
            self._m_special = self._io.read_bytes(self._io.size() - self.header.pd_special)
            self._io.seek(_pos)

        return getattr(self, '_m_special', None)
