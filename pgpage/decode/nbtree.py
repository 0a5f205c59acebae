"""B-tree pages: bt_metap, bt_page_stats and bt_page_items from the page image alone.

Names and meanings follow pageinspect. Two readings depend on the server major: the 4 bytes
after btpo_next are ``btpo_level`` from 14 on and the union ``btpo`` {level, xact} before
(pageinspect names the column ``btpo`` there), and the metapage's fifth word is
``last_cleanup_num_delpages`` from 14 on and ``oldest_xact`` before.
"""
from __future__ import annotations

from kaitaistruct import KaitaiStructError

from pgpage.decode.flags import LP_DEAD
from pgpage.decode.ksy.constants import (BTP_DELETED, BTP_HALF_DEAD, BTP_HAS_FULLXID, BTP_LEAF, BTP_META, BTP_ROOT,
                                         INDEX_SIZE_MASK, SIZEOF_ItemIdData)
from pgpage.decode.ksy.layouts import ENUMS
from pgpage.decode.ksy.nbtree import Nbtree
from pgpage.decode.pagebase import PageContext, flag_names, format_tid, line_pointers
from pgpage.decode.versions import BTPO_LEVEL_SINCE, POSTING_LISTS_SINCE, SUPPORTED_MAJORS, bt_metap_columns

P_HIKEY = 1
BTPO_FLAG_NAMES = ENUMS["nbtree::btpo_flags"]


def decode_btree_page(raw: bytes, ctx: PageContext, page: dict, find) -> None:
    parsed = Nbtree.from_bytes(raw)
    opaque = parsed.opaque
    flags = opaque.btpo_flags
    page["bt_page_opaque"] = {
        "btpo_prev": opaque.btpo_prev, "btpo_next": opaque.btpo_next, "btpo_level": opaque.btpo_level,
        "btpo_flags": flags, "btpo_flag_names": flag_names(flags, BTPO_FLAG_NAMES), "btpo_cycleid": opaque.btpo_cycleid,
    }
    if flags & BTP_META:
        page["bt_metap"] = metapage(parsed, ctx, find)
        return
    page["bt_page_stats"] = page_stats(parsed, raw, ctx, page["blkno"])
    if flags & BTP_DELETED:
        if flags & BTP_HAS_FULLXID:
            d = parsed.deleted_page_data
            page["safexid"] = f"{d.safexid_epoch}:{d.safexid_xid}" if d.safexid_epoch else str(d.safexid_xid)
            page["bt_page_items"] = []
            return
        page["safexid"] = str(opaque.btpo_xact)  # pre-14: btpo.xact, a 32-bit xid
    page["bt_page_items"] = page_items(parsed, raw, ctx, find)


def metapage(parsed: Nbtree, ctx: PageContext, find) -> dict | None:
    try:
        m = parsed.meta
    except KaitaiStructError as e:
        find("btree.meta.bad_magic", f"block 0 is flagged BTP_META but holds no B-tree metapage: {e}")
        return None
    novac = m.btm_version >= 3  # the fields after btm_fastlevel exist only from version 3
    values = {"magic": m.btm_magic, "version": m.btm_version, "root": m.btm_root, "level": m.btm_level,
              "fastroot": m.btm_fastroot, "fastlevel": m.btm_fastlevel,
              "oldest_xact": m.btm_oldest_btpo_xact if novac else None,
              "last_cleanup_num_delpages": m.btm_last_cleanup_num_delpages if novac else None,
              "last_cleanup_num_tuples": m.btm_last_cleanup_num_heap_tuples if novac else None,
              "allequalimage": bool(m.btm_allequalimage) if novac else None}
    meta = {k: values[k] for k in bt_metap_columns(ctx.major or SUPPORTED_MAJORS[-1])}
    if not 2 <= m.btm_version <= 4:
        find("btree.meta.bad_version", f"btm_version {m.btm_version} is not 2, 3 or 4", actual=m.btm_version)
    return meta


def page_type_letter(flags: int) -> str:
    """bt_page_stats' type: d deleted, e ignorable (half-dead), l leaf, r root, i internal."""
    if flags & BTP_DELETED:
        return "d"
    if flags & BTP_HALF_DEAD:
        return "e"
    if flags & BTP_LEAF:
        return "l"
    if flags & BTP_ROOT:
        return "r"
    return "i"


def page_stats(parsed: Nbtree, raw: bytes, ctx: PageContext, blkno: int) -> dict:
    """pageinspect's GetBTPageStatistics."""
    hdr = parsed.page.header
    opaque = parsed.opaque
    live = dead = total_size = 0
    deleted = bool(opaque.btpo_flags & BTP_DELETED)
    if not deleted:
        for lp in parsed.page.linp:
            off = lp.lp_off
            if off + 8 <= len(raw):
                total_size += int.from_bytes(raw[off + 6:off + 8], "little") & INDEX_SIZE_MASK
            if int(lp.lp_flags) == LP_DEAD:
                dead += 1
            else:
                live += 1
    n = live + dead
    old_deleted = ctx.major is not None and ctx.major < BTPO_LEVEL_SINCE
    stats = {
        "blkno": blkno,
        "type": page_type_letter(opaque.btpo_flags),
        "live_items": live, "dead_items": dead,
        "avg_item_size": total_size // n if n else 0,
        "page_size": hdr.page_size_declared,
        # before 14 pageinspect returns early for a deleted page, leaving free_size 0
        "free_size": 0 if deleted and old_deleted else max(hdr.pd_upper - hdr.pd_lower - SIZEOF_ItemIdData, 0),
        "btpo_prev": opaque.btpo_prev, "btpo_next": opaque.btpo_next,
    }
    if ctx.major is not None and ctx.major < BTPO_LEVEL_SINCE:
        stats["btpo"] = opaque.btpo_level
    else:
        stats["btpo_level"] = opaque.btpo_level
    stats["btpo_flags"] = opaque.btpo_flags
    return stats


def page_items(parsed: Nbtree, raw: bytes, ctx: PageContext, find) -> list[dict]:
    """bt_page_items: one row per line pointer, with nbtree's reading of each tuple."""
    opaque = parsed.opaque
    leaf = bool(opaque.btpo_flags & BTP_LEAF)
    rightmost = opaque.btpo_next == 0
    items = []
    special = parsed.page.header.pd_special
    for lp in line_pointers(parsed.page):
        n, off, length = lp["lp"], lp["lp_off"], lp["lp_len"]
        row = {"itemoffset": n, "ctid": None, "itemlen": None, "nulls": None, "vars": None, "data": None,
               "dead": None, "htid": None, "tids": None, "lp_flags": lp["lp_flags"], "high_key": False}
        items.append(row)
        if length < 8 or off < 24 or off + length > special:
            find("btree.item.out_of_bounds", f"item {off}..{off + length} is not a tuple inside"
                 f" 24..{special}", item=n, actual=[off, length])
            continue
        try:
            tup = Nbtree.BtIndexTuple.from_bytes(raw[off:off + length])
        except (KaitaiStructError, EOFError) as e:
            find("btree.item.undecodable", f"index tuple could not be read: {e}", item=n)
            continue
        pivot = not leaf or (not rightmost and n == P_HIKEY)
        row["high_key"] = leaf and not rightmost and n == P_HIKEY
        row["ctid"] = format_tid(tup.t_tid.block_number, tup.t_tid.ip_posid)
        row["itemlen"] = tup.tuple_size
        row["nulls"] = tup.has_nulls
        row["vars"] = tup.has_varwidths
        if tup.tuple_size > length:
            find("btree.item.size_mismatch", f"IndexTupleSize {tup.tuple_size} exceeds lp_len {length}",
                 item=n, expected=length, actual=tup.tuple_size)
        key = tup.key_data
        if ctx.major is not None and ctx.major < POSTING_LISTS_SINCE:  # pageinspect before 13: all bytes after the header
            key = raw[off + tup.data_offset: off + min(tup.tuple_size, length)]
        row["data"] = " ".join(f"{b:02x}" for b in key) if key is not None else None
        row["dead"] = None if pivot else lp["lp_flags"] == LP_DEAD
        if tup.is_posting:
            tids = tup.posting_list or []
            if len(tids) != tup.n_posting:
                find("btree.posting.overrun", f"posting list of {tup.n_posting} TIDs at offset"
                     f" {tup.posting_offset} overruns the {tup.size_clamped}-byte tuple", item=n,
                     expected=tup.n_posting, actual=len(tids))
            row["tids"] = [format_tid(t.block_number, t.ip_posid) for t in tids]
            row["htid"] = row["tids"][0] if tids else None
        elif tup.is_pivot:
            ht = tup.pivot_heap_tid
            row["htid"] = format_tid(ht.block_number, ht.ip_posid) if ht is not None else None
            row["natts"] = tup.n_key_atts
            row["downlink"] = tup.t_tid.block_number if not leaf else None
        elif not pivot:
            row["htid"] = row["ctid"]
        else:  # a pivot of a version 2/3 index: t_tid is a downlink, there is no heap TID
            row["downlink"] = tup.t_tid.block_number if not leaf else None
    return items
