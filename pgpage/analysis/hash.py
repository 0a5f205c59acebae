"""A hash index's figures, as pgstattuple's pgstathashindex computes them, from its pages a chunk at a time.

pgstathashindex reads every block but the metapage: new pages and pages of type LH_UNUSED_PAGE are unused,
bucket and overflow pages have their line pointers counted (LP_DEAD ones as dead items) and their free space
(PageGetExactFreeSpace) summed; unused pages count as wholly free (hashm_bsize each), and free_percent is
that free space over the pages that can hold tuples (every block but the metapage and the bitmap pages).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pgpage.decode.hash import HashChunk
from pgpage.decode.ksy.constants import LH_BITMAP_PAGE, LH_BUCKET_PAGE, LH_META_PAGE, LH_OVERFLOW_PAGE

KIND_OF_TYPE = {LH_META_PAGE: "metapage", LH_BUCKET_PAGE: "bucket", LH_OVERFLOW_PAGE: "overflow",
                LH_BITMAP_PAGE: "bitmap", 0: "unused"}


@dataclass
class HashStats:
    bucket_pages: int = 0
    overflow_pages: int = 0
    bitmap_pages: int = 0
    unused_pages: int = 0
    live_items: int = 0
    dead_items: int = 0
    free_space: int = 0
    not_hash: list[int] = field(default_factory=list)   # blocks pgstathashindex would stop at (an error)

    def feed(self, c: HashChunk) -> None:
        blocks = c.first_blkno + np.arange(len(c.is_new))
        counted = blocks > 0                     # block 0 is the metapage: not in the loop
        new = counted & c.is_new
        hashy = counted & c.special_ok
        t = c.page_type
        items = hashy & ((t == LH_BUCKET_PAGE) | (t == LH_OVERFLOW_PAGE))
        self.bucket_pages += int((hashy & (t == LH_BUCKET_PAGE)).sum())
        self.overflow_pages += int((hashy & (t == LH_OVERFLOW_PAGE)).sum())
        self.bitmap_pages += int((hashy & (t == LH_BITMAP_PAGE)).sum())
        self.unused_pages += int(new.sum() + (hashy & (t == 0)).sum())
        self.live_items += int(c.live[items].sum())
        self.dead_items += int(c.dead[items].sum())
        self.free_space += int(c.exact_free[items].sum())
        self.not_hash += blocks[counted & ~c.is_new & ~c.special_ok].tolist()
        self.not_hash += blocks[hashy & ~np.isin(t, list(KIND_OF_TYPE))].tolist()

    def pgstathashindex(self, meta: dict | None, nblocks: int) -> dict | None:
        """The figures (None without a metapage: pgstathashindex reads its version and page size there)."""
        if meta is None:
            return None
        free = self.free_space + self.unused_pages * meta["bsize"]
        total = (nblocks - (self.bitmap_pages + 1)) * meta["bsize"]
        return {"version": meta["version"], "bucket_pages": self.bucket_pages, "overflow_pages": self.overflow_pages,
                "bitmap_pages": self.bitmap_pages, "unused_pages": self.unused_pages, "live_items": self.live_items,
                "dead_items": self.dead_items, "free_percent": 100.0 * free / total if total else 0.0}
