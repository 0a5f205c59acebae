"""The console entry point's command group builds a command only when it is invoked or listed
(cli.main.CommandsOnDemand): its help must still list every command as Typer's own group lists them, and each
command's help and parsing must be the one Typer builds."""
from __future__ import annotations

import os
import subprocess
import sys

from pgpage.cli.main import app, command_group

ENTRY_POINT = "from pgpage.cli.main import run; run()"
TYPER_GROUP = "from pgpage.cli.main import app; app()"  # every command built up front


def entry_point(*args: str, code: str = ENTRY_POINT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, COLUMNS="80"))


def typer_group(*args: str) -> str:
    r = entry_point(*args, code=TYPER_GROUP)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_help_lists_every_command_as_typer_does():
    r = entry_point("--help")
    assert r.returncode == 0, r.stderr
    listed = r.stdout.split("Commands:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    assert names == [info.name or info.callback.__name__ for info in app.registered_commands]
    assert len(names) >= 11 and "wal" in names and "page" in names
    assert r.stdout == typer_group("--help")


def test_a_commands_help_is_typers():
    for name in ("wal", "rows"):
        r = entry_point(name, "--help")
        assert r.returncode == 0, r.stderr
        assert r.stdout == typer_group(name, "--help")


def test_only_the_invoked_command_is_built():
    group = command_group()
    assert group.commands == {}
    wal = group.get_command(None, "wal")
    assert list(group.commands) == ["wal"] and wal.name == "wal"
    assert [p.name for p in wal.params][:2] == ["pgdata", "wal_dir"]
    assert group.get_command(None, "no-such-command") is None
    assert group.list_commands(None)[0] == "wal" and len(group.list_commands(None)) == len(app.registered_commands)


def test_unknown_command_is_a_usage_error():
    r = entry_point("no-such-command")
    assert r.returncode == 2 and "No such command 'no-such-command'" in r.stderr


RUN_TWICE = """
import gc, io, contextlib, sys
from pgpage.cli.main import run
counts = []
for _ in range(2):
    cycle = []
    cycle.append(cycle)          # garbage a collection would free, left when the next command starts
    del cycle
    sys.argv = ["pgpage", "--help"]
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            run()
        except SystemExit:
            pass
    counts.append(gc.get_freeze_count())
print(*counts)
"""


def test_start_up_is_frozen_once_per_process():
    """run() freezes what start-up made, once: a process that runs many commands (the mutation campaign's worker)
    must not freeze each command's garbage for good (it grew 1.2 MB a case to 1 GB)."""
    r = entry_point(code=RUN_TWICE)
    assert r.returncode == 0, r.stderr
    first, second = map(int, r.stdout.split())
    assert first > 0 and second <= first      # (a frozen object freed by its refcount leaves the count)
