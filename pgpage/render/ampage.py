"""Text of the pageinspect sections of hash and BRIN pages (`pgpage page`), under pageinspect's names:
one-row functions as ``name value`` cells, item lists as compact columns."""
from __future__ import annotations

from rich.text import Text

ROWS = ("hash_metapage_info", "hash_page_stats", "hash_bitmap_info", "brin_metapage_info")
PER_LINE = 3   # hash items per line (100 columns)


def _cells(row: dict) -> str:
    return "  ".join(f"{k} {v}" for k, v in row.items() if not isinstance(v, list))


def render_am_sections(out, page: dict) -> None:
    for kind in ("hash_page_type", "brin_page_type"):
        if page.get(kind):
            out.print(Text(f"  {kind} {page[kind]}", "bold"))
    for name in ROWS:
        row = page.get(name)
        if row:
            out.print(Text(f"  {name}", "bold"))
            out.print(f"    {_cells(row)}")
            for k, v in row.items():
                if isinstance(v, list):   # the metapage's spares and mapp: up to the last non-zero entry
                    last = max((i for i, x in enumerate(v) if x), default=-1)
                    out.print(Text(f"    {k} {v[:last + 1]}" + (f" (+{len(v) - last - 1} zeros)" if last + 1 < len(v)
                                                                    else ""), "dim"))
    items = page.get("hash_page_items")
    if items:
        out.print(Text(f"  hash_page_items ({len(items)})", "bold"))
        cells = [f"{it['itemoffset']:>4} {it['ctid'] or '?':<10} {it['data'] if it['data'] is not None else '?':>10}"
                 for it in items]
        for i in range(0, len(cells), PER_LINE):
            out.print("    " + "   ".join(cells[i:i + PER_LINE]))
    revmap = page.get("brin_revmap_data")
    if revmap is not None:
        used = [(i, e["pages"]) for i, e in enumerate(revmap) if e["pages"] != "(0,0)"]
        out.print(Text(f"  brin_revmap_data ({len(used)} of {len(revmap)} entries point at a summary)", "bold"))
        for i, tid in used:
            out.print(f"    {i:>5} {tid}")
    items = page.get("brin_page_items")
    if items:
        out.print(Text("  brin_page_items", "bold"))
        for it in items:
            flags = " ".join(k for k in ("allnulls", "hasnulls", "placeholder", "empty") if it.get(k))
            out.print(f"    {it['itemoffset']:>3} blk {it['blknum']} att {it['attnum']}"
                      f"{'  ' + flags if flags else ''}  {it['value']}")
