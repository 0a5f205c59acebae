#!/usr/bin/env python3
"""More damaged pages for carving than the tests throw: tests/passes/test_carve.py's mutation check
(``test_mutated_pages_invent_no_row``: a damaged page with data checksums is not carved; without them, every
version carved is a real one, a copy of one, or one the damage touched) over every fixtures/recovery major.

    python bench/carve_mutations.py [--per-major 10000] [--majors 10,18]

Prints, per major, the mutations tried, the versions carved from damaged pages without the checksum gate and how
many of those the damage touched, and the time taken; exits 1 at the first row that was not there.
"""
from __future__ import annotations

import argparse
import random
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "passes")]
from test_carve import RECOVERY, _mutate, _version, _without_checksums, ledger, pages_of  # noqa: E402
from pgpage.analysis.rowstatus import PRUNED  # noqa: E402


def run(major: int, n: int, scratch: Path) -> int:
    with tarfile.open(RECOVERY / f"pg{major}" / "data.tar.xz") as tf:
        tf.extractall(scratch / f"pg{major}", filter="data")
    table = ledger(scratch / f"pg{major}" / "data")
    pages = pages_of(table)
    real, versions = {}, set()
    for block in range(len(pages)):
        c = table._select(block, pages[block:block + 1].copy())
        versions |= {_version(c, j) for j in range(len(c.start))}
        real.update({(block, int(c.lp_off[j])): int(c.length[j]) for j in np.flatnonzero(c.status == PRUNED)})
    rng = random.Random(major)
    carved = touched = 0
    t0 = time.time()
    for trial in range(n):
        block = rng.randrange(len(pages))
        page = bytearray(pages[block].tobytes())
        spans = [_mutate(page, rng) for _ in range(rng.randrange(1, 3))]
        c = _without_checksums(table, block, np.frombuffer(bytes(page), dtype=np.uint8).reshape(1, -1))
        table.findings.clear()
        for j in (np.flatnonzero(c.status == PRUNED).tolist() if c is not None else []):
            off, length = int(c.lp_off[j]), int(c.length[j])
            hit = any(a < off + length and off < b for a, b in spans)
            if not (real.get((block, off)) == length or _version(c, j) in versions or hit):
                print(f"PostgreSQL {major}: trial {trial}: a row that was not there at block {block} offset {off}")
                return 1
            carved += 1
            touched += hit
    print(f"PostgreSQL {major}: {n} damaged pages, {carved} versions carved, {touched} of them damaged in place,"
          f" {time.time() - t0:.1f} s")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-major", type=int, default=10000)
    ap.add_argument("--majors", default="10,11,12,13,14,15,16,17,18")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        return max(run(int(m), args.per_major, Path(scratch)) for m in args.majors.split(","))


if __name__ == "__main__":
    sys.exit(main())
