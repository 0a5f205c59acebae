"""What `pgpage --version` prints: the release and the PostgreSQL majors whose files it reads."""
from __future__ import annotations

from pgpage import __version__
from pgpage.decode.versions import SUPPORTED_MAJORS


def version_text() -> str:
    majors = ", ".join(str(m) for m in SUPPORTED_MAJORS)
    return f"pgpage {__version__}\nreads the data files of PostgreSQL {majors}"
