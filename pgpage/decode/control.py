"""Decode ``global/pg_control`` (ControlFileData) of PostgreSQL 10 to 18.

The byte layout is ``formats/pg_control.ksy`` (one layout type per ``pg_control_version``); this
module turns the parsed struct into a plain dict under PostgreSQL's own field names (the ``-orig-id``
of each field, taken from the generated ``layouts.ORIG_IDS``), checks the CRC-32C, and works out the
major version.

``decode_control(data)`` returns, in struct order::

    system_identifier, pg_control_version, catalog_version_no,
    state, state_name ("DB_IN_PRODUCTION"), time, time_iso,
    checkPoint, prevCheckPoint (PG 10 only),
    checkPointCopy: {redo, ThisTimeLineID, PrevTimeLineID, fullPageWrites,
                     nextXidEpoch, nextXid, nextFullXid, nextOid, nextMulti, nextMultiOffset,
                     oldestXid, oldestXidDB, oldestMulti, oldestMultiDB, time, time_iso,
                     oldestCommitTsXid, newestCommitTsXid, oldestActiveXid},
    unloggedLSN, minRecoveryPoint, minRecoveryPointTLI, backupStartPoint, backupEndPoint,
    backupEndRequired, wal_level, wal_level_name, wal_log_hints, MaxConnections,
    max_worker_processes, max_wal_senders (12+), max_prepared_xacts, max_locks_per_xact,
    track_commit_timestamp, maxAlign, floatFormat, blcksz, relseg_size, xlog_blcksz,
    xlog_seg_size, nameDataLen, indexMaxKeys, toast_max_chunk_size, loblksize,
    float4ByVal (10-12), float8ByVal, data_checksum_version, default_char_signedness (18+),
    mock_authentication_nonce (hex),
    crc_offset, crc_stored, crc_computed, crc_ok,
    major, block_size, redo_wal_file, findings

Only the fields the file's layout has are present (no ``max_wal_senders`` for 10 and 11).
LSNs are strings in PostgreSQL's ``%X/%X`` form (``"0/17D9CE8"``, as pg_controldata and the pg_lsn
type of 10-18 print them); times are ints (seconds since the epoch) with a UTC ISO string beside
them; bools are bools. The next transaction id is given three ways in every major: ``nextXidEpoch``
and ``nextXid`` (32 bits each, as 10 and 11 store them and pg_controldata prints ``epoch:xid``) and
``nextFullXid`` (the 64-bit FullTransactionId 12+ stores; computed for 10 and 11).

A damaged control file still decodes: a CRC mismatch, a wrong floatFormat, an unknown state or
non-zero bytes past the struct become ``findings`` (dicts as ``Finding.to_json()`` gives them).
Only input that is not a pg_control at all (wrong size, unknown ``pg_control_version``) raises
``DecodeError``.

``pg_control_functions(decoded)`` regroups a decoded file into the four SQL functions
``pg_control_system()``, ``pg_control_checkpoint()``, ``pg_control_init()`` and
``pg_control_recovery()``, under their column names, so a user (or a test) can set them side by
side with what a server says.
"""
from __future__ import annotations

import datetime as _dt
import struct

from kaitaistruct import KaitaiStream, BytesIO

from pgpage.decode.crc32c import crc32c
from pgpage.decode.errors import DecodeError
from pgpage.decode.ksy import layouts
from pgpage.decode.ksy.pg_control import PgControl
from pgpage.findings import WARNING, Finding

PG_CONTROL_FILE_SIZE = 8192
"""Physical size of pg_control in every major (PG_CONTROL_FILE_SIZE, formerly PG_CONTROL_SIZE)."""

FLOATFORMAT_VALUE = 1234567.0

CONTROL_VERSION_MAJORS: dict[int, tuple[int, ...]] = {
    1002: (10,),
    1100: (11,),
    1201: (12,),
    1300: (13, 14, 15, 16, 17),   # 17's betas still wrote 1300; 17.0 onwards writes 1700
    1700: (17,),
    1800: (18,),
}
"""Which majors write each pg_control_version (checked on real 10.23 ... 18.4 servers)."""

RELEASE_CATALOG_VERSION: dict[int, int] = {
    10: 201707211,
    11: 201809051,
    12: 201909212,
    13: 202007201,
    14: 202107181,
    15: 202209061,
    16: 202307071,
    17: 202406281,
    18: 202506291,
}
"""CATALOG_VERSION_NO of each major's releases (it never changes within a stable branch); read from
real 10.23, 11.22, 12.22, 13.23, 14.23, 15.20, 16.14, 17.10 and 18.4 servers."""

# Kaitai ids of the fields that are XLogRecPtr (printed as X/X) and pg_time_t.
_LSN_FIELDS = frozenset({"check_point", "prev_check_point", "unlogged_lsn", "min_recovery_point",
                         "backup_start_point", "backup_end_point", "redo"})
_TIME_FIELDS = frozenset({"time"})
_ENUMS = {"state": layouts.ENUMS["pg_control::db_state"],
          "wal_level": layouts.ENUMS["pg_control::wal_level"]}


def format_lsn(lsn: int) -> str:
    """An XLogRecPtr as PostgreSQL 10-18 print it: ``%X/%X`` of the high and low 32 bits."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    """Inverse of format_lsn (also accepts zero-padded halves)."""
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def iso_time(seconds: int) -> str | None:
    """pg_time_t as an ISO 8601 UTC string; None when it is outside what datetime can show."""
    try:
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def xlog_file_name(tli: int, lsn: int, wal_segment_size: int) -> str | None:
    """XLogFileName() of the segment holding ``lsn`` (``%08X%08X%08X``); None for a segment size
    that is not a power of two between 1 MB and 1 GB (what initdb allows)."""
    if not (1 << 20 <= wal_segment_size <= 1 << 30) or wal_segment_size & (wal_segment_size - 1):
        return None
    segno = lsn // wal_segment_size
    per_xlogid = 0x100000000 // wal_segment_size
    return f"{tli:08X}{segno // per_xlogid:08X}{segno % per_xlogid:08X}"


def major_from_control(pg_control_version: int, catalog_version_no: int) -> int | None:
    """The major that wrote a control file: pg_control_version names one major or a range (1300 is
    13 to 16, and 17's betas); within a range the catalog version decides (a development or beta
    catalog version counts as the major whose release it precedes). None for an unknown version."""
    majors = CONTROL_VERSION_MAJORS.get(pg_control_version)
    if not majors:
        return None
    for m in majors:
        if catalog_version_no <= RELEASE_CATALOG_VERSION[m]:
            return m
    return majors[-1]


def _fields(kaitai_type: str) -> list[str]:
    """Kaitai field ids of a layout type in struct order, padding and the flattened
    ``struct.field`` entries of embedded structs left out."""
    return [f for f in layouts.LAYOUTS[kaitai_type]["fields"]
            if not f.startswith("pad_after_") and "." not in f]


def _pg_name(kaitai_type: str, field: str) -> str:
    return layouts.ORIG_IDS.get(kaitai_type, {}).get(field, field)


def _convert(kaitai_type: str, field: str, value, out: dict) -> None:
    name = _pg_name(kaitai_type, field)
    kind = layouts.LAYOUTS[kaitai_type]["fields"][field][1]
    if field in _LSN_FIELDS:
        out[name] = format_lsn(value)
    elif field in _TIME_FIELDS:
        out[name] = value
        out[name + "_iso"] = iso_time(value)
    elif field in _ENUMS:
        value = int(value)
        out[name] = value
        out[name + "_name"] = _ENUMS[field].get(value)
    elif kind == "u1":                       # every 1-byte field of ControlFileData is a bool
        out[name] = value != 0
    elif isinstance(kind, tuple) and kind[0] == "bytes":
        out[name] = bytes(value).hex()
    else:
        out[name] = value


def _check_point(cp, kaitai_type: str) -> dict:
    out: dict = {}
    for field in _fields(kaitai_type):
        value = getattr(cp, field)
        if field == "next_full_xid":          # 12+: FullTransactionId
            out["nextXidEpoch"] = value >> 32
            out["nextXid"] = value & 0xFFFFFFFF
            out["nextFullXid"] = value
        elif field == "next_xid":             # 10, 11: 32-bit xid after a separate epoch
            out["nextXid"] = value
            out["nextFullXid"] = (out["nextXidEpoch"] << 32) | value
        else:
            _convert(kaitai_type, field, value, out)
    return out


def decode_control(data: bytes | bytearray | memoryview) -> dict:
    """Decode a whole pg_control file (8192 bytes). See the module docstring for the result."""
    data = bytes(data)
    if len(data) != PG_CONTROL_FILE_SIZE:
        raise DecodeError(f"not a pg_control file: {len(data)} bytes, expected {PG_CONTROL_FILE_SIZE}")
    version, catversion = struct.unpack_from("<II", data, 8)
    if version not in CONTROL_VERSION_MAJORS:
        swapped = struct.unpack_from(">I", data, 8)[0]
        hint = " (byte-swapped: a big-endian cluster?)" if swapped in CONTROL_VERSION_MAJORS else ""
        known = ", ".join(str(v) for v in CONTROL_VERSION_MAJORS)
        raise DecodeError(f"not a pg_control file pgpage knows: pg_control_version {version}{hint}; "
                          f"known versions {known} (PostgreSQL 10 to 18)")

    parsed = PgControl(KaitaiStream(BytesIO(data)))
    body = parsed.body
    body_type = f"pg_control::control_v{version}"
    out: dict = {
        "system_identifier": parsed.system_identifier,
        "pg_control_version": version,
        "catalog_version_no": catversion,
    }
    for field in _fields(body_type):
        value = getattr(body, field)
        if field == "check_point_copy":
            cp_type = layouts.LAYOUTS[body_type]["fields"][field][1][1]
            out[_pg_name(body_type, field)] = _check_point(value, cp_type)
        else:
            _convert(body_type, field, value, out)

    crc_offset = body.crc_offset
    computed = crc32c(data[:crc_offset])
    out["crc_offset"] = crc_offset
    out["crc_stored"] = body.crc
    out["crc_computed"] = computed
    out["crc_ok"] = computed == body.crc
    out["major"] = major_from_control(version, catversion)
    out["block_size"] = body.blcksz
    out["redo_wal_file"] = xlog_file_name(body.check_point_copy.this_time_line_id,
                                          body.check_point_copy.redo, body.xlog_seg_size)
    out["findings"] = [f.to_json() for f in _findings(data, out)]
    return out


BLOCK_SIZES = {1024 << i for i in range(6)}    # configure --with-blocksize: 1 to 32 kB, powers of two


def usable_sizes(d: dict | None) -> tuple[int | None, int | None]:
    """(block size, segment size in blocks) of a decoded pg_control that can be read by: None for a value its CRC
    does not vouch for or that no PostgreSQL build has (the caller's defaults apply, a finding says why)."""
    if not d or not d["crc_ok"]:
        return None, None
    return (d["blcksz"] if d["blcksz"] in BLOCK_SIZES else None,
            d["relseg_size"] if d["relseg_size"] > 0 else None)


def _findings(data: bytes, d: dict) -> list[Finding]:
    found = []
    if not d["crc_ok"]:
        found.append(Finding("control.crc.mismatch",
                             "pg_control CRC-32C does not match its contents",
                             expected=f"{d['crc_stored']:08x}", actual=f"{d['crc_computed']:08x}"))
    if d["floatFormat"] != FLOATFORMAT_VALUE:
        found.append(Finding("control.float_format.mismatch",
                             "floatFormat is not 1234567.0: wrong architecture or damaged file",
                             expected=FLOATFORMAT_VALUE, actual=d["floatFormat"]))
    if d["state_name"] is None:
        found.append(Finding("control.state.unknown", f"unknown DBState {d['state']}", actual=d["state"]))
    if d["wal_level_name"] is None:
        found.append(Finding("control.wal_level.unknown", f"unknown wal_level {d['wal_level']}",
                             severity=WARNING, actual=d["wal_level"]))
    if d["blcksz"] not in BLOCK_SIZES:
        found.append(Finding("control.block_size.invalid", f"block size {d['blcksz']} is not one PostgreSQL is "
                             f"built with (1, 2, 4, 8, 16 or 32 kB): relation files are read in blocks of the "
                             "default size", actual=d["blcksz"]))
    if d["relseg_size"] <= 0:
        found.append(Finding("control.relseg_size.invalid", f"segment size {d['relseg_size']} blocks: relation "
                             "files are read in the default segments", actual=d["relseg_size"]))
    end = d["crc_offset"] + 4
    tail = data[end:]
    if tail.count(0) != len(tail):
        first = end + next(i for i, b in enumerate(tail) if b)
        found.append(Finding("control.trailing_bytes",
                             f"non-zero bytes after the control data (first at offset {first}); "
                             "PostgreSQL writes zeros there", severity=WARNING, actual=first))
    return found


def pg_control_functions(d: dict) -> dict[str, dict]:
    """A decoded control file under the column names of the SQL functions pg_control_system(),
    pg_control_checkpoint(), pg_control_init() and pg_control_recovery() of the same major (columns
    a major does not have are left out: prior_lsn is 10 only, float4_pass_by_value 10-12,
    default_char_signedness 18+). Types follow the server: LSNs as text, next_xid as ``epoch:xid``,
    timestamps as ISO strings, xids and OIDs as ints."""
    cp = d["checkPointCopy"]
    checkpoint = {"checkpoint_lsn": d["checkPoint"]}
    if "prevCheckPoint" in d:
        checkpoint["prior_lsn"] = d["prevCheckPoint"]
    checkpoint.update({
        "redo_lsn": cp["redo"],
        "redo_wal_file": d["redo_wal_file"],
        "timeline_id": cp["ThisTimeLineID"],
        "prev_timeline_id": cp["PrevTimeLineID"],
        "full_page_writes": cp["fullPageWrites"],
        "next_xid": f"{cp['nextXidEpoch']}:{cp['nextXid']}",
        "next_oid": cp["nextOid"],
        "next_multixact_id": cp["nextMulti"],
        "next_multi_offset": cp["nextMultiOffset"],
        "oldest_xid": cp["oldestXid"],
        "oldest_xid_dbid": cp["oldestXidDB"],
        "oldest_active_xid": cp["oldestActiveXid"],
        "oldest_multi_xid": cp["oldestMulti"],
        "oldest_multi_dbid": cp["oldestMultiDB"],
        "oldest_commit_ts_xid": cp["oldestCommitTsXid"],
        "newest_commit_ts_xid": cp["newestCommitTsXid"],
        "checkpoint_time": cp["time_iso"],
    })
    init = {
        "max_data_alignment": d["maxAlign"],
        "database_block_size": d["blcksz"],
        "blocks_per_segment": d["relseg_size"],
        "wal_block_size": d["xlog_blcksz"],
        "bytes_per_wal_segment": d["xlog_seg_size"],
        "max_identifier_length": d["nameDataLen"],
        "max_index_columns": d["indexMaxKeys"],
        "max_toast_chunk_size": d["toast_max_chunk_size"],
        "large_object_chunk_size": d["loblksize"],
    }
    if "float4ByVal" in d:
        init["float4_pass_by_value"] = d["float4ByVal"]
    init["float8_pass_by_value"] = d["float8ByVal"]
    init["data_page_checksum_version"] = d["data_checksum_version"]
    if "default_char_signedness" in d:
        init["default_char_signedness"] = d["default_char_signedness"]
    return {
        "pg_control_system": {
            "pg_control_version": d["pg_control_version"],
            "catalog_version_no": d["catalog_version_no"],
            "system_identifier": d["system_identifier"],
            "pg_control_last_modified": d["time_iso"],
        },
        "pg_control_checkpoint": checkpoint,
        "pg_control_init": init,
        "pg_control_recovery": {
            "min_recovery_end_lsn": d["minRecoveryPoint"],
            "min_recovery_end_timeline": d["minRecoveryPointTLI"],
            "backup_start_lsn": d["backupStartPoint"],
            "backup_end_lsn": d["backupEndPoint"],
            "end_of_backup_record_required": d["backupEndRequired"],
        },
    }
