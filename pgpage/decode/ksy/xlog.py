# GENERATED FILE - DO NOT EDIT.
# Source: formats/xlog.ksy (sha256 d8f3d2efb0ec22bed489894f921a1a4540dccfee87479d9083b3fff8462d2fa0)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class Xlog(KaitaiStruct):
    """A WAL segment file (pg_wal/TTTTTTTTXXXXXXXXYYYYYYYY) is a run of XLOG_BLCKSZ (8 KB) pages. Every page
    starts with an XLogPageHeaderData; the first page of a segment with the long form
    (XLogLongPageHeaderData, XLP_LONG_HEADER) that also names the cluster (xlp_sysid), the segment size and
    the page size. Records (XLogRecord) start on MAXALIGN (8) boundaries, run over page and segment
    boundaries (a page whose first bytes continue a record says so with XLP_FIRST_IS_CONTRECORD and
    xlp_rem_len), and are laid out as:
    
      XLogRecord (24 bytes)
      XLogRecordBlockHeader ...                 one per block reference (id 0..XLR_MAX_BLOCK_ID), each followed by
        [XLogRecordBlockImageHeader             if BKPBLOCK_HAS_IMAGE
          [XLogRecordBlockCompressHeader]]      if the image has a hole and is compressed
        [RelFileNode]                           unless BKPBLOCK_SAME_REL
        BlockNumber
      [XLR_BLOCK_ID_ORIGIN, RepOriginId]
      [XLR_BLOCK_ID_TOPLEVEL_XID, TransactionId]   (14+)
      [XLogRecordDataHeaderShort | Long]        main data length
      block images and block data, in block-reference order
      main data
    
    None of the parts after XLogRecord is aligned. The layout of these structs is the same in every major
    10 to 18; what changed is the page magic (one per major), the meaning of the bimg_info bits (15 added
    lz4 and zstd), RelFileNode's name (RelFileLocator in 16) and the 14+ TOPLEVEL_XID id. Those version
    facts are in pgpage/decode/versions.py (WAL section).
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlogrecord.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/xlog_internal.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_14_STABLE/src/include/access/xlogrecord.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_10_STABLE/src/include/access/xlogrecord.h
    """

    class BimgInfo10(IntEnum):
        bkpimage_has_hole = 1
        bkpimage_is_compressed = 2
        bkpimage_apply = 4

    class BimgInfo15(IntEnum):
        bkpimage_has_hole = 1
        bkpimage_apply = 2
        bkpimage_compress_pglz = 4
        bkpimage_compress_lz4 = 8
        bkpimage_compress_zstd = 16

    class Bkpblock(IntEnum):
        bkpblock_fork_mask = 15
        bkpblock_has_image = 16
        bkpblock_has_data = 32
        bkpblock_will_init = 64
        bkpblock_same_rel = 128

    class BlockIds(IntEnum):
        xlr_max_block_id = 32
        xlr_block_id_toplevel_xid = 252
        xlr_block_id_origin = 253
        xlr_block_id_data_long = 254
        xlr_block_id_data_short = 255

    class XlpInfo(IntEnum):
        xlp_first_is_contrecord = 1
        xlp_long_header = 2
        xlp_bkp_removable = 4
        xlp_first_is_overwrite_contrecord = 8

    class XlrInfo(IntEnum):
        xlr_special_rel_update = 1
        xlr_check_consistency = 2
    def __init__(self, _io, _parent=None, _root=None):
        super(Xlog, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        pass


    def _fetch_instances(self):
        pass

    class BlockCompressHeader(KaitaiStruct):
        """follows the image header when the image has a hole and is compressed."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.BlockCompressHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.hole_length = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class BlockHeader(KaitaiStruct):
        """one block reference (SizeOfXLogRecordBlockHeader = 4)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.BlockHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.id = self._io.read_u1()
            self.fork_flags = self._io.read_u1()
            self.data_length = self._io.read_u2le()


        def _fetch_instances(self):
            pass


    class BlockImageHeader(KaitaiStruct):
        """follows a block header with BKPBLOCK_HAS_IMAGE (SizeOfXLogRecordBlockImageHeader = 5)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.BlockImageHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.length = self._io.read_u2le()
            self.hole_offset = self._io.read_u2le()
            self.bimg_info = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class DataHeaderLong(KaitaiStruct):
        """main data of 256 bytes or more."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.DataHeaderLong, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.id = self._io.read_u1()
            self.data_length = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class DataHeaderShort(KaitaiStruct):
        """main data shorter than 256 bytes."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.DataHeaderShort, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.id = self._io.read_u1()
            self.data_length = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class LongPageHeader(KaitaiStruct):
        """the first page of every segment file; MAXALIGNed size 40 (SizeOfXLogLongPHD)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.LongPageHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.std = Xlog.PageHeader(self._io, self, self._root)
            self.xlp_sysid = self._io.read_u8le()
            self.xlp_seg_size = self._io.read_u4le()
            self.xlp_xlog_blcksz = self._io.read_u4le()


        def _fetch_instances(self):
            pass
            self.std._fetch_instances()


    class PageHeader(KaitaiStruct):
        """the short page header, every page but a segment's first; MAXALIGNed size 24 (SizeOfXLogShortPHD)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.PageHeader, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xlp_magic = self._io.read_u2le()
            self.xlp_info = self._io.read_u2le()
            self.xlp_tli = self._io.read_u4le()
            self.xlp_pageaddr = self._io.read_u8le()
            self.xlp_rem_len = self._io.read_u4le()
            self.pad = self._io.read_bytes(4)


        def _fetch_instances(self):
            pass


    class Record(KaitaiStruct):
        """the fixed record header (SizeOfXLogRecord = 24)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.Record, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.xl_tot_len = self._io.read_u4le()
            self.xl_xid = self._io.read_u4le()
            self.xl_prev = self._io.read_u8le()
            self.xl_info = self._io.read_u1()
            self.xl_rmid = self._io.read_u1()
            self.pad = self._io.read_bytes(2)
            self.xl_crc = self._io.read_u4le()


        def _fetch_instances(self):
            pass


    class RelFileNode(KaitaiStruct):
        """the relation of a block reference (RelFileLocator from 16, same 12 bytes)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(Xlog.RelFileNode, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.spc_node = self._io.read_u4le()
            self.db_node = self._io.read_u4le()
            self.rel_node = self._io.read_u4le()


        def _fetch_instances(self):
            pass
