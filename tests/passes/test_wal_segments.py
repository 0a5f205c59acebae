"""Records that run on from one WAL segment into the next, read by the compiled scan (_walscan.c, which gets the
next segment's bytes too) and by the Python reader: the same counts, and on damage past the boundary the same
stop and finding, the Python reader's. The count of the later half of the segments on a thread of its own
(``_LaterSegments``) joins the walk's where the walk reaches it, and only where it would have read the same.

The WAL is a live Debian 15 server's with 1 MB segments after inserts of 6 kB rows (no committed fixture has a
record across segments: they are one segment each)."""
from __future__ import annotations

import shutil
import struct

import pytest

from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.wal.record import SIZE_OF_LONG_PHD
from pgpage.decode.crc32c import crc32c
from pgpage.decode.wal.record import CRC_OFFSET, SIZE_OF_RECORD, XLOG_BLCKSZ
from pgpage.passes.wal import RecordCounts, WalReader, _LaterSegments, wal_stats
from pgpage.storage.wal import WalDirectory, segment_file_name

LONG_HEADER = {name: at for name, (at, _) in LAYOUTS["xlog::long_page_header"]["fields"].items()}


@pytest.fixture(scope="module")
def segments(tmp_path_factory):
    from livepg import Server, major_bindir
    srv = Server(major_bindir(15))
    dest = tmp_path_factory.mktemp("pg_wal")
    try:
        srv.run("initdb", "-k", "--wal-segsize=1", "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8",
                "-D", str(srv.data))
        srv.opts = (f"-c listen_addresses='' -c unix_socket_directories={srv.root} -c autovacuum=off "
                    "-c wal_keep_size=64MB")
        srv.restart()
        with srv.connect() as c:
            c.execute("CREATE TABLE t (id int, v text)")
            c.execute("ALTER TABLE t ALTER v SET STORAGE PLAIN")
            c.execute("CHECKPOINT")
            c.execute("INSERT INTO t SELECT g, repeat(md5(g::text), 200) FROM generate_series(1, 1000) g")
            c.execute("CHECKPOINT")
            c.execute("UPDATE t SET id = -id WHERE id % 3 = 0")        # full-page images, then 6 kB tuples again
        srv.stop()
        for p in (srv.data / "pg_wal").iterdir():
            if p.is_file():
                shutil.copy(p, dest / p.name)
    finally:
        srv.stop("immediate")
        srv.remove()
    return dest


def walk(directory):
    reader = WalReader(WalDirectory(directory))
    recs = list(reader.records())
    return reader, recs


def crossing(reader, recs):
    seg = reader.segment_size
    return [r for r in recs if r.lsn // seg != (r.end_lsn - 1) // seg]


def spy_joins(monkeypatch) -> list[tuple[int, bool]]:
    """(where the later count begins, whether it joined) of each walk's later count, as the walks ask."""
    asked = []
    real = _LaterSegments.joins

    def joins(self, pos, prev, tli):
        asked.append((self.segment_start, real(self, pos, prev, tli)))
        return asked[-1][1]
    monkeypatch.setattr(_LaterSegments, "joins", joins)
    return asked


def test_records_across_segments_counted_in_c(segments, monkeypatch):
    asked = spy_joins(monkeypatch)
    reader, recs = walk(segments)
    stop = reader.stop
    across = crossing(reader, recs)
    assert stop.code == "wal.end" and len(reader.segments) >= 6 and len(across) >= 3
    python_counts = RecordCounts()
    for rec in recs:
        python_counts.add(rec)
    stepped = []                     # the records the Python reader takes while the compiled scan counts
    real_step = WalReader._step

    def step(self, pos, prev):
        stepped.append(real_step(self, pos, prev))
        return stepped[-1]
    monkeypatch.setattr(WalReader, "_step", step)
    compiled = reader.record_counts()
    assert wal_stats(compiled, 15) == wal_stats(python_counts, 15) and python_counts.records == len(recs)
    assert (compiled.first_lsn, compiled.end_lsn, reader.stop) == (recs[0].lsn, recs[-1].end_lsn, stop)
    assert not {r.lsn for r in across} & {r.lsn for r in stepped}
    assert len(stepped) < len(reader.segments)
    (seam, joined), = asked                     # the later half counted on a thread, joined
    assert joined and seam == (min(reader.segments) + len(reader.segments) // 2) * reader.segment_size
    stepped.clear()
    chunks = list(reader.record_arrays())
    assert [int(x) for c in chunks for x in c["lsn"]] == [r.lsn for r in recs]
    assert [int(x) for c in chunks for x in c["end_lsn"]] == [r.end_lsn for r in recs]
    assert [int(x) for c in chunks for x in c["fpi_length"]] == [r.fpi_length for r in recs]
    assert not {r.lsn for r in across} & {r.lsn for r in stepped}


def _damaged(segments, tmp_path, rec, seg, how):
    """The segment ``rec`` starts in and the next one (or what ``how`` leaves of it) in ``tmp_path``."""
    here, following, later = (segment_file_name(1, rec.lsn // seg + i, seg) for i in range(3))
    shutil.copy(segments / here, tmp_path / here)
    data = bytearray((segments / following).read_bytes())
    result = how(data, later)
    if result is not None:
        (tmp_path / following).write_bytes(result)
    return tmp_path


def _rem_len(data, _):
    data[LONG_HEADER["std.xlp_rem_len"]] ^= 0x01      # of the next segment's first page
    return data


def _continuation(data, _):
    data[SIZE_OF_LONG_PHD + 3] ^= 0x10         # a byte of the record's rest
    return data


def _sysid(data, _):
    data[LONG_HEADER["xlp_sysid"]] ^= 0x01
    return data


def _pageaddr(data, _):
    data[LONG_HEADER["std.xlp_pageaddr"] + 1] ^= 0x01     # a recycled segment
    return data


def _cut(data, _):
    return data[:SIZE_OF_LONG_PHD + 10]        # the file ends inside the record's rest


@pytest.mark.parametrize("how,code", [(_rem_len, "wal.record.torn"), (_continuation, "wal.record.bad_crc"),
                                      (_sysid, "wal.segment.other_system"), (_pageaddr, "wal.record.torn"),
                                      (_cut, "wal.record.torn"), (lambda data, _: None, "wal.record.torn")])
def test_damage_past_a_segment_boundary(segments, tmp_path, how, code):
    """The next segment damaged where a record runs on into it: the compiled scan leaves that record to the Python
    reader, and both stop there with the Python reader's finding."""
    reader, recs = walk(segments)
    rec = next(r for r in crossing(reader, recs) if r.end_lsn % reader.segment_size > SIZE_OF_LONG_PHD + 16)
    directory = _damaged(segments, tmp_path, rec, reader.segment_size, how)
    damaged, before = walk(directory)
    assert damaged.stop.code == code and before[-1].lsn == rec.prev_lsn, damaged.stop
    stop = damaged.stop
    counts = damaged.record_counts()
    assert (counts.records, counts.end_lsn, damaged.stop) == (len(before), before[-1].end_lsn, stop)
    assert [int(x) for c in damaged.record_arrays() for x in c["lsn"]] == [r.lsn for r in before]
    assert damaged.stop == stop


def test_next_segment_missing_with_later_ones(segments, tmp_path):
    reader, recs = walk(segments)
    rec = crossing(reader, recs)[0]

    def without_it(data, later):
        shutil.copy(segments / later, tmp_path / later)

    directory = _damaged(segments, tmp_path, rec, reader.segment_size, without_it)
    damaged, before = walk(directory)
    assert damaged.stop.code == "wal.segment.missing" and before[-1].lsn == rec.prev_lsn
    stop = damaged.stop
    assert damaged.record_counts().records == len(before) and damaged.stop == stop


@pytest.mark.parametrize("where", ["before", "first", "prev", "after"])
def test_damage_around_the_seam(segments, tmp_path, monkeypatch, where):
    """A bad CRC before the later count's segments (the walk stops there, never joins), in its first record (it does
    not join: the walk reads on alone), a prev-link of its first record that names another record (its CRC made
    right: only the walk can tell, and the count does not join) and a bad CRC after it (it joins, and its stop is
    the walk's): always the stop and counts of the Python reader."""
    asked = spy_joins(monkeypatch)
    reader, recs = walk(segments)
    reader.record_counts()
    ((seam, _),) = asked
    seg = reader.segment_size
    later_first = next(r for r in recs if r.lsn >= seam and r.lsn // seg == seam // seg and r.prev_lsn < seam)
    pick = {"before": lambda r: r.lsn // seg == seam // seg - 1 and r.end_lsn < seam,
            "first": lambda r: r is later_first, "prev": lambda r: r is later_first,
            "after": lambda r: r.lsn // seg == seam // seg + 1}[where]
    rec = next(r for r in recs if pick(r) and r.lsn % XLOG_BLCKSZ + SIZE_OF_RECORD + 4 < XLOG_BLCKSZ
               and r.length > SIZE_OF_RECORD + 4 and r.lsn // seg == (r.lsn + SIZE_OF_RECORD + 4) // seg)
    for p in segments.iterdir():
        shutil.copy(p, tmp_path / p.name)
    name = segment_file_name(1, rec.lsn // seg, seg)
    data = bytearray((tmp_path / name).read_bytes())
    if where == "prev":
        at = rec.lsn % seg
        raw = bytearray(reader._record_bytes(rec.lsn)[0])
        struct.pack_into("<Q", raw, LAYOUTS["xlog::record"]["fields"]["xl_prev"][0], rec.prev_lsn - 8)
        struct.pack_into("<I", raw, CRC_OFFSET, crc32c(bytes(raw[SIZE_OF_RECORD:] + raw[:CRC_OFFSET])))
        data[at:at + SIZE_OF_RECORD] = raw[:SIZE_OF_RECORD]
    else:
        data[rec.lsn % seg + SIZE_OF_RECORD + 3] ^= 0x04
    (tmp_path / name).write_bytes(data)
    asked.clear()
    damaged, before = walk(tmp_path)
    stop = damaged.stop
    assert stop.code == ("wal.record.bad_prev" if where == "prev" else "wal.record.bad_crc"), stop
    assert before[-1].lsn == rec.prev_lsn
    python_counts = RecordCounts()
    for r in before:
        python_counts.add(r)
    counts = damaged.record_counts()
    assert wal_stats(counts, 15) == wal_stats(python_counts, 15) and damaged.stop == stop
    assert asked == {"before": [], "first": [(seam, False)], "prev": [(seam, False)], "after": [(seam, True)]}[where]
