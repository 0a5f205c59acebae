"""SP-GiST verify's numpy pass over whole chunks (SpgistVerifier._clean_leaves) against its Python twin (the page by
page rules): on every page of every fixture SP-GiST index of every major, and on copies with bytes of their pages
changed at random, the verifier with and without the numpy pass give the same findings and keep the same facts
(page flags, item counts, redirects and downlinks) for the rules across pages."""
from __future__ import annotations

import numpy as np
import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, index_path, mutated_pages
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.spgist import SpgistVerifier
from pgpage.decode.indextuple import index_columns
from pgpage.decode.ksy.constants import SPGIST_LEAF
from pgpage.storage.target import resolve


def columns(major: int, name: str):
    t = resolve(str(data_dir(major)), "pgpage", name, "main", what="index")
    return index_columns(t.relation, t.database)


def run(pages: np.ndarray, cols, fast: bool, passed: list | None = None, major: int | None = None):
    v = SpgistVerifier(VerifyContext(block_size=BLCKSZ, major=major, checksums=False), len(pages), cols)
    real = v._clean_leaves

    def clean_leaves(chunk, first, valid, h, lps, starts, n):
        out = real(chunk, first, valid, h, lps, starts, n) if fast else np.zeros(len(chunk), dtype=bool)
        if passed is not None:
            passed.append(int(out.sum()))
        return out
    v._clean_leaves = clean_leaves
    found = []
    for first in range(0, len(pages), 2):
        found += v.feed(pages[first:first + 2], first)
    found += v.finish()
    return [f.to_json() for f in found], v.flags.tolist(), v.nitems.tolist(), sorted(v.links)


@pytest.mark.parametrize("major,name", index_cases("spgist"), ids=case_id)
def test_the_numpy_pass_and_the_page_rules_agree(major, name):
    pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)
    cols = columns(major, name)
    passed: list = []
    assert run(pages, cols, True, passed, major) == run(pages, cols, False, None, major)
    flags = pages[:, BLCKSZ - 8].astype(int) | pages[:, BLCKSZ - 7].astype(int) << 8
    assert sum(passed) == int((flags[1:] & SPGIST_LEAF != 0).sum())   # a clean index: every leaf passes
    for seed in range(8):
        bad = mutated_pages(pages, seed * 100 + major)
        assert run(bad, cols, True, None, major) == run(bad, cols, False, None, major), seed
    for m in (None, 13):     # nextOffset read as 14+ and as before 14
        assert run(pages, (), True, None, m) == run(pages, (), False, None, m)
