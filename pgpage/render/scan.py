"""Text rendering of ``pgpage scan``: the cluster first, then one line per relation, findings last."""
from __future__ import annotations

from collections import Counter

from rich.table import Table
from rich.text import Text

from pgpage.render.output import console, percent
from pgpage.render.page import SEVERITY_STYLE

KIND_SHORT = {"table": "table", "index": "index", "toast table": "toast", "materialized view": "matview",
              "sequence": "sequence", "partitioned table": "part.table", "partitioned index": "part.index"}


def human_bytes(n: int | None) -> str:
    if n is None:
        return "?"
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


# rows one text table lists at most (Rich lays a table out at about 1.5 ms a row: 12,700 relations took 45 s):
# the largest relations, in the table's order; --json lists every one
TEXT_ROWS = 500


def _print_listed(out, table, rels: list[dict]) -> None:
    """``table(rels)`` of the TEXT_ROWS largest of ``rels``, and a line saying how many it leaves out."""
    shown = rels
    if len(rels) > TEXT_ROWS:
        largest = set(map(id, sorted(rels, key=lambda r: -(r["size_bytes"] or 0))[:TEXT_ROWS]))
        shown = [r for r in rels if id(r) in largest]
    out.print(table(shown))
    if len(shown) < len(rels):
        out.print(Text(f"  ... and {len(rels) - len(shown):,} smaller ones not listed (--json lists every one;"
                       " --top and --name choose which)", "dim"))


def _num(v) -> str:
    return "" if v is None else f"{v:,}"


def render_scan(doc: dict) -> None:
    out = console()
    c = doc["cluster"]
    out.print(Text.assemble(("PostgreSQL ", "bold"), (str(c.get("major") or "?"), "bold"),
                            " cluster ", (c["path"], "cyan")))
    if "state" in c:
        ck = {True: Text("on", "green"), False: Text("off", "yellow"), None: Text("unknown", "red")}[c["data_checksums"]]
        out.print(Text.assemble(f"  state {c['state']}  checksums ", ck,
                                f"  block {c['block_size']}  segment {human_bytes(c['relseg_size'] * c['block_size'])}"
                                f"  timeline {c['timeline']}  wal_level {c['wal_level'].removeprefix('WAL_LEVEL_').lower()}",
                                ("" if c["control_crc_ok"] else "  pg_control CRC MISMATCH", "bold red")))
        out.print(f"  checkpoint {c['checkpoint_lsn']} at {c['checkpoint_time']} (redo {c['redo_lsn']})")
        wrap = c["xids_to_wraparound"]
        out.print(Text.assemble(f"  next xid {c['next_xid_epoch']}:{c['next_xid']}  oldest xid {c['oldest_xid']}"
                                f" (age {c['oldest_xid_age']:,}; ",
                                (f"{wrap:,} to wraparound", "green" if wrap > 1_000_000_000 else "bold red"),
                                ")"))
        out.print(f"  next multixact {c['next_multixact']}  oldest multixact {c['oldest_multixact']}"
                  f"  next oid {c['next_oid']}")
    st = c.get("statistics")
    if st:
        status = Text(st["status"], "green" if st["status"] == "current" else "yellow")
        when = ""
        if st.get("written_at"):
            when = f" ({'file time' if st.get('written_at_from') == 'mtime' else 'written'} {st['written_at'][:19]})"
        out.print(Text.assemble(f"  statistics {st['source']}: ", status, when,
                                "" if st["status"] == "current" else ": HOT ratios are lower bounds from the pages"))
    for d in doc["databases"]:
        out.print()
        rels = d["relations"]
        size = sum(r["size_bytes"] for r in rels)
        age = f"  datfrozenxid {d['datfrozenxid']} (age {d['age_datfrozenxid']:,})" if "age_datfrozenxid" in d else ""
        out.print(Text.assemble(("database ", "bold"), (d["name"] or "?", "bold cyan"), f" (oid {d['oid']}){age}  "
                                f"{len(rels)} relations shown, {human_bytes(size)}"))
        if rels:
            _print_listed(out, _relations_table, rels)
        counted = [r for r in rels if "n_tup_upd" in (r.get("statistics") or {})]
        if counted:
            out.print()
            _print_listed(out, _statistics_table, counted)
            maintained = [r for r in counted if any(r["statistics"][k] for k in MAINTENANCE_COUNTS)]
            if maintained:
                out.print()
                _print_listed(out, lambda shown: _maintenance_table(shown, len(maintained), len(counted)), maintained)
        scanned = [r for r in rels if "idx_tup_read" in (r.get("statistics") or {})]
        if scanned:
            out.print()
            _print_listed(out, _index_statistics_table, scanned)
        deep = [r for r in rels if "heap" in r]
        if deep:
            out.print()
            _print_listed(out, _deep_table, deep)
        indexes = [r for r in rels if r.get("index")]
        if indexes:
            out.print()
            _print_listed(out, _index_deep_table, indexes)
    findings = list(doc["findings"])
    for d in doc["databases"]:
        findings += d["findings"] + [f for r in d["relations"] for f in r["findings"]]
    if findings:
        out.print()
        render_findings_summary(out, findings)


def _relations_table(rels: list[dict]) -> Table:
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1))
    t.add_column("relation", overflow="ellipsis", no_wrap=True, max_width=32)
    t.add_column("kind", no_wrap=True)
    t.add_column("am", no_wrap=True)
    for col in ("size", "blocks", "live", "dead", "free%", "vis%", "bad"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rels:
        h = r["health"]
        dead = h.get("dead_tuples")
        bad = h.get("checksum_failures")
        t.add_row(r["name"], KIND_SHORT.get(r["kind"], r["kind"]), r["am"] or "",
                  human_bytes(r["size_bytes"]), _num(r["blocks"]), _num(h.get("live_tuples")),
                  Text(_num(dead), "yellow" if dead else ""),
                  percent(h.get("free_percent")), percent(h.get("all_visible_percent")),
                  Text("-" if bad is None else str(bad), "bold red" if bad else "dim"))
    return t


def _statistics_table(rels: list[dict]) -> Table:
    """The statistics file's counters of each table shown (pg_stat_user_tables' names), HOT% exact."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1),
              title=f"statistics ({rels[0]['statistics']['status']}; HOT% exact)", title_justify="left",
              title_style="bold")
    t.add_column("relation", overflow="ellipsis", no_wrap=True, max_width=28)
    for col in ("inserted", "updated", "HOT%", "deleted", "n_live_tup", "n_dead_tup"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rels:
        s, ratio = r["statistics"], r.get("hot_ratio") or {}
        t.add_row(r["name"], _num(s["n_tup_ins"]), _num(s["n_tup_upd"]),
                  "" if not ratio.get("exact") or ratio["ratio"] is None else percent(100 * ratio["ratio"]),
                  _num(s["n_tup_del"]), _num(s["n_live_tup"]), _num(s["n_dead_tup"]))
    return t


MAINTENANCE_COUNTS = ("vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count")


def _last(s: dict, what: str) -> str:
    """The newest of last_<what> and last_auto<what> (UTC, to the second), "auto" when autovacuum's."""
    manual, auto = s["last_" + what], s["last_auto" + what]
    if manual is None and auto is None:
        return "never"
    newest = max(t for t in (manual, auto) if t is not None)
    return newest[:19].replace("T", " ") + (" auto" if newest == auto and newest != manual else "")


def _maintenance_table(rels: list[dict], maintained: int, of: int) -> Table:
    """Vacuums and analyzes of the tables that had any (``maintained`` of ``of``): how many (by hand and by
    autovacuum) and the newest."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1),
              title=f"vacuum and analyze ({maintained} of {of} tables; the others never)", title_justify="left",
              title_style="bold")
    t.add_column("relation", overflow="ellipsis", no_wrap=True, max_width=28)
    for col, justify in (("vacuums", "right"), ("last vacuum (UTC)", "left"), ("analyzes", "right"),
                         ("last analyze (UTC)", "left")):
        t.add_column(col, justify=justify, no_wrap=True)
    for r in rels:
        s = r["statistics"]
        t.add_row(r["name"], _num(s["vacuum_count"] + s["autovacuum_count"]), _last(s, "vacuum"),
                  _num(s["analyze_count"] + s["autoanalyze_count"]), _last(s, "analyze"))
    return t


def _index_statistics_table(rels: list[dict]) -> Table:
    """pg_stat_user_indexes' counters of each index shown."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1),
              title=f"index statistics ({rels[0]['statistics']['status']})", title_justify="left", title_style="bold")
    t.add_column("index", overflow="ellipsis", no_wrap=True, max_width=40)
    for col in ("idx_scan", "idx_tup_read", "idx_tup_fetch"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rels:
        s = r["statistics"]
        t.add_row(r["name"], _num(s["idx_scan"]), _num(s["idx_tup_read"]), _num(s["idx_tup_fetch"]))
    return t


def _deep_table(rels: list[dict]) -> Table:
    """--deep: per heap, the figures behind the health line."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1),
              title="heap detail", title_justify="left", title_style="bold")
    t.add_column("relation", overflow="ellipsis", no_wrap=True, max_width=30)
    for col in ("HOT%", "chains", "hint pgs", "frozen%", "xmin age", "vac frees", "rewrite frees"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rels:
        h = r["heap"]
        hot, frz, bloat = h["hot"], h["freezing"], h["bloat"]
        blocks = r["blocks"] or 1
        frozen = h["visibility"]["vm_all_frozen_pages"]
        ratio = r.get("hot_ratio") or {}
        t.add_row(r["name"], "" if ratio.get("ratio") is None else
                  ("" if ratio["exact"] else "≥") + percent(100 * ratio["ratio"]),
                  _num(hot["chains"]), _num(h["hint_bits"]["pages_next_read_will_dirty"]),
                  "" if frozen is None else percent(100 * frozen / blocks),
                  _num(frz["oldest_unfrozen_age"]), human_bytes(bloat["vacuum_reclaims_bytes"]),
                  human_bytes(bloat["rewrite_only_bytes"]))
    return t


def _index_deep_table(rels: list[dict]) -> Table:
    """--deep: per index of an AM with figures (GIN, GiST, SP-GiST, hash, BRIN), its pages and what they hold."""
    t = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1),
              title="index detail", title_justify="left", title_style="bold")
    t.add_column("index", overflow="ellipsis", no_wrap=True, max_width=28)
    t.add_column("am", no_wrap=True)
    t.add_column("pages by kind", overflow="ellipsis", no_wrap=True, max_width=30)
    for col in ("live", "dead", "free%", "vac frees", "reindex ≤"):
        t.add_column(col, justify="right", no_wrap=True)
    for r in rels:
        x = r["index"]
        t.add_row(r["name"], x["am"], " ".join(f"{k} {v}" for k, v in x["pages"].items()),
                  _num(x["items"].get("live_items")), _num(x["items"].get("dead_items")),
                  percent(x["free_percent"]), human_bytes(x["reclaimable"]["bytes"]),
                  human_bytes(x["reindex_reclaims_at_most"]))
    return t


def render_findings_summary(out, findings: list[dict], examples: int = 3, counts: dict[str, int] | None = None) -> None:
    """Findings grouped by code, most severe first, a few examples each and how many more. ``counts``: a code's
    number of findings when ``findings`` lists only some of them."""
    by_code = Counter(f["code"] for f in findings)
    for code, n in (counts or {}).items():
        if code in by_code:     # a code none of ``findings`` has is not one to show
            by_code[code] = max(by_code[code], n)
    severity = {f["code"]: f.get("severity", "error") for f in findings}
    order = {"error": 0, "warning": 1, "info": 2}
    out.print(Text(f"findings: {sum(by_code.values()):,}", "bold"))
    for code, n in sorted(by_code.items(), key=lambda kv: (order.get(severity[kv[0]], 3), -kv[1], kv[0])):
        sev = severity[code]
        out.print(Text.assemble((f"  {sev:<7} ", SEVERITY_STYLE.get(sev, "")), (code, "bold"), f"  x{n:,}"))
        for f in [f for f in findings if f["code"] == code][:examples]:
            where = " ".join(f"{k} {f[k]}" for k in ("relation", "block", "item") if f.get(k) is not None)
            out.print(Text(f"      {where + ': ' if where else ''}{f['message']}", "dim"), hang=8)
        if n > examples:
            out.print(Text(f"      ... and {n - examples:,} more", "dim"))
