"""pgpage scan: the cluster, its databases and relations with a health line each."""
from __future__ import annotations

import sys

from pgpage.cli.common import emit, exit_status


def scan_command(*, pgdata, db=None, top=None, kind=None, name=None, deep=False, json_out=False, jobs: int = 1) -> int:
    from pgpage.passes.scan import ClusterScan
    from pgpage.render.output import emit_json, materialized
    from pgpage.render.progress import progress

    kinds = {k.strip() for k in kind.split(",")} if kind else None
    scan = ClusterScan(pgdata, db, top, kinds, name, jobs)
    status = [exit_status([])]  # the worst exit status of the findings written so far

    def noted(findings: list[dict]) -> None:
        status[0] = max(status[0], exit_status(findings))

    # into a pipe or file the document is written as the relations are read (none is held: a cluster of
    # 80 000 relations); people's text and a terminal's JSON need it whole
    streamed = json_out and not sys.stdout.isatty()
    with progress("scanning", scan.total_blocks) as advance:
        doc = scan.document(deep, on_blocks=advance, on_findings=noted)
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
