"""Transaction and multixact ids against the horizons: get_xid_status's and check_mxid_in_range's bounds
(pg_control's next and oldest ids, pg_class's relfrozenxid and relminmxid), amcheck's wording of a
violation, and a multixact lookup that never leaves pg_control's range."""
from __future__ import annotations

import numpy as np

from pgpage.analysis.verify.context import VerifyContext
from pgpage.findings import ERROR, INFO, WARNING, Finding

FIRST_NORMAL_XID = 3
XID_OK, XID_INVALID, XID_IN_FUTURE, XID_BEFORE_OLDEST, XID_BEFORE_RELMIN = range(5)
_U32 = 1 << 32


def _full_xids(xids: np.ndarray, next_full: int) -> np.ndarray:
    """FullTransactionIdFromXidAndCtx: each 32-bit xid placed in the epoch that makes it nearest
    before (or at) the next full xid, clamped to FirstNormalTransactionId before epoch 0."""
    x = xids.astype(np.int64) & 0xFFFFFFFF
    next32 = next_full & 0xFFFFFFFF
    diff = ((next32 - x + (1 << 31)) % _U32) - (1 << 31)     # (int32)(next_xid - xid)
    full = next_full - diff
    clamp = (diff > 0) & ((next_full - FIRST_NORMAL_XID) < diff)
    full[clamp] = FIRST_NORMAL_XID
    return full


def xid_bounds(xids: np.ndarray, ctx: VerifyContext) -> np.ndarray:
    """get_xid_status's bounds verdict per xid: XID_OK, XID_INVALID (0), XID_IN_FUTURE,
    XID_BEFORE_OLDEST (pg_control's oldestXid), XID_BEFORE_RELMIN (relfrozenxid)."""
    x = xids.astype(np.int64)
    out = np.full(len(x), XID_OK, dtype=np.int8)
    out[x == 0] = XID_INVALID
    if ctx.next_full_xid is None:
        return out
    normal = x >= FIRST_NORMAL_XID
    full = _full_xids(x, ctx.next_full_xid)
    future = normal & (full >= max(ctx.next_full_xid, ctx.xid_reach or 0))   # (since_checkpoint: not future)
    out[future] = XID_IN_FUTURE
    rest = normal & ~future
    if ctx.oldest_xid is not None and ctx.oldest_xid >= FIRST_NORMAL_XID:
        oldest = int(_full_xids(np.array([ctx.oldest_xid]), ctx.next_full_xid)[0])
        before = rest & (full < oldest)
        out[before] = XID_BEFORE_OLDEST
        rest &= ~before
    if ctx.relfrozenxid is not None and ctx.relfrozenxid >= FIRST_NORMAL_XID:
        relmin = int(_full_xids(np.array([ctx.relfrozenxid]), ctx.next_full_xid)[0])
        out[rest & (full < relmin)] = XID_BEFORE_RELMIN
    return out


def _precedes32(a: np.ndarray, b: int) -> np.ndarray:
    """MultiXactIdPrecedes / TransactionIdPrecedes: (int32)(a - b) < 0."""
    d = ((a.astype(np.int64) - b + (1 << 31)) % _U32) - (1 << 31)
    return d < 0


def mxid_bounds(mxids: np.ndarray, ctx: VerifyContext) -> np.ndarray:
    """check_mxid_in_range per multixact id (same verdict codes as xid_bounds)."""
    m = mxids.astype(np.int64)
    out = np.full(len(m), XID_OK, dtype=np.int8)
    out[m == 0] = XID_INVALID
    valid = m != 0
    if ctx.relminmxid:
        bad = valid & _precedes32(m, ctx.relminmxid)
        out[bad] = XID_BEFORE_RELMIN
        valid &= ~bad
    if ctx.oldest_multi:
        bad = valid & _precedes32(m, ctx.oldest_multi)
        out[bad] = XID_BEFORE_OLDEST
        valid &= ~bad
    if ctx.next_multi:
        out[valid & ~_precedes32(m, ctx.multi_reach or ctx.next_multi)] = XID_IN_FUTURE
    return out


def since_checkpoint(xids: np.ndarray, ctx: VerifyContext, multi: bool = False) -> np.ndarray:
    """Ids at or past pg_control's next one but within what pg_xact (pg_multixact/offsets for ``multi``) holds
    (``VerifyContext.xid_reach``): handed out since the last checkpoint of a running or crashed server. Normal
    there, and told once per relation (``since_checkpoint_finding``) rather than per tuple."""
    x = xids.astype(np.int64)
    if multi:
        if not (ctx.multi_reach and ctx.next_multi):
            return np.zeros(len(x), dtype=bool)
        return (x != 0) & ~_precedes32(x, ctx.next_multi) & _precedes32(x, ctx.multi_reach)
    if not ctx.xid_reach or ctx.next_full_xid is None:
        return np.zeros(len(x), dtype=bool)
    full = _full_xids(x, ctx.next_full_xid)
    return (x >= FIRST_NORMAL_XID) & (full >= ctx.next_full_xid) & (full < ctx.xid_reach)


def since_checkpoint_finding(ctx: VerifyContext, tuples: int) -> Finding:
    """The one note per relation for its tuples with ids ``since_checkpoint`` (``tuples`` of them)."""
    nf = ctx.next_full_xid or 0
    return ctx.finding("heap.xid.since_checkpoint", f"{tuples} tuples written since the last checkpoint (xmin or"
                       f" xmax from {_epoch_xid(nf)}, pg_control's next xid, up to {_epoch_xid(ctx.xid_reach or nf)},"
                       f" as far as pg_xact reaches; multixacts from {ctx.next_multi} up to"
                       f" {ctx.multi_reach or ctx.next_multi}): the server was not shut down cleanly", severity=INFO,
                       actual=tuples)


def _epoch_xid(full: int) -> str:
    return f"{full >> 32}:{full & 0xFFFFFFFF}"


def xid_message(what: str, xid: int, verdict: int, ctx: VerifyContext) -> tuple[str, str]:
    """(code suffix, amcheck's wording) for an xid bounds violation."""
    nf = ctx.next_full_xid or 0
    if verdict == XID_IN_FUTURE:
        return "in_future", f"{what} {xid} equals or exceeds next valid transaction ID {_epoch_xid(nf)}"
    if verdict == XID_BEFORE_OLDEST:
        old = int(_full_xids(np.array([ctx.oldest_xid]), nf)[0])
        return "before_oldest", f"{what} {xid} precedes oldest valid transaction ID {_epoch_xid(old)}"
    rel = int(_full_xids(np.array([ctx.relfrozenxid]), nf)[0])
    return "before_relfrozenxid", f"{what} {xid} precedes relation freeze threshold {_epoch_xid(rel)}"


def future_severity(ctx: VerifyContext, suffix: str) -> str:
    """An xid newer than pg_control's next xid is only corruption when pg_control is current."""
    return ERROR if ctx.consistent or suffix != "in_future" else WARNING


def bounded_multi_lookup(ctx: VerifyContext):
    """ctx.multi_update_xid, asked only about multixacts inside pg_control's range (-1 for others),
    so that garbage never sends the member lookup off into SLRU pages that do not exist."""
    if ctx.multi_update_xid is None:
        return None

    def lookup(multis: np.ndarray) -> np.ndarray:
        m = np.asarray(multis).astype(np.int64)
        out = np.full(len(m), -1, dtype=np.int64)
        ok = mxid_bounds(m, ctx) == XID_OK
        if ok.any():
            try:
                out[ok] = ctx.multi_update_xid(m[ok].astype(np.uint32))
            except Exception:  # pg_multixact itself damaged: the updater stays unknown
                pass
        return out
    return lookup


def clog_missing(xids: np.ndarray, clog) -> np.ndarray:
    """Per xid: pg_xact (a ``ClogArray``) does not hold the page with its status (segment absent or short)."""
    x = np.asarray(xids).astype(np.int64) & 0xFFFFFFFF
    seg = x // clog.xacts_per_segment
    byte = (x % clog.xacts_per_segment) // clog.XACTS_PER_BYTE
    known = seg < len(clog.seg_start)
    at = np.minimum(seg, max(len(clog.seg_start) - 1, 0))
    start = np.where(known, clog.seg_start[at], -1) if len(clog.seg_start) else np.full(len(x), -1)
    length = np.where(known, clog.seg_len[at], 0) if len(clog.seg_start) else np.zeros(len(x), dtype=np.int64)
    return (start < 0) | (byte >= length)


def clog_missing_message(xid: int, clog) -> str:
    """What PostgreSQL says reading the status of ``xid`` from a pg_xact without its page (SlruReportIOError)."""
    seg = xid // clog.xacts_per_segment
    name = f"pg_xact/{seg:04X}"
    if seg >= len(clog.seg_start) or clog.seg_start[seg] < 0:
        return f'could not access status of transaction {xid}: Could not open file "{name}": No such file or directory.'
    page_bytes = clog.xacts_per_segment // clog.XACTS_PER_BYTE // 32   # SLRU_PAGES_PER_SEGMENT pages of BLCKSZ
    offset = (xid % clog.xacts_per_segment) // clog.XACTS_PER_BYTE // page_bytes * page_bytes
    return (f'could not access status of transaction {xid}: Could not read from file "{name}" at offset {offset}:'
            " read too few bytes.")
