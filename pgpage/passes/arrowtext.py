"""pyarrow for the passes that write Arrow (the export, the B-tree items), imported only when one is asked for,
and the one reading of COPY-style CSV text into Arrow strings they share."""
from __future__ import annotations

import numpy as np

from pgpage.findings import ExitCode, PgpageError


def arrow():
    """pyarrow, or the one-line error that says how to install it (exit 2)."""
    try:
        import pyarrow
    except ImportError:
        raise PgpageError("Parquet and Arrow output need pyarrow: pip install 'pgpage[parquet]'",
                          ExitCode.USAGE) from None
    return pyarrow


def csv_text_table(lines: bytes, names: list[str]):
    """CSV lines as COPY writes them (no header) as a table of texts: NULL where a field is empty and unquoted, the
    empty string where it is quoted."""
    pa = arrow()
    from io import BytesIO

    import pyarrow.csv as csv
    return csv.read_csv(BytesIO(lines), read_options=csv.ReadOptions(column_names=names, use_threads=True),
                        parse_options=csv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False),
                        convert_options=csv.ConvertOptions(column_types={n: pa.string() for n in names},
                                                           null_values=[""], strings_can_be_null=True,
                                                           quoted_strings_can_be_null=False))


def tid_texts(block: np.ndarray, offset: np.ndarray, null: np.ndarray | None = None):
    """``(block,offset)`` texts, as a TID prints, of two integer arrays (an Arrow string array; NULL where ``null``)."""
    pa = arrow()
    from pgpage.decode.kernels import tid_texts as texts
    body, offsets = texts(block, offset)
    validity = None if null is None else pa.py_buffer(np.packbits(~np.asarray(null, dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(pa.string(), len(offsets) - 1, [validity, pa.py_buffer(offsets), pa.py_buffer(body)])
