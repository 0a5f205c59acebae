meta:
  id: pgstat_tab_entry
  title: PostgreSQL cumulative statistics of one table or index (PgStat_StatTabEntry), PostgreSQL 10 to 18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  The counters the statistics file keeps for one relation (table, index, TOAST table), as written
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
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_13_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_16_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/pgstat.h
params:
  - id: major
    type: u1
    doc: the PostgreSQL major that wrote the file (from PG_VERSION / pg_control)
seq:
  - id: numscans
    type: s8
    doc: sequential scans of a table, index scans of an index (seq_scan / idx_scan)
  - id: lastscan
    type: s8
    if: major >= 16
    doc: TimestampTz of the last scan (last_seq_scan / last_idx_scan), 16+
  - id: tuples_returned
    type: s8
    doc: seq_tup_read of a table, idx_tup_read of an index
  - id: tuples_fetched
    type: s8
    doc: idx_tup_fetch
  - id: tuples_inserted
    type: s8
    doc: n_tup_ins
  - id: tuples_updated
    type: s8
    doc: n_tup_upd
  - id: tuples_deleted
    type: s8
    doc: n_tup_del
  - id: tuples_hot_updated
    type: s8
    doc: n_tup_hot_upd
  - id: tuples_newpage_updated
    type: s8
    if: major >= 16
    doc: n_tup_newpage_upd, 16+
  - id: n_live_tuples
    type: s8
    -orig-id: live_tuples
    doc: n_live_tup (live_tuples from 16)
  - id: n_dead_tuples
    type: s8
    -orig-id: dead_tuples
    doc: n_dead_tup (dead_tuples from 16)
  - id: changes_since_analyze
    type: s8
    -orig-id: mod_since_analyze
    doc: n_mod_since_analyze (mod_since_analyze from 16)
  - id: changes_since_analyze_reported
    type: s8
    if: major == 14
    doc: 14 only (partitioned-table autoanalyze, reverted in 15)
  - id: inserts_since_vacuum
    type: s8
    -orig-id: ins_since_vacuum
    if: major >= 13
    doc: n_ins_since_vacuum, 13+ (ins_since_vacuum from 16)
  - id: blocks_fetched
    type: s8
    doc: pg_statio heap_blks_read + heap_blks_hit
  - id: blocks_hit
    type: s8
    doc: pg_statio heap_blks_hit
  - id: vacuum_timestamp
    type: s8
    -orig-id: last_vacuum_time
    doc: last_vacuum (TimestampTz, 0 = never)
  - id: vacuum_count
    type: s8
  - id: autovac_vacuum_timestamp
    type: s8
    -orig-id: last_autovacuum_time
    doc: last_autovacuum
  - id: autovac_vacuum_count
    type: s8
    -orig-id: autovacuum_count
  - id: analyze_timestamp
    type: s8
    -orig-id: last_analyze_time
    doc: last_analyze
  - id: analyze_count
    type: s8
  - id: autovac_analyze_timestamp
    type: s8
    -orig-id: last_autoanalyze_time
    doc: last_autoanalyze
  - id: autovac_analyze_count
    type: s8
    -orig-id: autoanalyze_count
  - id: total_vacuum_time
    type: s8
    if: major >= 18
    doc: milliseconds, 18+
  - id: total_autovacuum_time
    type: s8
    if: major >= 18
  - id: total_analyze_time
    type: s8
    if: major >= 18
  - id: total_autoanalyze_time
    type: s8
    if: major >= 18
