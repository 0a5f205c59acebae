"""pg_control decoding and CRC-32C, checked against the committed fixture clusters.

Each ``fixtures/pg<MAJOR>/data/global/pg_control`` is what a real server of that major left after a
clean ``pg_ctl stop``; ``fixtures/pg<MAJOR>/oracle/catalog.json`` ("control") holds what the same
server's pg_control_system(), pg_control_checkpoint() and pg_control_init() said on the restart
that followed (fixtures/README.md): a clean restart writes no checkpoint, so every checkpoint and
init column describes the committed file, and only pg_control_last_modified (and the state) are the
restart's. The tests compare

* exactly: every column of pg_control_checkpoint() and pg_control_init(), and the identity columns
  of pg_control_system();
* as an order: pg_control_last_modified (the restart's, so not before the file's time);
* the shape: the column names pg_control_functions() produces are exactly the server's.

Should the oracle ever describe an older checkpoint than the file (captured before the shutdown),
test_fixture_checkpoint falls back to what a later checkpoint can only move forward.
"""
from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pgpage.decode import control as ctl
from pgpage.decode.control import decode_control, parse_lsn, pg_control_functions
from pgpage.decode.crc32c import crc32c, crc32c_update
from pgpage.decode.errors import DecodeError
from pgpage.decode.ksy import layouts

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("PGPAGE_FIXTURES", REPO / "fixtures"))


def fixture_majors() -> list[int]:
    if not FIXTURES.is_dir():
        return []
    out = []
    for d in FIXTURES.iterdir():
        m = re.fullmatch(r"pg(\d+)", d.name)
        if m and (d / "data" / "global" / "pg_control").is_file() and (d / "oracle" / "catalog.json").is_file():
            out.append(int(m.group(1)))
    return sorted(out)


MAJORS = fixture_majors()


def control_bytes(major: int) -> bytes:
    return (FIXTURES / f"pg{major}" / "data" / "global" / "pg_control").read_bytes()


def oracle(major: int) -> dict:
    return json.loads((FIXTURES / f"pg{major}" / "oracle" / "catalog.json").read_text())


def xid_int(v) -> int:
    """An xid/xid8 as the oracle stores it (int, or text such as "780")."""
    return int(v)


def next_xid_full(text: str) -> int:
    epoch, xid = text.split(":")
    return (int(epoch) << 32) | int(xid)


# --------------------------------------------------------------------------------- CRC-32C

def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283          # the CRC catalogue's check value


def test_crc32c_rfc3720_vectors():
    # RFC 3720 (iSCSI) B.4
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E
    assert crc32c(bytes(range(31, -1, -1))) == 0x113FDB5C
    assert crc32c(b"") == 0


def test_crc32c_incremental():
    data = bytes(range(256)) * 3
    running = crc32c_update(0xFFFFFFFF, data[:100])
    running = crc32c_update(running, data[100:])
    assert running ^ 0xFFFFFFFF == crc32c(data)


# --------------------------------------------------------------------------------- layouts

CONTROL_TYPES = [t for t in layouts.LAYOUTS if t.startswith("pg_control::control_v")]


@pytest.mark.parametrize("ktype", CONTROL_TYPES)
def test_layout_alignment(ktype):
    """x86-64 alignment: 8-byte fields on multiples of 8, 4-byte on multiples of 4 (offsets in
    LAYOUTS are relative to the body, which starts at file offset 16)."""
    for name, (off, kind) in layouts.LAYOUTS[ktype]["fields"].items():
        if kind in ("u8", "s8", "f8") or (isinstance(kind, tuple) and kind[0] == "struct"):
            assert (16 + off) % 8 == 0, (name, off)
        elif kind in ("u4", "s4"):
            assert (16 + off) % 4 == 0, (name, off)


@pytest.mark.parametrize("ktype", CONTROL_TYPES)
def test_layout_crc_is_last(ktype):
    fields = layouts.LAYOUTS[ktype]["fields"]
    assert list(fields)[-1] == "crc"
    assert fields["crc"][0] + 4 == layouts.LAYOUTS[ktype]["size"]


def test_every_control_version_has_a_layout():
    versions = {int(t.rsplit("_v", 1)[1]) for t in CONTROL_TYPES}
    assert versions == set(ctl.CONTROL_VERSION_MAJORS)


# --------------------------------------------------------------------------------- fixtures

@pytest.mark.parametrize("major", MAJORS)
def test_fixture_identity_and_crc(major):
    d = decode_control(control_bytes(major))
    o = oracle(major)
    system = o["control"]["system"]
    assert d["crc_ok"], d["findings"]
    assert d["findings"] == []
    assert d["pg_control_version"] == system["pg_control_version"]
    assert d["catalog_version_no"] == system["catalog_version_no"]
    assert d["system_identifier"] == int(system["system_identifier"])
    assert d["major"] == o["major"] == major
    assert ctl.RELEASE_CATALOG_VERSION[major] == system["catalog_version_no"]
    assert d["block_size"] == o["block_size"]
    assert (d["data_checksum_version"] != 0) == o["data_checksums"]


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_columns_match_server_functions(major):
    """pg_control_functions() has exactly the server's columns for this major."""
    mine = pg_control_functions(decode_control(control_bytes(major)))
    theirs = oracle(major)["control"]
    for fn, key in (("pg_control_system", "system"), ("pg_control_checkpoint", "checkpoint"),
                    ("pg_control_init", "init")):
        assert set(mine[fn]) == set(theirs[key]), fn


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_init_equal(major):
    mine = pg_control_functions(decode_control(control_bytes(major)))["pg_control_init"]
    theirs = oracle(major)["control"]["init"]
    assert mine == theirs


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_checkpoint(major):
    d = decode_control(control_bytes(major))
    mine = pg_control_functions(d)["pg_control_checkpoint"]
    o = oracle(major)
    theirs = o["control"]["checkpoint"]
    cp = d["checkPointCopy"]

    # A checkpoint cannot change these.
    for col in ("timeline_id", "prev_timeline_id", "full_page_writes"):
        assert mine[col] == theirs[col], col

    assert cp["nextFullXid"] > xid_int(o["txid_current"])  # txid_current() was assigned before the stop
    if mine["checkpoint_lsn"] == theirs["checkpoint_lsn"]:
        # The oracle describes this very checkpoint: every column must agree.
        for col, value in theirs.items():
            assert str(mine[col]) == str(value), col
        return

    # The file holds the shutdown checkpoint written after the oracle was taken.
    assert d["state_name"] == "DB_SHUTDOWNED"
    assert d["checkPoint"] == cp["redo"]                  # a shutdown checkpoint redoes from itself
    assert parse_lsn(mine["checkpoint_lsn"]) > parse_lsn(theirs["checkpoint_lsn"])
    assert parse_lsn(mine["redo_lsn"]) >= parse_lsn(theirs["redo_lsn"])
    assert mine["redo_wal_file"] >= theirs["redo_wal_file"]
    assert cp["nextFullXid"] >= next_xid_full(theirs["next_xid"])
    # (no order for next_oid: an online checkpoint records nextOid plus the OIDs prefetched by
    # GetNewObjectId, a shutdown checkpoint the exact next one, which can be smaller)
    assert mine["next_multixact_id"] >= xid_int(theirs["next_multixact_id"])
    assert mine["next_multi_offset"] >= xid_int(theirs["next_multi_offset"])
    assert mine["oldest_xid"] >= xid_int(theirs["oldest_xid"])
    assert mine["oldest_multi_xid"] >= xid_int(theirs["oldest_multi_xid"])
    assert mine["checkpoint_time"] >= theirs["checkpoint_time"]


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_system_time_and_state(major):
    d = decode_control(control_bytes(major))
    theirs = pg_control_functions(d)["pg_control_system"]
    oracle_system = oracle(major)["control"]["system"]
    for col in ("pg_control_version", "catalog_version_no", "system_identifier"):
        assert str(theirs[col]) == str(oracle_system[col]), col
    assert d["state_name"] == "DB_SHUTDOWNED"                 # copied after pg_ctl stop -m fast
    assert d["checkPoint"] == d["checkPointCopy"]["redo"]     # a shutdown checkpoint redoes from itself
    assert d["time"] >= d["checkPointCopy"]["time"]
    # pg_control_last_modified is the restart's, which came after the file was written
    assert d["time_iso"] <= oracle_system["pg_control_last_modified"]


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_version_specific_fields(major):
    d = decode_control(control_bytes(major))
    assert ("prevCheckPoint" in d) == (major == 10)
    assert ("max_wal_senders" in d) == (major >= 12)
    assert ("float4ByVal" in d) == (major <= 12)
    assert ("default_char_signedness" in d) == (major >= 18)
    assert d["floatFormat"] == ctl.FLOATFORMAT_VALUE
    assert d["crc_offset"] == 16 + layouts.LAYOUTS[f"pg_control::control_v{d['pg_control_version']}"]["fields"]["crc"][0]


# --------------------------------------------------------------------------------- bad input

def a_control_file() -> bytes:
    assert MAJORS, "no fixture clusters: python fixtures/make_fixtures.py"
    return control_bytes(MAJORS[-1])


def test_crc_mismatch_is_a_finding():
    data = bytearray(a_control_file())
    data[40] ^= 0x01                                       # inside checkPointCopy.redo
    d = decode_control(bytes(data))
    assert not d["crc_ok"]
    assert [f["code"] for f in d["findings"]] == ["control.crc.mismatch"]


def test_trailing_bytes_are_a_finding():
    data = bytearray(a_control_file())
    data[4000] = 0x55
    d = decode_control(bytes(data))
    assert d["crc_ok"]
    assert [f["code"] for f in d["findings"]] == ["control.trailing_bytes"]


@pytest.mark.parametrize("size", [0, 100, 512, 8191, 8193, 16384])
def test_wrong_size_is_refused(size):
    with pytest.raises(DecodeError) as e:
        decode_control(bytes(size))
    assert "\n" not in str(e.value) and "8192" in str(e.value)


def test_unknown_version_is_refused():
    data = bytearray(a_control_file())
    struct.pack_into("<I", data, 8, 942)                   # 9.4's pg_control_version
    with pytest.raises(DecodeError, match="pg_control_version 942"):
        decode_control(bytes(data))


def test_byte_swapped_version_is_named():
    data = bytearray(a_control_file())
    version = struct.unpack_from("<I", data, 8)[0]
    struct.pack_into(">I", data, 8, version)
    with pytest.raises(DecodeError, match="big-endian"):
        decode_control(bytes(data))


def test_major_from_control_ranges():
    cv = ctl.RELEASE_CATALOG_VERSION
    assert ctl.major_from_control(1300, cv[13]) == 13
    assert ctl.major_from_control(1300, cv[15]) == 15
    assert ctl.major_from_control(1300, cv[15] + 1) == 16      # 16 development / beta
    assert ctl.major_from_control(1300, cv[16] + 1) == 17      # 17 betas wrote 1300
    assert ctl.major_from_control(1700, cv[17]) == 17
    assert ctl.major_from_control(4711, cv[17]) is None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_control_files_never_crash(data):
    base = bytearray(a_control_file())
    n = data.draw(st.integers(1, 24))
    for _ in range(n):
        pos = data.draw(st.integers(16, 400))                 # leave the version alone, hit the body
        base[pos] = data.draw(st.integers(0, 255))
    d = decode_control(bytes(base))
    json.dumps(d)                                              # plain data only
    assert isinstance(d["crc_ok"], bool)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(st.binary(min_size=300, max_size=300), st.sampled_from(sorted(ctl.CONTROL_VERSION_MAJORS)))
def test_random_bytes_with_a_known_version(blob, version):
    blob = bytearray(blob) + bytearray(8192 - 300)
    struct.pack_into("<I", blob, 8, version)
    d = decode_control(bytes(blob))
    assert d["pg_control_version"] == version
    json.dumps(d)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=600))
def test_random_bytes_only_raise_decode_error(blob):
    try:
        decode_control(blob)
    except DecodeError:
        pass
