"""What deduplication (13+: posting lists) and suffix truncation (12+: pivot tuples) save: the figures
of ``pgpage index``'s ``deduplication`` and ``pivots`` sections, from a ``BtreeScan``'s totals."""
from __future__ import annotations

import math

import numpy as np

from pgpage.analysis.btree.pages import BT_OFFSET_MASK
from pgpage.analysis.share import share
from pgpage.decode.pagebase import maxalign
from pgpage.decode.versions import POSTING_LISTS_SINCE

POSTING_HISTOGRAM_EDGES = (0, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025, BT_OFFSET_MASK + 1)


def dedup_summary(scan, stats: dict) -> dict:
    """Deduplication: settings, posting lists, and what the index would weigh without them.

    Bytes saved: each posting tuple of n TIDs replaces n plain tuples of MAXALIGN(posting
    offset) bytes (the key part, which is the base tuple's size: ``_bt_form_posting``)
    with one line pointer each; saved = those n tuples and line pointers minus the
    posting tuple and its line pointer. The size without deduplication puts the saved bytes
    back on the leaf level at the leaf pages' current average density; each internal level
    then needs its downlinks' bytes times the growth of the level below, at the level's
    current bytes per page (counting a page as at least half full), never fewer pages than now (a new root on top if the old top
    level no longer fits one page); metapage, deleted and half-dead pages stay. An estimate
    of the same index with ``deduplicate_items = off``, not a prediction of a REINDEX (which
    would pack leaves at fillfactor 90).
    """
    major = scan.major
    meta = scan.metapage or {}
    allequal = meta.get("allequalimage")
    opt = None
    source = None
    if scan.info.reloptions is not None:
        source = "default"
        opt = True
        for o in scan.info.reloptions:
            name, _, value = o.partition("=")
            if name.strip().lower() == "deduplicate_items":
                opt = value.strip().lower() in ("on", "true", "yes", "1", "t", "y")
                source = "reloptions"
    supported = major is None or major >= POSTING_LISTS_SINCE
    can = bool(supported and allequal and opt is not False) if (allequal is not None or not supported) else None
    if not supported:
        can = False
    tids = scan.posting_tid_count + scan.plain_tuples
    saved = scan.posting_plain_bytes - scan.posting_bytes
    hist = []
    edges = POSTING_HISTOGRAM_EDGES
    for lo, hi in zip(edges[:-1], edges[1:]):
        c = int(scan.posting_hist[lo:hi].sum())
        if c:
            hist.append({"from": lo, "to": hi - 1, "count": c})
    per = None
    if scan.posting_tuples:
        counts = np.flatnonzero(scan.posting_hist)
        cum = np.cumsum(scan.posting_hist)
        per = {"min": int(counts[0]), "max": int(counts[-1]),
               "mean": round(scan.posting_tid_count / scan.posting_tuples, 1),
               "median": int(np.searchsorted(cum, (scan.posting_tuples + 1) // 2)),
               "histogram": hist}
    out = {
        "supported": supported, "allequalimage": allequal, "deduplicate_items": opt,
        "deduplicate_items_source": source, "can_deduplicate": can,
        "unique_index": scan.info.unique,
        "posting_tuples": scan.posting_tuples, "posting_tids": scan.posting_tid_count,
        "plain_tuples": scan.plain_tuples, "tids": tids,
        "posting_tid_share": share(scan.posting_tid_count, tids, 2),
        "tids_per_posting_list": per,
        "posting_tuple_bytes": scan.posting_bytes, "bytes_without_posting_lists": scan.posting_plain_bytes,
        "bytes_saved": saved,
        "estimated_leaf_pages_without": None, "estimated_index_size_without": None,
    }
    lvl0 = scan.levels.get(0)
    if lvl0 and lvl0.leaf_pages and lvl0.leaf_used:
        per_page = lvl0.leaf_used / lvl0.leaf_pages
        leaf_without = max(lvl0.leaf_pages, math.ceil((lvl0.leaf_used + saved) / per_page))
        pages = leaf_without + (lvl0.pages - lvl0.leaf_pages)
        below_now, below_then = lvl0.pages, pages
        total = pages
        for lv in sorted(scan.levels)[1:]:
            acc = scan.levels[lv]
            grown = acc.used_bytes * below_then / below_now
            per = max(acc.used_bytes / acc.pages, acc.capacity / acc.pages / 2)  # at least half full
            then = max(acc.pages, math.ceil(grown / per)) if per else acc.pages
            below_now, below_then = acc.pages, then
            total += then
        if below_then > 1:  # the old top level spans pages now: a new root above it
            total += 1
        out["estimated_leaf_pages_without"] = leaf_without
        out["estimated_index_size_without"] = (1 + total + stats["deleted_pages"]) * scan.bs
    return out


def pivot_summary(scan) -> dict:
    """High keys and pivots, and what suffix truncation (12+) saved.

    Without suffix truncation a pivot is a copy of a leaf tuple's key part; the saving is
    estimated per pivot as the leaf level's average key-only tuple size (MAXALIGNed; for a
    posting tuple its posting offset) minus the pivot's size, never below zero. The
    "minus infinity" first item of each internal page (no key at all) is left out."""
    natts = scan.pivot_natts_hist
    sizes = scan.pivot_size_hist
    count = int(sizes.sum())
    total = int(sizes @ np.arange(len(sizes)))
    nkey = scan.info.nkeyatts
    avg_leaf = scan.leaf_key_bytes / scan.leaf_key_tuples if scan.leaf_key_tuples else None
    saved = int(sizes @ np.maximum(maxalign(int(math.ceil(avg_leaf))) - np.arange(len(sizes)), 0)) if avg_leaf else 0
    stated = np.flatnonzero(natts[1:])  # attribute counts some pivot states
    out = {
        "high_keys": sum(a.high_keys for a in scan.levels.values()),
        "high_key_bytes": sum(a.high_key_bytes for a in scan.levels.values()),
        "pivot_tuples": count, "pivot_bytes": total,
        "minus_infinity_items": scan.minus_infinity,
        "pivots_with_heap_tid": scan.pivots_with_heap_tid,
        "pivot_natts": {str(int(k)): int(natts[k + 1]) for k in stated},
        "truncated_pivots": int(natts[1:1 + nkey].sum()) if nkey else None,
        "avg_leaf_key_tuple": round(avg_leaf, 1) if avg_leaf else None,
        "avg_pivot_tuple": round(total / count, 1) if count else None,
        "suffix_truncation_saved_bytes_estimate": saved,
    }
    return out
