"""`rows` finds TOASTed values through the TOAST table's index (``analysis.btree.toastindex``), as the server does,
instead of placing every chunk of the TOAST table first: on real servers of a major whose index keeps whole high
keys (10: B-tree version 2) and one that truncates them (15: version 4), every value of every row version (live,
deleted, and inserted by an aborted transaction) equals what placing every chunk gives, with no chunk placed; and
where the index is damaged, behind its table (a crash copy), or its TOAST table is damaged, each value still
equals the placement's answer."""
from __future__ import annotations

import random
import shutil
import struct

import pytest

from livepg import major_bindir, running_server
from conftest import damaged
from test_rows_csv_kernel import _same_value, _toast_pointers

from pgpage.passes.toast import ToastStore, toast_index
from pgpage.storage.datadir import open_data_directory

IGNORE = shutil.ignore_patterns("postmaster.pid", "pg_wal")


def _values(data, pointers, with_index: bool):
    cluster = open_data_directory(data)
    toast = cluster.database("postgres").relation("t_doc").toast
    store = ToastStore(toast, cluster.clog, 1996, toast_index(toast) if with_index else None)
    return store, list(store.fetch(pointers))


def _files(data):
    rel = open_data_directory(data).database("postgres").relation("t_doc")
    index = next(r for r in rel.database.relations() if r.table is rel.toast)
    return rel.toast.forks["main"].segment_path(0), index.forks["main"].segment_path(0)


@pytest.mark.parametrize("major", [10, 15])
def test_toast_values_through_the_index(major, tmp_path):
    with running_server(bindir=major_bindir(major)) as srv:
        conn = srv.connect()
        conn.execute("CREATE TABLE t_doc (id int, doc text)")
        conn.execute("ALTER TABLE t_doc ALTER doc SET STORAGE EXTERNAL")
        # 1 to 12 chunks a value: about 2,400 chunks, a TOAST index of several leaves under a root
        conn.execute("INSERT INTO t_doc SELECT g, repeat(md5(g::text), 1 + (g * 37) % 760)"
                     " FROM generate_series(1, 400) g")
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t_doc SELECT g, repeat(md5(g::text), 300) FROM generate_series(1000, 1019) g")
        conn.execute("ROLLBACK")
        conn.execute("DELETE FROM t_doc WHERE id % 10 = 0")
        conn.execute("CHECKPOINT")
        shutil.copytree(srv.data, tmp_path / "before", ignore=IGNORE)
        conn.execute("INSERT INTO t_doc SELECT g, repeat(md5(g::text), 200) FROM generate_series(2000, 2029) g")
        conn.execute("CHECKPOINT")
        shutil.copytree(srv.data, tmp_path / "data", ignore=IGNORE)
    data = tmp_path / "data"
    cluster = open_data_directory(data)
    pointers = _toast_pointers(cluster, cluster.database("postgres").relation("t_doc"))
    assert len(pointers) > 400
    store, got = _values(data, pointers, True)
    assert store.index._metapage()[1] >= 1               # a root above the leaves
    assert store.index is not None and store._every is None   # nothing but the index and the values' pages read
    _, want = _values(data, pointers, False)
    assert all(isinstance(v, bytes) for v in got) and got == want
    # one value at a time (fetched together, the values after the first are found along the leaves): each a
    # descent from the root
    assert [store.fetch([p])[0] for p in pointers] == want and store._every is None
    for step in (7, 60, 150):   # values sparse among the leaves: some a leaf apart, some further
        assert list(store.fetch(pointers[::step])) == want[::step] and store._every is None

    toast_file, index_file = _files(data)
    toast_bytes, index_bytes = toast_file.read_bytes(), index_file.read_bytes()
    # the index as a crash copy may hold it: from before the last 30 values were stored
    index_file.write_bytes(_files(tmp_path / "before")[1].read_bytes())
    store, got = _values(data, pointers, True)
    assert store.index is not None and store._every is not None and got == want
    # the root's first downlink (every descent here starts there) past the index's end: it cannot be followed
    root = struct.unpack_from("<I", index_bytes, 24 + 8)[0] * 8192
    lp = struct.unpack_from("<I", index_bytes, root + 24)[0] & 0x7FFF
    broken = bytearray(index_bytes)
    struct.pack_into("<HH", broken, root + lp, 0x7FFF, 0)
    index_file.write_bytes(bytes(broken))
    store, got = _values(data, pointers, True)
    assert store.index is None and got == want
    rng = random.Random(major)
    for changes in (5, 50, 500):
        index_file.write_bytes(damaged(index_bytes, rng, changes))
        assert _values(data, pointers, True)[1] == want
    index_file.write_bytes(index_bytes)
    for changes in (5, 50, 500):
        toast_file.write_bytes(damaged(toast_bytes, rng, changes))
        store, got = _values(data, pointers, True)
        assert all(_same_value(a, b) for a, b in zip(got, _values(data, pointers, False)[1]))
