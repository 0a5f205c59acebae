"""Text rendering of ``pgpage heap``: a summary that tells the story, then findings, then the map."""
from __future__ import annotations

from rich.text import Text

from pgpage.render.output import console, percent
from pgpage.render.scan import human_bytes, render_findings_summary

LABEL_WIDTH = 11
MAP_WIDTH = 80  # map cells a row, fewer when the console is narrower than a row and its block label
# map cell shades, low to high
SHADES = [("·", "dim"), ("▁", "green"), ("▃", "green"), ("▅", "yellow"), ("▆", "yellow"), ("█", "red")]


def _pct(part, whole) -> str:
    return f"{percent(100.0 * part / whole, 1)}%" if whole else "-"


def render_heap_database(doc: dict) -> None:
    """Every table of a database: the summary, HOT and why not, and the findings' count of each."""
    out = console()
    out.print(Text.assemble(("database ", "bold"), (doc["database"] or "?", "bold cyan"),
                            f"  {len(doc['tables']):,} tables"))
    for t in doc["tables"]:
        out.print()
        render_heap(t, brief=True)
    for f in doc.get("findings", []):
        out.print()
        out.print(Text(f"{f['relation']}: {f['severity']} {f['code']}: {f['message']}", "red"))


def render_heap(doc: dict, map_metric: str | None = None, brief: bool = False) -> None:
    """`pgpage heap` of one table; ``brief``: its size, tuples, HOT and why not HOT, and a findings count."""
    out = console()
    p = doc["pgstattuple"]
    out.print(Text.assemble((doc["relation"], "bold cyan"), f"  {doc['blocks']:,} blocks, {human_bytes(p['table_len'])}",
                            f"  PostgreSQL {doc['major'] or '?'}", f"  fillfactor {doc['fillfactor']}"))

    def line(label: str, *parts) -> None:
        out.print(Text.assemble((f"{label:<{LABEL_WIDTH}}", "bold"), *parts), hang=LABEL_WIDTH + 2)

    line("tuples", f"{p['tuple_count']:,} live ({human_bytes(p['tuple_len'])}, {p['tuple_percent']}%)  ",
         (f"{p['dead_tuple_count']:,} dead ({human_bytes(p['dead_tuple_len'])}, {p['dead_tuple_percent']}%)",
          "yellow" if p["dead_tuple_count"] else ""),
         f"  free {human_bytes(p['free_space'])} ({p['free_percent']}%)")
    if doc["undecided_tuples"]:
        line("", (f"{doc['undecided_tuples']:,} tuples counted live without knowing whether they committed", "red"))
    lp = doc["line_pointers"]
    total_lp = lp["lp_unused"] + lp["lp_normal"] + lp["lp_redirect"] + lp["lp_dead"]
    line("line ptrs", f"{total_lp:,}: {lp['lp_normal']:,} normal, {lp['lp_redirect']:,} redirect, ",
         (f"{lp['lp_dead']:,} dead", "yellow" if lp["lp_dead"] else ""), f", {lp['lp_unused']:,} unused")
    _hot(line, doc["hot"])
    if doc.get("why_not_hot"):
        why_not_hot_lines(line, doc["why_not_hot"])
    _statistics(line, doc.get("statistics"), doc.get("hot_ratio"))
    if brief:
        if doc["findings"]:
            line("findings", f"{len(doc['findings']):,} (pgpage heap --rel {doc['relation'].split('.', 1)[1]}"
                 " lists them)")
        return
    _hints(line, doc["hint_bits"])
    _visibility(line, doc["visibility"], doc["blocks"])
    _freezing(line, doc["freezing"])
    _bloat(line, doc["bloat"], doc["blocks"], doc["block_size"])
    if doc["findings"]:
        out.print()
        render_findings_summary(out, doc["findings"], counts=doc["finding_counts"])
    if map_metric:
        out.print()
        render_map(out, doc["map"], map_metric, doc["block_size"])


def _hot(line, h: dict) -> None:
    line("HOT", f"{h['chains']:,} chains ({h['redirects']:,} redirects), {h['heap_only_tuples']:,} heap-only tuples,"
         f" {h['hot_updated_tuples']:,} HOT-updated")
    if h["hot_update_percent"] is not None:
        n = h["hot_updated_tuples"] + h["non_hot_updated_tuples"]
        line("", (f"{h['hot_update_percent']}% HOT", "bold green" if h["hot_update_percent"] >= 90 else "bold yellow"),
             f" of the {n:,} updated row versions still on disk ({h['non_hot_updated_tuples']:,} not HOT)")
    if h["longest_chain"]:
        lc = h["longest_chain"]
        hist = "  ".join(f"{k}:{v}" for k, v in h["chain_length_histogram"].items())
        line("", Text(f"chain lengths {hist}; longest {lc['length']} at block {lc['block']}"
                      f" item {lc['root_item']}", "dim"))
    if h["unreachable_heap_only_tuples"]:
        line("", Text(f"{h['unreachable_heap_only_tuples']:,} heap-only tuples no chain reaches", "yellow"))


CAUSE_TEXT = {"other_page": "new version on another page", "indexed_column": "indexed column changed",
              "summarizing_column": "only a BRIN column changed (HOT on 16+)",
              "unknown": "cause unknown"}
UNKNOWN_TEXT = {"successor_not_on_disk": "successor not on disk", "values_unreadable": "values unreadable",
                "none_of_the_above": "none of the above"}


def _cause_example(e: dict) -> str:
    head = f"{e['ctid']} -> {e['successor']}: "
    if e["cause"] == "other_page":
        then = e.get("old_page_free_then_below")
        free = (f"< {then:,} B free then, {e['old_page_free_now']:,} B now" if then is not None
                else f"{e['old_page_free_now']:,} B free now")
        return head + f"another page (old page {free}; new {e['new_len']:,} B)"
    if e["cause"] == "unknown":
        return head + UNKNOWN_TEXT[e["reason"]]
    return head + ", ".join(f"{h['index']} ({', '.join(h['columns'])}"
                            + "".join(f", in its {p}" for p in h["in"] if p != "key") + ")" for h in e["indexes"]) \
        + ("; and on another page" if e.get("other_page") else "")


def why_not_hot_lines(line, w: dict) -> None:
    """Why updates were not HOT: counts by cause, by index and column, and a few examples (heap and diff)."""
    if not w["not_hot"]:
        return
    parts = []
    for cause, n in w["causes"].items():
        if n:
            detail = ""
            if cause == "unknown":
                detail = " (" + ", ".join(f"{UNKNOWN_TEXT[r]} {k:,}" for r, k in w["unknown_reasons"].items() if k) + ")"
            moved = (w.get("other_page_too") or {}).get(cause)
            if moved:
                detail = f" ({moved:,} of them also on another page)"
            parts.append(f"{n:,} {CAUSE_TEXT[cause]}{detail}")
    line("not HOT", f"{w['not_hot']:,} updates still on disk: " + "; ".join(parts))
    for name, e in w["by_index"].items():
        cols = ", ".join(f"{c} in {k:,}" for c, k in e["columns"].items())
        line("", f"{name}: changed {cols} updates")
    shown = set()
    for e in w["examples"]:     # one example of each cause (the JSON has more)
        if e["cause"] not in shown:
            shown.add(e["cause"])
            line("", Text("e.g. " + _cause_example(e), "dim"))


def hot_ratio_text(r: dict | None) -> str:
    """'100.0% HOT (96 of 96 updates), exact' or '>= 47.0% ... lower bound from the pages'."""
    if not r or r["ratio"] is None:
        return ""
    if r["exact"]:
        return f"{percent(100 * r['ratio'], 1)}% HOT ({r['hot']:,} of {r['updated']:,} updates), exact: {r['source']}"
    return (f">= {percent(100 * r['ratio'], 1)}% HOT ({r['hot']:,} of the {r['updated']:,} updated versions on disk),"
            " a lower bound from the pages")


def _when(ts: str | None) -> str:
    return "never" if ts is None else ts[:19].replace("T", " ") + " UTC"


def _statistics(line, st: dict | None, ratio: dict | None) -> None:
    """The statistics file's counters for this table (pg_stat_user_tables), and the HOT ratio with what it is."""
    if st is not None and "n_tup_upd" in st:
        style = "" if st["status"] == "current" else "yellow"
        idx = "no index" if st["idx_scan"] is None else f"idx_scan {st['idx_scan']:,}"
        line("stats", (f"{st['source']}, {st['status']}", style), f"  seq_scan {st['seq_scan']:,}, {idx}")
        line("", f"{st['n_tup_ins']:,} inserted, {st['n_tup_upd']:,} updated ({st['n_tup_hot_upd']:,} HOT),"
             f" {st['n_tup_del']:,} deleted; n_live_tup {st['n_live_tup']:,}, n_dead_tup {st['n_dead_tup']:,}")
        for i in st.get("indexes") or []:
            line("", f"index {i['indexrelname']}: idx_scan {i['idx_scan']:,}, idx_tup_read {i['idx_tup_read']:,},"
                 f" idx_tup_fetch {i['idx_tup_fetch']:,}")
        for what in ("vacuum", "analyze"):
            line("", f"last {what} {_when(st['last_' + what])} (x{st[what + '_count']}),"
                 f" auto{what} {_when(st['last_auto' + what])} (x{st['auto' + what + '_count']})")
    elif st is not None:
        line("stats", Text(f"{st['source']}: {st['status']} (a clean shutdown writes it; a start deletes it)", "dim"))
    text = hot_ratio_text(ratio)
    if text:
        line("HOT ratio", (text, "bold" if ratio["exact"] else "yellow"))


def _hints(line, hb: dict) -> None:
    line("hint bits", f"xmin: {hb['xmin_committed']:,} committed, {hb['xmin_invalid']:,} invalid,"
         f" {hb['xmin_frozen']:,} frozen, ", (f"{hb['xmin_unhinted']:,} unhinted", "yellow" if hb["xmin_unhinted"] else ""))
    line("", f"xmax: {hb['xmax_committed']:,} committed, {hb['xmax_invalid']:,} invalid, ",
         (f"{hb['xmax_unhinted']:,} unhinted", "yellow" if hb["xmax_unhinted"] else ""))
    pages = hb["pages_next_read_will_dirty"]
    if pages:
        line("", ("the next read dirties ", "bold yellow"),
             (f"{pages:,} pages ({human_bytes(hb['bytes_next_read_will_dirty'])})", "bold yellow"),
             f" to set {hb['tuples_next_read_will_hint']:,} tuples' hint bits")
    else:
        line("", Text("the next read sets no hint bit", "dim"))


def _visibility(line, v: dict, blocks: int) -> None:
    if v["vm_present"]:
        line("visibility", f"VM: {v['vm_all_visible_pages']:,} of {blocks:,} pages all-visible"
             f" ({_pct(v['vm_all_visible_pages'], blocks)}), {v['vm_all_frozen_pages']:,} all-frozen;"
             f" PD_ALL_VISIBLE on {v['pd_all_visible_pages']:,}")
        could = v["pages_that_could_be_all_visible"]
        if could:
            line("", Text(f"{could:,} more pages hold only tuples visible to all: VACUUM would mark them", "dim"))
    else:
        line("visibility", f"no VM fork; PD_ALL_VISIBLE on {v['pd_all_visible_pages']:,} of {blocks:,} pages")
    bad = v["check_visible_tuples"], v["check_frozen_tuples"]
    if any(bad):
        line("", Text(f"pg_check_visible: {bad[0]:,} tuples, pg_check_frozen: {bad[1] or 0:,} tuples", "bold red"))


def _freezing(line, f: dict) -> None:
    if f["oldest_unfrozen_xid"] is None:
        line("freezing", "every live tuple is frozen")
        return
    at = f["oldest_unfrozen_at"]
    line("freezing", f"{f['unfrozen_tuples']:,} tuples not frozen; oldest xmin {f['oldest_unfrozen_xid']}"
         f" at ({at['block']},{at['item']}), age {f['oldest_unfrozen_age']:,}")
    line("", (f"{f['xids_to_wraparound']:,} xids to wraparound", "green" if f["xids_to_wraparound"] > 10 ** 9
              else "bold red"))


def _bloat(line, b: dict, blocks: int, block_size: int) -> None:
    live = "-" if b["live_percent"] is None else f"{b['live_percent']}%"
    line("bloat", f"live data is {live} of {human_bytes(b['table_len'])}: dead {human_bytes(b['dead_bytes'])},"
         f" free {human_bytes(b['free_bytes'])}, idle line pointers {human_bytes(b['line_pointer_bloat_bytes'])}")
    line("", f"VACUUM frees {human_bytes(b['vacuum_reclaims_bytes'])} in place and truncates"
         f" {b['vacuum_truncates_pages']:,} pages ({human_bytes(b['size_after_vacuum'])} left)")
    line("", f"a rewrite (VACUUM FULL) would take {human_bytes(b['size_after_rewrite'])}:"
         f" {human_bytes(b['rewrite_only_bytes'])} only a rewrite gives back")
    if b["fsm_present"]:
        line("", Text(f"FSM (off by more than a category): {b['fsm_understated_pages']:,} pages have more free"
                      f" space than it says, {b['fsm_overstated_pages']:,} less", "dim"))


def _metric(m: dict, metric: str, block_size: int) -> tuple[list[float], str]:
    """Per-cell values in 0..1 and the legend for one map metric."""
    cells = range(len(m["pages"]))
    usable = [max(p, 1) * (block_size - 24) for p in m["pages"]]   # a page's bytes past its header
    if metric == "dead":
        return [m["dead"][i] / max(m["used"][i], 1) for i in cells], "share of tuple bytes that are dead"
    if metric == "fill":
        return [1 - m["free"][i] / usable[i] for i in cells], "fill: 1 - free space / page"
    if metric == "hints":
        return [m["hint_pages"][i] / max(m["pages"][i], 1) for i in cells], "share of pages the next read dirties"
    return [1 - m["all_visible"][i] / max(m["pages"][i], 1) for i in cells], "share of pages NOT all-visible in the VM"


def render_map(out, m: dict, metric: str, block_size: int) -> None:
    values, legend = _metric(m, metric, block_size)
    per_cell = m["blocks_per_bin"]
    out.print(Text(f"page map ({metric}): one cell = {per_cell:,.1f} blocks; {legend}", "bold"))
    key = Text("  ")
    for i, (ch, style) in enumerate(SHADES):
        key.append(ch, style)
        key.append(f" {'0' if i == 0 else f'<={int(100 * i / (len(SHADES) - 1))}%'}  ")
    out.print(key)
    cells = max(8, min(MAP_WIDTH, out.width - 11))
    for start in range(0, len(values), cells):
        row = Text(f"{int(start * per_cell):>10} ")
        for v in values[start:start + cells]:
            idx = 0 if v <= 0 else min(len(SHADES) - 1, 1 + int(v * (len(SHADES) - 2) + 0.999))
            ch, style = SHADES[idx]
            row.append(ch, style)
        out.print(row)
