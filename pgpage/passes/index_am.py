"""`pgpage index` of a GIN, GiST or SP-GiST index: the index read chunk by chunk into ``analysis.amstats``
(pages by kind, items, free space, what VACUUM would give back; for GIN pgstatginindex's figures), and one page
a person asks for decoded with its keys. One process (``--jobs`` is accepted and does not split the work: these
scans are a few numpy passes a chunk). Returns plain dicts; never prints."""
from __future__ import annotations

from dataclasses import replace

from pgpage.analysis.amstats import STATS
from pgpage.decode.indextuple import index_columns
from pgpage.findings import WARNING, ExitCode, Finding, PgpageError

AMS = tuple(STATS)
PARTIAL = {"gin": "gin.index.partial", "gist": "gist.index.partial", "spgist": "spgist.index.partial"}


def index_am_of(t) -> str | None:
    """The access method of TARGET's index when it is one of AMS: the catalog's, else its pages'."""
    rel = t.relation
    if rel is not None and isinstance(rel.access_method, str):
        return rel.access_method if rel.access_method in AMS else None
    if t.fork is None or not t.fork.exists:
        return None
    from pgpage.decode.page import decode_page
    from pgpage.decode.pagebase import PageContext
    ctx = PageContext(block_size=t.fork.block_size)
    for blkno in range(t.fork.first_block, min(t.fork.end_block, t.fork.first_block + 8)):  # the first page not new
        kind = decode_page(t.fork.read_block(blkno), blkno, ctx)["page_type"]
        if kind != "new":
            return kind if kind in AMS else None
    return None


class AmIndexPass:
    """`pgpage index` of one GIN, GiST or SP-GiST index (``t``: its resolved target, ``am`` its access method)."""

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
            self.findings.append(Finding(PARTIAL[am], f"only blocks {relfork.first_block}.."
                                         f"{relfork.end_block - 1} were read (one segment): the figures are theirs",
                                         WARNING, relation=t.context.relation))

    def document(self, jobs: int = 1, show_map: bool = False, on_chunk=None) -> dict:
        t, relfork = self.t, self.t.fork
        stats = STATS[self.am](relfork.block_size, t.context.major)
        for first, chunk in relfork.iter_chunks():
            stats.add_chunk(first, chunk)
            if on_chunk:
                on_chunk(chunk.shape[0])
        findings = self.findings + list(relfork.size_changes())
        rel = t.relation
        doc = {"schema": "pgpage.index/1", "file": t.label, "am": self.am, "relation": t.context.relation,
               "table": rel.table.qualified_name if rel is not None and rel.table is not None else None,
               "major": t.context.major, "block_size": relfork.block_size, "first_block": relfork.first_block,
               "end_block": relfork.end_block}
        doc.update(stats.report())
        doc["block"] = self._block_doc() if self.block is not None else None
        doc["findings"] = [f.to_json() for f in findings]
        return doc

    def _block_doc(self) -> dict:
        from pgpage.decode.page import decode_page
        t = self.t
        ctx = replace(t.context, index_columns=index_columns(t.relation, t.database))
        page = decode_page(t.fork.read_block(self.block), self.block, ctx)
        out = {k: v for k, v in page.items() if k != "raw_header"}
        out["findings"] = [f.to_json() for f in page["findings"]]
        return out
