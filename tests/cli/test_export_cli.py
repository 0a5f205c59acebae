"""pgpage export through its real entry point on every fixture cluster: DuckDB's SQL over the Parquet gives the
numbers of the same commands' --json (scan --deep, heap, page, index, verify, rows --all)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import MAJORS, REQUIRED_MAJORS, data_dir

from pgpage.decode.control import parse_lsn

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

PGPAGE = [sys.executable, "-m", "pgpage"]
DATASETS = ("cluster", "relations", "pages", "tuples", "btree_items", "findings")
ROWS_MAJORS = (10, 15, 18)   # --rows (typed columns) on the oldest, the Debian and the newest major
# the tables and B-trees compared page by page and item by item (every major has them): HOT chains and
# redirects, aborted inserts, locks and multixacts, LP_DEAD items, updated versions; posting lists, dead items,
# several levels, two columns, pivots of a unique index under churn
TABLES = ("public.heap_hot", "public.heap_aborted", "public.heap_locks", "public.heap_killed", "public.row_history")
INDEXES = ("public.idx_dup", "public.idx_del", "public.idx_killed", "public.idx_multilevel", "public.idx_two",
           "public.idx_uniq_churn", "public.heap_hot_pkey")


@dataclass
class Run:
    returncode: int
    stdout: str


def pgpage(*args) -> Run:
    """``pgpage ...`` in this process through Typer's CliRunner (an interpreter start saved per call)."""
    from typer.testing import CliRunner

    from pgpage.cli.main import app
    from pgpage.findings import PgpageError
    r = CliRunner().invoke(app, [*map(str, args)])
    if isinstance(r.exception, PgpageError):   # refused: its exit code, as the console entry point exits
        return Run(int(r.exception.exit_code), r.stdout)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return Run(r.exit_code, r.stdout)


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


_EXPORTS: dict[int, tuple[Path, dict]] = {}


def exported(major: int, tmp_path_factory) -> tuple[Path, dict]:
    """(the dataset directory, export --json's document) of the fixture cluster of ``major``, made once per run."""
    if major not in _EXPORTS:
        out = tmp_path_factory.mktemp(f"export{major}")
        args = ["export", data_dir(major), "-o", out, "--json"] + (["--rows"] if major in ROWS_MAJORS else [])
        r = subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True, timeout=600)
        assert r.returncode in (0, 1), r.stderr
        assert r.stderr == ""
        _EXPORTS[major] = (out, json.loads(r.stdout))
    return _EXPORTS[major]


@pytest.fixture(params=MAJORS, ids=lambda m: f"pg{m}")
def export(request, tmp_path_factory):
    return (request.param, *exported(request.param, tmp_path_factory))


def sql(out: Path, dataset: str, query: str) -> list[tuple]:
    """``query`` over the dataset's files under ``out`` (as table ``d``, hive-partitioned), rows as tuples."""
    con = duckdb.connect()
    con.execute(f"CREATE VIEW d AS SELECT * FROM read_parquet('{out}/*/*/{dataset}.parquet', hive_partitioning = true)")
    return con.execute(query).fetchall()


def test_layout_and_document(export):
    major, out, doc = export
    assert doc["schema"] == "pgpage.export/1"
    snap = Path(doc["directory"])
    assert snap.parent.parent == out and snap.parent.name == f"system_identifier={doc['system_identifier']}"
    assert snap.name == f"snapshot={doc['snapshot']}"
    for name in DATASETS:
        assert (snap / f"{name}.parquet").is_file()
        (n,), = sql(out, name, "SELECT count(*) FROM d")
        assert n == doc["files"][f"{name}.parquet"]
        (versions,), = sql(out, name, "SELECT list(DISTINCT schema_version) FROM d")
        assert versions in ([2], [])
    (n, sysid, snapshot), = sql(out, "relations", "SELECT count(DISTINCT snapshot), any_value(system_identifier),"
                                " any_value(snapshot) FROM d")
    assert (n, str(sysid), snapshot) == (1, doc["system_identifier"], doc["snapshot"])


def test_cluster_is_scans(export):
    major, out, _ = export
    c = json.loads(pgpage("scan", data_dir(major), "--json", "--top", "1").stdout)["cluster"]
    (row,) = sql(out, "cluster", "SELECT major, next_xid, oldest_xid, next_multixact, checkpoint_lsn, state,"
                  " data_checksums, strftime(checkpoint_time, '%Y-%m-%dT%H:%M:%S+00:00') FROM d")
    assert row == (c["major"], c["next_xid"], c["oldest_xid"], c["next_multixact"], c["checkpoint_lsn"], c["state"],
                   c["data_checksums"], c["checkpoint_time"])


def test_relations_are_scans_and_heaps(export):
    major, out, _ = export
    scan = json.loads(pgpage("scan", data_dir(major), "--deep", "--json").stdout)
    rels = {r["name"]: r for db in scan["databases"] for r in db["relations"]}
    rows = {f"{r[0]}.{r[1]}": r[2:] for r in sql(
        out, "relations", "SELECT nspname, relname, blocks, size_bytes, checksum_failures, relfilenode, kind,"
        " tuple_count, dead_tuple_count, free_space, hot_updated_tuples FROM d")}
    assert rows.keys() == rels.keys()
    for name, r in rels.items():
        heap = (r.get("heap") or {}).get("pgstattuple") or {}
        hot = (r.get("heap") or {}).get("hot") or {}
        assert rows[name] == (r["blocks"], r["size_bytes"], r["health"]["checksum_failures"], r["relfilenode"],
                              r["kind"], heap.get("tuple_count"), heap.get("dead_tuple_count"),
                              heap.get("free_space"), hot.get("hot_updated_tuples")), name
    # every user table as `heap --json` reports it (pgstattuple's figures, line pointers, HOT)
    tables = json.loads(pgpage("heap", data_dir(major), "--json").stdout)["tables"]
    assert tables
    for t in tables:
        _, nsp, rel = t["relation"].split(".", 2)   # (database.schema.table)
        (row,) = sql(out, "relations", "SELECT tuple_count, tuple_len, dead_tuple_count, dead_tuple_len, free_space,"
                      " lp_unused, lp_normal, lp_redirect, lp_dead, heap_only_tuples, non_hot_updated_tuples,"
                      f" hot_update_percent, all_visible FROM d WHERE nspname = '{nsp}' AND relname = '{rel}'")
        p, lp, hot = t["pgstattuple"], t["line_pointers"], t["hot"]
        assert row == (p["tuple_count"], p["tuple_len"], p["dead_tuple_count"], p["dead_tuple_len"], p["free_space"],
                       lp["lp_unused"], lp["lp_normal"], lp["lp_redirect"], lp["lp_dead"], hot["heap_only_tuples"],
                       hot["non_hot_updated_tuples"], hot["hot_update_percent"],
                       t["visibility"]["vm_all_visible_pages"]), t["relation"]
        # ... and the pages' figures add up to the table's
        (pages,) = sql(out, "pages", "SELECT sum(tuple_len), sum(dead_tuple_len), sum(free_space), count(*) FROM d"
                        f" WHERE nspname = '{nsp}' AND relname = '{rel}'")
        assert pages == ((p["tuple_len"], p["dead_tuple_len"], p["free_space"], t["blocks"]) if t["blocks"]
                         else (None, None, None, 0)), t["relation"]


def heap_and_index_names(major: int) -> tuple[list[str], list[str]]:
    scan = json.loads(pgpage("scan", data_dir(major), "--json", "--name", "public.*").stdout)
    rels = [r for db in scan["databases"] for r in db["relations"]]
    return ([r["name"] for r in rels if r["kind"] == "table"],
            [r["name"] for r in rels if r["am"] == "btree"])


def test_pages_and_tuples_are_page_json(export):
    """Every page and line pointer of every user table as `page --all --json` decodes it, the tuples' status as
    `rows --all --json` gives it."""
    major, out, _ = export
    for name in TABLES:
        nsp, rel = name.split(".")
        where = f"WHERE nspname = '{nsp}' AND relname = '{rel}'"
        pages = {r[0]: r[1:] for r in sql(out, "pages", "SELECT blkno, lsn, checksum, checksum_ok, flags, lower, upper,"
                                          " special, prune_xid, lp_unused, lp_normal, lp_redirect, lp_dead FROM d "
                                          + where)}
        tuples = {(r[0], r[1]): r[2:] for r in sql(
            out, "tuples", "SELECT blkno, lp, lp_off, lp_flags, lp_len, t_xmin, t_xmax, t_field3, t_ctid, t_infomask2,"
            " t_infomask, t_hoff, heap_xmin_committed, heap_hot_updated, heap_only_tuple, status FROM d " + where)}
        r = pgpage("page", data_dir(major), "--db", "pgpage", "--rel", name, "--all", "--json")
        seen = 0
        for page in json_lines(r.stdout)[1:]:
            if page.get("type") == "summary" or "blkno" not in page:
                continue
            seen += 1
            h, items = page["page_header"], page.get("heap_page_items") or []
            lp_count = [sum(it["lp_flags"] == f for it in items) for f in range(4)]
            assert pages[page["blkno"]] == (h["lsn"], h["checksum"], page["checksum"]["ok"], h["flags"], h["lower"],
                                            h["upper"], h["special"], h["prune_xid"], *lp_count), (name, page["blkno"])
            for it in items:
                got = tuples[(page["blkno"], it["lp"])]
                assert got[:10] == (it["lp_off"], it["lp_flags"], it["lp_len"], it["t_xmin"], it["t_xmax"],
                                    it["t_field3"], it["t_ctid"], it["t_infomask2"], it["t_infomask"], it["t_hoff"])
                if it["t_infomask"] is not None:
                    assert got[10:13] == (bool(it["t_infomask"] & 0x0100), bool(it["t_infomask2"] & 0x4000),
                                          bool(it["t_infomask2"] & 0x8000))
        assert seen == len(pages), name
        versions = json_lines(pgpage("rows", data_dir(major), "--db", "pgpage", "--rel", name, "--all",
                                     "--json").stdout)
        statuses = {(b, lp): s[-1] for (b, lp), s in tuples.items() if s[-1] is not None}
        # (a version carved back from pruned bytes has no line pointer: no tuples row)
        assert statuses == {tuple(map(int, v["ctid"][1:-1].split(","))): v["status"] for v in versions
                            if v["status"] != "pruned"}, name


def test_btree_items_are_index_json(export):
    major, out, _ = export
    for name in INDEXES:
        nsp, rel = name.split(".")
        doc = json.loads(pgpage("index", data_dir(major), "--db", "pgpage", "--rel", name, "--json").stdout)
        (row,) = sql(out, "btree_items", "SELECT sum(heap_tids), count(*) FILTER (posting AND leaf),"
                      " count(*) FILTER (dead AND leaf AND NOT high_key) FROM d"
                      f" WHERE nspname = '{nsp}' AND relname = '{rel}'")
        dedup = doc["deduplication"]
        assert row == (dedup["tids"] if dedup["tids"] else None, dedup["posting_tuples"],
                       doc["dead_items"]["dead_items"]), name
        (meta,) = sql(out, "relations", "SELECT tree_level, leaf_pages, avg_leaf_density, posting_tids FROM d"
                       f" WHERE nspname = '{nsp}' AND relname = '{rel}'")
        s = doc["pgstatindex"]
        assert meta == (s["tree_level"], s["leaf_pages"], s["avg_leaf_density"], dedup["posting_tids"]), name
        root = doc["root_items"]
        if root is None:
            continue
        items = sql(out, "btree_items", "SELECT itemoffset, ctid, htid, key FROM d WHERE nspname = '{}' AND relname ="
                    " '{}' AND blkno = {} ORDER BY itemoffset".format(nsp, rel, root["blkno"]))
        assert len(items) == root["nitems"]
        for (off, ctid, htid, key), it in zip(items, root["items"]):
            assert (off, ctid, htid) == (it["itemoffset"], it["ctid"], it.get("htid"))
            assert key == [k["value"] for k in it["keys"] if not k.get("truncated")]


def test_findings_are_verifys(export):
    major, out, _ = export
    want = sorted((r.get("code"), r.get("relation"), r.get("block"), r.get("item"))
                  for r in json_lines(pgpage("verify", data_dir(major), "--json").stdout) if r["type"] == "finding")
    got = sorted(sql(out, "findings", "SELECT code, relation, block, item FROM d"
                     " WHERE code NOT LIKE 'export.%'"))
    assert got == want


@pytest.mark.parametrize("major", [m for m in ROWS_MAJORS if m in MAJORS], ids=lambda m: f"pg{m}")
def test_rows_are_rows_json(major, tmp_path_factory):
    """Each table's typed columns hold the values `rows --json` prints as text (which equal COPY's: the rows
    oracle), read back through DuckDB."""
    out, doc = exported(major, tmp_path_factory)
    tables, _ = heap_and_index_names(major)
    checked = set()
    for name in tables:
        records = json_lines(pgpage("rows", data_dir(major), "--db", "pgpage", "--rel", name, "--json",
                                    "--timezone", "UTC").stdout)
        con = duckdb.connect()
        rel = con.sql(f"SELECT * FROM read_parquet('{out}/*/*/rows/{name}.parquet')")
        types = dict(zip(rel.columns, map(str, rel.types)))
        got = {f"({r[1]},{r[2]})": dict(zip(rel.columns, r)) for r in rel.fetchall()}   # (blkno, lp): the ctid
        assert len(got) == len(records) == doc["files"][f"rows/{name}.parquet"], name
        for rec in records:
            row = got[rec["ctid"]]
            assert (row["xmin"], row["xmax"]) == (rec["xmin"], rec["xmax"])
            for col, text in rec["values"].items():
                kind = same_value(types[col], row[col], text)
                checked.add(kind)
    # the typed columns were met (the rest is text)
    assert {"int", "float", "decimal", "bool", "bytea", "date", "timestamptz", "json", "list"} <= checked


def same_value(kind: str, value, text: str | None) -> str:
    """Whether a typed value read back is the one ``text`` prints (None: SQL NULL); returns the kind checked. A value
    the type cannot hold (a date of infinity, an array of two dimensions) is NULL (and a finding says so)."""
    import datetime as dt
    import math
    if text is None or value is None:
        assert value is None and (text is None or unrepresentable(kind, text)), (kind, value, text)
        return "null"
    if kind in ("INTEGER[]", "BIGINT[]", "SMALLINT[]"):
        assert "{" + ",".join("NULL" if v is None else str(v) for v in value) + "}" == text
        return "list"
    if kind.endswith("[]"):   # (elements quoted, or holding the delimiter: their count only when they cannot)
        assert len(value) == (0 if text == "{}" else len(text[1:-1].split(",")) if not set('"(;') & set(text)
                              else len(value))
        return "list"
    if kind in ("SMALLINT", "INTEGER", "BIGINT", "UINTEGER"):
        assert value == int(text)
        return "int"
    if kind in ("FLOAT", "DOUBLE"):
        want = float(text)
        assert (math.isnan(value) and math.isnan(want)) or value == pytest.approx(want, rel=1e-6)
        return "float"
    if kind.startswith("DECIMAL"):
        assert value == Decimal(text)
        return "decimal"
    if kind == "BOOLEAN":
        assert value == (text == "t")
        return "bool"
    if kind == "BLOB":
        assert "\\x" + value.hex() == text
        return "bytea"
    if kind == "DATE":
        assert value == dt.date.fromisoformat(text)
        return "date"
    if kind == "TIMESTAMP WITH TIME ZONE":
        assert value == dt.datetime.fromisoformat(text + ":00")
        return "timestamptz"
    if kind == "TIMESTAMP":
        assert value == dt.datetime.fromisoformat(text)
        return "timestamp"
    if kind == "JSON":
        assert value == text
        return "json"
    assert value == text, (kind, value, text)
    return "text"


def unrepresentable(kind: str, text: str) -> bool:
    """Values Arrow's casts do not read: infinities, NaN in a decimal, BC dates and years past 9999, arrays of two
    dimensions or other lower bounds."""
    return ("infinity" in text or "NaN" in text or " BC" in text or text.startswith("[") or text.startswith("{{")
            or bool(re.match(r"\d{5}", text)))


def test_two_snapshots_read_together(tmp_path):
    """A story's before and after snapshots of one cluster, exported in parallel into one directory, are one
    dataset: both snapshots, one system identifier, and the relations of each."""
    story = Path(__file__).resolve().parents[2] / "fixtures" / "stories" / "pg15"
    dirs = [story / "before" / "data", story / "data"]
    procs = [subprocess.Popen([*PGPAGE, "export", str(d), "-o", str(tmp_path), "--json"], stdout=subprocess.PIPE,
                              text=True) for d in dirs]
    docs = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
    assert docs[0]["system_identifier"] == docs[1]["system_identifier"]
    assert docs[0]["snapshot"] < docs[1]["snapshot"]
    got = sql(tmp_path, "relations", "SELECT snapshot, count(*) FROM d GROUP BY snapshot ORDER BY snapshot")
    assert got == [(d["snapshot"], d["files"]["relations.parquet"]) for d in docs]
    (sysids,), = sql(tmp_path, "pages", "SELECT count(DISTINCT system_identifier) FROM d")
    assert sysids == 1


@pytest.mark.parametrize("major", REQUIRED_MAJORS)
def test_wal_is_wal_json(major, tmp_path):
    """`export --wal-dir ARCHIVE` of each major's WAL fixture (the workload's heap and B-tree records, full-page
    images compressed or with holes): every record and block reference DuckDB reads from wal_records and
    wal_blocks is the record `wal --wal ARCHIVE --json` prints, field by field, and the walk's end is a finding."""
    import tarfile

    from pgpage.decode.wal.record import FORK_NAMES
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "walrows" / f"pg{major}"
    with tarfile.open(fixture / "data.tar.xz") as tf:
        tf.extractall(tmp_path, filter="data")
    data, archive, out = tmp_path / "data", fixture / "archive", tmp_path / "out"
    r = subprocess.run([*PGPAGE, "export", data, "-o", out, "--wal-dir", archive, "--datasets", "cluster,findings",
                        "--json"], capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1) and r.stderr == "", r.stderr    # (the fixture keeps only the files its WAL needs)
    files = json.loads(r.stdout)["files"]
    lines = json_lines(subprocess.run([*PGPAGE, "wal", data, "--wal", archive, "--json"], capture_output=True,
                                      text=True, check=False).stdout)
    summary = lines.pop()
    assert summary["type"] == "summary" and files["wal_records.parquet"] == summary["records"] == len(lines) > 100
    got = sql(out, "wal_records", "SELECT start_lsn, end_lsn, prev_lsn, start_lsn_bytes, xid, resource_manager,"
              " record_type, info, record_length, main_data_length, fpi_length, block_count, description FROM d"
              " ORDER BY start_lsn_bytes")
    assert got == [(x["lsn"], x["end_lsn"], x["prev_lsn"], parse_lsn(x["lsn"]), x["xid"], x["rmgr"],
                    x["record_type"], x["info"], x["length"], x["main_data_length"], x["fpi_length"],
                    len(x["blocks"]), x["description"]) for x in lines]
    got = sql(out, "wal_blocks", "SELECT start_lsn, block_id, reltablespace || '/' || reldatabase || '/' ||"
              " relfilenode, relforknumber, relblocknumber, database, nspname || '.' || relname, xid,"
              " resource_manager, record_type, block_data_length, will_init, block_fpi_length, block_fpi_info,"
              " fpi_hole_offset, fpi_hole_length, fpi_compression, fpi_apply FROM d ORDER BY start_lsn_bytes, block_id")
    fpi = lambda b, k: (b["fpi"] or {}).get(k)  # noqa: E731
    want = [(x["lsn"], b["block_id"], b["relfilenode"], FORK_NAMES.index(b["fork"]), b["block"], b["database"],
             b["relation"], x["xid"], x["rmgr"], x["record_type"], b["data_length"], b["will_init"],
             fpi(b, "length"), None if b["fpi"] is None else [f.removeprefix("BKPIMAGE_") for f in fpi(b, "flags")],
             fpi(b, "hole_offset"), fpi(b, "hole_length"), fpi(b, "compression"), fpi(b, "apply"))
            for x in lines for b in x["blocks"]]
    assert got == want and files["wal_blocks.parquet"] == len(want)
    assert any(w[12] for w in want) and any(w[6] == "public.t" for w in want)   # images, and the named table
    assert sql(out, "findings", "SELECT code, severity, message FROM d WHERE code LIKE 'wal.%'") == \
        [(f["code"], f["severity"], f["message"]) for f in summary["findings"]]
    from pgpage.passes import export    # the Python API's tables: the files' rows
    for dataset, table in (("wal_records", export.wal_records_table), ("wal_blocks", export.wal_blocks_table)):
        con = duckdb.connect()
        api = table(str(data), str(archive))   # noqa: F841 (DuckDB reads the local by its name)
        assert con.sql("SELECT * FROM api").fetchall() == sql(
            out, dataset, "SELECT * EXCLUDE (system_identifier, snapshot) FROM d")


def test_wal_damaged_mid_segment(tmp_path):
    """A byte of a record in the middle of the pg17 fixture's segment flipped (a copy): the export writes the
    records before it, as `wal` reads them, and the bad CRC where the walk stopped is an error finding (exit 1)."""
    import gzip
    import tarfile
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "walrows" / "pg17"
    with tarfile.open(fixture / "data.tar.xz") as tf:
        tf.extractall(tmp_path, filter="data")
    archive = tmp_path / "archive"
    archive.mkdir()
    (segment,) = (fixture / "archive").glob("*.gz")
    raw = bytearray(gzip.decompress(segment.read_bytes()))
    raw[0x10000 + 50] ^= 0xFF   # (inside the record at 0/A0FCF0, the 501st)
    (archive / segment.name.removesuffix(".gz")).write_bytes(bytes(raw))
    data, out = tmp_path / "data", tmp_path / "out"
    r = subprocess.run([*PGPAGE, "export", data, "-o", out, "--wal-dir", archive, "--datasets", "findings", "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and r.stderr == "", r.stderr
    lines = json_lines(subprocess.run([*PGPAGE, "wal", data, "--wal", archive, "--json"], capture_output=True,
                                      text=True, check=False).stdout)
    summary = lines.pop()
    assert summary["stop"]["severity"] == "error" and 0 < len(lines) < 566   # (566: the whole segment's)
    assert json.loads(r.stdout)["files"]["wal_records.parquet"] == len(lines)
    assert sql(out, "wal_records", "SELECT max(start_lsn_bytes) FROM d") == [(max(parse_lsn(x["lsn"])
                                                                                   for x in lines),)]
    assert (summary["stop"]["code"], "error", summary["stop"]["message"]) in sql(
        out, "findings", "SELECT code, severity, message FROM d")


def test_wal_without_a_wal_directory(tmp_path):
    """`--wal` of a cluster whose pg_wal is gone: the other datasets are written, the WAL's two files are there
    with no rows, and the findings say why, as a warning (the export's exit status stays verify's)."""
    r, without = (subprocess.run([*PGPAGE, "export", data_dir(MAJORS[0]), "-o", tmp_path / name, *wal, "--datasets",
                                  "cluster,relations,findings", "--json"], capture_output=True, text=True, timeout=600)
                  for name, wal in (("with", ["--wal"]), ("without", [])))
    doc = json.loads(r.stdout)
    assert r.stderr == "" and r.returncode == without.returncode
    assert doc["files"]["wal_records.parquet"] == doc["files"]["wal_blocks.parquet"] == 0
    assert doc["files"]["relations.parquet"] > 0
    (code, severity, message), = sql(tmp_path / "with", "findings", "SELECT code, severity, message FROM d WHERE"
                                     " code LIKE '%wal%'")
    assert (code, severity) == ("export.wal.unreadable", "warning") and "no WAL directory" in message


def test_datasets_option(tmp_path):
    r = subprocess.run([*PGPAGE, "export", str(data_dir(MAJORS[0])), "-o", str(tmp_path), "--datasets",
                        "relations,pages", "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    assert list(doc["files"]) == ["relations.parquet", "pages.parquet"] and r.returncode == 0
    assert sorted(p.name for p in Path(doc["directory"]).iterdir()) == ["pages.parquet", "relations.parquet"]
    r = subprocess.run([*PGPAGE, "export", str(data_dir(MAJORS[0])), "-o", str(tmp_path), "--datasets", "page"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_output_inside_the_data_directory_is_refused(tmp_path):
    import shutil
    copy = tmp_path / "data"
    shutil.copytree(data_dir(MAJORS[0]), copy)
    for args in (["export", copy, "-o", copy / "out"], ["rows", copy, "--rel", "heap_hot", "--parquet", copy / "r.pq"],
                 ["verify", copy, "--parquet", copy / "base" / "v.pq"]):
        r = subprocess.run([*PGPAGE, *map(str, args)], capture_output=True, text=True)
        assert r.returncode == 2 and "never writes into what it inspects" in r.stderr, args
    assert not (copy / "out").exists() and not (copy / "r.pq").exists() and not (copy / "base" / "v.pq").exists()


def test_label_and_errors(tmp_path):
    r = subprocess.run([*PGPAGE, "export", str(data_dir(MAJORS[-1])), "-o", str(tmp_path), "--label", "a/b"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--label" in r.stderr
    r = subprocess.run([*PGPAGE, "export", str(data_dir(MAJORS[-1])), "-o", str(tmp_path), "--label", "nightly-1",
                        "--db", "nosuchdb"], capture_output=True, text=True)
    assert r.returncode in (2, 3) and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_damaged_pg_control_needs_a_label(tmp_path):
    """pg_control cut short (the campaign's 7 148): no checkpoint time to name the snapshot by, which is the input's
    fault (exit 3, one line saying to give --label), and with --label the cluster is exported all the same."""
    import shutil
    copy = tmp_path / "data"
    shutil.copytree(data_dir(MAJORS[-1]), copy)
    control = copy / "global" / "pg_control"
    control.write_bytes(control.read_bytes()[:4913])
    r = subprocess.run([*PGPAGE, "export", str(copy), "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 3 and r.stderr.count("\n") == 1 and "--label" in r.stderr
    r = subprocess.run([*PGPAGE, "export", str(copy), "-o", str(tmp_path / "out"), "--label", "damaged", "--json"],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr
    assert json.loads(r.stdout)["files"]["relations.parquet"] > 0


def test_missing_pyarrow_is_one_line(tmp_path):
    """Without pyarrow: one line saying how to install it, exit 2 (other commands never import it)."""
    code = ("import sys; sys.modules['pyarrow'] = None; sys.argv = ['pgpage'] + sys.argv[1:];"
            " from pgpage.cli.main import run; run()")
    r = subprocess.run([sys.executable, "-c", code, "export", str(data_dir(MAJORS[-1])), "-o", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr == "pgpage: Parquet and Arrow output need pyarrow: pip install 'pgpage[parquet]'\n"
    r = subprocess.run([sys.executable, "-c", "import sys; import pgpage.cli.main, pgpage.passes.export,"
                        " pgpage.render.parquet; print('pyarrow' in sys.modules)"], capture_output=True, text=True)
    assert r.stdout == "False\n"


def test_parquet_options_are_the_export(tmp_path, tmp_path_factory):
    """`rows`, `heap`, `index` and `verify --parquet FILE` write the export's rows, tuples, btree_items and findings
    of what they read (one file each, nothing on stdout)."""
    major = 15 if 15 in MAJORS else MAJORS[-1]
    out, _ = exported(major, tmp_path_factory)
    con = duckdb.connect()

    def same(file: Path, dataset: str, where: str) -> int:
        # (compared as text: NaN equals NaN there)
        mine = con.sql(f"SELECT COLUMNS(*)::VARCHAR FROM '{file}' ORDER BY ALL").fetchall()
        theirs = con.sql("SELECT COLUMNS(* EXCLUDE (system_identifier, snapshot))::VARCHAR"
                         f" FROM read_parquet('{out}/*/*/{dataset}.parquet', hive_partitioning = true) {where}"
                         " ORDER BY ALL").fetchall()
        assert mine == theirs and mine, (file, dataset)
        return len(mine)

    cases = [("heap", "public.heap_hot", "tuples"), ("index", "public.idx_dup", "btree_items")]
    for command, rel, dataset in cases:
        f = tmp_path / f"{command}.parquet"
        r = pgpage(command, data_dir(major), "--rel", rel, "--parquet", f)
        assert (r.returncode, r.stdout) == (0, "")
        nsp, name = rel.split(".")
        same(f, dataset, f"WHERE nspname = '{nsp}' AND relname = '{name}'")
    f = tmp_path / "verify.parquet"
    r = pgpage("verify", data_dir(major), "--parquet", f)
    assert r.stdout == "" and r.returncode == pgpage("verify", data_dir(major)).returncode
    same(f, "findings", "WHERE code NOT LIKE 'export.%'")
    if major in ROWS_MAJORS:
        f = tmp_path / "rows.parquet"
        r = pgpage("rows", data_dir(major), "--rel", "public.row_types", "--parquet", f)
        assert r.stdout == ""
        n = same(f, "rows/public.row_types", "")
        assert n == len(json_lines(pgpage("rows", data_dir(major), "--rel", "public.row_types", "--json").stdout))
    # every version: status beside ctid, as `rows --all --json` says
    f = tmp_path / "all.parquet"
    pgpage("rows", data_dir(major), "--rel", "public.heap_hot", "--all", "--parquet", f)
    got = dict(con.sql(f"SELECT format('({{}},{{}})', blkno, lp), status FROM '{f}'").fetchall())
    assert got == {v["ctid"]: v["status"] for v in json_lines(pgpage(
        "rows", data_dir(major), "--rel", "public.heap_hot", "--all", "--json").stdout)}
    assert set(got.values()) > {"live"}
    # refused: a file of another kind, two outputs at once
    r = pgpage("heap", data_dir(major), "--rel", "public.idx_dup", "--parquet", tmp_path / "x.parquet")
    assert r.returncode == 2
    r = pgpage("rows", data_dir(major), "--rel", "public.heap_hot", "--json", "--parquet", tmp_path / "x.parquet")
    assert r.returncode == 2 and not (tmp_path / "x.parquet").exists()


def test_python_api_tables(tmp_path_factory):
    """pgpage.passes.export's functions return the export's datasets as pyarrow Tables."""
    from pgpage.passes import export
    major = MAJORS[-1]
    out, _ = exported(major, tmp_path_factory)
    pages = export.pages_table(str(data_dir(major)), "pgpage", "public.heap_hot")
    con = duckdb.connect()
    assert sorted(con.sql("SELECT * FROM pages").fetchall()) == sorted(con.sql(
        f"SELECT * EXCLUDE (system_identifier, snapshot) FROM read_parquet('{out}/*/*/pages.parquet',"
        " hive_partitioning = true) WHERE relname = 'heap_hot'").fetchall())
    rows = export.rows_table(str(data_dir(major)), "pgpage", "public.heap_hot")
    assert rows.num_rows == len(json_lines(pgpage("rows", data_dir(major), "--rel", "public.heap_hot",
                                                  "--json").stdout))
    assert export.cluster_table(str(data_dir(major))).column("major").to_pylist() == [major]


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_blocks(section: str) -> list[tuple[str, str]]:
    """(language, text) of the fenced blocks of a README section (up to the next section of its level)."""
    text = README.read_text()
    level = section.split(" ")[0]
    start = text.index(section + "\n")
    end = text.find("\n" + level + " ", start + len(section))
    body = text[start:end if end >= 0 else len(text)]
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", body, re.S)]


def printed(rel) -> list[str]:
    """Query results as the README shows them: columns padded to their widest value, two spaces apart."""
    rows = [list(rel.columns)] + [[str(v) for v in r] for r in rel.fetchall()]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]


def test_readme_fleet_example(tmp_path):
    """The README's fleet: its shell line exports the bundled stories' ten snapshots in parallel (here into a
    temporary directory, by this checkout's pgpage), its queries give the results it shows; and a page damaged in
    a copy of a snapshot is what the checksum query lists."""
    blocks = readme_blocks("## Auditing many clusters")
    (shell,) = [b for lang, b in blocks if lang == "sh"]
    fleet = tmp_path / "fleet"
    command = shell.strip().replace("-o fleet", f"-o {fleet}").replace("pgpage export",
                                                                       f"{sys.executable} -m pgpage export")
    repo = README.parent
    r = subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, text=True, timeout=900)
    assert r.stderr == "" and len(r.stdout.splitlines()) == 10, r.stderr
    queries = [(blocks[i][1], blocks[i + 1][1]) for i in range(len(blocks) - 1) if blocks[i][0] == "sql"]
    assert len(queries) == 2
    con = duckdb.connect()
    for query, shown in queries:
        got = printed(con.sql(query.replace("'fleet/", f"'{fleet}/")))
        assert got == shown.rstrip("\n").split("\n"), "\n".join(got)
    # a copy of one snapshot with a page of a table damaged (one byte of its tuples): the query names the page
    import shutil
    copy = tmp_path / "copy"
    shutil.copytree(repo / "fixtures" / "stories" / "pg15" / "data", copy)
    doc = json.loads(pgpage("scan", copy, "--db", "stories", "--name", "public.upd_indexed", "--json").stdout)
    (rel,) = [r for db in doc["databases"] for r in db["relations"] if r["name"] == "public.upd_indexed"]
    path = copy / rel["files"][0]
    data = bytearray(path.read_bytes())
    data[8192 + 8000] ^= 0xFF   # block 1, inside its tuples
    path.write_bytes(bytes(data))
    r = subprocess.run([*PGPAGE, "export", str(copy), "-o", str(fleet), "--label", "damaged"], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stderr
    query = queries[1][0].replace("'fleet/", f"'{fleet}/")
    rows = con.sql(f"SELECT failing, failing_pages FROM ({query.rstrip().rstrip(';')}) WHERE snapshot = 'damaged'")
    assert rows.fetchall() == [(1, ["stories.public.upd_indexed block 1"])]


def test_readme_wal_example(tmp_path):
    """The README's WAL audit: its shell line exports the pg17 story's WAL, its query prints what it shows, and
    those are the counts and bytes of `wal --json`'s records per relation they write to."""
    (_, shell), (_, query), (_, shown) = readme_blocks("### export")
    out = tmp_path / "audit"
    command = shell.strip().replace("-o audit", f"-o {out}").replace("pgpage export",
                                                                     f"{sys.executable} -m pgpage export")
    r = subprocess.run(["bash", "-c", command], cwd=README.parent, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    rel = duckdb.connect().sql(query.replace("'audit/", f"'{out}/"))
    got = printed(rel)
    assert got == shown.rstrip("\n").split("\n"), "\n".join(got)
    story = README.parent / "fixtures" / "stories" / "pg17"
    records = json_lines(subprocess.run([*PGPAGE, "wal", story / "data", "--wal", story / "wal", "--json"],
                                        capture_output=True, text=True, check=False).stdout)[:-1]
    want: dict[tuple[str, str], list[int]] = {}
    for rec in records:
        for name in {b["relation"] for b in rec["blocks"] if b["database"] == "stories"
                     and (b["relation"] or "").startswith("public.")}:
            sums = want.setdefault((name.removeprefix("public."), rec["rmgr"]), [0, 0, 0])
            for i, n in enumerate((1, rec["length"], rec["fpi_length"])):
                sums[i] += n
    assert [(a, b, int(c), int(d), int(e)) for a, b, c, d, e in rel.fetchall()] == \
        [(*k, *v) for k, v in sorted(want.items())]


def test_readme_lists_every_column():
    """The README's table of each dataset names its columns, in file order."""
    from pgpage.passes.export import COLUMNS
    text = README.read_text()
    section = text[text.index("### The datasets\n"):]
    for dataset, columns in COLUMNS.items():
        start = re.search(rf"^`{dataset}`( \(.*\))?$", section, re.M).start()
        table = section[start:section.index("\n\n", section.index("|", start))]
        names = [n.strip(" `") for line in table.splitlines()[4:] for n in line.split("|")[1].split(",")]
        assert names == [n for n, _ in columns], dataset


def test_damaged_cluster_is_exported(tmp_path):
    """Garbage in a heap page and in a B-tree page, and a table cut in the middle of a block: the export writes
    every dataset, the damage as findings and checksum verdicts, no traceback."""
    import random
    import shutil
    major = 15 if 15 in MAJORS else MAJORS[-1]
    copy = tmp_path / "data"
    shutil.copytree(data_dir(major), copy)
    doc = json.loads(pgpage("scan", copy, "--json", "--name", "public.*").stdout)
    files = {r["name"]: copy / r["files"][0] for db in doc["databases"] for r in db["relations"]}
    rng = random.Random(44)
    for name, block in (("public.heap_hot", 0), ("public.idx_dup", 1)):
        data = bytearray(files[name].read_bytes())
        data[8192 * block:8192 * (block + 1)] = rng.randbytes(8192)
        files[name].write_bytes(bytes(data))
    data = files["public.heap_aborted"].read_bytes()
    files["public.heap_aborted"].write_bytes(data[:len(data) - 4096])
    out = tmp_path / "out"
    r = subprocess.run([*PGPAGE, "export", str(copy), "-o", str(out), "--rows", "--json"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == ""
    doc = json.loads(r.stdout)
    assert all(doc["files"][f"{name}.parquet"] for name in DATASETS)
    failing = sql(out, "pages", "SELECT relname, blkno FROM d WHERE NOT checksum_ok ORDER BY ALL")
    assert ("heap_hot", 0) in failing and ("idx_dup", 1) in failing
    codes = {c for (c,) in sql(out, "findings", "SELECT DISTINCT code FROM d")}
    assert "checksum.mismatch" in codes
    # verify's findings of the damage, each as `verify --json` words it (the export verifies through the cluster
    # its scan opened; without --rows, whose findings join the dataset too)
    out = tmp_path / "out2"
    pgpage("export", copy, "-o", out)
    want = sorted((r.get("code"), r.get("relation"), r.get("block"), r.get("item"), r.get("message"))
                  for r in json_lines(pgpage("verify", copy, "--json").stdout) if r["type"] == "finding")
    assert sorted(sql(out, "findings", "SELECT code, relation, block, item, message FROM d")) == want
    assert len(want) > 100
    # the damaged B-tree's figures (which the export takes from verify's reading of it) as `index --json` says
    doc = json.loads(pgpage("index", copy, "--rel", "public.idx_dup", "--json").stdout)
    want = {**doc["pgstatindex"], "posting_tuples": doc["deduplication"]["posting_tuples"],
            "posting_tids": doc["deduplication"]["posting_tids"], "dead_items": doc["dead_items"]["dead_items"]}
    (got,) = sql(out, "relations", f"SELECT {', '.join(want)} FROM d WHERE relname = 'idx_dup'")
    assert [None if isinstance(v, float) and v != v else v for v in got] == list(want.values())   # (NaN: null)


def test_diff_parquet_is_diff_json(tmp_path):
    story = Path(__file__).resolve().parents[2] / "fixtures" / "stories" / (
        "pg15" if (Path(__file__).resolve().parents[2] / "fixtures" / "stories" / "pg15").is_dir() else "pg18")
    before, after = story / "before" / "data", story / "data"
    f = tmp_path / "diff.parquet"
    r = pgpage("diff", before, after, "--parquet", f)
    assert (r.returncode, r.stdout) == (1, "")
    doc = json.loads(pgpage("diff", before, after, "--json").stdout)
    got = {(d, n): rest for d, n, *rest in duckdb.sql(
        f"SELECT database, relation, status, changed, after_blocks, pages_changed, new_versions, hot_updated,"
        f" not_hot, entries_added FROM '{f}'").fetchall()}
    assert len(got) == len(doc["relations"])
    for rel in doc["relations"]:
        tuples = (rel.get("pages") or {}).get("tuples") or {}
        assert got[(rel["database"], rel["name"])] == [
            rel["status"], rel["changed"], (rel.get("after") or {}).get("blocks"),
            rel["forks"]["main"]["pages_changed"] if "main" in rel.get("forks", {}) else None,
            tuples.get("new_versions"), tuples.get("hot_updated"), (rel.get("why_not_hot") or {}).get("not_hot"),
            ((rel.get("index") or {}).get("delta") or {}).get("entries")], rel["name"]
    assert got[("stories", "public.upd_indexed")][4:7] == [100, 0, 100]


def test_dictionary_only_where_values_repeat(tmp_path_factory):
    """The rows file of a table keeps Parquet's dictionary for columns whose values repeat (xmin, a flag column) and
    writes a column of as many values as rows (the primary key) plain."""
    import pyarrow.parquet as pq
    out, _ = exported(max(ROWS_MAJORS), tmp_path_factory)
    f, = Path(out).glob("*/*/rows/public.heap_hot.parquet")
    meta = pq.ParquetFile(f).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    assert "RLE_DICTIONARY" in encodings["xmin"] and "RLE_DICTIONARY" in encodings["schema_version"]
    assert "RLE_DICTIONARY" not in encodings["id"]


@pytest.mark.parametrize("datasets", [("findings",), ("pages",), ("relations", "findings")])
def test_progress_counts_every_block_read(datasets):
    """A progress bar's total is the blocks the export reads: verify's reading for the findings, the scan's for the
    other datasets; a bar that stops short or runs past it says nothing true."""
    from pgpage.passes.export import ClusterExport
    major = MAJORS[-1]
    export = ClusterExport(str(data_dir(major)), "pgpage", label="progress")
    seen = []
    export.run(lambda name, batch: None, datasets=datasets, on_blocks=seen.append)
    assert sum(seen) == export.blocks_read(datasets) > 0
