"""pgpage index through its real entry point, on the real fixture clusters, text and JSON."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from conftest import MAJORS, data_dir, rel_names, rel_oracle

PGPAGE = [sys.executable, "-m", "pgpage"]
BS = 8192


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


def index(*args) -> Run:
    """``pgpage index ...`` in this process through Typer's CliRunner (one interpreter start saved per
    call), with refused input mapped to its exit code and one-line message as the console entry point
    maps it (``cli.main.run``; the subprocess test below checks that path itself)."""
    from typer.testing import CliRunner
    from pgpage.cli.main import app
    from pgpage.findings import PgpageError
    r = CliRunner().invoke(app, ["index", *map(str, args)])
    if isinstance(r.exception, PgpageError):
        return Run(int(r.exception.exit_code), r.stdout, f"pgpage: {r.exception}")
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Run(r.exit_code, r.stdout, "")


def index_subprocess(*args):
    return subprocess.run([*PGPAGE, "index", *map(str, args)], capture_output=True, text=True, timeout=300)


def leaf_items(oracle: dict):
    for page in oracle["forks"]["main"][1:]:
        s = page["bt_page_stats"]
        if s["type"] != "l":
            continue
        for it in page["bt_page_items"]:
            if s["btpo_next"] and it["itemoffset"] == 1:
                continue
            yield it


def pgstatindex_as_json(want: dict) -> dict:
    return {k: (None if v == "nan" else v) for k, v in want.items()}


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_json_equals_the_servers_figures(major):
    r = index(data_dir(major), "--db", "pgpage", "--rel", "idx_dup", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    oracle = rel_oracle(major, "idx_dup")
    assert doc["schema"] == "pgpage.index/1"
    assert (doc["relation"], doc["table"], doc["major"]) == ("public.idx_dup", "public.btree_dup", major)
    assert doc["pgstatindex"] == pgstatindex_as_json(oracle["pgstatindex"])
    assert doc["bt_metap"] == oracle["bt_metap"]
    d = doc["deduplication"]
    items = list(leaf_items(oracle))
    assert d["posting_tuples"] == sum(1 for it in items if it.get("tids"))
    assert d["tids"] == sum(len(it["tids"]) if it.get("tids") else 1 for it in items)
    assert doc["heap_check"]["tids_checked"] == d["tids"] and doc["heap_check"]["normal"] == d["tids"]
    assert doc["findings"] == []
    assert [a["attname"] for a in doc["index"]["attributes"]] == ["k"]
    assert doc["root_items"]["blkno"] == oracle["pgstatindex"]["root_block_no"]


def test_text_report_fits_100_columns_and_tells_the_story():
    oracle = rel_oracle(17, "idx_dup_nodedup")
    r = index(data_dir(17), "--rel", "idx_dup_nodedup", "--map")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    text = r.stdout
    s = oracle["pgstatindex"]
    assert f"avg_leaf_density {s['avg_leaf_density']:.2f}" in text
    assert f"leaf_pages {s['leaf_pages']}" in text and f"index_size {s['index_size']}" in text
    assert "deduplicate_items off" in text and "cannot deduplicate" in text
    assert "WITH (deduplicate_items=off)" in text
    assert "leaf page maps" in text and "posting share" in text and "M metapage" in text
    assert "structure: no findings" in text
    assert "table check" in text and "normal 450" in text


def test_dead_items_and_heap_states_in_text():
    r = index(data_dir(16), "--rel", "idx_killed")
    assert r.returncode == 0, r.stderr
    dead = sum(1 for it in leaf_items(rel_oracle(16, "idx_killed")) if it["dead"])
    assert f"{dead} LP_DEAD" in r.stdout
    assert f"dead {dead}" in r.stdout  # their heap line pointers were pruned to LP_DEAD


def test_empty_index_is_nan_like_pgstatindex():
    metapage_only = [n for n in rel_names(17) if rel_oracle(17, n).get("amname") == "btree"
                     and rel_oracle(17, n)["pgstatindex"]["leaf_pages"] == 0]
    name = metapage_only[0]
    r = index(data_dir(17), "--rel", name, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["pgstatindex"]["avg_leaf_density"] is None and doc["pgstatindex"]["leaf_fragmentation"] is None
    assert doc["pgstatindex"] == pgstatindex_as_json(rel_oracle(17, name)["pgstatindex"])
    t = index(data_dir(17), "--rel", name)
    assert "avg_leaf_density NaN" in t.stdout and t.returncode == 0


def test_segment_file_inside_a_data_directory_finds_its_catalog():
    oracle = rel_oracle(15, "idx_killed")
    r = index(data_dir(15) / oracle["filepath"], "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["relation"] == "public.idx_killed" and doc["table"] == "public.heap_killed"
    assert doc["heap_check"]["dead"] == sum(1 for it in leaf_items(oracle) if it["dead"])
    assert doc["pgstatindex"] == pgstatindex_as_json(oracle["pgstatindex"])


def test_a_copied_file_alone_still_gives_the_figures(tmp_path):
    oracle = rel_oracle(12, "idx_multilevel")
    src = data_dir(12) / oracle["filepath"]
    shutil.copy(src, tmp_path / src.name)
    r = index(tmp_path / src.name, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["index"] is None and doc["heap_check"] is None
    assert doc["pgstatindex"] == pgstatindex_as_json(oracle["pgstatindex"])
    t = index(tmp_path / src.name)
    assert "table check  not done" in t.stdout


def test_block_shows_keys_beside_raw_bytes():
    oracle = rel_oracle(17, "idx_two")
    leaf = next(p for p in oracle["forks"]["main"][1:] if p["bt_page_stats"]["type"] == "l")
    r = index(data_dir(17), "--rel", "idx_two", "--block", leaf["blkno"], "--json")
    assert r.returncode == 0, r.stderr
    block = json.loads(r.stdout)["block"]
    assert block["blkno"] == leaf["blkno"]
    for got, want in zip(block["bt_page_items"], leaf["bt_page_items"]):
        assert got["data"] == want["data"]
        if got["keys"] and not got["high_key"]:
            raw = bytes.fromhex(want["data"].replace(" ", ""))
            assert [k["value"] for k in got["keys"]] == [str(int.from_bytes(raw[0:4], "little", signed=True)),
                                                         str(int.from_bytes(raw[4:8], "little", signed=True))]
    t = index(data_dir(17), "--rel", "idx_two", "--block", leaf["blkno"])
    assert "keys decoded from the catalog" in t.stdout
    assert max(len(line) for line in t.stdout.splitlines()) <= 100


def test_damaged_copy_exits_1_with_findings(tmp_path):
    oracle = rel_oracle(14, "idx_multilevel")
    src = data_dir(14) / oracle["filepath"]
    dst = tmp_path / src.name
    data = bytearray(src.read_bytes())
    leaf = next(p["blkno"] for p in oracle["forks"]["main"][1:]
                if p["bt_page_stats"]["type"] == "l" and p["bt_page_stats"]["btpo_next"])
    data[leaf * BS + BS - 12:leaf * BS + BS - 8] = (10_000).to_bytes(4, "little")  # btpo_next past the end
    dst.write_bytes(bytes(data))
    r = index(dst, "--json")
    assert r.returncode == 1
    got = {(f["code"], f.get("block")) for f in json.loads(r.stdout)["findings"]}
    assert ("btree.sibling.next_out_of_range", leaf) in got
    assert ("checksum.mismatch", leaf) in got
    t = index(dst)
    assert t.returncode == 1 and "btree.sibling.next_out_of_range" in t.stdout


def test_refuses_what_is_not_a_btree(tmp_path):
    r = index_subprocess(data_dir(17), "--rel", "heap_hot")
    assert r.returncode == 2 and "not a B-tree index" in r.stderr and "Traceback" not in r.stderr
    heap = data_dir(17) / rel_oracle(17, "heap_hot")["filepath"]
    shutil.copy(heap, tmp_path / "16999")
    r = index_subprocess(tmp_path / "16999")
    assert r.returncode == 3 and "not a B-tree index" in r.stderr
    (tmp_path / "junk").write_bytes(np.random.default_rng(1).integers(0, 256, BS * 2, dtype=np.uint8).tobytes())
    r = index_subprocess(tmp_path / "junk")
    assert r.returncode == 3 and "Traceback" not in r.stderr
    r = index(data_dir(17))
    assert r.returncode == 2 and "--rel" in r.stderr


def test_jobs_do_not_change_the_report():
    """--jobs reaches the scan (a fixture index is too small to be cut: tests/analysis/test_btree.py cuts them)."""
    major = MAJORS[-1]
    one = index_subprocess(data_dir(major), "--rel", "idx_multilevel", "--json", "--jobs", "1")
    two = index_subprocess(data_dir(major), "--rel", "idx_multilevel", "--json", "--jobs", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert json.loads(one.stdout)["heap_check"]["tids_checked"] > 0


def test_an_index_of_few_entries_is_checked_in_one_process(monkeypatch):
    """A partial index with fewer entries (pg_class.reltuples) than a quarter of its table's blocks is checked
    in one process whatever --jobs says (workers sharing the table's cache would decode all of the table);
    an index of every row is cut over the workers. Both report the server's pgstatindex."""
    from livepg import running_server
    from pgpage.passes import index as index_pass, parallel
    from pgpage.storage import relfile
    monkeypatch.setattr(relfile, "CHUNK_BLOCKS", 4)  # so that even a small index is cut into ranges
    monkeypatch.setattr(parallel, "MIN_RANGE_CHUNKS", 1)
    jobs_used = []
    scan_index = index_pass.scan_index

    def spy(*args, **kw):
        jobs_used.append(kw["jobs"])
        return scan_index(*args, **kw)
    monkeypatch.setattr(index_pass, "scan_index", spy)
    with running_server() as srv:
        with srv.connect() as conn:
            conn.execute("CREATE EXTENSION pgstattuple")
            conn.execute("CREATE TABLE t (id int, v int)")
            conn.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 40000) i")
            conn.execute("CREATE INDEX t_few ON t (id) WHERE id % 1000 = 0")
            conn.execute("CREATE INDEX t_all ON t (v)")
            conn.execute("CHECKPOINT")
            want = {name: conn.execute(f"SELECT * FROM pgstatindex('{name}')").fetchone()
                    for name in ("t_few", "t_all")}
            few, blocks = conn.execute("SELECT reltuples, pg_relation_size('t') / 8192 FROM pg_class"
                                       " WHERE relname = 't_few'").fetchone()
        assert 0 < few < blocks / 4
        for name, jobs in (("t_few", 1), ("t_all", 2)):
            jobs_used.clear()
            r = index(srv.data, "--db", "postgres", "--rel", f"public.{name}", "--json", "--jobs", "2")
            assert r.returncode == 0, r.stderr
            assert jobs_used == [jobs], name
            doc = json.loads(r.stdout)
            assert doc["pgstatindex"]["leaf_pages"] == want[name][5], name
            assert doc["heap_check"]["normal"] == doc["heap_check"]["tids_checked"] == (40 if jobs == 1 else 40000)
