"""Output functions of the bit-string types, money and pg_lsn.

* ``bit``, ``varbit`` (``utils/adt/varbit.c``, ``utils/varbit.h``)::

      varlena content: int32 bit_len | bits8 bit_dat[(bit_len + 7) / 8]

  the bits from the most significant bit of the first byte on; the unused low bits of the last
  byte are zero (VARBIT_CORRECTLY_PADDED). bit(n) and varbit(n) share the layout and the output
  function (bit_out calls varbit_out): one '0' or '1' per bit.

* ``money`` (``utils/adt/cash.c``): a fixed int64 of cents (of the locale's fraction digits). cash_out
  formats it with the server's lc_monetary; this is the C locale's form (initdb --no-locale, as
  the fixtures and test servers are made): frac_digits and mon_grouping unset, so 2 decimals and
  groups of 3; "." and ","; currency symbol "$"; the sign "-" before the symbol: ``$1,234.56``,
  ``-$1.00``, ``-$92,233,720,368,547,758.08``. Another lc_monetary gives other text.

* ``pg_lsn`` (``utils/adt/pg_lsn.c``): a fixed uint64, written ``%X/%X`` (high and low 32 bits, upper
  case hex) in 10-18, and when the major is not known. PostgreSQL 19 pads the low half to eight digits
  (``%X/%08X``, commit 2633dae2 "Standardize LSN formatting by zero padding").
"""
from __future__ import annotations

import struct
from pgpage.decode.ksy.type_oids import (BITARRAYOID, BITOID, MONEYARRAYOID, MONEYOID, PG_LSNARRAYOID, PG_LSNOID,
                                         VARBITARRAYOID, VARBITOID)



def varbit_out(payload: bytes, major=None) -> str:
    if len(payload) < 4:
        raise ValueError(f"bit string of {len(payload)} bytes is shorter than its length word")
    bit_len = struct.unpack_from("<i", payload, 0)[0]
    if bit_len < 0:
        raise ValueError(f"bit string of {bit_len} bits")
    nbytes = (bit_len + 7) // 8
    if len(payload) != 4 + nbytes:
        raise ValueError(f"bit string of {bit_len} bits needs {4 + nbytes} bytes, got {len(payload)}")
    # padding bits past bit_len are not shown (varbit_out ignores them, as here)
    return "".join(format(b, "08b") for b in payload[4:])[:bit_len]


def _fixed(payload: bytes, fmt: str, what: str) -> int:
    if len(payload) != 8:
        raise ValueError(f"{what} needs 8 bytes, got {len(payload)}")
    return struct.unpack(fmt, payload)[0]


def cash_out(payload: bytes, major=None) -> str:
    value = _fixed(payload, "<q", "money")
    sign = "-" if value < 0 else ""
    units, cents = divmod(abs(value), 100)       # abs(): INT64_MIN prints like cash_out's uint64 cast
    return f"{sign}${units:,}.{cents:02d}"


def pg_lsn_out(payload: bytes, major=None) -> str:
    lsn = _fixed(payload, "<Q", "pg_lsn")
    hi, lo = lsn >> 32, lsn & 0xFFFFFFFF
    if major is not None and major >= 19:
        return "%X/%08X" % (hi, lo)
    return "%X/%X" % (hi, lo)


# pg_type.dat: {oid: (name, typlen, typalign, typbyval, array_oid)}
TYPES = {
    BITOID: ("bit", -1, "i", False, BITARRAYOID),
    VARBITOID: ("varbit", -1, "i", False, VARBITARRAYOID),
    MONEYOID: ("money", 8, "d", True, MONEYARRAYOID),
    PG_LSNOID: ("pg_lsn", 8, "d", True, PG_LSNARRAYOID),
}

OUTPUT = {
    BITOID: varbit_out,
    VARBITOID: varbit_out,
    MONEYOID: cash_out,
    PG_LSNOID: pg_lsn_out,
}
