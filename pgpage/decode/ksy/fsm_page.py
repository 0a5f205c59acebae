# GENERATED FILE - DO NOT EDIT.
# Source: formats/fsm_page.ksy (sha256 6c1139ed564b6d57ffb05e20b42092927a7f81fcda10d158f2ff17e09f8db678)
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

class FsmPage(KaitaiStruct):
    """One page of a relation's free space map fork: the standard 24-byte page header, then
    FSMPageData {int fp_next_slot; uint8 fp_nodes[]}. fp_nodes is a binary max-tree stored
    as an array (children of node i are 2i+1 and 2i+2): NodesPerPage = page size - 24 - 4 =
    8164 bytes at 8 KiB, of which the first NonLeafNodesPerPage = page size / 2 - 1 = 4095
    are internal nodes and the remaining LeafNodesPerPage = SlotsPerFSMPage = 4069 are leaves
    (leaf for slot s = fp_nodes[4095 + s]). Each node is a free-space category:
    free bytes / FSM_CAT_STEP (32); 255 means at least MaxFSMRequestSize.
    
    Parse with `FsmPage.from_bytes(page)`; all sizes follow the length of the buffer.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/storage/fsm_internals.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/storage/freespace/freespace.c
    """

    class FsmConstants(IntEnum):
        fsm_tree_depth = 3
        fsm_cat_step = 32
        fsm_max_category = 255
    def __init__(self, _io, _parent=None, _root=None):
        super(FsmPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.header = pg_page.PgPage.PageHeader(self._io)
        self.fp_next_slot = self._io.read_s4le()


    def _fetch_instances(self):
        pass
        self.header._fetch_instances()
        _ = self.fp_nodes
        if hasattr(self, '_m_fp_nodes'):
            pass

        _ = self.leaf_nodes
        if hasattr(self, '_m_leaf_nodes'):
            pass

        _ = self.non_leaf_nodes
        if hasattr(self, '_m_non_leaf_nodes'):
            pass


    @property
    def fp_nodes(self):
        """All nodes of the tree (non-leaf nodes first, then leaves)."""
        if hasattr(self, '_m_fp_nodes'):
            return self._m_fp_nodes

        _pos = self._io.pos()
        self._io.seek(28)
        self._m_fp_nodes = self._io.read_bytes(self._io.size() - 28)
        self._io.seek(_pos)
        return getattr(self, '_m_fp_nodes', None)

    @property
    def leaf_nodes(self):
        """fp_nodes[NonLeafNodesPerPage ..], one category per slot (heap block or lower-level FSM page)."""
        if hasattr(self, '_m_leaf_nodes'):
            return self._m_leaf_nodes

        _pos = self._io.pos()
        self._io.seek(28 + (self._io.size() // 2 - 1))
        self._m_leaf_nodes = self._io.read_bytes((self._io.size() - 28) - (self._io.size() // 2 - 1))
        self._io.seek(_pos)
        return getattr(self, '_m_leaf_nodes', None)

    @property
    def leaf_nodes_per_page(self):
        """LeafNodesPerPage = SlotsPerFSMPage (4069 at 8 KiB)."""
        if hasattr(self, '_m_leaf_nodes_per_page'):
            return self._m_leaf_nodes_per_page

        self._m_leaf_nodes_per_page = (self._io.size() - 28) - (self._io.size() // 2 - 1)
        return getattr(self, '_m_leaf_nodes_per_page', None)

    @property
    def nodes_per_page(self):
        """NodesPerPage (8164 at 8 KiB)."""
        if hasattr(self, '_m_nodes_per_page'):
            return self._m_nodes_per_page

        self._m_nodes_per_page = self._io.size() - 28
        return getattr(self, '_m_nodes_per_page', None)

    @property
    def non_leaf_nodes(self):
        """fp_nodes[0 .. NonLeafNodesPerPage - 1]; fp_nodes[0] is the root (the page's maximum)."""
        if hasattr(self, '_m_non_leaf_nodes'):
            return self._m_non_leaf_nodes

        _pos = self._io.pos()
        self._io.seek(28)
        self._m_non_leaf_nodes = self._io.read_bytes(self._io.size() // 2 - 1)
        self._io.seek(_pos)
        return getattr(self, '_m_non_leaf_nodes', None)

    @property
    def non_leaf_nodes_per_page(self):
        """NonLeafNodesPerPage (4095 at 8 KiB)."""
        if hasattr(self, '_m_non_leaf_nodes_per_page'):
            return self._m_non_leaf_nodes_per_page

        self._m_non_leaf_nodes_per_page = self._io.size() // 2 - 1
        return getattr(self, '_m_non_leaf_nodes_per_page', None)
