"""`pgpage index` of an index that is not a B-tree, for the access methods with a pass here (``AM_PASSES``):
the index read chunk by chunk (numpy over whole chunks, no parser per page), its pages by kind, the AM's own
statistics (pgstathashindex for hash; revmap coverage and summarized ranges for BRIN) and the structure
findings ``verify`` gives for it; one page a person asks for decoded as ``pgpage page`` decodes it.

``am_index_pass`` returns None for a B-tree (or anything it cannot tell), which ``passes.index`` reads.
"""
from __future__ import annotations

from pgpage.decode.ksy.constants import BRIN_META_MAGIC, HASH_MAGIC, HASHO_PAGE_ID, SizeOfPageHeaderData
from pgpage.decode.pagebase import maxalign
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.target import resolve

META_MAGIC_AT = maxalign(SizeOfPageHeaderData)   # PageGetContents: both metapages' magic comes first


def am_of_file(relfork) -> str | None:
    """The access method block 0's metapage names (hash or BRIN), for a file no catalog describes."""
    if relfork.first_block != 0 or relfork.nblocks == 0:
        return None
    raw = relfork.read_block(0)
    magic = int.from_bytes(raw[META_MAGIC_AT:META_MAGIC_AT + 4], "little")
    if magic == HASH_MAGIC and int.from_bytes(raw[-2:], "little") == HASHO_PAGE_ID:
        return "hash"
    if magic == BRIN_META_MAGIC:
        return "brin"
    return None


def am_index_pass(target: str, db: str | None, rel: str | None, block: int | None = None):
    t = resolve(target, db, rel, "main", what="index")
    am = t.relation.access_method if t.relation is not None else None
    if am is None and t.fork.exists:
        am = am_of_file(t.fork)
    cls = AM_PASSES.get(am)
    if cls is None:
        return None
    if not t.fork.exists:
        raise PgpageError(f"{t.label}: the index has no file", ExitCode.UNREADABLE)
    if block is not None and not t.fork.first_block <= block < t.fork.end_block:
        raise PgpageError(f"block {block} is outside this index's blocks {t.fork.first_block}..{t.fork.end_block - 1}",
                          ExitCode.USAGE)
    return cls(t, am, block)


class AmIndexPass:
    """What every AM's pass shares: the target, the head of the document, the page asked for."""

    def __init__(self, t, am: str, block: int | None):
        self.t, self.am, self.block = t, am, block
        self.blocks = t.fork.end_block - t.fork.first_block

    def head(self) -> dict:
        t, relfork = self.t, self.t.fork
        rel = t.relation
        return {"schema": "pgpage.index/1", "am": self.am, "file": t.label,
                "relation": rel.qualified_name if rel is not None else t.context.relation,
                "table": rel.table.qualified_name if rel is not None and rel.table is not None else None,
                "major": t.context.major, "block_size": relfork.block_size, "first_block": relfork.first_block,
                "end_block": relfork.end_block}

    def block_doc(self) -> dict | None:
        if self.block is None:
            return None
        from pgpage.passes.page import PageRun
        run = PageRun(self.t.label if self.t.relation is None else str(self.t.cluster.path),
                      self.t.database.name if self.t.relation is not None else None,
                      self.t.relation.qualified_name if self.t.relation is not None else None, "main", self.block)
        return run.document()["pages"][0]

    def context(self):
        from pgpage.analysis.verify.context import VerifyContext
        ctx = VerifyContext(block_size=self.t.fork.block_size, major=self.t.context.major,
                            checksums=self.t.context.checksums)
        ctx.relation, ctx.fork = self.head()["relation"], "main"
        return ctx


class HashIndexPass(AmIndexPass):
    def document(self, jobs: int = 1, show_map: bool = False, on_chunk=None) -> dict:
        from pgpage.analysis.hash import KIND_OF_TYPE, HashStats
        from pgpage.analysis.verify.hash import HashVerifier
        from pgpage.decode.hash import decode_hash_chunk
        relfork = self.t.fork
        nblocks = relfork.end_block
        stats, verifier = HashStats(), HashVerifier(self.context(), nblocks)
        findings = list(relfork.findings)
        for first, chunk in relfork.iter_chunks():
            stats.feed(decode_hash_chunk(chunk, first))
            findings += verifier.feed(chunk, first)
            if on_chunk is not None:
                on_chunk(chunk.shape[0])
        findings += verifier.finish()
        ctx = verifier.ctx
        for blk in stats.not_hash:
            findings.append(ctx.finding("hash.page.not_hash", f"block {blk} is neither new nor a hash page of a known"
                                        " type (pgstathashindex stops there)", blk))
        meta = verifier.meta
        kinds = {name: int((verifier.page_type == t).sum()) for t, name in KIND_OF_TYPE.items()}
        kinds["unused"] += int((verifier.page_type < 0).sum())
        doc = self.head()
        doc["pages"] = kinds
        doc["pgstathashindex"] = stats.pgstathashindex(meta, nblocks)
        doc["hash_metapage_info"] = None if meta is None else {
            **{k: v for k, v in meta.items() if k not in ("spares", "mapp")},
            "spares": meta["spares"][:meta["ovflpoint"] + 1], "mapp": meta["mapp"][:meta["nmaps"]]}
        doc["buckets"] = None if meta is None else meta["maxbucket"] + 1
        doc["block"] = self.block_doc()
        doc["findings"] = [f.to_json() for f in findings]
        return doc


class BrinIndexPass(AmIndexPass):
    def document(self, jobs: int = 1, show_map: bool = False, on_chunk=None) -> dict:
        from pgpage.analysis.verify.brin import BrinVerifier
        relfork = self.t.fork
        verifier = BrinVerifier(self.context(), relfork.end_block)
        findings = list(relfork.findings)
        for first, chunk in relfork.iter_chunks():
            findings += verifier.feed(chunk, first)
            if on_chunk is not None:
                on_chunk(chunk.shape[0])
        findings += verifier.finish()
        doc = self.head()
        s = verifier.summary()
        m = verifier.meta
        doc["pages"] = s["pages"]
        doc["brin_metapage_info"] = None if m is None else {
            "magic": f"0x{m['brin_magic']:08X}", "version": m["brin_version"], "pagesperrange": m["pages_per_range"],
            "lastrevmappage": m["last_revmap_page"]}
        table = self.t.relation.table if self.t.relation is not None else None
        tfork = table.forks.get("main") if table is not None else None
        heap_blocks = tfork.end_block if tfork is not None and tfork.exists else None
        ranges = None
        if heap_blocks is not None and m and m["pages_per_range"] > 0:
            ranges = -(-heap_blocks // m["pages_per_range"])
        doc["revmap"] = {"heap_blocks": heap_blocks, "heap_ranges": ranges,
                         "summarized_ranges": s["summarized_ranges"],
                         "unsummarized_ranges": None if ranges is None else max(ranges - s["summarized_ranges"], 0),
                         "summary_tuples": s["summary_tuples"]}
        doc["block"] = self.block_doc()
        doc["findings"] = [f.to_json() for f in findings]
        return doc


AM_PASSES = {"hash": HashIndexPass, "brin": BrinIndexPass}
