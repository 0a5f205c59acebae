"""verify judges the TOAST pointers of the tuples its compiled walk takes together (``toast.pointers_findings``,
``ToastStore.chunks_clean``), looking one by one only at those a rule may fault. Its findings must be those of
looking at every pointer one by one (``pointer_findings``: the rules test_heapam_oracle holds against amcheck):
on a real server's table of TOASTed values (plain and pglz, one to six chunks) whose TOAST table is damaged in
every way the batched judgement decides on (a chunk_seq repeated, one past the last, two chunks' order swapped, a
chunk filed under another value, a chunk whose insert aborted, a chunk_data cut short, a chunk's line pointer
dead) and at random, and whose pointers are damaged (HEAP_HASEXTERNAL cleared, a raw size too large).

The chunks are found through the TOAST table's index, as amcheck finds them, so that a healthy table's check reads
only the TOAST pages its pointers lead to and memory stays flat: there no chunk is placed from the whole TOAST table,
and whatever the damage to the index or the TOAST table, the findings are those of placing every chunk."""
from __future__ import annotations

import random
import shutil
import struct

import numpy as np
import pytest

from livepg import running_server
from conftest import damaged
from test_verify import verify_relation

from pgpage.decode.checksum import checksum_page
from pgpage.passes import toast as toast_pass
from pgpage.passes.toast import ToastStore
from pgpage.storage.datadir import open_data_directory

HEAP_XMIN_INVALID = 0x0200
HEAP_HASEXTERNAL = 0x0004


def _with_checksums(data: bytearray, first_block: int = 0) -> bytes:
    for b in range(len(data) // 8192):
        page = bytes(data[b * 8192:(b + 1) * 8192])
        if any(page):
            struct.pack_into("<H", data, b * 8192 + 8, checksum_page(page, first_block + b))
    return bytes(data)


def _chunks(toast: bytes) -> dict[tuple[int, int], tuple[int, int]]:
    """(chunk_id, chunk_seq) -> (file offset of the tuple, file offset of its line pointer)."""
    out = {}
    for b in range(len(toast) // 8192):
        lower = struct.unpack_from("<H", toast, b * 8192 + 12)[0]
        for k in range((lower - 24) // 4):
            lp_at = b * 8192 + 24 + 4 * k
            w = struct.unpack_from("<I", toast, lp_at)[0]
            if (w >> 15) & 3 == 1:
                at = b * 8192 + (w & 0x7FFF)
                out[struct.unpack_from("<Ii", toast, at + 24)] = (at, lp_at)
    return out


@pytest.fixture(scope="module")
def toasted(tmp_path_factory):
    """A stopped copy of a real server's cluster with table t_doc: 200 rows, 400 TOASTed values (plain and pglz,
    one to six chunks each)."""
    tmp = tmp_path_factory.mktemp("toasted")
    with running_server() as srv:
        conn = srv.connect()
        conn.execute("CREATE DATABASE pgpage")
        conn = srv.connect("pgpage")
        conn.execute("CREATE TABLE t_doc (id int, doc text, z text)")
        conn.execute("ALTER TABLE t_doc ALTER doc SET STORAGE EXTERNAL")
        conn.execute("INSERT INTO t_doc SELECT g, repeat(md5(g::text), 70 + (g * 37) % 300),"
                     " (SELECT string_agg(md5((g * i)::text), '') FROM generate_series(1, 200) i)"
                     " FROM generate_series(1, 200) g")
        conn.execute("CHECKPOINT")
        srv.stop("fast")
        shutil.copytree(srv.data, tmp / "data", ignore=shutil.ignore_patterns("postmaster.pid"))
    return tmp / "data"


def test_pointers_judged_together_as_one_by_one(toasted, tmp_path, monkeypatch):
    shutil.copytree(toasted, tmp_path / "data")
    data = tmp_path / "data"
    rel = open_data_directory(data).database("pgpage").relation("t_doc")
    toast_file, heap_file = rel.toast.forks["main"].segment_path(0), rel.forks["main"].segment_path(0)
    toast, heap = toast_file.read_bytes(), heap_file.read_bytes()
    chunks = _chunks(toast)
    values = sorted({cid for cid, _ in chunks})
    many = [v for v in values if (v, 3) in chunks][10:]   # values of four chunks or more, past the first page's
    assert len(values) == 400 and len(many) > 20
    t = bytearray(toast)
    struct.pack_into("<i", t, chunks[(many[0], 2)][0] + 28, 1)             # chunk_seq 1 twice
    struct.pack_into("<i", t, chunks[(many[1], 0)][0] + 28, 99)            # chunk 0 missing, 99 past the last
    struct.pack_into("<i", t, chunks[(many[2], 0)][0] + 28, 1)             # chunks 1 and 0 in that order
    struct.pack_into("<i", t, chunks[(many[2], 1)][0] + 28, 0)
    struct.pack_into("<I", t, chunks[(many[4], 1)][0] + 24, many[3])       # a chunk filed under the value before
    struct.pack_into("<H", t, chunks[(many[5], 2)][0] + 20,
                     struct.unpack_from("<H", t, chunks[(many[5], 2)][0] + 20)[0] | HEAP_XMIN_INVALID)   # aborted
    at = chunks[(many[6], 1)][0] + 32                                        # chunk_data 4 bytes shorter
    struct.pack_into("<I", t, at, struct.unpack_from("<I", t, at)[0] - (4 << 2))
    lp = chunks[(many[7], 0)][1]                                             # a dead line pointer
    struct.pack_into("<I", t, lp, (struct.unpack_from("<I", t, lp)[0] & ~(3 << 15)) | (3 << 15))
    h = bytearray(heap)
    for k in range(3):    # HEAP_HASEXTERNAL cleared on the first page's first tuples; one raw size too large
        tup = struct.unpack_from("<I", h, 24 + 4 * k)[0] & 0x7FFF
        h[tup + 20] &= ~HEAP_HASEXTERNAL
    tup = struct.unpack_from("<I", h, 24 + 4 * 5)[0] & 0x7FFF
    struct.pack_into("<i", h, tup + h[tup + 22] + 4 + 2, 0x40000000 + 5)
    heap_file.write_bytes(_with_checksums(h))

    def one_by_one(self, valueids, extsizes):
        return np.zeros(len(valueids), dtype=bool)

    rng = random.Random(61)
    seen = set()
    for version in [_with_checksums(t)] + [damaged(bytes(t), rng, n) for n in (20, 200)]:
        toast_file.write_bytes(version)
        together, _ = verify_relation(data, "t_doc")
        with monkeypatch.context() as m:
            m.setattr(ToastStore, "chunks_clean", one_by_one)
            alone, _ = verify_relation(data, "t_doc")
        assert together == alone
        seen |= {f["code"] for f in together}
    assert {"toast.chunk_duplicate", "toast.chunk_missing", "toast.chunk_extra", "toast.chunk_size",
            "heap.toast.external_flag_missing", "heap.toast.rawsize_too_large"} <= seen


def _toast_index_file(data):
    rel = open_data_directory(data).database("pgpage").relation("t_doc")
    return next(r for r in rel.database.relations() if r.table is rel.toast).forks["main"].segment_path(0)


def test_chunks_found_through_the_index(toasted, tmp_path, monkeypatch):
    shutil.copytree(toasted, tmp_path / "data")
    data = tmp_path / "data"
    placed_whole = []
    every_chunk = ToastStore._every_chunk
    monkeypatch.setattr(ToastStore, "_every_chunk", lambda self: placed_whole.append(1) or every_chunk(self))
    healthy, _ = verify_relation(data, "t_doc")
    assert healthy == [] and placed_whole == []     # 400 values checked, no chunk placed from the whole table

    def without_index(toast):
        return None
    index_file = _toast_index_file(data)
    pristine = index_file.read_bytes()
    rng = random.Random(7)
    seen = set()
    for n in (5, 50, 500):
        index_file.write_bytes(_with_checksums(bytearray(damaged(pristine, rng, n))))
        placed_whole.clear()
        through, _ = verify_relation(data, "t_doc")
        seen.add(bool(placed_whole))
        with monkeypatch.context() as m:
            m.setattr(toast_pass, "toast_index", without_index)
            whole, _ = verify_relation(data, "t_doc")
        assert through == whole and whole == []      # verify of t_doc checks its pointers, not its TOAST index
    assert seen == {True}    # each damaged index sent some values to the placement of every chunk
