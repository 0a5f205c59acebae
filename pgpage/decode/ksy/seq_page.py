# GENERATED FILE - DO NOT EDIT.
# Source: formats/seq_page.ksy (sha256 b5095b1495f3153a4e1ae61894121a7254d883f23d394a718bc64414ff316b84)
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

class SeqPage(KaitaiStruct):
    """The single page of a sequence relation (relkind 'S'): a heap-style page whose special
    space holds sequence_magic {uint32 magic = SEQ_MAGIC 0x1717} (special size MAXALIGN(4) = 8,
    so pd_special = page size - 8), and one heap tuple (line pointer 1) whose user data is
    FormData_pg_sequence_data {int64 last_value; int64 log_cnt; bool is_called} (PostgreSQL 10+).
    
    Parse with `SeqPage.from_bytes(page)`; the sequence values are
    `SeqPage.FormDataPgSequenceData.from_bytes(HeapTuple.from_bytes(item).data)`.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/commands/sequence.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/commands/sequence.h
    """

    class SeqConstants(IntEnum):
        seq_magic = 5911
    def __init__(self, _io, _parent=None, _root=None):
        super(SeqPage, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self._read()

    def _read(self):
        self.page = pg_page.PgPage(self._io)


    def _fetch_instances(self):
        pass
        self.page._fetch_instances()
        _ = self.special
        if hasattr(self, '_m_special'):
            pass
            self._m_special._fetch_instances()


    class FormDataPgSequenceData(KaitaiStruct):
        """User data of the sequence tuple (at t_hoff), 17 bytes + padding."""
        def __init__(self, _io, _parent=None, _root=None):
            super(SeqPage.FormDataPgSequenceData, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.last_value = self._io.read_s8le()
            self.log_cnt = self._io.read_s8le()
            self.is_called = self._io.read_u1()


        def _fetch_instances(self):
            pass


    class SequenceMagic(KaitaiStruct):
        def __init__(self, _io, _parent=None, _root=None):
            super(SeqPage.SequenceMagic, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self._read()

        def _read(self):
            self.magic = self._io.read_u4le()
            if not self.magic == 5911:
                raise kaitaistruct.ValidationNotEqualError(5911, self.magic, self._io, u"/types/sequence_magic/seq/0")


        def _fetch_instances(self):
            pass


    @property
    def special(self):
        """sequence_magic at pd_special (fails validation of magic if this is not a sequence page)."""
        if hasattr(self, '_m_special'):
            return self._m_special

        if self._io.size() >= 32:
            pass
            _pos = self._io.pos()
            self._io.seek(self._io.size() - 8)
            self._m_special = SeqPage.SequenceMagic(self._io, self, self._root)
            self._io.seek(_pos)

        return getattr(self, '_m_special', None)
