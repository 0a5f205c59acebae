"""`pgpage page` over many blocks: the compiled dumper (decode/_pagedump.c) writes, for every heap and B-tree page
it takes, exactly what decode_page's record gives (JSON byte for byte, and the text render/page.py prints); the
pages it leaves (findings, other kinds) are decode_page's. Every heap and B-tree fixture file of every major, and
damaged copies.
That decode_page's records are pageinspect's is tests/decode/test_page_oracle.py's part."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

import pgpage.render.page as rp
from conftest import MAJORS, data_dir, page_stream_doc, rel_names, rel_oracle
from pgpage.decode.checksum import checksum_page
from pgpage.passes.page import PageRun
from pgpage.render.output import _jsonable


def relation_names(major, kinds=("r", "t", "m"), am=None):
    return [r for r in rel_names(major) if rel_oracle(major, r)["relkind"] in kinds
            and any(rel_oracle(major, r)["forks"].values()) and (am is None or rel_oracle(major, r)["amname"] == am)]


def heap_files(major):
    return [data_dir(major) / rel_oracle(major, r)["filepath"] for r in relation_names(major)]


def btree_relations(major):
    return relation_names(major, ("i",), "btree")


def json_lines(run: PageRun) -> tuple[list[str], int]:
    lines, compiled = [], 0
    for rec in run.records():
        if isinstance(rec, bytes):
            got = rec.decode().splitlines()
            compiled += len(got)
            lines += got
        else:
            lines.append(json.dumps(rec, separators=(",", ":"), default=_jsonable))
    return lines, compiled


class Capture(io.StringIO):
    buffer = property(lambda self: self)

    def write(self, s):
        return super().write(bytes(s).decode() if isinstance(s, (bytes, memoryview)) else s)


def text(path, compiled: bool, monkeypatch, rel=None) -> str:
    buf = Capture()
    monkeypatch.setattr(rp, "console", lambda: Console(file=buf, width=100, highlight=False, color_system=None))
    monkeypatch.setattr(sys, "stdout", buf)
    run = PageRun(str(path), None, rel, "main", all_blocks=True)
    rp.render_pages(run.head, run.records(rp.page_text_words(run.bit_names())) if compiled else run.pages(),
                    lambda: run.heap_written)
    monkeypatch.undo()
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["heap", "btree"])
@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_compiled_records_are_decode_pages(major, kind, monkeypatch):
    """Heap files given alone (the page kind read from the page); B-tree indexes by name in the data directory
    (the catalog's access method and the major decide, as for pre-14's btpo and pre-13's key bytes) and alone."""
    compiled_total = pages = 0
    targets = ([(path, None) for path in heap_files(major)] if kind == "heap" else
               [t for r in btree_relations(major)
                for t in ((data_dir(major), r), (data_dir(major) / rel_oracle(major, r)["filepath"], None))])
    assert targets
    for path, rel in targets:
        run = PageRun(str(path), None, rel, "main", all_blocks=True)
        want = [json.dumps(p, separators=(",", ":"), default=_jsonable) for p in run.pages()]
        got, compiled = json_lines(PageRun(str(path), None, rel, "main", all_blocks=True))
        assert got == want, (path, rel)
        assert text(path, True, monkeypatch, rel) == text(path, False, monkeypatch, rel), (path, rel)
        compiled_total += compiled
        pages += len(want)
    assert compiled_total > pages // 3  # the compiled dumper did take most clean pages


def test_damaged_pages_fall_back_with_their_findings(tmp_path):
    """Copies of a real heap with one page's line pointer, one tuple's t_hoff and one checksum broken: those
    pages come from decode_page (findings and all), the rest from the compiled dumper, in block order."""
    src = data_dir(16) / rel_oracle(16, "heap_hot")["filepath"]
    data = bytearray(src.read_bytes() * 3)
    bs = 8192
    for b in range(len(data) // bs):  # reseal: the copies are blocks 2..5 now
        page = data[b * bs:(b + 1) * bs]
        page[8:10] = b"\0\0"
        page[8:10] = checksum_page(bytes(page), b).to_bytes(2, "little")
        data[b * bs:(b + 1) * bs] = page
    lp = int.from_bytes(data[2 * bs + 24 + 8:2 * bs + 28 + 8], "little")  # block 2, line pointer 3
    off = lp & 0x7FFF
    data[2 * bs + off + 22] = 23  # t_hoff not MAXALIGNed
    page = data[2 * bs:3 * bs]
    page[8:10] = b"\0\0"
    page[8:10] = checksum_page(bytes(page), 2).to_bytes(2, "little")
    data[2 * bs:3 * bs] = page
    data[4 * bs + 8] ^= 0xFF  # block 4: checksum broken
    f = tmp_path / "16384"
    f.write_bytes(bytes(data))
    run = PageRun(str(f), None, None, "main", all_blocks=True)
    want = [json.dumps(p, separators=(",", ":"), default=_jsonable) for p in run.pages()]
    got, compiled = json_lines(PageRun(str(f), None, None, "main", all_blocks=True))
    assert got == want and compiled == len(want) - 2
    codes = [[x["code"] for x in json.loads(line)["findings"]] for line in got]
    assert codes[2] == ["heap.tuple.bad_hoff"] and codes[4] == ["checksum.mismatch"]
    r = subprocess.run([sys.executable, "-m", "pgpage", "page", str(f), "--all", "--json"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    doc = page_stream_doc(r.stdout)
    assert [p["blkno"] for p in doc["pages"]] == list(range(len(data) // bs))
    assert [json.dumps(p, separators=(",", ":")) for p in doc["pages"]] == want
