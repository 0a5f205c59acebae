"""``btree.order.not_checked`` names why pgpage does not compute an index's key order (issue 23): a collation by
pg_collation's name, an ICU database default by its ICU locale, a type by its name; an ICU collation also says why
this machine cannot order it (no PyICU, or another collator version than the recorded one, both named: issue 41),
and when it can, the order is checked and nothing is noted. A live server (tests/livepg.py) makes the indexes; the
expected names are the server's own catalog values."""
from __future__ import annotations

import json
import subprocess
import sys

from livepg import running_server


def not_checked(data, db: str, index: str) -> tuple[int, list[dict]]:
    r = subprocess.run([sys.executable, "-m", "pgpage", "verify", str(data), "--db", db, "--rel", index, "--json"],
                       capture_output=True, text=True, timeout=180)
    assert "Traceback" not in r.stderr, r.stderr
    found = [json.loads(line) for line in r.stdout.splitlines() if json.loads(line).get("type") == "finding"]
    return r.returncode, found


def test_order_not_checked_names_the_collation_and_type():
    with running_server() as srv:
        c = srv.connect()
        c.execute("CREATE COLLATION my_coll (provider = icu, locale = 'und')")   # an order pgpage does not compute
        c.execute("CREATE TABLE t (a text COLLATE my_coll, m macaddr)")
        c.execute("INSERT INTO t SELECT md5(i::text), ('08:00:2b:01:02:' || lpad(to_hex(i % 256), 2, '0'))::macaddr"
                  " FROM generate_series(1, 300) i")
        c.execute("CREATE INDEX t_a ON t (a)")
        c.execute("CREATE INDEX t_m ON t (m)")
        collname, collversion = c.execute("SELECT collname::text, collversion FROM pg_collation WHERE oid = (SELECT"
                                          " indcollation[0] FROM pg_index WHERE indexrelid = 't_a'::regclass)").fetchone()
        c.execute("CREATE DATABASE icu_db TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und'")
        icu_locale, datcollversion = c.execute("SELECT daticulocale, datcollversion FROM pg_database"
                                               " WHERE datname = 'icu_db'").fetchone()
        u = srv.connect("icu_db")
        u.execute("CREATE TABLE u (s text)")
        u.execute("INSERT INTO u SELECT md5(i::text) FROM generate_series(1, 300) i")
        u.execute("CREATE INDEX u_s ON u (s)")
        u.execute("CHECKPOINT")
        u.close()
        c.close()
        srv.stop()
        assert collname == "my_coll" and icu_locale == "und"
        from pgpage.analysis.btree.collation import collation_sort_key

        def icu_reason(name, version):
            return collation_sort_key({"collname": name, "collprovider": "i", "colllocale": icu_locale,
                                       "collversion": version}, True)[1]
        for db, index, reason in (("postgres", "t_a", icu_reason(collname, collversion)),
                                  ("postgres", "t_m", "type macaddr"),
                                  ("icu_db", "u_s", icu_reason("default", datcollversion))):
            rc, found = not_checked(srv.data, db, index)
            assert rc == 0, found
            assert [(f["code"], f["severity"], f["message"]) for f in found] == ([] if reason is None else [
                ("btree.order.not_checked", "info", f"order not checked: {reason}")]), index
            if reason is not None and index != "t_m":
                assert f'collation "{"default" if db == "icu_db" else collname}" (ICU {icu_locale})' in reason
