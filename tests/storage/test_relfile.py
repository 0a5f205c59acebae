"""RelationFork's block reader (how the heap TID checks of `index` and `verify` visit a table) on a real
table's pages cut into segments of 3 blocks, as a server built with a tiny RELSEG_SIZE would leave them."""
from __future__ import annotations

import numpy as np

from conftest import data_dir
from pgpage.storage.datadir import open_data_directory
from pgpage.storage.relfile import RelationFork

BS = 8192


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
