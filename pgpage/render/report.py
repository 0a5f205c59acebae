"""``pgpage report``: the JSON documents of the other commands as one self-contained HTML file.

Input is what the commands print with ``--json`` (``pgpage.scan/1`` with ``--deep``, ``pgpage.heap/1``,
``pgpage.index/1``, ``pgpage.diff/1``, ``pgpage verify --json``'s records), so a report made from a data
directory and one made later from saved outputs are the same page. Jinja2 lays the page out and
Plotly draws the charts, its JavaScript inlined: the file makes no network request and opens from a
file:// URL. Every figure taken from a document carries it as ``data-src`` (which document),
``data-path`` (where in it) and ``data-v`` (the value as JSON), so a test can hold the page against
the documents. Needs the ``report`` extra (Jinja2, Plotly).
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from markupsafe import Markup

from pgpage.render.diff import change_effect
from pgpage.render.output import percent
from pgpage.render.scan import human_bytes

MAP_COLUMNS = 40          # heat map cells per row; a heap's map has at most 800 bins (20 rows)
TABLE_ROWS_SHOWN = 500    # relations rendered at first (the rest on request: 20 000 rows stay quick)
DIFF_ROWS = 200           # changed relations listed, the largest effects first (the rest: pgpage diff --all)
FINDINGS_LISTED = 20      # findings of one code listed with their blocks; the rest are counted
CATALOG_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
PLOT_CONFIG = {"displayModeBar": False, "responsive": True}  # drag zooms, a double click resets


class ReportInputs:
    """The documents one report shows. ``scan`` is required; the others are optional."""

    def __init__(self, scan: dict, heaps=(), indexes=(), diff: dict | None = None, verify=None):
        self.scan = scan
        self.heaps = list(heaps)
        self.indexes = list(indexes)
        self.diff = diff
        self.verify = list(verify) if verify is not None else None

    @classmethod
    def from_directory(cls, path) -> "ReportInputs":
        """Saved ``--json`` outputs in a directory, told apart by their ``schema`` (any file names)."""
        from pgpage.findings import ExitCode, PgpageError
        scan, diff, heaps, indexes, verify = None, None, [], [], None
        for f in sorted(Path(path).iterdir()):
            if not f.is_file():
                continue
            text = f.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("{"):
                continue
            try:
                docs = [json.loads(text)]
            except json.JSONDecodeError:  # newline-delimited records (verify --json)
                try:
                    docs = [json.loads(line) for line in text.splitlines() if line.strip()]
                except json.JSONDecodeError:
                    raise PgpageError(f"{f}: not JSON", ExitCode.UNREADABLE) from None
            schema = str(docs[0].get("schema", ""))
            if schema.startswith("pgpage.scan/"):
                scan = docs[0]
            elif schema.startswith("pgpage.heap/"):
                heaps.append(docs[0])
            elif schema.startswith("pgpage.index/"):
                indexes.append(docs[0])
            elif schema.startswith("pgpage.diff/"):
                diff = docs[0]
            elif schema.startswith("pgpage.verify/"):
                verify = (verify or []) + docs
        if scan is None:
            raise PgpageError(f"{path}: no pgpage.scan document (save `pgpage scan PGDATA --deep --json` there)",
                              ExitCode.USAGE)
        return cls(scan, heaps, indexes, diff, verify)


# ----------------------------------------------------------------------------------- figures in the DOM
def fig(src: str, doc: dict | None, path: str, fmt: str = "int") -> Markup:
    """One figure of a document: its formatted text, with where it came from for the tests."""
    value = lookup(doc, path)
    return Markup('<span class="fig" data-src="{}" data-path="{}" data-v="{}">{}</span>').format(
        src, path, json.dumps(value), fmt_value(value, fmt))


def lookup(doc, path: str):
    for part in path.split("."):
        if doc is None:
            return None
        doc = doc[int(part)] if isinstance(doc, list) else doc.get(part)
    return doc


def fmt_value(v, fmt: str = "int") -> str:
    if v is None:
        return "–"
    if fmt == "bytes":
        return human_bytes(v)
    if fmt == "pct":
        return f"{percent(v, 1)}%" if isinstance(v, (int, float)) else str(v)
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.2f}"
    return str(v)


# ----------------------------------------------------------------------------------- the relations table
SHARED = "(shared)"  # the database column of a shared catalog (global/), listed once whatever the databases


def relation_rows(scan: dict) -> list[list]:
    """One compact row per relation: [db, name, kind, am, size, blocks, live, dead, dead%, free%, HOT%, vis%,
    findings, worst severity]. Kept as a JSON array in the page; the table is drawn from it. Every database
    lists the shared catalogs: each is one row, its database SHARED."""
    rows, shared = [], set()
    for d in scan["databases"]:
        for r in d["relations"]:
            if r.get("relisshared"):
                if r["oid"] in shared:
                    continue
                shared.add(r["oid"])
            h = r.get("health") or {}
            heap = r.get("heap") or {}
            pst = heap.get("pgstattuple") or {}
            sev = {f.get("severity") for f in r.get("findings", [])}
            worst = "error" if "error" in sev else "warning" if "warning" in sev else "info" if sev else ""
            rows.append([SHARED if r.get("relisshared") else d["name"], r["name"], r.get("kind"), r.get("am"),
                         r.get("size_bytes"), r.get("blocks"),
                         h.get("live_tuples"), h.get("dead_tuples"), pst.get("dead_tuple_percent"),
                         h.get("free_percent"), (heap.get("hot") or {}).get("hot_update_percent"),
                         h.get("all_visible_percent"), len(r.get("findings", [])), worst])
    return rows


RELATION_COLUMNS = [  # (title, row index, kind of value, path in the scan document's relation entry)
    ("database", 0, "text", None), ("relation", 1, "text", "name"), ("kind", 2, "text", "kind"),
    ("am", 3, "text", "am"), ("size", 4, "bytes", "size_bytes"), ("blocks", 5, "int", "blocks"),
    ("live", 6, "int", "health.live_tuples"), ("dead", 7, "int", "health.dead_tuples"),
    ("dead %", 8, "pct", "heap.pgstattuple.dead_tuple_percent"), ("free %", 9, "pct", "health.free_percent"),
    ("HOT %", 10, "pct", "heap.hot.hot_update_percent"), ("all-visible %", 11, "pct", "health.all_visible_percent"),
    ("findings", 12, "int", None),
]


# ----------------------------------------------------------------------------------- charts (Plotly)
def _figure_json(fig) -> str:
    return fig.to_json(validate=False, engine="json").replace("</", "<\\/")


def heat_maps(doc: dict) -> list[dict]:
    """The heap's page map (``pgpage heap``'s bins) as four heat maps: dead tuples, fill, hint bits, VM bits."""
    import plotly.graph_objects as go
    m = doc.get("map")
    if not m or not m.get("pages"):
        return []
    n = len(m["pages"])
    per = m["blocks_per_bin"]
    usable = doc["block_size"] - 24
    cols = min(n, MAP_COLUMNS)
    nrows = math.ceil(n / cols)
    first = [int(i * per) for i in range(n)]
    last = [max(first[i], int((i + 1) * per) - 1) for i in range(n)]

    def share(num, den):
        return [None if den[i] <= 0 else float(percent(100 * num[i] / den[i], 1)) for i in range(n)]

    pages = m["pages"]
    cap = [p * usable for p in pages]
    metrics = [
        ("dead", "dead tuples: share of tuple bytes that are dead", share(m["dead"], m["used"]), "Reds"),
        ("fill", "fill: share of the page's space in use", [None if c <= 0 else float(percent(100 - 100 * f / c, 1))
                                                            for f, c in zip(m["free"], cap)], "Blues"),
        ("hints", "hint bits: share of pages the next read dirties", share(m["hint_pages"], pages), "Oranges"),
    ]
    vm = doc.get("visibility", {}).get("vm_present")
    if vm:
        metrics.append(("vm", "VM: share of pages all-visible", share(m["all_visible"], pages), "Greens"))
    custom = [[first[i], last[i], pages[i], m["used"][i], m["dead"][i], m["free"][i], m["hint_pages"][i],
               m["all_visible"][i], m["all_frozen"][i]] for i in range(n)]
    out = []
    for key, title, z, scale in metrics:
        grid = lambda vals: [vals[r * cols:(r + 1) * cols] + [None] * max(0, (r + 1) * cols - n) for r in range(nrows)]
        hover = ("blocks %{customdata[0]}–%{customdata[1]} (%{customdata[2]} pages)<br>" + title.split(":")[0]
                 + ": %{z}%<br>tuple bytes %{customdata[3]:,} (dead %{customdata[4]:,})<br>free bytes"
                 " %{customdata[5]:,}<br>pages the next read dirties %{customdata[6]}<br>all-visible"
                 " %{customdata[7]}, all-frozen %{customdata[8]}<extra></extra>")
        f = go.Figure(go.Heatmap(
            z=grid(z), customdata=grid(custom), x=[round(c * per, 1) for c in range(cols)],
            y=[first[r * cols] for r in range(nrows)], zmin=0, zmax=100, colorscale=scale, xgap=1, ygap=1,
            hovertemplate=hover, colorbar={"thickness": 10, "ticksuffix": "%", "len": 1}))
        f.update_layout(title={"text": title, "font": {"size": 13}}, height=90 + 18 * nrows, margin=dict(l=60, r=10,
                        t=30, b=20), yaxis={"autorange": "reversed", "title": None, "type": "category"
                                             if nrows <= 3 else "linear"},
                        xaxis={"title": None, "showticklabels": cols > 1, "tickformat": ",d",
                               **({"tickvals": [round(c * per, 1) for c in range(cols)]} if cols <= 12 else {})},
                        plot_bgcolor="#f4f4f4",
                        paper_bgcolor="white", font={"family": "system-ui, sans-serif", "size": 11})
        out.append({"key": key, "json": _figure_json(f)})
    return out


def chain_chart(doc: dict) -> str | None:
    import plotly.graph_objects as go
    hist = (doc.get("hot") or {}).get("chain_length_histogram") or {}
    if not hist:
        return None
    keys = sorted(hist, key=lambda k: int(str(k).rstrip("+")))
    f = go.Figure(go.Bar(x=[str(k) for k in keys], y=[hist[k] for k in keys], marker_color="#2a7ab0",
                         hovertemplate="length %{x}: %{y:,} chains<extra></extra>"))
    f.update_layout(title={"text": "HOT chain lengths", "font": {"size": 13}}, height=220,
                    margin=dict(l=50, r=10, t=30, b=30), xaxis={"title": "versions in the chain", "type": "category"},
                    yaxis={"title": "chains"}, paper_bgcolor="white", font={"family": "system-ui, sans-serif",
                                                                             "size": 11})
    return _figure_json(f)


def space_chart(doc: dict) -> str:
    """The file now, after VACUUM, after a rewrite: what each gives back."""
    import plotly.graph_objects as go
    b = doc["bloat"]
    names = ["now", "after VACUUM", "after a rewrite"]
    sizes = [b["table_len"], b["size_after_vacuum"], b["size_after_rewrite"]]
    f = go.Figure(go.Bar(y=names, x=sizes, orientation="h", marker_color=["#6c757d", "#2a7ab0", "#2f9e44"],
                         text=[human_bytes(s) for s in sizes], textposition="auto",
                         hovertemplate="%{y}: %{x:,} bytes<extra></extra>"))
    f.update_layout(title={"text": "file size", "font": {"size": 13}}, height=170, margin=dict(l=110, r=10, t=30,
                    b=25), yaxis={"autorange": "reversed"}, paper_bgcolor="white",
                    font={"family": "system-ui, sans-serif", "size": 11})
    return _figure_json(f)


def index_chart(doc: dict) -> str | None:
    import plotly.graph_objects as go
    d = doc.get("deduplication") or {}
    size = (doc.get("pgstatindex") or {}).get("index_size")
    without = d.get("estimated_index_size_without")
    if size is None or without is None:
        return None
    f = go.Figure(go.Bar(y=["now", "without deduplication"], x=[size, without], orientation="h",
                         marker_color=["#2a7ab0", "#adb5bd"], text=[human_bytes(size), human_bytes(without)],
                         textposition="auto", hovertemplate="%{y}: %{x:,} bytes<extra></extra>"))
    f.update_layout(title={"text": "index size", "font": {"size": 13}}, height=150,
                    margin=dict(l=150, r=10, t=30, b=25), yaxis={"autorange": "reversed"}, paper_bgcolor="white",
                    font={"family": "system-ui, sans-serif", "size": 11})
    return _figure_json(f)


PAGE_CLASSES = [("hint_bits_only", "only hint bits"), ("all_visible_only", "only PD_ALL_VISIBLE"),
                ("hint_bits_and_all_visible", "hint bits + PD_ALL_VISIBLE"), ("freezing", "freezing"),
                ("pruned", "pruned"), ("new_tuples", "new tuples"), ("deletions", "xmax set"), ("other", "other")]
CLASS_COLOURS = {"hint_bits_only": "#f08c00", "all_visible_only": "#2f9e44", "hint_bits_and_all_visible": "#94d82d",
                 "freezing": "#1c7ed6", "pruned": "#845ef7", "new_tuples": "#4dabf7", "deletions": "#e03131",
                 "other": "#868e96"}


def diff_chart(changed: list[dict]) -> str | None:
    """Pages changed per relation, by cause."""
    import plotly.graph_objects as go
    heaps = [r for r in changed if "page_classes" in (r.get("pages") or {})][:20]
    if not heaps:
        return None
    f = go.Figure()
    for key, label in PAGE_CLASSES:
        vals = [r["pages"]["page_classes"][key] for r in heaps]
        if any(vals):
            f.add_trace(go.Bar(name=label, y=[r["name"] for r in heaps], x=vals, orientation="h",
                               marker_color=CLASS_COLOURS[key],
                               hovertemplate="%{y}: %{x:,} pages " + label + "<extra></extra>"))
    # causes are not exclusive (one page can gain new tuples and have xmax set): bars side by side, not stacked
    f.update_layout(barmode="group", title={"text": "heap pages changed, by cause (a page can have several)",
                                            "font": {"size": 13}},
                    height=110 + len(heaps) * (10 + 9 * len(f.data)), margin=dict(l=170, r=10, t=30, b=25),
                    yaxis={"autorange": "reversed"}, legend={"orientation": "h", "y": -0.15},
                    paper_bgcolor="white", font={"family": "system-ui, sans-serif", "size": 11})
    return _figure_json(f)


# ----------------------------------------------------------------------------------- findings
def findings_by_code(inputs: ReportInputs) -> list[dict]:
    """Every finding of every document, grouped by code, errors first, with the blocks they name."""
    groups: dict[str, list[dict]] = defaultdict(list)
    seen = set()

    def add(f: dict, where: str | None = None):
        # the same finding from two documents: `heap` names its relation database.schema.name, `scan` schema.name
        rel = ".".join(str(f.get("relation") or where or "").split(".")[-2:])
        same = {k: v for k, v in f.items() if k not in ("fails", "database")}  # verify's records add these
        key = json.dumps({**same, "relation": rel}, sort_keys=True, default=str)
        if key in seen:
            return
        seen.add(key)
        groups[f.get("code", "?")].append({**f, "relation": f.get("relation") or where})

    scan = inputs.scan
    for f in scan.get("findings", []):
        add(f)
    for d in scan["databases"]:
        for f in d.get("findings", []):
            add(f)
        for r in d["relations"]:
            for f in r.get("findings", []):
                add(f, r["name"])
    for doc in inputs.heaps + inputs.indexes:
        for f in doc.get("findings", []):
            add(f, doc.get("relation"))
    for rec in inputs.verify or []:
        if rec.get("type") == "finding":
            add({k: v for k, v in rec.items() if k not in ("type", "schema")})
    rank = {"error": 0, "warning": 1, "info": 2}
    out = []
    for code, fs in groups.items():
        worst = min((rank.get(f.get("severity"), 3) for f in fs), default=3)
        out.append({"code": code, "count": len(fs), "severity": {0: "error", 1: "warning", 2: "info"}.get(worst, "?"),
                    "items": fs[:FINDINGS_LISTED], "relations": len({f.get("relation") for f in fs})})
    out.sort(key=lambda g: (rank.get(g["severity"], 3), -g["count"], g["code"]))
    return out


# ----------------------------------------------------------------------------------- the page
def diff_view(diff: dict) -> dict:
    rels = diff["relations"]
    changed = [r for r in rels if r["status"] != "in place" or r.get("changed")]

    order = sorted(range(len(rels)), key=lambda i: change_effect(rels[i]), reverse=True)
    shown = [(i, rels[i]) for i in order if rels[i]["status"] != "in place" or rels[i].get("changed")]
    b, a = diff["before"], diff["after"]
    xids = (a["next_xid"] - b["next_xid"]) & 0xFFFFFFFF if None not in (a.get("next_xid"), b.get("next_xid")) else None
    return {"doc": diff, "changed": shown[:DIFF_ROWS], "more": max(0, len(shown) - DIFF_ROWS),
            "unchanged": len(rels) - len(changed), "xids": xids, "chart": diff_chart([r for _, r in shown])}


def render_report(inputs: ReportInputs, title: str | None = None) -> str:
    import jinja2
    from plotly.offline import get_plotlyjs

    env = jinja2.Environment(loader=jinja2.PackageLoader("pgpage.render", "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["n"] = fmt_value
    env.filters["bytes"] = human_bytes
    env.globals["fig"] = fig
    scan = inputs.scan
    cluster = scan["cluster"]
    heaps = [{"doc": h, "src": f"heap:{h['relation']}", "maps": heat_maps(h), "chains": chain_chart(h),
              "space": space_chart(h)} for h in inputs.heaps]
    indexes = [{"doc": x, "src": f"index:{x.get('file') or x.get('relation')}", "chart": index_chart(x)}
               for x in inputs.indexes]
    rows = relation_rows(scan)
    # the table's names link to their details (heap and index documents name them database.schema.name)
    links = {h["doc"]["relation"]: f"heap-{i}" for i, h in enumerate(heaps, 1)}
    links.update({x["doc"].get("file") or "": f"index-{i}" for i, x in enumerate(indexes, 1)})
    nrel = len(rows)
    total = sum(r[4] or 0 for r in rows)
    template = env.get_template("report.html.j2")
    html = template.render(
        title=title or f"pgpage report: {cluster.get('path')}", cluster=cluster, scan=scan,
        databases=scan["databases"], nrel=nrel, total_bytes=total, heaps=heaps, indexes=indexes,
        findings=findings_by_code(inputs), diff=diff_view(inputs.diff) if inputs.diff else None,
        verify=inputs.verify, page_classes=PAGE_CLASSES, columns=RELATION_COLUMNS,
        rows_json=Markup(_script_json(rows)), links_json=Markup(_script_json(links)), rows_shown=TABLE_ROWS_SHOWN,
        plot_config=Markup(json.dumps(PLOT_CONFIG)), plotly_js=Markup(_inline_js(get_plotlyjs())),
        generated=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        findings_listed=FINDINGS_LISTED)
    return html


def _script_json(value) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(value, separators=(",", ":")).replace("</", "<\\/")


def _inline_js(js: str) -> str:
    return js.replace("</script", "<\\/script")
