"""Time zones as PostgreSQL's TimeZone setting reads them, for printing timestamptz values.

A server prints a timestamptz in the session's zone (``timestamp.c`` timestamp2tm -> ``pg_localtime``
-> ``localsub`` in ``src/timezone/localtime.c``, PostgreSQL's copy of the IANA tzcode). The zone's
TZif file (RFC 8536) lists explicit transitions: UTC second -> local time type (a UTC offset, a DST
flag, an abbreviation). Before the first transition the "default type" holds (the zone's LMT, type
0 in current data); from the last one on, the POSIX TZ string of the file's footer continues (e.g.
``EST5EDT,M3.2.0,M11.1.0``), its yearly transitions folded by 400-year cycles, after which the
Gregorian calendar repeats, so the rule never runs out. This module reads the same files (found
where :mod:`zoneinfo` finds them: ``zoneinfo.TZPATH``, then the ``tzdata`` package; Debian's server
reads the same ``/usr/share/zoneinfo``) and does the same integer arithmetic: one bisect per value,
no datetime (Python's stops at year 9999, PostgreSQL prints up to 294276 AD and back to 4714 BC).

Names, tried in PostgreSQL's order (``check_timezone`` in ``commands/variable.c``, ``pg_tzset`` in
``timezone/pgtz.c``):

1. A number of hours, SQL sign (east of Greenwich positive): ``'5.5'`` prints ``+05:30``, ``'-3'``
   ``-03``, at most 167:59:59 either way; read as C's strtod reads it (``' 5'``, ``'1e1'``,
   ``'0x10'`` are hours too).
2. A file of the tz database, matched component by component without regard to case as the server
   does (``'America/New_York'``, ``'utc'``, ``'Etc/GMT+3'`` = -03, ``'EST5EDT'``, ``'posixrules'``).
3. A POSIX TZ string, POSIX sign (west positive), as tzparse reads it: ``'+05:30'`` prints
   ``-05:30``, ``'<+03>-03'`` ``+03``, ``'UTC+3'`` ``-03``, ``'AAA-10BBB,M10.1.0,M4.1.0/3'`` with its
   rules; a DST name without rules takes tzcode's default US rules ``M3.2.0,M11.1.0`` (the server
   never reads the ``posixrules`` file for them).

A named zone (2 or 3) whose offset on 2000-01-01 has seconds, or that counts leap seconds
(``right/...``), is refused as the server refuses it (pg_tz_acceptable; hours are not checked:
``'-167.99'`` is -167:59:24). Not accepted: ``INTERVAL '+05:30' HOUR TO MINUTE``. Not modelled:
tzcode's "goback" folding before the first transition of a TZif zone (no real zone repeats there)
and its TZ_MAX_TIMES cut of very long transition lists.

Checked against a PostgreSQL 15 server (Debian, system tz data). Other majors carry other tzcode
releases in ``src/timezone``; their corner cases (the default rules of a DST name without rules,
the default-type heuristics for old TZif files) were not compared. A server built without
--with-system-tzdata reads its own copy of the tz database, which may be older or newer than the
one found here: zones changed between the two releases then differ.
"""
from __future__ import annotations

import os
import re
import struct
import zoneinfo
from bisect import bisect_right
from functools import lru_cache
from typing import NamedTuple

SECSPERDAY = 86_400
SECSPERHOUR = 3_600
YEARSPERREPEAT = 400
SECSPERREPEAT = 146_097 * SECSPERDAY       # 400 Gregorian years (the calendar, weekdays included, repeats)
TIME2000 = 946_684_800                      # 2000-01-01 00:00:00 UTC, Unix seconds

# tzfile.h limits; a file past them is refused by the server's tzload (and so is the name).
TZ_MAX_TIMES = 2000
TZ_MAX_TYPES = 256
TZ_MAX_CHARS = 50
TZ_MAX_LEAPS = 50
TZ_STRLEN_MAX = 255
TZDEFRULESTRING = ",M3.2.0,M11.1.0"
_MAX_TZIF_BYTES = 1 << 20

_MON_LENGTHS = ((31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31),
                (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31))
# What C's strtod reads whole (leading white space, decimal or hexadecimal); its inf and nan make the
# server refuse the setting, as they fall through to names here.
_STRTOD_DECIMAL = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_STRTOD_HEX = re.compile(r"[ \t\n\v\f\r]*[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                         r"(?:[pP][+-]?[0-9]+)?\Z")


class ZoneRules(NamedTuple):
    """A zone's offsets as tables (what a compiled printer ports ``Zone.utc_offset`` with): the explicit
    transitions (Unix seconds) and the offset from each (seconds east), the footer rule's transitions over the
    400 years from 1970 and their offsets, the one offset of a zone without transitions (None otherwise), the
    offset before the first transition and before the rule's first."""
    ats: list[int]
    offs: list[int]
    rule_ats: list[int]
    rule_offs: list[int]
    fixed: int | None
    default: int
    rule_std: int


class Zone:
    """A loaded zone: ``utc_offset(t)`` is the offset east of UTC, in seconds, at Unix second ``t``."""
    __slots__ = ("name", "_fixed", "_ats", "_offs", "_default", "_rule_ats", "_rule_offs", "_rule_std")

    def __init__(self, name: str, ats=(), offs=(), default: int = 0, rule: "_Rule | None" = None):
        self.name = name
        self._ats, self._offs, self._default = list(ats), list(offs), default
        self._rule_ats = self._rule_offs = None
        self._rule_std = 0
        if rule is not None:
            rule_ats, rule_offs = rule.window()
            if rule_ats:                        # else no transition in any year: nothing follows
                self._rule_ats, self._rule_offs, self._rule_std = rule_ats, rule_offs, rule.std_utoff
        self._fixed = default if not self._ats and self._rule_ats is None else None

    def rules(self) -> ZoneRules:
        return ZoneRules(self._ats, self._offs, self._rule_ats or [], self._rule_offs or [], self._fixed,
                         self._default, self._rule_std)

    def utc_offset(self, t: int) -> int:
        if self._fixed is not None:
            return self._fixed
        ats = self._ats
        if ats:
            if t < ats[0]:
                return self._default
            if t <= ats[-1] or self._rule_ats is None:
                return self._offs[bisect_right(ats, t) - 1]
        # the footer's rule, on the 400-year window that starts on 1970-01-01 (localsub's goahead)
        cycles, t_in = divmod(t, SECSPERREPEAT)
        i = bisect_right(self._rule_ats, t_in) - 1
        if i < 0:
            return self._rule_std
        if ats and self._rule_ats[i] + cycles * SECSPERREPEAT <= ats[-1]:
            return self._offs[-1]           # only rule transitions after the file's last one count
        return self._rule_offs[i]


def get_zone(name: str) -> Zone:
    """The zone a session with ``SET TimeZone = name`` prints in; ValueError if the server would
    refuse the name (the message says why)."""
    if not isinstance(name, str):
        raise ValueError(f"time zone must be a string, not {type(name).__name__}")
    return _get_zone(name)


@lru_cache(maxsize=64)
def _get_zone(name: str) -> Zone:
    hours = _strtod_hours(name)
    if hours is not None:
        return _offset_zone(name, hours)
    if not name or len(name) > TZ_STRLEN_MAX or "\0" in name:
        raise ValueError(f"unknown time zone {name!r}")
    zone = None
    data = _find_tzif(name)
    if data is not None:
        zone = _tzif_zone(name, data)
    if zone is None:
        rule = _Rule.parse(name.upper())
        if rule is None:
            raise ValueError(f"unknown time zone {name!r} (neither a tz database name nor a POSIX TZ string)")
        zone = Zone(name, default=rule.only_utoff, rule=rule)
    if zone.utc_offset(TIME2000) % 60:
        raise ValueError(f"time zone {name!r} appears to use leap seconds (PostgreSQL refuses it)")
    return zone


def _strtod_hours(name: str) -> float | None:
    if _STRTOD_DECIMAL.match(name):
        return float(name)
    if _STRTOD_HEX.match(name):
        return float.fromhex(name.strip(" \t\n\v\f\r"))
    return None


def _offset_zone(name: str, hours: float) -> Zone:
    # check_timezone: SQL sign to POSIX sign, then pg_tzset_offset's "<+hh:mm:ss>-hh:mm:ss", whose
    # hours tzparse takes up to 167
    west = -hours * SECSPERHOUR
    if not abs(west) < 168 * SECSPERHOUR:
        raise ValueError(f"time zone {name!r}: UTC offset is out of range")
    return Zone(name, default=-int(west))


# ---------------------------------------------------------------------------------------------
# TZif files
# ---------------------------------------------------------------------------------------------

def _find_tzif(name: str) -> bytes | None:
    """A zone file's bytes, None if there is none. Like pg_open_tzfile, each path component is matched
    without regard to case; names starting with a dot are never matched."""
    parts = name.split("/")
    if any(not p or p.startswith(".") for p in parts):
        return None
    for root in zoneinfo.TZPATH:
        path = _find_ci(root, parts)
        if path is not None:
            return _read_file(path)
    try:                                    # zoneinfo's fallback: the tzdata package (exact names)
        from importlib import resources
        res = resources.files(".".join(["tzdata.zoneinfo", *parts[:-1]])).joinpath(parts[-1])
        if res.is_file():
            return res.read_bytes()[:_MAX_TZIF_BYTES]
    except (ImportError, OSError, ValueError, UnicodeError):
        pass
    return None


def _find_ci(root: str, parts: list[str]) -> str | None:
    path = root
    for i, part in enumerate(parts):
        exact = os.path.join(path, part)
        if os.path.exists(exact):
            path = exact
        else:
            try:
                names = os.listdir(path)
            except OSError:
                return None
            lower = part.lower()
            match = next((n for n in names if n.lower() == lower and not n.startswith(".")), None)
            if match is None:
                return None
            path = os.path.join(path, match)
        if i < len(parts) - 1 and not os.path.isdir(path):
            return None
    return path if os.path.isfile(path) else None


def _read_file(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(_MAX_TZIF_BYTES)
    except OSError:
        return None


_HEADER = struct.Struct(">4sc15x6l")      # magic, version, isutcnt isstdcnt leapcnt timecnt typecnt charcnt


def _tzif_zone(name: str, data: bytes) -> Zone | None:
    """A Zone from a TZif file as tzload reads it; None where tzload fails (the server then tries the
    name as a POSIX string). ValueError for a file with leap seconds."""
    parsed = _parse_tzif(data, 0, 4)
    if parsed is None:
        return None
    version, end, block = parsed
    if version != b"\0":
        parsed = _parse_tzif(data, end, 8)      # version 2+: the 64-bit block follows, then the footer
        if parsed is None:
            return None
        _, end, block = parsed
    ats, types, ttis, chars, leapcnt = block
    if leapcnt:
        raise ValueError(f"time zone {name!r} counts leap seconds (PostgreSQL refuses it)")
    rule = None
    footer = data[end:]
    if version != b"\0" and len(footer) > 2 and footer[:1] == b"\n" and footer[-1:] == b"\n" \
            and len(ttis) + 2 <= TZ_MAX_TYPES:
        try:
            rule = _Rule.parse(footer[1:-1].decode("ascii"))
        except UnicodeDecodeError:
            rule = None
        if rule is not None and not _abbreviations_fit(chars, rule.abbreviations):
            rule = None
    default = _default_type(types, ttis)
    if rule is not None:
        while len(types) > 1 and types[-1] == types[-2]:   # trailing no-op transitions (tzloadbody)
            ats.pop()
            types.pop()
    return Zone(name, ats, [ttis[t][0] for t in types], ttis[default][0], rule)


def _parse_tzif(data: bytes, start: int, time_size: int):
    """One header + data block: (version, end offset, (ats, types, ttinfos, chars, leapcnt)), None if
    the block is not one tzload accepts."""
    if len(data) < start + _HEADER.size:
        return None
    magic, version, isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt = _HEADER.unpack_from(data, start)
    if magic != b"TZif" or not (0 <= leapcnt < TZ_MAX_LEAPS and 0 < typecnt < TZ_MAX_TYPES
                                and 0 <= timecnt < TZ_MAX_TIMES and 0 <= charcnt < TZ_MAX_CHARS
                                and isstdcnt in (0, typecnt) and isutcnt in (0, typecnt)):
        return None
    p = start + _HEADER.size
    end = p + timecnt * (time_size + 1) + typecnt * 6 + charcnt + leapcnt * (time_size + 4) + isstdcnt + isutcnt
    if end > len(data):
        return None
    raw_ats = struct.unpack_from(">%d%s" % (timecnt, "q" if time_size == 8 else "l"), data, p)
    p += timecnt * time_size
    raw_types = data[p:p + timecnt]
    p += timecnt
    ttis = []
    for _ in range(typecnt):
        utoff, isdst, idx = struct.unpack_from(">lBB", data, p)
        p += 6
        if isdst > 1 or idx >= charcnt:
            return None
        ttis.append((utoff, isdst, idx))
    chars = data[p:p + charcnt]
    ats: list[int] = []
    types: list[int] = []
    for at, typ in zip(raw_ats, raw_types):
        if typ >= typecnt:
            return None
        if ats and at <= ats[-1]:
            if at < ats[-1]:
                return None
            ats.pop()                       # two transitions at one time: the later one wins
            types.pop()
        ats.append(at)
        types.append(typ)
    return version, end, (ats, types, ttis, chars, leapcnt)


def _default_type(types: list[int], ttis: list[tuple]) -> int:
    """The type before the first transition, as tzloadbody infers it: type 0 if no transition uses it,
    else the standard type just below a first transition to DST, else the first standard type."""
    if 0 not in types:
        return 0
    if types and ttis[types[0]][1]:
        for i in range(types[0] - 1, -1, -1):
            if not ttis[i][1]:
                return i
    for i, (_, isdst, _) in enumerate(ttis):
        if not isdst:
            return i
    return 0


def _abbreviations_fit(chars: bytes, abbrs: list[str]) -> bool:
    """tzloadbody keeps the footer only when its abbreviations are already among the file's or fit in
    TZ_MAX_CHARS beside them (else times after the last transition keep the last type)."""
    chars = bytearray(chars)
    for abbr in abbrs:
        b = abbr.encode("ascii", "replace")
        if any(chars[j:].split(b"\0", 1)[0] == b for j in range(len(chars))):
            continue
        if len(chars) + len(b) >= TZ_MAX_CHARS:
            return False
        chars += b + b"\0"
    return True


# ---------------------------------------------------------------------------------------------
# POSIX TZ strings (tzparse, getzname/getoffset/getrule/transtime in localtime.c)
# ---------------------------------------------------------------------------------------------

class _Rule:
    """A parsed POSIX TZ string: standard offset and, with DST, the DST offset and the two rules.
    Offsets are kept in tzcode's sign (seconds *west* of UTC)."""

    def __init__(self, stdname, stdoff, dstname=None, dstoff=0, start=None, end=None):
        self.stdname, self.stdoff = stdname, stdoff
        self.dstname, self.dstoff, self.start, self.end = dstname, dstoff, start, end

    has_dst = property(lambda s: s.dstname is not None)
    std_utoff = property(lambda s: -s.stdoff)
    abbreviations = property(lambda s: [s.stdname] + ([s.dstname] if s.has_dst else []))

    @property
    def only_utoff(self) -> int:
        # tzparse: a rule that never makes a transition is perpetual DST
        return -self.dstoff if self.has_dst else -self.stdoff

    @classmethod
    def parse(cls, s: str) -> "_Rule | None":
        """tzparse(s, lastditch=false); None where it fails. An empty standard name is allowed (the
        server's change to tzcode), so '+05:30' is a zone 5.5 hours west."""
        stdname, i = _zname(s, 0)
        if stdname is None or i >= len(s):
            return None
        stdoff, i = _offset(s, i)
        if stdoff is None:
            return None
        if i == len(s):
            return cls(stdname, stdoff)
        dstname, i = _zname(s, i)
        if not dstname:
            return None
        if i < len(s) and s[i] not in ",;":
            dstoff, i = _offset(s, i)
            if dstoff is None:
                return None
        else:
            dstoff = stdoff - SECSPERHOUR
        rest = s[i:] or TZDEFRULESTRING
        if rest[0] not in ",;":
            return None
        start, j = _rule(rest, 1)
        if start is None or j >= len(rest) or rest[j] != ",":
            return None
        end, j = _rule(rest, j + 1)
        if end is None or j != len(rest):
            return None
        return cls(stdname, stdoff, dstname, dstoff, start, end)

    def window(self) -> tuple[list[int], list[int]]:
        """The transitions of the years 1969-2370 as tzparse makes them (Unix seconds, in year order,
        two a year: start then end, swapped when the end comes first), and the offset after each:
        enough to look up any time of the 400 years from 1970-01-01 by bisection."""
        ats: list[int] = []
        offs: list[int] = []
        if not self.has_dst:
            return ats, offs
        std, dst = -self.stdoff, -self.dstoff
        janfirst = _days_from_civil(1969, 1, 1) * SECSPERDAY
        for year in range(1969, 1970 + YEARSPERREPEAT + 1):
            leap = _isleap(year)
            yearsecs = (366 if leap else 365) * SECSPERDAY
            starttime = _transtime(year, leap, self.start, self.stdoff)
            endtime = _transtime(year, leap, self.end, self.dstoff)
            reversed_ = endtime < starttime
            if reversed_:
                starttime, endtime = endtime, starttime
            if reversed_ or (starttime < endtime and endtime - starttime < yearsecs + (self.stdoff - self.dstoff)):
                ats += [janfirst + starttime, janfirst + endtime]
                offs += [std, dst] if reversed_ else [dst, std]
            janfirst += yearsecs
        return ats, offs


def _zname(s: str, i: int):
    """A zone abbreviation at s[i:] (getzname, or getqzname within <...>): (name, next index)."""
    if i < len(s) and s[i] == "<":
        j = s.find(">", i + 1)
        if j < 0:
            return None, i
        return s[i + 1:j], j + 1
    j = i
    while j < len(s) and not "0" <= s[j] <= "9" and s[j] not in ",-+":
        j += 1
    return s[i:j], j


def _num(s: str, i: int, lo: int, hi: int):
    """getnum: digits at s[i:] within [lo, hi]: (value, next index), (None, i) if not."""
    j, v = i, 0
    while j < len(s) and "0" <= s[j] <= "9":
        v = v * 10 + ord(s[j]) - 48
        if v > hi:
            return None, i
        j += 1
    if j == i or v < lo:
        return None, i
    return v, j


def _secs(s: str, i: int):
    """getsecs: hh[:mm[:ss]], hours up to 167 (24 * 7 - 1), seconds up to 60."""
    h, i = _num(s, i, 0, 24 * 7 - 1)
    if h is None:
        return None, i
    total = h * SECSPERHOUR
    for limit, scale in ((59, 60), (60, 1)):
        if i < len(s) and s[i] == ":":
            v, i = _num(s, i + 1, 0, limit)
            if v is None:
                return None, i
            total += v * scale
        else:
            break
    return total, i


def _offset(s: str, i: int):
    """getoffset: [+-]hh[:mm[:ss]], POSIX sign."""
    neg = i < len(s) and s[i] == "-"
    if i < len(s) and s[i] in "+-":
        i += 1
    v, i = _secs(s, i)
    if v is None:
        return None, i
    return (-v if neg else v), i


def _rule(s: str, i: int):
    """getrule: Jn | n | Mm.w.d, then an optional /time (default 02:00, may be negative)."""
    if i >= len(s):
        return None, i
    if s[i] == "J":
        day, i = _num(s, i + 1, 1, 365)
        rule = ("J", day)
    elif s[i] == "M":
        mon, i = _num(s, i + 1, 1, 12)
        if mon is None or i >= len(s) or s[i] != ".":
            return None, i
        week, i = _num(s, i + 1, 1, 5)
        if week is None or i >= len(s) or s[i] != ".":
            return None, i
        day, i = _num(s, i + 1, 0, 6)
        rule = ("M", mon, week, day)
    elif "0" <= s[i] <= "9":
        day, i = _num(s, i, 0, 365)
        rule = ("D", day)
    else:
        return None, i
    if rule[-1] is None:
        return None, i
    time = 2 * SECSPERHOUR
    if i < len(s) and s[i] == "/":
        time, i = _offset(s, i + 1)
        if time is None:
            return None, i
    return rule + (time,), i


def _transtime(year: int, leap: bool, rule: tuple, offset: int) -> int:
    """Seconds from 00:00 UTC on January 1 of ``year`` to the rule's transition (local wall time
    ``rule``'s time, ``offset`` seconds west of UTC)."""
    kind = rule[0]
    if kind == "J":                         # Jn: 1..365, February 29 never counted
        days = rule[1] - 1 + (1 if leap and rule[1] >= 60 else 0)
    elif kind == "D":                       # n: 0..365, February 29 counted
        days = rule[1]
    else:                                   # Mm.w.d: day d of week w (5 = last) of month m
        _, mon, week, dow = rule[:4]
        first = _days_from_civil(year, mon, 1)
        d = (dow - (first + 4) % 7) % 7     # 1970-01-01 was a Thursday (4)
        for _ in range(1, week):
            if d + 7 >= _MON_LENGTHS[leap][mon - 1]:
                break
            d += 7
        days = first - _days_from_civil(year, 1, 1) + d
    return days * SECSPERDAY + rule[-1] + offset


def _isleap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
