"""Text rendering of ``pgpage index``: pgstatindex's figures first, then deduplication, dead items,
pages of note, pivots, levels, the table check, the root's keys, findings; maps on request."""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from pgpage.render.output import console
from pgpage.render.page import finding_text, render_page
from pgpage.render.scan import human_bytes

MAP_COLUMNS = 64          # cells per map row (plus an 8-column block label: 73 columns)
MAP_MAX_ROWS = 32         # beyond MAP_COLUMNS * MAP_MAX_ROWS blocks, each cell stands for several
SHADES = "▁▂▃▄▅▆▇█"
KIND_CELL = {"meta": ("M", "dim"), "internal": ("i", "cyan"), "half_dead": ("h", "magenta"),
             "deleted": ("d", "magenta"), "new": ("0", "yellow"), "not_btree": ("?", "bold red")}
PGSTATINDEX_ORDER = ("version", "tree_level", "index_size", "root_block_no", "internal_pages", "leaf_pages",
                     "empty_pages", "deleted_pages", "avg_leaf_density", "leaf_fragmentation")


def _n(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def render_index(doc: dict) -> None:
    out = console()
    if doc.get("am") is not None:   # another access method: render/amindex.py
        from pgpage.render.amindex import render_am_index
        render_am_index(out, doc)
        return
    _head(out, doc)
    _pgstatindex(out, doc)
    _dedup(out, doc)
    _dead(out, doc)
    _pages(out, doc)
    _pivots(out, doc)
    _levels(out, doc)
    _heap(out, doc)
    _root(out, doc)
    if doc.get("map"):
        _maps(out, doc)
    if doc.get("block"):
        out.print()
        render_page(out, doc["block"])
        _block_keys(out, doc["block"])
    _findings(out, doc)


def _head(out, doc: dict) -> None:
    t = Text.assemble(("index ", "bold"), (doc["relation"] or doc["file"], "bold cyan"))
    if doc.get("table"):
        t.append(f"  on {doc['table']}")
    t.append(f"  {_plural(doc['end_block'], 'block')}, {human_bytes(doc['end_block'] * doc['block_size'])}"
             f"  PostgreSQL {doc['major'] or '?'}", "dim")
    out.print(t)
    ix = doc.get("index")
    if ix:
        cols = ", ".join(f"{a['attname']} {a['type'] or a['atttypid']}" for a in ix["attributes"]) or "?"
        kind = "unique " if ix["indisunique"] else ""
        kind = "primary key " if ix["indisprimary"] else kind
        inc = ""
        if ix["indnkeyatts"] is not None and ix["indnatts"] is not None and ix["indnkeyatts"] < ix["indnatts"]:
            inc = f" ({ix['indnatts'] - ix['indnkeyatts']} INCLUDE)"
        opts = f"  WITH ({', '.join(ix['reloptions'])})" if ix["reloptions"] else ""
        out.print(Text(f"  {kind}btree ({cols}){inc}{opts}", "dim"))


def _pgstatindex(out, doc: dict) -> None:
    s = doc["pgstatindex"]
    def fmt(k):
        if k in ("avg_leaf_density", "leaf_fragmentation"):
            return "NaN" if s[k] is None else f"{s[k]:.2f}"  # as pgstatindex prints them
        return "-" if s[k] is None else str(s[k])
    cells = [f"{k} {fmt(k)}" for k in PGSTATINDEX_ORDER]
    out.print(Text("pgstatindex", "bold"))
    for i in range(0, len(cells), 4):
        out.print("  " + "  ".join(cells[i:i + 4]))


def _dedup(out, doc: dict) -> None:
    d = doc["deduplication"]
    out.print(Text("deduplication", "bold"))
    if not d["supported"]:
        out.print(Text(f"  not in PostgreSQL {doc['major']} (posting lists exist from 13)", "dim"))
        out.print(f"  {_n(d['tids'])} heap TIDs, one per tuple")
        return
    opt = {True: "on", False: "off", None: "unknown (no catalog)"}[d["deduplicate_items"]]
    if d["deduplicate_items_source"] == "default":
        opt += " (default)"
    can = {True: Text("can deduplicate", "green"), False: Text("cannot deduplicate", "yellow"),
           None: Text("unknown", "dim")}[d["can_deduplicate"]]
    line = Text(f"  allequalimage {_n(d['allequalimage'])}  deduplicate_items {opt}  ")
    line.append(can)
    out.print(line)
    if d["unique_index"] and d["posting_tuples"]:
        out.print(Text("  a unique index: its posting lists hold versions of one key (version churn)", "dim"))
    tids = d["tids"]
    if tids:
        out.print(f"  {tids:,} heap TIDs: {d['posting_tids']:,} ({d['posting_tid_share']}%) in"
                  f" {d['posting_tuples']:,} posting lists, {d['plain_tuples']:,} in plain tuples")
    per = d["tids_per_posting_list"]
    if per:
        out.print(f"  TIDs per posting list: min {per['min']}  median {per['median']}  mean {per['mean']}"
                  f"  max {per['max']}")
        top = max((h["count"] for h in per["histogram"]), default=1)
        for h in per["histogram"]:
            bar = "█" * max(1, round(40 * h["count"] / top))
            out.print(Text.assemble(f"    {h['from']:>5}-{h['to']:<5} ", (bar, "green"), f" {h['count']:,}"))
        out.print(f"  {d['bytes_saved']:,} bytes saved: posting lists take {d['posting_tuple_bytes']:,} bytes"
                  f" (line pointers included),")
        out.print(f"  the same TIDs as plain tuples would take {d['bytes_without_posting_lists']:,}")
    if d["estimated_index_size_without"] is not None:
        now = doc["pgstatindex"]
        out.print(f"  without deduplication: ~{_plural(d['estimated_leaf_pages_without'], 'leaf page')},"
                  f" ~{human_bytes(d['estimated_index_size_without'])} (now {_plural(now['leaf_pages'], 'leaf page')},"
                  f" {human_bytes(now['index_size'])})")
        out.print(Text("  (estimated at the current average leaf density)", "dim"))


def _dead(out, doc: dict) -> None:
    d = doc["dead_items"]
    t = Text.assemble(("dead items", "bold"), "  ")
    if not d["dead_items"]:
        t.append("none (no LP_DEAD leaf item)", "dim")
    else:
        t.append(f"{d['dead_items']:,} LP_DEAD", "red")
        t.append(f" on {_plural(d['pages_with_dead_items'], 'leaf page')}, covering {d['dead_tids']:,} heap TIDs")
        if d["dead_posting_tuples"]:
            t.append(f" ({d['dead_posting_tuples']:,} posting lists, whose one LP_DEAD bit covers all their TIDs)")
    out.print(t)


def _pages(out, doc: dict) -> None:
    p = doc["pages"]
    parts = []
    if p["half_dead_count"]:
        parts.append(f"half-dead {p['half_dead_count']} ({', '.join(str(x['blkno']) for x in p['half_dead'][:8])})")
    if p["deleted_count"]:
        dl = []
        for x in p["deleted"][:6]:
            r = {True: " reusable", False: " not yet reusable", None: ""}[x["reusable"]]
            dl.append(f"{x['blkno']} safexid {x['safexid']}{r}")
        more = f", {p['deleted_count'] - 6} more" if p["deleted_count"] > 6 else ""
        parts.append(f"deleted {p['deleted_count']}: {'; '.join(dl)}{more}")
    for key, label in (("incomplete_split", "incomplete splits"), ("split_end", "split ends"),
                       ("has_garbage", "BTP_HAS_GARBAGE"), ("new", "all-zero")):
        if p[f"{key}_count"]:
            parts.append(f"{label} {p[f'{key}_count']} ({', '.join(map(str, p[key][:8]))})")
    t = Text.assemble(("pages", "bold"), "  ")
    t.append("; ".join(parts) if parts else "no half-dead, deleted, incompletely split or all-zero page",
             "" if parts else "dim")
    out.print(t)


def _pivots(out, doc: dict) -> None:
    v = doc["pivots"]
    natts = ", ".join(f"{k} attr: {c}" for k, c in v["pivot_natts"].items())
    line = (f"  high keys {v['high_keys']:,} ({v['high_key_bytes']:,} bytes)  pivot tuples {v['pivot_tuples']:,}"
            f" (avg {_n(v['avg_pivot_tuple'])} bytes; {v['pivots_with_heap_tid']:,} keep a heap TID"
            + (f"; {natts}" if natts else "") + ")")
    out.print(Text("pivots", "bold"))
    out.print(line)
    trunc = v["truncated_pivots"]
    out.print(f"  suffix truncation: {_n(trunc)} pivots lost key columns;"
              f" ~{v['suffix_truncation_saved_bytes_estimate']:,} bytes saved against untruncated keys")
    out.print(Text(f"  (estimated: leaf key tuples average {_n(v['avg_leaf_key_tuple'])} bytes)", "dim"))


def _levels(out, doc: dict) -> None:
    rows = doc["levels"]
    if not rows:
        return
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1))
    for col in ("level", "pages", "items", "dead", "posting", "TIDs", "high keys", "pivots", "downlinks", "density %"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in reversed(rows):
        table.add_row(str(r["level"]), _n(r["pages"]), _n(r["items"]),
                      Text(_n(r["dead_items"]), "red" if r["dead_items"] else ""), _n(r["posting_tuples"]),
                      _n(r["tids"]), _n(r["high_keys"]), _n(r["pivots"]), _n(r["downlinks"]),
                      _n(r["avg_leaf_density"]))
    out.print(Text("levels", "bold"))
    out.print(table)


def _heap(out, doc: dict) -> None:
    h = doc.get("heap_check")
    t = Text.assemble(("table check", "bold"), "  ")
    why = next((f for f in doc.get("findings", ()) if f["code"].startswith("btree.heap.table_")), None)
    if h is None:
        t.append(f"not done ({why['message']})" if why is not None  # a table missing or unreadable
                 else "not done (the table's file is only known with a data directory, --db and --rel)", "dim")
        out.print(t)
        return
    t.append(f"{h['tids_checked']:,} heap TIDs against {h['table']} ({_plural(h['heap_blocks'], 'block')}): ")
    first = True
    for key, style in (("normal", "green"), ("redirect", "yellow"), ("dead", "yellow"), ("unused", "bold red"),
                       ("heap_only", "bold red"), ("beyond_page", "bold red"), ("beyond_end", "bold red"),
                       ("bad_page", "red")):
        if h[key] or key == "normal":
            t.append(("" if first else ", ") + f"{key.replace('_', ' ')} {h[key]:,}", style if h[key] else "dim")
            first = False
    out.print(t)
    fd = h.get("from_dead_items") or {}
    if fd:
        out.print(Text("  of the TIDs behind LP_DEAD index items: "
                       + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in fd.items()), "dim"))
    if h["dead"] or h["redirect"]:
        out.print(Text("  LP_DEAD: pruned, awaiting VACUUM; LP_REDIRECT: the root of a pruned HOT chain (both normal)",
                       "dim"))


def _keys_text(keys) -> str:
    if not keys:
        return ""
    parts = []
    for k in keys:
        if k.get("truncated"):
            parts.append("-inf")
        elif k.get("null"):
            parts.append("NULL")
        elif k.get("value") is None:     # bytes that do not decode (the JSON says why: "error")
            parts.append("?")
        else:
            v = k["value"]
            parts.append(v if len(v) <= 40 else v[:37] + "...")
    return ", ".join(parts)


def _root(out, doc: dict) -> None:
    r = doc.get("root_items")
    if not r or r.get("level") in (None, 0):
        return
    out.print(Text.assemble(("root", "bold"), f"  block {r['blkno']}, level {r['level']}, {r['nitems']} items"
                            + (f" (first {len(r['items'])})" if len(r["items"]) < r["nitems"] else "")))
    _items_table(out, r["items"])


def _items_table(out, items) -> None:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold dim", padding=(0, 1))
    for col in ("item", "kind", "→", "len", "keys", "key data"):
        table.add_column(col, justify="right" if col in ("item", "len") else "left", no_wrap=True,
                         overflow="ellipsis", max_width={"keys": 40, "key data": 30}.get(col))
    for it in items:
        if it.get("itemlen") is None:
            table.add_row(str(it["itemoffset"]), Text("bad", "red"), "", "", "", "")
            continue
        if it.get("high_key"):
            kind = Text("high key", "cyan")
        elif it.get("tids") is not None:
            kind = Text(f"posting {len(it['tids'])}", "green")
        elif "downlink" in it and it.get("downlink") is not None:
            kind = Text("pivot", "cyan")
        else:
            kind = Text("tuple")
        if it.get("dead"):
            kind = Text("DEAD ", "bold red") + kind
        target = str(it["downlink"]) if it.get("downlink") is not None else (it.get("htid") or "")
        table.add_row(str(it["itemoffset"]), kind, target, str(it["itemlen"]), _keys_text(it.get("keys")),
                      it.get("data") or "")
    out.print(table)


def _block_keys(out, page: dict) -> None:
    items = page.get("bt_page_items") or []
    if any(it.get("keys") for it in items):
        out.print(Text("  keys decoded from the catalog's column types, beside the raw key data:", "dim"))
        _items_table(out, items)


# ------------------------------------------------------------------------- maps
def _maps(out, doc: dict) -> None:
    m = doc["map"]
    first = doc["first_block"]
    kinds = m["kind"][first:]
    n = len(kinds)
    per = max(1, -(-n // (MAP_COLUMNS * MAP_MAX_ROWS)))  # blocks per cell
    out.print()
    out.print(Text.assemble(("leaf page maps", "bold"), f"  one cell per {per} block{'s' if per > 1 else ''},"
                            f" {MAP_COLUMNS} cells per row, block number at the left"))
    specs = (
        ("density", "leaf fill (pgstatindex's measure)", "density", "blue", False),
        ("dead items", "share of a leaf page's items that are LP_DEAD", "dead_share", "red", True),
        ("posting share", "share of a leaf page's heap TIDs held in posting lists", "posting_share", "green", True),
    )
    for title, what, key, style, blank_zero in specs:
        out.print()
        out.print(Text.assemble((title, "bold"), f": {what}", ("  ▁ <12.5% ... █ ≥87.5%"
                                + ("; · none" if blank_zero else ""), "dim")))
        values = m[key][first:]
        for row_start in range(0, n, MAP_COLUMNS * per):
            line = Text(f"{first + row_start:>8} ")
            for c in range(row_start, min(n, row_start + MAP_COLUMNS * per), per):
                line.append(*_cell(kinds[c:c + per], values[c:c + per], style, blank_zero))
            out.print(line)
    out.print(Text("  M metapage  i internal  h half-dead  d deleted  0 all-zero  ? not a B-tree page", "dim"))
    if per > 1:
        out.print(Text("  a cell of several blocks shows its leaf pages' average, else its first page's kind", "dim"))


def _cell(kinds, values, style: str, blank_zero: bool) -> tuple[str, str]:
    leaf = [v for k, v in zip(kinds, values) if k == "leaf"]
    if not leaf:
        return KIND_CELL.get(kinds[0], ("?", "red"))
    v = sum(leaf) / len(leaf)
    if blank_zero and v == 0:
        return "·", "dim"
    return SHADES[min(len(SHADES) - 1, int(v / 100 * len(SHADES)))], style


def _findings(out, doc: dict) -> None:
    fs = doc["findings"]
    out.print()
    if not fs:
        out.print(Text("structure: no findings (sibling links, levels, downlinks, posting lists"
                       + (", heap TIDs" if doc.get("heap_check") else "") + " checked)", "green"))
        return
    errors = sum(1 for f in fs if f.get("severity", "error") == "error")
    out.print(Text(f"findings: {errors} errors, {len(fs) - errors} warnings/notes", "bold red" if errors else "yellow"))
    for f in fs:
        out.print(Text("  ") + finding_text(f))
