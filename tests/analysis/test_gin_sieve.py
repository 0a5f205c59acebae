"""GIN verify's compiled sieve (decode/_gin.c) against its Python twin (GinVerifier's page-by-page rules): on every
page of every fixture GIN index of every major, and on copies of them with bytes of their entry and posting tree
leaves changed at random, the verifier with the sieve and the verifier reading every page itself give the same
findings and keep the same facts for the rules across pages."""
from __future__ import annotations

import numpy as np
import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, index_path
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.gin import GinVerifier
from pgpage.decode.indextuple import index_columns
from pgpage.storage.target import resolve


def columns(major: int, name: str):
    t = resolve(str(data_dir(major)), "pgpage", name, "main", what="index")
    return index_columns(t.relation, t.database)


def run(pages: np.ndarray, cols, reason, sieve: bool):
    v = GinVerifier(VerifyContext(block_size=BLCKSZ, major=None, checksums=False), len(pages), cols, reason)
    if not sieve:
        v._sieved = lambda chunk, check, nlp: (np.zeros(len(chunk), dtype=bool), np.zeros(len(chunk), np.uint64),
                                              np.zeros(len(chunk), np.int64))
    found = []
    for first in range(0, len(pages), 3):    # chunks of 3 pages: block 0 and the rest cut apart
        found += v.feed(pages[first:first + 3], first)
    found += v.finish()
    facts = {b: (i.downlinks, i.last_key, i.bound, i.max_tid, i.roots) for b, i in v.info.items()}
    return [f.to_json() for f in found], facts, (v.kind.tolist(), v.rightlink.tolist(), v.maxoff.tolist(),
                                                 v.free.tolist())


def sieved_pages(pages: np.ndarray, cols, reason) -> int:
    v = GinVerifier(VerifyContext(block_size=BLCKSZ, major=None, checksums=False), len(pages), cols, reason)
    passed = []
    real = v._sieved

    def count(chunk, check, nlp):
        out = real(chunk, check, nlp)
        passed.append(int((out[0] & (check != 0)).sum()))
        return out
    v._sieved = count
    v.feed(pages, 0)
    return sum(passed)


def mutated(pages: np.ndarray, seed: int) -> np.ndarray:
    """A copy with a few bytes of its leaves changed (tuple headers, keys, posting lists, line pointers)."""
    rng = np.random.default_rng(seed)
    out = pages.copy()
    flags = out[:, BLCKSZ - 2].astype(int) | out[:, BLCKSZ - 1].astype(int) << 8
    leaves = np.flatnonzero(flags & 0x02)          # GIN_LEAF
    for blk in rng.choice(leaves, size=min(3, len(leaves)), replace=False):
        lower = int(out[blk, 12]) | int(out[blk, 13]) << 8
        for _ in range(4):
            at = int(rng.integers(24, max(lower, 25))) if rng.random() < 0.3 else int(rng.integers(24, BLCKSZ - 8))
            out[blk, at] ^= 1 << int(rng.integers(0, 8))
    return out


@pytest.mark.parametrize("major,name", index_cases("gin"), ids=case_id)
def test_the_sieve_and_the_page_rules_agree(major, name):
    pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)
    cols = columns(major, name)
    for reason in (None, "not computed here"):
        assert run(pages, cols, reason, True) == run(pages, cols, reason, False)
        for seed in range(6):
            bad = mutated(pages, seed * 1000 + major)
            assert run(bad, cols, reason, True) == run(bad, cols, reason, False), seed
    assert run(pages, (), None, True) == run(pages, (), None, False)      # a file without its catalog


def test_the_sieve_passes_the_leaves_of_clean_indexes():
    """(so that the agreement above is the sieve's, not only the Python rules' twice)"""
    passed = 0
    for major, name in index_cases("gin"):
        pages = np.fromfile(index_path(major, name), dtype=np.uint8).reshape(-1, BLCKSZ)
        passed += sieved_pages(pages, columns(major, name), None)
    leaves = sum(int(((np.fromfile(index_path(m, n), dtype=np.uint8).reshape(-1, BLCKSZ)[:, BLCKSZ - 2] & 0x02) != 0)
                     .sum()) for m, n in index_cases("gin"))
    assert passed > leaves // 2, (passed, leaves)
