"""Text of ``pgpage index`` for the access methods of passes/amindex.py (GIN, GiST, SP-GiST, hash, BRIN): the head,
the figures every AM has (pages by kind, items, free space, what VACUUM and a REINDEX give back), the AM's own
statistics under pageinspect's and pgstattuple's names, the page asked for, findings."""
from __future__ import annotations

from rich.text import Text

from pgpage.render.page import finding_text, render_page
from pgpage.render.scan import human_bytes

AM_TITLES = {"gin": "GIN", "gist": "GiST", "spgist": "SP-GiST", "hash": "hash", "brin": "BRIN"}


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
    t = Text.assemble((f"{AM_TITLES.get(doc['am'], doc['am'])} index ", "bold"),
                      (doc["relation"] or doc["file"], "bold cyan"))
    if doc.get("table"):
        t.append(f"  on {doc['table']}")
    t.append(f"  {doc['end_block']:,} blocks, {human_bytes(doc['end_block'] * doc['block_size'])}"
             f"  PostgreSQL {doc['major'] or '?'}", "dim")
    out.print(t)
    g = doc.get("pgstatginindex")
    if g:
        out.print(f"  pgstatginindex: version {g['version']}  pending_pages {g['pending_pages']}"
                  f"  pending_tuples {g['pending_tuples']}")
    out.print(Text("pages  ", "bold") + Text("  ".join(f"{k} {v}" for k, v in doc["pages"].items())))
    out.print(Text("items  ", "bold") + Text("  ".join(f"{k} {v}" for k, v in doc["items"].items())))
    r = doc["reclaimable"]
    out.print(f"  free space {human_bytes(doc['free_space'])} ({doc['free_percent']}%)  dead items"
              f" {human_bytes(doc['dead_item_bytes'])}  VACUUM frees {r['pages']} pages ({human_bytes(r['bytes'])})"
              f"  REINDEX frees at most {human_bytes(doc['reindex_reclaims_at_most'])}")
    for key in ("pgstattuple", "pgstathashindex", "hash_metapage_info", "brin_metapage_info", "revmap"):
        _fields(out, key, doc.get(key))
    if doc.get("block"):
        out.print()
        render_page(out, doc["block"])
    out.print(Text(f"findings {len(doc['findings'])}", "bold"))
    for f in doc["findings"]:
        out.print(Text("  ") + finding_text(f))
