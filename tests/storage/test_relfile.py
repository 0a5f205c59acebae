"""RelationFork's block reader (how the heap TID checks of `index` and `verify` visit a table) on a real
table's pages cut into segments of 3 blocks, as a server built with a tiny RELSEG_SIZE would leave them."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import data_dir
from pgpage.storage.datadir import open_data_directory
from pgpage.storage.relfile import RelationFork

BS = 8192


@pytest.fixture(autouse=True, params=[None, 3 * BS + 100], ids=["stage-default", "stage-odd"])
def stage_size(request, monkeypatch):
    """Every test also with reads staged through a buffer of 3 blocks and 100 bytes: a page split between two
    stage reads, chunks of several stage reads, short reads at a file's end in the middle of one."""
    if request.param:
        from pgpage.storage import relfile
        monkeypatch.setattr(relfile, "STAGE_BYTES", request.param)


def segmented_copy(tmp_path, relseg: int) -> tuple[bytes, RelationFork]:
    """The biggest table of a fixture, its main fork written as segments of ``relseg`` blocks: (the original
    bytes, the fork)."""
    db = open_data_directory(data_dir(17)).database(None)
    main = max((r.forks["main"] for r in db.relations() if r.kind == "r" and r.forks.get("main") is not None
                and r.forks["main"].exists), key=lambda f: f.nblocks)
    data = main.segments[0][1].read_bytes()
    step = relseg * BS
    for segno, at in enumerate(range(0, len(data), step)):
        (tmp_path / main.segment_name(segno)).write_bytes(data[at:at + step])
    return data, RelationFork(tmp_path, main.stem, "main", BS, relseg)


def test_block_reader_reads_runs_across_segments(tmp_path):
    data, fork = segmented_copy(tmp_path, 3)
    nblocks = len(data) // BS
    assert nblocks >= 10 and len(fork.segments) >= 4
    read = fork.block_reader()
    rng = np.random.default_rng(3)
    for wanted in [np.arange(nblocks), np.array([0, 2, 3, 4, 8, 9]), np.array([nblocks - 1]),
                   *(np.unique(rng.integers(0, nblocks, rng.integers(1, nblocks))) for _ in range(20))]:
        got = read(wanted)
        assert got.shape == (len(wanted), BS)
        for row, blk in zip(got, wanted.tolist()):
            assert row.tobytes() == data[blk * BS:(blk + 1) * BS], blk


def test_pages_are_read_whole_into_page_aligned_memory(tmp_path):
    """Chunks across segments hold the file's bytes, and every page read (by chunk or by block number) starts
    on a 4 KiB boundary of memory (see relfile.page_aligned: where malloc put the buffer cost 50 % of a scan)."""
    data, fork = segmented_copy(tmp_path, 3)
    nblocks = len(data) // BS
    seen = 0
    for chunk_blocks in (1, 2, 4, 256):
        for first, chunk in fork.iter_chunks(chunk_blocks=chunk_blocks):
            assert chunk.tobytes() == data[first * BS:(first + len(chunk)) * BS]
            assert chunk.ctypes.data % 4096 == 0 and chunk.strides == (BS, 1)
            seen += len(chunk)
    assert seen == 4 * nblocks
    got = fork.block_reader()(np.array([1, 2, 5, 9]))
    assert got.ctypes.data % 4096 == 0 and got.tobytes() == b"".join(data[b * BS:(b + 1) * BS] for b in (1, 2, 5, 9))


def test_blocks_missing_from_a_short_segment_come_back_zeroed(tmp_path):
    """Segment 1 (blocks 3..5) cut to one block and a half (a torn write, or a copy taken while the file grew):
    its missing blocks, and the torn one, come back as zeros; the blocks around them are the pages."""
    data, fork = segmented_copy(tmp_path, 3)
    seg1 = fork.segment_path(1)
    seg1.write_bytes(seg1.read_bytes()[:BS + BS // 2])
    fork = RelationFork(tmp_path, fork.stem, "main", BS, 3)
    got = fork.block_reader()(np.arange(0, 8))
    assert got[:4].tobytes() == data[:4 * BS]
    assert not got[4:6].any()
    assert got[6:].tobytes() == data[6 * BS:8 * BS]


def test_a_segment_cut_while_it_is_read_yields_whole_pages_up_to_the_cut(tmp_path):
    """A server truncating the table (VACUUM) under a reader: the chunks stop at the cut, a torn block is not
    handed out (nor anything read from a shifted offset), the next segment is still read, and size_changes
    names the segment and the blocks that may be missing."""
    data, fork = segmented_copy(tmp_path, 4)
    seg1 = fork.segment_path(1)  # blocks 4..7
    got = {}
    for first, chunk in fork.iter_chunks(chunk_blocks=2):
        for i in range(chunk.shape[0]):
            got[first + i] = chunk[i].tobytes()
        if first == 4:  # blocks 4 and 5 read; the server cuts segment 1 to a block and a half
            seg1.write_bytes(seg1.read_bytes()[:BS + BS // 2])
    nblocks = len(data) // BS
    assert sorted(got) == [b for b in range(nblocks) if b not in (6, 7)]
    assert all(page == data[b * BS:(b + 1) * BS] for b, page in got.items())
    changes = fork.size_changes()
    assert [(f.code, f.block, f.expected, f.actual, f.severity) for f in changes] == [
        ("segment.shrank", 5, 4 * BS, BS + BS // 2, "warning")]
    assert "blocks 5..7 may be missing" in changes[0].message


def test_a_segment_that_grew_while_read_is_reported(tmp_path):
    data, fork = segmented_copy(tmp_path, 4)
    last = fork.segments[-1]
    with open(last[1], "ab") as f:
        f.write(data[:BS])  # the server extended the relation by a block
    end = last[0] * 4 + last[2] // BS
    assert [(f.code, f.block, f.severity) for f in fork.size_changes()] == [("segment.grew", end, "info")]
    assert fork.end_block == end  # what was listed is what is read


def test_scan_and_heap_report_a_table_truncated_after_it_was_listed(tmp_path):
    """The figures of a table cut after pgpage listed it are those of the blocks still there, with a warning
    naming the cut, in `scan` (each relation's health) and in the heap report."""
    import shutil

    from pgpage.passes import heap as heap_pass, scan as scan_pass
    copy = tmp_path / "data"
    shutil.copytree(data_dir(17), copy)
    db = open_data_directory(copy).database(None)
    rel = max((r for r in db.relations() if r.kind == "r" and r.forks.get("main") is not None
               and r.forks["main"].exists), key=lambda r: r.forks["main"].nblocks)
    main = rel.forks["main"]
    keep = main.nblocks // 2
    assert keep >= 2
    path = main.segments[0][1]
    path.write_bytes(path.read_bytes()[:keep * BS])
    short = RelationFork(main.directory, main.stem, "main", BS)  # the same file, listed after the cut
    cluster = db.cluster
    report = heap_pass.heap_report(cluster, main, None, None, rel.qualified_name)
    expected = heap_pass.heap_report(cluster, short, None, None, rel.qualified_name)
    shrank = [f for f in report["findings"] if f["code"] == "segment.shrank"]
    assert [(f["block"], f["severity"]) for f in shrank] == [(keep, "warning")]
    assert [f for f in report["findings"] if f["code"] != "segment.shrank"] == expected["findings"]
    assert report["pgstattuple"] == expected["pgstattuple"]
    assert 0 < expected["pgstattuple"]["tuple_count"] < heap_pass.heap_report(
        cluster, open_data_directory(data_dir(17)).database(None).relation(rel.qualified_name).forks["main"], None,
        None, rel.qualified_name)["pgstattuple"]["tuple_count"]
    health = scan_pass.relation_health(cluster, rel)
    assert [f["block"] for f in health["findings"] if f["code"] == "segment.shrank"] == [keep]
    assert health["health"]["live_tuples"] == expected["pgstattuple"]["tuple_count"]
