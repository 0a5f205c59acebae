"""A record's description, as pg_waldump and pg_walinspect (16+ wording: ``key: value, ...``) print it.

One module per resource manager family decodes its main data (``heap.py``, ``btree.py``, ``xact.py``,
``xlog.py``...); this module only picks the one a record belongs to. A resource manager without a
decoder here gets no description (``None``), never a guess.
"""
from __future__ import annotations

import struct

from pgpage.decode import versions
from pgpage.decode.wal.record import Record

_DESCRIBERS: dict[int, object] = {}


def _load() -> dict[int, object]:
    if not _DESCRIBERS:
        from pgpage.decode.wal import btree, database, heap, smgr, standby, xact, xlog
        _DESCRIBERS.update({versions.RMGR_XLOG: xlog.describe, versions.RMGR_XACT: xact.describe,
                            versions.RMGR_STORAGE: smgr.describe, versions.RMGR_STANDBY: standby.describe,
                            versions.RMGR_HEAP: heap.describe, versions.RMGR_HEAP2: heap.describe2,
                            versions.RMGR_BTREE: btree.describe,
                            versions.RMGR_DATABASE: database.describe})
    return _DESCRIBERS


def describe(rec: Record, major: int) -> str | None:
    fn = _load().get(rec.rmid)
    if fn is None:
        return None
    try:
        return fn(rec, major)
    except (ValueError, IndexError, KeyError, struct.error):   # main data shorter or other than its type says
        return None
