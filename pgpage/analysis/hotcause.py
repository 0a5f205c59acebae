"""Why an UPDATE was not HOT, from the old and new row versions left on disk.

``heap_update`` (``src/backend/access/heap/heapam.c``) makes the new version heap-only when it lands
on the old version's page and no column that blocks HOT changed: the columns of every index's key
and INCLUDE list (``pg_index.indkey``), and those its expressions and predicate reference
(``indexprs``/``indpred``, node strings whose ``{VAR ... :varno 1 :varattno N ...}`` name them); from
16 on, the columns only summarizing indexes (BRIN) use do not block it. So, for an old version whose
update was not HOT, in this order:

* ``indexed_column``: a column a non-summarizing index uses has another value in the successor (with
  ``other_page`` true when the successor is also on another page: a fillfactor would not have helped);
* ``summarizing_column``: only columns of summarizing indexes changed, before 16 (idem);
* ``other_page``: no such column changed (or the values cannot be read) and the successor is on another
  page (the old page was too full then: under MAXALIGN(the new version's length) + a line pointer free,
  heap_update's test; its free space now is another figure);
* ``unknown``: the successor is not on disk (pruned, or its slot reused), a value cannot be read, or
  none of the above.

Values are compared as heap_update compares them: the bytes each version stores (a TOAST pointer's own
bytes: an unchanged out-of-line value keeps its pointer, a changed one gets a new one). Pure: no I/O.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pgpage.decode.versions import SUMMARIZING_AMS, SUMMARIZING_HOT_SINCE

CAUSES = ("other_page", "indexed_column", "summarizing_column", "unknown")
UNKNOWN_REASONS = ("successor_not_on_disk", "values_unreadable", "none_of_the_above")
EXAMPLES_PER_CAUSE = 3

_VAR = re.compile(r"\{VAR\s([^{}]*)\}")
_FIELD = re.compile(r":(varno|varattno|varlevelsup)\s+(-?\d+)")


def referenced_attnums(node_tree: str | None) -> set[int] | None:
    """Column numbers (attnum) of the indexed table that a pg_node_tree references: every Var of range
    table entry 1 at level 0; 0 for a whole-row reference. None when the string names no Var node
    and does not look like a node tree (so a damaged catalog value is not taken for 'no column')."""
    if not node_tree:
        return set()
    out = set()
    for m in _VAR.finditer(node_tree):
        f = {k: int(v) for k, v in _FIELD.findall(m.group(1))}
        if f.get("varno") == 1 and f.get("varlevelsup", 0) == 0 and "varattno" in f:
            out.add(f["varattno"])
    if not out and not node_tree.lstrip().startswith(("(", "{")):
        return None
    return out


@dataclass(frozen=True)
class IndexColumns:
    """The columns of the table one index uses, split by where it uses them."""
    name: str
    am: str | None
    key: tuple[int, ...]          # indkey's non-zero entries (key and INCLUDE columns)
    expression: tuple[int, ...]   # referenced by indexprs (0: the whole row)
    predicate: tuple[int, ...]    # referenced by indpred
    readable: bool = True         # indexprs/indpred could be read

    @property
    def summarizing(self) -> bool:
        return self.am in SUMMARIZING_AMS

    def attnums(self, natts: int) -> set[int]:
        cols = {a for a in (*self.key, *self.expression, *self.predicate) if a > 0}
        if 0 in self.expression or 0 in self.predicate:
            cols |= set(range(1, natts + 1))
        return cols


def index_columns(name: str, am: str | None, index_row: dict) -> IndexColumns:
    """An IndexColumns from one pg_index row (``storage.datadir``'s catalog rows)."""
    expr, pred = referenced_attnums(index_row.get("indexprs")), referenced_attnums(index_row.get("indpred"))
    key = tuple(a for a in (index_row.get("indkey") or ()) if a)
    return IndexColumns(name, am, key, tuple(sorted(expr or ())), tuple(sorted(pred or ())),
                        expr is not None and pred is not None)


def hot_blocking(indexes: list[IndexColumns], natts: int, major: int | None) -> set[int]:
    """The attnums whose change makes an update not HOT in this major."""
    ignore_summarizing = (major or 0) >= SUMMARIZING_HOT_SINCE
    return set().union(*(i.attnums(natts) for i in indexes if not (ignore_summarizing and i.summarizing)))


def update_cause(old_block: int, new_block: int | None, changed: set[int] | None, indexes: list[IndexColumns],
                 natts: int, major: int | None, names: dict[int, str]) -> dict:
    """The cause of one non-HOT update: ``new_block`` None when the successor is not on disk, ``changed``
    the attnums whose value differs between old and new (None when a value cannot be read).
    Returns {"cause", and for ``unknown`` "reason", for a column cause "indexes": [{index, columns, in}], ``in``
    saying where the index uses them: key (and INCLUDE), expression, predicate}."""
    if new_block is None:
        return {"cause": "unknown", "reason": "successor_not_on_disk"}
    moved = new_block != old_block
    if changed is None:
        return {"cause": "other_page"} if moved else {"cause": "unknown", "reason": "values_unreadable"}
    hits = []
    for ix in indexes:
        cols = sorted(ix.attnums(natts) & changed)
        if cols:
            where = [part for part, attnums in (("key", ix.key), ("expression", ix.expression),
                                                ("predicate", ix.predicate))
                     if (0 in attnums and part != "key") or set(attnums) & changed]
            hits.append((ix, {"index": ix.name, "columns": [names.get(a, f"attnum {a}") for a in cols], "in": where,
                              **({"summarizing": True} if ix.summarizing else {})}))
    # a changed column an index uses is the cause even when the new version also went to another page: more
    # free space (a lower fillfactor) would not have made that update HOT
    also = {"other_page": True} if moved else {}
    blocking = [h for ix, h in hits if not ix.summarizing]
    if blocking:
        return {"cause": "indexed_column", **also, "indexes": [h for _, h in hits]}
    if hits and (major or 0) < SUMMARIZING_HOT_SINCE:
        return {"cause": "summarizing_column", **also, "indexes": [h for _, h in hits]}
    if moved:
        return {"cause": "other_page"}
    return {"cause": "unknown", "reason": "none_of_the_above",
            **({"indexes": [h for _, h in hits]} if hits else {})}


class CauseTally:
    """Counts by cause, by index and column, and a few examples of each cause (bounded)."""

    def __init__(self):
        self.causes = dict.fromkeys(CAUSES, 0)
        self.unknown = dict.fromkeys(UNKNOWN_REASONS, 0)
        self.by_index: dict[str, dict] = {}
        self.examples: dict[str, list[dict]] = {c: [] for c in CAUSES}
        self.other_page_too = {"indexed_column": 0, "summarizing_column": 0}

    def add(self, ctid: str, successor: str, verdict: dict, **extra) -> None:
        cause = verdict["cause"]
        self.causes[cause] += 1
        if cause == "unknown":
            self.unknown[verdict["reason"]] += 1
        if verdict.get("other_page") and cause in self.other_page_too:
            self.other_page_too[cause] += 1
        if cause in ("indexed_column", "summarizing_column"):
            for h in verdict["indexes"]:
                e = self.by_index.setdefault(h["index"], {"updates": 0, "columns": {}})
                e["updates"] += 1
                for c in h["columns"]:
                    e["columns"][c] = e["columns"].get(c, 0) + 1
        if len(self.examples[cause]) < EXAMPLES_PER_CAUSE:
            self.examples[cause].append({"ctid": ctid, "successor": successor, **verdict, **extra})

    def to_json(self) -> dict:
        return {"not_hot": sum(self.causes.values()), "causes": dict(self.causes),
                "unknown_reasons": dict(self.unknown), "other_page_too": dict(self.other_page_too),
                "by_index": self.by_index,
                "examples": [e for c in CAUSES for e in self.examples[c]]}
