from conftest import FIXTURES, MAJORS, REQUIRED_MAJORS, rel_names


def test_every_required_major_has_fixtures():
    assert MAJORS == REQUIRED_MAJORS, f"fixtures missing for majors {set(REQUIRED_MAJORS) - set(MAJORS)}"


def test_fixtures_stay_small():
    size = sum(p.stat().st_size for p in FIXTURES.rglob("*")
               if p.is_file() and not p.is_symlink() and ".cache" not in p.parts)
    # 20 MiB, plus 10 MiB for stories/ (make_stories.py: five pruned clusters with pg_stat/, each twice:
    # before and after the update pass, a file both keep stored once, the other as a symlink), plus 4 MiB for
    # indexes/ (make_indexes.py: every index access method of every major) and 2 MiB for recovery/
    # (make_recovery.py: pruned rows, damaged values, encodings), plus 1 MiB for walrows/ (make_walrows.py: the
    # WAL of every major with a vacuumed table's data directory), plus 4 MiB for dump/ (make_dump.py: a schema of
    # every object kind pgpage dump writes, with data, per major, and its oracle)
    assert size < 41 * 1024 * 1024


def test_every_major_has_oracle_for_each_structure():
    for m in MAJORS:
        names = set(rel_names(m))
        assert {"heap_hot", "heap_wide", "toasty", "idx_multilevel", "idx_dup", "heap_frozen"} <= names, m
