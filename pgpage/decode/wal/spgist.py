"""SP-GiST records described as spgdesc.c words them: ADD_LEAF, MOVE_LEAFS, PICKSPLIT and the VACUUM ones."""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.record import Record, tf, unpacker

ADD_LEAF = unpacker("xlog_records::xl_spgist_add_leaf")
VACUUM_ROOT = unpacker("xlog_records::xl_spgist_vacuum_root")
MOVE_LEAFS = unpacker("xlog_records::xl_spgist_move_leafs")
PICK_SPLIT = unpacker("xlog_records::xl_spgist_pick_split")
VACUUM_LEAF = unpacker("xlog_records::xl_spgist_vacuum_leaf")
VACUUM_REDIRECT = unpacker("xlog_records::xl_spgist_vacuum_redirect")
SNAPSHOT_CONFLICT_WORDS_SINCE = 16    # newestredirectxid before
CATALOG_REL_WORDS_SINCE = 17          # isCatalogRel is in 16's record, printed from 17


def describe(rec: Record, major: int) -> str | None:
    name = versions.wal_record_type(major, rec.rmid, rec.info)
    data = rec.main_data
    if name == "ADD_LEAF":
        new_page, nulls, leaf, head, parent, node = ADD_LEAF.unpack_from(data)
        return (f"off: {leaf}, headoff: {head}, parentoff: {parent}, nodeI: {node}"
                + (" (newpage)" if new_page else "") + (" (nulls)" if nulls else ""))
    if name == "VACUUM_ROOT":
        return f"ndelete: {VACUUM_ROOT.unpack_from(data)[0]}"
    if name == "MOVE_LEAFS":
        nmoves, new_page, replace_dead, nulls, parent, node = MOVE_LEAFS.unpack_from(data)
        return (f"nmoves: {nmoves}, parentoff: {parent}, nodeI: {node}" + (" (newpage)" if new_page else "")
                + (" (replacedead)" if replace_dead else "") + (" (nulls)" if nulls else ""))
    if name == "PICKSPLIT":
        root, ndelete, ninsert, _, _, inner, _, nulls, inner_is_parent, parent, node = PICK_SPLIT.unpack_from(data)
        return (f"ndelete: {ndelete}, ninsert: {ninsert}, inneroff: {inner}, parentoff: {parent}, nodeI: {node}"
                + (" (innerIsParent)" if inner_is_parent else "") + (" (nulls)" if nulls else "")
                + (" (isRootSplit)" if root else ""))
    if name == "VACUUM_LEAF":
        return "ndead: {}, nplaceholder: {}, nmove: {}, nchain: {}".format(*VACUUM_LEAF.unpack_from(data))
    if name == "VACUUM_REDIRECT":
        nplaceholder, first, horizon, catalog = VACUUM_REDIRECT.unpack_from(data)
        if major < SNAPSHOT_CONFLICT_WORDS_SINCE:
            return f"ntoplaceholder: {nplaceholder}, firstplaceholder: {first}, newestredirectxid: {horizon}"
        return (f"ntoplaceholder: {nplaceholder}, firstplaceholder: {first}, snapshotConflictHorizon: {horizon}"
                + (f", isCatalogRel: {tf(catalog)}" if major >= CATALOG_REL_WORDS_SINCE else ""))
    return None
