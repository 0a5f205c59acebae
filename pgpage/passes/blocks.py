"""Which blocks of a fork a command reads: ``--block N``, ``--blocks A:B`` or ``--all``, checked against the
blocks the fork holds (known only once it is opened; a fork of one segment starts past block 0)."""
from __future__ import annotations

from pgpage.findings import ExitCode, PgpageError


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
        if a >= b:
            raise PgpageError(f"--blocks {blocks} is empty: A:B means blocks A to B-1 (--blocks {a}:{a + 1} is"
                              f" block {a})", ExitCode.USAGE)
        if not (first <= a < b <= end):
            raise PgpageError(f"--blocks {blocks} is outside this file's blocks {first}..{end - 1}", ExitCode.USAGE)
        return a, b
    return first, min(first + 1, end)
