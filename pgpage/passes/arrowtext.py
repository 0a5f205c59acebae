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


def buffer_strings(values: np.ndarray, lengths: np.ndarray, data: np.ndarray, atype=None):
    """Values the compiled printer wrote into its buffer ``data`` (``kernels.CsvPrinter``'s typed values: value i is
    ``lengths[i]`` bytes at ``values[i]``, NULL where ``lengths[i]`` is negative) as an Arrow array of ``atype``
    (string, or binary), in Arrow's layout: offsets and the bytes, copied (the printer writes ``data`` again)."""
    pa = arrow()
    from pgpage.decode import kernels
    n = len(values)
    valid = lengths >= 0
    validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    size = np.where(valid, lengths, 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    at, into = (values, offsets[:-1]) if validity is None else (values[valid], offsets[:-1][valid])
    first = int(at[0]) if len(at) else 0
    if np.array_equal(at - first, into):   # one after the other in data (the printer writes them in order): one copy
        body = data[first:first + int(offsets[-1])].copy()
    else:
        body = np.empty(int(offsets[-1]), dtype=np.uint8)
        kernels.gather(data, at, size[valid], body, into)
    return pa.Array.from_buffers(atype or pa.string(), n, [validity, pa.py_buffer(offsets.astype(np.int32)),
                                                            pa.py_buffer(body)])


def tid_texts(block: np.ndarray, offset: np.ndarray, null: np.ndarray | None = None):
    """``(block,offset)`` texts, as a TID prints, of two integer arrays (an Arrow string array; NULL where ``null``)."""
    pa = arrow()
    from pgpage.decode.kernels import tid_texts as texts
    body, offsets = texts(block, offset)
    validity = None if null is None else pa.py_buffer(np.packbits(~np.asarray(null, dtype=bool), bitorder="little"))
    return pa.Array.from_buffers(pa.string(), len(offsets) - 1, [validity, pa.py_buffer(offsets), pa.py_buffer(body)])
