"""Flag bits and special values of pages and heap tuples, under the names the code uses.

The values are the .ksy enums, named by ``ksy/constants.py`` (generated from ``formats/`` with the C kernel's
``ksy/pgp_layout.h``), so this code, the compiled kernel and the generated parsers read one definition of each bit.
"""
from __future__ import annotations

from pgpage.decode.ksy.constants import (LP_UNUSED, LP_NORMAL, LP_REDIRECT, LP_DEAD, PD_HAS_FREE_LINES,
                                         PD_ALL_VISIBLE, PD_VALID_FLAG_BITS,
                                         SpecTokenOffsetNumber as SPEC_TOKEN_OFFSET,
                                         MovedPartitionsOffsetNumber as MOVED_PARTITIONS_OFFSET, HEAP_HASNULL,
                                         HEAP_HASVARWIDTH, HEAP_HASEXTERNAL, HEAP_HASOID_OLD,
                                         HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_LOCK_ONLY,
                                         HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID, HEAP_XMIN_FROZEN,
                                         HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_UPDATED,
                                         HEAP_MOVED, HEAP_NATTS_MASK, HEAP2_XACT_MASK, HEAP_HOT_UPDATED,
                                         HEAP_ONLY_TUPLE)  # noqa: F401
