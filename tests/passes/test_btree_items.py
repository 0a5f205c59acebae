"""The export's ``btree_items`` read as arrays (passes/btree_items.py) equal `index --block`'s decoding of every
page (``page_view``, which tests/analysis compares with pageinspect's bt_page_items): item for item, every field
and key, on every B-tree of every fixture major (user indexes and the catalogs' own, of name, oid, oidvector and
text keys; posting lists, pivots with and without a heap TID, high keys, dead items)."""
from __future__ import annotations

import pytest

from conftest import FIXTURES, REQUIRED_MAJORS, data_dir
from pgpage.passes import export
from pgpage.passes.btree_items import _page_rows
from pgpage.passes.index import index_info
from pgpage.storage.datadir import open_data_directory
from pgpage.storage.target import relation_target

pytest.importorskip("pyarrow")
STORIES_MAJORS = (10, 15, 18)


def page_by_page(cluster, rel) -> list[dict]:
    ctx = relation_target(cluster, rel).context
    attrs = index_info(rel, rel.database).attributes
    return [row for first, chunk in rel.forks["main"].iter_chunks() for i in range(chunk.shape[0])
            for row in _page_rows(chunk[i].tobytes(), first + i, ctx, attrs)]


def compared(path) -> dict:
    """Every B-tree of every database of the cluster at ``path`` read both ways, asserted equal; what was met."""
    cluster = open_data_directory(path)
    checked = {"posting": 0, "pivot_htid": 0, "high_key": 0, "null_key": 0, "items": 0}
    for db in cluster.databases():
        for rel in db.relations():
            fork = rel.forks.get("main")
            if rel.kind != "i" or rel.access_method != "btree" or fork is None or not fork.exists:
                continue
            want = page_by_page(cluster, rel)
            got = [r for b in export.btree_item_batches(cluster, rel) for r in b.to_pylist()]
            assert [{k: r[k] for k in w} for r, w in zip(got, want)] == want and len(got) == len(want), rel.name
            checked["items"] += len(want)
            checked["posting"] += sum(r["posting"] for r in want)
            checked["pivot_htid"] += sum(not r["leaf"] and r["htid"] is not None for r in want)
            checked["high_key"] += sum(r["high_key"] for r in want)
            checked["null_key"] += sum(r["key"] is not None and None in r["key"] for r in want)
    return checked


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_items_equal_page_view(major):
    checked = compared(data_dir(major))
    assert checked["items"] > 2000 and checked["high_key"] >= 10, checked
    if major >= 13:       # (deduplication and heap TIDs in pivots: 13+ and 12+)
        assert checked["posting"] > 0 and checked["pivot_htid"] > 0, checked
    if major == 10:
        assert checked["null_key"] > 0, checked


@pytest.mark.parametrize("major", STORIES_MAJORS)
def test_stories_items_equal_page_view(major):
    """The stories' B-trees (their expression and multicolumn indexes after the update pass)."""
    assert compared(FIXTURES / "stories" / f"pg{major}" / "data")["items"] > 2000
