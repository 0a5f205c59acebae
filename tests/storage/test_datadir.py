"""Data directories read offline: names, kinds, AMs, file numbers and links equal what the server said."""
from __future__ import annotations

import shutil

import pytest

from conftest import catalog_oracle, data_dir
from pgpage.findings import ExitCode, PgpageError
from pgpage.storage.datadir import open_data_directory


def test_cluster_facts(major):
    cluster = open_data_directory(data_dir(major))
    oracle = catalog_oracle(major)
    assert cluster.major == oracle["major"]
    assert cluster.block_size == oracle["block_size"]
    assert cluster.checksums is oracle["data_checksums"]
    assert cluster.control["crc_ok"]
    assert cluster.control["state_name"] == "DB_SHUTDOWNED"
    assert not cluster.findings


def test_databases_equal_pg_database(major):
    cluster = open_data_directory(data_dir(major))
    want = {r["oid"]: r for r in catalog_oracle(major)["pg_database"]}
    got = {d.oid: d for d in cluster.databases()}
    assert got.keys() == want.keys()
    for oid, row in want.items():
        assert got[oid].name == row["datname"]
        assert got[oid].tablespace == row["dattablespace"]
        assert got[oid].row["datfrozenxid"] == row["datfrozenxid"]


def test_relations_equal_pg_class(major):
    """Every relation the server listed: name, schema, kind, AM, persistence, file, TOAST link, reltuples."""
    cluster = open_data_directory(data_dir(major))
    oracle = catalog_oracle(major)
    db = cluster.database(oracle["datname"])
    ours = {r.oid: r for r in db.relations()}
    for row in oracle["relations"]:
        r = ours[row["oid"]]
        assert (r.name, r.namespace, r.kind, r.am, r.row["relpersistence"]) == (
            row["relname"], row["nspname"], row["relkind"], row["amname"], row["relpersistence"]), row
        assert row["relfilenode"] in (0, r.relfilenode)  # 0: a mapped catalog, found through the map
        path = r.directory / r.file_stem
        assert str(path.relative_to(cluster.path)) == row["filepath"], row
        assert (r.toast.oid if r.toast else 0) == row["reltoastrelid"], row
        assert r.row["reltuples"] == row["reltuples"], row  # (index --jobs: whether an index is sparse)
        assert r.forks.get("main") is not None, row


def test_indexes_point_at_their_tables(major):
    cluster = open_data_directory(data_dir(major))
    oracle = catalog_oracle(major)
    ours = {r.oid: r for r in cluster.database(oracle["datname"]).relations()}
    assert oracle["indexes"]
    for row in oracle["indexes"]:
        index = ours[row["indexrelid"]]
        assert index.table is not None and index.table.oid == row["indrelid"]
        assert index.index_row["indisunique"] == row["indisunique"]
        assert index.index_row["indisprimary"] == row["indisprimary"]


def test_lookup_by_name_oid_and_relfilenode(major):
    cluster = open_data_directory(data_dir(major))
    db = cluster.database(None)  # the only database
    rel = db.relation("public.heap_hot")
    assert db.relation("heap_hot") is rel
    assert db.relation(str(rel.relfilenode)) is rel
    with pytest.raises(PgpageError) as e:
        db.relation("no_such_table")
    assert e.value.exit_code == ExitCode.USAGE


def test_not_a_data_directory(tmp_path):
    with pytest.raises(PgpageError) as e:
        open_data_directory(tmp_path)
    assert e.value.exit_code == ExitCode.UNREADABLE
    assert "not a PostgreSQL data directory" in str(e.value)


def copy_cluster(major, tmp_path):
    dst = tmp_path / "data"
    shutil.copytree(data_dir(major), dst)
    return dst


def test_orphan_and_missing_files(tmp_path):
    major = 15
    dst = copy_cluster(major, tmp_path)
    cluster = open_data_directory(dst)
    db = cluster.database(None)
    victim = db.relation("public.heap_wide")
    (victim.directory / victim.file_stem).rename(victim.directory / "999999")  # now an orphan, and missing
    cluster = open_data_directory(dst)
    db = cluster.database(None)
    db.relations()
    codes = {(f.code, f.relation) for f in db.findings}
    assert ("relation.file_missing", "public.heap_wide") in codes
    orphans = [f for f in db.findings if f.code == "relation.orphan_file"]
    assert len(orphans) == 1 and "999999" in orphans[0].message


def test_damaged_pg_control_is_a_finding_not_a_failure(tmp_path):
    dst = copy_cluster(17, tmp_path)
    control = dst / "global" / "pg_control"
    data = bytearray(control.read_bytes())
    data[100] ^= 0xFF
    control.write_bytes(bytes(data))
    cluster = open_data_directory(dst)
    assert cluster.control is not None and not cluster.control["crc_ok"]
    assert any("crc" in f.code for f in cluster.findings)
    assert cluster.database(None).relation("public.heap_hot").forks["main"].nblocks > 0


def test_damaged_filenode_map_is_a_finding(tmp_path):
    dst = copy_cluster(16, tmp_path)
    db_dir = next(p for p in (dst / "base").iterdir() if p.is_dir())
    fmap = db_dir / "pg_filenode.map"
    data = bytearray(fmap.read_bytes())
    data[-12] ^= 0x01  # inside the CRC-covered bytes' tail (padding/unused mappings)
    fmap.write_bytes(bytes(data))
    cluster = open_data_directory(dst)
    db = cluster.database(None)
    db.relations()
    assert any(f.code.startswith("filenode_map.crc") for f in db.findings)


def test_catalog_page_with_a_bad_header_is_a_finding_and_the_other_pages_still_read(tmp_path):
    dst = copy_cluster(17, tmp_path)
    db = open_data_directory(dst).database(None)
    before = {r.oid: r.row for r in db.relations()}
    victim = db.relation("public.heap_wide")
    block = int(victim.row["_tid"].strip("()").split(",")[0])
    pg_class = db.relation("pg_catalog.pg_class").forks["main"]
    path, offset = pg_class.segment_path(0), block * pg_class.block_size
    with open(path, "r+b") as f:  # pd_lower (bytes 12-13) past pd_upper: PageHeaderIsValid fails
        f.seek(offset + 12)
        f.write((pg_class.block_size - 8).to_bytes(2, "little"))

    db = open_data_directory(dst).database(None)
    after = {r.oid: r.row for r in db.relations()}
    bad = [f for f in db.findings if f.code == "catalog.page.bad_header"]
    assert [(f.relation, f.block) for f in bad] == [("pg_class", block)]
    on_block = {oid for oid, row in before.items() if row["_tid"].startswith(f"({block},")}
    assert victim.oid in on_block and after.keys() == before.keys() - on_block
    assert all(after[oid]["relfilenode"] == before[oid]["relfilenode"] for oid in after)


def _catalog_reads(major: int) -> tuple:
    """Everything the catalogs give a data directory: databases, tablespaces, each database's rows of pg_class,
    pg_namespace, pg_am, pg_index, the pg_attribute rows of its relations, and every finding on the way."""
    cluster = open_data_directory(data_dir(major))
    out = [[d.row for d in cluster.databases()], cluster.tablespaces]
    for db in cluster.databases():
        if not db.path.is_dir():
            continue
        rows = db.catalog_rows
        out.append(rows)
        out.append([db.attributes(r["oid"]) for r in rows["pg_class"]])
        out.append([f.to_json() for f in db.findings])
    out.append([f.to_json() for f in cluster.findings])
    return out


def test_catalog_rows_are_the_same_without_the_compiled_offsets(major, monkeypatch):
    """decode/catalog.py takes the attributes of most rows from kernels.deform_offsets and walks the others with
    deform_tuple: the rows, in order, and the findings are exactly those deform_tuple alone gives, and the
    compiled path did carry most rows."""
    from pgpage.decode import kernels
    real = kernels.deform_offsets
    carried = [0, 0]

    def counted(*a):
        ok, pos, lens = real(*a)
        carried[0] += int(ok.sum())
        carried[1] += len(ok)
        return ok, pos, lens

    monkeypatch.setattr(kernels, "deform_offsets", counted)
    fast = _catalog_reads(major)
    assert carried[1] > 1000 and carried[0] > 0.95 * carried[1], carried

    def refused(*a):
        ok, pos, lens = real(*a)
        return ok & False, pos, lens

    monkeypatch.setattr(kernels, "deform_offsets", refused)
    assert _catalog_reads(major) == fast
