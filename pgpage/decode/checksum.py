"""pg_checksum_page, vectorised over many pages at once.

Transcribes src/include/storage/checksum_impl.h: 32 parallel FNV-1a-like lanes over the
page as native (little-endian) uint32 words with pd_checksum zeroed, two extra rounds of
zeros, XOR of the lanes, then the block number mixed in and reduced ``% 65535 + 1`` (never
0, so 0 can mean "no checksum"). The 32 lanes map onto numpy columns, and many pages are
processed together, which is what makes whole-relation verification fast.
"""
from __future__ import annotations

import numpy as np

N_SUMS = 32
FNV_PRIME = np.uint32(16777619)
CHECKSUM_BASE_OFFSETS = np.array([
    0x5B1F36E9, 0xB8525960, 0x02AB50AA, 0x1DE66D2A, 0x79FF467A, 0x9BB9F8A3, 0x217E7CD2, 0x83E13D2C,
    0xF8D4474F, 0xE39EB970, 0x42C6AE16, 0x993216FA, 0x7B093B5D, 0x98DAFF3C, 0xF718902A, 0x0B1C9CDB,
    0xE58F764B, 0x187636BC, 0x5D7B3BB1, 0xE73DE7DE, 0x92BEC979, 0xCCA6C0B2, 0x304A0979, 0x85AA43D4,
    0x783125BB, 0x6CA8EAA2, 0xE407EAC6, 0x4B5CFC3E, 0x9FBF8C76, 0x15CA20BE, 0xF2CA9FD3, 0x959BD756,
], dtype=np.uint32)
PD_CHECKSUM_WORD = 2  # pd_checksum is bytes 8..9: the low half of uint32 word 2 (little-endian)


def checksum_pages(pages: np.ndarray, first_blkno: int | np.ndarray) -> np.ndarray:
    """pg_checksum_page for each row of ``pages`` (uint8, shape (n, BLCKSZ)).

    ``first_blkno`` is the global block number of row 0 (rows are consecutive), or an
    array of block numbers, one per row. Returns uint16 checksums; all-zero pages get 0
    (PostgreSQL never checksums a new page).
    """
    n, blcksz = pages.shape
    words = np.ascontiguousarray(pages).view("<u4").reshape(n, blcksz // (4 * N_SUMS), N_SUMS)
    sums = np.tile(CHECKSUM_BASE_OFFSETS, (n, 1))
    t = np.empty_like(sums)
    for i in range(words.shape[1]):
        row = words[:, i, :]
        if i == 0:  # pd_checksum counts as zero
            row = row.copy()
            row[:, PD_CHECKSUM_WORD] &= np.uint32(0xFFFF0000)
        _mix(sums, row, t)
    zero = np.zeros_like(sums)
    _mix(sums, zero, t)
    _mix(sums, zero, t)
    folded = np.bitwise_xor.reduce(sums, axis=1)
    blknos = np.asarray(first_blkno, dtype=np.uint32)
    if blknos.ndim == 0:
        blknos = blknos + np.arange(n, dtype=np.uint32)
    result = ((folded ^ blknos) % np.uint32(65535) + 1).astype(np.uint16)
    result[~pages.any(axis=1)] = 0
    return result


def _mix(sums: np.ndarray, values: np.ndarray, scratch: np.ndarray) -> None:
    """CHECKSUM_COMP for every lane: t = s ^ v; s = (t * FNV_PRIME) ^ (t >> 17)."""
    np.bitwise_xor(sums, values, out=scratch)
    np.multiply(scratch, FNV_PRIME, out=sums)
    np.right_shift(scratch, 17, out=scratch)
    np.bitwise_xor(sums, scratch, out=sums)


def checksum_page(page: bytes, blkno: int) -> int:
    """pg_checksum_page for one page image."""
    arr = np.frombuffer(page, dtype=np.uint8).reshape(1, -1)
    return int(checksum_pages(arr, blkno)[0])
