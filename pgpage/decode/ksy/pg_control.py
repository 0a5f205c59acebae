# GENERATED FILE - DO NOT EDIT.
# Source: formats/pg_control.ksy (sha256 dfc2b7f8dc0d45df3ff96a0704d3dbe631261deacba64afeff41a74b4d348501)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgControl(KaitaiStruct):
    """ControlFileData as written by PostgreSQL 10 to 18 on x86-64 (little-endian, MAXALIGN 8, 8-byte
    alignment for pg_time_t / XLogRecPtr / uint64 / double, 1-byte bool).  The file is
    PG_CONTROL_FILE_SIZE = 8192 bytes; only the first sizeof(ControlFileData) (< 512) bytes are used,
    the rest is zero.  The layout is chosen by pg_control_version, which (like system_identifier and
    catalog_version_no) never moves:
    
      pg_control_version  majors          crc offset  differences
      1002                10              288         prevCheckPoint; CheckPoint has nextXidEpoch + nextXid
      1100                11              280         prevCheckPoint removed
      1201                12              288         CheckPoint.nextFullXid (FullTransactionId, uint64);
                                                      max_wal_senders added
      1300                13, 14, 15, 16  288         float4ByVal removed (14 renames nextFullXid to nextXid)
      1700                17              288         same bytes as 1300 (17 betas still wrote 1300)
      1800                18              292         default_char_signedness added
    
    crc is CRC-32C (Castagnoli) over bytes [0, offsetof(ControlFileData, crc)); each layout type
    gives that offset as its crc_offset instance.  Padding bytes are named pad_after_<field>;
    PostgreSQL zeroes the whole struct before filling it, so they are zero in files it wrote.
    Bools are u1 (0/1); Python turns them into bool.  Enum value ids are PostgreSQL's names in
    lower case, with the exact spelling in -orig-id.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_12_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
    
    
    .. seealso::
       (WalLevel) - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlog.h
    """

    class DbState(IntEnum):
        db_startup = 0
        db_shutdowned = 1
        db_shutdowned_in_recovery = 2
        db_shutdowning = 3
        db_in_crash_recovery = 4
        db_in_archive_recovery = 5
        db_in_production = 6

    class WalLevel(IntEnum):
        wal_level_minimal = 0
        wal_level_replica = 1
        wal_level_logical = 2
    def __init__(self, _io, _parent=None, _root=None):
        super(PgControl, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.system_identifier = self._io.read_u8le()
        self.pg_control_version = self._io.read_u4le()
        self.catalog_version_no = self._io.read_u4le()
        _on = self.pg_control_version
        if _on == 1002:
            pass
            self.body = PgControl.ControlV1002(self._io, self, self._root)
        elif _on == 1100:
            pass
            self.body = PgControl.ControlV1100(self._io, self, self._root)
        elif _on == 1201:
            pass
            self.body = PgControl.ControlV1201(self._io, self, self._root)
        elif _on == 1300:
            pass
            self.body = PgControl.ControlV1300(self._io, self, self._root)
        elif _on == 1700:
            pass
            self.body = PgControl.ControlV1700(self._io, self, self._root)
        elif _on == 1800:
            pass
            self.body = PgControl.ControlV1800(self._io, self, self._root)


    def _fetch_instances(self):
        pass
        _on = self.pg_control_version
        if _on == 1002:
            pass
            self.body._fetch_instances()
        elif _on == 1100:
            pass
            self.body._fetch_instances()
        elif _on == 1201:
            pass
            self.body._fetch_instances()
        elif _on == 1300:
            pass
            self.body._fetch_instances()
        elif _on == 1700:
            pass
            self.body._fetch_instances()
        elif _on == 1800:
            pass
            self.body._fetch_instances()

    class CheckPointV1002(KaitaiStruct):
        """CheckPoint with a 32-bit nextXid and a separate nextXidEpoch (PG 9.6 to 11); 80 bytes.
        Body of CheckPoint WAL records; pg_control keeps a copy of the latest one.  Offsets in
        the field docs are relative to the start of the struct.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.CheckPointV1002, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.redo = self._io.read_u8le()
            self.this_time_line_id = self._io.read_u4le()
            self.prev_time_line_id = self._io.read_u4le()
            self.full_page_writes = self._io.read_u1()
            self.pad_after_full_page_writes = self._io.read_bytes(3)
            self.next_xid_epoch = self._io.read_u4le()
            self.next_xid = self._io.read_u4le()
            self.next_oid = self._io.read_u4le()
            self.next_multi = self._io.read_u4le()
            self.next_multi_offset = self._io.read_u4le()
            self.oldest_xid = self._io.read_u4le()
            self.oldest_xid_db = self._io.read_u4le()
            self.oldest_multi = self._io.read_u4le()
            self.oldest_multi_db = self._io.read_u4le()
            self.time = self._io.read_s8le()
            self.oldest_commit_ts_xid = self._io.read_u4le()
            self.newest_commit_ts_xid = self._io.read_u4le()
            self.oldest_active_xid = self._io.read_u4le()
            self.pad_after_oldest_active_xid = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class CheckPointV1201(KaitaiStruct):
        """CheckPoint with FullTransactionId nextXid (PG 12 to 18: nextFullXid in 12 and 13, nextXid from 14); 88 bytes.
        Body of CheckPoint WAL records; pg_control keeps a copy of the latest one.  Offsets in
        the field docs are relative to the start of the struct.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.CheckPointV1201, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.redo = self._io.read_u8le()
            self.this_time_line_id = self._io.read_u4le()
            self.prev_time_line_id = self._io.read_u4le()
            self.full_page_writes = self._io.read_u1()
            self.pad_after_full_page_writes = self._io.read_bytes(7)
            self.next_full_xid = self._io.read_u8le()
            self.next_oid = self._io.read_u4le()
            self.next_multi = self._io.read_u4le()
            self.next_multi_offset = self._io.read_u4le()
            self.oldest_xid = self._io.read_u4le()
            self.oldest_xid_db = self._io.read_u4le()
            self.oldest_multi = self._io.read_u4le()
            self.oldest_multi_db = self._io.read_u4le()
            self.pad_after_oldest_multi_db = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.oldest_commit_ts_xid = self._io.read_u4le()
            self.newest_commit_ts_xid = self._io.read_u4le()
            self.oldest_active_xid = self._io.read_u4le()
            self.pad_after_oldest_active_xid = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class ControlV1002(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1002:
        PostgreSQL 10.  crc at offset 288; sizeof(ControlFileData) = 296.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1002, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.prev_check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1002(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.pad_after_max_align = self._io.read_bytes(4)
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float4_by_val = self._io.read_u1()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(2)
            self.data_checksum_version = self._io.read_u4le()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 288
            return getattr(self, '_m_crc_offset', None)


    class ControlV1100(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1100:
        PostgreSQL 11.  crc at offset 280; sizeof(ControlFileData) = 288.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1100, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1002(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.pad_after_max_align = self._io.read_bytes(4)
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float4_by_val = self._io.read_u1()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(2)
            self.data_checksum_version = self._io.read_u4le()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 280
            return getattr(self, '_m_crc_offset', None)


    class ControlV1201(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1201:
        PostgreSQL 12.  crc at offset 288; sizeof(ControlFileData) = 296.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_12_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1201, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1201(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_wal_senders = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float4_by_val = self._io.read_u1()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(2)
            self.data_checksum_version = self._io.read_u4le()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 288
            return getattr(self, '_m_crc_offset', None)


    class ControlV1300(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1300:
        PostgreSQL 13, 14, 15, 16.  crc at offset 288; sizeof(ControlFileData) = 296.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/catalog/pg_control.h
        
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/catalog/pg_control.h
        
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/catalog/pg_control.h
        
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1300, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1201(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_wal_senders = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(3)
            self.data_checksum_version = self._io.read_u4le()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 288
            return getattr(self, '_m_crc_offset', None)


    class ControlV1700(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1700:
        PostgreSQL 17.  crc at offset 288; sizeof(ControlFileData) = 296.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1700, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1201(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_wal_senders = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(3)
            self.data_checksum_version = self._io.read_u4le()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 288
            return getattr(self, '_m_crc_offset', None)


    class ControlV1800(KaitaiStruct):
        """ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1800:
        PostgreSQL 18.  crc at offset 292; sizeof(ControlFileData) = 296.
        Offsets in the field docs count from the start of the file.
        
        .. seealso::
           Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
        """
        def __init__(self, _io, _parent=None, _root=None):
            super(PgControl.ControlV1800, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.state = KaitaiStream.resolve_enum(PgControl.DbState, self._io.read_u4le())
            self.pad_after_state = self._io.read_bytes(4)
            self.time = self._io.read_s8le()
            self.check_point = self._io.read_u8le()
            self.check_point_copy = PgControl.CheckPointV1201(self._io, self, self._root)
            self.unlogged_lsn = self._io.read_u8le()
            self.min_recovery_point = self._io.read_u8le()
            self.min_recovery_point_tli = self._io.read_u4le()
            self.pad_after_min_recovery_point_tli = self._io.read_bytes(4)
            self.backup_start_point = self._io.read_u8le()
            self.backup_end_point = self._io.read_u8le()
            self.backup_end_required = self._io.read_u1()
            self.pad_after_backup_end_required = self._io.read_bytes(3)
            self.wal_level = KaitaiStream.resolve_enum(PgControl.WalLevel, self._io.read_s4le())
            self.wal_log_hints = self._io.read_u1()
            self.pad_after_wal_log_hints = self._io.read_bytes(3)
            self.max_connections = self._io.read_s4le()
            self.max_worker_processes = self._io.read_s4le()
            self.max_wal_senders = self._io.read_s4le()
            self.max_prepared_xacts = self._io.read_s4le()
            self.max_locks_per_xact = self._io.read_s4le()
            self.track_commit_timestamp = self._io.read_u1()
            self.pad_after_track_commit_timestamp = self._io.read_bytes(3)
            self.max_align = self._io.read_u4le()
            self.float_format = self._io.read_f8le()
            self.blcksz = self._io.read_u4le()
            self.relseg_size = self._io.read_u4le()
            self.xlog_blcksz = self._io.read_u4le()
            self.xlog_seg_size = self._io.read_u4le()
            self.name_data_len = self._io.read_u4le()
            self.index_max_keys = self._io.read_u4le()
            self.toast_max_chunk_size = self._io.read_u4le()
            self.loblksize = self._io.read_u4le()
            self.float8_by_val = self._io.read_u1()
            self.pad_after_float8_by_val = self._io.read_bytes(3)
            self.data_checksum_version = self._io.read_u4le()
            self.default_char_signedness = self._io.read_u1()
            self.mock_authentication_nonce = self._io.read_bytes(32)
            self.pad_after_mock_authentication_nonce = self._io.read_bytes(3)
            self.crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.check_point_copy._fetch_instances()

        @property
        def crc_offset(self):
            """offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)."""
            if hasattr(self, '_m_crc_offset'):
                return self._m_crc_offset

            self._m_crc_offset = 292
            return getattr(self, '_m_crc_offset', None)
