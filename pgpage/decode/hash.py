"""Hash index pages as pageinspect's hashfuncs.c shows them, from the page image alone.

One page a person looks at (``decode_hash_page``, through the generated parser): ``hash_page_type``,
``hash_page_stats`` and ``hash_page_items`` (bucket and overflow pages), ``hash_metapage_info`` (block 0);
``HashBitmap.info`` gives ``hash_bitmap_info`` of a block, which needs the metapage and a bitmap page.
Whole indexes are read a chunk of pages at a time (``decode_hash_chunk``: numpy, offsets from the layout).
A value that cannot be read is None with a finding; pageinspect's refusals (a function for another kind of
page) are simply absent keys.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from kaitaistruct import KaitaiStructError

from pgpage.decode.ksy.constants import (HASH_MAGIC, HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE, HASH_SPLITPOINT_PHASE_BITS,
                                         HASHO_PAGE_ID, LH_BITMAP_PAGE, LH_BUCKET_PAGE, LH_META_PAGE,
                                         LH_OVERFLOW_PAGE, LH_PAGE_TYPE, SIZEOF_ItemIdData, SizeOfPageHeaderData)
from pgpage.decode.ksy.hash_page import HashPage
from pgpage.decode.ksy.layouts import LAYOUTS
from pgpage.decode.pagebase import format_tid
from pgpage.decode.vector import column, decode_headers, line_pointers_of, u4_at
from pgpage.decode.flags import LP_DEAD

PAGE_TYPE_NAMES = {LH_META_PAGE: "metapage", LH_OVERFLOW_PAGE: "overflow", LH_BUCKET_PAGE: "bucket",
                   LH_BITMAP_PAGE: "bitmap"}
OPAQUE = "hash_page::hash_page_opaque_data"
OPAQUE_SIZE = LAYOUTS[OPAQUE]["size"]
TUPLE = "hash_page::hash_index_tuple"
TUPLE_SIZE = LAYOUTS[TUPLE]["size"]
HASH_KEY_OFFSET = LAYOUTS[TUPLE]["fields"]["hash_key"][0]
HASH_SPLITPOINT_PHASE_MASK = (1 << HASH_SPLITPOINT_PHASE_BITS) - 1
BITS_PER_MAP = 32   # the bitmap is an array of uint32 (bitmap_words)
META = LAYOUTS["hash_page::hash_meta_page_data"]
META_AT = SizeOfPageHeaderData    # HashPageGetMeta: PageGetContents (hash_page.ksy's ``meta`` instance)
STRUCT_CODES = {"u2": "H", "u4": "I", "f8": "d"}
# hash_metapage_info's columns: pageinspect's name -> HashMetaPageData's field
META_COLUMNS = {name: f"hashm_{name}" for name in (
    "magic", "version", "ntuples", "ffactor", "bsize", "bmsize", "bmshift", "maxbucket", "highmask", "lowmask",
    "ovflpoint", "firstfree", "nmaps", "procid", "spares", "mapp")}


def page_type_name(hasho_flag: int) -> str:
    """hash_page_type of a page that is not new (a new page is "unused")."""
    return PAGE_TYPE_NAMES.get(hasho_flag & LH_PAGE_TYPE, "unused")


def free_size(lower: int, upper: int) -> int:
    """PageGetFreeSpace: the room between pd_lower and pd_upper less one line pointer."""
    space = upper - lower
    return 0 if space < SIZEOF_ItemIdData else space - SIZEOF_ItemIdData


def decode_hash_page(parsed_page, raw: bytes, ctx, page: dict, find) -> None:
    """Add pageinspect's hash functions' answers for this page to ``page`` (as decode_page builds it)."""
    from pgpage.decode.otheram import decode_other_am_page
    decode_other_am_page(parsed_page, raw, "hash", page, find)
    parsed = HashPage.from_bytes(raw)
    opaque = parsed.opaque
    kind = page["hash_page_type"] = page_type_name(opaque.hasho_flag)
    h = parsed_page.header
    if kind == "metapage":
        page["hash_metapage_info"] = metapage_info(parsed, find)
    if kind not in ("bucket", "overflow"):
        return
    lps = page["items"]
    page["hash_page_stats"] = {
        "live_items": sum(1 for lp in lps if lp["lp_flags"] != LP_DEAD),
        "dead_items": sum(1 for lp in lps if lp["lp_flags"] == LP_DEAD),
        "page_size": h.page_size_declared, "free_size": free_size(h.pd_lower, h.pd_upper),
        "hasho_prevblkno": opaque.hasho_prevblkno, "hasho_nextblkno": opaque.hasho_nextblkno,
        "hasho_bucket": opaque.hasho_bucket, "hasho_flag": opaque.hasho_flag, "hasho_page_id": opaque.hasho_page_id,
    }
    items = []
    for lp in lps:
        off, length = lp["lp_off"], lp["lp_len"]
        if length < TUPLE_SIZE or off < SizeOfPageHeaderData or off + TUPLE_SIZE > len(raw) - OPAQUE_SIZE:
            find("hash.item.bad_length", f"item {lp['lp']}: {length} bytes at offset {off} hold no hash index tuple",
                 item=lp["lp"], actual=length)
            items.append({"itemoffset": lp["lp"], "ctid": None, "data": None})
            continue
        t = HashPage.HashIndexTuple.from_bytes(raw[off:off + TUPLE_SIZE])
        items.append({"itemoffset": lp["lp"], "ctid": format_tid(t.t_tid.block_number, t.t_tid.ip_posid),
                      "data": t.hash_key})
    page["hash_page_items"] = items


def metapage_info(parsed: HashPage, find) -> dict | None:
    try:
        m = parsed.meta
    except (KaitaiStructError, EOFError) as e:
        find("hash.meta.bad_magic", f"block 0 is flagged LH_META_PAGE but holds no hash metapage: {e}")
        return None
    return {name: getattr(m, field) for name, field in META_COLUMNS.items()}


# ------------------------------------------------------------------ bucket and overflow block numbers
def total_buckets(splitpoint_phase: int) -> int:
    """_hash_get_totalbuckets: the buckets allocated up to and including this splitpoint phase."""
    if splitpoint_phase < HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE:
        return 1 << splitpoint_phase
    group = HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE + (
        (splitpoint_phase - HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE) >> HASH_SPLITPOINT_PHASE_BITS)
    phases = ((splitpoint_phase - HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE) & HASH_SPLITPOINT_PHASE_MASK) + 1
    return (1 << (group - 1)) + ((1 << (group - 1)) >> HASH_SPLITPOINT_PHASE_BITS) * phases


def spare_index(num_bucket: int) -> int:
    """_hash_spareindex: the splitpoint phase a bucket count falls in."""
    group = max(num_bucket - 1, 0).bit_length()   # ceil(log2(num_bucket))
    if group < HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE:
        return group
    return (HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE
            + ((group - HASH_SPLITPOINT_GROUPS_WITH_ONE_PHASE) << HASH_SPLITPOINT_PHASE_BITS)
            + (((num_bucket - 1) >> (group - (HASH_SPLITPOINT_PHASE_BITS + 1))) & HASH_SPLITPOINT_PHASE_MASK))


def bucket_to_blkno(meta: dict, bucket: int) -> int:
    """BUCKET_TO_BLKNO: the primary page of a bucket (overflow pages of earlier splitpoints sit before it)."""
    spares = meta["spares"]
    return bucket + (spares[spare_index(bucket + 1) - 1] if bucket else 0) + 1


def ovflblkno_to_bitno(meta: dict, blkno: int) -> int | None:
    """_hash_ovflblkno_to_bitno: the overflow page's bit in the bitmaps, None where no overflow page can be."""
    bitno = int(ovflblknos_to_bitnos(meta, np.array([blkno], dtype=np.int64))[0])
    return None if bitno < 0 else bitno


def ovflblknos_to_bitnos(meta: dict, blknos: np.ndarray) -> np.ndarray:
    """_hash_ovflblkno_to_bitno of each block of ``blknos`` (int64), -1 where no overflow page can be: the
    splitpoints walked once for all of them."""
    spares = meta["spares"]
    out = np.full(len(blknos), -1, dtype=np.int64)
    open_ = np.ones(len(blknos), dtype=bool)      # not yet past its splitpoint
    for i in range(1, min(meta["ovflpoint"], len(spares) - 1) + 1):
        buckets = total_buckets(i)
        open_ &= blknos > buckets
        bitnum = blknos - buckets
        hit = open_ & (spares[i - 1] < bitnum) & (bitnum <= spares[i])
        out[hit] = bitnum[hit] - 1
        open_ &= ~hit
    return out


def hashkey_to_bucket(hashkey, maxbucket: int, highmask: int, lowmask: int):
    """_hash_hashkey2bucket (ints or numpy arrays)."""
    bucket = hashkey & highmask
    return np.where(bucket > maxbucket, bucket & lowmask, bucket) if isinstance(bucket, np.ndarray) else (
        bucket & lowmask if bucket > maxbucket else bucket)


def read_metapage(raw) -> dict | None:
    """hash_metapage_info's fields of block 0's bytes, at the layout's offsets (HashPage's ``meta``, without
    parsing the page); None when they hold no hash metapage (too short, or not HASH_MAGIC)."""
    raw = bytes(raw)
    if len(raw) < META_AT + META["size"]:
        return None
    out = {}
    for name, field in META_COLUMNS.items():
        off, kind = META["fields"][field]
        if isinstance(kind, tuple):      # ("array", element, count)
            _, element, count = kind
            out[name] = list(struct.unpack_from(f"<{count}{STRUCT_CODES[element]}", raw, META_AT + off))
        else:
            out[name] = struct.unpack_from(f"<{STRUCT_CODES[kind]}", raw, META_AT + off)[0]
    return out if out["magic"] == HASH_MAGIC else None


class HashBitmap:
    """hash_bitmap_info of any block of one hash index: its metapage and bitmap pages read once, through
    ``read_block``."""

    def __init__(self, read_block):
        self.read_block = read_block
        self._meta: dict | None = None
        self._words: dict[int, list[int]] = {}

    @property
    def meta(self) -> dict | None:
        if self._meta is None:
            self._meta = read_metapage(self.read_block(0)) or {}
        return self._meta or None

    def info(self, blkno: int) -> tuple[dict | None, str | None]:
        """(hash_bitmap_info's row, None) or (None, pageinspect's error text)."""
        meta = self.meta
        invalid = f"invalid overflow block number {blkno}"
        if meta is None:
            return None, "block 0 is not a hash metapage"
        if blkno == 0 or blkno in meta["mapp"][:meta["nmaps"]]:
            return None, invalid
        if not bmshift_ok(meta):
            return None, f"hashm_bmshift {meta['bmshift']} does not fit hashm_bmsize {meta['bmsize']}"
        bitno = ovflblkno_to_bitno(meta, blkno)
        if bitno is None:
            return None, invalid
        page, bit = bitno >> meta["bmshift"], bitno & ((1 << meta["bmshift"]) - 1)
        if page >= meta["nmaps"]:
            return None, invalid
        mapblk = meta["mapp"][page]
        words = self.words(mapblk)
        if words is None or bit // BITS_PER_MAP >= len(words):
            return None, f"block {mapblk} is not a hash bitmap page"
        return {"bitmapblkno": mapblk, "bitmapbit": bit,
                "bitstatus": bool(words[bit // BITS_PER_MAP] & (1 << (bit % BITS_PER_MAP)))}, None

    def words(self, blkno: int) -> list[int] | None:
        """The bitmap words of a bitmap page (None when the block is not one)."""
        if blkno not in self._words:
            raw = self.read_block(blkno)
            ok = len(raw) > OPAQUE_SIZE and int.from_bytes(raw[-2:], "little") == HASHO_PAGE_ID and \
                int.from_bytes(raw[-4:-2], "little") & LH_PAGE_TYPE == LH_BITMAP_PAGE
            self._words[blkno] = bitmap_words(raw) if ok else None
        return self._words[blkno]


def bmshift_ok(meta: dict) -> bool:
    """hashm_bmshift is log2 of the bits in a bitmap page (_hash_init_metabuffer: log2(hashm_bmsize) + 3)."""
    return 3 <= meta["bmshift"] < 32 and meta["bmsize"] == 1 << (meta["bmshift"] - 3)


def bitmap_words(raw: bytes) -> list[int]:
    """A bitmap page's words (HashPage's ``bitmap_words``: uint32 from PageGetContents to the special space)."""
    count = (len(raw) - META_AT - OPAQUE_SIZE) // 4
    return list(struct.unpack_from(f"<{count}I", raw, META_AT))


def add_bitmap_info(page: dict, bitmap: HashBitmap) -> None:
    """``hash_bitmap_info`` of the page's block where pageinspect answers (an overflow page's bit)."""
    row, _ = bitmap.info(page["blkno"])
    if row is not None:
        page["hash_bitmap_info"] = row


# ------------------------------------------------------------------ whole indexes, a chunk at a time
@dataclass
class HashChunk:
    """The hash facts of a chunk of pages (index ``i`` is block ``first_blkno + i``)."""
    first_blkno: int
    is_new: np.ndarray
    special_ok: np.ndarray     # a 16-byte special space ending in HASHO_PAGE_ID
    page_type: np.ndarray      # hasho_flag & LH_PAGE_TYPE
    flag: np.ndarray
    prevblkno: np.ndarray
    nextblkno: np.ndarray
    bucket: np.ndarray
    live: np.ndarray
    dead: np.ndarray
    exact_free: np.ndarray     # PageGetExactFreeSpace
    item_page: np.ndarray      # per item of the bucket and overflow pages (those the sieve did not pass): its page
    item_lp: np.ndarray
    item_ok: np.ndarray        # the item holds a whole hash index tuple
    item_hashkey: np.ndarray


def decode_hash_chunk(chunk: np.ndarray, first_blkno: int, sieve: bool = False,
                      meta: dict | None = None) -> HashChunk:
    """The chunk's hash facts. ``sieve``: its items (``item_*``) only of the bucket and overflow pages the compiled
    sieve cannot pass, those whose hash codes are out of order or, with the index's ``meta``, map to another
    bucket (the verifier's item rules: the items of the others have nothing to report)."""
    from pgpage.decode.clib import KernelUnavailable
    from pgpage.decode.kernels import LP_COUNT_COLUMNS, hash_sieve, lp_counts
    bs = chunk.shape[1]
    h = decode_headers(chunk)
    base = bs - OPAQUE_SIZE
    col = lambda f: column(chunk, OPAQUE, f, base).astype(np.int64)  # noqa: E731
    flag, page_id, bucket = col("hasho_flag"), col("hasho_page_id"), col("hasho_bucket")
    special_ok = ~h.is_new & (bs - h.special.astype(np.int64) == OPAQUE_SIZE) & (page_id == HASHO_PAGE_ID)
    page_type = np.where(special_ok, flag & LH_PAGE_TYPE, 0)
    with_items = special_ok & ((page_type == LH_BUCKET_PAGE) | (page_type == LH_OVERFLOW_PAGE))
    n = chunk.shape[0]
    passed = np.zeros(n, dtype=bool)
    try:
        pages = np.ascontiguousarray(chunk)
        if sieve:
            masks = [meta["maxbucket"], meta["highmask"], meta["lowmask"]] if meta else [0, 0, 0]
            passed = hash_sieve(pages, with_items, h.nlp, bucket, [base, HASH_KEY_OFFSET, TUPLE_SIZE,
                                                                  int(bool(meta)), *masks])
        counts = dict(zip(LP_COUNT_COLUMNS, lp_counts(pages, h.nlp).T))
        dead = np.where(with_items, counts["dead"], 0)
        live = np.where(with_items, counts["normal"] + counts["other"], 0)
    except KernelUnavailable:      # no C compiler: every item read with numpy
        passed, live, dead = np.zeros(n, dtype=bool), None, None
    rest = np.flatnonzero(with_items & ~passed)
    lps = line_pointers_of(chunk, h, rest)
    page, lp, off, length = rest[lps.page], lps.lp, lps.off, lps.len
    if live is None:
        dead_item = lps.flags == LP_DEAD
        dead = np.bincount(page[dead_item], minlength=n)
        live = np.bincount(page[~dead_item], minlength=n)
    ok = (length >= TUPLE_SIZE) & (off >= SizeOfPageHeaderData) & (off + TUPLE_SIZE <= base)
    at = np.where(ok, off + HASH_KEY_OFFSET, 0)
    hashkey = u4_at(chunk.reshape(-1), page * bs + at)
    exact = np.maximum(h.upper.astype(np.int64) - h.lower.astype(np.int64), 0)
    return HashChunk(first_blkno, h.is_new, special_ok, page_type, flag, col("hasho_prevblkno"),
                     col("hasho_nextblkno"), bucket, live, dead, exact, page, lp, ok, hashkey)
