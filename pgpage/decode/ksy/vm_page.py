# GENERATED FILE - DO NOT EDIT.
# Source: formats/vm_page.ksy (sha256 b7c8213a8c424bc2d3f7ba09a1dff5e14e7e8b148b7cd539726aad9614a6417a)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import pg_page
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class VmPage(KaitaiStruct):
    """One page of a relation's visibility map fork: the standard 24-byte page header (no line
    pointers; PageInit leaves pd_lower at 24 and pd_upper = pd_special = page size), then a
    bitmap of MAPSIZE =
    page size - MAXALIGN(SizeOfPageHeaderData) = 8168 bytes at 8 KiB with
    BITS_PER_HEAPBLOCK = 2 bits per heap block, 4 heap blocks per byte, so one VM page
    covers 8168 * 4 = 32672 heap blocks.
    
    For heap block b: VM block = b / HEAPBLOCKS_PER_PAGE, byte = 24 + (b % HEAPBLOCKS_PER_PAGE) / 4,
    shift = (b % 4) * 2; bit 0 (<< shift) = VISIBILITYMAP_ALL_VISIBLE, bit 1 = VISIBILITYMAP_ALL_FROZEN.
    All-frozen implies all-visible; the heap page mirrors all-visible in PD_ALL_VISIBLE.
    
    Parse with `VmPage.from_bytes(page)`. `map_bytes` is the raw bitmap; `entries` decodes it
    as one vm_byte (4 heap blocks) per byte, which is slow and meant for a person looking
    at one page; a scan should take the bit positions from vm_byte in layouts.py.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/access/visibilitymapdefs.h
    
    
    .. seealso::
       MAPSIZE, HEAPBLK_TO_MAPBYTE, HEAPBLK_TO_OFFSET - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/heap/visibilitymap.c
    """

    class VisibilitymapFlags(IntEnum):
        visibilitymap_all_visible = 1
        visibilitymap_all_frozen = 2
        visibilitymap_valid_bits = 3

    class VmConstants(IntEnum):
        bits_per_heapblock = 2
    def __init__(self, _io, _parent=None, _root=None):
        super(VmPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.header = pg_page.PgPage.PageHeader(self._io)


    def _fetch_instances(self):
        pass
        self.header._fetch_instances()
        _ = self.entries
        if hasattr(self, '_m_entries'):
            pass
            for i in range(len(self._m_entries)):
                pass
                self._m_entries[i]._fetch_instances()


        _ = self.map_bytes
        if hasattr(self, '_m_map_bytes'):
            pass


    class VmByte(KaitaiStruct):
        """One bitmap byte, the 2-bit status of 4 consecutive heap blocks (lowest bits = first block)."""
        def __init__(self, _io, _parent=None, _root=None):
            super(VmPage.VmByte, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.all_visible_0 = self._io.read_bits_int_le(1) != 0
            self.all_frozen_0 = self._io.read_bits_int_le(1) != 0
            self.all_visible_1 = self._io.read_bits_int_le(1) != 0
            self.all_frozen_1 = self._io.read_bits_int_le(1) != 0
            self.all_visible_2 = self._io.read_bits_int_le(1) != 0
            self.all_frozen_2 = self._io.read_bits_int_le(1) != 0
            self.all_visible_3 = self._io.read_bits_int_le(1) != 0
            self.all_frozen_3 = self._io.read_bits_int_le(1) != 0


        def _fetch_instances(self):
            pass


    @property
    def entries(self):
        """The bitmap, one vm_byte per byte (entries[i] covers heap blocks 4i .. 4i+3 of this page)."""
        if hasattr(self, '_m_entries'):
            return self._m_entries

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_entries = []
        for i in range(self._io.size() - 24):
            self._m_entries.append(VmPage.VmByte(self._io, self, self._root))

        self._io.seek(_pos)
        return getattr(self, '_m_entries', None)

    @property
    def heap_blocks_per_page(self):
        """HEAPBLOCKS_PER_PAGE (32672 at 8 KiB)."""
        if hasattr(self, '_m_heap_blocks_per_page'):
            return self._m_heap_blocks_per_page

        self._m_heap_blocks_per_page = (self._io.size() - 24) * 4
        return getattr(self, '_m_heap_blocks_per_page', None)

    @property
    def map_bytes(self):
        """The raw bitmap (PageGetContents)."""
        if hasattr(self, '_m_map_bytes'):
            return self._m_map_bytes

        _pos = self._io.pos()
        self._io.seek(24)
        self._m_map_bytes = self._io.read_bytes(self._io.size() - 24)
        self._io.seek(_pos)
        return getattr(self, '_m_map_bytes', None)

    @property
    def map_size(self):
        """MAPSIZE, bytes of bitmap on this page (8168 at 8 KiB)."""
        if hasattr(self, '_m_map_size'):
            return self._m_map_size

        self._m_map_size = self._io.size() - 24
        return getattr(self, '_m_map_size', None)
