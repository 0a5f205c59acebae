"""A record's description, as pg_waldump and pg_walinspect of the record's major print it (the words changed
between majors, most in 16: ``key: value, ...``).

One module per resource manager family decodes its main data (``heap.py``, ``btree.py``, ``xact.py``,
``xlog.py``...); this module only picks the one a record belongs to. A resource manager without a
decoder here gets no description (``None``), never a guess.

Described, and checked record by record against pg_walinspect (15-18) and pg_waldump (14, 15): every record
type the fixtures' workload writes (fixtures/make_wal.py). Not described, because no fixture holds one to
check the words against (the workload would need what these record: logical decoding for Heap2 NEW_CID and
REWRITE and Heap TRUNCATE, prepared transactions, base backups, an xid or multixact wraparound's SLRU pages,
track_commit_timestamp, hash bucket splits, large GIN posting trees and BRIN summaries): BRIN INSERT, UPDATE,
REVMAP_EXTEND, DESUMMARIZE, CREATE_INDEX; Btree INSERT_META, UNLINK_PAGE_META; CLOG and CommitTs; Database
CREATE_WAL_LOG; Gin CREATE_PTREE, SPLIT, DELETE_PAGE, VACUUM_DATA_LEAF_PAGE and INSERT into a posting tree;
Gist DELETE, PAGE_REUSE, ASSIGN_LSN; Hash other than INSERT, DELETE, UPDATE_META_PAGE; Heap CONFIRM,
TRUNCATE; Heap2 LOCK_UPDATED, NEW_CID, REWRITE; MultiXact ZERO_OFF_PAGE, TRUNCATE_ID; SPGist ADD_NODE,
SPLIT_TUPLE; Transaction PREPARE, COMMIT_PREPARED, ABORT_PREPARED, ASSIGNMENT, INVALIDATION; XLOG NOOP,
BACKUP_END, PARAMETER_CHANGE, FPW_CHANGE, OVERWRITE_CONTRECORD, and END_OF_RECOVERY from 17.
"""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record

_DESCRIBERS: dict[int, object] = {}


def _load() -> dict[int, object]:
    if not _DESCRIBERS:
        from pgpage.decode.wal import (brin, btree, database, generic, gin, gist, hash, heap, logicalmsg, multixact,
                                       relmap, replorigin, sequence, smgr, spgist, standby, tablespace, xact, xlog)
        by_name = {"XLOG": xlog.describe, "Transaction": xact.describe, "Storage": smgr.describe,
                   "Database": database.describe, "Tablespace": tablespace.describe,
                   "MultiXact": multixact.describe, "RelMap": relmap.describe, "Standby": standby.describe,
                   "Heap2": heap.describe2, "Heap": heap.describe, "Btree": btree.describe, "Hash": hash.describe,
                   "Gin": gin.describe, "Gist": gist.describe, "Sequence": sequence.describe,
                   "SPGist": spgist.describe, "BRIN": brin.describe, "ReplicationOrigin": replorigin.describe,
                   "Generic": generic.describe, "LogicalMessage": logicalmsg.describe}
        _DESCRIBERS.update({versions.RMGR_NAMES.index(name): fn for name, fn in by_name.items()})
    return _DESCRIBERS


CHECKED_SINCE = 14
"""The oldest major whose descriptions a tool here prints to check against (pg_waldump of PyPI's 14 build and
Debian's 15, pg_walinspect 15+). The words changed between majors; 10 to 13 get descriptions only from the
resource managers below, whose words pgpage had before (the others: ``None``, never another major's words)."""
DESCRIBED_BEFORE_14 = {"XLOG", "Transaction", "Storage", "Standby"}


def describe(rec: Record, major: int) -> str | None:
    fn = _load().get(rec.rmid)
    if fn is None or (major < CHECKED_SINCE and versions.rmgr_name(rec.rmid) not in DESCRIBED_BEFORE_14):
        return None
    try:
        return fn(rec, major)
    except (ValueError, IndexError, KeyError, struct.error):   # main data shorter or other than its type says
        return None
