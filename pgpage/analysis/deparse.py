"""SQL text of parsed node trees (``decode.nodetree``), as PostgreSQL's ruleutils.c prints them (majors 10-18).

What pg_get_expr prints for a column default, a CHECK constraint, an index's expressions and predicate
(``expression``, ``expressions``), what pg_get_viewdef prints for a view's ``_RETURN`` rule (``view_query``:
pretty, indented, wrapped at every column as pg_get_viewdef(oid) does), and a partition's bound
(``partition_bound``). Only the prettyFlags those functions use by default (PRETTYFLAG_INDENT: indentation, but
every operator parenthesized) are followed. A node this module does not print raises ``Unprintable`` naming it:
never a guess.

Names come from a ``Names`` (``passes.catalognames`` reads them from a data directory's catalogs): by OID, as
the catalog says them, with ``visible(schema)`` saying whether the session's search_path reaches a schema
(ruleutils qualifies what is not visible). Constants are printed by the value printers every command uses
(``Names.value_text``), then quoted as get_const_expr quotes them.
"""
from __future__ import annotations

from typing import Protocol

from pgpage.decode.ksy.type_oids import (BOOLOID, BPCHAROID, FLOAT4OID, FLOAT8OID, INT2OID, INT4OID, INT8OID,
                                         INTERVALOID, NUMERICOID, RECORDOID, TIMEOID, TIMESTAMPOID, TIMESTAMPTZOID,
                                         TIMETZOID, UNKNOWNOID, VARCHAROID)
from pgpage.decode.nodetree import Node

PRETTYINDENT_STD, PRETTYINDENT_JOIN, PRETTYINDENT_VAR, PRETTYINDENT_LIMIT = 8, 4, 4, 40

# primnodes.h enums (written as numbers by outfuncs; the same in 10-18)
COERCE_EXPLICIT_CALL, COERCE_EXPLICIT_CAST, COERCE_IMPLICIT_CAST, COERCE_SQL_SYNTAX = 0, 1, 2, 3
EXISTS_SUBLINK, ALL_SUBLINK, ANY_SUBLINK, ROWCOMPARE_SUBLINK, EXPR_SUBLINK, MULTIEXPR_SUBLINK, ARRAY_SUBLINK = \
    0, 1, 2, 3, 4, 5, 6
RTE_RELATION, RTE_SUBQUERY, RTE_JOIN, RTE_CTE, RTE_GROUP = 0, 1, 2, 6, 9
JOIN_INNER, JOIN_LEFT, JOIN_FULL, JOIN_RIGHT = 0, 1, 2, 3
SETOP_UNION, SETOP_INTERSECT, SETOP_EXCEPT = 1, 2, 3
FRAMEOPTION_NONDEFAULT = 0x1
# nodes/parsenodes.h FRAMEOPTION_* bits: 11 added GROUPS (and renamed VALUE to OFFSET), moving those after ROWS
_FRAME_NAMES = ["RANGE", "ROWS", "GROUPS", "BETWEEN", "START_UNBOUNDED_PRECEDING", "END_UNBOUNDED_PRECEDING",
                "START_UNBOUNDED_FOLLOWING", "END_UNBOUNDED_FOLLOWING", "START_CURRENT_ROW", "END_CURRENT_ROW",
                "START_OFFSET_PRECEDING", "END_OFFSET_PRECEDING", "START_OFFSET_FOLLOWING", "END_OFFSET_FOLLOWING",
                "EXCLUDE_CURRENT_ROW", "EXCLUDE_GROUP", "EXCLUDE_TIES"]
FRAME_BITS = {name: 1 << (i + 1) for i, name in enumerate(_FRAME_NAMES)}
FRAME_BITS_10 = {name: 1 << (i + 1) for i, name in enumerate(n for n in _FRAME_NAMES[:14] if n != "GROUPS")}
PARTITION_RANGE_DATUM_MINVALUE, PARTITION_RANGE_DATUM_MAXVALUE = -1, 1
SQL_VALUE_FUNCTIONS = ("CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP",
                       "LOCALTIME", "LOCALTIME", "LOCALTIMESTAMP", "LOCALTIMESTAMP", "CURRENT_ROLE", "CURRENT_USER",
                       "USER", "SESSION_USER", "CURRENT_CATALOG", "CURRENT_SCHEMA")   # SQLValueFunctionOp order
SQL_VALUE_FUNCTIONS_WITH_TYPMOD = {2, 4, 6, 8}
NULLTEST = (" IS NULL", " IS NOT NULL")
BOOLTEST = (" IS TRUE", " IS NOT TRUE", " IS FALSE", " IS NOT FALSE", " IS UNKNOWN", " IS NOT UNKNOWN")
# kwlist.h's keywords that quote_identifier quotes (every category but UNRESERVED_KEYWORD), of every major 10-18
QUOTED_KEYWORDS = frozenset("""
all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create
current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc
distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral
leading limit localtime localtimestamp not null offset on only or order placing primary references returning
select session_user some symmetric system_user table then to trailing true union unique user using variadic when
where window with
between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping inout int
integer interval json json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar
json_serialize json_table json_value least merge_action national nchar none normalize nullif numeric out overlay
position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes
xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull join left like
natural notnull outer overlaps right similar tablesample verbose
""".split())


class Unprintable(Exception):
    """A node tree holds a node (or a form of one) this module does not print; the message names it."""


class Names(Protocol):
    """Catalog lookups by OID, as the catalog says the names (unquoted)."""

    major: int                                            # the cluster's (window frame bits moved in 11)
    def visible(self, schema: str) -> bool: ...           # is the schema on the search path (pg_catalog always)
    def function(self, oid: int) -> tuple[str, str]: ...  # (schema, name)
    def operator(self, oid: int) -> tuple[str, str]: ...  # (schema, name)
    def operator_kind(self, oid: int) -> str: ...  # pg_operator.oprkind: b, l (prefix), r (postfix, before 14)
    def relation(self, oid: int) -> tuple[str, str]: ...  # (schema, name)
    def column(self, relid: int, attnum: int) -> str: ...
    def collation(self, oid: int) -> tuple[str, str]: ...  # (schema, name)
    def type_name(self, oid: int, typmod: int) -> str: ...  # format_type_with_typemod's text (``format_type``)
    def type_info(self, oid: int) -> dict: ...  # pg_type's typtype, typelem, typrelid, typcollation, typstorage
    def value_text(self, typid: int, raw: bytes) -> str: ...  # a datum's output text


def quote_identifier(ident: str) -> str:
    """ruleutils.c's quote_identifier: bare when lower-case letters, digits and _ (not first a digit) and not
    a keyword that needs quotes."""
    safe = bool(ident) and (ident[0] == "_" or "a" <= ident[0] <= "z") and \
        all(c == "_" or "a" <= c <= "z" or "0" <= c <= "9" for c in ident)
    if safe and ident not in QUOTED_KEYWORDS:
        return ident
    return '"' + ident.replace('"', '""') + '"'


def qualified(names: Names, schema: str, name: str) -> str:
    """quote_qualified_identifier with the schema left out where the search path reaches it."""
    if names.visible(schema):
        return quote_identifier(name)
    return quote_identifier(schema) + "." + quote_identifier(name)


def simple_quote_literal(text: str) -> str:
    """A string literal as ruleutils writes one with standard_conforming_strings on: quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


# --------------------------------------------------------------------------- format_type

_TYPE_SQL_NAMES = {BOOLOID: "boolean", INT2OID: "smallint", INT4OID: "integer", INT8OID: "bigint",
                   FLOAT4OID: "real", FLOAT8OID: "double precision"}
BITOID, VARBITOID = 1560, 1562
_INTERVAL_FIELDS = {  # intervaltypmodout's range masks (datetime.h's bits: MONTH 1, YEAR 2, DAY 3, HOUR 10,
    # MINUTE 11, SECOND 12)
    1 << 2: " year", 1 << 1: " month", 1 << 3: " day", 1 << 10: " hour", 1 << 11: " minute", 1 << 12: " second",
    (1 << 2) | (1 << 1): " year to month", (1 << 3) | (1 << 10): " day to hour",
    (1 << 3) | (1 << 10) | (1 << 11): " day to minute", (1 << 3) | (1 << 10) | (1 << 11) | (1 << 12): " day to second",
    (1 << 10) | (1 << 11): " hour to minute", (1 << 10) | (1 << 11) | (1 << 12): " hour to second",
    (1 << 11) | (1 << 12): " minute to second", 0x7FFF: ""}


def format_type(oid: int, typmod: int, info: dict | None, visible_name: str) -> str:
    """format_type_with_typemod: SQL-standard names of the built-in types with their typmods, ``visible_name``
    (the type's name, qualified where not visible) otherwise, ``[]`` after an array's element type. ``info``
    is the type's pg_type row (typelem, typlen, typstorage) and, for an array, ``element`` the element's
    (oid, name) as ``visible_name`` gives it."""
    with_mod = typmod >= 0
    if oid in _TYPE_SQL_NAMES:
        return _TYPE_SQL_NAMES[oid]
    if oid == BPCHAROID:
        return f"character({typmod - 4})" if with_mod else "bpchar"
    if oid == VARCHAROID:
        return f"character varying({typmod - 4})" if with_mod else "character varying"
    if oid == NUMERICOID:
        if not with_mod:
            return "numeric"
        precision, scale = ((typmod - 4) >> 16) & 0xFFFF, (typmod - 4) & 0x7FF
        scale = scale - 0x800 if scale & 0x400 else scale     # (15+: a negative scale, 11 bits)
        return f"numeric({precision},{scale})"
    if oid in (TIMEOID, TIMETZOID, TIMESTAMPOID, TIMESTAMPTZOID):
        base = "time" if oid in (TIMEOID, TIMETZOID) else "timestamp"
        zone = " with time zone" if oid in (TIMETZOID, TIMESTAMPTZOID) else " without time zone"
        return f"{base}({typmod}){zone}" if with_mod else base + zone
    if oid == INTERVALOID:
        if not with_mod:
            return "interval"
        fields, precision = (typmod >> 16) & 0x7FFF, typmod & 0xFFFF
        return "interval" + _INTERVAL_FIELDS.get(fields, "") + (f"({precision})" if precision != 0xFFFF else "")
    if oid == BITOID:
        return f"bit({typmod})" if with_mod else "bit"
    if oid == VARBITOID:
        return f"bit varying({typmod})" if with_mod else "bit varying"
    return visible_name + (f"({typmod})" if with_mod else "")


# --------------------------------------------------------------------------- contexts


class _Level:
    """One query level being printed (ruleutils' deparse_namespace): its range table and the names of its
    entries."""

    def __init__(self, query: Node | None, rtable: list, refnames: list):
        self.query = query
        self.rtable = rtable
        self.refnames = refnames
        self.window_clauses = (query.get("windowClause") or []) if query is not None else []
        self.target_list = (query.get("targetList") or []) if query is not None else []


class _Context:
    def __init__(self, names: Names, levels: list[_Level], varprefix: bool, indent: int = 0):
        self.names = names
        self.levels = levels          # innermost last
        self.varprefix = varprefix
        self.indent = indent
        self.buf: list[str] = []

    # appendContextKeyword: a new line indented by the context's level (pretty printing)
    def keyword(self, text: str, before: int, after: int, plus: int) -> None:
        self.indent += before
        self.strip_spaces()
        if self.indent < PRETTYINDENT_LIMIT:
            amount = max(self.indent, 0) + plus
        else:
            amount = PRETTYINDENT_LIMIT + (self.indent - PRETTYINDENT_LIMIT) // (PRETTYINDENT_STD // 2)
            amount = amount % PRETTYINDENT_LIMIT + plus
        self.buf.append("\n" + " " * amount + text)
        self.indent = max(self.indent + after, 0)

    def strip_spaces(self) -> None:
        text = "".join(self.buf).rstrip(" ")
        self.buf[:] = [text]

    def text(self) -> str:
        return "".join(self.buf)

    def sub(self) -> "_Context":
        """A context writing into its own buffer (a target list entry, a FROM item), same levels and indent."""
        return _Context(self.names, self.levels, self.varprefix, self.indent)


def _type(node) -> str:
    return node.type if isinstance(node, Node) else type(node).__name__


def expr_type(node) -> int:
    """exprType for the nodes printed here (what NullTest asks of its argument)."""
    t = _type(node)
    field = {"VAR": "vartype", "CONST": "consttype", "PARAM": "paramtype", "AGGREF": "aggtype",
             "WINDOWFUNC": "wintype", "FUNCEXPR": "funcresulttype", "OPEXPR": "opresulttype",
             "DISTINCTEXPR": "opresulttype", "NULLIFEXPR": "opresulttype", "FIELDSELECT": "resulttype",
             "RELABELTYPE": "resulttype", "COERCEVIAIO": "resulttype", "ARRAYCOERCEEXPR": "resulttype",
             "COERCETODOMAIN": "resulttype", "COERCETODOMAINVALUE": "typeId", "CASEEXPR": "casetype",
             "CASETESTEXPR": "typeId", "ARRAYEXPR": "array_typeid", "ROWEXPR": "row_typeid",
             "COALESCEEXPR": "coalescetype", "MINMAXEXPR": "minmaxtype", "SQLVALUEFUNCTION": "type",
             "NEXTVALUEEXPR": "typeId"}.get(t)
    if field is not None:
        return node[field]
    if t in ("BOOLEXPR", "NULLTEST", "BOOLEANTEST", "SCALARARRAYOPEXPR"):
        return BOOLOID
    if t == "COLLATEEXPR":
        return expr_type(node["arg"])
    raise Unprintable(f"the type of a {t} node")


# --------------------------------------------------------------------------- expressions


class _Printer:
    def __init__(self, names: Names):
        self.names = names

    # ---- get_rule_expr
    def expr(self, node, c: _Context, showimplicit: bool) -> None:
        if node is None:
            return
        if isinstance(node, list):
            for i, item in enumerate(node):
                if i:
                    c.buf.append(", ")
                self.expr(item, c, showimplicit)
            return
        t = _type(node)
        method = getattr(self, "_" + t.lower(), None)
        if method is None:
            raise Unprintable(t)
        method(node, c, showimplicit)

    def _var(self, node: Node, c: _Context, showimplicit: bool) -> None:
        self.variable(node, c, 0)

    def _const(self, node: Node, c: _Context, showimplicit: bool) -> None:
        self.const(node, c, 0)

    def _param(self, node: Node, c: _Context, showimplicit: bool) -> None:
        raise Unprintable("PARAM")

    def _funcexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        fmt, args = node["funcformat"], node.get("args") or []
        if fmt == COERCE_IMPLICIT_CAST and not showimplicit:
            self.expr(args[0], c, False)
            return
        if fmt in (COERCE_EXPLICIT_CAST, COERCE_IMPLICIT_CAST):
            typmod = -1
            if 2 <= len(args) <= 3 and _type(args[1]) == "CONST" and args[1]["consttype"] == INT4OID \
                    and not args[1]["constisnull"]:
                typmod = int.from_bytes(args[1]["constvalue"][:4], "little", signed=True)
            self.coercion(args[0], c, node["funcresulttype"], typmod)
            return
        schema, name = self.names.function(node["funcid"])
        if fmt == COERCE_SQL_SYNTAX and self.sql_syntax(name, args, c):
            return
        c.buf.append(self.function_name(node["funcid"]) + "(")
        if node.get("funcvariadic"):
            raise Unprintable("FUNCEXPR with VARIADIC")
        for i, a in enumerate(args):
            if i:
                c.buf.append(", ")
            if _type(a) == "NAMEDARGEXPR":
                raise Unprintable("NAMEDARGEXPR")
            self.expr(a, c, True)
        c.buf.append(")")

    def sql_syntax(self, name: str, args: list, c: _Context) -> bool:
        """get_func_sql_syntax (14+: the functions the grammar calls with keywords), for EXTRACT and
        SYSTEM_USER; the others are Unprintable."""
        if name == "system_user" and not args:
            c.buf.append("SYSTEM_USER")
            return True
        if name == "extract" and len(args) == 2 and _type(args[0]) == "CONST" and not args[0]["constisnull"]:
            c.buf.append("EXTRACT(" + self.names.value_text(args[0]["consttype"], args[0]["constvalue"]) + " FROM ")
            self.expr(args[1], c, False)
            c.buf.append(")")
            return True
        raise Unprintable(f"FUNCEXPR {name} in SQL syntax")

    def function_name(self, oid: int) -> str:
        schema, name = self.names.function(oid)
        return qualified(self.names, schema, name)

    def operator_name(self, oid: int) -> str:
        schema, name = self.names.operator(oid)
        if self.names.visible(schema):
            return name
        return f"OPERATOR({quote_identifier(schema)}.{name})"

    def _opexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        args = node["args"]
        c.buf.append("(")
        if len(args) == 2:
            self.expr(args[0], c, True)
            c.buf.append(f" {self.operator_name(node['opno'])} ")
            self.expr(args[1], c, True)
        elif len(args) == 1 and self.names.operator_kind(node["opno"]) == "r":
            self.expr(args[0], c, True)
            c.buf.append(f" {self.operator_name(node['opno'])}")
        elif len(args) == 1:
            c.buf.append(f"{self.operator_name(node['opno'])} ")
            self.expr(args[0], c, True)
        else:
            raise Unprintable(f"OPEXPR with {len(args)} arguments")
        c.buf.append(")")

    def _distinctexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        a, b = node["args"]
        c.buf.append("(")
        self.expr(a, c, True)
        c.buf.append(" IS DISTINCT FROM ")
        self.expr(b, c, True)
        c.buf.append(")")

    def _nullifexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("NULLIF(")
        self.expr(node["args"], c, True)
        c.buf.append(")")

    def _scalararrayopexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        a, b = node["args"]
        c.buf.append("(")
        self.expr(a, c, True)
        c.buf.append(f" {self.operator_name(node['opno'])} {'ANY' if node['useOr'] else 'ALL'} (")
        self.expr(b, c, True)
        if _type(b) == "SUBLINK" and b["subLinkType"] == EXPR_SUBLINK:
            raise Unprintable("SCALARARRAYOPEXPR over a sub-select")
        c.buf.append("))")

    def _boolexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        op, args = node["boolop"], node["args"]
        c.buf.append("(")
        if op == "not":
            c.buf.append("NOT ")
            self.expr(args[0], c, False)
        elif op in ("and", "or"):
            for i, a in enumerate(args):
                if i:
                    c.buf.append(f" {op.upper()} ")
                self.expr(a, c, False)
        else:
            raise Unprintable(f"BOOLEXPR {op}")
        c.buf.append(")")

    def _nulltest(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("(")
        self.expr(node["arg"], c, True)
        kind = node["nulltesttype"]
        if node.get("argisrow") or not self.is_rowtype(expr_type(node["arg"])):
            c.buf.append(NULLTEST[kind])
        else:
            c.buf.append(" IS NOT DISTINCT FROM NULL" if kind == 0 else " IS DISTINCT FROM NULL")
        c.buf.append(")")

    def is_rowtype(self, typid: int) -> bool:
        return typid == RECORDOID or (self.names.type_info(typid) or {}).get("typtype") == "c"

    def _booleantest(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("(")
        self.expr(node["arg"], c, False)
        c.buf.append(BOOLTEST[node["booltesttype"]])
        c.buf.append(")")

    def coercion(self, arg, c: _Context, resulttype: int, typmod: int) -> None:
        """get_coercion_expr: ``(arg)::type``, a constant of that very type bare."""
        if _type(arg) == "CONST" and arg["consttype"] == resulttype and arg["consttypmod"] == -1:
            self.const(arg, c, -1)
        else:
            c.buf.append("(")
            self.expr(arg, c, False)
            c.buf.append(")")
        c.buf.append("::" + self.names.type_name(resulttype, typmod))

    def _relabeltype(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node["relabelformat"] == COERCE_IMPLICIT_CAST and not showimplicit:
            self.expr(node["arg"], c, False)
        else:
            self.coercion(node["arg"], c, node["resulttype"], node["resulttypmod"])

    def _coerceviaio(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node["coerceformat"] == COERCE_IMPLICIT_CAST and not showimplicit:
            self.expr(node["arg"], c, False)
        else:
            self.coercion(node["arg"], c, node["resulttype"], -1)

    def _arraycoerceexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node["coerceformat"] == COERCE_IMPLICIT_CAST and not showimplicit:
            self.expr(node["arg"], c, False)
        else:
            self.coercion(node["arg"], c, node["resulttype"], node["resulttypmod"])

    def _coercetodomain(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node["coercionformat"] == COERCE_IMPLICIT_CAST and not showimplicit:
            self.expr(node["arg"], c, False)
        else:
            self.coercion(node["arg"], c, node["resulttype"], node["resulttypmod"])

    def _coercetodomainvalue(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("VALUE")

    def _collateexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("(")
        self.expr(node["arg"], c, showimplicit)
        c.buf.append(" COLLATE " + self.collation_name(node["collOid"]) + ")")

    def collation_name(self, oid: int) -> str:
        schema, name = self.names.collation(oid)
        return qualified(self.names, schema, name)

    def _caseexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.keyword("CASE", 0, PRETTYINDENT_VAR, 0)
        arg = node.get("arg")
        if arg is not None:
            c.buf.append(" ")
            self.expr(arg, c, True)
        for when in node["args"]:
            w = when["expr"]
            if arg is not None and _type(w) == "OPEXPR" and len(w["args"]) == 2 \
                    and _type(_strip_implicit(w["args"][0])) == "CASETESTEXPR":
                w = w["args"][1]
            c.keyword("WHEN ", 0, 0, 0)
            self.expr(w, c, False)
            c.buf.append(" THEN ")
            self.expr(when["result"], c, True)
        c.keyword("ELSE ", 0, 0, 0)
        self.expr(node["defresult"], c, True)
        c.keyword("END", -PRETTYINDENT_VAR, 0, 0)

    def _arrayexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("ARRAY[")
        self.expr(node.get("elements") or [], c, True)
        c.buf.append("]")
        if not node.get("elements"):
            c.buf.append("::" + self.names.type_name(node["array_typeid"], -1))

    def _rowexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("ROW(")
        args = node.get("args") or []
        for i, a in enumerate(args):
            if i:
                c.buf.append(", ")
            if _type(a) == "VAR" and a["varattno"] == 0:
                raise Unprintable("ROWEXPR of a whole-row variable")
            self.expr(a, c, True)
        c.buf.append(")")
        if node["row_format"] == COERCE_EXPLICIT_CAST:
            c.buf.append("::" + self.names.type_name(node["row_typeid"], -1))

    def _coalesceexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("COALESCE(")
        self.expr(node["args"], c, True)
        c.buf.append(")")

    def _minmaxexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append("GREATEST(" if node["op"] == 0 else "LEAST(")
        self.expr(node["args"], c, True)
        c.buf.append(")")

    def _sqlvaluefunction(self, node: Node, c: _Context, showimplicit: bool) -> None:
        op = node["op"]
        if not 0 <= op < len(SQL_VALUE_FUNCTIONS):
            raise Unprintable(f"SQLVALUEFUNCTION op {op}")
        c.buf.append(SQL_VALUE_FUNCTIONS[op])
        if op in SQL_VALUE_FUNCTIONS_WITH_TYPMOD:
            c.buf.append(f"({node['typmod']})")

    def _nextvalueexpr(self, node: Node, c: _Context, showimplicit: bool) -> None:
        schema, name = self.names.relation(node["seqid"])
        c.buf.append("nextval(" + simple_quote_literal(qualified(self.names, schema, name)) + ")")

    def _subscriptingref(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node.get("refassgnexpr") is not None:
            raise Unprintable("SUBSCRIPTINGREF assigning an element")
        arg = node["refexpr"]
        parens = _type(arg) not in ("VAR", "FIELDSELECT")
        c.buf.append("(" if parens else "")
        self.expr(arg, c, showimplicit)
        c.buf.append(")" if parens else "")
        lower = node.get("reflowerindexpr") or []
        for i, upper in enumerate(node.get("refupperindexpr") or []):
            c.buf.append("[")
            if lower:
                if lower[i] is not None:
                    self.expr(lower[i], c, False)
                c.buf.append(":")
            if upper is not None:
                self.expr(upper, c, False)
            c.buf.append("]")

    def _fieldselect(self, node: Node, c: _Context, showimplicit: bool) -> None:
        arg = node["arg"]
        parens = _type(arg) not in ("SUBSCRIPTINGREF", "ARRAYREF", "FIELDSELECT")
        c.buf.append("(" if parens else "")
        self.expr(arg, c, True)
        c.buf.append(")" if parens else "")
        info = self.names.type_info(expr_type(arg)) or {}
        if not info.get("typrelid"):
            raise Unprintable("FIELDSELECT of a value that is not of a composite type")
        c.buf.append("." + quote_identifier(self.names.column(info["typrelid"], node["fieldnum"])))

    # ---- constants
    def const(self, node: Node, c: _Context, showtype: int) -> None:
        """get_const_expr: showtype -1 never labels, 0 labels what would not read back as this type, 1 always."""
        typid, typmod = node["consttype"], node["consttypmod"]
        if node["constisnull"]:
            c.buf.append("NULL")
            if showtype >= 0:
                c.buf.append("::" + self.names.type_name(typid, typmod))
                self.const_collation(node, c)
            return
        text = self.names.value_text(typid, node["constvalue"])
        needlabel = False
        if typid == INT4OID:
            if text.startswith("-"):
                c.buf.append(f"'{text}'")
                needlabel = True
            else:
                c.buf.append(text)
        elif typid == NUMERICOID:
            if text[:1].isdigit() and any(ch in text for ch in "eE."):
                c.buf.append(text)
            else:
                c.buf.append(f"'{text}'")
                needlabel = True
        elif typid == BOOLOID:
            c.buf.append("true" if text == "t" else "false")
        else:
            c.buf.append(simple_quote_literal(text))
        if showtype < 0:
            return
        if typid in (BOOLOID, UNKNOWNOID):
            needlabel = False
        elif typid == NUMERICOID:
            needlabel |= typmod >= 0
        elif typid != INT4OID:
            needlabel = True
        if needlabel or showtype > 0:
            c.buf.append("::" + self.names.type_name(typid, typmod))
        self.const_collation(node, c)

    def const_collation(self, node: Node, c: _Context) -> None:
        coll = node.get("constcollid") or 0
        if coll and coll != (self.names.type_info(node["consttype"]) or {}).get("typcollation"):
            c.buf.append(" COLLATE " + self.collation_name(coll))

    # ---- variables
    def variable(self, var: Node, c: _Context, levelsup: int) -> str | None:
        """get_variable: ``refname.column`` (refname where the context prints prefixes), the column's name back."""
        up = var["varlevelsup"] + levelsup
        if up >= len(c.levels):
            raise Unprintable("VAR of a query level outside the tree")
        level = c.levels[-1 - up]
        varno, attnum = var["varno"], var["varattno"]
        if not 1 <= varno <= len(level.rtable):
            raise Unprintable(f"VAR of range table entry {varno}")
        rte = level.rtable[varno - 1]
        kind = rte["rtekind"]
        if attnum <= 0:
            raise Unprintable("VAR of a whole row or a system column")
        if kind == RTE_JOIN and rte.get("alias") is None:
            alias_vars = rte.get("joinaliasvars") or []
            if attnum <= len(alias_vars) and _type(alias_vars[attnum - 1]) == "VAR":
                return self.variable(alias_vars[attnum - 1], c, up)
        if kind == RTE_GROUP:
            expr = (rte.get("groupexprs") or [])[attnum - 1]
            if _type(expr) == "VAR":
                return self.variable(expr, c, up)
            raise Unprintable("VAR of a grouped expression")
        refname = level.refnames[varno - 1]
        if kind == RTE_RELATION:
            attname = self.names.column(rte["relid"], attnum)
        else:
            attname = _colnames(rte)[attnum - 1]
        if refname is not None and c.varprefix:
            c.buf.append(quote_identifier(refname) + ".")
        c.buf.append(quote_identifier(attname))
        return attname

    # ---- aggregates and window functions
    def _aggref(self, node: Node, c: _Context, showimplicit: bool) -> None:
        if node.get("aggkind", "n") != "n" or node.get("aggdirectargs"):
            raise Unprintable("AGGREF of an ordered-set aggregate")
        if node.get("aggvariadic"):
            raise Unprintable("AGGREF with VARIADIC")
        c.buf.append(self.function_name(node["aggfnoid"]) + "(" + ("DISTINCT " if node.get("aggdistinct") else ""))
        if node.get("aggstar"):
            c.buf.append("*")
        else:
            first = True
            for tle in node.get("args") or []:
                if tle["resjunk"]:
                    continue
                c.buf.append("" if first else ", ")
                first = False
                self.expr(tle["expr"], c, True)
        if node.get("aggorder"):
            c.buf.append(" ORDER BY ")
            self.orderby(node["aggorder"], node.get("args") or [], c)
        if node.get("aggfilter") is not None:
            c.buf.append(") FILTER (WHERE ")
            self.expr(node["aggfilter"], c, False)
        c.buf.append(")")

    def _windowfunc(self, node: Node, c: _Context, showimplicit: bool) -> None:
        c.buf.append(self.function_name(node["winfnoid"]) + "(")
        if node.get("winstar"):
            c.buf.append("*")
        else:
            self.expr(node.get("args") or [], c, True)
        if node.get("aggfilter") is not None:
            c.buf.append(") FILTER (WHERE ")
            self.expr(node["aggfilter"], c, False)
        c.buf.append(") OVER ")
        level = c.levels[-1]
        for wc in level.window_clauses:
            if wc["winref"] == node["winref"]:
                if wc.get("name"):
                    c.buf.append(quote_identifier(wc["name"]))
                else:
                    self.windowspec(wc, level.target_list, c)
                return
        raise Unprintable(f"WINDOWFUNC of window {node['winref']}, which the query does not have")

    def windowspec(self, wc: Node, tlist: list, c: _Context) -> None:
        c.buf.append("(")
        space = False
        if wc.get("refname"):
            c.buf.append(quote_identifier(wc["refname"]))
            space = True
        if wc.get("partitionClause") and not wc.get("refname"):
            c.buf.append(" PARTITION BY " if space else "PARTITION BY ")
            for i, grp in enumerate(wc["partitionClause"]):
                c.buf.append(", " if i else "")
                self.sortgroupclause(grp["tleSortGroupRef"], tlist, c)
            space = True
        if wc.get("orderClause") and not wc.get("copiedOrder"):
            c.buf.append(" ORDER BY " if space else "ORDER BY ")
            self.orderby(wc["orderClause"], tlist, c)
            space = True
        if wc["frameOptions"] & FRAMEOPTION_NONDEFAULT:
            c.buf.append(" " if space else "")
            self.frame(wc, c)
        c.buf.append(")")

    def frame(self, wc: Node, c: _Context) -> None:
        """A window's frame clause (get_rule_windowspec's tail)."""
        bits = FRAME_BITS_10 if self.names.major < 11 else FRAME_BITS
        opts = wc["frameOptions"]

        def has(name: str) -> bool:
            return name in bits and bool(opts & bits[name])
        words = []
        mode = next((m for m in ("RANGE", "ROWS", "GROUPS") if has(m)), None)
        if mode is None:
            raise Unprintable(f"WINDOWCLAUSE frame options {opts:#x}")
        words.append(mode + " ")
        if has("BETWEEN"):
            words.append("BETWEEN ")
        for end, offset in (("START", "startOffset"), ("END", "endOffset")):
            if end == "END":
                if not has("BETWEEN"):
                    break
                words.append("AND ")
            if has(f"{end}_UNBOUNDED_PRECEDING"):
                words.append("UNBOUNDED PRECEDING ")
            elif has(f"{end}_UNBOUNDED_FOLLOWING"):
                words.append("UNBOUNDED FOLLOWING ")
            elif has(f"{end}_CURRENT_ROW"):
                words.append("CURRENT ROW ")
            elif has(f"{end}_OFFSET_PRECEDING") or has(f"{end}_OFFSET_FOLLOWING"):
                sub = c.sub()
                self.expr(wc[offset], sub, False)
                words.append(sub.text() + (" PRECEDING " if has(f"{end}_OFFSET_PRECEDING") else " FOLLOWING "))
            else:
                raise Unprintable(f"WINDOWCLAUSE frame options {opts:#x}")
        for exclude in ("CURRENT_ROW", "GROUP", "TIES"):
            if has("EXCLUDE_" + exclude):
                words.append(f"EXCLUDE {exclude.replace('_', ' ')} ")
        c.buf.append("".join(words)[:-1])

    def sortgroupclause(self, ref: int, tlist: list, c: _Context):
        """get_rule_sortgroupclause: the target list entry's expression (a constant labelled, a call in
        parentheses); its expression back."""
        tle = next((t for t in tlist if t["ressortgroupref"] == ref), None)
        if tle is None:
            raise Unprintable(f"SORTGROUPCLAUSE of entry {ref}, which the target list does not have")
        expr = tle["expr"]
        if _type(expr) == "CONST":
            self.const(expr, c, 1)
        elif _type(expr) == "VAR":
            self.variable(expr, c, 0)
        else:
            paren = _type(expr) in ("FUNCEXPR", "AGGREF", "WINDOWFUNC")
            c.buf.append("(" if paren else "")
            self.expr(expr, c, True)
            c.buf.append(")" if paren else "")
        return expr

    def orderby(self, clauses: list, tlist: list, c: _Context) -> None:
        for i, srt in enumerate(clauses):
            c.buf.append(", " if i else "")
            self.sortgroupclause(srt["tleSortGroupRef"], tlist, c)
            _, op = self.names.operator(srt["sortop"])
            if op == "<":
                if srt["nulls_first"]:
                    c.buf.append(" NULLS FIRST")
            elif op == ">":
                c.buf.append(" DESC")
                if not srt["nulls_first"]:
                    c.buf.append(" NULLS LAST")
            else:
                c.buf.append(f" USING {self.operator_name(srt['sortop'])}")
                c.buf.append(" NULLS FIRST" if srt["nulls_first"] else " NULLS LAST")

    # ---- sub-selects and queries
    def _sublink(self, node: Node, c: _Context, showimplicit: bool) -> None:
        kind = node["subLinkType"]
        c.buf.append("ARRAY(" if kind == ARRAY_SUBLINK else "(")
        opname = None
        test = node.get("testexpr")
        if test is not None:
            if _type(test) != "OPEXPR":
                raise Unprintable(f"SUBLINK comparing with a {_type(test)}")
            self.expr(test["args"][0], c, True)
            opname = self.operator_name(test["opno"])
        paren = True
        if kind == EXISTS_SUBLINK:
            c.buf.append("EXISTS ")
        elif kind == ANY_SUBLINK:
            c.buf.append(" IN " if opname == "=" else f" {opname} ANY ")
        elif kind == ALL_SUBLINK:
            c.buf.append(f" {opname} ALL ")
        elif kind in (EXPR_SUBLINK, ARRAY_SUBLINK):
            paren = False
        else:
            raise Unprintable(f"SUBLINK of type {kind}")
        c.buf.append("(" if paren else "")
        c.buf.append(self.query(node["subselect"], c.levels, c.indent))
        c.buf.append("))" if paren else ")")

    def query(self, query: Node, outer: list[_Level], indent: int, colnames: list[str] | None = None) -> str:
        """get_query_def of a SELECT (a view's, a sub-select's, a set operation's branch)."""
        if _type(query) != "QUERY" or query["commandType"] != 1:
            raise Unprintable(f"{_type(query)} that is not a SELECT")
        for unsupported in ("rowMarks", "groupingSets"):
            if query.get(unsupported):
                raise Unprintable(f"QUERY with {unsupported}")
        if query.get("utilityStmt") is not None:
            raise Unprintable("QUERY with a utility statement")
        rtable = query.get("rtable") or []
        level = _Level(query, rtable, _rtable_names(rtable, outer, self.names))
        rtable_size = sum(1 for r in rtable if r["rtekind"] != RTE_GROUP)
        c = _Context(self.names, outer + [level], bool(outer) or rtable_size != 1, indent)
        self.select(query, c, colnames)
        return c.text()

    def with_clause(self, query: Node, c: _Context) -> None:
        """get_with_clause (no RECURSIVE, SEARCH or CYCLE)"""
        ctes = query.get("cteList") or []
        if not ctes:
            return
        if query.get("hasRecursive"):
            raise Unprintable("WITH RECURSIVE")
        c.indent += PRETTYINDENT_STD
        c.buf.append(" ")
        for i, cte in enumerate(ctes):
            if cte.get("search_clause") is not None or cte.get("cycle_clause") is not None:
                raise Unprintable("COMMONTABLEEXPR with SEARCH or CYCLE")
            c.buf.append(("WITH " if i == 0 else ", ") + quote_identifier(cte["ctename"]))
            if cte.get("aliascolnames"):
                c.buf.append("(" + ", ".join(quote_identifier(n) for n in cte["aliascolnames"]) + ")")
            c.buf.append(" AS " + {1: "MATERIALIZED ", 2: "NOT MATERIALIZED "}.get(cte.get("ctematerialized") or 0, ""))
            c.buf.append("(")
            c.keyword("", 0, 0, 0)
            c.buf.append(self.query(cte["ctequery"], c.levels, c.indent))
            c.keyword("", 0, 0, 0)
            c.buf.append(")")
        c.indent -= PRETTYINDENT_STD
        c.keyword("", 0, 0, 0)

    def select(self, query: Node, c: _Context, colnames: list[str] | None) -> None:
        """get_select_query_def"""
        self.with_clause(query, c)
        if query.get("setOperations") is not None:
            self.setop(query["setOperations"], query, c, colnames)
        else:
            self.basic_select(query, c, colnames)
        if query.get("sortClause"):
            c.keyword(" ORDER BY ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 1)
            self.orderby(query["sortClause"], query["targetList"], c)
        if query.get("limitOffset") is not None:
            c.keyword(" OFFSET ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 0)
            self.expr(query["limitOffset"], c, False)
        if query.get("limitCount") is not None:
            if query.get("limitOption", 1) == 2:
                raise Unprintable("QUERY with FETCH FIRST ... WITH TIES")
            c.keyword(" LIMIT ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 0)
            lim = query["limitCount"]
            if _type(lim) == "CONST" and lim["constisnull"]:
                c.buf.append("ALL")
            else:
                self.expr(lim, c, False)

    def setop(self, op: Node, query: Node, c: _Context, colnames) -> None:
        """get_setop_query"""
        if _type(op) == "RANGETBLREF":
            sub = query["rtable"][op["rtindex"] - 1].get("subquery")
            if sub is None or sub.get("setOperations") is not None:
                raise Unprintable("SETOPERATIONSTMT branch that is not a SELECT")
            paren = bool(sub.get("cteList") or sub.get("sortClause") or sub.get("rowMarks")
                         or sub.get("limitOffset") is not None or sub.get("limitCount") is not None)
            c.buf.append("(" if paren else "")
            c.buf.append(self.query(sub, c.levels, c.indent, colnames))
            c.buf.append(")" if paren else "")
            return
        if _type(op) != "SETOPERATIONSTMT":
            raise Unprintable(_type(op))
        larg, rarg = op["larg"], op["rarg"]
        paren = _type(larg) == "SETOPERATIONSTMT" and not (larg["op"] == op["op"] and larg["all"] == op["all"])
        if paren:
            c.buf.append("(")
            sub = PRETTYINDENT_STD
            c.keyword("", sub, 0, 0)
        else:
            sub = 0
        self.setop(larg, query, c, colnames)
        if paren:
            c.keyword(") ", -sub, 0, 0)
        else:
            c.keyword("", -sub, 0, 0)
        word = {SETOP_UNION: "UNION ", SETOP_INTERSECT: "INTERSECT ", SETOP_EXCEPT: "EXCEPT "}.get(op["op"])
        if word is None:
            raise Unprintable(f"SETOPERATIONSTMT op {op['op']}")
        c.buf.append(word + ("ALL " if op["all"] else ""))
        paren = _type(rarg) == "SETOPERATIONSTMT"
        if paren:
            c.buf.append("(")
        sub = PRETTYINDENT_STD if paren else 0
        c.keyword("", sub, 0, 0)
        self.setop(rarg, query, c, colnames)
        c.indent -= sub
        if paren:
            c.keyword(")", 0, 0, 0)

    def basic_select(self, query: Node, c: _Context, colnames: list[str] | None) -> None:
        """get_basic_select_query"""
        c.indent += PRETTYINDENT_STD
        c.buf.append(" SELECT")
        if query.get("distinctClause"):
            if query.get("hasDistinctOn"):
                c.buf.append(" DISTINCT ON (")
                for i, srt in enumerate(query["distinctClause"]):
                    c.buf.append(", " if i else "")
                    self.sortgroupclause(srt["tleSortGroupRef"], query["targetList"], c)
                c.buf.append(")")
            else:
                c.buf.append(" DISTINCT")
        self.target_list(query["targetList"], c, colnames)
        self.from_clause(query, c)
        quals = (query.get("jointree") or {}).get("quals") if query.get("jointree") is not None else None
        if quals is not None:
            c.keyword(" WHERE ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 1)
            self.expr(quals, c, False)
        if query.get("groupClause"):
            c.keyword(" GROUP BY ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 1)
            if query.get("groupDistinct"):
                c.buf.append("DISTINCT ")
            for i, grp in enumerate(query["groupClause"]):
                c.buf.append(", " if i else "")
                self.sortgroupclause(grp["tleSortGroupRef"], query["targetList"], c)
        if query.get("havingQual") is not None:
            c.keyword(" HAVING ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 0)
            self.expr(query["havingQual"], c, False)
        for i, wc in enumerate(wc for wc in query.get("windowClause") or [] if wc.get("name")):
            if i == 0:
                c.keyword(" WINDOW ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 1)
            else:
                c.buf.append(", ")
            c.buf.append(quote_identifier(wc["name"]) + " AS ")
            self.windowspec(wc, query["targetList"], c)

    def target_list(self, tlist: list, c: _Context, colnames: list[str] | None) -> None:
        """get_target_list with wrapColumn 0: every column after the first on a line of its own."""
        sep, colno = " ", 0
        for tle in tlist:
            if tle["resjunk"]:
                continue
            c.buf.append(sep)
            sep = ", "
            colno += 1
            item = c.sub()
            expr = tle["expr"]
            if _type(expr) == "VAR":
                attname = self.variable(expr, item, 0)
            else:
                self.expr(expr, item, True)
                attname = "?column?"   # (FigureColname's fallback: a column so named needs no AS)
            colname = colnames[colno - 1] if colnames is not None and colno <= len(colnames) else tle.get("resname")
            if colname is not None and (attname is None or attname != colname):
                item.buf.append(" AS " + quote_identifier(colname))
            c.indent = item.indent
            text = item.text()
            if text.startswith("\n"):
                c.strip_spaces()
            elif colno > 1:   # wrapColumn 0: every line overflows
                c.keyword("", -PRETTYINDENT_STD, PRETTYINDENT_STD, PRETTYINDENT_VAR)
            c.buf.append(text)

    def from_clause(self, query: Node, c: _Context) -> None:
        """get_from_clause"""
        jointree = query.get("jointree")
        first = True
        for item in (jointree.get("fromlist") or []) if jointree is not None else []:
            if _type(item) == "RANGETBLREF" and not query["rtable"][item["rtindex"] - 1].get("inFromCl"):
                continue
            if first:
                c.keyword(" FROM ", -PRETTYINDENT_STD, PRETTYINDENT_STD, 2)
                first = False
                self.from_item(item, query, c)
            else:
                c.buf.append(", ")
                sub = c.sub()
                self.from_item(item, query, sub)
                c.indent = sub.indent
                text = sub.text()
                if text.startswith("\n"):
                    c.strip_spaces()
                else:
                    c.keyword("", -PRETTYINDENT_STD, PRETTYINDENT_STD, PRETTYINDENT_VAR)
                c.buf.append(text)

    def from_item(self, node: Node, query: Node, c: _Context) -> None:
        """get_from_clause_item"""
        level = c.levels[-1]
        if _type(node) == "RANGETBLREF":
            rte = level.rtable[node["rtindex"] - 1]
            refname = level.refnames[node["rtindex"] - 1]
            if rte.get("lateral"):
                raise Unprintable("LATERAL")
            if rte.get("alias") is not None and rte["alias"].get("colnames"):
                raise Unprintable("FROM item with column aliases")
            if rte["rtekind"] == RTE_SUBQUERY:
                c.buf.append("(" + self.query(rte["subquery"], c.levels, c.indent) + ")")
                if rte.get("alias") is not None:
                    c.buf.append(" " + quote_identifier(refname))
                return
            if rte["rtekind"] == RTE_CTE:
                c.buf.append(quote_identifier(rte["ctename"]))
                if rte.get("alias") is not None or refname != rte["ctename"]:
                    c.buf.append(" " + quote_identifier(refname))
                return
            if rte["rtekind"] != RTE_RELATION:
                raise Unprintable(f"FROM item of range table kind {rte['rtekind']}")
            schema, name = self.names.relation(rte["relid"])
            c.buf.append(("" if rte.get("inh", True) else "ONLY ") + qualified(self.names, schema, name))
            if rte.get("alias") is not None or refname != name:
                c.buf.append(" " + quote_identifier(refname))
            return
        if _type(node) != "JOINEXPR":
            raise Unprintable(_type(node))
        if node.get("alias") is not None:
            raise Unprintable("JOINEXPR with an alias")
        c.buf.append("(")
        self.from_item(node["larg"], query, c)
        kind, quals = node["jointype"], node.get("quals")
        if kind == JOIN_INNER:
            c.keyword(" JOIN " if quals is not None else " CROSS JOIN ", -PRETTYINDENT_STD, PRETTYINDENT_STD,
                      PRETTYINDENT_JOIN)
        elif kind in (JOIN_LEFT, JOIN_FULL, JOIN_RIGHT):
            word = {JOIN_LEFT: " LEFT JOIN ", JOIN_FULL: " FULL JOIN ", JOIN_RIGHT: " RIGHT JOIN "}[kind]
            c.keyword(word, -PRETTYINDENT_STD, PRETTYINDENT_STD, PRETTYINDENT_JOIN)
        else:
            raise Unprintable(f"JOINEXPR of join type {kind}")
        self.from_item(node["rarg"], query, c)
        if node.get("usingClause"):
            if node.get("isNatural"):
                raise Unprintable("NATURAL JOIN")
            c.buf.append(" USING (" + ", ".join(quote_identifier(n) for n in node["usingClause"]) + ")")
            if node.get("join_using_alias") is not None:
                raise Unprintable("JOIN USING with an alias")
        elif quals is not None:
            c.buf.append(" ON (")
            self.expr(quals, c, False)
            c.buf.append(")")
        elif kind != JOIN_INNER:
            c.buf.append(" ON TRUE")
        c.buf.append(")")


def _strip_implicit(node):
    while True:
        t = _type(node)
        if t == "FUNCEXPR" and node["funcformat"] == COERCE_IMPLICIT_CAST:
            node = node["args"][0]
        elif t == "RELABELTYPE" and node["relabelformat"] == COERCE_IMPLICIT_CAST:
            node = node["arg"]
        elif t in ("COERCEVIAIO", "ARRAYCOERCEEXPR") and node["coerceformat"] == COERCE_IMPLICIT_CAST:
            node = node["arg"]
        elif t == "COERCETODOMAIN" and node["coercionformat"] == COERCE_IMPLICIT_CAST:
            node = node["arg"]
        else:
            return node


def _colnames(rte: Node) -> list[str]:
    eref = rte.get("eref")
    return list((eref.get("colnames") if eref is not None else None) or [])


def _rtable_names(rtable: list, outer: list[_Level], names: Names) -> list[str | None]:
    """set_rtable_names: each entry's alias, a relation's name, none for an unaliased join; made unique among
    this level's and the outer levels' names by a ``_N`` suffix."""
    used = {n for level in outer for n in level.refnames if n is not None}
    out: list[str | None] = []
    for rte in rtable:
        alias = rte.get("alias")
        if alias is not None:
            name = alias["aliasname"]
        elif rte["rtekind"] == RTE_RELATION:
            name = names.relation(rte["relid"])[1]
        elif rte["rtekind"] in (RTE_JOIN, RTE_GROUP):
            name = None
        else:
            eref = rte.get("eref")
            name = eref["aliasname"] if eref is not None else None
        if name is not None and name in used:
            n = 1
            while f"{name}_{n}" in used:
                n += 1
            name = f"{name}_{n}"
        if name is not None:
            used.add(name)
        out.append(name)
    return out


# --------------------------------------------------------------------------- entry points


def _guarded(fn):
    """An entry point: a malformed or too deeply nested tree is Unprintable, never a traceback."""
    import functools

    @functools.wraps(fn)
    def run(tree, names, *args, **kw):
        try:
            return fn(tree, names, *args, **kw)
        except RecursionError:
            raise Unprintable(f"{_type(tree)} nested too deeply to print") from None
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise Unprintable(f"malformed {_type(tree)} ({type(exc).__name__}: {exc})") from None
    return run


def _relation_context(names: Names, relid: int | None) -> _Context:
    """deparse_context_for: one relation, columns printed without a prefix."""
    if relid is None:
        return _Context(names, [], False)
    rte = Node("RANGETBLENTRY", {"rtekind": RTE_RELATION, "relid": relid, "alias": None, "inh": True})
    level = _Level(None, [rte], [names.relation(relid)[1]])
    return _Context(names, [level], False)


@_guarded
def expression(tree, names: Names, relid: int | None = None) -> str:
    """pg_get_expr(tree, relid): an expression (or a list of them, comma-separated) over one relation's
    columns."""
    c = _relation_context(names, relid)
    _Printer(names).expr(tree, c, False)
    return c.text()


@_guarded
def expressions(tree, names: Names, relid: int | None = None) -> list[str]:
    """Each expression of a list (pg_index.indexprs, pg_partitioned_table.partexprs) on its own."""
    if not isinstance(tree, list):
        raise Unprintable(f"{_type(tree)} where a list of expressions was expected")
    return [expression(item, names, relid) for item in tree]


def looks_like_function(node) -> bool:
    """ruleutils' looks_like_function: an index or partition key expression printed without parentheses."""
    t = _type(node)
    if t == "FUNCEXPR":
        return node["funcformat"] not in (COERCE_EXPLICIT_CAST, COERCE_IMPLICIT_CAST)
    return t in ("NULLIFEXPR", "COALESCEEXPR", "MINMAXEXPR", "SQLVALUEFUNCTION", "XMLEXPR")


@_guarded
def key_expression(tree, names: Names, relid: int) -> str:
    """An index column's or a partition key's expression as pg_get_indexdef/pg_get_partkeydef print it:
    in parentheses unless it is a function call."""
    text = expression(tree, names, relid)
    return text if looks_like_function(tree) else f"({text})"


@_guarded
def view_query(tree, names: Names, colnames: list[str] | None = None) -> str:
    """pg_get_viewdef(view): the SELECT of a view's ``_RETURN`` rule (pg_rewrite.ev_action: a list of one
    Query), pretty and indented, with the closing ``;``. ``colnames``: the view's column names (its
    pg_attribute), where they differ from the query's own."""
    if isinstance(tree, list):
        if len(tree) != 1:
            raise Unprintable(f"rule action list of {len(tree)} queries")
        tree = tree[0]
    return _Printer(names).query(tree, [], 0, colnames) + ";"


@_guarded
def partition_bound(tree, names: Names, relid: int | None = None) -> str:
    """pg_get_expr(relpartbound, relid): ``FOR VALUES ...`` or ``DEFAULT``."""
    if _type(tree) != "PARTITIONBOUNDSPEC":
        raise Unprintable(f"{_type(tree)} where a partition bound was expected")
    p = _Printer(names)
    c = _relation_context(names, relid)
    if tree.get("is_default"):
        return "DEFAULT"
    strategy = tree["strategy"]
    if strategy == "h":
        return f"FOR VALUES WITH (modulus {tree['modulus']}, remainder {tree['remainder']})"
    if strategy == "l":
        c.buf.append("FOR VALUES IN (")
        for i, value in enumerate(tree["listdatums"]):
            c.buf.append(", " if i else "")
            p.const(value, c, -1)
        c.buf.append(")")
        return c.text()
    if strategy == "r":
        def bound(datums) -> str:
            parts = []
            for d in datums:
                if d["kind"] == PARTITION_RANGE_DATUM_MINVALUE:
                    parts.append("MINVALUE")
                elif d["kind"] == PARTITION_RANGE_DATUM_MAXVALUE:
                    parts.append("MAXVALUE")
                else:
                    sub = _Context(names, [], False)
                    p.const(d["value"], sub, -1)
                    parts.append(sub.text())
            return "(" + ", ".join(parts) + ")"
        return f"FOR VALUES FROM {bound(tree['lowerdatums'])} TO {bound(tree['upperdatums'])}"
    raise Unprintable(f"PARTITIONBOUNDSPEC of strategy {strategy!r}")


@_guarded
def partition_key(strategy: str, attnums: list[int], exprs, names: Names, relid: int) -> str:
    """pg_get_partkeydef from pg_partitioned_table's partstrat, partattrs (0: the next of partexprs) and
    partexprs. Operator classes and collations are the keys' defaults (what the caller checked)."""
    word = {"h": "HASH", "l": "LIST", "r": "RANGE"}.get(strategy)
    if word is None:
        raise Unprintable(f"partition strategy {strategy!r}")
    pending = list(exprs or [])
    keys = []
    for attnum in attnums:
        if attnum:
            keys.append(quote_identifier(names.column(relid, attnum)))
        elif pending:
            keys.append(key_expression(pending.pop(0), names, relid))
        else:
            raise Unprintable("partition key with more expression columns than expressions")
    return f"{word} ({', '.join(keys)})"
