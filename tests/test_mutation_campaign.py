"""The mutation campaign's CI-sized sample: damaged real files (tests/mutation.py) through every command.

A fixed seed and ``CASES`` cases (a case is one mutated input through one command; the commands and the kinds of
damage are cycled, so each gets its share), run in a worker process through the real entry point, each under
``CASE_SECONDS``. Any traceback or "internal error", hang, crash, exit status outside {0, 1, 3}, output that is not
JSON lines where --json was asked, or peak RSS over ``RSS_LIMIT_MB`` fails the test, with a line per failure that
reproduces it (``python tests/mutation.py SEED INDEX``). The large run is bench/mutation_campaign.py.
"""
from __future__ import annotations

import os
from collections import Counter

from mutation import KINDS, Runner, command_names, outcome

SEED = int(os.environ.get("PGPAGE_MUTATION_SEED", 20261128))
CASES = int(os.environ.get("PGPAGE_MUTATION_CASES", 260))
CASE_SECONDS = 30
RSS_LIMIT_MB = 1024


def test_mutated_real_files_through_every_command():
    runner = Runner(case_seconds=CASE_SECONDS, rss_limit_mb=RSS_LIMIT_MB)
    results = []
    try:
        for i in range(CASES):
            results.append(runner.run(SEED, i))
    finally:
        runner.close()
    outcomes = Counter(outcome(r) for r in results)
    print(f"\nmutation campaign: {len(results)} cases, seed {SEED}: {dict(outcomes)}")
    # every command and every kind of damage had its turn, and the damage was seen (not every case clean)
    assert {r["command"] for r in results} == set(command_names())
    assert {r["kind"] for r in results} == set(KINDS)
    assert outcomes["exit 1"] + outcomes["exit 3"] > len(results) // 10
    failures = [f"{r['failure']}: {r['reproducer']}\n    pgpage {r['argv']}\n    {r['detail'][-400:]}"
                for r in results if r["failure"]]
    assert not failures, f"{len(failures)} of {len(results)} cases failed:\n" + "\n".join(failures)
