"""Out-of-line TOAST values put back together (``access/common/detoast.c``, ``toast_internals.c``).

An external value is cut into chunks of TOAST_MAX_CHUNK_SIZE bytes (1996 with 8 KiB pages; pg_control
says) stored as rows ``(chunk_id oid, chunk_seq int4, chunk_data bytea)`` of the TOAST table named by
the pointer's ``va_toastrelid``, ``chunk_id`` = ``va_valueid``, ``chunk_seq`` from 0. Together they hold
``va_extsize`` bytes: the value itself (without its varlena header) or, when ``va_extsize <
va_rawsize - 4``, the compressed form: a 4-byte ``va_tcinfo`` word (raw size in its low 30 bits, the
method in its top 2 from 14 on) and the pglz or lz4 stream.

``reassemble`` checks what detoast checks (every chunk present once, in sequence, each of the expected
size) and returns the value's bytes, or a ``datum.Unreadable`` with a ``toast.*`` code.
"""
from __future__ import annotations

import struct

from pgpage.decode import datum
from pgpage.decode.datum import ToastPointer, Unreadable

TOAST_MAX_CHUNK_SIZE_8K = 1996


def reassemble(pointer: ToastPointer, chunks: dict[int, bytes], max_chunk: int = TOAST_MAX_CHUNK_SIZE_8K,
               duplicates: tuple[int, ...] = (), inflate: bool = True):
    """The content of an external value from its chunks ``{chunk_seq: chunk_data payload}``: bytes, or an
    Unreadable (``toast.chunk_missing``, ``toast.chunk_size``, ``toast.chunk_duplicate``,
    ``toast.chunk_extra``, ``toast.decompress``). A compressed value with ``inflate`` False: the compressed
    varlena detoast would inflate (its 4-byte header, va_tcinfo, the stream), for a caller that inflates it."""
    extsize = pointer.va_extsize
    where = f"TOAST value {pointer.va_valueid} in relation {pointer.va_toastrelid}"
    if duplicates:
        return Unreadable("toast.chunk_duplicate", f"{where}: chunk_seq {', '.join(map(str, duplicates))} "
                          "stored more than once")
    nchunks = (extsize + max_chunk - 1) // max_chunk
    missing = [s for s in range(nchunks) if s not in chunks]
    if missing:
        return Unreadable("toast.chunk_missing", f"{where}: {len(missing)} of {nchunks} chunks missing "
                          f"(chunk_seq {_span(missing)})")
    extra = sorted(s for s in chunks if not 0 <= s < nchunks)
    if extra:
        return Unreadable("toast.chunk_extra", f"{where}: chunk_seq {_span(extra)} beyond the {nchunks} chunks "
                          f"of {extsize} bytes")
    for seq in range(nchunks):
        want = max_chunk if seq < nchunks - 1 else extsize - max_chunk * (nchunks - 1)
        if len(chunks[seq]) != want:
            return Unreadable("toast.chunk_size", f"{where}: chunk {seq} holds {len(chunks[seq])} bytes, "
                              f"not {want}")
    data = b"".join(chunks[s] for s in range(nchunks))
    if not pointer.is_compressed:
        return data
    if len(data) < 4:
        return Unreadable("toast.decompress", f"{where}: compressed value shorter than its header")
    tcinfo = struct.unpack_from("<I", data)[0]
    rawsize = tcinfo & datum.VARLENA_EXTSIZE_MASK
    if rawsize != pointer.va_rawsize - datum.VARHDRSZ:
        return Unreadable("toast.decompress", f"{where}: stored raw size {rawsize} differs from the pointer's "
                          f"{pointer.va_rawsize - datum.VARHDRSZ}")
    # the reassembled varlena, as detoast builds it: a 4-byte compressed header, then va_tcinfo and the stream
    header = struct.pack("<I", ((len(data) + datum.VARHDRSZ) << 2) | 0x02)
    if not inflate:
        return header + data
    value = datum.varlena_payload(header + data)
    if isinstance(value, Unreadable):
        return Unreadable("toast.decompress", f"{where}: {value.message}", value.hex)
    return value


def _span(seqs: list[int]) -> str:
    return ", ".join(map(str, seqs[:5])) + (f" and {len(seqs) - 5} more" if len(seqs) > 5 else "")
