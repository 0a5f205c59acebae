"""pgstattuple's figures computed offline equal pgstattuple's on every fixture table of every major."""
from __future__ import annotations

import pytest

from conftest import all_rel_cases, data_dir, rel_oracle
from pgpage.passes.heap import scan_fork
from pgpage.storage.datadir import open_data_directory

HEAP_CASES = [(m, r) for m, r in all_rel_cases()
              if rel_oracle(m, r)["relkind"] in "rtm" and "pgstattuple" in rel_oracle(m, r)]


@pytest.mark.parametrize("major,relname", HEAP_CASES, ids=lambda v: f"pg{v}" if isinstance(v, int) else v)
def test_pgstattuple_offline(major, relname):
    oracle = rel_oracle(major, relname)
    cluster = open_data_directory(data_dir(major))
    rel = cluster.database(None).relation(f"{oracle['nspname']}.{relname}")
    main = rel.forks.get("main")
    if main is None:  # no file at all is only right for an empty relation
        assert oracle["pgstattuple"]["table_len"] == 0
        return
    _, stats = scan_fork(cluster, main, checksums=False, heap=True)
    assert stats.pgstattuple() == oracle["pgstattuple"]
    assert stats.undecided_count == 0


def test_there_are_enough_cases():
    assert len(HEAP_CASES) >= 150
