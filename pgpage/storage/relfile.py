"""Relation files on disk: forks, 1 GiB segments, global block numbers.

This is the only module that opens relation files, and it opens them read-only.
A relation fork is ``<relfilenode>[_fsm|_vm|_init]`` plus segments ``.1``, ``.2``, …
holding ``relseg_size`` blocks each; block numbers continue across segments (and page
checksums are computed with those global numbers).
"""
from __future__ import annotations

import errno
import mmap
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from pgpage.findings import INFO, WARNING, ExitCode, Finding, PgpageError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_BLCKSZ = 8192
DEFAULT_RELSEG_SIZE = 131072  # blocks per segment at 8 KiB: 1 GiB
FORKS = ("main", "fsm", "vm", "init")
FORK_SUFFIX = {"main": "", "fsm": "_fsm", "vm": "_vm", "init": "_init"}
# relfilenode, temp relations (t<backend>_<relfilenode>), fork suffix, segment number
SEGMENT_NAME = re.compile(r"^(?P<stem>(?:t\d+_)?\d+)(?:_(?P<fork>fsm|vm|init))?(?:\.(?P<segno>\d+))?$")
CHUNK_BLOCKS = 256  # 2 MiB per read at 8 KiB: few Python steps per GB, yet two workers' buffers stay in cache
# a read lands in a buffer this small first and is then copied into the chunk: the kernel's copy out of the page
# cache into a 2 MiB buffer ran at ~2 GB/s on the benchmark VM, into one that stays in the L2 cache at 6-9 GB/s
# (and the copy on into the chunk costs little): `pgpage heap` of 6 GB 30% faster
STAGE_BYTES = 128 * 1024
PAGE_ALIGN = 4096
HUGE_PAGE = 2 << 20


def page_aligned(nbytes: int) -> np.ndarray:
    """A zeroed uint8 buffer starting on a 4 KiB boundary: every buffer pages are read into is one. A bytearray
    lands wherever malloc puts it, which depends on what was allocated before and so repeats from run to run;
    on the benchmark VM some placements made `pgpage scan --jobs 1` of 12 GB take 9.5 s instead of 6 s (the
    stage copy and the heap kernel both slower). A buffer of a chunk's size (``HUGE_PAGE`` / 2 or more) is
    anonymous memory on 2 MiB boundaries, asking for transparent huge pages: physically contiguous, so which
    cache sets it falls into no longer changes from run to run (`verify` of a 1.6 GB heap, 8 runs each in turns
    on the benchmark VM: 2.16 s on average against 2.42 s, the slow runs fewer)."""
    import numpy as np      # here, not at the top: `wal --stats` opens a data directory and never a relation
    if nbytes < HUGE_PAGE // 2:
        raw = np.zeros(nbytes + PAGE_ALIGN, dtype=np.uint8)
        start = -raw.ctypes.data % PAGE_ALIGN
        return raw[start:start + nbytes]
    size = -(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE
    mem = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)   # zero-filled
    raw = np.frombuffer(mem, dtype=np.uint8)
    start = -raw.ctypes.data % HUGE_PAGE
    if hasattr(mmap, "MADV_HUGEPAGE"):
        mem.madvise(mmap.MADV_HUGEPAGE, start, size - start)
    return raw[start:start + nbytes]


class StagedReader:
    """pread through a small buffer (``STAGE_BYTES``), into any part of a bigger one. The loop is compiled
    (``pgp_pread_staged`` of the package's one C library, which decode loads: storage still opens every file,
    the C code only reads from the descriptor it is given): in Python it cost ~10 us per 128 KiB, 7% of
    `verify` of a heap."""

    def __init__(self):
        self.stage = page_aligned(STAGE_BYTES)
        from pgpage.decode.clib import lib
        self._read = lib().pgp_pread_staged

    def pread(self, fd: int, dest: np.ndarray, offset: int) -> int:
        """Fill ``dest`` (a C-contiguous uint8 array) from the file at ``offset``; the bytes read (fewer at its
        end)."""
        got = self._read(fd, dest.ctypes.data, dest.nbytes, offset, self.stage.ctypes.data, STAGE_BYTES)
        if got < 0:
            raise OSError(-got, os.strerror(-got))
        return got


class Unreadable(PgpageError):
    """A relation file that exists but cannot be read: permission denied, a directory where a segment should
    be, an I/O error. One command on one relation stops with this one line (exit 3); a pass over many relations
    makes it one ``storage.unreadable`` finding (``finding``) and goes on."""

    def __init__(self, path, error: OSError):
        self.path = str(path)
        self.reason = error.strerror or str(error)
        super().__init__(f"{self.path}: {self.reason}", ExitCode.UNREADABLE)

    def finding(self, relation: str | None, fork: str | None) -> Finding:
        return Finding("storage.unreadable", f"{os.path.basename(self.path)}: {self.reason}: not read",
                       relation=relation, fork=fork, actual=self.reason)


@dataclass(frozen=True)
class SegmentName:
    stem: str          # relfilenode (or t<backend>_<relfilenode>)
    fork: str          # main, fsm, vm, init
    segno: int | None  # None when the name carries no ".N" (segment 0)


def parse_segment_name(name: str) -> SegmentName | None:
    """Split ``16384_vm.2`` into its parts; None for a name that is not a relation file's."""
    m = SEGMENT_NAME.match(name)
    if not m:
        return None
    segno = m.group("segno")
    return SegmentName(m.group("stem"), m.group("fork") or "main", int(segno) if segno else None)


@dataclass(slots=True)  # a data directory of 100 000 relations holds as many forks
class RelationFork:
    """One fork of one relation: its segment files in order, read block by block or in chunks.

    ``first_segno``/``last_segno`` restrict it to part of the fork (a user naming ``16384.2``
    means that segment alone); block numbers stay global.
    """

    directory: Path
    stem: str
    fork: str = "main"
    block_size: int = DEFAULT_BLCKSZ
    relseg_size: int = DEFAULT_RELSEG_SIZE
    only_segno: int | None = None
    listing: dict[str, int] | None = None  # the directory's {file name: size}, when the caller has read it
    findings: list[Finding] = field(default_factory=list)

    sizes: list[tuple[int, int]] = field(init=False)  # (segno, bytes) of each segment read, in order
    oversized: int | None = field(init=False, default=None)  # the segment refused as larger than a segment

    def __post_init__(self) -> None:
        self.sizes = self._find_segments()
        self.listing = None  # only needed while finding segments

    @property
    def segments(self) -> list[tuple[int, Path, int]]:
        """(segno, path, bytes) of each segment present (paths made when asked, not held: the forks of
        80 888 relations took 105 MB with their Paths held and no slots, 78 MB without)."""
        return [(segno, self.segment_path(segno), size) for segno, size in self.sizes]

    @property
    def name(self) -> str:
        return self.stem + FORK_SUFFIX[self.fork]

    def segment_name(self, segno: int) -> str:
        return self.name + (f".{segno}" if segno else "")

    def segment_path(self, segno: int) -> Path:
        return self.directory / self.segment_name(segno)

    def segment_file(self, segno: int) -> str:
        """The segment's file name to open or stat: a plain string (making and printing a Path per segment was
        a tenth of py-spy's samples of a scan of 80 888 small relations)."""
        return os.path.join(self.directory, self.segment_name(segno))

    def probe(self) -> Unreadable | None:
        """Why the fork cannot be read (each segment opened and one byte read; an oversized one is not read), or
        None: a check made before a pass that reads its blocks through ``block_reader``, which reads what it cannot
        as zeros."""
        if self.oversized is not None:
            return Unreadable(self.segment_file(self.oversized),
                              OSError(errno.EFBIG, "larger than a segment (segment.oversized): not read"))
        for _, path, _ in self.segment_blocks():
            try:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.pread(fd, 1, 0)
                finally:
                    os.close(fd)
            except OSError as e:
                return Unreadable(path, e)
        return None

    def _size(self, segno: int) -> int | None:
        """A segment's size, None if it is absent (from the listing when given: no Path, no stat)."""
        if self.listing is not None:
            return self.listing.get(self.segment_name(segno))
        try:
            return os.stat(self.segment_file(segno)).st_size
        except OSError:
            return None

    def _find_segments(self) -> list[tuple[int, int]]:
        """(segno, size) of each segment present; gaps and odd sizes become findings."""
        found = []
        if self.only_segno is not None:
            if (size := self._size(self.only_segno)) is not None:
                found.append((self.only_segno, size))
        else:
            segno = 0
            while (size := self._size(segno)) is not None:
                found.append((segno, size))
                segno += 1
            # a gap can only hide behind a full segment: look for strays only then
            full_last = bool(found) and found[-1][1] == self.relseg_size * self.block_size
            stray = self._stray_segments(segno) if full_last else []
            for s in stray:
                self.findings.append(Finding(
                    "segment.missing", f"segment {segno} is missing but segment {s} exists",
                    relation=self.name, fork=self.fork, block=segno * self.relseg_size))
        full = self.relseg_size * self.block_size
        for i, (segno, size) in enumerate(found):
            if size > full:  # not a segment PostgreSQL wrote: refused unread, and what follows it with it
                self.findings.append(Finding(
                    "segment.oversized", f"segment {segno} is {size} bytes, more than a segment's {full}"
                    f" ({self.relseg_size} blocks of {self.block_size} bytes): not read, nor any segment after it",
                    relation=self.name, fork=self.fork, block=segno * self.relseg_size, expected=full, actual=size))
                self.oversized = segno
                return found[:i]
            if size % self.block_size:
                self.findings.append(Finding(
                    "segment.partial_block",
                    f"segment {segno} is {size} bytes, not a whole number of {self.block_size}-byte blocks;"
                    f" the last {size % self.block_size} bytes are a torn block",
                    relation=self.name, fork=self.fork,
                    block=segno * self.relseg_size + size // self.block_size))
            if self.only_segno is None and i < len(found) - 1 and size != full:
                self.findings.append(Finding(
                    "segment.short", f"segment {segno} is {size} bytes but is followed by another segment;"
                    f" every segment but the last holds {full} bytes",
                    relation=self.name, fork=self.fork, severity=WARNING))
        return found

    def _stray_segments(self, first_missing: int) -> list[int]:
        """Segment numbers present beyond a gap (a missing segment in the middle)."""
        try:
            names = self.listing if self.listing is not None else os.listdir(self.directory)
        except OSError:
            return []
        prefix = self.name + "."
        return sorted(int(n[len(prefix):]) for n in names
                      if n.startswith(prefix) and n[len(prefix):].isdigit() and int(n[len(prefix):]) > first_missing)

    @property
    def exists(self) -> bool:
        """Whether the fork has a file (an oversized segment 0 is a file, though none of it is read)."""
        return bool(self.sizes) or self.oversized is not None

    @property
    def size_bytes(self) -> int:
        return sum(size for _, size in self.sizes)

    def segment_blocks(self) -> Iterator[tuple[int, str, int]]:
        """(first global block, ``segment_file``, whole blocks) per segment."""
        for segno, size in self.sizes:
            yield segno * self.relseg_size, self.segment_file(segno), size // self.block_size

    @property
    def first_block(self) -> int:
        return self.sizes[0][0] * self.relseg_size if self.sizes else 0

    @property
    def end_block(self) -> int:
        """One past the last whole block."""
        if not self.sizes:
            return 0
        segno, size = self.sizes[-1]
        return segno * self.relseg_size + size // self.block_size

    @property
    def nblocks(self) -> int:
        return sum(size // self.block_size for _, size in self.sizes)

    def read_block(self, blkno: int) -> bytes:
        """The page image of global block ``blkno`` (a torn last block comes back short)."""
        segno, offset = divmod(blkno, self.relseg_size)
        for s, size in self.sizes:
            if s == segno and offset * self.block_size < size:
                path = self.segment_file(segno)
                try:
                    with open(path, "rb") as f:
                        f.seek(offset * self.block_size)
                        return f.read(self.block_size)
                except OSError as e:
                    raise Unreadable(path, e) from None
        raise PgpageError(f"{self.name}: block {blkno} is beyond the end of the fork"
                          f" (blocks {self.first_block}..{self.end_block - 1})", ExitCode.USAGE)

    def iter_chunks(self, start: int | None = None, stop: int | None = None,
                    chunk_blocks: int = CHUNK_BLOCKS) -> Iterator[tuple[int, np.ndarray]]:
        """(first global block, uint8 array of shape (n, block_size)) over whole blocks.

        One reusable buffer per call, so memory stays flat however large the fork; the
        array a caller receives is only valid until the next iteration.
        """
        start = self.first_block if start is None else start
        stop = self.end_block if stop is None else stop
        chunk_blocks = max(1, min(chunk_blocks, stop - start))  # a small fork gets a small buffer
        buf = page_aligned(chunk_blocks * self.block_size)
        reader = StagedReader()
        for seg_first, path, nblocks in self.segment_blocks():
            lo, hi = max(start, seg_first), min(stop, seg_first + nblocks)
            if lo >= hi:
                continue
            try:
                f = open(path, "rb", buffering=0)
            except OSError as e:
                raise Unreadable(path, e) from None
            with f:
                blk = lo
                while blk < hi:
                    want = min(chunk_blocks, hi - blk) * self.block_size
                    try:
                        got = reader.pread(f.fileno(), buf[:want], (blk - seg_first) * self.block_size)
                    except OSError as e:
                        raise Unreadable(path, e) from None
                    n = got // self.block_size
                    if n:
                        yield blk, buf[:n * self.block_size].reshape(n, self.block_size)
                    if got < want:
                        break  # the file shrank under us (a live server truncating): see size_changes
                    blk += n

    def size_changes(self) -> list[Finding]:
        """Segments whose size differs from the one listed when the fork was opened: a live server truncated
        (VACUUM) or extended the relation while it was read. Blocks past a shrunk end may be missing from what
        was read; blocks added are not in it. (Called after a pass; a file that shrank and grew back between
        two looks goes unseen.)"""
        out = []
        segments = list(self.sizes)
        if self.only_segno is None and segments and segments[-1][1] == self.relseg_size * self.block_size:
            segments.append((segments[-1][0] + 1, 0))  # a full last segment may have been followed
        for segno, size in segments:
            try:
                now = os.stat(self.segment_file(segno)).st_size
            except OSError:
                now = 0
            first = segno * self.relseg_size
            if now < size:
                out.append(Finding(
                    "segment.shrank", f"segment {segno} shrank from {size} to {now} bytes while it was read (a server"
                    f" truncating the relation): blocks {first + now // self.block_size}.."
                    f"{first + size // self.block_size - 1} may be missing from the figures",
                    severity=WARNING, relation=self.name, fork=self.fork, block=first + now // self.block_size,
                    expected=size, actual=now))
            elif now > size:
                out.append(Finding(
                    "segment.grew", f"segment {segno} grew from {size} to {now} bytes while it was read (a server"
                    f" extending the relation): blocks from {first + size // self.block_size} on are not in the"
                    " figures", severity=INFO, relation=self.name, fork=self.fork,
                    block=first + size // self.block_size, expected=size, actual=now))
        return out

    def block_reader(self) -> "BlockReader":
        """The fork's blocks by number, read-only (how the heap TID checks of `index` and `verify`, the order
        checks' second reads and `rows` visit a relation out of order)."""
        return BlockReader(self)

    def iter_blocks(self, start: int | None = None, stop: int | None = None) -> Iterator[tuple[int, bytes]]:
        for first, chunk in self.iter_chunks(start, stop, chunk_blocks=64):
            for i in range(chunk.shape[0]):
                yield first + i, chunk[i].tobytes()


class BlockReader:
    """A fork's blocks by number. ``reader(sorted block numbers)``: their pages, a uint8 array (n, block_size)
    valid until the next call; each run of consecutive blocks is read in order (through ``StagedReader``), each
    segment file opened once per call, and a block that cannot be read comes back all zeros. ``runs(...)``: the
    same runs for a caller that reads them itself (the compiled heap TID check decodes a run as it reads it)."""

    def __init__(self, fork: RelationFork):
        self.fork = fork
        self.buf = page_aligned(0).reshape(0, fork.block_size)
        self.reader = StagedReader()

    def __call__(self, blknos: np.ndarray) -> np.ndarray:
        n, bs = len(blknos), self.fork.block_size
        if len(self.buf) < n:
            self.buf = page_aligned(n * bs).reshape(n, bs)
        import numpy as np
        out = self.buf[:n]
        filled = np.zeros(n, dtype=bool)   # the rows read: the others (unreadable, past an end) are zeroed
        for fd, offset, row, count in self.runs(blknos):
            try:
                got = self.reader.pread(fd, out[row:row + count], offset)
            except OSError:
                continue
            filled[row:row + got // bs] = True
        out[~filled] = 0
        return out

    def runs(self, blknos: np.ndarray) -> Iterator[tuple[int, int, int, int]]:
        """(fd, byte offset in its segment file, first row, rows) of each run of consecutive block numbers of
        ``blknos`` (sorted) within one segment file, the file open (read-only) while the caller reads the run.
        Segment files that cannot be opened, and blocks past their ends, are left out."""
        import numpy as np
        n = len(blknos)
        if not n:
            return
        bs = self.fork.block_size
        breaks = np.flatnonzero(np.diff(blknos) != 1) + 1
        run_lo = np.concatenate([[0], breaks])            # rows where each run starts
        run_hi = np.concatenate([breaks, [n]])
        for seg_first, path, seg_blocks in self.fork.segment_blocks():
            first_run = int(np.searchsorted(blknos[run_hi - 1], seg_first))
            if first_run == len(run_lo) or blknos[run_lo[first_run]] >= seg_first + seg_blocks:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                for lo, hi in zip(run_lo[first_run:].tolist(), run_hi[first_run:].tolist()):
                    start = int(blknos[lo])
                    if start >= seg_first + seg_blocks:
                        break
                    skip = max(0, seg_first - start)          # a run that began in the segment before
                    stop = min(int(blknos[hi - 1]) + 1, seg_first + seg_blocks)
                    yield fd, (start + skip - seg_first) * bs, lo + skip, stop - start - skip
            finally:
                os.close(fd)


def directory_listing(directory: Path) -> dict[str, int]:
    """{file name: size} of a directory, read once (so that finding every relation's
    segments costs one directory scan, not a stat per fork and segment)."""
    try:
        with os.scandir(directory) as entries:
            return {e.name: e.stat().st_size for e in entries if e.is_file()}
    except OSError:
        return {}


def segment_files(names) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """The relation files among a directory's file ``names``, by (stem, fork): [(name, segment number)] in name
    order."""
    out: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for name in sorted(names):
        p = parse_segment_name(name)
        if p is not None:
            out.setdefault((p.stem, p.fork), []).append((name, p.segno or 0))
    return out


def open_segment_file(path: str | os.PathLike, block_size: int | None = None,
                      relseg_size: int = DEFAULT_RELSEG_SIZE) -> RelationFork:
    """The fork a user named by one of its files.

    The base file (``16384``, ``16384_vm``) stands for the whole fork, all segments; a
    ``.N`` file for that segment alone. A file whose name is not a relfilenode's is read
    as one stand-alone segment 0 of a main fork (a page image someone copied out).
    """
    p = Path(path)
    if not p.exists():
        raise PgpageError(f"{p}: no such file", ExitCode.UNREADABLE)
    if p.is_dir():
        raise PgpageError(f"{p}: is a directory, not a relation file (name a data directory with --rel)",
                          ExitCode.USAGE)
    if not os.access(p, os.R_OK):
        raise PgpageError(f"{p}: permission denied", ExitCode.UNREADABLE)
    check_segment_file(p, block_size, relseg_size)
    parsed = parse_segment_name(p.name)
    if parsed is None:
        fork = RelationFork(p.parent, p.name, "main", block_size or DEFAULT_BLCKSZ, relseg_size, only_segno=0)
        return fork
    size = block_size or guess_block_size(p)
    return RelationFork(p.parent, parsed.stem, parsed.fork, size, relseg_size, only_segno=parsed.segno)


_NOT_REGULAR = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def check_segment_file(path: str | os.PathLike, block_size: int | None = None,
                       relseg_size: int = DEFAULT_RELSEG_SIZE) -> None:
    """Refuse, from its stat alone (nothing opened, nothing read), a file no relation segment can be: one that
    is not a regular file (a FIFO or a device would block or read as empty, and an empty read is not a clean
    relation), or one larger than a segment (``relseg_size`` blocks: RELSEG_SIZE, 1 GiB unless pg_control says
    otherwise), which PostgreSQL would never have written and which could be anything (a disk image, a dump)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise PgpageError(f"{path}: {e.strerror or e}", ExitCode.UNREADABLE) from None
    for is_kind, kind in _NOT_REGULAR:
        if is_kind(st.st_mode):
            raise PgpageError(f"{path}: is {kind}, not a relation file: refused", ExitCode.UNREADABLE)
    if not stat.S_ISREG(st.st_mode):
        raise PgpageError(f"{path}: not a regular file, not a relation file: refused", ExitCode.UNREADABLE)
    full = relseg_size * (block_size or DEFAULT_BLCKSZ)
    if st.st_size > full:
        raise PgpageError(f"{path}: segment.oversized: {st.st_size} bytes, more than a segment's {full}"
                          f" ({relseg_size} blocks of {block_size or DEFAULT_BLCKSZ} bytes): refused unread",
                          ExitCode.UNREADABLE)


def guess_block_size(path: Path) -> int:
    """Block size from the first initialised page's pd_pagesize_version, else 8 KiB."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise Unreadable(path, e) from None
    with f:
        for _ in range(16):
            head = f.read(24)
            if len(head) < 24:
                break
            size = int.from_bytes(head[18:20], "little") & 0xFF00
            if size in (1024, 2048, 4096, 8192, 16384, 32768) and any(head):
                return size
            f.seek(DEFAULT_BLCKSZ - 24, os.SEEK_CUR)
    return DEFAULT_BLCKSZ
