meta:
  id: seq_page
  title: PostgreSQL sequence relation page
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
    - heap_tuple
doc: |
  The single page of a sequence relation (relkind 'S'): a heap-style page whose special
  space holds sequence_magic {uint32 magic = SEQ_MAGIC 0x1717} (special size MAXALIGN(4) = 8,
  so pd_special = page size - 8), and one heap tuple (line pointer 1) whose user data is
  FormData_pg_sequence_data {int64 last_value; int64 log_cnt; bool is_called} (PostgreSQL 10+).

  Parse with `SeqPage.from_bytes(page)`; the sequence values are
  `SeqPage.FormDataPgSequenceData.from_bytes(HeapTuple.from_bytes(item).data)`.
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/commands/sequence.c
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/commands/sequence.h
seq:
  - id: page
    type: pg_page
    doc: Page header and line pointer array.
instances:
  special:
    pos: _io.size - 8
    type: sequence_magic
    if: _io.size >= 32
    doc: sequence_magic at pd_special (fails validation of magic if this is not a sequence page).
types:
  sequence_magic:
    -orig-id: sequence_magic
    seq:
      - id: magic
        type: u4
        valid: 0x1717
        doc: SEQ_MAGIC
  form_data_pg_sequence_data:
    -orig-id: FormData_pg_sequence_data
    doc: User data of the sequence tuple (at t_hoff), 17 bytes + padding.
    seq:
      - id: last_value
        type: s8
      - id: log_cnt
        type: s8
      - id: is_called
        type: u1
        doc: bool
enums:
  seq_constants:
    0x1717:
      id: seq_magic
      -orig-id: SEQ_MAGIC
