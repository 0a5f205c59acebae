"""`rows --all --wal DIR` brings back the row versions only WAL holds (passes/walrows.py, decode/wal/heaptuple.py),
on fixtures/walrows/ (make_walrows.py: inserts, COPY, HOT and non-HOT updates, an update after a checkpoint,
rolled-back transactions, a multixact xmax, prepared transactions, a table rewritten by VACUUM FULL, deletes, then
VACUUM) of every major 10 to 18: every version VACUUM took from the pages
comes back with the values the server printed, its xmin and its transaction's fate; no version the pages still
hold comes twice; a damaged segment is a finding, not a traceback."""
from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
import tarfile
from functools import lru_cache

import pytest

from conftest import FIXTURES, REPO, REQUIRED_MAJORS
from pgpage.decode import versions
from pgpage.decode.control import parse_lsn
from pgpage.decode.flags import LP_NORMAL
from pgpage.decode.wal.heaptuple import TUPLE_HEADER
from pgpage.passes.rows import RowOptions, TableRows
from pgpage.passes.wal import WalReader
from pgpage.storage.target import resolve
from pgpage.storage.wal import WalDirectory

WALROWS = FIXTURES / "walrows"


@lru_cache(maxsize=None)
def oracle(major: int) -> dict:
    with gzip.open(WALROWS / f"pg{major}" / "oracle.json.gz") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    done = {}

    def data(major: int):
        if major not in done:
            d = tmp_path_factory.mktemp(f"walrows{major}")
            with tarfile.open(WALROWS / f"pg{major}" / "data.tar.xz") as tf:
                tf.extractall(d, filter="data")
            done[major] = d / "data"
        return done[major]
    return data


def table(data, wal, **options) -> TableRows:
    t = resolve(str(data), "pgpage", "t", "main", need_relation=True, what="table")
    return TableRows(t.cluster, t.relation, RowOptions(all_versions=True, carve=True, wal=str(wal), **options))


def gone(o: dict) -> dict:
    """(ctid, xmin) -> values of every version the workload made that no line pointer holds after VACUUM."""
    held = {(f"({i['blkno']},{i['lp']})", i["t_xmin"]) for i in o["after_items"] if i["lp_flags"] == LP_NORMAL}
    return {(v[0], int(v[1])): v[2:] for v in o["versions"] if (v[0], int(v[1])) not in held}


def test_fixtures_of_every_major():
    assert sorted(int(p.name[2:]) for p in WALROWS.glob("pg*")) == list(REQUIRED_MAJORS)


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_vacuumed_versions_come_back_from_wal(major, unpacked):
    o = oracle(major)
    t = table(unpacked(major), WALROWS / f"pg{major}" / "archive")
    records = list(t.text_records())      # (the JSON records: the path rows --json and the Python API take)
    names = [c["name"] for c in o["columns"]]
    wal = {(r["ctid"], r["xmin"]): r for r in records if r["status"] == "wal"}
    pruned = [(r["xmin"], [r["values"][n] for n in names]) for r in records if r["status"] == "pruned"]
    expected = gone(o)
    facts = o["facts"]
    assert len(expected) > 60            # the deleted, the replaced, the rolled back, the truncated page's
    for (ctid, xmin), values in expected.items():
        r = wal.get((ctid, xmin))
        if r is None:                    # (carved back from the page's free space instead: not twice)
            assert (xmin, values) in pruned, (ctid, xmin)
            continue
        assert [r["values"][n] for n in names] == values, (ctid, xmin)
        fate = "committed" if xmin in facts["committed_xids"] else "aborted"
        assert xmin in facts[f"{fate}_xids"]
        assert r["xmin_status"] == fate, (ctid, xmin)
        assert parse_lsn(facts["start_lsn"]) <= parse_lsn(r["lsn"]) < parse_lsn(facts["end_lsn"]), r["lsn"]
    # every WAL version is one the server had, and none a page still holds
    versions = {(v[0], int(v[1])): v[2:] for v in o["versions"]}
    on_pages = {(r["ctid"], r["xmin"]) for r in records if r["status"] not in ("wal", "pruned")}
    for key, r in wal.items():
        assert key in versions and [r["values"][n] for n in names] == versions[key], key
        assert key not in on_pages, key
        assert (r["xmin"], [r["values"][n] for n in names]) not in pruned, key
    # the deleters: a version a committed DELETE or UPDATE ended carries that xid
    assert any(r["xmax"] in facts["committed_xids"] for r in wal.values())
    # the truncated block's rows are among them
    assert any(ctid.startswith(f"({facts['truncated_block']},") for ctid, _ in wal)
    # every version carved from the pages' free space is one the server had: never an invented row
    had = {(int(v[1]), tuple(v[2:])) for v in o["versions"]}
    assert [p for p in pruned if (p[0], tuple(p[1])) not in had] == []
    held = [(r["ctid"], r["xmin"]) for r in records if r["status"] != "pruned"]
    assert len(held) == len(set(held)) and set(held) <= set(versions)    # each version the server had, once
    assert not [f for f in t.findings if f.severity == "error"], t.findings


def test_status_filter_and_csv(unpacked):
    """--status wal keeps exactly the WAL versions; --csv prints them with status wal."""
    major = 15
    data, archive = unpacked(major), WALROWS / f"pg{major}" / "archive"
    every = [r for r in table(data, archive).text_records() if r["status"] == "wal"]
    out = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", "pgpage", "--rel", "t",
                          "--wal", str(archive), "--status", "wal", "--csv"], capture_output=True, text=True,
                         cwd=REPO)
    assert out.returncode == 0, out.stderr
    header, *lines = csv.reader(io.StringIO(out.stdout))
    assert header[:7] == ["pgpage_ctid", "pgpage_xmin", "pgpage_xmax", "pgpage_status", "pgpage_lp_off",
                          "pgpage_damage", "id"]
    assert len(lines) == len(every)
    assert all(line[3] == "wal" for line in lines)
    assert sorted(line[0] for line in lines) == sorted(r["ctid"] for r in every)


@pytest.mark.parametrize("damage", ["crc", "torn"])
def test_damaged_segment_is_a_finding(damage, unpacked, tmp_path):
    """A record whose bytes changed (its CRC fails) or a segment cut short ends the WAL there with a finding;
    the versions of the records before it still come back, and nothing is a traceback."""
    major = 15
    data = unpacked(major)
    src = next((WALROWS / f"pg{major}" / "archive").iterdir())
    segment = bytearray(gzip.decompress(src.read_bytes()))
    reader = WalReader(WalDirectory(WALROWS / f"pg{major}" / "archive"))
    first_update = next(rec.lsn for rec in reader.records() if rec.rmid == versions.RMGR_HEAP
                        and versions.wal_record_type(major, rec.rmid, rec.info) == "HOT_UPDATE")
    cut = first_update % len(segment)     # (the WAL's only segment: its offset in it)
    if damage == "crc":
        segment[cut + 30] ^= 0xFF
    else:
        segment = segment[:cut + 10]
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / src.name.removesuffix(".gz")).write_bytes(bytes(segment))
    whole = {r["ctid"] for r in table(data, WALROWS / f"pg{major}" / "archive").text_records() if r["status"] == "wal"}
    t = table(data, archive)
    records = [r for r in t.text_records() if r["status"] == "wal"]
    assert 0 < len(records) < len(whole)
    assert {r["ctid"] for r in records} <= whole
    assert any(f.code.startswith("wal.") and f.severity in ("error", "warning") for f in t.findings), t.findings
    out = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", "pgpage", "--rel", "t",
                          "--wal", str(archive), "--json"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_update_prefix_from_the_page(major, unpacked):
    """Table u's rows were written before the kept WAL and HOT-updated in it: each update's prefix and suffix come
    from the old version on the page (on 10 the first update carries the page's image: from there), and every
    rebuilt tuple is byte for byte the page's new version (so none is printed as a WAL version)."""
    t = resolve(str(unpacked(major)), "pgpage", "u", "main", need_relation=True, what="table")
    rows = TableRows(t.cluster, t.relation, RowOptions(all_versions=True, carve=True,
                                                       wal=str(WALROWS / f"pg{major}" / "archive")))
    records = list(rows.text_records())
    assert not [f for f in rows.findings if f.code.startswith("rows.wal.")], rows.findings
    assert not [r for r in records if r["status"] == "wal"]
    items = {(i["lp"], i["t_xmin"]): i for i in oracle(major)["u_items"] if i["lp_flags"] == LP_NORMAL}
    page = rows.fork.read_block(0)
    rebuilt = list(rows.wal.versions.values())
    committed = oracle(major)["facts"]["committed_xids"]
    updater = committed[committed.index(oracle(major)["facts"]["multixact"]["updater"]) - 1]   # (u's, then t's)
    assert len([v for v in rebuilt if v.xmin == updater]) == 10 and all(v.block == 0 for v in rebuilt)
    for v in rebuilt:
        item = items[(v.offset, v.xmin)]
        on_page = page[item["lp_off"]:item["lp_off"] + item["lp_len"]]
        assert v.data[TUPLE_HEADER.size:] == on_page[TUPLE_HEADER.size:], v.offset


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_prepared_transactions_decided_by_their_records(major, unpacked):
    """A prepared transaction's fate is in its COMMIT PREPARED or ROLLBACK PREPARED record (the record's own xid is
    the committer's, the prepared one's is in xl_xact_twophase): its rows that VACUUM took come back with it."""
    o = oracle(major)
    prepared = o["facts"]["prepared"]
    t = table(unpacked(major), WALROWS / f"pg{major}" / "archive")
    wal = {(r["ctid"], r["xmin"]): r for r in t.text_records() if r["status"] == "wal"}
    assert t.wal.outcomes[prepared["committed"]] is True and t.wal.outcomes[prepared["aborted"]] is False
    names = [c["name"] for c in o["columns"]]
    by_xmin = {}
    for (ctid, xmin), r in wal.items():
        by_xmin.setdefault(xmin, set()).add(r["values"]["id"])
        if xmin in prepared.values():
            assert [r["values"][n] for n in names] == gone(o)[(ctid, xmin)], (ctid, xmin)
            assert r["xmin_status"] == ("committed" if xmin == prepared["committed"] else "aborted")
    assert by_xmin[prepared["committed"]] >= {"602", "604"}        # deleted, then vacuumed
    assert by_xmin[prepared["aborted"]] == {"610", "611", "612", "613", "614"}


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_multixact_xmax_decided_through_pg_multixact(major, unpacked, tmp_path):
    """Row 21 was key-share-locked by one session and updated by another: the replaced version's xmax is a
    multixact (the one the locker saw), decided by its updating member from pg_multixact as for pages; without
    pg_multixact it is unknown, never the fate of the xid that has the multixact's number."""
    import shutil

    import numpy as np
    o = oracle(major)
    mx = o["facts"]["multixact"]
    archive = WALROWS / f"pg{major}" / "archive"

    def replaced(data):
        t = table(data, archive)
        rows = [r for r in t.text_records() if r["status"] == "wal" and r["values"]["id"] == str(mx["id"])
                and r["xmax"] == mx["xmax"]]
        assert len(rows) == 1, rows
        return t, rows[0]

    t, r = replaced(unpacked(major))
    assert [v for v in t.wal.versions.values() if v.xmax == mx["xmax"] and v.xmax_multi]
    assert int(t.cluster.multi_update_xid(np.array([mx["xmax"]]))[0]) == mx["updater"]
    assert r["xmax_status"] == "committed" and mx["updater"] in o["facts"]["committed_xids"]
    copy = tmp_path / "data"
    shutil.copytree(unpacked(major), copy)
    shutil.rmtree(copy / "pg_multixact" / "members")
    _, r = replaced(copy)
    assert r["xmax_status"] == "unknown", r


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_rewritten_table_is_a_finding(major, unpacked):
    """Table w was rewritten by VACUUM FULL in the WAL's span: its current file is read, and a finding names the
    files the rewriting transaction dropped, the older one among them (its versions are not attributed)."""
    rewritten = oracle(major)["facts"]["rewritten"]
    t = resolve(str(unpacked(major)), "pgpage", "w", "main", need_relation=True, what="table")
    assert t.relation.relfilenode == rewritten["after"]
    rows = TableRows(t.cluster, t.relation, RowOptions(all_versions=True, wal=str(WALROWS / f"pg{major}" / "archive")))
    records = list(rows.text_records())
    assert sorted(r["values"]["id"] for r in records if r["status"] == "live") == ["1", "3", "4", "5"]
    found = [f for f in rows.findings if f.code == "rows.wal.relfilenode_changed"]
    assert len(found) == 1 and found[0].severity == "warning", rows.findings
    assert f"/{rewritten['after']} was made" in found[0].message
    assert f"/{rewritten['before']}" in found[0].message.split("dropped")[1]
