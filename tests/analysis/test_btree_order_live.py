"""B-tree key order and heapallindexed against the server's own amcheck (issue 23, items 2 and 3), on
several majors: key order on 10, 13, 15, 17 and 18, heapallindexed (amcheck has it from 11) on 11, 13, 15
and 18 (Debian's 15, the npm builds fixtures/make_fixtures.py pins: tests/livepg.py's ``major_bindir``).

A live PostgreSQL (tests/livepg.py) builds indexes of every type whose order pgpage computes (multi-column,
DESC, NULLS FIRST, NULLs, deduplicated, text COLLATE "C" and ucs_basic, a three-level index), inserted in
random order so that pages split. Then, for each damage (keys swapped, a key byte altered, a high key or a separator altered,
TIDs of a posting list swapped, an entry cut out, a TID pointed at another row, a HOT chain's root among them),
the server is stopped, one page of the real index file is changed (checksum recomputed), the server restarted
and asked ``bt_index_check`` and ``bt_index_parent_check`` (heapallindexed from 11): every error amcheck
raises, pgpage's verify reports at the same index block (and item, where amcheck names one; for a heap tuple
without its entry, at the same heap TID: a HOT chain's root). On the undamaged cluster neither reports
anything (pgpage: only its notes that an expression index's and a partial index's entries are not all
compared). Version 2 and 3 indexes (10, 11) order equal keys by nothing: two of them swapped are no
corruption, to amcheck and pgpage alike.
"""
from __future__ import annotations

import random
import re
import struct
from contextlib import ExitStack, contextmanager

import numpy as np
import psycopg
import pytest

from livepg import major_bindir, running_server
from pgpage.decode.checksum import checksum_pages
from pgpage.passes.verify import Verification
from pgpage.storage.datadir import open_data_directory

BS = 8192
TYPES = {  # column -> (type, SQL producing a value from i, with NULLs and edge values)
    "i2": ("int2", "(i % 3000 - 1500)::int2"),
    "i8": ("int8", "(i::int8 * 7919 - 10000000000)"),
    "o": ("oid", "(i * 2654435761 % 4294967296)::oid"),
    "bo": ("bool", "CASE WHEN i % 5 = 0 THEN NULL ELSE i % 2 = 0 END"),
    "f4": ("float4", "CASE i % 97 WHEN 0 THEN 'NaN'::float4 WHEN 1 THEN '-0'::float4 WHEN 2 THEN '-Infinity'"
                     " ELSE (i * 1.37 - 900)::float4 END"),
    "f8": ("float8", "CASE i % 89 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8 WHEN 2 THEN 'Infinity'"
                     " WHEN 3 THEN 0 ELSE (i * 1e-3 - 1) ^ 3 END"),
    "n": ("numeric", "CASE i % 83 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'"
                     " ELSE (i - 1500)::numeric / 7 END"),    # numeric infinities: 14+ (cut before)
    "d": ("date", "date '2000-01-01' + (i * 37 % 20000 - 10000)"),
    "tm": ("time", "time '00:00' + i * interval '17 seconds'"),
    "tz": ("timetz", "(time '00:00' + i * interval '17 seconds')::timetz AT TIME ZONE"
                     " (CASE i % 3 WHEN 0 THEN 'UTC' WHEN 1 THEN '+05:30' ELSE '-08' END)"),
    "ts": ("timestamp", "timestamp '1990-01-01' + i * interval '5 hours 3 min'"),
    "tst": ("timestamptz", "CASE i % 101 WHEN 0 THEN '-infinity'::timestamptz ELSE"
                           " timestamptz '1970-01-01 UTC' + (i - 1500) * interval '1 day 3 ms' END"),
    "iv": ("interval", "(i % 40) * interval '1 month' + (i % 31) * interval '1 day' + i * interval '1 s'"),
    "u": ("uuid", "md5(i::text)::uuid"),
    "by": ("bytea", "CASE WHEN i % 11 = 0 THEN NULL ELSE decode(substr(md5(i::text), 1, i % 9 * 2), 'hex') END"),
    "bp": ("char(6)", "substr(md5(i::text), 1, i % 6)"),
    "v": ("varchar(20)", "substr(md5(i::text), 1, i % 12)"),
    "nm": ("name", "md5(i::text) || 'é'"),
    "tx": ("text COLLATE \"C\"", "CASE WHEN i % 13 = 0 THEN NULL ELSE chr(60 + i % 60) || md5(i::text) END"),
    # ucs_basic: libc's C under another oid (10-16), the builtin provider's C (17+); characters whose code point
    # order is no language's (é after z, an emoji, one unassigned, one private use, the last plane's)
    "uc": ("text COLLATE ucs_basic", "CASE WHEN i % 17 = 0 THEN NULL ELSE chr(48 + i % 70) || chr((ARRAY[233, 90,"
                                     " 122, 8364, 65313, 128512, 888, 57344, 1114109, 97])[i % 10 + 1]) || md5(i::text)"
                                     " END"),
}


def amcheck_errors(conn, index: str, major: int) -> list[tuple[str, str, str]]:
    out = []
    for fn in ("bt_index_check", "bt_index_parent_check"):
        try:
            conn.execute(f"SELECT {fn}('{index}'::regclass{', heapallindexed => true' if major >= 11 else ''})")
        except psycopg.Error as e:
            out.append((fn, e.diag.message_primary or "", e.diag.message_detail or ""))
    return out


def amcheck_location(message: str, detail: str) -> tuple:
    """The index block (and item) amcheck names; ("heap", block, item) for a heap tuple lacking its entry."""
    m = re.search(r"heap tuple \((\d+),(\d+)\) from table .* lacks matching index tuple", message)
    if m:
        return "heap", int(m.group(1)), int(m.group(2))
    for pat in (r"child index tid=\((\d+),(\d+)\)", r"Lower index tid=\((\d+),(\d+)\)",
                r"Last item on page tid=\((\d+),(\d+)\)", r"Index tid=\((\d+),(\d+)\)"):
        m = re.search(pat, detail)
        if m:
            return int(m.group(1)), int(m.group(2))
    m = re.search(r"child block=(\d+)", detail) or re.search(r"[Bb]lock[= ](\d+)", message + " " + detail)
    assert m, (message, detail)
    return int(m.group(1)), None


def pgpage_findings(srv, indexes, dbname: str = "postgres") -> dict[str, list[dict]]:
    """index -> what pgpage's verify --heapallindexed finds in it (one reading of the catalogs for them all)."""
    c = open_data_directory(srv.data)
    v = Verification(c)
    v.heapallindexed = True
    db = c.database(dbname)
    return {n: [r for r in v.relation_records(v.subject_of(db.relation(n))) if r["type"] == "finding"]
            for n in indexes}


# ------------------------------------------------------------------------------ pages of the index file
def special(page: bytes) -> tuple[int, int, int, int]:
    prev, nxt, level = struct.unpack_from("<III", page, BS - 16)
    flags = struct.unpack_from("<H", page, BS - 4)[0]
    return prev, nxt, level, flags


def items(page: bytes) -> list[tuple[int, int]]:
    lower = struct.unpack_from("<H", page, 12)[0]
    out = []
    for n in range((lower - 24) // 4):
        lp = struct.unpack_from("<I", page, 24 + 4 * n)[0]
        out.append((lp & 0x7FFF, lp >> 17))
    return out


def with_checksum(page: bytearray, blkno: int) -> bytes:
    page[8:10] = b"\0\0"
    arr = np.frombuffer(bytes(page), dtype=np.uint8).reshape(1, BS)
    page[8:10] = struct.pack("<H", int(checksum_pages(arr, blkno)[0]))
    return bytes(page)


def swap_lp(page: bytearray, a: int, b: int) -> None:
    pa, pb = 24 + 4 * (a - 1), 24 + 4 * (b - 1)
    page[pa:pa + 4], page[pb:pb + 4] = page[pb:pb + 4], page[pa:pa + 4]


class IndexFile:
    def __init__(self, path):
        self.path = path
        raw = path.read_bytes()
        self.pages = [raw[i:i + BS] for i in range(0, len(raw), BS)]

    def blocks(self, leaf: bool, middle: bool = True, level: int | None = None, root: bool = False) -> list[int]:
        out = []
        for b, p in enumerate(self.pages[1:], 1):
            prev, nxt, lv, flags = special(p)
            if flags & 0x1C or bool(flags & 1) != leaf or (level is not None and lv != level):
                continue
            if root != bool(flags & 2) or (middle and (prev == 0 or nxt == 0)):
                continue
            out.append(b)
        assert out, "the index has no such page"
        return out

    def key(self, b: int, n: int, at: int = 8, size: int = 4) -> bytes:
        off, _ = items(self.pages[b])[n - 1]
        return self.pages[b][off + at:off + at + size]


# ------------------------------------------------------------------------------ damage, one case each
def case_swap(ix: IndexFile, rnd):
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    swap_lp(p, 3, 5)
    return b, p


def case_key_high(ix, rnd):
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    off, _ = items(p)[9]
    p[off + 8:off + 12] = struct.pack("<i", 2**31 - 1)
    return b, p


def case_first_low(ix, rnd):
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    off, _ = items(p)[1]
    p[off + 8:off + 12] = struct.pack("<i", -5)
    return b, p


def case_high_key(ix, rnd):
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    off, _ = items(p)[0]
    p[off + 8:off + 12] = ix.key(b, 5)
    return b, p


def case_separator(ix, rnd):
    b = ix.blocks(leaf=False, middle=False, root=True)[0]
    p = bytearray(ix.pages[b])
    k = rnd.randrange(3, len(items(p)) - 1)
    lo, hi = (struct.unpack("<i", ix.key(b, n))[0] for n in (k, k + 1))
    off, _ = items(p)[k - 1]
    p[off + 8:off + 12] = struct.pack("<i", (lo + hi) // 2)
    return b, p


def case_equal_keys_swapped(ix, rnd):
    """Two items of equal key: only the heap TID orders them (heapkeyspace)."""
    for b in ix.blocks(leaf=True):
        its = items(ix.pages[b])
        for n in range(2, len(its)):
            if ix.key(b, n) == ix.key(b, n + 1):
                p = bytearray(ix.pages[b])
                swap_lp(p, n, n + 1)
                return b, p
    raise AssertionError("no equal neighbours")


def case_posting_tids(ix, rnd):
    for b in ix.blocks(leaf=True):
        p = bytearray(ix.pages[b])
        for off, length in items(p)[1:]:
            info = struct.unpack_from("<H", p, off + 6)[0]
            posid = struct.unpack_from("<H", p, off + 4)[0]
            if info & 0x2000 and posid & 0x2000 and (posid & 0xFFF) >= 3:
                start = off + struct.unpack_from("<H", p, off + 2)[0]
                p[start:start + 6], p[start + 6:start + 12] = p[start + 6:start + 12], p[start:start + 6]
                return b, p
    raise AssertionError("no posting list")


def data_start(p, off) -> int:
    """Where a text key's characters start in its tuple: after a 1-byte or a 4-byte varlena header."""
    return 9 if p[off + 8] & 1 else 12


def case_text_byte(ix, rnd):
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    off, _ = items(p)[3]
    p[off + data_start(p, off)] = 0x7E            # the first character: '~' sorts last
    return b, p


def case_text_separator(ix, rnd):
    b = rnd.choice(ix.blocks(leaf=False, level=1))
    p = bytearray(ix.pages[b])
    off, _ = items(p)[3]
    p[off + data_start(p, off)] = 0x20            # a separator made smaller than the keys of the child it bounds
    return b, p


def cut_item(p: bytearray, k: int) -> None:
    """Item k's line pointer cut out of the array (pd_lower 4 bytes lower)."""
    n = len(items(p))
    p[24 + 4 * (k - 1):24 + 4 * (n - 1)] = p[24 + 4 * k:24 + 4 * n]
    p[24 + 4 * (n - 1):24 + 4 * n] = b"\0\0\0\0"
    p[12:14] = struct.pack("<H", 24 + 4 * (n - 1))


def case_cut_entry(ix, rnd):
    """An index entry removed."""
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    cut_item(p, rnd.randrange(3, len(items(p))))
    return b, p


def case_hot_root_tid(ix, rnd):
    """The TID (0,3) of h's row 3, a HOT chain's root (the row's live version is heap-only), pointed at row 2:
    in a plain entry or in a posting list, where it is the first (lowest) TID."""
    for b in ix.blocks(leaf=True, middle=False):
        p = bytearray(ix.pages[b])
        for off, _ in items(p)[1:]:
            tids = [off]
            if struct.unpack_from("<H", p, off + 6)[0] & 0x2000:             # INDEX_ALT_TID_MASK: a posting list
                start = off + struct.unpack_from("<H", p, off + 2)[0]
                tids = [start + 6 * n for n in range(struct.unpack_from("<H", p, off + 4)[0] & 0xFFF)]
            for at in tids:
                if struct.unpack_from("<HHH", p, at) == (0, 0, 3):
                    p[at + 4:at + 6] = struct.pack("<H", 2)
                    return b, p
    raise AssertionError("no entry of TID (0,3)")


def case_wrong_tid(ix, rnd):
    """An entry's heap TID pointed at the row of the next entry."""
    b = rnd.choice(ix.blocks(leaf=True))
    p = bytearray(ix.pages[b])
    k = rnd.randrange(3, len(items(p)) - 1)
    off, _ = items(p)[k - 1]
    nxt, _ = items(p)[k]
    p[off:off + 6] = p[nxt:nxt + 6]
    return b, p


ORDER_CASES = [
    ("t_pkey", case_swap), ("t_pkey", case_key_high), ("t_pkey", case_first_low), ("t_pkey", case_high_key),
    ("t_pkey", case_separator), ("ix_nodedup", case_equal_keys_swapped), ("ix_dup", case_posting_tids),
    ("ix_multi", case_swap), ("ix_text", case_text_byte), ("ix_text", case_text_separator), ("ix_uc", case_text_byte),
    ("ix_n_desc", case_swap), ("ix_two_types", case_swap),
]
HEAPALLINDEXED_CASES = [
    ("t_pkey", case_cut_entry), ("t_pkey", case_wrong_tid), ("ix_multi", case_wrong_tid),
    ("h_v", case_cut_entry), ("h_v", case_wrong_tid), ("h_v", case_hot_root_tid),
]
# the majors whose amcheck judges them: bt_index_check and bt_index_parent_check exist from 10 (10 and 11 build
# version 2 and 3 indexes, 12 version 4 with heap TIDs in the key), heapallindexed from 11, posting lists from 13
ORDER_MAJORS = (10, 13, 15, 17, 18)
HEAPALLINDEXED_MAJORS = (11, 13, 15, 18)


def cases(majors, damage_cases) -> list:
    return [pytest.param(m, index, damage, id=f"pg{m}-{index}-{damage.__name__[5:]}")
            for m in majors for index, damage in damage_cases if m >= 13 or damage is not case_posting_tids]


@contextmanager
def built(major: int):
    """A server of ``major`` with the indexes built, amcheck's word on them clean, stopped."""
    with running_server(bindir=major_bindir(major)) as srv:
        conn = srv.connect()
        conn.execute("CREATE EXTENSION amcheck")
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, k int, k2 int, s text COLLATE \"C\", w text COLLATE \"C\")")
        conn.execute("CREATE INDEX ix_dup ON t (k)")
        conn.execute(f"CREATE INDEX ix_nodedup ON t (k){' WITH (deduplicate_items = off)' if major >= 13 else ''}")
        conn.execute("CREATE INDEX ix_multi ON t (k2 DESC, s NULLS FIRST)")
        conn.execute("CREATE INDEX ix_text ON t (w)")
        conn.execute("INSERT INTO t SELECT i, i % 50, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 300 END,"
                     " CASE WHEN i % 5 = 0 THEN NULL ELSE md5(i::text) END, md5((i % 4000)::text) || repeat('x', 250)"
                     " FROM (SELECT i FROM generate_series(1, 12000) i ORDER BY md5(i::text)) r")
        cols = ", ".join(f"{c} {t}" for c, (t, _) in TYPES.items())
        conn.execute(f"CREATE TABLE ty (i int, {cols})")
        for c in TYPES:
            conn.execute(f"CREATE INDEX ix_{c} ON ty ({c})")
        conn.execute("CREATE INDEX ix_n_desc ON ty (n DESC NULLS LAST, i)")
        conn.execute("CREATE INDEX ix_two_types ON ty (bp, f4 DESC, u NULLS FIRST)")
        vals = ", ".join(e for _, e in TYPES.values())
        if major < 14:
            vals = vals.replace(" WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity'", "")
        conn.execute(f"INSERT INTO ty SELECT i, {vals} FROM (SELECT i FROM generate_series(1, 3000) i"
                     " ORDER BY md5(i::text)) r")
        # HOT chains (pad is in no index), some pruned to redirects; a partial and an expression index
        conn.execute("CREATE TABLE h (id int PRIMARY KEY, v int, pad text) WITH (fillfactor = 60)")
        conn.execute("CREATE INDEX h_v ON h (v)")
        conn.execute("CREATE INDEX h_part ON h (v) WHERE v > 100")
        conn.execute("CREATE INDEX h_expr ON h ((v + 1))")
        conn.execute("INSERT INTO h SELECT i, i % 500, 'x' FROM generate_series(1, 6000) i")
        conn.execute("UPDATE h SET pad = 'y' WHERE id % 3 = 0")
        conn.execute("SELECT count(*) FROM h WHERE pad = 'y'")       # prunes some pages' chains
        conn.execute("UPDATE h SET pad = 'z' WHERE id % 6 = 0")
        conn.execute("DELETE FROM h WHERE id % 11 = 0")
        conn.execute("CHECKPOINT")
        indexes = [r[0] for r in conn.execute("SELECT indexrelid::regclass::text FROM pg_index i JOIN pg_class c"
                                              " ON c.oid = i.indrelid WHERE c.relname IN ('t', 'ty', 'h')")]
        paths = {n: srv.data / conn.execute(f"SELECT pg_relation_filepath('{n}')").fetchone()[0] for n in indexes}
        clean = {n: amcheck_errors(conn, n, major) for n in indexes}
        conn.close()
        srv.stop()
        yield srv, paths, clean


@pytest.fixture(scope="module")
def clusters():
    """major -> its cluster (``built``), made on first use and kept for the module: one server per major
    and test worker, whatever order the tests of the module run in."""
    made = {}
    with ExitStack() as stack:
        yield lambda major: made.get(major) or made.setdefault(major, stack.enter_context(built(major)))


@pytest.mark.parametrize("major", sorted({*ORDER_MAJORS, *HEAPALLINDEXED_MAJORS}), ids=lambda m: f"pg{m}")
def test_clean_indexes_agree_with_amcheck(clusters, major):
    srv, paths, clean = clusters(major)
    assert len(paths) == 5 + len(TYPES) + 2 + 4
    assert all(v == [] for v in clean.values()), clean
    notes = {"h_part": "btree.heapallindexed.not_checked", "h_expr": "btree.heapallindexed.not_checked"}
    for n, found in pgpage_findings(srv, paths).items():
        assert [f["code"] for f in found] == ([notes[n]] if n in notes else []), n
    ix = IndexFile(paths["ix_text"])
    assert ix.blocks(leaf=False, middle=False, root=True) and ix.blocks(leaf=False, level=1)  # three levels


def test_index_keys_with_nulls_compared_by_the_compiled_printer(clusters, monkeypatch):
    """heapallindexed's index side: leaf tuples with a null bitmap (NULLs in ix_multi's s, ix_n_desc's n and
    ix_two_types' columns) are printed by the compiled printer (the bitmap after IndexTupleData, the data at 16), and
    each key hashes as the line made of the texts rows prints for it; amcheck and pgpage find nothing."""
    import numpy as np

    import pgpage.passes.heapallindexed as hai
    srv, paths, clean = clusters(15)
    real, printed_with_nulls = hai._key_hashes, []

    def both(printer, flat, start, length, t_hoff, natts, hasnull, texts):
        declined = []

        def counted(which):
            declined.append(np.asarray(which))
            return texts(which)
        fast = real(printer, flat, start, length, t_hoff, natts, hasnull, counted)
        if len(t_hoff) and t_hoff.max() <= 16:     # index tuples
            printed = np.asarray(hasnull, dtype=bool).copy()
            for d in declined:
                printed[d] = False
            printed_with_nulls.append(int(printed.sum()))
        assert np.array_equal(fast, real(None, flat, start, length, t_hoff, natts, hasnull, texts))
        return fast
    monkeypatch.setattr(hai, "_key_hashes", both)
    names = ["ix_multi", "ix_n_desc", "ix_two_types"]
    assert all(clean[n] == [] for n in names)
    assert pgpage_findings(srv, names) == {n: [] for n in names}
    assert sum(printed_with_nulls) > 1000


@pytest.mark.parametrize("major,index,damage", cases(ORDER_MAJORS, ORDER_CASES)
                         + cases(HEAPALLINDEXED_MAJORS, HEAPALLINDEXED_CASES))
def test_damaged_index_pgpage_reports_what_amcheck_reports(clusters, major, index, damage):
    srv, paths, _ = clusters(major)
    path = paths[index]
    original = path.read_bytes()
    ix = IndexFile(path)
    b, page = damage(ix, random.Random(f"{index}-{damage.__name__}"))
    try:
        with open(path, "r+b") as f:
            f.seek(b * BS)
            f.write(with_checksum(page, b))
        srv.restart()
        try:
            conn = srv.connect()
            errors = amcheck_errors(conn, index, major)
            conn.close()
        finally:
            srv.stop()
        findings = pgpage_findings(srv, [index])[index]
    finally:
        path.write_bytes(original)
    if major < 12 and damage is case_equal_keys_swapped:    # version 2 and 3 indexes: equal keys in any TID order
        assert errors == [] and [f for f in findings if f["severity"] == "error"] == [], (errors, findings)
        return
    assert errors, "amcheck found nothing: the damage proves nothing"
    got = {(f.get("block"), f.get("item")) for f in findings if f["severity"] == "error"}
    for fn, message, detail in errors:
        where = amcheck_location(message, detail)
        if where[0] == "heap":
            assert any(f["code"] == "btree.heapallindexed.missing" and f["actual"] == f"({where[1]},{where[2]})"
                       for f in findings), (fn, message, sorted(f"{f['code']} {f.get('actual')}" for f in findings))
            continue
        blk, item = where
        assert any(g[0] == blk and (item is None or g[1] == item) for g in got), \
            (fn, message, detail, sorted(f"{f['code']} {f.get('block')},{f.get('item')}" for f in findings))


def test_builtin_c_utf8_database_default_is_ordered_as_bytes():
    """A database whose default collation is the builtin provider's C.UTF-8 (17+): a text index under it has its
    key order checked (no "not checked" note) and agrees with amcheck, clean and with a key byte damaged."""
    with running_server(bindir=major_bindir(17)) as srv:
        conn = srv.connect()
        conn.execute("CREATE DATABASE b8 TEMPLATE template0 LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'")
        conn.close()
        conn = srv.connect("b8")
        conn.execute("CREATE EXTENSION amcheck")
        conn.execute("CREATE TABLE u (s text)")
        conn.execute("CREATE INDEX u_s ON u (s)")
        conn.execute(f"INSERT INTO u SELECT {TYPES['uc'][1]} FROM (SELECT i FROM generate_series(1, 3000) i"
                     " ORDER BY md5(i::text)) r")
        conn.execute("CHECKPOINT")
        provider = conn.execute("SELECT datlocprovider, datlocale FROM pg_database WHERE datname = 'b8'").fetchone()
        path = srv.data / conn.execute("SELECT pg_relation_filepath('u_s')").fetchone()[0]
        assert provider == ("b", "C.UTF-8") and amcheck_errors(conn, "u_s", 17) == []
        conn.close()
        srv.stop()
        assert pgpage_findings(srv, ["u_s"], "b8")["u_s"] == []
        b, page = case_text_byte(IndexFile(path), random.Random("b8"))
        with open(path, "r+b") as f:
            f.seek(b * BS)
            f.write(with_checksum(page, b))
        srv.restart()
        conn = srv.connect("b8")
        errors = amcheck_errors(conn, "u_s", 17)
        conn.close()
        srv.stop()
        findings = pgpage_findings(srv, ["u_s"], "b8")["u_s"]
        assert errors and {(amcheck_location(m, d)[0]) for _, m, d in errors} <= {
            f.get("block") for f in findings if f["code"].startswith("btree.order.")}, (errors, findings)
