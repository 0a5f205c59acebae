"""What is known about the fork being verified (``VerifyContext``): pg_control's transaction horizon,
pg_class's, pg_xact and pg_multixact, the relation's columns. Unknown facts are None and skip the rules
that need them. Every rule words its findings through ``VerifyContext.finding``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pgpage.decode.xact import ClogArray
from pgpage.findings import ERROR, Finding


@dataclass
class VerifyContext:
    """What is known about the fork being verified. Unknown facts are None and skip their rules."""

    relation: str | None = None
    fork: str = "main"
    block_size: int = 8192
    major: int | None = None
    checksums: bool | None = None          # data checksums on/off per pg_control; None: unknown
    consistent: bool = True                # clean shutdown (or unknown): cross-file rules are errors
    # transaction horizon (pg_control's checkpoint, pg_class)
    next_full_xid: int | None = None
    oldest_xid: int | None = None
    relfrozenxid: int | None = None
    next_multi: int | None = None
    oldest_multi: int | None = None
    relminmxid: int | None = None
    # on a cluster not shut down cleanly, ids handed out since the checkpoint pg_control describes, as far as
    # pg_xact's and pg_multixact/offsets' pages on disk reach: a full xid and a multixact id, both exclusive
    xid_reach: int | None = None
    multi_reach: int | None = None
    # commit status
    clog: ClogArray | None = None
    multi_update_xid: Callable | None = None
    # the relation
    relnatts: int | None = None
    nblocks: int | None = None              # blocks of the main fork (ctid and VM rules)
    expected_special: int = 0               # special space size of a heap page (8 for sequences)
    # TOAST pointers: the table's columns (deform Attributes, asked for only when a tuple has an
    # external value), its reltoastrelid and whether pg_class holds that TOAST relation
    columns: Callable[[], list | None] | None = None
    toast_oid: int | None = None
    toast_exists: bool = False
    # the TOAST relation's chunks of a value: va_valueid -> (chunk_seq, chunk_data size or a
    # negative TOAST_CHUNK_* code) in chunk_seq order; None: not checked (no TOAST relation to read)
    toast_chunks: Callable[[int], tuple] | None = None
    # of many values at once (va_valueid, va_extsize arrays): whether chunk_problems would find nothing (False
    # where it cannot say: those are looked at one by one); None: every value is looked at one by one
    toast_chunks_clean: Callable | None = None
    toast_max_chunk: int = 1996             # TOAST_MAX_CHUNK_SIZE (pg_control)

    def finding(self, code: str, message: str, block: int | None = None, item: int | None = None,
                severity: str = ERROR, expected=None, actual=None, fork: str | None = None,
                attnum: int | None = None) -> Finding:
        return Finding(code, message, severity, self.relation, fork or self.fork,
                       None if block is None else int(block), None if item is None else int(item),
                       _plain(expected), _plain(actual), None if attnum is None else int(attnum))


def _plain(v):
    """numpy scalars and tuples as JSON-friendly Python values."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if hasattr(v, "item"):
        return v.item()
    return v


@dataclass
class IndexShape:
    """What pg_index says: indnatts and indnkeyatts (None when unknown: a bare segment file)."""
    natts: int | None = None
    nkeyatts: int | None = None


@dataclass
class KeySpec:
    """The index's key columns for the order checks (``analysis.btree.order``): its attributes
    (deform Attributes, attnum order) and pg_index's indoption; ``reason``: why the order cannot be
    computed (then only the checks that need no order run, and one note says why)."""
    attrs: list | None = None
    indoption: list | None = None
    reason: str | None = None
    collation_keys: list | None = None   # per key column: its collation's sort key, None where bytes order holds


def shape_from_index_row(row: dict | None) -> IndexShape:
    """IndexShape from a pg_index row (indnkeyatts is indnatts before 11)."""
    if not row:
        return IndexShape()
    def number(v):
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None
    natts = number(row.get("indnatts"))
    nkey = number(row.get("indnkeyatts", natts))
    return IndexShape(natts, nkey if nkey is not None else natts)
