"""Output functions of the geometric types: point, lseg, line, box, path, polygon, circle.

Transcribes ``utils/adt/geo_ops.c`` (``point_out``, ``lseg_out``, ``line_out``, ``box_out``, ``path_out``,
``poly_out``, ``circle_out`` and their ``pair_encode``/``path_encode``); layouts from ``utils/geo_decls.h``.
Every coordinate is a little-endian float8 and every type is double-aligned::

    point    (16)  x, y                                         "(x,y)"
    lseg     (32)  p[0].x, p[0].y, p[1].x, p[1].y                "[(x1,y1),(x2,y2)]"
    line     (24)  A, B, C  of  Ax + By + C = 0                  "{A,B,C}"
    box      (32)  high.x, high.y, low.x, low.y                  "(hx,hy),(lx,ly)"
    circle   (24)  center.x, center.y, radius                    "<(x,y),r>"
    path     (varlena)  int32 npts | int32 closed | int32 dummy (pads p to 8) | Point p[npts]
                        closed: "((x1,y1),...)"  open: "[(x1,y1),...]"
    polygon  (varlena)  int32 npts | BOX boundbox | Point p[npts]        "((x1,y1),...)"

(``path`` and ``polygon`` offsets are counted after the 4-byte varlena header; their content is
12 + 16 * npts and 36 + 16 * npts bytes.) The polygon's bounding box is not printed.

Numbers are written by ``float8out_internal`` from 12 on (shortest exact digits, ``NaN``,
``Infinity``, ``-0``), here ``datum.format_float``. In 10 and 11 the same function wrote ``%.*g`` with
DBL_DIG + extra_float_digits digits, which depends on the session; the shortest exact digits are
shown for those majors too (the same value, as the float8 columns are).

``box[]`` is written with ``;`` between elements (pg_type.typdelim of box): datum's array writer
knows that.
"""
from __future__ import annotations

import struct
from pgpage.decode.ksy.type_oids import (BOXARRAYOID, BOXOID, CIRCLEARRAYOID, CIRCLEOID, LINEARRAYOID, LINEOID,
                                         LSEGARRAYOID, LSEGOID, PATHARRAYOID, PATHOID, POINTARRAYOID, POINTOID,
                                         POLYGONARRAYOID, POLYGONOID)


_POINT_SIZE = 16
_PATH_HEADER = 12          # npts, closed, dummy
_POLYGON_HEADER = 36       # npts, boundbox


def _num(v: float) -> str:
    from pgpage.decode.datum import format_float   # datum imports this package: import when called
    return format_float(v)


def _floats(payload: bytes, count: int, what: str) -> tuple[float, ...]:
    if len(payload) != 8 * count:
        raise ValueError(f"{what} needs {8 * count} bytes, got {len(payload)}")
    return struct.unpack("<%dd" % count, payload)


def _pair(x: float, y: float) -> str:
    return f"({_num(x)},{_num(y)})"


def _points(payload: bytes, offset: int, npts: int) -> str:
    """path_encode's inner loop: the points joined by ","."""
    coords = struct.unpack_from("<%dd" % (2 * npts), payload, offset)
    return ",".join(_pair(coords[i], coords[i + 1]) for i in range(0, 2 * npts, 2))


def _npts(payload: bytes, offset: int, header: int, what: str) -> int:
    """The point count at ``offset``, checked against the bytes present: the content must be exactly
    the header and npts points (path_in and poly_in refuse fewer than one point)."""
    if len(payload) < header:
        raise ValueError(f"{what} of {len(payload)} bytes is shorter than its {header}-byte header")
    npts = struct.unpack_from("<i", payload, offset)[0]
    if npts < 1:
        raise ValueError(f"{what} with {npts} points")
    if len(payload) != header + _POINT_SIZE * npts:
        raise ValueError(f"{what} of {npts} points needs {header + _POINT_SIZE * npts} bytes, got {len(payload)}")
    return npts


def point_out(payload: bytes, major=None) -> str:
    return _pair(*_floats(payload, 2, "point"))


def lseg_out(payload: bytes, major=None) -> str:
    x1, y1, x2, y2 = _floats(payload, 4, "lseg")
    return f"[{_pair(x1, y1)},{_pair(x2, y2)}]"


def line_out(payload: bytes, major=None) -> str:
    a, b, c = _floats(payload, 3, "line")
    return "{%s,%s,%s}" % (_num(a), _num(b), _num(c))


def box_out(payload: bytes, major=None) -> str:
    hx, hy, lx, ly = _floats(payload, 4, "box")
    return f"{_pair(hx, hy)},{_pair(lx, ly)}"


def circle_out(payload: bytes, major=None) -> str:
    x, y, r = _floats(payload, 3, "circle")
    return f"<{_pair(x, y)},{_num(r)}>"


def path_out(payload: bytes, major=None) -> str:
    npts = _npts(payload, 0, _PATH_HEADER, "path")
    closed = struct.unpack_from("<i", payload, 4)[0]
    if closed not in (0, 1):                     # path_in stores the bool !isopen
        raise ValueError(f"path closed flag {closed}")
    body = _points(payload, _PATH_HEADER, npts)
    return f"({body})" if closed else f"[{body}]"


def poly_out(payload: bytes, major=None) -> str:
    npts = _npts(payload, 0, _POLYGON_HEADER, "polygon")
    return "(" + _points(payload, _POLYGON_HEADER, npts) + ")"


# pg_type.dat: {oid: (name, typlen, typalign, typbyval, array_oid)}
TYPES = {
    POINTOID: ("point", 16, "d", False, POINTARRAYOID),
    LSEGOID: ("lseg", 32, "d", False, LSEGARRAYOID),
    PATHOID: ("path", -1, "d", False, PATHARRAYOID),
    BOXOID: ("box", 32, "d", False, BOXARRAYOID),
    POLYGONOID: ("polygon", -1, "d", False, POLYGONARRAYOID),
    LINEOID: ("line", 24, "d", False, LINEARRAYOID),
    CIRCLEOID: ("circle", 24, "d", False, CIRCLEARRAYOID),
}

OUTPUT = {
    POINTOID: point_out,
    LSEGOID: lseg_out,
    PATHOID: path_out,
    BOXOID: box_out,
    POLYGONOID: poly_out,
    LINEOID: line_out,
    CIRCLEOID: circle_out,
}
