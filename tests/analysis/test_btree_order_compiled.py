"""The compiled key order check (decode/_btorder.c: the within-page rules and the comparisons across pages) against
the Python rules of ``analysis.btree.order`` it stands in front of: on every B-tree index of every fixture major and
scenario snapshot, and on mutated copies of their real pages (items swapped, key bytes altered, high keys and
separators altered), ``verify`` reports exactly the same findings with the compiled check and without it. That the
Python rules are amcheck's is tests/analysis/test_btree_order_live.py's part."""
from __future__ import annotations

import random
import shutil
import struct

import numpy as np
import pytest

import pgpage.analysis.btree.order as order
import pgpage.decode.kernels as kernels
from conftest import FIXTURES, MAJORS, data_dir
from pgpage.decode.checksum import checksum_page
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import open_data_directory

BLCKSZ = 8192
BTP_LEAF = 1


def btree_indexes(cluster):
    """(database, relation) of every B-tree index with a main fork."""
    for db in cluster.databases():
        if db.path.is_dir():
            yield from ((db, rel) for rel in db.relations() if rel.access_method == "btree" and "main" in rel.forks)


def btree_records(datadir) -> dict[str, list[dict]]:
    """Every B-tree index's verify findings (all codes), by index."""
    cluster = open_data_directory(datadir)
    v = Verification(cluster)
    return {f"{db.name}.{rel.qualified_name}": [r for r in v.relation_records(v.subject_of(rel))
                                                if r["type"] == "finding"] for db, rel in btree_indexes(cluster)}


def both_ways(datadir, monkeypatch) -> tuple[dict, dict, int]:
    """(findings with the compiled check, without it, pages the compiled check found in order)."""
    verified = []
    real = kernels.btree_order_pages

    def counted(*args):
        status, low = real(*args)
        verified.append(int(status.sum()))
        return status, low
    with monkeypatch.context() as m:
        m.setattr(kernels, "btree_order_pages", counted)
        compiled = btree_records(datadir)
    with monkeypatch.context() as m:     # no compiled comparison, and the compiled check takes no page
        m.setattr(order, "C_KINDS", {})
        m.setattr(kernels, "btree_order_pages", lambda pages, check, spec: (np.zeros(len(pages), dtype=np.uint8),
                                                                            np.zeros(len(pages), dtype=np.int64)))
        python = btree_records(datadir)
    return compiled, python, sum(verified)


def data_dirs():
    return [data_dir(m) for m in MAJORS] + sorted({d.resolve() for d in (FIXTURES / "scenarios").glob("*/*/data")})


@pytest.mark.parametrize("datadir", data_dirs(), ids=lambda p: "/".join(p.parts[-3:-1]))
def test_same_findings_on_real_indexes(datadir, monkeypatch):
    compiled, python, verified = both_ways(datadir, monkeypatch)
    assert compiled and compiled == python
    if datadir in [data_dir(m) for m in MAJORS]:
        assert verified > 0     # the compiled check did take pages


def lps(page: bytearray) -> list[tuple[int, int, int]]:
    lower = struct.unpack_from("<H", page, 12)[0]
    out = []
    for n in range(1, (lower - 24) // 4 + 1):
        w = struct.unpack_from("<I", page, 24 + 4 * (n - 1))[0]
        out.append((w & 0x7FFF, (w >> 15) & 3, w >> 17))
    return out


def mutate(page: bytearray, rng: random.Random) -> bool:
    """One change to a real tree page's items (never its header): False when the page has too few items."""
    flags, nxt = struct.unpack_from("<H", page, BLCKSZ - 4)[0], struct.unpack_from("<I", page, BLCKSZ - 12)[0]
    if flags & 0xC:     # deleted or the metapage
        return False
    items = lps(page)
    first = 1 if nxt == 0 else 2
    if len(items) < first + 1:
        return False
    what = rng.randrange(4)
    if what == 0 and len(items) >= first + 1:     # two line pointers swapped: items out of order
        a, b = rng.sample(range(first, len(items) + 1), 2) if len(items) - first >= 1 else (first, first)
        wa, wb = (struct.unpack_from("<I", page, 24 + 4 * (n - 1))[0] for n in (a, b))
        struct.pack_into("<I", page, 24 + 4 * (a - 1), wb)
        struct.pack_into("<I", page, 24 + 4 * (b - 1), wa)
        return True
    n = 1 if what == 1 and nxt != 0 else rng.randrange(1, len(items) + 1)   # the high key, or any item
    off, _, length = items[n - 1]
    if length <= 8:
        return False
    at = off + rng.randrange(8, length)       # a key byte (or a posting list's / pivot's heap TID byte)
    page[at] = rng.choice([0, 0xFF, page[at] ^ (1 << rng.randrange(8)), page[at] + 1 & 0xFF])
    return True


def mutated_copy(major: int, copy, rng: random.Random):
    """A copy of a major's cluster with two pages of every B-tree index changed by ``mutate``, their checksums
    recomputed (the order rules are past them)."""
    shutil.copytree(data_dir(major), copy)
    for _, rel in btree_indexes(open_data_directory(copy)):
        f = rel.forks["main"].segment_path(0)
        data = bytearray(f.read_bytes())
        nblocks = len(data) // BLCKSZ
        for blkno in rng.sample(range(1, nblocks), min(2, nblocks - 1)) if nblocks > 1 else []:
            page = data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ]
            if mutate(page, rng):
                page[8:10] = b"\0\0"
                page[8:10] = struct.pack("<H", checksum_page(bytes(page), blkno))
                data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ] = page
        f.write_bytes(bytes(data))
    return copy


@pytest.mark.parametrize("major", [10, 11, 13, 17, 18])
def test_same_findings_on_mutated_indexes(major, tmp_path, monkeypatch):
    """Copies of a major's cluster with a few pages of every B-tree index changed, 6 rounds: the same findings
    each way, and the changes do break the order (order findings among them)."""
    rng = random.Random(major)
    order_found = 0
    for round_ in range(6):
        copy = mutated_copy(major, tmp_path / f"r{round_}", rng)
        compiled, python, _ = both_ways(copy, monkeypatch)
        assert compiled == python
        order_found += sum(f["code"].startswith("btree.order.") for fs in compiled.values() for f in fs)
    assert order_found > 0


@pytest.mark.parametrize("major", [12, 17])
def test_high_key_rule_on_integer_leaves(major, tmp_path, monkeypatch):
    """The compiled fast path for leaf pages of one integer key (_btorder.c: plain_int_leaf) checks the high key
    against the last item only: every non-rightmost leaf page of every B-tree index gets its high key's key
    bytes zeroed (an integer key of 0, below the items of the fixtures' integer indexes), and the findings are
    the same each way, the high key rule's among them."""
    copy = tmp_path / "data"
    shutil.copytree(data_dir(major), copy)
    changed = 0
    for _, rel in btree_indexes(open_data_directory(copy)):
        f = rel.forks["main"].segment_path(0)
        data = bytearray(f.read_bytes())
        for blkno in range(1, len(data) // BLCKSZ):
            page = data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ]
            flags, nxt = struct.unpack_from("<H", page, BLCKSZ - 4)[0], struct.unpack_from("<I", page, BLCKSZ - 12)[0]
            if not flags & BTP_LEAF or flags & 0xC or nxt == 0 or len(lps(page)) < 3:
                continue
            off, _, length = lps(page)[0]
            page[off + 8:off + min(16, length)] = bytes(min(16, length) - 8)
            page[8:10] = struct.pack("<H", checksum_page(bytes(page), blkno))
            data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ] = page
            changed += 1
        f.write_bytes(bytes(data))
    compiled, python, _ = both_ways(copy, monkeypatch)
    assert changed > 0 and compiled == python
    assert any(f["code"] == "btree.order.high_key" for fs in compiled.values() for f in fs)


@pytest.mark.parametrize("major", [10, 13, 17, 18])
def test_same_findings_with_items_read_again(major, tmp_path, monkeypatch):
    """The items the rules across pages compare, kept from the scan or, when the pool has no room
    (``POOL_BYTES``: a big index), read again from the pages by ``finish``: the same findings either way, on
    mutated copies of a major's cluster (order findings among them)."""
    rng = random.Random(major)
    order_found = 0
    for round_ in range(4):
        copy = mutated_copy(major, tmp_path / f"r{round_}", rng)
        kept = btree_records(copy)
        with monkeypatch.context() as m:
            m.setattr(order, "POOL_BYTES", 0)
            read_again = btree_records(copy)
        assert kept == read_again
        order_found += sum(f["code"].startswith("btree.order.") for fs in kept.values() for f in fs)
    assert order_found > 0


def test_a_page_changed_since_the_scan_is_not_judged(monkeypatch):
    """The rules across pages read the pages whose items the pool had no room for again (OrderCheck.finish;
    here no item is kept: ``POOL_BYTES`` 0). The leftmost leaf of a real index, read
    again as the bytes of a leaf further right on its level (keys above its right sibling's) with the leftmost's
    flags and right link: the cross page rule fires on it. The same bytes with their own right link, as after a
    split by a live server between the scan and the second read: skipped, no order finding."""
    from pgpage.storage.relfile import RelationFork
    cluster = open_data_directory(data_dir(17))
    db, rel = next((d, r) for d, r in btree_indexes(cluster) if r.qualified_name == "public.idx_multilevel")
    pages = np.concatenate([chunk for _, chunk in rel.forks["main"].iter_chunks()])
    special = lambda b: struct.unpack_from("<IIIH", pages[b], BLCKSZ - 16)   # noqa: E731  prev, next, level, flags
    nlp = lambda b: (struct.unpack_from("<H", pages[b], 12)[0] - 24) // 4    # noqa: E731
    leftmost = next(b for b in range(1, len(pages)) if special(b)[3] & BTP_LEAF and special(b)[0] == 0)
    chain = [leftmost]
    while special(chain[-1])[1]:
        chain.append(special(chain[-1])[1])
    # a leaf two or more right of the leftmost (its keys above the leftmost's right sibling's), not rightmost (so
    # it has a high key where the leftmost has one) and with as many line pointers (the leftmost's last is read)
    other = next(b for b in chain[2:-1] if nlp(b) >= nlp(leftmost))
    path = str(rel.forks["main"].segment_path(0))

    def order_findings(page: np.ndarray) -> list[tuple[str, int]]:
        real = RelationFork.block_reader

        def block_reader(fork):
            read = real(fork)
            if str(fork.segment_path(0)) != path:
                return read

            def substituted(blocks):
                out = read(blocks)
                out[blocks == leftmost] = page
                return out
            return substituted
        with monkeypatch.context() as m:
            m.setattr(RelationFork, "block_reader", block_reader)
            m.setattr(order, "POOL_BYTES", 0)
            v = Verification(cluster)
            return [(r["code"], r["block"]) for r in v.relation_records(v.subject_of(rel))
                    if r["type"] == "finding" and r["code"].startswith("btree.order.")]

    assert order_findings(pages[leftmost]) == []
    moved = pages[other].copy()
    moved[BLCKSZ - 12:BLCKSZ - 8] = pages[leftmost][BLCKSZ - 12:BLCKSZ - 8]     # btpo_next
    moved[BLCKSZ - 4:BLCKSZ - 2] = pages[leftmost][BLCKSZ - 4:BLCKSZ - 2]       # btpo_flags
    assert ("btree.order.cross_page", leftmost) in order_findings(moved)
    assert order_findings(pages[other]) == []


def test_each_page_of_a_big_chunk_judged_as_if_alone(monkeypatch):
    """The compiled check over a chunk of 1,100 pages (the real pages of an index repeated; its page mask a bool
    array, as verify passes it, converted for the C code into a buffer numpy leaves to malloc): every page gets
    the status and smallest item it gets alone. The converted mask used to be freed before the C code read it,
    which judged two pages of each such chunk not in order (their mask bytes overwritten by the allocator)."""
    cluster = open_data_directory(data_dir(17))
    _, rel = next((d, r) for d, r in btree_indexes(cluster) if r.qualified_name == "public.idx_multilevel")
    calls = []
    real = kernels.btree_order_pages

    def recorded(pages, check, spec):
        calls.append((pages.copy(), check.copy(), spec.copy()))
        return real(pages, check, spec)
    with monkeypatch.context() as m:
        m.setattr(kernels, "btree_order_pages", recorded)
        v = Verification(cluster)
        list(v.relation_records(v.subject_of(rel)))
    pages, check, spec = calls[0]
    alone = [real(np.ascontiguousarray(pages[i:i + 1]), check[i:i + 1], spec) for i in range(len(pages))]
    assert sum(int(s[0]) for s, _ in alone) >= 2     # pages the compiled check does find in order
    rows = np.arange(1100) % len(pages)
    status, low = real(np.ascontiguousarray(pages[rows]), check[rows].astype(bool), spec)
    assert status.tolist() == [int(alone[r][0][0]) for r in rows]
    assert low.tolist() == [int(alone[r][1][0]) for r in rows]
