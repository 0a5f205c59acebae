"""PostgreSQL-version differences: the one table the rest of pgpage consults.

Everything that depends on the major version of the server that wrote the files lives here, as plain
data with a comment that says where it comes from and since when it holds. Code elsewhere asks this
module ("does a major-11 heap tuple carry an OID in its header?", "what are pg_class's columns in 17?")
instead of writing ``if major >= 12`` itself. Add to it; keep it data, not logic.

Majors covered: 10 through 18 (``SUPPORTED_MAJORS``).

Where the catalog layouts come from
-----------------------------------
The column lists below are transcribed from each release's ``src/include/catalog/pg_*.h``, and were
then checked column by column (name, type OID, attlen, attalign, attbyval, order) against the
``pg_attribute`` rows of real servers built from those releases: 10.23, 11.22, 12.22, 13.23, 14.23,
15.20 (Debian), 16.14, 17.10 and 18.4. The server's own rows are what genbki.pl generated from those
headers, so they are the authority where a header copy and the rows would disagree.

The history, in prose (``pg_attribute.h``, ``pg_class.h``, ``pg_database.h``, ``pg_index.h``, ``pg_type.h``):

* 11: pg_attribute gains ``atthasmissing`` (after atthasdef) and ``attmissingval`` (anyarray, last), the
  "fast ADD COLUMN ... DEFAULT" of 11; pg_class loses ``relhaspkey`` and gains ``relrewrite``;
  pg_index gains ``indnkeyatts`` (INCLUDE columns).
* 12: WITH OIDS is gone. Up to 11 the catalogs created WITH OIDS (pg_class, pg_type, pg_database,
  pg_namespace, pg_am, pg_tablespace, ...) keep their OID as a *system column in the tuple header*
  (``HEAP_HASOID_OLD`` 0x0008 in t_infomask, the 4 bytes just before t_hoff); from 12 on ``oid`` is
  the first ordinary user column. pg_class loses ``relhasoids``; pg_attribute gains ``attgenerated``.
* 14: pg_attribute reorders ``attalign`` before ``attstorage`` and gains ``attcompression``
  (TOAST compression method: pglz or lz4, new in 14); pg_type gains ``typsubscript``.
* 15: pg_database: ``datcollate``/``datctype`` become text (were name) and move behind the fixed
  columns, ``datlocprovider``, ``daticulocale`` and ``datcollversion`` appear, ``datlastsysoid`` goes;
  pg_index gains ``indnullsnotdistinct``.
* 16: ``aclitem`` grows from 12 bytes (align 'i') to 16 (align 'd') because AclMode became 64-bit, so
  every ``aclitem[]`` column (relacl, attacl, datacl, nspacl, spcacl, typacl) is now 'd'-aligned;
  pg_attribute shrinks ``attstattarget``, ``attndims`` and ``attinhcount`` to int2 and reorders them
  (attstattarget now after attinhcount); pg_database gains ``daticurules``.
* 17: pg_attribute's ``attstattarget`` becomes nullable and so moves after ``attcollation`` (into the
  part of the row after the last fixed NOT NULL column); pg_database renames ``daticulocale`` to
  ``datlocale`` and gains ``dathasloginevt``.
* 18: pg_attribute loses ``attcacheoff``; pg_class gains ``relallfrozen``.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from pgpage.decode.ksy.type_oids import (ACLITEMARRAYOID, ANYARRAYOID, BOOLOID, CHAROID, FLOAT4OID, INT2OID,
                                         INT2VECTOROID, INT4OID, NAMEOID, OIDOID, OIDVECTOROID, PG_NODE_TREEOID,
                                         REGPROCOID, TEXTARRAYOID, TEXTOID, XIDOID)

SUPPORTED_MAJORS: tuple[int, ...] = tuple(range(10, 19))
"""Majors whose layouts are in this table (and were checked against a real server)."""


# ---------------------------------------------------------------------------------------------
# Versions
# ---------------------------------------------------------------------------------------------

_VERSION_NUM_RE = re.compile(r"^\s*(\d{5,6})\s*$")          # server_version_num: 90624, 150020
_VERSION_RE = re.compile(r"(?:PostgreSQL\s+)?(\d+)(?:\.(\d+))?", re.IGNORECASE)


def major_from_pg_version(text: str) -> int:
    """Major version from the text of a ``PG_VERSION`` file or a version string.

    Accepts what a data directory or a server says about itself: ``"15\\n"`` (``PG_VERSION``),
    ``"9.6"``, ``"15.20 (Debian 15.20-0+deb12u1)"`` (``server_version``), ``"PostgreSQL 17.2 on
    x86_64-pc-linux-gnu, ..."`` (``version()``), ``"150020"`` (``server_version_num``), and
    ``"18beta1"``/``"19devel"``. From 10 on the major is the first number; before 10 it was the first
    two (9.6), and those are returned as ``major * 100 + minor`` (906), so that they never collide
    with a real major and ``is_supported()`` refuses them. Raises ``ValueError`` on text that holds
    no version at all.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a PostgreSQL version: {text!r}")
    text = text.strip()
    m = _VERSION_NUM_RE.match(text)
    if m:
        num = int(m.group(1))
        if num >= 100000:
            return num // 10000
        return (num // 10000) * 100 + (num // 100) % 100   # 90624 -> 906
    m = _VERSION_RE.search(text[:200])
    if not m:
        raise ValueError(f"not a PostgreSQL version: {text[:60]!r}")
    major = int(m.group(1))
    if major >= 10:
        return major
    if major < 6:
        raise ValueError(f"not a PostgreSQL version: {text[:60]!r}")
    minor = int(m.group(2)) if m.group(2) is not None else 0
    return major * 100 + minor


def is_supported(major: int) -> bool:
    return major in SUPPORTED_MAJORS


def _check_major(major: int) -> None:
    if major not in SUPPORTED_MAJORS:
        raise ValueError(f"PostgreSQL major {major} is not in pgpage's version table "
                         f"({SUPPORTED_MAJORS[0]}-{SUPPORTED_MAJORS[-1]})")


# ---------------------------------------------------------------------------------------------
# Tuple and datum format differences
# ---------------------------------------------------------------------------------------------

def has_oid_system_column(major: int) -> bool:
    """True where tables created WITH OIDS keep the OID in the heap tuple header (HEAP_HASOID_OLD,
    t_infomask 0x0008; the OID is the 4 bytes ending at t_hoff). Removed in 12 (``htup_details.h``)."""
    return major < 12


TABLE_ACCESS_METHODS_SINCE = 12
"""Tables have an access method (pg_class.relam, ``CREATE TABLE ... USING``, default_table_access_method) from 12
on; before, every table is heap and relam is 0."""

TOAST_COMPRESSION_METHODS_SINCE = 14
"""From 14 the top two bits of va_tcinfo (inline compressed) and va_extinfo (external pointer) carry
the compression method (0 pglz, 1 lz4; ``varatt.h``/``postgres.h``); before 14 they are always 0 and
every compressed datum is pglz."""

NUMERIC_INFINITY_SINCE = 14
"""numeric gained +Infinity (0xD000) and -Infinity (0xF000) special headers in 14; before, the only
special value was NaN (0xC000) (``utils/adt/numeric.c``)."""

INTERVAL_INFINITY_SINCE = 17
"""interval gained 'infinity' / '-infinity' in 17 (all three fields at INT64/INT32 max or min)."""

CHAR_HIGHBIT_OCTAL_SINCE = 15
"""``"char"`` output of a byte >= 0x80 is ``\\ooo`` octal from 15 on; before, the raw byte."""


# ---------------------------------------------------------------------------------------------
# nbtree: on-disk readings and pageinspect's columns
# ---------------------------------------------------------------------------------------------

BTPO_LEVEL_SINCE = 14
"""``BTPageOpaqueData``'s third word is the union ``btpo {level; xact}`` before 14 (pageinspect's
bt_page_stats column ``btpo``; a deleted page keeps its deleting xid there) and ``btpo_level`` from 14,
when deleted pages store a 64-bit safexid in the tuple area instead (BTP_HAS_FULLXID)."""

POSTING_LISTS_SINCE = 13
"""Deduplication (posting list tuples, ``btm_allequalimage``) exists from 13; pageinspect's
bt_page_items gains ``dead``, ``htid`` and ``tids`` and its ``data`` stops at the posting list or a
pivot's heap TID from 13 on (before, ``data`` is every byte after the index tuple header)."""


def bt_metap_columns(major: int) -> tuple[str, ...]:
    """pageinspect's bt_metap columns in one major (``contrib/pageinspect/btreefuncs.c``)."""
    cols = ("magic", "version", "root", "level", "fastroot", "fastlevel")
    if major >= 11:  # BTREE_NOVAC_VERSION fields
        cols += ("last_cleanup_num_delpages" if major >= 14 else "oldest_xact", "last_cleanup_num_tuples")
    if major >= 13:
        cols += ("allequalimage",)
    return cols


# The cumulative statistics file a clean shutdown writes (pg_stat/): PGSTAT_FILE_FORMAT_ID of each major
# (src/backend/postmaster/pgstat.c 10-14, src/include/pgstat.h 15+; read from the files of real servers:
# 10 to 13 share one id although 13's table entry grew, and 16 and 17 share one though 17's fixed part
# grew, so the parsers take the major too). From 15 one file, pgstat.stat; before, global.stat and one
# db_<oid>.stat per database (db_0.stat for the shared catalogs).
PGSTAT_FILE_FORMAT_ID = {10: 0x01A5BC9D, 11: 0x01A5BC9D, 12: 0x01A5BC9D, 13: 0x01A5BC9D, 14: 0x01A5BCA2,
                         15: 0x01A5BCA7, 16: 0x01A5BCAC, 17: 0x01A5BCAC, 18: 0x01A5BCB7}
PGSTAT_SHARED_MEMORY_SINCE = 15

PGSTATTUPLE_EXACT_FREE_SPACE_SINCE = 18
GIST_DELETED_PAGE_CONTENTS_SINCE = 13
"""A deleted GiST page keeps the full xid of its deletion in GISTDeletedPageContents (gist.h) from 13 on; before,
the 32-bit xid in pd_prune_xid (GistPageGetDeleteXid)."""
"""pgstattuple's free_space sums PageGetHeapFreeSpace() per page before 18 (pd_upper - pd_lower minus
one line pointer, and 0 on a page already holding MaxHeapTuplesPerPage line pointers with none
unused) and PageGetExactFreeSpace() (pd_upper - pd_lower) from 18 on (``contrib/pgstattuple``)."""

SUMMARIZING_HOT_SINCE = 16
"""An UPDATE that changes only columns of summarizing indexes (BRIN: ``amsummarizing``) is HOT from 16 on
(``heap_update`` checks ``INDEX_ATTR_BITMAP_HOT_BLOCKING``, which leaves them out); before 16 every indexed
column blocks HOT (``INDEX_ATTR_BITMAP_ALL``), BRIN's included (``src/backend/access/heap/heapam.c``)."""
SUMMARIZING_AMS = frozenset({"brin"})
"""The in-core access methods whose ``amsummarizing`` is true (``brinhandler``; the others' is false)."""

BRIN_EMPTY_RANGE_SINCE = 16
"""BRIN summaries of empty ranges (BRIN_EMPTY_RANGE_MASK in bt_info) and pageinspect's brin_page_items column
``empty`` exist from 16."""

PGSTATINDEX_EXACT_FREE_SPACE_SINCE = 18
"""pgstatindex's avg_leaf_density sums PageGetFreeSpace() of the leaf pages (pd_upper - pd_lower minus one
line pointer, at least 0) before 18 and PageGetExactFreeSpace() (pd_upper - pd_lower) from 18 on
(``contrib/pgstattuple/pgstatindex.c``, pgstatindex_impl), in the same change as pgstattuple's free_space."""


def aclitem_layout(major: int) -> tuple[int, str]:
    """(typlen, typalign) of ``aclitem``: 12/'i' before 16 (Oid grantee, Oid grantor, uint32 privs),
    16/'d' from 16 (AclMode became uint64). Checked against pg_type on 10-18."""
    return (16, "d") if major >= 16 else (12, "i")


# ---------------------------------------------------------------------------------------------
# Catalog relation OIDs (the same in every major 10-18; ``catalog/pg_*.h`` CATALOG(name, oid, ...))
# ---------------------------------------------------------------------------------------------

CATALOG_OIDS: dict[str, int] = {
    "pg_type": 1247,
    "pg_attribute": 1249,
    "pg_proc": 1255,
    "pg_class": 1259,
    "pg_authid": 1260,
    "pg_auth_members": 1261,
    "pg_database": 1262,
    "pg_tablespace": 1213,
    "pg_shdepend": 1214,
    "pg_shdescription": 2396,
    "pg_db_role_setting": 2964,
    "pg_am": 2601,
    "pg_attrdef": 2604,
    "pg_constraint": 2606,
    "pg_depend": 2608,
    "pg_description": 2609,
    "pg_index": 2610,
    "pg_inherits": 2611,
    "pg_namespace": 2615,
    "pg_statistic": 2619,
    "pg_enum": 3501,
    "pg_range": 3541,
    "pg_opclass": 2616,
    "pg_collation": 3456,
}

PG_CLASS_OID = CATALOG_OIDS["pg_class"]
PG_ATTRIBUTE_OID = CATALOG_OIDS["pg_attribute"]
PG_TYPE_OID = CATALOG_OIDS["pg_type"]
PG_DATABASE_OID = CATALOG_OIDS["pg_database"]
PG_NAMESPACE_OID = CATALOG_OIDS["pg_namespace"]
PG_AM_OID = CATALOG_OIDS["pg_am"]
PG_INDEX_OID = CATALOG_OIDS["pg_index"]
PG_TABLESPACE_OID = CATALOG_OIDS["pg_tablespace"]

NAMESPACE_OIDS: dict[str, int] = {"pg_catalog": 11, "pg_toast": 99, "public": 2200}
"""Fixed namespace OIDs (``pg_namespace.dat``); information_schema's varies per initdb."""

TABLESPACE_OIDS: dict[str, int] = {"pg_default": 1663, "pg_global": 1664}

SHARED_CATALOGS: frozenset[str] = frozenset({
    "pg_authid", "pg_auth_members", "pg_database", "pg_db_role_setting", "pg_tablespace",
    "pg_shdepend", "pg_shdescription", "pg_shseclabel", "pg_replication_origin", "pg_subscription",
    "pg_parameter_acl",   # 15+
    "pg_pltemplate",      # 10-12 only
})
"""Catalogs stored once per cluster in ``global/`` (``relisshared``)."""

MAPPED_CATALOGS: frozenset[str] = frozenset({"pg_class", "pg_attribute", "pg_proc", "pg_type"})
"""Non-shared catalogs whose pg_class.relfilenode is 0: the file is found through the database's
``pg_filenode.map`` (initially relfilenode == oid). Every shared catalog is mapped too, through
``global/pg_filenode.map``. Checked on 10-18 (``SELECT relname FROM pg_class WHERE relfilenode = 0``)."""


def catalog_has_oid_system_column(catalog: str, major: int) -> bool:
    """True where this catalog's rows carry their OID in the tuple header (before 12, WITH OIDS
    catalogs). From 12 on the OID is the first column of the layouts below."""
    return has_oid_system_column(major) and catalog in _WITH_OIDS_BEFORE_12


_WITH_OIDS_BEFORE_12 = frozenset({
    "pg_class", "pg_type", "pg_database", "pg_namespace", "pg_am", "pg_tablespace", "pg_proc",
    "pg_authid", "pg_constraint", "pg_attrdef", "pg_enum", "pg_collation", "pg_opclass",
    # the others 11's catalog headers declare without BKI_WITHOUT_OIDS (what a dump's names come from)
    "pg_operator", "pg_opfamily", "pg_rewrite", "pg_trigger", "pg_language", "pg_cast", "pg_conversion",
    "pg_amop", "pg_amproc", "pg_extension", "pg_ts_config", "pg_ts_dict", "pg_ts_parser", "pg_ts_template",
    "pg_default_acl", "pg_event_trigger", "pg_foreign_data_wrapper", "pg_foreign_server", "pg_user_mapping",
    "pg_policy", "pg_publication", "pg_publication_rel", "pg_subscription", "pg_statistic_ext", "pg_transform",
    "pg_largeobject_metadata",
})


# ---------------------------------------------------------------------------------------------
# Catalog column layouts
# ---------------------------------------------------------------------------------------------

class CatalogColumn(NamedTuple):
    """One column of a catalog as pg_attribute describes it. The field names are those the
    deformer reads (``pgpage.decode.deform``), so a CatalogColumn can be handed to it directly."""
    name: str
    typid: int
    attlen: int        # >0 fixed width, -1 varlena, -2 cstring
    attalign: str      # 'c' char, 's' short (2), 'i' int (4), 'd' double (8)
    attbyval: bool


# Type shorthands: (type oid, typlen, typalign, typbyval), from pg_type.dat (stable 10-18).
_BOOL = (BOOLOID, 1, "c", True)
_CHAR = (CHAROID, 1, "c", True)        # "char"
_NAME = (NAMEOID, 64, "c", False)      # NAMEDATALEN 64
_INT2 = (INT2OID, 2, "s", True)
_INT2VECTOR = (INT2VECTOROID, -1, "i", False)
_INT4 = (INT4OID, 4, "i", True)
_REGPROC = (REGPROCOID, 4, "i", True)
_TEXT = (TEXTOID, -1, "i", False)
_OID = (OIDOID, 4, "i", True)
_XID = (XIDOID, 4, "i", True)
_OIDVECTOR = (OIDVECTOROID, -1, "i", False)
_PG_NODE_TREE = (PG_NODE_TREEOID, -1, "i", False)
_FLOAT4 = (FLOAT4OID, 4, "i", True)
_TEXT_ARRAY = (TEXTARRAYOID, -1, "i", False)   # text[]
_ANYARRAY = (ANYARRAYOID, -1, "d", False)
_ACLITEM_ARRAY = "aclitem[]"           # ACLITEMARRAYOID, whose alignment follows aclitem: 'i' <=15, 'd' >=16

_LAST = SUPPORTED_MAJORS[-1]


def _c(name: str, typ, since: int = 10, until: int = _LAST) -> tuple:
    """A column that exists in majors since..until (inclusive)."""
    return (name, typ, since, until)


# Each list is in column order. A column that moved has one entry per position with the range of
# majors in which it sits there; a column whose type changed has one entry per type. For any one
# major, the entries whose range holds it give that major's exact layout.

_PG_ATTRIBUTE = [
    _c("attrelid", _OID),
    _c("attname", _NAME),
    _c("atttypid", _OID),
    _c("attstattarget", _INT4, until=15),      # 16: int2, after attinhcount; 17: after attcollation
    _c("attlen", _INT2),
    _c("attnum", _INT2),
    _c("attndims", _INT4, until=15),           # 16: int2, after atttypmod
    _c("attcacheoff", _INT4, until=17),        # removed in 18
    _c("atttypmod", _INT4),
    _c("attndims", _INT2, since=16),
    _c("attbyval", _BOOL),
    _c("attalign", _CHAR, since=14),           # 14 moved attalign before attstorage
    _c("attstorage", _CHAR),
    _c("attalign", _CHAR, until=13),
    _c("attcompression", _CHAR, since=14),
    _c("attnotnull", _BOOL),
    _c("atthasdef", _BOOL),
    _c("atthasmissing", _BOOL, since=11),
    _c("attidentity", _CHAR),
    _c("attgenerated", _CHAR, since=12),
    _c("attisdropped", _BOOL),
    _c("attislocal", _BOOL),
    _c("attinhcount", _INT4, until=15),
    _c("attinhcount", _INT2, since=16),
    _c("attstattarget", _INT2, since=16, until=16),
    _c("attcollation", _OID),
    _c("attstattarget", _INT2, since=17),      # nullable from 17 (NULL = default target)
    _c("attacl", _ACLITEM_ARRAY),
    _c("attoptions", _TEXT_ARRAY),
    _c("attfdwoptions", _TEXT_ARRAY),
    _c("attmissingval", _ANYARRAY, since=11),
]

_PG_CLASS = [
    _c("oid", _OID, since=12),                 # before 12: system column in the tuple header
    _c("relname", _NAME),
    _c("relnamespace", _OID),
    _c("reltype", _OID),
    _c("reloftype", _OID),
    _c("relowner", _OID),
    _c("relam", _OID),
    _c("relfilenode", _OID),
    _c("reltablespace", _OID),
    _c("relpages", _INT4),
    _c("reltuples", _FLOAT4),
    _c("relallvisible", _INT4),
    _c("relallfrozen", _INT4, since=18),
    _c("reltoastrelid", _OID),
    _c("relhasindex", _BOOL),
    _c("relisshared", _BOOL),
    _c("relpersistence", _CHAR),
    _c("relkind", _CHAR),
    _c("relnatts", _INT2),
    _c("relchecks", _INT2),
    _c("relhasoids", _BOOL, until=11),
    _c("relhaspkey", _BOOL, until=10),
    _c("relhasrules", _BOOL),
    _c("relhastriggers", _BOOL),
    _c("relhassubclass", _BOOL),
    _c("relrowsecurity", _BOOL),
    _c("relforcerowsecurity", _BOOL),
    _c("relispopulated", _BOOL),
    _c("relreplident", _CHAR),
    _c("relispartition", _BOOL),
    _c("relrewrite", _OID, since=11),
    _c("relfrozenxid", _XID),
    _c("relminmxid", _XID),                    # MultiXactId, stored with type xid
    _c("relacl", _ACLITEM_ARRAY),
    _c("reloptions", _TEXT_ARRAY),
    _c("relpartbound", _PG_NODE_TREE),
]

_PG_TYPE = [
    _c("oid", _OID, since=12),
    _c("typname", _NAME),
    _c("typnamespace", _OID),
    _c("typowner", _OID),
    _c("typlen", _INT2),
    _c("typbyval", _BOOL),
    _c("typtype", _CHAR),
    _c("typcategory", _CHAR),
    _c("typispreferred", _BOOL),
    _c("typisdefined", _BOOL),
    _c("typdelim", _CHAR),
    _c("typrelid", _OID),
    _c("typsubscript", _REGPROC, since=14),
    _c("typelem", _OID),
    _c("typarray", _OID),
    _c("typinput", _REGPROC),
    _c("typoutput", _REGPROC),
    _c("typreceive", _REGPROC),
    _c("typsend", _REGPROC),
    _c("typmodin", _REGPROC),
    _c("typmodout", _REGPROC),
    _c("typanalyze", _REGPROC),
    _c("typalign", _CHAR),
    _c("typstorage", _CHAR),
    _c("typnotnull", _BOOL),
    _c("typbasetype", _OID),
    _c("typtypmod", _INT4),
    _c("typndims", _INT4),
    _c("typcollation", _OID),
    _c("typdefaultbin", _PG_NODE_TREE),
    _c("typdefault", _TEXT),
    _c("typacl", _ACLITEM_ARRAY),
]

_PG_DATABASE = [
    _c("oid", _OID, since=12),
    _c("datname", _NAME),
    _c("datdba", _OID),
    _c("encoding", _INT4),
    _c("datlocprovider", _CHAR, since=15),
    _c("datcollate", _NAME, until=14),         # 15: text, after dattablespace
    _c("datctype", _NAME, until=14),
    _c("datistemplate", _BOOL),
    _c("datallowconn", _BOOL),
    _c("dathasloginevt", _BOOL, since=17),
    _c("datconnlimit", _INT4),
    _c("datlastsysoid", _OID, until=14),
    _c("datfrozenxid", _XID),
    _c("datminmxid", _XID),
    _c("dattablespace", _OID),
    _c("datcollate", _TEXT, since=15),
    _c("datctype", _TEXT, since=15),
    _c("daticulocale", _TEXT, since=15, until=16),
    _c("datlocale", _TEXT, since=17),          # renamed from daticulocale
    _c("daticurules", _TEXT, since=16),
    _c("datcollversion", _TEXT, since=15),
    _c("datacl", _ACLITEM_ARRAY),
]

_PG_NAMESPACE = [
    _c("oid", _OID, since=12),
    _c("nspname", _NAME),
    _c("nspowner", _OID),
    _c("nspacl", _ACLITEM_ARRAY),
]

_PG_AM = [
    _c("oid", _OID, since=12),
    _c("amname", _NAME),
    _c("amhandler", _REGPROC),
    _c("amtype", _CHAR),
]

_PG_INDEX = [
    _c("indexrelid", _OID),
    _c("indrelid", _OID),
    _c("indnatts", _INT2),
    _c("indnkeyatts", _INT2, since=11),
    _c("indisunique", _BOOL),
    _c("indnullsnotdistinct", _BOOL, since=15),
    _c("indisprimary", _BOOL),
    _c("indisexclusion", _BOOL),
    _c("indimmediate", _BOOL),
    _c("indisclustered", _BOOL),
    _c("indisvalid", _BOOL),
    _c("indcheckxmin", _BOOL),
    _c("indisready", _BOOL),
    _c("indislive", _BOOL),
    _c("indisreplident", _BOOL),
    _c("indkey", _INT2VECTOR),
    _c("indcollation", _OIDVECTOR),
    _c("indclass", _OIDVECTOR),
    _c("indoption", _INT2VECTOR),
    _c("indexprs", _PG_NODE_TREE),
    _c("indpred", _PG_NODE_TREE),
]

_PG_TABLESPACE = [
    _c("oid", _OID, since=12),
    _c("spcname", _NAME),
    _c("spcowner", _OID),
    _c("spcacl", _ACLITEM_ARRAY),
    _c("spcoptions", _TEXT_ARRAY),
]

_PG_ENUM = [
    _c("oid", _OID, since=12),
    _c("enumtypid", _OID),
    _c("enumsortorder", _FLOAT4),
    _c("enumlabel", _NAME),
]

_PG_COLLATION = [
    _c("oid", _OID, since=12),
    _c("collname", _NAME),
    _c("collnamespace", _OID),
    _c("collowner", _OID),
    _c("collprovider", _CHAR),
    _c("collisdeterministic", _BOOL, since=12),  # nondeterministic collations are new in 12
    _c("collencoding", _INT4),
    _c("collcollate", _NAME, until=14),          # 15: text
    _c("collctype", _NAME, until=14),
    _c("collcollate", _TEXT, since=15),
    _c("collctype", _TEXT, since=15),
    _c("colliculocale", _TEXT, since=15, until=16),
    _c("colllocale", _TEXT, since=17),           # renamed from colliculocale
    _c("collicurules", _TEXT, since=16),
    _c("collversion", _TEXT),
]

_PG_OPCLASS = [
    _c("oid", _OID, since=12),
    _c("opcmethod", _OID),
    _c("opcname", _NAME),
    _c("opcnamespace", _OID),
    _c("opcowner", _OID),
    _c("opcfamily", _OID),
    _c("opcintype", _OID),
    _c("opcdefault", _BOOL),
    _c("opckeytype", _OID),
]

_PG_RANGE = [
    _c("rngtypid", _OID),
    _c("rngsubtype", _OID),
    _c("rngmultitypid", _OID, since=14),       # multiranges are new in 14
    _c("rngcollation", _OID),
    _c("rngsubopc", _OID),
    _c("rngcanonical", _REGPROC),
    _c("rngsubdiff", _REGPROC),
]

_CATALOG_HISTORY: dict[str, list[tuple]] = {
    "pg_attribute": _PG_ATTRIBUTE,
    "pg_class": _PG_CLASS,
    "pg_type": _PG_TYPE,
    "pg_database": _PG_DATABASE,
    "pg_namespace": _PG_NAMESPACE,
    "pg_am": _PG_AM,
    "pg_index": _PG_INDEX,
    "pg_tablespace": _PG_TABLESPACE,
    "pg_enum": _PG_ENUM,
    "pg_range": _PG_RANGE,
    "pg_opclass": _PG_OPCLASS,
    "pg_collation": _PG_COLLATION,
}

CATALOGS_WITH_LAYOUT: tuple[str, ...] = tuple(_CATALOG_HISTORY)


def catalog_columns(catalog: str, major: int) -> tuple[CatalogColumn, ...]:
    """The ordered user columns of a catalog in one major (attnum 1..n), as pg_attribute has them.

    Enough to deform that catalog's rows without reading pg_attribute (pg_attribute's own layout is
    how pg_attribute is read at all), and a fallback for the others when pg_attribute is damaged.
    Raises ``KeyError`` for a catalog not in the table and ``ValueError`` for an unknown major.
    """
    _check_major(major)
    history = _CATALOG_HISTORY[catalog]
    out = []
    for name, typ, since, until in history:
        if not (since <= major <= until):
            continue
        if typ == _ACLITEM_ARRAY:
            # an array is aligned like its element type ('i' at least); aclitem is 'd' from 16
            typ = (ACLITEMARRAYOID, -1, aclitem_layout(major)[1], False)
        typid, attlen, attalign, attbyval = typ
        out.append(CatalogColumn(name, typid, attlen, attalign, attbyval))
    return tuple(out)


def pg_attribute_layout(major: int) -> tuple[CatalogColumn, ...]:
    """The bootstrap layout of pg_attribute itself in one major: what reading pg_attribute needs."""
    return catalog_columns("pg_attribute", major)


def catalog_column_index(catalog: str, major: int) -> dict[str, int]:
    """Column name -> 0-based position in that major's layout (convenient for picking fields)."""
    return {col.name: i for i, col in enumerate(catalog_columns(catalog, major))}


# ---------------------------------------------------------------------------------------------
# WAL: page magic, resource managers, record type names (``decode/wal``)
# ---------------------------------------------------------------------------------------------

XLOG_PAGE_MAGIC = {10: 0xD097, 11: 0xD098, 12: 0xD101, 13: 0xD106, 14: 0xD10D, 15: 0xD110, 16: 0xD113,
                   17: 0xD116, 18: 0xD118}
"""``xlp_magic`` of every WAL page a major writes (``src/include/access/xlog_internal.h``): bumped whenever
the WAL format changed, so it also tells which major wrote a segment. Checked on real segments of each."""

BKPIMAGE_COMPRESS_METHODS_SINCE = 15
"""``bimg_info``: before 15 ``BKPIMAGE_IS_COMPRESSED`` 0x02 (always pglz) and ``BKPIMAGE_APPLY`` 0x04; from 15
``BKPIMAGE_APPLY`` 0x02 and one bit per method, pglz 0x04, lz4 0x08, zstd 0x10 (``access/xlogrecord.h``;
formats/xlog.ksy enums ``bimg_info_10`` and ``bimg_info_15``)."""

TOPLEVEL_XID_BLOCK_SINCE = 14
"""``XLR_BLOCK_ID_TOPLEVEL_XID`` (252): a subtransaction's record names its top-level xid, from 14."""

RMGR_NAMES: tuple[str, ...] = (
    "XLOG", "Transaction", "Storage", "CLOG", "Database", "Tablespace", "MultiXact", "RelMap", "Standby",
    "Heap2", "Heap", "Btree", "Hash", "Gin", "Gist", "Sequence", "SPGist", "BRIN", "CommitTs",
    "ReplicationOrigin", "Generic", "LogicalMessage")
"""The built-in resource managers by RmgrId, as ``rm_name`` spells them (``access/rmgrlist.h``): the same
22 in every major 10 to 18. Ids 128-255 are custom resource managers (15+), named ``custom###``."""

RMGR_XLOG, RMGR_XACT, RMGR_STORAGE, RMGR_DATABASE, RMGR_STANDBY, RMGR_HEAP2, RMGR_HEAP, RMGR_BTREE = (
    0, 1, 2, 4, 8, 9, 10, 11)

XACT_OPMASK = 0x70
"""Transaction records: ``XLOG_XACT_OPMASK``; bit 0x80 is ``XLOG_XACT_HAS_INFO`` (``access/xact.h``). The
statistics of pg_waldump and pg_get_wal_stats file them under ``(xl_info >> 4) & 0x07``."""

HEAP_OPMASK, HEAP_INIT_PAGE = 0x70, 0x80
"""Heap and Heap2 records: the opcode is ``xl_info & XLOG_HEAP_OPMASK``; ``XLOG_HEAP_INIT_PAGE`` says the
page is initialised first, and pg_waldump names the record with ``+INIT`` (``access/heapam_xlog.h``)."""

_WAL_TYPES: dict[str, tuple] = {
    # rmgr: ((xl_info & 0xF0, name, since, until), ...), as each major's rmgrdesc/*desc.c rm_identify
    # names them; a type missing here for a major is printed as pg_waldump prints it: "UNKNOWN (%x)".
    "XLOG": ((0x00, "CHECKPOINT_SHUTDOWN"), (0x10, "CHECKPOINT_ONLINE"), (0x20, "NOOP"), (0x30, "NEXTOID"),
             (0x40, "SWITCH"), (0x50, "BACKUP_END"), (0x60, "PARAMETER_CHANGE"), (0x70, "RESTORE_POINT"),
             (0x80, "FPW_CHANGE"), (0x90, "END_OF_RECOVERY"), (0xA0, "FPI_FOR_HINT"), (0xB0, "FPI"),
             (0xD0, "OVERWRITE_CONTRECORD"), (0xE0, "CHECKPOINT_REDO", 17)),
    "Transaction": ((0x00, "COMMIT"), (0x10, "PREPARE"), (0x20, "ABORT"), (0x30, "COMMIT_PREPARED"),
                    (0x40, "ABORT_PREPARED"), (0x50, "ASSIGNMENT"), (0x60, "INVALIDATION", 14)),
    "Storage": ((0x10, "CREATE"), (0x20, "TRUNCATE")),
    "CLOG": ((0x00, "ZEROPAGE"), (0x10, "TRUNCATE")),
    "Database": ((0x00, "CREATE", 10, 14), (0x10, "DROP", 10, 14),
                 (0x00, "CREATE_FILE_COPY", 15), (0x10, "CREATE_WAL_LOG", 15), (0x20, "DROP", 15)),
    "Tablespace": ((0x00, "CREATE"), (0x10, "DROP")),
    "MultiXact": ((0x00, "ZERO_OFF_PAGE"), (0x10, "ZERO_MEM_PAGE"), (0x20, "CREATE_ID"), (0x30, "TRUNCATE_ID")),
    "RelMap": ((0x00, "UPDATE"),),
    "Standby": ((0x00, "LOCK"), (0x10, "RUNNING_XACTS"), (0x20, "INVALIDATIONS")),
    "Heap2": ((0x00, "REWRITE"), (0x40, "VISIBLE"), (0x50, "MULTI_INSERT"), (0xD0, "MULTI_INSERT+INIT"),
              (0x60, "LOCK_UPDATED"), (0x70, "NEW_CID"),
              (0x10, "CLEAN", 10, 13), (0x20, "FREEZE_PAGE", 10, 13), (0x30, "CLEANUP_INFO", 10, 13),
              (0x10, "PRUNE", 14, 16), (0x20, "VACUUM", 14, 16), (0x30, "FREEZE_PAGE", 14, 16),
              (0x10, "PRUNE_ON_ACCESS", 17), (0x20, "PRUNE_VACUUM_SCAN", 17), (0x30, "PRUNE_VACUUM_CLEANUP", 17)),
    "Heap": ((0x00, "INSERT"), (0x80, "INSERT+INIT"), (0x10, "DELETE"), (0x20, "UPDATE"), (0xA0, "UPDATE+INIT"),
             (0x30, "TRUNCATE", 11), (0x40, "HOT_UPDATE"), (0xC0, "HOT_UPDATE+INIT"), (0x50, "CONFIRM"),
             (0x60, "LOCK"), (0x70, "INPLACE")),
    "Btree": ((0x00, "INSERT_LEAF"), (0x10, "INSERT_UPPER"), (0x20, "INSERT_META"), (0x30, "SPLIT_L"),
              (0x40, "SPLIT_R"), (0x50, "SPLIT_L_ROOT", 10, 10), (0x60, "SPLIT_R_ROOT", 10, 10),
              (0x50, "INSERT_POST", 13), (0x60, "DEDUP", 13), (0x70, "DELETE"), (0x80, "UNLINK_PAGE"),
              (0x90, "UNLINK_PAGE_META"), (0xA0, "NEWROOT"), (0xB0, "MARK_PAGE_HALFDEAD"), (0xC0, "VACUUM"),
              (0xD0, "REUSE_PAGE"), (0xE0, "META_CLEANUP", 11)),
    "Hash": ((0x00, "INIT_META_PAGE"), (0x10, "INIT_BITMAP_PAGE"), (0x20, "INSERT"), (0x30, "ADD_OVFL_PAGE"),
             (0x40, "SPLIT_ALLOCATE_PAGE"), (0x50, "SPLIT_PAGE"), (0x60, "SPLIT_COMPLETE"),
             (0x70, "MOVE_PAGE_CONTENTS"), (0x80, "SQUEEZE_PAGE"), (0x90, "DELETE"), (0xA0, "SPLIT_CLEANUP"),
             (0xB0, "UPDATE_META_PAGE"), (0xC0, "VACUUM_ONE_PAGE")),
    "Gin": ((0x00, "CREATE_INDEX", 10, 11), (0x10, "CREATE_PTREE"), (0x20, "INSERT"), (0x30, "SPLIT"),
            (0x40, "VACUUM_PAGE"), (0x50, "DELETE_PAGE"), (0x60, "UPDATE_META_PAGE"), (0x70, "INSERT_LISTPAGE"),
            (0x80, "DELETE_LISTPAGE"), (0x90, "VACUUM_DATA_LEAF_PAGE")),
    "Gist": ((0x00, "PAGE_UPDATE"), (0x10, "DELETE", 11), (0x20, "PAGE_REUSE", 12), (0x30, "PAGE_SPLIT"),
             (0x50, "CREATE_INDEX", 10, 11), (0x60, "PAGE_DELETE", 12), (0x70, "ASSIGN_LSN", 13)),
    "Sequence": ((0x00, "LOG"),),
    "SPGist": ((0x00, "CREATE_INDEX", 10, 11), (0x10, "ADD_LEAF"), (0x20, "MOVE_LEAFS"), (0x30, "ADD_NODE"),
               (0x40, "SPLIT_TUPLE"), (0x50, "PICKSPLIT"), (0x60, "VACUUM_LEAF"), (0x70, "VACUUM_ROOT"),
               (0x80, "VACUUM_REDIRECT")),
    "BRIN": ((0x00, "CREATE_INDEX"), (0x10, "INSERT"), (0x90, "INSERT+INIT"), (0x20, "UPDATE"), (0xA0, "UPDATE+INIT"),
             (0x30, "SAMEPAGE_UPDATE"), (0x40, "REVMAP_EXTEND"), (0x50, "DESUMMARIZE")),
    "CommitTs": ((0x00, "ZEROPAGE"), (0x10, "TRUNCATE")),
    "ReplicationOrigin": ((0x00, "SET"), (0x10, "DROP")),
    "Generic": tuple((i << 4, "Generic") for i in range(16)),
    "LogicalMessage": ((0x00, "MESSAGE"),),
}


def _wal_type_table(major: int) -> dict[tuple[int, int], str]:
    table = {}
    for rmid, rmgr in enumerate(RMGR_NAMES):
        for entry in _WAL_TYPES.get(rmgr, ()):
            info, name, *span = entry        # (info, name[, since[, until]])
            since, until = (span + [10, _LAST][len(span):])
            if since <= major <= until:
                table[(rmid, info)] = name
    return table


WAL_RECORD_TYPES: dict[int, dict[tuple[int, int], str]] = {m: _wal_type_table(m) for m in SUPPORTED_MAJORS}
"""``WAL_RECORD_TYPES[major][(rmid, xl_info & 0xF0)]``: the record type's name as pg_waldump and pg_walinspect
of that major print it. Transaction records are looked up by ``xl_info & XLOG_XACT_OPMASK``."""


def rmgr_name(rmid: int) -> str:
    if rmid < len(RMGR_NAMES):
        return RMGR_NAMES[rmid]
    return f"custom{rmid:03d}" if rmid >= 128 else f"unknown{rmid}"


def wal_record_type(major: int, rmid: int, info: int) -> str:
    """The record type's name, as ``rm_identify`` of ``major`` gives it, else ``UNKNOWN (%x)`` as pg_waldump."""
    key = info & (XACT_OPMASK if rmid == RMGR_XACT else 0xF0)
    name = WAL_RECORD_TYPES[major].get((rmid, key))
    return name if name is not None else f"UNKNOWN ({info & 0xF0:x})"


def wal_stats_type(major: int, rmid: int, info: int) -> str:
    """The record type a record is counted under by pg_waldump --stats=record and pg_get_wal_stats(.., true):
    ``xl_info >> 4`` (``& 0x07`` for transactions), named by ``rm_identify(recid << 4)``."""
    recid = info >> 4
    if rmid == RMGR_XACT:
        recid &= 0x07
    name = WAL_RECORD_TYPES[major].get((rmid, recid << 4))
    return name if name is not None else f"UNKNOWN ({recid << 4:x})"
