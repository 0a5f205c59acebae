# GENERATED FILE - DO NOT EDIT.
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
"""Kaitai Struct parsers generated from formats/*.ksy (one module per .ksy).

Each module holds one class named after the .ksy id in UpperCamelCase, e.g.
``from pgpage.decode.ksy.pg_page import PgPage``; its nested types are nested classes
(``PgPage.ItemId``). ``layouts`` holds the fixed-size type layouts for vectorised decoders,
``constants`` every enum value and type size by name (as ``pgp_layout.h`` does for C), ``type_oids``
the built-in type OIDs by pg_type_d.h's names.

Modules:

- ``brin_page``: PostgreSQL BRIN index page
- ``ext_index_page``: Pages of extensions' index access methods (contrib's bloom, pgvector's HNSW and IVFFlat)
- ``fsm_page``: PostgreSQL free space map page (_fsm fork)
- ``gin_page``: PostgreSQL GIN index page
- ``gist_page``: PostgreSQL GiST index page
- ``hash_page``: PostgreSQL hash index page
- ``heap_tuple``: PostgreSQL heap tuple header (HeapTupleHeaderData)
- ``nbtree``: PostgreSQL B-tree index page (nbtree)
- ``pg_control``: PostgreSQL control file (global/pg_control), ControlFileData, PostgreSQL 10 to 18
- ``pg_filenode_map``: PostgreSQL relation mapper file (pg_filenode.map), RelMapFile, PostgreSQL 10 to 18
- ``pg_multixact``: PostgreSQL multixact SLRU pages (pg_multixact/offsets/, pg_multixact/members/), PostgreSQL 10 to 18
- ``pg_page``: PostgreSQL page header, line pointers and item pointers
- ``pg_xact``: PostgreSQL commit log page (pg_xact/, formerly pg_clog/), PostgreSQL 10 to 18
- ``pgstat_collector``: PostgreSQL 10-14 statistics collector files (pg_stat/global.stat, pg_stat/db_<oid>.stat)
- ``pgstat_shmem``: PostgreSQL 15-18 cumulative statistics file (pg_stat/pgstat.stat)
- ``pgstat_tab_entry``: PostgreSQL cumulative statistics of one table or index (PgStat_StatTabEntry), PostgreSQL 10 to 18
- ``seq_page``: PostgreSQL sequence relation page
- ``spgist_page``: PostgreSQL SP-GiST index page
- ``vm_page``: PostgreSQL visibility map page (_vm fork)
- ``xlog``: PostgreSQL write-ahead log (WAL) page headers, record headers and block references, PostgreSQL 10 to 18
- ``xlog_records``: PostgreSQL WAL records' main data (the structs pgpage describes), PostgreSQL 10 to 18
"""

__all__ = [
    'brin_page',
    'ext_index_page',
    'fsm_page',
    'gin_page',
    'gist_page',
    'hash_page',
    'heap_tuple',
    'nbtree',
    'pg_control',
    'pg_filenode_map',
    'pg_multixact',
    'pg_page',
    'pg_xact',
    'pgstat_collector',
    'pgstat_shmem',
    'pgstat_tab_entry',
    'seq_page',
    'spgist_page',
    'vm_page',
    'xlog',
    'xlog_records',
    'constants',
    'layouts',
    'type_oids',
]
