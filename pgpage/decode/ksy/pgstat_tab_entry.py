# GENERATED FILE - DO NOT EDIT.
# Source: formats/pgstat_tab_entry.ksy (sha256 154e0d1f20e7323116c50f1c7de46d9e8ad576b18fc9b4551b6824c194e1b09f)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgstatTabEntry(KaitaiStruct):
    """The counters the statistics file keeps for one relation (table, index, TOAST table), as written
    by a clean shutdown: pg_stat_all_tables / pg_stat_all_indexes read them (idx_scan of an index is
    its numscans, idx_tup_read its tuples_returned, idx_tup_fetch its tuples_fetched).  All counters
    are PgStat_Counter (int64); timestamps are TimestampTz (microseconds since 2000-01-01 UTC, 0 =
    never, which the views show as NULL).  The struct changed with the majors:
    
      majors  size  changes
      10-12   160   (after Oid tableid + 4 bytes of padding, in db_<oid>.stat)
      13      168   + inserts_since_vacuum
      14      176   + changes_since_analyze_reported (after changes_since_analyze)
      15      168   - changes_since_analyze_reported; no tableid (the key is the hash key, in pgstat.stat)
      16-17   184   + lastscan (after numscans), tuples_newpage_updated (after tuples_hot_updated);
                    fields renamed (live_tuples, dead_tuples, mod_since_analyze, ins_since_vacuum,
                    last_vacuum_time, autovacuum_count, ...)
      18      216   + total_vacuum_time, total_autovacuum_time, total_analyze_time,
                    total_autoanalyze_time (milliseconds)
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/pgstat.h
    """
    def __init__(self, major, _io, _parent=None, _root=None):
        super(PgstatTabEntry, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self.major = major
        self._read()

    def _read(self):
        self.numscans = self._io.read_s8le()
        if self.major >= 16:
            pass
            self.lastscan = self._io.read_s8le()

        self.tuples_returned = self._io.read_s8le()
        self.tuples_fetched = self._io.read_s8le()
        self.tuples_inserted = self._io.read_s8le()
        self.tuples_updated = self._io.read_s8le()
        self.tuples_deleted = self._io.read_s8le()
        self.tuples_hot_updated = self._io.read_s8le()
        if self.major >= 16:
            pass
            self.tuples_newpage_updated = self._io.read_s8le()

        self.n_live_tuples = self._io.read_s8le()
        self.n_dead_tuples = self._io.read_s8le()
        self.changes_since_analyze = self._io.read_s8le()
        if self.major == 14:
            pass
            self.changes_since_analyze_reported = self._io.read_s8le()

        if self.major >= 13:
            pass
            self.inserts_since_vacuum = self._io.read_s8le()

        self.blocks_fetched = self._io.read_s8le()
        self.blocks_hit = self._io.read_s8le()
        self.vacuum_timestamp = self._io.read_s8le()
        self.vacuum_count = self._io.read_s8le()
        self.autovac_vacuum_timestamp = self._io.read_s8le()
        self.autovac_vacuum_count = self._io.read_s8le()
        self.analyze_timestamp = self._io.read_s8le()
        self.analyze_count = self._io.read_s8le()
        self.autovac_analyze_timestamp = self._io.read_s8le()
        self.autovac_analyze_count = self._io.read_s8le()
        if self.major >= 18:
            pass
            self.total_vacuum_time = self._io.read_s8le()

        if self.major >= 18:
            pass
            self.total_autovacuum_time = self._io.read_s8le()

        if self.major >= 18:
            pass
            self.total_analyze_time = self._io.read_s8le()

        if self.major >= 18:
            pass
            self.total_autoanalyze_time = self._io.read_s8le()



    def _fetch_instances(self):
        pass
        if self.major >= 16:
            pass

        if self.major >= 16:
            pass

        if self.major == 14:
            pass

        if self.major >= 13:
            pass

        if self.major >= 18:
            pass

        if self.major >= 18:
            pass

        if self.major >= 18:
            pass

        if self.major >= 18:
            pass
