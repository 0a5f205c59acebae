"""The README's recipe, end to end on a live server: rows deleted and pruned (no VACUUM), the cluster stopped,
`pgpage rows --status deleted,pruned --csv` read from its files, and the README's SQL (staging table, `\\copy`
of that CSV, `INSERT` of the rows that are gone) run on the restarted server: the rows come back with the
values they had, NULL and the empty string kept apart."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO
from livepg import running_server

SETUP = """
CREATE TABLE accounts (id int PRIMARY KEY, owner text, balance numeric, opened timestamptz, doc jsonb);
INSERT INTO accounts
SELECT g, CASE WHEN g % 14 = 0 THEN '' WHEN g % 14 = 7 THEN NULL ELSE 'owner ' || g || ', "x"' END,
       round(g * 10.25, 2), timestamptz '2025-01-01 00:00+00' + g * interval '1 day 3 hours',
       jsonb_build_object('id', g, 'tags', jsonb_build_array(g % 3, 'a'))
FROM generate_series(1, 400) g;
"""


def recipe() -> tuple[str, list[str]]:
    """The README's recipe: the pgpage command, and the SQL statements run in psql."""
    text = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(pgpage rows PGDATA --db shop --rel accounts [^\n]*)\n```\n.*?```sql\n(.*?)```", text,
                      re.S)
    assert block, "README: the deleted-rows recipe is missing"
    statements, current = [], []
    for line in block[2].splitlines():
        if line.startswith("\\"):                 # a psql meta-command: one line
            statements.append(line)
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            statements.append("\n".join(current))
            current = []
    assert not current and len(statements) == 3, statements
    return block[1], statements


def test_readme_recipe_brings_deleted_rows_back(tmp_path):
    command, statements = recipe()
    with running_server() as srv:
        with srv.connect() as c:
            c.execute("CREATE DATABASE shop")
        with srv.connect("shop") as c:
            c.execute(SETUP)
            before = c.execute("SELECT id, owner, balance::text, opened::text, doc::text FROM accounts"
                               " ORDER BY id").fetchall()
            c.execute("DELETE FROM accounts WHERE id % 7 = 0 OR id % 50 > 44")
            c.execute("UPDATE accounts SET balance = balance + 1 WHERE id % 9 = 0")
            c.execute("SELECT count(*) FROM accounts")        # prunes the full pages (heap_page_prune_opt)
            assert c.execute("SELECT count(*) FROM accounts").fetchone()[0] < 400
            c.execute("CHECKPOINT")
        srv.stop()
        args = command.removeprefix("pgpage ").replace("PGDATA", str(srv.data)).split()
        out = tmp_path / "gone.csv"
        with out.open("w") as f:
            r = subprocess.run([sys.executable, "-m", "pgpage", *args[:-2]], stdout=f, stderr=subprocess.PIPE,
                               text=True, cwd=REPO)
        assert r.returncode == 0, r.stderr
        assert " pruned" in r.stderr, r.stderr
        srv.restart()
        with srv.connect("shop") as c:
            for sql in statements:
                if sql.startswith("\\copy"):
                    table = sql.split()[1]
                    with c.cursor().copy(f"COPY {table} FROM STDIN (FORMAT csv, HEADER)") as cp:
                        cp.write(out.read_bytes())
                else:
                    c.execute(sql)
            after = c.execute("SELECT id, owner, balance::text, opened::text, doc::text FROM accounts"
                              " ORDER BY id").fetchall()
    original = {row[0]: row for row in before}
    deleted = {i for i in original if i % 7 == 0 or i % 50 > 44}
    back = {row[0]: row for row in after if row[0] in deleted}
    assert len(back) >= 10, len(back)
    assert all(row == original[i] for i, row in back.items())      # the values they had, NULL apart from ''
    assert any(row[1] == "" for row in back.values()) and any(row[1] is None for row in back.values())
