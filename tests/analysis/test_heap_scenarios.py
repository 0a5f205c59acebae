"""pgpage heap on the story snapshots (fixtures/scenarios): a bulk load never read, counted,
vacuumed, frozen; HOT on a fillfactor-70 table; a table updated in full. Each figure is checked
against what the server said of the same snapshot (pgstattuple, pg_visibility, pageinspect)."""
from __future__ import annotations

import gzip
import json

import pytest

from conftest import FIXTURES
from pgpage.passes.heap import heap_report
from pgpage.storage.datadir import open_data_directory

SNAP = FIXTURES / "scenarios" / "snapshots"


def oracle(t: str, relname: str) -> dict:
    with gzip.open(SNAP / t / "oracle" / "rel" / f"{relname}.json.gz") as f:
        return json.load(f)


def report(t: str, relname: str) -> dict:
    cluster = open_data_directory(SNAP / t / "data")
    rel = cluster.database(None).relation(f"public.{relname}")
    f = rel.forks
    return heap_report(cluster, f["main"], f.get("vm"), f.get("fsm"), rel.qualified_name, rel.fillfactor)


def pages_with_unhinted_tuples(o: dict) -> int:
    return sum(1 for page in o["forks"]["main"]
               if any(i["t_infomask"] is not None and i["t_infomask"] & 0x0300 == 0 for i in page["heap_page_items"]))


@pytest.mark.parametrize("t,relname", [(t, r) for t in ("t1", "t2", "t3", "t4") for r in ("hint_load", "bloat")]
                         + [(t, "hot") for t in ("t1", "t2", "t3")])
def test_scenario_figures_equal_the_server(t, relname):
    o, r = oracle(t, relname), report(t, relname)
    assert r["pgstattuple"] == o["pgstattuple"]
    vm = o["pg_visibility_map"]
    if r["visibility"]["vm_present"]:
        assert r["visibility"]["vm_all_visible_pages"] == sum(row["all_visible"] for row in vm)
        assert r["visibility"]["vm_all_frozen_pages"] == sum(row["all_frozen"] for row in vm)
    else:
        assert not any(row["all_visible"] or row["all_frozen"] for row in vm)
    assert r["visibility"]["check_visible_tuples"] == len(o["pg_check_visible"])
    assert not [f for f in r["findings"] if f.get("severity") == "error"]


def test_bulk_load_never_read_predicts_a_write_storm():
    o = oracle("t1", "hint_load")
    hb = report("t1", "hint_load")["hint_bits"]
    assert hb["xmin_unhinted"] == o["pgstattuple"]["tuple_count"] == 2000
    assert hb["pages_next_read_will_dirty"] == pages_with_unhinted_tuples(o) > 0
    assert hb["bytes_next_read_will_dirty"] == hb["pages_next_read_will_dirty"] * 8192


def test_after_count_nothing_left_to_hint():
    hb = report("t2", "hint_load")["hint_bits"]
    assert hb["xmin_unhinted"] == 0 == pages_with_unhinted_tuples(oracle("t2", "hint_load"))
    assert hb["pages_next_read_will_dirty"] == 0


def test_vacuum_sets_all_visible_and_freeze_sets_all_frozen():
    v3, v4 = report("t3", "hint_load")["visibility"], report("t4", "hint_load")["visibility"]
    blocks3 = len(oracle("t3", "hint_load")["forks"]["main"])
    assert v3["vm_all_visible_pages"] == blocks3 and v3["vm_all_frozen_pages"] < blocks3
    assert v4["vm_all_frozen_pages"] == v4["vm_all_visible_pages"] == len(oracle("t4", "hint_load")["forks"]["main"])
    f4 = report("t4", "hint_load")["freezing"]
    assert f4["unfrozen_tuples"] == 0 and f4["oldest_unfrozen_xid"] is None


def test_hot_table_chains_and_share():
    o = oracle("t2", "hot")
    r = report("t2", "hot")
    items = [i for p in o["forks"]["main"] for i in p["heap_page_items"]]
    assert r["hot"]["redirects"] == sum(i["lp_flags"] == 2 for i in items) > 0
    assert r["hot"]["heap_only_tuples"] == sum(1 for i in items if i["t_infomask2"] and i["t_infomask2"] & 0x8000)
    assert r["hot"]["non_hot_updated_tuples"] == 0
    assert r["hot"]["hot_update_percent"] == 100.0


def test_full_update_leaves_dead_half_that_vacuum_reclaims():
    r2 = report("t2", "bloat")
    o2 = oracle("t2", "bloat")["pgstattuple"]
    b = r2["bloat"]
    assert b["dead_bytes"] == o2["dead_tuple_len"] > 0
    assert b["vacuum_reclaims_bytes"] >= o2["dead_tuple_len"]
    assert b["size_after_rewrite"] < b["table_len"]
    r3 = report("t3", "bloat")
    assert r3["pgstattuple"]["dead_tuple_count"] == 0
    assert r3["bloat"]["free_bytes"] == oracle("t3", "bloat")["pgstattuple"]["free_space"]
