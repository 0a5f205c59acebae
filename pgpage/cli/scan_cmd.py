"""pgpage scan: the cluster, its databases and relations with a health line each."""
from __future__ import annotations

import sys

from pgpage.cli.common import emit, exit_status


def scan_command(pgdata, db_name, top, kind, name, deep, json_out, jobs: int = 1) -> int:
    from pgpage import survey
    from pgpage.parallel import default_jobs
    from pgpage.render.output import emit_json, materialized
    from pgpage.render.progress import progress
    from pgpage.storage.datadir import open_data_directory

    cluster = open_data_directory(pgdata)
    kinds = {k.strip() for k in kind.split(",")} if kind else None
    dbs = [cluster.database(db_name)] if db_name else [d for d in cluster.databases() if d.path.is_dir()]
    survey.read_catalogs(cluster, dbs, jobs or default_jobs())
    plan = [(d, survey.select_relations(d.relations(), kinds, name)) for d in dbs]
    if top is not None:
        plan = [(d, rels[:top]) for d, rels in plan]
    total_blocks = sum(f.nblocks for _, rels in plan for r in rels for f in r.forks.values())
    status = [exit_status([])]  # the worst exit status of the findings written so far

    def noted(findings: list[dict]) -> list[dict]:
        status[0] = max(status[0], exit_status(findings))
        return findings

    def relations(entries, n):
        for _ in range(n):
            entry = next(entries)
            noted(entry["findings"])
            yield entry

    def findings(owner):  # read when written: after the relations before them were scanned
        yield from noted([f.to_json() for f in owner.findings])

    def databases(entries):
        for d, rels in plan:
            yield {**survey.database_summary(cluster, d), "relations": relations(entries, len(rels)),
                   "findings": findings(d)}

    # into a pipe or file the document is written as the relations are read (none is held: a cluster of
    # 80 000 relations); people's text and a terminal's JSON need it whole
    streamed = json_out and not sys.stdout.isatty()
    with progress("scanning", total_blocks) as advance:  # every database's forks in one pool of workers
        entries = survey.scan_relations(cluster, [r for _, rels in plan for r in rels], deep,
                                        jobs or default_jobs(), advance)
        doc = {"schema": "pgpage.scan/1", "cluster": survey.cluster_summary(cluster), "databases": databases(entries),
               "findings": findings(cluster)}
        if streamed:
            emit_json(doc)
        else:
            doc = materialized(doc)
    if not streamed:
        def text(d):
            from pgpage.render.scan import render_scan  # Rich loads only for people's output
            render_scan(d)
        emit(doc, json_out, text)
    return status[0]
