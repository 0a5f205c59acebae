meta:
  id: pgstat_shmem
  title: PostgreSQL 15-18 cumulative statistics file (pg_stat/pgstat.stat)
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pgstat_tab_entry
doc: |
  From PostgreSQL 15 the cumulative statistics live in shared memory and the checkpointer writes
  them, at a clean shutdown, to pg_stat/pgstat.stat (pgstat_write_statsfile): the format id, the
  fixed-numbered statistics (archiver, bgwriter, checkpointer, 16+ I/O, SLRU, WAL: written one
  after the other with no marker in 15-17, each as 'F' + PgStat_Kind + data in 18; not decoded
  here, only framed), then one entry per statistics object: 'S' + PgStat_HashKey (kind, dboid,
  objoid; 18: objid is uint64) + the kind's stats struct, or 'N' + kind + NameData (replication
  slots, by name) + stats, and 'E' at the end.  No padding between the pieces (write_chunk).

    major  format id    fixed part                                  key  db entry  relation
    15     0x01A5BCA7   808 = 136 + 32 + 56 + 512 + 72               12   240       168
    16     0x01A5BCAC   15152 = 136 + 32 + 56 + 14344 (I/O) + 512 + 72  12  248       184
    17     0x01A5BCAC   17216 = 136 + 32 + 72 + 16392 (I/O) + 512 + 72  12  248       184
    18     0x01A5BCB7   'F' entries: 136, 32, 88, 51848, 512, 40        16   264       216

  Kinds framed (pgstat_kind.h's numbers, the same in 15-18): 1 database, 2 relation, 3 function,
  4 replication slot ('N', by slot name: PgStat_StatReplSlotEntry, 136 bytes in 15, which still
  has its unused NameData slotname, 72 in 16-18), 5 subscription ('S', dboid 0:
  PgStat_StatSubEntry, 24 bytes in 15-17, 80 in 18 with its 7 conflict counters), and 18's
  fixed kinds.  The sizes were checked on real 15, 16, 17 and 18 servers with a logical slot and
  a subscription (the file parses to its 'E').  Another kind (18's custom kinds of extensions) has
  a size this parser cannot know: its entry ends the parse (known = false), and the caller says so.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/utils/activity/pgstat.c
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/utils/pgstat_internal.h
  - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/utils/activity/pgstat.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/utils/activity/pgstat.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/pgstat_internal.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/pgstat_kind.h
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/pgstat.h
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/pgstat.h
params:
  - id: major
    type: u1
    doc: the PostgreSQL major that wrote the file (15 to 18)
seq:
  - id: format_id
    type: u4
    -orig-id: PGSTAT_FILE_FORMAT_ID
    doc: 0x01A5BCA7 (15), 0x01A5BCAC (16, 17), 0x01A5BCB7 (18)
  - id: fixed_stats
    size: 'major == 15 ? 808 : major == 16 ? 15152 : 17216'
    if: major < 18
    doc: the fixed-numbered statistics of 15-17, not decoded
  - id: entries
    type: entry(major)
    repeat: until
    repeat-until: _.marker == 0x45 or not _.known
    doc: ends at 'E', or at an entry this parser cannot frame
types:
  entry:
    params:
      - id: major
        type: u1
    seq:
      - id: marker
        type: u1
        doc: "'S' (by key), 'N' (by name), 'F' (fixed-numbered, 18), 'E' (end)"
      - id: kind
        type: u4
        if: marker != 0x45
        -orig-id: PgStat_Kind
      - id: dboid
        type: u4
        if: marker == 0x53
        doc: database OID, 0 for shared objects
      - id: objoid
        type: u4
        if: marker == 0x53 and major < 18
        -orig-id: objoid
      - id: objid
        type: u8
        if: marker == 0x53 and major >= 18
        -orig-id: objid
      - id: name
        size: 64
        if: marker == 0x4e
        -orig-id: NameData
      - id: relation
        type: pgstat_tab_entry(major)
        if: marker == 0x53 and kind == 2
        -orig-id: PgStat_StatTabEntry
      - id: other
        size: other_size
        if: known and marker != 0x45 and not (marker == 0x53 and kind == 2)
        doc: the body of a database, function, replication slot, subscription or fixed-numbered entry, not decoded
    instances:
      other_size:
        value: >-
          marker == 0x46 ? (kind == 7 ? 136 : kind == 8 ? 32 : kind == 9 ? 88 : kind == 10 ? 51848 :
          kind == 11 ? 512 : kind == 12 ? 40 : 0)
          : marker == 0x4e ? (kind == 4 ? (major == 15 ? 136 : 72) : 0)
          : (kind == 1 ? (major == 15 ? 240 : major < 18 ? 248 : 264) : kind == 3 ? 24 :
             kind == 5 ? (major < 18 ? 24 : 80) : 0)
        doc: >-
          the size of PgStat_StatDBEntry, PgStat_StatFuncEntry, PgStat_StatReplSlotEntry,
          PgStat_StatSubEntry, or an 18 fixed-numbered kind
      known:
        value: >-
          marker == 0x45 or (marker == 0x53 and (kind == 1 or kind == 2 or kind == 3 or kind == 5)) or
          (marker == 0x4e and kind == 4) or (marker == 0x46 and major >= 18 and kind >= 7 and kind <= 12)
        doc: whether this parser can frame the entry (and so the ones after it)
