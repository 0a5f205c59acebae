"""What `pgpage rows` says about damage beside the values (issue 39): damaged bytes are never data.

A value that cannot be read is None (an empty field in CSV, ``null`` in JSON) with a finding that names its
ctid (block, item) and column (attnum); a page that fails its checksum is a ``checksum.mismatch`` finding, and
its rows are still printed where they decode. Each version printed records both (``version_damage``:
``RowVersion.damage``, the ``damage`` of its ``--json`` record), so that a reader of the output alone knows
which rows and which of their cells not to trust.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from pgpage.analysis.verify.pages import checksum_votes, checksums_decided
from pgpage.findings import ERROR, Finding


def page_checksums(cluster, fork) -> bool:
    """Whether the pages of ``fork`` carry data checksums to check: pg_control's word, or for a file whose
    cluster does not say (a file alone), its own pages' (``checksums_decided``, as ``verify`` decides)."""
    known = cluster.checksums if cluster is not None else None
    if known is not None or fork is None or not fork.exists:
        return bool(known)
    votes = np.zeros(3, dtype=np.int64)
    for first, chunk in fork.iter_chunks():
        votes += checksum_votes(chunk, first)
    return checksums_decided(*map(int, votes))[0] is True


def checksum_runs(blocks: np.ndarray, failures: set[int]) -> Iterator[tuple[np.ndarray | None, bool]]:
    """The versions of a chunk (their ``blocks``) in runs that lie on pages whose checksum fails or not:
    (indexes, failed), in order; (None, False) once, for all of them, when none does."""
    failed = np.isin(blocks, np.fromiter(failures, dtype=np.int64, count=len(failures))) if failures else None
    if failed is None or not failed.any():
        yield None, False
        return
    edges = np.flatnonzero(np.diff(failed.astype(np.int8))) + 1
    for lo, hi in zip([0, *edges.tolist()], [*edges.tolist(), len(blocks)]):
        yield np.arange(lo, hi), bool(failed[lo])


def version_damage(findings: list[Finding], checksum_failed: bool, names: dict[int, str]) -> list[dict] | None:
    """What is wrong with one version, from the findings reading it made: its page's checksum, and each error
    with the column it made None (``names``: the printed columns' names by attnum). None when nothing is."""
    out = [{"code": "checksum.mismatch"}] if checksum_failed else []
    for f in findings:
        if f.severity == ERROR:
            out.append({"code": f.code, **({"column": names[f.attnum]} if f.attnum in names else {})})
    return out or None
