"""pgpage verify: audit a data directory, a relation or a relation file; exit 1 on failing findings.

With ``--json`` the output is newline-delimited JSON, one record per line, written as the audit
goes (see ``pgpage.render.verify``)::

    {"type": "start", "schema": "pgpage.verify/1", "target": ..., "scope": "cluster", ...}
    {"type": "finding", "schema": "pgpage.verify/1", "code": "checksum.mismatch", "severity": "error",
     "fails": true, "database": "db", "relation": "public.t", "fork": "main", "block": 7, ...}
    {"type": "relation", "schema": "pgpage.verify/1", "relation": "public.t", "forks": {...}, ...}
    {"type": "summary", "schema": "pgpage.verify/1", "findings": 3, "failing": 1, "by_code": {...},
     "exit_status": 1}
"""
from __future__ import annotations

import time
from fnmatch import fnmatchcase
from pathlib import Path

from pgpage.findings import ERROR, ExitCode, PgpageError

SCHEMA = "pgpage.verify/1"


class FailOn:
    """Which findings fail the audit.

    Without a selection every error fails (warnings and notes never do). A selection is a
    comma-separated list of code prefixes (``checksum``, ``heap.hot``, ``btree.item.bad_natts``,
    globs allowed: ``*.overlap``); a finding fails when its code is a selected prefix, whatever its
    severity. ``-PREFIX`` removes codes (``-relation.file_missing``); a selection made only of
    removals starts from "every error".
    """

    def __init__(self, spec: str | None):
        self.spec = spec
        self.include: list[str] = []
        self.exclude: list[str] = []
        for part in (spec or "").split(","):
            part = part.strip()
            if not part:
                continue
            if part[0] in "-!":
                if not part[1:].strip():
                    raise PgpageError(f"--fail-on: {part!r} names no code", ExitCode.USAGE)
                self.exclude.append(part[1:].strip())
            else:
                self.include.append(part)
        if spec is not None and not (self.include or self.exclude):
            raise PgpageError("--fail-on takes comma-separated code prefixes, e.g. checksum,heap.hot", ExitCode.USAGE)

    @staticmethod
    def _match(code: str, prefix: str) -> bool:
        if prefix in ("all", "*"):
            return True
        if any(ch in prefix for ch in "*?["):
            return fnmatchcase(code, prefix)
        return code == prefix or code.startswith(prefix.rstrip(".") + ".")

    def fails(self, rec: dict) -> bool:
        code = rec["code"]
        if any(self._match(code, p) for p in self.exclude):
            return False
        if self.include:
            return any(self._match(code, p) for p in self.include)
        return rec.get("severity", ERROR) == ERROR


def verify_command(target: str, db: str | None, rel: str | None, fork: str | None, json_out: bool,
                   fail_on: str | None, verbose: bool, jobs: int = 1) -> int:
    from pgpage.analysis.verify_run import Verification
    from pgpage.parallel import default_jobs
    from pgpage.render.progress import progress

    policy = FailOn(fail_on)
    verification, records, start = _plan(target, db, rel, fork, Verification)
    verification.jobs = jobs or default_jobs()
    start.update(type="start", schema=SCHEMA, target=target, fail_on=fail_on)
    began = time.monotonic()
    if json_out:
        from pgpage.render.verify import JsonSink
        sink = JsonSink(SCHEMA)
    else:
        from pgpage.render.verify import TextSink
        sink = TextSink(verbose)
    sink.start(start)
    with progress("verifying", start.get("blocks_planned", 0)) as advance:
        verification.advance = advance
        for rec in records:
            if rec["type"] == "finding":
                rec["fails"] = policy.fails(rec)
            sink.record(rec)
    t = verification.totals
    failing = sink.failing
    status = int(ExitCode.FINDINGS if failing else ExitCode.CLEAN)
    sink.finish({"type": "summary", "schema": SCHEMA, "relations": t.relations, "forks": t.forks,
                 "blocks": t.blocks, "bytes": t.bytes, "findings": sink.count, "failing": failing,
                 "by_code": dict(sorted(sink.by_code.items())), "seconds": round(time.monotonic() - began, 3),
                 "exit_status": status})
    return status


def _plan(target: str, db: str | None, rel: str | None, fork: str | None, Verification):
    """(Verification, record iterator, start record) for what the user named."""
    from pgpage.storage.relfile import FORKS
    if fork is not None and fork not in FORKS:
        raise PgpageError(f"--fork must be one of {', '.join(FORKS)}", ExitCode.USAGE)
    path = Path(target)
    if path.is_dir():
        from pgpage.storage.datadir import open_data_directory
        cluster = open_data_directory(path)
        v = Verification(cluster)
        start = _cluster_start(cluster)
        if rel:
            relation = cluster.database(db).relation(rel)
            relation.database.relations()  # checks the files against pg_class: a missing file is a finding
            subject = v.subject_of(relation, fork)
            start.update(scope="relation", database=relation.database.name, relation=relation.qualified_name)
            start["blocks_planned"] = sum(f.nblocks for f in subject.forks.values())

            def records():
                yield from v.cluster_findings_for_relation()
                for f in relation.database.findings:
                    if f.relation == relation.qualified_name:
                        yield {"type": "finding", "database": relation.database.name, **f.to_json()}
                yield from v.subjects_records([subject])
            return v, records(), start
        if fork:
            raise PgpageError("--fork goes with --rel (a whole data directory is verified fork by fork)",
                              ExitCode.USAGE)
        start.update(scope="database" if db else "cluster", database=db)
        return v, v.cluster_records(db), start
    if not path.exists():
        raise PgpageError(f"{target}: no such file or directory", ExitCode.UNREADABLE)
    if db or rel:
        raise PgpageError("--db and --rel go with a data directory, not a file", ExitCode.USAGE)
    return _plan_file(path, fork, Verification)


def _cluster_start(cluster) -> dict:
    c = cluster.control or {}
    cp = c.get("checkPointCopy", {})
    return {"data_directory": str(cluster.path), "major": cluster.major, "block_size": cluster.block_size,
            "data_checksums": cluster.checksums, "state": c.get("state_name"),
            "next_xid": cp.get("nextFullXid"), "oldest_xid": cp.get("oldestXid"),
            "next_multixact": cp.get("nextMulti"), "oldest_multixact": cp.get("oldestMulti")}


def _plan_file(path: Path, fork: str | None, Verification):
    from pgpage.analysis.verify_run import Subject, looks_like_relation
    from pgpage.storage.datadir import open_data_directory
    from pgpage.storage.relfile import open_segment_file, parse_segment_name
    from pgpage.storage.target import find_data_directory

    if fork is not None:
        raise PgpageError("--fork goes with a data directory; a file names its fork itself (16384_vm)",
                          ExitCode.USAGE)
    datadir = find_data_directory(path) if path.exists() else None
    cluster = None
    relation = None
    parsed = parse_segment_name(path.name)
    if datadir is not None:
        try:
            cluster = open_data_directory(datadir)
            relation = _relation_of_file(cluster, path, parsed)
        except PgpageError:
            cluster, relation = None, None
    v = Verification(cluster)
    start = _cluster_start(cluster) if cluster is not None else {}
    if relation is not None:
        subject = v.subject_of(relation, parsed.fork, parsed.segno)
        start.update(scope="file", file=str(path), database=relation.database.name,
                     relation=relation.qualified_name)
    else:
        size = cluster.block_size if cluster is not None and cluster.control else None
        kw = {"relseg_size": cluster.relseg_size} if cluster is not None and cluster.control else {}
        relfork = open_segment_file(path, size, **kw)
        if relfork.size_bytes and not looks_like_relation(relfork):
            raise PgpageError(f"{path}: not a PostgreSQL relation file (no block starts with a page header of"
                              f" {relfork.block_size}-byte pages)", ExitCode.UNREADABLE)
        subject = Subject(path.name, None, {relfork.fork: relfork},
                          main_whole=parsed is None or parsed.segno is None)
        start.update(scope="file", file=str(path), block_size=relfork.block_size)
    start["blocks_planned"] = sum(f.nblocks for f in subject.forks.values())

    def records():
        if cluster is not None:
            yield from v.cluster_findings_for_relation()
        yield from v.relation_records(subject)
    return v, records(), start


def _relation_of_file(cluster, path: Path, parsed):
    """The catalog's relation whose files include ``path`` (None when no catalog names it)."""
    if parsed is None:
        return None
    directory = path.resolve().parent
    for d in cluster.databases():
        if not d.path.is_dir():
            continue
        for r in d.relations():
            if r.has_storage and r.file_stem == parsed.stem and r.directory.resolve() == directory:
                return r if parsed.fork in r.forks else None
    return None
