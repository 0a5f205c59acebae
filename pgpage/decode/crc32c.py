"""CRC-32C (Castagnoli), the ``pg_crc32c`` PostgreSQL puts in pg_control, pg_filenode.map and WAL.

Reflected polynomial 0x82F63B78, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF
(``src/include/port/pg_crc32c.h``: INIT_CRC32C / COMP_CRC32C / FIN_CRC32C; the software fallback
``src/port/pg_crc32c_sb8.c`` computes the same value as the SSE 4.2 instruction).

Pure Python, one table lookup per byte: about 10 MB/s, so pg_control (296 bytes) and
pg_filenode.map (512/524 bytes) cost microseconds.
"""
from __future__ import annotations

POLY = 0x82F63B78


def _make_table() -> tuple[int, ...]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ POLY if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


TABLE: tuple[int, ...] = _make_table()


def crc32c_update(crc: int, data: bytes | bytearray | memoryview) -> int:
    """Continue a running (not yet finalised) CRC over ``data``: COMP_CRC32C."""
    table = TABLE
    for b in bytes(data):
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """CRC-32C of ``data`` as PostgreSQL stores it (INIT, COMP, FIN)."""
    return crc32c_update(0xFFFFFFFF, data) ^ 0xFFFFFFFF
