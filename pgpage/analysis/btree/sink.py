"""Findings of one index, bounded: at most ``FINDINGS_PER_CODE`` listed per code (``FindingSink``) and at
most ``LIST_LIMIT`` blocks in any list of the report, so a torn index cannot bury the report."""
from __future__ import annotations

from pgpage.findings import ERROR, Finding

FINDINGS_PER_CODE = 20  # detailed findings kept per code; the rest are counted in one summary finding
LIST_LIMIT = 100        # block lists in the report (incomplete splits, ...) are cut here


class FindingSink:
    """Findings of one index, at most ``FINDINGS_PER_CODE`` per code (a torn index must not
    bury the report under ten thousand identical lines); ``close`` adds one summary finding
    per code that overflowed, with the same severity and the number left out. Most codes keep
    their first findings in the order they came (block order, as the pass reads); the heap TID
    codes keep those of the lowest index blocks and items (``HeapTidCheck`` finds them window
    by window of the table), listed after the others, so that no code's list depends on how
    the table or the index was cut. ``merge`` adds another sink's findings of later blocks."""

    BY_PLACE = "btree.heap.tid_"  # codes whose kept findings are the lowest (block, item)

    def __init__(self, relation: str | None):
        self.relation = relation
        self.items: list[Finding] = []
        self._count: dict[str, int] = {}
        self._kept: dict[str, int] = {}
        self._by_place: dict[str, list[Finding]] = {}
        self._severity: dict[str, str] = {}

    def __call__(self, code: str, message: str, severity: str = ERROR, **kw) -> None:
        self._count[code] = self._count.get(code, 0) + 1
        self._severity[code] = severity
        self._keep(Finding(code, message, severity, relation=self.relation, fork="main", **kw))

    def _keep(self, f: Finding) -> None:
        if f.code.startswith(self.BY_PLACE):
            kept = self._by_place.setdefault(f.code, [])
            kept.append(f)
            if len(kept) >= 2 * FINDINGS_PER_CODE:
                kept.sort(key=_place)
                del kept[FINDINGS_PER_CODE:]
        elif self._kept.get(f.code, 0) < FINDINGS_PER_CODE:
            self._kept[f.code] = self._kept.get(f.code, 0) + 1
            self.items.append(f)

    def count(self, code: str) -> int:
        return self._count.get(code, 0)

    def add_count(self, code: str, n: int, severity: str = ERROR) -> None:
        """Findings of ``code`` counted but not built (beyond the per-code cap)."""
        self._count[code] = self._count.get(code, 0) + n
        self._severity[code] = severity

    def merge(self, other: "FindingSink") -> None:
        for f in other.items + [f for kept in other._by_place.values() for f in kept]:
            self._keep(f)
        for code, n in other._count.items():
            self.add_count(code, n, other._severity[code])

    def close(self) -> list[Finding]:
        for code in sorted(self._by_place):
            self.items += sorted(self._by_place[code], key=_place)[:FINDINGS_PER_CODE]
        self._by_place.clear()
        for code, n in self._count.items():
            if n > FINDINGS_PER_CODE:
                self.items.append(Finding(code, f"{n - FINDINGS_PER_CODE} more {code} findings not listed"
                                          f" ({n} in all)", self._severity[code], relation=self.relation,
                                          fork="main", actual=n))
        return self.items


def _place(f: Finding) -> tuple[int, int]:
    return (f.block if f.block is not None else -1, f.item or 0)
