"""`pgpage export`'s pass: a cluster's storage as Arrow record batches, one dataset at a time.

Datasets (their columns: ``COLUMNS``; every one with a ``schema_version`` column):

* ``cluster``: pg_control's fields and the versions (`scan`'s cluster summary), one row;
* ``relations``: one row per relation with storage, `scan --deep`'s figures (pgstattuple's names for a heap,
  pgstatindex's for a B-tree);
* ``pages``: one row per page of every relation's main fork (pageinspect's ``page_header`` names, the checksum
  verdict, line pointers by state, and for a heap the figures the heap pass makes of the page);
* ``tuples``: one row per line pointer of every heap (pageinspect's ``heap_page_items`` names, the xids' verdicts,
  each infomask flag as a boolean);
* ``btree_items``: one row per item of every B-tree (``bt_page_items``' names, the key columns as text);
* ``findings``: `verify`'s findings (and those of reading the rows and the WAL);
* ``wal_records``, ``wal_blocks`` (`--wal`): each WAL record and each of its block references, as `wal --json`
  decodes them (``passes.wal``), with pg_walinspect's names;
* ``diff`` (`diff --parquet` only): `diff`'s relations, what changed in each.

Nothing here decodes a byte: the relations and their pages come from one read of `scan --deep` (``scan_relations``
hands each chunk of a main fork to ``observe``, where ``decode.vector``'s arrays become columns), B-tree items from
``analysis.btree.keys.page_view`` (what `index --block` shows), findings from ``passes.verify``, rows from
``passes.rows.TableRows`` (its compiled printer's values as Arrow holds them where it can, else the texts of
`rows --csv`, typed here: ``RowColumns``).

Batches go to ``sink(dataset, batch)`` as soon as they are made (a chunk of pages at a time), so memory stays flat
whatever the cluster's size; ``render.parquet`` writes them. pyarrow is imported only by this module's functions.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterator

import numpy as np

from pgpage.findings import WARNING, ExitCode, Finding, PgpageError, damage_text
from pgpage.passes.arrowtext import arrow, buffer_strings, csv_text_table, tid_texts

SCHEMA_VERSION = 2          # 2: rows/<schema>.<table> say where a version is as blkno and lp (was ctid text)
DATASETS = ("cluster", "relations", "pages", "tuples", "btree_items", "findings")
WAL_DATASETS = ("wal_records", "wal_blocks")   # `--wal`
ROWS_BATCH = 65536          # rows converted to Arrow at once (`--rows`)
RELATIONS_BATCH = 1024      # relations rows built at once
WAL_BATCH = 8192            # WAL records (and block references) built at once, as dicts: a WAL of 830,000 records
                            # peaked at 386 MB with ROWS_BATCH of them, 227 MB with this many
LABEL_CHARS = re.compile(r"[A-Za-z0-9._+-]+")


# ------------------------------------------------------------------------------------------------ schemas
# ("string_dict": text of few values, a dictionary and an index per row: Parquet's dictionary encoding without the
# writer hashing every value, and no cast to plain strings; readers see strings)
_IDENTITY = [("database", "string_dict"), ("nspname", "string_dict"), ("relname", "string_dict")]

# every dataset's columns, in order: (name, Arrow type name); the README's tables list the same
COLUMNS: dict[str, list[tuple[str, str]]] = {
    "cluster": [
        ("schema_version", "int16"), ("pgpage_version", "string"), ("major", "int16"), ("path", "string"),
        ("block_size", "int32"), ("relseg_size", "int64"), ("data_checksums", "bool"), ("state", "string"),
        ("control_crc_ok", "bool"), ("pg_control_version", "int64"), ("catalog_version_no", "int64"),
        ("checkpoint_lsn", "string"), ("redo_lsn", "string"), ("checkpoint_time", "timestamptz"),
        ("timeline", "int64"), ("next_xid", "int64"), ("next_xid_epoch", "int64"), ("next_full_xid", "int64"),
        ("oldest_xid", "int64"), ("oldest_xid_db", "int64"), ("next_multixact", "int64"),
        ("oldest_multixact", "int64"), ("next_oid", "int64"), ("wal_level", "string"), ("oldest_xid_age", "int64"),
        ("xids_to_wraparound", "int64"),
    ],
    "relations": [
        ("schema_version", "int16"), *_IDENTITY, ("oid", "int64"), ("relfilenode", "int64"), ("relkind", "string"),
        ("kind", "string"), ("am", "string"), ("persistence", "string"), ("relisshared", "bool"),
        ("table_name", "string"), ("toast_of", "string"), ("blocks", "int64"), ("size_bytes", "int64"),
        ("main_bytes", "int64"), ("fsm_bytes", "int64"), ("vm_bytes", "int64"), ("init_bytes", "int64"),
        ("checksum_failures", "int64"), ("findings", "int64"),
        # a heap's (pgstattuple, heap_page_items' line pointer states, HOT, visibility map, freezing)
        ("table_len", "int64"), ("tuple_count", "int64"), ("tuple_len", "int64"), ("tuple_percent", "float64"),
        ("dead_tuple_count", "int64"), ("dead_tuple_len", "int64"), ("dead_tuple_percent", "float64"),
        ("free_space", "int64"), ("free_percent", "float64"), ("lp_unused", "int64"), ("lp_normal", "int64"),
        ("lp_redirect", "int64"), ("lp_dead", "int64"), ("hot_chains", "int64"), ("hot_updated_tuples", "int64"),
        ("heap_only_tuples", "int64"), ("non_hot_updated_tuples", "int64"), ("hot_update_percent", "float64"),
        ("hot_ratio", "float64"), ("all_visible", "int64"), ("all_frozen", "int64"),
        ("pd_all_visible_pages", "int64"), ("pages_next_read_will_dirty", "int64"), ("unfrozen_tuples", "int64"),
        ("oldest_unfrozen_xid", "int64"), ("oldest_unfrozen_age", "int64"), ("undecided_tuples", "int64"),
        # a B-tree's (pgstatindex, deduplication, dead items)
        ("version", "int64"), ("tree_level", "int64"), ("index_size", "int64"), ("root_block_no", "int64"),
        ("internal_pages", "int64"), ("leaf_pages", "int64"), ("empty_pages", "int64"), ("deleted_pages", "int64"),
        ("avg_leaf_density", "float64"), ("leaf_fragmentation", "float64"), ("posting_tuples", "int64"),
        ("posting_tids", "int64"), ("dead_items", "int64"),
    ],
    "pages": [
        ("schema_version", "int16"), *_IDENTITY, ("blkno", "int64"), ("lsn", "string"), ("checksum", "int32"),
        ("flags", "int32"), ("lower", "int32"), ("upper", "int32"), ("special", "int32"), ("pagesize", "int32"),
        ("version", "int16"), ("prune_xid", "int64"), ("checksum_ok", "bool"), ("is_new", "bool"),
        ("free_space", "int32"), ("lp_unused", "int32"), ("lp_normal", "int32"), ("lp_redirect", "int32"),
        ("lp_dead", "int32"), ("pd_all_visible", "bool"), ("vm_all_visible", "bool"), ("vm_all_frozen", "bool"),
        ("tuple_len", "int32"), ("dead_tuple_len", "int32"), ("next_read_will_dirty", "bool"),
    ],
    "tuples": [
        ("schema_version", "int16"), *_IDENTITY, ("blkno", "int64"), ("lp", "int32"), ("lp_off", "int32"),
        ("lp_flags", "int16"), ("lp_len", "int32"), ("t_xmin", "int64"), ("t_xmax", "int64"), ("t_field3", "int64"),
        ("t_ctid", "string"), ("t_infomask2", "int32"), ("t_infomask", "int32"), ("t_hoff", "int16"),
        ("natts", "int16"), ("xmin_status", "string_dict"), ("xmax_status", "string_dict"),
        ("status", "string_dict"),
        # one boolean per flag bit, named as htup_details.h names it (lower case), and HEAP_XMIN_FROZEN
    ],
    "btree_items": [
        ("schema_version", "int16"), *_IDENTITY, ("blkno", "int64"), ("btpo_level", "int32"), ("leaf", "bool"),
        ("itemoffset", "int32"), ("ctid", "string"), ("itemlen", "int32"), ("nulls", "bool"), ("vars", "bool"),
        ("dead", "bool"), ("high_key", "bool"), ("htid", "string"), ("posting", "bool"), ("heap_tids", "int32"),
        ("key", "list<string>"),
    ],
    "diff": [   # `diff --parquet`: a relation of either snapshot, what changed in it
        ("schema_version", "int16"), ("database", "string"), ("relation", "string"), ("oid", "int64"),
        ("kind", "string"), ("am", "string"), ("status", "string"), ("changed", "bool"),
        ("before_relfilenode", "int64"), ("after_relfilenode", "int64"), ("before_blocks", "int64"),
        ("after_blocks", "int64"), ("before_size_bytes", "int64"), ("after_size_bytes", "int64"),
        ("pages_changed", "int64"), ("pages_added", "int64"), ("pages_removed", "int64"), ("inserted", "int64"),
        ("new_versions", "int64"), ("hot_updated", "int64"), ("non_hot_updated", "int64"), ("deleted", "int64"),
        ("not_hot", "int64"), ("entries_added", "int64"),
    ],
    # `--wal`: pg_walinspect's names (pg_get_wal_records_info, pg_get_wal_block_info), the LSNs as it prints them
    # and the start's as a number too (it sorts and subtracts)
    "wal_records": [
        ("schema_version", "int16"), ("start_lsn", "string"), ("end_lsn", "string"), ("prev_lsn", "string"),
        ("start_lsn_bytes", "int64"), ("xid", "int64"), ("resource_manager", "string_dict"),
        ("record_type", "string_dict"), ("info", "int16"), ("record_length", "int64"), ("main_data_length", "int64"),
        ("fpi_length", "int64"), ("block_count", "int32"), ("description", "string"),
    ],
    "wal_blocks": [
        ("schema_version", "int16"), ("start_lsn", "string"), ("start_lsn_bytes", "int64"), ("block_id", "int16"),
        ("reltablespace", "int64"), ("reldatabase", "int64"), ("relfilenode", "int64"), ("relforknumber", "int16"),
        ("relblocknumber", "int64"), *_IDENTITY, ("xid", "int64"), ("resource_manager", "string_dict"),
        ("record_type", "string_dict"), ("block_data_length", "int32"), ("will_init", "bool"),
        ("block_fpi_length", "int32"), ("block_fpi_info", "list<string>"), ("fpi_hole_offset", "int32"),
        ("fpi_hole_length", "int32"), ("fpi_compression", "string"), ("fpi_apply", "bool"),
    ],
    "findings": [
        ("schema_version", "int16"), ("database", "string"), ("code", "string"), ("severity", "string"),
        ("relation", "string"), ("fork", "string"), ("block", "int64"), ("item", "int64"), ("attnum", "int32"),
        ("expected", "string"), ("actual", "string"), ("message", "string"),
    ],
}


def _flag_columns() -> list[tuple[int, int, str]]:
    """(infomask word 1 or 2, bits, column) of every named infomask flag, from the layout's enums."""
    from pgpage.decode.ksy.layouts import ENUMS
    out = [(1, bit, name.lower()) for bit, name in ENUMS["heap_tuple::infomask_flags"].items()]
    out += [(1, bit, name.lower()) for bit, name in ENUMS["heap_tuple::infomask_combined"].items()
            if name == "HEAP_XMIN_FROZEN"]
    return out + [(2, bit, name.lower()) for bit, name in ENUMS["heap_tuple::infomask2_flags"].items()]


COLUMNS["tuples"] += [(name, "bool") for _, _, name in _flag_columns()]


def arrow_type(name: str):
    pa = arrow()
    if name == "timestamptz":
        return pa.timestamp("us", tz="UTC")
    if name == "list<string>":
        return pa.list_(pa.string())
    if name == "string_dict":
        return pa.dictionary(pa.int32(), pa.string())
    return getattr(pa, {"bool": "bool_", "float64": "float64"}.get(name, name))()


@lru_cache(maxsize=None)
def schema(dataset: str):
    """The Arrow schema of a dataset (``rows`` have one per table: ``RowColumns.schema``)."""
    pa = arrow()
    return pa.schema([(n, arrow_type(t)) for n, t in COLUMNS[dataset]])


@lru_cache(maxsize=None)
def _numpy_type_ids() -> frozenset:
    pa = arrow()
    return frozenset(t.id for t in (pa.bool_(), pa.int16(), pa.int32(), pa.int64(), pa.uint32(), pa.float64()))


def _batch(dataset: str, columns: dict, n: int):
    """A record batch of ``dataset`` from its columns (numpy arrays, masked arrays, lists, or one value for all
    ``n`` rows); columns not given are null."""
    pa = arrow()
    sch = schema(dataset)
    arrays = []
    for field in sch:
        v = columns.get(field.name)
        if field.name == "schema_version":
            v = np.full(n, SCHEMA_VERSION, dtype=np.int16)
        if v is None:
            arrays.append(pa.nulls(n, field.type))
        elif isinstance(v, str) and pa.types.is_dictionary(field.type):
            arrays.append(pa.DictionaryArray.from_arrays(numpy_arrow(np.zeros(n, dtype=np.int32), pa.int32()),
                                                         pa.array([v])))
        elif isinstance(v, (str, int, bool)):
            arrays.append(pa.repeat(pa.scalar(v, field.type), n))
        elif isinstance(v, pa.Array):
            arrays.append(v)
        elif isinstance(v, np.ma.MaskedArray):
            arrays.append(numpy_arrow(v.data, field.type, ~np.ma.getmaskarray(v)))
        elif isinstance(v, np.ndarray) and field.type.id in _numpy_type_ids():
            arrays.append(numpy_arrow(v, field.type))
        else:
            arrays.append(pa.array(v, field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=sch)


def numpy_arrow(values: np.ndarray, atype, valid: np.ndarray | None = None):
    """An Arrow array of ``atype`` (an int, float or bool type) over numpy ``values``, NULL where ``valid`` is False,
    made from its buffers: ``pa.array`` given a type converts value by value, and its masks and booleans cost as
    much again (73 against 3 µs for 25,000 ints)."""
    pa = arrow()
    validity = None if valid is None or valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    if pa.types.is_boolean(atype):
        body = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    else:
        body = np.ascontiguousarray(values, dtype=atype.to_pandas_dtype())
    return pa.Array.from_buffers(atype, len(values), [validity, pa.py_buffer(body)])


def rows_batch(dataset: str, rows: list[dict]):
    pa = arrow()
    return pa.RecordBatch.from_pylist([{**r, "schema_version": SCHEMA_VERSION} for r in rows], schema=schema(dataset))


def _identity(rel) -> dict:
    return {"database": rel.database.name, "nspname": rel.namespace, "relname": rel.name}


# ------------------------------------------------------------------------------------------------ the cluster
def default_label(cluster) -> str:
    """The snapshot label a directory name can carry: pg_control's checkpoint time, UTC (20261125T031334Z)."""
    time = ((cluster.control or {}).get("checkPointCopy") or {}).get("time_iso")
    if not time:
        raise PgpageError(f"{cluster.path}: pg_control gives no checkpoint time (it cannot be read): name the"
                          " snapshot with --label", ExitCode.UNREADABLE)
    return time[:19].replace("-", "").replace(":", "") + "Z"


def check_label(label: str) -> str:
    if not LABEL_CHARS.fullmatch(label) or label.startswith("."):
        raise PgpageError(f"--label {label!r}: letters, digits and . _ + - only (it names a directory)",
                          ExitCode.USAGE)
    return label


def cluster_row(cluster) -> dict:
    from datetime import datetime

    from pgpage import __version__
    from pgpage.passes.scan import cluster_summary
    row = {k: v for k, v in cluster_summary(cluster).items() if k != "statistics"}
    row["pgpage_version"] = __version__
    if row.get("checkpoint_time"):
        row["checkpoint_time"] = datetime.fromisoformat(row["checkpoint_time"])
    return row


INDEX_FIGURES = ("pgstatindex", "deduplication", "dead_items")   # what relation_row reads of `index`'s report


def relation_row(entry: dict, rel, index_report: dict | None) -> dict:
    """A relations row from `scan --deep`'s entry of the relation (and `index`'s report of a B-tree)."""
    heap = entry.get("heap") or {}
    fork_bytes = entry["fork_bytes"]
    row = {**_identity(rel), "oid": entry["oid"], "relfilenode": entry["relfilenode"], "relkind": entry["relkind"],
           "kind": entry["kind"], "am": entry["am"], "persistence": entry["persistence"],
           "relisshared": entry["relisshared"], "table_name": entry["table"], "toast_of": entry["toast_of"],
           "blocks": entry["blocks"], "size_bytes": entry["size_bytes"],
           **{f"{fork}_bytes": fork_bytes.get(fork) for fork in ("main", "fsm", "vm", "init")},
           "checksum_failures": entry["health"]["checksum_failures"], "findings": len(entry["findings"]),
           "hot_ratio": (entry.get("hot_ratio") or {}).get("ratio")}
    if heap:
        hot, vis = heap["hot"], heap["visibility"]
        row.update(heap["pgstattuple"])
        row.update({k: v for k, v in heap["line_pointers"].items() if k.startswith("lp_") and k != "lp_dead_with_storage_bytes"})
        row.update({"hot_chains": hot["chains"], "hot_updated_tuples": hot["hot_updated_tuples"],
                    "heap_only_tuples": hot["heap_only_tuples"], "non_hot_updated_tuples": hot["non_hot_updated_tuples"],
                    "hot_update_percent": hot["hot_update_percent"], "all_visible": vis["vm_all_visible_pages"],
                    "all_frozen": vis["vm_all_frozen_pages"], "pd_all_visible_pages": vis["pd_all_visible_pages"],
                    "pages_next_read_will_dirty": heap["hint_bits"]["pages_next_read_will_dirty"],
                    "unfrozen_tuples": heap["freezing"]["unfrozen_tuples"],
                    "oldest_unfrozen_xid": heap["freezing"]["oldest_unfrozen_xid"],
                    "oldest_unfrozen_age": heap["freezing"]["oldest_unfrozen_age"],
                    "undecided_tuples": heap["undecided_tuples"]})
    if index_report:
        row.update(index_report["pgstatindex"])
        dedup = index_report["deduplication"]
        row.update({"posting_tuples": dedup["posting_tuples"], "posting_tids": dedup["posting_tids"],
                    "dead_items": index_report["dead_items"]["dead_items"]})
    return row


# ------------------------------------------------------------------------------------------------ pages, tuples
def pages_batch(rel, first: int, chunk: np.ndarray, failures: list[int], figures, visible, frozen,
                checksums: bool | None):
    """The ``pages`` rows of one chunk of a main fork, from ``decode.vector``'s headers and what the heap pass made
    of the pages (``figures``: ``kernels.TABLES.PAGE_COLUMNS`` per page; None for another kind of relation)."""
    from pgpage.decode.control import format_lsn
    from pgpage.decode.flags import PD_ALL_VISIBLE
    from pgpage.decode.kernels import TABLES
    from pgpage.decode.vector import decode_headers, line_pointer_states
    h = decode_headers(chunk)
    n = chunk.shape[0]
    lps = line_pointer_states(chunk, h)
    blkno = first + np.arange(n, dtype=np.int64)
    # PageIsVerified checks the checksum of a page that is not new; None when the cluster has no checksums
    checksum_ok = np.ma.masked_array(~np.isin(blkno, failures), mask=h.is_new | (not checksums))
    cols = {**_identity(rel), "blkno": blkno, "lsn": [format_lsn(x) for x in h.lsn.tolist()],
            "checksum": h.checksum, "checksum_ok": checksum_ok, "flags": h.flags, "lower": h.lower,
            "upper": h.upper, "special": h.special, "pagesize": h.pagesize_version & 0xFF00,
            "version": h.pagesize_version & 0x00FF, "prune_xid": h.prune_xid, "is_new": h.is_new,
            "lp_unused": lps[:, 0], "lp_normal": lps[:, 1], "lp_redirect": lps[:, 2], "lp_dead": lps[:, 3],
            "pd_all_visible": (h.flags & PD_ALL_VISIBLE) != 0}
    if figures is not None:
        col = {name: figures[:, i] for i, name in enumerate(TABLES.PAGE_COLUMNS)}
        cols.update(free_space=col["free"], tuple_len=col["used"] - col["dead"], dead_tuple_len=col["dead"],
                    next_read_will_dirty=col["hint_page"] != 0)
        if visible is not None:
            cols.update(vm_all_visible=visible, vm_all_frozen=frozen)
    else:   # PageGetExactFreeSpace, as bt_page_stats' free_size
        cols["free_space"] = np.ma.masked_array(h.upper.astype(np.int64) - h.lower,
                                                mask=h.is_new | (h.upper < h.lower))
    return _batch("pages", cols, n)


def tuples_batch(rel, first: int, chunk: np.ndarray, cluster):
    """The ``tuples`` rows of one chunk of a heap: every line pointer (``decode.vector``), the tuple header of those
    that have one, its xids' verdicts (hint bits, then pg_xact and pg_multixact) and the row's status (as
    `rows --all`), its flags one column each."""
    from pgpage.analysis.rowstatus import STATUS_NAMES, XID_STATE_NAMES, row_statuses
    from pgpage.decode.flags import HEAP_NATTS_MASK, LP_NORMAL
    from pgpage.decode.vector import decode_heap_chunk
    from pgpage.decode.xact import xmax_states, xmin_states
    hc = decode_heap_chunk(chunk, first)
    items, tups = hc.items, hc.tuples
    n = len(items.lp)
    blkno = first + items.page.astype(np.int64)
    has = np.zeros(n, dtype=bool)
    has[tups.item] = True
    every = bool(has.all())      # (every line pointer has a tuple header: the common chunk, nothing to spread)

    def spread(values):
        """Values of the tuple headers at their line pointers (zero where there is none)."""
        if every:
            return values
        out = np.zeros(n, dtype=values.dtype)
        out[tups.item] = values
        return out

    infomask, infomask2 = tups.t_infomask.astype(np.int64), tups.t_infomask2.astype(np.int64)
    xmin, xmax = tups.t_xmin.astype(np.int64), tups.t_xmax.astype(np.int64)
    xmin_st, _ = xmin_states(infomask, xmin, cluster.clog)
    xmax_st, _ = xmax_states(infomask, xmax, cluster.clog, cluster.multi_update_xid)
    status = row_statuses(xmin_st, xmax_st, blkno[tups.item], items.lp[tups.item].astype(np.int64),
                          tups.ctid_block.astype(np.int64), tups.ctid_offset.astype(np.int64))
    normal = items.flags[tups.item] == LP_NORMAL

    pa = arrow()

    def names(codes, table, where=None):
        """The names of ``codes`` (of the tuples ``where`` says) at their line pointers, NULL elsewhere."""
        index = np.full(n, -1, dtype=np.int32)
        index[tups.item if where is None else tups.item[where]] = codes if where is None else codes[where]
        words = [table.get(c) for c in range(max(table) + 1)] if isinstance(table, dict) else list(table)
        return pa.DictionaryArray.from_arrays(numpy_arrow(index, pa.int32(), index >= 0), pa.array(words, pa.string()))

    types = {f.name: f.type for f in schema("tuples")}
    header = lambda name, values: numpy_arrow(values, types[name], has)  # noqa: E731 (NULL without a header)
    ctid = tid_texts(spread(tups.ctid_block.astype(np.int64)), spread(tups.ctid_offset.astype(np.int64)),
                     null=None if every else ~has)
    cols = {**_identity(rel), "blkno": blkno, "lp": items.lp, "lp_off": items.off, "lp_flags": items.flags,
            "lp_len": items.len, "t_ctid": ctid, "xmin_status": names(xmin_st, XID_STATE_NAMES),
            "xmax_status": names(xmax_st, XID_STATE_NAMES), "status": names(status, STATUS_NAMES, normal)}
    words = {1: spread(infomask), 2: spread(infomask2)}
    for name, values in (("t_xmin", xmin), ("t_xmax", xmax), ("t_field3", tups.t_field3), ("t_hoff", tups.t_hoff)):
        cols[name] = header(name, spread(values))
    cols.update(t_infomask=header("t_infomask", words[1]), t_infomask2=header("t_infomask2", words[2]),
                natts=header("natts", words[2] & HEAP_NATTS_MASK))
    for word, bits, name in _flag_columns():
        cols[name] = header(name, (words[word] & bits) == bits)
    return _batch("tuples", cols, n)


# ------------------------------------------------------------------------------------------------ B-trees
def index_report(cluster, rel) -> dict:
    """`pgpage index`'s figures of one B-tree (its heap TIDs not looked up: `verify` does that)."""
    from pgpage.passes.index import index_info, scan_index
    fork = rel.forks["main"]
    cp = (cluster.control or {}).get("checkPointCopy") or {}
    report, _ = scan_index(fork.iter_chunks, fork.end_block, fork.block_size, cluster.major,
                           index_info(rel, rel.database), checksums=cluster.checksums, next_xid=cp.get("nextXid"),
                           next_full_xid=cp.get("nextFullXid"))
    return report


def btree_item_batches(cluster, rel) -> Iterator:
    """The ``btree_items`` rows of one B-tree, a chunk of pages at a time: each item as `index --block` decodes it
    (``passes.btree_items``: ``bt_page_items`` with the keys)."""
    from pgpage.passes.btree_items import item_rows, key_printers
    from pgpage.passes.index import index_info
    from pgpage.storage.target import relation_target
    ctx = relation_target(cluster, rel).context
    attrs = index_info(rel, rel.database).attributes
    printers = key_printers(attrs, cluster.major)
    ident = _identity(rel)
    for first, chunk in rel.forks["main"].iter_chunks():
        for part in item_rows(chunk, first, ctx, attrs, printers):
            if isinstance(part, dict):
                if len(part["blkno"]):
                    yield _batch("btree_items", {**ident, **part}, len(part["blkno"]))
            else:
                rows = [{**ident, **r} for page in part for r in page]
                if rows:
                    yield rows_batch("btree_items", rows)


# ------------------------------------------------------------------------------------------------ findings
def finding_row(rec: dict) -> dict:
    """A findings row from a `verify --json` finding record (expected and actual as text: their JSON)."""
    from json import dumps
    row = {k: rec.get(k) for k in ("database", "code", "severity", "relation", "fork", "block", "item", "attnum",
                                   "message")}
    for k in ("expected", "actual"):
        v = rec.get(k)
        row[k] = v if v is None or isinstance(v, str) else dumps(v)
    return row


def finding_batches(pgdata: str, db: str | None, rel: str | None = None, cluster=None, on_btree_report=None,
                    on_blocks=None) -> Iterator:
    """`verify`'s findings of the cluster (a database, a relation), a batch of them at a time; of a whole cluster or
    database verified through ``cluster`` when given (the export's, its catalogs already read), each B-tree's
    report handed to ``on_btree_report(main fork, report)``, ``on_blocks(n)`` as it reads."""
    from pgpage.passes.verify import Verification, plan
    if cluster is not None and rel is None:
        verification = Verification(cluster, advance=on_blocks)
        verification.on_btree_report = on_btree_report
        records = verification.cluster_records(db)
    else:
        records = plan(pgdata, db, rel, None)[1]
    rows = []
    for rec in records:
        if rec.get("type") == "finding":
            rows.append(finding_row(rec))
            if len(rows) >= ROWS_BATCH:
                yield rows_batch("findings", rows)
                rows = []
    yield rows_batch("findings", rows)


# ------------------------------------------------------------------------------------------------ WAL
def wal_batches(walk, sink: Callable) -> list[Finding]:
    """The ``wal_records`` and ``wal_blocks`` rows of every record ``walk`` (a ``passes.wal.WalWalk``) reads, as
    `wal --json` gives them, to ``sink`` a batch at a time; returns the walk's findings (where it stopped, why)."""
    from pgpage.decode.wal.record import BKPBLOCK_FORK_MASK
    records: list[dict] = []
    blocks: list[dict] = []
    for rec in walk.records():
        doc = walk.record_json(rec)
        common = {"start_lsn": doc["lsn"], "start_lsn_bytes": rec.lsn, "xid": rec.xid,
                  "resource_manager": doc["rmgr"], "record_type": doc["record_type"]}
        records.append({**common, "end_lsn": doc["end_lsn"], "prev_lsn": doc["prev_lsn"], "info": rec.info,
                        "record_length": rec.length, "main_data_length": rec.main_data_length,
                        "fpi_length": rec.fpi_length, "block_count": len(rec.blocks),
                        "description": doc["description"]})
        for b, ref in zip(rec.blocks, doc["blocks"]):
            database, rel = walk.names.get((b.spc, b.db, b.rel), (None, None))
            fpi = ref["fpi"] or {}
            blocks.append({**common, "block_id": b.block_id, "reltablespace": b.spc, "reldatabase": b.db,
                           "relfilenode": b.rel, "relforknumber": b.fork_flags & BKPBLOCK_FORK_MASK,
                           "relblocknumber": b.block, "database": database,
                           "nspname": rel and rel.namespace, "relname": rel and rel.name,
                           "block_data_length": b.data_length, "will_init": ref["will_init"],
                           "block_fpi_length": fpi.get("length"), "block_fpi_info": _fpi_info(fpi.get("flags")),
                           "fpi_hole_offset": fpi.get("hole_offset"), "fpi_hole_length": fpi.get("hole_length"),
                           "fpi_compression": fpi.get("compression"), "fpi_apply": fpi.get("apply")})
        for name, rows in (("wal_records", records), ("wal_blocks", blocks)):
            if len(rows) >= WAL_BATCH:
                sink(name, rows_batch(name, rows))
                rows.clear()
    for name, rows in (("wal_records", records), ("wal_blocks", blocks)):
        if rows:
            sink(name, rows_batch(name, rows))
    return walk.findings()


def _fpi_info(flags: list[str] | None) -> list[str] | None:
    """An image's flags as pg_get_wal_block_info's block_fpi_info names them (BKPIMAGE_APPLY: APPLY)."""
    return None if flags is None else [f.removeprefix("BKPIMAGE_") for f in flags]


# ------------------------------------------------------------------------------------------------ diff
def diff_row(rel: dict) -> dict:
    """A ``diff`` row from a relation of `diff --json`'s document."""
    before, after = rel.get("before") or {}, rel.get("after") or {}
    main = (rel.get("forks") or {}).get("main") or {}
    tuples = (rel.get("pages") or {}).get("tuples") or {}
    delta = ((rel.get("index") or {}).get("delta")) or {}
    return {"database": rel.get("database"), "relation": rel["name"], "oid": rel.get("oid"), "kind": rel.get("kind"),
            "am": rel.get("am"), "status": rel.get("status"), "changed": rel.get("changed"),
            **{f"{when}_{k}": side.get(k) for when, side in (("before", before), ("after", after))
               for k in ("relfilenode", "blocks", "size_bytes")},
            **{k: main.get(k) for k in ("pages_changed", "pages_added", "pages_removed")},
            **{k: tuples.get(k) for k in ("inserted", "new_versions", "hot_updated", "non_hot_updated", "deleted")},
            "not_hot": (rel.get("why_not_hot") or {}).get("not_hot"), "entries_added": delta.get("entries")}


def diff_batches(doc: dict) -> Callable:
    """``produce(sink)``: the relations of a `diff` document as ``diff`` batches."""
    def produce(sink: Callable) -> None:
        rows = []
        for rel in doc["relations"]:
            rows.append(diff_row(rel))
            if len(rows) >= RELATIONS_BATCH:
                sink(rows_batch("diff", rows))
                rows = []
        sink(rows_batch("diff", rows))
    return produce


# ------------------------------------------------------------------------------------------------ the export
SYSTEM_TEXTS = 6   # rows' CSV with its system columns first: ctid, xmin, xmax, status, lp_off, damage


class ClusterExport:
    """`pgpage export` of a data directory (a database, or one relation with ``rel``): ``run(sink)`` hands every
    dataset's batches to ``sink(dataset, batch)``; with ``rows``, each table's rows as dataset
    ``rows/<schema>.<table>``; with ``wal`` (or ``wal_dir``, an archive read instead of PGDATA/pg_wal), datasets
    ``wal_records`` and ``wal_blocks``. ``system_identifier`` and ``label`` name the snapshot."""

    def __init__(self, pgdata: str, db: str | None = None, rel: str | None = None, label: str | None = None,
                 rows: bool = False, wal: bool = False, wal_dir: str | None = None):
        from pgpage.passes.scan import ClusterScan
        arrow()
        self.pgdata, self.db, self.rel = pgdata, db, rel
        self.scan = scan = ClusterScan(pgdata, db, None, None, None, jobs=1, command="export")
        cluster = self.cluster = scan.cluster
        if rel is not None:
            if db is None and len(scan.plan) != 1:
                raise PgpageError("--rel names a relation of one database: give --db", ExitCode.USAGE)
            relation = scan.plan[0][0].relation(rel)
            scan.plan = [(relation.database, [relation])]
        if rows and len(scan.plan) > 1:
            raise PgpageError(f"--rows writes rows/<schema>.<table>.parquet of one database: give --db (this cluster"
                              f" has {', '.join(d.name for d, _ in scan.plan)})", ExitCode.USAGE)
        self.rows = rows
        self.wal, self.wal_dir = wal or wal_dir is not None, wal_dir   # (an archive implies the WAL)
        self.label = check_label(label) if label is not None else default_label(cluster)
        self.system_identifier = str((cluster.control or {}).get("system_identifier", "unknown"))
        self.total_blocks = scan.total_blocks

    @property
    def relations(self) -> list:
        return [r for _, rels in self.scan.plan for r in rels]

    def blocks_read(self, datasets=DATASETS) -> int:
        """The blocks ``run`` reports to ``on_blocks``: every fork's for verify's findings, and again for the
        scan's datasets (a progress bar's total)."""
        return self.total_blocks * ((self.rel is None and "findings" in datasets)
                                    + bool({"relations", "pages", "tuples"} & set(datasets)))

    def run(self, sink: Callable, datasets=DATASETS, on_blocks=None) -> list[Finding]:
        """Every dataset of ``datasets`` (and the rows, the WAL), to ``sink``; returns the findings of the rows' and
        the WAL's reading."""
        from pgpage.passes.scan import scan_relations
        cluster = self.cluster
        if "cluster" in datasets:
            sink("cluster", rows_batch("cluster", [cluster_row(cluster)]))
        rels = self.relations
        checksums = cluster.checksums

        def observe(rel, fork, first, chunk, failures, figures, visible, frozen):
            if "pages" in datasets:
                sink("pages", pages_batch(rel, first, chunk, failures, figures, visible, frozen, checksums))
            if "tuples" in datasets and figures is not None:
                sink("tuples", tuples_batch(rel, first, chunk, cluster))

        # verify's findings first: the B-trees' `index` figures come from its reading of them (by main fork)
        btree_figures: dict[tuple[str, str], dict] = {}

        def keep(fork, report):
            btree_figures[(str(fork.directory), fork.stem)] = {k: report[k] for k in INDEX_FIGURES}
        if "findings" in datasets:
            for batch in finding_batches(self.pgdata, self.db, self.rel, self.cluster,
                                         keep if "relations" in datasets else None, on_blocks):
                sink("findings", batch)
        btrees = [r for r in rels if r.access_method == "btree" and r.kind == "i" and r.forks.get("main") is not None]
        is_btree = {id(r) for r in btrees}
        for db, _ in self.scan.plan:   # the B-trees' columns in one read of pg_attribute
            db.prefetch_attributes(r.oid for r in btrees if r.database is db)
        wants_scan = {"relations", "pages", "tuples"} & set(datasets)
        entries = scan_relations(cluster, rels, deep=True, jobs=1, on_blocks=on_blocks, observe=observe) \
            if wants_scan else iter(())
        pending: list[dict] = []   # relations rows, written RELATIONS_BATCH at a time
        for rel, entry in zip(rels, entries):
            if "relations" in datasets:
                main = rel.forks.get("main")
                figures = (btree_figures.pop((str(main.directory), main.stem), None) or index_report(cluster, rel)) \
                    if id(rel) in is_btree else None
                pending.append(relation_row(entry, rel, figures))
                if len(pending) >= RELATIONS_BATCH:
                    sink("relations", rows_batch("relations", pending))
                    pending = []
        if pending:
            sink("relations", rows_batch("relations", pending))
        if "btree_items" in datasets:
            for rel in btrees:
                for batch in btree_item_batches(cluster, rel):
                    sink("btree_items", batch)
        late: list[Finding] = []    # the findings of the rows' and the WAL's reading, after verify's
        if self.rows:
            late += self.write_rows(sink)
        if self.wal:
            late += self.write_wal(sink)
        if "findings" in datasets and late:
            sink("findings", rows_batch("findings", [finding_row(f.to_json()) for f in late]))
        return late

    def write_wal(self, sink: Callable) -> list[Finding]:
        """The WAL's records and block references (``wal_batches``) of PGDATA/pg_wal or of ``wal_dir``; a WAL that
        cannot be read at all (no such directory) is a finding, and the rest of the export is still written."""
        from pgpage.passes.wal import WalWalk
        try:
            walk = WalWalk(self.pgdata, self.wal_dir)
        except PgpageError as e:
            return [Finding("export.wal.unreadable", f"WAL not written: {e}", severity=WARNING)]
        return wal_batches(walk, sink)

    def write_rows(self, sink: Callable) -> list[Finding]:
        """Each table's rows (outside the system schemas); a table whose rows cannot be read at all (its columns
        unreadable in pg_attribute) is a finding, and the others are still written."""
        from pgpage.passes.heap import SYSTEM_SCHEMAS
        findings: list[Finding] = []
        for rel in self.relations:
            if rel.kind in "rm" and rel.namespace not in SYSTEM_SCHEMAS:
                try:
                    table = utc_rows(self.cluster, rel)
                except PgpageError as e:
                    findings.append(Finding("export.rows.unreadable", f"rows not written: {e}",
                                            relation=f"{rel.database.name}.{rel.qualified_name}"))
                    continue
                findings += rows_batches(table, lambda batch, rel=rel: sink(f"rows/{rel.namespace}.{rel.name}",
                                                                            batch))
        return findings


# ------------------------------------------------------------------------------------------------ rows
def rows_batches(table, sink: Callable, typed: bool = True) -> list[Finding]:
    """The rows of ``table`` (a ``passes.rows.TableRows``, which says which versions and columns) to ``sink(batch)``,
    typed (``RowColumns``), about ROWS_BATCH rows a batch; returns the findings of the reading. The compiled
    printer writes the values of the columns it can as Arrow holds them (``RowColumns.typed``), and the rest as
    the text of `rows --csv`, read by Arrow's CSV reader (no Python object per value); the versions the printer
    leaves to Python come as their texts. ``typed`` False: every value as text (the path the typed one must equal,
    for the tests). The table should print times with zone in UTC (``RowOptions(timezone="UTC")``): Arrow reads
    every offset of that form."""
    pa = arrow()
    from pgpage.passes.rowsprint import TypedLines
    columns = RowColumns(table)
    texts, n, sunk = [], 0, False

    def give(batch) -> None:
        nonlocal sunk
        sink(batch)
        sunk = True

    def take_texts() -> None:    # the versions Python printed since the last batch, as one batch
        nonlocal n
        if texts:
            give(columns.batch(pa.concat_tables(texts)))
            texts.clear()
            n = 0

    stream = table.arrow_stream(columns.typed) if typed else table.csv_stream(system=True)
    for item in stream:
        if isinstance(item, TypedLines):   # (a run of a chunk's versions: one batch)
            take_texts()
            give(columns.typed_batch(item))
            continue
        texts.append(columns.csv_texts(item[0]) if isinstance(item, tuple) else columns.version_texts(item))
        n += texts[-1].num_rows
        if n >= ROWS_BATCH:
            take_texts()
    take_texts()
    if not sunk:
        sink(columns.batch(columns.version_texts(None)))
    return table.findings + columns.findings


def utc_rows(cluster, relation, all_versions: bool = False):
    """The ``TableRows`` of a table for ``rows_batches``: its live rows, or every version on disk."""
    from pgpage.passes.rows import RowOptions, TableRows
    return TableRows(cluster, relation, RowOptions(all_versions=all_versions, timezone="UTC"))


@lru_cache(maxsize=None)
def typed_kinds() -> dict:
    """The compiled printer's kinds whose values it writes as Arrow holds them (``arrow_value`` in
    decode/_values.c, which this table must follow): (the column's Arrow type and how ``RowColumns`` reads its
    text, the numpy type of the printer's values; None: bytes)."""
    pa = arrow()
    return {"bool": (pa.bool_(), "bool", bool), "int2": (pa.int16(), "cast", np.int16),
            "int4": (pa.int32(), "cast", np.int32), "int8": (pa.int64(), "cast", np.int64),
            "uint32": (pa.uint32(), "cast", np.uint32), "float4": (pa.float32(), "cast", np.float32),
            "float8": (pa.float64(), "cast", np.float64), "date": (pa.date32(), "cast", np.int32),
            "timestamp": (pa.timestamp("us"), "cast", np.int64),
            "timestamptz": (pa.timestamp("us", tz="UTC"), "cast", np.int64),
            "text": (pa.string(), "text", None), "name": (pa.string(), "text", None),
            "bytea": (pa.binary(), "bytea", None)}


class RowColumns:
    """A table's columns as typed Arrow columns: int, float, bool, decimal (numeric with a precision; text without:
    an unbounded numeric can hold 131072 digits, NaN and infinities), timestamp with zone (UTC), date, binary
    (bytea), JSON (text whose field says ``pgpage.type: json``, Arrow's JSON extension type where pyarrow has it),
    lists for arrays of those; the server's text for every other type. A value the Arrow type cannot hold (a date
    of infinity, a numeric NaN in a decimal column, an array of two dimensions or other lower bounds) is null there
    and counted in an ``export.value.not_representable`` finding per column."""

    def __init__(self, table):
        from pgpage.decode.values import python_converter
        self.table = table
        self.label = table.label
        fmt = table.formatter
        rows = {r["attname"]: r for r in table.relation.database.attributes(table.relation.oid)}
        self.names = table.column_names
        self.kinds = []       # per column: (Arrow type, how its text becomes a value)
        for _, a in table.columns:
            self.kinds.append(self._kind(fmt, a.typid, rows[a.name].get("atttypmod", -1), python_converter))
        self.unrepresentable = [0] * len(self.names)
        self.all_versions = table.options.all_versions
        # per column: whether the compiled printer writes its values as Arrow holds them (``typed_kinds``; a time
        # with zone when it prints them in UTC, as Arrow holds them)
        self.printed_kinds = table.csv_kinds()
        typed = typed_kinds()
        self.typed = [k in typed and (atype, how) == typed[k][:2] and (k != "timestamptz" or table.timezone == "UTC")
                      for k, (atype, how, _) in zip(self.printed_kinds, self.kinds)]

    def _kind(self, fmt, typid: int, typmod: int, python_converter):
        """(Arrow type, how its text becomes a value: 'cast' (Arrow's cast of the text) | 'bool' | 'bytea' | 'json' |
        'text' | 'list', and for a list (its text's reader, its elements' how, their Arrow type))."""
        pa = arrow()
        from pgpage.decode import datum
        kind, target = fmt.resolve(typid)
        if kind == "array" or (kind == "builtin" and (datum.TYPES.get(target) and datum.TYPES[target].elem
                                                       and target not in datum.VECTOR_TYPES)):
            from pgpage.decode.ksy.type_oids import BOXOID
            from pgpage.decode.values import array_items
            if kind == "array":
                t = fmt.catalog.get(target)
                elem, delim = t.typelem, t.typdelim or ","
            else:
                elem = datum.TYPES[target].elem
                delim = ";" if elem == BOXOID else ","
            etype, how, _ = self._kind(fmt, elem, -1, python_converter)
            if how == "json":   # (pyarrow builds no list of an extension type from Python values)
                etype = pa.string()
            # elements as Python values where the list holds them typed, else as the server's text
            convert = python_converter(fmt, elem) if how in ("cast", "bool") else (lambda text: text)
            return pa.list_(etype), "list", (lambda text: array_items(text, convert, delim), how, etype)
        if kind == "enum":
            return pa.string(), "text", None
        if kind != "builtin":
            return pa.string(), "text", None
        from pgpage.decode.ksy import type_oids as t
        scalar = {t.INT2OID: pa.int16(), t.INT4OID: pa.int32(), t.INT8OID: pa.int64(), t.OIDOID: pa.uint32(),
                  t.XIDOID: pa.uint32(), t.CIDOID: pa.uint32(), t.FLOAT4OID: pa.float32(), t.FLOAT8OID: pa.float64(),
                  t.DATEOID: pa.date32(), t.TIMESTAMPOID: pa.timestamp("us"),
                  t.TIMESTAMPTZOID: pa.timestamp("us", tz="UTC")}
        if target in scalar:
            return scalar[target], "cast", None
        if target == t.BOOLOID:
            return pa.bool_(), "bool", None
        if target == t.BYTEAOID:
            return pa.binary(), "bytea", None
        if target in (t.JSONOID, t.JSONBOID):
            return json_type(), "json", None
        if target == t.NUMERICOID and typmod >= 4:   # numeric(p, s): ((p << 16) | s) + VARHDRSZ
            precision, scale = ((typmod - 4) >> 16) & 0xFFFF, (typmod - 4) & 0x7FF
            if scale > 1023:   # a negative scale (15+), 11 bits two's complement
                scale -= 2048
            if scale < 0:      # Parquet's decimals have no negative scale: as many digits, scale 0
                precision, scale = precision - scale, 0
            if precision <= 38:
                return pa.decimal128(precision, scale), "cast", None
            if precision <= 76:
                return pa.decimal256(precision, scale), "cast", None
        return pa.string(), "text", None

    def schema(self):
        pa = arrow()
        # (where a version is as the tuples dataset says it, a join key with it: ints, not the ctid's text)
        sys_cols = [("blkno", pa.int64()), ("lp", pa.int32()), ("xmin", pa.int64()), ("xmax", pa.int64())]
        if self.all_versions:
            sys_cols += [("status", pa.string()), ("lp_off", pa.int32()), ("damage", pa.string())]
        return pa.schema([("schema_version", pa.int16()), *sys_cols,
                          *((n, k[0]) for n, k in zip(self.names, self.kinds))])

    def csv_texts(self, lines: bytes):
        """Lines of `rows --all --csv` (ctid, xmin, xmax, status, lp_off, damage, the columns; no header) as a table of
        texts (``csv_text_table``)."""
        return csv_text_table(lines, self.text_names)

    def version_texts(self, version):
        """A version the compiled printer left to Python (``passes.rows.RowVersion``; None: no row) as a table of
        texts."""
        pa = arrow()
        values = [] if version is None else [version.ctid, str(version.xmin), str(version.xmax), version.status,
                                             None if version.lp_off is None else str(version.lp_off),
                                             damage_text(version.damage),
                                             *version.values]
        return pa.table([pa.array(values[i:i + 1], pa.string()) for i in range(len(self.text_names))]
                        if version is not None else [pa.array([], pa.string()) for _ in self.text_names],
                        names=self.text_names)

    @property
    def text_names(self) -> list[str]:
        # (positions, not the table's names, which a column may share with a system column's)
        return [f"c{i}" for i in range(SYSTEM_TEXTS + len(self.names))]

    def batch(self, texts):
        """A record batch from a table of texts (``csv_texts``, ``version_texts``)."""
        import pyarrow.compute as pc
        pa = arrow()
        n = texts.num_rows
        cols = texts.columns
        ctid = pc.extract_regex(cols[0].combine_chunks(), r"^\((?P<blkno>\d+),(?P<lp>\d+)\)$")
        arrays = [pa.array(np.full(n, SCHEMA_VERSION, dtype=np.int16)), pc.cast(ctid.field("blkno"), pa.int64()),
                  pc.cast(ctid.field("lp"), pa.int32()), pc.cast(cols[1], pa.int64()).combine_chunks(),
                  pc.cast(cols[2], pa.int64()).combine_chunks()]
        if self.all_versions:
            arrays += [cols[3].combine_chunks(), pc.cast(cols[4], pa.int32()).combine_chunks(), cols[5].combine_chunks()]
        for i, (atype, how, conv) in enumerate(self.kinds):
            arrays.append(self._column(i, atype, how, conv, cols[SYSTEM_TEXTS + i].combine_chunks()))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema())

    def typed_batch(self, lines):
        """A record batch of a run of versions the printer took (``passes.rowsprint.TypedLines``): the system columns
        from the versions, the typed columns' values from the printer's (those it printed in the line, as their text
        is read), the other columns from the lines."""
        from pgpage.analysis.rowstatus import STATUS_NAMES
        pa = arrow()
        v = lines.versions
        n = len(v.start)
        arrays = [pa.array(np.full(n, SCHEMA_VERSION, dtype=np.int16)), numpy_arrow(v.block, pa.int64()),
                  numpy_arrow(v.item, pa.int32()), numpy_arrow(v.xmin, pa.int64()), numpy_arrow(v.xmax, pa.int64())]
        if self.all_versions:
            arrays += [pa.DictionaryArray.from_arrays(pa.array(v.status.astype(np.int32)),
                                                      pa.array(STATUS_NAMES, pa.string())).cast(pa.string()),
                       numpy_arrow(v.lp_off, pa.int32()), pa.nulls(n, pa.string())]
        # per column, whether the lines hold any of its values (every one of an untyped column, a typed one's that
        # the printer could not write typed)
        printed = [not typed or bool((lines.lengths[:, i] == -1).any()) for i, typed in enumerate(self.typed)]
        texts = csv_text_table(lines.text, [f"c{i}" for i in range(len(self.names))]).columns \
            if any(printed) else None
        for i, (atype, how, conv) in enumerate(self.kinds):
            strings = texts[i].combine_chunks() if printed[i] else None
            if not self.typed[i]:
                arrays.append(self._column(i, atype, how, conv, strings))
                continue
            column = self._typed_column(self.printed_kinds[i], atype, lines.values[:, i], lines.lengths[:, i],
                                        lines.data)
            if printed[i]:      # values it printed: their texts' (the others' fields are empty, NULL there)
                import pyarrow.compute as pc
                column = pc.if_else(pa.array(lines.lengths[:, i] == -1), self._column(i, atype, how, conv, strings),
                                    column)
            arrays.append(column)
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema())

    @staticmethod
    def _typed_column(kind: str, atype, values: np.ndarray, lengths: np.ndarray, data: np.ndarray):
        """One column of values as the printer wrote them (``kernels.CsvPrinter.values``, ``lengths``) as an Arrow
        array of ``atype``: NULL where it wrote none."""
        pa = arrow()
        dtype = typed_kinds()[kind][2]
        if dtype is None:    # text, bytea
            return buffer_strings(values, lengths, data, atype)
        n = len(values)
        valid = lengths >= 0
        validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
        # (what lies under a NULL is Arrow's to ignore, zeroed for tidiness; astype makes the one contiguous copy)
        values = np.where(valid, values, 0) if validity is not None else values
        if dtype is bool:
            body = np.packbits(values.astype(bool), bitorder="little")
        elif dtype in (np.float32, np.float64):   # (the bits)
            body = values.astype(np.uint32).view(np.float32) if dtype is np.float32 else \
                np.ascontiguousarray(values).view(np.float64)
        else:
            body = values.astype(dtype)
        return pa.Array.from_buffers(atype, n, [validity, pa.py_buffer(body)])

    def _column(self, i: int, atype, how: str, conv, strings):
        """One column's texts (an Arrow string array) as its Arrow type."""
        import pyarrow.compute as pc
        pa = arrow()
        if how == "text":
            return strings
        if how == "json":
            return pa.ExtensionArray.from_storage(atype, strings) if atype != pa.string() else strings
        if how == "bool":
            return pc.equal(strings, "t")
        if how == "bytea":
            return pa.array([None if v is None else bytes.fromhex(v[2:]) for v in strings.to_pylist()], pa.binary())
        if how == "list":
            convert, elem_how, etype = conv
            return pa.array([self._list_value(i, convert(v), elem_how, etype) if v is not None and
                             self._one_dimension(i, v) else None for v in strings.to_pylist()], atype)
        try:
            return pc.cast(strings, atype)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):   # one value or more it cannot hold: those null
            return pa.array([self._cast_one(i, v, atype) for v in strings.to_pylist()], atype)

    def _cast_one(self, i: int, text: str | None, atype):
        import pyarrow.compute as pc
        pa = arrow()
        if text is None:
            return None
        try:
            return pc.cast(pa.array([text]), atype)[0].as_py()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            self.unrepresentable[i] += 1
            return None

    def _one_dimension(self, i: int, text: str) -> bool:
        """Whether an array's text is one-dimensional with the default lower bound (a list can say so)."""
        if text.startswith("[") or text.startswith("{{"):
            self.unrepresentable[i] += 1
            return False
        return True

    def _list_value(self, i: int, items: list, how: str, etype):
        if how in ("bool", "text", "json"):
            return items
        return [None if v is None else self._element(i, v, etype) for v in items]

    def _element(self, i: int, v, etype):
        pa = arrow()
        try:
            pa.scalar(v, etype)
            return v
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
            self.unrepresentable[i] += 1
            return None

    @property
    def findings(self) -> list[Finding]:
        return [Finding("export.value.not_representable", f"column {name!r}: {n} values its Arrow type"
                        f" ({kind[0]}) cannot hold (infinity, NaN, BC dates, arrays of several dimensions or other"
                        " lower bounds) are null in the Parquet file; `rows --json` has them as text",
                        severity=WARNING, relation=self.label, actual=n)
                for name, kind, n in zip(self.names, self.kinds, self.unrepresentable) if n]


def json_type():
    """Arrow's canonical JSON extension type (string storage) where pyarrow has it, else string."""
    pa = arrow()
    return pa.json_(pa.string()) if hasattr(pa, "json_") else pa.string()


def relation_batches(dataset: str, target: str, db: str | None, rel: str | None, what: str) -> Callable:
    """``produce(sink)``: one relation's batches of ``dataset`` (`heap --parquet`: a table's ``tuples``, `index
    --parquet`: a B-tree's ``btree_items``) to ``sink(batch)``. The relation is named in a data directory (the
    verdicts need pg_xact, the keys the catalogs)."""
    from pgpage.findings import a_or_an
    from pgpage.storage.target import resolve
    t = resolve(target, db, rel, what=what)
    if t.relation is None or t.cluster is None:
        raise PgpageError(f"{target}: --parquet reads a {what} of a data directory: give the data directory with"
                          " --rel (and --db)", ExitCode.USAGE)
    relation = t.relation
    wanted = relation.kind in "rtm" if what == "table" else relation.access_method == "btree"
    if not wanted:
        raise PgpageError(f"{t.label} is {a_or_an(relation.kind_name)}, not a {'heap' if what == 'table' else 'B-tree'}",
                          ExitCode.USAGE)
    export = ClusterExport(str(t.cluster.path), relation.database.name, relation.qualified_name, label="file")

    def produce(sink: Callable) -> None:
        export.run(lambda name, batch: sink(batch), datasets=(dataset,))
    return produce


# ------------------------------------------------------------------------------------------------ Python API
def _collected(dataset: str, produce: Callable):
    """The batches of ``dataset`` that ``produce(sink)`` hands to its sink, as one Table."""
    pa = arrow()
    batches = []
    produce(lambda name, batch: batches.append(batch) if name == dataset else None)
    return pa.Table.from_batches(batches, schema=schema(dataset))


def _table(dataset: str, pgdata: str, db: str | None, rel: str | None, label: str | None = None):
    return _collected(dataset, lambda sink: ClusterExport(pgdata, db, rel, label=label or "api").run(
        sink, datasets=(dataset,)))


def cluster_table(pgdata: str):
    """The ``cluster`` dataset of a data directory as a ``pyarrow.Table`` (one row)."""
    return _table("cluster", pgdata, None, None)


def relations_table(pgdata: str, db: str | None = None, rel: str | None = None):
    """The ``relations`` dataset (every relation with storage, or one database's, or one relation) as a Table."""
    return _table("relations", pgdata, db, rel)


def pages_table(pgdata: str, db: str | None = None, rel: str | None = None):
    """The ``pages`` dataset (every main fork's pages, or one database's, or one relation's) as a Table."""
    return _table("pages", pgdata, db, rel)


def tuples_table(pgdata: str, db: str | None = None, rel: str | None = None):
    """The ``tuples`` dataset (every heap's line pointers, or one database's, or one table's) as a Table."""
    return _table("tuples", pgdata, db, rel)


def btree_items_table(pgdata: str, db: str | None = None, rel: str | None = None):
    """The ``btree_items`` dataset (every B-tree's items, or one database's, or one index's) as a Table."""
    return _table("btree_items", pgdata, db, rel)


def findings_table(pgdata: str, db: str | None = None, rel: str | None = None):
    """`verify`'s findings (the cluster's, one database's, one relation's) as a Table."""
    return _table("findings", pgdata, db, rel)


def _wal_table(dataset: str, pgdata: str, wal_dir: str | None):
    from pgpage.passes.wal import WalWalk
    return _collected(dataset, lambda sink: wal_batches(WalWalk(pgdata, wal_dir), sink))


def wal_records_table(pgdata: str, wal_dir: str | None = None):
    """The ``wal_records`` dataset (every record of PGDATA/pg_wal, or of the segments in ``wal_dir``) as a Table."""
    return _wal_table("wal_records", pgdata, wal_dir)


def wal_blocks_table(pgdata: str, wal_dir: str | None = None):
    """The ``wal_blocks`` dataset (every block reference of those records, relations named) as a Table."""
    return _wal_table("wal_blocks", pgdata, wal_dir)


def rows_table(pgdata: str, db: str | None, rel: str, all_versions: bool = False):
    """A table's rows (every version on disk with ``all_versions``) with typed columns, as a Table."""
    pa = arrow()
    from pgpage.passes.rows import open_table
    cluster, relation = open_table(pgdata, db, rel)
    batches = []
    rows_batches(utc_rows(cluster, relation, all_versions), batches.append)
    return pa.Table.from_batches(batches)
