"""Command bodies: resolve the target, run decode/analysis, hand the result to a renderer.

Kept apart from cli/main.py so that ``pgpage --help`` imports none of this.
"""
from __future__ import annotations

from pgpage.findings import ERROR, ExitCode, Finding, PgpageError


def parse_block_range(block: int | None, blocks: str | None, all_blocks: bool, first: int, end: int) -> tuple[int, int]:
    """[start, stop) of global block numbers; the fork's first block when nothing is asked."""
    chosen = sum(x is not None and x is not False for x in (block, blocks, all_blocks or None))
    if chosen > 1:
        raise PgpageError("give only one of --block, --blocks and --all", ExitCode.USAGE)
    if all_blocks:
        return first, end
    if block is not None:
        if not first <= block < end:
            raise PgpageError(f"block {block} is outside this file's blocks {first}..{end - 1}"
                              if end > first else f"block {block}: the file holds no whole block", ExitCode.USAGE)
        return block, block + 1
    if blocks is not None:
        try:
            a, b = (int(x) if x else None for x in blocks.split(":"))
        except ValueError:
            raise PgpageError(f"--blocks takes A:B, got {blocks!r}", ExitCode.USAGE) from None
        a = first if a is None else a
        b = end if b is None else b
        if not (first <= a < b <= end):
            raise PgpageError(f"--blocks {blocks} is outside this file's blocks {first}..{end - 1}", ExitCode.USAGE)
        return a, b
    return first, min(first + 1, end)


def page_command(target, block, blocks, all_blocks, db, rel, fork, json_out) -> int:
    from pgpage.decode.page import decode_page
    from pgpage.storage.target import resolve_fork

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
    if stop == end and relfork.size_bytes % relfork.block_size and (block is None or all_blocks):
        pass  # the torn tail is already a segment.partial_block finding
    if not pages and relfork.size_bytes:  # only a torn block: is it a page at all?
        pages = [decode_page(relfork.read_block(relfork.first_block), relfork.first_block, t.context)]
    _refuse_if_not_postgres(pages, t.label, relfork.block_size)
    doc = {
        "schema": "pgpage.page/1", "file": t.label, "fork": relfork.fork, "block_size": relfork.block_size,
        "major": t.context.major, "first_block": relfork.first_block, "end_block": end,
        "findings": [f.to_json() for f in findings],
        "pages": [_jsonable_page(p) for p in pages],
    }
    if json_out:
        from pgpage.render.output import emit_json
        emit_json(doc)
    else:
        from pgpage.render.page import render_pages
        render_pages(doc)
    all_findings = findings + [f for p in pages for f in p["findings"]]
    return int(ExitCode.FINDINGS if any(f.severity == ERROR for f in all_findings) else ExitCode.CLEAN)


def _jsonable_page(page: dict) -> dict:
    out = {k: v for k, v in page.items() if k != "raw_header"}
    out["findings"] = [f.to_json() for f in page["findings"]]
    return out


def _refuse_if_not_postgres(pages: list[dict], label: str, block_size: int) -> None:
    """A file in which no page has a PostgreSQL header is not a relation file: refuse it whole."""
    from pgpage.decode.page import header_is_plausible
    decoded = [p for p in pages if p["page_type"] != "new"]
    if not decoded:
        return
    if not any(header_is_plausible(p, block_size) for p in decoded):
        raise PgpageError(f"{label}: not a PostgreSQL relation file (no page has a valid page header)",
                          ExitCode.UNREADABLE)


def scan_command(pgdata, db_name, top, kind, name, json_out) -> int:
    from pgpage import survey
    from pgpage.render.progress import progress
    from pgpage.storage.datadir import open_data_directory

    cluster = open_data_directory(pgdata)
    kinds = {k.strip() for k in kind.split(",")} if kind else None
    dbs = [cluster.database(db_name)] if db_name else [d for d in cluster.databases() if d.path.is_dir()]
    plan = [(d, survey.select_relations(d.relations(), kinds, name)) for d in dbs]
    if top is not None:
        plan = [(d, rels[:top]) for d, rels in plan]
    total_blocks = sum(f.nblocks for _, rels in plan for r in rels for f in r.forks.values())
    doc = {"schema": "pgpage.scan/1", "cluster": survey.cluster_summary(cluster), "databases": []}
    with progress("scanning", total_blocks) as advance:
        for d, rels in plan:
            entry = survey.database_summary(cluster, d)
            entry["relations"] = [survey.relation_health(cluster, r, advance) for r in rels]
            entry["findings"] = [f.to_json() for f in d.findings]
            doc["databases"].append(entry)
    doc["findings"] = [f.to_json() for f in cluster.findings]
    if json_out:
        from pgpage.render.output import emit_json
        emit_json(doc)
    else:
        from pgpage.render.scan import render_scan
        render_scan(doc)
    errors = [f for f in _all_findings(doc) if f.get("severity", "error") == ERROR]
    return int(ExitCode.FINDINGS if errors else ExitCode.CLEAN)


def _all_findings(doc: dict) -> list[dict]:
    out = list(doc["findings"])
    for d in doc["databases"]:
        out += d["findings"]
        for r in d["relations"]:
            out += r["findings"]
    return out
