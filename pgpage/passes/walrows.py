"""`rows --wal DIR`: the row versions only WAL still holds, after those of the pages (issue 38 part 3).

The WAL of the table's relfilenode is read in order (``passes.wal.WalReader``). Every tuple a record holds is a
version: the new tuple of an INSERT, MULTI_INSERT, UPDATE or HOT_UPDATE (``decode.wal.heaptuple``: its header
rebuilt as redo rebuilds it, an UPDATE's prefix and suffix taken from the tuple it replaced: the newest one WAL
put at that place, else the page's tuple there whose xmax is the updater) and every tuple of a full-page image.
A version is its place and xmin; the first record that holds it gives its LSN. A DELETE or UPDATE that ends it
gives its xmax. Its transaction's fate comes from its COMMIT or ABORT record (a prepared transaction's from its
COMMIT PREPARED or ROLLBACK PREPARED record), else from pg_xact (and hint bits, for a tuple of an image); an xmax
that is a multixact (an image's HEAP_XMAX_IS_MULTI, or the ending record's XLHL_XMAX_IS_MULTI) by its updating
member, from pg_multixact as for pages.

Only the table's current relfilenode is read. When the WAL shows that file being made (smgr CREATE) by a
transaction that dropped other files when it committed (TRUNCATE, VACUUM FULL, CLUSTER), the versions in the
older file are not attributed, and a finding says so (``rows.wal.relfilenode_changed``).

The versions the pages still hold (at the same line pointer with the same xmin, or carved back by ``--all`` from
the same block with the same bytes) are left out: what remains has status ``wal`` and is printed after the
pages' versions, its values by the same decoder (``TableRows.versions``: the tuple's bytes are handed over as a
chunk). A record whose tuple cannot be rebuilt is a finding; a torn or corrupt record ends the WAL as the
server's redo would end there (the reader's finding).
"""
from __future__ import annotations

import numpy as np

from pgpage.analysis.rowstatus import STATUS_NAMES
from pgpage.decode import versions
from pgpage.decode.flags import HEAP_NATTS_MASK, HEAP_XMAX_IS_MULTI
from pgpage.decode.ksy.constants import SizeofHeapTupleHeader
from pgpage.decode.vector import decode_heap_chunk
from pgpage.decode.wal.heaptuple import TUPLE_HEADER, WalTuple, deleted, image_tuples, inserted
from pgpage.decode.wal.smgr import CREATE
from pgpage.decode.wal.xact import parse as parse_xact
from pgpage.decode.wal.record import FORK_NAMES, RecordError
from pgpage.decode.control import format_lsn
from pgpage.decode.xact import (ST_ABORTED, ST_COMMITTED, ST_INVALID, ST_LOCK_ONLY, xmax_is_locked_only, xmax_states,
                                xmin_states)
from pgpage.findings import ERROR, WARNING, Finding

WAL = STATUS_NAMES.index("wal")
MAIN_FORKNUM = FORK_NAMES.index("main")
ALIGN = 8        # each tuple starts MAXALIGNed in the chunk, as on a page


class WalRows:
    """The versions of one table's WAL (``TableRows.wal``): ``seen`` the pages' chunks, then ``chunk``."""

    def __init__(self, table, wal: str):
        from pgpage.passes.wal import WalReader, relation_node
        from pgpage.storage.wal import WalDirectory, wal_directory

        self.table = table
        cluster = table.cluster
        reader = WalReader(WalDirectory(wal_directory(str(cluster.path), wal)), cluster.control)
        self.major = reader.major
        node = relation_node(table.relation)
        self.versions: dict[tuple[int, int, int], WalTuple] = {}   # by (block, offset, xmin): the first record's
        self._at: dict[tuple[int, int], WalTuple] = {}             # the newest tuple WAL put at each place
        self.outcomes: dict[int, bool] = {}                        # xid -> committed (COMMIT/ABORT records)
        self.lsns: dict[tuple[int, int, int], str] = {}            # the printed versions' LSNs (RowVersion.lsn)
        self._held: set = set()
        created = None                                             # (LSN, xid) of the smgr CREATE of the file
        dropped: dict[int, list] = {}                              # xid -> the files its commit dropped
        for rec in reader.records():
            x = parse_xact(rec, self.major)       # a transaction's end (a prepared one's in a *_PREPARED record)
            if x is not None:
                committed, xids = x.name in ("COMMIT", "COMMIT_PREPARED"), x.xids(rec)
                for xid in xids:
                    self.outcomes[xid] = committed
                if committed and x.rels:
                    dropped[xids[0]] = x.rels
                continue
            if (rec.rmid == versions.RMGR_STORAGE and versions.wal_record_type(self.major, rec.rmid, rec.info) == "CREATE"
                    and CREATE.unpack_from(rec.main_data) == (*node, MAIN_FORKNUM)):
                created = (rec.lsn, rec.xid)
            refs = [b for b in rec.blocks if (b.spc, b.db, b.rel) == node and b.fork == "main"]
            if refs:
                self._record(rec, refs)
        if created is not None and created[1] in dropped:
            older = [r for r in dropped[created[1]] if r[:2] == node[:2]]
            table.findings.append(Finding(
                "rows.wal.relfilenode_changed",
                f"the table's file {'/'.join(map(str, node))} was made at {format_lsn(created[0])} by transaction "
                f"{created[1]}, which dropped {', '.join('/'.join(map(str, r)) for r in older)} when it committed "
                "(TRUNCATE, VACUUM FULL, CLUSTER rewrote it): the versions WAL holds in its older file, one of "
                "those, are not read",
                WARNING, relation=table.label))
        table.findings.extend(reader.findings)
        if reader.stop is not None:
            table.findings.append(reader.stop)
        self.blocks = np.array(sorted({b for b, _, _ in self.versions}), dtype=np.int64)

    def _record(self, rec, refs) -> None:
        try:
            new = [t for ref in refs if ref.has_image for t in image_tuples(rec, ref)]
            if rec.block(0) in refs:
                new += inserted(rec, self.major, lambda b, o: self._old_tuple(b, o, rec.xid))
        except (RecordError, ValueError, IndexError) as exc:   # (struct.error is a ValueError)
            incomplete = isinstance(exc, RecordError) and "is known neither" in str(exc)
            self.table.findings.append(Finding(
                "rows.wal.old_tuple_unknown" if incomplete else "rows.wal.unreadable",
                f"the record at {format_lsn(rec.lsn)}: {exc}", WARNING if incomplete else ERROR,
                relation=self.table.label, block=refs[0].block))
            return
        ends = deleted(rec, self.major)
        if ends is not None:
            gone = self._at.get(ends[:2])
            v = self.versions.get((*ends[:2], gone.xmin)) if gone is not None else None
            if v is not None and not v.xmax:
                v.xmax, v.xmax_multi = ends[2], ends[3]
        for t in new:
            self._at[(t.block, t.offset)] = t
            self.versions.setdefault((t.block, t.offset, t.xmin), t)

    def _old_tuple(self, block: int, offset: int, updater: int) -> bytes | None:
        """The bytes of the tuple an UPDATE by ``updater`` replaced at (block, offset): WAL's newest there, else
        the page's, when its xmax is the updater."""
        t = self._at.get((block, offset))
        if t is not None:
            return t.data
        fork = self.table.fork
        if fork is None or not fork.exists or not fork.first_block <= block < fork.end_block:
            return None
        page = np.frombuffer(fork.read_block(block), dtype=np.uint8)
        if len(page) != fork.block_size:
            return None
        hc = decode_heap_chunk(page.reshape(1, -1), block)
        for k, i in enumerate(hc.tuples.item.tolist()):
            if int(hc.items.lp[i]) == offset and int(hc.tuples.t_xmax[k]) == updater:
                off, ln = int(hc.items.off[i]), int(hc.items.len[i])
                return page[off:off + ln].tobytes()
        return None

    def seen(self, c) -> None:
        """Note the versions of a chunk of the pages (``ChunkVersions``, every version: ``--all``) in the blocks
        WAL has versions of: those are not printed again."""
        if c is None or not len(self.blocks):
            return
        for j in np.flatnonzero(np.isin(c.block, self.blocks)).tolist():
            b, i, x = int(c.block[j]), int(c.item[j]), int(c.xmin[j])
            s, n = int(c.start[j]), int(c.length[j])
            self._held.add((b, i, x) if i else (b, x, c.flat[s + SizeofHeapTupleHeader:s + n].tobytes()))

    def chunk(self, start: int | None, stop: int | None, only=None) -> dict | None:
        """The versions only WAL holds (in blocks [start, stop) when given, those ``only`` keeps), as the fields of
        a ``rows.ChunkVersions`` whose ``flat`` holds their bytes, in (block, offset, LSN) order; None when there
        are none."""
        keep = [t for (b, o, x), t in sorted(self.versions.items(), key=lambda kv: (kv[0][:2], kv[1].lsn))
                if (b, o, x) not in self._held and (b, x, t.data[SizeofHeapTupleHeader:]) not in self._held
                and (start is None or start <= b) and (stop is None or b < stop)]
        if not keep:
            return None
        flat, starts = bytearray(), []
        for t in keep:
            flat += bytes(-len(flat) % ALIGN)
            starts.append(len(flat))
            flat += t.data
        head = np.array([TUPLE_HEADER.unpack_from(t.data) for t in keep], dtype=np.int64)
        infomask2, t_hoff = head[:, -3], head[:, -1]
        infomask = np.array([t.infomask for t in keep], dtype=np.int64)
        xmin = np.array([t.xmin for t in keep], dtype=np.int64)
        xmax = np.array([t.xmax for t in keep], dtype=np.int64)
        cluster = self.table.cluster
        clog = cluster.clog
        xmin_state, _ = xmin_states(infomask, xmin, clog)
        # the deleter's fate from pg_xact, a multixact's from its updating member (pg_multixact), as for pages; no
        # other hint bit: a tuple's own ones predate the xmax a later record gave it
        multi = np.array([t.xmax_multi for t in keep], dtype=bool)
        xmax_state, _ = xmax_states(np.where(multi, HEAP_XMAX_IS_MULTI, 0), xmax, clog, cluster.multi_update_xid)
        decider = xmax.copy()          # the xid whose commit or abort record decides the xmax
        if multi.any():
            decider[multi] = cluster.multi_update_xid(xmax[multi])
        for k, t in enumerate(keep):
            if t.xmin in self.outcomes:
                xmin_state[k] = ST_COMMITTED if self.outcomes[t.xmin] else ST_ABORTED
            if int(decider[k]) in self.outcomes:
                xmax_state[k] = ST_COMMITTED if self.outcomes[int(decider[k])] else ST_ABORTED
        xmax_state[xmax == 0] = ST_INVALID
        xmax_state[(xmax != 0) & xmax_is_locked_only(infomask)] = ST_LOCK_ONLY
        block = np.array([t.block for t in keep], dtype=np.int64)
        item = np.array([t.offset for t in keep], dtype=np.int64)
        status = np.full(len(keep), WAL, dtype=np.int8)
        arrays = dict(
            start=np.array(starts, dtype=np.int64), length=np.array([len(t.data) for t in keep], dtype=np.int64),
            t_hoff=t_hoff, natts=infomask2 & HEAP_NATTS_MASK, infomask=infomask, infomask2=infomask2, xmin=xmin,
            xmax=xmax, xmin_state=xmin_state, xmax_state=xmax_state, status=status, block=block, item=item,
            ctid_block=block.copy(), ctid_offset=item.copy(),
            lp_off=np.array([-1 if t.lp_off is None else t.lp_off for t in keep], dtype=np.int64))
        for t in keep:
            self.lsns[(t.block, t.offset, t.xmin)] = format_lsn(t.lsn)
        if only:
            which = np.flatnonzero(only.mask(status, xmin, xmax, block, item))
            if not len(which):
                return None
            arrays = {k: v[which] for k, v in arrays.items()}
        return {"flat": np.frombuffer(bytes(flat), dtype=np.uint8), **arrays}

    def holds(self, c) -> bool:
        """Whether ``c`` is this WAL's chunk (its versions are printed by Python: their LSN, no line pointer)."""
        return len(c.status) > 0 and int(c.status[0]) == WAL
