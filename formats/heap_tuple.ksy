meta:
  id: heap_tuple
  title: PostgreSQL heap tuple header (HeapTupleHeaderData)
  application: PostgreSQL 10-18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
  imports:
    - pg_page
doc: |
  One heap tuple as stored on a heap page: the 23-byte fixed header, the optional null
  bitmap t_bits (only when HEAP_HASNULL), padding to t_hoff, then user data.

      t_xmin | t_xmax | t_field3 (t_cid/t_xvac) | t_ctid | t_infomask2 | t_infomask | t_hoff | t_bits...

  Parse the bytes of one item, i.e. page[lp_off : lp_off + lp_len] (PgPage ItemId.data):
  `HeapTuple.from_bytes(item_bytes)`. The seq covers only the fixed 23 bytes, so a short
  item fails only if it is shorter than the fixed header; everything after it (t_bits, the
  pre-12 OID, the user data) is an instance clamped to the bytes actually present.

  The flag names differ across releases in one place: 0x0008 is HEAP_HASOID up to
  PostgreSQL 11 (WITH OIDS tables; the OID is stored in the 4 bytes before t_hoff) and
  HEAP_HASOID_OLD from 12 on (never set by 12+, still found after pg_upgrade).
-size-id: SizeofHeapTupleHeader
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/htup_details.h
  - https://github.com/postgres/postgres/blob/REL_11_STABLE/src/include/access/htup_details.h HEAP_HASOID, HeapTupleHeaderGetOid
seq:
  - id: t_xmin
    -orig-id: t_choice.t_heap.t_xmin
    type: u4
    doc: inserting xact ID (datum_len_ for an in-memory composite datum)
  - id: t_xmax
    -orig-id: t_choice.t_heap.t_xmax
    type: u4
    doc: deleting or locking xact ID (a MultiXactId if HEAP_XMAX_IS_MULTI)
  - id: t_field3
    -orig-id: t_choice.t_heap.t_field3
    type: u4
    doc: union of t_cid (inserting or deleting command ID, or both via a combo CID) and t_xvac (old-style VACUUM FULL xact ID)
  - id: t_ctid
    type: pg_page::item_pointer
    doc: current TID of this or newer tuple (or a speculative insertion token)
  - id: t_infomask2
    type: u2
    doc: number of attributes (& HEAP_NATTS_MASK) plus flag bits, see enum infomask2_flags
  - id: t_infomask
    type: u2
    doc: flag bits, see enum infomask_flags
  - id: t_hoff
    type: u1
    doc: sizeof header incl. bitmap, padding (and the pre-12 OID); offset of user data
instances:
  t_cid:
    value: t_field3
    doc: t_field3 read as t_cid (inserting or deleting command ID, or both)
  t_xvac:
    value: t_field3
    doc: t_field3 read as t_xvac (old-style VACUUM FULL xact ID; when HEAP_MOVED is set)
  natts:
    value: t_infomask2 & 0x07FF
    doc: HeapTupleHeaderGetNatts (t_infomask2 & HEAP_NATTS_MASK)
  has_nulls:
    value: (t_infomask & 0x0001) != 0
    doc: HEAP_HASNULL
  has_oid_old:
    value: (t_infomask & 0x0008) != 0
    doc: HEAP_HASOID_OLD (HEAP_HASOID before PostgreSQL 12)
  bitmap_len:
    value: (natts + 7) / 8
    doc: BITMAPLEN(natts), the length the null bitmap should have
  t_bits_len:
    value: 'has_nulls ? (bitmap_len < _io.size - 23 ? bitmap_len : _io.size - 23) : 0'
    doc: bytes of t_bits actually read, BITMAPLEN(natts) clamped to the item (the seq guarantees _io.size >= 23)
  t_bits:
    pos: 23
    size: t_bits_len
    if: has_nulls
    doc: |
      Null bitmap (HEAP_HASNULL only), bit i set means attribute i+1 is NOT null
      (att_isnull(i, bits) = !(bits[i >> 3] & (1 << (i & 7)))).
  oid:
    pos: t_hoff - 4
    type: u4
    if: has_oid_old and t_hoff >= 27 and t_hoff <= _io.size
    doc: The object ID of a pre-PostgreSQL-12 WITH OIDS row, stored just before t_hoff (HeapTupleHeaderGetOid).
  data:
    pos: t_hoff
    size: _io.size - t_hoff
    if: t_hoff >= 23 and t_hoff <= _io.size
    doc: User data (the attribute values), from t_hoff to the end of the item.
enums:
  infomask_flags:
    0x0001:
      id: heap_hasnull
      -orig-id: HEAP_HASNULL
      doc: has null attribute(s)
    0x0002:
      id: heap_hasvarwidth
      -orig-id: HEAP_HASVARWIDTH
      doc: has variable-width attribute(s)
    0x0004:
      id: heap_hasexternal
      -orig-id: HEAP_HASEXTERNAL
      doc: has external stored attribute(s)
    0x0008:
      id: heap_hasoid_old
      -orig-id: HEAP_HASOID_OLD
      doc: has an object-id field (HEAP_HASOID up to PostgreSQL 11)
    0x0010:
      id: heap_xmax_keyshr_lock
      -orig-id: HEAP_XMAX_KEYSHR_LOCK
      doc: xmax is a key-shared locker
    0x0020:
      id: heap_combocid
      -orig-id: HEAP_COMBOCID
      doc: t_cid is a combo CID
    0x0040:
      id: heap_xmax_excl_lock
      -orig-id: HEAP_XMAX_EXCL_LOCK
      doc: xmax is exclusive locker
    0x0080:
      id: heap_xmax_lock_only
      -orig-id: HEAP_XMAX_LOCK_ONLY
      doc: xmax, if valid, is only a locker
    0x0100:
      id: heap_xmin_committed
      -orig-id: HEAP_XMIN_COMMITTED
      doc: t_xmin committed
    0x0200:
      id: heap_xmin_invalid
      -orig-id: HEAP_XMIN_INVALID
      doc: t_xmin invalid/aborted
    0x0400:
      id: heap_xmax_committed
      -orig-id: HEAP_XMAX_COMMITTED
      doc: t_xmax committed
    0x0800:
      id: heap_xmax_invalid
      -orig-id: HEAP_XMAX_INVALID
      doc: t_xmax invalid/aborted
    0x1000:
      id: heap_xmax_is_multi
      -orig-id: HEAP_XMAX_IS_MULTI
      doc: t_xmax is a MultiXactId
    0x2000:
      id: heap_updated
      -orig-id: HEAP_UPDATED
      doc: this is UPDATEd version of row
    0x4000:
      id: heap_moved_off
      -orig-id: HEAP_MOVED_OFF
      doc: moved to another place by pre-9.0 VACUUM FULL; kept for binary upgrade support
    0x8000:
      id: heap_moved_in
      -orig-id: HEAP_MOVED_IN
      doc: moved from another place by pre-9.0 VACUUM FULL; kept for binary upgrade support
  infomask_combined:
    0x0050:
      id: heap_xmax_shr_lock
      -orig-id: HEAP_XMAX_SHR_LOCK
      doc: (HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK); also the value of HEAP_LOCK_MASK
    0x0300:
      id: heap_xmin_frozen
      -orig-id: HEAP_XMIN_FROZEN
      doc: (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID)
    0x0c00:
      id: heap_is_datum
      -orig-id: HEAP_IS_DATUM
      doc: (HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID) on a versioned composite datum; recent minor releases only
    0xc000:
      id: heap_moved
      -orig-id: HEAP_MOVED
      doc: (HEAP_MOVED_OFF | HEAP_MOVED_IN)
    0xfff0:
      id: heap_xact_mask
      -orig-id: HEAP_XACT_MASK
      doc: visibility-related bits of t_infomask (a mask)
  infomask2_flags:
    0x2000:
      id: heap_keys_updated
      -orig-id: HEAP_KEYS_UPDATED
      doc: tuple was updated and key cols modified, or tuple deleted
    0x4000:
      id: heap_hot_updated
      -orig-id: HEAP_HOT_UPDATED
      doc: tuple was HOT-updated
    0x8000:
      id: heap_only_tuple
      -orig-id: HEAP_ONLY_TUPLE
      doc: this is heap-only tuple
  infomask2_masks:
    0x07ff:
      id: heap_natts_mask
      -orig-id: HEAP_NATTS_MASK
      doc: 11 bits for number of attributes (0x1800 are free)
    0xe000:
      id: heap2_xact_mask
      -orig-id: HEAP2_XACT_MASK
      doc: visibility-related bits of t_infomask2
  special_xid:
    0:
      id: invalid_transaction_id
      -orig-id: InvalidTransactionId
    1:
      id: bootstrap_transaction_id
      -orig-id: BootstrapTransactionId
    2:
      id: frozen_transaction_id
      -orig-id: FrozenTransactionId
    3:
      id: first_normal_transaction_id
      -orig-id: FirstNormalTransactionId
