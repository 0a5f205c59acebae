"""Heap rules beyond amcheck's, damage on a copy of the newest fixture (tests/analysis/test_verify.py's helpers):
pg_xact's horizon (an xid within pg_control's bounds whose status a reader must look up in pg_xact, no hint bit
saying it, is corruption when pg_xact does not hold its page: PostgreSQL fails that read with "could not access
status of transaction"), and an inline-compressed value's method."""
from __future__ import annotations

import struct

from test_verify import first_item, latest, where  # noqa: F401  (latest: the fixture)


def test_xmin_whose_pg_xact_page_is_gone(latest):  # noqa: F811
    page = latest.page("heap_hot", 1)
    it = first_item(latest.items("heap_hot", 1),
                    lambda i: i["lp_flags"] == 1 and i["t_infomask"] & 0x0300 == 0x0100 and i["t_xmin"] >= 3)
    struct.pack_into("<H", page, it["lp_off"] + 20, it["t_infomask"] & ~0x0100)   # no HEAP_XMIN_COMMITTED hint
    latest.write("heap_hot", 1, page)
    findings, _ = latest.verify("heap_hot")
    assert where(findings, "heap.xid.xmin_status_missing") == []      # pg_xact says it committed
    (latest.path / "pg_xact" / "0000").write_bytes(b"")                 # pg_xact truncated to nothing
    findings, _ = latest.verify("heap_hot")
    assert (1, it["lp"]) in where(findings, "heap.xid.xmin_status_missing")
    msg = next(f["message"] for f in findings if f["code"] == "heap.xid.xmin_status_missing" and f["block"] == 1
               and f["item"] == it["lp"])
    assert msg == (f'could not access status of transaction {it["t_xmin"]}: Could not read from file "pg_xact/0000"'
                   " at offset 0: read too few bytes.")
    hinted = [f for f in findings if f["code"] == "heap.xid.xmin_status_missing" and f["block"] == 1
              and f["item"] != it["lp"]]
    assert all(i["t_infomask"] & 0x0100 == 0 for i in latest.items("heap_hot", 1)
               if (1, i["lp"]) in {(f["block"], f["item"]) for f in hinted})   # hinted tuples need no pg_xact


def test_inline_compressed_value_with_an_unknown_method(latest):  # noqa: F811
    """toasty's inline-compressed value (make_fixtures.py) with va_tcinfo's method bits set to 2: detoast would
    fail with "invalid compression method id 2"; amcheck does not look inside inline values, pgpage does."""
    page = latest.page("toasty", 0)
    for it in latest.items("toasty", 0):
        if it["lp_flags"] != 1:
            continue
        start = it["lp_off"]
        for pos in range(start + it["t_hoff"], start + it["lp_len"] - 8):   # a 4-byte compressed header
            word = struct.unpack_from("<I", page, pos)[0]
            if word & 3 == 2 and (word >> 2) == start + it["lp_len"] - pos and pos % 4 == 0:
                page[pos + 7] = (page[pos + 7] & 0x3F) | (2 << 6)
                latest.write("toasty", 0, page)
                findings, _ = latest.verify("toasty")
                assert [(f["block"], f["item"], f["attnum"], f["message"]) for f in findings
                        if f["code"] == "heap.tuple.bad_compression"] == \
                    [(0, it["lp"], 3, "invalid compression method id 2")]
                return
    raise AssertionError("toasty holds no inline-compressed value")
