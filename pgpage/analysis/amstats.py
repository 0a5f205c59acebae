"""Whole-index figures of the index access methods other than B-tree (GIN, GiST, SP-GiST, hash, BRIN), fed chunk
by chunk (pure: no I/O).

Pages are classified and counted from numpy columns of a chunk (page headers, the special space's flags), items
from each page's line pointers counted by state in one compiled pass (``line_pointer_counts``, decode/_amindex.c;
GIN's entries from its line pointer arrays, ``decode.vector``); GIN posting tree leaves are counted by the compiled
GIN sieve, the ones it does not pass a page at a time by ``decode.gin``'s segment reader. No Kaitai parser runs per
page. Memory is a few counters whatever the index's size.

Every AM reports the same figures (``AmStats.report``: pages by kind, live and dead items, free space, what VACUUM
and a REINDEX would give back), and its own: pgstatginindex (version, pending_pages, pending_tuples: the
metapage's, exactly), pgstattuple's of GiST, pgstathashindex. Free space is the sum of pd_upper - pd_lower, as
PageGetExactFreeSpace counts it.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from pgpage.analysis.hash import KIND_OF_TYPE, HashStats
from pgpage.decode import brin, extam, gin, spgist
from pgpage.decode.hash import decode_hash_chunk, read_metapage
from pgpage.decode.ksy.constants import (BRIN_PAGETYPE_REGULAR, F_DELETED, F_HAS_GARBAGE, F_LEAF, GIN_TREE_POSTING,
                                         HASHO_PAGE_ID, LH_BUCKET_PAGE, LH_OVERFLOW_PAGE, LH_PAGE_TYPE, LP_DEAD,
                                         LP_NORMAL, SIZEOF_ItemIdData, SPGIST_LEAF, SPGIST_META, SPGIST_NULLS)
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.vector import column, decode_headers, decode_line_pointers, u4_at
from pgpage.decode.versions import PGSTATTUPLE_EXACT_FREE_SPACE_SINCE

# each AM's special space: its layout and the field that carries its page kind
SPECIAL = {"gin": ("gin_page::gin_page_opaque_data", "flags"), "gist": ("gist_page::gist_page_opaque_data", "flags"),
           "spgist": ("spgist_page::spgist_page_opaque_data", "flags"),
           "hash": ("hash_page::hash_page_opaque_data", "hasho_flag"),
           "brin": ("brin_page::brin_special_space", "type")}
SPECIAL_SIZE = {am: LAYOUTS[layout]["size"] for am, (layout, _) in SPECIAL.items()}


def special_flags(chunk: np.ndarray, am: str) -> np.ndarray:
    """The flags word (BRIN: the page type) of every page's special space (its last SPECIAL_SIZE bytes)."""
    layout, field = SPECIAL[am]
    return column(chunk, layout, field, chunk.shape[1] - SPECIAL_SIZE[am]).astype(np.int64)


class AmStats:
    """Counters common to every AM: pages by kind, items by line pointer state, free space."""
    am = ""

    def __init__(self, block_size: int, major: int | None = None):
        self.block_size, self.major = block_size, major
        self.pages: Counter = Counter()
        self.items: Counter = Counter()
        self.free_space = 0
        self.dead_item_bytes = 0
        self.nblocks = 0

    def add_chunk(self, first: int, chunk: np.ndarray) -> None:
        h = decode_headers(chunk)
        n, size = chunk.shape
        self.nblocks += n
        zero = h.upper == 0
        own = ~zero & (h.special.astype(np.int64) == size - SPECIAL_SIZE[self.am])
        self.pages["new"] += int(zero.sum())
        self.pages["other"] += int((~zero & ~own).sum())   # not this AM's special space: verify names them
        flags = special_flags(chunk, self.am)
        free = np.maximum(h.upper.astype(np.int64) - h.lower.astype(np.int64), 0)
        self.free_space += int(free[own].sum())
        self._pages(chunk, first, own, flags, h, line_pointer_counts(chunk, h))

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        """``counts``: ``line_pointer_counts`` of the chunk."""
        raise NotImplementedError

    def _line_pointer_states(self, mask: np.ndarray, counts: dict) -> None:
        """Items of the pages in ``mask`` by line pointer state: live (LP_NORMAL), dead (LP_DEAD)."""
        self.items["live_items"] += int(counts["normal"][mask].sum())
        self.items["dead_items"] += int(counts["dead"][mask].sum())
        self.dead_item_bytes += int(counts["dead_bytes"][mask].sum())

    def report(self) -> dict:
        """``reclaimable``: the pages VACUUM hands to the free space map; ``reindex_reclaims_at_most``: what a
        rebuild could give back at most (the free space, the dead items and those pages; a rebuild packs the live
        items again, up to its fillfactor, so it gives back less)."""
        total = self.nblocks * self.block_size
        reclaimable = self.reclaimable_pages()
        return {"pages": dict(sorted((k, v) for k, v in self.pages.items() if v)), "nblocks": self.nblocks,
                "items": dict(self.items), "free_space": self.free_space,
                "free_percent": round(100.0 * self.free_space / total, 2) if total else 0.0,
                "dead_item_bytes": self.dead_item_bytes,
                "reclaimable": {"pages": reclaimable, "bytes": reclaimable * self.block_size},
                "reindex_reclaims_at_most": self.free_space + self.dead_item_bytes + reclaimable * self.block_size}

    def reclaimable_pages(self) -> int:
        """Pages a VACUUM would hand to the free space map (new pages, pages deleted from the tree)."""
        return self.pages["new"] + self.pages["deleted"]


class GinStats(AmStats):
    am = "gin"

    def __init__(self, block_size: int, major: int | None = None):
        super().__init__(block_size, major)
        self.meta: dict | None = None

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        lps = decode_line_pointers(chunk, headers)
        kinds = gin.page_kinds(flags)
        code = {k: i for i, k in enumerate(gin.KINDS)}
        for name in gin.KINDS[2:]:
            self.pages[name] += int((own & (kinds == code[name])).sum())
        meta = np.flatnonzero(own & (kinds == code["meta"]))
        if len(meta) and self.meta is None:
            self.meta = gin.metapage_info(chunk[meta[0]])
        internal = own & (kinds == code["data_internal"])
        self.items["posting_items"] += int(column(chunk, SPECIAL["gin"][0], "maxoff", chunk.shape[1] -
                                                  SPECIAL_SIZE["gin"])[internal].astype(np.int64).sum())
        self.items["posting_tree_tids"] += _data_leaf_tids(chunk, own & (kinds == code["data_leaf"]))
        entry = np.isin(kinds, (code["entry_leaf"], code["entry_internal"], code["list"]))
        tuples = own & entry
        self._line_pointer_states(tuples, counts)
        leaf_entry = own & (kinds == code["entry_leaf"])
        sel = leaf_entry[lps.page] & (lps.flags == LP_NORMAL) & (lps.len >= 8) & \
            (lps.off.astype(np.int64) + 8 <= chunk.shape[1])
        if sel.any():  # each entry's t_tid.ip_posid: its TID count, or GIN_TREE_POSTING
            at = lps.off[sel].astype(np.int64) + 4
            pages = lps.page[sel]
            posid = chunk[pages, at].astype(np.int64) | chunk[pages, at + 1].astype(np.int64) << 8
            tree = posid == GIN_TREE_POSTING
            self.items["entries"] += int(sel.sum())
            self.items["posting_trees"] += int(tree.sum())
            self.items["entry_tids"] += int(posid[~tree].sum())
        self.items["pending_list_tuples"] += int((own & (kinds == code["list"]))[lps.page].sum())

    def report(self) -> dict:
        out = super().report()
        m = self.meta
        out["pgstatginindex"] = None if m is None else {"version": m["version"], "pending_pages": m["n_pending_pages"],
                                                         "pending_tuples": m["n_pending_tuples"]}
        out["gin_metapage_info"] = m
        return out


def line_pointer_counts(chunk: np.ndarray, h) -> dict[str, np.ndarray]:
    """Each page's line pointers counted by state, by name (kernels.LP_COUNT_COLUMNS: normal, dead, other, their
    lp_len sums as normal_bytes..., and state0..state3: the LP_NORMAL items whose first 4 bytes are inside the page
    by the tupstate bits of their first word, SP-GiST's), and ``stated``, the sum of those; compiled (one pass over
    the line pointers), else with numpy."""
    from pgpage.decode.clib import KernelUnavailable
    from pgpage.decode.kernels import LP_COUNT_COLUMNS, lp_counts
    _, (_, shift, width) = spgist.INNER["tupstate"]
    try:
        table = lp_counts(np.ascontiguousarray(chunk), h.nlp, shift, (1 << width) - 1)
    except KernelUnavailable:      # no C compiler: the same counts from the line pointer arrays
        lps = decode_line_pointers(chunk, h)
        n, size = chunk.shape
        col = {name: np.zeros(n, dtype=np.int64) for name in LP_COUNT_COLUMNS}
        for name, state in (("normal", lps.flags == LP_NORMAL), ("dead", lps.flags == LP_DEAD),
                            ("other", ~np.isin(lps.flags, (LP_NORMAL, LP_DEAD)))):
            col[name] = np.bincount(lps.page[state], minlength=n)
            col[f"{name}_bytes"] = np.bincount(lps.page[state], weights=lps.len[state], minlength=n).astype(np.int64)
        sel = (lps.flags == LP_NORMAL) & (lps.len >= 4) & (lps.off.astype(np.int64) + 4 <= size)
        word = u4_at(chunk.reshape(-1), lps.page[sel] * size + lps.off[sel].astype(np.int64))
        tupstate = word >> shift & ((1 << width) - 1)
        for value in range(4):
            col[f"state{value}"] = np.bincount(lps.page[sel][tupstate == value], minlength=n)
        table = np.column_stack([col[name] for name in LP_COUNT_COLUMNS])
    counts = dict(zip(LP_COUNT_COLUMNS, table.T))
    counts["stated"] = sum(counts[f"state{value}"] for value in range(4))
    return counts


def _data_leaf_tids(chunk: np.ndarray, leaves: np.ndarray) -> int:
    """TIDs in the compressed posting tree leaves ``leaves`` of a chunk (the segments that decode): counted by the
    compiled GIN sieve (decode/_gin.c) where it passes a page, else segment by segment."""
    if not leaves.any():
        return 0
    from pgpage.decode.clib import KernelUnavailable
    from pgpage.decode.kernels import GIN_SIEVE_CHECK, GIN_SIEVE_ORDER, verify_gin_sieve
    counted = np.zeros(len(chunk), dtype=bool)
    total = 0
    try:
        params = [chunk.shape[1] // SIZEOF_ItemIdData, 0, 0, 0, 1, GIN_SIEVE_ORDER["not_sieved"]]
        flagged, _, _, ntids = verify_gin_sieve(np.ascontiguousarray(chunk), leaves * GIN_SIEVE_CHECK["data_leaf"],
                                                np.zeros(len(chunk), dtype=np.int64), params)
        counted = leaves & (flagged == 0)
        total = int(ntids[counted].sum())
    except KernelUnavailable:
        pass
    for i in np.flatnonzero(leaves & ~counted):
        total += sum(len(values) for values, _ in gin.iter_segments(chunk[i].tobytes())[0])
    return total


class GistStats(AmStats):
    """Also pgstattuple's figures: pgstat_gist_page counts the leaf pages after the root (block 0), every line
    pointer of them (LP_DEAD as dead, any other as a tuple, lp_len its length) and their free space
    (PageGetFreeSpace, from 18 PageGetExactFreeSpace)."""
    am = "gist"
    COUNTERS = ("tuple_count", "tuple_len", "dead_tuple_count", "dead_tuple_len", "free_space")

    def __init__(self, block_size: int, major: int | None = None):
        super().__init__(block_size, major)
        self.pgstattuple = dict.fromkeys(self.COUNTERS, 0)

    def _pgstattuple(self, first: int, leaf: np.ndarray, headers, counts: dict) -> None:
        leaf = leaf & (first + np.arange(len(leaf)) > 0)
        room = headers.upper.astype(np.int64) - headers.lower.astype(np.int64)
        st = self.pgstattuple
        if self.major is None or self.major >= PGSTATTUPLE_EXACT_FREE_SPACE_SINCE:   # PageGetExactFreeSpace
            free = np.maximum(room, 0)
        else:                                                                       # PageGetFreeSpace
            free = np.where(room >= SIZEOF_ItemIdData, room - SIZEOF_ItemIdData, 0)
        st["free_space"] += int(free[leaf].sum())
        st["tuple_count"] += int((counts["normal"] + counts["other"])[leaf].sum())
        st["tuple_len"] += int((counts["normal_bytes"] + counts["other_bytes"])[leaf].sum())
        st["dead_tuple_count"] += int(counts["dead"][leaf].sum())
        st["dead_tuple_len"] += int(counts["dead_bytes"][leaf].sum())

    def report(self) -> dict:
        out = super().report()
        st = dict(self.pgstattuple)
        table_len = self.nblocks * self.block_size
        st = {"table_len": table_len, **st}
        for name, part in (("tuple_percent", "tuple_len"), ("dead_tuple_percent", "dead_tuple_len"),
                           ("free_percent", "free_space")):
            st[name] = float(f"{100.0 * st[part] / table_len:.2f}") if table_len else None   # "%.2f"
        out["pgstattuple"] = {k: st[k] for k in ("table_len", "tuple_count", "tuple_len", "tuple_percent",
                                                 "dead_tuple_count", "dead_tuple_len", "dead_tuple_percent",
                                                 "free_space", "free_percent")}
        return out

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        self._pgstattuple(first, own & (flags & F_LEAF != 0), headers, counts)
        deleted = own & (flags & F_DELETED != 0)
        leaf = own & ~deleted & (flags & F_LEAF != 0)
        internal = own & ~deleted & ~leaf
        self.pages["deleted"] += int(deleted.sum())
        self.pages["leaf"] += int(leaf.sum())
        self.pages["internal"] += int(internal.sum())
        self.pages["has_garbage"] += int((own & (flags & F_HAS_GARBAGE != 0)).sum())
        self._line_pointer_states(leaf | internal, counts)
        self.items["leaf_tuples"] += int(counts["normal"][leaf].sum())
        self.items["downlinks"] += int(counts["normal"][internal].sum())

    def reclaimable_pages(self) -> int:
        return self.pages["new"] + self.pages["deleted"]


class SpgistStats(AmStats):
    am = "spgist"

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        meta = own & (flags & SPGIST_META != 0)
        leaf = own & ~meta & (flags & SPGIST_LEAF != 0)
        inner = own & ~meta & ~leaf
        nulls = flags & SPGIST_NULLS != 0
        self.pages["meta"] += int(meta.sum())
        self.pages["leaf"] += int((leaf & ~nulls).sum())
        self.pages["inner"] += int((inner & ~nulls).sum())
        self.pages["nulls_leaf"] += int((leaf & nulls).sum())
        self.pages["nulls_inner"] += int((inner & nulls).sum())
        self._line_pointer_states(leaf | inner, counts)
        tuples = leaf | inner
        if counts["stated"][tuples].any():     # the tuples by tupstate
            for value, name in spgist.STATES.items():
                hit = counts[f"state{value}"]
                if name == "live":
                    self.items["live_leaf"] += int(hit[leaf].sum())
                    self.items["live_inner"] += int(hit[inner].sum())
                else:
                    self.items[name] += int(hit[tuples].sum())

    def reclaimable_pages(self) -> int:
        return self.pages["new"]


class HashAmStats(AmStats):
    """Pages by pageinspect's hash_page_type (a new page is "unused" there), and pgstathashindex's figures."""
    am = "hash"

    def __init__(self, block_size: int, major: int | None = None):
        super().__init__(block_size, major)
        self.pgstat = HashStats()
        self.meta: dict | None = None
        self.decoded = None    # the last chunk's decode_hash_chunk, sieved (the verifier reads the same chunk next)

    def add_chunk(self, first: int, chunk: np.ndarray) -> None:
        if first == 0 and len(chunk):
            self.meta = read_metapage(chunk[0])
        self.decoded = decode_hash_chunk(chunk, first, True, self.meta)
        self.pgstat.feed(self.decoded)
        super().add_chunk(first, chunk)
        self.pages["unused"] += self.pages.pop("new", 0)

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        page_id = column(chunk, SPECIAL["hash"][0], "hasho_page_id", chunk.shape[1] - SPECIAL_SIZE["hash"])
        self.pages["other"] += int((own & (page_id != HASHO_PAGE_ID)).sum())
        own = own & (page_id == HASHO_PAGE_ID)
        kind = flags & LH_PAGE_TYPE
        for t, name in KIND_OF_TYPE.items():
            self.pages[name] += int((own & (kind == t)).sum())
        self._line_pointer_states(own & np.isin(kind, (LH_BUCKET_PAGE, LH_OVERFLOW_PAGE)), counts)

    def reclaimable_pages(self) -> int:
        return self.pages["unused"]

    def report(self) -> dict:
        out = super().report()
        m = self.meta
        out["pgstathashindex"] = self.pgstat.pgstathashindex(m, self.nblocks)
        out["hash_metapage_info"] = None if m is None else {
            **{k: v for k, v in m.items() if k not in ("spares", "mapp")},
            "spares": m["spares"][:m["ovflpoint"] + 1], "mapp": m["mapp"][:m["nmaps"]]}
        out["buckets"] = None if m is None else m["maxbucket"] + 1
        return out


class BrinStats(AmStats):
    """Pages by brin_page_type; items are the summary tuples of regular pages. VACUUM frees no BRIN page."""
    am = "brin"

    def _pages(self, chunk, first, own, flags, headers, counts) -> None:
        for t, name in brin.PAGE_TYPE_NAMES.items():
            self.pages[name] += int((own & (flags == t)).sum())
        self.pages["other"] += int((own & ~np.isin(flags, list(brin.PAGE_TYPE_NAMES))).sum())
        self._line_pointer_states(own & (flags == BRIN_PAGETYPE_REGULAR), counts)

    def reclaimable_pages(self) -> int:
        return self.pages["new"]


class ExtAmStats(AmStats):
    """An extension's AM (bloom, pgvector's HNSW and IVFFlat: ``decode.extam``): pages by kind from the page id and
    the metapage magic, bloom's tuples (maxoff: its pages have no line pointers), free space; nothing decoded."""

    def add_chunk(self, first: int, chunk: np.ndarray) -> None:
        kinds, tuples = extam.chunk_page_kinds(chunk, self.am, first)
        self.nblocks += chunk.shape[0]
        self.pages.update(kinds)
        if self.am == "bloom":
            self.items["tuples"] += tuples
        h = decode_headers(chunk)
        own = ~h.is_new & (column(chunk, extam.VECTOR_OPAQUE, "page_id", chunk.shape[1] - extam.SPECIAL_SIZE)
                           == extam.PAGE_ID_OF_AM[self.am])
        self.free_space += int(np.maximum(h.upper.astype(np.int64) - h.lower.astype(np.int64), 0)[own].sum())


STATS = {"gin": GinStats, "gist": GistStats, "spgist": SpgistStats, "hash": HashAmStats, "brin": BrinStats,
         **{am: type(f"{am.capitalize()}Stats", (ExtAmStats,), {"am": am}) for am in extam.AM_OF_PAGE_ID.values()}}
