"""GiST verify's compiled sieve over whole chunks (GistVerifier._clean_pages) against its Python twin (the page by page
rules): on every page of every fixture GiST index of every major, and on copies with bytes of their pages changed at
random (any pages, then internal pages only), the verifier with and without the sieve give the same findings and keep
the same facts (page kinds, downlinks, the union of box keys) for the rules across pages; where every page passed the
sieve, the tree is judged sound with numpy exactly when the page by page walk finds nothing."""
from __future__ import annotations

import numpy as np
import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, index_path, mutated_pages
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.gist import GistVerifier
from pgpage.decode.gist import OPAQUE
from pgpage.decode.indextuple import index_columns
from pgpage.decode.ksy.constants import F_LEAF
from pgpage.storage.target import resolve


def columns(major: int, name: str):
    t = resolve(str(data_dir(major)), "pgpage", name, "main", what="index")
    return index_columns(t.relation, t.database)


def run(pages: np.ndarray, cols, fast: bool, passed: list | None = None):
    v = GistVerifier(VerifyContext(block_size=BLCKSZ, major=None, checksums=False), len(pages), cols)
    real = v._clean_pages

    def clean_pages(chunk, first, own, h, n):
        out = real(chunk, first, own, h, n) if fast else np.zeros(len(chunk), dtype=bool)
        if passed is not None:
            passed.append(int(out.sum()))
        return out
    v._clean_pages = clean_pages
    found = []
    for first in range(0, len(pages), 2):
        found += v.feed(pages[first:first + 2], first)
    found += v.finish()
    links = v.links()
    if links is not None and not v.downlinks:   # the numpy walk is sound exactly when the page by page walk is
        assert v._tree_sound(*links) == (v._walk(links) == [])
    return [f.to_json() for f in found], v.kind.tolist(), *v.facts(links)


@pytest.mark.parametrize("major,name", index_cases("gist"), ids=case_id)
def test_the_numpy_pass_and_the_page_rules_agree(major, name):
    pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)
    cols = columns(major, name)
    passed: list = []
    assert run(pages, cols, True, passed) == run(pages, cols, False)
    assert sum(passed) == len(pages)          # a clean index: every page passes
    for seed in range(8):
        bad = mutated_pages(pages, seed * 100 + major)
        assert run(bad, cols, True) == run(bad, cols, False), seed
    at = BLCKSZ - OPAQUE["size"] + OPAQUE["fields"]["flags"][0]
    flags = pages[:, at].astype(int) | pages[:, at + 1].astype(int) << 8
    internal = np.flatnonzero((flags & F_LEAF == 0) & pages.any(axis=1))
    for seed in range(8):
        bad = pages.copy()
        bad[internal] = mutated_pages(pages[internal], seed * 100 + major)
        assert run(bad, cols, True) == run(bad, cols, False), seed
    assert run(pages, (), True) == run(pages, (), False)
