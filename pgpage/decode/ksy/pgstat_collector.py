# GENERATED FILE - DO NOT EDIT.
# Source: formats/pgstat_collector.ksy (sha256 1dfc0297089643608fb3d6ccddf3fdafbf2f7f1daae2103286ed69cb3fb1dd5a)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import pgstat_tab_entry


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgstatCollector(KaitaiStruct):
    """Up to PostgreSQL 14 the statistics collector writes, at a clean shutdown, pg_stat/global.stat
    (PGSTAT_FILE_FORMAT_ID, then PgStat_GlobalStats, whose first field stats_timestamp is the time
    the file was written, then the archiver, SLRU, WAL and per-database records: not decoded here)
    and one pg_stat/db_<oid>.stat per database (db_0.stat: the shared catalogs): the format id, then
    records each introduced by one byte, 'T' + PgStat_StatTabEntry (Oid tableid, 4 bytes of
    padding, the counters), 'F' + PgStat_StatFuncEntry (Oid, padding, three int64), and 'E' at the
    end.  Each record is the C struct written with fwrite, so its padding is in the file.
    The format id does not say the major (10 to 13 share 0x01A5BC9D though 13's table entry is 8
    bytes longer), so db_file takes the major as a parameter.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/backend/postmaster/pgstat.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/backend/postmaster/pgstat.c
    """
    def __init__(self, _io, _parent=None, _root=None):
        super(PgstatCollector, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.format_id = self._io.read_u4le()


    def _fetch_instances(self):
        pass

    class DbFile(KaitaiStruct):
        """a whole pg_stat/db_<oid>.stat."""
        def __init__(self, major, _io, _parent=None, _root=None):
            super(PgstatCollector.DbFile, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.major = major
            self._read()

        def _read(self):
            self.format_id = self._io.read_u4le()
            self.records = []
            i = 0
            while True:
                _ = PgstatCollector.Record(self.major, self._io, self, self._root)
                self.records.append(_)
                if  ((_.marker == 69) or ((not (_.known)))) :
                    break
                i += 1


        def _fetch_instances(self):
            pass
            for i in range(len(self.records)):
                pass
                self.records[i]._fetch_instances()



    class FuncEntry(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(PgstatCollector.FuncEntry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.f_numcalls = self._io.read_s8le()
            self.f_total_time = self._io.read_s8le()
            self.f_self_time = self._io.read_s8le()


        def _fetch_instances(self):
            pass


    class GlobalHeader(KaitaiStruct):
        """the start of global.stat."""
        def __init__(self, _io, _parent=None, _root=None):
            super(PgstatCollector.GlobalHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.format_id = self._io.read_u4le()
            self.stats_timestamp = self._io.read_s8le()


        def _fetch_instances(self):
            pass


    class Record(KaitaiStruct):
        def __init__(self, major, _io, _parent=None, _root=None):
            super(PgstatCollector.Record, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.major = major
            self._read()

        def _read(self):
            self.marker = self._io.read_u1()
            if  ((self.known) and (self.marker != 69)) :
                pass
                self.oid = self._io.read_u4le()

            if  ((self.known) and (self.marker != 69)) :
                pass
                self.pad = self._io.read_bytes(4)

            if self.marker == 84:
                pass
                self.table = pgstat_tab_entry.PgstatTabEntry(self.major, self._io)

            if self.marker == 70:
                pass
                self.function = PgstatCollector.FuncEntry(self._io, self, self._root)



        def _fetch_instances(self):
            pass
            if  ((self.known) and (self.marker != 69)) :
                pass

            if  ((self.known) and (self.marker != 69)) :
                pass

            if self.marker == 84:
                pass
                self.table._fetch_instances()

            if self.marker == 70:
                pass
                self.function._fetch_instances()


        @property
        def known(self):
            if hasattr(self, '_m_known'):
                return self._m_known

            self._m_known =  ((self.marker == 84) or (self.marker == 70) or (self.marker == 69)) 
            return getattr(self, '_m_known', None)
