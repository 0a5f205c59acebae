"""pgpage wal: the WAL records of a data directory's pg_wal or of an archive, decoded offline.

Text: one line a record, as pg_waldump prints it, relations named through the catalogs; ``--stats`` the
counts and sizes per resource manager and per record type. ``--json``: newline-delimited records
(``type: record``), then one ``type: summary`` record (``schema: pgpage.wal/1``) with where the walk
stopped and why, its findings and, with ``--stats``, the statistics. Exit 1 when the walk ended on a
defect (bad CRC, torn record, gap, a segment of another cluster or major), not at the normal end of WAL.
"""
from __future__ import annotations

from pgpage.cli.common import exit_status


def wal_command(*, pgdata: str, wal_dir: str | None = None, start: str | None = None, end: str | None = None,
                rmgr: str | None = None, xid: int | None = None, db: str | None = None, rel: str | None = None,
                timeline: int | None = None, stats: bool = False, json_out: bool = False) -> int:
    from pgpage.passes.wal import WalWalk
    from pgpage.render import wal as render

    walk = WalWalk(pgdata, wal_dir, start, end, [r.strip() for r in rmgr.split(",")] if rmgr else None, xid, db, rel,
                   names=not stats, timeline=timeline)    # the statistics name no relation
    if stats:
        summary = walk.summary(walk.stats())
        if json_out:
            render.json_lines([], summary)
        else:
            render.stats_text(summary)
    elif json_out:
        render.json_lines(map(walk.record_json, walk.records()), None, walk)
    else:
        render.records_text(map(walk.record_json, walk.records()), walk)
    return exit_status(walk.findings())
