"""The stories workload (issue 20): six tables, one UPDATE pass each, no VACUUM, and what each UPDATE
should leave on disk: why a version that stayed on its page was not HOT (the causes of
``analysis.hotcause``). A version that went to another page is 'other_page' whatever the table.

``heap_truth`` turns pageinspect's heap_page_items of a table into the expected counts.
"""
from __future__ import annotations

TABLES = {
    "hot_unindexed": """CREATE TABLE hot_unindexed (id int PRIMARY KEY, a int, note text) WITH (fillfactor = 70);
        CREATE INDEX hot_unindexed_a_idx ON hot_unindexed (a);
        INSERT INTO hot_unindexed SELECT g, g, 'n' || g FROM generate_series(1, 300) g;
        UPDATE hot_unindexed SET note = note || 'x' WHERE id <= 100;""",
    "upd_indexed": """CREATE TABLE upd_indexed (id int PRIMARY KEY, a int, note text) WITH (fillfactor = 70);
        CREATE INDEX upd_indexed_a_idx ON upd_indexed (a);
        INSERT INTO upd_indexed SELECT g, g, 'n' || g FROM generate_series(1, 300) g;
        UPDATE upd_indexed SET a = a + 1 WHERE id <= 100;""",
    "upd_jsonb": """CREATE TABLE upd_jsonb (id int PRIMARY KEY, doc jsonb) WITH (fillfactor = 70);
        CREATE INDEX upd_jsonb_k_idx ON upd_jsonb ((doc->>'k'));
        INSERT INTO upd_jsonb SELECT g, jsonb_build_object('k', g) FROM generate_series(1, 300) g;
        UPDATE upd_jsonb SET doc = doc || '{"other": 1}' WHERE id <= 100;""",
    "upd_partial": """CREATE TABLE upd_partial (id int PRIMARY KEY, a int, flag bool) WITH (fillfactor = 70);
        CREATE INDEX upd_partial_a_idx ON upd_partial (a) WHERE flag;
        INSERT INTO upd_partial SELECT g, g, g % 2 = 0 FROM generate_series(1, 300) g;
        UPDATE upd_partial SET flag = NOT flag WHERE id <= 100;""",
    "upd_nofit": """CREATE TABLE upd_nofit (id int PRIMARY KEY, note text) WITH (fillfactor = 100);
        INSERT INTO upd_nofit SELECT g, repeat('n', 50) FROM generate_series(1, 300) g;
        UPDATE upd_nofit SET note = note || repeat('y', 64) WHERE id <= 100;""",
    "upd_brin": """CREATE TABLE upd_brin (id int PRIMARY KEY, ts timestamptz, note text) WITH (fillfactor = 70);
        CREATE INDEX upd_brin_ts_idx ON upd_brin USING brin (ts);
        INSERT INTO upd_brin SELECT g, '2024-01-01 00:00+00'::timestamptz + g * interval '1 hour', 'n' || g
          FROM generate_series(1, 300) g;
        UPDATE upd_brin SET ts = ts + interval '1 day' WHERE id <= 100;""",
}


def same_page_cause(table: str, major: int):
    """(cause, index, column, where the index uses it) of a non-HOT update that stayed on its page, or None
    where the workload leaves none (every such update is HOT)."""
    return {"upd_indexed": ("indexed_column", "upd_indexed_a_idx", "a", "key"),
            "upd_jsonb": ("indexed_column", "upd_jsonb_k_idx", "doc", "expression"),
            "upd_partial": ("indexed_column", "upd_partial_a_idx", "flag", "predicate"),
            "upd_brin": ("summarizing_column", "upd_brin_ts_idx", "ts", "key") if major < 16 else None,
            "items": ("indexed_column", "items_qty_idx", "qty", "key"),    # the stories' database `other`
            }.get(table)


# the story tables whose update pass changes the indexed column in every row it updates (items' two updates
# change qty in some rows, note in others)
EVERY_UPDATE_CHANGES_THE_COLUMN = {"upd_indexed", "upd_jsonb", "upd_partial", "upd_brin"}

HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE = 0x4000, 0x8000

# heap_page_items of every page of a table (run with the table's name as %s)
PAGE_ITEMS_SQL = """SELECT b, lp, t_xmin::text::bigint, t_xmax::text::bigint, t_ctid::text, t_infomask2
    FROM generate_series(0, pg_relation_size(%s::regclass) / current_setting('block_size')::int - 1) b,
         heap_page_items(get_raw_page(%s, b::int)) WHERE lp_flags = 1"""


def heap_truth(table: str, major: int, items, since_xid: int = 0, every_update: tuple | None = None) -> dict:
    """Expected why_not_hot of a table from heap_page_items rows (b, lp, xmin, xmax, t_ctid, t_infomask2):
    {"not_hot", "causes", "by_index", "hot", "olds": {ctid: cause}}, of the updates by xids from ``since_xid``
    on (no wraparound in a test). Every UPDATE of the workload committed. ``every_update``: (cause, index, column,
    where) when every update of the table changed that column (else: the stories' workload says)."""
    by_ctid = {(b, lp): (xmin, xmax, ctid, im2) for b, lp, xmin, xmax, ctid, im2 in items}
    causes = {"other_page": 0, "indexed_column": 0, "summarizing_column": 0, "unknown": 0}
    other_page_too = {"indexed_column": 0, "summarizing_column": 0}
    by_index: dict = {}
    olds, hot = {}, 0
    for (b, lp), (xmin, xmax, ctid, im2) in by_ctid.items():
        nb, nlp = (int(x) for x in ctid.strip("()").split(","))
        if xmax == 0 or (nb, nlp) == (b, lp) or xmax < since_xid:
            continue
        if im2 & HEAP_HOT_UPDATED:
            hot += 1
            continue
        succ = by_ctid[(nb, nlp)]
        assert succ[0] == xmax and not succ[3] & HEAP_ONLY_TUPLE, (table, b, lp)   # the successor is on disk
        if every_update is not None:      # a test's own table: what each of its updates changed
            expect = every_update
        else:
            expect = same_page_cause(table, major) if nb == b or table in EVERY_UPDATE_CHANGES_THE_COLUMN else None
        if expect is None:
            assert nb != b, f"{table}: ({b},{lp}) stayed on its page and is not HOT"
            cause = "other_page"
        else:
            cause, index, column, _ = expect
            e = by_index.setdefault(index, {"updates": 0, "columns": {column: 0}})
            e["updates"] += 1
            e["columns"][column] += 1
            if nb != b:       # moved too, but the changed column is the cause (a fillfactor would not help)
                other_page_too[cause] += 1
        causes[cause] += 1
        olds[f"({b},{lp})"] = cause
    return {"not_hot": sum(causes.values()), "causes": causes, "other_page_too": other_page_too, "by_index": by_index,
            "hot": hot, "olds": olds}
