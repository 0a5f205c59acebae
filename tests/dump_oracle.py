"""The dump fixtures' oracle (issue 40), one query module for the fixture script (fixtures/make_dump.py) and
for the restore test (a dump restored into a fresh server compared with the original).

``capture(run_sql)``: ``run_sql(sql)`` runs one statement in a session of the database and returns its rows as
tuples. Everything is keyed by names (``schema.object``, ``schema.table.column``), never by OIDs, and every
value is text (or a list of texts, or None), so two databases compare with ``==``. Two parts:

* ``trees``: every node tree of the user's objects with the server's SQL for it, under ``search_path = public``
  (``sql``, what pg_get_expr & co. print by default) and under ``search_path = ''`` (``sql_qualified``, as a
  dump's session prints them): column defaults (pg_attrdef), constraints' expressions (pg_constraint.conbin with
  pg_get_expr and pg_get_constraintdef), index expressions and predicates (pg_index, with pg_get_indexdef),
  views' queries (pg_rewrite.ev_action, pg_get_viewdef), partition bounds (pg_class.relpartbound) and keys
  (pg_partitioned_table.partexprs, pg_get_partkeydef). ``tree`` is the pg_node_tree text.
* ``objects``: what a restore must reproduce, object by object: columns (information_schema.columns), constraints,
  indexes, views, enums, domains, composites, ranges, sequences (parameters, last_value, is_called, owner),
  comments, reloptions, partition bounds, inheritance, and every table's row count and md5 of its sorted rows.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Callable

RunSql = Callable[[str], list]

USER_NS = ("n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' "
           "AND n.nspname NOT LIKE 'pg\\_temp%'")


def _rel(alias: str) -> str:
    """``schema.relation`` of pg_class ``alias`` (names as stored, unquoted)."""
    return f"(SELECT n.nspname || '.' || {alias}.relname FROM pg_namespace n WHERE n.oid = {alias}.relnamespace)"


def _json_rows(run_sql: RunSql, sql: str) -> list[dict]:
    """Rows of ``sql`` as dicts (its columns by name): each row sent back as one json text."""
    return [json.loads(r[0]) for r in run_sql(f"SELECT row_to_json(q)::text FROM ({sql}) q")]


def _keyed(rows: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in rows:
        key = r.pop("key")
        if key in out:
            raise ValueError(f"two objects named {key}")
        out[key] = r
    return out


def server_major(run_sql: RunSql) -> int:
    return int(run_sql("SHOW server_version_num")[0][0]) // 10000


def _tree_queries() -> dict[str, str]:
    return {
        "attrdef": f"""
            SELECT {_rel('c')} || '.' || a.attname AS key, {_rel('c')} AS relation, a.attname AS column,
                   d.adbin::text AS tree, pg_get_expr(d.adbin, d.adrelid) AS sql
            FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE {USER_NS}""",
        "constraint": f"""
            SELECT CASE WHEN co.conrelid <> 0 THEN {_rel('c')}
                        ELSE (SELECT tn.nspname || '.' || t.typname FROM pg_type t
                              JOIN pg_namespace tn ON tn.oid = t.typnamespace WHERE t.oid = co.contypid) END
                   || '.' || co.conname AS key,
                   CASE WHEN co.conrelid <> 0 THEN {_rel('c')} END AS relation,
                   CASE WHEN co.contypid <> 0 THEN co.contypid::regtype::text END AS domain,
                   co.contype::text AS contype, co.conbin::text AS tree,
                   pg_get_expr(co.conbin, co.conrelid) AS sql, pg_get_constraintdef(co.oid) AS def
            FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace
            LEFT JOIN pg_class c ON c.oid = co.conrelid WHERE {USER_NS}""",
        "index": f"""
            SELECT {_rel('ic')} AS key, {_rel('c')} AS relation,
                   i.indexprs::text AS tree, pg_get_expr(i.indexprs, i.indrelid) AS sql,
                   i.indpred::text AS pred_tree, pg_get_expr(i.indpred, i.indrelid) AS pred_sql,
                   pg_get_indexdef(i.indexrelid) AS def
            FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class c ON c.oid = i.indrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_NS}""",
        "view": f"""
            SELECT {_rel('c')} AS key, c.relkind::text AS relkind, r.ev_action::text AS tree,
                   pg_get_viewdef(c.oid) AS sql
            FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE r.rulename = '_RETURN' AND {USER_NS}""",
        "partbound": f"""
            SELECT {_rel('c')} AS key, c.relpartbound::text AS tree, pg_get_expr(c.relpartbound, c.oid) AS sql
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relpartbound IS NOT NULL AND {USER_NS}""",
        "partkey": f"""
            SELECT {_rel('c')} AS key, p.partexprs::text AS tree, pg_get_partkeydef(c.oid) AS sql
            FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_NS}""",
    }


SQL_FIELDS = ("sql", "pred_sql", "def")


def _set_path(run_sql: RunSql, path: str) -> None:
    """(set_config, not SET: run_sql takes statements that return rows)"""
    run_sql("SELECT set_config('search_path', '" + path.replace("'", "''") + "', false)")


def capture_trees(run_sql: RunSql) -> dict[str, dict]:
    path = run_sql("SHOW search_path")[0][0]
    trees: dict[str, dict] = {}
    try:
        for kind, sql in _tree_queries().items():
            _set_path(run_sql, "public")
            trees[kind] = _keyed(_json_rows(run_sql, sql))
            _set_path(run_sql, "")
            for key, row in _keyed(_json_rows(run_sql, sql)).items():
                for f in SQL_FIELDS:
                    if f in row:
                        trees[kind][key][f + "_qualified"] = row[f]
    finally:
        _set_path(run_sql, path)
    return trees


def _objects_queries() -> dict[str, str]:
    return {
        "columns": """
            SELECT c.table_schema || '.' || c.table_name || '.' || c.column_name AS key, c.ordinal_position,
                   c.column_default, c.is_nullable, c.data_type, c.character_maximum_length, c.numeric_precision,
                   c.numeric_scale, c.datetime_precision, c.interval_type, c.collation_name, c.domain_schema,
                   c.domain_name, c.udt_schema, c.udt_name, c.is_identity, c.identity_generation, c.identity_start,
                   c.identity_increment, c.identity_maximum, c.identity_minimum, c.identity_cycle, c.is_generated,
                   c.generation_expression
            FROM information_schema.columns c
            WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')""",
        "constraints": f"""
            SELECT coalesce({_rel('c')}, co.contypid::regtype::text) || '.' || co.conname AS key,
                   co.contype::text AS contype, pg_get_constraintdef(co.oid) AS def,
                   co.condeferrable, co.condeferred
            FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace
            LEFT JOIN pg_class c ON c.oid = co.conrelid WHERE {USER_NS}""",
        "indexes": f"""
            SELECT {_rel('ic')} AS key, pg_get_indexdef(i.indexrelid) AS def
            FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
            JOIN pg_namespace n ON n.oid = ic.relnamespace WHERE {USER_NS}""",
        "views": f"""
            SELECT {_rel('c')} AS key, c.relkind::text AS relkind, pg_get_viewdef(c.oid) AS def
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('v', 'm') AND {USER_NS}""",
        "enums": f"""
            SELECT t.oid::regtype::text AS key,
                   array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
            FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE {USER_NS} GROUP BY t.oid""",
        "domains": f"""
            SELECT t.oid::regtype::text AS key, format_type(t.typbasetype, t.typtypmod) AS base,
                   t.typnotnull AS not_null, t.typdefault AS default,
                   (SELECT co.collname FROM pg_collation co WHERE co.oid = t.typcollation) AS collation
            FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'd' AND {USER_NS}""",
        "composites": f"""
            SELECT t.oid::regtype::text AS key,
                   array_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum) AS attrs
            FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            JOIN pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE {USER_NS} GROUP BY t.oid""",
        "ranges": f"""
            SELECT t.oid::regtype::text AS key, r.rngsubtype::regtype::text AS subtype,
                   (SELECT o.opcname FROM pg_opclass o WHERE o.oid = r.rngsubopc) AS subtype_opclass, r.rngsubdiff::regproc::text AS subtype_diff,
                   r.rngcanonical::regproc::text AS canonical
            FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE {USER_NS}""",
        "sequences": """
            SELECT s.schemaname || '.' || s.sequencename AS key, s.data_type::text, s.start_value::text,
                   s.min_value::text, s.max_value::text, s.increment_by::text, s.cycle, s.cache_size::text,
                   (SELECT rn.nspname || '.' || rc.relname || '.' || a.attname
                    FROM pg_depend d JOIN pg_class rc ON rc.oid = d.refobjid
                    JOIN pg_namespace rn ON rn.oid = rc.relnamespace
                    JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                    WHERE d.classid = 'pg_class'::regclass AND d.objid = (quote_ident(s.schemaname) || '.' ||
                          quote_ident(s.sequencename))::regclass AND d.refclassid = 'pg_class'::regclass
                          AND d.deptype IN ('a', 'i')) AS owned_by
            FROM pg_sequences s""",
        "comments": """
            SELECT pg_describe_object(d.classoid, d.objoid, d.objsubid) AS key, d.description
            FROM pg_description d
            WHERE d.objoid >= 16384 AND pg_describe_object(d.classoid, d.objoid, d.objsubid) IS NOT NULL""",
        "reloptions": f"""
            SELECT {_rel('c')} AS key, c.reloptions::text[] AS reloptions,
                   (SELECT t.reloptions::text[] FROM pg_class t WHERE t.oid = c.reltoastrelid) AS toast_reloptions
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE (c.reloptions IS NOT NULL OR EXISTS (SELECT 1 FROM pg_class t WHERE t.oid = c.reltoastrelid
                                                       AND t.reloptions IS NOT NULL)) AND {USER_NS}""",
        "partitions": f"""
            SELECT {_rel('c')} AS key, pg_get_expr(c.relpartbound, c.oid) AS bound
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relpartbound IS NOT NULL AND {USER_NS}""",
        "inherits": f"""
            SELECT {_rel('c')} AS key, array_agg({_rel('p')} ORDER BY i.inhseqno) AS parents
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p', 'm') AND {USER_NS} GROUP BY c.oid, c.relname, c.relnamespace""",
    }


def capture_objects(run_sql: RunSql) -> dict[str, dict]:
    objects = {kind: _keyed(_json_rows(run_sql, sql)) for kind, sql in _objects_queries().items()}
    for key in objects["sequences"]:
        schema, name = key.split(".", 1)
        last, called = run_sql(f"SELECT last_value::text, is_called FROM {_ident(schema)}.{_ident(name)}")[0]
        objects["sequences"][key].update(last_value=last, is_called=called)
    tables = run_sql(f"""SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                         WHERE c.relkind IN ('r', 'm') AND {USER_NS} ORDER BY 1, 2""")
    objects["rows"] = {}
    for schema, name in tables:
        count, digest = run_sql(f"SELECT count(*), md5(string_agg(t::text, E'\\n' ORDER BY t::text)) "
                                f"FROM ONLY {_ident(schema)}.{_ident(name)} t")[0]
        objects["rows"][f"{schema}.{name}"] = {"count": count, "md5": digest}
    return objects


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def capture(run_sql: RunSql) -> dict:
    return {"major": server_major(run_sql), "trees": capture_trees(run_sql), "objects": capture_objects(run_sql)}


# --------------------------------------------------------------------------- the committed fixtures

DUMP_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dump"


def fixture_majors() -> list[int]:
    return sorted(int(p.name[2:]) for p in DUMP_FIXTURES.glob("pg*") if (p / "data.tar.xz").is_file())


@lru_cache(maxsize=None)
def fixture_oracle(major: int) -> dict:
    with gzip.open(DUMP_FIXTURES / f"pg{major}" / "oracle.json.gz") as f:
        return json.load(f)


@lru_cache(maxsize=None)
def fixture_data_dir(major: int) -> Path:
    """The fixture's data directory, extracted once into the system's temp area (named by the archive's digest,
    shared by test processes, left for the next run); read-only use."""
    archive = DUMP_FIXTURES / f"pg{major}" / "data.tar.xz"
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    home = Path(tempfile.gettempdir()) / f"pgpage-dump-fixtures-{os.getuid()}" / f"pg{major}-{digest}"
    if not (home / "data" / "PG_VERSION").is_file():
        home.parent.mkdir(parents=True, exist_ok=True)
        part = Path(tempfile.mkdtemp(prefix=f"pg{major}-", dir=home.parent))
        with tarfile.open(archive) as tf:
            tf.extractall(part, filter="data")
        try:
            part.rename(home)   # atomic: another test process may have got there first
        except OSError:
            shutil.rmtree(part, ignore_errors=True)
    return home / "data"
