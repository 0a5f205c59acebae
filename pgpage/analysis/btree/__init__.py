"""B-tree forensics from the index file alone (and its table's file, when there is one).

What pgstatindex, bt_page_stats/bt_page_items and amcheck's structural checks would say about
a B-tree index, computed from the page images:

* **pgstatindex's figures**, by pgstatindex's own rules (``contrib/pgstattuple/pgstatindex.c``,
  ``pgstatindex_impl``, the same in 10 to 18 but for the free-space measure). Block 0 is the
  metapage and is skipped. Every other block is counted as *deleted* when BTP_DELETED, else as
  *empty* when P_IGNORE (so pgstatindex's "empty" pages are the half-dead ones, not pages
  without items), else as *leaf* when BTP_LEAF, else as *internal* (the root included, and an
  all-zero page too: its special space reads as zero flags). Only leaf pages feed
  ``avg_leaf_density = 100 - free / max_avail * 100``, with ``max_avail = pd_special - 24``
  and ``free`` = PageGetFreeSpace (``pd_upper - pd_lower - 4``, at least 0) before 18 and
  PageGetExactFreeSpace (``pd_upper - pd_lower``) from 18 (``versions.PGSTATINDEX_EXACT_FREE_SPACE_SINCE``);
  ``leaf_fragmentation`` is the share of leaf pages whose ``btpo_next`` is a lower block
  number. ``index_size`` counts the metapage and every page counted. Both percentages are
  printed by pgstatindex with ``%.2f`` and read back, hence the rounding here; with no leaf
  page they are NaN.
* **Deduplication** (13+): posting-list tuples, heap TIDs held in posting lists against plain
  tuples, TIDs per posting list, the bytes deduplication saves, and the size the same index
  would have without it (see ``dedup.dedup_summary``).
* **Dead items** (LP_DEAD line pointers: ``kill_prior_tuple`` and the uniqueness checks set
  them). A posting-list tuple has one LP_DEAD bit for all its TIDs, so it is marked dead only
  when every TID is; the TIDs behind dead items are counted too.
* Half-dead and deleted pages with their safexid, incomplete splits, split ends, high keys,
  what suffix truncation (12+) saved in pivot tuples, and a summary per level.
* **Structure checks** from the files alone, as findings with block and item: sibling links
  agree both ways and stay on one level, every level is one chain from its leftmost page,
  levels agree with the leaf flag and the metapage, every downlink points at a live page of
  the level below, each child has exactly one downlink (unless its split is incomplete or it
  is being deleted), downlinks come in the child level's sibling order, posting lists are
  sorted, hold at least two TIDs and lie inside their tuple. Every walk is bounded by the
  number of blocks and stops on a page it has seen (a cycle is a finding, not a hang).
* **Index against table** (``HeapTidCheck``): each heap TID of the leaf level is looked up in
  the table's pages: beyond the table's end, beyond the page's line pointers, at an LP_UNUSED
  slot, or at a heap-only tuple (an index never points into the middle of a HOT chain) is
  corruption; at LP_DEAD (pruned, awaiting VACUUM) or LP_REDIRECT (the root of a pruned HOT
  chain) it is normal and counted.

The pass takes a chunk of pages at a time as a numpy array (``BtreeScan.add_chunk``, as
``RelationFork.iter_chunks`` yields them): page headers and special spaces in numpy, every
item in one compiled loop (``_heapscan.c``: pgp_btree_items; numpy's dozens of passes over
each chunk's items, with gathers, ran at about 40 MB/s), and the table side of the heap
check compiled too (line pointer verdicts, TID lookups). It keeps a few small numbers per
page and per downlink, histograms for the pivots, and never holds more than one chunk of
pages, so memory stays flat in the size of the index. Nothing here opens a file: the caller
hands in chunks, and a callable that reads table blocks for the heap check. Kaitai objects
are built only for pages a person looks at (``page_view``). ``passes.index`` runs the pass over a
whole index (with ``--jobs``, in ranges merged in block order).

One module per idea:

* ``pages``: nbtree.h's flags, masks and sizes, and the kinds a block is sorted into;
* ``scan``: ``BtreeScan``, the pass that accumulates every figure chunk by chunk, and its report
  (pgstatindex's figures, special pages, levels);
* ``dedup``: what deduplication and suffix truncation save;
* ``structure``: the cross-page rules (levels, sibling chains, downlinks, the root);
* ``heapcheck``: ``HeapTidCheck``, the index's heap TIDs against the table's line pointers;
* ``keys``: one page a person looks at, its items' keys decoded;
* ``order``: key order as amcheck compares it (``_bt_compare``), for the types whose order is computable;
* ``sink``: ``FindingSink``, findings capped per code.

(``analysis.verify.btree`` feeds the same scan for `pgpage verify` and adds amcheck's page rules.)
"""
