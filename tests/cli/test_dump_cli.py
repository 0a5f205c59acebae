"""`pgpage dump` through its entry point: usage errors refused before any work, the script on stdout or in a file,
psql patterns as pg_dump -t reads them."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO
from pgpage.storage.names import name_pattern

DEMO = REPO / "demo" / "data"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgpage", "dump", *map(str, args)], capture_output=True, text=True,
                          cwd=REPO, timeout=300)


@pytest.mark.parametrize("args, words", [
    ((DEMO, "--schema-only", "--data-only"), "only one of --schema-only and --data-only"),
    ((DEMO, "-o", DEMO / "x.sql"), "never writes into what it inspects"),
    ((DEMO, "--db", "nosuch"), "no database 'nosuch'"),
    ((REPO / "README.md",), "not a directory"),
])
def test_refused_in_one_line(args, words):
    r = run(*args)
    assert r.returncode in (2, 3) and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stdout == "" and not (DEMO / "x.sql").exists()


def test_script_to_stdout_and_to_a_file_are_the_same(tmp_path):
    out = tmp_path / "demo.sql"
    to_file, to_stdout = run(DEMO, "-o", out), run(DEMO, "--table", "public.*")
    assert to_file.returncode == 0 and to_stdout.returncode == 0, to_file.stderr + to_stdout.stderr
    assert out.read_text() == to_stdout.stdout
    assert to_file.stderr == to_stdout.stderr == "demo: 5 tables, 3820 rows\n"
    assert to_stdout.stdout.count("\nCOPY public.") == 5 and to_stdout.stdout.count("\n\\.\n") == 5


@pytest.mark.parametrize("pattern, schema, name, yes, no", [
    ("app.order*", "app", "orders", ["orders", "order_lines"], ["items", "xorders"]),
    ('"Mixed Case"."Odd*"', "Mixed Case", "Odd*", ["Odd*"], ["Odd View"]),
    ("Items", None, "items", ["items"], ["Items"]),
    ("t?", None, None, ["t1", "tx"], ["t", "t12"]),
])
def test_patterns_read_as_psql_reads_them(pattern, schema, name, yes, no):
    schema_re, name_re = name_pattern(pattern)
    assert (schema_re is None) == (schema is None) and (schema is None or schema_re.match(schema))
    assert all(name_re.match(n) for n in yes) and not any(name_re.match(n) for n in no)
