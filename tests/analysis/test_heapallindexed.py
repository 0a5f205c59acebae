"""``verify --heapallindexed`` on the clean fixture clusters of every major (10 to 18): nothing but the note
that the expression index's entries are not compared; every other B-tree of the fixtures is compared with
its table (HOT chains, pruned chains, killed items, deduplicated and INCLUDE indexes among them).
The damage side is tests/analysis/test_btree_order_live.py, against the live amcheck of 11, 13, 15 and 18."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import MAJORS, data_dir
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import open_data_directory


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_clean_fixture_indexes_have_every_row(major):
    cluster = open_data_directory(data_dir(major))
    v = Verification(cluster)
    v.heapallindexed = True
    found, compared = {}, 0
    for rel in cluster.database("pgpage").relations():
        if rel.access_method == "btree" and rel.forks.get("main") and rel.table is not None:
            recs = [r for r in v.relation_records(v.subject_of(rel)) if r["type"] == "finding"]
            found.update({rel.name: [(r["code"], r["message"]) for r in recs]} if recs else {})
            compared += not recs
    assert found == {"idx_del": [("btree.heapallindexed.not_checked", "heapallindexed not checked: expression index")]}
    assert compared >= 15


def test_cli_option():
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(data_dir(MAJORS[-1])), "--db", "pgpage", "--rel",
                        "public.idx_two", "--heapallindexed"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "result: clean" in r.stdout
