"""`pgpage index` of an index that is not a B-tree (GIN, GiST, SP-GiST, hash, BRIN): the index read chunk by chunk
(numpy over whole chunks, no parser per page) into ``analysis.amstats`` (pages by kind, live and dead items, free
space, what VACUUM or a REINDEX would give back, and the AM's own statistics: pgstatginindex, GiST's pgstattuple,
pgstathashindex), for hash and BRIN also their verifier (the hash metapage and chains, the BRIN revmap's
coverage), and one page a person asks for decoded as ``pgpage page`` decodes it.

One process (``--jobs`` is accepted and does not split the work: these scans are a few numpy passes a chunk).
``am_index_pass`` returns None for a B-tree (or an index it cannot tell), which ``passes.index`` then reads.
Returns plain dicts; never prints.
"""
from __future__ import annotations

from pgpage.analysis.amstats import STATS
from pgpage.findings import INFO, WARNING, ExitCode, Finding, PgpageError
from pgpage.storage.target import resolve

AMS = tuple(STATS)
FIRST_PAGES_LOOKED_AT = 8   # a file no catalog describes: the first page not new among these names its AM


def index_am_of(t) -> str | None:
    """The access method of TARGET's index when it is one of AMS: the catalog's, else its pages'."""
    rel = t.relation
    if rel is not None and isinstance(rel.access_method, str):
        return rel.access_method if rel.access_method in AMS else None
    if t.fork is None or not t.fork.exists or t.fork.fork != "main":
        return None
    from pgpage.decode.page import decode_page
    from pgpage.decode.pagebase import PageContext
    ctx = PageContext(block_size=t.fork.block_size)
    first = t.fork.first_block
    for blkno in range(first, min(t.fork.end_block, first + FIRST_PAGES_LOOKED_AT)):
        kind = decode_page(t.fork.read_block(blkno), blkno, ctx)["page_type"]
        if kind != "new":
            kind = "brin" if kind.startswith("brin_") else kind
            return kind if kind in AMS else None
    return None


def am_index_pass(target: str, db: str | None, rel: str | None, block: int | None = None):
    """The pass of TARGET's index when its access method is one of AMS, else None."""
    t = resolve(target, db, rel, "main", what="index")
    am = index_am_of(t)
    return None if am is None else PASSES.get(am, AmIndexPass)(t, am, block)


class AmIndexPass:
    """`pgpage index` of one index (``t``: its resolved target, ``am`` its access method); ``block``: one page to
    decode as well. Subclasses add what their AM's verifier knows (``feed``, ``finish``, ``extra``)."""

    def __init__(self, t, am: str, block: int | None = None):
        relfork = t.fork
        if not relfork.exists:
            raise PgpageError(f"{t.label}: the index has no file", ExitCode.UNREADABLE)
        if block is not None and not relfork.first_block <= block < relfork.end_block:
            raise PgpageError(f"block {block} is outside this index's blocks {relfork.first_block}.."
                              f"{relfork.end_block - 1}", ExitCode.USAGE)
        self.t, self.am, self.block = t, am, block
        self.blocks = relfork.end_block - relfork.first_block
        self.findings: list[Finding] = list(relfork.findings)
        if relfork.first_block:
            self.findings.append(Finding(f"{am}.index.partial", f"only blocks {relfork.first_block}.."
                                         f"{relfork.end_block - 1} were read (one segment): the figures are theirs",
                                         WARNING, relation=t.context.relation))

    def document(self, jobs: int = 1, show_map: bool = False, on_chunk=None) -> dict:
        t, relfork = self.t, self.t.fork
        stats = self.stats = STATS[self.am](relfork.block_size, t.context.major)
        for first, chunk in relfork.iter_chunks():
            stats.add_chunk(first, chunk)
            self.findings += self.feed(first, chunk)
            if on_chunk:
                on_chunk(chunk.shape[0])
        self.findings += self.finish()
        self.findings += relfork.size_changes()
        rel = t.relation
        doc = {"schema": "pgpage.index/1", "file": t.label, "am": self.am, "relation": t.context.relation,
               "table": rel.table.qualified_name if rel is not None and rel.table is not None else None,
               "major": t.context.major, "block_size": relfork.block_size, "first_block": relfork.first_block,
               "end_block": relfork.end_block}
        doc.update(stats.report())
        doc.update(self.extra(stats))
        doc["block"] = self._block_doc() if self.block is not None else None
        doc["findings"] = [f.to_json() for f in self.findings]
        return doc

    def feed(self, first: int, chunk) -> list[Finding]:
        return []

    def finish(self) -> list[Finding]:
        return []

    def extra(self, stats) -> dict:
        return {}

    def verify_context(self):
        from pgpage.analysis.verify.context import VerifyContext
        ctx = VerifyContext(block_size=self.t.fork.block_size, major=self.t.context.major,
                            checksums=self.t.context.checksums)
        ctx.relation, ctx.fork = self.t.context.relation, "main"
        return ctx

    def _block_doc(self) -> dict:
        """The page asked for, as `pgpage page` decodes it."""
        from pgpage.passes.page import PageRun
        t = self.t
        if t.relation is None:
            run = PageRun(t.label, None, None, "main", self.block)
        else:
            run = PageRun(str(t.cluster.path), t.database.name, t.relation.qualified_name, "main", self.block)
        return run.document()["pages"][0]


class HashIndexPass(AmIndexPass):
    """The hash verifier's findings (metapage, chains, bitmap, buckets); the figures are HashAmStats'."""

    def __init__(self, t, am: str, block: int | None = None):
        from pgpage.analysis.verify.hash import HashVerifier
        super().__init__(t, am, block)
        self.verifier = HashVerifier(self.verify_context(), t.fork.end_block)

    def feed(self, first, chunk):
        return self.verifier.feed(chunk, first, self.stats.decoded)

    def finish(self):
        return self.verifier.finish()

    def extra(self, stats) -> dict:
        for blk in stats.pgstat.not_hash:
            self.findings.append(self.verifier.ctx.finding(
                "hash.page.not_hash", f"block {blk} is neither new nor a hash page of a known type (pgstathashindex"
                " stops there)", blk))
        return {}


class BrinIndexPass(AmIndexPass):
    """The metapage and the revmap's coverage of the table (summarized and unsummarized ranges)."""

    def __init__(self, t, am: str, block: int | None = None):
        from pgpage.analysis.verify.brin import BrinVerifier
        super().__init__(t, am, block)
        self.verifier = BrinVerifier(self.verify_context(), t.fork.end_block)

    def feed(self, first, chunk):
        return self.verifier.feed(chunk, first)

    def finish(self):
        return self.verifier.finish()

    def extra(self, stats) -> dict:
        s, m = self.verifier.summary(), self.verifier.meta
        table = self.t.relation.table if self.t.relation is not None else None
        tfork = table.forks.get("main") if table is not None else None
        heap_blocks = tfork.end_block if tfork is not None and tfork.exists else None
        ranges = None
        if heap_blocks is not None and m and m["pages_per_range"] > 0:
            ranges = -(-heap_blocks // m["pages_per_range"])
        return {"brin_metapage_info": None if m is None else {
                    "magic": f"0x{m['brin_magic']:08X}", "version": m["brin_version"],
                    "pagesperrange": m["pages_per_range"], "lastrevmappage": m["last_revmap_page"]},
                "revmap": {"heap_blocks": heap_blocks, "heap_ranges": ranges,
                           "summarized_ranges": s["summarized_ranges"],
                           "unsummarized_ranges": None if ranges is None else max(ranges - s["summarized_ranges"], 0),
                           "summary_tuples": s["summary_tuples"]}}


class ExtIndexPass(AmIndexPass):
    """An extension's AM (bloom, pgvector's HNSW and IVFFlat): its pages counted, with the note that they are not
    decoded."""

    def finish(self):
        from pgpage.decode.extam import not_decoded_message
        return [Finding("index.am.not_decoded", not_decoded_message(self.am), INFO, relation=self.t.context.relation)]


PASSES = {"hash": HashIndexPass, "brin": BrinIndexPass, "bloom": ExtIndexPass, "hnsw": ExtIndexPass,
          "ivfflat": ExtIndexPass}   # the others: AmIndexPass as it is
