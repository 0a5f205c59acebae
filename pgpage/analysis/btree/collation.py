"""How text sorts under a libc or ICU collation, computed offline the way the server's library would, when this
machine has that same library: the sort key of a text datum's bytes, or why it cannot be had here.

PostgreSQL compares text under a deterministic collation with the library's comparison (strcoll_l for libc,
ucol_strcollUTF8 for ICU) and breaks ties with strcmp (varstr_cmp); a non-deterministic ICU collation has no tie
break. The library's order changes between its versions, which is why pg_collation records collversion
(glibc's version for libc, from 13; the collator's for ICU): a key is only trusted when this machine's library has
the recorded version, else the reason names both.

- libc: glibc's own strcoll through ``locale.strxfrm`` under that locale (the process's LC_COLLATE is set to it
  while keys are made), when the locale is installed here;
- ICU: PyICU's collator sort keys (the optional ``icu`` extra), when PyICU is installed; the collator's version
  from the same libicui18n (``icu_collator_version``).
"""
from __future__ import annotations

import locale
import os
import threading
from typing import Callable

_LC_LOCK = threading.Lock()


def glibc_version() -> str | None:
    """This machine's glibc version as gnu_get_libc_version() gives it (PostgreSQL's collversion of libc)."""
    try:
        name = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError, AttributeError):
        return None
    return name.split()[-1] if name.startswith("glibc") else None


def _icu_version_text(version) -> str:
    """u_versionToString's form: the fields joined by dots, trailing zero fields left out (two kept)."""
    parts = [int(p) for p in (version.split(".") if isinstance(version, str) else version)]
    while len(parts) > 2 and parts[-1] == 0:
        parts.pop()
    return ".".join(map(str, parts))


def _libc_key(name: str, loc: str, recorded: str | None) -> tuple[Callable | None, str | None]:
    here = glibc_version()
    if recorded is None:
        return None, f'collation "{name}" (libc {loc}): no collversion recorded, the server\'s glibc is unknown'
    if here != recorded:
        return None, (f'collation "{name}" (libc {loc}): recorded for glibc {recorded}, this machine has glibc '
                      f"{here or 'unknown'}")
    with _LC_LOCK:
        before = locale.setlocale(locale.LC_COLLATE)
        try:
            locale.setlocale(locale.LC_COLLATE, loc)
        except locale.Error:
            return None, f'collation "{name}": locale {loc} is not installed on this machine'
        finally:
            locale.setlocale(locale.LC_COLLATE, before)

    def key(payload: bytes):
        text = payload.decode("utf-8")
        with _LC_LOCK:    # LC_COLLATE is the process's: left at the last collation keyed (nothing else uses it)
            if locale.setlocale(locale.LC_COLLATE) != loc:
                locale.setlocale(locale.LC_COLLATE, loc)
            return locale.strxfrm(text), payload
    return key, None


def _icu_key(name: str, loc: str, recorded: str | None, deterministic: bool) -> tuple[Callable | None, str | None]:
    try:
        import icu
    except ImportError:
        return None, f'collation "{name}" (ICU {loc}): PyICU is not installed (pip install pgpage[icu])'
    try:
        locale_id = icu.Locale.forLanguageTag(loc).getName()
        collator = icu.Collator.createInstance(icu.Locale(locale_id))
    except icu.ICUError as e:
        return None, f'collation "{name}" (ICU {loc}): {e}'
    here = icu_collator_version(locale_id, icu.ICU_VERSION)
    if here is None:
        return None, (f'collation "{name}" (ICU {loc}): the collator version of this machine\'s ICU {icu.ICU_VERSION}'
                      f" cannot be read (ucol_getVersion), so it cannot be compared with collversion {recorded}")
    if recorded is None or _icu_version_text(recorded) != here:
        return None, (f'collation "{name}" (ICU {loc}): recorded collator version {recorded or "none"}, this '
                      f"machine's ICU {icu.ICU_VERSION} has {here}")
    if deterministic:
        return (lambda payload: (collator.getSortKey(payload.decode("utf-8")), payload)), None
    return (lambda payload: collator.getSortKey(payload.decode("utf-8"))), None


def icu_collator_version(locale_id: str, icu_version: str) -> str | None:
    """ucol_getVersion of a collator of ``locale_id`` (what PostgreSQL records as an ICU collation's collversion)
    from the libicui18n PyICU uses (the one of ICU ``icu_version``: its symbols carry the major as a suffix).
    PyICU does not wrap ucol_getVersion, hence this one call through ctypes; None when it cannot be made."""
    import ctypes
    import ctypes.util
    major = icu_version.split(".")[0]
    path = ctypes.util.find_library("icui18n")
    try:
        lib = ctypes.CDLL(path) if path else None
        open_, version, close = (getattr(lib, f"{f}_{major}") for f in ("ucol_open", "ucol_getVersion", "ucol_close"))
    except (OSError, AttributeError, TypeError):
        return None
    open_.restype = ctypes.c_void_p
    open_.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    version.argtypes = [ctypes.c_void_p, ctypes.c_char * 4]
    close.argtypes = [ctypes.c_void_p]
    status = ctypes.c_int(0)
    collator = open_(locale_id.encode(), ctypes.byref(status))
    if not collator or status.value > 0:          # U_FAILURE
        return None
    info = (ctypes.c_char * 4)()
    version(collator, info)
    close(collator)
    return _icu_version_text(list(info.raw))


def collation_sort_key(row: dict, utf8: bool) -> tuple[Callable | None, str | None]:
    """(the sort key of a text datum's payload bytes, None) or (None, why not) for a pg_collation row (or the
    database's locale as one: collname, collprovider, the locale, collversion, collisdeterministic) of a collation
    that does not sort as its bytes. ``utf8``: the database's encoding is UTF8 (the keys decode text as UTF-8)."""
    name = row.get("collname") or "?"
    provider = row.get("collprovider") or "c"
    if not utf8:
        return None, f'collation "{name}": the database\'s encoding is not UTF8'
    if provider == "c":
        loc = row.get("collcollate")
        if not isinstance(loc, str) or not loc:
            return None, f'collation "{name}": its locale is unknown'
        return _libc_key(name, loc, row.get("collversion"))
    if provider == "i":
        loc = row.get("colllocale") or row.get("colliculocale") or row.get("collcollate")
        if not isinstance(loc, str) or not loc:
            return None, f'collation "{name}": its ICU locale is unknown'
        return _icu_key(name, loc, row.get("collversion"), row.get("collisdeterministic") is not False)
    return None, f'collation "{name}" (provider {provider})'
