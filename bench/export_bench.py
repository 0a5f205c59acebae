#!/usr/bin/env python3
"""`pgpage export` against the commands whose numbers it writes, on the same data directory, in one run.

Not part of the test suite. Needs pgpage with the parquet extra. Measured warm, ``--runs`` times each (median), in
turns, every output to a temporary directory or /dev/null:

* metadata: ``pgpage export PGDATA --db DB -o DIR`` (cluster, relations, pages, tuples, B-tree items, findings),
  and with ``--datasets cluster,relations,pages,tuples`` (what one read of each relation gives), beside ``pgpage heap PGDATA --db DB --json`` plus ``pgpage index --rel I --json`` of each B-tree of the database
  (the issue's target: the export at least as fast as those, memory flat), and with `verify --json` of the
  database, whose findings the export writes too;
* rows: ``pgpage rows --rel T --parquet FILE`` beside ``pgpage rows --rel T --csv`` (target: as fast);
* the bound: the CPU time Parquet encoding of the export's ``tuples`` and ``btree_items`` takes alone (its own
  files read back and written again as it writes them), divided by the machine's cores: no export that writes
  those rows can take less, whatever it does to read the pages.

Each command's CPU time (every process and thread) is printed beside its wall time.

    python bench/export_bench.py WORK/data --db bench --table public.bench   # run_bench.py --build-only --keep's
    python bench/export_bench.py fixtures/pg15/data --db pgpage --table public.row_types --runs 1   # a try
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_bench import interleaved_runs, machine  # noqa: E402

PGPAGE = [sys.executable, "-m", "pgpage"]


def btrees(pgdata: str, db: str) -> list[str]:
    """The B-tree indexes of the database outside the system schemas (what `heap` + `index` of it read)."""
    import subprocess
    doc = json.loads(subprocess.run([*PGPAGE, "scan", pgdata, "--db", db, "--kind", "btree", "--json"],
                                    capture_output=True, text=True, check=False).stdout)
    return [r["name"] for d in doc["databases"] for r in d["relations"]
            if not r["name"].startswith(("pg_catalog.", "pg_toast.", "information_schema."))]


def encoding_alone(snapshot: Path, datasets: tuple[str, ...]) -> dict:
    """The CPU time (every thread's) Parquet encoding of ``datasets`` takes as the export writes them
    (``render.parquet.ParquetFiles``: its compression, statistics, dictionaries, writer thread): their files read
    back batch by batch, once only read and once read and written; the encoding is the difference."""
    import pyarrow.parquet as pq

    from pgpage.render.parquet import ParquetFiles

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def read_all(write) -> float:
        with tempfile.TemporaryDirectory(prefix="pgpage-encoding-") as out:
            files = ParquetFiles(Path(out))
            start = cpu()
            for name in datasets:
                for batch in pq.ParquetFile(snapshot / f"{name}.parquet").iter_batches(65536):
                    if write:
                        files.write(name, batch)
            files.close()
            return cpu() - start
    rows = sum(pq.ParquetFile(snapshot / f"{name}.parquet").metadata.num_rows for name in datasets)
    read_all(False)   # warm: the files in the page cache
    encoding = read_all(True) - read_all(False)
    return {"datasets": list(datasets), "rows": rows, "cpu_seconds": encoding, "ns_per_row": encoding / rows * 1e9}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pgdata")
    ap.add_argument("--db", required=True)
    ap.add_argument("--table", required=True, help="the table whose rows are written (schema.name)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", default=None, help="also write the results to this file")
    args = ap.parse_args()
    results: dict = {"machine": machine(), "runs": args.runs, "pgdata": args.pgdata}
    with tempfile.TemporaryDirectory(prefix="pgpage-export-bench-") as tmp:
        indexes = btrees(args.pgdata, args.db)
        # heap + index as one shell line, so that one time covers both (and the peak RSS is the larger one)
        heap_index = " && ".join([" ".join([*PGPAGE, "heap", args.pgdata, "--db", args.db, "--json", ">/dev/null"])]
                                 + [" ".join([*PGPAGE, "index", args.pgdata, "--db", args.db, "--rel", i, "--json",
                                              ">/dev/null"]) for i in indexes])
        cmds = {
            "export": [*PGPAGE, "export", args.pgdata, "--db", args.db, "-o", f"{tmp}/fleet", "--label", "bench"],
            # without the B-trees' items (each page decoded as `index --block` does) and verify's findings
            "export of one read": [*PGPAGE, "export", args.pgdata, "--db", args.db, "-o", f"{tmp}/fleet", "--label",
                                   "bench1", "--datasets", "cluster,relations,pages,tuples"],
            # what heap, index and verify compute, written (every dataset but the B-tree items)
            "export but btree_items": [*PGPAGE, "export", args.pgdata, "--db", args.db, "-o", f"{tmp}/fleet",
                                       "--label", "bench2", "--datasets", "cluster,relations,pages,tuples,findings"],
            "heap + index --json": ["bash", "-c", heap_index],
            # and `verify`, whose findings the export writes too (the B-tree items have no such command: `index
            # --block` of each page)
            "heap + index + verify --json": ["bash", "-c", heap_index + " && " + " ".join(
                [*PGPAGE, "verify", args.pgdata, "--db", args.db, "--json", ">/dev/null"])],
            "rows --parquet": [*PGPAGE, "rows", args.pgdata, "--db", args.db, "--rel", args.table, "--parquet",
                               f"{tmp}/rows.parquet"],
            "rows --csv": [*PGPAGE, "rows", args.pgdata, "--db", args.db, "--rel", args.table, "--csv"],
        }
        results.update(interleaved_runs(cmds, args.runs))
        snapshot = next(Path(tmp, "fleet").glob("system_identifier=*/snapshot=bench"))
        results["encoding alone"] = encoding_alone(snapshot, ("tuples", "btree_items"))
    results["indexes"] = indexes
    r = results
    cores = results["machine"]["nproc"]

    def line(name: str, note: str = "") -> None:
        x = r[name]
        print(f"{name:<28} {x['seconds']:7.2f} s {x['cpu_seconds']:7.2f} CPU s {x['peak_rss_mb']:6d} MB  {note}")
    line("export")
    line("export of one read", "(cluster, relations, pages, tuples)")
    line("heap + index --json", f"({len(indexes)} B-trees)")
    hi = r["heap + index --json"]["seconds"]
    print(f"  export / (heap + index): {r['export']['seconds'] / hi:.2f} (target: at most 1)")
    line("heap + index + verify --json")
    hiv = r["heap + index + verify --json"]
    print(f"  export / (heap + index + verify): {r['export']['seconds'] / hiv['seconds']:.2f}")
    line("export but btree_items")
    print(f"  export but btree_items / (heap + index + verify): "
          f"{r['export but btree_items']['seconds'] / hiv['seconds']:.2f}")
    enc = r["encoding alone"]
    print(f"Parquet encoding alone of the export's {' and '.join(enc['datasets'])} ({enc['rows']:,} rows, read back"
          f" from its files, written as it writes them): {enc['cpu_seconds']:.2f} CPU s ({enc['ns_per_row']:.0f} ns"
          f" a row)\n  so on {cores} cores the export takes at least {enc['cpu_seconds'] / cores:.2f} s before it"
          f" reads a page: {enc['cpu_seconds'] / cores / hi:.2f} x heap + index")
    line("rows --parquet")
    line("rows --csv")
    print(f"  parquet / csv: {r['rows --parquet']['seconds'] / r['rows --csv']['seconds']:.2f} (target: at most 1)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
