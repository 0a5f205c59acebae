"""A hash index's structure checked offline: the metapage, every bucket's chain of pages, the bitmap of overflow
pages, and each item in the bucket its hash code maps to, in hash-code order.

Pages arrive a chunk at a time (``feed``: one page's facts kept as a few integers, items checked in place);
``finish`` walks the chains over those facts. Rules, as the hash AM keeps them (src/backend/access/hash/README):
- block 0 is the metapage (LH_META_PAGE, HASH_MAGIC, HASH_VERSION);
- bucket B's primary page is BUCKET_TO_BLKNO(B), an LH_BUCKET_PAGE whose hasho_bucket is B; its overflow pages
  follow hasho_nextblkno, each an LH_OVERFLOW_PAGE of bucket B whose hasho_prevblkno is the page before;
- an overflow page is in use exactly when its bit in the bitmap pages is set (freed ones are re-initialised
  as LH_UNUSED_PAGE or left new), so every page of a chain has its bit set and no set bit names a free page;
- items of a page are sorted by hash code (_hash_binsearch), and each code maps to the page's bucket
  (_hash_hashkey2bucket with the metapage's masks), except in a bucket a split has not cleaned up yet
  (LH_BUCKET_NEEDS_SPLIT_CLEANUP on its primary page), which still holds the tuples that moved.
A walk stops at a page seen before (a cycle) or a block outside the file.
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.hash import (BITS_PER_MAP, HashBitmap, HashChunk, bmshift_ok, bucket_to_blkno, decode_hash_chunk,
                                hashkey_to_bucket, ovflblknos_to_bitnos)
from pgpage.decode.ksy.constants import (HASH_MAGIC, HASH_VERSION, LH_BITMAP_PAGE, LH_BUCKET_NEEDS_SPLIT_CLEANUP,
                                         LH_BUCKET_PAGE, LH_META_PAGE, LH_OVERFLOW_PAGE)
from pgpage.findings import WARNING, Finding

INVALID_BLOCK = 0xFFFFFFFF


class HashVerifier:
    def __init__(self, ctx: VerifyContext, nblocks: int):
        self.ctx, self.nblocks = ctx, nblocks
        self.kept: dict[int, bytes] = {}   # the metapage and the bitmap pages, as they pass
        self.bitmap = HashBitmap(lambda blk: self.kept.get(blk, b""))
        self.meta: dict | None = None
        n = nblocks
        self.page_type = np.full(n, -1, dtype=np.int64)   # -1: new or not a hash page
        self.flag = np.zeros(n, dtype=np.int64)
        self.prev = np.zeros(n, dtype=np.int64)
        self.next = np.zeros(n, dtype=np.int64)
        self.bucket = np.zeros(n, dtype=np.int64)
        self.misplaced: list[tuple[int, int, int]] = []   # (block, item, the bucket its hash code maps to)

    def feed(self, chunk: np.ndarray, first: int, c: HashChunk | None = None) -> list[Finding]:
        """``c``: the chunk's ``decode_hash_chunk`` (sieved, with the index's metapage), when the caller has it
        already."""
        if first == 0 and len(chunk):
            self.kept[0] = chunk[0].tobytes()
            self.meta = self.bitmap.meta
        c = decode_hash_chunk(chunk, first, True, self.meta) if c is None else c
        stop = min(first + len(c.is_new), self.nblocks)
        sl = slice(first, stop)
        k = stop - first
        self.page_type[sl] = np.where(c.special_ok, c.page_type, -1)[:k]
        self.flag[sl], self.prev[sl] = c.flag[:k], c.prevblkno[:k]
        self.next[sl], self.bucket[sl] = c.nextblkno[:k], c.bucket[:k]
        for i in np.flatnonzero(c.page_type == LH_BITMAP_PAGE):
            self.kept[first + int(i)] = chunk[i].tobytes()
        out = []
        ok = c.item_ok
        page, lp, key = c.item_page[ok], c.item_lp[ok], c.item_hashkey[ok]
        same = page[1:] == page[:-1]
        for i in np.flatnonzero(same & (key[1:] < key[:-1])):
            blk = first + int(page[i + 1])
            out.append(self.ctx.finding("hash.item.order", f"item {lp[i + 1]}'s hash code {key[i + 1]} sorts before"
                                        f" item {lp[i]}'s {key[i]}: the page is not in hash-code order", blk,
                                        int(lp[i + 1]), expected=f">= {key[i]}", actual=int(key[i + 1])))
        if self.meta:
            m = self.meta
            want = hashkey_to_bucket(key, m["maxbucket"], m["highmask"], m["lowmask"])
            wrong = want != c.bucket[page]
            self.misplaced += [(first + int(p), int(o), int(b)) for p, o, b in zip(page[wrong], lp[wrong], want[wrong])]
        return out

    def finish(self) -> list[Finding]:
        ctx, m, n = self.ctx, self.meta, self.nblocks
        out: list[Finding] = []
        if n == 0:
            return out
        if not m or self.page_type[0] != LH_META_PAGE:
            return [ctx.finding("hash.meta.missing", "block 0 is not a hash metapage (LH_META_PAGE, HASH_MAGIC):"
                                " the buckets cannot be found", 0)]
        if m["magic"] != HASH_MAGIC or m["version"] != HASH_VERSION:
            out.append(ctx.finding("hash.meta.bad_version", f"hash metapage version {m['version']}, expected"
                                   f" {HASH_VERSION}", 0, expected=HASH_VERSION, actual=m["version"]))
        reached = np.zeros(n, dtype=bool)
        needs_cleanup: set[int] = set()
        buckets = m["maxbucket"] + 1
        if buckets + 2 > n:   # each bucket has its page, besides the metapage and a bitmap page
            out.append(ctx.finding("hash.meta.bad_maxbucket", f"hashm_maxbucket {m['maxbucket']} needs more pages"
                                   f" than the file's {n}: only the buckets that fit are walked", 0,
                                   actual=m["maxbucket"]))
            buckets = max(n - 2, 0)
        for b in range(buckets):
            blk = bucket_to_blkno(m, b)
            if blk >= n:
                out.append(ctx.finding("hash.bucket.missing", f"bucket {b}'s primary page, block {blk}, is past the"
                                       f" end of the file ({n} blocks)", None, expected=blk, actual=n))
                continue
            if self.page_type[blk] != LH_BUCKET_PAGE or self.bucket[blk] != b:
                out.append(ctx.finding("hash.bucket.bad_page", f"block {blk} should be bucket {b}'s primary page"
                                       f" ({self._describe(blk)})", blk, expected=b, actual=int(self.bucket[blk])))
                continue
            if self.flag[blk] & LH_BUCKET_NEEDS_SPLIT_CLEANUP:
                needs_cleanup.add(b)
            reached[blk] = True
            out += self._chain(b, blk, reached)
        for blk, item, want in self.misplaced:
            if int(self.bucket[blk]) not in needs_cleanup and reached[blk]:
                out.append(ctx.finding("hash.item.wrong_bucket", f"item {item}'s hash code maps to bucket {want}, the"
                                       f" page is bucket {self.bucket[blk]}'s", blk, item, expected=want,
                                       actual=int(self.bucket[blk])))
        if bmshift_ok(m):
            out += self._bitmap(reached)
        else:
            out.append(ctx.finding("hash.meta.bad_bmshift", f"hashm_bmshift {m['bmshift']} is not log2 of the bits"
                                   f" in hashm_bmsize {m['bmsize']} bytes: the overflow bitmap is not checked", 0,
                                   actual=m["bmshift"]))
        return sorted(out, key=lambda f: (f.block if f.block is not None else -1, f.item or 0))

    def _chain(self, b: int, blk: int, reached: np.ndarray) -> list[Finding]:
        ctx, out = self.ctx, []
        prev, nxt = blk, int(self.next[blk])
        while nxt != INVALID_BLOCK:
            if not 0 < nxt < self.nblocks:
                out.append(ctx.finding("hash.chain.out_of_range", f"bucket {b}: block {prev}'s hasho_nextblkno {nxt}"
                                       f" is outside the file ({self.nblocks} blocks)", prev, actual=nxt))
                break
            if reached[nxt]:
                out.append(ctx.finding("hash.chain.cycle", f"bucket {b}: block {prev}'s hasho_nextblkno {nxt} leads"
                                       " to a page already in a chain", prev, actual=nxt))
                break
            if self.page_type[nxt] != LH_OVERFLOW_PAGE or self.bucket[nxt] != b or self.prev[nxt] != prev:
                out.append(ctx.finding("hash.chain.bad_link", f"bucket {b}: block {prev} links to block {nxt}, which"
                                       f" is not its overflow page ({self._describe(nxt)})", nxt, expected=prev,
                                       actual=int(self.prev[nxt])))
                break
            reached[nxt] = True
            prev, nxt = nxt, int(self.next[nxt])
        return out

    def _bitmap(self, reached: np.ndarray) -> list[Finding]:
        """Each block an overflow bit can name: the bit set exactly when the page is in use."""
        m, out = self.meta, []
        maps = set(m["mapp"][:m["nmaps"]])
        blocks = np.arange(1, self.nblocks, dtype=np.int64)
        bitno = ovflblknos_to_bitnos(m, blocks)
        named = bitno >= 0
        blocks, bitno = blocks[named], bitno[named]
        # each bit read with numpy from its bitmap page's words; a block whose bit cannot be read, disagrees with
        # its page or names an orphan is then judged on its own (its findings' text)
        status, readable = np.isin(blocks, list(maps)), np.isin(blocks, list(maps))
        page, bit = bitno >> m["bmshift"], bitno & ((1 << m["bmshift"]) - 1)
        for p in np.unique(page[~readable & (page < m["nmaps"])]).tolist():
            words = self.bitmap.words(m["mapp"][p])
            mine = ~readable & (page == p) & (bit // BITS_PER_MAP < (len(words) if words is not None else 0))
            if words is not None and mine.any():
                w = np.array(words, dtype=np.int64)[bit[mine] // BITS_PER_MAP]
                status[mine] = (w >> (bit[mine] % BITS_PER_MAP)) & 1 == 1
                readable[mine] = True
        kind = self.page_type[blocks]
        in_use = (kind == LH_OVERFLOW_PAGE) | (kind == LH_BITMAP_PAGE)
        judge = ~readable | (in_use != status) | ((kind == LH_OVERFLOW_PAGE) & ~reached[blocks])
        for blk in blocks[judge].tolist():
            out += self._bit(blk, maps, reached)
        return out

    def _bit(self, blk: int, maps: set, reached: np.ndarray) -> list[Finding]:
        """The findings of an overflow block's bitmap bit (set exactly when the page is in use) and chain."""
        ctx, out = self.ctx, []
        row, why = self.bitmap.info(blk) if blk not in maps else ({"bitstatus": True}, None)
        if row is None:
            return [ctx.finding("hash.bitmap.unreadable", f"the bitmap bit of block {blk} cannot be read: {why}",
                                blk)]
        in_use = self.page_type[blk] in (LH_OVERFLOW_PAGE, LH_BITMAP_PAGE)
        if in_use and not row["bitstatus"]:
            out.append(ctx.finding("hash.bitmap.not_set", f"overflow page {blk} is in use but its bit"
                                   f" ({row.get('bitmapbit')} of bitmap page {row.get('bitmapblkno')}) is clear",
                                   blk))
        elif not in_use and row["bitstatus"]:
            out.append(ctx.finding("hash.bitmap.set_for_free", f"block {blk} is {self._describe(blk)} but its"
                                   f" bit ({row.get('bitmapbit')} of bitmap page {row.get('bitmapblkno')}) says"
                                   " in use", blk, severity=WARNING))
        if self.page_type[blk] == LH_OVERFLOW_PAGE and not reached[blk]:
            out.append(ctx.finding("hash.overflow.orphan", f"overflow page {blk} (bucket {self.bucket[blk]}) is"
                                   " in no bucket's chain", blk, severity=WARNING))
        return out

    def _describe(self, blk: int) -> str:
        from pgpage.analysis.hash import KIND_OF_TYPE
        t = int(self.page_type[blk])
        if t < 0:
            return "a new page or not a hash page"
        return f"{KIND_OF_TYPE.get(t, f'type {t}')} page of bucket {self.bucket[blk]}"
