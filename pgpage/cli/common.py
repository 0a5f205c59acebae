"""Helpers every command body shares: block ranges, finding tallies, output choice."""
from __future__ import annotations

from pgpage.findings import ERROR, ExitCode, PgpageError


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


def exit_status(findings) -> int:
    """1 when any finding (a Finding or its JSON dict) is an error, else 0."""
    def sev(f):
        return f.get("severity", ERROR) if isinstance(f, dict) else f.severity
    return int(ExitCode.FINDINGS if any(sev(f) == ERROR for f in findings) else ExitCode.CLEAN)


def emit(doc: dict, json_out: bool, render) -> None:
    """JSON to stdout, or the text renderer ``render(doc)``."""
    if json_out:
        from pgpage.render.output import emit_json
        emit_json(doc)
    else:
        render(doc)
