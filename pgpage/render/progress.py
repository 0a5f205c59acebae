"""Progress on stderr, only when stderr is a terminal (scripts and pipes see nothing)."""
from __future__ import annotations

import sys
from contextlib import contextmanager


@contextmanager
def progress(label: str, total: int):
    """Yields ``advance(n)``; draws a bar on a terminal for work worth watching."""
    if not sys.stderr.isatty() or total < 50_000:
        yield lambda n: None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
    with Progress(TextColumn(label), BarColumn(), TextColumn("{task.completed}/{task.total} blocks"),
                  TimeRemainingColumn(), transient=True, console=_stderr(),
                  redirect_stdout=False, redirect_stderr=False) as bar:  # JSON may be written to stdout meanwhile
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


def _stderr():
    from rich.console import Console
    return Console(stderr=True)
