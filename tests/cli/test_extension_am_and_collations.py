"""Two things of the index fixtures (fixtures/make_indexes.py) through the real entry point, on every major:

* bloom_docs, an index of contrib's bloom AM: identified by its page id and metapage magic, its pages and tuples
  counted (against pg_relation_size, pageinspect's page headers and the heap's line pointers: every row version of
  the table is in it), and said not to be decoded;
* words_c_utf8 and words_icu, B-trees on text under libc's C.UTF-8 and ICU's root collation: amcheck's
  bt_index_check found them clean and found a copy with two leaf items swapped (checksum set again) out of order;
  pgpage's verify says the same, or (ICU) says why it cannot: no PyICU, or another collator version than the
  one pg_collation recorded, naming both.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from indexes_oracle import BLCKSZ, case_id, data_dir, index_cases, oracle
from pgpage.cli.main import app
from pgpage.decode.ksy.constants import BLOOM_MAGICK_NUMBER

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fixtures"))
from make_indexes import swap_items  # noqa: E402  (the fixture script's own swap, as amcheck was shown)

runner = CliRunner()


def cli(*args):
    r = runner.invoke(app, [*map(str, args)])
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout


def findings(datadir, name: str) -> tuple[int, list[dict]]:
    code, out = cli("verify", datadir, "--rel", name, "--json")
    return code, [r for r in map(json.loads, out.splitlines()) if r["type"] == "finding"]


@pytest.mark.parametrize("major,name", index_cases("bloom"), ids=case_id)
def test_bloom_index_is_identified_counted_and_not_decoded(major, name):
    want = oracle(major, name)
    pages = want["pages"]
    code, out = cli("index", data_dir(major), "--rel", name, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["am"] == "bloom"
    assert doc["nblocks"] == len(pages) == want["pg_relation_size"] // BLCKSZ
    assert doc["pages"] == {"meta": 1, "pages": len(pages) - 1}
    assert doc["items"] == {"tuples": want["heap_line_pointers"]}
    assert doc["free_space"] == sum(p["page_header"]["upper"] - p["page_header"]["lower"] for p in pages)
    assert [(f["code"], f["severity"]) for f in doc["findings"]] == [("index.am.not_decoded", "info")]
    code, found = findings(data_dir(major), name)
    assert code == 0 and [f["code"] for f in found] == ["index.am.not_decoded"]
    code, out = cli("page", data_dir(major), "--rel", name, "--block", 0, "--json")
    page = json.loads(out)["pages"][0]
    assert page["page_type"] == "bloom" and page["meta_magic"] == f"0x{BLOOM_MAGICK_NUMBER:08X}"
    assert page["special"]["flag_names"] == ["BLOOM_META"]


def test_a_bloom_file_alone_is_told_by_its_pages(tmp_path):
    copy = tmp_path / "16999"
    copy.write_bytes((data_dir(16) / oracle(16, "bloom_docs")["filepath"]).read_bytes())
    code, out = cli("index", copy, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["am"] == "bloom" and doc["items"]["tuples"] == oracle(16, "bloom_docs")["heap_line_pointers"]
    code, out = cli("scan", data_dir(16), "--deep", "--name", "public.bloom_docs")
    assert "index detail" in out and "bloom" in out


def words_cases() -> list[tuple[int, str]]:
    return [(m, n) for m, n in index_cases("btree") if n.startswith("words_")]


def swapped_copy(tmp_path, major: int, name: str) -> Path:
    want = oracle(major, name)["swapped"]
    dest = tmp_path / "data"
    shutil.copytree(data_dir(major), dest)
    swap_items(dest / oracle(major, name)["filepath"], want["block"], *want["items"])
    return dest


def icu_reason(major: int, name: str) -> str | None:
    """Why this machine cannot order the ICU index, as pgpage words it (None: it can)."""
    from pgpage.analysis.btree.collation import collation_sort_key
    c = oracle(major, name)["collation"]
    return collation_sort_key({"collname": c["collname"], "collprovider": "i", "colllocale": "und",
                               "collversion": c["collversion"]}, True)[1]


@pytest.mark.parametrize("major,name", words_cases(), ids=case_id)
def test_collated_btree_order_as_amcheck_sees_it(tmp_path, major, name):
    want = oracle(major, name)
    assert want["bt_index_check"] == "ok" and "item order invariant violated" in want["swapped"]["bt_index_check"]
    code, clean = findings(data_dir(major), name)
    code_swapped, swapped = findings(swapped_copy(tmp_path, major, name), name)
    why = icu_reason(major, name) if name == "words_icu" else None
    if why is None:
        assert code == 0 and clean == []
        # at the lower of the two items (amcheck's detail: "lower index tid=(1,1) ... higher index tid=(1,2)")
        assert code_swapped == 1 and ("btree.order.items", want["swapped"]["block"], want["swapped"]["items"][0]) \
            in {(f["code"], f.get("block"), f.get("item")) for f in swapped}
    else:   # (not this machine's ICU, or no PyICU): said, with both versions
        assert code == 0 and [(f["code"], f["message"]) for f in clean] == [("btree.order.not_checked",
                                                                           f"order not checked: {why}")]
        assert want["collation"]["collversion"] in why or "PyICU is not installed" in why
        assert code_swapped == 0 and [f["code"] for f in swapped] == ["btree.order.not_checked"]


def test_libc_collation_versions_are_named_when_they_differ():
    from pgpage.analysis.btree.collation import collation_sort_key, glibc_version
    row = {"collname": "en", "collprovider": "c", "collcollate": "en_US.UTF-8", "collversion": "1.0"}
    key, why = collation_sort_key(row, True)
    assert key is None and why == (f'collation "en" (libc en_US.UTF-8): recorded for glibc 1.0, this machine has'
                                   f" glibc {glibc_version()}")
