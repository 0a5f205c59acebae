"""--jobs and the compiled heap pass: results that do not depend on how the blocks are cut, and no page
(random or damaged) that makes the kernel crash or hang."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys

import numpy as np
from hypothesis import given, settings, strategies as st

from conftest import data_dir
from pgpage.decode.xact import ClogArray
from pgpage.passes.heap import fork_pass, new_heap_analysis
from pgpage.storage.datadir import open_data_directory


def damaged_copy(tmp_path, major: int, seed: int):
    """A fixture cluster whose heaps had line pointers, tuple headers and hint bits scribbled on."""
    dst = tmp_path / f"data{major}"
    shutil.copytree(data_dir(major), dst)
    rng = random.Random(seed)
    cluster = open_data_directory(dst)
    for rel in cluster.database(None).relations():
        main = rel.forks.get("main")
        if main is None or rel.kind not in "rtm" or not main.segments:
            continue
        path = main.segments[0][1]
        data = bytearray(path.read_bytes())
        for b in range(len(data) // 8192):
            base = b * 8192
            nlp = max(0, (min(int.from_bytes(data[base + 12:base + 14], "little"), 8192) - 24) // 4)
            for _ in range(rng.randint(0, 8) if nlp else 0):
                i = rng.randrange(nlp)
                w = int.from_bytes(data[base + 24 + 4 * i:base + 28 + 4 * i], "little")
                toff = w & 0x7FFF
                r = rng.random()
                if r < 0.3:  # a redirect to some item, maybe past the end
                    w = (w & ~0x1FFFF) | (2 << 15) | rng.randint(0, nlp + 2)
                    data[base + 24 + 4 * i:base + 28 + 4 * i] = w.to_bytes(4, "little")
                elif toff % 8 == 0 and 24 <= toff <= 8192 - 24:
                    t = base + toff + rng.choice([0, 4, 16, 18, 20])  # xmin, xmax, ip_posid, infomask2, infomask
                    data[t:t + 2] = rng.randrange(65536).to_bytes(2, "little")
        path.write_bytes(bytes(data))
    return dst


def test_ranges_merge_to_the_single_pass(tmp_path):
    """Cut every damaged heap into single-block ranges, analyse each alone, merge in order: the same figures,
    map and findings (as a set: one pass lists them chunk by chunk, code by code) as one pass."""
    dst = damaged_copy(tmp_path, 16, 7)
    cluster = open_data_directory(dst)
    seen_findings = 0
    for rel in cluster.database(None).relations():
        main = rel.forks.get("main")
        if main is None or rel.kind not in "rtm" or not main.nblocks:
            continue
        vm, fsm = rel.forks.get("vm"), rel.forks.get("fsm")
        whole = new_heap_analysis(cluster, main, rel.qualified_name, 40)
        fork_pass(main, main.first_block, main.end_block, False, whole, vm, fsm)
        merged = new_heap_analysis(cluster, main, rel.qualified_name, 40)
        for b in range(main.first_block, main.end_block):
            part = new_heap_analysis(cluster, main, rel.qualified_name, 40)
            fork_pass(main, b, b + 1, False, part, vm, fsm)
            merged.merge(part, 1)
        a, b = whole.result(), merged.result()
        assert {k: v for k, v in a.items() if k != "finding_counts"} == \
            {k: v for k, v in b.items() if k != "finding_counts"}
        assert {k: v for k, v in a["finding_counts"].items() if v} == \
            {k: v for k, v in b["finding_counts"].items() if v}
        if all(v <= 50 for v in a["finding_counts"].values()):
            assert sorted(map(repr, whole.findings)) == sorted(map(repr, merged.findings))
        seen_findings += len(whole.findings)
    assert seen_findings > 20  # the damage was seen


def test_jobs_do_not_change_scan_deep():
    base = [sys.executable, "-m", "pgpage", "scan", str(data_dir(17)), "--deep", "--json"]
    one = subprocess.run([*base, "--jobs", "1"], capture_output=True, text=True, timeout=300)
    two = subprocess.run([*base, "--jobs", "2"], capture_output=True, text=True, timeout=300)
    assert one.returncode == two.returncode
    assert json.loads(one.stdout) == json.loads(two.stdout)


def test_jobs_do_not_change_heap():
    base = [sys.executable, "-m", "pgpage", "heap", str(data_dir(15)), "--rel", "heap_hot", "--json"]
    one = subprocess.run([*base, "-j", "1"], capture_output=True, text=True, timeout=300)
    two = subprocess.run([*base, "-j", "0"], capture_output=True, text=True, timeout=300)
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert json.loads(one.stdout) == json.loads(two.stdout)


def _real_pages() -> bytes:
    cluster = open_data_directory(data_dir(15))
    main = cluster.database(None).relation("public.heap_hot").forks["main"]
    data = b"".join(main.read_block(b) for b in range(min(3, main.nblocks)))
    return (data + bytes(3 * 8192))[:3 * 8192]


REAL = _real_pages()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3 * 8192 - 1), st.integers(0, 255)), max_size=80),
       st.integers(0, 2 ** 32 - 1))
def test_damaged_pages_never_crash_the_kernel(edits, first):
    buf = bytearray(REAL)
    for off, value in edits:
        buf[off] = value
    pages = np.frombuffer(buf, dtype=np.uint8).reshape(3, 8192)
    from pgpage.analysis.heap import HeapAnalysis
    clog = ClogArray({0: bytes(range(256)) * 1024}, in_progress_is_aborted=False)
    a = HeapAnalysis(8192, first + 3, clog, lambda m: np.asarray(m, dtype=np.int64) % 5 - 1, 1000, 3, False, 10)
    a.add_chunk(pages, first, np.array([1, 0, 1], bool), np.array([1, 1, 0], bool), np.array([0, 255, 7], np.uint8))
    s = a.stats
    assert s.pages == 3 and s.tuple_count + s.dead_tuple_count <= s.lp_normal
    assert a.result()["pgstattuple"]["table_len"] == 3 * 8192


def test_scanner_builds_from_its_source_and_says_which(tmp_path):
    """The compiled scanner a source checkout builds with cc carries the SHA-256 of the C file it came from (the
    loader uses a build only when that matches), and exports the tables the Python side indexes by name."""
    import ctypes
    from pgpage.decode import clib, kernels
    path = clib.build(tmp_path / "scanner.so", clib.source_sha())
    built = clib._declare(ctypes.CDLL(str(path)))
    assert built.pgp_names(6).decode() == clib.source_sha()
    assert clib.lib().pgp_names(6).decode() == clib.source_sha()
    names = built.pgp_names(0).decode().strip(",").split(",")
    from pgpage.analysis.heapstats import HeapStats
    assert set(HeapStats.counter_names()) <= set(names)
    assert "heap.hot.xmin_mismatch" in built.pgp_names(2).decode()
    assert kernels.layout_array()[list(kernels.TABLES.LAYOUT).index("t_infomask")] == 20


def test_the_build_stamp_covers_every_source_and_header_setup_py_builds(tmp_path, monkeypatch):
    """The library's stamp is the SHA-256 over every C file and every header they include (an edited header never
    runs with a stale build), and setup.py builds and stamps the same files as clib.py."""
    import ast
    import re
    import shutil
    from pgpage.decode import clib
    decode = clib.HERE
    included = {(src.parent / name).resolve() for src in clib.SOURCES + clib.HEADERS
                for name in re.findall(r'^#include "([^"]+)"', src.read_text(), re.M)}
    assert included == {h.resolve() for h in clib.HEADERS}
    assert set(decode.glob("_*.c")) == set(clib.SOURCES) and set(decode.glob("_*.h")) <= set(clib.HEADERS)
    root = decode.parents[1]
    setup = ast.parse((root / "setup.py").read_text())
    namespace = {}   # setup.py's D, SOURCES and HEADERS, evaluated without running setup()
    exec(compile(ast.Module([n for n in setup.body if isinstance(n, ast.Assign)
                             and {t.id for t in n.targets} <= {"D", "SOURCES", "HEADERS"}], []), "setup.py", "exec"),
         namespace)
    assert [root / s for s in namespace["SOURCES"]] == list(clib.SOURCES)
    assert [root / h for h in namespace["HEADERS"]] == list(clib.HEADERS)
    # one byte more in a header: another stamp
    copy = tmp_path / "pgp_layout.h"
    shutil.copy(clib.HEADERS[-1], copy)
    before = clib.source_sha()
    copy.write_bytes(copy.read_bytes() + b"\n")
    monkeypatch.setattr(clib, "HEADERS", clib.HEADERS[:-1] + (copy,))
    assert clib.source_sha() != before


def test_verify_jobs_cut_heaps_into_ranges_and_say_the_same(tmp_path, monkeypatch):
    """verify --jobs: relations spread over workers, big heaps' main forks cut into ranges (here every heap of
    more than 2 blocks, on a damaged copy): the same records, relation by relation, as one process."""
    from pgpage.passes import parallel
    from pgpage.passes.verify import Verification
    from pgpage.storage import relfile
    dst = damaged_copy(tmp_path, 16, 11)
    monkeypatch.setattr(relfile, "CHUNK_BLOCKS", 2)
    monkeypatch.setattr(parallel, "MIN_RANGE_CHUNKS", 1)
    cut = []
    real_ranges = parallel.block_ranges
    monkeypatch.setattr(parallel, "block_ranges", lambda fork, jobs: cut.append(real_ranges(fork, jobs)) or cut[-1])

    def records(jobs):
        v = Verification(open_data_directory(dst), jobs=jobs)
        return [json.dumps(r, sort_keys=True, default=str) for r in v.cluster_records()], v.totals
    one, totals_one = records(1)
    two, totals_two = records(2)
    assert totals_one == totals_two
    assert [r for r in one if '"type": "relation"' in r] == [r for r in two if '"type": "relation"' in r]
    assert sorted(one) == sorted(two)
    assert sum(1 for r in one if '"heap.' in r) > 20    # the damage was seen
    assert any(len(r) > 2 for r in cut)                # and some heaps were cut


def _sparse_fork(tmp_path, sizes_in_blocks: list[int]):
    """A main fork of sparse segment files of the given block counts (ranges depend on sizes alone)."""
    from pgpage.storage.relfile import RelationFork
    for segno, n in enumerate(sizes_in_blocks):
        with open(tmp_path / ("16384" + (f".{segno}" if segno else "")), "wb") as f:
            f.truncate(n * 8192)
    return RelationFork(tmp_path, "16384")


def test_ranges_shrink_cover_every_block_and_never_cross_a_gap(tmp_path):
    """The 6 GB benchmark table's shape: ranges in block order, each starting where a single pass starts a chunk,
    shrinking from a quarter of the fork to MIN_RANGE_CHUNKS chunks (the last ones small, so two workers end
    together); a short segment followed by another is a gap no range spans."""
    from pgpage.passes.parallel import MIN_RANGE_CHUNKS, block_ranges
    from pgpage.storage.relfile import CHUNK_BLOCKS
    fork = _sparse_fork(tmp_path, [131072] * 5 + [79935])
    ranges = block_ranges(fork, 2)
    assert ranges[0] == (0, 184064) and ranges[-1][1] == 735295  # 184064: a quarter, rounded up to a chunk
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert all((lo % 131072) % CHUNK_BLOCKS == 0 for lo, _ in ranges)
    sizes = [hi - lo for lo, hi in ranges]
    assert sizes == sorted(sizes, reverse=True) and len(ranges) == 20
    assert max(sizes[-4:]) == MIN_RANGE_CHUNKS * CHUNK_BLOCKS
    assert block_ranges(fork, 1) == [(0, 735295)]

    gap = tmp_path / "gap"
    gap.mkdir()
    fork = _sparse_fork(gap, [131072, 1000, 50000])  # segment 1 ends at block 132072, segment 2 starts at 262144
    ranges = block_ranges(fork, 2)
    assert any(hi == 132072 for _, hi in ranges)
    assert not any(lo < 132072 and hi > 262144 for lo, hi in ranges)
    assert sum(hi - lo for lo, hi in ranges) == 131072 + 1000 + 50000


def test_a_task_output_is_kept_until_its_turn_up_to_a_bound():
    """InTurn's TurnOutput keeps what a task writes while earlier tasks write theirs, but no more than its bound:
    past it the task waits for its turn and then writes straight through (what rows --jobs writes for a part of a
    table whose TOASTed values come to gigabytes); finish writes what is kept and passes the turn on; a failed
    task writes nothing more."""
    import threading

    from pgpage.passes.parallel import InTurn
    turns, written = InTurn(), []
    first = turns.output(0, written.append, limit=10)
    first.write(b"12345")
    assert written == []                          # kept: within the bound
    second = turns.output(1, written.append, limit=10)
    waiting = threading.Thread(target=second.write, args=(b"second's, past the bound",))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive() and written == []   # task 1 waits: task 0 has not written yet
    first.write(b"6789012")
    assert written == [b"12345", b"6789012"]      # past the bound: task 0's turn, all of it
    first.write(b"ab")
    assert written[-1] == b"ab"                   # then straight through
    first.finish(True)
    waiting.join(5)
    assert not waiting.is_alive() and written[-1] == b"second's, past the bound"
    second.write(b"!")
    second.finish(True)
    third = turns.output(2, written.append, limit=10)
    third.write(b"lost")
    third.finish(False)
    assert written == [b"12345", b"6789012", b"ab", b"second's, past the bound", b"!"]
    turns.wait(3)                                 # the failed task passed the turn on
