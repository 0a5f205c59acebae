"""pgpage verify's rules: no false alarm on any real fixture, and each kind of known damage found at
the right block and item, with the rest of the relation still analysed.

Damage is done to copies of the fixture data directories (tmp_path); the page checksum of a damaged
page is recomputed unless the test is about checksums, so that each test sees exactly the rule it
exercises.
"""
from __future__ import annotations

import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from conftest import MAJORS, catalog_oracle, data_dir, rel_names, rel_oracle
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.xids import (XID_BEFORE_OLDEST, XID_BEFORE_RELMIN, XID_IN_FUTURE, XID_INVALID, XID_OK,
                                         mxid_bounds, xid_bounds)
from pgpage.decode.checksum import checksum_page
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import open_data_directory

BLCKSZ = 8192
LATEST = MAJORS[-1]


# ------------------------------------------------------------------------------------------ helpers
def verify_relation(datadir: Path, relname: str, db: str = "pgpage") -> tuple[list[dict], dict]:
    cluster = open_data_directory(datadir)
    rel = cluster.database(db).relation(relname)
    v = Verification(cluster)
    recs = list(v.relation_records(v.subject_of(rel)))
    return [r for r in recs if r["type"] == "finding"], [r for r in recs if r["type"] == "relation"][0]


def verify_cluster(datadir: Path) -> list[dict]:
    v = Verification(open_data_directory(datadir))
    return list(v.cluster_records())


def where(findings, code):
    return [(f.get("block"), f.get("item")) for f in findings if f["code"] == code]


class Damaged:
    """A copy of one major's fixture data directory to damage."""

    def __init__(self, major: int, tmp_path: Path):
        self.major = major
        self.path = tmp_path / f"pg{major}"
        shutil.copytree(data_dir(major), self.path)
        self.files = {r["relname"]: r["filepath"] for r in catalog_oracle(major)["relations"]}
        for name in rel_names(major):
            self.files.setdefault(name, rel_oracle(major, name)["filepath"])

    def file(self, rel: str, fork: str = "main") -> Path:
        return self.path / (self.files[rel] + {"main": "", "fsm": "_fsm", "vm": "_vm"}[fork])

    def page(self, rel: str, blkno: int, fork: str = "main") -> bytearray:
        with open(self.file(rel, fork), "rb") as f:
            f.seek(blkno * BLCKSZ)
            return bytearray(f.read(BLCKSZ))

    def write(self, rel: str, blkno: int, page: bytearray, fork: str = "main", fix_checksum: bool = True) -> None:
        if fix_checksum:
            page[8:10] = b"\0\0"
            page[8:10] = struct.pack("<H", checksum_page(bytes(page), blkno))
        with open(self.file(rel, fork), "r+b") as f:
            f.seek(blkno * BLCKSZ)
            f.write(page)

    def items(self, rel: str, blkno: int) -> list[dict]:
        p = decode_page(bytes(self.page(rel, blkno)), blkno, PageContext(am="heap", major=self.major))
        return p["heap_page_items"]

    def verify(self, rel: str):
        return verify_relation(self.path, rel)


def lp_word(page: bytearray, n: int) -> tuple[int, int, int]:
    w = struct.unpack_from("<I", page, 24 + 4 * (n - 1))[0]
    return w & 0x7FFF, (w >> 15) & 3, w >> 17


def set_lp(page: bytearray, n: int, off: int, flags: int, length: int) -> None:
    struct.pack_into("<I", page, 24 + 4 * (n - 1), off | (flags << 15) | (length << 17))


def first_item(items, pred):
    for it in items:
        if pred(it):
            return it
    raise AssertionError("the fixture has no such item")


@pytest.fixture
def latest(tmp_path) -> Damaged:
    return Damaged(LATEST, tmp_path)


# ------------------------------------------------------------------------------ (d) no false alarms
@pytest.fixture(scope="module")
def verified():
    """{major: {qualified relation name: (findings, relation record)}} for every relation of every
    fixture whose files are present, verified relation by relation (one cluster object per major)."""
    out = {}
    for major in MAJORS:
        cluster = open_data_directory(data_dir(major))
        v = Verification(cluster)
        res = {}
        for rel in cluster.database("pgpage").relations():
            if rel.has_storage and rel.forks:
                recs = list(v.relation_records(v.subject_of(rel)))
                res[rel.qualified_name] = ([r for r in recs if r["type"] == "finding"],
                                           [r for r in recs if r["type"] == "relation"][0])
        out[major] = res
    return out


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_every_fixture_relation_verifies_clean(major, verified):
    """Every relation of every major whose files are present: zero findings, of any severity."""
    res = verified[major]
    assert len(res) >= 40
    for name, (findings, rel) in res.items():
        assert findings == [], (name, findings[:5])
        assert rel["findings"] == 0


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_amcheck_oracle_agrees(major, verified):
    """The server's own amcheck and pg_visibility found nothing wrong in the relations they
    checked, and neither do we, on exactly those relations."""
    for name in rel_names(major):
        o = rel_oracle(major, name)
        if o.get("verify_heapam") is not None:
            assert o["verify_heapam"] == [], name
        if o.get("bt_index_check") is not None:
            assert o["bt_index_check"] == "ok", name
        for col in ("pg_check_visible", "pg_check_frozen"):
            if o.get(col) is not None:
                assert o[col] == [], (name, col)
        qualified = f"{o.get('nspname') or ('pg_toast' if name.startswith('pg_toast') else 'public')}.{name}"
        findings, rel = verified[major][qualified]
        assert findings == [], (name, findings[:3])
        blocks = {fork: len(pages) for fork, pages in o["forks"].items()}
        assert {k: v for k, v in rel["forks"].items() if v or k in blocks} == blocks, name


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_whole_pruned_cluster_reports_only_the_pruned_files(major):
    """The fixture is a pruned copy: the catalogs deliberately left out are reported missing, and
    nothing else is reported at all."""
    recs = verify_cluster(data_dir(major))
    findings = [r for r in recs if r["type"] == "finding"]
    assert {f["code"] for f in findings} == {"relation.file_missing"}
    kept = set(catalog_oracle(major)["kept_files"])
    for f in findings:
        missing = f["message"].rsplit(" ", 1)[-1]
        assert missing not in kept, f
    verified = [r for r in recs if r["type"] == "relation"]
    assert {r["relation"] for r in verified} >= {"public.heap_hot", "public.idx_multilevel", "pg_catalog.pg_class"}
    assert all(r["findings"] == 0 for r in verified)


def _scenario_snapshots() -> list[Path]:
    from conftest import FIXTURES
    seen, out = set(), []
    for d in sorted((FIXTURES / "scenarios").glob("*/*/data")):
        if d.resolve() not in seen:
            seen.add(d.resolve())
            out.append(d)
    return out


@pytest.mark.parametrize("snapshot", _scenario_snapshots(), ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_scenario_snapshots_raise_no_false_alarm(snapshot):
    """The storage-story snapshots (PostgreSQL 17 before and after real workloads: bloat, HOT,
    hint bits, freezing, deduplication) are clean clusters too: nothing but their pruned files."""
    recs = verify_cluster(snapshot)
    codes = {r["code"] for r in recs if r["type"] == "finding"}
    assert codes <= {"relation.file_missing"}, codes
    assert len([r for r in recs if r["type"] == "relation"]) >= 10


def set_control_field(d: "Damaged", field: str, value: int) -> None:
    """Rewrite one uint32 field of the copy's pg_control (with a recomputed CRC-32C)."""
    from pgpage.decode.control import decode_control
    from pgpage.decode.crc32c import crc32c
    from pgpage.decode.ksy.layouts import LAYOUTS
    ctl = d.path / "global" / "pg_control"
    data = bytearray(ctl.read_bytes())
    dec = decode_control(bytes(data))
    layout = next(v for k, v in LAYOUTS.items() if k.startswith("pg_control::control_v")
                  and k.endswith(str(dec["pg_control_version"])))
    pos = dec["crc_offset"] - (layout["fields"]["crc"][0] - layout["fields"][field][0])
    struct.pack_into("<I", data, pos, value)
    struct.pack_into("<I", data, dec["crc_offset"], crc32c(bytes(data[:dec["crc_offset"]])))
    ctl.write_bytes(bytes(data))
    assert decode_control(bytes(data))["crc_ok"]


def checksums_off(d: "Damaged") -> None:
    """The copy's pg_control as initdb without -k would have it: data_checksum_version 0."""
    set_control_field(d, "data_checksum_version", 0)


def test_checksums_off_cluster_raises_no_checksum_alarm(tmp_path):
    """With checksums off, pd_checksum holds whatever it held (0, or a stale value): no alarm."""
    d = Damaged(LATEST, tmp_path)
    checksums_off(d)
    for blk in (0, 1):
        page = d.page("heap_hot", blk)
        page[8:10] = b"\x12\x34" if blk else b"\0\0"
        d.write("heap_hot", blk, page, fix_checksum=False)
    assert open_data_directory(d.path).checksums is False
    findings, rel = d.verify("heap_hot")
    assert findings == [] and rel["forks"]["main"] == 2
    recs = verify_cluster(d.path)
    assert {r["code"] for r in recs if r["type"] == "finding"} == {"relation.file_missing"}


# --------------------------------------------------------------------- (c) damage found where it is
def test_checksum_mismatch_at_its_block_and_rest_analysed(latest):
    page = latest.page("heap_hot", 1)
    page[BLCKSZ - 100] ^= 0x01
    latest.write("heap_hot", 1, page, fix_checksum=False)
    findings, rel = latest.verify("heap_hot")
    assert where(findings, "checksum.mismatch") == [(1, None)]
    assert rel["forks"]["main"] == 2 and rel["forks"]["vm"] == 1


def test_line_pointer_out_of_bounds(latest):
    page = latest.page("heap_hot", 1)
    it = first_item(latest.items("heap_hot", 1), lambda i: i["lp_flags"] == 1)
    set_lp(page, it["lp"], 8184, 1, it["lp_len"])
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, it["lp"]) in where(findings, "heap.lp.out_of_bounds")
    assert {f["block"] for f in findings} == {1}


def test_overlapping_line_pointers(latest):
    page = latest.page("heap_hot", 1)
    normal = [i for i in latest.items("heap_hot", 1) if i["lp_flags"] == 1]
    a, b = normal[0], normal[1]
    set_lp(page, b["lp"], a["lp_off"], 1, b["lp_len"])
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    hit = where(findings, "heap.lp.overlap")
    assert hit and hit[0][0] == 1 and hit[0][1] in (a["lp"], b["lp"])


def test_bad_t_hoff(latest):
    page = latest.page("heap_hot", 0)
    it = first_item(latest.items("heap_hot", 0), lambda i: i["lp_flags"] == 1 and i["t_hoff"] == 24)
    page[it["lp_off"] + 22] = 40
    latest.write("heap_hot", 0, page)
    findings, _ = latest.verify("heap_hot")
    assert where(findings, "heap.tuple.bad_hoff") == [(0, it["lp"])]


def test_too_many_attributes(latest):
    page = latest.page("heap_hot", 0)
    it = first_item(latest.items("heap_hot", 0),
                    lambda i: i["lp_flags"] == 1 and not i["t_infomask"] & 1 and i["t_infomask"] & 0x0100)
    struct.pack_into("<H", page, it["lp_off"] + 18, (it["t_infomask2"] & ~0x7FF) | 9)
    latest.write("heap_hot", 0, page)
    findings, _ = latest.verify("heap_hot")
    assert where(findings, "heap.tuple.too_many_attributes") == [(0, it["lp"])]


@pytest.mark.parametrize("which,code", [("future", "heap.xid.xmin_in_future"),
                                        ("oldest", "heap.xid.xmin_before_oldest"),
                                        ("relfrozen", "heap.xid.xmin_before_relfrozenxid")])
def test_xmin_out_of_range(latest, which, code):
    cluster = open_data_directory(latest.path)
    cp = cluster.control["checkPointCopy"]
    relfrozen = cluster.database("pgpage").relation("heap_hot").row["relfrozenxid"]
    xid = {"future": cp["nextXid"] + 1000, "oldest": cp["oldestXid"] - 5, "relfrozen": relfrozen - 1}[which]
    assert which != "relfrozen" or relfrozen - 1 >= cp["oldestXid"], "the fixture's relfrozenxid is the oldest xid"
    page = latest.page("heap_hot", 1)
    it = first_item(latest.items("heap_hot", 1), lambda i: i["lp_flags"] == 1 and i["t_infomask"] & 0x0300 != 0x0300)
    struct.pack_into("<I", page, it["lp_off"], xid)
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, it["lp"]) in where(findings, code)
    assert str(xid) in next(f["message"] for f in findings if f["code"] == code)


def test_multixact_in_future(latest):
    cluster = open_data_directory(latest.path)
    next_multi = cluster.control["checkPointCopy"]["nextMulti"]
    page = latest.page("heap_hot", 1)
    it = first_item(latest.items("heap_hot", 1), lambda i: i["lp_flags"] == 1 and i["t_infomask"] & 0x0100)
    struct.pack_into("<I", page, it["lp_off"] + 4, next_multi + 7)
    im = (it["t_infomask"] & ~0x0C00) | 0x1000 | 0x0080   # IS_MULTI, lock-only, no xmax hints
    struct.pack_into("<H", page, it["lp_off"] + 20, im)
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert where(findings, "heap.multixact.in_future") == [(1, it["lp"])]


def test_redirect_to_non_heap_only_tuple(latest):
    page = latest.page("heap_hot", 1)
    items = latest.items("heap_hot", 1)
    rd = first_item(items, lambda i: i["lp_flags"] == 2)
    target = items[rd["lp_off"] - 1]
    assert target["t_infomask2"] & 0x8000
    struct.pack_into("<H", page, target["lp_off"] + 18, target["t_infomask2"] & ~0x8000)
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, rd["lp"]) in where(findings, "heap.hot.redirect_not_heap_only")


def test_redirect_out_of_range(latest):
    page = latest.page("heap_hot", 1)
    items = latest.items("heap_hot", 1)
    rd = first_item(items, lambda i: i["lp_flags"] == 2)
    set_lp(page, rd["lp"], len(items) + 5, 2, 0)
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, rd["lp"]) in where(findings, "heap.lp.bad_redirect")


def test_hot_successor_xmin_mismatch(latest):
    page = latest.page("heap_hot", 1)
    items = latest.items("heap_hot", 1)
    p = first_item(items, lambda i: i["lp_flags"] == 1 and i["t_infomask2"] & 0x4000
                   and i["t_infomask"] & 0x0400 and i["t_ctid"].startswith("(1,"))
    succ = items[int(p["t_ctid"].strip("()").split(",")[1]) - 1]
    assert succ["lp_flags"] == 1
    struct.pack_into("<I", page, succ["lp_off"], succ["t_xmin"] + 1)
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, p["lp"]) in where(findings, "heap.hot.xmin_mismatch")
    # the successor lost its predecessor: a heap-only tuple now starts a chain
    assert (1, succ["lp"]) in where(findings, "heap.hot.heap_only_root")


def test_hot_chain_leaving_its_page(latest):
    page = latest.page("heap_hot", 1)
    p = first_item(latest.items("heap_hot", 1), lambda i: i["lp_flags"] == 1 and i["t_infomask2"] & 0x4000
                   and not i["t_infomask"] & 0x0800)
    struct.pack_into("<HH", page, p["lp_off"] + 12, 0, 0)   # t_ctid block 0
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert (1, p["lp"]) in where(findings, "heap.hot.ctid_off_page")


def test_vm_all_visible_bit_on_a_page_with_dead_tuples(latest):
    vm = latest.page("heap_hot", 0, "vm")
    vm[24] |= 0x01                      # heap block 0 all-visible
    latest.write("heap_hot", 0, vm, fork="vm")
    findings, _ = latest.verify("heap_hot")
    assert (0, None) in where(findings, "vm.bit_without_pd_all_visible")
    assert where(findings, "vm.all_visible_wrong")
    assert all(f["block"] == 0 for f in findings)


def test_vm_all_frozen_page_with_an_unfrozen_tuple(latest):
    page = latest.page("heap_frozen", 0)
    it = first_item(latest.items("heap_frozen", 0), lambda i: i["lp_flags"] == 1 and i["t_infomask"] & 0x0300 == 0x0300)
    struct.pack_into("<H", page, it["lp_off"] + 20, it["t_infomask"] & ~0x0200)   # committed, no longer frozen
    latest.write("heap_frozen", 0, page)
    findings, _ = latest.verify("heap_frozen")
    assert where(findings, "vm.all_frozen_wrong") == [(0, it["lp"])]


def test_toast_pointer_naming_another_relation(latest):
    cluster = open_data_directory(latest.path)
    toast_oid = cluster.database("pgpage").relation("toasty").row["reltoastrelid"]
    page = latest.page("toasty", 0)
    needle = b"\x01\x12"
    hits = [i for i in range(24, BLCKSZ - 18) if page[i:i + 2] == needle
            and struct.unpack_from("<I", page, i + 14)[0] == toast_oid]
    assert hits, "toasty holds external TOAST pointers"
    struct.pack_into("<I", page, hits[0] + 14, toast_oid + 1)
    latest.write("toasty", 0, page)
    findings, _ = latest.verify("toasty")
    hit = where(findings, "heap.toast.wrong_relation")
    assert len(hit) == 1 and hit[0][0] == 0
    owner = next(i for i in latest.items("toasty", 0) if i["lp_off"] <= hits[0] < i["lp_off"] + i["lp_len"])
    assert hit[0][1] == owner["lp"]


def test_two_damaged_blocks_both_found(latest):
    p0 = latest.page("pg_attribute", 3)
    p0[BLCKSZ - 1] ^= 0xFF
    latest.write("pg_attribute", 3, p0, fix_checksum=False)
    p1 = latest.page("pg_attribute", 40)
    struct.pack_into("<H", p1, 12, 30000)   # pd_lower past pd_upper
    latest.write("pg_attribute", 40, p1)
    findings, rel = verify_relation(latest.path, "pg_catalog.pg_attribute")
    assert where(findings, "checksum.mismatch") == [(3, None)]
    assert where(findings, "page.header.bad_lower") == [(40, None)]
    assert {f["block"] for f in findings} == {3, 40}
    assert rel["forks"]["main"] >= 41


def test_page_from_another_relation(latest):
    """An index page copied over a heap page: one finding for that block, the others clean."""
    idx = latest.page("idx_multilevel", 1)
    latest.write("btree_wide", 2, idx)
    findings, _ = latest.verify("btree_wide")
    assert where(findings, "heap.page.special_space") == [(2, None)]
    assert {f["block"] for f in findings} == {2}


# -------------------------------------------------------------------------------------- B-trees
def test_btree_sibling_links_disagree(latest):
    page = latest.page("idx_multilevel", 1)
    prev, nxt = struct.unpack_from("<II", page, BLCKSZ - 16)
    struct.pack_into("<I", page, BLCKSZ - 12, 1)   # btpo_next pointing at itself
    latest.write("idx_multilevel", 1, page)
    findings, _ = latest.verify("idx_multilevel")
    assert (1, None) in where(findings, "btree.sibling.next_mismatch") or where(findings, "btree.sibling.cycle")


def test_btree_item_size_mismatch(latest):
    page = latest.page("idx_multilevel", 1)
    off, flags, length = lp_word(page, 2)
    info = struct.unpack_from("<H", page, off + 6)[0]
    struct.pack_into("<H", page, off + 6, (info & ~0x1FFF) | ((info & 0x1FFF) - 8))
    latest.write("idx_multilevel", 1, page)
    findings, _ = latest.verify("idx_multilevel")
    assert (1, 2) in where(findings, "btree.item.size_mismatch")


def test_btree_metapage_corrupt(latest):
    page = latest.page("idx_multilevel", 0)
    page[24] ^= 0xFF
    latest.write("idx_multilevel", 0, page)
    findings, _ = latest.verify("idx_multilevel")
    assert [b for b, _ in where(findings, "btree.meta.bad_magic")] == [0]


def test_btree_posting_list_out_of_order(latest):
    assert LATEST >= 13, "posting lists are 13+"
    d = latest
    for blk in range(1, 3):
        page = d.page("idx_dup", blk)
        nlp = (struct.unpack_from("<H", page, 12)[0] - 24) // 4
        for n in range(1, nlp + 1):
            off, flags, length = lp_word(page, n)
            posid = struct.unpack_from("<H", page, off + 4)[0]
            info = struct.unpack_from("<H", page, off + 6)[0]
            if info & 0x2000 and posid & 0x2000 and (posid & 0xFFF) >= 3:
                poff = struct.unpack_from("<H", page, off + 2)[0]
                a, b = page[off + poff:off + poff + 6], page[off + poff + 6:off + poff + 12]
                page[off + poff:off + poff + 6], page[off + poff + 6:off + poff + 12] = b, a
                d.write("idx_dup", blk, page)
                findings, _ = d.verify("idx_dup")
                assert (blk, n) in where(findings, "btree.posting.unsorted")
                return
    pytest.fail("idx_dup has posting lists")


def test_btree_level_flag_wrong(latest):
    page = latest.page("idx_multilevel", 1)
    level = struct.unpack_from("<I", page, BLCKSZ - 8)[0]
    assert level == 0
    struct.pack_into("<I", page, BLCKSZ - 8, 1)
    latest.write("idx_multilevel", 1, page)
    findings, _ = latest.verify("idx_multilevel")
    assert (1, None) in where(findings, "btree.level.leaf_not_zero")


# ---------------------------------------------------------------------- files, segments, control
def test_segments_use_global_block_numbers(latest):
    """With 2-block segments (pg_control's relseg_size), a 9-block index lies in 5 files; its page
    checksums hold global block numbers, and so do the findings."""
    set_control_field(latest, "relseg_size", 2)
    # every relation file in 2-block segments, as a server built so writes them (the catalogs' too: a segment
    # larger than pg_control's segment size is not read, segment.oversized)
    for f in [*(latest.path / "base").glob("*/*"), *(latest.path / "global").glob("*")]:
        data = f.read_bytes()
        if not f.name.split("_")[0].isdigit() or len(data) <= 2 * BLCKSZ:
            continue
        f.write_bytes(data[:2 * BLCKSZ])
        for segno in range(1, (len(data) // BLCKSZ + 1) // 2):
            (f.parent / f"{f.name}.{segno}").write_bytes(data[2 * segno * BLCKSZ:2 * (segno + 1) * BLCKSZ])
    f = latest.file("idx_multilevel")
    findings, rel = latest.verify("idx_multilevel")
    assert findings == [] and rel["forks"]["main"] == 9
    seg2 = f.parent / f"{f.name}.2"
    page = bytearray(seg2.read_bytes())
    page[BLCKSZ + 100] ^= 0x10        # block 5 = segment 2, second block
    seg2.write_bytes(bytes(page))
    findings, _ = latest.verify("idx_multilevel")
    assert where(findings, "checksum.mismatch") == [(5, None)]
    (f.parent / f"{f.name}.1").unlink()     # segment 1 gone: PostgreSQL stops at segment 0
    findings, rel = latest.verify("idx_multilevel")
    assert where(findings, "segment.missing") == [(2, None)] * 3     # one per segment left stranded
    assert rel["forks"]["main"] == 2



def test_torn_last_block_and_extra_segment(latest):
    f = latest.file("heap_killed")
    with open(f, "ab") as fh:
        fh.write(b"\x01" * 100)
    (f.parent / (f.name + ".2")).write_bytes(bytes(BLCKSZ))
    findings, _ = latest.verify("heap_killed")
    codes = {x["code"] for x in findings}
    assert "segment.partial_block" in codes
    assert where(findings, "segment.extra") == [(2 * 131072, None)]


def test_control_and_map_crc(latest):
    ctl = latest.path / "global" / "pg_control"
    data = bytearray(ctl.read_bytes())
    data[40] ^= 0x01
    ctl.write_bytes(bytes(data))
    fmap = latest.path / "global" / "pg_filenode.map"
    m = bytearray(fmap.read_bytes())
    m[12] ^= 0x01
    fmap.write_bytes(bytes(m))
    recs = verify_cluster(latest.path)
    codes = {r["code"] for r in recs if r["type"] == "finding"}
    assert "control.crc.mismatch" in codes
    assert "filenode_map.crc_mismatch" in codes
    # relations are still verified (with a checksum state now unknown: no checksum alarms)
    rels = [r for r in recs if r["type"] == "relation"]
    assert len(rels) >= 40


# ------------------------------------------------------------------------------------ xid bounds
def test_xid_bounds_follow_amcheck_epoch_arithmetic():
    ctx = VerifyContext(next_full_xid=(1 << 32) + 100, oldest_xid=4_000_000_000, relfrozenxid=4_100_000_000)
    xids = np.array([0, 1, 2, 99, 100, 101, 4_200_000_000, 3_999_999_999, 4_050_000_000, 4_100_000_000, 50],
                    dtype=np.int64)
    got = list(xid_bounds(xids, ctx))
    assert got == [XID_INVALID, XID_OK, XID_OK, XID_OK, XID_IN_FUTURE, XID_IN_FUTURE, XID_OK,
                   XID_BEFORE_OLDEST, XID_BEFORE_RELMIN, XID_OK, XID_OK]


def test_mxid_bounds_wrap_around():
    ctx = VerifyContext(next_multi=10, oldest_multi=4_294_967_290, relminmxid=4_294_967_291)
    got = list(mxid_bounds(np.array([0, 4_294_967_291, 5, 9, 10, 4_294_967_290, 2_000_000_000]), ctx))
    assert got == [XID_INVALID, XID_OK, XID_OK, XID_OK, XID_IN_FUTURE, XID_BEFORE_RELMIN, XID_IN_FUTURE]


# ------------------------------------------------------------- the real amcheck, on damaged bytes
@pytest.mark.parametrize("major", (14, 15, 16, 17, 18), ids=lambda m: f"pg{m}")
def test_damage_agrees_with_live_amcheck(major):
    """The same damaged bytes, judged by a real server's verify_heapam and bt_index_check and by
    pgpage: every place amcheck reports, pgpage reports too (with amcheck's own wording where the
    rule is amcheck's). Every major with verify_heapam (14+), Debian's 15 and the pinned npm builds."""
    import re

    import psycopg

    from livepg import major_bindir, running_server

    with running_server(bindir=major_bindir(major)) as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION amcheck")
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, val int, note text) WITH (fillfactor = 70)")
        conn.execute("INSERT INTO t SELECT i, i, CASE WHEN i % 4 = 0 THEN NULL ELSE 'n' || i END"
                     " FROM generate_series(1, 600) i")
        for _ in range(3):
            conn.execute("UPDATE t SET val = val + 1 WHERE id % 3 = 0")   # HOT
        conn.execute("VACUUM t")                                           # redirects
        conn.execute("CHECKPOINT")
        heap = srv.data / conn.execute("SELECT pg_relation_filepath('t')").fetchone()[0]
        index = srv.data / conn.execute("SELECT pg_relation_filepath('t_pkey')").fetchone()[0]
        assert conn.execute("SELECT * FROM verify_heapam('t', check_toast => true)").fetchall() == []
        conn.execute("SELECT bt_index_parent_check('t_pkey', heapallindexed => true)")     # raises on corruption
        conn.close()
        srv.stop("fast")
        assert [verify_relation(srv.data, f"public.{r}", db="postgres")[0] for r in ("t", "t_pkey")] == [[], []]

        # damage, with page checksums recomputed so that the server reads the pages
        from pgpage.decode.control import decode_control
        next_xid = decode_control((srv.data / "global" / "pg_control").read_bytes())["checkPointCopy"]["nextXid"]
        data = bytearray(heap.read_bytes())

        def items(blk):
            return decode_page(bytes(data[blk * BLCKSZ:(blk + 1) * BLCKSZ]), blk, PageContext(am="heap"))["heap_page_items"]

        def off(blk, lp_off):
            return blk * BLCKSZ + lp_off

        it0 = items(0)
        normal = [i for i in it0 if i["lp_flags"] == 1 and i["t_infomask"] & 0x0100]
        data[off(0, normal[0]["lp_off"]) + 22] = 40                                  # t_hoff
        struct.pack_into("<I", data, off(0, normal[1]["lp_off"]), next_xid + 500)    # xmin in the future
        struct.pack_into("<I", data, BLCKSZ * 0 + 24 + 4 * (normal[2]["lp"] - 1),    # lp past the page end
                         8180 | (1 << 15) | (normal[2]["lp_len"] << 17))
        it1 = items(1)
        rd = next(i for i in it1 if i["lp_flags"] == 2)
        target = it1[rd["lp_off"] - 1]
        struct.pack_into("<H", data, off(1, target["lp_off"]) + 18, target["t_infomask2"] & ~0x8000)
        for blk in (0, 1):
            page = bytearray(data[blk * BLCKSZ:(blk + 1) * BLCKSZ])
            page[8:10] = b"\0\0"
            data[blk * BLCKSZ + 8:blk * BLCKSZ + 10] = struct.pack("<H", checksum_page(bytes(page), blk))
        heap.write_bytes(bytes(data))
        idx = bytearray(index.read_bytes())
        leaf = next(b for b in range(1, len(idx) // BLCKSZ)
                    if struct.unpack_from("<H", idx, b * BLCKSZ + BLCKSZ - 4)[0] & 0x1)
        w = struct.unpack_from("<I", idx, leaf * BLCKSZ + 24 + 4 * 1)[0]            # item 2 of a leaf
        ioff = leaf * BLCKSZ + (w & 0x7FFF)
        info = struct.unpack_from("<H", idx, ioff + 6)[0]
        struct.pack_into("<H", idx, ioff + 6, (info & ~0x1FFF) | ((info & 0x1FFF) + 8))
        page = bytearray(idx[leaf * BLCKSZ:(leaf + 1) * BLCKSZ])
        page[8:10] = b"\0\0"
        idx[leaf * BLCKSZ + 8:leaf * BLCKSZ + 10] = struct.pack("<H", checksum_page(bytes(page), leaf))
        index.write_bytes(bytes(idx))

        ours, _ = verify_relation(srv.data, "public.t", db="postgres")
        ours_idx, _ = verify_relation(srv.data, "public.t_pkey", db="postgres")

        srv.restart()
        conn = srv.connect()
        theirs = conn.execute("SELECT blkno, offnum, msg FROM verify_heapam('t', check_toast => false)").fetchall()
        with pytest.raises(psycopg.errors.IndexCorrupted) as err:
            conn.execute("SELECT bt_index_check('t_pkey')")
        conn.close()

    assert len(theirs) >= 4
    for blkno, offnum, msg in theirs:
        here = [f for f in ours if f.get("block") == blkno and f.get("item") == offnum]
        assert here, (blkno, offnum, msg, ours)
        if "redirected line pointer" in msg or "tuple data should begin" in msg or "equals or exceeds" in msg:
            assert any(msg.split(" ")[0] in f["message"] and msg.split(" ")[-1] in f["message"] for f in here), \
                (msg, here)
    tid = re.search(r"Index tid=\((\d+),(\d+)\)", err.value.diag.message_detail or "")
    assert "index tuple size does not equal lp_len" in str(err.value)
    assert tid and ("btree.item.size_mismatch", int(tid[1]), int(tid[2])) in \
        {(f["code"], f.get("block"), f.get("item")) for f in ours_idx}
