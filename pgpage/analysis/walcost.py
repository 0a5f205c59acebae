"""What the WAL between two snapshots cost each relation: records, bytes, full-page images, row changes.

Uber's argument about write amplification was about WAL: a non-HOT update of a table with N indexes writes a
heap record and N index insert records (and physical replication ships all of them); a HOT update writes one
heap record. The first write to a page after a checkpoint carries its full-page image, and so does the first
hint bit set on it when checksums or ``wal_log_hints`` are on (``FPI_FOR_HINT``). ``WalCost`` sums, for each
relation file fork a record's block references name:

* ``records``: the records with a block of it (a record naming several of its blocks counts once), by type
  (``Heap/HOT_UPDATE``, as pg_walinspect names them), as ``pg_get_wal_block_info`` grouped by relation counts;
* ``bytes``: the whole length of the records whose first block reference is of it, so that each record's
  bytes are counted once across relations (records without a block, commits and checkpoints, are
  ``unattributed``);
* ``fpi_bytes``: the image bytes of its blocks (``fpi_for_hint_bytes``: of FPI_FOR_HINT records);
* ``row_changes``: heap INSERT (a MULTI_INSERT counts its tuples), UPDATE, HOT_UPDATE and DELETE records.

Pure: it is given the records (``passes.wal.WalReader``); no I/O.
"""
from __future__ import annotations

from pgpage.decode import versions
from pgpage.decode.wal.heap import MULTI_INSERT
from pgpage.decode.wal.record import Record

ROW_CHANGES = {("Heap", "INSERT"): "insert", ("Heap2", "MULTI_INSERT"): "insert", ("Heap", "UPDATE"): "update",
               ("Heap", "HOT_UPDATE"): "hot_update", ("Heap", "DELETE"): "delete"}
Node = tuple[int, int, int, str]     # tablespace, database, relfilenode, fork


def empty() -> dict:
    return {"records": 0, "bytes": 0, "fpi_bytes": 0, "fpi_for_hint_bytes": 0, "record_types": {},
            "row_changes": {"insert": 0, "update": 0, "hot_update": 0, "delete": 0}}


class WalCost:
    def __init__(self, major: int):
        self.major = major
        self.by_node: dict[Node, dict] = {}
        self.total = {"records": 0, "bytes": 0, "fpi_bytes": 0, "fpi_for_hint_bytes": 0}
        self.unattributed = {"records": 0, "bytes": 0}

    def add(self, rec: Record) -> None:
        rmgr = versions.rmgr_name(rec.rmid)
        rtype = versions.wal_record_type(self.major, rec.rmid, rec.info)
        name = f"{rmgr}/{rtype}"
        hint = rmgr == "XLOG" and rtype == "FPI_FOR_HINT"
        self.total["records"] += 1
        self.total["bytes"] += rec.length
        self.total["fpi_bytes"] += rec.fpi_length
        if hint:
            self.total["fpi_for_hint_bytes"] += rec.fpi_length
        if not rec.blocks:
            self.unattributed["records"] += 1
            self.unattributed["bytes"] += rec.length
            return
        seen = set()
        for ref in rec.blocks:
            node = (ref.spc, ref.db, ref.rel, ref.fork)
            cost = self.by_node.get(node)
            if cost is None:
                cost = self.by_node[node] = empty()
            if ref.has_image:
                cost["fpi_bytes"] += ref.image_length
                if hint:
                    cost["fpi_for_hint_bytes"] += ref.image_length
            if node not in seen:
                seen.add(node)
                cost["records"] += 1
                cost["record_types"][name] = cost["record_types"].get(name, 0) + 1
        first = self.by_node[(rec.blocks[0].spc, rec.blocks[0].db, rec.blocks[0].rel, rec.blocks[0].fork)]
        first["bytes"] += rec.length
        change = ROW_CHANGES.get((rmgr, rtype.removesuffix("+INIT")))
        if change is not None:
            first["row_changes"][change] += MULTI_INSERT.unpack_from(rec.main_data)[1] if rmgr == "Heap2" else 1

    def of(self, nodes) -> dict:
        """The cost of a relation: the sum over its file forks ``nodes`` (both snapshots' relfilenodes when it
        was rewritten between them)."""
        out = empty()
        for node in nodes:
            cost = self.by_node.get(node)
            if cost is None:
                continue
            for k in ("records", "bytes", "fpi_bytes", "fpi_for_hint_bytes"):
                out[k] += cost[k]
            for k, n in cost["record_types"].items():
                out["record_types"][k] = out["record_types"].get(k, 0) + n
            for k, n in cost["row_changes"].items():
                out["row_changes"][k] += n
        out["record_types"] = dict(sorted(out["record_types"].items()))
        return out
