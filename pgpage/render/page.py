"""Text rendering of decoded pages for people: compact, 100 columns, colour for states."""
from __future__ import annotations

import sys

from rich.text import Text

from pgpage.render.output import WIDTH, console, fold, text_width

# lp_flags as pageinspect gives them (render imports no decoder: tests/test_layers.py; the page documents carry
# the raw numbers, as heap_page_items does): LP_UNUSED 0, LP_NORMAL 1, LP_REDIRECT 2, LP_DEAD 3
LP_UNUSED, LP_NORMAL, LP_REDIRECT, LP_DEAD = range(4)
LP_STYLE = {LP_UNUSED: "dim", LP_NORMAL: "", LP_REDIRECT: "yellow", LP_DEAD: "red"}
LP_SHORT = {LP_UNUSED: "UNUSED", LP_NORMAL: "NORMAL", LP_REDIRECT: "REDIRECT", LP_DEAD: "DEAD"}
HEAP_NATTS_MASK = 0x7FF   # t_infomask2's attribute count (htup_details.h)
# infomask flags as the item table abbreviates them (the legend under the table spells them out)
FLAG_ABBREV = {
    "HEAP_HASNULL": "NULLS", "HEAP_HASVARWIDTH": "VARW", "HEAP_HASEXTERNAL": "EXT", "HEAP_HASOID_OLD": "OID",
    "HEAP_HASOID": "OID", "HEAP_XMAX_KEYSHR_LOCK": "KSHR", "HEAP_COMBOCID": "COMBO", "HEAP_XMAX_EXCL_LOCK": "EXCL",
    "HEAP_XMAX_SHR_LOCK": "SHR", "HEAP_XMAX_LOCK_ONLY": "LOCK", "HEAP_XMIN_COMMITTED": "XMIN_C",
    "HEAP_XMIN_INVALID": "XMIN_I", "HEAP_XMIN_FROZEN": "FROZEN", "HEAP_XMAX_COMMITTED": "XMAX_C",
    "HEAP_XMAX_INVALID": "XMAX_I", "HEAP_XMAX_IS_MULTI": "MULTI", "HEAP_UPDATED": "UPD", "HEAP_MOVED_OFF": "MOVED_OFF",
    "HEAP_MOVED_IN": "MOVED_IN", "HEAP_MOVED": "MOVED", "HEAP_KEYS_UPDATED": "KEYS_UPD",
    "HEAP_HOT_UPDATED": "HOT_UPD", "HEAP_ONLY_TUPLE": "HEAP_ONLY",
}
FLAG_STYLE = {
    "XMIN_C": "green", "XMIN_I": "red", "FROZEN": "cyan", "XMAX_C": "red", "XMAX_I": "green",
    "LOCK": "magenta", "MULTI": "magenta", "HOT_UPD": "yellow", "HEAP_ONLY": "yellow", "KEYS_UPD": "bright_red",
}
FLAG_LEGEND = ("flags: XMIN_C/XMAX_C committed, XMIN_I/XMAX_I invalid (aborted / no deleter), FROZEN, LOCK lock-only"
               " xmax, MULTI multixact, HOT_UPD HOT-updated, HEAP_ONLY heap-only tuple, KEYS_UPD key columns"
               " changed, UPD updated version, VARW/NULLS/EXT varwidth/nulls/external, COMBO combo cid")
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def render_pages(doc: dict, pages, heap_written=lambda: False) -> None:
    """The fork's header, then each page as it comes (``pages`` is an iterator: nothing is kept). Pages may
    come as ready text (bytes, a compiled dumper's: heap and B-tree pages, see page_text_words), written as it is;
    ``heap_written()`` says afterwards whether heap pages were among them."""
    out = console()
    out.print(Text.assemble(("file ", "dim"), doc["file"], ("  fork ", "dim"), doc["fork"],
                            ("  blocks ", "dim"), f"{doc['first_block']}..{doc['end_block'] - 1}" if doc["end_block"] else "none",
                            ("  block size ", "dim"), str(doc["block_size"]),
                            ("  major ", "dim"), str(doc["major"] or "unknown")))
    for f in doc["findings"]:
        out.print(finding_text(f))
    heap = False
    width = text_width()
    for page in pages:
        if isinstance(page, bytes):
            if width < WIDTH:     # narrower than the compiled dumper's columns (its flags may run past them)
                page = _folded(page.decode(), width).encode()
            sys.stdout.flush()
            sys.stdout.buffer.write(page)
            sys.stdout.buffer.flush()
            continue
        out.print()
        render_page(out, page)
        heap = heap or ("heap_page_items" in page and "hex" not in page)
    if heap or heap_written():
        out.print()
        out.print(Text(FLAG_LEGEND, "dim"))


ITEM_HANG = 6   # a folded item line goes on under its item number and offset


def _folded(text: str, width: int) -> str:
    """Lines of the compiled dumper's text longer than ``width`` folded between words, the rest indented."""
    return "\n".join(part.plain for line in text.split("\n") for part in fold(Text(line), width, ITEM_HANG))


def _fit(out, lines: list[Text]) -> None:
    """Fixed-width lines, one print (Rich is slow per line), folded between words when the width is under the
    compiled dumper's (the same text either way: tests/passes/test_page_stream.py)."""
    if out.width < WIDTH:
        lines = [part for line in lines for part in fold(line, out.width, ITEM_HANG)]
    out.print(Text("\n").join(lines), no_wrap=True, overflow="ignore", crop=False)


def finding_text(f: dict) -> Text:
    where = " ".join(f"{k} {f[k]}" for k in ("block", "item") if f.get(k) is not None)
    return Text.assemble((f"{f.get('severity', 'error')} ", SEVERITY_STYLE.get(f.get("severity", "error"), "")),
                         (f["code"], "bold"), f"  {where}  " if where else "  ", f["message"])


def render_page(out, page: dict) -> None:
    kind = page["page_type"]
    head = Text.assemble((f"block {page['blkno']}", "bold"), "  ", (kind or "?", "bold cyan"))
    h = page.get("page_header")
    if h:
        ck = page["checksum"]
        head.append(f"  LSN {h['lsn']}  checksum {ck['stored']} ")
        head.append("ok" if ck["ok"] else f"!= {ck['computed']}", "green" if ck["ok"] else "bold red")
        if h["flag_names"]:
            head.append("  " + " ".join(h["flag_names"]), "yellow")
        out.print(head)
        free = max(h["upper"] - h["lower"], 0)
        out.print(Text(f"  lower {h['lower']}  upper {h['upper']}  special {h['special']}  pagesize {h['pagesize']}"
                       f"  version {h['version']}  prune_xid {h['prune_xid']}  free {free} bytes", "dim"))
    else:
        out.print(head)
    for f in page["findings"]:
        out.print(Text("  ") + finding_text(f.to_json() if hasattr(f, "to_json") else f))
    if "hex" in page:  # --hex: the bytes instead of the decoded items
        _hex(out, page["hex"])
        return
    if "heap_page_items" in page:
        _heap_items(out, page["heap_page_items"])
    if page.get("bt_metap"):
        _fields(out, page["bt_metap"])
    if "bt_page_opaque" in page:
        _btree(out, page)
    if "vm" in page:
        _vm(out, page["vm"])
    if "fsm" in page:
        _fsm(out, page["fsm"])
    from pgpage.render.ampage import render_am_sections   # hash and BRIN pages' pageinspect sections
    render_am_sections(out, page)
    if "special" in page:
        from pgpage.render.index_pages import METAPAGE_KEYS, render_index_page
        if not render_index_page(out, page):   # (an AM it does not know: the special space as read)
            out.print("  " + "  ".join(f"{k} {v}" for k, v in page["special"].items()))
            if "meta" in page and not METAPAGE_KEYS & set(page):   # (else said by its pageinspect section)
                out.print("  meta: " + "  ".join(f"{k} {v}" for k, v in page["meta"].items()))
        if not METAPAGE_KEYS & set(page):
            _line_pointers(out, page["items"])


def _fields(out, fields: dict) -> None:
    """``name value`` pairs, two spaces apart, on as many indented lines of 100 columns as they take."""
    lines, line = [], ""
    for k, v in fields.items():
        cell = f"{k} {v}"
        if line and len(line) + 2 + len(cell) > 98:
            lines.append(line)
            line = ""
        line = f"{line}  {cell}" if line else cell
    lines.append(line)
    for line in lines:
        out.print("  " + line)


def page_text_words(bit_names: dict) -> list[str]:
    """The words the compiled dumper writes heap and B-tree pages' text with (decode/_pagedump.c: the words'
    order), from this module's tables, so that its text is this module's. ``bit_names``: PageRun.bit_names()."""
    return ([FLAG_ABBREV.get(n, n) if n else "" for n in bit_names["infomask"]]
            + [FLAG_ABBREV.get(n, n) if n else "" for n in bit_names["infomask2"]]
            + list(LP_SHORT.values()) + list(bit_names["pd_flags"])
            + [FLAG_ABBREV[n] for n in ("HEAP_XMAX_SHR_LOCK", "HEAP_XMIN_FROZEN", "HEAP_MOVED")] + [HEAP_HEADER]
            + list(bit_names["btpo_flags"])
            + [BT_KIND_WORDS[k] for k in ("high_key", "posting", "pivot", "tuple", "dead")] + [BT_HEADER])


def _flags_text(item: dict) -> Text:
    t = Text()
    combined = item["combined_flags"] or []
    hidden = set()  # bits a combined flag already names
    if "HEAP_XMIN_FROZEN" in combined:
        hidden |= {"HEAP_XMIN_COMMITTED", "HEAP_XMIN_INVALID"}
    if "HEAP_XMAX_SHR_LOCK" in combined:
        hidden |= {"HEAP_XMAX_KEYSHR_LOCK", "HEAP_XMAX_EXCL_LOCK"}
    names = [FLAG_ABBREV.get(n, n) for n in combined + [f for f in item["raw_flags"] if f not in hidden]]
    for i, n in enumerate(names):
        if i:
            t.append(" ")
        t.append(n, FLAG_STYLE.get(n, "dim"))
    return t


HEAP_HEADER = f"{'lp':>4} {'off':>5} {'state':<13} {'len':>5} {'xmin':>10} {'xmax':>10} {'cid':>5} {'ctid':<11}" \
              f" {'natts':>5} {'hoff':>4} flags"


def _heap_items(out, items: list[dict]) -> None:
    """One fixed-width line per line pointer (Rich tables are too slow for thousands of rows)."""
    lines = [Text(HEAP_HEADER, "bold dim")]
    for it in items:
        state = LP_SHORT.get(it["lp_flags"], "?") + (f"→{it['lp_off']}" if it["lp_flags"] == LP_REDIRECT else "")
        line = Text(f"{it['lp']:>4} {it['lp_off']:>5} ")
        line.append(f"{state:<13}", LP_STYLE.get(it["lp_flags"], ""))
        line.append(f" {it['lp_len']:>5}")
        if it["t_xmin"] is not None:
            line.append(f" {it['t_xmin']:>10} {it['t_xmax']:>10} {it['t_field3']:>5} {it['t_ctid']:<11}"
                        f" {it['t_infomask2'] & HEAP_NATTS_MASK:>5} {it['t_hoff']:>4} ")
            line.append_text(_flags_text(it))
            if it["t_bits"] is not None:  # the attributes' bits only, not the bitmap's padding
                line.append(f" nulls {it['t_bits'][:it['t_infomask2'] & HEAP_NATTS_MASK]}", "dim")
        lines.append(line)
    _fit(out, lines)


BT_KIND_WORDS = {"high_key": "high key", "posting": "posting", "pivot": "pivot", "tuple": "tuple", "dead": "DEAD"}
BT_KIND_STYLE = {"high_key": "cyan", "posting": "green", "pivot": "cyan", "tuple": "", "dead": "bold red"}
BT_HEADER = f"{'item':>4} {'kind':<18} {'ctid':<11} {'len':>5} {'htid':<11} {'tids':>4} key data"


def _btree(out, page: dict) -> None:
    o = page["bt_page_opaque"]
    line = Text(f"  prev {o['btpo_prev']}  next {o['btpo_next']}  level {o['btpo_level']}  cycleid {o['btpo_cycleid']}")
    if o["btpo_flag_names"]:
        line.append("  " + " ".join(o["btpo_flag_names"]), "yellow")
    if "safexid" in page:
        line.append(f"  safexid {page['safexid']}", "magenta")
    out.print(line)
    s = page.get("bt_page_stats")
    if s:
        out.print(Text(f"  live_items {s['live_items']}  dead_items {s['dead_items']}  avg_item_size {s['avg_item_size']}"
                       f"  free_size {s['free_size']}", "dim"))
    items = page.get("bt_page_items") or []
    if not items:
        return
    lines = [Text(BT_HEADER, "bold dim")]
    leaf = bool(o["btpo_flags"] & 1)
    for it in items:
        lines.append(_btree_item(it, leaf))
    _fit(out, lines)


def _btree_item(it: dict, leaf: bool) -> Text:
    """One fixed-width line per item (decode/_pagedump.c: btree_page_text writes the same), the key's bytes cut
    to the line's width."""
    line = Text(f"{it['itemoffset']:>4} ")
    if it["itemlen"] is None:
        line.append("bad", "red")
        return line
    kind = Text()
    if it["dead"]:
        kind.append(BT_KIND_WORDS["dead"] + " ", BT_KIND_STYLE["dead"])
    if it["high_key"]:
        what = "high_key"
    elif it["tids"] is not None:
        what = "posting"
    elif "natts" in it or "downlink" in it:
        what = "pivot"
    else:
        what = "tuple"
    kind.append(BT_KIND_WORDS[what], BT_KIND_STYLE[what])
    if what == "pivot" and it.get("downlink") is not None:
        kind.append(f"→{it['downlink']}", BT_KIND_STYLE[what])
    if it.get("natts") is not None:
        kind.append(f" natts {it['natts']}", "dim")
    kind.pad_right(18 - len(kind))
    line.append_text(kind)
    tids = str(len(it["tids"])) if it["tids"] is not None else ""
    line.append(f" {it['ctid']:<11} {it['itemlen']:>5} {it['htid'] or '':<11} {tids:>4} ")
    data, room = it["data"] or "", 100 - len(line)
    if len(data) > room:
        data = data[:max(room - 1, 0)] + "…"
    line.append(data)
    line.rstrip()
    return line


def _vm(out, vm: dict) -> None:
    out.print(f"  heap blocks {vm['first_heap_block']}..{vm['first_heap_block'] + vm['heap_blocks_per_page'] - 1}:"
              f"  all_visible {vm['all_visible']}  all_frozen {vm['all_frozen']}")
    bits = vm["bits"]
    if not bits:
        return
    out.print(Text("  map: F all-frozen, V all-visible, . neither, ! frozen but not visible", "dim"))
    per_line = 64
    for start in range(0, len(bits), per_line):
        row = Text(f"  {bits[start]['blkno']:>10} ")
        for b in bits[start:start + per_line]:
            if b["all_frozen"] and b["all_visible"]:
                row.append("F", "cyan")
            elif b["all_visible"]:
                row.append("V", "green")
            elif b["all_frozen"]:
                row.append("!", "bold red")
            else:
                row.append(".", "dim")
        out.print(row)


def _fsm(out, fsm: dict) -> None:
    out.print(f"  level {fsm['level']} (logical page {fsm['logical_page']})  root category {fsm['root']}"
              f"  fp_next_slot {fsm['fp_next_slot']}  slots address: {fsm['slot_target']}")
    slots = fsm["slots"]
    if slots:
        cells = [f"{s['target']}:{s['category']}" for s in slots]
        out.print(Text("  target:category  " + "  ".join(cells[:200]) + ("  …" if len(cells) > 200 else ""),
                       overflow="fold"))


def _line_pointers(out, items: list[dict]) -> None:
    if items:
        cells = [f"{i['lp']}:{LP_SHORT[i['lp_flags']]}@{i['lp_off']}+{i['lp_len']}" for i in items]
        out.print(Text("  items  " + "  ".join(cells), "dim"))


HEX_STYLE = {"page_header": "cyan", "line_pointer": "yellow", "tuple_header": "magenta", "null_bitmap": "bright_red",
             "tuple_data": "", "special": "cyan", "free_space": "dim", "unclaimed": "dim", "padding": "dim"}


def _hex(out, ranges: list[dict]) -> None:
    """pg_filedump -f's layout: per range a title (decimal offsets as pageinspect gives them, structure, line
    pointer), then 16 bytes a line with their page offset in hex and ASCII; a run of identical lines is shown once, then `*` (as hexdump -C does)."""
    lines = []
    for r in ranges:
        start, end = r["start"], r["end"]
        owner = f"  lp {r['lp']}" if r["lp"] is not None else ""
        lines.append(Text(f"  {start}..{end} {r['structure']}{owner} ({end - start} bytes)",
                          HEX_STYLE.get(r["structure"], "") + " bold"))
        data = bytes.fromhex(r["hex"])
        previous, starred = None, False
        for at in range(0, len(data), 16):
            row = data[at:at + 16]
            if row == previous and at + 16 < len(data):
                if not starred:
                    lines.append(Text("  *", "dim"))
                    starred = True
                continue
            previous, starred = row, False
            text = " ".join(f"{b:02x}" for b in row)
            ascii_ = "".join(chr(b) if 32 <= b < 127 else "." for b in row)
            lines.append(Text(f"    {start + at:04x}: {text:<47}  |{ascii_}|"))
    out.print(Text("\n").join(lines), no_wrap=True, overflow="ignore", crop=False)
