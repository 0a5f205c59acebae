# GENERATED FILE - DO NOT EDIT.
# Source: formats/pg_multixact.ksy (sha256 c2926354371b0893f8b90d4123ac580c669dd4dbc55d2a0271276fd4b0e132d2)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from enum import IntEnum


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgMultixact(KaitaiStruct):
    """A MultiXactId (a heap xmax with HEAP_XMAX_IS_MULTI) names a set of (xid, lock/update status)
    members.  Two SLRUs of 8192-byte pages hold them; pass `is_members` to say which kind of page
    this is (the bytes do not tell).
    
    offsets/: one MultiXactOffset (uint32) per MultiXactId, 2048 per page:
      page = multi / 2048, entry = multi % 2048, segment = page / 32, file offsets/%04X
      The members of multi m are the offsets [offset(m), offset(m + 1)); for the newest multi the
      end is pg_control's nextMultiOffset.  Offsets are uint32 and wrap around; offset 0 is never
      handed out as a start (the multixact that wraps starts at 1 and also owns the unused slot 0,
      whose xid reads as 0).  MultiXactIds wrap too, skipping 0 (FirstMultiXactId is 1).
    
    members/: groups of 20 bytes, 409 per page (12 bytes at the end of each page unused), each group
    4 flag bytes (one MultiXactStatus per member) followed by 4 TransactionIds:
      page  = offset / 1636                      (MULTIXACT_MEMBERS_PER_PAGE)
      group = (offset / 4) % 409, at byte group * 20
      flags byte  group * 20 + offset % 4,  xid at group * 20 + 4 + (offset % 4) * 4
      segment = page / 32, file members/%04X (up to 14078, so five hex digits past FFFF)
    
    Unchanged from 9.3 to 18.  PostgreSQL 17 and 18 keep the short "%04X" segment names for both
    directories.  (The development branch after 18 widens MultiXactOffset to 64 bits and switches
    members/ to 15-digit names; that layout is not described here.)
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/access/transam/multixact.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/access/transam/multixact.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/access/multixact.h
    """

    class MultiXactStatus(IntEnum):
        for_key_share = 0
        for_share = 1
        for_no_key_update = 2
        for_update = 3
        no_key_update = 4
        update = 5
    def __init__(self, is_members, _io, _parent=None, _root=None):
        super(PgMultixact, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self.is_members = is_members
        self._read()

    def _read(self):
        _on = self.is_members
        if _on == False:
            pass
            self.page = PgMultixact.OffsetsPage(self._io, self, self._root)
        elif _on == True:
            pass
            self.page = PgMultixact.MembersPage(self._io, self, self._root)


    def _fetch_instances(self):
        pass
        _on = self.is_members
        if _on == False:
            pass
            self.page._fetch_instances()
        elif _on == True:
            pass
            self.page._fetch_instances()

    class MemberGroup(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(PgMultixact.MemberGroup, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.flags = []
            for i in range(4):
                self.flags.append(KaitaiStream.resolve_enum(PgMultixact.MultiXactStatus, self._io.read_u1()))

            self.xids = []
            for i in range(4):
                self.xids.append(self._io.read_u4le())



        def _fetch_instances(self):
            pass
            for i in range(len(self.flags)):
                pass

            for i in range(len(self.xids)):
                pass



    class MembersPage(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(PgMultixact.MembersPage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.groups = []
            for i in range(409):
                self.groups.append(PgMultixact.MemberGroup(self._io, self, self._root))

            self.unused = self._io.read_bytes(12)


        def _fetch_instances(self):
            pass
            for i in range(len(self.groups)):
                pass
                self.groups[i]._fetch_instances()



    class OffsetsPage(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(PgMultixact.OffsetsPage, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.offsets = []
            for i in range(2048):
                self.offsets.append(self._io.read_u4le())



        def _fetch_instances(self):
            pass
            for i in range(len(self.offsets)):
                pass



    @property
    def flagbytes_per_group(self):
        if hasattr(self, '_m_flagbytes_per_group'):
            return self._m_flagbytes_per_group

        self._m_flagbytes_per_group = 4
        return getattr(self, '_m_flagbytes_per_group', None)

    @property
    def group_size(self):
        """20 bytes."""
        if hasattr(self, '_m_group_size'):
            return self._m_group_size

        self._m_group_size = self.members_per_group * 4 + self.flagbytes_per_group
        return getattr(self, '_m_group_size', None)

    @property
    def groups_per_page(self):
        """409."""
        if hasattr(self, '_m_groups_per_page'):
            return self._m_groups_per_page

        self._m_groups_per_page = self.page_size // self.group_size
        return getattr(self, '_m_groups_per_page', None)

    @property
    def members_per_group(self):
        """MULTIXACT_FLAGBYTES_PER_GROUP * MXACT_MEMBER_FLAGS_PER_BYTE (1)."""
        if hasattr(self, '_m_members_per_group'):
            return self._m_members_per_group

        self._m_members_per_group = 4
        return getattr(self, '_m_members_per_group', None)

    @property
    def members_per_page(self):
        """1636."""
        if hasattr(self, '_m_members_per_page'):
            return self._m_members_per_page

        self._m_members_per_page = self.groups_per_page * self.members_per_group
        return getattr(self, '_m_members_per_page', None)

    @property
    def offsets_per_page(self):
        """BLCKSZ / sizeof(MultiXactOffset)."""
        if hasattr(self, '_m_offsets_per_page'):
            return self._m_offsets_per_page

        self._m_offsets_per_page = self.page_size // 4
        return getattr(self, '_m_offsets_per_page', None)

    @property
    def page_size(self):
        if hasattr(self, '_m_page_size'):
            return self._m_page_size

        self._m_page_size = 8192
        return getattr(self, '_m_page_size', None)

    @property
    def pages_per_segment(self):
        if hasattr(self, '_m_pages_per_segment'):
            return self._m_pages_per_segment

        self._m_pages_per_segment = 32
        return getattr(self, '_m_pages_per_segment', None)
