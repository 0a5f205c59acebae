"""verify's compiled sieve (``kernels.verify_heap_sieve``) against the Python heap rules it stands in front of:
on every heap page of the fixtures and of the scenario snapshots, and on thousands of mutated copies of those
real pages (line pointers, page header, tuple header fields, xids, HOT links, VM bits; checksums recomputed or
not), a page the sieve clears gets no finding from the rules, and ``verify_heap_chunk`` (sieve, then rules on
the pages left) returns exactly what the rules return over the whole chunk."""
from __future__ import annotations

import dataclasses
import random
import struct

import numpy as np
import pytest

from conftest import FIXTURES, MAJORS, data_dir
from pgpage.analysis.verify.heap import _sieve_params, _verify_heap_pages, verify_heap_chunk
from pgpage.analysis.verify.tuples import column_layout
from pgpage.analysis.verify.vm import vm_bits_for
from pgpage.decode.checksum import checksum_page
from pgpage.decode.kernels import verify_heap_sieve
from pgpage.decode.xact import ClogArray
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import HEAP_KINDS, open_data_directory

BLCKSZ = 8192


def heap_chunks(datadir):
    """(context, first block, pages, VM bits) of every heap relation's main fork in a data directory."""
    v = Verification(open_data_directory(datadir))
    for db in v.cluster.databases():
        if not db.path.is_dir():
            continue
        for rel in db.relations():
            if rel.kind not in HEAP_KINDS or rel.access_method != "heap" or "main" not in rel.forks:
                continue
            s = v.subject_of(rel)
            fork = s.forks["main"]
            ctx = dataclasses.replace(v.subject_context(s), fork="main")
            vm = v._heap_context(s, fork, ctx, True)
            page = v._vm_reader(vm)
            for first, chunk in fork.iter_chunks():
                bits = vm_bits_for(page, first, chunk.shape[0], BLCKSZ) if vm is not None else None
                yield ctx, first, chunk.copy(), bits


def check(ctx, first, chunk, bits):
    """The sieve's promise on one chunk; returns (pages cleared, pages with findings)."""
    flagged = verify_heap_sieve(chunk, first, _sieve_params(ctx, bits is not None), *(bits or (None, None)),
                                ctx.clog or ClogArray({}), *column_layout(ctx))
    every = _verify_heap_pages(chunk, first, ctx, bits)
    found = {f.block - first for f in every}
    cleared = set(np.flatnonzero(flagged == 0).tolist())
    assert not found & cleared, [f for f in every if f.block - first in cleared][:5]
    assert verify_heap_chunk(chunk, first, ctx, bits) == every
    return len(cleared), len(found)


def data_dirs():
    return [data_dir(m) for m in MAJORS] + sorted({d.resolve() for d in (FIXTURES / "scenarios").glob("*/*/data")})


@pytest.mark.parametrize("datadir", data_dirs(), ids=lambda p: "/".join(p.parts[-3:-1]))
def test_sieve_clears_real_pages_and_agrees_with_the_rules(datadir):
    cleared = pages = 0
    for ctx, first, chunk, bits in heap_chunks(datadir):
        c, _ = check(ctx, first, chunk, bits)
        cleared += c
        pages += chunk.shape[0]
    assert pages and cleared >= pages // 2   # healthy pages go past the Python rules


def mutate(page: bytearray, rng: random.Random) -> None:
    lower, upper, special = struct.unpack_from("<HHH", page, 12)
    nlp = max((min(lower, BLCKSZ) - 24) // 4, 0)
    lp = 24 + 4 * rng.randrange(nlp) if nlp else 24
    raw = struct.unpack_from("<I", page, lp)[0]
    off, flags, length = raw & 0x7FFF, (raw >> 15) & 3, raw >> 17
    tup = off if flags == 1 and length >= 24 and off % 8 == 0 and off + length <= BLCKSZ else None
    what = rng.randrange(15)
    if what == 0:
        struct.pack_into("<H", page, rng.choice([10, 12, 14, 16, 18]), rng.choice(
            [0, 4, 23, 24, lower + 4, upper - 8, special - 8, 8184, 8200, 0x2004, rng.randrange(65536)]))
    elif what in (1, 2) or tup is None:
        if rng.random() < 0.5:
            off = rng.choice([off + 8, off - 8, off + 1, 0, upper - 8, 8184, rng.randrange(32768)])
        if rng.random() < 0.5:
            length = rng.choice([0, 8, 23, 24, length + 8, length - 1, rng.randrange(32768)])
        if rng.random() < 0.5:
            flags = rng.randrange(4)
            if flags == 2:
                off, length = rng.randrange(nlp + 2), 0
        struct.pack_into("<I", page, lp, (off & 0x7FFF) | (flags << 15) | ((length & 0x7FFF) << 17))
    elif what in (3, 4):
        struct.pack_into("<I", page, tup + rng.choice([0, 4, 8]), rng.choice(
            [0, 1, 2, 3, 700, 5000, 0x7FFFFFFF, 0xFFFFFFF0, rng.randrange(1 << 32)]))
    elif what in (5, 6, 7):
        o = tup + rng.choice([18, 20, 20])
        struct.pack_into("<H", page, o, struct.unpack_from("<H", page, o)[0] ^ (1 << rng.randrange(16)))
    elif what in (8, 9):
        struct.pack_into("<H", page, tup + 16, rng.choice([0, 1, 2, 3, nlp, nlp + 1, 300, 0xFFFE, 0xFFFD]))
        if rng.random() < 0.3:
            struct.pack_into("<HH", page, tup + 12, rng.randrange(65536), rng.randrange(65536))
    elif what == 10:
        page[tup + 22] = rng.choice([0, 8, 16, 24, 25, 32, 255])
    elif what == 11 and nlp:   # a tuple's xmax made the xmin of another (a HOT link where there was none)
        o2 = struct.unpack_from("<I", page, 24 + 4 * rng.randrange(nlp))[0] & 0x7FFF
        if 0 < o2 <= BLCKSZ - 24:
            page[tup + 4:tup + 8] = page[o2:o2 + 4]
    elif what == 12 and nlp:   # one line pointer copied onto another (two redirects to one tuple, shared bytes)
        o = 24 + 4 * rng.randrange(nlp)
        page[o:o + 4] = page[lp:lp + 4]
    else:
        page[rng.randrange(24, BLCKSZ)] ^= 1 << rng.randrange(8)


@pytest.mark.parametrize("datadir", [data_dir(MAJORS[-1]), data_dir(MAJORS[0])]
                         + sorted({d.resolve() for d in (FIXTURES / "scenarios").glob("*/*/data")})[:2],
                         ids=lambda p: "/".join(p.parts[-3:-1]))
def test_sieve_on_mutated_real_pages(datadir):
    rng = random.Random(str(datadir.parts[-3:]))
    found = cleared = pages = 0
    for ctx, first, chunk, bits in heap_chunks(datadir):
        for round_ in range(6):
            c = chunk.copy()
            for i in range(c.shape[0]):
                p = bytearray(c[i].tobytes())
                if any(p):
                    for _ in range(rng.choice([1, 1, 2])):
                        mutate(p, rng)
                    if rng.random() < 0.8:
                        struct.pack_into("<H", p, 8, checksum_page(bytes(p), first + i))
                c[i] = np.frombuffer(bytes(p), dtype=np.uint8)
            b = bits
            if round_ % 2 and b is not None:   # VM bits flipped too
                b = (b[0] ^ (np.array([rng.random() < 0.3 for _ in b[0]])), b[1] ^ np.array([rng.random() < 0.2 for _ in b[1]]))
            x = ctx if round_ < 4 else dataclasses.replace(ctx, checksums=None, relnatts=2, nblocks=first + 1)
            cl, fo = check(x, first, c, b)
            cleared, found, pages = cleared + cl, found + fo, pages + c.shape[0]
    assert pages >= 200 and found >= pages // 4 and cleared > 0, (pages, found, cleared)


# ------------------------------------------------------------------------------------------ B-tree
def btree_runs(datadir, sieve: bool, rng: random.Random | None, change=None):
    """Findings of BtreeVerifier.feed over every B-tree of a data directory (its pages mutated by ``rng``, the
    same way for both runs, or each changed by ``change(page)``), with the compiled sieve in front of the item
    rules or not."""
    from pgpage.analysis.verify.btree import BtreeVerifier
    from pgpage.passes.index import heap_tid_check
    v = Verification(open_data_directory(datadir))
    out = []
    for db in v.cluster.databases():
        if not db.path.is_dir():
            continue
        for rel in sorted(db.relations(), key=lambda r: str(r.qualified_name)):
            if rel.access_method != "btree" or "main" not in rel.forks:
                continue
            s = v.subject_of(rel)
            fork = s.forks["main"]
            ctx = dataclasses.replace(v.subject_context(s), fork="main")
            bv = BtreeVerifier(ctx, fork.end_block, s.index_shape, heap_tid_check(s.table_fork, s.table), s.table)
            if not sieve:
                bv._sieve = lambda chunk, nlp: nlp
            for first, chunk in fork.iter_chunks():
                c = chunk.copy()
                for i in range(1 if first == 0 else 0, c.shape[0]):   # (the metapage stays)
                    if change is None and (rng is None or rng.random() < 0.3):
                        continue
                    p = bytearray(c[i].tobytes())
                    if change is not None:
                        change(p)
                    else:
                        mutate_index(p, rng)
                    struct.pack_into("<H", p, 8, checksum_page(bytes(p), first + i))
                    c[i] = np.frombuffer(bytes(p), dtype=np.uint8)
                out += bv.feed(c, first)
    return out


def mutate_index(page: bytearray, rng: random.Random) -> None:
    lower, upper, special = struct.unpack_from("<HHH", page, 12)
    nlp = max((min(lower, BLCKSZ) - 24) // 4, 0)
    if not nlp:
        return
    lp = 24 + 4 * rng.randrange(nlp)
    raw = struct.unpack_from("<I", page, lp)[0]
    off, flags, length = raw & 0x7FFF, (raw >> 15) & 3, raw >> 17
    what = rng.randrange(6)
    if what == 0:
        off = rng.choice([off + 8, off - 8, off + 4, upper, special - 8])
        struct.pack_into("<I", page, lp, (off & 0x7FFF) | (flags << 15) | ((length & 0x7FFF) << 17))
    elif what == 1:
        o = 24 + 4 * rng.randrange(nlp)
        page[o:o + 4] = page[lp:lp + 4]
    elif what in (2, 3) and off + 8 <= BLCKSZ:   # t_info (size, INDEX_ALT_TID_MASK) and ip_posid (natts, posting)
        o = off + rng.choice([4, 5, 6, 7])
        page[o] ^= 1 << rng.randrange(8)
    elif what == 4 and special + 14 <= BLCKSZ:   # btpo_flags, btpo_next
        page[special + rng.choice([4, 12, 12])] ^= 1 << rng.randrange(3)
    elif off + 8 <= BLCKSZ:
        struct.pack_into("<H", page, off + 6, (struct.unpack_from("<H", page, off + 6)[0] & ~0x1FFF) | rng.choice(
            [length, 2712, 2720, 8, 16]))


@pytest.mark.parametrize("datadir", data_dirs(), ids=lambda p: "/".join(p.parts[-3:-1]))
def test_btree_sieve_same_findings(datadir):
    assert btree_runs(datadir, True, None) == btree_runs(datadir, False, None)
    a = btree_runs(datadir, True, random.Random(1))
    assert a == btree_runs(datadir, False, random.Random(1))
    if "scenarios" not in datadir.parts:   # (a scenario may hold one small index) the mutations reach the item rules
        assert sum(f.code.startswith(("btree.item.", "btree.lp.")) for f in a) >= 5


def lowest_item_down(page: bytearray) -> None:
    """On a rightmost leaf page with room below its items, the lowest item (a data item: such a page has no high
    key) moved 4 bytes down: misaligned, overlapping nothing."""
    lower, upper, special = struct.unpack_from("<HHH", page, 12)
    flags, nxt = struct.unpack_from("<H", page, special + 12)[0], struct.unpack_from("<I", page, special + 4)[0]
    if special != BLCKSZ - 16 or not flags & 1 or nxt != 0 or upper - lower < 8 or lower <= 24:
        return
    for k in range((lower - 24) // 4):
        raw = struct.unpack_from("<I", page, 24 + 4 * k)[0]
        off, length = raw & 0x7FFF, raw >> 17
        if off == upper and (raw >> 15) & 3 == 1:
            page[off - 4:off - 4 + length] = page[off:off + length]
            struct.pack_into("<I", page, 24 + 4 * k, (raw & ~0x7FFF) | (off - 4))
            struct.pack_into("<H", page, 14, upper - 4)
            return


@pytest.mark.parametrize("datadir", [data_dir(15)], ids=["pg15"])
def test_btree_sieve_sees_a_misaligned_item_alone(datadir):
    """The sieve's pass over pages laid out as nbtree lays them out still judges alignment on its own."""
    with_sieve = btree_runs(datadir, True, None, lowest_item_down)
    misaligned = [f for f in with_sieve if f.code == "btree.lp.misaligned"]
    assert len(misaligned) >= 3 and not [f for f in with_sieve if f.code == "btree.lp.overlap"]
    assert with_sieve == btree_runs(datadir, False, None, lowest_item_down)
