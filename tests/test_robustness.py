"""Robustness: mutated real pages, control files, maps, catalogs and relation files through every
decoder and analysis.

Every input starts as a real page (or file) of a fixture cluster and is damaged the ways storage
gets damaged: bit flips, runs of garbage, zeroed ranges, truncation, random pages, pages swapped
in from elsewhere, rewritten line pointers, infomasks and page headers. Each mutated input goes
through ``decode_page`` (with and without the access method known), the vectorised decoder,
pgstattuple's figures, the heap analysis, the B-tree scan and ``verify``; for each:

* no exception escapes (``DecodeError``, pgpage's refusal of a whole file, is allowed only where
  documented: a pg_control or pg_filenode.map of the wrong size);
* nothing hangs: each case runs under a timer (``CASE_SECONDS``);
* every mutation that breaks a rule is reported: independent re-implementations of the rules
  (below, written from PostgreSQL's sources, not from pgpage's) decide whether the mutated page
  breaks the checksum, a page header rule, a heap line pointer or tuple header rule, or the B-tree
  tuple size rule, and ``verify`` must report each such break at that block and item.

The number of mutated inputs each test tried is printed (``pytest -s`` shows it).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import time
import signal
import struct
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import MAJORS, data_dir
from pgpage.analysis.heap import chunk_stats
from pgpage.analysis.verify.btree import BtreeVerifier
from pgpage.analysis.verify.context import shape_from_index_row
from pgpage.analysis.verify.context import VerifyContext
from pgpage.analysis.verify.heap import verify_heap_chunk
from pgpage.analysis.verify.pages import verify_generic_chunk
from pgpage.analysis.verify.vm import vm_bits_for
from pgpage.decode.control import decode_control
from pgpage.decode.errors import DecodeError
from pgpage.decode.filenode_map import decode_filenode_map
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext
from pgpage.decode.vector import decode_heap_chunk
from pgpage.findings import PgpageError
from pgpage.passes.index import heap_tid_check
from pgpage.passes.verify import Subject, Verification
from pgpage.storage.datadir import open_data_directory
from pgpage.storage.relfile import open_segment_file

BLCKSZ = 8192
CASE_SECONDS = 20
PAGE_CASES = 4000          # mutated pages through verify and the analyses, at most ...
PAGE_SECONDS = float(os.environ.get("PGPAGE_FUZZ_SECONDS", 25))   # ... and for at most this long
MIN_PAGE_CASES = 300       # (a slow machine still tries this many)
DECODE_EVERY = 4           # one case in 4 also through `pgpage page`'s per-page decoder (the slow one)
SEED = int(os.environ.get("PGPAGE_FUZZ_SEED", 20240607))   # a failure prints it: rerun with it to reproduce


# ------------------------------------------------------------------------------------- harness
class Hang(Exception):
    pass


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    """Fail the case (not the run) when it takes longer than ``seconds``."""
    def alarm(signum, frame):
        raise Hang(f"{what} took longer than {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def report(name: str, n: int) -> None:
    print(f"\nrobustness: {name}: {n} mutated inputs tried")


# ------------------------------------------------------------------- independent rule oracles
_CHECKSUM_BASE = (
    0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A, 0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
    0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA, 0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
    0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE, 0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
    0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E, 0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756)


def ref_checksum(page: bytes, blkno: int) -> int:
    """pg_checksum_page (checksum_impl.h), one word at a time, in plain Python."""
    words = list(struct.unpack(f"<{len(page) // 4}I", page))
    words[2] &= 0xFFFF0000
    sums = list(_CHECKSUM_BASE)
    for i in range(0, len(words), 32):
        for j in range(32):
            t = sums[j] ^ words[i + j]
            sums[j] = ((t * 16777619) & 0xFFFFFFFF) ^ (t >> 17)
    for _ in range(2):
        for j in range(32):
            t = sums[j]
            sums[j] = ((t * 16777619) & 0xFFFFFFFF) ^ (t >> 17)
    r = 0
    for s in sums:
        r ^= s
    return ((r ^ blkno) % 65535) + 1


def header(page: bytes) -> dict:
    lsn, cks, flags, lower, upper, special, pv, prune = struct.unpack_from("<QHHHHHHI", page, 0)
    return {"checksum": cks, "flags": flags, "lower": lower, "upper": upper, "special": special,
            "pagesize": pv & 0xFF00, "version": pv & 0xFF}


def header_breaks(page: bytes) -> bool:
    """PageIsVerifiedExtended's header rules plus the layout version and page size."""
    h = header(page)
    return bool(h["flags"] & ~0x7 or h["lower"] < 24 or h["lower"] > h["upper"] or h["upper"] > h["special"]
                or h["special"] > BLCKSZ or h["special"] % 8 or h["pagesize"] != BLCKSZ or h["version"] != 4)


def expected_findings(page: bytes, blkno: int, am: str | None, fork: str, checksums: bool,
                      table: bool = True) -> set[tuple]:
    """(code, block, item) that any correct verifier must report for this page (a lower bound)."""
    out: set[tuple] = set()
    if not any(page):
        return out                                           # a new, all-zero page is valid
    h = header(page)
    if checksums and h["upper"] != 0 and ref_checksum(page, blkno) != h["checksum"]:
        out.add(("checksum.mismatch", blkno, None))
    if h["upper"] == 0:
        out.add(("page.new_not_zeroed", blkno, None))
        return out
    if header_breaks(page):
        out.add(("page.header.*", blkno, None))
        return out
    # the special space the access method's own page check demands (_bt_checkpage, _hash_checkpage,
    # gistcheckpage: MAXALIGN(sizeof its opaque data), 16 bytes; a table's pages have none, a sequence's 8)
    special = BLCKSZ - h["special"]
    if fork == "main" and am in ("btree", "hash", "gist") and special != 16:
        out.add((f"{am}.page.bad_special_size", blkno, None))
    if fork == "main" and am == "heap" and special != (0 if table else 8):
        out.add(("heap.page.special_space", blkno, None))
    nlp = max(0, min((h["lower"] - 24) // 4, (BLCKSZ - 24) // 4))
    lps = [struct.unpack_from("<I", page, 24 + 4 * i)[0] for i in range(nlp)]
    if fork == "main" and am == "heap" and table and h["special"] == BLCKSZ:
        for n, w in enumerate(lps, start=1):
            off, flags, length = w & 0x7FFF, (w >> 15) & 3, w >> 17
            if flags == 1 and length == 0:
                out.add(("heap.lp.normal_without_storage", blkno, n))
            if flags in (1, 3) and length > 0:
                if off < h["upper"] or off + length > h["special"]:
                    out.add(("heap.lp.out_of_bounds", blkno, n))
                    continue
                if off % 8:
                    out.add(("heap.lp.misaligned", blkno, n))
                    continue
                if flags == 3:
                    continue
                if length < 24:
                    out.add(("heap.tuple.too_short", blkno, n))
                    continue
                im2, im, hoff = struct.unpack_from("<HHB", page, off + 18)
                natts = im2 & 0x7FF
                raw = 23 + ((natts + 7) // 8 if im & 0x1 else 0) + (4 if im & 0x8 else 0)
                if hoff > length or hoff != (raw + 7) & ~7:
                    out.add(("heap.tuple.bad_hoff", blkno, n))
                    continue
                if im & 0x0400 and im & 0x1000:
                    out.add(("heap.tuple.multi_committed", blkno, n))
                if im2 & 0x8000 and not im & 0x2000:
                    out.add(("heap.tuple.heap_only_not_updated", blkno, n))
    if fork == "main" and am == "btree" and blkno > 0 and h["special"] == BLCKSZ - 16:
        flags = struct.unpack_from("<H", page, BLCKSZ - 4)[0]
        if not flags & (0x4 | 0x8):                          # not deleted, not a metapage
            for n, w in enumerate(lps, start=1):
                off, lflags, length = w & 0x7FFF, (w >> 15) & 3, w >> 17
                if lflags in (1, 3) and off >= 24 and length >= 8 and off + length <= h["special"]:
                    if struct.unpack_from("<H", page, off + 6)[0] & 0x1FFF != length:
                        out.add(("btree.item.size_mismatch", blkno, n))
    return out


def reported(findings, want: tuple) -> bool:
    code, blk, item = want
    for f in findings:
        c = f.code if hasattr(f, "code") else f["code"]
        b = f.block if hasattr(f, "block") else f.get("block")
        i = f.item if hasattr(f, "item") else f.get("item")
        if (c == code or (code.endswith("*") and c.startswith(code[:-1]))) and b == blk and (item is None or i == item):
            return True
    return False


# ------------------------------------------------------------------------------- the corpus
@dataclass
class Rig:
    """One fork of one fixture relation, in memory, with what verify needs to know about it."""
    major: int
    name: str
    fork: str
    am: str | None
    pages: np.ndarray
    ctx: VerifyContext
    cluster: object
    rel: object
    keys: object = None    # a B-tree's KeySpec (its columns, what order checks need), as verify builds it


@lru_cache(maxsize=None)
def rigs(major: int) -> list[Rig]:
    cluster = open_data_directory(data_dir(major))
    v = Verification(cluster)
    out = []
    for rel in cluster.database("pgpage").relations():
        if not rel.has_storage or not rel.forks:
            continue
        for fname, fork in rel.forks.items():
            if fork.nblocks == 0:
                continue
            pages = np.concatenate([c.copy() for _, c in fork.iter_chunks()])
            ctx = v.base_context(BLCKSZ, major, cluster.checksums)
            ctx.relation, ctx.fork = rel.qualified_name, fname
            ctx.relfrozenxid, ctx.relminmxid = rel.row.get("relfrozenxid"), rel.row.get("relminmxid")
            ctx.relnatts, ctx.nblocks = rel.row.get("relnatts"), fork.nblocks
            ctx.expected_special = 8 if rel.kind == "S" else 0
            subject = v.subject_of(rel)
            if subject.toast_known and fname == "main":    # TOAST pointers walked with pg_attribute's columns
                ctx.columns, ctx.toast_oid, ctx.toast_exists = subject.attributes, subject.toast_oid, subject.toast_exists
            am = rel.access_method if fname == "main" else None
            keys = subject.keys() if am == "btree" and subject.keys is not None else None
            out.append(Rig(major, rel.qualified_name, fname, am, pages, ctx, cluster, rel, keys))
    return out


def vm_bits(rig: Rig, n: int):
    vm = rig.rel.forks.get("vm")
    if vm is None:
        return None

    def page(b):
        return np.frombuffer(vm.read_block(b), dtype=np.uint8) if b < vm.nblocks else None
    return vm_bits_for(page, 0, n, BLCKSZ)


def run_everything(rig: Rig, chunk: np.ndarray, blkno: int, page_decoder: bool = True) -> list:
    """Every decoder and analysis over a fork whose block ``blkno`` was mutated (``page_decoder``: `pgpage
    page`'s too); the verify findings."""
    raw = chunk[blkno].tobytes()
    if page_decoder:
        ctx_page = PageContext(fork=rig.fork, am=rig.am, major=rig.major, checksums=True, relation=rig.name)
        decode_page(raw, blkno, ctx_page)
        decode_page(raw, blkno, replace(ctx_page, am=None))
    hc = decode_heap_chunk(chunk[blkno:blkno + 1], blkno)
    chunk_stats(hc, rig.cluster.clog, rig.cluster.multi_update_xid)
    ctx = rig.ctx
    if rig.fork == "main" and rig.rel.kind in "rtm" and rig.am == "heap":
        bits = vm_bits(rig, chunk.shape[0])
        findings = verify_heap_chunk(chunk, 0, ctx, bits)
        from pgpage.analysis.heap import HeapAnalysis
        ha = HeapAnalysis(BLCKSZ, chunk.shape[0], rig.cluster.clog, rig.cluster.multi_update_xid,
                          next_xid=ctx.next_full_xid, oldest_xid=ctx.oldest_xid, relation=rig.name)
        ha.add_chunk(chunk, 0, *(bits if bits is not None else (None, None)))
        ha.result()
    elif rig.fork == "main" and rig.rel.kind == "S":
        findings = verify_heap_chunk(chunk, 0, ctx, None)
    elif rig.fork == "main" and rig.am == "btree":
        table = rig.rel.table
        tfork = table.forks.get("main") if table is not None else None
        name = table.qualified_name if table is not None else None
        bv = BtreeVerifier(ctx, chunk.shape[0], shape_from_index_row(rig.rel.index_row), heap_tid_check(tfork, name),
                           name, rig.keys)     # the key order checks see the mutated pages too
        findings = bv.feed(chunk, 0) + bv.finish(lambda *pages: iter([(0, chunk)]))
    else:
        findings = verify_generic_chunk(chunk, 0, ctx, rig.am)
    return findings


# ------------------------------------------------------------------------------ the mutators
def m_bitflip(rng, page, rig, blkno):
    for _ in range(int(rng.integers(1, 9))):
        i = int(rng.integers(0, BLCKSZ * 8))
        page[i >> 3] ^= 1 << (i & 7)


def m_byte_run(rng, page, rig, blkno):
    n = int(rng.integers(1, 65))
    at = int(rng.integers(0, BLCKSZ - n))
    page[at:at + n] = rng.integers(0, 256, n, dtype=np.uint8)


def m_zero_range(rng, page, rig, blkno):
    if rng.random() < 0.1:
        page[:] = 0
        return
    n = int(rng.integers(1, 4097))
    at = int(rng.integers(0, BLCKSZ - n))
    page[at:at + n] = 0


def m_random_page(rng, page, rig, blkno):
    page[:] = rng.integers(0, 256, BLCKSZ, dtype=np.uint8)
    if rng.random() < 0.5:   # garbage behind a plausible header gets further into the decoders
        lower = int(rng.integers(24, 2000))
        struct.pack_into("<HHHHH", page, 10, 0, lower, int(rng.integers(lower, BLCKSZ)), BLCKSZ, BLCKSZ | 4)


def m_swap(rng, page, rig, blkno):
    others = rigs(rig.major)
    other = others[int(rng.integers(0, len(others)))]
    page[:] = other.pages[int(rng.integers(0, other.pages.shape[0]))]


def m_line_pointers(rng, page, rig, blkno):
    lower = struct.unpack_from("<H", page, 12)[0]
    nlp = max(1, min((lower - 24) // 4, 64))
    for _ in range(int(rng.integers(1, 4))):
        n = int(rng.integers(0, nlp))
        choice = rng.random()
        w = struct.unpack_from("<I", page, 24 + 4 * n)[0]
        off, flags, length = w & 0x7FFF, (w >> 15) & 3, w >> 17
        if choice < 0.3:
            off = int(rng.integers(0, 0x8000))
        elif choice < 0.5:
            length = int(rng.integers(0, 0x8000))
        elif choice < 0.7:
            flags = int(rng.integers(0, 4))
        else:
            off, flags, length = int(rng.integers(0, 0x8000)), int(rng.integers(0, 4)), int(rng.integers(0, 0x8000))
        struct.pack_into("<I", page, 24 + 4 * n, off | (flags << 15) | (length << 17))


def m_infomask(rng, page, rig, blkno):
    lower = struct.unpack_from("<H", page, 12)[0]
    nlp = max(0, min((lower - 24) // 4, (BLCKSZ - 24) // 4))
    tuples = []
    for n in range(nlp):
        w = struct.unpack_from("<I", page, 24 + 4 * n)[0]
        off, flags, length = w & 0x7FFF, (w >> 15) & 3, w >> 17
        if flags == 1 and length >= 24 and off % 8 == 0 and off + 24 <= BLCKSZ:
            tuples.append(off)
    if not tuples:
        return m_line_pointers(rng, page, rig, blkno)
    for _ in range(int(rng.integers(1, 4))):
        off = tuples[int(rng.integers(0, len(tuples)))]
        field = rng.random()
        if field < 0.4:
            struct.pack_into("<H", page, off + 20, int(rng.integers(0, 0x10000)))      # t_infomask
        elif field < 0.7:
            struct.pack_into("<H", page, off + 18, int(rng.integers(0, 0x10000)))      # t_infomask2
        elif field < 0.8:
            page[off + 22] = int(rng.integers(0, 256))                                 # t_hoff
        elif field < 0.9:
            struct.pack_into("<I", page, off + int(rng.choice([0, 4])), int(rng.integers(0, 2**32)))  # xmin/xmax
        else:
            struct.pack_into("<HHH", page, off + 12, *(int(x) for x in rng.integers(0, 0x10000, 3)))  # t_ctid


def m_header(rng, page, rig, blkno):
    field = int(rng.integers(0, 5))
    at = (10, 12, 14, 16, 18)[field]
    struct.pack_into("<H", page, at, int(rng.integers(0, 0x10000)))


def m_special(rng, page, rig, blkno):
    """pd_special moved (MAXALIGNed, past pd_upper: the header stays sane) or the special space's bytes
    overwritten (B-tree btpo_flags and cycle id, the page ids of hash, GiST, SP-GiST)."""
    upper = struct.unpack_from("<H", page, 14)[0]
    if rng.random() < 0.6 and upper <= BLCKSZ:
        struct.pack_into("<H", page, 16, int(rng.integers(upper // 8, BLCKSZ // 8 + 1)) * 8)
    else:
        n = int(rng.integers(1, 9))
        page[BLCKSZ - n:] = rng.integers(0, 256, n, dtype=np.uint8)


MUTATORS = [m_bitflip, m_byte_run, m_zero_range, m_random_page, m_swap, m_line_pointers, m_infomask, m_header,
            m_special]


def kind_of(rig: Rig) -> str:
    """What sort of page a rig holds, for the coverage count."""
    if rig.fork != "main":
        return rig.fork
    if rig.rel.kind == "t":
        return "toast"
    return "heap" if rig.am == "heap" and rig.rel.kind in "rm" else rig.am or rig.rel.kind


# ----------------------------------------------------------------------------------- the tests
def test_mutated_pages_through_every_decoder_and_analysis():
    """Seeded (``SEED``, printed on failure), bounded (``PAGE_CASES`` cases, ``PAGE_SECONDS``, each case under
    ``CASE_SECONDS``): mutated real pages of every kind and major through verify and the analyses (and one in
    ``DECODE_EVERY`` through `pgpage page`'s decoder); every page PostgreSQL's checks would reject is reported."""
    rng = np.random.default_rng(SEED)
    all_rigs = [r for m in MAJORS for r in rigs(m)]
    # warm up the compiled kernels outside the timed cases
    for r in all_rigs[:3]:
        run_everything(r, r.pages.copy(), 0)
    tried = breaks = order_found = 0
    per_mutator: dict[str, int] = {}
    per_kind: dict[str, int] = {}
    per_major: dict[int, int] = {}
    missed = []
    deadline = time.monotonic() + PAGE_SECONDS
    by_kind: dict[str, list[Rig]] = {}
    for r in all_rigs:
        by_kind.setdefault(kind_of(r), []).append(r)
    kinds = sorted(by_kind)
    for case in range(PAGE_CASES):
        if time.monotonic() > deadline:
            break
        group = by_kind[kinds[case % len(kinds)]]           # every kind of page in turn
        rig = group[int(rng.integers(0, len(group)))]
        chunk = rig.pages.copy()
        mut = MUTATORS[case % len(MUTATORS) if len(kinds) % len(MUTATORS) else (case // len(kinds)) % len(MUTATORS)]
        changed = []
        for blkno in sorted(rng.choice(chunk.shape[0], min(chunk.shape[0], int(rng.integers(1, 5))), replace=False)):
            blkno = int(blkno)           # up to 4 pages of the fork, each mutated its own way
            mut(rng, chunk[blkno], rig, blkno)
            if rng.random() < 0.5 and mut is not m_swap:  # checksum recomputed: only structural rules catch it
                chunk[blkno, 8:10] = 0
                struct.pack_into("<H", chunk[blkno], 8, ref_checksum(chunk[blkno].tobytes(), blkno)
                                 if chunk[blkno].any() else 0)
            if not np.array_equal(chunk[blkno], rig.pages[blkno]):
                changed.append(blkno)
        if not changed:
            continue
        tried += len(changed)
        per_mutator[mut.__name__] = per_mutator.get(mut.__name__, 0) + len(changed)
        per_kind[kind_of(rig)] = per_kind.get(kind_of(rig), 0) + len(changed)
        per_major[rig.major] = per_major.get(rig.major, 0) + len(changed)
        what = f"seed {SEED} case {case}: {mut.__name__} on {rig.major}/{rig.name}/{rig.fork} blocks {changed}"
        with time_limit(CASE_SECONDS, what):
            findings = run_everything(rig, chunk, changed[0], page_decoder=case % DECODE_EVERY == 0)
        order_found += sum(f.code.startswith("btree.order.") for f in findings)
        for blkno in changed:
            want = expected_findings(chunk[blkno].tobytes(), blkno, rig.am, rig.fork, bool(rig.ctx.checksums),
                                     table=rig.rel.kind in "rtm")
            breaks += bool(want)
            for w in want:
                if not reported(findings, w):
                    missed.append((what, w, [(f.code, f.block, f.item) for f in findings][:8]))
        other_blocks = {f.block for f in findings if f.block is not None and f.code.startswith(("checksum", "page."))}
        assert other_blocks <= set(changed), (what, other_blocks)   # the damage stays where it is
    report(f"pages (seed {SEED}: decode_page, vector, pgstattuple, heap analysis, btree scan, verify)", tried)
    print(f"robustness: {breaks} of them broke a rule the oracles know; per mutator: {per_mutator};"
          f" per kind: {per_kind}; per major: {per_major}; key order findings: {order_found}")
    assert not missed, f"seed {SEED}:\n" + "\n".join(map(str, missed[:12]))
    assert tried >= MIN_PAGE_CASES and breaks >= tried // 3, (SEED, tried, breaks)
    if tried >= 1000:   # every kind of page and every major had its turn
        assert set(per_kind) == set(kinds) and set(per_major) == set(MAJORS), (SEED, per_kind, per_major)
        assert order_found, SEED      # the key order checks saw mutated B-tree pages (each verifier has its KeySpec)


def test_truncated_pages_decode_as_truncated():
    rng = np.random.default_rng(SEED + 1)
    tried = 0
    for rig in rigs(MAJORS[-1])[:40]:
        for blkno in range(min(rig.pages.shape[0], 3)):
            cut = int(rng.integers(0, BLCKSZ))
            raw = rig.pages[blkno, :cut].tobytes()
            with time_limit(CASE_SECONDS, f"truncated {rig.name}"):
                p = decode_page(raw, blkno, PageContext(fork=rig.fork, am=rig.am, major=rig.major))
            assert p["page_type"] == "truncated" and p["findings"][0].code == "page.truncated"
            tried += 1
    report("truncated pages", tried)
    assert tried >= 40


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(min_size=0, max_size=BLCKSZ + 16))
def test_decode_control_and_map_on_arbitrary_bytes(data):
    """Only a wrong size is refused (DecodeError); any 8192 / 512 / 524 bytes decode."""
    for decoder, sizes in ((decode_control, (8192,)), (decode_filenode_map, (512, 524))):
        with time_limit(CASE_SECONDS, decoder.__name__):
            for blob in (data, data[:sizes[0]].ljust(sizes[0], b"\0")):
                try:
                    decoder(blob)
                except DecodeError:
                    assert len(blob) not in sizes or decoder is decode_control


def mutate_bytes(rng, b: np.ndarray) -> None:
    """A bit flip, a run of garbage or a zeroed range anywhere in a byte array of any length."""
    kind = int(rng.integers(0, 3))
    n = len(b)
    if kind == 0:
        for _ in range(int(rng.integers(1, 9))):
            i = int(rng.integers(0, n * 8))
            b[i >> 3] ^= 1 << (i & 7)
        return
    length = int(rng.integers(1, min(64, n) + 1))
    at = int(rng.integers(0, n - length + 1))
    b[at:at + length] = rng.integers(0, 256, length, dtype=np.uint8) if kind == 1 else 0


def test_mutated_control_files_and_maps():
    rng = np.random.default_rng(SEED + 2)
    tried = 0
    for major in MAJORS:
        control = (data_dir(major) / "global" / "pg_control").read_bytes()
        fmap = (data_dir(major) / "global" / "pg_filenode.map").read_bytes()
        for _ in range(60):
            for orig, decoder, code in ((control, decode_control, "control.crc.mismatch"),
                                        (fmap, decode_filenode_map, "filenode_map.crc.mismatch")):
                b = np.frombuffer(orig, dtype=np.uint8).copy()
                mutate_bytes(rng, b)
                with time_limit(CASE_SECONDS, decoder.__name__):
                    try:
                        d = decoder(b.tobytes())
                    except DecodeError as e:   # a pg_control_version pgpage does not know: refused whole
                        assert decoder is decode_control, e
                        tried += 1
                        continue
                tried += 1
                end = d["crc_offset"] + 4
                changed = bytes(b[:end]) != orig[:end]
                assert d["crc_ok"] == (not changed)
                if changed:
                    assert code in {f["code"] for f in d["findings"]}
    report("pg_control and pg_filenode.map", tried)
    assert tried >= 1000


FILE_MUTATORS = [m_bitflip, m_byte_run, m_zero_range, m_random_page, m_line_pointers, m_header]


def _damage_file(rng, path: Path, blocks: list[int], fix_checksum: bool) -> None:
    data = bytearray(path.read_bytes())
    for blkno in blocks:
        page = np.frombuffer(bytes(data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ]), dtype=np.uint8).copy()
        if len(page) < BLCKSZ:
            continue
        FILE_MUTATORS[int(rng.integers(0, len(FILE_MUTATORS)))](rng, page, None, blkno)
        if fix_checksum and page.any():
            page[8:10] = 0
            struct.pack_into("<H", page, 8, ref_checksum(page.tobytes(), blkno))
        data[blkno * BLCKSZ:(blkno + 1) * BLCKSZ] = page.tobytes()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("major", [MAJORS[0], MAJORS[len(MAJORS) // 2], MAJORS[-1]], ids=lambda m: f"pg{m}")
def test_damaged_catalogs_and_control_files(tmp_path, major):
    """A data directory whose catalogs (pg_class, pg_attribute, pg_namespace, pg_database, ...),
    relation files, pg_control or maps are damaged: the catalogs are read, ``scan``'s survey and
    ``verify`` run over every relation they name, and nothing escapes."""
    from pgpage.passes import scan as scan_pass
    rng = np.random.default_rng(SEED + major)
    tried = 0
    for case in range(8):
        copy = tmp_path / f"c{case}"
        shutil.copytree(data_dir(major), copy)
        cluster = open_data_directory(copy)
        rels = [r for r in cluster.database("pgpage").relations() if r.forks.get("main") is not None]
        if case % 4 == 3:   # everything, not only the catalogs
            targets = rels
        else:
            targets = [r for r in rels if r.namespace == "pg_catalog"]
        for rel in targets:
            f = rel.forks["main"]
            if not f.nblocks:
                continue
            blocks = sorted({int(x) for x in rng.integers(0, f.nblocks, max(1, f.nblocks // 3))})
            _damage_file(rng, f.segments[0][1], blocks, fix_checksum=bool(case % 2))
        if case >= 4:
            for name in ("global/pg_control", "global/pg_filenode.map", "base/16384/pg_filenode.map"):
                p = copy / name
                b = np.frombuffer(p.read_bytes(), dtype=np.uint8).copy()
                mutate_bytes(rng, b)
                p.write_bytes(b.tobytes())
        with time_limit(180, f"damaged catalogs {major}/{case}"):
            cluster = open_data_directory(copy)
            scan_pass.cluster_summary(cluster)
            for db in cluster.databases():
                if db.path.is_dir():
                    scan_pass.database_summary(cluster, db)
                    for rel in db.relations():
                        if rel.has_storage and rel.forks:
                            scan_pass.relation_health(cluster, rel)
            recs = list(Verification(open_data_directory(copy)).cluster_records())
        assert any(r["type"] == "finding" for r in recs)
        tried += 1
    report(f"damaged data directory copies (pg{major})", tried)


def test_damaged_relation_files(tmp_path):
    """Truncated files, torn last blocks, swapped and mutated pages in whole relation files,
    verified as files (no data directory around them): a torn block is reported, and the rest of
    the file still is analysed."""
    rng = np.random.default_rng(SEED + 3)
    tried = 0
    sources = [r for r in rigs(MAJORS[-1]) if r.fork == "main" and r.pages.shape[0] >= 2]
    for case in range(60):
        rig = sources[case % len(sources)]
        path = tmp_path / f"{16000 + case}"
        data = bytearray(rig.pages.tobytes())
        kind = case % 3
        if kind == 0:
            cut = int(rng.integers(1, len(data)))
            data = data[:cut]
        elif kind == 1:
            a, b = rng.choice(rig.pages.shape[0], 2, replace=False)
            pa, pb = data[a * BLCKSZ:(a + 1) * BLCKSZ], data[b * BLCKSZ:(b + 1) * BLCKSZ]
            data[a * BLCKSZ:(a + 1) * BLCKSZ], data[b * BLCKSZ:(b + 1) * BLCKSZ] = pb, pa
        path.write_bytes(bytes(data))
        if kind == 2:
            _damage_file(rng, path, [int(rng.integers(0, rig.pages.shape[0]))], fix_checksum=False)
        with time_limit(CASE_SECONDS, f"file case {case}"):
            fork = open_segment_file(path)
            v = Verification(None)
            recs = list(v.relation_records(Subject(path.name, None, {"main": fork}, kind=rig.rel.kind,
                                                   am=rig.am)))
        tried += 1
        codes = {(r["code"], r.get("block")) for r in recs if r["type"] == "finding"}
        rel = recs[-1]
        assert rel["type"] == "relation" and rel["forks"]["main"] == len(data) // BLCKSZ
        if len(data) % BLCKSZ:
            assert ("segment.partial_block", len(data) // BLCKSZ) in codes
        if kind == 1:   # swapped pages carry each other's block number in their checksum
            a_ok = rig.pages[a].tobytes() == rig.pages[b].tobytes()
            assert a_ok or {("checksum.mismatch", int(a)), ("checksum.mismatch", int(b))} <= codes
    report("relation files", tried)


def test_verify_refuses_a_file_that_is_not_a_relation(tmp_path):
    from pgpage.cli.verify_cmd import verify_command
    p = tmp_path / "notes.txt"
    p.write_bytes(b"not a PostgreSQL file\n" * 1000)
    with pytest.raises(PgpageError) as e:
        verify_command(target=str(p), json_out=True)
    assert e.value.exit_code == 3


@pytest.mark.parametrize("command", ["heap", "index", "page", "verify", "scan", "diff"])
def test_a_path_that_does_not_exist_is_named(tmp_path, command):
    """A mistyped path gets one line naming it and exit 3, whatever options come with it (not a complaint
    about --db and --rel)."""
    import subprocess
    import sys
    missing = tmp_path / "no" / "such"
    args = {"diff": [str(missing), str(tmp_path)], "scan": [str(missing)],
            "page": [str(missing), "--db", "postgres", "--rel", "pg_class", "--block", "0"]}.get(
        command, [str(missing), "--db", "postgres", "--rel", "pg_class"])
    p = subprocess.run([sys.executable, "-m", "pgpage", command, *args], capture_output=True, text=True)
    assert p.returncode == 3, p.stderr
    assert p.stderr.strip().splitlines() == [f"pgpage: {missing}: no such file or directory"]
