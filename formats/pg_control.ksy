meta:
  id: pg_control
  title: PostgreSQL control file (global/pg_control), ControlFileData, PostgreSQL 10 to 18
  file-extension: pg_control
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  ControlFileData as written by PostgreSQL 10 to 18 on x86-64 (little-endian, MAXALIGN 8, 8-byte
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
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_12_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlog.h (WalLevel)
seq:
  - id: system_identifier
    type: u8
    doc: unique system identifier, set by initdb; offset 0
  - id: pg_control_version
    type: u4
    doc: PG_CONTROL_VERSION, identifies the format of pg_control itself; offset 8
  - id: catalog_version_no
    type: u4
    doc: CATALOG_VERSION_NO (catversion.h), format of the system catalogs; offset 12
  - id: body
    doc: |
      Everything after catalog_version_no, laid out per pg_control_version.  Left unset for a
      pg_control_version this file does not know; callers check the version first.
    type:
      switch-on: pg_control_version
      cases:
        1002: control_v1002
        1100: control_v1100
        1201: control_v1201
        1300: control_v1300
        1700: control_v1700
        1800: control_v1800
types:
  control_v1002:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1002:
      PostgreSQL 10.  crc at offset 288; sizeof(ControlFileData) = 296.
      Offsets in the field docs count from the start of the file.
    doc-ref: https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: prev_check_point
        type: u8
        -orig-id: prevCheckPoint
        doc: previous check point record ptr (removed in PG 11); offset 40
      - id: check_point_copy
        type: check_point_v1002
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 48
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 128'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 136
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 144
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 148)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 152'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 160'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 168'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 172
      - id: wal_log_hints
        type: u1
        doc: bool; offset 176
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 177)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 180
      - id: max_worker_processes
        type: s4
        doc: offset 184
      - id: max_prepared_xacts
        type: s4
        doc: offset 188
      - id: max_locks_per_xact
        type: s4
        doc: offset 192
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 196
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 197)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 200
      - id: pad_after_max_align
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 204)
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 208
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 216
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 220
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 224
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 228
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 232
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 236
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 240
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 244
      - id: float4_by_val
        type: u1
        -orig-id: float4ByVal
        doc: 'bool: float4 pass-by-value (removed in PG 13); offset 248'
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 249'
      - id: pad_after_float8_by_val
        size: 2
        doc: alignment padding (2 bytes), not a field (offset 250)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 252'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 256
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 288'
    instances:
      crc_offset:
        value: 288
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  control_v1100:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1100:
      PostgreSQL 11.  crc at offset 280; sizeof(ControlFileData) = 288.
      Offsets in the field docs count from the start of the file.
    doc-ref: https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: check_point_copy
        type: check_point_v1002
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 40
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 120'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 128
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 136
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 140)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 144'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 152'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 160'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 161)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 164
      - id: wal_log_hints
        type: u1
        doc: bool; offset 168
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 172
      - id: max_worker_processes
        type: s4
        doc: offset 176
      - id: max_prepared_xacts
        type: s4
        doc: offset 180
      - id: max_locks_per_xact
        type: s4
        doc: offset 184
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 188
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 189)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 192
      - id: pad_after_max_align
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 196)
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 200
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 208
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 212
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 216
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 220
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 224
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 228
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 232
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 236
      - id: float4_by_val
        type: u1
        -orig-id: float4ByVal
        doc: 'bool: float4 pass-by-value (removed in PG 13); offset 240'
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 241'
      - id: pad_after_float8_by_val
        size: 2
        doc: alignment padding (2 bytes), not a field (offset 242)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 244'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 248
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 280'
    instances:
      crc_offset:
        value: 280
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  control_v1201:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1201:
      PostgreSQL 12.  crc at offset 288; sizeof(ControlFileData) = 296.
      Offsets in the field docs count from the start of the file.
    doc-ref: https://github.com/postgres/postgres/blob/REL_12_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: check_point_copy
        type: check_point_v1201
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 40
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 128'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 136
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 144
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 148)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 152'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 160'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 168'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 172
      - id: wal_log_hints
        type: u1
        doc: bool; offset 176
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 177)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 180
      - id: max_worker_processes
        type: s4
        doc: offset 184
      - id: max_wal_senders
        type: s4
        doc: added in PG 12; offset 188
      - id: max_prepared_xacts
        type: s4
        doc: offset 192
      - id: max_locks_per_xact
        type: s4
        doc: offset 196
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 200
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 201)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 204
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 208
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 216
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 220
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 224
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 228
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 232
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 236
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 240
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 244
      - id: float4_by_val
        type: u1
        -orig-id: float4ByVal
        doc: 'bool: float4 pass-by-value (removed in PG 13); offset 248'
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 249'
      - id: pad_after_float8_by_val
        size: 2
        doc: alignment padding (2 bytes), not a field (offset 250)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 252'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 256
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 288'
    instances:
      crc_offset:
        value: 288
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  control_v1300:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1300:
      PostgreSQL 13, 14, 15, 16.  crc at offset 288; sizeof(ControlFileData) = 296.
      Offsets in the field docs count from the start of the file.
    doc-ref:
      - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/catalog/pg_control.h
      - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/catalog/pg_control.h
      - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/catalog/pg_control.h
      - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: check_point_copy
        type: check_point_v1201
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 40
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 128'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 136
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 144
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 148)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 152'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 160'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 168'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 172
      - id: wal_log_hints
        type: u1
        doc: bool; offset 176
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 177)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 180
      - id: max_worker_processes
        type: s4
        doc: offset 184
      - id: max_wal_senders
        type: s4
        doc: added in PG 12; offset 188
      - id: max_prepared_xacts
        type: s4
        doc: offset 192
      - id: max_locks_per_xact
        type: s4
        doc: offset 196
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 200
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 201)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 204
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 208
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 216
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 220
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 224
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 228
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 232
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 236
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 240
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 244
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 248'
      - id: pad_after_float8_by_val
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 249)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 252'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 256
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 288'
    instances:
      crc_offset:
        value: 288
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  control_v1700:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1700:
      PostgreSQL 17.  crc at offset 288; sizeof(ControlFileData) = 296.
      Offsets in the field docs count from the start of the file.
    doc-ref: https://github.com/postgres/postgres/blob/REL_17_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: check_point_copy
        type: check_point_v1201
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 40
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 128'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 136
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 144
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 148)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 152'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 160'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 168'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 172
      - id: wal_log_hints
        type: u1
        doc: bool; offset 176
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 177)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 180
      - id: max_worker_processes
        type: s4
        doc: offset 184
      - id: max_wal_senders
        type: s4
        doc: added in PG 12; offset 188
      - id: max_prepared_xacts
        type: s4
        doc: offset 192
      - id: max_locks_per_xact
        type: s4
        doc: offset 196
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 200
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 201)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 204
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 208
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 216
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 220
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 224
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 228
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 232
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 236
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 240
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 244
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 248'
      - id: pad_after_float8_by_val
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 249)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 252'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 256
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 288'
    instances:
      crc_offset:
        value: 288
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  control_v1800:
    doc: |
      ControlFileData from offset 16 (after catalog_version_no), pg_control_version 1800:
      PostgreSQL 18.  crc at offset 292; sizeof(ControlFileData) = 296.
      Offsets in the field docs count from the start of the file.
    doc-ref: https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: state
        type: u4
        enum: db_state
        doc: 'DBState: see enum db_state; offset 16'
      - id: pad_after_state
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 20)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of last pg_control update (seconds since the Unix epoch); offset 24'
      - id: check_point
        type: u8
        -orig-id: checkPoint
        doc: last check point record ptr (XLogRecPtr); offset 32
      - id: check_point_copy
        type: check_point_v1201
        -orig-id: checkPointCopy
        doc: copy of last check point record; offset 40
      - id: unlogged_lsn
        type: u8
        -orig-id: unloggedLSN
        doc: 'current fake LSN value, for unlogged rels; offset 128'
      - id: min_recovery_point
        type: u8
        -orig-id: minRecoveryPoint
        doc: must replay WAL up to here before starting up; offset 136
      - id: min_recovery_point_tli
        type: u4
        -orig-id: minRecoveryPointTLI
        doc: timeline of minRecoveryPoint; offset 144
      - id: pad_after_min_recovery_point_tli
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 148)
      - id: backup_start_point
        type: u8
        -orig-id: backupStartPoint
        doc: 'redo pointer of the backup start checkpoint, 0 when none; offset 152'
      - id: backup_end_point
        type: u8
        -orig-id: backupEndPoint
        doc: 'backup end location (backup taken from a standby), 0 when none; offset 160'
      - id: backup_end_required
        type: u1
        -orig-id: backupEndRequired
        doc: 'bool: an end-of-backup record must be seen before startup; offset 168'
      - id: pad_after_backup_end_required
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 169)
      - id: wal_level
        type: s4
        enum: wal_level
        doc: WalLevel in force; offset 172
      - id: wal_log_hints
        type: u1
        doc: bool; offset 176
      - id: pad_after_wal_log_hints
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 177)
      - id: max_connections
        type: s4
        -orig-id: MaxConnections
        doc: offset 180
      - id: max_worker_processes
        type: s4
        doc: offset 184
      - id: max_wal_senders
        type: s4
        doc: added in PG 12; offset 188
      - id: max_prepared_xacts
        type: s4
        doc: offset 192
      - id: max_locks_per_xact
        type: s4
        doc: offset 196
      - id: track_commit_timestamp
        type: u1
        doc: bool; offset 200
      - id: pad_after_track_commit_timestamp
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 201)
      - id: max_align
        type: u4
        -orig-id: maxAlign
        doc: alignment requirement for tuples (MAXIMUM_ALIGNOF); offset 204
      - id: float_format
        type: f8
        -orig-id: floatFormat
        doc: constant 1234567.0 (FLOATFORMAT_VALUE); offset 208
      - id: blcksz
        type: u4
        doc: data block size for this DB (BLCKSZ); offset 216
      - id: relseg_size
        type: u4
        doc: blocks per segment of large relation (RELSEG_SIZE); offset 220
      - id: xlog_blcksz
        type: u4
        doc: block size within WAL files (XLOG_BLCKSZ); offset 224
      - id: xlog_seg_size
        type: u4
        doc: size of each WAL segment; offset 228
      - id: name_data_len
        type: u4
        -orig-id: nameDataLen
        doc: catalog name field width (NAMEDATALEN); offset 232
      - id: index_max_keys
        type: u4
        -orig-id: indexMaxKeys
        doc: max number of columns in an index (INDEX_MAX_KEYS); offset 236
      - id: toast_max_chunk_size
        type: u4
        doc: chunk size in TOAST tables; offset 240
      - id: loblksize
        type: u4
        doc: chunk size in pg_largeobject (LOBLKSIZE); offset 244
      - id: float8_by_val
        type: u1
        -orig-id: float8ByVal
        doc: 'bool: float8, int8, etc. pass-by-value; offset 248'
      - id: pad_after_float8_by_val
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 249)
      - id: data_checksum_version
        type: u4
        doc: 'are data pages protected by checksums? 0 if not, else the checksum version (1); offset 252'
      - id: default_char_signedness
        type: u1
        doc: 'bool: true if char is signed on the platform where the cluster was initialized (added in PG 18); offset 256'
      - id: mock_authentication_nonce
        size: 32
        doc: random nonce (MOCK_AUTH_NONCE_LEN = 32) for authentication requests that must look cluster-unique; offset 257
      - id: pad_after_mock_authentication_nonce
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 289)
      - id: crc
        type: u4
        doc: 'pg_crc32c: CRC-32C of every byte before this field (MUST BE LAST); offset 292'
    instances:
      crc_offset:
        value: 292
        doc: offsetof(ControlFileData, crc) from the start of the file; the CRC covers [0, crc_offset)
  check_point_v1002:
    doc: |
      CheckPoint with a 32-bit nextXid and a separate nextXidEpoch (PG 9.6 to 11); 80 bytes.
      Body of CheckPoint WAL records; pg_control keeps a copy of the latest one.  Offsets in
      the field docs are relative to the start of the struct.
    doc-ref: https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: redo
        type: u8
        doc: 'REDO start point: next RecPtr available when the checkpoint began (XLogRecPtr); offset 0'
      - id: this_time_line_id
        type: u4
        -orig-id: ThisTimeLineID
        doc: current timeline; offset 8
      - id: prev_time_line_id
        type: u4
        -orig-id: PrevTimeLineID
        doc: 'previous timeline, if this record begins a new one (equals ThisTimeLineID otherwise); offset 12'
      - id: full_page_writes
        type: u1
        -orig-id: fullPageWrites
        doc: 'bool: current full_page_writes; offset 16'
      - id: pad_after_full_page_writes
        size: 3
        doc: alignment padding (3 bytes), not a field (offset 17)
      - id: next_xid_epoch
        type: u4
        -orig-id: nextXidEpoch
        doc: higher-order bits of nextXid; offset 20
      - id: next_xid
        type: u4
        -orig-id: nextXid
        doc: next free XID; offset 24
      - id: next_oid
        type: u4
        -orig-id: nextOid
        doc: next free OID; offset 28
      - id: next_multi
        type: u4
        -orig-id: nextMulti
        doc: next free MultiXactId; offset 32
      - id: next_multi_offset
        type: u4
        -orig-id: nextMultiOffset
        doc: next free MultiXactOffset; offset 36
      - id: oldest_xid
        type: u4
        -orig-id: oldestXid
        doc: cluster-wide minimum datfrozenxid; offset 40
      - id: oldest_xid_db
        type: u4
        -orig-id: oldestXidDB
        doc: database with minimum datfrozenxid; offset 44
      - id: oldest_multi
        type: u4
        -orig-id: oldestMulti
        doc: cluster-wide minimum datminmxid; offset 48
      - id: oldest_multi_db
        type: u4
        -orig-id: oldestMultiDB
        doc: database with minimum datminmxid; offset 52
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of checkpoint (seconds since the Unix epoch); offset 56'
      - id: oldest_commit_ts_xid
        type: u4
        -orig-id: oldestCommitTsXid
        doc: oldest Xid with valid commit timestamp; offset 64
      - id: newest_commit_ts_xid
        type: u4
        -orig-id: newestCommitTsXid
        doc: newest Xid with valid commit timestamp; offset 68
      - id: oldest_active_xid
        type: u4
        -orig-id: oldestActiveXid
        doc: 'oldest XID still running (online checkpoints with wal_level >= replica; else 0); offset 72'
      - id: pad_after_oldest_active_xid
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 76)
  check_point_v1201:
    doc: |
      CheckPoint with FullTransactionId nextXid (PG 12 to 18: nextFullXid in 12 and 13, nextXid from 14); 88 bytes.
      Body of CheckPoint WAL records; pg_control keeps a copy of the latest one.  Offsets in
      the field docs are relative to the start of the struct.
    doc-ref: https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/catalog/pg_control.h
    seq:
      - id: redo
        type: u8
        doc: 'REDO start point: next RecPtr available when the checkpoint began (XLogRecPtr); offset 0'
      - id: this_time_line_id
        type: u4
        -orig-id: ThisTimeLineID
        doc: current timeline; offset 8
      - id: prev_time_line_id
        type: u4
        -orig-id: PrevTimeLineID
        doc: 'previous timeline, if this record begins a new one (equals ThisTimeLineID otherwise); offset 12'
      - id: full_page_writes
        type: u1
        -orig-id: fullPageWrites
        doc: 'bool: current full_page_writes; offset 16'
      - id: pad_after_full_page_writes
        size: 7
        doc: alignment padding (7 bytes), not a field (offset 17)
      - id: next_full_xid
        type: u8
        -orig-id: nextFullXid
        doc: 'FullTransactionId: next free XID, epoch in the high 32 bits (PG 12-13 call it nextFullXid, PG 14+ nextXid); offset 24'
      - id: next_oid
        type: u4
        -orig-id: nextOid
        doc: next free OID; offset 32
      - id: next_multi
        type: u4
        -orig-id: nextMulti
        doc: next free MultiXactId; offset 36
      - id: next_multi_offset
        type: u4
        -orig-id: nextMultiOffset
        doc: next free MultiXactOffset; offset 40
      - id: oldest_xid
        type: u4
        -orig-id: oldestXid
        doc: cluster-wide minimum datfrozenxid; offset 44
      - id: oldest_xid_db
        type: u4
        -orig-id: oldestXidDB
        doc: database with minimum datfrozenxid; offset 48
      - id: oldest_multi
        type: u4
        -orig-id: oldestMulti
        doc: cluster-wide minimum datminmxid; offset 52
      - id: oldest_multi_db
        type: u4
        -orig-id: oldestMultiDB
        doc: database with minimum datminmxid; offset 56
      - id: pad_after_oldest_multi_db
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 60)
      - id: time
        type: s8
        doc: 'pg_time_t: time stamp of checkpoint (seconds since the Unix epoch); offset 64'
      - id: oldest_commit_ts_xid
        type: u4
        -orig-id: oldestCommitTsXid
        doc: oldest Xid with valid commit timestamp; offset 72
      - id: newest_commit_ts_xid
        type: u4
        -orig-id: newestCommitTsXid
        doc: newest Xid with valid commit timestamp; offset 76
      - id: oldest_active_xid
        type: u4
        -orig-id: oldestActiveXid
        doc: 'oldest XID still running (online checkpoints with wal_level >= replica; else 0); offset 80'
      - id: pad_after_oldest_active_xid
        size: 4
        doc: alignment padding (4 bytes), not a field (offset 84)
enums:
  db_state:
    0:
      id: db_startup
      -orig-id: DB_STARTUP
    1:
      id: db_shutdowned
      -orig-id: DB_SHUTDOWNED
    2:
      id: db_shutdowned_in_recovery
      -orig-id: DB_SHUTDOWNED_IN_RECOVERY
    3:
      id: db_shutdowning
      -orig-id: DB_SHUTDOWNING
    4:
      id: db_in_crash_recovery
      -orig-id: DB_IN_CRASH_RECOVERY
    5:
      id: db_in_archive_recovery
      -orig-id: DB_IN_ARCHIVE_RECOVERY
    6:
      id: db_in_production
      -orig-id: DB_IN_PRODUCTION
  wal_level:
    0:
      id: wal_level_minimal
      -orig-id: WAL_LEVEL_MINIMAL
    1:
      id: wal_level_replica
      -orig-id: WAL_LEVEL_REPLICA
    2:
      id: wal_level_logical
      -orig-id: WAL_LEVEL_LOGICAL
