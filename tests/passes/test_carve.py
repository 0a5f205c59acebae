"""`rows --all` carves pruned row versions back (passes/carve.py, analysis/carve.py), on the pruned tables of
fixtures/recovery/ (make_recovery.py): every carved version is a real former version, value by value as the
server printed it before the delete, every version whose bytes survived the prune whole comes back, and mutated
real pages never make a row appear that was not there."""
from __future__ import annotations

import csv
import gzip
import json
import random
import subprocess
import sys
import tarfile
from functools import lru_cache

import numpy as np
import pytest

from conftest import FIXTURES, REPO, REQUIRED_MAJORS
from pgpage.analysis.rowstatus import STATUS_NAMES
from pgpage.decode.flags import LP_NORMAL
from pgpage.passes.rows import RowOptions, TableRows
from pgpage.storage.target import resolve

RECOVERY = FIXTURES / "recovery"
BLCKSZ = 8192
MUTATIONS = 1000     # damaged copies of real pages per major (two majors: within a CI run's time)


@lru_cache(maxsize=None)
def oracle(major: int) -> dict:
    with gzip.open(RECOVERY / f"pg{major}" / "oracle.json.gz") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    done = {}

    def data(major: int):
        if major not in done:
            d = tmp_path_factory.mktemp(f"recovery{major}")
            with tarfile.open(RECOVERY / f"pg{major}" / "data.tar.xz") as tf:
                tf.extractall(d, filter="data")
            done[major] = d / "data"
        return done[major]
    return data


def ledger(data, carve: bool = True) -> TableRows:
    t = resolve(str(data), "pgpage", "ledger", "main", need_relation=True, what="table")
    return TableRows(t.cluster, t.relation, RowOptions(all_versions=True, carve=carve))


def pages_of(table: TableRows) -> np.ndarray:
    return np.concatenate([p for _, p in table.fork.iter_chunks(0, table.fork.end_block)])


def former_versions(o: dict) -> dict:
    """(block, lp_off) -> (the before_items entry, the row's values as printed before the delete) of every
    version a line pointer held before the prune and does not any more."""
    after = {(i["blkno"], i["lp"]): i["lp_flags"] for i in o["after_items"]}
    before_rows = {r[0]: r[3:] for r in o["before_rows"]}
    return {(i["blkno"], i["lp_off"]): (i, before_rows[f"({i['blkno']},{i['lp']})"]) for i in o["before_items"]
            if i["lp_flags"] == LP_NORMAL and after[(i["blkno"], i["lp"])] != LP_NORMAL}


def recoverable(o: dict, pages: np.ndarray) -> set:
    """The pruned versions whose bytes are still whole where they were: their data (pageinspect's t_data before
    the prune) and xids at their place, in bytes no live tuple and no line pointer covers after it."""
    out = set()
    for (block, off), (item, _) in former_versions(o).items():
        page = pages[block].tobytes()
        lower = int.from_bytes(page[12:14], "little")
        live = [(i["lp_off"], i["lp_off"] + i["lp_len"]) for i in o["after_items"]
                if i["blkno"] == block and i["lp_flags"] == LP_NORMAL]
        end = off + item["lp_len"]
        if (off >= lower and all(end <= a or off >= b for a, b in live)
                and page[off + item["t_hoff"]:end] == bytes.fromhex(item["t_data"].removeprefix("\\x"))
                and int.from_bytes(page[off:off + 4], "little") == item["t_xmin"]
                and int.from_bytes(page[off + 4:off + 8], "little") == item["t_xmax"]):
            out.add((block, off))
    return out


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_carved_rows_are_the_pruned_versions(unpacked, major):
    o = oracle(major)
    table = ledger(unpacked(major))
    records = list(table.text_records())
    names = [c["name"] for c in o["columns"]]
    former = former_versions(o)
    carved = [r for r in records if r["status"] == "pruned"]
    for r in carved:
        block = int(r["ctid"].strip("()").split(",")[0])
        assert r["ctid"] == f"({block},0)"
        item, values = former[(block, r["lp_off"])]          # a version the prune took the line pointer of
        assert (r["xmin"], r["xmax"]) == (item["t_xmin"], item["t_xmax"])
        assert r["xmin_status"] == r["xmax_status"] == "committed"
        assert list(r["values"].values()) == values, (major, r["lp_off"])
        assert list(r["values"]) == names
    whole = recoverable(o, pages_of(table))
    got = {(int(r["ctid"].strip("()").split(",")[0]), r["lp_off"]) for r in carved}
    assert got == whole and len(whole) >= 20, (major, sorted(whole - got), sorted(got - whole))
    assert any(r["values"]["memo"] is not None for r in carved)      # a TOASTed value fetched
    assert any(r["values"]["note"] == "" for r in carved) and any(r["values"]["note"] is None for r in carved)
    # every version line pointers hold is there as before, and the counts say pruned
    assert table.status_counts[STATUS_NAMES.index("pruned")] == len(carved)
    plain = list(ledger(unpacked(major), carve=False).text_records())
    assert [r for r in records if r["status"] != "pruned"] == plain
    deleted_ids = {int(r["values"]["id"]) for r in carved} - {int(r[3]) for r in o["after_rows"]}
    assert deleted_ids <= set(o["deleted"]) and len(deleted_ids) >= 15


def test_pruned_in_csv_json_text_and_python(unpacked):
    data = unpacked(15)

    def run(*args):
        r = subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", "pgpage", "--rel", "ledger",
                            "--all", *args], capture_output=True, text=True, cwd=REPO)
        assert r.returncode == 0, r.stderr
        return r.stdout
    records = [json.loads(x) for x in run("--json").splitlines()]
    pruned = [r for r in records if r["status"] == "pruned"]
    assert pruned and all("lp_off" in r for r in pruned) and not any("lp_off" in r for r in records
                                                                        if r["status"] != "pruned")
    # t_ctid: a deleted version's own place before the prune, an updated one's successor (its id's live version)
    o = oracle(15)
    before = {r[3]: r[0] for r in o["before_rows"]}
    after = {r[3]: r[0] for r in o["after_rows"]}
    assert all(r["t_ctid"] == (after[r["values"]["id"]] if int(r["values"]["id"]) in o["updated"]
                               else before[r["values"]["id"]]) for r in pruned)
    csv_lines = run("--csv").splitlines()
    # the table has a column pgpage_status: rows' own columns take a longer prefix
    assert csv_lines[0] == ("pgpage__ctid,pgpage__xmin,pgpage__xmax,pgpage__status,pgpage__lp_off,pgpage__damage,"
                            "id,note,amount,at,doc,memo,pgpage_status")
    assert {r[5] for r in csv.reader(csv_lines[1:])} == {""}        # (no version of it is damaged)
    carved_csv = [x for x in csv_lines if ",pruned," in x]
    assert [x.split(",")[5] for x in carved_csv] == [str(r["lp_off"]) for r in pruned]
    text = run("--columns", "id")
    assert sum(" pruned " in line for line in text.splitlines()) == len(pruned)
    assert "lp_off" in text.splitlines()[0]
    t = resolve(str(data), "pgpage", "ledger", "main", need_relation=True, what="table")
    typed = [r for r in t.relation.rows(all_versions=True) if r["status"] == "pruned"]
    assert [(r["lp_off"], r["values"]["id"]) for r in typed] == [(r["lp_off"], int(r["values"]["id"])) for r in pruned]


def _mutate(page: bytearray, rng: random.Random) -> tuple[int, int]:
    """One damage to a real page, in its tuple area: bit flips, a run of bytes shifted, a run zeroed or copied
    from elsewhere in the page; returns the range of bytes it changed."""
    lo = int.from_bytes(page[12:14], "little")
    kind = rng.randrange(4)
    at = rng.randrange(lo, BLCKSZ - 8)
    n = rng.randrange(1, 64)
    end = min(at + n, BLCKSZ)
    if kind == 0:
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(at, end)
            page[k] ^= 1 << rng.randrange(8)
    elif kind == 1:
        shift = rng.choice((1, 2, 3, 4, 8, 16, -1, -4, -8))
        src = page[at:end]
        dst = max(0, min(BLCKSZ - len(src), at + shift))
        page[dst:dst + len(src)] = src
        at, end = min(at, dst), max(end, dst + len(src))
    elif kind == 2:
        page[at:end] = bytes(end - at)
    else:
        src = rng.randrange(lo, BLCKSZ - (end - at))
        page[at:end] = page[src:src + end - at]
    return at, end


@pytest.mark.parametrize("major", (10, 18))
def test_mutated_pages_invent_no_row(unpacked, major):
    """Thousands of damaged copies of the real pages: with the page checksum (the fixtures have data checksums) a
    damaged page is not carved at all; without it (as on a cluster without checksums), every version carved is
    a real one, or one whose own bytes the damage touched (damage in place, never a row made of other bytes)."""
    table = ledger(unpacked(major))
    pages = pages_of(table)
    real, versions = {}, set()     # the pruned versions carved where they lie; every version's (xmin, bytes)
    for block in range(len(pages)):
        c = table._select(block, pages[block:block + 1].copy())
        versions |= {_version(c, j) for j in range(len(c.start))}
        for j in np.flatnonzero(c.status == 7).tolist():
            real[(block, int(c.lp_off[j]))] = int(c.length[j])
    assert len(real) >= 20
    rng = random.Random(major)
    checked = damaged = 0
    for trial in range(MUTATIONS):
        block = rng.randrange(len(pages) - 1)          # (the last page was not pruned)
        page = bytearray(pages[block].tobytes())
        spans = [_mutate(page, rng) for _ in range(rng.randrange(1, 3))]
        mutated = np.frombuffer(bytes(page), dtype=np.uint8).reshape(1, -1).copy()
        table.cluster.__dict__["checksums"] = True
        c = table._select(block, mutated.copy())
        assert c is None or not (c.status == 7).any() or bytes(page) == pages[block].tobytes()
        del table.cluster.__dict__["checksums"]
        table.findings.clear()
        c = _without_checksums(table, block, mutated)
        for j in (np.flatnonzero(c.status == 7).tolist() if c is not None else []):
            off, n = int(c.lp_off[j]), int(c.length[j])
            touched = any(a < off + n and off < b for a, b in spans)
            # a real pruned version where it was, a copy of a real version (the damage hit the live tuple it
            # repeats: it is no longer known as a copy), or a version the damage hit
            assert real.get((block, off)) == n or _version(c, j) in versions or touched, (major, trial, off, spans)
            if touched:
                damaged += 1
            checked += 1
    assert checked > MUTATIONS


def _version(c, j: int) -> tuple:
    s, n, h = int(c.start[j]), int(c.length[j]), int(c.t_hoff[j])
    return int(c.xmin[j]), c.flat[s + h:s + n].tobytes()


def _without_checksums(table, block, pages):
    cls = type(table.cluster)
    saved = cls.checksums
    try:
        cls.checksums = property(lambda self: False)
        return table._select(block, pages.copy())
    finally:
        cls.checksums = saved


def _cli(data, *args):
    return subprocess.run([sys.executable, "-m", "pgpage", "rows", str(data), "--db", "pgpage", "--rel", "ledger",
                           *args], capture_output=True, text=True, cwd=REPO)


def test_filters(unpacked):
    data = unpacked(16)
    o = oracle(16)
    every = [json.loads(x) for x in _cli(data, "--all", "--json").stdout.splitlines()]

    def records(*args):
        r = _cli(data, "--json", *args)
        assert r.returncode == 0, r.stderr
        return [json.loads(x) for x in r.stdout.splitlines()]
    assert records("--status", "deleted,pruned") == [r for r in every if r["status"] in ("deleted", "pruned")]
    live = records("--status", "live")
    plain = [json.loads(x) for x in _cli(data, "--json").stdout.splitlines()]
    assert live == plain and len(live) == len(o["after_rows"])
    txid = o["facts"]["txid"]
    by_xid = records("--xid", str(txid))
    assert by_xid == [r for r in every if txid in (r["xmin"], r["xmax"])] and len(by_xid) > len(o["deleted"])
    assert records("--xid", "3", "--xid", str(txid + 1000)) == []
    assert [r["ctid"] for r in records("--ctid", "(4,2)", "--ctid", " ( 0 , 1 ) ")] == ["(0,1)", "(4,2)"]
    zero = records("--ctid", "(0,0)")
    assert zero and zero == [r for r in every if r["ctid"] == "(0,0)"] and {r["status"] for r in zero} == {"pruned"}
    assert records("--status", "pruned", "--xid", str(txid), "--ctid", "(1,0)") == [
        r for r in every if r["ctid"] == "(1,0)"]
    for bad, says in ((("--status", "deleted,gone"), "--status 'gone': not a status"),
                      (("--ctid", "(1)"), "--ctid '(1)': not a ctid"),
                      (("--ctid", "(1,70000)"), "not a ctid"), (("--xid", "-1"), "--xid -1")):
        r = _cli(data, *bad)
        assert r.returncode == 2 and says in r.stderr, (bad, r.stderr)


def test_pruned_with_jobs(unpacked, monkeypatch, capfdbinary):
    """--jobs 2 over parts of one block each: the pruned versions as one process finds them."""
    from pgpage.cli.rows_cmd import rows_command
    from pgpage.passes import rows as rows_pass
    monkeypatch.setattr(rows_pass, "RANGE_BLOCKS", 1)
    outs = []
    for jobs in (1, 2):
        rc = rows_command(target=str(unpacked(13)), db="pgpage", rel="ledger", all_versions=True, csv_out=True,
                          jobs=jobs)
        outs.append((rc, *capfdbinary.readouterr()))
    assert outs[0] == outs[1] and outs[0][0] == 0 and outs[0][1].count(b",pruned,") == 32


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_churned_versions_come_back(major):
    """fixtures/pgNN's uniq_churn: 10 rows (id, v = id) updated 20 times (v + 1, not HOT), a page the later reads
    pruned (11+: 200 LP_DEAD line pointers). Every carved version is one of the 200 former ones, (id, id + k) for
    update k, written by update k's transaction and deleted by update k + 1's; 190 are whole (compaction wrote
    the live rows over the other 10)."""
    from conftest import data_dir
    t = resolve(str(data_dir(major)), None, "uniq_churn", "main", need_relation=True, what="table")
    records = list(TableRows(t.cluster, t.relation, RowOptions(all_versions=True, carve=True)).text_records())
    live = {int(r["values"]["id"]): r for r in records if r["status"] == "live"}
    assert sorted((i, int(r["values"]["v"])) for i, r in live.items()) == [(i, i + 20) for i in range(1, 11)]
    older = [r for r in records if r["status"] in ("pruned", "updated")]
    statuses = {r["status"] for r in older}
    assert statuses == ({"updated"} if major == 10 else {"pruned"}), statuses
    assert len(older) == (200 if major == 10 else 190)
    steps = {(int(r["values"]["id"]), int(r["values"]["v"]) - int(r["values"]["id"])): r for r in older}
    assert len(steps) == len(older) and all(0 <= k < 20 for _, k in steps)
    xmin_of_step = {}
    for (_, k), r in steps.items():
        assert xmin_of_step.setdefault(k, r["xmin"]) == r["xmin"]
    for (i, k), r in steps.items():
        assert r["xmax"] == (xmin_of_step.get(k + 1) if k < 19 else live[i]["xmin"]), (i, k)
