meta:
  id: pg_xact
  title: PostgreSQL commit log page (pg_xact/, formerly pg_clog/), PostgreSQL 10 to 18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  bit-endian: le
doc: |
  One 8192-byte (BLCKSZ) page of the commit log.  Two bits per transaction, four transactions per
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
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/transam/clog.c
  - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/access/transam/clog.c
  - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/access/transam/slru.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/clog.h
seq:
  - id: groups
    type: xact_byte
    repeat: expr
    repeat-expr: 8192
    doc: one byte per four consecutive xids (BLCKSZ bytes)
instances:
  page_size:
    value: 8192
    -orig-id: BLCKSZ
    doc: SLRU page size (the build's block size; 8192 unless built otherwise)
  bits_per_xact:
    value: 2
    -orig-id: CLOG_BITS_PER_XACT
  xacts_per_byte:
    value: 4
    -orig-id: CLOG_XACTS_PER_BYTE
  xacts_per_page:
    value: page_size * xacts_per_byte
    -orig-id: CLOG_XACTS_PER_PAGE
  pages_per_segment:
    value: 32
    -orig-id: SLRU_PAGES_PER_SEGMENT
types:
  xact_byte:
    doc: four 2-bit transaction statuses, xid % 4 == 0 in the lowest bits
    seq:
      - id: status0
        type: b2
        enum: transaction_status
        doc: xid with xid % 4 == 0 (bits 0-1)
      - id: status1
        type: b2
        enum: transaction_status
        doc: xid % 4 == 1 (bits 2-3)
      - id: status2
        type: b2
        enum: transaction_status
        doc: xid % 4 == 2 (bits 4-5)
      - id: status3
        type: b2
        enum: transaction_status
        doc: xid % 4 == 3 (bits 6-7)
enums:
  transaction_status:
    0:
      id: transaction_status_in_progress
      -orig-id: TRANSACTION_STATUS_IN_PROGRESS
      doc: |
        also what an xid not yet assigned reads as, and what a transaction cut off by a crash keeps
        (it is never marked aborted; PostgreSQL treats it as aborted once it is not running)
    1:
      id: transaction_status_committed
      -orig-id: TRANSACTION_STATUS_COMMITTED
    2:
      id: transaction_status_aborted
      -orig-id: TRANSACTION_STATUS_ABORTED
    3:
      id: transaction_status_sub_committed
      -orig-id: TRANSACTION_STATUS_SUB_COMMITTED
      doc: subtransaction committed, parent's commit not yet recorded (transient)
