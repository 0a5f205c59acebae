"""Parquet files from Arrow record batches: `pgpage export`'s dataset directory, and one file for `--parquet`.

A dataset directory is hive-partitioned by cluster and snapshot, so that one glob spans a fleet::

    DIR/system_identifier=<pg_control's system identifier>/snapshot=<label>/relations.parquet
                                                                        /pages.parquet ...
                                                                        /rows/<schema>.<table>.parquet

(``read_parquet('DIR/*/*/pages.parquet', hive_partitioning = true)`` in DuckDB; Spark reads DIR the same way).
Batches are buffered per file up to ROW_GROUP_ROWS rows and written as one row group (``ParquetWriter``): memory
holds at most one row group per open file, whatever the cluster's size, and the one being written. A row group is
encoded and compressed in a thread of its own while the next one is read (Arrow lets go of the GIL), one at a
time: encoding a table's rows costs about as much as reading them, and a second core does it meanwhile. A file
that got no batch is written with its schema and no rows, so a glob over many snapshots always finds every
dataset.
"""
from __future__ import annotations

import os
from pathlib import Path

ROW_GROUP_ROWS = 131072
COMPRESSION = "zstd"
# a column's dictionary stops (plain encoding from there) at this size: a column of few values (relname, status)
# keeps its dictionary, one of as many values as rows (ctid, an md5) gives up after a few thousand, where at
# Parquet's default (1 MiB) hashing them cost more than the rest of the write
DICTIONARY_BYTES = 1 << 16


class ParquetFiles:
    """``write(name, batch)`` appends a batch to ``directory/<name>.parquet``; ``close(schemas)`` flushes every
    file, and writes the files of ``schemas`` (name -> schema) that got no batch, empty. Files are written under a
    temporary name and renamed when complete, so a reader never sees half a file."""

    def __init__(self, directory: Path | None = None, file: Path | None = None):
        self.directory = Path(directory) if directory is not None else None
        self.file = Path(file) if file is not None else None   # one file, named as the user said (`--parquet`)
        self._writers: dict = {}    # name -> ParquetWriter
        self._pending: dict = {}    # name -> (batches, rows)
        self._done: list[Path] = []
        self._writer_thread = None   # a ThreadPoolExecutor of one thread, once a row group is written
        self._writing = None         # the row group it writes (a Future)

    def path(self, name: str) -> Path:
        return self.file if self.file is not None else self.directory / f"{name}.parquet"

    def write(self, name: str, batch) -> None:
        batches, rows = self._pending.get(name, ([], 0))
        batches.append(batch)
        rows += batch.num_rows
        self._pending[name] = (batches, rows)
        if name not in self._writers:
            self._open(name, batch.schema, batch)
        if rows >= ROW_GROUP_ROWS:
            self._flush(name)

    __call__ = write

    def _open(self, name: str, schema, first=None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        path = self.path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        # min/max statistics of the columns a reader prunes row groups by (numbers, times, booleans); those of text
        # (an md5, a ctid's text) prune nothing and cost a sixth of the write
        stats = [f.name for f in schema if not (pa.types.is_string(f.type) or pa.types.is_binary(f.type)
                                                or pa.types.is_nested(f.type) or pa.types.is_dictionary(f.type))]
        self._writers[name] = pq.ParquetWriter(str(path) + ".partial", schema, compression=COMPRESSION,
                                               dictionary_pagesize_limit=DICTIONARY_BYTES, write_statistics=stats,
                                               use_dictionary=dictionary_columns(schema, first))

    def _flush(self, name: str) -> None:
        import pyarrow as pa
        batches, rows = self._pending.pop(name, ([], 0))
        if rows:
            self._wait()
            if self._writer_thread is None:
                from concurrent.futures import ThreadPoolExecutor
                self._writer_thread = ThreadPoolExecutor(1, thread_name_prefix="pgpage-parquet")
            self._writing = self._writer_thread.submit(self._writers[name].write_table, pa.Table.from_batches(batches),
                                                       row_group_size=rows)

    def _wait(self) -> None:
        """The row group being written, written (its error raised here)."""
        if self._writing is not None:
            writing, self._writing = self._writing, None
            writing.result()

    def finish(self, name: str) -> None:
        """File ``name`` complete (its last rows written, the file closed): no more batches come for it."""
        self._flush(name)
        self._wait()
        self._writers.pop(name).close()
        os.replace(str(self.path(name)) + ".partial", self.path(name))
        self._done.append(self.path(name))

    def close(self, schemas: dict | None = None) -> list[Path]:
        """Every file complete, those of ``schemas`` (name -> schema) that got no batch written empty; returns the
        paths of the files written."""
        for name, schema in (schemas or {}).items():
            if name not in self._writers and self.path(name) not in self._done:
                self._open(name, schema)
        for name in list(self._writers):
            self.finish(name)
        if self._writer_thread is not None:
            self._writer_thread.shutdown()
            self._writer_thread = None
        return self._done


DICTIONARY_SAMPLE = 1024   # values of a file's first batch looked at to choose its columns' dictionaries


def dictionary_columns(schema, first=None) -> list[str]:
    """The Parquet columns (leaf paths) given a dictionary: all but a plain column whose ``first`` batch starts with
    more distinct values than repeats (an md5, a serial id): the writer would hash each of its values only to give
    the dictionary up a few thousand values in. (A sample read as Python values: pyarrow.compute costs a
    command 65 ms to import.)"""
    import pyarrow as pa
    out = []
    for i, f in enumerate(schema):
        column = first.column(i) if first is not None else None
        if column is not None and pa.types.is_list(f.type):   # (a list's values: its one leaf column)
            column = column.flatten()
        if isinstance(column, pa.ExtensionArray):   # (JSON: its text)
            column = column.storage
        sample = column.slice(0, DICTIONARY_SAMPLE).to_pylist() \
            if column is not None and not pa.types.is_dictionary(f.type) else None
        if sample is None or len(sample) < 2 or _distinct(sample) * 2 <= len(sample):
            out.append(f"{f.name}.list.element" if pa.types.is_list(f.type) else f.name)
    return out


def _distinct(values: list) -> int:
    try:
        return len(set(values))
    except TypeError:    # (values Python cannot hash: counted as repeats, the dictionary kept)
        return 0


def snapshot_directory(root: str, system_identifier: str, label: str) -> Path:
    return Path(root) / f"system_identifier={system_identifier}" / f"snapshot={label}"


def write_table_file(path: str, produce, schema) -> int:
    """One Parquet file (`--parquet FILE`) of the record batches ``produce(sink)`` hands to ``sink(batch)``, row
    groups of ROW_GROUP_ROWS rows at most; returns the rows written."""
    files = ParquetFiles(file=Path(path))
    rows = 0

    def sink(batch) -> None:
        nonlocal rows
        files.write("table", batch)
        rows += batch.num_rows
    produce(sink)
    files.close({"table": schema})
    return rows
