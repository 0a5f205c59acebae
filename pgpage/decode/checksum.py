"""pg_checksum_page over many pages at once.

Transcribes src/include/storage/checksum_impl.h: 32 parallel FNV-1a-like lanes over the
page as native (little-endian) uint32 words with pd_checksum zeroed, two extra rounds of
zeros, XOR of the lanes, then the block number mixed in and reduced ``% 65535 + 1`` (never
0, so 0 can mean "no checksum"). The loop itself is compiled C (``decode/_heapscan.c``,
pgp_checksum_pages; the 32 lanes vectorise, with an AVX2 clone where the CPU has it), which is what
makes whole-relation verification run at memory speed.
"""
from __future__ import annotations

import numpy as np

from pgpage.decode.ksy.layouts import LAYOUTS

N_SUMS = 32
_PD_CHECKSUM_OFFSET, _ = LAYOUTS["pg_page::page_header"]["fields"]["pd_checksum"]
PD_CHECKSUM_WORD = _PD_CHECKSUM_OFFSET // 4  # pd_checksum's uint32 word (little-endian), and the half it is
PD_CHECKSUM_KEEP = np.uint32(0xFFFF0000 if _PD_CHECKSUM_OFFSET % 4 == 0 else 0x0000FFFF)


def checksum_pages(pages: np.ndarray, first_blkno: int | np.ndarray) -> np.ndarray:
    """pg_checksum_page for each row of ``pages`` (uint8, shape (n, BLCKSZ)).

    ``first_blkno`` is the global block number of row 0 (rows are consecutive), or an
    array of block numbers, one per row. Returns uint16 checksums; all-zero pages get 0
    (PostgreSQL never checksums a new page).
    """
    from pgpage.decode import kernels
    n, blcksz = pages.shape
    words = np.ascontiguousarray(pages).view("<u4").reshape(n, blcksz // 4)
    blknos = np.asarray(first_blkno)
    if blknos.ndim == 0:
        blknos = (int(first_blkno) + np.arange(n, dtype=np.int64)) & 0xFFFFFFFF
    return kernels.checksum_pages(words, np.ascontiguousarray(blknos, dtype=np.int64), PD_CHECKSUM_WORD,
                                  int(PD_CHECKSUM_KEEP))


def checksum_page(page: bytes, blkno: int) -> int:
    """pg_checksum_page for one page image."""
    arr = np.frombuffer(page, dtype=np.uint8).reshape(1, -1)
    return int(checksum_pages(arr, blkno)[0])


def chunk_checksum_failures(chunk: np.ndarray, first: int) -> list[int]:
    """Global block numbers in the chunk whose stored checksum differs from pg_checksum_page
    (all-zero new pages carry none, and the computed value of an all-zero page is 0 as well)."""
    computed = checksum_pages(chunk, first)
    stored = chunk[:, 8].astype(np.uint16) | (chunk[:, 9].astype(np.uint16) << 8)
    return [int(first + i) for i in np.flatnonzero(computed != stored)]
