"""Shared test helpers: the committed real-server fixtures and their oracle output."""
from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Text is laid out at COLUMNS when set (render/output.py). GNU readline, which pytest loads, exports COLUMNS and
# LINES of its own (80 without a terminal) to the environment at C level, unseen by os.environ but inherited by
# every command a test runs: the tests read text laid out at the width of a pipe, 100, unless they say otherwise.
os.environ["COLUMNS"] = "100"
FIXTURES = REPO / "fixtures"
# The majors the fixture script produces; a missing one is a failure, not a skip.
REQUIRED_MAJORS = (10, 11, 12, 13, 14, 15, 16, 17, 18)
MAJORS = tuple(m for m in REQUIRED_MAJORS if (FIXTURES / f"pg{m}" / "oracle" / "catalog.json").is_file())


def data_dir(major: int) -> Path:
    return FIXTURES / f"pg{major}" / "data"


@lru_cache(maxsize=None)
def catalog_oracle(major: int) -> dict:
    return json.loads((FIXTURES / f"pg{major}" / "oracle" / "catalog.json").read_text())


@lru_cache(maxsize=None)
def rel_oracle(major: int, relname: str) -> dict:
    with gzip.open(FIXTURES / f"pg{major}" / "oracle" / "rel" / f"{relname}.json.gz") as f:
        return json.load(f)


def rel_names(major: int) -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in (FIXTURES / f"pg{major}" / "oracle" / "rel").glob("*.json.gz"))


def all_rel_cases() -> list[tuple[int, str]]:
    return [(m, r) for m in MAJORS for r in rel_names(m)]


@pytest.fixture(params=MAJORS, ids=lambda m: f"pg{m}")
def major(request) -> int:
    return request.param


def page_stream_doc(stdout: str) -> dict:
    """`pgpage page --json` of a range is newline-delimited: the fork's header line, then one page per line.
    As one document (the header with its "pages"), the shape a single block's output has."""
    head, *pages = (json.loads(line) for line in stdout.splitlines())
    return {**head, "pages": pages}


def damaged(original: bytes, rng, changes: int, fix_checksums: bool = False) -> bytes:
    """A real file's bytes with ``changes`` random bytes of its pages changed (header, items, tuples); with
    ``fix_checksums``, the changed pages' checksums recomputed, so that the damage reaches what reads past the
    checksum (`rows` prints the rows of a page that fails it through Python, flagged)."""
    data = bytearray(original)
    for _ in range(changes):
        page = rng.randrange(len(data) // 8192)
        data[page * 8192 + rng.randrange(rng.choice([24, 4000, 7000]), 8192)] = rng.getrandbits(8)
    if fix_checksums:
        from mutation import recompute_checksums
        recompute_checksums(data, original, 8192)
    return bytes(data)
