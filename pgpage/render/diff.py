"""Text rendering of ``pgpage diff``: what happened, largest effects first, a few lines per relation."""
from __future__ import annotations

from rich.text import Text

from pgpage.render.output import console, percent
from pgpage.render.scan import human_bytes

SHOWN = 10


def change_effect(r: dict) -> tuple[bool, int]:
    """How much a relation changed, to rank the summary (text and HTML) by: rewritten, created or dropped first,
    then pages touched plus size moved (in 8 kB pages)."""
    pages = r.get("pages") or {}
    changed = (pages.get("page_classes") or {}).get("changed", pages.get("changed", 0)) or 0
    size = abs((r.get("after") or {}).get("size_bytes", 0) - (r.get("before") or {}).get("size_bytes", 0))
    return r["status"] in ("rewritten", "created", "dropped"), changed + size // 8192


def _signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def render_diff(doc: dict, show_all: bool = False) -> None:
    out = console()
    b, a = doc["before"], doc["after"]
    out.print(Text.assemble(("before ", "dim"), b["path"]))
    out.print(Text.assemble(("after  ", "dim"), a["path"]))
    if b.get("next_xid") is not None and a.get("next_xid") is not None:
        out.print(Text(f"  {(a['next_xid'] - b['next_xid']) & 0xFFFFFFFF:,} transaction ids consumed"
                       f" (next xid {b['next_xid']} → {a['next_xid']}); checkpoint {b['checkpoint_lsn']} →"
                       f" {a['checkpoint_lsn']}", "dim"))
    if doc.get("wal"):
        _wal_header(out, doc["wal"])
    dbs = doc.get("databases", [])
    several = len(dbs) > 1
    for d in dbs:
        if d["status"] != "in both":
            missing = d["status"].startswith("directory missing")
            out.print(Text.assemble(("database ", "dim"), (str(d["name"]), "bold cyan"), f" (oid {d['oid']})  ",
                                    (d["status"].upper() if missing else d["status"], "bold red" if missing else "bold yellow")))
            if missing:
                out.print(Text(f"  {d['finding']['code']}: {d['finding']['message']}", "red"))
    changed = sorted((r for r in doc["relations"] if r["status"] != "in place" or r.get("changed")),
                     key=change_effect, reverse=True)
    same = len(doc["relations"]) - len(changed)
    if not changed and not doc.get("databases_changed"):
        out.print(Text("no differences", "bold green"))
        return
    for r in changed if show_all else changed[:SHOWN]:
        out.print()
        _relation(out, r, several)
    out.print()
    hidden = 0 if show_all else max(0, len(changed) - SHOWN)
    out.print(Text(f"{len(changed)} relation{'s' if len(changed) != 1 else ''} changed" + (f" ({hidden} more with --all)" if hidden else "")
                   + f", {same} unchanged", "bold"))
    if any(r["status"] == "rewritten" for r in changed):
        out.print(Text("REWRITTEN: same pg_class oid, new relfilenode (VACUUM FULL, CLUSTER, TRUNCATE or REINDEX)",
                       "dim"))


def _relation(out, r: dict, several_databases: bool = False) -> None:
    name = f"{r['database']}: {r['name']}" if several_databases and r.get("database") else r["name"]
    head = Text.assemble((name, "bold cyan"), f" ({r['kind']}{', ' + r['am'] if r.get('am') else ''})  ")
    status = r["status"]
    if status in ("created", "dropped"):
        side = r.get("after") or r.get("before")
        head.append(f"{status}, {human_bytes(side['size_bytes'])}", "bold yellow")
        out.print(head)
        return
    if status == "unreadable":
        head.append("UNREADABLE", "bold red")
        out.print(head)
        out.print(Text(f"  {r['finding']['code']}: {r['finding']['message']}", "red"))
        return
    if status.startswith("file missing"):
        head.append(status.upper(), "bold red")
        bb, ab = r.get("before") or {}, r.get("after") or {}
        if bb.get("relfilenode") is not None and ab.get("relfilenode") not in (None, bb["relfilenode"]):
            head.append(f"  relfilenode {bb['relfilenode']} → {ab['relfilenode']}")
        out.print(head)
        out.print(Text(f"  relation.file_missing: {r['finding']['message']}", "red"))
        return
    bb, ab = r["before"], r["after"]
    if status == "rewritten":
        head.append(f"REWRITTEN: relfilenode {bb['relfilenode']} → {ab['relfilenode']}", "bold yellow")
    else:
        head.append(f"{bb['blocks']:,} → {ab['blocks']:,} pages ({_signed(ab['blocks'] - bb['blocks'])})")
    head.append(f"  {human_bytes(bb['size_bytes'])} → {human_bytes(ab['size_bytes'])}")
    out.print(head)
    forks = [f"{name} {_fork_change(f)}" for name, f in (r.get("forks") or {}).items() if name != "main" and f["changed"]]
    if forks:
        out.print("  forks: " + "; ".join(forks))
    pages = r.get("pages")
    if pages and "page_classes" in pages:
        _heap_pages(out, pages)
        if pages.get("detail"):
            _page_details(out, pages["detail"])
    elif pages:
        out.print(f"  pages: {pages['changed']:,} changed, {pages['added']:,} added, {pages['removed']:,} removed")
    if r.get("statistics"):
        _statistics(out, r["statistics"])
    if r.get("heap") and r["heap"]["delta"]:
        _heap_figures(out, r["heap"])
    if r.get("index") and r["index"]["delta"]:
        _index_figures(out, r["index"])
    if r.get("write_amplification"):
        _write_amplification(out, r["write_amplification"], r.get("indexes", []))
    if r.get("wal_amplification"):
        _wal_amplification(out, r["wal_amplification"], r["wal"])
    elif (r.get("wal") or {}).get("records"):
        _wal_relation(out, r["wal"])
    if r.get("why_not_hot") and r["why_not_hot"]["not_hot"]:
        from pgpage.render.heap import why_not_hot_lines
        why_not_hot_lines(lambda label, *parts: out.print(Text.assemble(f"  {label + ':' if label else '':<10}",
                                                                        *parts), hang=14), r["why_not_hot"])


def _wal_header(out, w: dict) -> None:
    if not w["read"]:
        out.print(Text(f"  WAL not read: {w['why']}", "dim"))
        return
    hint = f" ({human_bytes(w['fpi_for_hint_bytes'])} of them for hint bits: FPI_FOR_HINT)" \
        if w["fpi_for_hint_bytes"] else ""
    out.print(Text(f"  WAL {w['start_lsn']} → {w['end_lsn']}: {w['records']:,} records, {human_bytes(w['bytes'])};"
                   f" full-page images {human_bytes(w['fpi_bytes'])}{hint}", "dim"))
    if not w["complete"]:
        out.print(Text(f"  WAL incomplete: {w['why']}", "yellow"))


def _images(w: dict) -> str:
    if not w["fpi_bytes"]:
        return ""
    hint = f", {human_bytes(w['fpi_for_hint_bytes'])} for hint bits" if w["fpi_for_hint_bytes"] else ""
    return f"; full-page images {human_bytes(w['fpi_bytes'])}{hint}"


def _wal_relation(out, w: dict) -> None:
    types = ", ".join(f"{k} {n:,}" for k, n in sorted(w["record_types"].items(), key=lambda kv: -kv[1])[:3])
    out.print(f"  WAL: {w['records']:,} records, {human_bytes(w['bytes'])} ({types}){_images(w)}")


def _wal_amplification(out, wa: dict, w: dict) -> None:
    """The Uber figure from WAL: bytes per row change, and the index records each one cost."""
    kinds = ", ".join(f"{wa[k]:,} {word}" for k, word in (("insert", "inserts"), ("update", "updates"),
                                                          ("hot_update", "HOT updates"), ("delete", "deletes"))
                      if wa[k])
    line = f"  WAL: {wa['row_changes']:,} row changes" + (f" ({kinds})" if kinds else "") + \
        f": {human_bytes(wa['bytes'])}"
    if wa["bytes_per_row_change"] is not None:
        line += f", {wa['bytes_per_row_change']:,} bytes each"
    parts = [f"table {human_bytes(wa['table_bytes'])}"]
    if wa["toast_bytes"]:
        parts.append(f"TOAST {human_bytes(wa['toast_bytes'])}")
    if wa["index_records"]:
        per = wa["index_records_per_row_change"]
        parts.append(f"indexes {human_bytes(wa['index_bytes'])} in {wa['index_records']:,} records"
                     + (f": {per} per row change" if per is not None else ""))
    out.print(line + " (" + ", ".join(parts) + ")" + _images({**w, "fpi_bytes": wa["fpi_bytes"]}))


def _statistics(out, st: dict) -> None:
    if not st["exact"]:
        out.print(Text(f"  pg_stat: {st['why']}: counts from the pages only", "dim"))
        return
    if not any(st[k] for k in ("n_tup_ins", "n_tup_upd", "n_tup_del")):
        return
    upd = st["n_tup_upd"]
    line = Text("  pg_stat: ")
    if upd:
        share = 100 * st["n_tup_hot_upd"] / upd
        line.append(f"{st['n_tup_hot_upd']:,} of {upd:,} updates HOT ({percent(share, 1)}%)",
                    "bold green" if share >= 90 else "bold yellow")
        line.append(", ")
    line.append(f"{st['n_tup_ins']:,} inserted, {st['n_tup_del']:,} deleted (exact: the server's counters)")
    out.print(line)


def _write_amplification(out, wa: dict, indexes: list[dict]) -> None:
    per = wa["ratios_per"]
    bound = "" if per["exact"] else "≤"  # divided by a lower bound: at most
    if indexes:
        ratio = wa["index_entries_per_row_version"]
        names = ", ".join(f"{i['name'].split('.')[-1]} {_signed(i['entries_added'])}" if i["entries_counted"]
                          else f"{i['name'].split('.')[-1]} not counted"
                          f" ({i['am'] if i['am'] != 'btree' or i['status'] == 'in place' else i['status']})"
                          for i in indexes)
        line = Text.assemble("  index entries: ", names)
        if ratio is not None:
            line.append(f"  → {bound if ratio else ''}{ratio} per row version written",
                        "bold yellow" if ratio >= 1 else "bold green")
        elif not per["row_versions"]:
            line.append("  → no row versions written", "bold green")
        out.print(line)
    idx_pages = sum(i["pages_written"] or 0 for i in indexes)
    out.print(f"  written: table {wa['table_pages_written']:,} pages" + (f", indexes {idx_pages:,}" if indexes else "")
              + f" ({human_bytes(wa['total_bytes_written'])})"
              + ("" if per["row_changes"] else ", no row version written"))
    if per["row_changes"]:
        whose = (f"{per['row_changes']:,} inserts, updates and deletes, pg_stat's count" if per["exact"]
                 else f"≥{per['row_changes']:,} changes counted on the pages; no current pg_stat")
        out.print(f"  per row change: {bound}{wa['total_bytes_per_row_change']:,} bytes ({whose})")


def _fork_change(f: dict) -> str:
    parts = [f"{f[k]:,} page{'s' if f[k] != 1 else ''} {w}" for k, w in (("pages_changed", "changed"), ("pages_added", "added"),
                                                   ("pages_removed", "removed")) if f[k]]
    if f["before_bytes"] != f["after_bytes"]:
        parts.append(f"{f['before_bytes']:,} → {f['after_bytes']:,} bytes")
    return ", ".join(parts)


DETAIL_WORDS = {"changed": "changed", "soft": "only hint bits or PD_ALL_VISIBLE", "hint_bits": "hint bits",
                "all_visible": "PD_ALL_VISIBLE", "freezing": "freezing", "pruned": "pruned",
                "new_tuples": "new tuples", "deletions": "xmax set"}


def _page_details(out, detail: list[dict]) -> None:
    """--details: what changed on each changed page, runs of consecutive pages with the same changes on one line."""
    runs: list[list] = []   # [first, last, changes]
    for page in detail:
        changes = [c for c in page["changes"] if c != "changed"]
        if runs and runs[-1][1] + 1 == page["blkno"] and runs[-1][2] == changes:
            runs[-1][1] = page["blkno"]
        else:
            runs.append([page["blkno"], page["blkno"], changes])
    out.print("  changed pages:")
    for first, last, changes in runs:
        where = f"block {first}" if first == last else f"blocks {first}-{last}"
        out.print(Text(f"    {where:<18} " + (", ".join(DETAIL_WORDS[c] for c in changes) or "other bytes")))


def _heap_pages(out, pages: dict) -> None:
    pc, t, hp = pages["page_classes"], pages["tuples"], pages["hint_prediction"]
    parts = []
    # each change counted as itself (a page may have several), then the pages that changed in nothing else
    for key, label in (("hint_bits", "hint bits"), ("all_visible_set", "PD_ALL_VISIBLE set"),
                       ("all_visible_cleared", "PD_ALL_VISIBLE cleared"), ("freezing", "freezing"),
                       ("pruned", "pruned"), ("new_tuples", "new tuples"), ("deletions", "xmax set"),
                       ("hint_bits_only", "only hint bits"), ("other", "other")):
        if pc.get(key):
            parts.append(f"{pc[key]:,} {label}")
    line = Text(f"  pages: {pc['changed']:,} changed")
    if pages["added"] or pages["removed"]:
        line.append(f", {pages['added']:,} added, {pages['removed']:,} removed")
    if parts:
        line.append(": " + ", ".join(parts))
    out.print(line)
    if hp["hinted_judged"] or hp["predicted"]:  # the prediction is judged on pages nothing else rewrote
        match = "matches" if hp["predicted_not_hinted"] == 0 and hp["hinted_not_predicted"] == 0 else "differs from"
        other = hp["hinted"] - hp["hinted_judged"]
        out.print(Text(f"  hint bits set on {hp['hinted']:,} pages"
                       + (f" ({other:,} changed otherwise too, not judged)" if other else "")
                       + f"; {match} the prediction made on BEFORE"
                       f" ({hp['predicted']:,} pages; {hp['predicted_and_hinted']:,} both)",
                       "green" if match == "matches" else "yellow"))
    pruned_since = t["pruned_roots_written"] + t["pruned_heap_only_written"]
    events = [(t["inserted"], "inserted"), (t["new_versions"], "new row versions"),
              (pruned_since, "written and pruned since"), (t["deleted"], "deleted"),
              (t["locked"], "locked"), (t["frozen"], "frozen"), (t["pruned"], "pruned away")]
    text = ", ".join(f"{n:,} {what}" for n, what in events if n)
    if text:
        out.print(f"  tuples: {text}")
    # lower bounds: a slot pruned and reused between the snapshots shows one version
    hot = max(t["heap_only_versions"] + t["pruned_heap_only_written"], t["hot_updated"] + t["redirects_created"])
    non_hot = max(t["non_hot_updated"], t["new_versions"] - t["heap_only_versions"])
    if hot + non_hot:
        share = 100 * hot / (hot + non_hot)
        out.print(Text.assemble("  updates: ", (f"≥{hot:,} HOT", "bold green" if share >= 90 else "bold yellow"),
                                f" ({t['heap_only_versions']:,} heap-only versions on disk +"
                                f" {t['pruned_heap_only_written']:,} pruned), ≥{non_hot:,} not HOT"))


def _heap_figures(out, heap: dict) -> None:
    b, a = heap["before"], heap["after"]
    pb, pa = b["pgstattuple"], a["pgstattuple"]
    parts = [f"live {pb['tuple_count']:,} → {pa['tuple_count']:,}", f"dead {pb['dead_tuple_count']:,} → {pa['dead_tuple_count']:,}",
             f"free {pb['free_percent']}% → {pa['free_percent']}%"]
    if a["vm_all_visible_pages"] is not None or b["vm_all_visible_pages"] is not None:
        parts.append(f"all-visible {b['vm_all_visible_pages'] or 0:,} → {a['vm_all_visible_pages'] or 0:,} pages")
    out.print("  heap: " + ", ".join(parts))


def _index_figures(out, index: dict) -> None:
    b, a = index["before"], index["after"]
    entries = f"entries {b['entries']:,} → {a['entries']:,} ({_signed(a['entries'] - b['entries'])})" \
        if b.get("entries") is not None and a.get("entries") is not None else ""
    posting = f"posting lists {b['posting_tuples']:,} → {a['posting_tuples']:,}" if a.get("posting_tuples") or b.get(
        "posting_tuples") else ""
    dead = f"dead items {b['dead_items']:,} → {a['dead_items']:,}" if a["dead_items"] != b["dead_items"] else ""
    size = f"{b['pgstatindex']['leaf_pages']} → {a['pgstatindex']['leaf_pages']} leaf pages"
    out.print("  index: " + ", ".join(x for x in (entries, size, posting, dead) if x))
