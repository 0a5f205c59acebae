"""verify_heapam's attribute and TOAST checks, offline, held against the real amcheck.

A live server of every major that has verify_heapam (14 to 18: Debian's 15, the npm builds
fixtures/make_fixtures.py pins, through tests/livepg.py's ``major_bindir``) builds tables of ints,
text, numeric, NULLs, TOASTed text (external plain, pglz and lz4 where the build has it), a dropped
and an added column; after a CHECKPOINT and a clean stop, copies of their tuples are damaged in
place (lp_len cut, t_hoff, natts, a varlena header, the null bitmap, HEAP_HASEXTERNAL, a TOAST
pointer's method and raw size, TOAST chunks removed, resized, renumbered, an xmin past nextXid),
with the page checksums recomputed. pgpage verifies the files; then the server starts on them and
runs ``verify_heapam(rel, check_toast => true)``. Every (block, item, attribute) amcheck reports,
pgpage reports, with amcheck's wording, and pgpage reports no other tuple. (The one wording that may
differ: amcheck meets a value's chunks in its TOAST index's order, pgpage in chunk_seq order, so a
renumbered chunk is "returned chunk 7 when expecting chunk 1" to one and "returned chunk 2 when
expecting chunk 1" to the other.) 14's verify_heapam does not check a TOAST pointer's raw size and
compression method (15 added those checks); pgpage checks them on every major, so on 14 they are
its own.
"""
from __future__ import annotations

import struct

import pytest

from livepg import Server, major_bindir
from pgpage.decode.checksum import checksum_page
from pgpage.decode.control import decode_control
from pgpage.decode.page import decode_page
from pgpage.decode.pagebase import PageContext

BLCKSZ = 8192
TABLES = ("t_int", "t_text", "t_toast", "t_drop", "t_add")


def _setup(conn) -> None:
    x = conn.execute
    x("CREATE EXTENSION amcheck")
    x("CREATE TABLE t_int (a int, b int)")
    x("INSERT INTO t_int SELECT i, -i FROM generate_series(1, 50) i")
    x("CREATE TABLE t_text (id int, t text, n numeric, note text)")
    x("INSERT INTO t_text SELECT i, 'text ' || i, i * 1.5, CASE WHEN i % 2 = 0 THEN NULL ELSE 'note' || i END"
      " FROM generate_series(1, 50) i")
    lz4 = x("SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'").fetchone()[0]
    x(f"CREATE TABLE t_toast (id int, body text, zbody text COMPRESSION {'lz4' if lz4 else 'pglz'})")
    x("ALTER TABLE t_toast ALTER COLUMN body SET STORAGE EXTERNAL")   # external, uncompressed
    x("INSERT INTO t_toast SELECT i, (SELECT string_agg(md5(i::text || g::text), '') FROM generate_series(1, 150) g),"
      " NULL FROM generate_series(1, 6) i")
    x("ALTER TABLE t_toast ALTER COLUMN body SET STORAGE EXTENDED")   # external, pglz / lz4
    x("INSERT INTO t_toast SELECT i, (SELECT string_agg(md5(i::text || g::text) || repeat('x', 40), '')"
      " FROM generate_series(1, 300) g), (SELECT string_agg(md5(g::text || i::text) || repeat('y', 40), '')"
      " FROM generate_series(1, 300) g) FROM generate_series(7, 10) i")
    x("CREATE TABLE t_drop (a int, b text, c int)")
    x("INSERT INTO t_drop SELECT i, 'dropped ' || i, i FROM generate_series(1, 20) i")
    x("ALTER TABLE t_drop DROP COLUMN b")
    x("CREATE TABLE t_add (a int)")
    x("INSERT INTO t_add SELECT i FROM generate_series(1, 20) i")
    x("ALTER TABLE t_add ADD COLUMN b text")
    x("INSERT INTO t_add SELECT i, 'added ' || i FROM generate_series(21, 30) i")
    x("CHECKPOINT")


class Heap:
    """A relation file to damage, page by page, with checksums recomputed."""

    def __init__(self, path):
        self.path = path
        self.data = bytearray(path.read_bytes())
        self.touched: set[int] = set()

    def item(self, blk: int, lp: int) -> dict:
        page = bytes(self.data[blk * BLCKSZ:(blk + 1) * BLCKSZ])
        return decode_page(page, blk, PageContext(am="heap"))["heap_page_items"][lp - 1]

    def at(self, blk: int, lp: int) -> int:
        """The tuple's first byte in the file."""
        self.touched.add(blk)
        return blk * BLCKSZ + self.item(blk, lp)["lp_off"]

    def set_lp(self, blk: int, lp: int, off: int, flags: int, length: int) -> None:
        self.touched.add(blk)
        struct.pack_into("<I", self.data, blk * BLCKSZ + 24 + 4 * (lp - 1), off | (flags << 15) | (length << 17))

    def toast_pointer(self, blk: int, lp: int) -> int:
        """Where the tuple's last attribute, a TOAST pointer (0x01, VARTAG_ONDISK), starts."""
        it = self.item(blk, lp)
        start = self.at(blk, lp)
        found = self.data.rfind(b"\x01\x12", start, start + it["lp_len"])
        assert found > 0
        return found

    def save(self) -> None:
        for blk in self.touched:
            page = bytearray(self.data[blk * BLCKSZ:(blk + 1) * BLCKSZ])
            page[8:10] = b"\0\0"
            struct.pack_into("<H", self.data, blk * BLCKSZ + 8, checksum_page(bytes(page), blk))
        self.path.write_bytes(bytes(self.data))


def _damage(srv, where: dict, next_xid: int) -> None:
    files = where["files"]
    t = Heap(srv.data / files["t_int"])
    b, lp = where["t_int"][1]
    t.set_lp(b, lp, t.item(b, lp)["lp_off"], 1, 24)                      # lp_len 32 -> 24: b ends past it
    b, lp = where["t_int"][2]
    t.data[t.at(b, lp) + 22] = 32                                          # t_hoff 24 -> 32
    b, lp = where["t_int"][3]
    struct.pack_into("<H", t.data, t.at(b, lp) + 18, 3)                    # natts 2 -> 3
    b, lp = where["t_int"][4]
    struct.pack_into("<I", t.data, t.at(b, lp), next_xid + 100_000)      # xmin past nextXid
    t.save()

    t = Heap(srv.data / files["t_text"])
    b, lp = where["t_text"][3]
    t.data[t.at(b, lp) + 24 + 4] = (120 << 1) | 1                          # t's 1-byte header: 120 bytes
    b, lp = where["t_text"][4]                                              # note is NULL: bit 4 set
    t.data[t.at(b, lp) + 23] |= 0x08
    t.save()

    t = Heap(srv.data / files["t_toast"])
    b, lp = where["t_toast"][1]
    im = t.at(b, lp) + 20
    struct.pack_into("<H", t.data, im, struct.unpack_from("<H", t.data, im)[0] & ~0x0004)  # HEAP_HASEXTERNAL off
    b, lp = where["t_toast"][2]
    struct.pack_into("<i", t.data, t.toast_pointer(b, lp) + 2, 0x40000000 + 5)            # va_rawsize too large
    b, lp = where["t_toast"][7]
    p = t.toast_pointer(b, lp)
    struct.pack_into("<I", t.data, p + 6, struct.unpack_from("<I", t.data, p + 6)[0] | (2 << 30))  # method id 2
    t.save()

    t = Heap(srv.data / files["toast"])
    chunks = where["toast"]
    b, lp = chunks[(where["values"][3], 1)]
    t.set_lp(b, lp, 0, 0, 0)                                               # value of id 3: chunk 1 gone
    b, lp = chunks[(where["values"][4], 0)]
    hdr = t.at(b, lp) + 24 + 8
    struct.pack_into("<I", t.data, hdr, ((1996 - 10 + 4) << 2))           # id 4: chunk 0 claims 1986 bytes
    b, lp = chunks[(where["values"][8], 1)]
    struct.pack_into("<i", t.data, t.at(b, lp) + 24 + 4, 7)               # id 8: chunk 1 renumbered 7
    t.save()

    t = Heap(srv.data / files["t_drop"])
    b, lp = where["t_drop"][5]
    t.data[t.at(b, lp) + 24 + 4] = (100 << 1) | 1                          # the dropped column's header
    t.save()

    t = Heap(srv.data / files["t_add"])
    b, lp = where["t_add"][6]                                               # a row from before ADD COLUMN
    t.set_lp(b, lp, t.item(b, lp)["lp_off"], 1, 24)
    b, lp = where["t_add"][25]                                              # a row from after it
    t.set_lp(b, lp, t.item(b, lp)["lp_off"], 1, t.item(b, lp)["lp_len"] - 3)
    t.save()


def verify_heapam(conn, table: str) -> list[tuple]:
    return [tuple(r) for r in conn.execute("SELECT blkno, offnum, attnum, msg FROM verify_heapam(%s,"
                                           " check_toast => true)", (table,)).fetchall()]


def run_scenario(bindir) -> tuple[dict, dict, dict]:
    """On a throwaway server of those binaries: (pgpage's findings and verify_heapam's rows (blkno, offnum,
    attnum, msg) before the damage, pgpage's findings after it, and verify_heapam's rows after it), per table."""
    from test_verify import verify_relation

    srv = Server(bindir)
    try:
        srv.start()
        conn = srv.connect()
        _setup(conn)
        where = {"files": {name: conn.execute("SELECT pg_relation_filepath(%s)", (name,)).fetchone()[0]
                           for name in TABLES}}
        for name in TABLES:
            key = "id" if name in ("t_text", "t_toast") else "a"
            where[name] = {r[0]: tuple(map(int, r[1].strip("()").split(",")))
                           for r in conn.execute(f"SELECT {key}, ctid::text FROM {name}").fetchall()}
        toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 't_toast'").fetchone()[0]
        where["files"]["toast"] = conn.execute("SELECT pg_relation_filepath(%s)", (toast,)).fetchone()[0]
        where["toast"] = {(r[0], r[1]): tuple(map(int, r[2].strip("()").split(",")))
                          for r in conn.execute(f"SELECT chunk_id, chunk_seq, ctid::text FROM {toast}").fetchall()}
        # each row's body: its TOAST pointer's va_valueid (the chunks' chunk_id), as pageinspect shows the bytes
        where["values"] = {}
        conn.execute("CREATE EXTENSION pageinspect")
        for id_, ctid in where["t_toast"].items():
            raw = conn.execute("SELECT t_attrs[2] FROM heap_page_item_attrs(get_raw_page('t_toast', %s), 't_toast')"
                               " WHERE lp = %s", (ctid[0], ctid[1])).fetchone()[0]
            where["values"][id_] = struct.unpack_from("<I", raw, 10)[0]
        clean = {name: verify_relation(srv.data, f"public.{name}", db="postgres")[0] + verify_heapam(conn, name)
                 for name in TABLES}
        conn.close()
        srv.stop("fast")
        next_xid = decode_control((srv.data / "global" / "pg_control").read_bytes())["checkPointCopy"]["nextXid"]
        _damage(srv, where, next_xid)
        ours = {name: verify_relation(srv.data, f"public.{name}", db="postgres")[0] for name in TABLES}

        srv.restart()
        conn = srv.connect()
        theirs = {name: verify_heapam(conn, name) for name in TABLES}
        conn.close()
    finally:
        srv.stop("immediate")
        srv.remove()
    return clean, ours, theirs


def agreement(ours: dict, theirs: dict, beyond: tuple[str, ...] = ()) -> int:
    """Asserts that every row verify_heapam gave is a pgpage finding at the same block, item and attribute, in
    the same words, and that pgpage finds no other tuple corrupt (but for findings of the codes ``beyond``:
    checks that amcheck's major does not make); returns how many rows were compared."""
    compared = 0
    for name in TABLES:
        assert theirs[name], name                                  # every table was damaged somewhere
        got = {}
        for f in ours[name]:
            got.setdefault((f.get("block"), f.get("item"), f.get("attnum")), []).append(f)
        for blkno, offnum, attnum, msg in theirs[name]:
            key = (blkno, offnum, None if attnum is None else attnum + 1)   # amcheck counts attributes from 0
            assert key in got, (name, key, msg, ours[name])
            if "index scan returned chunk" not in msg:   # amcheck meets chunks in the TOAST index's order,
                assert msg in [f["message"] for f in got[key]], (name, key, msg, got[key])   # pgpage by chunk_seq
            compared += 1
        places = {(b, o) for b, o, _, _ in theirs[name]}
        extra = [f for f in ours[name] if f["severity"] == "error" and (f.get("block"), f.get("item")) not in places
                 and f["code"] not in beyond]
        assert extra == [], (name, extra)
    return compared


# TOAST pointer checks 14's verify_heapam does not make (15 added them); pgpage makes them on every major
PGPAGE_ONLY_14 = ("heap.toast.rawsize_too_large", "heap.toast.bad_compression")


@pytest.mark.parametrize("major", (14, 15, 16, 17, 18), ids=lambda m: f"pg{m}")
def test_attribute_and_toast_damage_agrees_with_live_verify_heapam(major):
    clean, ours, theirs = run_scenario(major_bindir(major))
    assert all(f == [] for f in clean.values()), clean          # the undamaged tables: nothing from either
    assert agreement(ours, theirs, PGPAGE_ONLY_14 if major == 14 else ()) >= (15 if major == 14 else 17)
