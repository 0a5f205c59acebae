"""`pgpage index`'s line pointer counts of the index access methods (amstats.line_pointer_counts): the compiled pass
(decode/_amindex.c) against its numpy twin (used without a C compiler), on every page of every fixture index of
every major and on copies with bytes of their pages changed at random."""
from __future__ import annotations

import numpy as np
import pytest

import pgpage.decode.kernels as kernels
from indexes_oracle import BLCKSZ, case_id, index_cases, index_path, mutated_pages
from pgpage.analysis.amstats import line_pointer_counts
from pgpage.decode.clib import KernelUnavailable
from pgpage.decode.vector import decode_headers


def counts(pages: np.ndarray) -> dict:
    found = {}
    for first in range(0, len(pages), 3):
        chunk = pages[first:first + 3]
        for name, column in line_pointer_counts(chunk, decode_headers(chunk)).items():
            found.setdefault(name, []).extend(column.tolist())
    return found


@pytest.mark.parametrize("major,name", index_cases(), ids=case_id)
def test_the_compiled_counts_and_numpy_agree(major, name, monkeypatch):
    pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)
    cases = [pages] + [mutated_pages(pages, seed * 100 + major) for seed in range(4)]
    compiled = [counts(p) for p in cases]
    assert sum(compiled[0]["normal"]) + sum(compiled[0]["dead"]) > 0     # the index has items

    def unavailable(*args, **kwargs):
        raise KernelUnavailable("test: no compiler")
    monkeypatch.setattr(kernels, "lp_counts", unavailable)
    assert [counts(p) for p in cases] == compiled
