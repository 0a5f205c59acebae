"""Randomly damaged copies of the GIN, GiST and SP-GiST fixture indexes (15): `pgpage page`'s decoder on every
page, `index`'s figures and `verify`'s rules on the whole index give findings, never an exception."""
from __future__ import annotations

import random

import numpy as np
import pytest

from indexes_oracle import index_cases
from pgpage.analysis.amstats import STATS
from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.passes.verify import KEYED_AM_VERIFIERS
from test_verify_gin_gist_spgist import columns, pages

CASES = [(m, n) for am in ("gin", "gist", "spgist") for m, n in index_cases(am) if m == 15]
ROUNDS = 25


def damage(image: np.ndarray, rng: random.Random) -> None:
    """A few random bytes, or a random run, changed in random pages (headers, line pointers, tuples, special)."""
    for _ in range(rng.randint(1, 6)):
        blk = rng.randrange(image.shape[0])
        if rng.random() < 0.3:
            at = rng.randrange(image.shape[1] - 64)
            image[blk, at:at + rng.randint(1, 64)] = rng.randrange(256)
        else:
            image[blk, rng.randrange(image.shape[1])] = rng.randrange(256)


@pytest.mark.parametrize("major,name", CASES, ids=lambda v: str(v))
def test_damaged_indexes_give_findings_not_exceptions(major, name):
    am, cols = columns(major, name)
    ctx = PageContext(am=am, major=major, checksums=False, relation=name, index_columns=cols)
    rng = random.Random(f"{major}{name}")
    for _ in range(ROUNDS):
        image = pages(major, name)
        damage(image, rng)
        for blk in range(image.shape[0]):
            decode_page(image[blk].tobytes(), blk, ctx)
        stats = STATS[am](image.shape[1], major)
        stats.add_chunk(0, image)
        stats.report()
        v = KEYED_AM_VERIFIERS[am]()(VerifyContext(relation=name, major=major, checksums=False), image.shape[0], cols, None)
        v.feed(image, 0)
        v.finish()
