"""Every input answered (issue 42, items 1-5): one TARGET vocabulary, names as psql takes them, options checked
before any work, closed pipes, unreadable files and unwritable outputs. Real fixtures throughout: the scenario
snapshots t1..t4 (one cluster before and after workloads) and the demo cluster."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO
from pgpage.storage.names import split_name

SNAP = FIXTURES / "scenarios" / "snapshots"
DEMO = REPO / "demo" / "data"


def run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "COLUMNS": "100"}, **kw)


def no_traceback(r) -> None:
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr


def relation_file(data: Path, name: str) -> Path:
    """The main fork's file of relation ``name`` (schema public), as the server's catalog recorded it."""
    cat = json.loads((data.parent / "oracle" / "catalog.json").read_text())
    rel = next(r for r in cat["relations"] if r["relname"] == name and r.get("nspname", "public") == "public")
    return data / rel["filepath"]


# --------------------------------------------------------------------------- diff of two relation files
def test_diff_of_two_files_of_one_relation_equals_the_data_directories_diff():
    before, after = relation_file(SNAP / "t1" / "data", "bloat"), relation_file(SNAP / "t2" / "data", "bloat")
    files = run("diff", before, after, "--json")
    no_traceback(files)
    dirs = run("diff", SNAP / "t1" / "data", SNAP / "t2" / "data", "--rel", "bloat", "--json")
    assert files.returncode == dirs.returncode == 1   # the table changed between the snapshots
    by_name = lambda doc: {r["name"]: r for r in json.loads(doc)["relations"]}  # noqa: E731
    assert by_name(files.stdout)["public.bloat"] == by_name(dirs.stdout)["public.bloat"]
    text = run("diff", before, after)
    no_traceback(text)
    assert text.returncode == 1 and "public.bloat (table, heap)" in text.stdout


def test_diff_of_two_different_relations_is_a_usage_error_naming_both():
    a, b = relation_file(SNAP / "t1" / "data", "bloat"), relation_file(SNAP / "t2" / "data", "hot")
    r = run("diff", a, b)
    no_traceback(r)
    assert r.returncode == 2 and "two different relations" in r.stderr
    assert str(a.relative_to(REPO)) in r.stderr and str(b.relative_to(REPO)) in r.stderr


def test_diff_of_files_outside_a_data_directory(tmp_path):
    src_b, src_a = relation_file(SNAP / "t1" / "data", "bloat"), relation_file(SNAP / "t2" / "data", "bloat")
    (tmp_path / "b").mkdir(), (tmp_path / "a").mkdir()
    b, a = tmp_path / "b" / src_b.name, tmp_path / "a" / src_a.name
    shutil.copyfile(src_b, b), shutil.copyfile(src_a, a)
    r = run("diff", b, a, "--json")
    no_traceback(r)
    pages = json.loads(r.stdout)["relations"][0]["pages"]
    nb, na = b.stat().st_size // 8192, a.stat().st_size // 8192
    assert r.returncode == 1 and (pages["before"], pages["after"]) == (nb, na)
    text = run("diff", b, a)
    no_traceback(text)
    assert text.returncode == 1 and f"{nb:,} → {na:,} pages" in text.stdout
    other = tmp_path / "a" / "99999"
    shutil.copyfile(src_a, other)
    r = run("diff", b, other)
    assert r.returncode == 2 and "two different relations" in r.stderr and "99999" in r.stderr


def test_diff_details_in_text_name_every_changed_page():
    """--details lists each page whose bytes differ (the files compared byte by byte here), grouped in runs, and
    the pages it says had hint bits set are as many as the summary line counts."""
    data_b, data_a = SNAP / "t1" / "data", SNAP / "t2" / "data"
    for table in ("hint_load", "bloat", "hot"):
        fb, fa = relation_file(data_b, table).read_bytes(), relation_file(data_a, table).read_bytes()
        n = min(len(fb), len(fa)) // 8192
        differ = {i for i in range(n) if fb[i * 8192:(i + 1) * 8192] != fa[i * 8192:(i + 1) * 8192]}
        r = run("diff", data_b, data_a, "--rel", table, "--details")
        no_traceback(r)
        lines = r.stdout.split("changed pages:\n")[1].splitlines() if differ else []
        named, hinted = set(), 0
        for line in lines:
            m = re.match(r"\s+blocks? (\d+)(?:-(\d+))?\s+(.*)", line)
            if not m:
                break
            first, last = int(m[1]), int(m[2] or m[1])
            named |= set(range(first, last + 1))
            hinted += (last - first + 1) * ("hint bits" in m[3].split(", "))
        assert named == differ, table
        doc = json.loads(run("diff", data_b, data_a, "--rel", table, "--details", "--json").stdout)
        rel = next(x for x in doc["relations"] if x["name"] == f"public.{table}")
        assert [p["blkno"] for p in rel["pages"]["detail"]] == sorted(differ)
        assert hinted == rel["pages"]["page_classes"]["hint_bits"]


# --------------------------------------------------------------------------- names as psql takes them
@pytest.mark.parametrize("text, want", [
    ("orders", (None, "orders")), ("Orders", (None, "orders")), ("Sales.Orders", ("sales", "orders")),
    ('"Sales"."Mixed Case"', ("Sales", "Mixed Case")), ('public."a.b"', ("public", "a.b")),
    ('"say ""hi"""', (None, 'say "hi"')), ('"Sales".orders', ("Sales", "orders")),
])
def test_names_split_and_fold_as_psql_does(text, want):
    assert split_name(text) == want


@pytest.mark.parametrize("text", ["a.b.c", '"open', "a.", ".a", ""])
def test_names_that_are_no_relation_name_are_refused(text):
    r = run("heap", DEMO, "--rel", text)
    assert r.returncode == 2 and r.stderr.startswith("pgpage: "), r.stderr
    no_traceback(r)


def test_relation_names_on_a_real_cluster():
    for spelling in ("bloated", "BLOATED", "public.bloated", "Public.Bloated", '"public"."bloated"', 'public."bloated"'):
        r = run("heap", DEMO, "--rel", spelling, "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["relation"] == "demo.public.bloated", spelling
    r = run("heap", DEMO, "--rel", '"Bloated"')   # quoted: case kept, and no such relation
    assert r.returncode == 2 and "did you mean public.bloated?" in r.stderr
    r = run("heap", DEMO, "--rel", "public.bloatd")
    assert r.returncode == 2 and "did you mean public.bloated?" in r.stderr


# --------------------------------------------------------------------------- options checked before any work
def corrupt_copy(tmp_path: Path) -> tuple[Path, str]:
    """The demo cluster with one byte of public.bloated's block 3 changed (its checksum no longer matches)."""
    data = tmp_path / "data"
    shutil.copytree(DEMO, data)
    f = data / json.loads(run("scan", data, "--json", "--name", "public.bloated").stdout)["databases"][0][
        "relations"][0]["files"][0]
    raw = bytearray(f.read_bytes())
    raw[3 * 8192 + 8000] ^= 0xFF
    f.write_bytes(raw)
    return data, f.name


def test_fail_on_a_code_that_does_not_exist_is_a_usage_error(tmp_path):
    data, _ = corrupt_copy(tmp_path)
    assert run("verify", data, "--fail-on", "checksum.mismatch").returncode == 1
    r = run("verify", data, "--fail-on", "checksum.mismach")
    assert r.returncode == 2 and "'checksum.mismach' names no finding code" in r.stderr and "checksum" in r.stderr
    assert r.stdout == ""   # refused before any work
    for ok in ("checksum", "heap.hot", "*.overlap", "-relation.file_missing", "datum.int4.bad_value"):
        assert run("verify", data, "--fail-on", ok).returncode in (0, 1), ok


# dotted strings of a code family that are not codes a finding carries
NOT_CODES = {"btree.heap.table_", "btree.heap.tid_",   # prefixes tested with startswith / completed by an f-string
             "rows.value",                              # a prefix, for rows.value.unreadable
             "heap.pgstattuple.dead_tuple_percent", "heap.hot.hot_update_percent"}  # report thresholds' keys


def test_every_code_in_the_sources_is_registered():
    """The registry `--fail-on` checks against holds every finding code the Python and C sources write: any
    string literal of a code family's dotted shape (Finding(...), sinks, the C event tables) is either registered
    or one of the few NOT_CODES."""
    from fnmatch import fnmatchcase

    from pgpage.findings import CODE_PATTERNS, CODES
    families = sorted({c.split(".")[0] for c in CODES})
    literal = re.compile(r'"((?:%s)(?:\.[a-z_0-9]+)+)"' % "|".join(families))
    written = set()
    for path in list((REPO / "pgpage").rglob("*.py")) + list((REPO / "pgpage").rglob("*.c")):
        if "ksy" in path.parts or path.name == "findings.py":
            continue
        written |= set(literal.findall(path.read_text()))
    assert len(written) > 150
    missing = sorted(c for c in written - NOT_CODES if c not in CODES and not any(fnmatchcase(c, p)
                                                                                  for p in CODE_PATTERNS))
    assert missing == []


@pytest.mark.parametrize("args, words", [
    (("scan", DEMO, "--top", "-5"), "--top"), (("scan", DEMO, "--top", "0"), "--top"),
    (("scan", DEMO, "--kind", "tabel"), "'tabel' is no relation kind"),
    (("rows", DEMO, "--rel", "bloated", "--wide", "--csv"), "--wide goes with the table"),
    (("rows", DEMO, "--rel", "bloated", "--columns", "id,,md5"), "an empty column name"),
    (("rows", DEMO, "--rel", "bloated", "--blocks", "5:2"), "is empty"),
    (("page", DEMO, "--rel", "bloated", "--block", "1", "--all"), "only one of"),
    (("verify", DEMO, "--fork", "vm"), "--fork goes with --rel"),
    (("report", DEMO, "-o", "/nonexistent-dir/r.html"), "no directory /nonexistent-dir"),
    (("report", DEMO, "-o", DEMO / "r.html"), "never writes into what it inspects"),
])
def test_bad_options_are_refused_before_any_work(args, words):
    r = run(*args)
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert r.stdout == ""
    no_traceback(r)
    assert not (DEMO / "r.html").exists()


# --------------------------------------------------------------------------- a reader that closes the pipe
@pytest.mark.parametrize("args", [("scan", DEMO), ("heap", DEMO, "--rel", "bloated"), ("verify", DEMO, "-v"),
                                  ("page", DEMO, "--rel", "bloated", "--all"), ("rows", DEMO, "--rel", "bloated"),
                                  ("index", DEMO, "--rel", "dups_k"), ("page", DEMO, "--rel", "bloated", "--all",
                                                                        "--json")])
def test_a_closed_pipe_ends_the_command_quietly(args):
    """`pgpage ... | head -1` on a clean cluster: 141 (SIGPIPE's status), or 0 when the whole output fitted in the
    pipe before the reader left (the status it would have had); nothing on stderr; never 1 (findings)."""
    p = subprocess.Popen([sys.executable, "-m", "pgpage", *map(str, args)], cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "100"})
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) in (0, 141) and "Error" not in err and "Traceback" not in err, err
    assert run(*args).returncode == 0   # the same command read to the end: clean


# --------------------------------------------------------------------------- unreadable files, whole commands go on
AS_NOBODY = """
import contextlib, io, os, pwd, sys
from pgpage.cli.main import run
args, warm = sys.argv[1:], [a.replace(sys.argv[1], {demo!r}) for a in sys.argv[1:]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    sys.argv = ["pgpage", *warm[1:]]   # the same command on the demo first: every module imported as root
    try:
        run()
    except SystemExit:
        pass
nobody = pwd.getpwnam("nobody")
os.setegid(nobody.pw_gid)
os.seteuid(nobody.pw_uid)
sys.argv = ["pgpage", *args[1:]]
run()
"""


def as_reader_without_permission(data: Path, *args) -> subprocess.CompletedProcess:
    """The command run by a user who may not read what ``chmod 000`` closed (root reads everything: the test
    drops to nobody after the imports; as another user the files are closed to it already)."""
    if os.geteuid() != 0:
        return run(*args)
    code = AS_NOBODY.format(demo=str(DEMO))
    return subprocess.run([sys.executable, "-c", code, str(data), *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "COLUMNS": "100"})


@pytest.fixture
def closed_copy():
    import tempfile
    home = Path(tempfile.mkdtemp(prefix="pgpage-closed-", dir="/tmp"))  # a place every user can walk into
    data = home / "data"
    shutil.copytree(DEMO, data)
    for p in [home, *data.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    target = data / json.loads(run("scan", data, "--json", "--name", "public.bloated").stdout)["databases"][0][
        "relations"][0]["files"][0]
    os.chmod(target, 0)
    yield data, target
    shutil.rmtree(home)


@pytest.mark.parametrize("command", [("scan",), ("verify",), ("heap",), ("diff", DEMO)])
def test_a_file_the_reader_may_not_read_is_a_finding_and_the_rest_is_read(closed_copy, command):
    data, closed = closed_copy
    args = (command[0], data, *command[1:]) if command[0] != "diff" else ("diff", data, DEMO)
    r = as_reader_without_permission(data, *args)
    no_traceback(r)
    assert r.returncode == 1 and "storage.unreadable" in r.stdout and closed.name in r.stdout, r.stdout + r.stderr
    if command[0] == "heap":   # every other table of the database still reported
        assert "demo.public.hot_updates" in r.stdout and "demo.public.bulk_load" in r.stdout


def test_one_unreadable_relation_does_not_stop_the_report(tmp_path):
    """A directory where the segment file should be (unreadable for every user, root too): the report is
    written, the relation's storage.unreadable finding in it, the other relations shown in detail."""
    pytest.importorskip("plotly")
    data = tmp_path / "data"
    shutil.copytree(DEMO, data)
    f = data / json.loads(run("scan", data, "--json", "--name", "public.bloated").stdout)["databases"][0][
        "relations"][0]["files"][0]
    f.unlink()
    f.mkdir()
    out = tmp_path / "r.html"
    r = run("report", data, "-o", out)
    no_traceback(r)
    page = out.read_text()
    assert r.returncode == 1 and "storage.unreadable" in page and "public.hot_updates" in page


def test_a_data_directory_the_reader_may_not_enter_is_one_line(closed_copy):
    data, closed = closed_copy
    os.chmod(data, 0o700)
    for args in (("scan", data), ("verify", data), ("heap", closed), ("rows", data, "--rel", "bloated")):
        r = as_reader_without_permission(data, *args)
        assert r.returncode == 3 and r.stderr.startswith("pgpage: ") and "Permission denied" in r.stderr, r.stderr
        assert len(r.stderr.splitlines()) == 1
    os.chmod(data, 0o755)


def test_rows_without_commit_status_says_so_instead_of_zero_rows(tmp_path):
    """pg_xact removed: the versions whose hint bits do not tell either are not live rows; `rows` says how many
    (as many as `rows --all` counts unknown) and exits 1, instead of a clean "0 rows"."""
    data = tmp_path / "data"
    shutil.copytree(DEMO, data)
    for seg in (data / "pg_xact").iterdir():
        seg.unlink()
    every = run("rows", data, "--rel", "bloated", "--all", "--json")
    unknown = sum(json.loads(line)["status"] == "unknown" for line in every.stdout.splitlines())
    assert unknown > 0
    r = run("rows", data, "--rel", "bloated")
    assert r.returncode == 1 and f"rows.visibility.undecided: {unknown} row versions" in r.stderr, r.stderr
