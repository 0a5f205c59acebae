"""WAL segment files: which are there, and the bytes of one at a time (read-only).

A directory of segments is a data directory's ``pg_wal/`` or an archive (``archive_command``'s target).
Segment files are named ``TTTTTTTTXXXXXXXXYYYYYYYY`` (``XLogFileName``: timeline, then the segment number
split in two at 4 GB: ``segno = X * (0x100000000 / wal_segment_size) + Y``); an archive's may carry a
``.gz`` suffix (``archive_command = 'gzip < %p > ...'``) and are then read through gzip. Other files
(``.history``, ``.backup``, ``archive_status/``, ``.partial``) are not segments.

Timelines are followed as recovery follows them (``readTimeLineHistory``, ``XLogFileReadAnyTLI``): the
``TTTTTTTT.history`` file of the timeline read names its ancestors and the LSN where each branched off; a
segment is read from the newest timeline of that history that had begun by the segment (after a
promotion the new timeline's copy holds the old timeline's WAL up to the switch point, then the new WAL).
Files of timelines outside that history, and older timelines' copies of segments a newer one covers, are
not read: ``segments`` says so (``wal.segment.other_timeline``) instead of mixing them in. Only one segment
is in memory at a time (``read``).
"""
from __future__ import annotations

import gzip
import mmap
import re
from dataclasses import dataclass
from pathlib import Path

from pgpage.findings import ExitCode, PgpageError

SEGMENT_NAME = re.compile(r"^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})(\.gz)?$")
HISTORY_NAME = re.compile(r"^([0-9A-F]{8})\.history(\.gz)?$")


@dataclass(frozen=True)
class TimelineEntry:
    """One timeline of a history (TimeLineHistoryEntry): its WAL is [begin, end); None: unbounded."""
    tli: int
    begin: int | None
    end: int | None


def parse_history(text: str, tli: int) -> list[TimelineEntry]:
    """The entries of timeline ``tli``'s history file, oldest first, ``tli`` itself last (readTimeLineHistory:
    lines ``parentTLI <tab> switchpoint <tab> reason``; blank lines and ``#`` comments skipped). Raises
    ValueError on a line that is not of that form or timelines that do not increase."""
    from pgpage.decode.control import parse_lsn
    entries: list[TimelineEntry] = []
    begin = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 2)
        parent, switch = int(fields[0]), parse_lsn(fields[1])
        if entries and parent <= entries[-1].tli or parent >= tli:
            raise ValueError(f"timeline IDs must be in increasing sequence (line {line!r})")
        entries.append(TimelineEntry(parent, begin, switch))
        begin = switch
    entries.append(TimelineEntry(tli, begin, None))
    return entries


@dataclass(frozen=True)
class SegmentFile:
    path: Path
    tli: int
    high: int            # the XXXXXXXX part: log id
    low: int             # the YYYYYYYY part: segment within the log id

    def segno(self, segment_size: int) -> int:
        return self.high * (0x100000000 // segment_size) + self.low


def _lsn(value: int) -> str:
    from pgpage.decode.control import format_lsn
    return format_lsn(value)


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
        self.histories: dict[int, Path] = {}
        for p in sorted(directory.iterdir()):
            m = SEGMENT_NAME.match(p.name)
            if m and p.is_file():
                self.files.append(SegmentFile(p, int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
            h = HISTORY_NAME.match(p.name)
            if h and p.is_file():
                self.histories[int(h.group(1), 16)] = p

    def newest_timeline(self) -> int:
        """The timeline a reader follows unless told: the newest of the segments' and history files'."""
        return max([f.tli for f in self.files] + list(self.histories), default=1)

    def history(self, tli: int) -> list[TimelineEntry] | None:
        """Timeline ``tli``'s history (oldest first, ``tli`` last); [tli] for timeline 1; None when its history
        file is missing. Raises PgpageError when the file does not read or parse."""
        if tli == 1:
            return [TimelineEntry(1, None, None)]
        path = self.histories.get(tli)
        if path is None:
            return None
        try:
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            return parse_history(raw.decode("ascii"), tli)
        except (OSError, EOFError, ValueError, UnicodeDecodeError, IndexError, gzip.BadGzipFile) as e:
            raise PgpageError(f"{path}: not a timeline history file: {e}", ExitCode.UNREADABLE) from None

    def segments(self, segment_size: int, history: list[TimelineEntry]) -> tuple[dict[int, SegmentFile],
                                                                                   list[tuple[SegmentFile, str]]]:
        """(segno -> the file to read, [(file not read, why)]): per segment number the file of the newest timeline
        of ``history`` that had begun by that segment (XLogFileReadAnyTLI); without a file of that timeline the
        segment is missing (an older timeline's copy would hold WAL the history abandoned)."""
        by_tli = {e.tli: e for e in history}
        chosen: dict[int, SegmentFile] = {}
        left: list[tuple[SegmentFile, str]] = []
        for f in self.files:
            n = f.segno(segment_size)
            entry = by_tli.get(f.tli)
            owner = next(e for e in reversed(history) if e.begin is None or e.begin // segment_size <= n)
            if entry is None:
                left.append((f, f"timeline {f.tli} is not in timeline {history[-1].tli}'s history"))
            elif entry is not owner and entry.tli < owner.tli:
                left.append((f, f"timeline {owner.tli} holds this segment" + (
                    f" (timeline {f.tli} ends at {_lsn(entry.end)})" if entry.end is not None else "")))
            elif entry is not owner:
                left.append((f, f"timeline {f.tli} begins after this segment"))
            else:
                chosen[n] = f
        return chosen, left

    def first_file(self) -> SegmentFile | None:
        return min(self.files, key=lambda f: (f.high, f.low, f.tli), default=None)

    @staticmethod
    def read(f: SegmentFile, limit: int | None = None):
        """The segment's bytes (at most ``limit``): a plain file mapped (the pages the reader touches are read,
        once), a .gz one decompressed; a file shorter than a segment is returned as it is. The mapping is private
        (copy-on-write, ACCESS_COPY) rather than read-only because ctypes hands the compiled scan the address of
        writable buffers only; nothing writes to it, and a private mapping never reaches the file."""
        try:
            if f.path.suffix == ".gz":
                with gzip.open(f.path, "rb") as fh:
                    return fh.read(-1 if limit is None else limit)
            with open(f.path, "rb") as fh:
                if limit is not None or fh.seek(0, 2) == 0:
                    fh.seek(0)
                    return fh.read(-1 if limit is None else limit)
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
        except (OSError, EOFError, ValueError, gzip.BadGzipFile) as e:
            raise PgpageError(f"{f.path}: cannot read: {e}", ExitCode.UNREADABLE) from e
