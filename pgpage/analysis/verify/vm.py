"""The visibility map and PD_ALL_VISIBLE against what the pages hold: the rules of
``pg_check_visible``/``pg_check_frozen`` and of the warnings VACUUM prints (``vacuumlazy.c``), and VM
bits past the heap's end. Cross-file rules are warnings when pg_control is not current."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.flags import LP_DEAD, PD_ALL_VISIBLE
from pgpage.decode.vector import SIZE_OF_PAGE_HEADER, LinePointers, PageHeaders
from pgpage.decode.xact import ST_ABORTED, ST_COMMITTED, ST_IN_PROGRESS
from pgpage.findings import ERROR, WARNING, Finding

VM_HEAP_BLOCKS_PER_BYTE = 4


def vm_heap_blocks_per_page(block_size: int) -> int:
    """HEAPBLOCKS_PER_PAGE: (BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * 4."""
    return (block_size - SIZE_OF_PAGE_HEADER) * VM_HEAP_BLOCKS_PER_BYTE


@dataclass
class TupleFacts:
    """Per-tuple arrays the VM rules need (indexes into the chunk's line pointers), from the heap rules."""
    item: np.ndarray
    xmin_state: np.ndarray
    xmax_state: np.ndarray
    needs_freeze: np.ndarray


def vm_bits_for(vm_page_bytes: Callable[[int], np.ndarray | None], first: int, n: int,
                block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(all_visible, all_frozen) for heap blocks first..first+n-1, reading VM pages through
    ``vm_page_bytes(vm_blkno)`` (None beyond the VM fork: both bits clear)."""
    per_page = vm_heap_blocks_per_page(block_size)
    vis = np.zeros(n, dtype=bool)
    frz = np.zeros(n, dtype=bool)
    b = first
    while b < first + n:
        vblk, start = divmod(b, per_page)
        count = min(per_page - start, first + n - b)
        page = vm_page_bytes(vblk)
        if page is not None:
            body = page[SIZE_OF_PAGE_HEADER:]
            idx = start + np.arange(count)
            byte = body[idx // VM_HEAP_BLOCKS_PER_BYTE]
            shift = ((idx % VM_HEAP_BLOCKS_PER_BYTE) * 2).astype(np.uint8)
            bits = (byte >> shift) & 3
            vis[b - first:b - first + count] = (bits & 1) != 0
            frz[b - first:b - first + count] = (bits & 2) != 0
        b += count
    return vis, frz


def vm_rules(ctx: VerifyContext, blocks, valid, zero, h: PageHeaders, items: LinePointers, facts: TupleFacts,
              vm) -> list[Finding]:
    """The visibility map and PD_ALL_VISIBLE against what the page holds."""
    out: list[Finding] = []
    cross = ERROR if ctx.consistent else WARNING
    pd_vis = valid & ((h.flags & PD_ALL_VISIBLE) != 0)
    if vm is not None:
        vis, frz = vm
        for i in np.flatnonzero(frz & ~vis):
            out.append(ctx.finding("vm.frozen_not_visible", "the visibility map marks the block all-frozen"
                                   " but not all-visible", blocks[i], severity=cross))
        for i in np.flatnonzero(vis & zero):
            out.append(ctx.finding("vm.all_visible_new_page", "the visibility map marks an uninitialised (all-zero)"
                                   " page all-visible", blocks[i], severity=cross))
        for i in np.flatnonzero(vis & valid & ~pd_vis):   # VACUUM warns and clears the bit
            out.append(ctx.finding("vm.bit_without_pd_all_visible", "page is not marked all-visible but visibility map"
                                   " bit is set", blocks[i], severity=WARNING))
        for i in np.flatnonzero(pd_vis & ~vis):
            out.append(ctx.finding("vm.page_all_visible_not_in_vm", "page is marked all-visible (PD_ALL_VISIBLE) but"
                                   " its visibility map bit is clear", blocks[i], severity=WARNING))
    else:
        vis = frz = np.zeros(len(blocks), dtype=bool)
    claims = (vis & valid) | pd_vis
    if not claims.any():
        return out
    npages = len(blocks)
    # LP_DEAD items on a page that says every tuple is visible to everyone
    dead_items = items.flags == LP_DEAD
    dead_pages = np.zeros(npages, dtype=bool)
    dead_pages[items.page[dead_items]] = True
    for i in np.flatnonzero(claims & dead_pages):
        first_dead = items.lp[dead_items & (items.page == i)][0]
        code = "vm.all_visible_wrong" if vis[i] else "page.all_visible_wrong"
        out.append(ctx.finding(code, "page containing LP_DEAD items is marked as all-visible", blocks[i], first_dead,
                               severity=cross))
    # tuples that are not visible to everyone (pg_check_visible), or not frozen (pg_check_frozen)
    tpage = items.page[facts.item]
    tlp = items.lp[facts.item]
    xs, ms = facts.xmin_state, facts.xmax_state
    invisible = np.isin(xs, (ST_ABORTED, ST_IN_PROGRESS)) | np.isin(ms, (ST_COMMITTED, ST_IN_PROGRESS))
    invisible &= claims[tpage]
    for j in np.flatnonzero(invisible):
        i = tpage[j]
        why = ("its inserter aborted" if xs[j] == ST_ABORTED else "its inserter is in progress"
               if xs[j] == ST_IN_PROGRESS else "its deleter committed" if ms[j] == ST_COMMITTED
               else "its deleter is in progress")
        code = "vm.all_visible_wrong" if vis[i] else "page.all_visible_wrong"
        where = "the visibility map" if vis[i] else "PD_ALL_VISIBLE"
        out.append(ctx.finding(code, f"{where} says every tuple is visible to everyone, but {why}", blocks[i],
                               tlp[j], severity=cross))
    unfrozen = facts.needs_freeze & frz[tpage] & valid[tpage]
    for j in np.flatnonzero(unfrozen):
        out.append(ctx.finding("vm.all_frozen_wrong", "the visibility map marks the block all-frozen,"
                               " but this tuple still needs freezing", blocks[tpage[j]], tlp[j], severity=cross))
    return out


def vm_tail_findings(ctx: VerifyContext, vm_page_bytes: Callable[[int], np.ndarray | None], vm_nblocks: int,
                     heap_nblocks: int) -> list[Finding]:
    """VM bits set for heap blocks past the heap's end (truncation clears them)."""
    per_page = vm_heap_blocks_per_page(ctx.block_size)
    out = []
    for vblk in range(heap_nblocks // per_page, vm_nblocks):
        page = vm_page_bytes(vblk)
        if page is None:
            continue
        lo = max(heap_nblocks - vblk * per_page, 0)
        body = page[SIZE_OF_PAGE_HEADER:]
        idx = np.arange(lo, per_page)
        bits = (body[idx // 4] >> ((idx % 4) * 2).astype(np.uint8)) & 3
        setb = np.flatnonzero(bits != 0)
        if len(setb):
            b = vblk * per_page + int(idx[setb[0]])
            out.append(ctx.finding("vm.bits_beyond_heap_end", f"{len(setb)} heap blocks past the relation's end"
                                   f" ({heap_nblocks} blocks) have visibility map bits set (first: heap block {b})",
                                   vblk, fork="vm", severity=WARNING, actual=len(setb)))
    return out
