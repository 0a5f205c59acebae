"""Findings and exit codes: the one vocabulary every layer uses to say what is wrong.

A finding is data, not an exception: a bad page becomes a Finding and the scan goes on.
Codes are dotted and stable (``page.header.bad_lower``, ``checksum.mismatch``) so audit
scripts can select them.
"""
from __future__ import annotations

from fnmatch import fnmatchcase

from dataclasses import asdict, dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    CLEAN = 0        # nothing to report
    FINDINGS = 1     # corruption found, snapshots differ, an audit threshold crossed
    USAGE = 2        # bad arguments
    UNREADABLE = 3   # the input could not be read as what it claims to be
    PIPE_CLOSED = 141  # stdout's reader went away (`| head`): 128 + SIGPIPE, as a shell reports such a process


ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    severity: str = ERROR
    relation: str | None = None
    fork: str | None = None
    block: int | None = None
    item: int | None = None
    expected: object = None
    actual: object = None
    attnum: int | None = None        # the attribute (pg_attribute.attnum, 1-based) a tuple rule is about

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


class PgpageError(Exception):
    """Input pgpage refuses as a whole (not a relation file, not a data directory).

    Carries the one line the CLI prints and the exit code it exits with."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.UNREADABLE):
        super().__init__(message)
        self.exit_code = exit_code


# Every finding code pgpage can report, so that a code a user names (`verify --fail-on`) is checked before any work.
# A test reads the package's sources and fails when a code written there is missing here. Codes made from a
# variable part (a type name, a direction) are ``fnmatch`` patterns in CODE_PATTERNS.
CODES = frozenset({
    "brin.index.partial", "brin.item.bad_offset", "brin.item.orphan", "brin.item.too_short", "brin.item.undecodable",
    "brin.items.not_decoded", "brin.meta.bad_magic", "brin.meta.bad_revmap", "brin.meta.bad_version",
    "brin.meta.missing", "brin.page.bad_special_size", "brin.revmap.bad_pointer", "brin.revmap.duplicate",
    "brin.revmap.not_revmap", "brin.revmap.wrong_range",
    "btree.downlink.duplicate", "btree.downlink.level_mismatch", "btree.downlink.missing",
    "btree.downlink.not_live", "btree.downlink.order", "btree.downlink.out_of_range", "btree.heap.bad_page",
    "btree.heap.no_table", "btree.heap.table_missing", "btree.heap.table_unreadable",
    "btree.heapallindexed.key_mismatch", "btree.heapallindexed.missing", "btree.heapallindexed.not_checked",
    "btree.item.bad_lp_flags", "btree.item.bad_natts", "btree.item.out_of_bounds", "btree.item.size_mismatch",
    "btree.item.too_large", "btree.item.undecodable", "btree.item.unexpected_pivot", "btree.level.above_root",
    "btree.level.internal_zero", "btree.level.leaf_not_zero", "btree.level.leftmost", "btree.level.rightmost",
    "btree.lp.misaligned", "btree.lp.overlap", "btree.meta.bad_allequalimage", "btree.meta.bad_fastroot",
    "btree.meta.bad_magic", "btree.meta.bad_root", "btree.meta.bad_version", "btree.meta.fastroot_level",
    "btree.meta.new", "btree.meta.no_root", "btree.meta.not_meta", "btree.meta.not_read",
    "btree.meta.root_has_siblings", "btree.meta.root_level", "btree.meta.root_not_flagged", "btree.meta.stray_root",
    "btree.meta.unreadable", "btree.order.child_high_key", "btree.order.cross_page",
    "btree.order.downlink_lower_bound", "btree.order.high_key", "btree.order.items", "btree.order.not_checked",
    "btree.page.bad_cycleid", "btree.page.bad_flags", "btree.page.bad_special_size",
    "btree.page.deleted_and_half_dead", "btree.page.fullxid_not_deleted", "btree.page.internal_half_dead",
    "btree.page.internal_has_garbage", "btree.page.new", "btree.page.no_downlink", "btree.page.no_high_key",
    "btree.page.not_btree", "btree.page.stray_meta", "btree.page.too_many_items", "btree.posting.overrun",
    "btree.posting.too_few", "btree.posting.unsorted", "btree.sibling.cycle", "btree.sibling.level_mismatch",
    "btree.sibling.unreachable", "btree.tid.invalid",
    "dump.object.unprintable",
    "catalog.missing", "catalog.page.bad_header", "catalog.row.ambiguous", "catalog.visibility.undecided",
    "checksum.mismatch",
    "cluster.config.unreadable", "cluster.control.missing", "cluster.control.unreadable",
    "cluster.pg_version.unreadable", "cluster.pg_xact.missing",
    "control.block_size.invalid", "control.crc.mismatch", "control.float_format.mismatch",
    "control.relseg_size.invalid", "control.state.unknown", "control.trailing_bytes", "control.wal_level.unknown",
    "database.directory_missing", "database.stray_file",
    "datum.array.bad_dataoffset", "datum.array.bad_dims", "datum.array.bad_element", "datum.array.bad_header",
    "datum.array.bad_ndim", "datum.array.elemtype_mismatch", "datum.array.overrun", "datum.array.too_deep",
    "datum.array.unknown_elemtype", "datum.bad_length", "datum.bool.bad_value", "datum.enum.bad_length",
    "datum.enum.unknown_label", "datum.lz4.corrupt", "datum.numeric.bad_digit", "datum.numeric.bad_header",
    "datum.numeric.bad_sign", "datum.numeric.bad_special", "datum.numeric.odd_length", "datum.pglz.corrupt",
    "datum.text.bad_encoding", "datum.timestamp.out_of_range", "datum.toast.not_on_disk_pointer",
    "datum.varlena.bad_compression", "datum.varlena.bad_length", "datum.varlena.bad_vartag", "datum.varlena.overrun",
    "filenode_map.bad_magic", "filenode_map.crc.mismatch", "filenode_map.crc_mismatch", "filenode_map.mapping.zero",
    "filenode_map.missing", "filenode_map.num_mappings.out_of_range", "filenode_map.unreadable",
    # GIN, GiST and SP-GiST pages and structure (decode/gin.py, gist.py, spgist.py; analysis/verify/gin.py, ...)
    "gin.data.bad_lower", "gin.data.bad_rightmost_key", "gin.data.high_key_mismatch", "gin.data.key_exceeds_parent",
    "gin.data.order", "gin.data.tid_exceeds_bound", "gin.data.tid_exceeds_parent", "gin.entry.order",
    "gin.entry.parent_key", "gin.entry.undecodable", "gin.index.partial", "gin.item.bad_lp", "gin.item.out_of_bounds",
    "gin.item.size_mismatch", "gin.meta.bad_flags", "gin.meta.bad_version", "gin.meta.misplaced",
    "gin.order.not_checked", "gin.page.bad_special_size", "gin.page.too_many_items", "gin.pending.bad_page",
    "gin.pending.bad_tail", "gin.pending.cycle", "gin.pending.page_count", "gin.pending.tail_free_size",
    "gin.pending.tuple_count", "gin.posting.count_mismatch", "gin.posting.invalid_tid", "gin.posting.undecodable",
    "gin.posting.unsorted", "gin.sibling.kind_mismatch", "gin.sibling.out_of_range", "gin.tree.bad_child",
    "gin.tree.revisited", "gin.tree.uneven_depth", "gin.tree.zero_page", "gist.downlink.bad_child",
    "gist.downlink.out_of_range", "gist.index.partial", "gist.item.bad_downlink_offset", "gist.item.bad_heap_tid",
    "gist.item.bad_lp", "gist.item.invalid_tuple", "gist.item.out_of_bounds", "gist.item.size_mismatch",
    "gist.key.not_contained", "gist.page.bad_flags", "gist.page.bad_page_id", "gist.sibling.out_of_range",
    "gist.tree.bad_root", "gist.tree.revisited", "gist.tree.uneven_depth", "spgist.downlink.bad_target",
    "spgist.downlink.nulls_mismatch", "spgist.index.partial", "spgist.inner.bad_nodes", "spgist.inner.bad_size",
    "spgist.item.bad_lp", "spgist.item.out_of_bounds", "spgist.item.too_short", "spgist.item.undecodable",
    "spgist.leaf.bad_next", "spgist.meta.bad_magic", "spgist.meta.misplaced", "spgist.page.bad_flags",
    "spgist.page.bad_page_id", "spgist.page.bad_special_size", "spgist.page.placeholder_count",
    "spgist.page.redirect_count", "spgist.redirect.bad_target",
    "hash.bitmap.not_set", "hash.bitmap.set_for_free", "hash.bitmap.unreadable", "hash.bucket.bad_page",
    "hash.index.partial", "index.am.not_decoded", "bloom.index.partial", "hnsw.index.partial",
    "ivfflat.index.partial",
    "hash.bucket.missing", "hash.chain.bad_link", "hash.chain.cycle", "hash.chain.out_of_range",
    "hash.item.bad_length", "hash.item.order", "hash.item.wrong_bucket", "hash.meta.bad_bmshift", "hash.meta.bad_magic",
    "hash.meta.bad_maxbucket", "hash.meta.bad_version", "hash.meta.missing", "hash.overflow.orphan", "hash.page.bad_special_size",
    "hash.page.not_hash",
    "heap.ctid.block_beyond_end", "heap.ctid.invalid", "heap.ctid.offset_out_of_range", "heap.deform.bad_attlen",
    "heap.deform.bad_missingval", "heap.deform.bad_t_hoff", "heap.deform.bitmap_short", "heap.deform.datum_overrun",
    "heap.deform.error", "heap.deform.external_mismatch", "heap.deform.length_mismatch",
    "heap.deform.natts_exceeds_descriptor", "heap.deform.unreachable", "heap.deform.varwidth_mismatch",
    "heap.fsm.missing", "heap.hot.aborted_xmin_updated", "heap.hot.bad_link", "heap.hot.broken_chain",
    "heap.hot.chains_intersect", "heap.hot.ctid_off_page", "heap.hot.heap_only_root",
    "heap.hot.hot_update_to_non_heap_only", "heap.hot.link_to_unused", "heap.hot.non_hot_update_to_heap_only",
    "heap.hot.redirect_not_heap_only", "heap.hot.redirect_to_dead", "heap.hot.redirect_to_redirect",
    "heap.hot.xmin_mismatch", "heap.lp.bad_redirect", "heap.lp.misaligned", "heap.lp.normal_without_storage",
    "heap.lp.out_of_bounds", "heap.lp.overlap", "heap.lp.unexpected_storage", "heap.lp.unused_with_offset",
    "heap.multixact.no_update_xid", "heap.page.special_space", "heap.toast.bad_compression",
    "heap.toast.bad_vartag", "heap.toast.external_flag_missing", "heap.toast.no_toast_relation",
    "heap.toast.rawsize_too_large", "heap.toast.relation_missing", "heap.toast.wrong_relation",
    "heap.tuple.attribute_beyond_end", "heap.tuple.bad_attribute", "heap.tuple.bad_compression",
    "heap.tuple.bad_hoff", "heap.tuple.heap_only_not_updated", "heap.tuple.hot_updated_without_xmax",
    "heap.tuple.multi_committed", "heap.tuple.too_many_attributes", "heap.tuple.too_short",
    "heap.tuple.undecodable", "heap.visibility.undecided", "heap.vm.missing", "heap.why_not_hot.unavailable",
    "export.rows.unreadable", "export.value.not_representable", "export.wal.unreadable", "heap.xact.unavailable", "heap.xid.since_checkpoint",
    "page.all_visible_wrong", "page.header.bad_bounds", "page.header.bad_flags", "page.header.bad_lower",
    "page.header.bad_pagesize", "page.header.bad_special", "page.header.bad_upper", "page.header.bad_version",
    "page.new_not_zeroed", "page.truncated", "page.undecodable", "page.unrecognised",
    "relation.empty", "relation.file_missing", "relation.orphan_file",
    "rows.carve.checksum_mismatch", "rows.wal.old_tuple_unknown", "rows.wal.relfilenode_changed", "rows.wal.unreadable", "rows.dropped.typed", "rows.dropped.untyped", "rows.timezone.default", "rows.toast.not_followed", "rows.tuple.unreadable", "rows.visibility.undecided", "rows.type.not_decoded", "rows.value.unreadable",
    "segment.extra", "segment.grew", "segment.missing", "segment.oversized", "segment.partial_block",
    "segment.short", "segment.shrank",
    "sequence.bad_magic",
    "stats.absent", "stats.entry_unknown", "stats.format_unknown", "stats.stale", "stats.trailing_bytes",
    "stats.truncated",
    "storage.unreadable",
    "tablespace.link_dangling",
    "toast.chunk_duplicate", "toast.chunk_extra", "toast.chunk_missing", "toast.chunk_size",
    "toast.chunk_unreadable", "toast.decompress", "toast.relation_missing", "toast.value.not_text",
    "vm.all_frozen_wrong", "vm.all_visible_new_page", "vm.all_visible_wrong", "vm.bit_without_pd_all_visible",
    "vm.bits_beyond_heap_end", "vm.frozen_not_visible", "vm.missing_fork", "vm.page_all_visible_not_in_vm",
    "wal.end", "wal.page.bad_header", "wal.page.bad_info", "wal.page.bad_magic", "wal.page.bad_timeline",
    "wal.record.bad_blocks", "wal.record.bad_crc", "wal.record.bad_header", "wal.record.bad_length",
    "wal.record.bad_prev", "wal.record.bad_rmgr", "wal.record.torn", "wal.segment.missing", "wal.segment.other_major",
    "wal.segment.other_system", "wal.segment.other_timeline", "wal.segment.unreadable", "wal.start.missing",
    "wal.timeline.history_missing",
})
CODE_PATTERNS = (
    "btree.heap.tid_*", "btree.sibling.*_mismatch", "btree.sibling.*_not_live", "btree.sibling.*_out_of_range",
    "datum.*.bad_value", "heap.multixact.*", "heap.xid.*",
)


def names_a_code(selector: str) -> bool:
    """Whether a --fail-on selector (a code, a dotted prefix of codes, or a glob) names any code pgpage reports."""
    if selector in ("all", "*"):
        return True
    if any(ch in selector for ch in "*?["):
        return any(fnmatchcase(c, selector) for c in CODES) or any(fnmatchcase(p, selector) for p in CODE_PATTERNS)
    prefix = selector.rstrip(".")
    return any(c == prefix or c.startswith(prefix + ".") for c in CODES) or any(
        fnmatchcase(prefix, p) or p.startswith(prefix + ".") for p in CODE_PATTERNS)


def families() -> list[str]:
    """The codes' first parts (checksum, heap, btree...), for a short hint after a typo."""
    return sorted({c.split(".")[0] for c in CODES})


def a_or_an(word: str) -> str:
    """``word`` after its indefinite article, chosen by sound as messages read aloud: "an index",
    "an 8-byte item", "an 11-byte item", "an SP-GiST page", "a B-tree", "a unique index"."""
    digits = len(word) - len(word.lstrip("0123456789"))
    if digits:
        n = int(word[:digits])
        vowel = word.startswith("8") or n in (11, 18) or 11_000 <= n < 12_000 or 18_000 <= n < 19_000
    elif word[:1].isupper() and not word[1:2].islower():  # an acronym, read letter by letter: "an SP-GiST"
        vowel = word[0] in "AEFHILMNORSX"
    else:
        vowel = word[:1].lower() in "aeiou" and not word.lower().startswith(("uni", "use", "usu", "uti", "uu"))
    return ("an " if vowel else "a ") + word


def damage_text(damage) -> str | None:
    """A row version's ``damage`` (``passes.rowdamage.version_damage``: dicts of ``code`` and, for a value,
    ``column``) in one field, as `rows` prints it in CSV and for people: the codes, an unreadable value's after its
    column's name (``checksum.mismatch; doc: datum.jsonb.bad_value``); None when there is none."""
    if not damage:
        return None
    return "; ".join(f"{d['column']}: {d['code']}" if "column" in d else d["code"] for d in damage)
