"""``verify --heapallindexed`` on the clean fixture clusters of every major (10 to 18): nothing but the note
that the expression index's entries are not compared; every other B-tree of the fixtures is compared with
its table (HOT chains, pruned chains, killed items, deduplicated and INCLUDE indexes among them).
The damage side is tests/analysis/test_btree_order_live.py, against the live amcheck of 11, 13, 15 and 18."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import MAJORS, data_dir
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import open_data_directory


@pytest.mark.parametrize("major", MAJORS, ids=lambda m: f"pg{m}")
def test_clean_fixture_indexes_have_every_row(major):
    cluster = open_data_directory(data_dir(major))
    v = Verification(cluster)
    v.heapallindexed = True
    found, compared = {}, 0
    for rel in cluster.database("pgpage").relations():
        if rel.access_method == "btree" and rel.forks.get("main") and rel.table is not None:
            recs = [r for r in v.relation_records(v.subject_of(rel)) if r["type"] == "finding"]
            found.update({rel.name: [(r["code"], r["message"]) for r in recs]} if recs else {})
            compared += not recs
    assert found == {"idx_del": [("btree.heapallindexed.not_checked", "heapallindexed not checked: expression index")]}
    assert compared >= 15


def test_cli_option():
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(data_dir(MAJORS[-1])), "--db", "pgpage", "--rel",
                        "public.idx_two", "--heapallindexed"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "result: clean" in r.stdout


def damaged_copy(tmp_path):
    """PostgreSQL 17's fixture cluster with, in every leaf page of idx_dup (posting lists) and idx_multilevel,
    its first data item set LP_DEAD and its last item's last byte changed (checksums resealed)."""
    import shutil
    import struct

    from pgpage.decode.checksum import checksum_page
    copy = tmp_path / "data"
    shutil.copytree(data_dir(17), copy)
    db = open_data_directory(copy).database("pgpage")
    bs = 8192
    for name in ("idx_dup", "idx_multilevel"):
        path = db.relation(f"public.{name}").forks["main"].segment_path(0)
        buf = bytearray(path.read_bytes())
        for blkno in range(1, len(buf) // bs):
            pg = blkno * bs
            flags, nxt = struct.unpack_from("<H", buf, pg + bs - 4)[0], struct.unpack_from("<I", buf, pg + bs - 12)[0]
            nlp = (struct.unpack_from("<H", buf, pg + 12)[0] - 24) // 4
            first = 1 if nxt == 0 else 2
            if not flags & 1 or nlp < first + 1:
                continue
            lp = struct.unpack_from("<I", buf, pg + 24 + 4 * (first - 1))[0]
            struct.pack_into("<I", buf, pg + 24 + 4 * (first - 1), (lp & ~(3 << 15)) | (3 << 15))   # LP_DEAD
            last = struct.unpack_from("<I", buf, pg + 24 + 4 * (nlp - 1))[0]
            off, length = last & 0x7FFF, last >> 17
            buf[pg + off + length - 1] ^= 0x01
            struct.pack_into("<H", buf, pg + 8, checksum_page(bytes(buf[pg:pg + bs]), blkno))
        path.write_bytes(bytes(buf))
    return copy


def test_windows_of_the_table_find_what_one_window_finds(tmp_path, monkeypatch):
    """The table read in windows of one block, each with the few index entries whose TIDs go there (the bound
    that keeps memory flat for a big index): on damaged copies of real indexes (posting lists among them, whose
    TIDs span windows), the same findings as in one window, missing entries in the same order."""
    import pgpage.passes.heapallindexed as hai
    copy = damaged_copy(tmp_path)

    def findings():
        cluster = open_data_directory(copy)
        v = Verification(cluster)
        v.heapallindexed = True
        out = []
        for name in ("idx_dup", "idx_multilevel"):
            rel = cluster.database("pgpage").relation(f"public.{name}")
            out += [(r["code"], r["message"]) for r in v.relation_records(v.subject_of(rel))
                    if r["type"] == "finding" and r["code"].startswith(("btree.heapallindexed", "rows.value"))]
        return out
    whole = findings()
    windows = []
    real = hai._windows
    with monkeypatch.context() as m:
        m.setattr(hai, "ENTRIES_PER_WINDOW", 4)
        m.setattr(hai, "GROUP_BLOCKS", 1)
        m.setattr(hai, "_windows", lambda *a: windows.append(real(*a)) or windows[-1])
        windowed = findings()
    assert len(windows) == 2 and all(len(w) > 1 for w in windows)     # several windows on each table
    codes = {c for c, _ in whole}
    assert {"btree.heapallindexed.missing", "btree.heapallindexed.key_mismatch"} <= codes
    assert sorted(windowed) == sorted(whole)
    assert [f for f in windowed if f[0].endswith("missing")] == [f for f in whole if f[0].endswith("missing")]


@pytest.mark.parametrize("major", [MAJORS[0], 15, MAJORS[-1]], ids=lambda m: f"pg{m}")
def test_printed_keys_hash_as_their_texts(major, monkeypatch):
    """Keys are compared by the hash of their CSV line: the compiled printer's on both sides, or one made of the
    texts ``rows`` prints for what the printer declines (TOAST pointers, compressed values). On every B-tree of a
    fixture cluster, heap side and index side, each key hashes the same either way."""
    import numpy as np

    import pgpage.passes.heapallindexed as hai
    real, printed = hai._key_hashes, {"heap": 0, "index": 0}

    def both(printer, flat, start, length, t_hoff, natts, hasnull, texts):
        declined = []

        def counted(which):
            declined.append(len(which))
            return texts(which)
        fast = real(printer, flat, start, length, t_hoff, natts, hasnull, counted)
        printed["index" if len(t_hoff) and t_hoff.max() <= 16 else "heap"] += len(start) - sum(declined)
        assert np.array_equal(fast, real(None, flat, start, length, t_hoff, natts, hasnull, texts))
        return fast
    monkeypatch.setattr(hai, "_key_hashes", both)
    cluster = open_data_directory(data_dir(major))
    v = Verification(cluster)
    v.heapallindexed = True
    for rel in cluster.database("pgpage").relations():
        if rel.access_method == "btree" and rel.forks.get("main") and rel.table is not None:
            list(v.relation_records(v.subject_of(rel)))
    assert min(printed.values()) > 1500     # (thousands of keys the printer wrote on each side)
