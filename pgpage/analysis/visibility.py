"""Transaction status of a heap tuple's xmin and xmax, from hint bits and pg_xact alone.

The rules transcribe heapam_visibility.c (HeapTupleSatisfiesDirty, which pgstattuple uses
to split live from dead) for an observer with no snapshot: a tuple is *dead* when its
inserter aborted or its deleter committed, *live* otherwise. Hint bits win where set;
where they are not, the status comes from pg_xact through ``lookup(xid)``, which returns
"committed", "aborted", "in_progress", "sub_committed", or None when pg_xact does not cover
the xid. Nothing here reads files.
"""
from __future__ import annotations

from typing import Callable, Optional

InvalidTransactionId = 0
BootstrapTransactionId = 1
FrozenTransactionId = 2
FirstNormalTransactionId = 3

HEAP_XMAX_KEYSHR_LOCK = 0x0010
HEAP_XMAX_EXCL_LOCK = 0x0040
HEAP_XMAX_LOCK_ONLY = 0x0080
HEAP_XMIN_COMMITTED = 0x0100
HEAP_XMIN_INVALID = 0x0200
HEAP_XMIN_FROZEN = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID
HEAP_XMAX_COMMITTED = 0x0400
HEAP_XMAX_INVALID = 0x0800
HEAP_XMAX_IS_MULTI = 0x1000
HEAP_MOVED_OFF = 0x4000
HEAP_MOVED_IN = 0x8000
HEAP_LOCK_MASK = HEAP_XMAX_KEYSHR_LOCK | HEAP_XMAX_EXCL_LOCK

XidLookup = Callable[[int], Optional[str]]

# States of one xid as the tuple's reader sees it
FROZEN = "frozen"
COMMITTED = "committed"
ABORTED = "aborted"
IN_PROGRESS = "in_progress"
INVALID = "invalid"      # no xmax at all
LOCK_ONLY = "lock_only"  # xmax only locked the row; it never deleted it
UNKNOWN = "unknown"      # pg_xact does not cover it (or a multixact we cannot resolve)


def xmax_is_locked_only(infomask: int) -> bool:
    """HEAP_XMAX_IS_LOCKED_ONLY: LOCK_ONLY set, or a plain (non-multi) exclusive lock from pre-9.3."""
    return bool(infomask & HEAP_XMAX_LOCK_ONLY) or (
        infomask & (HEAP_XMAX_IS_MULTI | HEAP_LOCK_MASK)) == HEAP_XMAX_EXCL_LOCK


def xid_status(xid: int, lookup: XidLookup) -> str:
    if xid in (BootstrapTransactionId, FrozenTransactionId):
        return FROZEN if xid == FrozenTransactionId else COMMITTED
    if xid == InvalidTransactionId:
        return INVALID
    status = lookup(xid)
    if status is None:
        return UNKNOWN
    if status == "sub_committed":  # its parent decides; pg_subtrans is gone after a restart
        return UNKNOWN
    return status


def xmin_state(infomask: int, xmin: int, lookup: XidLookup) -> tuple[str, str]:
    """(state, source): source is "hint" when hint bits decided it, else "pg_xact"."""
    hints = infomask & HEAP_XMIN_FROZEN
    if hints == HEAP_XMIN_FROZEN:
        return FROZEN, "hint"
    if hints == HEAP_XMIN_COMMITTED:
        return COMMITTED, "hint"
    if hints == HEAP_XMIN_INVALID:
        return ABORTED, "hint"
    return xid_status(xmin, lookup), "pg_xact"


def xmax_state(infomask: int, xmax: int, lookup: XidLookup) -> tuple[str, str]:
    """(state, source) of the deleter. Lock-only xmax never deletes.

    A multixact xmax that is not lock-only names its updater among its members; without
    pg_multixact members that is UNKNOWN unless a hint bit settled it.
    """
    if infomask & HEAP_XMAX_INVALID:
        return INVALID, "hint"
    if xmax == InvalidTransactionId:
        return INVALID, "pg_xact"
    if xmax_is_locked_only(infomask):
        return LOCK_ONLY, "infomask"
    if infomask & HEAP_XMAX_COMMITTED:
        return COMMITTED, "hint"
    if infomask & HEAP_XMAX_IS_MULTI:
        return UNKNOWN, "pg_multixact"
    return xid_status(xmax, lookup), "pg_xact"


def tuple_is_dead(xmin_st: str, xmax_st: str) -> Optional[bool]:
    """HeapTupleSatisfiesDirty's verdict, negated: True dead, False live, None undecidable.

    In-progress inserters and deleters count as live (a dirty snapshot sees them); after a
    crash an in-progress xid never commits, but only recovery would tell, so we keep
    PostgreSQL's view of the files as they are.
    """
    if xmin_st == ABORTED:
        return True
    if xmin_st == UNKNOWN:
        return None
    if xmax_st == COMMITTED:
        return True
    if xmax_st == UNKNOWN:
        return None
    return False
