"""B-tree analysis against the fixtures' oracle (pgstatindex, bt_page_stats, bt_page_items, heap_page_items),
and structure checks: silent on every real index, firing on mutated copies of real pages."""
from __future__ import annotations

import gzip
import json
import math
import shutil
from functools import lru_cache

import numpy as np
import pytest

from conftest import FIXTURES, MAJORS
from pgpage.analysis.btree.heapcheck import HeapTidCheck
from pgpage.analysis.btree.keys import decode_index_keys, page_view
from pgpage.analysis.btree.pages import BT_IS_POSTING
from pgpage.analysis.btree.scan import BtreeScan, IndexInfo
from pgpage.decode.checksum import checksum_pages
from pgpage.decode.pagebase import PageContext
from pgpage.passes.index import scan_index
from pgpage.storage.relfile import RelationFork

BS = 8192
# where real indexes are: the fixture cluster of each major, and the scenario snapshots (PostgreSQL 17)
SOURCES = {f"pg{m}": (FIXTURES / f"pg{m}", m) for m in MAJORS}
SOURCES.update({f"scenario-{p.name}": (p, 17) for p in sorted((FIXTURES / "scenarios" / "snapshots").glob("t*"))
                if (p / "oracle" / "catalog.json").is_file()})


@lru_cache(maxsize=None)
def load_oracle(src: str, relname: str) -> dict:
    with gzip.open(SOURCES[src][0] / "oracle" / "rel" / f"{relname}.json.gz") as f:
        return json.load(f)


def major_of(src: str) -> int:
    return SOURCES[src][1]


def btree_cases() -> list[tuple[str, str]]:
    out = []
    for src, (root, _) in SOURCES.items():
        for p in sorted((root / "oracle" / "rel").glob("*.json.gz")):
            name = p.name.removesuffix(".json.gz")
            if load_oracle(src, name).get("amname") == "btree":
                out.append((src, name))
    return out


CASES = btree_cases()
IDS = [f"{s}-{r}" for s, r in CASES]


@lru_cache(maxsize=None)
def cluster(src: str):
    from pgpage.storage.datadir import open_data_directory
    c = open_data_directory(SOURCES[src][0] / "data")
    return c, c.database("pgpage")


def index_fork(src: str, relname: str) -> RelationFork:
    path = SOURCES[src][0] / "data" / load_oracle(src, relname)["filepath"]
    return RelationFork(path.parent, path.name, "main")


def heap_check_for(src: str, relname: str, cache_blocks: int = 262_144, shared: bool = False) -> HeapTidCheck:
    _, db = cluster(src)
    table = db.relation(relname).table
    tf = table.forks["main"]
    return HeapTidCheck(tf.end_block, tf.block_reader(), BS, table.qualified_name, cache_blocks, shared)


def info_for(src: str, relname: str) -> IndexInfo:
    from pgpage.passes.index import index_info
    _, db = cluster(src)
    return index_info(db.relation(relname), db)


def run_scan(fork: RelationFork, major: int, info=None, heap=None) -> tuple[BtreeScan, dict, list]:
    scan = BtreeScan(fork.end_block, BS, major, info, heap, checksums=True)
    for first, chunk in fork.iter_chunks():
        scan.add_chunk(first, chunk)
    scan.check_heap_windows(fork.iter_chunks)
    report = scan.report()
    return scan, report, scan.find.close()


@lru_cache(maxsize=None)
def analysed(src: str, relname: str):
    return run_scan(index_fork(src, relname), major_of(src), info_for(src, relname), heap_check_for(src, relname))


# ------------------------------------------------------------------------------- pgstatindex
@pytest.mark.parametrize("src,relname", CASES, ids=IDS)
def test_pgstatindex_equals_the_servers(src, relname):
    want = load_oracle(src, relname)["pgstatindex"]
    fork = index_fork(src, relname)
    report, _ = scan_index(fork.iter_chunks, fork.end_block, BS, major_of(src))
    got = report["pgstatindex"]
    assert set(got) == set(want)
    for k, w in want.items():
        if w == "nan":
            assert math.isnan(got[k]), k
        else:
            assert got[k] == w, k


def test_every_major_has_btrees_with_posting_lists_deleted_pages_and_levels():
    """The cases above cover what pgstatindex distinguishes (otherwise equality proves little)."""
    for m in MAJORS:
        stats = {r: load_oracle(src, r)["pgstatindex"] for src, r in CASES if src == f"pg{m}"}
        assert any(s["deleted_pages"] for s in stats.values()), m
        assert any(s["tree_level"] >= 2 for s in stats.values()), m
        assert any(s["leaf_fragmentation"] not in (0, "nan") for s in stats.values()) or m < 12, m
        assert any(s["leaf_pages"] == 0 for s in stats.values()), m


# ------------------------------------------------------------------------------- items, TIDs, dead items
def oracle_leaf_items(oracle: dict):
    """(blkno, item row) of every data item of every leaf page, as bt_page_items shows them."""
    for page in oracle["forks"]["main"][1:]:
        stats = page.get("bt_page_stats") or {}
        if stats.get("type") != "l":
            continue
        rightmost = stats["btpo_next"] == 0
        for it in page["bt_page_items"]:
            if not rightmost and it["itemoffset"] == 1:
                continue  # the high key
            yield page["blkno"], it


@pytest.mark.parametrize("src,relname", CASES, ids=IDS)
def test_posting_lists_and_tids_equal_bt_page_items(src, relname):
    oracle = load_oracle(src, relname)
    scan, report, _ = analysed(src, relname)
    d = report["deduplication"]
    posting = [(b, it) for b, it in oracle_leaf_items(oracle) if it.get("tids")]
    plain = [(b, it) for b, it in oracle_leaf_items(oracle) if not it.get("tids")]
    assert d["posting_tuples"] == len(posting)
    assert d["posting_tids"] == sum(len(it["tids"]) for _, it in posting)
    assert d["plain_tuples"] == len(plain)
    assert d["tids"] == d["posting_tids"] + d["plain_tuples"]
    per_page: dict[int, int] = {}
    for b, it in oracle_leaf_items(oracle):
        per_page[b] = per_page.get(b, 0) + (len(it["tids"]) if it.get("tids") else 1)
    for b, n in per_page.items():
        assert scan.tids[b] == n, b
    hist = {}
    for _, it in posting:
        hist[len(it["tids"])] = hist.get(len(it["tids"]), 0) + 1
    assert {int(k): int(v) for k, v in enumerate(scan.posting_hist) if v} == hist
    if major_of(src) < 13:
        assert not d["supported"] and d["posting_tuples"] == 0


@pytest.mark.parametrize("src,relname", CASES, ids=IDS)
def test_page_counts_equal_bt_page_stats(src, relname):
    oracle = load_oracle(src, relname)
    scan, report, _ = analysed(src, relname)
    for page in oracle["forks"]["main"][1:]:
        s = page["bt_page_stats"]
        b = page["blkno"]
        if s["type"] == "d":
            assert report["pages"]["deleted_count"] and any(x["blkno"] == b for x in report["pages"]["deleted"])
            continue
        assert scan.nitems[b] == s["live_items"] + s["dead_items"], b
        if s["type"] == "l":
            assert scan.dead_items[b] == s["dead_items"], b  # a high key is never LP_DEAD
        assert scan.level[b] == s.get("btpo_level", s.get("btpo")), b
        assert (scan.prev[b], scan.next[b], scan.flags[b]) == (s["btpo_prev"], s["btpo_next"], s["btpo_flags"]), b
    dead_oracle = sum(p["bt_page_stats"]["dead_items"] for p in oracle["forks"]["main"][1:]
                      if p["bt_page_stats"]["type"] == "l")
    assert report["dead_items"]["dead_items"] == dead_oracle


@pytest.mark.parametrize("major", [m for m in MAJORS if m >= 13], ids=lambda m: f"pg{m}")
def test_dead_flags_equal_bt_page_items_dead(major):
    src = f"pg{major}"
    for relname in ("idx_killed", "idx_uniq_churn"):
        oracle = load_oracle(src, relname)
        _, report, _ = analysed(src, relname)
        items = [it for _, it in oracle_leaf_items(oracle)]
        assert report["dead_items"]["dead_items"] == sum(1 for it in items if it["dead"]) > 0
        assert report["dead_items"]["dead_tids"] == sum(len(it["tids"]) if it["tids"] else 1 for it in items
                                                        if it["dead"])


def test_deleted_pages_carry_their_safexid(major):
    src = f"pg{major}"
    oracle = load_oracle(src, "idx_del")
    _, report, _ = analysed(src, "idx_del")
    deleted = {p["blkno"]: p for p in oracle["forks"]["main"] if (p.get("bt_page_stats") or {}).get("type") == "d"}
    got = {x["blkno"]: x for x in report["pages"]["deleted"]}
    assert set(got) == set(deleted) and got
    for b, p in deleted.items():
        s = p["bt_page_stats"]
        if major < 14:  # btpo.xact, which bt_page_stats shows as btpo
            assert got[b]["safexid"] == str(s["btpo"]) and not got[b]["full_xid"]
        else:
            assert got[b]["full_xid"] and s["btpo_flags"] & 0x100
    assert report["pgstatindex"]["deleted_pages"] == len(deleted)


# ------------------------------------------------------------------------------- deduplication
def test_dedup_settings_and_savings_follow_the_catalog(major):
    src = f"pg{major}"
    with_dedup = analysed(src, "idx_dup")[1]["deduplication"]
    without = analysed(src, "idx_dup_nodedup")[1]["deduplication"]
    assert without["plain_tuples"] == without["tids"] == with_dedup["tids"]
    assert without["posting_tuples"] == 0
    if major < 13:
        assert with_dedup["can_deduplicate"] is False and with_dedup["allequalimage"] is None
        return
    assert (with_dedup["deduplicate_items"], with_dedup["deduplicate_items_source"]) == (True, "default")
    assert (without["deduplicate_items"], without["deduplicate_items_source"]) == (False, "reloptions")
    assert with_dedup["can_deduplicate"] and not without["can_deduplicate"]
    assert with_dedup["posting_tuples"] > 0 and with_dedup["bytes_saved"] > 0
    # the estimated size without posting lists is at least the real deduplicated size, and the index
    # built with deduplicate_items=off is really that much bigger
    idx = load_oracle(src, "idx_dup")["pgstatindex"]["index_size"]
    nodedup = load_oracle(src, "idx_dup_nodedup")["pgstatindex"]["index_size"]
    assert idx < nodedup
    assert idx <= with_dedup["estimated_index_size_without"]
    # bytes saved: n plain tuples of the key's size with their line pointers, minus the posting tuple
    oracle = load_oracle(src, "idx_dup")
    saved = 0
    for _, it in oracle_leaf_items(oracle):
        if it["tids"]:
            n = len(it["tids"])
            saved += n * (8 + len(it["data"].split()) + 4) - (it["itemlen"] + 4)
    assert with_dedup["bytes_saved"] == saved


def test_unique_index_under_version_churn(major):
    """idx_uniq_churn: 21 versions of each key; LP_DEAD items set by the uniqueness checks point at
    heap line pointers pruned to LP_DEAD (11+)."""
    src = f"pg{major}"
    _, report, findings = analysed(src, "idx_uniq_churn")
    assert report["deduplication"]["unique_index"] is True
    assert report["deduplication"]["tids"] == 210
    h = report["heap_check"]
    assert h["tids_checked"] == 210 and not findings
    assert report["dead_items"]["dead_items"] > 0


# ------------------------------------------------------------------------------- index against table
def oracle_heap_lp(src: str, table: str) -> dict[tuple[int, int], tuple[int, int | None]]:
    """(block, lp) -> (lp_flags, t_infomask2) from heap_page_items."""
    out = {}
    for page in load_oracle(src, table)["forks"]["main"]:
        for it in page.get("heap_page_items") or []:
            out[(page["blkno"], it["lp"])] = (it["lp_flags"], it["t_infomask2"])
    return out


def tids_of(it: dict) -> list[tuple[int, int]]:
    tids = it.get("tids") or [it.get("htid") or it["ctid"]]
    return [tuple(int(x) for x in t.strip("()").split(",")) for t in tids]


@pytest.mark.parametrize("src,relname", [c for c in CASES if not c[1].startswith("pg_toast")],
                         ids=[i for c, i in zip(CASES, IDS) if not c[1].startswith("pg_toast")])
def test_heap_check_equals_heap_page_items(src, relname):
    _, db = cluster(src)
    table = db.relation(relname).table.name
    lps = oracle_heap_lp(src, table)
    want = {"normal": 0, "redirect": 0, "dead": 0, "unused": 0, "heap_only": 0, "beyond_page": 0}
    for _, it in oracle_leaf_items(load_oracle(src, relname)):
        for tid in tids_of(it):
            flags, im2 = lps.get(tid, (None, None))
            if flags is None:
                want["beyond_page"] += 1
            elif flags == 1:
                want["heap_only" if im2 & 0x8000 else "normal"] += 1
            else:
                want[{0: "unused", 2: "redirect", 3: "dead"}[flags]] += 1
    _, report, findings = analysed(src, relname)
    h = report["heap_check"]
    assert {k: h[k] for k in want} == want
    assert h["beyond_end"] == 0 and h["bad_page"] == 0
    assert not findings
    # a table bigger than the cache is checked window by window (here windows of 2 blocks): the same verdicts
    windows = heap_check_for(src, relname, cache_blocks=2)
    _, small, small_findings = run_scan(index_fork(src, relname), major_of(src), info_for(src, relname), windows)
    assert small["heap_check"] == h and not small_findings


# ------------------------------------------------------------------------------- no false alarms
@pytest.mark.parametrize("src,relname", CASES, ids=IDS)
def test_structure_checks_are_silent_on_real_indexes(src, relname):
    _, report, findings = analysed(src, relname)
    assert [(f.code, f.block, f.item, f.message) for f in findings] == []
    assert report["checksum_failures"] == 0


def test_levels_add_up(major):
    src = f"pg{major}"
    for relname in ("idx_multilevel", "idx_del", "idx_dup_nodedup"):
        _, report, _ = analysed(src, relname)
        s = report["pgstatindex"]
        levels = report["levels"]
        assert [r["level"] for r in levels] == list(range(s["tree_level"] + 1))
        assert sum(r["pages"] for r in levels) == s["leaf_pages"] + s["internal_pages"] + s["empty_pages"]
        assert levels[0]["pages"] == s["leaf_pages"]
        assert levels[0]["avg_leaf_density"] == s["avg_leaf_density"]
        # every non-root page has exactly one downlink
        assert sum(r["downlinks"] for r in levels) == sum(r["pages"] for r in levels) - 1


# ------------------------------------------------------------------------------- keys
def test_keys_decode_to_the_tables_values(major):
    """idx_two is on btree_dup(k2, id); idx_del on lpad(id::text, 500, '0'): each leaf key equals
    what the heap row it points at holds."""
    from pgpage.decode.deform import Attribute, decode_attr, deform_tuple
    from pgpage.decode.ksy.heap_tuple import HeapTuple
    src = f"pg{major}"
    c, db = cluster(src)
    for relname, expect in (("idx_two", lambda row: [str(row["k2"]), str(row["id"])]),
                            ("idx_del", lambda row: [str(row["id"]).rjust(500, "0")])):
        rel = db.relation(relname)
        info = info_for(src, relname)
        table = rel.table
        cols = [Attribute(a["attname"], a["atttypid"], a["attlen"], a["attalign"], a["attbyval"])
                for a in db.attributes(table.oid)]
        fork = index_fork(src, relname)
        tfork = table.forks["main"]
        checked = 0
        ctx = PageContext(am="btree", major=major)
        for blkno, raw in fork.iter_blocks(1, fork.end_block):
            page = page_view(raw, blkno, ctx, info.attributes)
            if page["page_type"] != "btree_leaf" and page["page_type"] != "btree_root":
                continue
            if not page["bt_page_opaque"]["btpo_flags"] & 1:
                continue
            for it in page["bt_page_items"]:
                if it["high_key"] or it.get("keys") is None:
                    continue
                hb, ho = tids_of(it)[0]
                hraw = tfork.read_block(hb)
                lp = int.from_bytes(hraw[24 + 4 * (ho - 1):28 + 4 * (ho - 1)], "little")
                off, length = lp & 0x7FFF, lp >> 17
                tup = HeapTuple.from_bytes(hraw[off:off + length])
                row = {a.name: decode_attr(a, major=major) for a in
                       deform_tuple(hraw[off:off + length], tup.t_hoff, tup.natts, cols,
                                    null_bitmap=tup.t_bits if tup.t_infomask & 1 else None).attrs}
                assert [k["value"] for k in it["keys"]] == expect(row), (relname, blkno, it["itemoffset"])
                checked += 1
        assert checked > 0


def test_pivot_keys_show_truncation(major):
    """A pivot keeps only the key columns it needs (12+): the rest decode as truncated."""
    src = f"pg{major}"
    info = info_for(src, "idx_two")
    fork = index_fork(src, "idx_two")
    ctx = PageContext(am="btree", major=major)
    root = load_oracle(src, "idx_two")["pgstatindex"]["root_block_no"]
    page = page_view(fork.read_block(root), root, ctx, info.attributes)
    items = page["bt_page_items"]
    assert [k.get("truncated", False) for k in items[0]["keys"]] == [True, True]  # minus infinity
    later = items[1]["keys"]
    if major >= 12:
        assert [k.get("truncated", False) for k in later] == [False, True]
    else:
        assert not any(k.get("truncated") for k in later)


def test_keys_of_nulls_and_text():
    from pgpage.decode.deform import Attribute
    attrs = [Attribute("a", 23, 4, "i", True), Attribute("b", 25, -1, "i", False)]
    # t_tid (0,1), t_info: size 24, INDEX_NULL_MASK | INDEX_VAR_MASK; bitmap: a null, b set; b = 'hi' (1-byte header)
    raw = bytes([0, 0, 0, 0, 1, 0]) + (24 | 0x8000 | 0x4000).to_bytes(2, "little") + bytes([0b10, 0, 0, 0]) \
        + bytes(4) + bytes([(3 << 1) | 1]) + b"hi" + bytes(5)
    keys = decode_index_keys(raw, attrs, 17)
    assert keys[0]["null"] and keys[0]["value"] is None
    assert keys[1]["value"] == "hi" and keys[1]["type"] == "text"


# ------------------------------------------------------------------------------- mutations
def copy_index(tmp_path, major: int, relname: str) -> RelationFork:
    src = f"pg{major}"
    path = SOURCES[src][0] / "data" / load_oracle(src, relname)["filepath"]
    shutil.copy(path, tmp_path / path.name)
    return RelationFork(tmp_path, path.name, "main")


def mutate(fork: RelationFork, blkno: int, edit) -> None:
    """Apply edit(bytearray page) to one block and store it with a correct checksum, so that only
    the structural damage shows."""
    path = fork.segment_path(0)
    data = bytearray(path.read_bytes())
    page = data[blkno * BS:(blkno + 1) * BS]
    edit(page)
    page[8:10] = b"\0\0"
    page[8:10] = int(checksum_pages(np.frombuffer(bytes(page), dtype=np.uint8)[None, :], blkno)[0]).to_bytes(2, "little")
    data[blkno * BS:(blkno + 1) * BS] = page
    path.write_bytes(bytes(data))


def put_u32(page: bytearray, at: int, value: int) -> None:
    page[at:at + 4] = value.to_bytes(4, "little")


def codes(findings) -> dict[str, list[tuple[int | None, int | None]]]:
    out: dict[str, list] = {}
    for f in findings:
        out.setdefault(f.code, []).append((f.block, f.item))
    return out


def leaf_chain(src: str, relname: str) -> list[int]:
    """The leaf pages in sibling order, from the oracle's bt_page_stats."""
    stats = {p["blkno"]: p["bt_page_stats"] for p in load_oracle(src, relname)["forks"]["main"][1:]}
    leaves = {b: s for b, s in stats.items() if s["type"] == "l"}
    b = next(b for b, s in leaves.items() if s["btpo_prev"] == 0)
    chain = []
    while b:
        chain.append(b)
        b = leaves[b]["btpo_next"]
    return chain


@pytest.mark.parametrize("major", [10, 14, 18], ids=lambda m: f"pg{m}")
def test_broken_sibling_link_is_found_at_both_ends(tmp_path, major):
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_multilevel")
    chain = leaf_chain(src, "idx_multilevel")
    a, b, c = chain[0], chain[1], chain[2]
    mutate(fork, a, lambda p: put_u32(p, BS - 16 + 4, c))  # a's btpo_next skips b
    _, _, findings = run_scan(fork, major)
    got = codes(findings)
    assert (a, None) in got["btree.sibling.next_mismatch"]   # a -> c, but c's prev is b
    assert (b, None) in got["btree.sibling.prev_mismatch"]   # b's prev is a, but a's next is c
    assert "checksum.mismatch" not in got


def test_sibling_cycle_is_found_and_the_walk_ends(tmp_path):
    major = 17
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_multilevel")
    chain = leaf_chain(src, "idx_multilevel")
    mutate(fork, chain[-1], lambda p: put_u32(p, BS - 16 + 4, chain[0]))  # the rightmost leaf points back
    _, _, findings = run_scan(fork, major)
    got = codes(findings)
    assert got["btree.sibling.cycle"] == [(chain[0], None)]
    assert "btree.level.rightmost" in got


def test_unsorted_posting_list_is_found(tmp_path):
    major = 17
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_dup")
    oracle = load_oracle(src, "idx_dup")
    blkno, item = next((b, it) for b, it in oracle_leaf_items(oracle) if it["tids"])

    def swap_first_two_tids(page: bytearray):
        lp = int.from_bytes(page[24 + 4 * (item["itemoffset"] - 1):28 + 4 * (item["itemoffset"] - 1)], "little")
        off = lp & 0x7FFF
        posting_off = int.from_bytes(page[off + 2:off + 4], "little")  # t_tid.bi_lo: the posting offset
        p = off + posting_off
        page[p:p + 6], page[p + 6:p + 12] = page[p + 6:p + 12], page[p:p + 6]
    mutate(fork, blkno, swap_first_two_tids)
    _, _, findings = run_scan(fork, major)
    got = codes(findings)
    assert got == {"btree.posting.unsorted": [(blkno, item["itemoffset"])]}
    assert "position 1" in findings[0].message


def test_posting_list_overrunning_its_tuple_is_found(tmp_path):
    major = 16
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_dup")
    blkno, item = next((b, it) for b, it in oracle_leaf_items(load_oracle(src, "idx_dup")) if it["tids"])

    def more_tids(page: bytearray):
        lp = int.from_bytes(page[24 + 4 * (item["itemoffset"] - 1):28 + 4 * (item["itemoffset"] - 1)], "little")
        off = lp & 0x7FFF
        page[off + 4:off + 6] = (BT_IS_POSTING | 0x0FFF).to_bytes(2, "little")
    mutate(fork, blkno, more_tids)
    _, _, findings = run_scan(fork, major)
    assert codes(findings) == {"btree.posting.overrun": [(blkno, item["itemoffset"])]}


def test_downlink_to_the_wrong_level_and_missing_downlink(tmp_path):
    major = 15
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_multilevel")
    oracle = load_oracle(src, "idx_multilevel")
    root = oracle["pgstatindex"]["root_block_no"]
    root_items = next(p for p in oracle["forks"]["main"] if p["blkno"] == root)["bt_page_items"]
    child = int(root_items[1]["ctid"].strip("()").split(",")[0])
    leaf = leaf_chain(src, "idx_multilevel")[-1]

    def redirect(page: bytearray):  # root item 2 now points at a leaf (two levels down)
        lp = int.from_bytes(page[24 + 4:28 + 4], "little")
        off = lp & 0x7FFF
        page[off:off + 2] = (leaf >> 16).to_bytes(2, "little")
        page[off + 2:off + 4] = (leaf & 0xFFFF).to_bytes(2, "little")
    mutate(fork, root, redirect)
    _, _, findings = run_scan(fork, major)
    got = codes(findings)
    assert got["btree.downlink.level_mismatch"] == [(root, 2)]
    assert got["btree.downlink.missing"] == [(child, None)]
    assert got["btree.downlink.duplicate"] == [(leaf, None)]


def test_zeroed_page_and_bad_root(tmp_path):
    major = 13
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_dup_nodedup")
    chain = leaf_chain(src, "idx_dup_nodedup")
    middle = chain[1]
    path = fork.segment_path(0)
    data = bytearray(path.read_bytes())
    data[middle * BS:(middle + 1) * BS] = bytes(BS)
    path.write_bytes(bytes(data))
    scan, report, findings = run_scan(fork, major)
    got = codes(findings)
    assert got["btree.page.new"] == [(middle, None)]
    assert (chain[0], None) in got["btree.sibling.next_not_live"]
    assert (chain[2], None) in got["btree.sibling.prev_not_live"]
    assert "btree.downlink.not_live" in got
    # pgstatindex counts an all-zero page as an internal page
    want = load_oracle(src, "idx_dup_nodedup")["pgstatindex"]
    assert report["pgstatindex"]["internal_pages"] == want["internal_pages"] + 1
    assert report["pgstatindex"]["leaf_pages"] == want["leaf_pages"] - 1


def retarget_tids(fork: RelationFork, first: dict, second: dict, blkno: int) -> None:
    """Make leaf items ``first`` and ``second`` of block ``blkno`` (bt_page_items rows) point past the table and
    past a page's last line pointer."""
    def retarget(page: bytearray):
        for it, (hb, ho) in ((first, (999, 1)), (second, (0, 250))):
            lp = int.from_bytes(page[24 + 4 * (it["itemoffset"] - 1):28 + 4 * (it["itemoffset"] - 1)], "little")
            off = lp & 0x7FFF
            page[off:off + 2] = (hb >> 16).to_bytes(2, "little")
            page[off + 2:off + 4] = (hb & 0xFFFF).to_bytes(2, "little")
            page[off + 4:off + 6] = ho.to_bytes(2, "little")
    mutate(fork, blkno, retarget)


@pytest.mark.parametrize("cache_blocks", [262_144, 1])
def test_heap_tids_past_the_table_and_at_unused_slots(tmp_path, cache_blocks):
    major = 17
    fork = copy_index(tmp_path, major, "idx_killed")
    (blkno, first), (_, second) = list(oracle_leaf_items(load_oracle(f"pg{major}", "idx_killed")))[:2]
    retarget_tids(fork, first, second, blkno)
    _, report, findings = run_scan(fork, major, heap=heap_check_for(f"pg{major}", "idx_killed", cache_blocks))
    got = codes(findings)
    assert got["btree.heap.tid_beyond_end"] == [(blkno, first["itemoffset"])]
    assert got["btree.heap.tid_beyond_page"] == [(blkno, second["itemoffset"])]
    assert report["heap_check"]["beyond_end"] == 1


@pytest.mark.parametrize("per_worker", [False, True])
@pytest.mark.parametrize("cache_blocks", [262_144, 2])
def test_index_cut_into_ranges_says_what_one_pass_says(tmp_path, monkeypatch, cache_blocks, per_worker):
    """`pgpage index --jobs`: each range of blocks scanned by a worker, the table checked by each worker with a
    cache of its own or through one cache the workers share and fill together, window by window, the parts
    merged: the same report and findings as one pass, here with ranges of 2 blocks, on the real indexes of
    several blocks and on one with damaged heap TIDs, and with the table checked in windows of 2 blocks too."""
    from pgpage.passes import parallel
    from pgpage.storage import relfile
    monkeypatch.setattr(relfile, "CHUNK_BLOCKS", 2)
    monkeypatch.setattr(parallel, "MIN_RANGE_CHUNKS", 1)
    damaged = copy_index(tmp_path, 17, "idx_multilevel")  # its first and last leaf pages' TIDs damaged
    leaves = list(oracle_leaf_items(load_oracle("pg17", "idx_multilevel")))
    for (blkno, first), (_, second) in ((leaves[0], leaves[1]), (leaves[-2], leaves[-1])):
        retarget_tids(damaged, first, second, blkno)
    assert leaves[0][0] != leaves[-1][0]
    cut = 0
    several_blocks = [(s, r, f) for s, r in CASES for f in [index_fork(s, r)] if f.end_block > 2]
    for src, relname, fork in several_blocks + [("pg17", "idx_multilevel", damaged)]:
        def make_heap(**kw):
            return heap_check_for(src, relname, **{"cache_blocks": cache_blocks, **kw})
        args = (fork.iter_chunks, fork.end_block, BS, major_of(src), info_for(src, relname), make_heap, True)
        one = scan_index(*args)
        ranges = parallel.block_ranges(fork, 2)
        cut += len(ranges) > 1
        two = scan_index(*args, ranges=ranges, jobs=2, heap_per_worker=per_worker)
        assert json.dumps(one[0], sort_keys=True) == json.dumps(two[0], sort_keys=True), relname
        assert [f.to_json() for f in one[1]] == [f.to_json() for f in two[1]], relname
    assert cut == len(several_blocks) + 1 > 30
    assert [f.code for f in one[1]] == ["btree.heap.tid_beyond_end"] * 2 + ["btree.heap.tid_beyond_page"] * 2



def test_index_in_table_order_is_checked_per_worker(monkeypatch):
    """`index --jobs` on a table bigger than the TID check's cache: an index in table order (the primary key of
    rows inserted in id order) is told apart from one in random order (a column scrambled against id), and both
    ways of checking the table with workers give what one pass gives: every TID of the table's rows normal."""
    from livepg import running_server
    from pgpage.passes import parallel
    from pgpage.passes.index import _in_table_order
    from pgpage.storage import relfile
    from pgpage.storage.datadir import open_data_directory
    monkeypatch.setattr(relfile, "CHUNK_BLOCKS", 8)
    monkeypatch.setattr(parallel, "MIN_RANGE_CHUNKS", 1)
    with running_server() as srv:
        with srv.connect() as conn:
            conn.execute("CREATE TABLE t (id int PRIMARY KEY, r int)")
            conn.execute("INSERT INTO t SELECT i, (i * 7919) % 40009 FROM generate_series(1, 40000) i")
            conn.execute("CREATE INDEX t_r ON t (r)")
            conn.execute("CHECKPOINT")
            rows = conn.execute("SELECT count(*) FROM t").fetchone()[0]
        cluster = open_data_directory(srv.data)
        db, major = cluster.database("postgres"), cluster.major
        for name, ordered in (("t_pkey", True), ("t_r", False)):
            index = db.relation(name)
            fork, table = index.forks["main"], index.table.forks["main"]

            def make_heap(**kw):
                return HeapTidCheck(table.end_block, table.block_reader(), BS, "public.t",
                                    **{"cache_blocks": 64, **kw})

            def new_scan(heap):
                return BtreeScan(fork.end_block, BS, major, None, heap)
            assert make_heap().windows > 2
            assert _in_table_order(new_scan, fork.iter_chunks, fork.end_block, make_heap()) is ordered, name
            args = (fork.iter_chunks, fork.end_block, BS, major, None, make_heap, True)
            one = scan_index(*args)
            assert one[0]["heap_check"]["tids_checked"] == one[0]["heap_check"]["normal"] == rows
            ranges = parallel.block_ranges(fork, 2)
            assert len(ranges) > 2
            for per_worker in (None, False, True):
                two = scan_index(*args, ranges=ranges, jobs=2, heap_per_worker=per_worker)
                assert json.dumps(one[0], sort_keys=True) == json.dumps(two[0], sort_keys=True), name
                assert [f.to_json() for f in one[1]] == [f.to_json() for f in two[1]], name

def test_garbage_and_truncated_input_never_raise(tmp_path):
    rng = np.random.default_rng(5)
    major = 17
    src = f"pg{major}"
    fork = copy_index(tmp_path, major, "idx_multilevel")
    path = fork.segment_path(0)
    data = bytearray(path.read_bytes())
    for blkno in range(1, fork.end_block):
        pos = rng.integers(24, BS, 200)
        for p in pos:
            data[blkno * BS + int(p)] = int(rng.integers(0, 256))
    path.write_bytes(bytes(data[:-100]))  # and a torn last block
    fork = RelationFork(tmp_path, path.name, "main")
    _, report, findings = run_scan(fork, major)
    assert report["pgstatindex"]["index_size"] == fork.end_block * BS
    assert findings  # something is reported, nothing raised
    path.write_bytes(rng.integers(0, 256, BS * 6, dtype=np.uint8).tobytes())
    fork = RelationFork(tmp_path, path.name, "main")
    run_scan(fork, major)


# ------------------------------------------------------------------------------- story 4: deduplication
DEDUP = FIXTURES / "scenarios" / "dedup"


def scenario_src(snapshot: str) -> str:
    """The scenario snapshot's source key (``scenario-t2`` for ``dedup/s2``)."""
    return f"scenario-{(DEDUP / snapshot).resolve().name}"


@pytest.mark.parametrize("snapshot", ["s1", "s2"])
def test_same_column_with_and_without_deduplication(snapshot):
    """dedup_k and dedup_k_nodedup index the same column; after non-HOT updates (s2) both took new
    entries. The report tells the two apart, and its size without deduplication is that of the twin
    built with deduplicate_items = off, to within its estimate."""
    src = scenario_src(snapshot)
    on = analysed(src, "dedup_k")[1]
    off = analysed(src, "dedup_k_nodedup")[1]
    d_on, d_off = on["deduplication"], off["deduplication"]
    assert d_on["tids"] == d_off["tids"]  # the same heap TIDs, held two ways
    assert d_on["posting_tuples"] > 0 and d_off["posting_tuples"] == 0
    assert (d_on["deduplicate_items"], d_off["deduplicate_items"]) == (True, False)
    real_on = load_oracle(src, "dedup_k")["pgstatindex"]
    real_off = load_oracle(src, "dedup_k_nodedup")["pgstatindex"]
    assert real_on["index_size"] < real_off["index_size"]
    assert real_on["leaf_pages"] < d_on["estimated_leaf_pages_without"] <= 2 * real_off["leaf_pages"]
    assert d_on["bytes_saved"] > 0 and d_off["bytes_saved"] == 0
    assert d_on["posting_tid_share"] > 50


def test_unique_index_deduplicates_version_churn():
    """dedup_uniq_id is unique; 15 rounds of non-HOT updates under an old snapshot left versions of
    each key, which deduplication keeps in posting lists, while its deduplicate_items = off twin
    holds them as plain tuples on more leaves. Every key has as many heap TIDs as row versions."""
    src = scenario_src("s2")
    on = analysed(src, "dedup_uniq_id")[1]
    off = analysed(src, "dedup_uniq_id_nodedup")[1]
    assert on["deduplication"]["unique_index"] is True
    assert on["deduplication"]["posting_tuples"] > 0 and off["deduplication"]["posting_tuples"] == 0
    assert on["deduplication"]["tids"] == off["deduplication"]["tids"]
    assert on["pgstatindex"]["leaf_pages"] < off["pgstatindex"]["leaf_pages"]
    rows = sum(1 for page in load_oracle(src, "dedup_uniq")["forks"]["main"]
               for it in page["heap_page_items"] if it["lp_flags"] == 1)
    assert on["heap_check"]["tids_checked"] == on["deduplication"]["tids"] <= rows
    versions: dict[str, int] = {}  # heap TIDs per key value: the versions of each row
    for _, it in oracle_leaf_items(load_oracle(src, "dedup_uniq_id")):
        versions[it["data"]] = versions.get(it["data"], 0) + (len(it["tids"]) if it["tids"] else 1)
    assert len(set(versions.values())) == 1 and min(versions.values()) > 1
    assert sum(versions.values()) == on["deduplication"]["tids"]


def test_table_block_gone_since_the_listing_reads_as_a_new_page(tmp_path):
    """The table's file lost its last block after the fork was listed (a live server's VACUUM truncating it): the
    block cannot be read, and its line pointers are those of an all-zero (new) page, none: every index TID into it
    points past its page's last line pointer (how bt_index_check's caller would find the heap then), and the
    table fork reports the segment that shrank. The rest of the table checks as before."""
    src, relname = "pg17", "idx_dup"
    oracle = load_oracle(src, relname)
    _, db = cluster(src)
    table = db.relation(relname).table
    source = table.forks["main"].segment_path(0)
    shutil.copy(source, tmp_path / source.name)
    tfork = RelationFork(tmp_path, source.name, "main")
    last = tfork.end_block - 1
    tids = [t for _, it in oracle_leaf_items(oracle) for t in (it["tids"] or [it["htid"]])]
    into_last = sum(int(t.strip("()").split(",")[0]) == last for t in tids)
    assert last > 0 and 0 < into_last < len(tids)
    with open(tmp_path / source.name, "r+b") as f:
        f.truncate(last * BS)
    heap = HeapTidCheck(tfork.end_block, tfork.block_reader(), BS, table.qualified_name)
    _, report, findings = run_scan(index_fork(src, relname), major_of(src), info_for(src, relname), heap)
    assert report["heap_check"]["beyond_page"] == into_last
    assert report["heap_check"]["normal"] == len(tids) - into_last
    assert {f.code for f in findings} == {"btree.heap.tid_beyond_page"}
    assert [f.code for f in tfork.size_changes()] == ["segment.shrank"]
