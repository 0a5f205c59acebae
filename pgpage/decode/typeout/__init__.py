"""Output functions of the built-in types the catalogs do not use (network, geometric, bit strings,
money, pg_lsn, jsonb, text search, ranges, ...), one module per family.

Each family module defines:

* ``TYPES``: ``{oid: (name, typlen, typalign, typbyval, array_oid)}`` from ``pg_type.dat`` (the same
  OIDs and storage in PostgreSQL 10-18 unless the module says otherwise);
* ``OUTPUT``: ``{oid: fn(payload: bytes, major: int | None) -> str}``, the type's output function
  (``col::text`` with DateStyle ISO, IntervalStyle postgres, bytea_output hex). ``payload`` is the
  value's content: exactly ``typlen`` bytes for a fixed-width type, the bytes after the varlena
  header (already decompressed or reassembled from TOAST) for a varlena. A function raises
  ``ValueError`` with a short message for bytes no server writes; ``datum`` turns that into an
  ``Unreadable`` value with the code ``datum.<type name>.bad_value``. It never reads past ``payload``.

``datum`` merges them: ``TYPES`` into its type table (and array types), ``OUTPUT`` into its dispatch.
"""
from __future__ import annotations

from importlib import import_module

# Family modules, in the order they are merged (a later one may not redefine an OID).
_MODULES: tuple[str, ...] = (
    "textsearch",
    "network", "geometry", "misc",
    "jsonb", "jsonpath",
    "ranges",
    "xml",
)

TYPES: dict[int, tuple] = {}
OUTPUT: dict = {}
for _name in _MODULES:
    _mod = import_module(f"pgpage.decode.typeout.{_name}")
    for _oid, _info in _mod.TYPES.items():
        assert _oid not in TYPES, (_name, _oid)
        TYPES[_oid] = _info
    OUTPUT.update(_mod.OUTPUT)
