"""Text of ``pgpage index`` for the access methods of passes/amindex.py: the head, pages by kind, the AM's
statistics under pageinspect's and pgstattuple's names, the page asked for, findings."""
from __future__ import annotations

from rich.text import Text

from pgpage.render.page import finding_text, render_page
from pgpage.render.scan import human_bytes


def _fields(out, title: str, fields: dict | None) -> None:
    if not fields:
        return
    out.print(Text(title, "bold"))
    cells = [f"{k} {round(v, 2) if isinstance(v, float) else v}" for k, v in fields.items()
             if not isinstance(v, (list, dict))]
    out.print("  " + "  ".join(cells))
    for k, v in fields.items():
        if isinstance(v, list):
            out.print(Text(f"  {k} {v}", "dim"))


def render_am_index(out, doc: dict) -> None:
    t = Text.assemble(("index ", "bold"), (doc["relation"] or doc["file"], "bold cyan"), f"  {doc['am']}")
    if doc.get("table"):
        t.append(f"  on {doc['table']}")
    t.append(f"  {doc['end_block']:,} blocks, {human_bytes(doc['end_block'] * doc['block_size'])}"
             f"  PostgreSQL {doc['major'] or '?'}", "dim")
    out.print(t)
    out.print(Text("pages  ", "bold") + Text("  ".join(f"{k} {v}" for k, v in doc["pages"].items())))
    for key in ("pgstathashindex", "hash_metapage_info", "brin_metapage_info", "revmap"):
        _fields(out, key, doc.get(key))
    for row in doc.get("ranges") or []:
        out.print(Text(f"  range {row['blknum']}: {row['summary']}", "dim"))
    if doc.get("block"):
        out.print()
        render_page(out, doc["block"])
    out.print(Text(f"findings {len(doc['findings'])}", "bold"))
    for f in doc["findings"]:
        out.print(Text("  ") + finding_text(f))
