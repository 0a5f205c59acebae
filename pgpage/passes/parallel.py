"""``--jobs``: whole-relation passes spread over worker processes.

A fork is cut into ranges of blocks (``block_ranges``) that start on the same chunk boundaries a
single pass reads (``RelationFork.iter_chunks`` restarts at each segment), so every worker sees
exactly the chunks one process would, and results merged in block order are the ones one process
gives. Workers are forked (they inherit the opened cluster, pg_xact and the compiled kernels, and
each reads its own ranges with its own flat buffer, so memory per worker stays flat); results come
back in task order (``run_tasks``) and are merged by the caller.
"""
from __future__ import annotations

import io
import multiprocessing
import os
from typing import Callable, Iterator, Sequence

TASKS_PER_JOB = 2  # pieces of work per worker (block_ranges: each range 1 / (TASKS_PER_JOB * jobs) of what is left)
TURN_BUFFER_BYTES = 64 << 20  # InTurn: a task's output kept while earlier tasks write theirs, at most
MIN_RANGE_CHUNKS = 8  # the smallest range a fork is cut into (16 MiB of 8 KiB pages: a few hundredths of a second)


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def block_ranges(fork, jobs: int, per_job: int = TASKS_PER_JOB) -> list[tuple[int, int]]:
    """[start, stop) ranges covering the fork's whole blocks: one with ``jobs`` <= 1, else ranges that shrink
    as they go: each takes 1 / (``per_job`` * ``jobs``) of the blocks still left, at least MIN_RANGE_CHUNKS
    chunks. Workers take ranges as they free up, so they end within one small range of each other (equal
    ranges left one worker idle for up to 0.5 s of a 2.5 s heap pass). Ranges are cut only where a single
    pass starts a chunk (every CHUNK_BLOCKS from each segment's start); they may span whole segments, never
    the gap a short segment leaves, so ``stop - start`` is the blocks a range holds."""
    from pgpage.storage.relfile import CHUNK_BLOCKS
    segments = [(first, n) for first, _, n in fork.segment_blocks() if n > 0]
    if not segments:
        return []
    if jobs <= 1:
        return [(fork.first_block, fork.end_block)]
    chunks = [(s, min(s + CHUNK_BLOCKS, first + n))
              for first, n in segments for s in range(first, first + n, CHUNK_BLOCKS)]
    total = sum(n for _, n in segments)
    out, start, taken, left = [], chunks[0][0], 0, total  # taken: blocks in the range being cut; left: in none yet
    for k, (s, e) in enumerate(chunks):
        taken += e - s
        full = taken >= max(left / (per_job * jobs), MIN_RANGE_CHUNKS * CHUNK_BLOCKS)
        if k == len(chunks) - 1 or full or chunks[k + 1][0] != e:  # never across a gap
            out.append((start, e))
            left, taken = left - taken, 0
            start = chunks[k + 1][0] if k + 1 < len(chunks) else e
    return out


def split_ranges(ranges: Sequence[tuple[int, int]], parts: int) -> list[list[tuple[int, int]]]:
    """Ascending [lo, hi) block ranges cut into at most ``parts`` groups of nearly equal block counts (a range
    may be cut between two groups)."""
    total = sum(hi - lo for lo, hi in ranges)
    out: list[list[tuple[int, int]]] = []
    done = 0
    for lo, hi in ranges:
        while lo < hi:
            k = min(parts, done * parts // max(total, 1) + 1)  # the group this block belongs to
            end = min(hi, lo + -(-k * total // parts) - done)  # up to that group's share
            if len(out) < k:
                out.append([])
            out[-1].append((lo, end))
            done += end - lo
            lo = end
    return out


_WORK: tuple[Callable, Sequence] | None = None


def _call(i: int):
    fn, tasks = _WORK
    return fn(tasks[i])


def run_tasks(fn: Callable, tasks: Sequence, jobs: int) -> Iterator:
    """``fn(task)`` for each task, in task order: here with ``jobs`` <= 1, else in that many forked workers
    (``fn`` may be a closure: workers inherit it; its results must pickle)."""
    global _WORK
    if jobs <= 1 or len(tasks) <= 1:
        yield from map(fn, tasks)
        return
    from pgpage.decode.kernels import warm
    warm()  # compile (or load from the cache) once, in the parent, not in every worker
    _WORK = (fn, tasks)
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(tasks))) as pool:
            yield from pool.imap(_call, range(len(tasks)))
    finally:
        _WORK = None


class InTurn:
    """Output written by worker processes in task order, straight from the workers: task k writes once tasks
    0..k-1 have (tasks are handed out in order, so the one whose turn it is is always running or done). The
    bytes never pass through the parent: pickling a table's CSV through the pool's pipe cost more than making it.
    Made before the pool forks (the workers inherit the shared turn counter and its condition)."""

    def __init__(self):
        ctx = multiprocessing.get_context("fork")
        self._turn = ctx.Value("q", 0, lock=False)
        self._cond = ctx.Condition()

    def wait(self, k: int) -> None:
        with self._cond:
            while self._turn.value != k:
                self._cond.wait()

    def pass_on(self, k: int) -> None:
        with self._cond:
            self._turn.value = k + 1
            self._cond.notify_all()

    def output(self, k: int, write: Callable[[bytes], object], limit: int | None = None) -> "TurnOutput":
        return TurnOutput(self, k, write, TURN_BUFFER_BYTES if limit is None else limit)


class TurnOutput(io.RawIOBase):
    """Task k's output (a binary stream): kept in memory while earlier tasks write theirs, up to ``limit`` bytes;
    past that the task waits for its turn and writes straight through, so memory stays flat however much one task
    writes (a table's rows with TOASTed values). ``finish`` writes what is kept, in turn (nothing more after a
    failure), and passes the turn on."""

    def __init__(self, turns: InTurn, k: int, write: Callable[[bytes], object], limit: int):
        self.turns, self.k, self._write, self.limit = turns, k, write, limit
        self.kept: list[bytes] = []
        self.size = 0
        self.mine = False   # task k's turn: what it writes goes straight through

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        data = bytes(b)
        if self.mine:
            self._write(data)
            return len(data)
        self.kept.append(data)
        self.size += len(data)
        if self.size > self.limit:
            self._take_turn(True)
        return len(data)

    def _take_turn(self, flush: bool) -> None:
        if not self.mine:
            self.turns.wait(self.k)
            self.mine = True
        if flush:
            for data in self.kept:
                self._write(data)
        self.kept, self.size = [], 0

    def finish(self, ok: bool) -> None:
        try:
            self._take_turn(ok)
        finally:
            self.turns.pass_on(self.k)
