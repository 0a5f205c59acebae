"""pgpage never writes to what it reads.

Every CLI command (page, scan, verify, index, heap, diff: whichever exist) runs against copies of a
fixture data directory, in-process with every way of opening or changing a file patched to refuse
write access under that directory, and then through the real entry point in a subprocess. Before
and after, every file under the copies is hashed and its size, mtime and ctime recorded; nothing
may change, appear or disappear.
"""
from __future__ import annotations

import builtins
import hashlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import REPO, data_dir
from pgpage.cli.main import app

MAJOR = 17
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        if p.is_file():
            out[str(p.relative_to(root))] = (hashlib.sha256(p.read_bytes()).hexdigest(), st.st_size,
                                             st.st_mtime_ns, st.st_ctime_ns)
        else:
            out[str(p.relative_to(root)) + "/"] = (st.st_mtime_ns,)
    return out


@pytest.fixture
def copies(tmp_path):
    a, b = tmp_path / "before", tmp_path / "after"
    shutil.copytree(data_dir(MAJOR), a)
    shutil.copytree(data_dir(MAJOR), b)
    # the AFTER snapshot differs a little: a page of heap_hot with a changed tuple byte
    rel = next(p for p in (b / "base").rglob("*") if p.is_file() and p.name.isdigit() and p.stat().st_size >= 16384)
    data = bytearray(rel.read_bytes())
    data[8192 + 8000] ^= 1
    rel.write_bytes(bytes(data))
    return a, b


class WriteGuard:
    """Refuse (and record) any attempt to open for writing, create, truncate, remove, rename or
    touch a path under ``roots``."""

    def __init__(self, roots: list[Path]):
        self.roots = [str(r.resolve()) for r in roots]
        self.violations: list[str] = []

    def _under(self, path) -> bool:
        try:
            p = os.path.realpath(os.fspath(path))
        except TypeError:
            return False   # a file descriptor: opened earlier, and checked then
        return any(p == r or p.startswith(r + os.sep) for r in self.roots)

    def _refuse(self, what: str, path) -> None:
        self.violations.append(f"{what} {path}")
        raise PermissionError(f"read-only test: {what} {path}")

    def install(self, monkeypatch) -> None:
        real_open, real_os_open = builtins.open, os.open

        def guarded_open(file, mode="r", *args, **kw):
            if any(c in mode for c in "wax+") and self._under(file):
                self._refuse(f"open({mode!r})", file)
            return real_open(file, mode, *args, **kw)

        def guarded_os_open(path, flags, *args, **kw):
            if flags & WRITE_FLAGS and self._under(path):
                self._refuse(f"os.open(flags={flags:#x})", path)
            return real_os_open(path, flags, *args, **kw)

        monkeypatch.setattr(builtins, "open", guarded_open)
        monkeypatch.setattr(io, "open", guarded_open)
        monkeypatch.setattr(os, "open", guarded_os_open)
        for name in ("truncate", "utime", "remove", "unlink", "rmdir", "mkdir", "makedirs", "chmod", "chown",
                     "link", "symlink"):
            real = getattr(os, name, None)
            if real is not None:
                monkeypatch.setattr(os, name, self._wrap(name, real))
        for name in ("rename", "replace"):
            monkeypatch.setattr(os, name, self._wrap2(name, getattr(os, name)))

    def _wrap(self, name, real):
        def f(path, *args, **kw):
            if self._under(path):
                self._refuse(f"os.{name}", path)
            return real(path, *args, **kw)
        return f

    def _wrap2(self, name, real):
        def f(src, dst, *args, **kw):
            if self._under(src) or self._under(dst):
                self._refuse(f"os.{name}", f"{src} -> {dst}")
            return real(src, dst, *args, **kw)
        return f


def commands(a: Path, b: Path) -> list[list[str]]:
    heap_file = next(str(p) for p in sorted((a / "base").rglob("*")) if p.is_file() and p.name.isdigit()
                     and p.stat().st_size >= 16384)
    names = {c.name for c in app.registered_commands}
    out = [
        ["page", heap_file, "--all"], ["page", heap_file, "--all", "--json"],
        ["page", str(a), "--rel", "heap_hot", "--fork", "vm", "--json"],
        ["scan", str(a)], ["scan", str(a), "--json"],
        ["verify", str(a)], ["verify", str(a), "--json"], ["verify", str(a), "--rel", "heap_hot", "-v"],
        ["verify", heap_file, "--json"],
    ]
    if "index" in names:
        out += [["index", str(a), "--rel", "idx_multilevel"], ["index", str(a), "--rel", "idx_dup", "--json"]]
    if "heap" in names:
        out += [["heap", str(a), "--rel", "heap_hot"], ["heap", str(a), "--rel", "heap_hot", "--json"]]
    if "diff" in names:
        out += [["diff", str(a), str(b)], ["diff", str(a), str(b), "--json"]]
    if "dump" in names:     # (its script outside the data directories)
        out += [["dump", str(a), "--db", "pgpage", "-o", str(a.parent / "dump.sql")]]
    if "export" in names:   # (its output outside the data directories)
        out += [["export", str(a), "-o", str(a.parent / "export"), "--rows"],
                ["rows", str(a), "--rel", "heap_hot", "--parquet", str(a.parent / "rows.parquet")]]
    return out


def test_no_command_writes_in_process(copies, monkeypatch):
    a, b = copies
    before = {a: snapshot(a), b: snapshot(b)}
    guard = WriteGuard([a, b])
    runner = CliRunner()
    cmds = commands(a, b)
    guard.install(monkeypatch)
    results = [(cmd, runner.invoke(app, cmd)) for cmd in cmds]
    monkeypatch.undo()
    assert guard.violations == []
    for cmd, r in results:
        assert r.exception is None or isinstance(r.exception, SystemExit), (cmd, repr(r.exception))
        assert r.exit_code in (0, 1), (cmd, r.exit_code, r.output[-500:])
        assert r.output.strip(), cmd
    assert {"verify", "scan", "page"} <= {c[0] for c in cmds}
    for root in (a, b):
        assert snapshot(root) == before[root]


def test_no_command_writes_through_the_entry_point(copies):
    a, b = copies
    before = {a: snapshot(a), b: snapshot(b)}
    for cmd in commands(a, b):
        p = subprocess.run([sys.executable, "-m", "pgpage", *cmd], cwd=REPO, capture_output=True, timeout=600)
        assert p.returncode in (0, 1), (cmd, p.returncode, p.stderr.decode()[-500:])
    for root in (a, b):
        assert snapshot(root) == before[root]


def test_the_guard_catches_writes(tmp_path, monkeypatch):
    """The guard itself works: each kind of write under the guarded root is refused."""
    root = tmp_path / "d"
    root.mkdir()
    f = root / "x"
    f.write_bytes(b"1")
    guard = WriteGuard([root])
    guard.install(monkeypatch)
    attempts = [lambda: open(f, "r+b"), lambda: open(f, "ab"), lambda: f.write_bytes(b"2"),
                lambda: os.open(f, os.O_RDWR), lambda: os.truncate(f, 0), lambda: os.utime(f),
                lambda: os.rename(f, root / "y"), lambda: (root / "new").touch()]
    for attempt in attempts:
        with pytest.raises(PermissionError):
            attempt()
    with open(f, "rb") as fh:   # reading stays allowed
        assert fh.read() == b"1"
    monkeypatch.undo()
    assert len(guard.violations) >= len(attempts)   # touch() tries utime, then os.open
