"""TOAST pointers (verify_heapam's check_tuple_attribute): the on-disk tag, sane sizes and compression,
and the table's own TOAST relation named. Only tuples flagged HEAP_HASEXTERNAL are walked."""
from __future__ import annotations

from pgpage.analysis.verify.context import VerifyContext
from pgpage.findings import Finding

VARLENA_SIZE_LIMIT = 0x3FFFFFFF
VALID_COMPRESSION_IDS = (0, 1)   # TOAST_PGLZ_COMPRESSION_ID, TOAST_LZ4_COMPRESSION_ID


def toast_pointer_findings(chunk, ctx: VerifyContext, sel, tpage, tblk, tlp, toff, tlen, hoff, natts, hasnull) -> list[Finding]:
    """The on-disk TOAST pointers of the selected tuples: an on-disk tag, sane sizes and compression,
    and the table's own TOAST relation named. Columns are walked with ``deform_tuple``."""
    from pgpage.decode.datum import EXTERNAL, VARTAG_ONDISK
    from pgpage.decode.deform import SIZEOF_HEAP_TUPLE_HEADER, deform_tuple  # (only for tuples with TOAST pointers)
    attrs = ctx.columns()
    if not attrs:
        return []
    out = []
    for j in sel:
        if natts[j] > len(attrs):
            continue          # too_many_attributes says so; the columns cannot be walked
        page, off, length, h = int(tpage[j]), int(toff[j]), int(tlen[j]), int(hoff[j])
        data = chunk[page, off:off + length].tobytes()
        d = deform_tuple(data, h, int(natts[j]), attrs, null_bitmap=data[SIZEOF_HEAP_TUPLE_HEADER:h] if hasnull[j] else None)
        blk, lp = tblk[j], tlp[j]
        for at in d.attrs:
            v = at.varlena
            if v is None or v.kind != EXTERNAL:
                if at.error is not None and at.error.code == "datum.varlena.bad_vartag":
                    out.append(ctx.finding("heap.toast.bad_vartag", f"attribute {at.attnum} ({at.name}): toasted"
                                           f" attribute has unexpected TOAST tag ({at.error.message})", blk, lp))
                continue
            if v.vartag != VARTAG_ONDISK or v.toast is None:
                out.append(ctx.finding("heap.toast.bad_vartag", f"attribute {at.attnum} ({at.name}): toasted attribute"
                                       f" has unexpected TOAST tag {v.vartag}", blk, lp, expected=VARTAG_ONDISK,
                                       actual=v.vartag))
                continue
            tp = v.toast
            if tp.va_rawsize > VARLENA_SIZE_LIMIT:
                out.append(ctx.finding("heap.toast.rawsize_too_large", f"toast value {tp.va_valueid} rawsize"
                                       f" {tp.va_rawsize} exceeds limit {VARLENA_SIZE_LIMIT}", blk, lp,
                                       actual=tp.va_rawsize))
            if tp.is_compressed and (tp.va_extinfo >> 30) not in VALID_COMPRESSION_IDS:
                out.append(ctx.finding("heap.toast.bad_compression", f"toast value {tp.va_valueid} has invalid"
                                       f" compression method id {tp.va_extinfo >> 30}", blk, lp,
                                       actual=tp.va_extinfo >> 30))
            if ctx.toast_oid is None:
                continue
            if not ctx.toast_oid:
                out.append(ctx.finding("heap.toast.no_toast_relation", f"toast value {tp.va_valueid} is external but"
                                       " relation has no toast relation", blk, lp, actual=tp.va_toastrelid))
            elif tp.va_toastrelid != ctx.toast_oid:
                out.append(ctx.finding("heap.toast.wrong_relation", f"toast value {tp.va_valueid} names TOAST relation"
                                       f" {tp.va_toastrelid}, the table's TOAST relation is {ctx.toast_oid}", blk, lp,
                                       expected=ctx.toast_oid, actual=tp.va_toastrelid))
            elif not ctx.toast_exists:
                out.append(ctx.finding("heap.toast.relation_missing", f"toast value {tp.va_valueid} names TOAST"
                                       f" relation {tp.va_toastrelid}, which pg_class does not hold", blk, lp,
                                       actual=tp.va_toastrelid))
    return out
