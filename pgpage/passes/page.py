"""`pgpage page`'s pass: the blocks asked for of one fork, each decoded by ``decode.page`` (pageinspect's
names, findings per page). A file in which no page has a PostgreSQL page header is refused whole.

The pages are a generator, decoded as they are written out: memory stays flat whatever the range (the
caller prints each page and drops it). ``--hex`` adds each page's byte ranges (``decode.hexmap``).
"""
from __future__ import annotations

from typing import Iterator

from pgpage.decode.page import counts_as_page, decode_page, raw_header_is_plausible
from pgpage.findings import ERROR, INFO, ExitCode, Finding, PgpageError
from pgpage.passes.blocks import parse_block_range
from pgpage.storage.target import resolve


class PageRun:
    """The `pgpage page` document (schema pgpage.page/1) of one fork: ``head`` (the fork's findings, its
    blocks) and ``pages()``, the blocks asked for (the fork's first block when none is asked for), each with its
    own ``findings``. ``single`` says whether one block was asked for (a document) or a range (a stream)."""

    def __init__(self, target: str, db: str | None, rel: str | None, fork: str, block: int | None = None,
                 blocks: str | None = None, all_blocks: bool = False, hex_dump: bool = False,
                 item: int | None = None, wal: str | None = None, lsn: str | None = None):
        t = resolve(target, db, rel, fork)
        if t.relation is not None and t.context.am in ("gin", "gist", "spgist"):  # their keys, shown as values
            from dataclasses import replace
            from pgpage.decode.indextuple import index_columns
            t.context = replace(t.context, index_columns=index_columns(t.relation, t.database))
        relfork = self.relfork = t.fork
        self.t, self.hex_dump, self.item = t, hex_dump, item
        self.dumper = None  # the compiled dumper, once records() runs
        findings: list[Finding] = list(relfork.findings)
        self.wal_image = None
        if lsn is not None or wal is not None:
            self._from_wal(target, block, blocks, all_blocks, wal, lsn)
        elif not relfork.exists:
            raise PgpageError(f"{t.label}: fork {relfork.fork} has no file", ExitCode.UNREADABLE)
        end = relfork.end_block if relfork.exists else 0
        if self.wal_image is not None:       # the block may lie past the file's end now (truncated since)
            self.start, self.stop = block, block + 1
        else:
            self.start, self.stop = parse_block_range(block, blocks, all_blocks, relfork.first_block, end)
        self.single = block is not None or (blocks is None and not all_blocks)
        if item is not None and not hex_dump:
            raise PgpageError("--item N goes with --hex (the bytes of line pointer N and its item)", ExitCode.USAGE)
        if item is not None and item < 1:
            raise PgpageError(f"--item {item}: line pointers are numbered from 1", ExitCode.USAGE)
        if end == relfork.first_block and relfork.size_bytes == 0 and relfork.oversized is None:
            findings.append(Finding("relation.empty", "the file is empty (0 blocks): nothing to decode",
                                    severity="info", relation=relfork.name, fork=relfork.fork))
        self._refuse_if_not_postgres()
        self.errors = any(f.severity == ERROR for f in findings)
        self.head = {
            "schema": "pgpage.page/1", "file": t.label, "fork": relfork.fork, "block_size": relfork.block_size,
            "major": t.context.major, "first_block": relfork.first_block, "end_block": end,
            "findings": [f.to_json() for f in findings],
        }
        if self.wal_image is not None:
            self.head["wal"] = self.wal_image[2]

    def _from_wal(self, target, block, blocks, all_blocks, wal, lsn) -> None:
        """The block as the newest full-page image at or before ``lsn`` in the WAL holds it (issue 38, part 4)."""
        from pgpage.decode.control import format_lsn, parse_lsn
        from pgpage.decode.wal.record import RecordError, page_image
        from pgpage.passes.wal import newest_page_image
        from pgpage.storage.wal import WalDirectory, wal_directory
        if lsn is None or block is None or blocks is not None or all_blocks or self.t.relation is None:
            raise PgpageError("--wal/--lsn go together, with a data directory, --rel and one --block",
                              ExitCode.USAGE)
        try:
            at = parse_lsn(lsn)
        except ValueError:
            raise PgpageError(f"not an LSN: {lsn!r} (expected X/X, as 0/16B3748)", ExitCode.USAGE) from None
        from pgpage.passes.wal import WalReader
        reader = WalReader(WalDirectory(wal_directory(target, wal)), self.t.cluster.control)
        rel = self.t.relation
        found = newest_page_image(reader, rel, self.t.fork.fork, block, at)
        if found is None:
            raise PgpageError(f"no full-page image of block {block} of {self.t.label} ({self.t.fork.fork}) in the WAL "
                              f"up to {lsn}" + (f" (the WAL {reader.stop.message})" if reader.stop else ""),
                              ExitCode.FINDINGS)
        rec, ref = found
        try:
            image = page_image(rec, ref)
        except RecordError as e:
            raise PgpageError(str(e), ExitCode.UNREADABLE) from None
        # the server sets pd_checksum when it writes a page out, never in the buffer an image is copied from
        from dataclasses import replace
        self.t.context = replace(self.t.context, checksums=None)
        self.wal_image = (block, image, {"lsn": format_lsn(rec.lsn), "end_lsn": format_lsn(rec.end_lsn),
                                         "block_id": ref.block_id, "relfilenode": ref.relfilenode,
                                         "compression": ref.compression, "hole_offset": ref.hole_offset,
                                         "hole_length": ref.hole_length, "apply": ref.apply_image})

    def _blocks(self) -> Iterator[tuple[int, bytes]]:
        if self.wal_image is not None:
            yield self.wal_image[0], self.wal_image[1]
            return
        relfork = self.relfork
        any_block = False
        for blkno, raw in relfork.iter_blocks(self.start, self.stop):
            any_block = True
            yield blkno, raw
        if not any_block and relfork.size_bytes:  # only a torn block: is it a page at all?
            yield relfork.first_block, relfork.read_block(relfork.first_block)

    def pages(self) -> Iterator[dict]:
        """The decoded pages, one at a time, as JSON-ready dicts; ``errors`` turns True on an error finding."""
        for blkno, raw in self._blocks():
            yield self._decoded(blkno, raw)

    def _decoded(self, blkno: int, raw: bytes) -> dict:
        page = decode_page(raw, blkno, self.t.context)
        if page["page_type"] == "hash" or (self.t.context.am == "hash" and page["page_type"] == "new"):
            self._hash_bitmap_info(page)
        elif page["page_type"] == "brin_regular" and "items" in page:
            self._brin_page_items(page, raw)
        out = {k: v for k, v in page.items() if k != "raw_header"}
        out["findings"] = [f.to_json() for f in page["findings"]]
        if any(f.severity == ERROR for f in page["findings"]):
            self.errors = True
        if self.hex_dump:
            from pgpage.decode.hexmap import hex_records
            out["hex"] = hex_records(raw, page, self.item)
        return out

    def _hash_bitmap_info(self, page: dict) -> None:
        """hash_bitmap_info of a hash index's block: its bit in the bitmap pages the metapage names."""
        from pgpage.decode.hash import HashBitmap, add_bitmap_info
        if self.wal_image is None and self.relfork.first_block == 0:
            self.__dict__.setdefault("hash_bitmap", HashBitmap(self.relfork.read_block))
            add_bitmap_info(page, self.hash_bitmap)

    def _brin_page_items(self, page: dict, raw: bytes) -> None:
        """brin_page_items of a regular page: what each column stores comes from the catalogs (pg_attribute,
        pg_index.indclass, pg_opclass); without them the summaries are not decoded, and a note says why."""
        from pgpage.decode.brin import brin_columns, brin_page_items
        from pgpage.decode.values import ValueFormatter
        t = self.t
        if "brin_columns" not in self.__dict__:
            cols = None
            if t.relation is not None and t.database is not None and t.relation.index_row:
                db = t.database
                cols = brin_columns(db.attributes(t.relation.oid), t.relation.index_row.get("indclass") or [],
                                    db.opclasses)
                self.brin_formatter = ValueFormatter(db.types, t.context.major)
            self.brin_columns = cols if cols and all(c.stored for c in cols) else None
        if self.brin_columns is None:
            page["findings"].append(Finding("brin.items.not_decoded", "the summaries need the index's columns and"
                                            " operator classes (pg_attribute, pg_index, pg_opclass)", INFO,
                                            relation=t.context.relation, fork="main", block=page["blkno"]))
            return

        def find(code, message, **kw):
            page["findings"].append(Finding(code, message, relation=t.context.relation, fork="main",
                                            block=page["blkno"], **kw))
        page["brin_page_items"] = brin_page_items(raw, page["items"], self.brin_columns, t.context.major,
                                                  self.brin_formatter, find)

    def records(self, text_words: list[str] | None = None) -> Iterator[bytes | dict]:
        """The pages in order, each as its dict (as ``pages()`` gives it) or as ready output (bytes: JSON lines,
        each exactly what ``json.dumps`` of the page's dict gives, or with ``text_words`` the renderer's text):
        heap and B-tree pages with nothing to report come from the compiled dumper (decode.pagedump) a chunk at a
        time, every other page from ``decode_page``."""
        ctx = self.t.context
        if self.wal_image is not None or self.hex_dump or ctx.fork in ("vm", "fsm") or \
                ctx.am not in ("heap", "btree", None):
            yield from self.pages()
            return
        from pgpage.decode.pagedump import PageDumper
        dumper = self.dumper = PageDumper(text_words, (ctx.am,) if ctx.am else ("heap", "btree"), ctx.major)
        any_block = False
        for first, chunk in self.relfork.iter_chunks(self.start, self.stop):
            any_block = True
            for piece in dumper.pieces(chunk, first, ctx.checksums):
                yield piece if isinstance(piece, bytes) else self._decoded(first + piece, chunk[piece].tobytes())
        if not any_block:
            yield from self.pages()

    @property
    def heap_written(self) -> bool:
        """Whether records() gave out heap pages as ready output (the text's flag legend is then due)."""
        return self.dumper is not None and self.dumper.heap_written

    @staticmethod
    def bit_names() -> dict:
        """The flag bits' names the compiled text dumper needs, by bit (render/page.py: page_text_words)."""
        from pgpage.decode.pagedump import bit_names
        return bit_names()

    def document(self) -> dict:
        """The whole document, pages included (one block, or a caller that wants every page at once)."""
        return {**self.head, "pages": list(self.pages())}

    def _refuse_if_not_postgres(self) -> None:
        """A file in which no page has a PostgreSQL header is not a relation file: refuse it whole, before
        anything is printed. Decided from the raw headers, stopping at the first plausible one."""
        size = self.relfork.block_size
        decoded = False
        for _, raw in self._blocks():
            if counts_as_page(raw, size):  # new pages (all zeros, pd_upper 0) count neither way
                decoded = True
                if raw_header_is_plausible(raw, size):
                    return
        if decoded:
            raise PgpageError(f"{self.t.label}: not a PostgreSQL relation file (no page has a valid page header)",
                              ExitCode.UNREADABLE)


def page_document(target: str, db: str | None, rel: str | None, fork: str, block: int | None = None,
                  blocks: str | None = None, all_blocks: bool = False) -> dict:
    """The `pgpage page` document with every page asked for (see ``PageRun``)."""
    return PageRun(target, db, rel, fork, block, blocks, all_blocks).document()
