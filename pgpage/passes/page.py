"""`pgpage page`'s pass: the blocks asked for of one fork, each decoded by ``decode.page`` (pageinspect's
names, findings per page). A file in which no page has a PostgreSQL page header is refused whole."""
from __future__ import annotations

from pgpage.decode.page import decode_page, header_is_plausible
from pgpage.findings import ExitCode, Finding, PgpageError
from pgpage.passes.blocks import parse_block_range
from pgpage.storage.target import resolve_fork


def page_document(target: str, db: str | None, rel: str | None, fork: str, block: int | None = None,
                  blocks: str | None = None, all_blocks: bool = False) -> dict:
    """The `pgpage page` document (schema pgpage.page/1): the fork's findings, and its pages (the fork's first
    block when no block is asked for), each with its own ``findings``."""
    t = resolve_fork(target, db, rel, fork)
    relfork = t.fork
    findings: list[Finding] = list(relfork.findings)
    if not relfork.exists:
        raise PgpageError(f"{t.label}: fork {relfork.fork} has no file", ExitCode.UNREADABLE)
    end = relfork.end_block
    start, stop = parse_block_range(block, blocks, all_blocks, relfork.first_block, end)
    if end == relfork.first_block and relfork.size_bytes == 0:
        findings.append(Finding("relation.empty", "the file is empty (0 blocks): nothing to decode",
                                severity="info", relation=relfork.name, fork=relfork.fork))
    pages = [decode_page(raw, blkno, t.context) for blkno, raw in relfork.iter_blocks(start, stop)]
    if not pages and relfork.size_bytes:  # only a torn block: is it a page at all?
        pages = [decode_page(relfork.read_block(relfork.first_block), relfork.first_block, t.context)]
    _refuse_if_not_postgres(pages, t.label, relfork.block_size)
    return {
        "schema": "pgpage.page/1", "file": t.label, "fork": relfork.fork, "block_size": relfork.block_size,
        "major": t.context.major, "first_block": relfork.first_block, "end_block": end,
        "findings": [f.to_json() for f in findings],
        "pages": [_jsonable_page(p) for p in pages],
    }


def _jsonable_page(page: dict) -> dict:
    out = {k: v for k, v in page.items() if k != "raw_header"}
    out["findings"] = [f.to_json() for f in page["findings"]]
    return out


def _refuse_if_not_postgres(pages: list[dict], label: str, block_size: int) -> None:
    """A file in which no page has a PostgreSQL header is not a relation file: refuse it whole."""
    decoded = [p for p in pages if p["page_type"] != "new"]
    if not decoded:
        return
    if not any(header_is_plausible(p, block_size) for p in decoded):
        raise PgpageError(f"{label}: not a PostgreSQL relation file (no page has a valid page header)",
                          ExitCode.UNREADABLE)
