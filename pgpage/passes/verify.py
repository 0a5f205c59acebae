"""`pgpage verify`'s pass: storage hands out chunks, the rules of ``analysis.verify`` judge them, and
this module yields one record per finding as soon as it is known.

It wires the layers together and never prints; the rules themselves never touch storage. ``plan``
turns what the user named (a data directory, a database, a relation, a relation file) into the
records to write; with ``--jobs`` relations (and big heaps' ranges of blocks) go to worker processes
and the records still come out in the same order. Memory: one chunk of pages at a time and one visibility
map page, flat; but a B-tree's structure and cross-page order rules keep per-block arrays, up to about 100
bytes a block (1.2% of an index of 8 kB blocks), and at most 64 MB of the items they compare, whatever the
keys' width: the others are read again (analysis.btree.scan, .order).

Records are plain dicts, ready for ``json.dumps``::

    {"type": "finding", "database": "db", "code": "heap.lp.overlap", "message": "...",
     "severity": "error", "relation": "public.t", "fork": "main", "block": 7, "item": 3, ...}
    {"type": "relation", "database": "db", "relation": "public.t", "oid": 16390, "kind": "table",
     "am": "heap", "forks": {"main": 120, "vm": 1}, "findings": 1}
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from pgpage.analysis.verify.context import IndexShape, KeySpec, VerifyContext, shape_from_index_row
from pgpage.analysis.verify.pages import check_pages, checksum_votes, checksums_decided, verify_generic_chunk
from pgpage.decode.extam import AM_OF_PAGE_ID as EXT_AM_OF_PAGE_ID, not_decoded_message
from pgpage.decode.ksy.constants import PG_PAGE_LAYOUT_VERSION
from pgpage.decode.page import special_kind
from pgpage.decode.vector import column
from pgpage.findings import INFO, WARNING, ExitCode, Finding, PgpageError
from pgpage.storage.datadir import HEAP_KINDS, RELKIND_NAMES
from pgpage.storage.relfile import (FORKS, RelationFork, Unreadable, parse_segment_name,
                                   segment_files)
from pgpage.storage.target import Target, resolve

CLEAN_STATES = ("DB_SHUTDOWNED", "DB_SHUTDOWNED_IN_RECOVERY")
CLUSTER_CODES = ("cluster.", "control.", "filenode_map.")   # cluster facts every verify reports


# access methods whose structure verify checks beyond the page rules: verifier(ctx, nblocks) with feed(chunk,
# first) and finish(), each returning findings (imported when used: each run needs one or none of them)
AM_VERIFIERS = {
    "hash": lambda: __import__("pgpage.analysis.verify.hash", fromlist=["_"]).HashVerifier,
    "brin": lambda: __import__("pgpage.analysis.verify.brin", fromlist=["_"]).BrinVerifier,
}

def plan(target: str, db: str | None, rel: str | None, fork: str | None, jobs: int = 1,
         heapallindexed: bool = False):
    """(Verification, record iterator, start record) for what the user named: a data directory (every
    relation), one database, one relation (``rel``, and only its ``fork``), or a relation file. ``jobs`` 0:
    one worker per core. The start record carries ``blocks_planned`` (for a progress bar)."""
    from pgpage.passes.parallel import default_jobs
    verification, records, start = _plan(target, db, rel, fork)
    verification.jobs = jobs or default_jobs()
    verification.heapallindexed = heapallindexed
    return verification, records, start


def _plan(target: str, db: str | None, rel: str | None, fork: str | None):
    if fork is not None and Path(target).exists() and not Path(target).is_dir():
        raise PgpageError("--fork goes with a data directory; a file names its fork itself (16384_vm)",
                          ExitCode.USAGE)
    t = resolve(target, db, rel, fork, whole=True)
    if t.path is not None:
        return _plan_file(t)
    cluster = t.cluster
    v = Verification(cluster)
    start = _cluster_start(cluster)
    if t.relation is not None:
        relation = t.relation
        relation.database.relations()  # checks the files against pg_class: a missing file is a finding
        subject = v.subject_of(relation, fork)
        start.update(scope="relation", database=relation.database.name, relation=relation.qualified_name)
        start["blocks_planned"] = sum(f.nblocks for f in subject.forks.values())

        def records():
            yield from v.cluster_findings_for_relation()
            for f in relation.database.findings:
                if f.relation == relation.qualified_name:
                    yield {"type": "finding", "database": relation.database.name, **f.to_json()}
            yield from v.index_table_records(relation)
            yield from v.subjects_records([subject])
        return v, records(), start
    if fork:
        raise PgpageError("--fork goes with --rel (a whole data directory is verified fork by fork)", ExitCode.USAGE)
    start.update(scope="database" if db else "cluster", database=db)
    return v, v.cluster_records(db), start


def _cluster_start(cluster) -> dict:
    c = cluster.control or {}
    cp = c.get("checkPointCopy", {})
    return {"data_directory": str(cluster.path), "major": cluster.major, "block_size": cluster.block_size,
            "data_checksums": cluster.checksums, "checksums_rule": checksums_rule(cluster.checksums),
            "state": c.get("state_name"),
            "next_xid": cp.get("nextFullXid"), "oldest_xid": cp.get("oldestXid"),
            "next_multixact": cp.get("nextMulti"), "oldest_multixact": cp.get("oldestMulti")}


def checksums_rule(checksums: bool | None) -> str:
    """What pg_control says about data checksums, as the rule that decided."""
    return {True: "on (pg_control)", False: "off (pg_control)", None: "unknown (no readable pg_control)"}[checksums]


def _plan_file(t: Target):
    """A file: the catalog relation's fork (or the segment) it is, else a stand-alone relation file."""
    path, cluster, relfork = t.path, t.cluster, t.fork
    relation = t.relation if t.relation is not None and relfork.fork in t.relation.forks else None
    v = Verification(cluster)
    start = _cluster_start(cluster) if cluster is not None else {}
    if relation is not None:
        subject = v.subject_of(relation, relfork.fork, t.segno)
        start.update(scope="file", file=str(path), database=relation.database.name,
                     relation=relation.qualified_name)
    else:
        if relfork.size_bytes and not looks_like_relation(relfork):
            raise PgpageError(f"{path}: not a PostgreSQL relation file (no block starts with a page header of"
                              f" {relfork.block_size}-byte pages)", ExitCode.UNREADABLE)
        subject = Subject(path.name, None, {relfork.fork: relfork},
                          main_whole=parse_segment_name(path.name) is None or t.segno is None)
        start.update(scope="file", file=str(path), block_size=relfork.block_size)
    if cluster is None or cluster.checksums is None:   # no pg_control to say: the file's own pages decide
        votes = np.zeros(3, dtype=np.int64)
        for fork in subject.forks.values():
            for first, chunk in fork.iter_chunks():
                votes += checksum_votes(chunk, first)
        v.checksums, v.checksums_rule = checksums_decided(*map(int, votes))
    start.update(data_checksums=v.checksums, checksums_rule=v.checksums_rule)
    start["blocks_planned"] = sum(f.nblocks for f in subject.forks.values())

    def records():
        if cluster is not None:
            yield from v.cluster_findings_for_relation()
        if relation is not None:
            yield from v.index_table_records(relation)
        yield from v.relation_records(subject)
    return v, records(), start


def number(v) -> int | None:
    """A catalog value as an int, or None when the catalog could not say (``Unreadable``, NULL)."""
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def text(v) -> str | None:
    """A catalog name as text (an ``Unreadable`` one as its description)."""
    return v if v is None or isinstance(v, str) else str(v)


def finding_record(f: Finding, database: str | None) -> dict:
    rec = {"type": "finding"}
    if database is not None:
        rec["database"] = database
    rec.update(f.to_json())
    return rec


@dataclass
class Totals:
    relations: int = 0
    forks: int = 0
    blocks: int = 0
    bytes: int = 0


ATTRIBUTE_BATCH = 2000   # relations whose pg_attribute rows a cluster's verify reads at once


@dataclass
class Subject:
    """One thing to verify: a relation's forks with what the catalogs say about it."""
    label: str                           # qualified name, or the file name when no catalog knows it
    database: str | None
    forks: dict[str, RelationFork]
    kind: str | None = None              # pg_class.relkind, or a guess from the pages
    am: str | None = None
    oid: int | None = None
    row: dict = field(default_factory=dict)
    index_shape: IndexShape | None = None
    table_fork: RelationFork | None = None   # an index's table (its heap TIDs are looked up there)
    table: str | None = None
    toast_oid: int | None = None         # reltoastrelid
    toast_known: bool = False            # whether the TOAST relation's existence could be checked
    toast_exists: bool = False
    attributes: Callable[[], list | None] | None = None
    toast_store: Callable[[], object] | None = None   # its TOAST relation's ToastStore (built on first use)
    keys: Callable[[], KeySpec] | None = None  # an index's key columns, for the order checks
    index: object = None                 # an index's datadir.Relation (--heapallindexed reads its table)
    main_whole: bool = True              # the main fork is complete (not one segment of several)


class Verification:
    """Verify a data directory, one database, one relation, or one relation file."""

    def __init__(self, cluster=None, advance: Callable[[int], None] | None = None, jobs: int = 1):
        self.cluster = cluster
        self.advance = advance or (lambda n: None)
        self.totals = Totals()
        self.jobs = jobs  # worker processes for a data directory's or database's relations
        self.heapallindexed = False  # compare each B-tree with its table (passes.heapallindexed)
        self.heap_parts: dict[int, list[tuple]] = {}  # id(Subject) -> its heap's ranges as workers verified them
        # called with each whole B-tree's main fork and its scan's report (`index`'s figures; in this process)
        self.on_btree_report: Callable[[RelationFork, dict], None] | None = None
        # data checksums on/off and why: pg_control's, or for a file alone its pages' (checksums_decided)
        self.checksums: bool | None = cluster.checksums if cluster is not None else None
        self.checksums_rule = checksums_rule(self.checksums)

    # ---------------------------------------------------------------------------- contexts
    def base_context(self, block_size: int, major: int | None, checksums: bool | None) -> VerifyContext:
        ctx = VerifyContext(block_size=block_size, major=major, checksums=checksums)
        c = self.cluster
        control = c.control if c is not None else None
        if control and control.get("crc_ok"):
            cp = control["checkPointCopy"]
            ctx.next_full_xid = cp.get("nextFullXid")
            ctx.oldest_xid = cp.get("oldestXid")
            ctx.next_multi = cp.get("nextMulti")
            ctx.oldest_multi = cp.get("oldestMulti")
            ctx.consistent = control.get("state_name") in CLEAN_STATES
            if not ctx.consistent:    # running or crashed: ids handed out since the checkpoint are normal
                ctx.xid_reach, ctx.multi_reach = c.id_reach
            ctx.clog = c.clog
            ctx.multi_update_xid = c.multi_update_xid
        elif c is not None:
            ctx.clog = c.clog
        return ctx

    # ---------------------------------------------------------------------------- cluster
    def cluster_records(self, db_name: str | None = None) -> Iterator[dict]:
        """Everything under a data directory (or only database ``db_name``)."""
        c = self.cluster
        _ = c.major, c.control, c.global_map     # pg_control and the shared map (their CRCs)
        yield from self._flush(c.findings, None, 0)
        emitted = len(c.findings)
        dbs = [c.database(db_name)] if db_name else [d for d in c.databases() if d.path.is_dir()]
        seen: set[tuple[Path, str]] = set()
        for db in dbs:
            _ = db.filenode_map
            rels = db.relations()
            yield from self._flush(c.findings, None, emitted)
            emitted = len(c.findings)
            subjects = []
            for rel in sorted(rels, key=lambda r: str(r.qualified_name)):
                if not rel.has_storage or not rel.forks:
                    continue
                key = (rel.directory, rel.file_stem)
                if key in seen:             # shared catalogs appear in every database
                    continue
                seen.add(key)
                subjects.append(self.subject_of(rel))
            for stem, files in sorted((db.orphans or {}).items()):
                forks = {f: c.fork(db.path, stem, f) for f in FORKS}
                forks = {k: v for k, v in forks.items() if v.exists}
                if forks:
                    subjects.append(Subject(stem, text(db.name), forks, kind=None))
            # one read of pg_attribute for the columns of many relations, not one per relation (a scan of the
            # catalog each), ATTRIBUTE_BATCH at a time (their rows are kept while they are verified)
            for k in range(0, len(subjects), ATTRIBUTE_BATCH):
                batch = subjects[k:k + ATTRIBUTE_BATCH]
                db.prefetch_attributes(s.oid for s in batch if s.oid is not None)
                yield from self.subjects_records(batch, db)
                db.forget_attributes()
            yield from self._flush(db.findings, text(db.name), 0)
        yield from self._flush(c.findings, None, emitted)

    def subjects_records(self, subjects: list[Subject], db=None) -> Iterator[dict]:
        """``relation_records`` of each subject, in order. With ``jobs`` > 1 the work goes to that many worker
        processes, biggest first: a relation whole, or a big heap's main fork in ranges of blocks (the rest of
        that relation, its small forks and the findings about the whole fork, is done here once its ranges are
        back). Records are given out in the subjects' order, and what workers found reading database ``db``'s
        catalogs (pg_attribute) is added to its findings in that order too, so the output is the same for any
        number of jobs."""
        if self.jobs <= 1 or not subjects:
            for s in subjects:
                yield from self.relation_records(s)
            return
        from pgpage.passes.parallel import block_ranges, run_tasks
        if self.cluster is not None:
            _ = self.cluster.clog, self.cluster.multi_update_xid  # read once, before the workers are forked
        tasks: list[tuple[int, int | None, int | None]] = []  # (subject, range of its heap's main fork, or None)
        for k, s in enumerate(subjects):
            main = s.forks.get("main")
            ranges = block_ranges(main, self.jobs) if main is not None and s.main_whole and s.kind in HEAP_KINDS \
                and s.am in ("heap", None) else []
            tasks += [(k, start, stop) for start, stop in ranges] if len(ranges) > 1 else [(k, None, None)]

        def size(t):
            k, start, stop = t
            return (stop - start) * subjects[k].forks["main"].block_size if start is not None \
                else sum(f.size_bytes for f in subjects[k].forks.values())

        def work(t):
            k, start, stop = t
            self.totals, self.advance = Totals(), lambda n: None  # the worker's own copy
            known = len(db.findings) if db is not None else 0
            s = subjects[k]
            if start is None:
                result = list(self.relation_records(s)), self.totals
            else:
                fork = s.forks["main"]
                ctx = dataclasses.replace(self.subject_context(s), fork="main")
                vm = self._heap_context(s, fork, ctx, True)
                firsts: list[int] = []
                findings = list(self._heap_range(s, fork, ctx, vm, True, start, stop, firsts))
                result = findings, firsts, self.totals.blocks
            return result, (db.findings[known:] if db is not None else [])

        order = sorted(tasks, key=lambda t: -size(t))
        parts_left = {k: sum(1 for t in tasks if t[0] == k) for k in range(len(subjects))}
        parts: dict[tuple[int, int], tuple] = {}
        catalog_findings: dict[int, list[Finding]] = {}  # each range of a heap reads its pg_attribute rows again
        done: dict[int, list[dict]] = {}
        next_out = 0
        for (k, start, _), (result, found) in zip(order, run_tasks(work, order, self.jobs)):
            catalog_findings[k] = catalog_findings.get(k) or found
            if start is None:
                records, t = result
                for name in ("relations", "forks", "blocks", "bytes"):
                    setattr(self.totals, name, getattr(self.totals, name) + getattr(t, name))
                self.advance(t.blocks)
                done[k] = records
            else:
                parts[k, start] = result
                parts_left[k] -= 1
                if not parts_left[k]:  # every range is back: the relation's records, here
                    self.heap_parts[id(subjects[k])] = [parts.pop(key) for key in sorted(p for p in parts if p[0] == k)]
                    done[k] = list(self.relation_records(subjects[k]))
            while next_out in done:
                if db is not None:
                    db.findings += catalog_findings.pop(next_out)
                yield from done.pop(next_out)
                next_out += 1

    @staticmethod
    def _flush(findings: list[Finding], database, start: int) -> Iterator[dict]:
        for f in findings[start:]:
            yield finding_record(f, database)

    def cluster_findings_for_relation(self) -> Iterator[dict]:
        """pg_control and PG_VERSION facts, which every verdict on a relation leans on."""
        c = self.cluster
        _ = c.major, c.control
        for f in c.findings:
            if f.code.startswith(CLUSTER_CODES):
                yield finding_record(f, None)

    @staticmethod
    def index_table_records(rel) -> Iterator[dict]:
        """An index verified alone (--rel, its file): its table's main file missing or unreadable, as verifying the
        table reports it (the index's heap checks lean on it; the whole cluster's verify reports it with the table)."""
        if rel.index_row is not None:
            own, _ = table_file_findings(rel, None)
            if own is not None:
                yield finding_record(own, text(rel.database.name))

    def subject_of(self, rel, only_fork: str | None = None, only_segno: int | None = None) -> Subject:
        forks = dict(rel.forks)
        main_whole = True
        if only_fork is not None:
            f = forks.get(only_fork)
            if f is None:
                raise PgpageError(f"{rel.qualified_name} has no {only_fork} fork", ExitCode.USAGE)
            if only_segno is not None:
                f = RelationFork(f.directory, f.stem, f.fork, f.block_size, f.relseg_size, only_segno=only_segno)
                main_whole = False
            forks = {only_fork: f}
        db = rel.database
        kind = rel.kind if isinstance(rel.kind, str) and rel.kind in RELKIND_NAMES else None  # None: from the pages
        am = rel.access_method if isinstance(rel.access_method, str) and kind else None
        s = Subject(text(rel.qualified_name), text(db.name), forks, kind, am, number(rel.oid), rel.row,
                    main_whole=main_whole)
        if rel.index_row is not None:
            s.index_shape = shape_from_index_row(rel.index_row)
            s.keys = lambda: self._key_spec(db, rel)
            s.index = rel
            if rel.table is not None:
                s.table = rel.table.qualified_name
                s.table_fork = rel.table.forks.get("main")
        if rel.kind in HEAP_KINDS:
            s.toast_oid = number(rel.row.get("reltoastrelid")) or 0
            s.toast_known = True
            s.toast_exists = rel.toast is not None and rel.toast.kind == "t"
            s.attributes = lambda: self._attributes(db, s.oid)
            if s.toast_exists and rel.toast.forks.get("main") is not None:
                s.toast_store = _once(lambda: _toast_store(rel.toast, self.cluster))
        if only_fork in ("main", None) and "vm" not in forks and rel.forks.get("vm") is not None:
            s.forks["vm"] = rel.forks["vm"]      # the main fork's VM rules read it
        return s

    def _attributes(self, db, relid: int | None) -> list | None:
        """The relation's columns from pg_attribute as deform Attributes (None when unknown)."""
        from pgpage.decode.deform import Attribute
        if relid is None:
            return None
        cols = db.attributes(relid)
        if not cols or [c.get("attnum") for c in cols] != list(range(1, len(cols) + 1)):
            return None
        if not all(number(c.get("attlen")) is not None and isinstance(c.get("attalign"), str) for c in cols):
            return None   # a damaged pg_attribute row: the columns cannot be walked
        return [Attribute(text(c.get("attname")), number(c.get("atttypid")) or 0, c["attlen"], c["attalign"],
                          c.get("attbyval") is True, c.get("attisdropped") is True) for c in cols]

    def _key_spec(self, db, rel) -> KeySpec:
        """An index's key columns and whether pgpage can compute their order (``order.key_order``), with the sort
        keys of its collations that do not sort as bytes (``collation.collation_sort_key``)."""
        from pgpage.analysis.btree.collation import collation_sort_key
        from pgpage.analysis.btree.order import collation_sorts_as_bytes, key_order
        from pgpage.decode.encodings import encoding_name
        if not getattr(db, "_indexes_prefetched", False):   # one read of pg_attribute for every index
            db._indexes_prefetched = True
            db.prefetch_attributes(r.oid for r in db.relations() if r.index_row is not None)
        attrs = self._attributes(db, rel.oid)
        row = db.row or {}
        provider = row.get("datlocprovider") or "c"
        if provider == "i":   # an ICU locale (15-16: daticulocale) never sorts as C does: named as ICU's
            icu = text(row.get("datlocale") or row.get("daticulocale"))
            collate = f"ICU locale {icu}" if icu else "ICU"
        else:                 # libc's datcollate, the builtin provider's datlocale (17+)
            collate = text(row.get("datcollate") if provider == "c" else row.get("datlocale")) or ""
        db_row = {"collname": "default", "collprovider": provider, "collcollate": text(row.get("datcollate")),
                  "colllocale": text(row.get("datlocale") or row.get("daticulocale")),
                  "collversion": text(row.get("datcollversion"))}
        utf8 = encoding_name(row.get("encoding")) == "UTF8"
        reason, keys = key_order(attrs, rel.index_row, collate, collation_sorts_as_bytes(provider, collate),
                                 lambda oid: db.collations.get(oid), lambda r: collation_sort_key(r, utf8), db_row)
        return KeySpec(attrs, list(rel.index_row.get("indoption") or []), reason, keys)

    # ---------------------------------------------------------------------------- one relation
    def subject_context(self, s: Subject) -> VerifyContext:
        """The context every fork of ``s`` is judged in (its kind guessed from the pages when no catalog knows it)."""
        c = self.cluster
        block_size = next(iter(s.forks.values())).block_size if s.forks else 8192
        base = self.base_context(block_size, c.major if c else None, self.checksums)
        base.relation = s.label
        if s.row:
            base.relfrozenxid = number(s.row.get("relfrozenxid"))
            base.relminmxid = number(s.row.get("relminmxid"))
            base.relnatts = number(s.row.get("relnatts"))
        if s.kind is None and "main" in s.forks:
            s.kind, s.am = guess_kind(s.forks["main"])
        return base

    def relation_records(self, s: Subject) -> Iterator[dict]:
        count = 0
        base = self.subject_context(s)
        self.totals.relations += 1
        for name in FORKS:
            fork = s.forks.get(name)
            if fork is None:
                continue
            ctx = dataclasses.replace(base, fork=name)
            self.totals.forks += 1
            self.totals.bytes += fork.size_bytes
            try:
                for f in self._fork_findings(s, fork, ctx):
                    count += 1
                    yield finding_record(f, s.database)
            except Unreadable as e:
                count += 1
                yield finding_record(e.finding(s.label, name), s.database)
        yield {"type": "relation", **({"database": s.database} if s.database else {}), "relation": s.label,
               "oid": s.oid, "kind": RELKIND_NAMES.get(s.kind, s.kind), "am": s.am,
               "forks": {n: f.nblocks for n, f in s.forks.items()}, "findings": count}

    def _fork_findings(self, s: Subject, fork: RelationFork, ctx: VerifyContext) -> Iterator[Finding]:
        for f in fork.findings:       # torn last blocks, gaps, short segments (storage's: ``relation`` their file)
            yield dataclasses.replace(f, relation=s.label,
                                      message=f.message if f.relation == s.label else f"{f.message} (file {f.relation})")
        yield from self._segment_findings(fork, ctx)
        name = fork.fork
        if name == "main" and s.kind in HEAP_KINDS and s.am in ("heap", None):
            yield from self._heap(s, fork, ctx)
        elif name == "main" and s.kind == "S":
            yield from self._heap(s, fork, dataclasses.replace(ctx, expected_special=8), with_vm=False)
        elif name == "main" and s.am == "btree":
            yield from self._btree(s, fork, ctx)
        elif name == "main" and s.am in AM_VERIFIERS and s.main_whole:
            yield from self._other_am(s, fork, ctx)
        elif name == "main" and s.am in KEYED_AM_VERIFIERS and s.main_whole:
            yield from self._index_am(s, fork, ctx)
        else:
            for first, chunk in fork.iter_chunks():
                yield from verify_generic_chunk(chunk, first, ctx, s.am)
                self._count(chunk)
            if name == "main" and s.am in EXT_AM_OF_PAGE_ID.values():   # bloom, pgvector's: only their pages
                yield ctx.finding("index.am.not_decoded", not_decoded_message(s.am), severity=INFO)
        for f in fork.size_changes():  # a live server truncating or extending the fork while it was read
            yield dataclasses.replace(f, relation=s.label)

    def _count(self, chunk) -> None:
        self.totals.blocks += chunk.shape[0]
        self.advance(chunk.shape[0])

    def _segment_findings(self, fork: RelationFork, ctx: VerifyContext) -> Iterator[Finding]:
        """Segments PostgreSQL would not reach (after a short or missing one; storage reports oversized ones)."""
        if fork.only_segno is not None or fork.oversized is not None or \
                any(f.code == "segment.missing" for f in fork.findings):
            return
        have = {segno for segno, _, _ in fork.segments}
        try:
            files = (self.cluster.segment_files(fork.directory) if self.cluster is not None
                     else segment_files(p.name for p in fork.directory.iterdir()))
        except OSError:
            return
        last = max(have) if have else -1
        for n, segno in files.get((fork.stem, fork.fork), []):
            if segno not in have:
                why = (f"segment {last} is not full" if have else "the fork has no segment 0")
                yield ctx.finding("segment.extra", f"{n} exists but PostgreSQL never reads it: {why}",
                                  segno * fork.relseg_size, actual=n)

    def _vm_reader(self, vm: RelationFork | None):
        cache: dict[int, np.ndarray | None] = {}

        def page(vblk: int):
            if vm is None or not vm.first_block <= vblk < vm.end_block:
                return None
            if vblk not in cache:
                cache.clear()
                try:
                    raw = vm.read_block(vblk)
                except (OSError, PgpageError):
                    raw = b""
                cache[vblk] = np.frombuffer(raw, dtype=np.uint8) if len(raw) == vm.block_size else None
            return cache[vblk]
        return page

    def _heap(self, s: Subject, fork: RelationFork, ctx: VerifyContext, with_vm: bool = True) -> Iterator[Finding]:
        from pgpage.analysis.verify.vm import vm_tail_findings
        from pgpage.analysis.verify.xids import since_checkpoint_finding
        vm = self._heap_context(s, fork, ctx, with_vm)
        pd_without_vm: list[int] = []   # the first block of each range with PD_ALL_VISIBLE set (and no VM)
        parts = self.heap_parts.pop(id(s), None)
        recent = 0   # tuples written since the checkpoint: told once, below
        if parts is None:
            found = self._heap_range(s, fork, ctx, vm, with_vm, fork.first_block, fork.end_block, pd_without_vm)
        else:  # its ranges were verified by workers (subjects_records)
            found = (f for findings, firsts, blocks in parts for f in findings)
            for findings, firsts, blocks in parts:
                pd_without_vm += firsts
                self.totals.blocks += blocks
                self.advance(blocks)
        for f in found:
            if f.code == "heap.xid.since_checkpoint":
                recent += f.actual
            else:
                yield f
        if recent:
            yield since_checkpoint_finding(ctx, recent)
        if pd_without_vm:
            yield ctx.finding("vm.missing_fork", "pages are marked all-visible (PD_ALL_VISIBLE) but the relation has"
                              f" no visibility map fork (first: block {pd_without_vm[0]})", pd_without_vm[0],
                              severity=WARNING)
        if vm is not None and s.main_whole:
            yield from vm_tail_findings(dataclasses.replace(ctx, fork="vm"), self._vm_reader(vm), vm.end_block,
                                        fork.end_block)

    def _heap_context(self, s: Subject, fork: RelationFork, ctx: VerifyContext, with_vm: bool) -> RelationFork | None:
        """``ctx`` completed for the heap's main fork; its VM fork (None: none, or not to be read)."""
        ctx.nblocks = fork.end_block if s.main_whole else None
        if s.toast_known and s.attributes is not None:
            ctx.columns, ctx.toast_oid, ctx.toast_exists = _once(s.attributes), s.toast_oid, s.toast_exists
            if s.toast_store is not None:   # verify_heapam's check_toast: each pointer's chunks in the TOAST table
                from pgpage.passes.toast import toast_max_chunk
                ctx.toast_chunks = lambda valueid: s.toast_store().chunks(valueid)
                ctx.toast_max_chunk = toast_max_chunk(self.cluster)
                ctx.toast_chunks_clean = lambda ids, extsizes: s.toast_store().chunks_clean(ids, extsizes)
        return s.forks.get("vm") if with_vm else None

    def _heap_range(self, s: Subject, fork: RelationFork, ctx: VerifyContext, vm: RelationFork | None,
                    with_vm: bool, start: int, stop: int, pd_without_vm: list[int]) -> Iterator[Finding]:
        """Blocks start..stop-1 of a heap's main fork, chunk by chunk (each chunk is judged on its own)."""
        from pgpage.analysis.verify.heap import verify_heap_chunk
        from pgpage.analysis.verify.vm import vm_bits_for
        vm_page = self._vm_reader(vm)
        for first, chunk in fork.iter_chunks(start, stop):
            bits = vm_bits_for(vm_page, first, chunk.shape[0], fork.block_size) if vm is not None else None
            yield from verify_heap_chunk(chunk, first, ctx, bits)
            if with_vm and vm is None and s.main_whole:
                flags = chunk[:, 10].astype(np.int64) | (chunk[:, 11].astype(np.int64) << 8)
                pd_without_vm += list(first + np.flatnonzero(((flags & 0x4) != 0) & chunk.any(axis=1))[:1])
            self._count(chunk)

    def _other_am(self, s: Subject, fork: RelationFork, ctx: VerifyContext) -> Iterator[Finding]:
        """Page rules chunk by chunk, then the access method's own structure (``AM_VERIFIERS``)."""
        v = AM_VERIFIERS[s.am]()(ctx, fork.end_block)
        for first, chunk in fork.iter_chunks():
            yield from verify_generic_chunk(chunk, first, ctx, s.am)
            yield from v.feed(chunk, first)
            self._count(chunk)
        yield from v.finish()

    def _btree(self, s: Subject, fork: RelationFork, ctx: VerifyContext) -> Iterator[Finding]:
        if not s.main_whole:   # one segment of several: page rules only, no tree to walk
            for first, chunk in fork.iter_chunks():
                yield from verify_generic_chunk(chunk, first, ctx)
                self._count(chunk)
            return
        from pgpage.passes.index import heap_tid_check_or_why
        heap, unreadable = heap_tid_check_or_why(s.table_fork, s.table, s.label)
        if s.index is not None and s.table is not None and s.table_fork is None:   # the table's file is gone
            unreadable = table_file_findings(s.index, s.label)[1]
        if unreadable is not None:   # said once: its heap checks (TIDs, --heapallindexed) are not made
            yield unreadable
        from pgpage.analysis.verify.btree import CHUNK_BYTES, BtreeVerifier
        v = BtreeVerifier(ctx, fork.end_block, s.index_shape, heap, s.table, s.keys() if s.keys is not None else None)
        for first, chunk in fork.iter_chunks(chunk_blocks=CHUNK_BYTES // fork.block_size):
            yield from v.feed(chunk, first)
            self._count(chunk)
        yield from v.finish(fork.iter_chunks, fork.block_reader())
        if self.on_btree_report is not None:
            self.on_btree_report(fork, v.report)
        if self.heapallindexed and s.index is not None and unreadable is None:
            from pgpage.passes.heapallindexed import heapallindexed
            yield from heapallindexed(self.cluster, s.index, s.label, clean=ctx.consistent)


    def _index_am(self, s: Subject, fork: RelationFork, ctx: VerifyContext) -> Iterator[Finding]:
        """A GIN, GiST or SP-GiST index: its verifier fed chunk by chunk, then its rules across pages."""
        from pgpage.decode.indextuple import index_columns
        columns, reason = (), "index columns unknown"
        if s.index is not None:
            columns = index_columns(s.index, s.index.database)
            k = s.keys() if s.keys is not None and s.am == "gin" else None   # (only GIN's rules read an order)
            reason = k.reason if k is not None else reason
            if reason is None and k is not None and any(k.collation_keys or []):   # (GIN's order is bytes')
                reason = "a collation that does not sort as bytes"
        v = KEYED_AM_VERIFIERS[s.am]()(ctx, fork.end_block, columns, reason)
        for first, chunk in fork.iter_chunks():
            yield from v.feed(chunk, first)
            self._count(chunk)
        yield from v.finish()


# the verifiers of the index access methods whose rules read keys with the index's columns (imported when used)
KEYED_AM_VERIFIERS = {
    "gin": lambda: __import__("pgpage.analysis.verify.gin", fromlist=["_"]).GinVerifier,
    "gist": lambda: __import__("pgpage.analysis.verify.gist", fromlist=["_"]).GistVerifier,
    "spgist": lambda: __import__("pgpage.analysis.verify.spgist", fromlist=["_"]).SpgistVerifier,
}


def table_file_findings(index, label: str | None) -> tuple[Finding | None, Finding | None]:
    """When the main fork's file of ``index``'s table (a ``datadir.Relation``) is missing or cannot be read:
    (what verifying the table itself reports of it, the index's note that its heap checks were not made);
    (None, None) when it is readable. The table's finding is the catalog check's (``relation.file_missing``,
    ``storage.unreadable`` for a directory in its place) or, for a file that is there, its read's."""
    from pgpage.passes.index import missing_table_finding, table_unreadable, unreadable_table_finding
    table = index.table
    fork = table.forks.get("main") if table is not None else None
    if fork is not None:
        why = fork.probe()
        if why is None:
            return None, None
        return why.finding(table.qualified_name, "main"), table_unreadable(fork, table.qualified_name, label)
    name = table.qualified_name if table is not None else None
    own = next((f for f in (index.database.findings if table is not None else []) if f.relation == name
                and f.code in ("relation.file_missing", "storage.unreadable")), None)
    if own is None:
        return None, None
    if own.code == "relation.file_missing":
        return own, missing_table_finding(name, label)
    return own, unreadable_table_finding(name, label, table.directory / table.file_stem, own.actual)


def _toast_store(toast, cluster):
    from pgpage.passes.toast import ToastStore
    return ToastStore.open(toast, cluster)


def _once(f):
    """f(), computed on first use only (pg_attribute, a TOAST relation's chunk index: once per relation)."""
    memo: list = []

    def get():
        if not memo:
            memo.append(f())
        return memo[0]
    return get


def guess_kind(fork: RelationFork) -> tuple[str | None, str | None]:
    """(relkind, access method) from the pages themselves, for files no catalog names: the special
    space of the first pages with a sane header decides (none: heap)."""
    if fork.fork != "main":
        return None, None
    for first, chunk in fork.iter_chunks(stop=min(fork.end_block, fork.first_block + 64)):
        pc = check_pages(chunk, first, VerifyContext(block_size=fork.block_size, checksums=False))
        for i in np.flatnonzero(pc.valid):
            pd_special = int(pc.headers.special[i])
            if pd_special == chunk.shape[1]:
                return "r", "heap"
            kind = special_kind(chunk[i], pd_special)
            if kind == "sequence":
                return "S", "heap"
            if kind:
                return "i", kind
        break
    return None, None


def looks_like_relation(fork: RelationFork) -> bool:
    """Does any block start with a PostgreSQL page header of this block size (or is it all zeros)?"""
    for first, chunk in fork.iter_chunks(stop=min(fork.end_block, fork.first_block + 4096)):
        h = column(chunk, "pg_page::page_header", "pd_pagesize_version").astype(np.int64)
        if (((h & 0xFF00) == fork.block_size) & ((h & 0xFF) == PG_PAGE_LAYOUT_VERSION)).any() or not chunk.any():
            return True
        return False
    if fork.size_bytes == 0:
        return True
    head = fork.read_block(fork.first_block) if fork.segments else b""   # only a torn block
    if len(head) < 24:
        return False
    h = int.from_bytes(head[18:20], "little")
    return (h & 0xFF00) == fork.block_size and (h & 0xFF) == PG_PAGE_LAYOUT_VERSION or not any(head)
