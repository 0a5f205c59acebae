"""Walk a directory of WAL segments as the server's redo would read it: every record, in LSN order.

``WalReader(directory).records(start, end)`` yields ``decode.wal.record.Record`` objects (CRC checked, block
references decoded) whose start LSN lies in ``[start, end)``, following records over page and segment
boundaries, and jumping to the next segment after an XLOG SWITCH. It stops where ``xlogreader.c`` would
stop and says why in ``reader.stop`` (a Finding):

* ``wal.end`` (info, not a defect): the normal end of WAL: zeros where the next record would start, a
  recycled segment (an old page address) there, or no further segment and nothing missing;
* errors (the reason for exit code 1): a record whose CRC does not match (``wal.record.bad_crc``), an
  invalid record header (``wal.record.bad_length``, ``bad_rmgr``, ``bad_prev``) or block layout
  (``wal.record.bad_blocks``), a record cut short by the end of the WAL (``wal.record.torn``), a missing
  segment with later ones present (``wal.segment.missing``), a page of another system, major, or that is
  not WAL at all (``wal.page.*``).

Memory: two segments' bytes at a time (a record may run on into the next), plus the record being put together.
"""
from __future__ import annotations

from collections.abc import Iterator

from pgpage.decode import versions
from pgpage.decode.control import format_lsn
from pgpage.decode.clib import crc32c_update
from pgpage.decode.wal.record import (BKPBLOCK_WILL_INIT, CRC_OFFSET, SIZE_OF_LONG_PHD, SIZE_OF_RECORD,
                                      SIZE_OF_SHORT_PHD, XLOG_BLCKSZ,
                                    XLP_ALL_FLAGS, XLP_FIRST_IS_CONTRECORD, XLP_LONG_HEADER, Record,
                                    RecordError, decode_record, maxalign, page_header, record_header)
from pgpage.findings import ERROR, INFO, WARNING, ExitCode, Finding, PgpageError
from pgpage.storage.wal import TimelineEntry, WalDirectory, segment_file_name

MAJOR_OF_MAGIC = {magic: major for major, magic in versions.XLOG_PAGE_MAGIC.items()}
MAX_BUILTIN_RMID = len(versions.RMGR_NAMES) - 1
MIN_CUSTOM_RMID = 128
XLOG_SWITCH = next(info for (rmid, info), name in versions.WAL_RECORD_TYPES[versions.SUPPORTED_MAJORS[0]].items()
                   if rmid == versions.RMGR_XLOG and name == "SWITCH")


class _Stop(Exception):
    def __init__(self, finding: Finding):
        self.finding = finding


def _end(message: str) -> _Stop:
    return _Stop(Finding("wal.end", message, INFO))


def _error(code: str, message: str) -> _Stop:
    return _Stop(Finding(code, message, ERROR))


class WalReader:
    """The segments of one directory, checked against the cluster when its pg_control is known."""

    def __init__(self, directory: WalDirectory, control: dict | None = None, timeline: int | None = None):
        self.directory = directory
        first = directory.first_file()
        if first is None:
            raise PgpageError(f"{directory.directory}: no WAL segment files", ExitCode.UNREADABLE)
        head = directory.read(first, SIZE_OF_LONG_PHD)
        hdr = page_header(head) if len(head) >= SIZE_OF_SHORT_PHD else None
        if hdr is None or not hdr.info & XLP_LONG_HEADER or hdr.sysid is None:
            raise PgpageError(f"{first.path}: not a WAL segment (no long page header)", ExitCode.UNREADABLE)
        self.major = MAJOR_OF_MAGIC.get(hdr.magic)
        if self.major is None:
            raise PgpageError(f"{first.path}: not a WAL segment of PostgreSQL 10 to 18 (page magic "
                              f"0x{hdr.magic:04X})", ExitCode.UNREADABLE)
        self.magic, self.sysid, self.segment_size = hdr.magic, hdr.sysid, hdr.seg_size
        if not (self.segment_size and self.segment_size & (self.segment_size - 1) == 0
                and 1 << 20 <= self.segment_size <= 1 << 30 and hdr.xlog_blcksz == XLOG_BLCKSZ):
            raise PgpageError(f"{first.path}: not a WAL segment (segment size {self.segment_size}, page size "
                              f"{hdr.xlog_blcksz})", ExitCode.UNREADABLE)
        self.findings: list[Finding] = []
        if control:
            if control.get("system_identifier") not in (None, self.sysid):
                self.findings.append(Finding(
                    "wal.segment.other_system", f"{first.path.name} is of database system {self.sysid}, "
                    f"pg_control says {control['system_identifier']}", ERROR))
            if control.get("major") not in (None, self.major):
                self.findings.append(Finding(
                    "wal.segment.other_major", f"{first.path.name} was written by PostgreSQL {self.major}, "
                    f"pg_control says {control['major']}", ERROR))
        if timeline is not None and timeline not in {f.tli for f in directory.files} | set(directory.histories):
            raise PgpageError(f"{directory.directory}: no segment or history file of timeline {timeline}",
                              ExitCode.USAGE)
        self.timeline = directory.newest_timeline() if timeline is None else timeline
        self.history = self._history()
        self.segments, left = directory.segments(self.segment_size, self.history)
        for f, why in left:
            self.findings.append(Finding("wal.segment.other_timeline", f"{f.path.name} is not read: {why}", WARNING))
        if not self.segments:
            raise PgpageError(f"{directory.directory}: no WAL segment of timeline {self.timeline} or its history",
                              ExitCode.UNREADABLE)
        self.first_segno = min(self.segments)
        self.stop: Finding | None = None
        self._mapped: dict[int, bytes | None] = {}     # the last two segments read, by number
        self._tli = 0

    def _history(self) -> list[TimelineEntry]:
        """The timeline's history; without its history file, one guessed from the segment files (each timeline
        begins at its first segment, none is known to end), with a finding: the switch points are unknown."""
        history = self.directory.history(self.timeline)
        if history is not None:
            return history
        self.findings.append(Finding(
            "wal.timeline.history_missing", f"no {self.timeline:08X}.history: the switch points between timelines are "
            "unknown; each segment is read from the newest timeline that has it", WARNING))
        firsts: dict[int, int] = {}
        for f in self.directory.files:
            if f.tli <= self.timeline:
                firsts[f.tli] = min(firsts.get(f.tli, f.segno(self.segment_size)), f.segno(self.segment_size))
        tlis = sorted(firsts) or [self.timeline]
        begins = [None] + [firsts[t] * self.segment_size for t in tlis[1:]]
        return [TimelineEntry(t, b, None) for t, b in zip(tlis, begins)]

    def _timeline_of(self, lsn: int) -> int:
        """The timeline of ``self.history`` the WAL at ``lsn`` belongs to."""
        return next(e.tli for e in reversed(self.history) if e.begin is None or e.begin <= lsn)

    # ----------------------------------------------------------------- pages

    def _segment(self, segno: int) -> bytes | None:
        """Segment ``segno``'s bytes (None: no such segment); the last two read stay mapped."""
        if segno not in self._mapped:
            if len(self._mapped) == 2:
                del self._mapped[next(iter(self._mapped))]
            f = self.segments.get(segno)
            self._mapped[segno] = self.directory.read(f) if f is not None else None
        return self._mapped[segno]

    def _page_header(self, page_lsn: int, record: int | None):
        """The checked header of the page at ``page_lsn`` (XLogReaderValidatePageHeader), with the page's bytes;
        ``record`` is the start of the record the page must continue (None: a record starts there)."""
        segno, off = divmod(page_lsn, self.segment_size)
        where = format_lsn(page_lsn)
        mid_record = record is not None
        torn = f"the record at {format_lsn(record)} is cut short at {where}" if mid_record else ""
        data = self._segment(segno)
        if data is None:
            later = any(n > segno for n in self.segments)
            name = segment_file_name(self._timeline_of(segno * self.segment_size + self.segment_size - 1), segno,
                                     self.segment_size)
            if later:
                raise _error("wal.segment.missing", f"segment {name} is missing (later segments are present): "
                                                    f"the WAL has a gap at {where}")
            if mid_record:
                raise _error("wal.record.torn", f"{torn}: no segment {name}")
            raise _end(f"end of WAL at {where}: no segment {name}")
        page = memoryview(data)[off:off + XLOG_BLCKSZ]
        if len(page) < SIZE_OF_SHORT_PHD or not any(page[:SIZE_OF_SHORT_PHD]):
            if mid_record:
                raise _error("wal.record.torn", f"{torn}: "
                                                f"{'the file ends' if len(page) < SIZE_OF_SHORT_PHD else 'zeros'}")
            raise _end(f"end of WAL at {where}: {'the segment file ends' if not len(page) else 'zeros'}")
        hdr = page_header(page)
        if hdr.magic != self.magic:
            other = MAJOR_OF_MAGIC.get(hdr.magic)
            raise _error("wal.page.bad_magic", f"page at {where}: magic 0x{hdr.magic:04X}" +
                         (f" of PostgreSQL {other}, not {self.major}" if other else ", not WAL"))
        if hdr.info & ~XLP_ALL_FLAGS:
            raise _error("wal.page.bad_info", f"page at {where}: invalid info bits 0x{hdr.info:04X}")
        if off == 0:
            if not hdr.info & XLP_LONG_HEADER or hdr.sysid is None:
                raise _error("wal.page.bad_header", f"page at {where}: a segment's first page without a long header")
            if hdr.sysid != self.sysid:
                raise _error("wal.segment.other_system", f"segment at {where} is of database system {hdr.sysid}, "
                                                         f"not {self.sysid}")
            if hdr.seg_size != self.segment_size or hdr.xlog_blcksz != XLOG_BLCKSZ:
                raise _error("wal.page.bad_header", f"page at {where}: segment size {hdr.seg_size}, "
                                                    f"page size {hdr.xlog_blcksz}")
        if hdr.pageaddr != page_lsn:
            if mid_record:
                raise _error("wal.record.torn", f"{torn}: the page there is of {format_lsn(hdr.pageaddr)} "
                                                "(a recycled segment)")
            raise _end(f"end of WAL at {where}: a recycled page (of {format_lsn(hdr.pageaddr)})")
        if hdr.tli < self._tli:
            raise _error("wal.page.bad_timeline", f"page at {where}: timeline {hdr.tli} after {self._tli}")
        live = [e for e in self.history if e.tli == hdr.tli and (e.begin is None or e.begin < page_lsn + XLOG_BLCKSZ)
                and (e.end is None or e.end > page_lsn)]
        if not live:
            raise _error("wal.page.bad_timeline", f"page at {where}: timeline {hdr.tli}, which timeline "
                                                  f"{self.timeline}'s history does not have at this LSN")
        self._tli = hdr.tli
        return hdr, page

    def first_record(self, segno: int) -> int:
        """The LSN of the first record that starts in segment ``segno`` (past a record continued into it)."""
        pos = first = segno * self.segment_size
        hdr, _ = self._page_header(pos, None)
        if not hdr.info & XLP_FIRST_IS_CONTRECORD:
            return pos + hdr.size
        remaining = hdr.rem_len
        while True:
            room = XLOG_BLCKSZ - hdr.size
            if remaining <= room:
                return maxalign(pos + hdr.size + remaining)
            remaining -= room
            pos += XLOG_BLCKSZ
            hdr, _ = self._page_header(pos, first)     # (the record began in the segment before)

    # ----------------------------------------------------------------- records

    def _record_bytes(self, pos: int) -> tuple[bytes, int]:
        """The whole record starting at ``pos`` (not a page start) and its end (MAXALIGNed, EndRecPtr)."""
        page_lsn = pos - pos % XLOG_BLCKSZ
        page = memoryview(self._segment(pos // self.segment_size))[page_lsn % self.segment_size:][:XLOG_BLCKSZ]
        off = pos - page_lsn
        if len(page) < off + 4:
            raise _end(f"end of WAL at {format_lsn(pos)}: the segment file ends")
        tot_len = int.from_bytes(page[off:off + 4], "little")
        if tot_len < SIZE_OF_RECORD:
            if tot_len == 0 and not any(page[off:off + SIZE_OF_RECORD]):
                raise _end(f"end of WAL at {format_lsn(pos)}: zeros")
            raise _error("wal.record.bad_length", f"invalid record length at {format_lsn(pos)}: expected at least "
                                                  f"{SIZE_OF_RECORD}, got {tot_len}")
        if off + tot_len <= len(page):                      # the common case: on one page
            return bytes(page[off:off + tot_len]), maxalign(pos + tot_len)
        if off + tot_len <= XLOG_BLCKSZ:
            raise _error("wal.record.torn", f"the record at {format_lsn(pos)} is cut short: the segment file ends")
        chunks = [bytes(page[off:])]
        got, cur = XLOG_BLCKSZ - off, page_lsn + XLOG_BLCKSZ
        while got < tot_len:
            hdr, page = self._page_header(cur, pos)
            if not hdr.info & XLP_FIRST_IS_CONTRECORD:
                raise _error("wal.record.torn", f"the record at {format_lsn(pos)} is cut short: the page at "
                                                f"{format_lsn(cur)} "
                                                f"does not continue it")
            if hdr.rem_len != tot_len - got:
                raise _error("wal.record.torn", f"invalid contrecord length {hdr.rem_len} (expected "
                                                f"{tot_len - got}) at {format_lsn(cur)}")
            take = min(tot_len - got, XLOG_BLCKSZ - hdr.size)
            chunk = page[hdr.size:hdr.size + take]
            if len(chunk) < take:
                raise _error("wal.record.torn", f"the record at {format_lsn(pos)} is cut short: the segment file ends")
            chunks.append(bytes(chunk))
            got += take
            last_end = cur + hdr.size + take
            cur += XLOG_BLCKSZ
        return b"".join(chunks), maxalign(last_end)

    def records(self, start: int | None = None, end: int | None = None) -> Iterator[Record]:
        """Every record whose start LSN is in [start, end), in order; ``self.stop`` says why the walk ended."""
        return self._walk(start, end, None)

    def record_arrays(self, start: int | None = None, end: int | None = None) -> Iterator[dict]:
        """The same records as ``records``, in chunks of arrays (``lsn``, ``end_lsn``, ``length``, ``xid``,
        ``rmid``, ``info``, ``fpi_length``): the compiled scan of _walscan.c reads healthy stretches of a
        segment, the Python reader takes every record the scan leaves to it (and every finding)."""
        return self._walk(start, end, _CompiledScan(self))

    def record_counts(self, start: int | None = None, end: int | None = None) -> "RecordCounts":
        """The same records only counted, per resource manager and record type (what --stats shows), by the
        compiled scan without a row per record; the later half of many segments on a second thread."""
        counts = RecordCounts()
        for _ in self._walk(start, end, _CompiledScan(self, counts), later=_LaterSegments.split(self, start, end)):
            pass
        return counts

    def _step(self, pos: int, prev: int | None) -> Record:
        """The record at ``pos`` (where it starts, or the page start before it), checked and decoded."""
        if pos % XLOG_BLCKSZ == 0:
            hdr, _ = self._page_header(pos, None)
            if hdr.info & XLP_FIRST_IS_CONTRECORD:
                raise _error("wal.record.bad_header", f"a record was expected at {format_lsn(pos)}, the page "
                                                      f"continues one")
            pos += hdr.size
        raw, end_lsn = self._record_bytes(pos)
        rec = self._check(raw, pos, end_lsn, prev)
        if rec.rmid == versions.RMGR_XLOG and rec.info & 0xF0 == XLOG_SWITCH:
            rec.end_lsn = (pos // self.segment_size + 1) * self.segment_size
        return rec

    def _walk(self, start: int | None, end: int | None, scan: "_CompiledScan | None",
              resume: tuple[int, int] | None = None, later: "_LaterSegments | None" = None):
        """The walk from the first record at or after ``start`` (or on from ``resume``: the next record's position and
        the prev-link it must carry); with ``later``, the later segments' counts joined where they begin."""
        self.stop = None
        prev = None
        if resume is None:
            self._tli = 0                 # (each walk checks the pages' timelines afresh)
            startseg = self.first_segno if start is None else start // self.segment_size
            if start is not None and startseg not in self.segments:
                self.stop = Finding("wal.start.missing", f"no segment holds the start {format_lsn(start)}", ERROR)
                return
        else:
            pos, prev = resume
        try:
            if resume is None:
                pos = self.first_record(startseg)
            while end is None or pos < end:
                if later is not None and pos >= later.segment_start:
                    if later.joins(pos, prev, self._tli):
                        scan.counts.merge(later.counts)
                        self._tli, self.stop = later.reader._tli, later.reader.stop
                        return
                    later = None
                if scan is not None:
                    chunk, pos, prev, done = scan.run(pos, prev, start, end)
                    if chunk is not None:
                        keep = chunk if start is None or chunk["lsn"][0] >= start else {
                            k: v[chunk["lsn"] >= start] for k, v in chunk.items()}
                        if len(keep["lsn"]):
                            yield keep
                    if done:
                        break
                    if not scan.python_next:
                        continue
                rec = self._step(pos, prev)
                prev, pos = rec.lsn, rec.end_lsn
                if start is None or rec.lsn >= start:
                    if end is not None and rec.lsn >= end:
                        break
                    if scan is None:
                        yield rec
                    elif scan.counts is not None:
                        scan.counts.add(rec)
                    else:
                        yield record_row(rec)
            self.stop = Finding("wal.end", f"end of the range at {format_lsn(end)}", INFO) if end is not None else None
        except _Stop as s:
            self.stop = s.finding
        except PgpageError as e:
            self.stop = Finding("wal.segment.unreadable", str(e), ERROR)
        finally:
            if later is not None:
                later.thread.join()

    def _check(self, raw: bytes, pos: int, end_lsn: int, prev: int | None) -> Record:
        tot_len, xid, xl_prev, info, rmid, crc = record_header(raw)
        if rmid > MAX_BUILTIN_RMID and (rmid < MIN_CUSTOM_RMID or self.major < 15):
            raise _error("wal.record.bad_rmgr", f"invalid resource manager ID {rmid} at {format_lsn(pos)}")
        if prev is not None and xl_prev != prev:
            raise _error("wal.record.bad_prev", f"record with incorrect prev-link {format_lsn(xl_prev)} at "
                                                f"{format_lsn(pos)} (the record before starts at {format_lsn(prev)})")
        computed = crc32c_update(crc32c_update(0xFFFFFFFF, raw[SIZE_OF_RECORD:]), raw[:CRC_OFFSET]) ^ 0xFFFFFFFF
        if computed != crc:
            raise _error("wal.record.bad_crc", f"incorrect resource manager data checksum in record at "
                                               f"{format_lsn(pos)} (stored 0x{crc:08X}, computed 0x{computed:08X})")
        try:
            return decode_record(raw, pos, end_lsn, self.major)
        except RecordError as e:
            raise _error("wal.record.bad_blocks", str(e)) from None


class _LaterSegments:
    """The compiled count of the later half of a walk's segments, on a thread of its own (the scan releases the GIL)
    while the walk counts the earlier half. Its counts join the walk's only where the walk reaches its first record
    carrying the prev-link that record names, on the timeline of that record's pages: from there the walk would have
    read the same bytes with the same checks, so the joined counts and stop are the walk's own. Anywhere else
    (damage before or at the seam, a timeline switch there) the walk goes on alone and gives its own findings."""
    MIN_SEGMENTS = 4                  # fewer: a thread's start costs more than it saves

    def __init__(self, reader: "WalReader", segno: int, start: int | None, end: int | None):
        import copy
        import threading
        self.reader = copy.copy(reader)           # its own mapped segments and timeline; the rest is only read
        self.reader._mapped = {}
        self.segment_start = segno * reader.segment_size
        self.counts = RecordCounts()
        self.first: Record | None = None
        self.first_tli = 0
        scan = _CompiledScan(self.reader, self.counts)
        self.thread = threading.Thread(target=self._count, args=(segno, start, end, scan), daemon=True)
        self.thread.start()

    @classmethod
    def split(cls, reader: "WalReader", start: int | None, end: int | None) -> "_LaterSegments | None":
        import os
        seg = reader.segment_size
        first = reader.first_segno if start is None else start // seg
        last = max(reader.segments) if end is None else (end - 1) // seg
        if (os.cpu_count() or 1) < 2 or last - first + 1 < cls.MIN_SEGMENTS:
            return None
        return cls(reader, first + (last - first + 1) // 2, start, end)

    def _count(self, segno: int, start: int | None, end: int | None, scan: "_CompiledScan") -> None:
        r = self.reader
        try:
            r._tli = 0
            pos = r.first_record(segno)
            tli = r._tli
            first = r._step(pos, None)       # its prev-link is checked where the walk joins
        except (_Stop, PgpageError):
            return
        if r._tli != tli:                    # a timeline switch in its pages: the walk reads on alone
            return
        self.first, self.first_tli = first, tli
        if end is None or first.lsn < end:
            self.counts.add(first)
        for _ in r._walk(start, end, scan, resume=(first.end_lsn, first.lsn)):
            pass

    def joins(self, pos: int, prev: int | None, tli: int) -> bool:
        """Whether the walk at ``pos`` after the record at ``prev``, on timeline ``tli``, would read this count's first
        record next (at its position, or at the start of the page it begins on: the walk would check that page's
        header as this count did)."""
        self.thread.join()
        first = self.first
        if first is None or prev != first.prev_lsn or tli != self.first_tli:
            return False
        header = SIZE_OF_LONG_PHD if pos % self.reader.segment_size == 0 else SIZE_OF_SHORT_PHD
        return pos == first.lsn or (pos % XLOG_BLCKSZ == 0 and first.lsn == pos + header)


class _CompiledScan:
    """pgp_wal_scan's parameters, buffers and one call over the segment ``pos`` lies in."""
    CAP = 1 << 16
    SCRATCH = 1024               # a record's headers, gathered when it crosses pages: at most 24 + 33 blocks * 27
                                 # (block, image, compression headers, relfilenode, block number) + 13 bytes
    WS_POS, WS_PREV, WS_TLI, WS_STOP, WS_FIRST, WS_LAST_END, WS_TLI_END = range(7)  # _walscan.c's state[], stops
    WS_SEGMENT_DONE, WS_PYTHON, WS_END, WS_FULL = range(4)

    def __init__(self, reader: "WalReader", counts: "RecordCounts | None" = None):
        import ctypes

        from pgpage.decode import clib
        from pgpage.decode.ksy.layouts import LAYOUTS
        from pgpage.decode.wal import record as r
        self.clib, self.reader = clib, reader
        f = lambda t, name: LAYOUTS[f"xlog::{t}"]["fields"][name][0]  # noqa: E731
        since15 = reader.major >= versions.BKPIMAGE_COMPRESS_METHODS_SINCE
        bimg = r.BKPIMAGE_15 if since15 else r.BKPIMAGE_10
        values = {
            "SEG_SIZE": reader.segment_size, "PAGE_SIZE": XLOG_BLCKSZ, "SHORT_PHD": SIZE_OF_SHORT_PHD,
            "LONG_PHD": SIZE_OF_LONG_PHD, "MAGIC": reader.magic, "XLP_CONTRECORD": XLP_FIRST_IS_CONTRECORD,
            "XLP_ALL": XLP_ALL_FLAGS, "PHD_INFO": f("page_header", "xlp_info"), "PHD_TLI": f("page_header", "xlp_tli"),
            "PHD_PAGEADDR": f("page_header", "xlp_pageaddr"), "PHD_REM_LEN": f("page_header", "xlp_rem_len"),
            "REC_SIZE": SIZE_OF_RECORD, "REC_XID": f("record", "xl_xid"), "REC_PREV": f("record", "xl_prev"),
            "REC_INFO": f("record", "xl_info"), "REC_RMID": f("record", "xl_rmid"), "REC_CRC": CRC_OFFSET,
            "BLK_HDR_SIZE": r.BLOCK_HEADER.size, "BLK_FORK_FLAGS": f("block_header", "fork_flags"),
            "BLK_DATA_LENGTH": f("block_header", "data_length"), "IMG_HDR_SIZE": r.IMAGE_HEADER.size,
            "IMG_LENGTH": f("block_image_header", "length"), "IMG_HOLE_OFFSET": f("block_image_header", "hole_offset"),
            "IMG_BIMG_INFO": f("block_image_header", "bimg_info"), "CMP_HDR_SIZE": r.COMPRESS_HEADER.size,
            "RFN_SIZE": r.REL_FILE_NODE.size, "HAS_IMAGE": r.BKPBLOCK_HAS_IMAGE, "HAS_DATA": r.BKPBLOCK_HAS_DATA,
            "SAME_REL": r.BKPBLOCK_SAME_REL, "HAS_HOLE": bimg["BKPIMAGE_HAS_HOLE"],
            "COMPRESSED": sum(bit for name, bit in bimg.items() if "COMPRESS" in name),
            "ID_SHORT": r.XLR_BLOCK_ID_DATA_SHORT, "ID_LONG": r.XLR_BLOCK_ID_DATA_LONG,
            "ID_ORIGIN": r.XLR_BLOCK_ID_ORIGIN,
            "ID_TOPLEVEL": r.XLR_BLOCK_ID_TOPLEVEL_XID if reader.major >= versions.TOPLEVEL_XID_BLOCK_SINCE else -1,
            "MAX_BLOCK_ID": r.XLR_MAX_BLOCK_ID, "MAX_RMID": MAX_BUILTIN_RMID, "SWITCH_RMID": versions.RMGR_XLOG,
            "SWITCH_INFO": XLOG_SWITCH, "BLCKSZ": r.XLOG_BLCKSZ, "XACT_RMID": versions.RMGR_XACT,
            "XACT_RECID_MASK": versions.XACT_OPMASK >> 4, "XLP_LONG": XLP_LONG_HEADER,
            "PHD_SYSID": f("long_page_header", "xlp_sysid"), "PHD_SEG_SIZE": f("long_page_header", "xlp_seg_size"),
            "PHD_XLOG_BLCKSZ": f("long_page_header", "xlp_xlog_blcksz"),
            "SYSID": reader.sysid - (1 << 64) if reader.sysid >= 1 << 63 else reader.sysid}   # (as int64)
        names = clib.wal_param_names()
        self.params = (ctypes.c_int64 * len(names))(*(values[n] for n in names))
        self.state = (ctypes.c_int64 * 7)()
        self.counts = counts
        self.scratch = ctypes.create_string_buffer(self.SCRATCH)
        self.out = None if counts is not None else clib.WalScanOutputs(self.CAP)   # counting needs no rows
        self.python_next = False

    def run(self, pos: int, prev: int | None, start: int | None, end: int | None):
        """(chunk or None, pos, prev, done): the records the compiled scan read from ``pos``; ``python_next`` says
        the Python reader must take the record at the new ``pos``."""
        reader, seg = self.reader, self.reader.segment_size
        segno, off = divmod(pos, seg)
        data = reader._segment(segno)
        self.python_next = True
        if data is None or off == 0:
            return None, pos, prev, False
        c = self.counts
        tli_end = next((e.end for e in reader.history if e.tli == reader._tli), None)
        self.state[:] = (off, -1 if prev is None else prev, reader._tli, 0,
                         -1 if c is None or c.first_lsn is None else c.first_lsn, 0, -1 if tli_end is None else tli_end)
        o = self.out
        following = reader._segment(segno + 1) if end is None or end > (segno + 1) * seg else None
        n = self.clib.wal_scan(self.params, data, following, segno * seg, -1 if end is None else end, self.state,
                               self.scratch, o, start or 0, None if c is None else c.acc)
        stop = self.state[self.WS_STOP]
        self.python_next = stop == self.WS_PYTHON
        chunk = None
        if n and c is not None:
            prev = int(self.state[self.WS_PREV])
            if self.state[self.WS_FIRST] >= 0:
                c.first_lsn, c.end_lsn = int(self.state[self.WS_FIRST]), int(self.state[self.WS_LAST_END])
        elif n:
            chunk = {"lsn": o.lsn[:n].copy(), "end_lsn": o.end[:n].copy(), "length": o.length[:n].copy(),
                     "xid": o.xid[:n].copy(), "rmid": o.rmid[:n].copy(), "info": o.info[:n].copy(),
                     "fpi_length": o.fpi[:n].copy()}        # the buffers are the next call's
            prev = int(self.state[self.WS_PREV])
        return chunk, segno * seg + int(self.state[self.WS_POS]), prev, stop == self.WS_END


def record_row(rec: Record) -> dict:
    """One record as a one-row chunk of ``WalReader.record_arrays``."""
    import numpy as np
    return {"lsn": np.array([rec.lsn], np.int64), "end_lsn": np.array([rec.end_lsn], np.int64),
            "length": np.array([rec.length], np.uint32), "xid": np.array([rec.xid], np.uint32),
            "rmid": np.array([rec.rmid], np.uint8), "info": np.array([rec.info], np.uint8),
            "fpi_length": np.array([rec.fpi_length], np.uint32)}


class RecordCounts:
    """Records counted per resource manager and record type as pg_waldump --stats and pg_get_wal_stats count
    them: ``acc[(rmid * 16 + recid) * 3 + 0..2]`` = count, bytes without images (``XLogRecGetLen``'s rec_len),
    image bytes; recid = ``xl_info >> 4`` (``& 0x07`` for transactions). The compiled scan adds to ``acc`` (a
    ctypes array: counting needs no numpy) directly (_walscan.c); ``add``/``add_chunk`` are the same rule in
    Python, for one record and for a chunk of ``record_arrays``."""
    SLOTS = 256 * 16

    def __init__(self):
        import ctypes
        self.acc = (ctypes.c_int64 * (self.SLOTS * 3))()
        self.first_lsn: int | None = None
        self.end_lsn: int | None = None

    def add(self, rec: Record) -> None:
        recid = rec.info >> 4
        if rec.rmid == versions.RMGR_XACT:
            recid &= versions.XACT_OPMASK >> 4
        fpi, at = rec.fpi_length, (rec.rmid * 16 + recid) * 3
        self.acc[at] += 1
        self.acc[at + 1] += rec.length - fpi
        self.acc[at + 2] += fpi
        if self.first_lsn is None:
            self.first_lsn = rec.lsn
        self.end_lsn = rec.end_lsn

    def merge(self, later: "RecordCounts") -> None:
        """Add the counts of the records after this one's."""
        acc, more = self.acc, later.acc
        for at in range(0, len(more), 3):
            if more[at]:                              # (most record types have none)
                for i in range(at, at + 3):
                    acc[i] += more[i]
        if self.first_lsn is None:
            self.first_lsn = later.first_lsn
        if later.end_lsn is not None:
            self.end_lsn = later.end_lsn

    def add_chunk(self, c: dict) -> None:
        import numpy as np
        if not len(c["lsn"]):
            return
        rmid = c["rmid"].astype(np.intp)
        recid = c["info"] >> 4
        recid[rmid == versions.RMGR_XACT] &= versions.XACT_OPMASK >> 4
        key = rmid * 16 + recid
        fpi = np.bincount(key, weights=c["fpi_length"], minlength=self.SLOTS)
        acc = np.frombuffer(self.acc, np.int64).reshape(-1, 3)
        acc[:, 0] += np.bincount(key, minlength=self.SLOTS)
        acc[:, 1] += (np.bincount(key, weights=c["length"], minlength=self.SLOTS) - fpi).astype(np.int64)
        acc[:, 2] += fpi.astype(np.int64)
        if self.first_lsn is None:
            self.first_lsn = int(c["lsn"][0])
        self.end_lsn = int(c["end_lsn"][-1])

    @property
    def records(self) -> int:
        return sum(self.acc[0::3])

    @property
    def bytes(self) -> int:
        return sum(self.acc[1::3]) + sum(self.acc[2::3])

    @property
    def fpi_bytes(self) -> int:
        return sum(self.acc[2::3])


def wal_stats(counts: RecordCounts, major: int) -> dict:
    """The statistics document of ``counts``: per resource manager and per record type, count, record_size,
    fpi_size, combined_size and their percentages, as pg_get_wal_stats gives them, and the totals."""
    acc = counts.acc
    per_type = {divmod(k, 16): acc[k * 3:k * 3 + 3] for k in range(counts.SLOTS) if acc[k * 3]}
    per_rmgr: dict[int, list[int]] = {}
    for (rmid, _), row in per_type.items():
        total_row = per_rmgr.setdefault(rmid, [0, 0, 0])
        for i in range(3):
            total_row[i] += row[i]
    total = [sum(r[i] for r in per_rmgr.values()) for i in range(3)]

    def rows(table, name) -> list[dict]:
        out = []
        for key in sorted(table):
            count, rec_len, fpi_len = table[key]
            out.append({"name": name(key), "count": count, "record_size": rec_len, "fpi_size": fpi_len,
                        "combined_size": rec_len + fpi_len,
                        "count_percentage": 100.0 * count / total[0] if total[0] else 0.0,
                        "record_size_percentage": 100.0 * rec_len / total[1] if total[1] else 0.0,
                        "fpi_size_percentage": 100.0 * fpi_len / total[2] if total[2] else 0.0,
                        "combined_size_percentage": 100.0 * (rec_len + fpi_len) / (total[1] + total[2])
                        if total[1] + total[2] else 0.0})
        return out

    return {"rmgrs": rows(per_rmgr, versions.rmgr_name),
            "record_types": rows(per_type, lambda k: f"{versions.rmgr_name(k[0])}/"
                                                     f"{versions.wal_stats_type(major, k[0], k[1] << 4)}"),
            "total": {"count": total[0], "record_size": total[1], "fpi_size": total[2],
                      "combined_size": total[1] + total[2]}}


def relation_node(relation) -> tuple[int, int, int]:
    """The (tablespace, database, relfilenode) WAL block references name ``relation`` (a catalog Relation) by."""
    from pgpage.storage.datadir import GLOBALTABLESPACE_OID
    shared = relation.row.get("relisshared")
    spc = GLOBALTABLESPACE_OID if shared else (relation.row.get("reltablespace") or relation.database.tablespace)
    return spc, 0 if shared else relation.database.oid, relation.relfilenode


def newest_page_image(reader: WalReader, relation, fork: str, block: int, lsn: int):
    """(record, block reference) of the newest full-page image of ``block`` of ``relation``'s ``fork`` among the
    records starting at or before ``lsn``, or None."""
    node = relation_node(relation)
    found = None
    for rec in reader.records(None, lsn + 1):
        for ref in rec.blocks:
            if ref.has_image and ref.block == block and ref.fork == fork and (ref.spc, ref.db, ref.rel) == node:
                found = (rec, ref)
    return found


# --------------------------------------------------------------------- the `pgpage wal` command's walk

SCHEMA = "pgpage.wal/1"


def relation_names(cluster) -> dict[tuple[int, int, int], tuple[str | None, object]]:
    """(spc, db, relfilenode) -> (database, its catalog Relation) of every relation the catalogs name now (mapped
    catalogs through pg_filenode.map). WAL of a relation since dropped or rewritten (VACUUM FULL, TRUNCATE)
    names a relfilenode no catalog row holds any more: it stays unnamed."""
    names = {}
    for db in cluster.databases():
        if not db.path.is_dir():
            continue
        for rel in db.relations():
            if rel.has_storage:
                names[relation_node(rel)] = (None if rel.row.get("relisshared") else db.name, rel)
    return names


def control_only(path) -> dict | None:
    """``path`` (a data directory's global/pg_control) decoded, or None where it is missing or does not decode (as
    DataDirectory.control gives it, its findings left to the commands that report the cluster)."""
    from pgpage.decode.control import decode_control
    try:
        return decode_control(path.read_bytes()) if path.is_file() else None
    except (OSError, PgpageError):
        return None


class WalWalk:
    """``pgpage wal``: the records of a directory of segments, filtered, as JSON-ready dicts."""

    def __init__(self, pgdata: str, wal: str | None = None, start: str | None = None, end: str | None = None,
                 rmgrs: list[str] | None = None, xid: int | None = None, db: str | None = None,
                 rel: str | None = None, names: bool = True, timeline: int | None = None):
        from pathlib import Path

        from pgpage.decode.control import parse_lsn
        from pgpage.storage.wal import wal_directory

        def lsn(text):
            try:
                return None if text is None else parse_lsn(text)
            except ValueError:
                raise PgpageError(f"not an LSN: {text!r} (expected X/X, as 0/16B3748)", ExitCode.USAGE) from None

        self.start, self.end = lsn(start), lsn(end)
        control_file = Path(pgdata) / "global" / "pg_control"
        self.cluster = None
        if control_file.is_file() and (names or rel is not None):   # the catalogs name relations; the statistics
            from pgpage.storage.datadir import DataDirectory         # need pg_control only (and not these modules)
            self.cluster = DataDirectory(Path(pgdata))
        control = self.cluster.control if self.cluster else control_only(control_file)
        self.reader = WalReader(WalDirectory(wal_directory(pgdata, wal)), control, timeline)
        self.names = {}
        if self.cluster is not None and names:
            try:
                self.names = relation_names(self.cluster)
            except PgpageError:
                self.names = {}
        self.rmids = None
        if rmgrs:
            known = {name.lower(): i for i, name in enumerate(versions.RMGR_NAMES)}
            bad = [r for r in rmgrs if r.lower() not in known]
            if bad:
                raise PgpageError(f"unknown resource manager {', '.join(bad)} (known: "
                                  f"{', '.join(versions.RMGR_NAMES)})", ExitCode.USAGE)
            self.rmids = {known[r.lower()] for r in rmgrs}
        self.xid = xid
        self.relfilenodes = None
        if rel is not None:
            if self.cluster is None:
                raise PgpageError("--rel needs a data directory (its catalogs name the relation)", ExitCode.USAGE)
            self.relfilenodes = {relation_node(self.cluster.database(db).relation(rel))}
        self.counts = {"records": 0, "bytes": 0, "fpi_bytes": 0}
        self.first_lsn = self.last_end_lsn = None

    @property
    def major(self) -> int:
        return self.reader.major

    def records(self) -> Iterator[Record]:
        """The records the filters keep."""
        for rec in self.reader.records(self.start, self.end):
            if self.rmids is not None and rec.rmid not in self.rmids:
                continue
            if self.xid is not None and rec.xid != self.xid:
                continue
            if self.relfilenodes is not None and not any((b.spc, b.db, b.rel) in self.relfilenodes
                                                         for b in rec.blocks):
                continue
            self.counts["records"] += 1
            self.counts["bytes"] += rec.length
            self.counts["fpi_bytes"] += rec.fpi_length
            if self.first_lsn is None:
                self.first_lsn = rec.lsn
            self.last_end_lsn = rec.end_lsn
            yield rec

    def stats(self) -> dict:
        """``wal_stats`` of the records the filters keep: counted by the compiled scan when no filter needs the
        records (rows of arrays for --rmgr/--xid, the records themselves for --rel)."""
        if self.relfilenodes is None and self.rmids is None and self.xid is None:
            counts = self.reader.record_counts(self.start, self.end)
        else:
            counts = RecordCounts()
            for c in (map(record_row, self.records()) if self.relfilenodes is not None else self._chunks()):
                counts.add_chunk(c)
        self.counts = {"records": counts.records, "bytes": counts.bytes, "fpi_bytes": counts.fpi_bytes}
        self.first_lsn, self.last_end_lsn = counts.first_lsn, counts.end_lsn
        return wal_stats(counts, self.major)

    def _chunks(self) -> Iterator[dict]:
        import numpy as np
        for c in self.reader.record_arrays(self.start, self.end):
            keep = np.ones(len(c["lsn"]), bool)
            if self.rmids is not None:
                keep &= np.isin(c["rmid"], list(self.rmids))
            if self.xid is not None:
                keep &= c["xid"] == self.xid
            yield {k: v[keep] for k, v in c.items()}

    def record_json(self, rec: Record) -> dict:
        from pgpage.decode.wal.describe import describe
        major = self.major
        blocks = []
        for b in rec.blocks:
            db_name, rel = self.names.get((b.spc, b.db, b.rel), (None, None))
            fpi = None
            if b.has_image:
                fpi = {"length": b.image_length, "hole_offset": b.hole_offset, "hole_length": b.hole_length,
                       "compression": b.compression, "apply": b.apply_image, "bimg_info": b.bimg_info,
                       "flags": b.image_flags(major)}
            blocks.append({"block_id": b.block_id, "relfilenode": b.relfilenode, "database": db_name,
                           "relation": rel and rel.qualified_name, "fork": b.fork, "block": b.block,
                           "data_length": b.data_length, "will_init": bool(b.fork_flags & BKPBLOCK_WILL_INIT),
                           "fpi": fpi})
        return {"type": "record", "lsn": format_lsn(rec.lsn), "end_lsn": format_lsn(rec.end_lsn),
                "prev_lsn": format_lsn(rec.prev_lsn), "xid": rec.xid, "rmgr": versions.rmgr_name(rec.rmid),
                "record_type": versions.wal_record_type(major, rec.rmid, rec.info), "info": rec.info,
                "length": rec.length, "main_data_length": rec.main_data_length, "fpi_length": rec.fpi_length,
                "description": describe(rec, major), "blocks": blocks}

    def findings(self) -> list[Finding]:
        out = list(self.reader.findings)
        if self.reader.stop is not None:
            out.append(self.reader.stop)
        return out

    def summary(self, stats: dict | None = None) -> dict:
        r = self.reader
        doc = {"type": "summary", "schema": SCHEMA, "directory": str(r.directory.directory), "major": r.major,
               "system_identifier": str(r.sysid), "wal_segment_size": r.segment_size, "timeline": r.timeline,
               "history": [{"timeline": e.tli, "begin": None if e.begin is None else format_lsn(e.begin),
                            "end": None if e.end is None else format_lsn(e.end)} for e in r.history],
               "segments": len(r.segments), **self.counts,
               "first_lsn": None if self.first_lsn is None else format_lsn(self.first_lsn),
               "end_lsn": None if self.last_end_lsn is None else format_lsn(self.last_end_lsn),
               "stop": r.stop.to_json() if r.stop else None,
               "findings": [f.to_json() for f in self.findings()]}
        if stats is not None:
            doc["stats"] = stats
        return doc
