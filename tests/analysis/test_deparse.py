"""Node trees of the dump fixtures (fixtures/make_dump.py) parsed and printed, compared with what the server
printed for each (tests/dump_oracle.py): column defaults, CHECK constraints, index expressions and predicates,
views, partition bounds and keys, every one of every major, under the default search path and under pg_dump's
empty one; names read offline from the fixture's data directory."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dump_oracle import fixture_data_dir, fixture_majors, fixture_oracle  # noqa: E402

from pgpage.analysis import deparse  # noqa: E402
from pgpage.decode.nodetree import NodeTreeError, parse  # noqa: E402
from pgpage.passes.catalognames import names_for  # noqa: E402
from pgpage.storage.datadir import open_data_directory  # noqa: E402

MAJORS = fixture_majors()


def test_every_major_has_a_dump_fixture():
    assert MAJORS == list(range(10, 19))


@lru_cache(maxsize=None)
def _db(major: int):
    return open_data_directory(fixture_data_dir(major)).database("dumpdb")


@lru_cache(maxsize=None)
def _names(major: int, qualify_all: bool):
    return names_for(_db(major), qualify_all=qualify_all)


def _relid(major: int, qualified_name: str | None) -> int | None:
    if qualified_name is None:
        return None
    schema, name = qualified_name.split(".", 1)
    found = [oid for oid, sn in _names(major, False).relations.items() if sn == (schema, name)]
    assert len(found) == 1, qualified_name
    return found[0]


def _partitioned(major: int) -> dict[str, dict]:
    rows = _names(major, False).table("pg_partitioned_table")
    rels = _names(major, False).relations
    return {".".join(rels[int(r["partrelid"])]): r for r in rows}


def cases(major: int) -> list[tuple[str, str, object]]:
    """(case name, the server's text, a function printing ours with given Names) of every node tree."""
    trees = fixture_oracle(major)["trees"]
    out = []
    for key, r in trees["attrdef"].items():
        out.append((f"attrdef {key}", r, "sql", lambda n, r=r: deparse.expression(
            parse(r["tree"]), n, _relid(major, r["relation"]))))
    for key, r in trees["constraint"].items():
        if r["tree"] is None:
            continue
        print_check = (lambda n, r=r: deparse.expression(parse(r["tree"]), n, _relid(major, r["relation"])))
        out.append((f"constraint {key}", r, "sql", print_check))
        if r["contype"] == "c":
            out.append((f"constraint {key} def", r, "def", lambda n, f=print_check: f"CHECK ({f(n)})"))
    for key, r in trees["index"].items():
        if r["tree"] is not None:
            out.append((f"index {key}", r, "sql", lambda n, r=r: deparse.expression(
                parse(r["tree"]), n, _relid(major, r["relation"]))))
        if r["pred_tree"] is not None:
            out.append((f"index {key} predicate", r, "pred_sql", lambda n, r=r: deparse.expression(
                parse(r["pred_tree"]), n, _relid(major, r["relation"]))))
    for key, r in trees["view"].items():
        out.append((f"view {key}", r, "sql", lambda n, r=r: deparse.view_query(parse(r["tree"]), n)))
    for key, r in trees.get("partbound", {}).items():
        out.append((f"partition bound {key}", r, "sql", lambda n, r=r, key=key: deparse.partition_bound(
            parse(r["tree"]), n, _relid(major, key))))
    for key, r in trees.get("partkey", {}).items():
        def key_def(n, r=r, key=key):
            row = _partitioned(major)[key]
            attnums = row["partattrs"]
            exprs = parse(r["tree"]) if r["tree"] is not None else []
            return deparse.partition_key(row["partstrat"], attnums, exprs, n, _relid(major, key))
        out.append((f"partition key {key}", r, "sql", key_def))
    return out


def _mismatches(major: int) -> tuple[int, list[str]]:
    total, bad = 0, []
    for name, row, field, printer in cases(major):
        for qualify_all, suffix in ((False, ""), (True, "_qualified")):
            total += 1
            want = row[field + suffix]
            try:
                got = printer(_names(major, qualify_all))
            except deparse.Unprintable as exc:
                got = f"<Unprintable: {exc}>"
            if got != want:
                bad.append(f"{name}{' (search_path empty)' if qualify_all else ''}:\n  server: {want!r}\n"
                           f"  pgpage: {got!r}")
    return total, bad


@pytest.mark.parametrize("major", MAJORS)
def test_every_node_tree_prints_as_the_server_prints_it(major):
    total, bad = _mismatches(major)
    print(f"PostgreSQL {major}: {total - len(bad)} of {total} node trees print as the server prints them")
    assert total > 100
    assert not bad, f"{len(bad)} of {total} differ:\n" + "\n".join(bad)


@pytest.mark.parametrize("major", MAJORS)
def test_every_node_tree_parses(major):
    trees = fixture_oracle(major)["trees"]
    n = 0
    for kind in trees.values():
        for r in kind.values():
            for field in ("tree", "pred_tree"):
                if r.get(field):
                    assert parse(r[field]) is not None
                    n += 1
    assert n > 50


@pytest.mark.parametrize("text", ["", "{", "{VAR :varno", "(1 2", "{VAR :varno 1}}", "{:x 1}", "}", "{A :b 3 [ 1 2 ]}",
                                  "{A :b 1 [ x ]}", "(i 1 a)", "{A :b {B :c (", "{" * 5000,
                                  "(" * 20000 + ")" * 20000, "{A :b 1} 2", "{A 1}", "(1 2))"])
def test_bad_node_trees_raise_a_clear_error(text):
    with pytest.raises(NodeTreeError):
        parse(text)


def test_node_tree_values():
    node = parse('{CONST :consttype 25 :constvalue 7 [ 28 0 0 0 110 101 -1 ] :x <> :s "a\\ b" :l (i 1 -2) '
                 ':o (o 3) :t true :n ("x" {A :q 1.5})}')
    assert node.type == "CONST"
    assert node["constvalue"] == bytes([28, 0, 0, 0, 110, 101, 255])
    assert node["x"] is None and node["s"] == "a b" and node["l"] == [1, -2] and node["o"] == [3]
    assert node["t"] is True and node["n"][0] == "x" and node["n"][1]["q"] == 1.5
    # a by-value datum keeps the bytes of its length of the Datum's eight
    assert parse("{C :v 4 [ 2 0 0 0 0 0 0 0 ]}")["v"] == b"\x02\0\0\0"


def test_deep_trees_parse_and_too_deep_ones_are_unprintable():
    depth = 3000      # a chain of OpExprs deeper than Python's stack would allow a recursive reader
    text = "{CONST :consttype 23 :consttypmod -1 :constcollid 0 :constisnull false :constvalue 4 [ 1 0 0 0 0 0 0 0 ]}"
    for _ in range(depth):
        text = "{OPEXPR :opno 551 :args (" + text + " {CONST :consttype 23 :consttypmod -1 :constisnull false " \
               ":constvalue 4 [ 1 0 0 0 0 0 0 0 ]})}"
    tree = parse(text)
    assert tree.type == "OPEXPR"
    with pytest.raises(deparse.Unprintable, match="nested too deeply"):
        deparse.expression(tree, _names(15, False))
    with pytest.raises(deparse.Unprintable, match="malformed OPEXPR"):
        deparse.expression(parse("{OPEXPR :opno 551}"), _names(15, False))


def test_unprintable_names_the_node():
    with pytest.raises(deparse.Unprintable, match="XMLEXPR"):
        deparse.expression(parse("{XMLEXPR :op 0}"), _names(15, False))


@pytest.mark.parametrize("ident,quoted", [("abc", "abc"), ("Abc", '"Abc"'), ("select", '"select"'),
                                          ("name", "name"), ('a"b', '"a""b"'), ("1a", '"1a"'), ("_x1", "_x1"),
                                          ("between", '"between"'), ("Mixed Case", '"Mixed Case"')])
def test_quote_identifier(ident, quoted):
    assert deparse.quote_identifier(ident) == quoted


@pytest.mark.parametrize("major", MAJORS)
def test_node_trees_read_from_the_data_files_are_the_servers(major):
    """The trees a dump reads offline (pg_attrdef.adbin, pg_rewrite.ev_action, TOASTed or not) are the text the
    server gave for them."""
    from pgpage.passes.rows import TableRows
    db, names = _db(major), _names(major, False)
    trees = fixture_oracle(major)["trees"]

    def rows(catalog):
        return [r["values"] for r in TableRows(db.cluster, db.relation(f"pg_catalog.{catalog}")).text_records()]
    rels = names.relations
    views = {".".join(rels[int(r["ev_class"])]): r["ev_action"] for r in rows("pg_rewrite")
             if r["rulename"] == "_RETURN" and int(r["ev_class"]) in rels}
    assert {k: views.get(k) for k in trees["view"]} == {k: r["tree"] for k, r in trees["view"].items()}
    defaults = {}
    for r in rows("pg_attrdef"):
        relid = int(r["adrelid"])
        if relid in rels and rels[relid][0] != "pg_catalog":
            defaults[".".join(rels[relid]) + "." + names.column(relid, int(r["adnum"]))] = r["adbin"]
    assert defaults == {k: r["tree"] for k, r in trees["attrdef"].items()}
