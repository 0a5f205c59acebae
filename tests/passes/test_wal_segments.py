"""Records that run on from one WAL segment into the next, read by the compiled scan (_walscan.c, which gets the
next segment's bytes too) and by the Python reader: the same counts, and on damage past the boundary the same
stop and finding, the Python reader's.

The WAL is a live Debian 15 server's with 1 MB segments after inserts of 6 kB rows (no committed fixture has a
record across segments: they are one segment each)."""
from __future__ import annotations

import shutil

import pytest

from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.wal.record import SIZE_OF_LONG_PHD
from pgpage.passes.wal import RecordCounts, WalReader, wal_stats
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


def test_records_across_segments_counted_in_c(segments, monkeypatch):
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
