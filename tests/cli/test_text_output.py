"""Issue 42: people's text on real data. It fits the terminal (COLUMNS, else the terminal's width, else 100 into a
pipe), folds between phrases with its continuation lines indented, says how many findings a group leaves out,
names a file once, rounds no share to all or nothing, and says "an index"; diff's two hint-bit lines agree with
each other and with pageinspect; report lists a shared catalog once. Every command runs through ``python -m
pgpage`` on the bundled data or on a copy of a real fixture."""
from __future__ import annotations

import fcntl
import gzip
import itertools
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios

import pytest

from conftest import FIXTURES, REPO, catalog_oracle, data_dir

PGPAGE = [sys.executable, "-m", "pgpage"]
DEMO = REPO / "demo" / "data"
SNAP = FIXTURES / "scenarios" / "snapshots"
BLCKSZ = 8192
# one line of `diff t1 t2 --all`: 116 columns whole
LONG_LINE = "  index entries: dedup_uniq_id +900, dedup_uniq_id_nodedup +900, dedup_uniq_v +900  → 3.0 per row version written"


def pgpage(*args, columns: str | None = None, ok=(0, 1)) -> str:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    r = subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
    assert r.returncode in ok, (r.returncode, r.stderr)
    return r.stdout


def in_terminal(*args, columns: int) -> str:
    """What the command shows in a terminal ``columns`` wide (no COLUMNS in its environment), colours removed."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.Popen([*PGPAGE, *map(str, args)], stdout=follower, stderr=subprocess.DEVNULL, cwd=REPO, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=600)
    os.close(leader)
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def diff_t1_t2(columns: str | None) -> str:
    # paths relative to the checkout (the commands run there): the header's width does not depend on where the
    # repository was cloned
    snap = SNAP.relative_to(REPO)
    return pgpage("diff", snap / "t1" / "data", snap / "t2" / "data", "--all", columns=columns)


# ----------------------------------------------------------------------------------------------- width
def test_width_is_columns_else_the_terminal_else_100():
    wide = diff_t1_t2("150").splitlines()
    assert LONG_LINE in wide                                   # 116 columns fit in 150: whole
    folded = ["  index entries: dedup_uniq_id +900, dedup_uniq_id_nodedup +900, dedup_uniq_v +900",
              "    → 3.0 per row version written"]
    narrow = diff_t1_t2("100").splitlines()
    i = narrow.index(folded[0])
    assert narrow[i:i + 2] == folded                           # folded between phrases, the rest indented
    assert diff_t1_t2(None).splitlines() == narrow             # a pipe, no COLUMNS: 100
    snap = SNAP.relative_to(REPO)
    shown = in_terminal("diff", snap / "t1" / "data", snap / "t2" / "data", "--all", columns=150).splitlines()
    assert LONG_LINE in shown                                  # the terminal's own width


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_folded_lines_break_between_phrases(columns):
    """Every line fits; each folded line is its whole line (COLUMNS=1000) broken after a comma, semicolon or colon,
    at a run of blanks or before a parenthesis, the continuation indented deeper than the line it continues."""
    whole = diff_t1_t2("1000").splitlines()
    lines = diff_t1_t2(str(columns)).splitlines()
    assert max(map(len, lines)) <= columns
    n = 0
    for line in whole:
        assert line.startswith(lines[n]), (line, lines[n])
        rest, indent, n = line[len(lines[n]):], len(line) - len(line.lstrip()), n + 1
        while rest:
            nxt = lines[n]
            assert len(nxt) - len(nxt.lstrip()) > indent, nxt
            gap = rest[:len(rest) - len(rest.lstrip(" "))]
            assert gap and rest[len(gap):].startswith(nxt.lstrip()), (line, nxt)
            before = line[:len(line) - len(rest)]
            assert before[-1] in ",;:" or len(gap) >= 2 or rest.lstrip().startswith("("), (before, nxt)
            rest, n = rest[len(gap) + len(nxt.lstrip()):], n + 1
    assert n == len(lines)


# ------------------------------------------------------------------------------------------ findings
def test_a_group_of_findings_says_how_many_more():
    lines = pgpage("scan", DEMO, "--deep", "--name", "public.*").splitlines()
    i = lines.index("  info    heap.vm.missing  x4")
    assert [x.split(":")[0] for x in lines[i + 1:i + 4]] == [
        "      relation public.bloated", "      relation public.bulk_load", "      relation public.hot_updates"]
    assert lines[i + 4] == "      ... and 1 more"


@pytest.fixture
def torn_copy(tmp_path):
    """A copy of the PostgreSQL 18 fixture whose idx_multilevel file ends 1,000 bytes into its fourth block."""
    d = tmp_path / "data"
    shutil.copytree(data_dir(18), d)
    path = next(r["filepath"] for r in catalog_oracle(18)["relations"] if r["relname"] == "idx_multilevel")
    f = d / path
    assert f.stat().st_size > 4 * BLCKSZ
    os.truncate(f, 3 * BLCKSZ + 1000)
    return d, f


TORN = ("segment 0 is 25576 bytes, not a whole number of 8192-byte blocks; the last 1000 bytes are a torn block")


def test_verify_names_a_torn_file_once_and_whole(torn_copy, tmp_path):
    d, f = torn_copy
    alone = tmp_path / "16385"
    shutil.copy(f, alone)
    text = " ".join(x.strip() for x in pgpage("verify", alone, columns="100").splitlines())
    assert f"16385 block 3: {TORN}" in text                   # the file's name once, the message whole
    assert "16385: 16385" not in text and "16385 is" not in text and "…" not in text
    text = " ".join(x.strip() for x in pgpage("verify", d, columns="100").splitlines())
    assert f"public.idx_multilevel block 3: {TORN} (file {f.name})" in text
    groups = re.findall(r"  x([\d,]+)\n((?:         .*\n)+)", pgpage("verify", d, columns="100"))
    assert any(int(n.replace(",", "")) > 3 for n, _ in groups)
    for n, examples in groups:                                 # 3 examples each, and how many more
        more = int(n.replace(",", "")) - 3
        assert examples.endswith(f"... and {more:,} more\n") if more > 0 else "more" not in examples


def test_an_index():
    r = subprocess.run([*PGPAGE, "heap", DEMO, "--rel", "dups_k"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and "public.dups_k is an index, not a heap" in r.stderr, r.stderr
    r = subprocess.run([*PGPAGE, "rows", DEMO, "--rel", "dups_k"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2 and "public.dups_k is an index: rows are read from tables" in r.stderr, r.stderr


# ---------------------------------------------------------------------------------------------- shares
def relation_cells(text: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(database, relation) -> the (free%, vis%) cells of scan's relations tables, read at the headers' columns."""
    cells, db, header, lines = {}, None, None, text.splitlines()
    for line in lines:
        if line.startswith("database "):
            db, header = line.split()[1], None
        elif line.startswith("relation ") and "free%" in line:
            header = line
        elif header and line.strip():
            dead, free, vis = (header.index(c) + len(c) for c in ("dead", "free%", "vis%"))
            cells[db, line.split()[0]] = (line[dead:free].strip(), line[free:vis].strip())
        else:
            header = None
    return cells


def test_a_share_reads_0_or_100_only_when_it_is():
    """scan's free% and vis%, on every bundled cluster: 0 only for nothing, 100 only for all. (PostgreSQL 10's
    pg_attribute in the stories has 0.48% free: once shown as 0.)"""
    clusters = [DEMO, *sorted((FIXTURES / "stories").glob("pg*/data")), SNAP / "t2" / "data"]
    seen_small = checked = 0
    for cluster in clusters:
        doc = json.loads(pgpage("scan", cluster, "--json"))
        cells = relation_cells(pgpage("scan", cluster, columns="200"))
        for db in doc["databases"]:
            for r in db["relations"]:
                h = r["health"]
                if h.get("free_percent") is None or not r["blocks"] or (db["name"], r["name"]) not in cells:
                    continue
                free, vis = cells[db["name"], r["name"]]
                exact_free = 100 * h["free_bytes"] / (r["blocks"] * BLCKSZ)
                assert (free == "0") == (h["free_bytes"] == 0), (r["name"], free, exact_free)
                assert (free == "100") == (exact_free == 100), (r["name"], free, exact_free)
                seen_small += 0 < exact_free < 0.5
                checked += 1
                if h.get("all_visible_percent") is not None:
                    assert (vis == "0") == (h["all_visible_pages"] == 0), r["name"]
                    assert (vis == "100") == (h["all_visible_pages"] == r["blocks"]), r["name"]
    assert seen_small and checked > 100


def test_share_and_percent_keep_off_the_ends():
    """The demo's hot_updates: 3,006 HOT of 3,036 updates; one fewer or one more non-HOT update of as many stays
    off 100 and 0 at every precision the outputs use."""
    from pgpage.analysis.share import share
    from pgpage.render.output import percent
    assert share(3006, 3036, 1) == 99.0 and percent(100 * 3006 / 3036) == "99"
    assert share(3035, 3036, 1) == 99.9 and share(3035, 3036, 4, scale=1) == 0.9997
    assert share(1, 3036, 1) == 0.1 and share(3036, 3036, 1) == 100.0 and share(0, 3036, 1) == 0.0
    assert share(1, 0, 1) is None
    assert percent(100 * 3035 / 3036) == "99" and percent(100 * 3035 / 3036, 1) == "99.9"
    assert percent(100 * 1 / 3036) == "1" and percent(100.0) == "100" and percent(0.0) == "0"


# ------------------------------------------------------------------------------------------ diff hints
def pages_with_new_hints(before: str, after: str, relname: str) -> int:
    """Pages on which pageinspect shows a tuple (same slot, same xmin on both sides) with hint bits AFTER did not
    have, not counting freezing (HEAP_XMIN_FROZEN is both xmin hint bits)."""
    def pages(t):
        with gzip.open(SNAP / t / "oracle" / "rel" / f"{relname}.json.gz") as f:
            return json.load(f)["forks"]["main"]
    n = 0
    for b, a in zip(pages(before), pages(after)):
        items = {i["lp"]: i for i in b["heap_page_items"] if i["t_infomask"] is not None}
        for i in a["heap_page_items"]:
            o = items.get(i["lp"])
            if i["t_infomask"] is None or o is None or o["t_xmin"] != i["t_xmin"]:
                continue
            frozen = (i["t_infomask"] & 0x0300) == 0x0300 and (o["t_infomask"] & 0x0300) != 0x0300
            if (i["t_infomask"] ^ o["t_infomask"]) & 0x0F00 and not frozen:
                n += 1
                break
    return n


@pytest.mark.parametrize("before,after", list(itertools.combinations(["t1", "t2", "t3", "t4"], 2)))
def test_diff_hint_pages_are_pageinspects(before, after):
    """The pages line's "N hint bits" and the prediction line's "hint bits set on N pages" are one count, the
    pages pageinspect shows with new hint bits (t1 -> t2: an UPDATE set them on the pages it changed)."""
    doc = json.loads(pgpage("diff", SNAP / before / "data", SNAP / after / "data", "--json"))
    text = pgpage("diff", SNAP / before / "data", SNAP / after / "data", "--all", columns="1000")
    compared, beside_other_changes = 0, 0
    for r in doc["relations"]:
        pages = r.get("pages") or {}
        if "page_classes" not in pages or not (SNAP / before / "oracle" / "rel" / f"{r['name'][7:]}.json.gz").is_file():
            continue
        pc, hp = pages["page_classes"], pages["hint_prediction"]
        assert hp["hinted"] == pc["hint_bits"] == pages_with_new_hints(before, after, r["name"][7:]), r["name"]
        assert hp["hinted_judged"] <= hp["hinted"]
        block = text.split(f"\n{r['name']} (table, heap)")[1].split("\n\n")[0]
        said = re.search(r"hint bits set on ([\d,]+) pages", block)
        if said:
            assert int(said[1].replace(",", "")) == pc["hint_bits"], block
        compared += 1
        beside_other_changes += hp["hinted"] - hp["hinted_judged"]
    assert compared
    assert beside_other_changes or (before, after) != ("t1", "t2")  # the UPDATEs of bloat and dedup_*


# -------------------------------------------------------------------------------------------- report
def test_report_lists_a_shared_catalog_once(tmp_path):
    pytest.importorskip("jinja2")
    pytest.importorskip("plotly")
    cluster = FIXTURES / "stories" / "pg17" / "data"
    scan = json.loads(pgpage("scan", cluster, "--json"))
    assert len(scan["databases"]) == 3
    shared = {r["name"] for d in scan["databases"] for r in d["relations"] if r["relisshared"]}
    assert {"pg_catalog.pg_database", "pg_catalog.pg_tablespace"} <= shared
    out = tmp_path / "r.html"
    pgpage("report", cluster, "-o", out)
    html = out.read_text()
    rows = json.loads(re.search(r'id="relations-data"[^>]*>(.*?)</script>', html, re.S)[1])
    names = [(db, name) for db, name, *_ in rows]
    assert len(names) == len(set(names))
    for name in shared:
        assert [db for db, n in names if n == name] == ["(shared)"], name
    per_db = sum(len(d["relations"]) for d in scan["databases"])
    assert len(rows) == per_db - 2 * len(shared)


def test_page_item_lines_fold_to_the_width():
    """`page`'s item table, from the compiled dumper (a pipe) and from Rich (a terminal): at 80 columns no line is
    longer, and an item's line folded between words goes on under its number, its words all there in order."""
    target = ("page", data_dir(15), "--db", "pgpage", "--rel", "heap_hot", "--block", "0")
    item = re.compile(r"\s+\d+\s+\d+ (NORMAL|REDIRECT|DEAD|UNUSED)")
    items = [ln for ln in pgpage(*target, columns="200").splitlines() if item.match(ln)]
    assert max(len(ln) for ln in items) > 100                 # flags and a null bitmap run past 100 columns
    for narrow in (pgpage(*target, columns="80"), in_terminal(*target, columns=80)):
        lines = narrow.splitlines()
        assert max(len(ln) for ln in lines) <= 80
        for ln in items:
            at = next(i for i, x in enumerate(lines) if x.startswith(ln[:30]))
            rest = lines[at + 1] if at + 1 < len(lines) and not item.match(lines[at + 1]) else ""
            assert rest == "" or rest.startswith(" " * 6) and not rest.startswith(" " * 7)
            assert (lines[at] + " " + rest).split() == ln.split(), (ln, lines[at], rest)


@pytest.mark.parametrize("major", [10, 18])
def test_tables_lay_out_as_rich_lays_them_out(major):
    """The Printer lays out a borderless table itself (Rich's layout takes 1.5 ms a row); where the table fits,
    its lines are Rich's own, cell for cell: scan --deep's tables of a real cluster, printed both ways."""
    import io

    from rich.console import Console

    from pgpage.render import scan
    from pgpage.render.output import Printer, _Lines
    doc = json.loads(pgpage("scan", data_dir(major), "--deep", "--json"))
    rels = doc["databases"][0]["relations"]
    tables = [scan._relations_table(rels), scan._deep_table([r for r in rels if "heap" in r])]
    for table in tables:
        ours, theirs = io.StringIO(), io.StringIO()
        Printer(Console(file=_Lines(ours), width=400, highlight=False, soft_wrap=False)).print(table)
        Console(file=_Lines(theirs), width=400, highlight=False).print(table)
        assert ours.getvalue().count("\n") > 10
        assert ours.getvalue() == theirs.getvalue()
