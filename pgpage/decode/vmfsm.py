"""Visibility map and free space map pages.

VM: two bits per heap block (ALL_VISIBLE, ALL_FROZEN), 4 heap blocks per byte after the
24-byte header, so one VM page covers (BLCKSZ - 24) * 4 heap blocks.
FSM: a binary max-tree of one-byte free-space categories per page (fsm_internals.h); the
pages themselves form a tree of FSM_TREE_DEPTH levels laid out depth-first on disk.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.ksy.fsm_page import FsmPage
from pgpage.decode.ksy.vm_page import VmPage

VISIBILITYMAP_ALL_VISIBLE = 0x01
VISIBILITYMAP_ALL_FROZEN = 0x02
FSM_CATEGORIES = 256


def vm_bits(map_bytes: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(all_visible, all_frozen) boolean arrays, one entry per heap block the page covers."""
    b = np.frombuffer(map_bytes, dtype=np.uint8)
    pairs = (b[:, None] >> np.array([0, 2, 4, 6], dtype=np.uint8)) & 3  # 4 heap blocks per byte, low bits first
    pairs = pairs.reshape(-1)
    return (pairs & VISIBILITYMAP_ALL_VISIBLE) != 0, (pairs & VISIBILITYMAP_ALL_FROZEN) != 0


def decode_vm_page(raw: bytes, vm_blkno: int, page: dict) -> None:
    vm = VmPage.from_bytes(raw)
    visible, frozen = vm_bits(vm.map_bytes)
    first = vm_blkno * vm.heap_blocks_per_page
    nonzero = np.flatnonzero(visible | frozen)
    last = int(nonzero[-1]) + 1 if len(nonzero) else 0
    page["vm"] = {
        "first_heap_block": first,
        "heap_blocks_per_page": vm.heap_blocks_per_page,
        "all_visible": int(visible.sum()),
        "all_frozen": int(frozen.sum()),
        "frozen_not_visible": int((frozen & ~visible).sum()),
        # up to the last heap block with a bit set; blocks beyond are (false, false)
        "bits": [{"blkno": first + i, "all_visible": bool(visible[i]), "all_frozen": bool(frozen[i])}
                 for i in range(last)],
    }


def fsm_slots_per_page(block_size: int) -> int:
    return (block_size - 28) - (block_size // 2 - 1)


def fsm_tree_depth(block_size: int) -> int:
    """Levels needed to address 2^32 heap blocks (3 at 8 KiB)."""
    slots, depth, covered = fsm_slots_per_page(block_size), 1, fsm_slots_per_page(block_size)
    while covered < 2 ** 32:
        covered *= slots
        depth += 1
    return depth


def fsm_logical_to_physical(level: int, logical: int, block_size: int) -> int:
    """Physical block of FSM page (level, logical page number): freespace.c's fsm_logical_to_physical."""
    slots = fsm_slots_per_page(block_size)
    leafno = logical
    for _ in range(level):
        leafno *= slots
    pages = 0
    for _ in range(fsm_tree_depth(block_size)):
        pages += leafno + 1
        leafno //= slots
    return pages - level - 1


def fsm_physical_to_logical(blkno: int, block_size: int) -> tuple[int, int]:
    """(level, logical page number) of FSM block ``blkno``; level 0 pages hold heap blocks.

    The inverse of freespace.c's fsm_logical_to_physical: pages are laid out depth-first,
    each page followed by its subtree.
    """
    slots = fsm_slots_per_page(block_size)
    level = fsm_tree_depth(block_size) - 1
    logical, rest = 0, blkno
    while rest > 0 and level > 0:
        rest -= 1  # step past this page into its children
        subtree = sum(slots ** i for i in range(level))  # pages under one child, the child included
        child, rest = divmod(rest, subtree)
        logical = logical * slots + child
        level -= 1
    return level, logical


def decode_fsm_page(raw: bytes, page: dict) -> None:
    fsm = FsmPage.from_bytes(raw)
    block_size = len(raw)
    nodes = fsm.fp_nodes
    leaves = fsm.leaf_nodes
    cat_step = block_size // FSM_CATEGORIES
    level, logical = fsm_physical_to_logical(page["blkno"], block_size)
    slots = len(leaves)
    page["fsm"] = {
        "fp_next_slot": fsm.fp_next_slot,
        "level": level,
        "logical_page": logical,
        "root": nodes[0],
        # fsm_page_contents: every non-zero node, "index: value"
        "nodes": {i: v for i, v in enumerate(nodes) if v},
        "slots": [{"slot": s, "target": logical * slots + s, "category": c,
                   "free_bytes_at_least": c * cat_step}
                  for s, c in enumerate(leaves) if c],
        "slot_target": "heap blocks" if level == 0 else f"FSM pages of level {level - 1}",
    }


def fsm_page_contents_text(fsm: dict) -> str:
    """The text pageinspect's fsm_page_contents returns for the same page."""
    lines = [f"{i}: {v}" for i, v in fsm["nodes"].items()]
    lines.append(f"fp_next_slot: {fsm['fp_next_slot']}")
    return "\n".join(lines) + "\n"
