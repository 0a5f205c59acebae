"""pgpage page through its real entry point, on real fixtures: text, JSON and exit codes."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import data_dir, page_stream_doc, rel_oracle

PGPAGE = [sys.executable, "-m", "pgpage"]


def run(*args):
    return subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=120)


def test_json_heap_page_equals_pageinspect():
    oracle = rel_oracle(17, "heap_hot")
    r = run("page", data_dir(17) / oracle["filepath"], "--block", 0, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "pgpage.page/1" and doc["major"] == 17
    got = doc["pages"][0]["heap_page_items"]
    want = oracle["forks"]["main"][0]["heap_page_items"]
    assert [(g["lp"], g["lp_flags"], g["t_ctid"], g["t_infomask"]) for g in got] == \
           [(w["lp"], w["lp_flags"], w["t_ctid"], w["t_infomask"]) for w in want]


def test_data_directory_target_and_text_output():
    r = run("page", data_dir(15), "--rel", "idx_dup", "--block", 1)
    assert r.returncode == 0, r.stderr
    assert "btree_leaf" in r.stdout and "posting" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 100


def test_all_blocks_of_vm_fork_json():
    oracle = rel_oracle(16, "heap_frozen")
    r = run("page", data_dir(16), "--rel", "public.heap_frozen", "--fork", "vm", "--all", "--json")
    assert r.returncode == 0, r.stderr
    bits = {b["blkno"]: (b["all_visible"], b["all_frozen"]) for p in page_stream_doc(r.stdout)["pages"]
            for b in p["vm"]["bits"]}
    for row in oracle["pg_visibility_map"]:
        assert bits.get(row["blkno"], (False, False)) == (row["all_visible"], row["all_frozen"])


def test_not_a_relation_file_is_refused_in_one_line(tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("this is not a PostgreSQL file\n" * 400)
    r = run("page", bogus)
    assert r.returncode == 3
    assert r.stderr.count("\n") == 1 and "not a PostgreSQL relation file" in r.stderr
    assert "Traceback" not in r.stderr


def test_truncated_last_page_is_a_finding_and_nonzero(tmp_path):
    src = data_dir(13) / rel_oracle(13, "heap_hot")["filepath"]
    torn = tmp_path / "16384"
    torn.write_bytes(src.read_bytes()[:8192 + 3000])
    r = run("page", torn, "--all", "--json")
    assert r.returncode == 1
    doc = page_stream_doc(r.stdout)
    assert any(f["code"] == "segment.partial_block" and f["block"] == 1 for f in doc["findings"])
    assert doc["pages"][0]["page_type"] == "heap"


def test_bad_header_page_gives_a_finding_and_the_next_page_decodes(tmp_path):
    src = data_dir(18) / rel_oracle(18, "heap_hot")["filepath"]
    data = bytearray(src.read_bytes())
    data[12:14] = (9000).to_bytes(2, "little")  # pd_lower of block 0 past pd_upper
    bad = tmp_path / "16384"
    bad.write_bytes(bytes(data))
    r = run("page", bad, "--all", "--json")
    assert r.returncode == 1
    pages = page_stream_doc(r.stdout)["pages"]
    assert any(f["code"] == "page.header.bad_lower" for f in pages[0]["findings"])
    assert pages[1]["heap_page_items"] and not pages[1]["findings"]


def test_usage_errors_exit_2():
    r = run("page", data_dir(15), "--rel", "heap_hot", "--block", 999)
    assert r.returncode == 2 and "outside" in r.stderr
    r = run("page", data_dir(15), "--rel", "no_such_rel")
    assert r.returncode == 2


def test_segment_files_carry_global_block_numbers(tmp_path):
    """A real page copied into segment .1 is block 131072: numbered, and checksummed, globally."""
    src = data_dir(15) / rel_oracle(15, "heap_hot")["filepath"]
    pages = src.read_bytes()
    (tmp_path / "16384").write_bytes(pages)          # segment 0: as the server wrote it
    (tmp_path / "16384.1").write_bytes(pages[:8192])  # segment 1: block 0's image again
    seg1 = page_stream_doc(run("page", tmp_path / "16384.1", "--all", "--json").stdout)
    assert [p["blkno"] for p in seg1["pages"]] == [131072]
    from pgpage.decode.checksum import checksum_page
    assert seg1["pages"][0]["checksum"]["computed"] == checksum_page(pages[:8192], 131072)
    assert any(f["code"] == "checksum.mismatch" for f in seg1["pages"][0]["findings"])
    # the base file stands for the whole fork, gaps and all
    whole = run("page", tmp_path / "16384", "--block", 131072, "--json")
    assert json.loads(whole.stdout)["pages"][0]["blkno"] == 131072
    short = [f for f in page_stream_doc(run("page", tmp_path / "16384", "--all", "--json").stdout)["findings"]
             if f["code"] == "segment.short"]
    assert short  # segment 0 is not a full 1 GiB although segment 1 follows it
