# GENERATED FILE - DO NOT EDIT.
# Source: formats/pg_xact.ksy (sha256 7481e17bb813b844aad4243e7940d0a8e19e3e43c448691d48698245153390ac)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgXact(KaitaiStruct):
    """One 8192-byte (BLCKSZ) page of the commit log.  Two bits per transaction, four transactions per
    byte, the lowest two bits of a byte for the lowest xid:
    
      xid x:  page    = x / 32768               (CLOG_XACTS_PER_PAGE = BLCKSZ * 4)
              segment = page / 32               (SLRU_PAGES_PER_SEGMENT), file pg_xact/%04X
              byte    = (x % 32768) / 4         (TransactionIdToByte)
              shift   = (x % 4) * 2             (TransactionIdToBIndex * CLOG_BITS_PER_XACT)
              status  = (byte >> shift) & 3
    
    A segment file holds up to 32 pages (1,048,576 xids); the newest one is often shorter.
    pg_xact keeps short segment names ("%04X", at most 0FFF for 32-bit xids) in every major 10 to 18;
    PostgreSQL 17 made SLRU page numbers 64-bit and added 15-digit "long" segment names, but uses them
    only for pg_notify there, not for pg_xact.
    Group-LSN storage (CLOG_LSNS_PER_PAGE) lives in shared memory only, never in the file.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/transam/clog.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/access/transam/clog.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/access/transam/slru.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/clog.h
    """

    class TransactionStatus(IntEnum):
        transaction_status_in_progress = 0
        transaction_status_committed = 1
        transaction_status_aborted = 2
        transaction_status_sub_committed = 3
    def __init__(self, _io, _parent=None, _root=None):
        super(PgXact, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.groups = []
        for i in range(8192):
            self.groups.append(PgXact.XactByte(self._io, self, self._root))



    def _fetch_instances(self):
        pass
        for i in range(len(self.groups)):
            pass
            self.groups[i]._fetch_instances()


    class XactByte(KaitaiStruct):
        """four 2-bit transaction statuses, xid % 4 == 0 in the lowest bits."""
        def __init__(self, _io, _parent=None, _root=None):
            super(PgXact.XactByte, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.status0 = KaitaiStream.resolve_enum(PgXact.TransactionStatus, self._io.read_bits_int_le(2))
            self.status1 = KaitaiStream.resolve_enum(PgXact.TransactionStatus, self._io.read_bits_int_le(2))
            self.status2 = KaitaiStream.resolve_enum(PgXact.TransactionStatus, self._io.read_bits_int_le(2))
            self.status3 = KaitaiStream.resolve_enum(PgXact.TransactionStatus, self._io.read_bits_int_le(2))


        def _fetch_instances(self):
            pass


    @property
    def bits_per_xact(self):
        if hasattr(self, '_m_bits_per_xact'):
            return self._m_bits_per_xact

        self._m_bits_per_xact = 2
        return getattr(self, '_m_bits_per_xact', None)

    @property
    def page_size(self):
        """SLRU page size (the build's block size; 8192 unless built otherwise)."""
        if hasattr(self, '_m_page_size'):
            return self._m_page_size

        self._m_page_size = 8192
        return getattr(self, '_m_page_size', None)

    @property
    def pages_per_segment(self):
        if hasattr(self, '_m_pages_per_segment'):
            return self._m_pages_per_segment

        self._m_pages_per_segment = 32
        return getattr(self, '_m_pages_per_segment', None)

    @property
    def xacts_per_byte(self):
        if hasattr(self, '_m_xacts_per_byte'):
            return self._m_xacts_per_byte

        self._m_xacts_per_byte = 4
        return getattr(self, '_m_xacts_per_byte', None)

    @property
    def xacts_per_page(self):
        if hasattr(self, '_m_xacts_per_page'):
            return self._m_xacts_per_page

        self._m_xacts_per_page = self.page_size * self.xacts_per_byte
        return getattr(self, '_m_xacts_per_page', None)
