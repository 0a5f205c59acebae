"""Builds pgpage's one compiled part, the whole-relation scanner (pgpage/decode/_heapscan.c), the page
dumper (pgpage/decode/_pagedump.c), the B-tree key order (pgpage/decode/_btorder.c) and the WAL CRC
(pgpage/decode/_walscan.c), one shared library.

It is plain C loaded with ctypes (no Python.h), stamped with the SHA-256 over its sources so that
``pgpage.decode.kernels`` never uses a build of another version of the file (it rebuilds with
``cc`` into ~/.cache/pgpage then). Everything else about the package is in pyproject.toml.
"""
import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCES = ["pgpage/decode/_heapscan.c", "pgpage/decode/_pagedump.c", "pgpage/decode/_btorder.c",
           "pgpage/decode/_walscan.c"]  # kernels.SOURCES' order
_sha = hashlib.sha256()
for _src in SOURCES:
    _sha.update(Path(__file__).resolve().parent.joinpath(_src).read_bytes())
SHA = _sha.hexdigest()[:16]

setup(ext_modules=[Extension(
    "pgpage.decode._heapscan", SOURCES,
    define_macros=[("PGP_SOURCE_SHA", f'"{SHA}"')],
    extra_compile_args=["-O3", "-std=c99", "-fno-strict-aliasing"],
)])
