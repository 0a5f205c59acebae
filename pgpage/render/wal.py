"""Output of ``pgpage wal``: pg_waldump-like lines, the --stats tables, or newline-delimited JSON."""
from __future__ import annotations

import sys

SCHEMA = "pgpage.wal/1"


def json_lines(records, summary: dict | None, walk=None) -> None:
    from pgpage.render.output import emit_json_lines      # here: text output does without json
    emit_json_lines({"type": r["type"], "schema": SCHEMA, **r} for r in records)
    emit_json_lines([summary if summary is not None else walk.summary()])


def _blocks_text(rec: dict) -> str:
    parts = []
    for b in rec["blocks"]:
        name = f" ({b['relation']})" if b["relation"] else ""
        fork = "" if b["fork"] == "main" else f" fork {b['fork']}"
        text = f"blkref #{b['block_id']}: rel {b['relfilenode']}{name}{fork} blk {b['block']}"
        fpi = b["fpi"]
        if fpi:
            text += f" FPW (hole {fpi['hole_offset']}+{fpi['hole_length']}"
            text += f", {fpi['compression']}" if fpi["compression"] else ""
            text += ")" if fpi["apply"] else ", not applied)"
        parts.append(text)
    return ", ".join(parts)


def records_text(records, walk) -> None:
    write = sys.stdout.write
    for r in records:
        desc = r["record_type"] + (f" {r['description']}" if r["description"] else "")
        blocks = _blocks_text(r)
        write(f"rmgr: {r['rmgr']:<11} len (rec/tot): {r['length'] - r['fpi_length']:6}/{r['length']:6}, "
              f"tx: {r['xid']:10}, lsn: {r['lsn']}, prev {r['prev_lsn']}, desc: {desc}"
              f"{', ' + blocks if blocks else ''}\n")
    _summary_text(walk.summary())


def _summary_text(s: dict) -> None:
    out = sys.stdout.write
    span = f" from {s['first_lsn']} to {s['end_lsn']}" if s["first_lsn"] else ""
    out(f"# PostgreSQL {s['major']} WAL, system {s['system_identifier']}, segments of "
        f"{s['wal_segment_size'] // 1024} kB: {s['records']} records{span}, {s['bytes']} bytes "
        f"({s['fpi_bytes']} in full-page images)\n")
    for f in s["findings"]:
        out(f"# {f.get('severity', 'error')}: {f['code']}: {f['message']}\n")


def stats_text(s: dict) -> None:
    out = sys.stdout.write
    stats = s["stats"]
    def rows(title, items):
        out(f"{title:<40}{'N':>9} {'(%)':>7}{'Record size':>13} {'(%)':>7}{'FPI size':>11} {'(%)':>7}"
            f"{'Combined':>11}\n")
        out(f"{'----':<40}{'-':>9} {'---':>7}{'-----------':>13} {'---':>7}{'--------':>11} {'---':>7}"
            f"{'--------':>11}\n")
        for r in items:
            out(f"{r['name']:<40}{r['count']:>9} ({r['count_percentage']:5.2f}){r['record_size']:>13} "
                f"({r['record_size_percentage']:5.2f}){r['fpi_size']:>11} ({r['fpi_size_percentage']:5.2f})"
                f"{r['combined_size']:>11}\n")
        t = stats["total"]
        out(f"{'Total':<40}{t['count']:>9} {'':>7}{t['record_size']:>13} {'':>7}{t['fpi_size']:>11} {'':>7}"
            f"{t['combined_size']:>11}\n\n")

    rows("Resource manager", stats["rmgrs"])
    rows("Record type", stats["record_types"])
    _summary_text(s)
