meta:
  id: pg_multixact
  title: PostgreSQL multixact SLRU pages (pg_multixact/offsets/, pg_multixact/members/), PostgreSQL 10 to 18
  license: PostgreSQL
  ks-version: '0.11'
  endian: le
doc: |
  A MultiXactId (a heap xmax with HEAP_XMAX_IS_MULTI) names a set of (xid, lock/update status)
  members.  Two SLRUs of 8192-byte pages hold them; pass `is_members` to say which kind of page
  this is (the bytes do not tell).

  offsets/: one MultiXactOffset (uint32) per MultiXactId, 2048 per page:
    page = multi / 2048, entry = multi % 2048, segment = page / 32, file offsets/%04X
    The members of multi m are the offsets [offset(m), offset(m + 1)); for the newest multi the
    end is pg_control's nextMultiOffset.  Offsets are uint32 and wrap around; offset 0 is never
    handed out as a start (the multixact that wraps starts at 1 and also owns the unused slot 0,
    whose xid reads as 0).  MultiXactIds wrap too, skipping 0 (FirstMultiXactId is 1).

  members/: groups of 20 bytes, 409 per page (12 bytes at the end of each page unused), each group
  4 flag bytes (one MultiXactStatus per member) followed by 4 TransactionIds:
    page  = offset / 1636                      (MULTIXACT_MEMBERS_PER_PAGE)
    group = (offset / 4) % 409, at byte group * 20
    flags byte  group * 20 + offset % 4,  xid at group * 20 + 4 + (offset % 4) * 4
    segment = page / 32, file members/%04X (up to 14078, so five hex digits past FFFF)

  Unchanged from 9.3 to 18.  PostgreSQL 17 and 18 keep the short "%04X" segment names for both
  directories.  (The development branch after 18 widens MultiXactOffset to 64 bits and switches
  members/ to 15-digit names; that layout is not described here.)
doc-ref:
  - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/transam/multixact.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/access/transam/multixact.c
  - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/multixact.h
params:
  - id: is_members
    type: bool
    doc: true for a pg_multixact/members page, false for a pg_multixact/offsets page
seq:
  - id: page
    type:
      switch-on: is_members
      cases:
        true: members_page
        false: offsets_page
instances:
  page_size:
    value: 8192
    -orig-id: BLCKSZ
  pages_per_segment:
    value: 32
    -orig-id: SLRU_PAGES_PER_SEGMENT
  offsets_per_page:
    value: page_size / 4
    -orig-id: MULTIXACT_OFFSETS_PER_PAGE
    doc: BLCKSZ / sizeof(MultiXactOffset)
  flagbytes_per_group:
    value: 4
    -orig-id: MULTIXACT_FLAGBYTES_PER_GROUP
  members_per_group:
    value: 4
    -orig-id: MULTIXACT_MEMBERS_PER_MEMBERGROUP
    doc: MULTIXACT_FLAGBYTES_PER_GROUP * MXACT_MEMBER_FLAGS_PER_BYTE (1)
  group_size:
    value: members_per_group * 4 + flagbytes_per_group
    -orig-id: MULTIXACT_MEMBERGROUP_SIZE
    doc: 20 bytes
  groups_per_page:
    value: page_size / group_size
    -orig-id: MULTIXACT_MEMBERGROUPS_PER_PAGE
    doc: 409
  members_per_page:
    value: groups_per_page * members_per_group
    -orig-id: MULTIXACT_MEMBERS_PER_PAGE
    doc: 1636
types:
  offsets_page:
    seq:
      - id: offsets
        type: u4
        repeat: expr
        repeat-expr: 2048
        doc: MULTIXACT_OFFSETS_PER_PAGE entries. MultiXactOffset of the first member of multi (page * 2048 + index); 0 = not (yet) set
  members_page:
    seq:
      - id: groups
        type: member_group
        repeat: expr
        repeat-expr: 409
        doc: MULTIXACT_MEMBERGROUPS_PER_PAGE groups of MULTIXACT_MEMBERGROUP_SIZE (20) bytes
      - id: unused
        size: 12
        doc: BLCKSZ - 409 * 20 bytes at 8180, never written
  member_group:
    seq:
      - id: flags
        type: u1
        enum: multi_xact_status
        repeat: expr
        repeat-expr: 4
        doc: MULTIXACT_FLAGBYTES_PER_GROUP flag bytes, MultiXactStatus of each of the group's 4 members (MXACT_MEMBER_BITS_PER_XACT = 8)
      - id: xids
        type: u4
        repeat: expr
        repeat-expr: 4
        doc: MULTIXACT_MEMBERS_PER_MEMBERGROUP xids, TransactionId of each member; 0 in a slot never used
enums:
  multi_xact_status:
    0:
      id: for_key_share
      -orig-id: MultiXactStatusForKeyShare
      doc: SELECT ... FOR KEY SHARE; pg_get_multixact_members() mode "keysh"
    1:
      id: for_share
      -orig-id: MultiXactStatusForShare
      doc: SELECT ... FOR SHARE; "sh"
    2:
      id: for_no_key_update
      -orig-id: MultiXactStatusForNoKeyUpdate
      doc: SELECT ... FOR NO KEY UPDATE; "fornokeyupd"
    3:
      id: for_update
      -orig-id: MultiXactStatusForUpdate
      doc: SELECT ... FOR UPDATE; "forupd"
    4:
      id: no_key_update
      -orig-id: MultiXactStatusNoKeyUpdate
      doc: an UPDATE that changes no key column; "nokeyupd"
    5:
      id: update
      -orig-id: MultiXactStatusUpdate
      doc: other UPDATEs and DELETE; "upd"
