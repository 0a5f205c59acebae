"""pgpage scan: the cluster, its databases and relations with a health line each."""
from __future__ import annotations

from pgpage.cli.common import emit, exit_status


def scan_command(pgdata, db_name, top, kind, name, deep, json_out, jobs: int = 1) -> int:
    from pgpage import survey
    from pgpage.parallel import default_jobs
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
    doc = {"schema": "pgpage.scan/1", "cluster": survey.cluster_summary(cluster), "databases": []}
    with progress("scanning", total_blocks) as advance:  # every database's forks in one pool of workers
        health = iter(survey.scan_relations(cluster, [r for _, rels in plan for r in rels], deep,
                                            jobs or default_jobs(), advance))
    for d, rels in plan:
        entry = survey.database_summary(cluster, d)
        entry["relations"] = [next(health) for _ in rels]
        entry["findings"] = [f.to_json() for f in d.findings]
        doc["databases"].append(entry)
    doc["findings"] = [f.to_json() for f in cluster.findings]
    def text(d):
        from pgpage.render.scan import render_scan  # Rich loads only for people's output
        render_scan(d)

    emit(doc, json_out, text)
    return exit_status(_all_findings(doc))


def _all_findings(doc: dict) -> list[dict]:
    out = list(doc["findings"])
    for d in doc["databases"]:
        out += d["findings"]
        for r in d["relations"]:
            out += r["findings"]
    return out
