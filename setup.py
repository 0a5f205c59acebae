"""Builds pgpage's one compiled part, the whole-relation scanner (pgpage/decode/_heapscan.c).

It is plain C loaded with ctypes (no Python.h), stamped with the SHA-256 of its source so that
``pgpage.decode.kernels`` never uses a build of another version of the file (it rebuilds with
``cc`` into ~/.cache/pgpage then). Everything else about the package is in pyproject.toml.
"""
import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "pgpage/decode/_heapscan.c"
SHA = hashlib.sha256(Path(__file__).resolve().parent.joinpath(SOURCE).read_bytes()).hexdigest()[:16]

setup(ext_modules=[Extension(
    "pgpage.decode._heapscan", [SOURCE],
    define_macros=[("PGP_SOURCE_SHA", f'"{SHA}"')],
    extra_compile_args=["-O3", "-std=c99", "-fno-strict-aliasing"],
)])
