"""Text of GIN, GiST and SP-GiST pages (decode.gin, .gist, .spgist): one fixed-width line per item, cut to
100 columns; the JSON output has every field."""
from __future__ import annotations

from rich.text import Text

WIDTH = 100


def _line(text: str, style: str = "") -> Text:
    return Text(text if len(text) <= WIDTH else text[:WIDTH - 1] + "…", style)


def _tids(tids) -> str:
    if tids is None:
        return "undecodable"
    return f"{len(tids)} tids " + " ".join(tids[:6]) + (" …" if len(tids) > 6 else "")


def _print(out, lines: list[Text]) -> None:
    if lines:
        out.print(Text("\n").join(lines), no_wrap=True, overflow="ignore", crop=False)


# the sections of a metapage, whose pd_lower covers its metadata, not line pointers
METAPAGE_KEYS = {"gin_metapage_info", "spgist_metapage_info", "brin_metapage_info", "hash_metapage_info"}


def render_index_page(out, page: dict) -> bool:
    """A GIN, GiST or SP-GiST page's sections; False for a page of none of them."""
    if "gin_page_opaque_info" in page:
        _gin(out, page)
    elif "gist_page_opaque_info" in page:
        _gist(out, page)
    elif "spgist_page_opaque_info" in page:
        _spgist(out, page)
    else:
        return False
    return True


def _key(it: dict) -> str:
    if it.get("category") not in (None, "norm_key"):
        return f"<{it['category']}>"
    if it.get("key") is not None:
        return repr(it["key"]) if any(ord(c) < 32 for c in it["key"]) else it["key"]
    return f"\\x{it['key_data']}" if it.get("key_data") is not None else "?"


def _gin(out, page: dict) -> None:
    o = page["gin_page_opaque_info"]
    out.print(Text(f"  GIN {o['kind']}  rightlink {o['rightlink']}  maxoff {o['maxoff']}  flags {{{','.join(o['flags'])}}}",
                   "cyan"))
    lines: list[Text] = []
    if "gin_metapage_info" in page:
        m = page["gin_metapage_info"]
        lines.append(_line("  pending list: " + "  ".join(f"{k} {m[k]}" for k in (
            "pending_head", "pending_tail", "tail_free_size"))))
        lines.append(_line("    " + "  ".join(f"{k} {m[k]}" for k in ("n_pending_pages", "n_pending_tuples"))))
        lines.append(_line("  statistics: " + "  ".join(f"{k} {m[k]}" for k in (
            "n_total_pages", "n_entry_pages", "n_data_pages", "n_entries", "version")), "dim"))
    if "right_bound" in page:
        lines.append(_line(f"  right bound {page['right_bound']}", "dim"))
    for seg in page.get("gin_leafpage_items", []):
        lines.append(_line(f"  segment first {seg['first_tid']:<11} nbytes {seg['nbytes']:>4}  {_tids(seg['tids'])}"))
    if "gin_data_leaf_tids" in page:
        lines.append(_line(f"  uncompressed (pre-9.4): {_tids(page['gin_data_leaf_tids'])}"))
    for it in page.get("gin_posting_items", []):
        lines.append(_line(f"  {it['itemoffset']:>4} → block {it['child_blkno']:<8} key {it['key']}"))
    for it in page.get("gin_entry_items", []):
        head = f"  {it['itemoffset']:>4} "
        if it.get("error"):
            lines.append(_line(head + "bad item", "red"))
            continue
        att = f"att {it['attnum']} " if it.get("attnum") not in (None, 1) else ""
        if "downlink" in it:
            what = f"→ block {it['downlink']}"
        elif "posting_tree_root" in it:
            what = f"posting tree root {it['posting_tree_root']}"
        else:
            what = _tids(it.get("tids"))
        lines.append(_line(f"{head}{att}{_key(it)}  {what}"))
    for it in page.get("gin_pending_items", []):
        if it.get("error"):
            lines.append(_line(f"  {it['itemoffset']:>4} bad item", "red"))
            continue
        att = f"att {it['attnum']} " if it.get("attnum") not in (None, 1) else ""
        lines.append(_line(f"  {it['itemoffset']:>4} heap {it['ctid']:<11} {att}{_key(it)}"))
    _print(out, lines)


def _gist(out, page: dict) -> None:
    o = page["gist_page_opaque_info"]
    out.print(Text(f"  GiST  nsn {o['nsn']}  rightlink {o['rightlink']}  flags {{{','.join(o['flags'])}}}"
                   + (f"  deleteXid {page['delete_xid']}" if "delete_xid" in page else ""), "cyan"))
    lines = []
    for it in page.get("gist_page_items", []):
        if it["itemlen"] is None:
            lines.append(_line(f"  {it['itemoffset']:>4} bad item", "red"))
            continue
        dead = "DEAD " if it["dead"] else ""
        keys = it["keys"] if it["keys"] is not None else f"\\x{it.get('key_data', '')}"
        lines.append(_line(f"  {it['itemoffset']:>4} {dead}{it['ctid']:<13} {it['itemlen']:>5} {keys}",
                           "red" if dead else ""))
    _print(out, lines)


def _spgist(out, page: dict) -> None:
    o = page["spgist_page_opaque_info"]
    out.print(Text(f"  SP-GiST  flags {{{','.join(o['flags'])}}}  nRedirection {o['nRedirection']}"
                   f"  nPlaceholder {o['nPlaceholder']}", "cyan"))
    lines = []
    if "spgist_metapage_info" in page:
        m = page["spgist_metapage_info"]
        cache = " ".join(f"{p['blkno']}:{p['free_space']}" for p in m["last_used_pages"])
        lines.append(_line(f"  magic 0x{m['magic_number']:08X}  last used pages {cache}"))
    for it in page.get("spgist_inner_tuples", []) + page.get("spgist_leaf_tuples", []):
        head = f"  {it['itemoffset']:>4} {it['tupstate'] or 'bad':<11}"
        if it["tupstate"] is None:
            continue
        if "nodes" in it:
            nodes = " ".join(f"{n['label'] if n['label'] is not None else '-'}→{n['downlink']}" for n in it["nodes"])
            same = " allTheSame" if it["all_the_same"] else ""
            lines.append(_line(f"{head} prefix {it['prefix']}{same}  {nodes}"))
        elif "heap_ptr" in it:
            value = it["value"] if it["value"] is not None else it.get("value_data", "NULL")
            lines.append(_line(f"{head} heap {it['heap_ptr']:<11} next {it['next_offset']:>4}  {value}"))
        elif "pointer" in it:
            lines.append(_line(f"{head} → {it['pointer']}  xid {it['xid']}", "dim"))
    _print(out, lines)
