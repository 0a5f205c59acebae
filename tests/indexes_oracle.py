"""The index access method fixtures (fixtures/make_indexes.py): their data directories and oracle.

Each major's data directory is committed as ``fixtures/indexes/pg<MAJOR>/data.tar.xz`` (size: about a
twentieth of the files); ``data_dir`` extracts it once into a directory of the system's temp area named by the
archive's digest, shared by every test process (and left there for the next run). The oracle of an index is
``oracle(major, name)``: pageinspect's answer for every block (``pages``), the relation-level functions, the
index's columns and operator classes.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path

from conftest import FIXTURES, REQUIRED_MAJORS

INDEXES = FIXTURES / "indexes"
BLCKSZ = 8192
INDEX_MAJORS = tuple(m for m in REQUIRED_MAJORS if (INDEXES / f"pg{m}" / "data.tar.xz").is_file())


@lru_cache(maxsize=None)
def data_dir(major: int) -> Path:
    """The extracted data directory of a major (read-only use: tests that damage a file copy it first)."""
    archive = INDEXES / f"pg{major}" / "data.tar.xz"
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    home = Path(tempfile.gettempdir()) / f"pgpage-index-fixtures-{os.getuid()}" / f"pg{major}-{digest}"
    if not (home / "data" / "PG_VERSION").is_file():
        home.parent.mkdir(parents=True, exist_ok=True)
        part = Path(tempfile.mkdtemp(prefix=f"pg{major}-", dir=home.parent))
        with tarfile.open(archive) as tf:
            tf.extractall(part, filter="data")
        try:
            part.rename(home)   # atomic: another test process may have got there first
        except OSError:
            shutil.rmtree(part, ignore_errors=True)
    return home / "data"


@lru_cache(maxsize=None)
def catalog(major: int) -> dict:
    return json.loads((INDEXES / f"pg{major}" / "oracle" / "catalog.json").read_text())


def index_names(major: int) -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in (INDEXES / f"pg{major}" / "oracle").glob("*.json.gz"))


@lru_cache(maxsize=None)
def oracle(major: int, name: str) -> dict:
    with gzip.open(INDEXES / f"pg{major}" / "oracle" / f"{name}.json.gz") as f:
        return json.load(f)


def index_cases(am: str | None = None) -> list[tuple[int, str]]:
    """(major, index) of every fixture index, of one access method if given."""
    return [(m, n) for m in INDEX_MAJORS for n in index_names(m) if am is None or oracle(m, n)["amname"] == am]


def index_path(major: int, name: str) -> Path:
    return data_dir(major) / oracle(major, name)["filepath"]


def read_block(major: int, name: str, blkno: int) -> bytes:
    with index_path(major, name).open("rb") as f:
        f.seek(blkno * BLCKSZ)
        return f.read(BLCKSZ)


def case_id(value) -> str:
    return f"pg{value}" if isinstance(value, int) else str(value)


def mutated_pages(pages, seed: int):
    """A copy of an index's pages (numpy, one row a block) with four bits flipped in each of two blocks, within
    the line pointers or anywhere past the page header (the GiST and SP-GiST fast passes' damage)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    out = pages.copy()
    block_size = out.shape[1]
    for blk in rng.choice(len(out), size=min(2, len(out)), replace=False):
        lower = int(out[blk, 12]) | int(out[blk, 13]) << 8
        for _ in range(4):
            at = int(rng.integers(24, max(lower, 25))) if rng.random() < 0.4 else int(rng.integers(24, block_size))
            out[blk, at] ^= 1 << int(rng.integers(0, 8))
    return out
