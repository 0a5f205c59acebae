meta:
  id: pgstat_collector
  title: PostgreSQL 10-14 statistics collector files (pg_stat/global.stat, pg_stat/db_<oid>.stat)
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pgstat_tab_entry
doc: |
  Up to PostgreSQL 14 the statistics collector writes, at a clean shutdown, pg_stat/global.stat
  (PGSTAT_FILE_FORMAT_ID, then PgStat_GlobalStats, whose first field stats_timestamp is the time
  the file was written, then the archiver, SLRU, WAL and per-database records: not decoded here)
  and one pg_stat/db_<oid>.stat per database (db_0.stat: the shared catalogs): the format id, then
  records each introduced by one byte, 'T' + PgStat_StatTabEntry (Oid tableid, 4 bytes of
  padding, the counters), 'F' + PgStat_StatFuncEntry (Oid, padding, three int64), and 'E' at the
  end.  Each record is the C struct written with fwrite, so its padding is in the file.
  The format id does not say the major (10 to 13 share 0x01A5BC9D though 13's table entry is 8
  bytes longer), so db_file takes the major as a parameter.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/backend/postmaster/pgstat.c
  - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/backend/postmaster/pgstat.c
seq:
  - id: format_id
    type: u4
    -orig-id: PGSTAT_FILE_FORMAT_ID
    doc: 0x01A5BC9D (10-13), 0x01A5BCA2 (14)
types:
  global_header:
    doc: the start of global.stat
    seq:
      - id: format_id
        type: u4
        -orig-id: PGSTAT_FILE_FORMAT_ID
      - id: stats_timestamp
        type: s8
        doc: PgStat_GlobalStats.stats_timestamp, TimestampTz of the write (at offset 4, no padding)
  db_file:
    doc: a whole pg_stat/db_<oid>.stat
    params:
      - id: major
        type: u1
    seq:
      - id: format_id
        type: u4
        -orig-id: PGSTAT_FILE_FORMAT_ID
      - id: records
        type: record(major)
        repeat: until
        repeat-until: _.marker == 0x45 or not _.known
        doc: ends at 'E', or at a record this parser does not know (the rest cannot be framed)
  record:
    params:
      - id: major
        type: u1
    seq:
      - id: marker
        type: u1
        doc: "'T' table/index, 'F' function, 'E' end of file"
      - id: oid
        type: u4
        if: known and marker != 0x45
        doc: tableid or functionid
      - id: pad
        size: 4
        if: known and marker != 0x45
        doc: padding before the first int64
      - id: table
        type: pgstat_tab_entry(major)
        if: marker == 0x54
      - id: function
        type: func_entry
        if: marker == 0x46
    instances:
      known:
        value: marker == 0x54 or marker == 0x46 or marker == 0x45
  func_entry:
    -orig-id: PgStat_StatFuncEntry
    seq:
      - id: f_numcalls
        type: s8
      - id: f_total_time
        type: s8
      - id: f_self_time
        type: s8
