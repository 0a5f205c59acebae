"""SP-GiST verify's compiled sieve over whole chunks (SpgistVerifier._clean_leaves, _clean_inner) against its Python
twin (the page by page rules): on every page of every fixture SP-GiST index of every major, and on copies with bytes
of their pages changed at random (any pages, then inner pages only), the verifier with and without the sieve give the
same findings and keep the same facts (page flags, item counts, redirects and downlinks) for the rules across
pages."""
from __future__ import annotations

import numpy as np
import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, index_path, mutated_pages
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.spgist import SpgistVerifier
from pgpage.decode.indextuple import index_columns
from pgpage.decode.ksy.constants import SPGIST_LEAF, SPGIST_META
from pgpage.storage.target import resolve


def columns(major: int, name: str):
    t = resolve(str(data_dir(major)), "pgpage", name, "main", what="index")
    return index_columns(t.relation, t.database)


def run(pages: np.ndarray, cols, fast: bool, passed: list | None = None, major: int | None = None,
        passed_inner: list | None = None):
    v = SpgistVerifier(VerifyContext(block_size=BLCKSZ, major=major, checksums=False), len(pages), cols)

    def sieve(real, count):
        def clean(chunk, first, valid, h, n):
            out = real(chunk, first, valid, h, n) if fast else np.zeros(len(chunk), dtype=bool)
            if count is not None:
                count.append(int(out.sum()))
            return out
        return clean
    v._clean_leaves = sieve(v._clean_leaves, passed)
    v._clean_inner = sieve(v._clean_inner, passed_inner)
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
    passed_inner: list = []
    assert run(pages, cols, True, passed, major, passed_inner) == run(pages, cols, False, None, major)
    flags = pages[:, BLCKSZ - 8].astype(int) | pages[:, BLCKSZ - 7].astype(int) << 8
    assert sum(passed) == int((flags[1:] & SPGIST_LEAF != 0).sum())   # a clean index: every leaf passes
    tree = (flags[1:] & SPGIST_META == 0) & (pages[1:].any(axis=1))
    assert sum(passed_inner) == int((tree & (flags[1:] & SPGIST_LEAF == 0)).sum())   # and every inner page
    for seed in range(8):
        bad = mutated_pages(pages, seed * 100 + major)
        assert run(bad, cols, True, None, major) == run(bad, cols, False, None, major), seed
    inner = np.flatnonzero(tree & (flags[1:] & SPGIST_LEAF == 0)) + 1
    for seed in range(8):
        bad = pages.copy()
        bad[inner] = mutated_pages(pages[inner], seed * 100 + major)
        assert run(bad, cols, True, None, major) == run(bad, cols, False, None, major), seed
    for m in (None, 13):     # nextOffset read as 14+ and as before 14
        assert run(pages, (), True, None, m) == run(pages, (), False, None, m)
