"""pg_filenode.map decoding, checked against the committed fixture clusters.

The oracle is the server's own ``pg_relation_filepath()`` of every kept catalog
(``fixtures/pg<MAJOR>/oracle/catalog.json``, key "relations"): for a mapped catalog
(``relfilenode`` 0) the file name in that path must be what the map of its database (or the
global map, for shared catalogs) gives for its OID.
"""
from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pgpage.decode.errors import DecodeError
from pgpage.decode.filenode_map import decode_filenode_map

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("PGPAGE_FIXTURES", REPO / "fixtures"))


def fixture_majors() -> list[int]:
    if not FIXTURES.is_dir():
        return []
    out = []
    for d in FIXTURES.iterdir():
        m = re.fullmatch(r"pg(\d+)", d.name)
        if m and (d / "data" / "global" / "pg_filenode.map").is_file() and (d / "oracle" / "catalog.json").is_file():
            out.append(int(m.group(1)))
    return sorted(out)


MAJORS = fixture_majors()


def oracle(major: int) -> dict:
    return json.loads((FIXTURES / f"pg{major}" / "oracle" / "catalog.json").read_text())


def map_bytes(major: int, where: str) -> bytes:
    return (FIXTURES / f"pg{major}" / "data" / where / "pg_filenode.map").read_bytes()


def maps(major: int) -> dict[str, dict]:
    db = oracle(major)["database_oid"]
    return {"global": decode_filenode_map(map_bytes(major, "global")),
            f"base/{db}": decode_filenode_map(map_bytes(major, f"base/{db}"))}


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_maps_are_clean(major):
    for where, d in maps(major).items():
        assert d["magic_ok"] and d["crc_ok"], where
        assert d["findings"] == [], where
        assert d["size"] == (524 if major >= 16 else 512)
        assert d["max_mappings"] == (64 if major >= 16 else 62)
        assert 0 < d["num_mappings"] <= d["max_mappings"]
        assert len(d["mappings"]) == d["num_mappings"]
        oids = [oid for oid, _ in d["mappings"]]
        assert len(set(oids)) == len(oids)


@pytest.mark.parametrize("major", MAJORS)
def test_fixture_mapped_catalogs_match_relation_filepath(major):
    decoded = {where: dict(d["mappings"]) for where, d in maps(major).items()}
    checked = 0
    for rel in oracle(major)["relations"]:
        if rel.get("relfilenode") != 0 or not rel.get("filepath"):
            continue                                   # not a mapped relation
        directory, filenode = rel["filepath"].rsplit("/", 1)
        assert decoded[directory].get(rel["oid"]) == int(filenode), rel
        checked += 1
    assert checked > 0, "the fixture keeps no mapped catalog"


# --------------------------------------------------------------------------------- bad input

def a_map() -> bytes:
    assert MAJORS, "no fixture clusters: python fixtures/make_fixtures.py"
    return map_bytes(MAJORS[-1], "global")


@pytest.mark.parametrize("size", [0, 511, 513, 520, 523, 525, 8192])
def test_wrong_size_is_refused(size):
    with pytest.raises(DecodeError) as e:
        decode_filenode_map(bytes(size))
    assert "\n" not in str(e.value)


def test_zeroed_map_decodes_with_findings():
    for size in (512, 524):
        d = decode_filenode_map(bytes(size))
        assert d["mappings"] == []
        codes = {f["code"] for f in d["findings"]}
        assert "filenode_map.bad_magic" in codes


def test_num_mappings_is_clamped():
    data = bytearray(a_map())
    struct.pack_into("<i", data, 4, 1_000_000)
    d = decode_filenode_map(bytes(data))
    assert len(d["mappings"]) == d["max_mappings"]
    codes = [f["code"] for f in d["findings"]]
    assert "filenode_map.num_mappings.out_of_range" in codes
    assert "filenode_map.crc.mismatch" in codes
    struct.pack_into("<i", data, 4, -5)
    assert decode_filenode_map(bytes(data))["mappings"] == []


def test_flipped_byte_breaks_the_crc():
    data = bytearray(a_map())
    data[12] ^= 0x80                                   # first mapping's file number
    d = decode_filenode_map(bytes(data))
    assert not d["crc_ok"]
    assert [f["code"] for f in d["findings"]] == ["filenode_map.crc.mismatch"]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_mutated_maps_never_crash(data):
    base = bytearray(a_map())
    for _ in range(data.draw(st.integers(1, 16))):
        base[data.draw(st.integers(0, len(base) - 1))] = data.draw(st.integers(0, 255))
    d = decode_filenode_map(bytes(base))
    json.dumps(d)
    assert len(d["mappings"]) <= d["max_mappings"]
