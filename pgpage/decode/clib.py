"""pgpage's compiled library (the C files beside this one): found or built, loaded with ctypes, its functions
declared; and the calls that take no arrays (CRC-32C, the WAL scan). No numpy here: ``wal --stats`` runs on this
module alone, and importing numpy would cost it more than pg_waldump's whole run; ``kernels`` holds the calls
on numpy arrays.

Finding the library: the one ``pip install`` built beside this file, when it was built from the
C sources and headers beside it (``SOURCES`` and ``HEADERS``: the build stamps the SHA-256 over them into it);
otherwise (a source checkout, an edited C file or header) it is compiled once with the system's C compiler (``cc``) into
``$XDG_CACHE_HOME/pgpage`` (``~/.cache/pgpage``), named by that SHA-256, so a stale build is never
used.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
# the C sources of the one library, in build order, and the headers they include; its stamp is the SHA-256 over
# all of them (setup.py lists the same), so an edited header never runs with a stale build
SOURCES = tuple(HERE / name for name in ("_heapscan.c", "_btree.c", "_verify.c", "_values.c", "_values_composite.c",
                                         "_rows.c", "_pagedump.c", "_btorder.c",
                                         "_walscan.c", "_gin.c", "_amindex.c"))
HEADERS = (HERE / "_kernel.h", HERE / "_values.h", HERE / "ksy" / "pgp_layout.h")
CFLAGS = ["-O3", "-std=c99", "-fPIC", "-shared", "-fno-strict-aliasing"]


class KernelUnavailable(RuntimeError):
    pass


def source_sha() -> str:
    h = hashlib.sha256()
    for src in SOURCES + HEADERS:
        h.update(src.read_bytes())
    return h.hexdigest()[:16]


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pgpage"


def build(out: Path, sha: str) -> Path:
    """Compile the C ``SOURCES`` into ``out`` with the system's C compiler (atomically: a temporary name, then a
    rename, so concurrent first runs do not trip over each other)."""
    import subprocess       # here: only a first run compiles
    import tempfile
    out.parent.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out.parent)
    os.close(fd)
    cmd = [cc, *CFLAGS, f'-DPGP_SOURCE_SHA="{sha}"', "-o", tmp, *map(str, SOURCES)]
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError) as e:
        os.unlink(tmp)
        detail = getattr(e, "stderr", "") or str(e)
        raise KernelUnavailable(f"pgpage's compiled scanner is not built and `{' '.join(cmd[:1])}` could not"
                                f" build it ({detail.strip()[:300]}); reinstall with `pip install .`") from None
    os.replace(tmp, out)
    return out


def _candidates() -> list[Path]:
    import importlib.machinery
    return [HERE / f"_heapscan{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES]


@lru_cache(maxsize=None)
def lib() -> ctypes.CDLL:
    """The loaded library (see the module doc for where it comes from)."""
    sha = source_sha() if all(src.exists() for src in SOURCES + HEADERS) else None
    for path in _candidates():
        if path.exists():
            cdll = ctypes.CDLL(str(path))
            cdll.pgp_names.restype = ctypes.c_char_p
            if sha is None or cdll.pgp_names(6).decode() == sha:
                return _declare(cdll)
    if sha is None:
        raise KernelUnavailable("pgpage's compiled scanner is missing; reinstall with `pip install .`")
    path = _cache_dir() / f"_heapscan-{sha}-{sys.implementation.cache_tag}.so"
    if not path.exists():
        build(path, sha)
    return _declare(ctypes.CDLL(str(path)))


def _declare(cdll: ctypes.CDLL) -> ctypes.CDLL:
    P, I64, I = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    cdll.pgp_names.restype = ctypes.c_char_p
    cdll.pgp_names.argtypes = [I]
    cdll.pgp_scratch_size.restype = I64
    cdll.pgp_heap_chunk.restype = I
    cdll.pgp_heap_chunk.argtypes = [P, I64, I64, I64, P, P, P, P, I64, P, P, I64, P, P, P, P, P, P, P, P, P, I64,
                                    P, P, I64, P]
    cdll.pgp_fold_bins.argtypes = [P, I64, I64, I64, P, I64, P, P, I]
    cdll.pgp_checksum_pages.argtypes = [P, I64, I64, P, I64, ctypes.c_uint32, P]
    cdll.pgp_clog_states.argtypes = [P, I64, P, P, P, P, I64, I64, I]
    cdll.pgp_xmin_states.argtypes = [P, P, I64, P, P, P, P, P, I64, I64, I]
    cdll.pgp_xmax_needs_multi.argtypes = [P, P, I64, P]
    cdll.pgp_xmax_locked_only.argtypes = [P, I64, P]
    cdll.pgp_xmax_states.argtypes = [P, P, P, I64, I, P, P, P, P, P, I64, I64, I]
    cdll.pgp_btree_items.restype = I
    cdll.pgp_btree_items.argtypes = [P, I64, I64, I64, P, P, I64, I64, P, P, P, P, P, P, I64, P, P, P, P, P, I64, P,
                                     I64, P, I64]
    cdll.pgp_heap_lp_states.argtypes = [P, I64, I64, P, P, P, P, I64, P]
    cdll.pgp_heap_lp_states_read.restype = I64
    cdll.pgp_heap_lp_states_read.argtypes = [I, I64, I64, I64, P, P, I64, P, I64, P, P, I64]
    cdll.pgp_tid_verdicts.argtypes = [P, P, P, I64, I64, I64, P, I64, P, P, P, P, P, P, P]
    cdll.pgp_walk_chain.restype = I64
    cdll.pgp_walk_chain.argtypes = [P, P, P, I64, I64, I64, P, P, P]
    cdll.pgp_unique_blocks.restype = I64
    cdll.pgp_unique_blocks.argtypes = [P, I64, I64, I64, P, P]
    cdll.pgp_gather.argtypes = [P, P, P, I64, P, P]
    cdll.pgp_deform.argtypes = [P, I64, P, P, P, P, P, P, P, I64, I64, P, P, P]
    cdll.pgp_verify_heap_sieve.argtypes = [P, I64, I64, I64, P, P, P, P, P, P, P, I64, I64, I, P, P, P, I64]
    cdll.pgp_pread_staged.restype = I64
    cdll.pgp_pread_staged.argtypes = [I, P, I64, I64, P, I64]
    cdll.pgp_verify_btree_sieve.argtypes = [P, I64, I64, P, P, P, P]
    cdll.pgp_btree_order_pages.argtypes = [P, I64, I64, P, P, P, P]
    cdll.pgp_verify_gin_sieve.argtypes = [P, I64, I64, P, P, P, P, P, P, P, P]
    cdll.pgp_hash_sieve.argtypes = [P, I64, I64, P, P, P, P, P, P]
    cdll.pgp_lp_counts.argtypes = [P, I64, I64, P, P, I64, I64, P]
    cdll.pgp_verify_gist_sieve.argtypes = [P, I64, I64, P, P, P, P, P, P, P]
    cdll.pgp_verify_spgist_sieve.argtypes = [P, I64, I64, P, P, P, P, P, P, P, I64, P]
    cdll.pgp_btree_relate_many.argtypes = [P, P, P, P, P, I64, P, I64, I64, P]
    cdll.pgp_csv_rows.restype = I64
    cdll.pgp_csv_rows.argtypes = [P, I64, I64, P, P, P, P, P, P, P, I64, P, P, P, I64, P, P, P, I64, P, P, P, P, P,
                                  I64, P, P, I64, P, P, P, P, P, P, P, I64, P, I64, P, P]
    cdll.pgp_tid_texts.argtypes = [P, P, I64, P, P]
    cdll.pgp_line_hashes.argtypes = [P, P, I64, P]
    cdll.pgp_hot_roots.argtypes = [P, I64, I64, P, I64, P]
    cdll.pgp_crc32c.restype = ctypes.c_uint32
    cdll.pgp_crc32c.argtypes = [ctypes.c_uint32, ctypes.c_char_p, I64]
    cdll.pgp_wal_param_names.restype = ctypes.c_char_p
    cdll.pgp_wal_scan.restype = I64
    cdll.pgp_wal_scan.argtypes = [P, P, I64, P, I64, ctypes.c_uint64, I64, P, P, I64, I64, P, P, P, P, P, P, P, I64,
                                   P]
    return cdll


# ---------------------------------------------------------------------------------- calls without arrays
def crc32c_update(crc: int, data: bytes) -> int:
    """COMP_CRC32C over ``data`` (bytes) from the running value ``crc``: decode/crc32c.py's, compiled."""
    return lib().pgp_crc32c(crc, data, len(data))


def wal_param_names() -> list[str]:
    """The order of ``pgp_wal_scan``'s parameter array (_walscan.c's WAL_PARAMS)."""
    return [n for n in lib().pgp_wal_param_names().decode().split(",") if n]


class WalScanOutputs:
    """What ``wal_scan`` fills: one row per record (uninitialised: only the rows it returns are read). numpy
    arrays, imported here: only the callers that want the rows as arrays make these."""

    def __init__(self, cap: int):
        import numpy as np
        self.cap = cap
        self.lsn = np.empty(cap, np.int64)
        self.end = np.empty(cap, np.int64)
        self.length = np.empty(cap, np.uint32)
        self.xid = np.empty(cap, np.uint32)
        self.rmid = np.empty(cap, np.uint8)
        self.info = np.empty(cap, np.uint8)
        self.fpi = np.empty(cap, np.uint32)


def wal_scan(params, segment, following, seg_lsn: int, end_lsn: int, state, scratch, out: WalScanOutputs | None,
             start_lsn: int = 0, acc=None) -> int:
    """The records of ``segment`` (bytes, or a copy-on-write mmap: ctypes takes the address of a writable buffer
    only; ``following``: the next segment's, or None, for a record that runs on into it) from ``state``
    (_walscan.c's WS_ order: pos, prev, tli, stop, first, last end, the timeline's end) into ``out``, or with
    ``out`` None counted into ``acc`` (those from ``start_lsn`` on); returns how many it read, ``state`` says where
    and why it stopped. ``params``, ``state`` (int64), ``scratch`` (bytes) and ``acc`` (int64) are ctypes arrays."""
    def address(data):
        return data if data is None or isinstance(data, bytes) else (ctypes.c_char * len(data)).from_buffer(data)
    arrays = (0,) * 7 if out is None else tuple(a.ctypes.data for a in (out.lsn, out.end, out.length, out.xid,
                                                                        out.rmid, out.info, out.fpi))
    return lib().pgp_wal_scan(params, address(segment), len(segment), address(following),
                              0 if following is None else len(following), seg_lsn, end_lsn, state, scratch,
                              len(scratch), 0 if out is None else out.cap, *arrays, start_lsn, acc)
