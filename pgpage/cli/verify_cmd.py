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
        from pgpage.findings import families, names_a_code
        unknown = [p for p in self.include + self.exclude if not names_a_code(p)]
        if unknown:  # a typo would otherwise select nothing and pass a corrupt cluster
            raise PgpageError(f"--fail-on: {', '.join(map(repr, unknown))} names no finding code (codes start with"
                              f" {', '.join(families())}; `pgpage verify --json` prints each finding's code)",
                              ExitCode.USAGE)

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


def verify_command(*, target: str, db: str | None = None, rel: str | None = None, fork: str | None = None,
                   json_out: bool = False, fail_on: str | None = None, verbose: bool = False, jobs: int = 1,
                   heapallindexed: bool = False, parquet: str | None = None) -> int:
    from pgpage.passes.verify import plan
    from pgpage.render.progress import progress

    if parquet is not None and json_out:
        raise PgpageError("give only one of --json and --parquet", ExitCode.USAGE)
    if parquet is not None:
        from pgpage.cli.common import refuse_output_inside
        refuse_output_inside(parquet, target, "--parquet")

    policy = FailOn(fail_on)
    verification, records, start = plan(target, db, rel, fork, jobs, heapallindexed)
    start.update(type="start", schema=SCHEMA, target=target, fail_on=fail_on)
    began = time.monotonic()
    if parquet is not None:
        sink = ParquetSink(parquet)
    elif json_out:
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


class ParquetSink:
    """`verify --parquet FILE`: the findings as export's ``findings`` dataset, one Parquet file (nothing on stdout)."""

    def __init__(self, path: str):
        from pgpage.passes.export import ROWS_BATCH, finding_row, schema
        from pgpage.render.parquet import ParquetFiles
        self.files, self.schema, self.row, self.batch_rows = ParquetFiles(file=path), schema("findings"), \
            finding_row, ROWS_BATCH
        self.rows: list[dict] = []
        self.count = self.failing = 0
        self.by_code: dict[str, int] = {}

    def start(self, rec: dict) -> None:
        pass

    def record(self, rec: dict) -> None:
        if rec["type"] != "finding":
            return
        self.count += 1
        self.failing += bool(rec.get("fails"))
        self.by_code[rec["code"]] = self.by_code.get(rec["code"], 0) + 1
        self.rows.append(self.row(rec))
        if len(self.rows) >= self.batch_rows:
            self._flush()

    def _flush(self) -> None:
        from pgpage.passes.export import rows_batch
        if self.rows:
            self.files.write("findings", rows_batch("findings", self.rows))
            self.rows = []

    def finish(self, summary: dict) -> None:
        self._flush()
        self.files.close({"findings": self.schema})
