"""`page --block 0` of an index metapage, for people: its pageinspect section, with the figures the server's
pageinspect gave (fixtures/indexes), and no "line pointers" (a metapage's pd_lower covers its metadata: GIN's
and BRIN's metapage data read as line pointers printed fourteen made-up items)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO
from indexes_oracle import data_dir, oracle

METAPAGES = {"gin_pending": "gin_metapage_info", "brin_minmax": "brin_metapage_info",
             "hash_int": "hash_metapage_info", "spgist_point": "spgist_metapage_info"}


@pytest.mark.parametrize("major", (10, 17))
@pytest.mark.parametrize("name", sorted(METAPAGES))
def test_metapage_text(major, name):
    r = subprocess.run([sys.executable, "-m", "pgpage", "page", str(data_dir(major)), "--db", "pgpage", "--rel",
                        name, "--block", "0"], capture_output=True, text=True, cwd=REPO,
                       env={**os.environ, "COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert not any(line.lstrip().startswith("items ") for line in lines), r.stdout
    assert not any(line.lstrip().startswith("meta: ") for line in lines), r.stdout   # (said once, below)
    if name == "gin_pending":
        m = oracle(major, name)["pages"][0]["gin_metapage_info"]
        text = " ".join(r.stdout.split())
        assert m["n_pending_pages"] > 0
        for key in ("pending_head", "pending_tail", "tail_free_size", "n_pending_pages", "n_pending_tuples",
                    "n_total_pages", "n_entries"):
            assert f"{key} {m[key]}" in text, key
