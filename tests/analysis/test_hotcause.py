"""analysis.hotcause's rules, one branch each (the real-server tests are tests/passes/test_hotcause_live.py
and, over every fixture major, the stories fixtures): which columns a pg_index node string references and
the order heap_update decides in."""
from __future__ import annotations

from pgpage.analysis.hotcause import CauseTally, IndexColumns, index_columns, referenced_attnums, update_cause

# pg_index.indexprs and indpred as PostgreSQL 15 wrote them (tests/stories_workload.py's indexes)
JSONB_EXPR = ("({OPEXPR :opno 3477 :opfuncid 3214 :opresulttype 25 :opretset false :opcollid 100 :inputcollid 100"
              " :args ({VAR :varno 1 :varattno 2 :vartype 3802 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1"
              " :varattnosyn 2 :location 668} {CONST :consttype 25 :consttypmod -1 :constcollid 100 :constlen -1"
              " :constbyval false :constisnull false :location 674 :constvalue 5 [ 20 0 0 0 107 ]}) :location 671})")
FLAG_PRED = ("{VAR :varno 1 :varattno 3 :vartype 16 :vartypmod -1 :varcollid 0 :varlevelsup 0 :varnosyn 1"
             " :varattnosyn 3 :location 979}")
NAMES = {1: "id", 2: "a", 3: "flag"}


def test_referenced_attnums():
    assert referenced_attnums(JSONB_EXPR) == {2}
    assert referenced_attnums(FLAG_PRED) == {3}
    assert referenced_attnums(None) == set()
    assert referenced_attnums("not a node tree") is None     # damaged: not 'no column'


def test_index_columns_from_pg_index_rows():
    ix = index_columns("k_idx", "btree", {"indkey": [0], "indexprs": JSONB_EXPR, "indpred": FLAG_PRED})
    assert (ix.key, ix.expression, ix.predicate, ix.readable) == ((), (2,), (3,), True)
    assert ix.attnums(3) == {2, 3}


def test_update_cause_order():
    a = IndexColumns("a_idx", "btree", (2,), (), ())
    brin = IndexColumns("flag_brin", "brin", (3,), (), ())
    both = [a, brin]
    assert update_cause(0, None, {2}, both, 3, 15, NAMES) == {"cause": "unknown", "reason": "successor_not_on_disk"}
    # another page and an indexed column changed: the column is the cause (a fillfactor would not help)
    v = update_cause(0, 1, {2}, both, 3, 15, NAMES)
    assert (v["cause"], v["other_page"], [h["index"] for h in v["indexes"]]) == ("indexed_column", True, ["a_idx"])
    assert update_cause(0, 1, {1}, both, 3, 15, NAMES) == {"cause": "other_page"}      # no indexed column changed
    assert update_cause(0, 1, None, both, 3, 15, NAMES) == {"cause": "other_page"}     # values unreadable: the move
    assert update_cause(0, 1, {3}, both, 3, 15, NAMES)["cause"] == "summarizing_column"
    assert update_cause(0, 1, {3}, both, 3, 16, NAMES) == {"cause": "other_page"}      # BRIN-only on 16+: the move
    assert update_cause(0, 0, None, both, 3, 15, NAMES) == {"cause": "unknown", "reason": "values_unreadable"}
    v = update_cause(0, 0, {2, 3}, both, 3, 15, NAMES)
    assert v["cause"] == "indexed_column" and [h["index"] for h in v["indexes"]] == ["a_idx", "flag_brin"]
    assert update_cause(0, 0, {3}, both, 3, 15, NAMES)["cause"] == "summarizing_column"
    # on 16+ a BRIN-only change is HOT: a non-HOT update with only that change has no cause pgpage knows
    v = update_cause(0, 0, {3}, both, 3, 16, NAMES)
    assert (v["cause"], v["reason"]) == ("unknown", "none_of_the_above")
    assert update_cause(0, 0, {1}, both, 3, 15, NAMES) == {"cause": "unknown", "reason": "none_of_the_above"}


def test_tally_bounds_examples():
    t = CauseTally()
    for i in range(10):
        t.add(f"(0,{i + 1})", f"(1,{i + 1})", {"cause": "other_page"}, old_page_free_now=4, new_len=40)
    doc = t.to_json()
    assert doc["not_hot"] == 10 and doc["causes"]["other_page"] == 10 and len(doc["examples"]) == 3
