"""The compiled whole-relation passes, loaded with ctypes.

They live in decode, the lowest tier, because decode itself calls them (``checksum``, ``catalog``, the
xid verdicts of ``xact``) as well as analysis and the passes do. They take page bytes and arrays and
return arrays: no file is opened here.

Why compiled: a whole-relation pass in numpy is many small array passes (decode the headers,
gather the line pointers, gather the tuple headers, look xids up in pg_xact, walk HOT chains in
lock step...), each touching every tuple again; at about 100 MB/s it was slower than
pg_filedump printing text. ``_heapscan.c`` reads each page once and computes, per page and per
tuple, everything ``HeapAnalysis`` and pgstattuple's figures need; Python keeps the bookkeeping
(findings, bins, merging). See the C files for the rules. The B-tree pass (``btree_items``, and
the table side of its heap TID check) is compiled for the same reason.

Why C and not numba: numba compiled the same loop, but its first run took 20-100 s of JIT on
this project's machines (and again whenever the source changed), and importing it cost about
0.5 s on every command, a third of a whole 2 GB scan. The C sources (``SOURCES``: the heap pass, the B-tree
pass, verify's sieves, the rows printer, the page dumper and the key order, each under 1,500 lines, with the
internal headers ``_kernel.h`` and ``_values.h`` and the generated ``ksy/pgp_layout.h``) are plain C99 without
Python.h, built by ``pip install .`` (setup.py) into this package as one shared library; its functions take
pointers and lengths, so ctypes is the whole binding.

The library is found (or built), loaded and its functions declared by ``clib``, which needs no numpy
(``wal --stats`` runs without it).

Every byte offset and bit field comes from ``decode/ksy/layouts.py`` (generated from the .ksy
files), passed to the C code as the ``layout`` array; the C code exports its index tables by name
(``COUNTERS``, ``EVENT_CODES``...), so no table is written twice.

Multixacts: the C code cannot ask pg_multixact itself. It takes the update xids of the
multixacts resolved so far (sorted keys and values) and lists the ones it was missing; the
caller resolves those and runs the chunk again (rare: only chunks with new multixacts).
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pgpage.decode.clib import lib
from pgpage.decode.ksy.constants import BT_OFFSET_MASK  # the most TIDs a posting list (or attributes a pivot) states
from pgpage.decode.ksy.layouts import LAYOUTS

MAX_LISTED = 50          # events of one code a chunk reports in full; the rest are only counted
MISSING_MULTIS = 4096    # multixacts a chunk lists as unresolved before it only counts them
EVENT_WIDTH = 5


def _names(which: int) -> tuple[str, ...]:
    return tuple(n for n in lib().pgp_names(which).decode().split(",") if n)


class _Tables:
    """The C code's index tables, by name (loaded on first use)."""

    def __getattr__(self, name):
        tables = {"COUNTERS": 0, "PAGE_COLUMNS": 1, "EVENT_CODES": 2, "PARAMS": 3, "BEST": 4, "LAYOUT": 5,
                  "BT_PAGE_COLUMNS": 7, "BT_TOTALS": 8, "BT_EVENT_CODES": 9, "CSV_KINDS": 10, "CSV_PARAMS": 11,
                  "ORDER_KINDS": 12, "TYPED_MODES": 13}
        if name not in tables:
            raise AttributeError(name)
        value = _names(tables[name])
        setattr(self, name, value)
        return value


TABLES = _Tables()


def index(table: str, name: str) -> int:
    return getattr(TABLES, table).index(name)


# ---------------------------------------------------------------------------------- layout
_LAYOUT_FIELDS = {
    "pd_checksum": ("pg_page::page_header", "pd_checksum", "u2"), "pd_flags": ("pg_page::page_header", "pd_flags", "u2"),
    "pd_lower": ("pg_page::page_header", "pd_lower", "u2"), "pd_upper": ("pg_page::page_header", "pd_upper", "u2"),
    "t_xmin": ("heap_tuple", "t_xmin", "u4"), "t_xmax": ("heap_tuple", "t_xmax", "u4"),
    "bi_hi": ("heap_tuple", "t_ctid.bi_hi", "u2"), "bi_lo": ("heap_tuple", "t_ctid.bi_lo", "u2"),
    "ip_posid": ("heap_tuple", "t_ctid.ip_posid", "u2"), "t_infomask2": ("heap_tuple", "t_infomask2", "u2"),
    "t_infomask": ("heap_tuple", "t_infomask", "u2"),
    "pd_special": ("pg_page::page_header", "pd_special", "u2"),
    "pd_pagesize_version": ("pg_page::page_header", "pd_pagesize_version", "u2"),
    "t_tid_bi_hi": ("nbtree::bt_index_tuple", "t_tid.bi_hi", "u2"),
    "t_tid_bi_lo": ("nbtree::bt_index_tuple", "t_tid.bi_lo", "u2"),
    "t_tid_ip_posid": ("nbtree::bt_index_tuple", "t_tid.ip_posid", "u2"),
    "t_info": ("nbtree::bt_index_tuple", "t_info", "u2"),
    "ptr_bi_hi": ("pg_page::item_pointer", "bi_hi", "u2"), "ptr_bi_lo": ("pg_page::item_pointer", "bi_lo", "u2"),
    "ptr_ip_posid": ("pg_page::item_pointer", "ip_posid", "u2"),
}


@lru_cache(maxsize=None)
def layout_array() -> np.ndarray:
    """The offsets and bit fields the C code reads, in its LAYOUT order, from layouts.py (checked against the
    kinds it reads them as)."""
    out = np.zeros(len(TABLES.LAYOUT), dtype=np.int64)
    for i, name in enumerate(TABLES.LAYOUT):
        if name in _LAYOUT_FIELDS:
            type_name, field, kind = _LAYOUT_FIELDS[name]
            off, actual = LAYOUTS[type_name]["fields"][field]
            if actual != kind:
                raise AssertionError(f"{type_name}.{field} is {actual}, the scanner reads {kind}")
            out[i] = off
        else:  # lp_off_shift, lp_off_mask, ...: ItemIdData's bit fields
            field, what = name[:-len("_shift")] if name.endswith("_shift") else name[:-len("_mask")], name.rsplit("_", 1)[1]
            off, (kind, shift, width) = LAYOUTS["pg_page::item_id"]["fields"][field]
            assert kind == "bits" and off == 0 and LAYOUTS["pg_page::item_id"]["size"] == 4
            out[i] = shift if what == "shift" else (1 << width) - 1
    return out


# ---------------------------------------------------------------------------------- calls
def _p(a: np.ndarray) -> int:
    """``a``'s data address. Only the address: an array made in the call's argument list (a conversion, a copy)
    is freed before the C code runs, so every argument array is bound to a name first."""
    return a.ctypes.data


class HeapChunkOutputs:
    """What ``heap_chunk`` fills for one chunk (fresh zeros each time)."""

    def __init__(self, npages: int):
        t = TABLES
        self.counters = np.zeros(len(t.COUNTERS), dtype=np.int64)
        self.page_out = np.zeros((npages, len(t.PAGE_COLUMNS)), dtype=np.int64)
        self.chain_hist = np.zeros(17, dtype=np.int64)
        self.best = np.full(len(t.BEST), -1, dtype=np.int64)
        self.best[t.BEST.index("chain_len")] = 0
        self.ev = np.zeros((len(t.EVENT_CODES), MAX_LISTED, EVENT_WIDTH), dtype=np.int64)
        self.ev_count = np.zeros(len(t.EVENT_CODES), dtype=np.int64)
        self.missing = np.zeros(MISSING_MULTIS, dtype=np.int64)


_scratch: np.ndarray | None = None


def heap_chunk(pages: np.ndarray, first_blkno: int, clog, multi_keys: np.ndarray, multi_values: np.ndarray,
               vm_visible: np.ndarray, vm_frozen: np.ndarray, fsm_category: np.ndarray, params: np.ndarray,
               out: HeapChunkOutputs) -> None:
    """One chunk of heap pages (uint8, C-contiguous, shape (n, BLCKSZ)) through ``pgp_heap_chunk``."""
    global _scratch
    L = lib()
    if _scratch is None:
        _scratch = np.zeros(L.pgp_scratch_size(), dtype=np.uint8)
    n, bs = pages.shape
    rc = L.pgp_heap_chunk(_p(pages), n, bs, first_blkno, _p(layout_array()), _p(clog.flat), _p(clog.seg_start),
                          _p(clog.seg_len), len(clog.seg_start), _p(multi_keys), _p(multi_values), len(multi_keys),
                          _p(vm_visible), _p(vm_frozen), _p(fsm_category), _p(params), _p(out.counters),
                          _p(out.page_out), _p(out.chain_hist), _p(out.best), _p(out.ev), MAX_LISTED,
                          _p(out.ev_count), _p(out.missing), MISSING_MULTIS, _p(_scratch))
    if rc != 0:
        raise ValueError(f"block size {bs} is not one PostgreSQL can have")


def fold_bins(bins: np.ndarray, nblocks: int, first_blkno: int, page_out: np.ndarray, vm_visible: np.ndarray,
              vm_frozen: np.ndarray, has_vm: bool) -> None:
    lib().pgp_fold_bins(_p(bins), bins.shape[1], nblocks, first_blkno, _p(page_out), page_out.shape[0],
                        _p(vm_visible), _p(vm_frozen), int(has_vm))


def checksum_pages(words: np.ndarray, blknos: np.ndarray, checksum_word: int, checksum_keep: int) -> np.ndarray:
    """pg_checksum_page per row of ``words`` (uint32, C-contiguous, shape (n, BLCKSZ / 4)); int64 block numbers."""
    n, nw = words.shape
    out = np.empty(n, dtype=np.uint16)
    lib().pgp_checksum_pages(_p(words), n, nw * 4, _p(blknos), checksum_word, checksum_keep, _p(out))
    return out


# pgp_verify_heap_sieve's parameters, in _verify.c's VP_ order
SIEVE_PARAMS = ("checksums", "checksum_word", "checksum_keep", "has_bounds", "next_full", "oldest_full",
                "relmin_full", "relnatts", "nblocks", "toast", "has_vm", "has_resolver", "t_field3", "t_hoff")


def verify_heap_sieve(pages: np.ndarray, first_blkno: int, params: dict, vm_visible: np.ndarray | None,
                      vm_frozen: np.ndarray | None, clog, attlen: np.ndarray | None = None,
                      attalign: np.ndarray | None = None) -> np.ndarray:
    """Per page of ``pages`` (uint8, C-contiguous, (n, BLCKSZ)): 1 where verify's heap rules could find something,
    0 where none can (see pgp_verify_heap_sieve). ``params``: SIEVE_PARAMS by name. ``attlen``, ``attalign``
    (bytes): the relation's columns, whose walk through each tuple (deform_one) is one of those rules."""
    n, bs = pages.shape
    vp = _i64([params[k] for k in SIEVE_PARAMS])
    vis = None if vm_visible is None else np.ascontiguousarray(vm_visible, dtype=np.uint8)
    frz = None if vm_frozen is None else np.ascontiguousarray(vm_frozen, dtype=np.uint8)
    out = np.ones(n, dtype=np.uint8)
    lib().pgp_verify_heap_sieve(_p(pages), n, bs, first_blkno, _p(layout_array()), _p(vp),
                                None if vis is None else _p(vis), None if frz is None else _p(frz), *clog.c_args,
                                _p(out), *_columns_args(attlen, attalign))
    return out


def _columns_args(attlen, attalign) -> tuple:
    if attlen is None or not len(attlen):
        return None, None, 0
    attlen, attalign = _i64(attlen), _i64(attalign)
    _columns_args.keep = (attlen, attalign)   # alive for the call
    return _p(attlen), _p(attalign), len(attlen)


def verify_btree_sieve(pages: np.ndarray, nlp: np.ndarray, params) -> np.ndarray:
    """Per index page (uint8, C-contiguous, (n, BLCKSZ)): 1 where verify's item rules could find something among
    its first ``nlp`` items, 0 where none can (see pgp_verify_btree_sieve). ``params``: heapkeyspace (-1: not
    known), natts, nkeyatts (-1: not known), BTMaxItemSize, BTMaxItemSizeNoHeapTid."""
    n, bs = pages.shape
    nlp, bp = _i64(nlp), _i64(params)
    out = np.ones(n, dtype=np.uint8)
    lib().pgp_verify_btree_sieve(_p(pages), n, bs, _p(layout_array()), _p(nlp), _p(bp), _p(out))
    return out


GIN_SIEVE_ORDER = {"not_sieved": -1, "none": 0, "bytes": 1, "int": 2}   # _gin.c: ORDER_* (-1: no entry leaf)
GIN_SIEVE_CHECK = {"entry_leaf": 1, "data_leaf": 2}                     # _gin.c: CHECK_*


def verify_gin_sieve(pages: np.ndarray, check: np.ndarray, nlp: np.ndarray, params) -> tuple[np.ndarray, ...]:
    """Per GIN page (uint8, C-contiguous, (n, BLCKSZ)), ``check`` saying what it is (GIN_SIEVE_CHECK, else 0):
    (0 where verify's per-page rules can find nothing on it, else 1; a passed posting tree leaf's greatest TID as
    an itemptr_to_uint64 value, 0 for none; a passed entry leaf's number of posting tree roots; a passed posting
    tree leaf's number of TIDs). See
    pgp_verify_gin_sieve. ``nlp``: each page's line pointers;
    ``params``: MaxOffsetNumber, MaxIndexTuplesPerPage, whether the index's columns are known, the key column's
    attlen and alignment in bytes, and the order to check (GIN_SIEVE_ORDER)."""
    n, bs = pages.shape
    check, nlp, gp = np.ascontiguousarray(check, dtype=np.uint8), _i64(nlp), _i64(params)
    out, max_tid = np.ones(n, dtype=np.uint8), np.zeros(n, dtype=np.uint64)
    roots, ntids = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    lib().pgp_verify_gin_sieve(_p(pages), n, bs, _p(layout_array()), _p(check), _p(nlp), _p(gp), _p(out),
                               _p(max_tid), _p(roots), _p(ntids))
    return out, max_tid, roots, ntids


def btree_order_pages(pages: np.ndarray, check: np.ndarray, spec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per index page (uint8, C-contiguous, (n, BLCKSZ)) with ``check`` set: (status 1 where every item is in
    order and within the high key, else 0; the smallest data item's line pointer number where 1). ``spec``: the
    key spec of _btorder.c (order.KeyOrder.cspec)."""
    n, bs = pages.shape
    status, low = np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.int64)
    check, spec = np.ascontiguousarray(check, dtype=np.uint8), _i64(spec)   # named: alive until the call is done
    lib().pgp_btree_order_pages(_p(pages), n, bs, _p(check), _p(spec), _p(status), _p(low))
    return status, low


BTREE_OPS = {"compare": 0, "less": 1, "less_equal": 2, "greater": 3, "identical": 4}  # _btorder.c: OP_*


def btree_relate_many(pool: np.ndarray, a: tuple, b: tuple, spec: np.ndarray, op: str,
                      start: int) -> tuple[np.ndarray, np.ndarray]:
    """``op`` of each pair of index tuples in ``pool`` (a = (offsets, lengths), b likewise): (results, readable),
    pgp_btree_relate_many's results and where the compiled code could read both tuples (elsewhere the result
    means nothing). ``start``: where "identical" starts comparing."""
    a_off, a_len, b_off, b_len = (_i64(x) for x in (*a, *b))
    spec = _i64(spec)
    out = np.empty(len(a_off), dtype=np.int64)
    lib().pgp_btree_relate_many(_p(pool), _p(a_off), _p(a_len), _p(b_off), _p(b_len), len(a_off),
                                _p(spec), BTREE_OPS[op], start, _p(out))
    return out, out != ctypes.c_int64.in_dll(lib(), "pgp_order_uncomparable").value


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def deform_offsets(chunk: np.ndarray, start, length, t_hoff, natts, hasnull, attlen: np.ndarray,
                   attalign: np.ndarray, toast_pointers: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``pgp_deform`` over tuples of ``chunk`` (uint8, C-contiguous; each tuple ``length`` bytes from byte
    ``start`` of the flat chunk): (ok, pos, len), the last two of shape (tuples, columns), pos from the tuple's
    start; where ok is False, deform.py must walk the tuple (one holding a TOAST pointer too, unless
    ``toast_pointers``: then an on-disk pointer is a value of 18 bytes)."""
    start, length, t_hoff, natts = _i64(start), _i64(length), _i64(t_hoff), _i64(natts)
    hasnull = np.ascontiguousarray(hasnull, dtype=np.uint8)
    n, ncols = len(start), len(attlen)
    ok = np.zeros(n, dtype=np.uint8)
    pos, lens = np.empty((n, ncols), dtype=np.int64), np.empty((n, ncols), dtype=np.int64)
    lib().pgp_deform(_p(chunk), n, _p(start), _p(length), _p(t_hoff), _p(natts), _p(hasnull), _p(attlen),
                     _p(attalign), ncols, int(toast_pointers), _p(ok), _p(pos), _p(lens))
    return ok.astype(bool), pos, lens


CSV_BUFFER = 1 << 22     # bytes of CSV text a call of pgp_csv_rows writes at most (a chunk's lines, mostly)


@dataclass
class JsonRecords:
    """What ``CsvPrinter`` needs to write ``rows --json`` records: the xid verdicts' names by index, the index of
    the status "updated" (whose record names its successor), and each printed column's key as JSON writes it
    (``"name":``)."""
    xid_states: list[str]
    updated: int
    keys: list[str]


class CsvPrinter:
    """``pgp_csv_rows`` for one table: the relation's attributes (``attlen``, ``attalign``, dropped ones
    included), the printed ones (``cols``) and how each is printed (``kinds``: names from CSV_KINDS), the
    session's time zone (``zone``: see ``zone_array``), the row statuses' names (``statuses``, for ``system``:
    ctid, xmin, xmax and status first), the server's major (numeric's infinities), whether the line has one field
    (``\\.`` is then quoted); ``index_tuples``: the tuples are B-tree leaf tuples (their start, key data length,
    t_hoff 8 or 16, INDEX_NULL_MASK), not heap tuples. ``lines`` prints tuples of a chunk into a buffer kept from
    call to call. With ``json`` (a ``JsonRecords``), each line is instead the tuple's ``rows --json`` record.
    ``nested``: for each column (its position in ``kinds``) of kind "array", its elements' kind name, typlen,
    alignment in bytes, delimiter (an int) and type oid; of kind "range" or "multirange", its bounds' kind name,
    typlen, alignment in bytes, 0 and the type oid each value must store (0: any). ``enum_labels``: pg_enum's
    labels by oid (kind "enum"). With ``copy_text``, each line is instead COPY's text format (`pgpage dump`):
    tab-separated, ``\\N`` for NULL, values escaped as CopyAttributeOutText does (no system columns).

    ``typed`` (CSV lines): per printed column, whether its values are written as Arrow holds them where they can be
    (``arrow_value`` in _values.c): after ``lines``, ``values`` and ``lengths`` (tuples, printed columns) say each
    one (``lengths`` -2: NULL, -1: printed in the line, else the value is ``values``, or for text and bytea
    ``lengths`` bytes at ``values`` of ``data``), its field in the line left empty. ``typed`` "text" for a column
    (its index in ``TABLES.TYPED_MODES``): its values' texts, not quoted, written the same way (``lengths`` -2:
    NULL; a value the printer cannot print declines the tuple)."""

    def __init__(self, attlen, attalign, cols, kinds: list[str], zone: np.ndarray, statuses: list[str],
                 system: bool, major: int | None, single_column: bool, buffer_size: int | None = None,
                 index_tuples: bool = False, json: "JsonRecords | None" = None, nested: dict | None = None,
                 enum_labels: dict[int, str] | None = None, copy_text: bool = False, typed: list[bool] | None = None):
        self.attlen, self.attalign = _i64(attlen), _i64(attalign)
        self.typed = _i64(typed) if typed is not None else None
        self.values = self.lengths = None
        # (a value's bytes are never more than its text's: a line whose text fits, fits here too)
        self.data = np.empty(buffer_size or CSV_BUFFER, dtype=np.uint8) if typed is not None else np.zeros(1, np.uint8)
        self.cols = _i64(cols)
        self.kinds = _i64([TABLES.CSV_KINDS.index(k) for k in kinds])
        oids = sorted(enum_labels or {})
        labels = [enum_labels[k].encode("utf-8", "surrogatepass") for k in oids]
        self.enums = _i64([len(oids), *oids, *np.cumsum([0] + [len(b) for b in labels])])
        self.labels = np.frombuffer(b"".join(labels) or b"\0", dtype=np.uint8)
        # per printed column of an array or range kind: its elements' or bounds' (kind, typlen, alignment, ...)
        self.extra = _i64([[TABLES.CSV_KINDS.index(nested[c][0]), *nested[c][1:]] if nested and c in nested
                           else [0] * 5 for c in range(len(kinds))] or [[0] * 5])
        self.zone = _i64(zone)
        texts = [s.encode("ascii") for s in statuses]
        if json is not None:
            texts += [s.encode("ascii") for s in json.xid_states] + [k.encode("utf-8") for k in json.keys]
        text = b"".join(texts)
        self.status_text = np.frombuffer(text, dtype=np.uint8).copy() if text else np.zeros(1, dtype=np.uint8)
        self.status_off = _i64(np.cumsum([0] + [len(s) for s in texts]))
        self.nstatus = len(statuses)
        self.system = system
        self.sys_rows = 11 if json is not None else 6   # (CSV: block, item, xmin, xmax, status, lp_off)
        self.params = np.zeros(len(TABLES.CSV_PARAMS), dtype=np.int64)
        self.params[TABLES.CSV_PARAMS.index("major")] = major or 0
        self.params[TABLES.CSV_PARAMS.index("single_column")] = int(single_column)
        self.params[TABLES.CSV_PARAMS.index("system")] = int(system)
        self.params[TABLES.CSV_PARAMS.index("index_tuples")] = int(index_tuples)
        self.params[TABLES.CSV_PARAMS.index("copy_text")] = int(copy_text)
        if json is not None:
            self.params[TABLES.CSV_PARAMS.index("json")] = 1
            self.params[TABLES.CSV_PARAMS.index("json_nxid")] = len(json.xid_states)
            self.params[TABLES.CSV_PARAMS.index("json_updated")] = json.updated
        self.out = np.empty(buffer_size or CSV_BUFFER, dtype=np.uint8)

    def lines(self, flat: np.ndarray, start, length, t_hoff, natts, hasnull, sys=None, given=None, toasted=None
              ) -> tuple[int, np.ndarray, np.ndarray]:
        """CSV lines of the tuples of ``flat`` (uint8, C-contiguous: a chunk's pages) at ``start`` (``length``
        bytes, with their t_hoff, natts, HEAP_HASNULL), and with ``system`` ``sys``: rows block, item, xmin,
        xmax, status index, then lp_off (with ``json`` instead the xids' verdict indexes, t_ctid's block and
        offset, t_infomask and t_infomask2); ``given``: (UTF-8 text, start, length) of the columns of kind "given", Python's texts
        (``TableRows._given_texts``); ``toasted``: (bytes, start, length), start and length of shape (tuples, printed
        columns), the values of TOAST pointers, fetched by Python (``TableRows._toasted_values``). Returns (done,
        ends, ok): the first ``done`` tuples were handled (fewer than
        all when the buffer filled: call again with the rest), each tuple's line ending at ``out[ends[i]]``, or
        declined (ok False: nothing written, Python prints it)."""
        start, length, t_hoff, natts = _i64(start), _i64(length), _i64(t_hoff), _i64(natts)
        hasnull = np.ascontiguousarray(hasnull, dtype=np.uint8)
        n = len(start)
        sys = _i64(sys) if self.system else np.zeros((self.sys_rows, 1), dtype=np.int64)
        ends, ok = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint8)
        if given is None:
            given = np.zeros(1, dtype=np.uint8), np.zeros((n, 0), dtype=np.int64), np.zeros((n, 0), dtype=np.int64)
        text, gstart, glen = given
        ngiven = gstart.shape[1]
        tdata, tstart, tlen = toasted if toasted is not None else (np.zeros(1, dtype=np.uint8), np.zeros(1, np.int64),
                                                                   np.zeros(1, np.int64))
        shape = (n, len(self.cols)) if self.typed is not None else (1, 1)
        values, lengths = np.empty(shape, dtype=np.int64), np.full(shape, -1, dtype=np.int64)   # (-1: not typed)
        done = lib().pgp_csv_rows(_p(flat), flat.size, n, _p(start), _p(length), _p(t_hoff), _p(natts), _p(hasnull),
                                  _p(self.attlen), _p(self.attalign), len(self.attlen), _p(self.cols),
                                  _p(self.kinds), _p(self.extra), len(self.cols), _p(sys), _p(self.status_text),
                                  _p(self.status_off), self.nstatus, _p(self.zone), _p(self.params), _p(text),
                                  _p(gstart), _p(glen), ngiven, _p(self.enums), _p(self.labels),
                                  int(toasted is not None), _p(tdata), _p(tstart), _p(tlen),
                                  _p(self.typed) if self.typed is not None else 0, _p(values), _p(lengths),
                                  _p(self.data), len(self.data), _p(self.out), len(self.out), _p(ends), _p(ok))
        if self.typed is not None:
            self.values, self.lengths = values[:done], lengths[:done]
        return int(done), ends[:done], ok[:done].astype(bool)


TID_TEXT_BYTES = 44    # "(", two int64s of at most 20 digits and a sign, ",", ")"


def tid_texts(block, offset) -> tuple[np.ndarray, np.ndarray]:
    """``(block,offset)`` texts of two integer arrays as Arrow lays out strings: (the bytes, int32 offsets)."""
    block, offset = _i64(block), _i64(offset)
    n = len(block)
    if n * TID_TEXT_BYTES >= 1 << 31:
        raise ValueError("tid_texts: more TIDs than int32 offsets can hold")
    out, offsets = np.empty(n * TID_TEXT_BYTES, dtype=np.uint8), np.empty(n + 1, dtype=np.int32)
    lib().pgp_tid_texts(_p(block), _p(offset), n, _p(out), _p(offsets))
    return out[:int(offsets[-1])], offsets


def line_hashes(buf: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A 64-bit hash (int64) of each line of ``buf`` (uint8) one after the other from its start, line i ending at
    ``ends[i]`` (``CsvPrinter.lines``' ends)."""
    buf, ends = np.ascontiguousarray(buf, dtype=np.uint8), _i64(ends)
    out = np.empty(len(ends), dtype=np.int64)
    lib().pgp_line_hashes(_p(buf), _p(ends), len(ends), _p(out))
    return out


def hot_roots(pages: np.ndarray) -> np.ndarray:
    """For heap ``pages`` (n, block size): [page, offset - 1] -> the offset of the root of the HOT chain that
    reaches the heap-only tuple there (int16), 0 where none does (``pgp_hot_roots``)."""
    pages = np.ascontiguousarray(pages, dtype=np.uint8)
    n, bs = pages.shape
    stride = (bs - 24) // 4
    out = np.empty((n, stride), dtype=np.int16)
    lib().pgp_hot_roots(_p(pages), n, bs, _p(layout_array()), stride, _p(out))
    return out


def zone_array(ats=(), offs=(), rule_ats=(), rule_offs=(), fixed: int | None = None, default: int = 0,
               rule_std: int = 0) -> np.ndarray:
    """A time zone as pgp_csv_rows reads it (see Zone in the C file): explicit transitions (Unix seconds) and the
    offset from each (seconds east), the offset before them, the footer rule's transitions over 400 years from
    1970 and the offset before its first; or one fixed offset."""
    head = [len(ats), len(rule_ats), int(fixed is not None), fixed or 0, default, rule_std]
    return _i64([*head, *ats, *offs, *rule_ats, *rule_offs])


def clog_states(xids, clog) -> np.ndarray:
    xids = _i64(xids)
    out = np.empty(len(xids), dtype=np.int8)
    lib().pgp_clog_states(_p(xids), len(xids), _p(out), *clog.c_args)
    return out


def xmin_states(infomask, xmin, clog) -> tuple[np.ndarray, np.ndarray]:
    im, xmin = _i64(infomask), _i64(xmin)
    state, hinted = np.empty(len(xmin), dtype=np.int8), np.empty(len(xmin), dtype=np.bool_)
    lib().pgp_xmin_states(_p(im), _p(xmin), len(xmin), _p(state), _p(hinted), *clog.c_args)
    return state, hinted


def xmax_needs_multi(infomask, xmax) -> np.ndarray:
    im, xmax = _i64(infomask), _i64(xmax)
    out = np.empty(len(xmax), dtype=np.bool_)
    lib().pgp_xmax_needs_multi(_p(im), _p(xmax), len(xmax), _p(out))
    return out


def xmax_locked_only(infomask) -> np.ndarray:
    im = _i64(infomask)
    out = np.empty(len(im), dtype=np.bool_)
    lib().pgp_xmax_locked_only(_p(im), len(im), _p(out))
    return out


def xmax_states(infomask, xmax, update_xid, has_resolver: bool, clog) -> tuple[np.ndarray, np.ndarray]:
    im, xmax, upd = _i64(infomask), _i64(xmax), _i64(update_xid)
    state, hinted = np.empty(len(xmax), dtype=np.int8), np.empty(len(xmax), dtype=np.bool_)
    lib().pgp_xmax_states(_p(im), _p(xmax), _p(upd), len(xmax), int(has_resolver), _p(state), _p(hinted),
                          *clog.c_args)
    return state, hinted




class BtreeItemsOutputs:
    """What ``btree_items`` fills for one chunk of index pages. The buffers are kept from chunk to chunk (their
    addresses too: ctypes' conversions cost more than some chunks' work) and grow when a chunk needs more rows;
    the arrays handed out (``tids``, ``events``...) are views, valid until the next call."""

    def __init__(self, block_size: int):
        t = TABLES
        self.totals = np.zeros(len(t.BT_TOTALS), dtype=np.int64)
        self.posting_hist = np.zeros(BT_OFFSET_MASK + 1, dtype=np.int64)
        self.natts_hist = np.zeros(BT_OFFSET_MASK + 2, dtype=np.int64)  # [natts + 1]; [0]: no count
        self.size_hist = np.zeros(block_size, dtype=np.int64)
        self.total_index = {name: i for i, name in enumerate(t.BT_TOTALS)}
        self.page_out = np.zeros((0, len(t.BT_PAGE_COLUMNS)), dtype=np.int64)
        self.posting = np.zeros((0, 5), dtype=np.int64)    # scratch: the posting lists of the chunk
        self.downlinks = np.zeros((0, 3), dtype=np.int64)
        self.ev = np.zeros((256, 8), dtype=np.int64)
        self._tid_buffers(1 << 16)

    def _tid_buffers(self, n: int) -> None:
        # (BlockNumber and OffsetNumber wide: 13 bytes a TID, written and read back once for each of millions)
        self.tid_blk, self.tid_off = np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.uint16)
        self.tid_iblk, self.tid_item = np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.uint16)
        self.tid_dead = np.zeros(n, dtype=np.bool_)
        self.pointers = None

    def grow(self, pages: int = 0, items: int = 0, tids: int = 0, events: int = 0) -> None:
        """Room for at least this many pages, items (posting lists, downlinks), heap TIDs and events."""
        if pages > len(self.page_out):
            self.page_out = np.zeros((pages, self.page_out.shape[1]), dtype=np.int64)
            self.pointers = None
        if items > len(self.posting):
            self.posting = np.zeros((items, 5), dtype=np.int64)
            self.downlinks = np.zeros((items, 3), dtype=np.int64)
            self.pointers = None
        if tids > len(self.tid_blk):
            self._tid_buffers(tids)
        if events > len(self.ev):
            self.ev = np.zeros((events, 8), dtype=np.int64)
            self.pointers = None
        if self.pointers is None:  # pgp_btree_items' output arguments
            self.pointers = (_p(self.page_out), _p(self.totals), _p(self.posting_hist), _p(self.natts_hist),
                             _p(self.size_hist), _p(self.downlinks), len(self.downlinks), _p(self.tid_blk),
                             _p(self.tid_off), _p(self.tid_iblk), _p(self.tid_item), _p(self.tid_dead),
                             len(self.tid_blk), _p(self.ev), len(self.ev), _p(self.posting), len(self.posting))

    def total(self, name: str) -> int:
        return int(self.totals[self.total_index[name]])

    def tids(self) -> tuple[np.ndarray, ...]:
        """(block, offset, and the index block, item, LP_DEAD of the item holding it) of the valid heap TIDs, in
        findings order."""
        n = self.total("heap_tids")
        return self.tid_blk[:n], self.tid_off[:n], self.tid_iblk[:n], self.tid_item[:n], self.tid_dead[:n]

    def events(self) -> np.ndarray:
        """Rows (code, block, item, a, b, c, d, e), ordered by code (BT_EVENT_CODES), then by item."""
        ev = self.ev[:self.total("events")]
        return ev[np.argsort(ev[:, 0], kind="stable")]


def btree_items(pages: np.ndarray, first_blkno: int, page_in: np.ndarray, can_post: bool, maxoff: int,
                out: BtreeItemsOutputs) -> None:
    """Every item of a chunk of B-tree pages (uint8, C-contiguous, (n, BLCKSZ)) through ``pgp_btree_items``;
    ``page_in``: int64 rows (mode bits, line pointers to read, pd_special), see the C file."""
    n, bs = pages.shape
    # no more posting lists, downlinks or plain TIDs than line pointers
    out.grow(pages=n, items=int(page_in[:, 1].sum()))
    while True:
        rc = lib().pgp_btree_items(_p(pages), n, bs, first_blkno, _p(layout_array()), _p(page_in), int(can_post),
                                   maxoff, *out.pointers)
        if rc != 0:
            raise AssertionError("pgp_btree_items: posting scratch too small")
        ntids, nev = out.total("heap_tids"), out.total("events")
        if ntids <= len(out.tid_blk) and nev <= len(out.ev):
            return
        # posting lists hold more TIDs, or a damaged chunk more events, than the buffers: grow, run it again
        out.grow(tids=2 * ntids, events=2 * nev)


def heap_lp_states(pages: np.ndarray, rows: np.ndarray, slots: np.ndarray, cache) -> None:
    """Table pages ``pages[rows]`` into HeapTidCheck ``cache``'s rows ``slots``."""
    rows, slots = _i64(rows), _i64(slots)
    lib().pgp_heap_lp_states(_p(pages), len(rows), pages.shape[1], _p(rows), _p(layout_array()), _p(slots),
                             *cache.c_args)


def heap_lp_states_read(fd: int, offset: int, wanted: np.ndarray, first_slot: int, cache, buf: np.ndarray) -> int:
    """``len(wanted)`` consecutive table blocks read from ``fd`` at byte ``offset`` (one segment file) through
    ``buf`` (uint8, C-contiguous, whole blocks), those ``wanted`` (bool) into HeapTidCheck ``cache``'s rows from
    ``first_slot`` on: the blocks read (fewer at the file's end). Raises OSError."""
    bs = cache.block_size
    wanted = np.ascontiguousarray(wanted, dtype=np.uint8)
    got = lib().pgp_heap_lp_states_read(fd, offset, len(wanted), bs, _p(wanted), _p(layout_array()), first_slot,
                                        *cache.c_args, _p(buf), buf.nbytes // bs)
    if got < 0:
        raise OSError(-got, os.strerror(-got))
    return got


def tid_verdicts(blk: np.ndarray, off: np.ndarray, dead: np.ndarray, lo: int, hi: int, cache, out: np.ndarray,
                 counts: np.ndarray, counts_dead: np.ndarray) -> np.ndarray:
    """``pgp_tid_verdicts`` over HeapTidCheck ``cache``'s arrays, for the TIDs into its window of table
    blocks lo..hi-1 (marked in ``cache.needed``): the blocks whose page is bad, each once per time it was
    cached."""
    blk, off = np.ascontiguousarray(blk, dtype=np.uint32), np.ascontiguousarray(off, dtype=np.uint16)
    dead = np.ascontiguousarray(dead, dtype=np.bool_)
    bad_blocks = np.empty(hi - lo, dtype=np.int64)
    nbad = np.zeros(1, dtype=np.int64)
    lib().pgp_tid_verdicts(_p(blk), _p(off), _p(dead), len(blk), lo, hi, *cache.c_args, _p(out), _p(counts),
                           _p(counts_dead), _p(cache.needed), _p(bad_blocks), _p(nbad))
    return bad_blocks[:int(nbad[0])]


def unique_blocks(blk: np.ndarray, lo: int, hi: int, bits: np.ndarray) -> np.ndarray:
    """The distinct values of ``blk`` in lo..hi-1, ascending (``bits``: a zeroed uint64 bitmap of hi - lo
    bits, left zeroed)."""
    blk = np.ascontiguousarray(blk, dtype=np.uint32)
    out = np.empty(len(blk), dtype=np.int64)
    k = lib().pgp_unique_blocks(_p(blk), len(blk), lo, hi, _p(bits), _p(out))
    return out[:k]


def gather(src: np.ndarray, start: np.ndarray, length: np.ndarray, dst: np.ndarray, to: np.ndarray) -> None:
    """``dst[to[k]:to[k] + length[k]] = src[start[k]:start[k] + length[k]]`` for every k (contiguous uint8 arrays)."""
    start, length, to = _i64(start), _i64(length), _i64(to)
    if len(start) and not ((start >= 0) & (to >= 0) & (length >= 0) & (start + length <= src.size)
                           & (to + length <= dst.size)).all():
        raise ValueError("gather: a range outside its array")
    lib().pgp_gather(_p(src), _p(start), _p(length), len(start), _p(dst), _p(to))


def walk_chain(nxt: np.ndarray, live: np.ndarray, level: np.ndarray, lv: int, start: int, visited: np.ndarray,
               order: np.ndarray) -> tuple[int, int]:
    """``pgp_walk_chain``: (the chain's length, the block it came back to or -1)."""
    cycle = np.zeros(1, dtype=np.int64)
    k = lib().pgp_walk_chain(_p(nxt), _p(live), _p(level), len(nxt), lv, start, _p(visited), _p(order), _p(cycle))
    return k, int(cycle[0])


def warm() -> None:
    """Load (or build) the library now: before forking workers, and to time it."""
    lib()
    TABLES.COUNTERS, TABLES.EVENT_CODES, TABLES.PAGE_COLUMNS, TABLES.BEST, TABLES.PARAMS  # noqa: B018
    layout_array()


SIEVE_CHECK = {"leaf": 1, "inner": 2}   # _amindex.c: CHECK_* (an internal GiST page is an inner one)


def verify_gist_sieve(pages: np.ndarray, check: np.ndarray, nlp: np.ndarray, params) -> tuple[np.ndarray, ...]:
    """Per GiST page (uint8, C-contiguous, (n, BLCKSZ)), ``check`` saying what it is (SIEVE_CHECK, else 0):
    (True where verify's per-page rules can find nothing on it; the union of its box keys, (n, 4) float64; where
    that union is). See pgp_verify_gist_sieve. ``params``: the tuple space's end, MaxOffsetNumber, whether the
    keys are boxes, an internal tuple's t_tid offset."""
    n, bs = pages.shape
    check, nlp, gp = np.ascontiguousarray(check, dtype=np.uint8), _i64(nlp), _i64(params)
    clean, has_union = np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.uint8)
    unions = np.zeros((n, 4), dtype=np.float64)
    lib().pgp_verify_gist_sieve(_p(pages), n, bs, _p(layout_array()), _p(check), _p(nlp), _p(gp), _p(clean),
                                _p(unions), _p(has_union))
    return clean.astype(bool), unions, has_union.astype(bool)


def verify_spgist_sieve(pages: np.ndarray, check: np.ndarray, nlp: np.ndarray, counts: np.ndarray,
                        params) -> tuple[np.ndarray, np.ndarray]:
    """Per SP-GiST page (uint8, C-contiguous, (n, BLCKSZ)), ``check`` saying what it is (SIEVE_CHECK, else 0),
    ``counts`` its opaque's (nRedirection, nPlaceholder): (True where verify's per-page rules can find nothing on
    it; the links of those pages, one row each: page in the chunk, item, block, offset, 1 for a redirect, in page
    and item order). See pgp_verify_spgist_sieve; ``params``: its SG_ order."""
    n, bs = pages.shape
    check, nlp, counts, sp = (np.ascontiguousarray(check, dtype=np.uint8), _i64(nlp), _i64(counts), _i64(params))
    # a leaf's links are its redirect tuples (one a line pointer at most), an inner page's its tuples' nodes (8
    # bytes of tuple space each at least)
    per_inner = bs // LAYOUTS["nbtree::bt_index_tuple"]["size"]
    cap = int(nlp[check == SIEVE_CHECK["leaf"]].sum()) + int((check == SIEVE_CHECK["inner"]).sum()) * per_inner
    clean, nlinks = np.zeros(n, dtype=np.uint8), np.zeros(n, dtype=np.int64)
    links = np.empty((cap, 4), dtype=np.int64)
    lib().pgp_verify_spgist_sieve(_p(pages), n, bs, _p(layout_array()), _p(check), _p(nlp), _p(counts), _p(sp),
                                  _p(clean), _p(links), cap, _p(nlinks))
    page = np.repeat(np.arange(n), nlinks)      # (in page and item order)
    return clean.astype(bool), np.column_stack([page, links[:len(page)]])


LP_COUNT_COLUMNS = ("normal", "dead", "other", "normal_bytes", "dead_bytes", "other_bytes",
                    "state0", "state1", "state2", "state3")    # _amindex.c: LC_*


def lp_counts(pages: np.ndarray, nlp: np.ndarray, state_shift: int = 0, state_mask: int = 3) -> np.ndarray:
    """Per page (uint8, C-contiguous, (n, BLCKSZ)): its first ``nlp`` line pointers counted by state, LP_COUNT_COLUMNS
    (see pgp_lp_counts), int64 (n, len(LP_COUNT_COLUMNS))."""
    n, bs = pages.shape
    nlp = _i64(nlp)
    out = np.empty((n, len(LP_COUNT_COLUMNS)), dtype=np.int64)
    lib().pgp_lp_counts(_p(pages), n, bs, _p(layout_array()), _p(nlp), state_shift, state_mask, _p(out))
    return out


def hash_sieve(pages: np.ndarray, check: np.ndarray, nlp: np.ndarray, bucket: np.ndarray, params) -> np.ndarray:
    """Per hash page (uint8, C-contiguous, (n, BLCKSZ)) with ``check``: True where its whole tuples' hash codes
    ascend and each maps to ``bucket`` (see pgp_hash_sieve; ``params``: its HP_ order)."""
    n, bs = pages.shape
    check, nlp, bucket, hp = np.ascontiguousarray(check, dtype=np.uint8), _i64(nlp), _i64(bucket), _i64(params)
    passed = np.zeros(n, dtype=np.uint8)
    lib().pgp_hash_sieve(_p(pages), n, bs, _p(layout_array()), _p(check), _p(nlp), _p(bucket), _p(hp), _p(passed))
    return passed.astype(bool)
