"""HOT chains and update chains within a page, verify_heapam's update chain validation for a whole chunk
at once, plus the rule that a HOT-updated tuple whose updater committed is followed, at its t_ctid, by
a tuple that updater inserted."""
from __future__ import annotations

import numpy as np

from pgpage.decode.flags import HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, LP_DEAD, LP_NORMAL, LP_REDIRECT, LP_UNUSED
from pgpage.decode.xact import ST_ABORTED, ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS
from pgpage.findings import Finding


def hot_chain_findings(ctx, items, blk, index, rd_valid, target, ti, header_ok, xmin, update_xid, multi, im2,
                xmin_st, xmax_st, status_ok, hot_updated, lock_only, cblk, coff, tblk, tlp, tpage, maxoff):
    """verify_heapam's update chain validation, per page, for the whole chunk at once.

    Successors: a valid redirect's target, or a tuple's t_ctid when it names another item of the
    same page. Each item can be the successor of one predecessor (the first by offset wins, the
    others intersect). Plus one rule verify_heapam leaves out: a HOT-updated tuple whose updater
    committed must be followed, at its t_ctid, by a tuple whose xmin is that updater.
    """
    out: list[Finding] = []
    page, lp, flags = items.page, items.lp, items.flags
    ncols = index.shape[1]
    tuple_of_item = np.full(len(lp), -1, dtype=np.int64)
    tuple_of_item[ti] = np.arange(len(ti))
    lp_valid = rd_valid.copy()
    lp_valid[ti] = True   # verify_heapam: the line pointer passed its checks (the header may still be bad)

    # tuple successors on the same page
    same_page = (cblk == tblk) & (coff != tlp) & (coff >= 1) & (coff <= maxoff[ti])
    t_next_item = np.where(same_page, index[tpage, np.clip(coff, 0, ncols - 1)], -1)
    # edges: (source item, target item, kind) with kind 0 redirect, 1 tuple
    rsrc = np.flatnonzero(rd_valid)
    rdst = index[page[rsrc], target[rsrc]]
    tsrc_t = np.flatnonzero(t_next_item >= 0)
    tdst = t_next_item[tsrc_t]
    keep = lp_valid[tdst]
    tsrc_t, tdst = tsrc_t[keep], tdst[keep]
    # a tuple edge needs a tuple target whose xmin is this tuple's update xid (unknown multi: assume so)
    tgt_tuple = tuple_of_item[tdst]
    is_tuple_target = (flags[tdst] != LP_REDIRECT) & (tgt_tuple >= 0)
    tsrc_t, tdst, tgt_tuple = tsrc_t[is_tuple_target], tdst[is_tuple_target], tgt_tuple[is_tuple_target]
    cur_x = update_xid[tsrc_t]
    uncertain = multi[tsrc_t] & (cur_x < 0)
    matches = uncertain | ((cur_x > 0) & (cur_x == xmin[tgt_tuple]))
    tsrc_t, tdst, tgt_tuple, uncertain = tsrc_t[matches], tdst[matches], tgt_tuple[matches], uncertain[matches]
    tsrc = ti[tsrc_t]

    # redirect targets must be heap-only tuples
    rd_tuple = tuple_of_item[rdst]
    not_ho = (rd_tuple >= 0) & ((np.append(im2, 0)[rd_tuple] & HEAP_ONLY_TUPLE) == 0)  # (-1: no tuple, none at all)
    for k in np.flatnonzero(not_ho):
        s = rsrc[k]
        out.append(ctx.finding("heap.hot.redirect_not_heap_only", "redirected line pointer points to a"
                               f" non-heap-only tuple at offset {lp[rdst[k]]}", blk[s],
                               lp[s], actual=int(lp[rdst[k]])))

    # predecessor claims, in offset order per page and target
    src = np.concatenate([rsrc, tsrc])
    dst = np.concatenate([rdst, tdst])
    kind = np.concatenate([np.zeros(len(rsrc), np.int8), np.ones(len(tsrc), np.int8)])
    tref = np.concatenate([np.full(len(rsrc), -1), tsrc_t])
    uref = np.concatenate([np.zeros(len(rsrc), bool), uncertain])
    order = np.lexsort((lp[src], dst))
    src, dst, kind, tref, uref = src[order], dst[order], kind[order], tref[order], uref[order]
    first = np.ones(len(dst), dtype=bool)
    first[1:] = dst[1:] != dst[:-1]
    has_pred = np.zeros(len(lp), dtype=bool)
    has_pred[dst[first]] = True
    winner_of = np.full(len(lp), -1, dtype=np.int64)
    winner_of[dst[first]] = src[first]
    for k in np.flatnonzero(~first):
        what = "redirect line pointer points" if kind[k] == 0 else "tuple points to new version"
        out.append(ctx.finding("heap.hot.chains_intersect", f"{what} at offset {lp[dst[k]]}, but offset"
                               f" {lp[winner_of[dst[k]]]} also points there", blk[src[k]], lp[src[k]],
                               actual=int(lp[dst[k]])))
    # HOT flags and commit status along tuple edges that won their target
    won = np.flatnonzero(first & (kind == 1) & ~uref)
    j, tj = tref[won], tuple_of_item[dst[won]]
    cur_hot = (im2[j] & HEAP_HOT_UPDATED) != 0
    next_ho = (im2[tj] & HEAP_ONLY_TUPLE) != 0
    nxt = lp[dst[won]]
    for k in np.flatnonzero(~cur_hot & next_ho):
        out.append(ctx.finding("heap.hot.non_hot_update_to_heap_only", "non-heap-only update produced a heap-only"
                               f" tuple at offset {nxt[k]}", tblk[j[k]], tlp[j[k]], actual=int(nxt[k])))
    for k in np.flatnonzero(cur_hot & ~next_ho):
        out.append(ctx.finding("heap.hot.hot_update_to_non_heap_only", "heap-only update produced a non-heap only"
                               f" tuple at offset {nxt[k]}", tblk[j[k]], tlp[j[k]], actual=int(nxt[k])))
    aborted = status_ok[j] & status_ok[tj] & (xmin_st[j] == ST_ABORTED) \
        & np.isin(xmin_st[tj], (ST_COMMITTED, ST_IN_PROGRESS))
    for k in np.flatnonzero(aborted):
        state = "committed" if xmin_st[tj[k]] == ST_COMMITTED else "in-progress"
        out.append(ctx.finding("heap.hot.aborted_xmin_updated", f"tuple with aborted xmin {xmin[j[k]]} was updated to"
                               f" produce a tuple at offset {nxt[k]} with {state} xmin {xmin[tj[k]]}", tblk[j[k]],
                               tlp[j[k]], actual=int(xmin[tj[k]])))
    # a chain starts at a redirect or a non-heap-only tuple
    root_ho = status_ok & np.isin(xmin_st, (ST_COMMITTED, ST_FROZEN, ST_IN_PROGRESS)) & ~has_pred[ti] \
        & ((im2 & HEAP_ONLY_TUPLE) != 0)
    for j in np.flatnonzero(root_ho):
        out.append(ctx.finding("heap.hot.heap_only_root", "tuple is root of chain but is marked as heap-only tuple",
                               tblk[j], tlp[j]))
    # HOT-updated by a committed updater: the successor must be there, inserted by that updater
    committed_hot = np.flatnonzero(header_ok & hot_updated & ~lock_only & (xmax_st == ST_COMMITTED)
                                   & (cblk == tblk) & (coff != tlp) & (coff >= 1) & (update_xid > 0))
    last = maxoff[ti[committed_hot]]
    for j in committed_hot[coff[committed_hot] > last]:
        out.append(ctx.finding("heap.hot.bad_link", f"HOT-updated tuple's t_ctid names offset {coff[j]}, past the"
                               f" page's last line pointer {maxoff[ti[j]]}", tblk[j], tlp[j],
                               actual=f"({cblk[j]},{coff[j]})"))
    inside = committed_hot[coff[committed_hot] <= last]
    nitem = index[tpage[inside], coff[inside]]
    nflags = flags[nitem]
    names = {LP_UNUSED: "unused", LP_DEAD: "dead", LP_REDIRECT: "a redirect"}
    for k in np.flatnonzero(nflags != LP_NORMAL):
        j = inside[k]
        code = "heap.hot.link_to_unused" if nflags[k] == LP_UNUSED else "heap.hot.broken_chain"
        out.append(ctx.finding(code, f"HOT-updated tuple's successor at offset {coff[j]} is {names[int(nflags[k])]},"
                               f" though its updater {update_xid[j]} committed", tblk[j], tlp[j],
                               actual=f"({cblk[j]},{coff[j]})"))
    nt = tuple_of_item[nitem]
    ntc = np.maximum(nt, 0)
    mismatch = (nflags == LP_NORMAL) & (nt >= 0) & header_ok[ntc] & (xmin[ntc] != update_xid[inside])
    for k in np.flatnonzero(mismatch):
        j = inside[k]
        out.append(ctx.finding("heap.hot.xmin_mismatch", f"HOT-updated tuple's updater {update_xid[j]} is not the"
                               f" xmin {xmin[nt[k]]} of its successor at offset {coff[j]}", tblk[j], tlp[j],
                               expected=int(update_xid[j]), actual=int(xmin[nt[k]])))
    return out
