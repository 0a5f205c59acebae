"""`pgpage index`, `page` and `verify` of hash and BRIN indexes through the real entry point, on the index
fixtures of every major (and the main fixtures' idx_hash / idx_brin), against each major's oracle; damaged
copies of real pages for verify."""
from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from conftest import MAJORS, data_dir as main_data_dir
from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, oracle
from pgpage.cli.main import app

runner = CliRunner()


def cli(*args):
    r = runner.invoke(app, [*map(str, args)])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r


def index_doc(major: int, name: str, *extra) -> dict:
    r = cli("index", data_dir(major), "--rel", name, "--json", *extra)
    assert r.exit_code == 0, r.stdout
    return json.loads(r.stdout)


def verify_records(datadir, name: str) -> tuple[int, list[dict]]:
    r = cli("verify", datadir, "--rel", name, "--json")
    return r.exit_code, [json.loads(line) for line in r.stdout.splitlines()]


def findings(records: list[dict]) -> list[dict]:
    return [x for x in records if x["type"] == "finding"]


@pytest.mark.parametrize("major,name", index_cases("hash"), ids=case_id)
def test_index_of_hash_gives_pgstathashindex_exactly(major, name):
    doc = index_doc(major, name)
    want = oracle(major, name)
    assert doc["am"] == "hash" and doc["findings"] == []
    got = dict(doc["pgstathashindex"])
    if major < 12:   # the oracle is the server's text: float8 printed with 15 significant digits before 12
        got["free_percent"] = float(f"{got['free_percent']:.15g}")
    assert got == want["pgstathashindex"]
    assert sum(doc["pages"].values()) == want["pg_relation_size"] // BLCKSZ
    types = [p["hash_page_type"] for p in want["pages"]]
    assert {k: v for k, v in doc["pages"].items() if v} == {t: types.count(t) for t in set(types)}


@pytest.mark.parametrize("major,name", index_cases("hash") + index_cases("brin"), ids=case_id)
def test_verify_is_clean_on_every_fixture_index(major, name):
    code, records = verify_records(data_dir(major), name)
    assert code == 0 and findings(records) == []


@pytest.mark.parametrize("major", MAJORS, ids=case_id)
def test_verify_is_clean_on_the_main_fixtures_hash_and_brin(major):
    for name in ("idx_hash", "idx_brin"):
        code, records = verify_records(main_data_dir(major), name)
        assert code == 0 and findings(records) == [], name


def test_page_of_an_overflow_page_text_and_json():
    major, name = 18, "hash_text"
    want = next(p for p in oracle(major, name)["pages"] if p["hash_page_type"] == "overflow")
    r = cli("page", data_dir(major), "--rel", name, "--block", want["blkno"], "--json")
    page = json.loads(r.stdout)["pages"][0]
    for fn in ("hash_page_type", "hash_page_stats", "hash_page_items", "hash_bitmap_info"):
        assert page[fn] == want[fn], fn
    text = cli("page", data_dir(major), "--rel", name, "--block", want["blkno"]).stdout
    assert "hash_page_stats" in text and "bitmapblkno" in text and want["hash_page_items"][0]["ctid"] in text


def test_index_text_of_hash():
    r = cli("index", data_dir(18), "--rel", "hash_text")
    assert r.exit_code == 0
    assert "pgstathashindex" in r.stdout and "overflow_pages 6" in r.stdout and "findings 0" in r.stdout


# --------------------------------------------------------------------------- damaged copies
def damaged_copy(tmp_path, major: int, name: str, change) -> tuple:
    """A copy of the major's data directory with ``change(pages)`` applied to the index's file (a bytearray
    of its pages)."""
    dest = tmp_path / "data"
    shutil.copytree(data_dir(major), dest)
    path = dest / oracle(major, name)["filepath"]
    pages = bytearray(path.read_bytes())
    change(pages)
    path.write_bytes(bytes(pages))
    return dest


def u(pages, blk: int, off: int, size: int = 4) -> int:
    at = blk * BLCKSZ + (off if off >= 0 else BLCKSZ + off)
    return int.from_bytes(pages[at:at + size], "little")


def put(pages, blk: int, off: int, value: int, size: int = 4) -> None:
    at = blk * BLCKSZ + (off if off >= 0 else BLCKSZ + off)
    pages[at:at + size] = value.to_bytes(size, "little")


def hash_blocks(major: int, name: str, kind: str) -> list[int]:
    return [p["blkno"] for p in oracle(major, name)["pages"] if p["hash_page_type"] == kind]


def codes_at(records) -> set[tuple]:
    return {(f["code"], f.get("block"), f.get("item")) for f in findings(records)}


def test_verify_finds_a_broken_overflow_chain(tmp_path):
    major, name = 17, "hash_text"
    blk = hash_blocks(major, name, "overflow")[0]
    dest = damaged_copy(tmp_path, major, name, lambda p: put(p, blk, -16, u(p, blk, -16) + 1))  # hasho_prevblkno
    code, records = verify_records(dest, name)
    assert code == 1 and ("hash.chain.bad_link", blk, None) in codes_at(records)


def test_verify_finds_items_out_of_hash_order_and_in_the_wrong_bucket(tmp_path):
    major, name = 16, "hash_int"
    page = next(p for p in oracle(major, name)["pages"] if len(p.get("hash_page_items") or []) > 3)
    blk, items = page["blkno"], page["hash_page_items"]

    def change(p):
        lp2 = u(p, blk, 24 + 4 * 1)                  # line pointer 2
        off = lp2 & 0x7FFF
        put(p, blk, off + 8, items[1]["data"] ^ 0x7)  # its hash code: smaller bits changed, order and bucket broken
    dest = damaged_copy(tmp_path, major, name, change)
    code, records = verify_records(dest, name)
    got = codes_at(records)
    assert code == 1 and ("hash.item.wrong_bucket", blk, 2) in got


def test_verify_finds_an_overflow_page_whose_bit_is_clear(tmp_path):
    major, name = 15, "hash_text"
    pages = oracle(major, name)["pages"]
    used = next(p for p in pages if p["hash_page_type"] == "overflow")
    info = used["hash_bitmap_info"]
    assert info["bitstatus"] is True
    word = info["bitmapbit"] // 32

    def change(p):
        put(p, info["bitmapblkno"], 24 + 4 * word, u(p, info["bitmapblkno"], 24 + 4 * word) & ~(1 << info["bitmapbit"] % 32))
    dest = damaged_copy(tmp_path, major, name, change)
    code, records = verify_records(dest, name)
    assert code == 1 and ("hash.bitmap.not_set", used["blkno"], None) in codes_at(records)


def test_verify_finds_a_zeroed_metapage(tmp_path):
    major, name = 10, "hash_int"
    dest = damaged_copy(tmp_path, major, name, lambda p: p.__setitem__(slice(0, BLCKSZ), bytes(BLCKSZ)))
    code, records = verify_records(dest, name)
    assert code == 1 and ("hash.meta.missing", 0, None) in codes_at(records)


# --------------------------------------------------------------------------- BRIN
@pytest.mark.parametrize("major,name", index_cases("brin"), ids=case_id)
def test_index_of_brin_gives_pages_and_revmap_coverage(major, name):
    doc = index_doc(major, name)
    want = oracle(major, name)
    assert doc["am"] == "brin" and doc["findings"] == []
    pages = want["pages"]
    assert doc["brin_metapage_info"] == pages[0]["brin_metapage_info"]
    types = [p["brin_page_type"] for p in pages]
    assert {k: doc["pages"][k] for k in ("meta", "revmap", "regular")} == {t: types.count(t) for t in
                                                                         ("meta", "revmap", "regular")}
    summarized = sum(e["pages"] != "(0,0)" for p in pages for e in p["brin_revmap_data"] or [])
    tuples = {(r["itemoffset"], r["blknum"]) for p in pages for r in p["brin_page_items"] or []}
    r = doc["revmap"]
    assert r["summarized_ranges"] == summarized == r["summary_tuples"] == len(tuples)
    assert r["heap_ranges"] == -(-r["heap_blocks"] // pages[0]["brin_metapage_info"]["pagesperrange"])
    assert r["unsummarized_ranges"] == r["heap_ranges"] - summarized > 0   # the rows added after CREATE INDEX


@pytest.mark.parametrize("major,name", [(14, "brin_multi"), (18, "brin_bloom"), (10, "brin_inclusion")],
                         ids=case_id)
def test_page_of_a_brin_regular_page_gives_brin_page_items(major, name):
    want = next(p for p in oracle(major, name)["pages"] if p["brin_page_type"] == "regular")
    r = cli("page", data_dir(major), "--rel", name, "--block", want["blkno"], "--json")
    assert r.exit_code == 0
    page = json.loads(r.stdout)["pages"][0]
    assert page["brin_page_items"] == want["brin_page_items"]
    text = cli("page", data_dir(major), "--rel", name, "--block", want["blkno"]).stdout
    assert "brin_page_items" in text and want["brin_page_items"][0]["value"][:20] in text


def test_page_of_a_brin_page_without_opclasses_says_why():
    r = cli("page", main_data_dir(18), "--rel", "idx_brin", "--block", 2, "--json")
    page = json.loads(r.stdout)["pages"][0]
    assert "brin_page_items" not in page
    assert [f["code"] for f in page["findings"]] == ["brin.items.not_decoded"]


def brin_regular(major: int, name: str) -> dict:
    return next(p for p in oracle(major, name)["pages"] if p["brin_page_type"] == "regular")


def test_verify_finds_a_revmap_entry_pointing_nowhere(tmp_path):
    major, name = 16, "brin_minmax"
    revmap = next(p for p in oracle(major, name)["pages"] if p["brin_page_type"] == "revmap")["blkno"]
    dest = damaged_copy(tmp_path, major, name, lambda p: put(p, revmap, 24 + 6 * 1 + 4, 40, 2))  # entry 1's offset
    code, records = verify_records(dest, name)
    got = codes_at(records)
    assert code == 1 and ("brin.revmap.bad_pointer", revmap, 2) in got
    assert ("brin.item.orphan", brin_regular(major, name)["blkno"], 2) in got


def test_verify_finds_a_summary_of_the_wrong_range(tmp_path):
    major, name = 13, "brin_inclusion"
    page = brin_regular(major, name)
    blk = page["blkno"]

    def change(p):
        lp3 = u(p, blk, 24 + 4 * 2)
        put(p, blk, lp3 & 0x7FFF, 1000)               # item 3's bt_blkno
    dest = damaged_copy(tmp_path, major, name, change)
    code, records = verify_records(dest, name)
    assert code == 1 and ("brin.revmap.wrong_range", blk, 3) in codes_at(records)


def test_verify_finds_a_zeroed_brin_metapage(tmp_path):
    major, name = 12, "brin_minmax"
    dest = damaged_copy(tmp_path, major, name, lambda p: p.__setitem__(slice(0, BLCKSZ), bytes(BLCKSZ)))
    code, records = verify_records(dest, name)
    assert code == 1 and ("brin.meta.missing", 0, None) in codes_at(records)


@pytest.mark.parametrize("name", ["gist_box", "hash_int"])
def test_verify_of_an_am_index_imports_only_its_verifier(name):
    """verify --json of a GiST or hash index imports neither the B-tree, heap and TOAST verifiers nor Rich: their
    imports were a fifth of the command's start-up, which decides its speed against pg_filedump on small indexes
    (issue 41). The index's verifier runs: the same clean answer as test_verify_is_clean_on_every_fixture_index."""
    import subprocess
    import sys
    code = ("import sys\nfrom pgpage.cli.main import run\n"
            f"sys.argv = ['pgpage', 'verify', {str(data_dir(17))!r}, '--db', 'pgpage', '--rel', {name!r}, '--json']\n"
            "try:\n    run()\nexcept SystemExit as e:\n    print('exit', e.code, file=sys.stderr)\n"
            "print(sorted(m for m in ('rich', 'pgpage.analysis.verify.btree', 'pgpage.analysis.verify.heap',"
            " 'pgpage.passes.heapallindexed', 'pgpage.passes.toast') if m in sys.modules), file=sys.stderr)\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.startswith('pgpage.analysis.verify.')),"
            " file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    lines = r.stderr.splitlines()
    assert lines[-3] == "exit 0" and lines[-2] == "[]", r.stderr
    assert name.split("_")[0] in lines[-1] and "btree" not in lines[-1], r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["type"] == "summary", r.stdout[-300:]
