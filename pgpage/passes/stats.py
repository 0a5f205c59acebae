"""The cumulative statistics a clean shutdown left in pg_stat/, per relation, for `scan` and `heap`.

``cluster_statistics(cluster)`` reads and decodes the file once per data directory and says whether it can
be trusted: ``absent`` (no file: the server deletes it at startup and discards it after a crash, or it was not
copied), ``unreadable`` (a format pgpage does not know, or a damaged file), ``stale`` (pg_control does not say
"shut down", or the file is older than the last checkpoint: not the shutdown that wrote this pg_control) or
``current``. ``relation_statistics(cluster, rel)`` gives a relation's pg_stat_user_tables (table, TOAST table,
materialized view) or pg_stat_user_indexes (index) columns, with ``status`` and ``source``.
"""
from __future__ import annotations

import datetime as _dt

from pgpage.analysis.share import share
from pgpage.decode.versions import PGSTAT_SHARED_MEMORY_SINCE
from pgpage.findings import INFO, WARNING, Finding

TABLE_KINDS = {"r", "t", "m", "p"}   # the relkinds of pg_stat_all_tables
PAGES_SOURCE = "pages (a lower bound: versions pruned since are not counted)"


def cluster_statistics(cluster) -> dict:
    cached = cluster.__dict__.get("_pgstat")
    if cached is None:
        cached = cluster.__dict__["_pgstat"] = _read(cluster)
    return cached


def _read(cluster) -> dict:
    from pgpage.decode.pgstat import decode_statistics, statistics_file_names
    major = cluster.major
    files = cluster.statistics_files
    names = statistics_file_names(major) if major else ("pgstat.stat",)
    source = ", ".join(f"pg_stat/{n}" for n in names)
    out: dict = {"status": "absent", "source": source, "written_at": None, "checkpoint_time": None,
                 "relations": {}, "findings": []}
    if major is None or not files:
        out["findings"].append(Finding("stats.absent", f"no statistics file ({source}): the cluster was not shut"
                                       " down cleanly after its last start, or the file was not copied; HOT ratios"
                                       " are lower bounds from the pages", severity=INFO))
        return out
    decoded = decode_statistics({n: data for n, (data, _) in files.items()}, major)
    out["findings"] = decoded["findings"]
    out["format_id"] = decoded["format_id"]
    if not decoded["relations"] and decoded["findings"]:
        out["status"] = "unreadable"
        return out
    out["relations"] = decoded["relations"]
    written = decoded["written_at"]
    if written is None:  # 15+: the file keeps no time of its own; its mtime (a copy may have a later one)
        written = _dt.datetime.fromtimestamp(max(m for _, m in files.values()), _dt.timezone.utc).isoformat()
        out["written_at_from"] = "mtime"
    else:
        out["written_at_from"] = "file"
    out["written_at"] = written
    control = cluster.control
    out["status"] = "current"
    if control is None or not control.get("crc_ok"):
        out["status"] = "stale"
        out["findings"].append(Finding("stats.stale", "pg_control is unreadable: nothing says the statistics file"
                                       " belongs to this cluster's last shutdown", severity=WARNING))
        return out
    cp = control["checkPointCopy"]
    out["checkpoint_time"] = cp["time_iso"]
    if control["state_name"] not in ("DB_SHUTDOWNED", "DB_SHUTDOWNED_IN_RECOVERY"):
        out["status"] = "stale"
        out["findings"].append(Finding("stats.stale", f"pg_control says {control['state_name']}, not shut down: the"
                                       f" server was running or crashed after {source} was written; its counts"
                                       " stop there", severity=WARNING))
    elif _dt.datetime.fromisoformat(written).timestamp() < cp["time"]:
        out["status"] = "stale"
        out["findings"].append(Finding("stats.stale", f"{source} was written at {written}, before the last"
                                       f" checkpoint ({cp['time_iso']}): from an earlier shutdown", severity=WARNING))
    return out


def statistics_warnings(cluster) -> list[Finding]:
    """Why the statistics file is stale or unreadable (its warnings; "absent" is only information)."""
    return [f for f in cluster_statistics(cluster)["findings"] if f.severity != INFO] if cluster is not None else []


def statistics_summary(cluster) -> dict:
    """The statistics file's status for a cluster's summary (no counters)."""
    st = cluster_statistics(cluster)
    return {k: st.get(k) for k in ("status", "source", "written_at", "written_at_from", "checkpoint_time")} | {
        "findings": [f.to_json() for f in st["findings"]]}


def relation_statistics(cluster, rel) -> dict | None:
    """A relation's statistics columns (pg_stat_user_tables' for a table, TOAST table or materialized view,
    pg_stat_user_indexes' for an index) with ``status`` and ``source``; only those two when the file is absent
    or unreadable; None for a relation that is neither table nor index, or without a data directory."""
    from pgpage.decode.pgstat import index_view, table_view
    if cluster is None or rel is None or (rel.kind != "i" and rel.kind not in TABLE_KINDS):
        return None
    st = cluster_statistics(cluster)
    out = {"status": st["status"], "source": st["source"]}
    if st["status"] in ("absent", "unreadable") or cluster.major is None:
        return out
    rels = st["relations"]

    def counters(r):
        return rels.get((dboid(r), r.oid))

    def dboid(r):
        return 0 if r.row["relisshared"] else r.database.oid

    if cluster.major < PGSTAT_SHARED_MEMORY_SINCE:  # 10-14: the database's own file
        out["source"] = f"pg_stat/db_{dboid(rel)}.stat"

    if rel.kind == "i":
        return out | index_view(counters(rel), cluster.major)
    return out | table_view(counters(rel), [counters(i) for i in _indexes(rel.database).get(rel.oid, [])],
                            cluster.major)


def index_statistics(cluster, rel) -> list[dict]:
    """pg_stat_user_indexes' columns of each index of a table (by name), for `heap`; [] without counters."""
    st = cluster_statistics(cluster) if cluster is not None and rel is not None else None
    if st is None or st["status"] in ("absent", "unreadable") or cluster.major is None or rel.kind == "i":
        return []
    return [{"indexrelid": i.oid, "indexrelname": i.name} | relation_statistics(cluster, i)
            for i in sorted(_indexes(rel.database).get(rel.oid, []), key=lambda i: i.name)]


def _indexes(db) -> dict:
    """{table oid: its indexes} of a database, made once (a scan asks for every table)."""
    cached = db.__dict__.get("_pgstat_indexes")
    if cached is None:
        cached = db.__dict__["_pgstat_indexes"] = {}
        for r in db.relations():
            if r.kind == "i" and r.table is not None:
                cached.setdefault(r.table.oid, []).append(r)
    return cached


def hot_ratio(stats: dict | None, page_hot: int | None = None, page_updated: int | None = None) -> dict | None:
    """The HOT ratio: exact from the statistics (n_tup_hot_upd / n_tup_upd) when the file is current, else
    what the pages show (heap-only versions among the updated ones still on disk): a lower bound."""
    if stats and stats["status"] == "current" and "n_tup_upd" in stats:
        upd, hot = stats["n_tup_upd"], stats["n_tup_hot_upd"]
        return {"hot": hot, "updated": upd, "ratio": share(hot, upd, 4, scale=1), "exact": True,
                "source": stats["source"]}
    if page_updated is None:
        return None
    return {"hot": page_hot, "updated": page_updated,
            "ratio": share(page_hot, page_updated, 4, scale=1), "exact": False,
            "source": PAGES_SOURCE}
