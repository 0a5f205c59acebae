"""pgpage heap's figures against what the servers said: pageinspect items, pg_visibility, pgstattuple."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import all_rel_cases, data_dir, rel_oracle
from pgpage.passes.heap import heap_report
from pgpage.passes.scan import vm_counts
from pgpage.storage.datadir import open_data_directory

HEAP_CASES = [(m, r) for m, r in all_rel_cases() if rel_oracle(m, r)["relkind"] in "rtm"
              and rel_oracle(m, r)["forks"].get("main")]


def report(major: int, relname: str) -> dict:
    cluster = open_data_directory(data_dir(major))
    rel = cluster.database(None).relation(f"{rel_oracle(major, relname)['nspname']}.{relname}")
    return heap_report(cluster, rel.forks["main"], rel.forks.get("vm"), rel.forks.get("fsm"),
                              rel.qualified_name)


def oracle_items(oracle: dict):
    for page in oracle["forks"]["main"]:
        yield from page.get("heap_page_items", [])


@pytest.mark.parametrize("major,relname", HEAP_CASES, ids=lambda v: f"pg{v}" if isinstance(v, int) else v)
def test_heap_report_agrees_with_the_server(major, relname):
    oracle = rel_oracle(major, relname)
    r = report(major, relname)
    assert r["pgstattuple"] == oracle["pgstattuple"]
    items = list(oracle_items(oracle))
    normal = [i for i in items if i["lp_flags"] == 1 and i["t_infomask2"] is not None]
    lp = r["line_pointers"]
    assert (lp["lp_unused"], lp["lp_normal"], lp["lp_redirect"], lp["lp_dead"]) == tuple(
        sum(1 for i in items if i["lp_flags"] == f) for f in range(4))
    assert r["hot"]["redirects"] == lp["lp_redirect"]
    assert r["hot"]["heap_only_tuples"] == sum(1 for i in normal if i["t_infomask2"] & 0x8000)
    assert r["hot"]["hot_updated_tuples"] == sum(1 for i in normal if i["t_infomask2"] & 0x4000)
    hb = r["hint_bits"]
    assert hb["xmin_frozen"] == sum(1 for i in normal if i["t_infomask"] & 0x0300 == 0x0300)
    assert hb["xmin_committed"] == sum(1 for i in normal if i["t_infomask"] & 0x0300 == 0x0100)
    assert hb["xmin_unhinted"] == sum(1 for i in normal if i["t_infomask"] & 0x0300 == 0)
    # pg_visibility: the VM bits and PD_ALL_VISIBLE, and no tuple that pg_check_visible/frozen would list
    vis = r["visibility"]
    if oracle.get("pg_visibility") is not None:
        assert vis["pd_all_visible_pages"] == sum(1 for row in oracle["pg_visibility"] if row["pd_all_visible"])
    if "vm" in oracle["forks"]:
        assert vis["vm_all_visible_pages"] == sum(1 for row in oracle["pg_visibility_map"] if row["all_visible"])
        assert vis["vm_all_frozen_pages"] == sum(1 for row in oracle["pg_visibility_map"] if row["all_frozen"])
        assert vis["check_frozen_tuples"] == len(oracle["pg_check_frozen"])
    assert vis["check_visible_tuples"] == len(oracle["pg_check_visible"])
    assert r["undecided_tuples"] == 0
    errors = [f for f in r["findings"] if f.get("severity") == "error"]
    assert not errors, errors  # clean fixtures: no false alarms


EMPTY_CASES = [(m, r) for m, r in all_rel_cases() if rel_oracle(m, r)["relkind"] in "rtm"
               and rel_oracle(m, r)["pgstattuple"]["table_len"] == 0]


@pytest.mark.parametrize("major,relname", EMPTY_CASES, ids=lambda v: f"pg{v}" if isinstance(v, int) else v)
def test_empty_table_visibility_is_the_servers(major, relname):
    """A table without a block has no VM fork; the server counts no page all-visible or all-frozen, and so
    does pgpage (where a table with pages but no VM fork gets None: its map may have been lost)."""
    oracle = rel_oracle(major, relname)
    vis = report(major, relname)["visibility"]
    assert "vm" not in oracle["forks"] and not vis["vm_present"]
    assert (vis["vm_all_visible_pages"], vis["vm_all_frozen_pages"]) == (
        sum(1 for row in oracle["pg_visibility_map"] if row["all_visible"]),
        sum(1 for row in oracle["pg_visibility_map"] if row["all_frozen"]))
    assert vis["check_frozen_tuples"] == len(oracle["pg_check_frozen"])
    rel = open_data_directory(data_dir(major)).database(None).relation(f"{oracle['nspname']}.{relname}")
    assert vm_counts(rel.forks.get("vm"), rel.forks["main"].nblocks) == (
        vis["vm_all_visible_pages"], vis["vm_all_frozen_pages"])   # what `scan` shows


def test_hot_chains_are_found(major):
    hot = report(major, "heap_hot")["hot"]
    assert hot["chains"] >= hot["redirects"] > 0
    assert hot["longest_chain"]["length"] >= 2
    assert hot["hot_update_percent"] > 50


def test_broken_hot_chain_is_a_finding(tmp_path):
    """Rewrite a real heap-only tuple's xmin in a copy: the chain's xmin check must name that item."""
    import shutil
    from pgpage.decode.page import decode_page
    from pgpage.decode.pagebase import PageContext
    src = data_dir(15)
    dst = tmp_path / "data"
    shutil.copytree(src, dst)
    cluster = open_data_directory(dst)
    rel = cluster.database(None).relation("public.heap_hot")
    path = rel.directory / rel.file_stem
    data = bytearray(path.read_bytes())
    for blkno in range(len(data) // 8192):
        items = decode_page(bytes(data[blkno * 8192:(blkno + 1) * 8192]), blkno, PageContext(major=15))["heap_page_items"]
        by_lp = {i["lp"]: i for i in items}
        succ = [by_lp[int(i["t_ctid"].split(",")[1][:-1])] for i in items if i["t_infomask2"] is not None
                and i["t_infomask2"] & 0x4000 and i["t_ctid"].startswith(f"({blkno},")]
        if succ:
            break
    victim = succ[0]
    off = blkno * 8192 + victim["lp_off"]
    data[off:off + 4] = (victim["t_xmin"] + 1000).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    r = heap_report(open_data_directory(dst), rel.forks["main"], None, None, "public.heap_hot")
    hits = [f for f in r["findings"] if f["code"] == "heap.hot.xmin_mismatch"]
    assert hits and hits[0]["block"] == blkno
    assert r["pgstattuple"]["table_len"] == 16384  # the rest of the relation is still analysed


def test_heap_cli_text_and_json():
    base = [sys.executable, "-m", "pgpage", "heap", str(data_dir(17)), "--rel", "heap_hot"]
    text = subprocess.run([*base, "--map", "dead"], capture_output=True, text=True, timeout=120)
    assert text.returncode == 0, text.stderr
    assert "HOT" in text.stdout and "page map (dead)" in text.stdout
    assert max(len(line) for line in text.stdout.splitlines()) <= 100
    doc = json.loads(subprocess.run([*base, "--json"], capture_output=True, text=True, timeout=120).stdout)
    assert doc["schema"] == "pgpage.heap/1"
    assert doc["pgstattuple"] == rel_oracle(17, "heap_hot")["pgstattuple"]
    assert doc["fillfactor"] == 70


def test_heap_cli_refuses_an_index():
    r = subprocess.run([sys.executable, "-m", "pgpage", "heap", str(data_dir(17)), "--rel", "idx_dup"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "not a heap" in r.stderr
