"""Builds pgpage's one compiled part: the whole-relation passes (pgpage/decode/_heapscan.c, _btree.c, _verify.c),
the rows printer (_rows.c, _values.c, _values_composite.c), the page dumper (_pagedump.c), the B-tree key order
(_btorder.c), the WAL scan (_walscan.c), the GIN verify sieve (_gin.c) and the other index access methods' passes
(_amindex.c), one shared library.

It is plain C loaded with ctypes (no Python.h), stamped with the SHA-256 over its sources and the headers they
include, so that ``pgpage.decode.clib`` never uses a build of other sources (it rebuilds with ``cc`` into
~/.cache/pgpage then). Everything else about the package is in pyproject.toml.
"""
import hashlib
from pathlib import Path

from setuptools import Extension, setup

D = "pgpage/decode/"
# clib.SOURCES and clib.HEADERS, in their order
SOURCES = [D + name for name in ("_heapscan.c", "_btree.c", "_verify.c", "_values.c", "_values_composite.c",
                                 "_rows.c", "_pagedump.c", "_btorder.c", "_walscan.c", "_gin.c",
                                 "_amindex.c")]
HEADERS = [D + "_kernel.h", D + "_values.h", D + "ksy/pgp_layout.h"]
_sha = hashlib.sha256()
for _src in SOURCES + HEADERS:
    _sha.update(Path(__file__).resolve().parent.joinpath(_src).read_bytes())
SHA = _sha.hexdigest()[:16]

setup(ext_modules=[Extension(
    "pgpage.decode._heapscan", SOURCES, depends=HEADERS,
    define_macros=[("PGP_SOURCE_SHA", f'"{SHA}"')],
    extra_compile_args=["-O3", "-std=c99", "-fno-strict-aliasing"],
)])
