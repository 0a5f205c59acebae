"""The WAL reader against the servers' own account of the same WAL (fixtures/make_wal.py).

15-18: every record's fields against pg_get_wal_records_info, block references against its block_ref
text and (16+) pg_get_wal_block_info, the statistics against pg_get_wal_stats; 15: Debian's pg_waldump.
10-14 (no pg_walinspect, no pg_waldump in those builds): every CRC, the prev-link chain, the workload's
xids in its commit and abort records, and the heap records of its table counted by type, which must be
the counts pg_walinspect reports for the same workload on 15-18.
"""
from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from functools import lru_cache

import pytest
from conftest import FIXTURES, REQUIRED_MAJORS

from pgpage.decode import versions
from pgpage.decode.control import format_lsn, parse_lsn
from pgpage.passes.wal import WalReader
from pgpage.storage.wal import WalDirectory

WAL = FIXTURES / "wal"
INSPECT_MAJORS = tuple(m for m in REQUIRED_MAJORS if m >= 15)


@lru_cache(maxsize=None)
def oracle(major: int) -> dict:
    with gzip.open(WAL / f"pg{major}" / "oracle.json.gz") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def walk(major: int):
    reader = WalReader(WalDirectory(WAL / f"pg{major}" / "archive"))
    facts = oracle(major)["facts"]
    recs = list(reader.records(parse_lsn(facts["start_lsn"]), parse_lsn(facts["end_lsn"])))
    return reader, recs


def test_every_major_has_wal_fixtures():
    assert sorted(int(p.name[2:]) for p in WAL.glob("pg*")) == list(REQUIRED_MAJORS)


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_reader_knows_the_segment(major):
    reader, recs = walk(major)
    facts = oracle(major)["facts"]
    assert reader.major == major
    assert str(reader.sysid) == facts["system_identifier"]
    assert reader.segment_size == facts["wal_segment_size"]
    assert reader.stop.code == "wal.end"
    assert format_lsn(recs[0].lsn) == facts["start_lsn"]
    last = recs[-1]
    assert versions.wal_record_type(major, last.rmid, last.info) == "SWITCH"
    assert format_lsn(last.lsn) == facts["before_switch_lsn"]
    assert format_lsn(last.end_lsn) == facts["end_lsn"]
    for a, b in zip(recs, recs[1:]):          # the chain: each record names the one before, none overlaps
        assert b.prev_lsn == a.lsn and b.lsn >= a.end_lsn


BLKREF = re.compile(r"blkref #(\d+): rel (\d+)/(\d+)/(\d+)(?: fork (\w+))? blk (\d+)( \(FPW\))?"
                    r"(?:; hole: offset: (\d+), length: (\d+)(?:, compression saved: (\d+), method: (\w+))?)?")


def _blocks_of(block_ref: str | None) -> list[tuple]:
    return [(int(m[1]), f"{m[2]}/{m[3]}/{m[4]}", m[5] or "main", int(m[6]), bool(m[7]),
             int(m[8]) if m[8] else 0, int(m[9]) if m[9] else 0, m[11])
            for m in BLKREF.finditer(block_ref or "")]


def _our_blocks(rec) -> list[tuple]:
    return [(b.block_id, b.relfilenode, b.fork, b.block, b.has_image, b.hole_offset, b.hole_length, b.compression)
            for b in rec.blocks]


@pytest.mark.parametrize("major", INSPECT_MAJORS)
def test_every_record_as_pg_walinspect(major):
    _, recs = walk(major)
    want = oracle(major)["records"]
    assert len(recs) == len(want)
    for rec, w in zip(recs, want):
        got = {"start_lsn": format_lsn(rec.lsn), "end_lsn": format_lsn(rec.end_lsn),
               "prev_lsn": format_lsn(rec.prev_lsn),
               "xid": rec.xid, "resource_manager": versions.rmgr_name(rec.rmid),
               "record_type": versions.wal_record_type(major, rec.rmid, rec.info), "record_length": rec.length,
               "main_data_length": rec.main_data_length, "fpi_length": rec.fpi_length}
        assert got == {k: w[k] for k in got}, w
        assert _our_blocks(rec) == _blocks_of(w["block_ref"]), w


@pytest.mark.parametrize("major", [m for m in INSPECT_MAJORS if m >= 16])
def test_every_block_as_pg_get_wal_block_info(major):
    _, recs = walk(major)
    got = []
    for rec in recs:
        for b in rec.blocks:
            got.append({"start_lsn": format_lsn(rec.lsn), "block_id": b.block_id, "reltablespace": b.spc,
                        "reldatabase": b.db, "relfilenode": b.rel, "relforknumber": b.fork_flags & 0x0F,
                        "relblocknumber": b.block, "block_data_length": b.data_length,
                        "block_fpi_length": b.image_length,
                        "block_fpi_info": [n.removeprefix("BKPIMAGE_") for n in b.image_flags(major)] or None})
    want = [{k: w[k] for k in got[0]} for w in oracle(major)["blocks"]]
    assert got == want


@pytest.mark.parametrize("major", INSPECT_MAJORS)
def test_stats_as_pg_get_wal_stats(major):
    from pgpage.passes.wal import RecordCounts, wal_stats
    reader, recs = walk(major)
    python_counts = RecordCounts()
    for rec in recs:
        python_counts.add(rec)
    stats = wal_stats(python_counts, major)
    facts = oracle(major)["facts"]
    start, end = parse_lsn(facts["start_lsn"]), parse_lsn(facts["end_lsn"])
    chunks = list(reader.record_arrays(start, end))
    array_counts = RecordCounts()
    for c in chunks:
        array_counts.add_chunk(c)
    compiled = reader.record_counts(start, end)           # counted in C, the other two are its twins
    assert wal_stats(array_counts, major) == wal_stats(compiled, major) == stats
    assert (compiled.first_lsn, compiled.end_lsn) == (recs[0].lsn, recs[-1].end_lsn)
    assert sum(len(c["lsn"]) for c in chunks if len(c["lsn"]) > 1) > 0.9 * len(recs)   # the compiled scan's
    for per_record, key in ((False, "stats"), (True, "stats_per_record")):
        want = {w["resource_manager/record_type"]: (w["count"], w["record_size"], w["fpi_size"], w["combined_size"])
                for w in oracle(major)[key] if w["count"]}
        rows = stats["record_types" if per_record else "rmgrs"]
        got = {r["name"]: (r["count"], r["record_size"], r["fpi_size"], r["combined_size"]) for r in rows}
        assert got == want


WALDUMP = re.compile(r"rmgr: (\w+)\s+len \(rec/tot\):\s+(\d+)/\s*(\d+), tx:\s+(\d+), lsn: ([0-9A-F]+)/([0-9A-F]+), "
                     r"prev ([0-9A-F]+)/([0-9A-F]+), desc: (\S+) (.*?)(?:, blkref #\d+: .*)?$")
WALDUMP_MAJORS = (14, 15)      # PyPI's 14 build and Debian's 15 ship pg_waldump
WALDUMP_TIME = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{6}) UTC")


def backend_time(text: str) -> str:
    """pg_waldump's frontend prints a timestamp as ``... 20:09:11.254000 UTC``, the server (pg_walinspect, and
    pgpage) as ``... 20:09:11.254+00``: the same instant, the server's way."""
    return WALDUMP_TIME.sub(lambda m: m[1] + ("." + m[2].rstrip("0") if m[2].rstrip("0") else "") + "+00", text)


@pytest.mark.parametrize("major", WALDUMP_MAJORS)
def test_every_record_as_pg_waldump(major):
    """Every field of pg_waldump's line, its description included."""
    from pgpage.decode.wal.describe import describe
    _, recs = walk(major)
    lines = oracle(major)["waldump"].splitlines()
    assert len(lines) == len(recs)
    for rec, line in zip(recs, lines):
        m = WALDUMP.match(line)
        assert m, line
        assert (m[1], int(m[2]), int(m[3]), int(m[4]), int(m[5] + m[6].rjust(8, "0"), 16),
                int(m[7] + m[8].rjust(8, "0"), 16), m[9], backend_time(m[10])) == (
            versions.rmgr_name(rec.rmid), rec.length - rec.fpi_length, rec.length, rec.xid, rec.lsn, rec.prev_lsn,
            versions.wal_record_type(major, rec.rmid, rec.info), describe(rec, major)), line


def _heap_counts(major: int) -> Counter:
    _, recs = walk(major)
    rel = oracle(major)["facts"]["relfilenodes"]["w"]
    return Counter(versions.wal_record_type(major, r.rmid, r.info) for r in recs
                   if r.rmid == versions.RMGR_HEAP and r.blocks and r.blocks[0].rel == rel)


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_workload_records_in_every_major(major):
    """10-14 have no server-side oracle: the workload's own facts and 15-18's counts stand in for it."""
    _, recs = walk(major)
    facts = oracle(major)["facts"]
    ends = {versions.wal_record_type(major, r.rmid, r.info): set() for r in recs if r.rmid == versions.RMGR_XACT}
    for r in recs:
        if r.rmid == versions.RMGR_XACT:
            ends[versions.wal_record_type(major, r.rmid, r.info)].add(r.xid)
    assert set(facts["committed_xids"]) <= ends["COMMIT"]
    assert set(facts["aborted_xids"]) <= ends["ABORT"]
    counts = _heap_counts(major)
    assert counts["INSERT"] + counts["INSERT+INIT"] == 42          # 40 rows, 2 rolled back
    reference = _heap_counts(15)                                    # checked against pg_walinspect above
    assert counts == reference


@pytest.mark.parametrize("major", INSPECT_MAJORS)
def test_descriptions_as_pg_walinspect(major):
    """Every record of the fixtures (every resource manager the workload reaches: heap, btree splits, deletion,
    deduplication and page reuse, hash, GIN, GiST, SP-GiST, BRIN, bloom's generic records, sequences, a
    multixact, a tablespace, a replication origin, logical messages, a relation map) is described exactly as
    pg_walinspect of its major describes it ("" where it has nothing to say: NULL from 16)."""
    from pgpage.decode.wal.describe import describe
    _, recs = walk(major)
    kinds = set()
    for rec, w in zip(recs, oracle(major)["records"]):
        assert describe(rec, major) == (w["description"] or ""), w
        kinds.add(w["resource_manager"])
    assert kinds >= {"Heap", "Heap2", "Btree", "Hash", "Gin", "Gist", "SPGist", "BRIN", "Generic", "Sequence",
                     "MultiXact", "Tablespace", "ReplicationOrigin", "LogicalMessage", "RelMap", "Database",
                     "Transaction", "Standby", "Storage", "XLOG"}


@pytest.mark.parametrize("major", [m for m in REQUIRED_MAJORS if m < 14])
def test_no_description_in_another_majors_words(major):
    """10 to 13: no tool here prints their descriptions, and their words differ from 14's: the resource managers
    pgpage has not checked on those majors get none (None), never 14's."""
    from pgpage.decode.wal.describe import DESCRIBED_BEFORE_14, describe
    _, recs = walk(major)
    others = [r for r in recs if versions.rmgr_name(r.rmid) not in DESCRIBED_BEFORE_14]
    assert others and all(describe(r, major) is None for r in others)


def test_mutated_segments_never_raise(tmp_path):
    """Random byte flips, zeroed runs and cuts of a real segment: the reader ends with a finding, never an exception,
    and every record it yields before that is one the server wrote (same LSN, same bytes' CRC)."""
    import random
    from pgpage.findings import PgpageError

    (src,) = (WAL / "pg17" / "archive").glob("*.gz")
    clean = gzip.decompress(src.read_bytes())
    good = {r.lsn: r.crc for r in walk(17)[1]}
    rng = random.Random(38)
    seg = tmp_path / src.name.removesuffix(".gz")
    end = max(good) + 8192
    for _ in range(60):
        data = bytearray(clean)
        for _ in range(rng.randint(1, 20)):
            at = rng.randrange(min(end, len(data)))
            kind = rng.random()
            if kind < 0.6:
                data[at] ^= 1 << rng.randrange(8)
            elif kind < 0.9:
                n = rng.randint(1, 64)
                data[at:at + n] = bytes(len(data[at:at + n]))
            else:
                del data[at:]
                break
        seg.write_bytes(bytes(data))
        try:
            reader = WalReader(WalDirectory(tmp_path))
        except PgpageError:           # the first page no longer says WAL: refused as a whole (exit 3)
            continue
        lsns = []
        for rec in reader.records():
            assert good.get(rec.lsn) == rec.crc
            lsns.append(rec.lsn)
        assert reader.stop is not None
        stop = reader.stop
        compiled = [int(x) for c in reader.record_arrays() for x in c["lsn"]]     # the compiled scan, its twin
        assert (compiled, reader.stop) == (lsns, stop)
        assert reader.record_counts().records == len(lsns) and reader.stop == stop


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_every_page_image_restores(major):
    """Every full-page image of the fixtures (pglz, lz4, zstd, none): decompressed to a page whose header the
    server's own hole computation agrees with (the hole is [pd_lower, pd_upper) of a standard page), and that
    decodes without an error finding. (No server here both writes zstd or lz4 images and restores them for
    pg_walinspect: Debian's 15 has the compressors but 15's pg_walinspect no image function; the 16+ builds
    have the function but neither compressor. So 15's zstd and lz4 images are checked this way.)"""
    import struct as st

    from pgpage.decode.page import decode_page
    from pgpage.decode.pagebase import PageContext
    from pgpage.decode.wal.record import RecordError, page_image
    _, recs = walk(major)
    restored, compressions = 0, set()
    for rec in recs:
        for ref in rec.blocks:
            if not ref.has_image:
                continue
            page = page_image(rec, ref)
            compressions.add(ref.compression)
            assert len(page) == 8192
            if ref.hole_length:
                pd_lower, pd_upper = st.unpack_from("<HH", page, 12)
                assert (pd_lower, pd_upper) == (ref.hole_offset, ref.hole_offset + ref.hole_length)
            decoded = decode_page(page, ref.block, PageContext(fork=ref.fork, major=major, checksums=False))
            assert not [f for f in decoded["findings"] if f.severity == "error"], (format_lsn(rec.lsn), ref)
            restored += 1
    assert restored >= 5
    # every method the server was set to use is seen (15's VACUUM writes zstd images: make_wal.py); images
    # that compression would not shrink are stored plain
    assert compressions - {None} == {"off": set(), "on": {"pglz"}, "pglz": {"pglz"}, "lz4": {"lz4", "zstd"}}[
        oracle(major)["facts"]["wal_compression"]]


@pytest.mark.parametrize("major", [m for m in INSPECT_MAJORS if m >= 16])
def test_page_images_as_pg_get_wal_block_info(major):
    """Every full-page image restored (decompressed, its hole zeroed) is byte for byte the page the server's
    RestoreBlockImage gives pg_get_wal_block_info's block_fpi_data (md5 of each, captured with the fixture)."""
    import hashlib

    from pgpage.decode.wal.record import page_image
    _, recs = walk(major)
    got = [{"lsn": format_lsn(rec.lsn), "block_id": ref.block_id, "md5": hashlib.md5(page_image(rec, ref)).hexdigest()}
           for rec in recs for ref in rec.blocks if ref.has_image]
    assert got == oracle(major)["page_images"] and len(got) >= 5


def test_zstd_image_without_the_package(monkeypatch):
    """Without the optional zstandard package a zstd image is refused with a one-line reason, never a traceback."""
    import builtins

    from pgpage.decode.wal.record import RecordError, page_image
    real_import = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", lambda name, *a, **k: (_ for _ in ()).throw(ImportError(name))
                        if name == "zstandard" else real_import(name, *a, **k))
    rec, ref = next((r, b) for r in walk(15)[1] for b in r.blocks if b.compression == "zstd")
    with pytest.raises(RecordError, match="zstandard package is not installed"):
        page_image(rec, ref)


TIMELINE = WAL / "timeline"


def _timeline_copy(tmp_path, drop=(), rename=None):
    """The promotion fixture's archive copied to ``tmp_path`` (files in ``drop`` left out, ``rename`` old: new)."""
    import shutil
    for p in (TIMELINE / "archive").iterdir():
        if p.name not in drop:
            shutil.copy(p, tmp_path / (rename or {}).get(p.name, p.name))
    return tmp_path


def test_records_followed_across_a_promotion():
    """A standby promoted to timeline 2: the records of timeline 1's segment, then timeline 2's copy of the switch
    segment (timeline 1's WAL up to the switch point, END_OF_RECOVERY, the new WAL), each as pg_walinspect read them
    on the promoted server, following 00000002.history."""
    from pgpage.decode.wal.describe import describe
    with gzip.open(TIMELINE / "oracle.json.gz") as f:
        want = json.load(f)
    facts = want["facts"]
    reader = WalReader(WalDirectory(TIMELINE / "archive"))
    recs = list(reader.records(parse_lsn(facts["start_lsn"]), parse_lsn(facts["end_lsn"])))
    assert (reader.timeline, facts["timeline"]) == (2, 2)
    assert [e.tli for e in reader.history] == [1, 2] and reader.findings == []
    assert reader.stop.code == "wal.end"
    assert len(recs) == len(want["records"])
    for rec, w in zip(recs, want["records"]):
        got = {"start_lsn": format_lsn(rec.lsn), "end_lsn": format_lsn(rec.end_lsn), "prev_lsn": format_lsn(rec.prev_lsn),
               "xid": rec.xid, "resource_manager": versions.rmgr_name(rec.rmid),
               "record_type": versions.wal_record_type(16, rec.rmid, rec.info), "record_length": rec.length,
               "description": describe(rec, 16)}
        assert got == {**{k: w[k] for k in got}, "description": w["description"] or ""}, w
    switch = next(r for r in recs if versions.wal_record_type(16, r.rmid, r.info) == "END_OF_RECOVERY")
    assert switch.lsn == reader.history[0].end == reader.history[1].begin     # where the history says 2 begins
    from pgpage.passes.wal import RecordCounts, wal_stats
    counts = RecordCounts()
    for rec in reader.records():
        counts.add(rec)
    compiled = reader.record_counts()              # the compiled scan across the switch, after a first walk
    assert wal_stats(compiled, 16) == wal_stats(counts, 16) and reader.stop.code == "wal.end"
    assert [int(x) for c in reader.record_arrays() for x in c["lsn"]] == [r.lsn for r in reader.records()]


def test_timeline_asked_for_reads_only_its_history(tmp_path):
    """Asked for timeline 1, the reader reads timeline 1's segment and says why timeline 2's is not read, instead of
    mixing it in; its WAL ends where timeline 1's segments end."""
    reader = WalReader(WalDirectory(_timeline_copy(tmp_path)), timeline=1)
    recs = list(reader.records())
    assert [f.code for f in reader.findings] == ["wal.segment.other_timeline"]
    assert "00000002000000000000000E" in reader.findings[0].message
    assert recs and reader.stop.code == "wal.end" and "00000001000000000000000E" in reader.stop.message
    assert all(r.lsn < reader.directory.history(2)[0].end for r in recs)


def test_segment_of_a_timeline_outside_the_history(tmp_path):
    """A segment of timeline 3 (a real segment under another name) beside timeline 2's: a finding, not read."""
    _timeline_copy(tmp_path, rename={"00000001000000000000000D.gz": "00000003000000000000000D.gz"})
    import shutil
    shutil.copy(TIMELINE / "archive" / "00000001000000000000000D.gz", tmp_path)
    reader = WalReader(WalDirectory(tmp_path), timeline=2)
    assert [(f.code, f.message.split(" ")[0]) for f in reader.findings] == [
        ("wal.segment.other_timeline", "00000003000000000000000D.gz")]
    assert len(list(reader.records())) == len(list(WalReader(WalDirectory(TIMELINE / "archive")).records()))


def test_switch_segment_of_the_new_timeline_missing(tmp_path):
    """Without timeline 2's copy of the switch segment the WAL ends at timeline 1's last segment; without the history
    file the switch point is unknown: a warning, each segment from the newest timeline that has it."""
    (tmp_path / "a").mkdir()
    reader = WalReader(WalDirectory(_timeline_copy(tmp_path / "a", drop=("00000002000000000000000E.gz",))), timeline=2)
    list(reader.records())
    assert reader.stop.code == "wal.end" and "00000002000000000000000E" in reader.stop.message
    (tmp_path / "b").mkdir()
    reader = WalReader(WalDirectory(_timeline_copy(tmp_path / "b", drop=("00000002.history",))))
    recs = list(reader.records())
    assert [f.code for f in reader.findings] == ["wal.timeline.history_missing"]
    assert len(recs) == len(list(WalReader(WalDirectory(TIMELINE / "archive")).records()))
