"""The generated Kaitai parsers (pgpage/decode/ksy/) and the pipeline that makes them.

1. Drift: ``python formats/generate.py --check`` must pass (the committed parsers are exactly
   what the pinned compiler makes from formats/*.ksy), and must fail when a .ksy changes
   without regenerating. These never skip: without Node.js they fail and say so.
2. Layouts: pgpage.decode.ksy.layouts is consistent with the generated classes.
3. Real pages: a throwaway real PostgreSQL server (whatever ``initdb``/``pg_ctl`` with
   pageinspect this machine has: $PGPAGE_PG_BINDIR, else /usr/lib/postgresql/*/bin) runs a
   small workload; after CHECKPOINT the relation files are read from disk, parsed with the
   generated parsers and compared with pageinspect fed the same bytes (page_header,
   heap_page_items, bt_page_items, bt_metap, bt_page_stats, hash/gin/gist/brin functions,
   fsm_page_contents, pg_visibility_map) - and a numpy decode driven by layouts.py must
   agree with the Kaitai parser. No page bytes are stored; without a server these tests fail
   is installed. The committed, per-major fixture tests live elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FORMATS = REPO / "formats"
GENERATE = FORMATS / "generate.py"
OUT_DIR = REPO / "pgpage" / "decode" / "ksy"

NO_NODE = (
    "Node.js is not installed: the generated parsers cannot be checked against formats/*.ksy. "
    "Install node and npm (e.g. `apt-get install -y nodejs npm`); formats/generate.py then "
    "installs the pinned compiler itself with `npm ci`."
)


def _run_generate(*args: str, script: Path = GENERATE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=600
    )


# --------------------------------------------------------------------------- 1. drift


def test_generated_parsers_match_ksy():
    if shutil.which("node") is None:
        pytest.fail(NO_NODE)
    proc = _run_generate("--check")
    assert proc.returncode == 0, (
        "pgpage/decode/ksy/ is out of date with formats/*.ksy "
        "(run `python formats/generate.py` and commit):\n" + proc.stderr + proc.stdout
    )


@pytest.fixture(scope="module")
def formats_copy(tmp_path_factory):
    """A scratch copy of formats/ + pgpage/decode/ksy/ sharing the real node_modules."""
    if shutil.which("node") is None:
        pytest.fail(NO_NODE)
    if not (FORMATS / "node_modules" / "kaitai-struct-compiler").is_dir():
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=FORMATS,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    root = tmp_path_factory.mktemp("repo")
    fmt = root / "formats"
    fmt.mkdir()
    for p in FORMATS.iterdir():
        if p.is_file():
            shutil.copy2(p, fmt / p.name)
    (fmt / "node_modules").symlink_to(FORMATS / "node_modules")
    shutil.copytree(OUT_DIR, root / "pgpage" / "decode" / "ksy",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _check_copy(root: Path) -> subprocess.CompletedProcess:
    return _run_generate("--check", script=root / "formats" / "generate.py")


def test_check_fails_when_ksy_changed_without_regenerating(formats_copy):
    ksy = formats_copy / "formats" / "pg_page.ksy"
    original = ksy.read_text()
    try:
        # even a YAML comment (which changes no generated code) counts as a change
        ksy.write_text(original + "# touched\n")
        proc = _check_copy(formats_copy)
        assert proc.returncode == 1, proc.stderr
        assert "pg_page.py" in proc.stderr
    finally:
        ksy.write_text(original)
    assert _check_copy(formats_copy).returncode == 0


def test_check_fails_on_hand_edited_or_missing_or_stale_output(formats_copy):
    out = formats_copy / "pgpage" / "decode" / "ksy"
    target = out / "heap_tuple.py"
    original = target.read_text()
    try:
        target.write_text(original.replace("t_xmin", "t_xmin_edited", 1))
        proc = _check_copy(formats_copy)
        assert proc.returncode == 1 and "heap_tuple.py" in proc.stderr
        target.unlink()
        proc = _check_copy(formats_copy)
        assert proc.returncode == 1 and "missing" in proc.stderr
    finally:
        target.write_text(original)
    stale = out / "removed_format.py"
    stale.write_text("# GENERATED FILE - DO NOT EDIT.\n")
    try:
        proc = _check_copy(formats_copy)
        assert proc.returncode == 1 and "removed_format.py" in proc.stderr
    finally:
        stale.unlink()


def test_check_fails_when_the_header_or_the_oid_module_drifts(formats_copy):
    """The C header and the type OID module are checked like the parsers: a hand edit of either, or a change
    to pg_type_oids.yaml without regenerating, fails the check."""
    out = formats_copy / "pgpage" / "decode" / "ksy"
    for target, edit in ((out / "pgp_layout.h", ("#define BT_IS_POSTING 0x2000", "#define BT_IS_POSTING 0x4000")),
                         (out / "type_oids.py", ("INT4OID = 23", "INT4OID = 24"))):
        original = target.read_text()
        assert edit[0] in original
        try:
            target.write_text(original.replace(*edit))
            proc = _check_copy(formats_copy)
            assert proc.returncode == 1 and target.name in proc.stderr, proc.stderr
        finally:
            target.write_text(original)
    source = formats_copy / "formats" / "pg_type_oids.yaml"
    original = source.read_text()
    try:
        source.write_text(original.replace("- [23, int4, 1007]", "- [23, int4, 1099]"))
        proc = _check_copy(formats_copy)
        assert proc.returncode == 1 and "type_oids.py" in proc.stderr, proc.stderr
    finally:
        source.write_text(original)
    assert _check_copy(formats_copy).returncode == 0


def test_new_ksy_is_picked_up_automatically(formats_copy):
    new = formats_copy / "formats" / "zz_probe.ksy"
    new.write_text(
        "meta:\n  id: zz_probe\n  endian: le\n  imports:\n    - pg_page\n"
        "seq:\n  - id: hdr\n    type: pg_page::page_header\n  - id: x\n    type: u4\n"
    )
    out = formats_copy / "pgpage" / "decode" / "ksy"
    try:
        proc = _run_generate(script=formats_copy / "formats" / "generate.py")
        assert proc.returncode == 0, proc.stderr
        text = (out / "zz_probe.py").read_text()
        assert text.startswith("# GENERATED FILE - DO NOT EDIT.")
        assert "from . import pg_page" in text
        assert "'zz_probe'" in (out / "layouts.py").read_text()
    finally:
        new.unlink()
        proc = _run_generate(script=formats_copy / "formats" / "generate.py")
        assert proc.returncode == 0, proc.stderr
        assert not (out / "zz_probe.py").exists()
    assert _check_copy(formats_copy).returncode == 0


def test_bad_ksy_is_reported(formats_copy):
    bad = formats_copy / "formats" / "zz_bad.ksy"
    bad.write_text("meta:\n  id: zz_bad\nseq:\n  - id: x\n    type: no_such_type\n")
    try:
        proc = _run_generate("--out", str(formats_copy / "scratch"),
                             script=formats_copy / "formats" / "generate.py")
        assert proc.returncode == 2
        assert "zz_bad.ksy" in proc.stderr
    finally:
        bad.unlink()


# --------------------------------------------------------------------------- 2. layouts


def test_layouts_table():
    from pgpage.decode.ksy import layouts as L

    hdr = L.LAYOUTS["pg_page::page_header"]
    assert hdr["size"] == 24
    assert hdr["fields"]["pd_lsn.xlogid"] == (0, "u4")
    assert hdr["fields"]["pd_lower"] == (12, "u2")
    assert hdr["fields"]["pd_prune_xid"] == (20, "u4")
    lp = L.LAYOUTS["pg_page::item_id"]
    assert lp == {"size": 4, "fields": {
        "lp_off": (0, ("bits", 0, 15)),
        "lp_flags": (0, ("bits", 15, 2)),
        "lp_len": (0, ("bits", 17, 15)),
    }}
    tup = L.LAYOUTS["heap_tuple"]
    assert tup["size"] == 23
    assert tup["fields"]["t_ctid.ip_posid"] == (16, "u2")
    assert tup["fields"]["t_hoff"] == (22, "u1")
    assert L.LAYOUTS["nbtree::bt_page_opaque_data"]["size"] == 16
    assert L.LAYOUTS["nbtree::bt_meta_page_data"]["size"] == 48
    assert L.LAYOUTS["nbtree::bt_meta_page_data"]["fields"]["btm_allequalimage"] == (40, "u1")
    assert L.LAYOUTS["nbtree::bt_index_tuple"]["size"] == 8
    assert L.LAYOUTS["vm_page::vm_byte"]["fields"]["all_frozen_3"] == (0, ("bits", 7, 1))
    assert L.LAYOUTS["fsm_page"]["fields"]["fp_next_slot"] == (24, "s4")
    assert L.ENUMS["pg_page::lp_flags"] == {0: "LP_UNUSED", 1: "LP_NORMAL", 2: "LP_REDIRECT", 3: "LP_DEAD"}
    assert L.ENUMS["nbtree::btpo_flags"][0x100] == "BTP_HAS_FULLXID"
    assert L.ENUMS["heap_tuple::infomask_flags"][0x0100] == "HEAP_XMIN_COMMITTED"
    assert L.VALID["nbtree::bt_meta_page_data"]["btm_magic"] == 0x053162
    assert L.VALID["brin_page::brin_meta_page_data"]["brin_magic"] == 0xA8109CFA
    assert L.ORIG_IDS["pg_page::item_id"][""] == "ItemIdData"


def test_constants_name_the_ksy_values_once_for_c_and_python():
    """constants.py and pgp_layout.h hold the same names and values, which are the .ksy enums' and sizes."""
    import re

    from pgpage.decode.ksy import constants as C
    from pgpage.decode.ksy import layouts as L
    from pgpage.decode.ksy import type_oids as T

    header = (OUT_DIR / "pgp_layout.h").read_text()
    in_c = {m[0]: int(m[1].rstrip("u"), 0) for m in re.findall(r"^#define (\w+) (\w+)", header, re.M)
            if m[0] != "PGP_LAYOUT_H"}
    in_py = {k: v for k, v in vars(C).items() if k[0].isalpha() and isinstance(v, int)}
    assert in_c == in_py
    for qname, table in L.ENUMS.items():
        since = re.search(r"_(\d+)$", qname)   # a variant of some majors: its names carry the first one
        for value, name in table.items():
            if name.isidentifier():
                assert in_py[f"{name}_{since[1]}" if since else name] == value, (qname, name)
    assert (C.SizeOfPageHeaderData, C.SIZEOF_ItemIdData, C.SizeofHeapTupleHeader) == (24, 4, 23)
    assert C.SIZEOF_BTPageOpaqueData == L.LAYOUTS["nbtree::bt_page_opaque_data"]["size"] == 16
    assert (C.BT_IS_POSTING, C.LP_REDIRECT, C.HEAP_ONLY_TUPLE) == (0x2000, 2, 0x8000)
    assert "#define FSM_CATEGORIES" not in header  # "FSM_CATEGORIES - 1" is an expression, not a name
    # pg_type_d.h's spelling (genbki.pl: foo_bar -> FOO_BAROID, _foo_bar -> FOO_BARARRAYOID)
    assert (T.INT4OID, T.INT4ARRAYOID, T.PG_NODE_TREEOID, T.RECORDARRAYOID, T.TSTZMULTIRANGEOID) == (
        23, 1007, 194, 2287, 4534)


def test_enums_match_generated_classes():
    """Every ENUMS entry names the same values the generated IntEnum classes hold."""
    import importlib

    from pgpage.decode.ksy import layouts as L

    for qname, table in L.ENUMS.items():
        *type_path, enum_name = qname.split("::")
        mod = importlib.import_module(f"pgpage.decode.ksy.{type_path[0]}")
        cls = getattr(mod, _camel(type_path[0]))
        for part in type_path[1:]:
            cls = getattr(cls, _camel(part))
        enum_cls = getattr(cls, _camel(enum_name))
        assert {int(v) for v in enum_cls} == set(table), qname


def test_every_fixed_layout_matches_the_parser():
    """Parse an all-distinct byte pattern with each fixed type and compare with layouts."""
    import importlib

    from kaitaistruct import KaitaiStream, BytesIO

    from pgpage.decode.ksy import layouts as L

    pattern = bytes((i * 7 + 3) % 251 for i in range(16384))
    checked = 0
    for qname, lay in L.LAYOUTS.items():
        path = qname.split("::")
        mod = importlib.import_module(f"pgpage.decode.ksy.{path[0]}")
        cls = getattr(mod, _camel(path[0]))
        for part in path[1:]:
            cls = getattr(cls, _camel(part))
        try:
            obj = cls(KaitaiStream(BytesIO(pattern)))
        except Exception as exc:  # a valid: magic rejects the pattern
            if "Validation" in type(exc).__name__:
                continue
            raise
        for fid, (off, kind) in lay["fields"].items():
            if isinstance(kind, tuple) and kind[0] in ("struct", "array"):
                continue
            got = obj
            for part in fid.split("."):
                got = getattr(got, part)
            want = _decode_kind(pattern, off, kind)
            if hasattr(got, "value"):
                got = got.value
            if isinstance(got, bool):
                got = int(got)
            assert got == want, (qname, fid)
            checked += 1
    assert checked > 100


def _decode_kind(buf: bytes, off: int, kind):
    import struct

    if isinstance(kind, tuple):
        if kind[0] == "bits":
            _, bit, width = kind
            nbytes = (bit + width + 7) // 8
            word = int.from_bytes(buf[off:off + nbytes], "little")
            return (word >> bit) & ((1 << width) - 1)
        if kind[0] == "bytes":
            return buf[off:off + kind[1]]
        raise AssertionError(kind)
    fmt = {"u1": "<B", "u2": "<H", "u4": "<I", "u8": "<Q", "s1": "<b", "s2": "<h", "s4": "<i",
           "s8": "<q", "f4": "<f", "f8": "<d"}[kind]
    return struct.unpack_from(fmt, buf, off)[0]


def _camel(kid: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in kid.split("_"))


# --------------------------------------------------------------------------- 3. real pages

WORKLOAD = """
CREATE EXTENSION pageinspect;
CREATE EXTENSION pg_visibility;
CREATE EXTENSION pg_freespacemap;
CREATE TABLE t (id int PRIMARY KEY, a text, b int, c int, d text) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'val' || g END, g % 10,
       CASE WHEN g % 3 = 0 THEN NULL ELSE g END, repeat('x', g % 50)
  FROM generate_series(1, 8000) g;
CREATE INDEX t_b ON t (b);
CREATE INDEX t_a ON t (a);
CREATE INDEX t_hash ON t USING hash (b);
CREATE INDEX t_brin ON t USING brin (id) WITH (pages_per_range = 4);
CREATE TABLE ta (id int, arr int[], p point) WITH (autovacuum_enabled = off);
INSERT INTO ta SELECT g, ARRAY[g % 10, g % 13], point(g % 100, g % 37) FROM generate_series(1, 4000) g;
CREATE INDEX ta_gin ON ta USING gin (arr);
CREATE INDEX ta_gist ON ta USING gist (p);
CREATE INDEX ta_sp ON ta USING spgist (p);
CREATE SEQUENCE s1;
SELECT nextval('s1'), nextval('s1'), nextval('s1');
UPDATE t SET c = c WHERE id % 11 = 0;
UPDATE t SET b = -b WHERE id BETWEEN 100 AND 120;
DELETE FROM t WHERE id % 13 = 0;
DELETE FROM t WHERE id BETWEEN 2000 AND 4500;
VACUUM t;
VACUUM FREEZE ta;
UPDATE t SET d = 'after vacuum' WHERE id BETWEEN 300 AND 330;
DELETE FROM ta WHERE id > 3900;
CHECKPOINT;
"""

RELATIONS = ["t", "t_pkey", "t_b", "t_a", "t_hash", "t_brin", "ta", "ta_gin", "ta_gist", "ta_sp", "s1"]


class Oracle:
    """A live server plus the files it left on disk."""

    def __init__(self, conn, datadir: Path):
        self.conn = conn
        self.datadir = datadir
        self.compared = 0

    def q(self, sql: str, params=()):
        with self.conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall()

    def pages(self, rel: str, fork: str = "main") -> list[bytes]:
        (path,) = self.q("SELECT pg_relation_filepath(%s::regclass)", (rel,))[0]
        suffix = "" if fork == "main" else f"_{fork}"
        data = (self.datadir / f"{path}{suffix}").read_bytes()
        return [data[i:i + 8192] for i in range(0, len(data), 8192)]

    def eq(self, got, want, what: str) -> None:
        assert got == want, f"{what}: parser {got!r} != pageinspect {want!r}"
        self.compared += 1


@pytest.fixture(scope="module")
def oracle():
    from livepg import running_server
    with running_server("fsync=off") as srv:
        conn = srv.connect()
        for stmt in (s.strip() for s in WORKLOAD.split(";")):
            if stmt:
                conn.execute(stmt)
        o = Oracle(conn, srv.data)
        yield o
        sys.stderr.write(f"\n[test_generated] {o.compared} parser fields compared with pageinspect\n")
        conn.close()


def _classes():
    from pgpage.decode.ksy.brin_page import BrinPage
    from pgpage.decode.ksy.fsm_page import FsmPage
    from pgpage.decode.ksy.gin_page import GinPage
    from pgpage.decode.ksy.gist_page import GistPage
    from pgpage.decode.ksy.hash_page import HashPage
    from pgpage.decode.ksy.heap_tuple import HeapTuple
    from pgpage.decode.ksy.nbtree import Nbtree
    from pgpage.decode.ksy.pg_page import PgPage
    from pgpage.decode.ksy.seq_page import SeqPage
    from pgpage.decode.ksy.spgist_page import SpgistPage
    from pgpage.decode.ksy.vm_page import VmPage

    return locals()


def _lsn(x: int) -> str:
    return f"{x >> 32:X}/{x & 0xFFFFFFFF:X}"


def _tid(block: int, pos: int) -> str:
    return f"({block},{pos})"


def test_page_headers_and_line_pointers(oracle):
    PgPage = _classes()["PgPage"]
    for rel in RELATIONS:
        for blk, raw in enumerate(oracle.pages(rel)):
            page = PgPage.from_bytes(raw)
            h = page.header
            (lsn, checksum, flags, lower, upper, special, pagesize, version, prune), = oracle.q(
                "SELECT lsn::text, checksum, flags, lower, upper, special, pagesize, version,"
                " prune_xid::text::bigint FROM page_header(%s)", (raw,))
            where = f"{rel} blk {blk}"
            oracle.eq(_lsn(h.pd_lsn.lsn), lsn, f"{where} lsn")
            oracle.eq(h.pd_checksum, checksum & 0xFFFF, f"{where} checksum")
            oracle.eq(h.pd_flags, flags, f"{where} flags")
            oracle.eq(h.pd_lower, lower, f"{where} lower")
            oracle.eq(h.pd_upper, upper, f"{where} upper")
            oracle.eq(h.pd_special, special, f"{where} special")
            oracle.eq(h.page_size_declared, pagesize, f"{where} pagesize")
            oracle.eq(h.layout_version, version, f"{where} version")
            oracle.eq(h.pd_prune_xid, prune, f"{where} prune_xid")
            oracle.eq(page.num_line_pointers, max(0, (lower - 24) // 4), f"{where} nlp")
            (cksum,), = oracle.q("SELECT page_checksum(%s, %s)", (raw, blk))
            oracle.eq(h.pd_checksum, cksum & 0xFFFF, f"{where} page_checksum")


def test_heap_page_items(oracle):
    c = _classes()
    PgPage, HeapTuple = c["PgPage"], c["HeapTuple"]
    tuples = 0
    for rel in ("t", "ta"):
        for blk, raw in enumerate(oracle.pages(rel)):
            page = PgPage.from_bytes(raw)
            rows = oracle.q(
                "SELECT lp, lp_off, lp_flags, lp_len, t_xmin::text::bigint, t_xmax::text::bigint,"
                " t_field3, t_ctid::text, t_infomask2, t_infomask, t_hoff, t_bits, t_oid::bigint, t_data"
                " FROM heap_page_items(%s)", (raw,))
            oracle.eq(len(page.linp), len(rows), f"{rel} blk {blk} items")
            for lp, row in zip(page.linp, rows):
                where = f"{rel} ({blk},{row[0]})"
                oracle.eq((lp.lp_off, int(lp.lp_flags), lp.lp_len), tuple(row[1:4]), f"{where} lp")
                if row[4] is None:
                    continue
                tup = HeapTuple.from_bytes(lp.data)
                tuples += 1
                oracle.eq(tup.t_xmin, row[4], f"{where} t_xmin")
                oracle.eq(tup.t_xmax, row[5], f"{where} t_xmax")
                oracle.eq(tup.t_field3, row[6] & 0xFFFFFFFF, f"{where} t_field3")
                oracle.eq(_tid(tup.t_ctid.block_number, tup.t_ctid.ip_posid), row[7], f"{where} t_ctid")
                oracle.eq(tup.t_infomask2, row[8], f"{where} t_infomask2")
                oracle.eq(tup.t_infomask, row[9], f"{where} t_infomask")
                oracle.eq(tup.t_hoff, row[10], f"{where} t_hoff")
                bits = None
                if tup.t_bits is not None:
                    bits = "".join("1" if tup.t_bits[i >> 3] & (1 << (i & 7)) else "0"
                                   for i in range(len(tup.t_bits) * 8))
                oracle.eq(bits, row[11], f"{where} t_bits")
                oracle.eq(tup.oid, row[12], f"{where} t_oid")
                oracle.eq(tup.data, bytes(row[13]), f"{where} t_data")
    assert tuples > 1000


def test_nbtree_pages(oracle):
    c = _classes()
    Nbtree = c["Nbtree"]
    deleted = posting = pivots_with_tid = 0
    for rel in ("t_pkey", "t_b", "t_a"):
        pages = oracle.pages(rel)
        meta = Nbtree.from_bytes(pages[0]).meta
        (row,) = oracle.q("SELECT magic, version, root, level, fastroot, fastlevel,"
                          " last_cleanup_num_delpages, last_cleanup_num_tuples, allequalimage"
                          " FROM bt_metap(%s)", (rel,))
        got = (meta.btm_magic, meta.btm_version, meta.btm_root, meta.btm_level, meta.btm_fastroot,
               meta.btm_fastlevel, meta.btm_last_cleanup_num_delpages,
               meta.btm_last_cleanup_num_heap_tuples, bool(meta.btm_allequalimage))
        oracle.eq(got, tuple(row), f"{rel} bt_metap")
        oracle.eq(Nbtree.from_bytes(pages[0]).opaque.btpo_flags & 0x8, 0x8, f"{rel} BTP_META")
        for blk in range(1, len(pages)):
            pg = Nbtree.from_bytes(pages[blk])
            op = pg.opaque
            (st,) = oracle.q("SELECT btpo_prev, btpo_next, btpo_level, btpo_flags"
                             " FROM bt_page_stats(%s, %s)", (rel, blk))
            oracle.eq((op.btpo_prev, op.btpo_next, op.btpo_level, op.btpo_flags), tuple(st),
                      f"{rel} blk {blk} opaque")
            if op.btpo_flags & 0x4:  # BTP_DELETED
                deleted += 1
                assert pg.deleted_page_data is not None
                (cur,), = oracle.q("SELECT txid_current()")
                assert pg.deleted_page_data.safexid_epoch == 0
                assert 3 <= pg.deleted_page_data.safexid_xid <= cur
                continue
            rows = oracle.q("SELECT itemoffset, ctid::text, itemlen, nulls, vars, data, htid::text,"
                            " tids::text[] FROM bt_page_items(%s)", (pages[blk],))
            oracle.eq(len(rows), pg.page.num_line_pointers, f"{rel} blk {blk} items")
            for lp, row in zip(pg.page.linp, rows):
                where = f"{rel} ({blk},{row[0]})"
                it = Nbtree.BtIndexTuple.from_bytes(lp.data)
                oracle.eq(_tid(it.t_tid.block_number, it.t_tid.ip_posid), row[1], f"{where} ctid")
                oracle.eq(it.tuple_size, row[2], f"{where} itemlen")
                oracle.eq(it.has_nulls, row[3], f"{where} nulls")
                oracle.eq(it.has_varwidths, row[4], f"{where} vars")
                oracle.eq(" ".join(f"{b:02x}" for b in it.key_data), row[5], f"{where} data")
                if it.is_posting:
                    posting += 1
                    htid = it.posting_list[0]
                    tids = [_tid(p.block_number, p.ip_posid) for p in it.posting_list]
                    oracle.eq(len(tids), it.n_posting, f"{where} nTIDs")
                elif it.is_pivot:
                    htid = it.pivot_heap_tid
                    pivots_with_tid += htid is not None
                    tids = None
                else:
                    htid, tids = it.t_tid, None
                oracle.eq(None if htid is None else _tid(htid.block_number, htid.ip_posid), row[6],
                          f"{where} htid")
                oracle.eq(tids, row[7], f"{where} tids")
    assert deleted > 0 and posting > 0 and pivots_with_tid > 0, (deleted, posting, pivots_with_tid)


def test_hash_pages(oracle):
    HashPage = _classes()["HashPage"]
    pages = oracle.pages("t_hash")
    meta = HashPage.from_bytes(pages[0]).meta
    (row,) = oracle.q("SELECT magic, version, ntuples, ffactor, bsize, bmsize, bmshift, maxbucket,"
                      " highmask, lowmask, ovflpoint, firstfree, nmaps, procid::bigint, spares, mapp"
                      " FROM hash_metapage_info(%s)", (pages[0],))
    got = (meta.hashm_magic, meta.hashm_version, meta.hashm_ntuples, meta.hashm_ffactor,
           meta.hashm_bsize, meta.hashm_bmsize, meta.hashm_bmshift, meta.hashm_maxbucket,
           meta.hashm_highmask, meta.hashm_lowmask, meta.hashm_ovflpoint, meta.hashm_firstfree,
           meta.hashm_nmaps, meta.hashm_procid, meta.hashm_spares, meta.hashm_mapp)
    oracle.eq(got, tuple(row), "t_hash metapage")
    kinds = {1: "overflow", 2: "bucket", 4: "bitmap", 8: "metapage", 0: "unused"}
    for blk, raw in enumerate(pages):
        op = HashPage.from_bytes(raw).opaque
        (kind,), = oracle.q("SELECT hash_page_type(%s)", (raw,))
        oracle.eq(op.hasho_page_id, 0xFF80, f"t_hash blk {blk} page id")
        oracle.eq(kinds[op.page_type], kind, f"t_hash blk {blk} type")
        if kind in ("bucket", "overflow"):
            (st,) = oracle.q("SELECT hasho_prevblkno, hasho_nextblkno, hasho_bucket, hasho_flag,"
                             " hasho_page_id FROM hash_page_stats(%s)", (raw,))
            oracle.eq((op.hasho_prevblkno, op.hasho_nextblkno, op.hasho_bucket, op.hasho_flag,
                       op.hasho_page_id), tuple(st), f"t_hash blk {blk} opaque")


def test_gin_gist_spgist_brin_seq_pages(oracle):
    c = _classes()
    GinPage, GistPage, SpgistPage = c["GinPage"], c["GistPage"], c["SpgistPage"]
    BrinPage, SeqPage, HeapTuple = c["BrinPage"], c["SeqPage"], c["HeapTuple"]
    gin_flags = ["data", "leaf", "deleted", "meta", "list", "list_full", "incomplete_split", "compressed"]
    pages = oracle.pages("ta_gin")
    m = GinPage.from_bytes(pages[0]).meta
    (row,) = oracle.q("SELECT pending_head, pending_tail, tail_free_size, n_pending_pages,"
                      " n_pending_tuples, n_total_pages, n_entry_pages, n_data_pages, n_entries,"
                      " version FROM gin_metapage_info(%s)", (pages[0],))
    oracle.eq((m.head, m.tail, m.tail_free_size, m.n_pending_pages, m.n_pending_heap_tuples,
               m.n_total_pages, m.n_entry_pages, m.n_data_pages, m.n_entries, m.gin_version),
              tuple(row), "ta_gin metapage")
    for blk, raw in enumerate(pages):
        op = GinPage.from_bytes(raw).opaque
        (row,) = oracle.q("SELECT rightlink, maxoff, flags FROM gin_page_opaque_info(%s)", (raw,))
        names = [n for i, n in enumerate(gin_flags) if op.flags & (1 << i)]
        oracle.eq((op.rightlink, op.maxoff, names), tuple(row), f"ta_gin blk {blk} opaque")

    gist_flags = ["leaf", "deleted", "tuples_deleted", "follow_right", "has_garbage"]
    has_gist_fn = oracle.q("SELECT count(*) FROM pg_proc WHERE proname = 'gist_page_opaque_info'")[0][0]
    for blk, raw in enumerate(oracle.pages("ta_gist")):
        op = GistPage.from_bytes(raw).opaque
        oracle.eq(op.gist_page_id, 0xFF81, f"ta_gist blk {blk} page id")
        if has_gist_fn:
            (row,) = oracle.q("SELECT nsn::text, rightlink, flags FROM gist_page_opaque_info(%s)", (raw,))
            names = [n for i, n in enumerate(gist_flags) if op.flags & (1 << i)]
            oracle.eq((_lsn(op.nsn.lsn), op.rightlink, names), tuple(row), f"ta_gist blk {blk} opaque")

    sp = oracle.pages("ta_sp")
    assert SpgistPage.from_bytes(sp[0]).meta.magic_number == 0xBA0BABEE
    assert SpgistPage.from_bytes(sp[0]).opaque.flags & 0x1  # SPGIST_META
    for blk, raw in enumerate(sp):
        oracle.eq(SpgistPage.from_bytes(raw).opaque.spgist_page_id, 0xFF82, f"ta_sp blk {blk} page id")

    brin = oracle.pages("t_brin")
    m = BrinPage.from_bytes(brin[0]).meta
    (row,) = oracle.q("SELECT magic, version, pagesperrange, lastrevmappage FROM brin_metapage_info(%s)",
                      (brin[0],))
    oracle.eq((f"0x{m.brin_magic:08X}", m.brin_version, m.pages_per_range, m.last_revmap_page), tuple(row),
              "t_brin metapage")
    for blk, raw in enumerate(brin):
        (kind,), = oracle.q("SELECT brin_page_type(%s)", (raw,))
        got = BrinPage.from_bytes(raw).special.type.name.replace("brin_pagetype_", "")
        oracle.eq(got, kind, f"t_brin blk {blk} type")

    (seq_raw,) = oracle.pages("s1")
    seq = SeqPage.from_bytes(seq_raw)
    oracle.eq(seq.special.magic, 0x1717, "s1 magic")
    tup = HeapTuple.from_bytes(seq.page.linp[0].data)
    vals = SeqPage.FormDataPgSequenceData.from_bytes(tup.data)
    (row,) = oracle.q("SELECT last_value, log_cnt, is_called FROM s1")
    oracle.eq((vals.last_value, vals.log_cnt, bool(vals.is_called)), tuple(row), "s1 values")


def test_vm_and_fsm(oracle):
    c = _classes()
    VmPage, FsmPage = c["VmPage"], c["FsmPage"]
    (vm_raw,) = oracle.pages("t", "vm")[:1]
    vm = VmPage.from_bytes(vm_raw)
    oracle.eq(vm.heap_blocks_per_page, 32672, "vm heap blocks per page")
    rows = oracle.q("SELECT blkno, all_visible, all_frozen FROM pg_visibility_map('t') ORDER BY blkno")
    seen_visible = seen_not = 0
    for blkno, vis, frz in rows:
        e = vm.entries[blkno // 4]
        k = blkno % 4
        got = (bool(getattr(e, f"all_visible_{k}")), bool(getattr(e, f"all_frozen_{k}")))
        oracle.eq(got, (vis, frz), f"vm heap blk {blkno}")
        # the same bits straight from map_bytes
        bits = (vm.map_bytes[blkno // 4] >> ((blkno % 4) * 2)) & 3
        oracle.eq((bool(bits & 1), bool(bits & 2)), (vis, frz), f"vm raw heap blk {blkno}")
        seen_visible += vis
        seen_not += not vis
    assert seen_visible and seen_not

    fsm_pages = oracle.pages("t", "fsm")
    for blk, raw in enumerate(fsm_pages):
        fsm = FsmPage.from_bytes(raw)
        oracle.eq((fsm.non_leaf_nodes_per_page, fsm.leaf_nodes_per_page), (4095, 4069), "fsm sizes")
        (text,), = oracle.q("SELECT fsm_page_contents(%s)", (raw,))
        want = {}
        next_slot = None
        for line in text.splitlines():
            k, v = line.split(":")
            if k == "fp_next_slot":
                next_slot = int(v)
            else:
                want[int(k)] = int(v)
        got = {i: v for i, v in enumerate(fsm.fp_nodes) if v}
        oracle.eq(got, want, f"fsm blk {blk} nodes")
        oracle.eq(fsm.fp_next_slot, next_slot, f"fsm blk {blk} fp_next_slot")
    leaf = FsmPage.from_bytes(fsm_pages[2]).leaf_nodes  # first bottom-level FSM page
    for blkno, avail in oracle.q("SELECT blkno, avail FROM pg_freespace('t')"):
        oracle.eq(leaf[blkno] * 32, avail, f"fsm heap blk {blkno}")


def test_numpy_decode_from_layouts_matches_parser(oracle):
    """A vectorised decode that takes every offset/width from layouts.py agrees with Kaitai."""
    import numpy as np
    from pgpage.decode.ksy import layouts as L

    c = _classes()
    PgPage, HeapTuple = c["PgPage"], c["HeapTuple"]
    raw = b"".join(oracle.pages("t"))
    pages = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 8192)

    def column(arr, off, kind):
        if isinstance(kind, tuple) and kind[0] == "bits":
            _, bit, width = kind
            nbytes = (bit + width + 7) // 8
            word = np.zeros(arr.shape[:-1], dtype=np.uint64)
            for i in range(nbytes):
                word |= arr[..., off + i].astype(np.uint64) << np.uint64(8 * i)
            return (word >> np.uint64(bit)) & np.uint64((1 << width) - 1)
        n = {"u1": 1, "u2": 2, "u4": 4, "u8": 8}[kind]
        return np.ascontiguousarray(arr[..., off:off + n]).view(f"<u{n}")[..., 0]

    hdr = L.LAYOUTS["pg_page::page_header"]["fields"]
    lp_layout = L.LAYOUTS["pg_page::item_id"]
    lp_size = lp_layout["size"]
    hdr_size = L.LAYOUTS["pg_page::page_header"]["size"]
    lower = column(pages, *hdr["pd_lower"])
    tup_fields = {k: v for k, v in L.LAYOUTS["heap_tuple"]["fields"].items()
                  if not isinstance(v[1], tuple)}
    for b in range(pages.shape[0]):
        page = PgPage.from_bytes(raw[b * 8192:(b + 1) * 8192])
        for name in ("pd_lower", "pd_upper", "pd_special", "pd_checksum", "pd_flags", "pd_prune_xid"):
            oracle.eq(int(column(pages[b], *hdr[name])), getattr(page.header, name), f"np blk {b} {name}")
        n = max(0, (int(lower[b]) - hdr_size) // lp_size)
        lps = pages[b, hdr_size:hdr_size + n * lp_size].reshape(n, lp_size)
        cols = {f: column(lps, *spec) for f, spec in lp_layout["fields"].items()}
        for i, lp in enumerate(page.linp):
            oracle.eq((int(cols["lp_off"][i]), int(cols["lp_flags"][i]), int(cols["lp_len"][i])),
                      (lp.lp_off, int(lp.lp_flags), lp.lp_len), f"np ({b},{i + 1}) lp")
            if lp.data is None or lp.lp_len < L.LAYOUTS["heap_tuple"]["size"]:
                continue
            tup = HeapTuple.from_bytes(lp.data)
            t = pages[b, lp.lp_off:lp.lp_off + L.LAYOUTS["heap_tuple"]["size"]]
            for f, (off, kind) in tup_fields.items():
                got = int(column(t, off, kind))
                want = tup
                for part in f.split("."):
                    want = getattr(want, part)
                oracle.eq(got, want, f"np ({b},{i + 1}) {f}")


# --------------------------------------------------------------------------- 4. fixtures, all majors
#
# The committed real-server fixtures (fixtures/pg<MAJOR>/, made by fixtures/make_fixtures.py)
# cover PostgreSQL 10-18: here the *generated* parsers alone are held against the pageinspect
# output captured with them, for the structures whose layout or meaning changed across majors
# (btree metapage v2/v3/v4, btpo union vs btpo_level, posting lists, pre-12 OIDs). The
# decoders built on top are tested against the same oracle in their own test modules.

FIXTURES = REPO / "fixtures"
MAJORS = sorted(int(p.name[2:]) for p in FIXTURES.glob("pg[0-9]*") if (p / "oracle" / "catalog.json").is_file())


def _fixture(major: int):
    import gzip
    import json

    base = FIXTURES / f"pg{major}"
    catalog = json.loads((base / "oracle" / "catalog.json").read_text())
    rels = {}
    for p in sorted((base / "oracle" / "rel").glob("*.json.gz")):
        with gzip.open(p, "rt") as fh:
            rels[p.name[: -len(".json.gz")]] = json.load(fh)
    return base / "data", catalog, rels


def _fixture_pages(datadir: Path, filepath: str) -> list[bytes]:
    data = (datadir / filepath).read_bytes()
    return [data[i:i + 8192] for i in range(0, len(data), 8192)]


@pytest.mark.parametrize("major", MAJORS or [0])
def test_fixture_pages_against_captured_pageinspect(major):
    c = _classes()
    PgPage, HeapTuple, Nbtree = c["PgPage"], c["HeapTuple"], c["Nbtree"]
    datadir, catalog, rels = _fixture(major)
    n = {"pages": 0, "tuples": 0, "index_tuples": 0, "posting": 0, "deleted": 0, "metapages": 0}
    for name, rel in rels.items():
        pages = _fixture_pages(datadir, rel["filepath"])
        for entry in rel["forks"]["main"]:
            blk, raw = entry["blkno"], pages[entry["blkno"]]
            page = PgPage.from_bytes(raw)
            ph = entry.get("page_header")
            if ph:
                h = page.header
                n["pages"] += 1
                assert (_lsn(h.pd_lsn.lsn), h.pd_checksum, h.pd_flags, h.pd_lower, h.pd_upper,
                        h.pd_special, h.page_size_declared, h.layout_version, h.pd_prune_xid) == (
                    ph["lsn"], ph["checksum"] & 0xFFFF, ph["flags"], ph["lower"], ph["upper"],
                    ph["special"], ph["pagesize"], ph["version"], ph["prune_xid"]), (name, blk)
            for row in entry.get("heap_page_items") or []:
                lp = page.linp[row["lp"] - 1]
                assert (lp.lp_off, int(lp.lp_flags), lp.lp_len) == (
                    row["lp_off"], row["lp_flags"], row["lp_len"]), (name, blk, row["lp"])
                if row["t_xmin"] is None:
                    continue
                t = HeapTuple.from_bytes(lp.data)
                n["tuples"] += 1
                bits = None if t.t_bits is None else "".join(
                    "1" if t.t_bits[i >> 3] & (1 << (i & 7)) else "0" for i in range(len(t.t_bits) * 8))
                assert (t.t_xmin, t.t_xmax, t.t_field3, _tid(t.t_ctid.block_number, t.t_ctid.ip_posid),
                        t.t_infomask2, t.t_infomask, t.t_hoff, bits, t.oid, t.data.hex()) == (
                    row["t_xmin"], row["t_xmax"], row["t_field3"] & 0xFFFFFFFF, row["t_ctid"],
                    row["t_infomask2"], row["t_infomask"], row["t_hoff"], row["t_bits"], row["t_oid"],
                    row["t_data"]), (name, blk, row["lp"])
        if rel.get("amname") != "btree" or not rel.get("bt_metap"):
            continue
        # metapage: version 2 (PG10) has six fields; 3 adds oldest_xact/num_tuples; 13 allequalimage;
        # 14 renames oldest_xact to last_cleanup_num_delpages (same 4 bytes)
        meta = Nbtree.from_bytes(pages[0]).meta
        n["metapages"] += 1
        got = {"magic": meta.btm_magic, "version": meta.btm_version, "root": meta.btm_root,
               "level": meta.btm_level, "fastroot": meta.btm_fastroot, "fastlevel": meta.btm_fastlevel,
               "oldest_xact": meta.btm_oldest_btpo_xact,
               "last_cleanup_num_delpages": meta.btm_last_cleanup_num_delpages,
               "last_cleanup_num_tuples": meta.btm_last_cleanup_num_heap_tuples,
               "allequalimage": bool(meta.btm_allequalimage)}
        assert {k: got[k] for k in rel["bt_metap"]} == rel["bt_metap"], name
        for entry in rel["forks"]["main"][1:]:
            blk, st = entry["blkno"], entry.get("bt_page_stats")
            if not st:
                continue
            pg = Nbtree.from_bytes(pages[blk])
            op = pg.opaque
            if st["type"] == "d" and "btpo" in st:
                # before 14 pageinspect reports only btpo.xact for a deleted page
                assert op.btpo_flags & 0x4 and op.btpo_xact == st["btpo"], (name, blk)
                n["deleted"] += 1
                continue
            level = st["btpo_level"] if "btpo_level" in st else st["btpo"]
            assert (op.btpo_prev, op.btpo_next, op.btpo_level, op.btpo_flags) == (
                st["btpo_prev"] & 0xFFFFFFFF, st["btpo_next"] & 0xFFFFFFFF, level, st["btpo_flags"]), (name, blk)
            if op.btpo_flags & 0x100:  # BTP_HAS_FULLXID
                n["deleted"] += 1
                assert pg.deleted_page_data.safexid_xid <= int(catalog["txid_current"]), (name, blk)
                continue
            for row in entry.get("bt_page_items") or []:
                item = pg.page.linp[row["itemoffset"] - 1].data
                it = Nbtree.BtIndexTuple.from_bytes(item)
                n["index_tuples"] += 1
                # pageinspect before 13 shows everything after the header as "data"
                data = it.key_data if major >= 13 else item[it.data_offset:it.size_clamped]
                assert (_tid(it.t_tid.block_number, it.t_tid.ip_posid), it.tuple_size, it.has_nulls,
                        it.has_varwidths, " ".join(f"{b:02x}" for b in data)) == (
                    row["ctid"], row["itemlen"], row["nulls"], row["vars"], row["data"]), (name, blk, row)
                if "tids" in row:
                    tids = [_tid(p.block_number, p.ip_posid) for p in it.posting_list] if it.is_posting else None
                    n["posting"] += it.is_posting
                    assert tids == row["tids"], (name, blk, row["itemoffset"])
                if "htid" in row and major >= 13:
                    htid = (it.posting_list[0] if it.is_posting else it.pivot_heap_tid if it.is_pivot
                            else it.t_tid)
                    assert (None if htid is None else _tid(htid.block_number, htid.ip_posid)) == row["htid"], (
                        name, blk, row["itemoffset"])
    assert n["pages"] > 50 and n["tuples"] > 500 and n["index_tuples"] > 500 and n["metapages"] > 3, n
    if major >= 13:
        assert n["posting"] > 0, n
    assert n["deleted"] > 0, n


@pytest.mark.parametrize("major", MAJORS or [0])
def test_fixture_catalog_oids_pre_12(major):
    """Before 12 catalog rows carry HEAP_HASOID (OID at t_hoff - 4); from 12 on never."""
    c = _classes()
    PgPage, HeapTuple = c["PgPage"], c["HeapTuple"]
    datadir, catalog, _ = _fixture(major)
    (pg_class,) = [r for r in catalog["relations"] if r["relname"] == "pg_class"]
    oids, with_flag = set(), 0
    for raw in _fixture_pages(datadir, pg_class["filepath"]):
        for lp in PgPage.from_bytes(raw).linp:
            if int(lp.lp_flags) != 1 or lp.data is None:
                continue
            t = HeapTuple.from_bytes(lp.data)
            with_flag += t.has_oid_old
            if t.oid is not None:
                oids.add(t.oid)
    wanted = {r["oid"] for r in catalog["relations"]}
    if major < 12:
        assert with_flag > 0 and wanted <= oids
    else:
        assert with_flag == 0 and not oids
