"""Shares (percentages, ratios) rounded the way the outputs give them: a share strictly between none and all
is never rounded to either end, so that 3,035 HOT updates of 3,036 do not read as all of them (100.0)."""
from __future__ import annotations


def share(part: int | float, whole: int | float, digits: int, scale: float = 100.0) -> float | None:
    """``scale * part / whole`` rounded to ``digits`` decimals, None when ``whole`` is 0; kept one step inside
    0 and ``scale`` when ``part`` is neither nothing nor all of ``whole``."""
    if not whole:
        return None
    value = round(scale * part / whole, digits)
    step = 10.0 ** -digits
    if value >= scale and part < whole:
        return round(scale - step, digits)
    if value <= 0 and part > 0:
        return round(step, digits)
    return value
