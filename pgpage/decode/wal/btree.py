"""Btree records: main data (formats/xlog_records.ksy) and descriptions as each major's nbtdesc.c words them.

16 reworded every description to ``key: value, ...`` and added the deleted and updated offsets of VACUUM and
DELETE (delvacuum_desc), 17 the isCatalogRel of DELETE and REUSE_PAGE; 14 and 15 print ``key value; ...``
(``lev`` for NEWROOT's level). (14 is the oldest major described: decode/wal/describe.py.)
"""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, array_text, offsets, tf, unpacker

INSERT = unpacker("xlog_records::xl_btree_insert")
NEWROOT = unpacker("xlog_records::xl_btree_newroot")
VACUUM = unpacker("xlog_records::xl_btree_vacuum_13")
SPLIT = unpacker("xlog_records::xl_btree_split")
DEDUP = unpacker("xlog_records::xl_btree_dedup")
DELETE_14 = unpacker("xlog_records::xl_btree_delete_14")
DELETE_16 = unpacker("xlog_records::xl_btree_delete_16")
UPDATE = unpacker("xlog_records::xl_btree_update")
HALFDEAD = unpacker("xlog_records::xl_btree_mark_page_halfdead")
UNLINK_14 = unpacker("xlog_records::xl_btree_unlink_page_14")
REUSE_14 = unpacker("xlog_records::xl_btree_reuse_page_14")
REUSE_16 = unpacker("xlog_records::xl_btree_reuse_page_16")
METADATA_14 = unpacker("xlog_records::xl_btree_metadata_14")
KEY_VALUE_WORDS_SINCE = 16        # "off: 1" from 16, "off 1" before
CATALOG_REL_WORDS_SINCE = 17      # isCatalogRel is in 16's records, printed from 17


def _full_xid(value: int) -> str:
    """A FullTransactionId as EpochFromFullTransactionId:XidFromFullTransactionId."""
    return f"{value >> 32}:{value & 0xFFFFFFFF}"


def _delvacuum(data: bytes, ndeleted: int, nupdated: int) -> str:
    """delvacuum_desc (16+): the deleted offsets, then each updated posting list with the TIDs it lost."""
    deleted = offsets(data, 0, ndeleted)
    updated = offsets(data, 2 * ndeleted, nupdated)
    pos = 2 * (ndeleted + nupdated)
    parts = []
    for off in updated:
        (n,) = UPDATE.unpack_from(data, pos)
        ptids = offsets(data, pos + UPDATE.size, n)
        parts.append(f"{{ off: {off}, nptids: {n}, ptids: {array_text(ptids)} }}")
        pos += UPDATE.size + 2 * n
    return f", deleted: {array_text(deleted)}, updated: [{', '.join(parts)}]"


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    new = major >= KEY_VALUE_WORDS_SINCE
    sep, colon = (", ", ": ") if new else ("; ", " ")
    if name in ("INSERT_LEAF", "INSERT_UPPER", "INSERT_META", "INSERT_POST"):
        return f"off{colon}{INSERT.unpack_from(data)[0]}"
    if name == "NEWROOT":
        return f"level: {NEWROOT.unpack_from(data)[1]}" if new else f"lev {NEWROOT.unpack_from(data)[1]}"
    if name == "MARK_PAGE_HALFDEAD":
        _, leaf, left, right, top = HALFDEAD.unpack_from(data)
        return sep.join(f"{k}{colon}{v}" for k, v in (("topparent", top), ("leaf", leaf), ("left", left),
                                                      ("right", right)))
    if name == "DEDUP":
        return f"nintervals{colon}{DEDUP.unpack_from(data)[0]}"
    if name in ("SPLIT_L", "SPLIT_R"):
        level, firstright, newitem, posting = SPLIT.unpack_from(data)
        return (f"level{colon}{level}, firstrightoff{colon}{firstright}, newitemoff{colon}{newitem}, "
                f"postingoff{colon}{posting}")
    if name == "VACUUM":
        ndeleted, nupdated = VACUUM.unpack_from(data)
        if not new:
            return f"ndeleted {ndeleted}; nupdated {nupdated}"
        block = rec.block(0)
        text = f"ndeleted: {ndeleted}, nupdated: {nupdated}"
        return text + (_delvacuum(rec.block_data(block), ndeleted, nupdated) if block and block.data_length else "")
    if name == "DELETE":
        if not new:
            horizon, ndeleted, nupdated = DELETE_14.unpack_from(data)
            return f"latestRemovedXid {horizon}; ndeleted {ndeleted}; nupdated {nupdated}"
        horizon, ndeleted, nupdated, catalog = DELETE_16.unpack_from(data)
        text = f"snapshotConflictHorizon: {horizon}, ndeleted: {ndeleted}, nupdated: {nupdated}"
        if major >= CATALOG_REL_WORDS_SINCE:
            text += f", isCatalogRel: {tf(catalog)}"
        block = rec.block(0)
        return text + (_delvacuum(rec.block_data(block), ndeleted, nupdated) if block and block.data_length else "")
    if name in ("UNLINK_PAGE", "UNLINK_PAGE_META"):
        left, right, level, safexid, leafleft, leafright, top = UNLINK_14.unpack_from(data)
        return sep.join(f"{k}{colon}{v}" for k, v in (
            ("left", left), ("right", right), ("level", level), ("safexid", _full_xid(safexid)),
            ("leafleft", leafleft), ("leafright", leafright), ("leaftopparent", top)))
    if name == "REUSE_PAGE":
        if not new:
            spc, db, rel, _, horizon = REUSE_14.unpack_from(data)
            return f"rel {spc}/{db}/{rel}; latestRemovedXid {_full_xid(horizon)}"
        spc, db, rel, _, horizon, catalog = REUSE_16.unpack_from(data)
        text = f"rel: {spc}/{db}/{rel}, snapshotConflictHorizon: {_full_xid(horizon)}"
        return text + (f", isCatalogRel: {tf(catalog)}" if major >= CATALOG_REL_WORDS_SINCE else "")
    if name == "META_CLEANUP":
        block = rec.block(0)
        if block is None or not block.data_length:
            return None
        return f"last_cleanup_num_delpages{colon}{METADATA_14.unpack_from(rec.block_data(block))[5]}"
    return None
