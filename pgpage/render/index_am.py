"""Text of `pgpage index` for GIN, GiST and SP-GiST indexes (passes.index_am): the figures, then the page asked
for."""
from __future__ import annotations

from rich.text import Text

from pgpage.render.output import console

AM_TITLES = {"gin": "GIN", "gist": "GiST", "spgist": "SP-GiST"}


def render_am_index(doc: dict) -> None:
    from pgpage.render.page import finding_text, render_page
    out = console()
    out.print(Text.assemble((f"{AM_TITLES[doc['am']]} index ", "bold"), (doc["relation"] or doc["file"], "bold cyan"),
                            ("  table ", "dim"), str(doc["table"]), ("  major ", "dim"), str(doc["major"] or "unknown"),
                            ("  blocks ", "dim"), str(doc["nblocks"])))
    g = doc.get("pgstatginindex")
    if g:
        out.print(f"  pgstatginindex: version {g['version']}  pending_pages {g['pending_pages']}"
                  f"  pending_tuples {g['pending_tuples']}")
    out.print("  pages: " + "  ".join(f"{k} {v}" for k, v in doc["pages"].items()))
    out.print("  items: " + "  ".join(f"{k} {v}" for k, v in doc["items"].items()))
    r = doc["reclaimable"]
    out.print(f"  free space {doc['free_space']} bytes ({doc['free_percent']}%)  reclaimable by VACUUM:"
              f" {r['pages']} pages ({r['bytes']} bytes)")
    for f in doc["findings"]:
        out.print(finding_text(f))
    if doc.get("block"):
        out.print()
        render_page(out, doc["block"])
