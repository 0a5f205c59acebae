"""The cumulative statistics file a clean shutdown leaves in pg_stat/: per-relation counters.

PostgreSQL 15+ writes ``pg_stat/pgstat.stat`` (formats/pgstat_shmem.ksy); 10-14's statistics
collector wrote ``pg_stat/global.stat`` and one ``pg_stat/db_<oid>.stat`` per database
(formats/pgstat_collector.ksy); both carry PgStat_StatTabEntry (formats/pgstat_tab_entry.ksy) for
every table and index that was touched (15+: among database, function, replication slot and
subscription entries, each framed by its major's size, so a slot does not end the read).  The server
reads the file at startup and deletes it (and
discards it after a crash), so it exists only in a cluster stopped cleanly and not started since.

``decode_statistics(files, major)`` returns ``{"file", "format_id", "written_at", "relations":
{(dboid, relid): counters}, "findings"}``; ``table_view`` and ``index_view`` turn counters into the
columns of ``pg_stat_user_tables`` and ``pg_stat_user_indexes`` as ``system_views.sql`` computes them.
A file whose format id is not the one its major writes is refused with a finding, never guessed at.
"""
from __future__ import annotations

import datetime as _dt
import re
from io import BytesIO

from pgpage.decode.versions import PGSTAT_FILE_FORMAT_ID, PGSTAT_SHARED_MEMORY_SINCE
from pgpage.findings import WARNING, Finding

POSTGRES_EPOCH = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)
PGSTAT_KIND_RELATION = 2
_MARKER_END = 0x45  # 'E'

# PgStat_StatTabEntry field (Kaitai id) -> the name used here (16+'s C names, which pgstatfuncs.c's
# pg_stat_get_* functions mirror); the ones a major does not have are left out.
COUNTERS = {
    "numscans": "numscans", "lastscan": "lastscan", "tuples_returned": "tuples_returned",
    "tuples_fetched": "tuples_fetched", "tuples_inserted": "tuples_inserted",
    "tuples_updated": "tuples_updated", "tuples_deleted": "tuples_deleted",
    "tuples_hot_updated": "tuples_hot_updated", "tuples_newpage_updated": "tuples_newpage_updated",
    "n_live_tuples": "live_tuples", "n_dead_tuples": "dead_tuples",
    "changes_since_analyze": "mod_since_analyze", "inserts_since_vacuum": "ins_since_vacuum",
    "blocks_fetched": "blocks_fetched", "blocks_hit": "blocks_hit",
    "vacuum_timestamp": "last_vacuum_time", "vacuum_count": "vacuum_count",
    "autovac_vacuum_timestamp": "last_autovacuum_time", "autovac_vacuum_count": "autovacuum_count",
    "analyze_timestamp": "last_analyze_time", "analyze_count": "analyze_count",
    "autovac_analyze_timestamp": "last_autoanalyze_time", "autovac_analyze_count": "autoanalyze_count",
    "total_vacuum_time": "total_vacuum_time", "total_autovacuum_time": "total_autovacuum_time",
    "total_analyze_time": "total_analyze_time", "total_autoanalyze_time": "total_autoanalyze_time",
}
TIMESTAMPS = {"lastscan", "last_vacuum_time", "last_autovacuum_time", "last_analyze_time", "last_autoanalyze_time"}
_DB_FILE_RE = re.compile(r"^db_(\d+)\.stat$")


def timestamptz(value: int) -> str | None:
    """A TimestampTz (microseconds since 2000-01-01 UTC) in ISO 8601, or None for 0 (never)."""
    if not value:
        return None
    try:
        return (POSTGRES_EPOCH + _dt.timedelta(microseconds=value)).isoformat()
    except OverflowError:
        return None


def _counters(entry) -> dict:
    out = {}
    for field, name in COUNTERS.items():
        value = getattr(entry, field, None)
        if value is not None:
            out[name] = timestamptz(value) if name in TIMESTAMPS else value
    return out


def statistics_file_names(major: int) -> tuple[str, ...]:
    """The file(s) under pg_stat/ a major's clean shutdown writes (db_<oid>.stat: one per database)."""
    return ("pgstat.stat",) if major >= PGSTAT_SHARED_MEMORY_SINCE else ("global.stat", "db_<oid>.stat")


def _format_finding(name: str, found: int, major: int) -> Finding | None:
    want = PGSTAT_FILE_FORMAT_ID.get(major)
    if found == want:
        return None
    return Finding("stats.format_unknown", f"pg_stat/{name}: format id 0x{found:08X} is not the one PostgreSQL"
                   f" {major} writes ({'0x%08X' % want if want else 'unknown major'}): not read", severity=WARNING,
                   expected=want, actual=found)


def decode_statistics(files: dict[str, bytes], major: int) -> dict:
    """The relations' counters from pg_stat/'s files ({file name: bytes}) of a cluster of ``major``."""
    from kaitaistruct import KaitaiStream
    out: dict = {"files": sorted(files), "format_id": None, "written_at": None, "relations": {}, "findings": []}
    findings = out["findings"]
    if major >= PGSTAT_SHARED_MEMORY_SINCE:
        from pgpage.decode.ksy.pgstat_shmem import PgstatShmem
        data = files.get("pgstat.stat")
        if data is None:
            return out
        if len(data) < 4:
            findings.append(Finding("stats.truncated", f"pg_stat/pgstat.stat: {len(data)} bytes", severity=WARNING))
            return out
        out["format_id"] = int.from_bytes(data[:4], "little")
        bad = _format_finding("pgstat.stat", out["format_id"], major)
        if bad:
            findings.append(bad)
            return out
        io = KaitaiStream(BytesIO(data))
        parsed = _parse(lambda: PgstatShmem(major, io), "pgstat.stat", findings)
        if parsed is not None:
            for e in parsed.entries:
                if e.marker == 0x53 and e.kind == PGSTAT_KIND_RELATION:
                    out["relations"][(e.dboid, e.objid if major >= 18 else e.objoid)] = _counters(e.relation)
            _check_end(parsed.entries, io, len(data), "pgstat.stat", findings)
        return out

    from pgpage.decode.ksy.pgstat_collector import PgstatCollector
    glob = files.get("global.stat")
    if glob is not None and len(glob) >= 12:
        header = PgstatCollector.GlobalHeader(KaitaiStream(BytesIO(glob)))
        out["format_id"] = header.format_id
        bad = _format_finding("global.stat", header.format_id, major)
        if bad:
            findings.append(bad)
            return out
        out["written_at"] = timestamptz(header.stats_timestamp)
    for name in sorted(files):
        m = _DB_FILE_RE.match(name)
        if not m:
            continue
        data = files[name]
        fmt = int.from_bytes(data[:4], "little") if len(data) >= 4 else None
        bad = _format_finding(name, fmt, major) if fmt is not None else None
        if fmt is None or bad:
            findings.append(bad or Finding("stats.truncated", f"pg_stat/{name}: {len(data)} bytes", severity=WARNING))
            continue
        out["format_id"] = fmt
        io = KaitaiStream(BytesIO(data))
        parsed = _parse(lambda: PgstatCollector.DbFile(major, io), name, findings)
        if parsed is not None:
            dboid = int(m.group(1))
            for r in parsed.records:
                if r.marker == 0x54:
                    out["relations"][(dboid, r.oid)] = _counters(r.table)
            _check_end(parsed.records, io, len(data), name, findings)
    return out


def _parse(make, name: str, findings: list[Finding]):
    try:
        return make()
    except Exception as e:  # a cut or damaged file: what Kaitai read before the end is lost with it
        findings.append(Finding("stats.truncated", f"pg_stat/{name}: ends inside an entry ({type(e).__name__}):"
                                " not read", severity=WARNING))
        return None


def _check_end(entries, io, size: int, name: str, findings: list[Finding]) -> None:
    last = entries[-1] if entries else None
    if last is None or last.marker != _MARKER_END:
        what = f"entry marker 0x{last.marker:02X}" + (f" kind {last.kind}" if getattr(last, "kind", None) else "")
        findings.append(Finding("stats.entry_unknown", f"pg_stat/{name}: {what} at offset {io.pos() - 1} is not one"
                                " pgpage can frame: the entries after it were not read", severity=WARNING))
    elif io.pos() != size:
        findings.append(Finding("stats.trailing_bytes", f"pg_stat/{name}: {size - io.pos()} bytes after the end"
                                " marker", severity=WARNING))


def _zero(counters: dict | None, name: str):
    return (counters or {}).get(name, 0)


def index_view(counters: dict | None, major: int) -> dict:
    """pg_stat_user_indexes' statistics columns of one index (no entry: zeros, as the view shows)."""
    out = {"idx_scan": _zero(counters, "numscans")}
    if major >= 16:
        out["last_idx_scan"] = (counters or {}).get("lastscan")
    out["idx_tup_read"] = _zero(counters, "tuples_returned")
    out["idx_tup_fetch"] = _zero(counters, "tuples_fetched")
    return out


def table_view(counters: dict | None, indexes: list[dict | None], major: int) -> dict:
    """pg_stat_user_tables' statistics columns of one table, from its counters and its indexes' (the view's
    idx_scan is their sum, NULL for a table without indexes, as system_views.sql's LEFT JOIN gives)."""
    c = counters or {}
    z = lambda name: c.get(name, 0)  # noqa: E731
    has_idx = bool(indexes)
    out = {"seq_scan": z("numscans")}
    if major >= 16:
        out["last_seq_scan"] = c.get("lastscan")
    out["seq_tup_read"] = z("tuples_returned")
    out["idx_scan"] = sum(_zero(i, "numscans") for i in indexes) if has_idx else None
    if major >= 16:
        last = [i.get("lastscan") for i in indexes if i and i.get("lastscan")]
        out["last_idx_scan"] = max(last) if last else None
    out["idx_tup_fetch"] = (sum(_zero(i, "tuples_fetched") for i in indexes) + z("tuples_fetched")
                            if has_idx else None)
    out.update({"n_tup_ins": z("tuples_inserted"), "n_tup_upd": z("tuples_updated"),
                "n_tup_del": z("tuples_deleted"), "n_tup_hot_upd": z("tuples_hot_updated")})
    if major >= 16:
        out["n_tup_newpage_upd"] = z("tuples_newpage_updated")
    out.update({"n_live_tup": z("live_tuples"), "n_dead_tup": z("dead_tuples"),
                "n_mod_since_analyze": z("mod_since_analyze")})
    if major >= 13:
        out["n_ins_since_vacuum"] = z("ins_since_vacuum")
    out.update({"last_vacuum": c.get("last_vacuum_time"), "last_autovacuum": c.get("last_autovacuum_time"),
                "last_analyze": c.get("last_analyze_time"), "last_autoanalyze": c.get("last_autoanalyze_time"),
                "vacuum_count": z("vacuum_count"), "autovacuum_count": z("autovacuum_count"),
                "analyze_count": z("analyze_count"), "autoanalyze_count": z("autoanalyze_count")})
    if major >= 18:
        for k in ("total_vacuum_time", "total_autovacuum_time", "total_analyze_time", "total_autoanalyze_time"):
            out[k] = float(z(k))
    return out
