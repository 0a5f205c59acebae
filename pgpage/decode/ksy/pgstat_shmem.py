# GENERATED FILE - DO NOT EDIT.
# Source: formats/pgstat_shmem.ksy (sha256 6710e8709e6947e4339e696d46a93040a2bdcd879207656a9ada90afadf1af66)
# Produced by formats/generate.py with kaitai-struct-compiler 0.11.0 (npm, pinned).
# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.
# This is a generated file! Please edit source .ksy file and use kaitai-struct-compiler to rebuild
# type: ignore

import kaitaistruct
from kaitaistruct import KaitaiStruct, KaitaiStream, BytesIO
from . import pgstat_tab_entry


if getattr(kaitaistruct, 'API_VERSION', (0, 9)) < (0, 11):
    raise Exception("Incompatible Kaitai Struct Python API: 0.11 or later is required, but you have %s" % (kaitaistruct.__version__))

class PgstatShmem(KaitaiStruct):
    """From PostgreSQL 15 the cumulative statistics live in shared memory and the checkpointer writes
    them, at a clean shutdown, to pg_stat/pgstat.stat (pgstat_write_statsfile): the format id, the
    fixed-numbered statistics (archiver, bgwriter, checkpointer, 16+ I/O, SLRU, WAL: written one
    after the other with no marker in 15-17, each as 'F' + PgStat_Kind + data in 18; not decoded
    here, only framed), then one entry per statistics object: 'S' + PgStat_HashKey (kind, dboid,
    objoid; 18: objid is uint64) + the kind's stats struct, or 'N' + kind + NameData (replication
    slots, by name) + stats, and 'E' at the end.  No padding between the pieces (write_chunk).
    
      major  format id    fixed part                                  key  db entry  relation
      15     0x01A5BCA7   808 = 136 + 32 + 56 + 512 + 72               12   240       168
      16     0x01A5BCAC   15152 = 136 + 32 + 56 + 14344 (I/O) + 512 + 72  12  248       184
      17     0x01A5BCAC   17216 = 136 + 32 + 72 + 16392 (I/O) + 512 + 72  12  248       184
      18     0x01A5BCB7   'F' entries: 136, 32, 88, 51848, 512, 40        16   264       216
    
    Kinds framed (pgstat_kind.h's numbers, the same in 15-18): 1 database, 2 relation, 3 function,
    4 replication slot ('N', by slot name: PgStat_StatReplSlotEntry, 136 bytes in 15, which still
    has its unused NameData slotname, 72 in 16-18), 5 subscription ('S', dboid 0:
    PgStat_StatSubEntry, 24 bytes in 15-17, 80 in 18 with its 7 conflict counters), and 18's
    fixed kinds.  The sizes were checked on real 15, 16, 17 and 18 servers with a logical slot and
    a subscription (the file parses to its 'E').  Another kind (18's custom kinds of extensions) has
    a size this parser cannot know: its entry ends the parse (known = false), and the caller says so.
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/backend/utils/activity/pgstat.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/utils/pgstat_internal.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_17_STABLE/src/backend/utils/activity/pgstat.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/backend/utils/activity/pgstat.c
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/pgstat_internal.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/utils/pgstat_kind.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_18_STABLE/src/include/pgstat.h
    
    
    .. seealso::
       Source - https://github.com/postgres/postgres/blob/REL_15_STABLE/src/include/pgstat.h
    """
    def __init__(self, major, _io, _parent=None, _root=None):
        super(PgstatShmem, self).__init__(_io)
        self._parent = _parent
        self._root = _root or self
        self.major = major
        self._read()

    def _read(self):
        self.format_id = self._io.read_u4le()
        if self.major < 18:
            pass
            self.fixed_stats = self._io.read_bytes((808 if self.major == 15 else (15152 if self.major == 16 else 17216)))

        self.entries = []
        i = 0
        while True:
            _ = PgstatShmem.Entry(self.major, self._io, self, self._root)
            self.entries.append(_)
            if  ((_.marker == 69) or ((not (_.known)))) :
                break
            i += 1


    def _fetch_instances(self):
        pass
        if self.major < 18:
            pass

        for i in range(len(self.entries)):
            pass
            self.entries[i]._fetch_instances()


    class Entry(KaitaiStruct):
        def __init__(self, major, _io, _parent=None, _root=None):
            super(PgstatShmem.Entry, self).__init__(_io)
            self._parent = _parent
            self._root = _root
            self.major = major
            self._read()

        def _read(self):
            self.marker = self._io.read_u1()
            if self.marker != 69:
                pass
                self.kind = self._io.read_u4le()

            if self.marker == 83:
                pass
                self.dboid = self._io.read_u4le()

            if  ((self.marker == 83) and (self.major < 18)) :
                pass
                self.objoid = self._io.read_u4le()

            if  ((self.marker == 83) and (self.major >= 18)) :
                pass
                self.objid = self._io.read_u8le()

            if self.marker == 78:
                pass
                self.name = self._io.read_bytes(64)

            if  ((self.marker == 83) and (self.kind == 2)) :
                pass
                self.relation = pgstat_tab_entry.PgstatTabEntry(self.major, self._io)

            if  ((self.known) and (self.marker != 69) and ((not ( ((self.marker == 83) and (self.kind == 2)) )))) :
                pass
                self.other = self._io.read_bytes(self.other_size)



        def _fetch_instances(self):
            pass
            if self.marker != 69:
                pass

            if self.marker == 83:
                pass

            if  ((self.marker == 83) and (self.major < 18)) :
                pass

            if  ((self.marker == 83) and (self.major >= 18)) :
                pass

            if self.marker == 78:
                pass

            if  ((self.marker == 83) and (self.kind == 2)) :
                pass
                self.relation._fetch_instances()

            if  ((self.known) and (self.marker != 69) and ((not ( ((self.marker == 83) and (self.kind == 2)) )))) :
                pass


        @property
        def known(self):
            """whether this parser can frame the entry (and so the ones after it)."""
            if hasattr(self, '_m_known'):
                return self._m_known

            self._m_known =  ((self.marker == 69) or ( ((self.marker == 83) and ( ((self.kind == 1) or (self.kind == 2) or (self.kind == 3) or (self.kind == 5)) )) ) or ( ((self.marker == 78) and (self.kind == 4)) ) or ( ((self.marker == 70) and (self.major >= 18) and (self.kind >= 7) and (self.kind <= 12)) )) 
            return getattr(self, '_m_known', None)

        @property
        def other_size(self):
            """the size of PgStat_StatDBEntry, PgStat_StatFuncEntry, PgStat_StatReplSlotEntry, PgStat_StatSubEntry, or an 18 fixed-numbered kind."""
            if hasattr(self, '_m_other_size'):
                return self._m_other_size

            self._m_other_size = ((136 if self.kind == 7 else (32 if self.kind == 8 else (88 if self.kind == 9 else (51848 if self.kind == 10 else (512 if self.kind == 11 else (40 if self.kind == 12 else 0)))))) if self.marker == 70 else (((136 if self.major == 15 else 72) if self.kind == 4 else 0) if self.marker == 78 else ((240 if self.major == 15 else (248 if self.major < 18 else 264)) if self.kind == 1 else (24 if self.kind == 3 else ((24 if self.major < 18 else 80) if self.kind == 5 else 0)))))
            return getattr(self, '_m_other_size', None)
