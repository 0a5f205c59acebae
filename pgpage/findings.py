"""Findings and exit codes: the one vocabulary every layer uses to say what is wrong.

A finding is data, not an exception: a bad page becomes a Finding and the scan goes on.
Codes are dotted and stable (``page.header.bad_lower``, ``checksum.mismatch``) so audit
scripts can select them.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum


class ExitCode(IntEnum):
    CLEAN = 0        # nothing to report
    FINDINGS = 1     # corruption found, snapshots differ, an audit threshold crossed
    USAGE = 2        # bad arguments
    UNREADABLE = 3   # the input could not be read as what it claims to be


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
