"""Server encodings: a database's text is stored in its encoding (``pg_database.encoding``), and `rows` prints
it as a session with ``client_encoding`` UTF8 receives it.

``ENCODINGS`` is PostgreSQL's ``pg_enc`` (``mb/pg_wchar.h``: the number ``pg_database.encoding`` holds, in the
order of ``pg_enc2name_tbl``, the same in every major 10 to 18), each with the Python codec whose mapping to
Unicode is the server's conversion to UTF8 (``utils/mb/conversion_procs``), checked against the server on the
characters of ``fixtures/values``:

* LATIN1-10, ISO_8859_5-8, WIN866/874/1250-1258, KOI8R/U, EUC_KR, EUC_CN, EUC_JIS_2004: Python's codecs;
* EUC_JP: the server's map is built from CP932 (and JIS X 0212): 0xA1C1 is U+FF5E, not Python's euc_jp U+301C,
  and NEC's row 13 (①) is there: two-byte characters are read through cp932 (``_euc_jp_decode``);
* SQL_ASCII: no conversion at all, the server sends the stored bytes as they are: printed when they are UTF-8,
  else not a value a UTF-8 output can hold (NULL and a finding; ``--encoding`` says how to read them);
* EUC_TW and MULE_INTERNAL: no converter here (NULL and a finding).
"""
from __future__ import annotations

import codecs
import contextvars

# The codec of the text inside values whose output functions ``typeout`` ports (jsonb strings, tsvector lexemes,
# xml): set by ``datum`` around one output function's call (``stored_text_codec``)
STORED_TEXT = contextvars.ContextVar("stored_text", default="utf-8")

ENCODINGS = (
    ("SQL_ASCII", "utf-8"), ("EUC_JP", "pgpage-euc-jp"), ("EUC_CN", "gb2312"), ("EUC_KR", "euc_kr"),
    ("EUC_TW", None), ("EUC_JIS_2004", "euc_jis_2004"), ("UTF8", "utf-8"), ("MULE_INTERNAL", None),
    ("LATIN1", "latin_1"), ("LATIN2", "iso8859_2"), ("LATIN3", "iso8859_3"), ("LATIN4", "iso8859_4"),
    ("LATIN5", "iso8859_9"), ("LATIN6", "iso8859_10"), ("LATIN7", "iso8859_13"), ("LATIN8", "iso8859_14"),
    ("LATIN9", "iso8859_15"), ("LATIN10", "iso8859_16"), ("WIN1256", "cp1256"), ("WIN1258", "cp1258"),
    ("WIN866", "cp866"), ("WIN874", "cp874"), ("KOI8R", "koi8_r"), ("WIN1251", "cp1251"), ("WIN1252", "cp1252"),
    ("ISO_8859_5", "iso8859_5"), ("ISO_8859_6", "iso8859_6"), ("ISO_8859_7", "iso8859_7"),
    ("ISO_8859_8", "iso8859_8"), ("WIN1250", "cp1250"), ("WIN1253", "cp1253"), ("WIN1254", "cp1254"),
    ("WIN1255", "cp1255"), ("WIN1257", "cp1257"), ("KOI8U", "koi8_u"),
)
_BY_NAME = {name: codec for name, codec in ENCODINGS}
_SS2, _SS3 = 0x8E, 0x8F    # EUC's single shifts: JIS X 0201 kana, JIS X 0212


def encoding_name(number) -> str | None:
    """The name of ``pg_database.encoding``'s number (None: not a server encoding)."""
    return ENCODINGS[number][0] if isinstance(number, int) and 0 <= number < len(ENCODINGS) else None


def python_codec(name: str) -> str:
    """The Python codec that reads text of server encoding ``name`` (PostgreSQL's spelling, any case, with or
    without ``_``/``-``) as the server converts it to UTF8; a Python codec name is taken as it is. A server
    encoding pgpage cannot convert gets a codec that refuses every non-ASCII byte, saying so. ValueError for a
    name that is neither."""
    key = name.upper().replace("-", "_")
    for candidate in (key, key.replace("_", ""), {"UTF_8": "UTF8", "LATIN_1": "LATIN1"}.get(key, key)):
        if candidate in _BY_NAME:
            return _BY_NAME[candidate] or f"pgpage-none-{candidate.lower()}"
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise ValueError(f"unknown encoding {name!r} (PostgreSQL's names: "
                         f"{', '.join(n for n, _ in ENCODINGS)}; or a Python codec)") from None


def stored_text(raw: bytes) -> str:
    """Text inside a value, in the database's encoding (``STORED_TEXT``): UnicodeDecodeError when it is not."""
    return raw.decode(STORED_TEXT.get())


def _euc_jp_decode(data, errors: str = "strict"):
    """EUC_JP as the server converts it to UTF8 (``euc_jp_to_utf8.map``, made from CP932 and JIS X 0212)."""
    data = bytes(data)
    out, i, n = [], 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            out.append(chr(b))
            i += 1
            continue
        size = 3 if b == _SS3 else 2
        chunk = data[i:i + size]
        try:
            if len(chunk) < size:
                raise UnicodeDecodeError("euc_jp", data, i, n, "incomplete multibyte character")
            if b == _SS3:
                out.append(chunk.decode("euc_jp"))
            elif b == _SS2:
                out.append(bytes([chunk[1]]).decode("cp932"))      # half-width katakana, as in Shift_JIS
            else:
                out.append(_jis_to_sjis(chunk[0] & 0x7F, chunk[1] & 0x7F).decode("cp932"))
        except UnicodeDecodeError:
            raise UnicodeDecodeError("euc_jp", data, i, i + size, "not a character the server converts") from None
        i += size
    return "".join(out), n


def _jis_to_sjis(j1: int, j2: int) -> bytes:
    """A JIS X 0208 row and cell (0x21..0x7E each) as Shift_JIS bytes."""
    if not (0x21 <= j1 <= 0x7E and 0x21 <= j2 <= 0x7E):
        return b"\xff\xff"      # (not JIS: cp932 refuses it)
    s1 = ((j1 + 1) >> 1) + (0x70 if j1 <= 0x5E else 0xB0)
    s2 = j2 + (0x1F + (j2 >= 0x60) if j1 & 1 else 0x7E)
    return bytes([s1, s2])


def _unsupported(name: str):
    def decode(data, errors: str = "strict"):
        data = bytes(data)
        bad = next((i for i, b in enumerate(data) if b >= 0x80), None)
        if bad is not None:
            raise UnicodeDecodeError(name, data, bad, len(data), f"pgpage has no converter from {name.upper()}")
        return data.decode("ascii"), len(data)
    return decode


def _search(name: str):
    if name == "pgpage_euc_jp":
        decode = _euc_jp_decode
    elif name.startswith("pgpage_none_"):
        decode = _unsupported(name.removeprefix("pgpage_none_"))
    else:
        return None
    return codecs.CodecInfo(name=name.replace("_", "-"), encode=None, decode=decode)


codecs.register(_search)


def database_codec(database_row: dict | None, override: str | None) -> tuple[str, str]:
    """(Python codec, what it is) of the text of a database: ``override`` (``--encoding``), else its
    ``pg_database.encoding``, else UTF8 (ValueError for an override that names no encoding)."""
    if override:
        return python_codec(override), f"{override} (--encoding)"
    name = encoding_name((database_row or {}).get("encoding"))
    if name is None:
        return "utf-8", "UTF8 (pg_database.encoding unknown)"
    return python_codec(name), name
