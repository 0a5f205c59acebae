"""Output functions of the network address types: inet, cidr, macaddr, macaddr8.

Transcribes ``utils/adt/network.c`` (``network_out``), ``port/inet_net_ntop.c`` (``utils/adt/`` before 13;
the same ISC code in every major 10-18), ``utils/adt/mac.c`` and ``utils/adt/mac8.c``. Layouts from
``utils/inet.h``::

    inet, cidr (varlena; a 1-byte header on disk, at most 18 bytes of content)
    +--------+------+----------------------------------------+
    | family | bits | ipaddr: 4 bytes (IPv4) or 16 (IPv6),   |
    | uint8  | uint8|         network byte order             |
    +--------+------+----------------------------------------+
    family: PGSQL_AF_INET = 2 (AF_INET + 0), PGSQL_AF_INET6 = 3 (AF_INET + 1): PostgreSQL's own numbers,
    not the platform's AF_INET6. bits: the netmask length, 0..32 or 0..128. The varlena holds exactly
    offsetof(inet_struct, ipaddr) + the address size. inet and cidr share the layout; the type OID alone
    says which (cidr's input refuses host bits right of the mask, inet keeps them).

    The text is the output function's (``SELECT col``, pg_dump). The inet -> text *cast* is another
    function, network_show, which always adds the mask length: ``'::5'::inet::text`` is ``::5/128``.

    macaddr (fixed, 6 bytes)   a b c d e f            -> "%02x:%02x:%02x:%02x:%02x:%02x"
    macaddr8 (fixed, 8 bytes)  a b c d e f g h (10+)  -> the same with eight bytes
"""
from __future__ import annotations
from pgpage.decode.ksy.type_oids import (CIDRARRAYOID, CIDROID, INETARRAYOID, INETOID, MACADDR8ARRAYOID, MACADDR8OID,
                                         MACADDRARRAYOID, MACADDROID)

from pgpage.findings import a_or_an

PGSQL_AF_INET = 2
PGSQL_AF_INET6 = 3
_ADDR_SIZE = {PGSQL_AF_INET: 4, PGSQL_AF_INET6: 16}
_MAX_BITS = {PGSQL_AF_INET: 32, PGSQL_AF_INET6: 128}



def _inet_parts(payload: bytes) -> tuple[int, int, bytes]:
    """(family, bits, address) of an inet/cidr varlena's content, or ValueError."""
    if len(payload) < 2:
        raise ValueError(f"inet content of {len(payload)} bytes is shorter than family and bits")
    family, bits = payload[0], payload[1]
    size = _ADDR_SIZE.get(family)
    if size is None:
        raise ValueError(f"unknown address family {family}")
    if len(payload) != 2 + size:
        raise ValueError(f"address family {family} needs {2 + size} bytes of content, got {len(payload)}")
    if bits > _MAX_BITS[family]:
        raise ValueError(f"netmask length {bits} is more than {_MAX_BITS[family]}")
    return family, bits, payload[2:]


def _ntop_ipv4(addr: bytes, bits: int) -> str:
    """inet_net_ntop_ipv4: always all four octets; "/bits" unless bits is 32."""
    text = ".".join(str(b) for b in addr)
    return text if bits == 32 else f"{text}/{bits}"


def _longest_zero_run(words: list[int]) -> tuple[int, int]:
    """(base, len) of the first longest run of zero words, (-1, 0) when no run of 2 or more: the run
    written as "::" (a single zero word is written as 0)."""
    best = (-1, 0)
    cur_base, cur_len = -1, 0
    for i, w in enumerate(words + [1]):          # a sentinel closes a trailing run
        if w == 0:
            if cur_base == -1:
                cur_base, cur_len = i, 1
            else:
                cur_len += 1
        elif cur_base != -1:
            if best[0] == -1 or cur_len > best[1]:
                best = (cur_base, cur_len)
            cur_base = -1
    return best if best[1] >= 2 else (-1, 0)


def _ntop_ipv6(addr: bytes, bits: int) -> str:
    """inet_net_ntop_ipv6: hex words without leading zeros, the longest zero run as "::", IPv4-mapped
    (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses with a dotted tail; "/bits" unless 128."""
    words = [(addr[i] << 8) | addr[i + 1] for i in range(0, 16, 2)]
    base, length = _longest_zero_run(words)
    out = []
    for i in range(8):
        if base != -1 and base <= i < base + length:
            if i == base:
                out.append(":")
            continue
        if i != 0:
            out.append(":")
        # encapsulated IPv4: the test is made at word 6, so (as in the C) the len == 7 case never fires
        if i == 6 and base == 0 and (length == 6 or (length == 7 and words[7] != 0x0001)
                                     or (length == 5 and words[5] == 0xFFFF)):
            out.append(".".join(str(b) for b in addr[12:16]))
            break
        out.append("%x" % words[i])
    if base != -1 and base + length == 8:
        out.append(":")
    text = "".join(out)
    return text if bits == 128 else f"{text}/{bits}"


def _network_out(payload: bytes, is_cidr: bool) -> str:
    family, bits, addr = _inet_parts(payload)
    text = _ntop_ipv4(addr, bits) if family == PGSQL_AF_INET else _ntop_ipv6(addr, bits)
    if is_cidr and "/" not in text:              # cidr always shows its mask length
        text += f"/{bits}"
    return text


def inet_out(payload: bytes, major=None) -> str:
    return _network_out(payload, is_cidr=False)


def cidr_out(payload: bytes, major=None) -> str:
    return _network_out(payload, is_cidr=True)


def _mac_out(payload: bytes, size: int) -> str:
    if len(payload) != size:
        raise ValueError(f"{a_or_an(f'{size}-byte')} MAC address given {len(payload)} bytes")
    return ":".join("%02x" % b for b in payload)


def macaddr_out(payload: bytes, major=None) -> str:
    return _mac_out(payload, 6)


def macaddr8_out(payload: bytes, major=None) -> str:
    return _mac_out(payload, 8)


# pg_type.dat: {oid: (name, typlen, typalign, typbyval, array_oid)}
TYPES = {
    INETOID: ("inet", -1, "i", False, INETARRAYOID),
    CIDROID: ("cidr", -1, "i", False, CIDRARRAYOID),
    MACADDROID: ("macaddr", 6, "i", False, MACADDRARRAYOID),
    MACADDR8OID: ("macaddr8", 8, "i", False, MACADDR8ARRAYOID),     # new in 10
}

OUTPUT = {
    INETOID: inet_out,
    CIDROID: cidr_out,
    MACADDROID: macaddr_out,
    MACADDR8OID: macaddr8_out,
}
