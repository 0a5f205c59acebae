"""What every page decoder builds on: the caller's ``PageContext``, the line pointer array, TIDs,
MAXALIGN and flag names.

``decode.page`` (which kind of page, its header) and the per-access-method decoders it hands a page
to (``decode.heap``, ``decode.nbtree``, ``decode.otheram``) share these. They live apart from
``decode.page`` so that those decoders need not import the module that dispatches to them.
"""
from __future__ import annotations

from dataclasses import dataclass

from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.ksy.pg_page import PgPage

MAXALIGN = 8

LP_FLAG_NAMES = ENUMS["pg_page::lp_flags"]


def maxalign(n: int) -> int:
    return (n + MAXALIGN - 1) & ~(MAXALIGN - 1)


def flag_names(value: int, names: dict[int, str]) -> list[str]:
    """Names of the single bits set in ``value``, lowest first; unknown bits as hex."""
    out = []
    for bit in range(value.bit_length()):
        b = 1 << bit
        if value & b:
            out.append(names.get(b, f"0x{b:04X}"))
    return out


def format_tid(block: int, offset: int) -> str:
    return f"({block},{offset})"


@dataclass(frozen=True)
class PageContext:
    """What the caller knows about where the page came from.

    ``am`` is the relation's access method when a catalog said so ("heap", "btree", ...);
    without it the page type is recognised from the page itself. ``major`` is the server
    major when known (names and a few layouts differ). ``checksums`` is True/False when
    pg_control says whether data checksums are on, None when unknown. ``index_columns``: an index's
    columns (``deform.Attribute``s of its pg_attribute rows) when the catalog gives them, so that GIN, GiST
    and SP-GiST keys are shown as values.
    """

    fork: str = "main"
    am: str | None = None
    major: int | None = None
    checksums: bool | None = None
    relation: str | None = None
    block_size: int = 8192
    index_columns: tuple = ()


def line_pointers(parsed: PgPage) -> list[dict]:
    """Every line pointer as (lp, lp_off, lp_flags, lp_len) with the flag's name."""
    out = []
    for i, lp in enumerate(parsed.linp, start=1):
        flags = int(lp.lp_flags)
        out.append({"lp": i, "lp_off": lp.lp_off, "lp_flags": flags,
                    "lp_flags_name": LP_FLAG_NAMES.get(flags), "lp_len": lp.lp_len})
    return out
