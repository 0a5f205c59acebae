"""WAL segment files: which are there, and the bytes of one at a time (read-only).

A directory of segments is a data directory's ``pg_wal/`` or an archive (``archive_command``'s target).
Segment files are named ``TTTTTTTTXXXXXXXXYYYYYYYY`` (``XLogFileName``: timeline, then the segment number
split in two at 4 GB: ``segno = X * (0x100000000 / wal_segment_size) + Y``); an archive's may carry a
``.gz`` suffix (``archive_command = 'gzip < %p > ...'``) and are then read through gzip. Other files
(``.history``, ``.backup``, ``archive_status/``, ``.partial``) are not segments.

When a segment number exists on several timelines, the highest timeline's file is read: after a
promotion the new timeline's copy holds the old timeline's WAL up to the switch point and the new WAL
after it. Only one segment is in memory at a time (``read``).
"""
from __future__ import annotations

import gzip
import mmap
import re
from dataclasses import dataclass
from pathlib import Path

from pgpage.findings import ExitCode, PgpageError

SEGMENT_NAME = re.compile(r"^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})(\.gz)?$")


@dataclass(frozen=True)
class SegmentFile:
    path: Path
    tli: int
    high: int            # the XXXXXXXX part: log id
    low: int             # the YYYYYYYY part: segment within the log id

    def segno(self, segment_size: int) -> int:
        return self.high * (0x100000000 // segment_size) + self.low


def segment_file_name(tli: int, segno: int, segment_size: int) -> str:
    per = 0x100000000 // segment_size
    return f"{tli:08X}{segno // per:08X}{segno % per:08X}"


def wal_directory(path: str | Path, wal: str | Path | None = None) -> Path:
    """The directory to read: ``wal`` when given, else ``path/pg_wal``, else ``path`` itself when it holds
    segment files (an archive given as the only argument)."""
    if wal is not None:
        d = Path(wal)
    else:
        d = Path(path) / "pg_wal"
        if not d.is_dir() and Path(path).is_dir() and any(SEGMENT_NAME.match(p.name) for p in Path(path).iterdir()):
            d = Path(path)
    if not d.is_dir():
        raise PgpageError(f"{d}: no WAL directory (a data directory's pg_wal, or give --wal DIR)",
                          ExitCode.UNREADABLE)
    return d


class WalDirectory:
    """The segment files of one directory, by segment number."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.files: list[SegmentFile] = []
        for p in sorted(directory.iterdir()):
            m = SEGMENT_NAME.match(p.name)
            if m and p.is_file():
                self.files.append(SegmentFile(p, int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))

    def first_file(self) -> SegmentFile | None:
        return min(self.files, key=lambda f: (f.high, f.low, f.tli), default=None)

    def by_segno(self, segment_size: int) -> dict[int, SegmentFile]:
        out: dict[int, SegmentFile] = {}
        for f in self.files:
            n = f.segno(segment_size)
            if n not in out or f.tli > out[n].tli:
                out[n] = f
        return out

    @staticmethod
    def read(f: SegmentFile, limit: int | None = None):
        """The segment's bytes (at most ``limit``): a plain file mapped read-only (the pages the reader touches
        are read, once), a .gz one decompressed; a file shorter than a segment is returned as it is."""
        try:
            if f.path.suffix == ".gz":
                with gzip.open(f.path, "rb") as fh:
                    return fh.read(-1 if limit is None else limit)
            with open(f.path, "rb") as fh:
                if limit is not None or fh.seek(0, 2) == 0:
                    fh.seek(0)
                    return fh.read(-1 if limit is None else limit)
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, EOFError, ValueError, gzip.BadGzipFile) as e:
            raise PgpageError(f"{f.path}: cannot read: {e}", ExitCode.UNREADABLE) from e
