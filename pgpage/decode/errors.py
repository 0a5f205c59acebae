"""The one exception decode raises: "these bytes are not that structure at all".

A damaged but recognisable structure is not an error (decoders report it as findings and decode
what they can); DecodeError is for input to refuse as a whole, with a one-line message, e.g. a file
of the wrong size given as pg_control. It is a PgpageError, so the CLI prints the message and exits
with ExitCode.UNREADABLE.
"""
from __future__ import annotations

from pgpage.findings import ExitCode, PgpageError


class DecodeError(PgpageError):
    """Input that is not the structure the decoder was asked for (one-line message)."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.UNREADABLE):
        super().__init__(message, exit_code)
