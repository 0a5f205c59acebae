"""float4 and float8 bit patterns of every class, and a binary COPY that stores them on a server bit for bit.

What float4out/float8out (Ryu: src/common/f2s.c, d2s.c) treat apart: whole numbers below 2^24 (2^53), powers of
two (the neighbour below is half as far as the one above), subnormals (no implicit bit; the smallest normal's gap
below is a subnormal gap), the largest finite value, decimals of few digits that are themselves a midpoint between
two floats (excluded: 48085872 prints 4.8085872e+07), and the special values. Values go in through binary COPY, so
no text conversion (the server's or Python's) chooses a neighbour, and NaN payloads survive.
"""
from __future__ import annotations

import random
import struct

FLOAT4 = (23, 8)      # mantissa bits, exponent bits
FLOAT8 = (52, 11)


def _midpoint_neighbours(rng: random.Random, mant: int, exp_bits: int, samples: int) -> set[int]:
    """Floats next to a midpoint n * 2^P (n odd, mant + 2 bits) that is a decimal of few digits: n = c * 5^k,
    n * 2^P = c * 2^(P-k) * 10^k, short when c is."""
    width, bias = mant + 2, (1 << (exp_bits - 1)) - 1 + mant
    out = set()
    for k in range(width // 2 + 2):
        f = 5 ** k
        cmin, cmax = -(-(1 << (width - 1)) // f), ((1 << width) - 1) // f
        if cmin > cmax:
            break
        for _ in range(samples):
            c = rng.randrange(cmin, cmax + 1) | 1
            if c > cmax:
                continue
            n = c * f
            for P in range(k - 4, k + 5):
                e = P + 1                       # the floats either side are (n -/+ 1) / 2 * 2^(P + 1)
                for m in ((n - 1) // 2, (n + 1) // 2):
                    if m >> (mant + 1):         # a power of two: m = 2^(mant + 1), one more exponent
                        m, e2 = m >> 1, e + 1
                    else:
                        e2 = e
                    field = e2 + bias
                    if 1 <= field < (1 << exp_bits) - 1:
                        out.add(field << mant | (m & ((1 << mant) - 1)))
    return out


def patterns(kind: tuple[int, int], rng: random.Random, n_random: int) -> list[int]:
    """Bit patterns (sign included) of every class, and n_random random ones; sorted, no duplicates."""
    mant, exp_bits = kind
    top = (1 << exp_bits) - 1
    sign = 1 << (mant + exp_bits)
    out = set()
    for field in range(top):                           # every power of two in range, normal and subnormal,
        for d in (0, 1, 2, -1, -2):                    # and its neighbours
            b = (field << mant) + d
            if 0 < b < top << mant:
                out.add(b)
    for k in range(mant):
        out |= {1 << k, (1 << k) + 1, (1 << k) - 1 if k else 1, (1 << (k + 1)) - 1}
    out |= {rng.getrandbits(mant) for _ in range(max(n_random // 20, 100))}              # subnormals
    out |= {(1 << mant) - 1, 1 << mant, (top << mant) - 1, (top << mant) - 2}     # the ends of each range
    out |= {(b << mant) | rng.getrandbits(mant) for b in (1, 2, top - 1) for _ in range(50)}
    out |= {i for i in range(1, 2000)}                                                    # the first subnormals
    whole = [float(w) for w in range(1, 4000)] + [2.0 ** (mant + 1) + d for d in range(-8, 9)]
    fmt = ("<f", "<I") if mant == 23 else ("<d", "<Q")
    out |= {struct.unpack(fmt[1], struct.pack(fmt[0], w))[0] for w in whole}
    out |= _midpoint_neighbours(rng, mant, exp_bits, 40)
    out = {b | (sign if rng.random() < 0.5 else 0) for b in out}
    out |= {rng.getrandbits(mant + exp_bits + 1) for _ in range(n_random)}
    # the special values: zeros, infinities, NaNs with payloads and signs
    out |= {0, sign, top << mant, sign | top << mant, (top << mant) | 1 << (mant - 1), (top << mant) | 1,
            sign | (top << mant) | rng.getrandbits(mant) | 1}
    return sorted(out)


def copy_binary(conn, table: str, columns: list[str], rows: list[tuple]) -> None:
    """COPY rows into table (columns) in binary format; a row is a tuple of big-endian values as bytes (None for
    NULL), so each value is stored exactly as given."""
    parts = [b"PGCOPY\n\xff\r\n\x00", struct.pack(">ii", 0, 0)]
    for row in rows:
        parts.append(struct.pack(">h", len(row)))
        for v in row:
            parts.append(struct.pack(">i", -1) if v is None else struct.pack(">i", len(v)) + v)
    parts.append(struct.pack(">h", -1))
    with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT binary)") as cp:
        cp.write(b"".join(parts))
