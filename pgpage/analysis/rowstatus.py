"""What became of each row version: the status `pgpage rows` prints, decided from the xid verdicts.

The verdicts come from ``decode.xact.xmin_states``/``xmax_states`` (hint bits first, then pg_xact, a
multixact through its updating member). A version is:

* ``live``: its inserter committed (or it is frozen) and no committed transaction deleted or updated
  it (a lock-only xmax, an aborted or a still-running deleter leave it live): what a new ``SELECT``
  returns. On a cluster that stopped cleanly nothing is running; after a crash, a transaction that
  was running never committed (pg_xact says in progress, and the row is treated as such).
* ``deleted``: a committed transaction deleted it (``t_ctid`` points at itself).
* ``updated``: a committed transaction replaced it by the version at ``t_ctid``.
* ``moved``: a committed UPDATE moved it to another partition (11+: ``t_ctid`` is the
  MovedPartitions marker).
* ``aborted``: its inserter aborted (or its xmin was cleared: a killed speculative insertion).
* ``in_progress``: its inserter had not committed when the files were read (or the server crashed).
* ``unknown``: pg_xact does not cover its inserter or deleter and no hint bit tells.
* ``pruned``: no line pointer holds it any more (pruning made it LP_DEAD or LP_UNUSED), yet its bytes are
  whole in the page (``analysis.carve``); never decided here.
* ``wal``: the pages no longer hold it, the WAL does (``passes.walrows``, `rows --wal`); never decided here.

Pure functions over arrays; no I/O.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.flags import MOVED_PARTITIONS_OFFSET   # with block InvalidBlockNumber: moved to another partition
from pgpage.decode.xact import (ST_ABORTED, ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS, ST_INVALID, ST_LOCK_ONLY,
                                ST_UNKNOWN)

LIVE, DELETED, UPDATED, MOVED, ABORTED, IN_PROGRESS, UNKNOWN, PRUNED, WAL = range(9)
STATUS_NAMES = ("live", "deleted", "updated", "moved", "aborted", "in_progress", "unknown", "pruned", "wal")
XID_STATE_NAMES = {ST_UNKNOWN: "unknown", ST_IN_PROGRESS: "in progress", ST_COMMITTED: "committed",
                   ST_ABORTED: "aborted", ST_FROZEN: "frozen", ST_INVALID: "invalid", ST_LOCK_ONLY: "lock only"}

INVALID_BLOCK = 0xFFFFFFFF


def row_statuses(xmin_state: np.ndarray, xmax_state: np.ndarray, block: np.ndarray, item: np.ndarray,
                 ctid_block: np.ndarray, ctid_offset: np.ndarray) -> np.ndarray:
    """The status (LIVE .. UNKNOWN) of each tuple at (block, item) with the given verdicts and t_ctid."""
    inserted = np.isin(xmin_state, (ST_COMMITTED, ST_FROZEN))
    gone = xmax_state == ST_COMMITTED
    moved = (ctid_block == INVALID_BLOCK) & (ctid_offset == MOVED_PARTITIONS_OFFSET)
    points_elsewhere = (ctid_block != block) | (ctid_offset != item)
    status = np.full(len(xmin_state), UNKNOWN, dtype=np.int8)
    status[inserted & ~gone & (xmax_state != ST_UNKNOWN)] = LIVE
    status[inserted & gone & ~points_elsewhere] = DELETED
    status[inserted & gone & points_elsewhere] = UPDATED
    status[inserted & gone & moved] = MOVED
    status[np.isin(xmin_state, (ST_ABORTED, ST_INVALID))] = ABORTED
    status[xmin_state == ST_IN_PROGRESS] = IN_PROGRESS
    return status
