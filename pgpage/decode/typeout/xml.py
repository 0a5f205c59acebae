"""xml's output function (``utils/adt/xml.c`` xml_out / xml_out_internal, parse_xml_decl, print_xml_decl).

An xml value is stored as the text it was given, XML declaration included. xml_out re-prints that
declaration: it is dropped when it says nothing but the default (version 1.0, no standalone; the encoding
is always dropped, the client's may differ), together with one newline right after it; otherwise it is
written back as ``<?xml version="..."[ standalone="yes|no"]?>``. A declaration the parser cannot read
leaves the value as stored (the server warns). The same in 10-18, for servers built with libxml (all the
builds here: the other kind cannot store xml values at all).
"""
from __future__ import annotations

from pgpage.decode.encodings import stored_text
from pgpage.decode.ksy.type_oids import XMLARRAYOID, XMLOID

TYPES = {XMLOID: ("xml", -1, "i", False, XMLARRAYOID)}

_SPACE = " \t\n\r"
_DEFAULT_VERSION = "1.0"


def _is_name_char(c: str) -> bool:
    # PG_XMLISNAMECHAR: letters, digits, '.', '-', '_', ':', combining and extender characters
    return c.isalnum() or c in ".-_:" or ord(c) > 127


def parse_xml_decl(s: str):
    """(length of the declaration, version, standalone 1/0/-1), or None where parse_xml_decl fails."""
    version, standalone = None, -1
    if not s.startswith("<?xml") or (len(s) > 5 and _is_name_char(s[5])):
        return 0, version, standalone                    # no XMLDecl (maybe <?xml-stylesheet ...?>)
    p = 5

    def skip(p):
        while p < len(s) and s[p] in _SPACE:
            p += 1
        return p

    def quoted(p):
        if p >= len(s) or s[p] not in "'\"":
            return None
        q = s.find(s[p], p + 1)
        return None if q < 0 else (s[p + 1:q], q + 1)

    if p >= len(s) or s[p] not in _SPACE:
        return None
    p = skip(p)
    if not s.startswith("version", p):
        return None
    p = skip(p + 7)
    if s[p:p + 1] != "=":
        return None
    got = quoted(skip(p + 1))
    if got is None:
        return None
    version, p = got
    for name in ("encoding", "standalone"):
        q = skip(p)
        if not s.startswith(name, q):
            continue
        if q == p:                                       # CHECK_XML_SPACE: a space must come first
            return None
        q = skip(q + len(name))
        if s[q:q + 1] != "=":
            return None
        q = skip(q + 1)
        if name == "encoding":
            got = quoted(q)
            if got is None:
                return None
            p = got[1]
        elif s[q:q + 5] in ("'yes'", '"yes"'):
            standalone, p = 1, q + 5
        elif s[q:q + 4] in ("'no'", '"no"'):
            standalone, p = 0, q + 4
        else:
            return None
    p = skip(p)
    if not s.startswith("?>", p):
        return None
    p += 2
    if any(ord(c) > 127 for c in s[:p]):
        return None
    return p, version, standalone


def xml_out(payload: bytes, major) -> str:
    s = stored_text(payload)
    parsed = parse_xml_decl(s)
    if parsed is None:
        return s
    length, version, standalone = parsed
    if (version is not None and version != _DEFAULT_VERSION) or standalone != -1:
        decl = f'<?xml version="{version or _DEFAULT_VERSION}"'
        decl += {1: ' standalone="yes"', 0: ' standalone="no"'}.get(standalone, "")
        return decl + "?>" + s[length:]
    if s[length:length + 1] == "\n":
        length += 1
    return s[length:]


OUTPUT = {XMLOID: xml_out}
