"""`page --hex`'s byte ranges against pageinspect: every heap and B-tree fixture page of every major.

The oracle's page header (pd_lower, pd_upper, pd_special), heap_page_items (lp_off, lp_len, t_hoff, t_bits,
t_data) and bt_page_items (ctid, itemlen, data) say where each structure is; the ranges must say the same,
cover the page once, and their bytes must be what pageinspect read there.
"""
from __future__ import annotations

import pytest

from conftest import MAJORS, data_dir, rel_names, rel_oracle
from pgpage.decode.hexmap import hex_records
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.storage.relfile import RelationFork

BLCKSZ = 8192


def cases():
    out = []
    for m in MAJORS:
        for r in rel_names(m):
            oracle = rel_oracle(m, r)
            heap = oracle["relkind"] in ("r", "t", "m")  # amname is None before 12 (no table access methods)
            if (heap or oracle.get("amname") == "btree") and oracle["forks"].get("main"):
                out.append((m, r))
    return out


def by(ranges, structure):
    return {r["lp"]: r for r in ranges if r["structure"] == structure}


def tid(b: bytes) -> str:
    return f"({int.from_bytes(b[0:2], 'little') << 16 | int.from_bytes(b[2:4], 'little')},{int.from_bytes(b[4:6], 'little')})"


@pytest.mark.parametrize("major,relname", cases(), ids=lambda v: f"pg{v}" if isinstance(v, int) else v)
def test_ranges_equal_pageinspect(major, relname):
    oracle = rel_oracle(major, relname)
    path = data_dir(major) / oracle["filepath"]
    relfork = RelationFork(path.parent, path.name, "main")
    ctx = PageContext(am=oracle["amname"], major=major, relation=relname)
    compared = 0
    for want in oracle["forks"]["main"]:
        raw = relfork.read_block(want["blkno"])
        page = decode_page(raw, want["blkno"], ctx)
        ranges = hex_records(raw, page)
        where = f"{relname} block {want['blkno']}"
        if not any(raw):
            assert [(r["start"], r["end"], r["structure"]) for r in ranges] == [(0, BLCKSZ, "zeroes")]
            continue
        # a healthy page: the ranges tile it, no gap, no overlap, and each carries its own bytes
        assert ranges[0]["start"] == 0 and ranges[-1]["end"] == BLCKSZ, where
        assert all(a["end"] == b["start"] for a, b in zip(ranges, ranges[1:])), where
        assert all(bytes.fromhex(r["hex"]) == raw[r["start"]:r["end"]] for r in ranges), where
        h = want["page_header"]
        assert (ranges[0]["start"], ranges[0]["end"], ranges[0]["structure"]) == (0, 24, "page_header")
        special = [r for r in ranges if r["structure"] == "special"]
        assert [(r["start"], r["end"]) for r in special] == ([(h["special"], BLCKSZ)] if h["special"] < BLCKSZ else [])
        free = [(r["start"], r["end"]) for r in ranges if r["structure"] == "free_space"]
        assert free == ([(h["lower"], h["upper"])] if h["lower"] < h["upper"] else []), where
        lps = by(ranges, "line_pointer")
        if "heap_page_items" in want:
            items = want["heap_page_items"]
            assert sorted(lps) == [it["lp"] for it in items], where
            for it in items:
                n, off = it["lp"], it["lp_off"]
                word = int.from_bytes(bytes.fromhex(lps[n]["hex"]), "little")
                assert (word & 0x7FFF, word >> 15 & 3, word >> 17) == (off, it["lp_flags"], it["lp_len"]), where
                assert lps[n]["start"] == 24 + 4 * (n - 1)
                if it["t_hoff"] is None:
                    assert not [r for r in ranges if r["lp"] == n and r["structure"] != "line_pointer"], where
                    continue
                header = by(ranges, "tuple_header")[n]
                assert (header["start"], header["end"]) == (off, off + 23), where
                bitmap = by(ranges, "null_bitmap").get(n)
                if it["t_bits"] is None:
                    assert bitmap is None, where
                else:
                    bits = bytes.fromhex(bitmap["hex"])
                    assert bitmap["start"] == off + 23
                    assert "".join("1" if bits[i >> 3] >> (i & 7) & 1 else "0" for i in range(len(bits) * 8)) \
                        == it["t_bits"], where
                data = by(ranges, "tuple_data").get(n)
                want_data = (it["t_data"] or "").removeprefix("\\x")
                assert (data["hex"] if data else "") == want_data, f"{where} lp {n}"
                if data:
                    assert (data["start"], data["end"]) == (off + it["t_hoff"], off + it["lp_len"]), where
                compared += 1
        if "bt_page_items" in want:
            items = want["bt_page_items"]
            assert sorted(lps) == [it["itemoffset"] for it in items], where
            headers, datas = by(ranges, "tuple_header"), by(ranges, "tuple_data")
            for it in items:
                n = it["itemoffset"]
                word = int.from_bytes(bytes.fromhex(lps[n]["hex"]), "little")
                own = [r for r in ranges if r["lp"] == n and r["structure"] != "line_pointer"]
                assert own[0]["start"] == word & 0x7FFF and own[-1]["end"] - own[0]["start"] == word >> 17, where
                assert sum(r["end"] - r["start"] for r in own) == word >> 17, where
                assert tid(bytes.fromhex(headers[n]["hex"])) == it["ctid"], f"{where} item {n}"
                assert headers[n]["end"] - headers[n]["start"] == 8
                if it["itemlen"] == word >> 17:  # pageinspect's itemlen is IndexTupleSize; lp_len is the same here
                    assert sum(r["end"] - r["start"] for r in own) == it["itemlen"], where
                got_data = " ".join(f"{b:02x}" for b in bytes.fromhex(datas[n]["hex"])) if n in datas else ""
                assert got_data == it["data"], f"{where} item {n}"
                assert [r["structure"] for r in own if r["structure"] == "posting_list"] == \
                    (["posting_list"] if it.get("tids") else []), where
                compared += 1
    assert compared or relname.startswith(("idx_", "pg_toast")) or not any(
        p.get("heap_page_items") or p.get("bt_page_items") for p in oracle["forks"]["main"])


def test_one_item_and_cli(tmp_path):
    """--item N keeps only line pointer N and its item; the CLI prints them (text and JSON)."""
    import json
    import subprocess
    import sys
    oracle = rel_oracle(16, "heap_hot")
    f = data_dir(16) / oracle["filepath"]
    it = next(i for i in oracle["forks"]["main"][0]["heap_page_items"] if i["t_data"])
    r = subprocess.run([sys.executable, "-m", "pgpage", "page", str(f), "--block", "0", "--hex", "--item",
                        str(it["lp"]), "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    ranges = json.loads(r.stdout)["pages"][0]["hex"]
    assert {x["lp"] for x in ranges} == {it["lp"]}
    assert [x["structure"] for x in ranges][:2] == ["line_pointer", "tuple_header"]
    assert ranges[-1]["hex"] == it["t_data"].removeprefix("\\x")
    r = subprocess.run([sys.executable, "-m", "pgpage", "page", str(f), "--hex", "--item", str(it["lp"])],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    off = it["lp_off"] + it["t_hoff"]
    assert f"{off}..{it['lp_off'] + it['lp_len']} tuple_data  lp {it['lp']}" in r.stdout
    data = it["t_data"].removeprefix("\\x")
    assert f"{off:04x}: " + " ".join(data[i:i + 2] for i in range(0, 32, 2)) in r.stdout
    r = subprocess.run([sys.executable, "-m", "pgpage", "page", str(f), "--item", "1"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "--hex" in r.stderr and "Traceback" not in r.stderr
