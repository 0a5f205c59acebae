"""Issue 23, item 4: damage that used to escape as "internal error" (exit 3) is a finding instead.

Each case mutates a copy of a real fixture cluster in tmp_path, recomputes the page checksum when
the test is about logic past it, and runs pgpage through its real entry point.
"""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path

from conftest import data_dir, page_stream_doc, rel_oracle
from pgpage.decode.checksum import checksum_page

PGPAGE = [sys.executable, "-m", "pgpage"]
BS = 8192
BT_IS_POSTING = 0x2000
INDEX_ALT_TID_MASK = 0x2000


def run(*args):
    return subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=180)


def copy_cluster(major: int, tmp_path: Path) -> Path:
    dst = tmp_path / "data"
    shutil.copytree(data_dir(major), dst)
    return dst


def no_escape(r) -> None:
    assert r.returncode in (0, 1), (r.returncode, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def reseal(buf: bytearray, blkno: int) -> None:
    """Recompute one page's checksum, so the checks past it are what the test exercises."""
    pg = blkno * BS
    struct.pack_into("<H", buf, pg + 8, checksum_page(bytes(buf[pg:pg + BS]), blkno))


def zero_pd_upper(path: Path, blkno: int) -> None:
    buf = bytearray(path.read_bytes())
    struct.pack_into("<H", buf, blkno * BS + 14, 0)
    reseal(buf, blkno)
    path.write_bytes(buf)


def codes(doc: dict) -> set[str]:
    return {f["code"] for p in doc["pages"] for f in p["findings"]} | {f["code"] for f in doc["findings"]}


def test_pd_upper_zero_on_a_heap_page_is_a_finding_in_page(tmp_path):
    data = copy_cluster(17, tmp_path)
    heap = data / rel_oracle(17, "heap_hot")["filepath"]
    zero_pd_upper(heap, 0)
    r = run("page", heap, "--block", 0)
    no_escape(r)
    assert r.returncode == 1 and "page.new_not_zeroed" in r.stdout
    r = run("page", heap, "--all", "--json")
    no_escape(r)
    doc = page_stream_doc(r.stdout)
    assert "page.new_not_zeroed" in codes(doc)
    assert "checksum.mismatch" not in codes(doc)  # resealed: only the header rule is broken


def test_pd_upper_zero_on_a_heap_page_is_a_finding_in_heap_and_rows(tmp_path):
    """heap and rows used to count the page as new and drop its rows in silence (exit 0)."""
    import gzip
    data = copy_cluster(17, tmp_path)
    heap = data / rel_oracle(17, "heap_hot")["filepath"]
    zero_pd_upper(heap, 0)
    nonzero = sum(1 for b in heap.read_bytes()[:BS] if b)
    with gzip.open(data_dir(17).parent / "oracle" / "rows" / "heap_hot.json.gz") as f:
        server_rows = json.load(f)["rows"]             # ctid, xmin, xmax, columns, as the server read them
    assert rel_oracle(17, "heap_hot")["pgstattuple"]["tuple_count"] == len(server_rows)
    left = [r for r in server_rows if not r[0].startswith("(0,")]
    assert 0 < len(left) < len(server_rows)
    r = run("heap", data, "--db", "pgpage", "--rel", "heap_hot", "--json")
    no_escape(r)
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert [(f["code"], f["severity"], f["block"], f["actual"]) for f in doc["findings"]
            if f["code"].startswith("page.")] == [("page.new_not_zeroed", "error", 0, nonzero)]
    assert doc["pgstattuple"]["tuple_count"] == len(left)   # block 1's rows, nothing made up for block 0
    r = run("heap", data, "--db", "pgpage", "--rel", "heap_hot")
    assert r.returncode == 1 and "page.new_not_zeroed" in r.stdout
    for extra in ((), ("--csv",)):
        r = run("rows", data, "--db", "pgpage", "--rel", "heap_hot", *extra)
        no_escape(r)
        assert r.returncode == 1
        assert "error page.new_not_zeroed: block 0" in r.stderr and "the page's rows are not read" in r.stderr
    r = run("rows", data, "--db", "pgpage", "--rel", "heap_hot", "--json")
    assert r.returncode == 1
    assert [(x["ctid"], str(x["xmin"]), str(x["xmax"])) for x in map(json.loads, r.stdout.splitlines())] == [
        tuple(row[:3]) for row in left]


def test_pd_upper_zero_on_the_btree_root_is_a_finding_in_page_and_index(tmp_path):
    data = copy_cluster(17, tmp_path)
    oracle = rel_oracle(17, "idx_dup")
    root = oracle["bt_metap"]["root"]
    assert root > 0
    index_file = data / oracle["filepath"]
    zero_pd_upper(index_file, root)
    r = run("page", index_file, "--block", root)
    no_escape(r)
    assert r.returncode == 1 and "page.new_not_zeroed" in r.stdout
    for extra in ((), ("--json",)):
        r = run("index", data, "--db", "pgpage", "--rel", "idx_dup", *extra)
        no_escape(r)
        assert r.returncode == 1
        assert "btree.meta.bad_root" in r.stdout  # the metapage's root is no live page
    r = run("index", index_file)
    no_escape(r)
    assert r.returncode == 1
    # the page is not all zeros: page.new_not_zeroed (as `page` says it), never "an all-zero (new) page"
    nonzero = sum(1 for b in index_file.read_bytes()[root * BS:(root + 1) * BS] if b)
    assert nonzero > 0
    want = ("page.new_not_zeroed", "error", root, nonzero, "pd_upper is 0 (a new page) but the page is not all zeros")
    doc = json.loads(run("index", data, "--db", "pgpage", "--rel", "idx_dup", "--json").stdout)
    at_root = [(f["code"], f["severity"], f["block"], f.get("actual"), f["message"]) for f in doc["findings"]
               if f.get("block") == root]
    assert at_root == [want]
    r = run("verify", data, "--db", "pgpage", "--rel", "idx_dup", "--json")
    assert r.returncode == 1
    found = [json.loads(line) for line in r.stdout.splitlines() if json.loads(line).get("type") == "finding"]
    assert [(f["code"], f["severity"], f["block"], f.get("actual"), f["message"]) for f in found
            if f.get("block") == root] == [want]
    assert "all-zero" not in r.stdout


def test_posting_lists_with_no_tids_are_findings_in_index_text_and_json(tmp_path):
    data = copy_cluster(17, tmp_path)
    oracle = rel_oracle(17, "idx_dup")
    index_file = data / oracle["filepath"]
    buf = bytearray(index_file.read_bytes())
    mutated = 0
    for blkno in range(1, len(buf) // BS):
        pg = blkno * BS
        lower = struct.unpack_from("<H", buf, pg + 12)[0]
        for i in range((lower - 24) // 4):
            lp = struct.unpack_from("<I", buf, pg + 24 + 4 * i)[0]
            off = lp & 0x7FFF
            if not off or (lp >> 15) & 3 != 1:
                continue
            posid, t_info = struct.unpack_from("<HH", buf, pg + off + 4)
            if t_info & INDEX_ALT_TID_MASK and posid & BT_IS_POSTING:
                struct.pack_into("<H", buf, pg + off + 4, BT_IS_POSTING)  # a posting list of 0 TIDs
                mutated += 1
        reseal(buf, blkno)
    assert mutated >= 1  # the fixture has posting lists, and every one of them now holds no TID
    index_file.write_bytes(buf)
    r = run("index", data, "--db", "pgpage", "--rel", "idx_dup")
    no_escape(r)
    assert r.returncode == 1 and "btree.posting.too_few" in r.stdout
    r = run("index", data, "--db", "pgpage", "--rel", "idx_dup", "--json")
    no_escape(r)
    doc = json.loads(r.stdout)
    assert sum(f["code"] == "btree.posting.too_few" for f in doc["findings"]) == mutated


def test_dangling_tablespace_symlink_is_a_finding(tmp_path):
    data = copy_cluster(16, tmp_path)
    clean = run("verify", data, "--db", "pgpage", "--json")
    no_escape(clean)
    assert "tablespace.link_dangling" not in clean.stdout
    (data / "pg_tblspc" / "99999").symlink_to(tmp_path / "gone" / "tablespace")
    for extra in ((), ("--json",)):
        r = run("verify", data, "--db", "pgpage", *extra)
        no_escape(r)
        assert r.returncode == 1 and "tablespace.link_dangling" in r.stdout
        assert "pg_tblspc/99999" in r.stdout


def test_btree_metapage_with_the_wrong_special_size_is_not_clean(tmp_path):
    data = copy_cluster(17, tmp_path)
    index_file = data / rel_oracle(17, "idx_dup")["filepath"]
    buf = bytearray(index_file.read_bytes())
    struct.pack_into("<H", buf, 16, BS - 8)  # pd_special 8184: an 8-byte special area, as GIN's
    reseal(buf, 0)
    index_file.write_bytes(buf)
    for target in ((data, "--db", "pgpage", "--rel", "idx_dup"), (index_file,)):
        r = run("verify", *target)
        no_escape(r)
        assert r.returncode == 1 and "btree.page.bad_special_size" in r.stdout, r.stdout
    want = {"code": "btree.page.bad_special_size", "severity": "error", "block": 0, "expected": BS - 16,
            "actual": BS - 8, "message": "index contains corrupted page at block 0: its special area is 8 bytes,"
                                         " a B-tree page's is 16"}
    r = run("verify", data, "--db", "pgpage", "--rel", "idx_dup", "--json")
    found = [json.loads(line) for line in r.stdout.splitlines() if json.loads(line).get("type") == "finding"]
    assert [{k: f[k] for k in want} for f in found if f["code"] == want["code"]] == [want]   # once
    # `page` on the index the catalog names a B-tree: not decoded as a GIN page (8-byte special space)
    for extra in (("--block", 0), ("--blocks", "0:1")):
        r = run("page", data, "--db", "pgpage", "--rel", "idx_dup", *extra, "--json")
        no_escape(r)
        assert r.returncode == 1, r.stdout
        page = page_stream_doc(r.stdout)["pages"][0] if extra[0] == "--blocks" else json.loads(r.stdout)["pages"][0]
        assert page["page_type"] == "unknown" and "special" not in page
        assert [{k: f[k] for k in want} for f in page["findings"]] == [want]
    r = run("page", data, "--db", "pgpage", "--rel", "idx_dup", "--block", 0)
    assert r.returncode == 1 and "btree.page.bad_special_size" in r.stdout and "gin" not in r.stdout, r.stdout
    # the index's file inside its data directory names the same relation: the catalog's B-tree, as with --rel
    r = run("page", index_file, "--block", 0, "--json")
    assert r.returncode == 1 and [{k: f[k] for k in want} for f in json.loads(r.stdout)["pages"][0]["findings"]] \
        == [want], r.stdout
    # a copy of the file outside any data directory has no catalog: its special space decides, as ever
    alone = tmp_path / "alone" / index_file.name
    alone.parent.mkdir()
    alone.write_bytes(buf)
    r = run("page", alone, "--block", 0, "--json")
    page = json.loads(r.stdout)["pages"][0]
    assert page["page_type"] == "gin", r.stdout
    # read as GIN (decoded since issue 41), a B-tree metapage's bytes are no GIN entry items: findings, exit 1
    assert r.returncode == 1 and page["findings"] and {f["code"] for f in page["findings"]} <= {
        "gin.item.out_of_bounds"}, r.stdout
    # `index` checks the metapage's special space as _bt_checkpage does
    r = run("index", data, "--db", "pgpage", "--rel", "idx_dup", "--json")
    no_escape(r)
    assert r.returncode == 1
    assert [{k: f[k] for k in want} for f in json.loads(r.stdout)["findings"] if f["code"] == want["code"]] == [want]
    r = run("index", data, "--db", "pgpage", "--rel", "idx_dup")
    assert r.returncode == 1 and "btree.page.bad_special_size" in r.stdout and "structure: no findings" not in r.stdout
