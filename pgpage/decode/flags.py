"""Flag bits and special values of pages and heap tuples, named once.

The values are the .ksy enums (``ksy/layouts.ENUMS``, generated from ``formats/``), so this code and
the generated parsers read one definition of each bit.
"""
from __future__ import annotations

from pgpage.decode.ksy.layouts import ENUMS

_VALUE = {name: value for enum in ("pg_page::lp_flags", "pg_page::pd_flags", "pg_page::special_offset_number",
                                   "heap_tuple::infomask_flags", "heap_tuple::infomask_combined",
                                   "heap_tuple::infomask2_flags", "heap_tuple::infomask2_masks")
          for value, name in ENUMS[enum].items()}

# line pointer states (lp_flags)
LP_UNUSED = _VALUE["LP_UNUSED"]
LP_NORMAL = _VALUE["LP_NORMAL"]
LP_REDIRECT = _VALUE["LP_REDIRECT"]
LP_DEAD = _VALUE["LP_DEAD"]
# pd_flags
PD_HAS_FREE_LINES = _VALUE["PD_HAS_FREE_LINES"]
PD_ALL_VISIBLE = _VALUE["PD_ALL_VISIBLE"]
PD_VALID_FLAG_BITS = _VALUE["PD_VALID_FLAG_BITS"]
# t_ctid offsets that are not line pointers
SPEC_TOKEN_OFFSET = _VALUE["SpecTokenOffsetNumber"]
MOVED_PARTITIONS_OFFSET = _VALUE["MovedPartitionsOffsetNumber"]
# t_infomask
HEAP_HASNULL = _VALUE["HEAP_HASNULL"]
HEAP_HASVARWIDTH = _VALUE["HEAP_HASVARWIDTH"]
HEAP_HASEXTERNAL = _VALUE["HEAP_HASEXTERNAL"]
HEAP_HASOID_OLD = _VALUE["HEAP_HASOID_OLD"]
HEAP_XMAX_KEYSHR_LOCK = _VALUE["HEAP_XMAX_KEYSHR_LOCK"]
HEAP_XMAX_EXCL_LOCK = _VALUE["HEAP_XMAX_EXCL_LOCK"]
HEAP_XMAX_LOCK_ONLY = _VALUE["HEAP_XMAX_LOCK_ONLY"]
HEAP_XMIN_COMMITTED = _VALUE["HEAP_XMIN_COMMITTED"]
HEAP_XMIN_INVALID = _VALUE["HEAP_XMIN_INVALID"]
HEAP_XMIN_FROZEN = _VALUE["HEAP_XMIN_FROZEN"]
HEAP_XMAX_COMMITTED = _VALUE["HEAP_XMAX_COMMITTED"]
HEAP_XMAX_INVALID = _VALUE["HEAP_XMAX_INVALID"]
HEAP_XMAX_IS_MULTI = _VALUE["HEAP_XMAX_IS_MULTI"]
HEAP_UPDATED = _VALUE["HEAP_UPDATED"]
HEAP_MOVED = _VALUE["HEAP_MOVED"]
# t_infomask2
HEAP_NATTS_MASK = _VALUE["HEAP_NATTS_MASK"]
HEAP2_XACT_MASK = _VALUE["HEAP2_XACT_MASK"]
HEAP_HOT_UPDATED = _VALUE["HEAP_HOT_UPDATED"]
HEAP_ONLY_TUPLE = _VALUE["HEAP_ONLY_TUPLE"]
