# GENERATED FILE - DO NOT EDIT.
# Source: formats/pg_filenode_map.ksy (sha256 3e456ad97ae2abae683700fe2cf86be320e4157b09a2cbc224eeb766af6dd8ce)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgFilenodeMap(KaitaiStruct):
    """RelMapFile: maps the OIDs of "mapped" catalogs (pg_class.relfilenode = 0: pg_class itself,
    pg_attribute, pg_proc, pg_type, their indexes and TOAST tables, and the shared catalogs such as
    pg_database and pg_authid) to the relfilenode that holds their data.  One file lives in global/
    (shared catalogs) and one in each database directory base/<dboid>/.
    
    Two layouts, told apart by the file size (nothing inside the file says which):
    
      majors   size  MAX_MAPPINGS  crc at  after crc
      10..15   512   62            504     int32 pad (the file had to be exactly one 512-byte sector,
                                           because it was overwritten in place)
      16..18   524   64            520     nothing (written to pg_filenode.map.tmp and renamed)
    
    crc is CRC-32C (Castagnoli) over bytes [0, crc_offset).  All MAX_MAPPINGS slots are always
    present (unused ones are zero); num_mappings says how many are in use.  It is an int32 read from
    the file: clamp it to [0, max_mappings] before trusting it (num_mappings_clamped does that).
    PG 16 renamed RelMapping.mapfilenode to mapfilenumber (type RelFileNumber, still a 32-bit Oid).
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/utils/cache/relmapper.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/backend/utils/cache/relmapper.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/utils/cache/relmapper.c
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(PgFilenodeMap, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.magic = self._io.read_u4le()
        self.num_mappings = self._io.read_s4le()
        self.mappings = []
        for i in range(self.max_mappings):
            self.mappings.append(PgFilenodeMap.RelMapping(self._io, self, self._root))

        self.crc = self._io.read_u4le()
        if (not (self.is_v16)):
            pass
            self.pad = self._io.read_s4le()



    def _fetch_instances(self):
        pass
        for i in range(len(self.mappings)):
            pass
            self.mappings[i]._fetch_instances()

        if (not (self.is_v16)):
            pass


    class RelMapping(KaitaiStruct):
        """one mapped catalog."""
        def __init__(self, _io, _parent=None, _root=None):
            super(PgFilenodeMap.RelMapping, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.mapoid = self._io.read_u4le()
            self.mapfilenode = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    @property
    def crc_offset(self):
        """offsetof(RelMapFile, crc); the CRC covers [0, crc_offset)."""
        if hasattr(self, '_m_crc_offset'):
            return self._m_crc_offset

        self._m_crc_offset = 8 + self.max_mappings * 8
        return getattr(self, '_m_crc_offset', None)

    @property
    def is_v16(self):
        """true for the 524-byte layout of PostgreSQL 16 and later (chosen by file size)."""
        if hasattr(self, '_m_is_v16'):
            return self._m_is_v16

        self._m_is_v16 = self._io.size() == 524
        return getattr(self, '_m_is_v16', None)

    @property
    def max_mappings(self):
        """62 up to PG 15, 64 from PG 16."""
        if hasattr(self, '_m_max_mappings'):
            return self._m_max_mappings

        self._m_max_mappings = (64 if self.is_v16 else 62)
        return getattr(self, '_m_max_mappings', None)

    @property
    def num_mappings_clamped(self):
        """num_mappings limited to [0, max_mappings], so garbage cannot index past the array."""
        if hasattr(self, '_m_num_mappings_clamped'):
            return self._m_num_mappings_clamped

        self._m_num_mappings_clamped = (0 if self.num_mappings < 0 else (self.max_mappings if self.num_mappings > self.max_mappings else self.num_mappings))
        return getattr(self, '_m_num_mappings_clamped', None)

    @property
    def relmapper_filemagic(self):
        """the value magic must have."""
        if hasattr(self, '_m_relmapper_filemagic'):
            return self._m_relmapper_filemagic

        self._m_relmapper_filemagic = 5842711
        return getattr(self, '_m_relmapper_filemagic', None)
