"""The structure of the tree, from the files alone, as findings with block and item: sibling links
agree both ways and stay on one level, every level is one chain from its leftmost page, levels agree
with the leaf flag and the metapage, every downlink points at a live page of the level below, each
child has exactly one downlink (unless its split is incomplete or it is being deleted), downlinks
come in the child level's sibling order. Every walk is bounded by the number of blocks and stops on a
page it has seen (a cycle is a finding, not a hang). Run on a ``BtreeScan`` once every page is in it.
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.btree.pages import (BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_ROOT, HALF_DEAD, IN_TREE, KIND_NAMES,
                                         P_NONE)
from pgpage.analysis.btree.sink import FINDINGS_PER_CODE, FindingSink
from pgpage.decode.vector import sorted_unique
from pgpage.findings import ERROR, WARNING


def structure_checks(scan) -> None:
    find = scan.find
    n = scan.nblocks
    kind, flags, level, prev, nxt = scan.kind, scan.flags, scan.level, scan.prev, scan.next
    live = scan.seen & np.isin(kind, IN_TREE)
    blocks = np.arange(n)
    meta = scan.metapage or {}

    # levels against the leaf flag
    leafflag = (flags & BTP_LEAF) != 0
    for b in blocks[live & leafflag & (level != 0)][:FINDINGS_PER_CODE + 1]:
        find("btree.level.leaf_not_zero", f"leaf page at btpo_level {int(level[b])}", block=int(b),
             expected=0, actual=int(level[b]))
    for b in blocks[live & ~leafflag & (level == 0)][:FINDINGS_PER_CODE + 1]:
        find("btree.level.internal_zero", "internal page at btpo_level 0", block=int(b), actual=0)

    # the metapage's root and fast root
    root, mlevel = meta.get("root"), meta.get("level")
    roots = blocks[live & ((flags & BTP_ROOT) != 0)]
    if root:
        if root >= n or not live[root]:
            find("btree.meta.bad_root", f"the metapage's root {root} is not a live page of this index", block=0,
                 actual=root)
        else:
            if not flags[root] & BTP_ROOT:
                find("btree.meta.root_not_flagged", f"block {root} is the metapage's root but lacks BTP_ROOT",
                     block=root)
            if level[root] != mlevel:
                find("btree.meta.root_level", f"the root is at btpo_level {int(level[root])}, the metapage says"
                     f" {mlevel}", block=root, expected=mlevel, actual=int(level[root]))
            if prev[root] or nxt[root]:
                find("btree.meta.root_has_siblings", f"the root has siblings ({int(prev[root])} <- -> "
                     f"{int(nxt[root])})", block=root)
        for b in roots:
            if b != root:
                find("btree.meta.stray_root", f"block {int(b)} is flagged BTP_ROOT but the root is {root}",
                     block=int(b))
        fast, flevel = meta.get("fastroot"), meta.get("fastlevel")
        if fast and (fast >= n or not live[fast]):
            find("btree.meta.bad_fastroot", f"the metapage's fast root {fast} is not a live page", block=0,
                 actual=fast)
        elif fast and level[fast] != flevel:
            find("btree.meta.fastroot_level", f"the fast root is at level {int(level[fast])}, the metapage says"
                 f" {flevel}", block=fast, expected=flevel, actual=int(level[fast]))
        if mlevel is not None and live.any() and int(level[live].max()) > mlevel:
            b = int(blocks[live][np.argmax(level[live])])
            find("btree.level.above_root", f"a live page at level {int(level[b])}, above the root's {mlevel}",
                 block=b, expected=mlevel, actual=int(level[b]))
    elif meta and live.any():
        find("btree.meta.no_root", f"the metapage has no root, yet {int(live.sum())} pages are in use", block=0)

    # sibling links, both ways, on one level
    lb = blocks[live]
    for direction, link, back in (("next", nxt, prev), ("prev", prev, nxt)):
        other = "prev" if direction == "next" else "next"
        t = link[lb].astype(np.int64)
        tc = np.minimum(t, max(n - 1, 0))
        has = t != P_NONE
        oor = has & ((t >= n) | ~scan.seen[tc])
        dead = has & ~oor & ~live[tc]
        mismatch = has & ~oor & ~dead & (back[tc] != lb)
        wrong_level = has & ~oor & ~dead & ~mismatch & (level[tc] != level[lb])
        _each(find, f"btree.sibling.{direction}_out_of_range", oor, lambda i: dict(
            message=f"btpo_{direction} {int(t[i])} is past the index's {n} blocks", block=int(lb[i]),
            actual=int(t[i])))
        _each(find, f"btree.sibling.{direction}_not_live", dead, lambda i: dict(
            message=f"btpo_{direction} {int(t[i])} is a {KIND_NAMES[int(kind[t[i]])]} page, not one in the tree",
            block=int(lb[i]), actual=int(t[i])))
        _each(find, f"btree.sibling.{direction}_mismatch", mismatch, lambda i: dict(
            message=f"btpo_{direction} is {int(t[i])}, whose btpo_{other} is {int(back[t[i]])}",
            block=int(lb[i]), expected=int(lb[i]), actual=int(back[t[i]])))
        _each(find, "btree.sibling.level_mismatch", wrong_level, lambda i: dict(
            message=f"sibling {int(t[i])} is at level {int(level[t[i]])}, this page at {int(level[lb[i]])}",
            block=int(lb[i]), expected=int(level[lb[i]]), actual=int(level[t[i]])))
    order = np.full(n, -1, dtype=np.int64)  # position of each page in its level's chain
    _walk_levels(scan, live, order)

    # downlinks: each points at a live page one level down
    dl = np.concatenate(scan._downlinks) if scan._downlinks else np.zeros((0, 3), dtype=np.int64)
    parent, item, child = dl[:, 0], dl[:, 1], dl[:, 2]
    cc = np.clip(child, 0, max(n - 1, 0))
    oor = (child <= 0) | (child >= n) | ~scan.seen[cc]
    half = ~oor & (kind[cc] == HALF_DEAD)  # a subtree being deleted: allowed
    dead = ~oor & ~half & ~live[cc]
    wrong = ~oor & ~half & ~dead & (level[cc].astype(np.int64) + 1 != level[parent].astype(np.int64))
    _each(find, "btree.downlink.out_of_range", oor, lambda j: dict(
        message=f"downlink to block {int(child[j])}, outside blocks 1..{n - 1}", block=int(parent[j]),
        item=int(item[j]), actual=int(child[j])))
    _each(find, "btree.downlink.not_live", dead, lambda j: dict(
        message=f"downlink to block {int(child[j])}, a {KIND_NAMES[int(kind[child[j]])]} page",
        block=int(parent[j]), item=int(item[j]), actual=int(child[j])))
    _each(find, "btree.downlink.level_mismatch", wrong, lambda j: dict(
        message=f"downlink to block {int(child[j])} at level {int(level[child[j]])} from level"
                f" {int(level[parent[j]])}", block=int(parent[j]), item=int(item[j]),
        expected=int(level[parent[j]]) - 1, actual=int(level[child[j]])))
    refs = np.bincount(child[~oor], minlength=n) if n else np.zeros(0, dtype=np.int64)
    dup = np.flatnonzero(refs > 1)
    _each(find, "btree.downlink.duplicate", np.ones(len(dup), dtype=bool), lambda i: dict(
        message=f"block {int(dup[i])} has {int(refs[dup[i]])} downlinks (from"
                f" {', '.join(map(str, parent[child == dup[i]][:5].tolist()))})",
        block=int(dup[i]), actual=int(refs[dup[i]])))
    if not (meta and root and root < n and live[root]):
        return
    # each page below the root has a downlink, unless the split that made it is incomplete
    rootlevel = int(level[root])
    anyhalf = bool((live & (kind == HALF_DEAD)).any())
    need = blocks[live & (level < rootlevel) & (refs[:n] == 0) & (kind != HALF_DEAD)]
    left = prev[need].astype(np.int64)
    incomplete = (left > 0) & (left < n) & ((flags[np.minimum(left, n - 1)] & BTP_INCOMPLETE_SPLIT) != 0)
    _each(find, "btree.downlink.missing", ~incomplete, lambda i: dict(
        message="no internal page points at this page" + (" (a page deletion is in progress)" if anyhalf else ""),
        severity=WARNING if anyhalf else ERROR, block=int(need[i])))
    # downlinks, read along each level from left to right, visit the level below from left to right
    onchain = order[parent] >= 0
    d = dl[onchain & ~oor]
    if len(d):
        d = d[np.lexsort((d[:, 1], order[d[:, 0]], level[d[:, 0]]))]
        pos = order[d[:, 2]]
        same_level = level[d[1:, 0]] == level[d[:-1, 0]]
        bad = np.flatnonzero(same_level & (pos[1:] >= 0) & (pos[:-1] >= 0) & (pos[1:] <= pos[:-1]))
        _each(find, "btree.downlink.order", np.ones(len(bad), dtype=bool), lambda i: dict(
            message=f"downlink to block {int(d[bad[i] + 1, 2])} comes after the downlink to"
                    f" {int(d[bad[i], 2])}, but its page lies left of it on level {int(level[d[bad[i], 2]])}",
            block=int(d[bad[i] + 1, 0]), item=int(d[bad[i] + 1, 1])))


def _each(find: FindingSink, code: str, mask: np.ndarray, describe) -> None:
    """One finding per True entry of ``mask`` (``describe(i)`` gives its fields), building
    messages only for those the sink keeps and counting the rest."""
    hits = np.flatnonzero(mask)
    for i in hits[:FINDINGS_PER_CODE]:
        kw = describe(int(i))
        find(code, kw.pop("message"), kw.pop("severity", ERROR), **kw)
    if len(hits) > FINDINGS_PER_CODE:
        find.add_count(code, len(hits) - FINDINGS_PER_CODE, describe(int(hits[0])).get("severity", ERROR))


def _walk_levels(scan, live: np.ndarray, order: np.ndarray) -> None:
    """Each level's sibling chain from its leftmost page, bounded and cycle-safe: it stops at
    the end of the level, at a block it has seen, or after as many steps as there are blocks.
    ``order[b]`` becomes page b's position on its level's chain."""
    from pgpage.decode import kernels
    find = scan.find
    n = scan.nblocks
    blocks = np.arange(n)
    visited = np.zeros(n, dtype=bool)
    for lv in sorted_unique(scan.level[live]):
        lv = int(lv)
        members = blocks[live & (scan.level == lv)]
        leftmost = members[scan.prev[members] == P_NONE]
        rightmost = members[scan.next[members] == P_NONE]
        if len(leftmost) != 1:
            find("btree.level.leftmost", f"level {lv} has {len(leftmost)} pages without a left sibling (one"
                 " expected)", block=int(leftmost[0]) if len(leftmost) else None, expected=1, actual=len(leftmost))
        if len(rightmost) != 1:
            find("btree.level.rightmost", f"level {lv} has {len(rightmost)} pages without a right sibling (one"
                 " expected)", block=int(rightmost[0]) if len(rightmost) else None, expected=1,
                 actual=len(rightmost))
        start = int(leftmost[0]) if len(leftmost) else (int(members[0]) if len(members) else 0)
        # the walk (compiled: one step per page) stops where the chain leaves the level's live pages (the
        # link checks report why) or comes back to a page it passed
        _, cycle = kernels.walk_chain(scan.next, live, scan.level, lv, start, visited, order)
        if cycle >= 0:
            find("btree.sibling.cycle", f"the sibling chain of level {lv} comes back to block {cycle}", block=cycle)
        missed = members[~visited[members]]
        if len(missed):
            find("btree.sibling.unreachable", f"{len(missed)} page(s) of level {lv} are not on the chain from its"
                 f" leftmost page (first: {', '.join(map(str, missed[:5].tolist()))})", block=int(missed[0]),
                 actual=len(missed))
