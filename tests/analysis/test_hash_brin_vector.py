"""The whole-relation readers of hash and BRIN indexes (numpy over chunks) against the page decoder (the
generated parsers) on every fixture page; and mutated real pages through both, which never raise."""
from __future__ import annotations

import random

import numpy as np
import pytest

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, index_path, oracle
from pgpage.analysis.hash import HashStats
from pgpage.analysis.verify.brin import BrinVerifier
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.hash import HashVerifier
from pgpage.decode.brin import brin_columns, brin_page_items
from pgpage.decode.hash import HashBitmap, add_bitmap_info, decode_hash_chunk
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.decode.values import ValueFormatter
from pgpage.storage.datadir import open_data_directory


def pages_of(major: int, name: str) -> np.ndarray:
    return np.frombuffer(index_path(major, name).read_bytes(), dtype=np.uint8).reshape(-1, BLCKSZ).copy()


def ctx_of(major: int, am: str, name: str) -> PageContext:
    return PageContext(fork="main", am=am, major=major, checksums=True, relation=name, block_size=BLCKSZ)


@pytest.mark.parametrize("major,name", index_cases("hash"), ids=case_id)
def test_hash_chunks_read_every_page_as_the_page_decoder(major, name):
    chunk = pages_of(major, name)
    c = decode_hash_chunk(chunk, 0)
    for blk in range(chunk.shape[0]):
        page = decode_page(chunk[blk].tobytes(), blk, ctx_of(major, "hash", name))
        stats = page.get("hash_page_stats")
        if stats is None:
            continue
        assert (int(c.live[blk]), int(c.dead[blk])) == (stats["live_items"], stats["dead_items"])
        assert (int(c.prevblkno[blk]), int(c.nextblkno[blk]), int(c.bucket[blk]), int(c.flag[blk])) == (
            stats["hasho_prevblkno"], stats["hasho_nextblkno"], stats["hasho_bucket"], stats["hasho_flag"])
        mine = c.item_page == blk
        assert c.item_hashkey[mine].tolist() == [it["data"] for it in page["hash_page_items"]]


@pytest.mark.parametrize("major,name", index_cases("brin"), ids=case_id)
def test_brin_chunks_read_the_revmap_and_summaries_as_the_page_decoder(major, name):
    chunk = pages_of(major, name)
    v = BrinVerifier(VerifyContext(relation=name, major=major), chunk.shape[0])
    v.feed(chunk, 0)
    entries = np.concatenate(v.entries).tolist()
    tuples = np.concatenate(v.tuples).tolist()
    want_entries, want_tuples = [], set()
    for p in oracle(major, name)["pages"]:
        for i, e in enumerate(p["brin_revmap_data"] or []):
            if e["pages"] != "(0,0)":
                blk, off = map(int, e["pages"].strip("()").split(","))
                want_entries.append([p["blkno"], i, blk, off])
        want_tuples |= {(p["blkno"], r["itemoffset"], r["blknum"]) for r in p["brin_page_items"] or []}
    assert entries == want_entries
    assert {tuple(t) for t in tuples} == want_tuples


MUTATIONS = 25


@pytest.mark.parametrize("major,name", [(m, n) for m, n in index_cases() if n in
                                        ("hash_text", "hash_int", "brin_multi", "brin_bloom", "brin_inclusion")
                                        and m in (10, 14, 18)], ids=case_id)
def test_mutated_pages_never_raise(major, name):
    """Random bytes of real pages changed (headers, line pointers, items, special space): every reader gives
    values or findings, never an exception."""
    rng = random.Random(f"{major}{name}")
    am = oracle(major, name)["amname"]
    db = open_data_directory(data_dir(major)).database(None)
    rel = db.relation(name)
    columns = brin_columns(db.attributes(rel.oid), rel.index_row["indclass"], db.opclasses) if am == "brin" else None
    formatter = ValueFormatter(db.types, major)
    original = pages_of(major, name)
    for _ in range(MUTATIONS):
        chunk = original.copy()
        changed = set()
        for _ in range(rng.randint(1, 12)):
            blk = rng.randrange(chunk.shape[0])
            changed.add(blk)
            at = rng.choice([rng.randrange(12, 24), rng.randrange(24, 200), rng.randrange(BLCKSZ - 16, BLCKSZ),
                             rng.randrange(BLCKSZ)])
            chunk[blk, at] = rng.getrandbits(8)
        ctx = VerifyContext(relation=name, major=major)
        verifier = HashVerifier(ctx, chunk.shape[0]) if am == "hash" else BrinVerifier(ctx, chunk.shape[0])
        verifier.feed(chunk, 0)
        verifier.finish()
        if am == "hash":
            HashStats().feed(decode_hash_chunk(chunk, 0))
            bitmap = HashBitmap(lambda b: chunk[b].tobytes() if 0 <= b < chunk.shape[0] else b"")
        for blk in sorted(changed):    # the page decoder on the pages changed (the others are the fixture's)
            page = decode_page(chunk[blk].tobytes(), blk, ctx_of(major, am, name))
            if am == "hash":
                add_bitmap_info(page, bitmap)
            elif page["page_type"] == "brin_regular" and "items" in page:
                brin_page_items(chunk[blk].tobytes(), page["items"], columns, major, formatter, lambda *a, **k: None)


@pytest.mark.parametrize("major,name", index_cases("hash"), ids=case_id)
def test_the_hash_sieve_and_every_item_agree(major, name):
    """The verifier with the compiled sieve (items read only on the pages it does not pass) and with every item
    read give the same findings: on the fixture, on copies with bits flipped at random, and on copies with two
    line pointers of a bucket page swapped (hash codes out of order) or a hash code changed (another bucket)."""
    from indexes_oracle import mutated_pages
    from pgpage.decode.hash import HASH_KEY_OFFSET
    from pgpage.decode.ksy.constants import LH_BUCKET_PAGE, SizeOfPageHeaderData
    from pgpage.decode.vector import decode_headers, decode_line_pointers

    original = pages_of(major, name)

    def findings(chunk, sieve):
        v = HashVerifier(VerifyContext(relation=name, major=major), chunk.shape[0])
        found = []
        for first in range(0, chunk.shape[0], 4):
            part = chunk[first:first + 4]
            found += v.feed(part, first) if sieve else v.feed(part, first, decode_hash_chunk(part, first))
        return [f.to_json() for f in found + v.finish()]
    c = decode_hash_chunk(original, 0)
    lps = decode_line_pointers(original, decode_headers(original))
    full = [b for b in np.flatnonzero(c.page_type == LH_BUCKET_PAGE) if (lps.page == b).sum() >= 2]
    copies = [original] + [mutated_pages(original, seed * 100 + major) for seed in range(6)]
    for blk in full[:3]:
        swapped = original.copy()
        lp1, lp2 = slice(SizeOfPageHeaderData, SizeOfPageHeaderData + 4), slice(SizeOfPageHeaderData + 4,
                                                                                SizeOfPageHeaderData + 8)
        swapped[blk, lp1], swapped[blk, lp2] = original[blk, lp2], original[blk, lp1]
        recoded = original.copy()
        off = int(lps.off[lps.page == blk][0])
        recoded[blk, off + HASH_KEY_OFFSET] ^= 0x55          # the first item's hash code
        copies += [swapped, recoded]
    assert len(copies) > 7
    for chunk in copies:
        assert findings(chunk, True) == findings(chunk, False)
    assert any(findings(chunk, True) for chunk in copies[7:])
