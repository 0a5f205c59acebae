"""TOAST pointers and their chunks, as verify_heapam checks them (check_tuple_attribute's external
branch, then check_toasted_attribute and check_toast_tuple with ``check_toast => true``): the on-disk
pointer sane, the tuple flagged HEAP_HASEXTERNAL, the table's own TOAST relation named, and the value's
chunks present, in sequence and each of the expected size. Messages are amcheck's; codes are the
``heap.toast.*`` ones of the pointer and the ``toast.*`` ones ``decode.toast.reassemble`` uses for a
value that cannot be put back together."""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.decode.datum import (VARATT_EXTERNAL, VARHDRSZ, VARHDRSZ_EXTERNAL, VARLENA_EXTSIZE_BITS,
                                 VARLENA_EXTSIZE_MASK, VARTAG_ONDISK, ToastPointer)
from pgpage.findings import Finding

VARLENA_SIZE_LIMIT = 0x3FFFFFFF
VALID_COMPRESSION_IDS = (0, 1)   # TOAST_PGLZ_COMPRESSION_ID, TOAST_LZ4_COMPRESSION_ID
_FIELDS = ("va_rawsize", "va_extinfo", "va_valueid", "va_toastrelid")
# varatt_external as a numpy record (datum's struct format: i is int32, I uint32)
EXTERNAL_RECORD = np.dtype([(name, {"i": "<i4", "I": "<u4"}[c]) for name, c in zip(_FIELDS, VARATT_EXTERNAL[1:])])
ONDISK_POINTER_SIZE = VARHDRSZ_EXTERNAL + EXTERNAL_RECORD.itemsize   # an on-disk pointer's bytes, with its header
# chunk sizes ctx.toast_chunks gives for chunk_data it cannot measure
CHUNK_NULL = -1                  # chunk_data is NULL
CHUNK_BAD_HEADER = -2            # neither a 4-byte plain nor a 1-byte varlena header


def pointer_findings(ctx: VerifyContext, tp, blk: int, lp: int, attnum: int, hasexternal: bool,
                     prunable: bool) -> list[Finding]:
    """One on-disk TOAST pointer ``tp`` (a datum.ToastPointer) of attribute ``attnum`` (1-based) of
    tuple (blk, lp). ``prunable``: the tuple's deleter committed (amcheck does not follow the pointers
    of such a tuple: vacuum may have removed the chunks)."""
    out = []

    def report(code, msg, **kw):
        out.append(ctx.finding(code, msg, blk, lp, attnum=attnum, **kw))
    if tp.va_rawsize > VARLENA_SIZE_LIMIT:
        report("heap.toast.rawsize_too_large", f"toast value {tp.va_valueid} rawsize {tp.va_rawsize}"
               f" exceeds limit {VARLENA_SIZE_LIMIT}", actual=tp.va_rawsize)
    if tp.is_compressed and (tp.va_extinfo >> 30) not in VALID_COMPRESSION_IDS:
        report("heap.toast.bad_compression", f"toast value {tp.va_valueid} has invalid compression method id"
               f" {tp.va_extinfo >> 30}", actual=tp.va_extinfo >> 30)
    if not hasexternal:
        report("heap.toast.external_flag_missing", f"toast value {tp.va_valueid} is external but tuple header"
               " flag HEAP_HASEXTERNAL not set")
        return out
    if ctx.toast_oid is None:
        return out
    if not ctx.toast_oid:
        report("heap.toast.no_toast_relation", f"toast value {tp.va_valueid} is external but relation has no"
               " toast relation", actual=tp.va_toastrelid)
    elif tp.va_toastrelid != ctx.toast_oid:   # amcheck looks the value up in the table's TOAST relation anyway
        report("heap.toast.wrong_relation", f"toast value {tp.va_valueid} names TOAST relation"
               f" {tp.va_toastrelid}, the table's TOAST relation is {ctx.toast_oid}",
               expected=ctx.toast_oid, actual=tp.va_toastrelid)
    elif not ctx.toast_exists:
        report("heap.toast.relation_missing", f"toast value {tp.va_valueid} names TOAST relation"
               f" {tp.va_toastrelid}, which pg_class does not hold", actual=tp.va_toastrelid)
    if ctx.toast_oid and ctx.toast_chunks is not None and not prunable:
        seqs, sizes = ctx.toast_chunks(tp.va_valueid)
        for code, msg in chunk_problems(tp.va_valueid, tp.va_extsize, seqs, sizes, ctx.toast_max_chunk):
            report(code, msg)
    return out


def pointers_findings(ctx: VerifyContext, flat: np.ndarray, at: np.ndarray, blk: np.ndarray, lp: np.ndarray,
                      attnum: np.ndarray, hasexternal: np.ndarray, prunable: np.ndarray) -> dict[int, list[Finding]]:
    """``pointer_findings`` of many on-disk TOAST pointers at once, each at byte ``at`` of ``flat`` (its 2-byte
    header, VARTAG_ONDISK's), by the pointer's index among them, for those with findings: the pointers no rule
    can fault (nearly all) are told apart with arrays, their chunks through ``ctx.toast_chunks_clean``; the
    others are judged one by one, as ``pointer_findings`` does."""
    out: dict[int, list[Finding]] = {}
    if not len(at):
        return out
    p = read_pointers(flat, at)
    rawsize = p["va_rawsize"].astype(np.int64)
    extinfo = p["va_extinfo"].astype(np.int64)
    extsize = extinfo & VARLENA_EXTSIZE_MASK
    compressed = extsize < rawsize - VARHDRSZ
    clean = (rawsize <= VARLENA_SIZE_LIMIT) & ~(compressed & ~np.isin(extinfo >> VARLENA_EXTSIZE_BITS,
                                                                    VALID_COMPRESSION_IDS)) & hasexternal
    if ctx.toast_oid is not None:
        clean &= bool(ctx.toast_oid) & ctx.toast_exists & (p["va_toastrelid"] == ctx.toast_oid)
        follow = clean & ~prunable & (ctx.toast_chunks is not None)
        if follow.any():
            clean[follow] = ctx.toast_chunks_clean(p["va_valueid"][follow], extsize[follow]) \
                if ctx.toast_chunks_clean is not None else False
    for k in np.flatnonzero(~clean).tolist():
        tp = ToastPointer(VARTAG_ONDISK, int(rawsize[k]), int(extinfo[k]), int(p["va_valueid"][k]),
                          int(p["va_toastrelid"][k]))
        found = pointer_findings(ctx, tp, int(blk[k]), int(lp[k]), int(attnum[k]), bool(hasexternal[k]),
                                 bool(prunable[k]))
        if found:
            out[k] = found
    return out


def read_pointers(flat: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The varatt_external fields (va_rawsize, va_extinfo, va_valueid, va_toastrelid: a numpy record each) of the
    on-disk TOAST pointers at bytes ``at`` of ``flat`` (their 2-byte headers)."""
    size = EXTERNAL_RECORD.itemsize
    return flat[(at + VARHDRSZ_EXTERNAL)[:, None] + np.arange(size)].copy().view(EXTERNAL_RECORD).reshape(-1)


def chunk_problems(valueid: int, extsize: int, seqs, sizes, max_chunk: int) -> list[tuple[str, str]]:
    """(code, amcheck's message) for the chunks of one value, given as they come out of the TOAST index
    (ascending chunk_seq) with their chunk_data sizes: check_toasted_attribute's and check_toast_tuple's
    rules in their order."""
    out = []
    last = (extsize - 1) // max_chunk if extsize else -1
    expected = 0
    for seq, size in zip(seqs, sizes):
        seq, size = int(seq), int(size)
        if seq != expected:   # a gap: chunks are missing; a repeat: a chunk is stored twice
            out.append(("toast.chunk_missing" if seq > expected else "toast.chunk_duplicate",
                        f"toast value {valueid} index scan returned chunk {seq} when expecting chunk {expected}"))
        expected = seq + 1
        if size == CHUNK_NULL:
            out.append(("toast.chunk_unreadable", f"toast value {valueid} chunk {seq} has null data"))
            continue
        if size == CHUNK_BAD_HEADER:
            out.append(("toast.chunk_unreadable", f"toast value {valueid} chunk {seq} has invalid varlena header"))
            continue
        if seq > last:
            out.append(("toast.chunk_extra", f"toast value {valueid} chunk {seq} follows last expected chunk {last}"))
            continue
        want = max_chunk if seq < last else extsize - last * max_chunk
        if size != want:
            out.append(("toast.chunk_size", f"toast value {valueid} chunk {seq} has size {size}, but expected"
                        f" size {want}"))
    if not len(seqs):
        out.append(("toast.chunk_missing", f"toast value {valueid} not found in toast table"))
    elif expected <= last:
        out.append(("toast.chunk_missing", f"toast value {valueid} was expected to end at chunk {last}, but ended"
                    f" while expecting chunk {expected}"))
    return out
