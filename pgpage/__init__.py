"""pgpage: offline, page-image forensic analyser for PostgreSQL data files."""
import os

# numpy's OpenBLAS would start a thread per core at import, spinning beside --jobs workers; pgpage does no
# floating-point linear algebra, so one thread (none started) is all it needs
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
