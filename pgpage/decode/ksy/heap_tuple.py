# GENERATED FILE - DO NOT EDIT.
# Source: formats/heap_tuple.ksy (sha256 f1f86cc2699c447947c68badd54505dbe5daad68f93b49793bb001cdd33daaf2)
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

class HeapTuple(KaitaiStruct):
    """One heap tuple as stored on a heap page: the 23-byte fixed header, the optional null
    bitmap t_bits (only when HEAP_HASNULL), padding to t_hoff, then user data.
    
        t_xmin | t_xmax | t_field3 (t_cid/t_xvac) | t_ctid | t_infomask2 | t_infomask | t_hoff | t_bits...
    
    Parse the bytes of one item, i.e. page[lp_off : lp_off + lp_len] (PgPage ItemId.data):
    `HeapTuple.from_bytes(item_bytes)`. The seq covers only the fixed 23 bytes, so a short
    item fails only if it is shorter than the fixed header; everything after it (t_bits, the
    pre-12 OID, the user data) is an instance clamped to the bytes actually present.
    
    The flag names differ across releases in one place: 0x0008 is HEAP_HASOID up to
    PostgreSQL 11 (WITH OIDS tables; the OID is stored in the 4 bytes before t_hoff) and
    HEAP_HASOID_OLD from 12 on (never set by 12+, still found after pg_upgrade).
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/htup_details.h
    
    
    .. seealso::
       HEAP_HASOID, HeapTupleHeaderGetOid - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/access/htup_details.h
    """

    class Infomask2Flags(IntEnum):
        heap_keys_updated = 8192
        heap_hot_updated = 16384
        heap_only_tuple = 32768

    class Infomask2Masks(IntEnum):
        heap_natts_mask = 2047
        heap2_xact_mask = 57344

    class InfomaskCombined(IntEnum):
        heap_xmax_shr_lock = 80
        heap_xmin_frozen = 768
        heap_is_datum = 3072
        heap_moved = 49152
        heap_xact_mask = 65520

    class InfomaskFlags(IntEnum):
        heap_hasnull = 1
        heap_hasvarwidth = 2
        heap_hasexternal = 4
        heap_hasoid_old = 8
        heap_xmax_keyshr_lock = 16
        heap_combocid = 32
        heap_xmax_excl_lock = 64
        heap_xmax_lock_only = 128
        heap_xmin_committed = 256
        heap_xmin_invalid = 512
        heap_xmax_committed = 1024
        heap_xmax_invalid = 2048
        heap_xmax_is_multi = 4096
        heap_updated = 8192
        heap_moved_off = 16384
        heap_moved_in = 32768

    class SpecialXid(IntEnum):
        invalid_transaction_id = 0
        bootstrap_transaction_id = 1
        frozen_transaction_id = 2
        first_normal_transaction_id = 3
    def __init__(self, _io, _parent=None, _root=None):
        super(HeapTuple, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.t_xmin = self._io.read_u4le()
        self.t_xmax = self._io.read_u4le()
        self.t_field3 = self._io.read_u4le()
        self.t_ctid = pg_page.PgPage.ItemPointer(self._io)
        self.t_infomask2 = self._io.read_u2le()
        self.t_infomask = self._io.read_u2le()
        self.t_hoff = self._io.read_u1()


    def _fetch_instances(self):
        pass
        self.t_ctid._fetch_instances()
        _ = self.data
        if hasattr(self, '_m_data'):
            pass

        _ = self.oid
        if hasattr(self, '_m_oid'):
            pass

        _ = self.t_bits
        if hasattr(self, '_m_t_bits'):
            pass


    @property
    def bitmap_len(self):
        """BITMAPLEN(natts), the length the null bitmap should have."""
        if hasattr(self, '_m_bitmap_len'):
            return self._m_bitmap_len

        self._m_bitmap_len = (self.natts + 7) // 8
        return getattr(self, '_m_bitmap_len', None)

    @property
    def data(self):
        """User data (the attribute values), from t_hoff to the end of the item."""
        if hasattr(self, '_m_data'):
            return self._m_data

        if  ((self.t_hoff >= 23) and (self.t_hoff <= self._io.size())) :
            pass
            _pos = self._io.pos()
            self._io.seek(self.t_hoff)
            self._m_data = self._io.read_bytes(self._io.size() - self.t_hoff)
            self._io.seek(_pos)

        return getattr(self, '_m_data', None)

    @property
    def has_nulls(self):
        """HEAP_HASNULL."""
        if hasattr(self, '_m_has_nulls'):
            return self._m_has_nulls

        self._m_has_nulls = self.t_infomask & 1 != 0
        return getattr(self, '_m_has_nulls', None)

    @property
    def has_oid_old(self):
        """HEAP_HASOID_OLD (HEAP_HASOID before PostgreSQL 12)."""
        if hasattr(self, '_m_has_oid_old'):
            return self._m_has_oid_old

        self._m_has_oid_old = self.t_infomask & 8 != 0
        return getattr(self, '_m_has_oid_old', None)

    @property
    def natts(self):
        """HeapTupleHeaderGetNatts (t_infomask2 & HEAP_NATTS_MASK)."""
        if hasattr(self, '_m_natts'):
            return self._m_natts

        self._m_natts = self.t_infomask2 & 2047
        return getattr(self, '_m_natts', None)

    @property
    def oid(self):
        """The object ID of a pre-PostgreSQL-12 WITH OIDS row, stored just before t_hoff (HeapTupleHeaderGetOid)."""
        if hasattr(self, '_m_oid'):
            return self._m_oid

        if  ((self.has_oid_old) and (self.t_hoff >= 27) and (self.t_hoff <= self._io.size())) :
            pass
            _pos = self._io.pos()
            self._io.seek(self.t_hoff - 4)
            self._m_oid = self._io.read_u4le()
            self._io.seek(_pos)

        return getattr(self, '_m_oid', None)

    @property
    def t_bits(self):
        """Null bitmap (HEAP_HASNULL only), bit i set means attribute i+1 is NOT null
        (att_isnull(i, bits) = !(bits[i >> 3] & (1 << (i & 7)))).
        """
        if hasattr(self, '_m_t_bits'):
            return self._m_t_bits

        if self.has_nulls:
            pass
            _pos = self._io.pos()
            self._io.seek(23)
            self._m_t_bits = self._io.read_bytes(self.t_bits_len)
            self._io.seek(_pos)

        return getattr(self, '_m_t_bits', None)

    @property
    def t_bits_len(self):
        """bytes of t_bits actually read, BITMAPLEN(natts) clamped to the item (the seq guarantees _io.size >= 23)."""
        if hasattr(self, '_m_t_bits_len'):
            return self._m_t_bits_len

        self._m_t_bits_len = ((self.bitmap_len if self.bitmap_len < self._io.size() - 23 else self._io.size() - 23) if self.has_nulls else 0)
        return getattr(self, '_m_t_bits_len', None)

    @property
    def t_cid(self):
        """t_field3 read as t_cid (inserting or deleting command ID, or both)."""
        if hasattr(self, '_m_t_cid'):
            return self._m_t_cid

        self._m_t_cid = self.t_field3
        return getattr(self, '_m_t_cid', None)

    @property
    def t_xvac(self):
        """t_field3 read as t_xvac (old-style VACUUM FULL xact ID; when HEAP_MOVED is set)."""
        if hasattr(self, '_m_t_xvac'):
            return self._m_t_xvac

        self._m_t_xvac = self.t_field3
        return getattr(self, '_m_t_xvac', None)
