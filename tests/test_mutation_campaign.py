"""The mutation campaign's CI-sized sample: damaged real files (tests/mutation.py) through every command.

A fixed seed and ``CASES`` cases (a case is one mutated input through one command; the commands and the kinds of
damage are cycled, so each gets its share), run in a worker process through the real entry point, each under
``CASE_SECONDS``. Any traceback or "internal error", hang, crash, exit status outside {0, 1, 3}, output that is not
JSON lines where --json was asked, or peak RSS over ``RSS_LIMIT_MB`` fails the test, with a line per failure that
reproduces it (``python tests/mutation.py SEED INDEX``). The large run is bench/mutation_campaign.py.
"""
from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import MAJORS, catalog_oracle, data_dir, rel_oracle
from mutation import KINDS, Runner, command_names, invoke, outcome

SEED = int(os.environ.get("PGPAGE_MUTATION_SEED", 20261128))
CASES = int(os.environ.get("PGPAGE_MUTATION_CASES", 260))
CASE_SECONDS = 30
RSS_LIMIT_MB = 1024


def test_mutated_real_files_through_every_command():
    runner = Runner(case_seconds=CASE_SECONDS, rss_limit_mb=RSS_LIMIT_MB)
    results = []
    try:
        for i in range(CASES):
            results.append(runner.run(SEED, i))
    finally:
        runner.close()
    outcomes = Counter(outcome(r) for r in results)
    print(f"\nmutation campaign: {len(results)} cases, seed {SEED}: {dict(outcomes)}")
    failures = [f"{r['failure']}: {r['reproducer']}\n    pgpage {r['argv']}\n    {r['detail'][-400:]}"
                for r in results if r["failure"]]
    assert not failures, f"{len(failures)} of {len(results)} cases failed:\n" + "\n".join(failures)
    # every command and every kind of damage had its turn, and the damage was seen (not every case clean)
    assert {r["command"] for r in results} == set(command_names())
    assert {r["kind"] for r in results} == set(KINDS)
    assert outcomes["exit 1"] + outcomes["exit 3"] > len(results) // 10


# ------------------------------------------------------------------ regressions: cases the campaign found
def _damaged_copy(tmp_path, major: int, path: str, mutate) -> Path:
    """A copy of fixture ``major``'s data directory with ``path`` (one of its files) changed by ``mutate``."""
    d = tmp_path / "data"
    shutil.copytree(data_dir(major), d)
    f = d / path
    f.chmod(0o644)
    f.write_bytes(mutate(bytearray(f.read_bytes())))
    return d


def _catalog_file(major: int, relname: str) -> str:
    return next(r["filepath"] for r in catalog_oracle(major)["relations"] if r["relname"] == relname)


@pytest.mark.parametrize("major", MAJORS)
def test_diff_of_two_files_of_a_relation_in_text(tmp_path, major):
    """`diff BEFORE_FILE AFTER_FILE` printed its header and then 'internal error: KeyError: 'before''
    (python tests/mutation.py 7 154: one line pointer's flags changed on btree_wide's block 1)."""
    path = _catalog_file(major, "btree_wide")

    def mutate(data):
        data[8192 + 100] ^= 0xFF
        return data
    d = _damaged_copy(tmp_path, major, path, mutate)
    r = invoke(["diff", str(data_dir(major) / path), str(d / path)])
    assert r["escaped"] is None and "internal error" not in r["stderr"], r["stderr"]
    assert r["status"] == 1
    blocks = (d / path).stat().st_size // 8192
    text = " ".join(r["stdout"].decode().split())
    # inside their data directories the files name public.btree_wide, compared as `diff --rel` compares it
    assert f"public.btree_wide (table, heap) {blocks} → {blocks} pages" in text and "pages: 1 changed" in text
    same = invoke(["diff", str(data_dir(major) / path), str(data_dir(major) / path)])
    assert same["status"] == 0 and "no differences" in same["stdout"].decode()


@pytest.mark.parametrize("catalog,command", [("pg_database", ["heap", "--db", "pgpage", "--rel", "heap_hot"]),
                                             ("pg_class", ["rows", "--db", "pgpage", "--rel", "heap_hot"]),
                                             ("pg_namespace", ["verify", "--db", "pgpage", "--rel", "public.heap_hot"])])
def test_a_name_in_a_damaged_catalog_is_unreadable_input_not_usage(tmp_path, catalog, command):
    """A database or relation named right, in a cluster whose pg_database or pg_class lost the page that names
    it (or whose pg_namespace lost the schemas' names) was 'no database'/'no relation' with exit 2 (usage)
    (python tests/mutation.py 1 237, 1 474, 2 291): it is
    exit 3 (the input is what is wrong) and the line says which catalog is damaged. A name that is not there
    in an undamaged cluster stays a usage error."""
    major = MAJORS[-1]
    d = _damaged_copy(tmp_path, major, _catalog_file(major, catalog), lambda data: bytearray(len(data)))
    r = invoke([command[0], str(d), *command[1:]])
    assert r["escaped"] is None and r["status"] == 3, (r["status"], r["stderr"])
    assert ("the catalogs that name them are damaged" in r["stderr"]
            or "pg_database names none of them (no readable row)" in r["stderr"])
    assert len(r["stderr"].strip().splitlines()) == 1
    clean = invoke([command[0], str(data_dir(major)), *command[1:-1], "no_such_name"])
    assert clean["status"] == 2 and "damaged" not in clean["stderr"]


def test_index_whose_access_method_pg_am_lost(tmp_path):
    """pg_am cut to 0 bytes: `index --rel idx_dup` said 'is a index (no access method), not a B-tree index',
    exit 2 (python tests/mutation.py 2 1252). The file's metapage decides instead: a B-tree is analysed, a GIN
    index is read as GIN (since issue 41 pgpage decodes GIN indexes: its pages say what it is)."""
    major = MAJORS[-1]
    d = _damaged_copy(tmp_path, major, _catalog_file(major, "pg_am"), lambda data: bytearray())
    r = invoke(["index", str(d), "--db", "pgpage", "--rel", "idx_dup", "--json"])
    assert r["escaped"] is None and r["status"] == 0, r["stderr"]
    want = rel_oracle(major, "idx_dup")["pgstatindex"]
    got = json.loads(r["stdout"])["pgstatindex"]
    assert (got["leaf_pages"], got["tree_level"]) == (want["leaf_pages"], want["tree_level"])
    gin = invoke(["index", str(d), "--db", "pgpage", "--rel", "idx_gin", "--json"])
    assert gin["escaped"] is None and gin["status"] in (0, 1), gin["stderr"]
    doc = json.loads(gin["stdout"])
    assert "gin" in json.dumps(doc).lower() and "pgstatindex" not in doc


@pytest.mark.parametrize("relname", ["idx_brin", "idx_spgist", "idx_hash"])   # the AMs whose metapage has a magic
def test_page_text_of_an_index_metapage_the_parser_cannot_finish(tmp_path, relname):
    """An other-AM metapage whose magic is gone (8 bytes zeroed at 22: python tests/mutation.py 1 1001; the
    SP-GiST magic set to 0xFFFFFFFE: 1 1547) made `page --all` print 'internal error: KeyError: items': the
    page's line pointers were listed only after its metapage decoded. Now the page has its finding and its
    line pointers, in text and in JSON."""
    major = MAJORS[-1]
    path = _catalog_file(major, relname)

    def mutate(data):
        data[22:30] = bytes(8)
        return data
    d = _damaged_copy(tmp_path, major, path, mutate)
    r = invoke(["page", str(d / path), "--block", "0"])
    assert r["escaped"] is None and "internal error" not in r["stderr"], r["stderr"]
    assert r["status"] == 1
    text = " ".join(r["stdout"].decode().split())
    assert "page.undecodable block 0" in text and "items 1:" in text
    doc = json.loads(invoke(["page", str(d / path), "--block", "0", "--json"])["stdout"])
    page = doc["pages"][0]
    assert "page.undecodable" in {f["code"] for f in page["findings"]}
    assert len(page["items"]) == (page["page_header"]["lower"] - 24) // 4


def test_a_name_on_a_pg_class_page_overwritten_by_another(tmp_path):
    """pg_class's block 0 overwritten by its block 4 (python tests/mutation.py 1 1686, PostgreSQL 13): every
    page is still well formed, only block 0's checksum tells, and misc_types' row was on it: `rows --rel
    misc_types` was 'no relation', exit 2. Now exit 3, naming the block that fails its checksum."""
    major = 13
    path = _catalog_file(major, "pg_class")

    def mutate(data):
        data[:8192] = data[4 * 8192:5 * 8192]
        return data
    d = _damaged_copy(tmp_path, major, path, mutate)
    r = invoke(["rows", str(d), "--db", "pgpage", "--rel", "misc_types", "--all"])
    assert r["escaped"] is None and r["status"] == 3, (r["status"], r["stderr"])
    assert "no relation 'misc_types'" in r["stderr"] and "pg_class fails its checksum at block 0" in r["stderr"]
    assert invoke(["rows", str(data_dir(major)), "--db", "pgpage", "--rel", "misc_types"])["status"] == 0


def test_a_name_on_a_zeroed_pg_class_page(tmp_path):
    """pg_class's block 0 zeroed (python tests/mutation.py 1 4196, PostgreSQL 10): an all-zero page is a new page,
    with no checksum to fail and no rows, and heap_hot's row was on it: `rows --rel heap_hot` was 'no relation',
    exit 2, as if the name were mistyped. Now exit 3, naming the zeroed block."""
    major = 10
    path = _catalog_file(major, "pg_class")

    def mutate(data):
        data[:8192] = bytes(8192)
        return data
    d = _damaged_copy(tmp_path, major, path, mutate)
    r = invoke(["rows", str(d), "--db", "pgpage", "--rel", "heap_hot", "--all", "--json"])
    assert r["escaped"] is None and r["status"] == 3, (r["status"], r["stderr"])
    assert "no relation 'heap_hot'" in r["stderr"] and "pg_class block 0 is all zeros" in r["stderr"]
    assert invoke(["rows", str(d), "--db", "pgpage", "--rel", "no_such_table"])["status"] == 3   # (anything: lost)
    assert invoke(["rows", str(data_dir(major)), "--db", "pgpage", "--rel", "no_such_table"])["status"] == 2


@pytest.mark.parametrize("index, command", [(6829, "index"), (13797, "index"), (5614, "diff"), (15507, "diff"),
                                            (18128, "rows"), (29437, "verify"), (37282, "diff"), (27439, "rows"),
                                            (31516, "index"), (49657, "rows"), (57712, "verify"), (67205, "rows"),
                                            (76067, "index")])
def test_cases_the_large_campaign_found(index, command):
    """Seed 1's cases the large run found (bench/mutation_campaign.py, 2026-11-29): a B-tree key whose bytes do
    not decode made `index` text fail on len(None) (its JSON has the key's error; the text now shows ``?``), and
    a relation whose pg_namespace row is damaged made `diff` of its two files fail spelling a schema the catalog
    does not name; a pg_control whose block size no build has (8191, CRC recomputed) made `rows` reshape pages
    into 8-byte words and fail; a hash metapage whose hashm_bmshift is 65535 made `verify` shift by it; a
    pg_database row whose oid does not decode made `diff` of two clusters sort None with ints; pg_class's block 0
    with its line pointers cut off (pd_lower 24) or replaced by a copy of block 5 (checksums recomputed) made a
    name 'no relation', exit 2, as if mistyped; a pg_namespace name that does not decode made the "did you mean"
    of a name not found fail on it. Each answers now, with findings (exit 3 for the names)."""
    runner = Runner(case_seconds=CASE_SECONDS, rss_limit_mb=RSS_LIMIT_MB)
    try:
        r = runner.run(1, index)
    finally:
        runner.close()
    assert r["command"].split()[0] == command
    assert r["failure"] is None and r["status"] in (0, 1, 3), (r["failure"], r["detail"][-400:])
