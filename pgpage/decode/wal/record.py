"""One WAL record's bytes -> a typed ``Record``: header, block references, main data (``DecodeXLogRecord``).

The byte layouts are formats/xlog.ksy's (through the generated ``layouts``); what changed between majors
(the meaning of the image flags, the top-level xid block) comes from decode/versions.py. Page headers are
decoded here too (``page_header``); putting records together across pages and segments is
passes/wal.py's work, finding segment files storage/wal.py's.

A record is kept whole (``Record.raw``, its header included) and its parts are offsets into it, so that
the resource-manager decoders (``decode/wal/heap.py``...: one module per resource manager family) and later
readers of tuple data or page images
take their bytes from one place: ``record.main_data``, ``record.block_data(ref)``, ``record.image(ref)``.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from pgpage.decode import versions
from pgpage.decode.control import format_lsn
from pgpage.decode.ksy.layouts import ENUMS, LAYOUTS

_STRUCT_CODES = {"u1": "B", "u2": "H", "u4": "I", "u8": "Q", "s1": "b", "s2": "h", "s4": "i", "s8": "q", "f8": "d"}


def unpacker(type_name: str) -> struct.Struct:
    """A little-endian struct.Struct of a fixed-size .ksy type, its padding skipped; fields in seq order."""
    fmt, pos = "<", 0
    for name, (off, kind) in LAYOUTS[type_name]["fields"].items():
        if isinstance(kind, tuple) and kind[0] == "struct":
            continue                      # an embedded struct: its flattened fields ("std.xlp_magic") follow
        if off > pos:
            fmt += f"{off - pos}x"
        if isinstance(kind, tuple):       # ("bytes", n): padding
            fmt += f"{kind[1]}x"
            pos = off + kind[1]
        else:
            fmt += _STRUCT_CODES[kind]
            pos = off + int(kind[1])
    size = LAYOUTS[type_name]["size"]
    if size > pos:
        fmt += f"{size - pos}x"
    unpacker = struct.Struct(fmt)
    assert unpacker.size == size, type_name
    return unpacker


PAGE_HEADER = unpacker("xlog::page_header")             # xlp_magic, xlp_info, xlp_tli, xlp_pageaddr, xlp_rem_len
LONG_PAGE_HEADER = unpacker("xlog::long_page_header")   # the same, then xlp_sysid, xlp_seg_size, xlp_xlog_blcksz
RECORD_HEADER = unpacker("xlog::record")                # xl_tot_len, xl_xid, xl_prev, xl_info, xl_rmid, xl_crc
BLOCK_HEADER = unpacker("xlog::block_header")           # id, fork_flags, data_length
IMAGE_HEADER = unpacker("xlog::block_image_header")     # length, hole_offset, bimg_info
COMPRESS_HEADER = unpacker("xlog::block_compress_header")
REL_FILE_NODE = unpacker("xlog::rel_file_node")
SIZE_OF_SHORT_PHD = PAGE_HEADER.size
SIZE_OF_LONG_PHD = LONG_PAGE_HEADER.size
SIZE_OF_RECORD = RECORD_HEADER.size
CRC_OFFSET = LAYOUTS["xlog::record"]["fields"]["xl_crc"][0]
XLOG_BLCKSZ = 8192          # XLOG_BLCKSZ of every build pgpage reads (long headers say so; checked there)
MAXALIGN = 8

_XLP = {v: k for k, v in ENUMS["xlog::xlp_info"].items()}
XLP_FIRST_IS_CONTRECORD = _XLP["XLP_FIRST_IS_CONTRECORD"]
XLP_LONG_HEADER = _XLP["XLP_LONG_HEADER"]
XLP_ALL_FLAGS = sum(_XLP.values())
_IDS = {v: k for k, v in ENUMS["xlog::block_ids"].items()}
XLR_MAX_BLOCK_ID = _IDS["XLR_MAX_BLOCK_ID"]
XLR_BLOCK_ID_DATA_SHORT, XLR_BLOCK_ID_DATA_LONG = _IDS["XLR_BLOCK_ID_DATA_SHORT"], _IDS["XLR_BLOCK_ID_DATA_LONG"]
XLR_BLOCK_ID_ORIGIN, XLR_BLOCK_ID_TOPLEVEL_XID = _IDS["XLR_BLOCK_ID_ORIGIN"], _IDS["XLR_BLOCK_ID_TOPLEVEL_XID"]
_BKP = {v: k for k, v in ENUMS["xlog::bkpblock"].items()}
BKPBLOCK_FORK_MASK = _BKP["BKPBLOCK_FORK_MASK"]
BKPBLOCK_WILL_INIT = _BKP["BKPBLOCK_WILL_INIT"]
BKPBLOCK_HAS_IMAGE, BKPBLOCK_HAS_DATA = _BKP["BKPBLOCK_HAS_IMAGE"], _BKP["BKPBLOCK_HAS_DATA"]
BKPBLOCK_SAME_REL = _BKP["BKPBLOCK_SAME_REL"]
BKPIMAGE_10 = {v: k for k, v in ENUMS["xlog::bimg_info_10"].items()}
BKPIMAGE_15 = {v: k for k, v in ENUMS["xlog::bimg_info_15"].items()}
FORK_NAMES = ("main", "fsm", "vm", "init")        # ForkNumber 0..3 (common/relpath.c forkNames)


def offsets(data: bytes, at: int, n: int) -> tuple[int, ...]:
    """``n`` OffsetNumbers (uint16) of ``data`` from ``at``."""
    return struct.unpack_from(f"<{n}H", data, at)


def array_text(items) -> str:
    """rmgrdesc_utils.c's array_desc of plain numbers: ``[1, 2, 3]``."""
    return "[" + ", ".join(str(i) for i in items) + "]"


def tf(flag) -> str:
    """A bool as the rmgrdesc routines print it with ``%c``: T or F."""
    return "T" if flag else "F"


def maxalign(n: int) -> int:
    return (n + MAXALIGN - 1) & ~(MAXALIGN - 1)


class RecordError(ValueError):
    """The record's bytes do not decode (DecodeXLogRecord's "invalid ..." errors): a finding, not a crash."""


@dataclass(frozen=True)
class PageHeader:
    magic: int
    info: int
    tli: int
    pageaddr: int
    rem_len: int
    sysid: int | None = None          # long header only
    seg_size: int | None = None
    xlog_blcksz: int | None = None

    @property
    def size(self) -> int:
        return SIZE_OF_LONG_PHD if self.info & XLP_LONG_HEADER else SIZE_OF_SHORT_PHD


def page_header(buf, offset: int = 0) -> PageHeader:
    """The header of the WAL page at ``offset`` of ``buf`` (long when XLP_LONG_HEADER says so and room is)."""
    magic, info, tli, pageaddr, rem_len = PAGE_HEADER.unpack_from(buf, offset)
    if info & XLP_LONG_HEADER and len(buf) - offset >= SIZE_OF_LONG_PHD:
        _, _, _, _, _, sysid, seg_size, blcksz = LONG_PAGE_HEADER.unpack_from(buf, offset)
        return PageHeader(magic, info, tli, pageaddr, rem_len, sysid, seg_size, blcksz)
    return PageHeader(magic, info, tli, pageaddr, rem_len)


@dataclass
class BlockRef:
    """One block reference, as pg_get_wal_block_info shows it."""
    block_id: int
    fork_flags: int
    spc: int
    db: int
    rel: int
    block: int
    data_length: int
    image_length: int = 0            # bytes of image stored in the record (bimg_len)
    hole_offset: int = 0
    hole_length: int = 0
    bimg_info: int = 0
    has_image: bool = False
    apply_image: bool = False
    compression: str | None = None   # "pglz", "lz4", "zstd" when the image is compressed
    image_offset: int = 0            # offsets into Record.raw
    data_offset: int = 0

    @property
    def fork(self) -> str:
        n = self.fork_flags & BKPBLOCK_FORK_MASK
        return FORK_NAMES[n] if n < len(FORK_NAMES) else str(n)

    @property
    def relfilenode(self) -> str:
        return f"{self.spc}/{self.db}/{self.rel}"

    def image_flags(self, major: int) -> list[str]:
        names = BKPIMAGE_15 if major >= versions.BKPIMAGE_COMPRESS_METHODS_SINCE else BKPIMAGE_10
        return [name for name, bit in names.items() if self.bimg_info & bit]


@dataclass
class Record:
    lsn: int
    end_lsn: int
    prev_lsn: int
    xid: int
    info: int
    rmid: int
    crc: int
    raw: bytes
    blocks: list[BlockRef] = field(default_factory=list)
    main_data_offset: int = 0
    main_data_length: int = 0
    origin: int | None = None
    toplevel_xid: int | None = None

    @property
    def length(self) -> int:
        return len(self.raw)

    @property
    def fpi_length(self) -> int:
        return sum(b.image_length for b in self.blocks)

    @property
    def main_data(self) -> bytes:
        return self.raw[self.main_data_offset:self.main_data_offset + self.main_data_length]

    def block_data(self, ref: BlockRef) -> bytes:
        return self.raw[ref.data_offset:ref.data_offset + ref.data_length]

    def image(self, ref: BlockRef) -> bytes:
        """The stored image bytes (hole removed, compressed if ``ref.compression``)."""
        return self.raw[ref.image_offset:ref.image_offset + ref.image_length]

    def block(self, block_id: int) -> BlockRef | None:
        for b in self.blocks:
            if b.block_id == block_id:
                return b
        return None


def record_header(buf, offset: int = 0) -> tuple[int, int, int, int, int, int]:
    """(xl_tot_len, xl_xid, xl_prev, xl_info, xl_rmid, xl_crc) at ``offset``."""
    return RECORD_HEADER.unpack_from(buf, offset)


def record_crc_input(raw: bytes) -> tuple[bytes, bytes]:
    """The two pieces the record CRC covers, in order: the bytes after the header, then the header up to xl_crc."""
    return raw[SIZE_OF_RECORD:], raw[:CRC_OFFSET]


def decode_record(raw: bytes, lsn: int, end_lsn: int, major: int) -> Record:
    """Split a whole record (header included, CRC already checked) into its parts, as DecodeXLogRecord does;
    raises ``RecordError`` saying what is wrong when the parts do not add up to ``xl_tot_len``."""
    tot_len, xid, prev, info, rmid, crc = RECORD_HEADER.unpack_from(raw, 0)
    rec = Record(lsn, end_lsn, prev, xid, info, rmid, crc, raw)
    since15 = major >= versions.BKPIMAGE_COMPRESS_METHODS_SINCE
    bimg = BKPIMAGE_15 if since15 else BKPIMAGE_10
    has_hole, apply = bimg["BKPIMAGE_HAS_HOLE"], bimg["BKPIMAGE_APPLY"]
    methods = ((bimg["BKPIMAGE_COMPRESS_PGLZ"], "pglz"), (bimg["BKPIMAGE_COMPRESS_LZ4"], "lz4"),
               (bimg["BKPIMAGE_COMPRESS_ZSTD"], "zstd")) if since15 else ((bimg["BKPIMAGE_IS_COMPRESSED"], "pglz"),)
    pos, end = SIZE_OF_RECORD, tot_len
    datatotal = 0
    last = None                       # (spc, db, rel) of the previous reference, for BKPBLOCK_SAME_REL
    prev_id = -1

    def need(n: int) -> None:
        if pos + n > end:
            raise RecordError(f"record at {format_lsn(lsn)} is too short for its headers")

    while end - pos > datatotal:
        need(1)
        block_id = raw[pos]
        if block_id == XLR_BLOCK_ID_DATA_SHORT:
            need(2)
            rec.main_data_length = raw[pos + 1]
            pos += LAYOUTS["xlog::data_header_short"]["size"]
            datatotal += rec.main_data_length
            break
        if block_id == XLR_BLOCK_ID_DATA_LONG:
            need(5)
            rec.main_data_length = struct.unpack_from("<I", raw, pos + 1)[0]
            pos += LAYOUTS["xlog::data_header_long"]["size"]
            datatotal += rec.main_data_length
            break
        if block_id == XLR_BLOCK_ID_ORIGIN:
            need(3)
            rec.origin = struct.unpack_from("<H", raw, pos + 1)[0]
            pos += 3
            continue
        if block_id == XLR_BLOCK_ID_TOPLEVEL_XID and major >= versions.TOPLEVEL_XID_BLOCK_SINCE:
            need(5)
            rec.toplevel_xid = struct.unpack_from("<I", raw, pos + 1)[0]
            pos += 5
            continue
        if block_id > XLR_MAX_BLOCK_ID or block_id <= prev_id:
            raise RecordError(f"invalid block_id {block_id} at {format_lsn(lsn)}")
        prev_id = block_id
        need(BLOCK_HEADER.size)
        _, fork_flags, data_length = BLOCK_HEADER.unpack_from(raw, pos)
        pos += BLOCK_HEADER.size
        has_data = bool(fork_flags & BKPBLOCK_HAS_DATA)
        if has_data != (data_length > 0):
            raise RecordError(f"BKPBLOCK_HAS_DATA {'set' if has_data else 'not set'}, but data length is "
                              f"{data_length} at {format_lsn(lsn)}")
        datatotal += data_length
        ref = BlockRef(block_id, fork_flags, 0, 0, 0, 0, data_length)
        if fork_flags & BKPBLOCK_HAS_IMAGE:
            need(IMAGE_HEADER.size)
            ref.image_length, ref.hole_offset, ref.bimg_info = IMAGE_HEADER.unpack_from(raw, pos)
            pos += IMAGE_HEADER.size
            ref.has_image = True
            ref.apply_image = bool(ref.bimg_info & apply)
            ref.compression = next((name for bit, name in methods if ref.bimg_info & bit), None)
            if ref.bimg_info & has_hole:
                if ref.compression:
                    need(COMPRESS_HEADER.size)
                    ref.hole_length = COMPRESS_HEADER.unpack_from(raw, pos)[0]
                    pos += COMPRESS_HEADER.size
                else:
                    ref.hole_length = XLOG_BLCKSZ - ref.image_length
            datatotal += ref.image_length
            with_hole = bool(ref.bimg_info & has_hole)
            if (with_hole and (ref.hole_offset == 0 or ref.hole_length == 0)) or (
                    not with_hole and (ref.hole_offset != 0 or ref.hole_length != 0)) or (
                    not ref.compression and not with_hole and ref.image_length != XLOG_BLCKSZ):
                raise RecordError(f"invalid full-page image (length {ref.image_length}, hole offset "
                                  f"{ref.hole_offset}, hole length {ref.hole_length}) at {format_lsn(lsn)}")
        if fork_flags & BKPBLOCK_SAME_REL:
            if last is None:
                raise RecordError(f"BKPBLOCK_SAME_REL set but no previous rel at {format_lsn(lsn)}")
            ref.spc, ref.db, ref.rel = last
        else:
            need(REL_FILE_NODE.size)
            ref.spc, ref.db, ref.rel = last = REL_FILE_NODE.unpack_from(raw, pos)
            pos += REL_FILE_NODE.size
        need(4)
        ref.block = struct.unpack_from("<I", raw, pos)[0]
        pos += 4
        rec.blocks.append(ref)
    if end - pos != datatotal:
        raise RecordError(f"record at {format_lsn(lsn)}: its parts' lengths ({pos} + {datatotal}) do not add up "
                          f"to xl_tot_len {tot_len}")
    for ref in rec.blocks:           # images and data follow the headers in block order
        if ref.has_image:
            ref.image_offset = pos
            pos += ref.image_length
        if ref.data_length:
            ref.data_offset = pos
            pos += ref.data_length
    rec.main_data_offset = pos
    return rec


class ZstdError(ValueError):
    """zstd data that does not decompress."""


def zstd_decompress(src: bytes, size: int) -> bytes | None:
    """A zstd frame (ZSTD_compress's, as RestoreBlockImage reads it) through the optional ``zstandard`` package;
    None when it is not installed."""
    try:
        import zstandard
    except ImportError:
        return None
    try:
        return zstandard.ZstdDecompressor().decompress(src, max_output_size=size)
    except zstandard.ZstdError as e:
        raise ZstdError(str(e)) from None


def page_image(rec: Record, ref: BlockRef) -> bytes:
    """The page as the full-page image of ``ref`` holds it (RestoreBlockImage): decompressed, the hole filled
    with zeros. Raises ``RecordError`` when the image does not decompress to a page."""
    from pgpage.decode.datum import PglzError, lz4_decompress, pglz_decompress
    if not ref.has_image:
        raise RecordError(f"block {ref.block_id} of the record at {format_lsn(rec.lsn)} has no image")
    stored = rec.image(ref)
    size = XLOG_BLCKSZ - ref.hole_length
    try:
        if ref.compression == "pglz":
            data = pglz_decompress(stored, size)
        elif ref.compression == "lz4":
            data = lz4_decompress(stored, size)
            if data is None:
                raise RecordError("the image is lz4-compressed and the lz4 package is not installed")
        elif ref.compression == "zstd":
            data = zstd_decompress(stored, size)
            if data is None:
                raise RecordError("the image is zstd-compressed and the zstandard package is not installed "
                                  "(pip install zstandard)")
        else:
            data = stored
    except (PglzError, ValueError, ZstdError) as e:
        raise RecordError(f"the image of block {ref.block_id} at {format_lsn(rec.lsn)} does not decompress: {e}") \
            from None
    if len(data) != size:
        raise RecordError(f"the image of block {ref.block_id} at {format_lsn(rec.lsn)} is {len(data)} bytes, "
                          f"expected {size}")
    return bytes(data[:ref.hole_offset]) + bytes(ref.hole_length) + bytes(data[ref.hole_offset:])
