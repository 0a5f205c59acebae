"""pgpage report through its real entry point, opened in headless Chromium (Debian's, driven by Selenium).

The truth is the CLI's JSON for the same files (which the other commands' tests hold against a real
server): every figure the page shows carries the document and path it came from, and must equal it.
"""
from __future__ import annotations

import copy
import json
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from conftest import REPO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import browser  # noqa: E402

pytest.importorskip("jinja2")
pytest.importorskip("plotly")

PGPAGE = [sys.executable, "-m", "pgpage"]
DEMO = REPO / "demo" / "data"
SCENARIOS = REPO / "fixtures" / "scenarios"


def pgpage(*args, ok=(0, 1)):
    r = subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert r.returncode in ok, r.stderr
    return r


def cli_json(*args) -> dict:
    return json.loads(pgpage(*args, "--json").stdout)


def need_browser():
    why = browser.available()
    if why:
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)


def figures_in(html: str) -> list[tuple[str, str, str]]:
    """(data-src, data-path, data-v) of every figure, read from the file itself."""
    return re.findall(r'data-src="([^"]*)" data-path="([^"]*)" data-v="([^"]*)"', html)


def lookup(doc, path: str):
    for part in path.split("."):
        doc = None if doc is None else doc[int(part)] if isinstance(doc, list) else doc.get(part)
    return doc


def check_figures(visit: browser.PageVisit, docs: dict[str, dict]) -> int:
    """Every figure in the DOM equals the CLI's JSON at its path; returns how many were checked."""
    assert visit.figures
    for f in visit.figures:
        assert f["src"] in docs, f
        want = lookup(docs[f["src"]], f["path"])
        assert json.loads(f["v"]) == want, f
        text = f["text"].strip()
        if isinstance(want, int) and not isinstance(want, bool):
            assert text.replace(",", "") == str(want) or re.fullmatch(r"[\d.]+ (B|kB|MB|GB|TB)", text), f
        elif want is None:
            assert text == "–", f
    return len(visit.figures)


def check_table(visit: browser.PageVisit, scan: dict) -> None:
    """The relations table as drawn: one row per relation of `pgpage scan --deep --json`, its cells equal."""
    from pgpage.render.report import RELATION_COLUMNS, SHARED
    rels = {(SHARED if r["relisshared"] else d["name"], r["name"]): r for d in scan["databases"] for r in d["relations"]}
    assert len(visit.table_rows) == min(len(rels), 500)
    for row in visit.table_rows:
        r = rels[(row["db"], row["rel"])]
        for (title, _, _, path), cell in zip(RELATION_COLUMNS, row["cells"]):
            if path:
                assert json.loads(cell) == lookup(r, path), (row["rel"], title)
            elif title == "findings":
                assert json.loads(cell) == len(r["findings"])


def check_clean(visit: browser.PageVisit, screenshot: Path) -> None:
    assert not [e for e in visit.console if e.get("level") in ("SEVERE", "WARNING")], visit.console
    assert visit.requests and visit.requests[0].startswith("file://")
    network = [u for u in visit.requests if not u.startswith(("file:", "data:", "blob:"))]
    assert network == []
    assert visit.plots_drawn > 0
    assert not blank(screenshot)


def blank(png: Path) -> bool:
    """True when a PNG is (nearly) one colour: its decoded rows hold almost no distinct bytes."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    return len(set(raw)) < 64 or len(data) < 20_000


# ------------------------------------------------------------------------------------------ the tests
def test_demo_report_in_browser(tmp_path):
    need_browser()
    out = tmp_path / "demo.html"
    pgpage("report", DEMO, "-o", out, ok=(0,))
    html = out.read_text()
    assert "<script src" not in html and "<link" not in html  # everything inline
    scan = cli_json("scan", DEMO, "--deep")
    docs = {"scan": scan}
    heaps = sorted({s.split(":", 1)[1] for s, _, _ in figures_in(html) if s.startswith("heap:")})
    indexes = sorted({s.split(":", 1)[1] for s, _, _ in figures_in(html) if s.startswith("index:")})
    # the demo's five tables and five B-trees are shown in detail, the catalogs only in the table
    assert heaps == [f"demo.public.{t}" for t in ("bloated", "bulk_load", "customers", "dups", "hot_updates")]
    assert indexes == [f"demo.public.{i}" for i in ("customers_pkey", "dups_k", "dups_k_nodedup",
                                                    "hot_updates_grp", "hot_updates_pkey")]
    for h in heaps:
        docs[f"heap:{h}"] = cli_json("heap", DEMO, "--rel", h.split(".", 1)[1])
    for i in indexes:
        docs[f"index:{i}"] = cli_json("index", DEMO, "--rel", i.split(".", 1)[1])
    shot, pdf = tmp_path / "demo.png", tmp_path / "demo.pdf"
    visit = browser.open_page(out, screenshot=shot, pdf=pdf)
    check_clean(visit, shot)
    printed = pdf.read_bytes()  # printed: every section, its charts drawn (as vectors) before the print
    assert printed.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", printed)) >= 5
    assert check_figures(visit, docs) > 300
    check_table(visit, scan)
    assert visit.plots_drawn == 5 * 3 + 5 + 3 + 5  # heat maps (no VM fork but dups'), sizes, chains, indexes


def test_before_after_scenario_in_browser(tmp_path):
    """bloat/s1 → s2_updated (a full UPDATE doubles the table): the diff as `pgpage diff --json` says it."""
    need_browser()
    before, after = SCENARIOS / "bloat" / "s1" / "data", SCENARIOS / "bloat" / "s2_updated" / "data"
    out = tmp_path / "bloat.html"
    pgpage("report", after, "--before", before, "--rel", "bloat", "-o", out)
    html = out.read_text()
    diff = cli_json("diff", before, after, "--rel", "bloat")
    docs = {"scan": cli_json("scan", after, "--deep", "--name", "bloat"), "diff": diff,
            "heap:pgpage.public.bloat": cli_json("heap", after, "--rel", "public.bloat")}
    assert {s for s, _, _ in figures_in(html)} == set(docs)
    shot = tmp_path / "bloat.png"
    # the dead-tuple map of a 10-block table: one cell per block; the mouse on blocks 3 and 7
    cells = [("#heap-1 .plot[data-fig=map-dead]", (b + 0.5) / 10, 0.5) for b in (3, 7)]
    visit = browser.open_page(out, screenshot=shot, hover=cells)
    check_clean(visit, shot)
    check_figures(visit, docs)
    check_table(visit, docs["scan"])
    (bloat,) = [r for r in diff["relations"] if r["name"] == "public.bloat"]
    i = diff["relations"].index(bloat)
    shown = {f["path"]: json.loads(f["v"]) for f in visit.figures if f["src"] == "diff"}
    assert shown[f"relations.{i}.pages.tuples.non_hot_updated"] == 500
    assert shown[f"relations.{i}.after.blocks"] == 10 and shown[f"relations.{i}.before.blocks"] == 5
    m = docs["heap:pgpage.public.bloat"]["map"]
    for block, text in zip((3, 7), visit.hovers):  # hover shows that block's figures from `pgpage heap --json`
        assert f"blocks {block}–{block} (1 pages)" in text, text
        assert f"tuple bytes {m['used'][block]:,} (dead {m['dead'][block]:,})" in text, text
        assert f"free bytes {m['free'][block]:,}" in text, text


def test_from_saved_json_is_the_same_report(tmp_path):
    """`report --from DIR` of the commands' saved --json outputs shows the figures a live report shows."""
    before, after = SCENARIOS / "hot" / "s1" / "data", SCENARIOS / "hot" / "s2_hot" / "data"
    live = tmp_path / "live.html"
    pgpage("report", after, "--before", before, "--rel", "hot*", "-o", live)
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "scan.json").write_text(pgpage("scan", after, "--deep", "--name", "hot*", "--json").stdout)
    (saved / "heap.json").write_text(pgpage("heap", after, "--rel", "public.hot", "--json").stdout)
    for i in ("hot_pkey", "hot_prenom", "hot_c2"):
        (saved / f"{i}.json").write_text(pgpage("index", after, "--rel", i, "--json").stdout)
    (saved / "diff.json").write_text(pgpage("diff", before, after, "--json").stdout)  # a glob: the whole cluster
    (saved / "verify.ndjson").write_text(pgpage("verify", after, "--json").stdout)
    again = tmp_path / "saved.html"
    pgpage("report", "--from", saved, "-o", again)
    a, b = figures_in(live.read_text()), figures_in(again.read_text())
    assert len(a) > 100 and sorted(a) == sorted(b)


def test_usage_errors(tmp_path):
    r = pgpage("report", DEMO, "--from", tmp_path, "-o", tmp_path / "x.html", ok=(2,))
    assert "not both" in r.stderr
    r = pgpage("report", "--from", tmp_path, "-o", tmp_path / "x.html", ok=(2,))
    assert "no pgpage.scan document" in r.stderr


def test_twenty_thousand_relations(tmp_path):
    """A cluster of 20 000 relations: under 20 MB, open in under 5 s; the table draws 500 rows at first."""
    need_browser()
    scan = cli_json("scan", DEMO, "--deep")
    rels = scan["databases"][0]["relations"]
    many = []
    for n in range(20_000):
        r = copy.deepcopy(rels[n % len(rels)])
        r["name"] = f"s{n // 1000}.{r['name'].split('.')[-1]}_{n}"
        many.append(r)
    scan["databases"][0]["relations"] = many
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "scan.json").write_text(json.dumps(scan))
    heap = cli_json("heap", DEMO, "--rel", "bloated")
    for n in range(20):  # the top relations in detail, each with a 1 GB table's 800-cell map
        h = copy.deepcopy(heap)
        h["relation"] = f"big_{n}"
        m = h["map"]
        h["map"] = {k: (v * 80)[:800] if isinstance(v, list) else 131072 / 800 for k, v in m.items()}
        (saved / f"heap{n}.json").write_text(json.dumps(h))
    out = tmp_path / "big.html"
    pgpage("report", "--from", saved, "-o", out)
    size = out.stat().st_size
    assert size < 20 * 2 ** 20
    shot = tmp_path / "big.png"
    visit = browser.open_page(out, screenshot=shot)
    check_clean(visit, shot)
    assert len(visit.table_rows) == 500
    print(f"20 000 relations: {size / 2 ** 20:.1f} MB, load {visit.load_seconds:.2f} s,"
          f" every chart drawn {visit.ready_seconds:.2f} s")


def test_damaged_copy_findings_by_code(tmp_path):
    """A copy of the demo with a torn page: `report --verify` lists verify's findings under their code, with the
    block, and exits 1 as verify does."""
    import html as htmlmod
    import shutil
    data = tmp_path / "data"
    shutil.copytree(DEMO, data)
    scan = cli_json("scan", data)
    (bloated,) = [r for r in scan["databases"][0]["relations"] if r["name"] == "public.bloated"]
    with open(data / bloated["files"][0], "r+b") as f:  # 16 bytes of tuple data in block 3 overwritten
        f.seek(3 * 8192 + 4000)
        f.write(b"\xff" * 16)
    out = tmp_path / "damaged.html"
    assert pgpage("report", data, "--verify", "-o", out, ok=(1,)).returncode == 1
    page = out.read_text()
    records = [json.loads(line) for line in pgpage("verify", data, "--json", ok=(1,)).stdout.splitlines()]
    found = [r for r in records if r["type"] == "finding"]
    assert found and any(r["code"] == "checksum.mismatch" and r["block"] == 3 for r in found)
    for r in found:
        group = re.search(rf'<details[^>]*data-code="{re.escape(r["code"])}"[^>]*>(.*?)</details>', page, re.S)
        assert group, r["code"]
        assert htmlmod.escape(f"block {r['block']}: {r['message']}") in group.group(1)


def test_heat_map_of_a_1gb_table_stays_small():
    """A 1 GB table (131 072 blocks) comes from `pgpage heap` in 800 bins: the heat maps draw 800 cells that
    cover every block once, in order, and the page keeps no per-block array."""
    from pgpage.render.report import heat_maps
    heap = cli_json("heap", DEMO, "--rel", "bloated")
    nblocks, bins = 131_072, 800
    heap["map"] = {k: (v * 80)[:bins] if isinstance(v, list) else nblocks / bins for k, v in heap["map"].items()}
    heap["visibility"]["vm_present"] = True
    maps = heat_maps(heap)
    assert [m["key"] for m in maps] == ["dead", "fill", "hints", "vm"]
    for m in maps:
        trace = json.loads(m["json"].replace("<\\/", "</"))["data"][0]
        cells = [c for row in trace["customdata"] for c in row if c is not None]
        assert len(cells) == bins and len(m["json"]) < 150_000
        assert cells[0][0] == 0 and cells[-1][1] == nblocks - 1
        assert all(a[1] + 1 == b[0] for a, b in zip(cells, cells[1:]))  # contiguous, no block twice
