"""Transaction status (``pg_xact/``) and multixact members (``pg_multixact/``) from segment bytes.

Layouts: ``formats/pg_xact.ksy`` and ``formats/pg_multixact.ksy``. The per-page constants
(CLOG_XACTS_PER_PAGE, MULTIXACT_MEMBERS_PER_PAGE, ...) are read from the generated parsers' value
instances and the bit and byte positions from ``layouts.LAYOUTS``, so nothing here keeps a second
copy of the layout; multixact lookups then read a few words straight from the segment bytes
instead of building a Kaitai object per member. Transaction status is looked up many xids at once
in ``ClogArray`` (pg_xact as one flat array the compiled scanner reads), and ``xmin_states`` and
``xmax_states`` give a tuple's verdicts from its hint bits first, then pg_xact (and pg_multixact).
``xact_page_statuses`` and ``multixact_page`` decode a whole page through the generated parser, for
display and for the tests that prove the fast paths agree.

The caller reads the files and passes ``{segment file name: bytes}``; names are hex segment numbers
(``"0000"``, ``"1A3"``, ``"14078"``, or 15-digit long names; a leading directory is ignored).
PostgreSQL 10 to 18 name pg_xact and pg_multixact segments ``%04X`` (four digits, more once the
number passes FFFF: only pg_multixact/members gets there, up to ``14078``). 17 introduced 15-digit
"long" SLRU names (SlruCtl.long_segment_names); 17.10 and 18.4 use them for pg_notify and keep
``%04X`` for pg_xact, pg_subtrans, pg_commit_ts and both pg_multixact directories (seen on disk;
18.4 also wrote members/14078 and offsets/FFFF after pg_resetwal -O/-m near the wraparound).

A multixact given with its epoch is looked up by its low 32 bits, which is all pg_multixact is
indexed by.
"""
from __future__ import annotations

import os
import struct
from typing import Mapping

import numpy as np
from kaitaistruct import KaitaiStream, BytesIO

from pgpage.decode.ksy import layouts
from pgpage.decode.ksy.pg_multixact import PgMultixact
from pgpage.decode.ksy.pg_xact import PgXact

# ---------------------------------------------------------------------------- constants from the .ksy


def _instances(cls, *names) -> tuple[int, ...]:
    """Value instances of a generated parser that depend on no bytes (constants)."""
    obj = cls.__new__(cls)
    return tuple(getattr(obj, n) for n in names)


XACT_PAGE_SIZE, CLOG_BITS_PER_XACT, CLOG_XACTS_PER_BYTE, SLRU_PAGES_PER_SEGMENT = _instances(
    PgXact, "page_size", "bits_per_xact", "xacts_per_byte", "pages_per_segment")
(MULTIXACT_OFFSETS_PER_PAGE, MULTIXACT_MEMBERS_PER_MEMBERGROUP, MULTIXACT_MEMBERGROUP_SIZE,
 MULTIXACT_MEMBERGROUPS_PER_PAGE) = _instances(
    PgMultixact, "offsets_per_page", "members_per_group", "group_size", "groups_per_page")

_GROUP = layouts.LAYOUTS["pg_multixact::member_group"]["fields"]
_FLAGS_AT = _GROUP["flags"][0]
_XIDS_AT = _GROUP["xids"][0]

MULTIXACT_STATUS: dict[int, str] = dict(layouts.ENUMS["pg_multixact::multi_xact_status"])
"""MultiXactStatus values under PostgreSQL's names (MultiXactStatusForKeyShare ...)."""

MULTIXACT_MODE: dict[int, str] = {0: "keysh", 1: "sh", 2: "fornokeyupd", 3: "forupd", 4: "nokeyupd", 5: "upd"}
"""The ``mode`` column pg_get_multixact_members() shows for each status (mxstatus_to_string())."""

FIRST_MULTIXACT_ID = 1
UINT32 = 0xFFFFFFFF
MAX_MEMBERS = 1 << 20
"""More members than this in one multixact means garbage offsets (a multixact holds one member
per transaction locking one tuple at one time); range() gives None rather than walk them."""


# ---------------------------------------------------------------------------- segment files


def xid_precedes(a: int, b: int) -> bool:
    """TransactionIdPrecedes for normal 32-bit xids: modulo 2^32, within half the circle."""
    return ((a - b) & 0xFFFFFFFF) >= 0x80000000


def segment_name(segno: int) -> str:
    """File name PostgreSQL 10-18 give SLRU segment ``segno`` of pg_xact and pg_multixact."""
    return f"{segno:04X}"


def parse_segment_name(name: str) -> int | None:
    """Segment number of a file name (``"0000"``, ``"14078"``, ``"00000000000001F"``), or None for a
    name that is not 4 to 6 or 15 hex digits."""
    base = os.path.basename(str(name))
    if len(base) not in (4, 5, 6, 15):
        return None
    try:
        return int(base, 16)
    except ValueError:
        return None


def slru_reach(sizes: Mapping[int, int], ids_per_page: int, page_size: int, start: int) -> int:
    """How many ids from ``start`` on (32-bit, wrapping) the SLRU's files hold pages for: from start's page,
    the pages present one after another (``sizes``: {segment number: bytes}), to the end of the last. A server
    makes a page (ExtendCLOG, ExtendMultiXactOffset) when it hands out the first id on it, so ids up to there
    may have been handed out; 0 when start's page is not on disk."""
    pages_per_wrap = (1 << 32) // ids_per_page
    page = (start & UINT32) // ids_per_page
    n = 0
    while n < pages_per_wrap:
        p = (page + n) % pages_per_wrap
        if sizes.get(p // SLRU_PAGES_PER_SEGMENT, 0) < (p % SLRU_PAGES_PER_SEGMENT + 1) * page_size:
            break
        n += 1
    return max(0, (page + n) * ids_per_page - (start & UINT32)) if n else 0


class _Slru:
    """SLRU pages addressed by page number, from {segment name: bytes}."""

    def __init__(self, segments: Mapping[str, bytes], page_size: int):
        self.page_size = page_size
        self.segments: dict[int, bytes] = {}
        for name, data in segments.items():
            segno = parse_segment_name(name)
            if segno is not None:
                self.segments[segno] = bytes(data)

    def page(self, pageno: int) -> tuple[bytes, int] | None:
        """(segment bytes, offset of the page in them), or None when the page is not there
        (segment missing, or the segment file ends before the page does)."""
        seg = self.segments.get(pageno // SLRU_PAGES_PER_SEGMENT)
        if seg is None:
            return None
        off = (pageno % SLRU_PAGES_PER_SEGMENT) * self.page_size
        if off + self.page_size > len(seg):
            return None
        return seg, off


# ---------------------------------------------------------------------------- pg_xact


def xact_page_statuses(page: bytes) -> list[int]:
    """Every status on one 8192-byte pg_xact page, through the generated parser (slow; for one
    page a person looks at). Index i is the xid page_number * 32768 + i."""
    parsed = PgXact(KaitaiStream(BytesIO(bytes(page))))
    out = []
    for g in parsed.groups:
        out += [int(g.status0), int(g.status1), int(g.status2), int(g.status3)]
    return out


# ---------------------------------------------------------------------------- xid verdicts, many at once

# xid states as small integers, for arrays
ST_UNKNOWN, ST_IN_PROGRESS, ST_COMMITTED, ST_ABORTED, ST_FROZEN, ST_INVALID, ST_LOCK_ONLY = range(7)


class ClogArray:
    """pg_xact as one flat byte array, for looking up many xids at once (in the compiled scanner).

    ``segments`` maps segment number to its bytes. ``in_progress_is_aborted``: in a cluster
    that was shut down cleanly no transaction can still be running, so an xid pg_xact still
    shows in progress never committed (its backend died, or it was never assigned).

    ``flat`` holds the segments one after the other; ``seg_start[segno]`` is where a segment
    starts in it (-1: absent) and ``seg_len[segno]`` its length, so a kernel finds an xid's two
    bits without a dictionary (at most 4096 segments cover the 2^32 xids).
    """

    XACTS_PER_BYTE = 4

    def __init__(self, segments: dict[int, bytes], block_size: int = 8192, pages_per_segment: int = 32,
                 in_progress_is_aborted: bool = False):
        self.xacts_per_segment = block_size * pages_per_segment * self.XACTS_PER_BYTE
        self.in_progress_is_aborted = in_progress_is_aborted
        present = sorted(s for s in segments if s is not None and s >= 0)
        size = (present[-1] + 1) if present else 0
        self.seg_start = np.full(size, -1, dtype=np.int64)
        self.seg_len = np.zeros(size, dtype=np.int64)
        at = 0
        for s in present:
            self.seg_start[s] = at
            self.seg_len[s] = len(segments[s])
            at += len(segments[s])
        self.flat = np.frombuffer(b"".join(segments[s] for s in present), dtype=np.uint8) if present else \
            np.zeros(0, dtype=np.uint8)

    @property
    def c_args(self) -> tuple:
        """What the compiled lookups take (see ``_kernel.h``: Clog)."""
        return (self.flat.ctypes.data, self.seg_start.ctypes.data, self.seg_len.ctypes.data, len(self.seg_start),
                self.xacts_per_segment, int(self.in_progress_is_aborted))

    def states(self, xids: np.ndarray) -> np.ndarray:
        """ST_* per xid: committed, aborted, in progress, frozen (1, 2), invalid (0), unknown."""
        from pgpage.decode.kernels import clog_states
        return clog_states(xids, self)


def xmin_states(infomask: np.ndarray, xmin: np.ndarray, clog: ClogArray) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) per tuple: hint bits first (HeapTupleHeaderXminCommitted/Invalid/Frozen), then pg_xact."""
    from pgpage.decode import kernels
    return kernels.xmin_states(infomask, xmin, clog)


def xmax_is_locked_only(infomask: np.ndarray) -> np.ndarray:
    """HEAP_XMAX_IS_LOCKED_ONLY per tuple."""
    from pgpage.decode import kernels
    return kernels.xmax_locked_only(infomask)


def xmax_states(infomask: np.ndarray, xmax: np.ndarray, clog: ClogArray,
                multi_update_xid=None) -> tuple[np.ndarray, np.ndarray]:
    """(state, hinted) of the deleter: INVALID, LOCK_ONLY, COMMITTED, ABORTED, IN_PROGRESS or UNKNOWN.

    ``multi_update_xid(multis) -> xids`` resolves an updating multixact to its update xid
    (0 when it has none); without it such a multixact is UNKNOWN unless hinted.
    """
    from pgpage.decode import kernels
    xmax = np.ascontiguousarray(xmax, dtype=np.int64)
    update_xid = np.full(len(xmax), -1, dtype=np.int64)
    if multi_update_xid is not None:
        multi = kernels.xmax_needs_multi(infomask, xmax)
        if multi.any():
            update_xid[multi] = multi_update_xid(xmax[multi])  # -1 where the members cannot be read
    return kernels.xmax_states(infomask, xmax, update_xid, multi_update_xid is not None, clog)


# ---------------------------------------------------------------------------- pg_multixact


class MultiXactMembers:
    """Members of MultiXactIds from pg_multixact/offsets and pg_multixact/members segments.

    The members of multi m are the member slots [offset(m), offset(m + 1)) (uint32, wrapping);
    offset(m + 1) is read from the offsets page, or, for the newest multi (m + 1 == next_multi),
    taken from ``next_offset``: pass pg_control's checkPointCopy.nextMulti and nextMultiOffset,
    which are exact for a cluster shut down cleanly. A slot whose xid is 0 is the slot 0 that
    the multixact spanning the offset wraparound owns without using; it is skipped, as
    GetMultiXactIdMembers() does."""

    def __init__(self, offsets: Mapping[str, bytes], members: Mapping[str, bytes],
                 next_multi: int | None = None, next_offset: int | None = None,
                 block_size: int = XACT_PAGE_SIZE):
        self.block_size = block_size
        self.offsets_per_page = block_size // 4
        self.groups_per_page = block_size // MULTIXACT_MEMBERGROUP_SIZE
        self.members_per_page = self.groups_per_page * MULTIXACT_MEMBERS_PER_MEMBERGROUP
        self.next_multi = next_multi
        self.next_offset = next_offset
        self._offsets = _Slru(offsets, block_size)
        self._members = _Slru(members, block_size)

    def offset(self, multi: int) -> int | None:
        """Stored MultiXactOffset of a multi; None when its page is missing or the entry is 0
        (not written)."""
        multi &= UINT32
        found = self._offsets.page(multi // self.offsets_per_page)
        if found is None:
            return None
        seg, off = found
        value = struct.unpack_from("<I", seg, off + (multi % self.offsets_per_page) * 4)[0]
        return value or None

    def member_slot(self, offset: int) -> tuple[int, int] | None:
        """(xid, status) stored in member slot ``offset``, or None when its page is missing."""
        offset &= UINT32
        found = self._members.page(offset // self.members_per_page)
        if found is None:
            return None
        seg, off = found
        group = (offset // MULTIXACT_MEMBERS_PER_MEMBERGROUP) % self.groups_per_page
        base = off + group * MULTIXACT_MEMBERGROUP_SIZE
        i = offset % MULTIXACT_MEMBERS_PER_MEMBERGROUP
        status = seg[base + _FLAGS_AT + i]
        xid = struct.unpack_from("<I", seg, base + _XIDS_AT + 4 * i)[0]
        return xid, status

    def range(self, multi: int) -> tuple[int, int] | None:
        """(first member slot, number of slots) of a multi, or None when it cannot be told."""
        multi &= UINT32
        if multi == 0:
            return None
        start = self.offset(multi)
        if start is None:
            return None
        nxt = multi + 1 if multi < UINT32 else FIRST_MULTIXACT_ID
        if self.next_multi is not None and nxt == self.next_multi & UINT32:
            end = self.next_offset
        else:
            end = self.offset(nxt)
        if end is None:
            return None
        length = (end - start) & UINT32
        if length > MAX_MEMBERS:
            return None
        return start, length

    def members(self, multi: int) -> list[dict] | None:
        """[{"xid", "mode", "status"}, ...] as pg_get_multixact_members() lists them (mode
        "keysh", "sh", "fornokeyupd", "forupd", "nokeyupd", "upd"; status the raw
        MultiXactStatus), or None when the offsets or a members page is missing."""
        rng = self.range(multi)
        if rng is None:
            return None
        start, length = rng
        out = []
        for k in range(length):
            slot = self.member_slot((start + k) & UINT32)
            if slot is None:
                return None
            xid, status = slot
            if xid == 0:
                continue
            out.append({"xid": xid, "mode": MULTIXACT_MODE.get(status), "status": status})
        return out


def multixact_page(page: bytes, is_members: bool) -> list:
    """One whole pg_multixact page through the generated parser: the 2048 offsets of an offsets
    page, or the 1636 (xid, status) slots of a members page in slot order."""
    parsed = PgMultixact(is_members, KaitaiStream(BytesIO(bytes(page))))
    if not is_members:
        return list(parsed.page.offsets)
    out = []
    for g in parsed.page.groups:
        out += [(x, int(f)) for x, f in zip(g.xids, g.flags)]
    return out
