"""pg_xact status and multixact members, checked against the committed fixture clusters.

Oracles (all from the server that made the fixture, ``fixtures/pg<MAJOR>/oracle/``):

* ``catalog.json`` "txid_current": a transaction that committed before the clean stop;
* the hint bits in pageinspect's ``heap_page_items`` of every fixture heap page
  (``rel/<relname>.json.gz``): the server sets HEAP_XMIN_COMMITTED / HEAP_XMAX_COMMITTED only after
  seeing the transaction committed in pg_xact, and HEAP_XMIN_INVALID / HEAP_XMAX_INVALID (for an
  update or delete) only after seeing it aborted, so each hint is a statement about pg_xact;
* for a MultiXactId xmax, the lock bits heap_lock_tuple()/heap_update() derived from the
  multixact's members (GetMultiXactIdHintBits() in heapam.c): HEAP_XMAX_LOCK_ONLY unless a member
  updated, HEAP_XMAX_KEYSHR_LOCK / SHR_LOCK / EXCL_LOCK after the strongest member, and
  HEAP_KEYS_UPDATED in t_infomask2 for a FOR UPDATE or key-changing member; and for an updating
  multixact, the update member is the xmin of the new tuple version its t_ctid points to.

pgpage's lookups (``ClogArray``, ``MultiXactMembers``) are held to the generated Kaitai parsers on every fixture
SLRU page.
"""
from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from pgpage.decode.control import decode_control
from pgpage.decode.xact import (MULTIXACT_MODE, ST_ABORTED, ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS, ST_INVALID,
                                ST_UNKNOWN, ClogArray, MultiXactMembers, multixact_page, parse_segment_name,
                                segment_name, xact_page_statuses)

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("PGPAGE_FIXTURES", REPO / "fixtures"))
PAGE = 8192

HEAP_XMAX_KEYSHR_LOCK = 0x0010
HEAP_XMAX_EXCL_LOCK = 0x0040
HEAP_XMAX_SHR_LOCK = HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK
HEAP_XMAX_LOCK_ONLY = 0x0080
HEAP_XMIN_COMMITTED = 0x0100
HEAP_XMIN_INVALID = 0x0200
HEAP_XMAX_COMMITTED = 0x0400
HEAP_XMAX_INVALID = 0x0800
HEAP_XMAX_IS_MULTI = 0x1000
HEAP_KEYS_UPDATED = 0x2000          # t_infomask2

# MultiXactStatus -> LockTupleMode strength (tupleLockExtraInfo in heapam.c):
# KeyShare 0, Share 1, NoKeyExclusive 2, Exclusive 3
LOCK_STRENGTH = {0: 0, 1: 1, 2: 2, 3: 3, 4: 2, 5: 3}


def fixture_majors() -> list[int]:
    if not FIXTURES.is_dir():
        return []
    out = []
    for d in FIXTURES.iterdir():
        m = re.fullmatch(r"pg(\d+)", d.name)
        if m and (d / "data" / "pg_xact").is_dir() and (d / "oracle" / "catalog.json").is_file():
            out.append(int(m.group(1)))
    return sorted(out)


MAJORS = fixture_majors()


def data_dir(major: int) -> Path:
    return FIXTURES / f"pg{major}" / "data"


def segments(major: int, sub: str) -> dict[str, bytes]:
    d = data_dir(major) / sub
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()} if d.is_dir() else {}


def oracle(major: int) -> dict:
    return json.loads((FIXTURES / f"pg{major}" / "oracle" / "catalog.json").read_text())


def clog_of(named: dict[str, bytes]) -> ClogArray:
    return ClogArray({parse_segment_name(name): data for name, data in named.items()})


def xact(major: int) -> ClogArray:
    return clog_of(segments(major, "pg_xact"))


def state(clog: ClogArray, xid: int) -> int:
    return int(clog.states(np.array([xid], dtype=np.int64))[0])


# what pgpage makes of each 2-bit pg_xact status (a sub-committed xid's fate is its parent's: unknown from pg_xact)
BY_RAW_STATUS = np.array([ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_UNKNOWN])


def multis(major: int) -> tuple[MultiXactMembers, dict]:
    cp = decode_control((data_dir(major) / "global" / "pg_control").read_bytes())["checkPointCopy"]
    return MultiXactMembers(segments(major, "pg_multixact/offsets"), segments(major, "pg_multixact/members"),
                            cp["nextMulti"], cp["nextMultiOffset"]), cp


def heap_items(major: int):
    """(relname, blkno, item) for every line pointer with a tuple header on every fixture heap page."""
    reldir = FIXTURES / f"pg{major}" / "oracle" / "rel"
    if not reldir.is_dir():
        return
    for path in sorted(reldir.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        for page in doc.get("forks", {}).get("main", []) or []:
            for item in page.get("heap_page_items") or []:
                if item.get("t_infomask") is not None:
                    yield doc.get("relname", path.name), page["blkno"], page, item


def ctid(text: str) -> tuple[int, int]:
    blk, off = text.strip("()").split(",")
    return int(blk), int(off)


# --------------------------------------------------------------------------------- pg_xact

@pytest.mark.parametrize("major", MAJORS)
def test_txid_current_committed(major):
    assert state(xact(major), int(oracle(major)["txid_current"]) & 0xFFFFFFFF) == ST_COMMITTED


@pytest.mark.parametrize("major", MAJORS)
def test_hint_bits_agree_with_pg_xact(major):
    xs = xact(major)
    checked = {ST_COMMITTED: 0, ST_ABORTED: 0}
    for rel, blk, _, it in heap_items(major):
        mask = it["t_infomask"]
        xmin, xmax = int(it["t_xmin"]), int(it["t_xmax"])
        where = (rel, blk, it["lp"])
        frozen = mask & (HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID) == HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID
        if not frozen and mask & HEAP_XMIN_COMMITTED:
            assert state(xs, xmin) == (ST_FROZEN if xmin in (1, 2) else ST_COMMITTED), where
            checked[ST_COMMITTED] += 1
        if not frozen and mask & HEAP_XMIN_INVALID:
            assert state(xs, xmin) == ST_ABORTED, where
            checked[ST_ABORTED] += 1
        if mask & HEAP_XMAX_IS_MULTI or xmax == 0:
            continue
        if mask & HEAP_XMAX_COMMITTED:
            assert state(xs, xmax) == ST_COMMITTED, where
            checked[ST_COMMITTED] += 1
        locked_only = mask & HEAP_XMAX_LOCK_ONLY or \
            mask & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_SHR_LOCK) == HEAP_XMAX_EXCL_LOCK
        if mask & HEAP_XMAX_INVALID and not locked_only:
            assert state(xs, xmax) == ST_ABORTED, where
            checked[ST_ABORTED] += 1
    assert any(True for _ in heap_items(major)), "no page-level oracle for this fixture"
    assert checked[ST_COMMITTED] > 0


@pytest.mark.parametrize("major", MAJORS)
def test_fast_path_equals_generated_parser_xact(major):
    xs = xact(major)
    pages = 0
    for name, seg in segments(major, "pg_xact").items():
        for p in range(len(seg) // PAGE):
            expected = BY_RAW_STATUS[xact_page_statuses(seg[p * PAGE:(p + 1) * PAGE])]
            xids = (parse_segment_name(name) * 32 + p) * PAGE * 4 + np.arange(len(expected))
            normal = xids >= 3                             # special xids never read pg_xact
            assert np.array_equal(xs.states(xids)[normal], expected[normal]), (name, p)
            pages += 1
    assert pages


# --------------------------------------------------------------------------------- multixact

@pytest.mark.parametrize("major", MAJORS)
def test_multixact_members_agree_with_tuple_hint_bits(major):
    mm, cp = multis(major)
    xs = xact(major)
    pages: dict[tuple[str, int], dict] = {}
    items = list(heap_items(major))
    for rel, blk, page, _ in items:
        pages[(rel, blk)] = page
    checked = 0
    for rel, blk, page, it in items:
        mask, mask2 = it["t_infomask"], it["t_infomask2"]
        if not mask & HEAP_XMAX_IS_MULTI:
            continue
        multi = int(it["t_xmax"])
        if (multi - cp["oldestMulti"]) & 0x80000000:
            continue                                       # older than oldestMulti: may be truncated away
        members = mm.members(multi)
        assert members, (rel, blk, it["lp"], multi)
        strongest = max(LOCK_STRENGTH[m["status"]] for m in members)
        updates = [m for m in members if m["mode"] in ("nokeyupd", "upd")]
        lock_bits = {3: HEAP_XMAX_EXCL_LOCK, 2: HEAP_XMAX_EXCL_LOCK, 1: HEAP_XMAX_SHR_LOCK,
                     0: HEAP_XMAX_KEYSHR_LOCK}[strongest]
        if not updates:
            lock_bits |= HEAP_XMAX_LOCK_ONLY
        assert mask & (HEAP_XMAX_SHR_LOCK | HEAP_XMAX_LOCK_ONLY) == lock_bits, (rel, blk, it["lp"], members)
        keys = any(m["mode"] in ("forupd", "upd") for m in members)
        assert bool(mask2 & HEAP_KEYS_UPDATED) == keys, (rel, blk, it["lp"], members)
        assert len(updates) <= 1
        for m in members:
            assert m["mode"] in MULTIXACT_MODE.values()
            assert state(xs, m["xid"]) != ST_UNKNOWN
        if updates and it.get("t_ctid") and ctid(it["t_ctid"]) != (blk, it["lp"]):
            nblk, nlp = ctid(it["t_ctid"])
            newer = [x for x in (pages.get((rel, nblk)) or {}).get("heap_page_items") or [] if x["lp"] == nlp]
            if newer and newer[0].get("t_xmin") is not None:
                assert int(newer[0]["t_xmin"]) == updates[0]["xid"], (rel, blk, it["lp"])
        checked += 1
    assert items, "no page-level oracle for this fixture"
    assert checked > 0, "no tuple with a MultiXactId xmax in the fixture"


@pytest.mark.parametrize("major", MAJORS)
def test_fast_path_equals_generated_parser_multixact(major):
    mm, _ = multis(major)
    for sub, is_members in (("pg_multixact/offsets", False), ("pg_multixact/members", True)):
        for name, seg in segments(major, sub).items():
            segno = parse_segment_name(name)
            for p in range(len(seg) // PAGE):
                pageno = segno * 32 + p
                expected = multixact_page(seg[p * PAGE:(p + 1) * PAGE], is_members)
                if is_members:
                    base = pageno * mm.members_per_page
                    for i, slot in enumerate(expected):
                        assert mm.member_slot(base + i) == slot
                else:
                    base = pageno * mm.offsets_per_page
                    for i, off in enumerate(expected):
                        assert mm.offset(base + i) == (off or None)


# --------------------------------------------------------------------------------- lookups

def some_xact_segments() -> dict[str, bytes]:
    assert MAJORS, "no fixture clusters: python fixtures/make_fixtures.py"
    return segments(MAJORS[-1], "pg_xact")


def test_segment_names():
    assert segment_name(0) == "0000"
    assert segment_name(0x123) == "0123"
    assert segment_name(0x14078) == "14078"
    assert parse_segment_name("pg_multixact/members/14078") == 0x14078
    assert parse_segment_name("00000000000001F") == 0x1F
    assert parse_segment_name("0000.tmp") is None
    assert parse_segment_name("xyzw") is None


def test_special_and_missing_xids():
    segs = some_xact_segments()
    xs = clog_of(segs)
    assert state(xs, 0) == ST_INVALID
    assert state(xs, 1) == state(xs, 2) == ST_FROZEN      # bootstrap and frozen xids never read pg_xact
    assert state(xs, 1 << 31) == ST_UNKNOWN               # segment 0800 is not there
    first = sorted(segs)[0]
    truncated = clog_of({first: segs[first][:PAGE]})
    base = parse_segment_name(first) * 32 * PAGE * 4
    assert state(truncated, base + PAGE * 4) == ST_UNKNOWN  # page 1 is not in 8 KB
    assert state(truncated, base + 3) == state(xs, base + 3)


def test_multixact_without_pages():
    mm = MultiXactMembers({}, {})
    assert mm.members(1) is None
    assert mm.members(0) is None
