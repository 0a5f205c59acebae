"""pgpage wal through its real entry point: the fixtures' WAL (fixtures/make_wal.py), damaged copies of it, and
a live Debian 15 server whose WAL spans several 1 MB segments (records across segment boundaries), read
beside its own pg_waldump, with relation names from its catalogs."""
from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, data_dir

PGPAGE = [sys.executable, "-m", "pgpage"]
WAL = FIXTURES / "wal"


def wal(*args):
    return subprocess.run([*PGPAGE, "wal", *map(str, args)], capture_output=True, text=True, timeout=300)


def oracle(major: int) -> dict:
    with gzip.open(WAL / f"pg{major}" / "oracle.json.gz") as f:
        return json.load(f)


def lines(r) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines()]


def segment_copy(major: int, dest: Path) -> Path:
    """The fixture's one segment, unpacked into ``dest`` (a real segment to damage)."""
    (src,) = (WAL / f"pg{major}" / "archive").glob("*.gz")
    dest.mkdir(parents=True, exist_ok=True)
    out = dest / src.name.removesuffix(".gz")
    out.write_bytes(gzip.decompress(src.read_bytes()))
    return out


@pytest.mark.parametrize("major", [10, 16])
def test_json_records_and_summary(major):
    r = wal(WAL / f"pg{major}" / "archive", "--json")
    assert r.returncode == 0, r.stderr
    docs = lines(r)
    records, (summary,) = docs[:-1], docs[-1:]
    assert all(d["type"] == "record" and d["schema"] == "pgpage.wal/1" for d in records)
    facts = oracle(major)["facts"]
    assert summary["type"] == "summary" and summary["schema"] == "pgpage.wal/1"
    assert (summary["major"], summary["system_identifier"], summary["wal_segment_size"]) == (
        major, facts["system_identifier"], facts["wal_segment_size"])
    assert summary["records"] == len(records) and summary["stop"]["code"] == "wal.end"
    assert (records[0]["lsn"], records[-1]["lsn"], records[-1]["end_lsn"]) == (
        facts["start_lsn"], facts["before_switch_lsn"], facts["end_lsn"])
    if major >= 15:
        want = oracle(major)["records"]
        assert [(d["lsn"], d["record_type"], d["length"], d["fpi_length"]) for d in records] == [
            (w["start_lsn"], w["record_type"], w["record_length"], w["fpi_length"]) for w in want]


def test_filters_and_text():
    facts = oracle(16)["facts"]
    xid = facts["committed_xids"][0]
    r = wal(WAL / "pg16" / "archive", "--json", "--xid", xid, "--rmgr", "Heap")
    recs = lines(r)[:-1]
    want = [w for w in oracle(16)["records"] if w["xid"] == xid and w["resource_manager"] == "Heap"]
    assert [d["lsn"] for d in recs] == [w["start_lsn"] for w in want] and want
    r = wal(WAL / "pg16" / "archive", "--start", want[5]["start_lsn"], "--end", want[10]["start_lsn"])
    body = [x for x in r.stdout.splitlines() if not x.startswith("#")]
    inside = [w for w in oracle(16)["records"] if want[5]["start_lsn"] <= w["start_lsn"] < want[10]["start_lsn"]]
    assert len(body) == len([w for w in oracle(16)["records"]
                             if _lsn(want[5]["start_lsn"]) <= _lsn(w["start_lsn"]) < _lsn(want[10]["start_lsn"])])
    assert body[0].startswith("rmgr: Heap") and f"lsn: {want[5]['start_lsn']}," in body[0] and inside
    assert wal(WAL / "pg16" / "archive", "--rmgr", "nosuch").returncode == 2
    assert wal(WAL / "pg16" / "archive", "--start", "zz").returncode == 2


def _lsn(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


@pytest.mark.parametrize("major", [15, 18])
def test_stats_json_as_pg_get_wal_stats(major):
    r = wal(WAL / f"pg{major}" / "archive", "--stats", "--json")
    assert r.returncode == 0
    (summary,) = lines(r)
    for key, ours in (("stats", "rmgrs"), ("stats_per_record", "record_types")):
        want = {w["resource_manager/record_type"]: (w["count"], w["record_size"], w["fpi_size"])
                for w in oracle(major)[key] if w["count"]}
        assert {x["name"]: (x["count"], x["record_size"], x["fpi_size"]) for x in summary["stats"][ours]} == want
    text = wal(WAL / f"pg{major}" / "archive", "--stats").stdout
    inserts = next(w["count"] for w in oracle(major)["stats_per_record"]
                   if w["resource_manager/record_type"] == "Heap/INSERT")
    assert re.search(rf"^Heap/INSERT\s+{inserts} ", text, re.M)


def test_stats_start_without_numpy():
    """wal --stats of a data directory (its pg_control read) never imports numpy: the import alone costs more CPU
    than pg_waldump --stats takes for hundreds of MB (issue 38's target), so the count runs on ctypes arrays."""
    code = ("import sys\nfrom pgpage.cli.main import run\n"
            f"sys.argv = ['pgpage', 'wal', {str(data_dir(15))!r}, '--wal', {str(WAL / 'pg15' / 'archive')!r}, '--stats']\n"
            "try:\n    run()\nexcept SystemExit:\n    pass\nprint('numpy' in sys.modules, file=sys.stderr)\n"
            "print(sorted(m for m in ('rich', 'json', 'pgpage.storage.datadir') if m in sys.modules), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert re.search(r"^Heap/INSERT\s+\d+ ", r.stdout, re.M), r.stdout + r.stderr
    assert r.stderr.splitlines()[-2] == "False", r.stderr
    assert r.stderr.splitlines()[-1] == "[]", r.stderr      # nor Rich, json or the catalogs' storage layer


# ------------------------------------------------------------------ damaged input


def test_bad_crc_ends_the_stream_there(tmp_path):
    seg = segment_copy(16, tmp_path / "wal")
    target = oracle(16)["records"][30]
    data = bytearray(seg.read_bytes())
    at = _lsn(target["start_lsn"]) % (1 << 20) + 26          # a byte of its block header, inside the CRC
    data[at] ^= 0xFF
    seg.write_bytes(bytes(data))
    r = wal(tmp_path / "wal", "--json")
    assert r.returncode == 1
    docs = lines(r)
    assert len(docs) - 1 == 30
    assert docs[-1]["stop"]["code"] == "wal.record.bad_crc" and target["start_lsn"] in docs[-1]["stop"]["message"]


def test_truncated_segment_is_a_torn_record(tmp_path):
    seg = segment_copy(16, tmp_path / "wal")
    crossing = next(w for w in oracle(16)["records"]
                    if _lsn(w["start_lsn"]) // 8192 != (_lsn(w["end_lsn"]) - 1) // 8192)
    cut = (_lsn(crossing["end_lsn"]) // 8192) * 8192 % (1 << 20)   # the record runs past this page start
    seg.write_bytes(seg.read_bytes()[:cut])
    r = wal(tmp_path / "wal", "--json")
    assert r.returncode == 1
    stop = lines(r)[-1]["stop"]
    assert stop["code"] == "wal.record.torn" and crossing["start_lsn"] in stop["message"]


def test_short_file_at_a_record_boundary_is_the_end_of_wal(tmp_path):
    seg = segment_copy(16, tmp_path / "wal")
    rec = oracle(16)["records"][40]
    seg.write_bytes(seg.read_bytes()[:_lsn(rec["end_lsn"]) % (1 << 20)])
    r = wal(tmp_path / "wal", "--json")
    assert r.returncode == 0
    docs = lines(r)
    assert len(docs) - 1 == 41 and docs[-1]["stop"]["code"] == "wal.end"


def test_garbage_is_refused(tmp_path):
    (tmp_path / "000000010000000000000001").write_bytes(bytes(range(256)) * 4096)
    r = wal(tmp_path)
    assert r.returncode == 3 and "not a WAL segment" in r.stderr and "Traceback" not in r.stderr
    assert wal(tmp_path / "nothing").returncode == 3


def test_gap_and_another_major(tmp_path):
    seg = segment_copy(16, tmp_path / "gap")
    shutil.copy(seg, seg.with_name(f"{seg.name[:16]}{int(seg.name[16:], 16) + 2:08X}"))
    r = wal(tmp_path / "gap", "--json")
    assert r.returncode == 1 and lines(r)[-1]["stop"]["code"] == "wal.segment.missing"
    seg = segment_copy(16, tmp_path / "mixed")
    other = segment_copy(17, tmp_path / "x")
    shutil.move(other, seg.with_name(f"{seg.name[:16]}{int(seg.name[16:], 16) + 1:08X}"))
    r = wal(tmp_path / "mixed", "--json")
    stop = lines(r)[-1]["stop"]
    assert r.returncode == 1 and stop["code"] == "wal.page.bad_magic" and "PostgreSQL 17" in stop["message"]


def test_another_system_and_major_than_the_data_directory():
    r = wal(data_dir(15), "--wal", WAL / "pg16" / "archive", "--json")
    assert r.returncode == 1
    codes = {f["code"] for f in lines(r)[-1]["findings"]}
    assert {"wal.segment.other_system", "wal.segment.other_major"} <= codes


# ------------------------------------------------------------------ a live server: segments, names, pg_waldump 15


def test_live_segments_names_and_pg_waldump(tmp_path):
    from livepg import Server, major_bindir
    bindir = major_bindir(15)
    srv = Server(bindir)
    try:
        srv.run("initdb", "-k", "--wal-segsize=1", "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8",
                "-D", str(srv.data))
        srv.opts = (f"-c listen_addresses='' -c unix_socket_directories={srv.root} -c autovacuum=off "
                    "-c wal_keep_size=64MB")        # the checkpoints keep the segments read here
        srv.restart()
        with srv.connect() as c:
            c.execute("CREATE TABLE t (id int, v text)")
            c.execute("ALTER TABLE t ALTER v SET STORAGE PLAIN")
            start = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
            c.execute("INSERT INTO t SELECT g, repeat(md5(g::text), 200) FROM generate_series(1, 800) g")
            end = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
            c.execute("CREATE EXTENSION pageinspect")
            c.execute("CHECKPOINT")
            c.execute("SELECT count(*) FROM t")        # the first hint bits since: an image of each page (FPI_FOR_HINT)
            image_end = c.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0]
            items = c.execute("SELECT lp, lp_off, lp_flags, lp_len, t_xmin::text::bigint, t_xmax::text::bigint, "
                              "t_ctid::text, t_infomask2 FROM heap_page_items(get_raw_page('t', 0))").fetchall()
            c.execute("CHECKPOINT")
        srv.stop()
        r = wal(srv.data, "--json", "--db", "postgres", "--rel", "t", "--start", end)
        t_records = lines(r)[:-1]
        page = subprocess.run([*PGPAGE, "page", srv.data, "--db", "postgres", "--rel", "t", "--block", "0",
                               "--lsn", image_end, "--json"], capture_output=True, text=True, timeout=300)
        dump = subprocess.run([str(bindir / "pg_waldump"), "-p", str(srv.data / "pg_wal"), "-s", start, "-e", end],
                              capture_output=True, text=True).stdout.splitlines()
        r = wal(srv.data, "--json", "--start", start, "--end", end)
        recs = lines(r)[:-1]
        whole = wal(srv.data, "--json")          # to the end of WAL: the shutdown checkpoint, then zeros
        whole_docs = lines(whole)
    finally:
        srv.stop("immediate")
        srv.remove()
    assert page.returncode == 0, page.stderr
    doc = json.loads(page.stdout)
    images = [d for d in t_records if _lsn(d["lsn"]) <= _lsn(image_end) and any(
        b["fpi"] and b["block"] == 0 and b["fork"] == "main" and b["relation"] == "public.t" for b in d["blocks"])]
    assert doc["wal"]["lsn"] == images[-1]["lsn"] and images[-1]["record_type"] == "FPI_FOR_HINT"
    assert [(i["lp"], i["lp_off"], i["lp_flags"], i["lp_len"], i.get("t_xmin"), i.get("t_xmax"), i.get("t_ctid"),
             i.get("t_infomask2")) for i in doc["pages"][0]["heap_page_items"]] == [tuple(x) for x in items]
    assert whole.returncode == 0 and whole_docs[-1]["stop"]["code"] == "wal.end"
    assert whole_docs[-2]["record_type"] == "CHECKPOINT_SHUTDOWN"
    assert len(recs) == len(dump) > 800
    for rec, line in zip(recs, dump):
        m = re.match(r"rmgr: (\w+)\s+len \(rec/tot\):\s+(\d+)/\s*(\d+), tx:\s+(\d+), lsn: ([0-9A-F/]+), "
                     r"prev ([0-9A-F/]+), desc: (\S+)", line)
        assert (m[1], int(m[2]), int(m[3]), int(m[4]), _lsn(m[5]), _lsn(m[6]), m[7]) == (
            rec["rmgr"], rec["length"] - rec["fpi_length"], rec["length"], rec["xid"], _lsn(rec["lsn"]),
            _lsn(rec["prev_lsn"]), rec["record_type"])
    seg = 1 << 20
    assert sum(_lsn(r["lsn"]) // seg != (_lsn(r["end_lsn"]) - 1) // seg for r in recs) >= 1
    heap = [r for r in recs if r["rmgr"] == "Heap" and r["record_type"].startswith("INSERT")]
    assert len(heap) == 800
    assert {(b["database"], b["relation"]) for r in heap for b in r["blocks"]} == {("postgres", "public.t")}


def test_timelines_through_the_cli():
    """The promotion fixture: records read across the switch to timeline 2 by its history (JSON summary: the
    timeline and its history); asked for timeline 1, timeline 2's segment is named as not read; a timeline no file
    names is a usage error."""
    archive = WAL / "timeline" / "archive"
    r = wal(archive, "--json")
    assert r.returncode == 0, r.stderr
    *records, summary = lines(r)
    assert (summary["timeline"], summary["history"]) == (2, [{"timeline": 1, "begin": None, "end": "0/E000A0"},
                                                             {"timeline": 2, "begin": "0/E000A0", "end": None}])
    assert [f["code"] for f in summary["findings"]] == ["wal.end"] and summary["records"] == len(records) > 80
    assert [d["record_type"] for d in records if d["lsn"] == "0/E000A0"] == ["END_OF_RECOVERY"]
    r = wal(archive, "--timeline", "1")
    assert r.returncode == 0, r.stderr
    assert "wal.segment.other_timeline: 00000002000000000000000E.gz is not read" in r.stdout
    r = wal(archive, "--timeline", "5")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "timeline 5" in r.stderr
