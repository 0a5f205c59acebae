#!/usr/bin/env python3
"""Generate pgpage/decode/ksy/ from formats/*.ksy: the one way to (re)build the parsers.

    python formats/generate.py            # regenerate pgpage/decode/ksy/ in place
    python formats/generate.py --check    # regenerate into a temp dir, exit 1 on any difference

What it does:

1. Makes sure the pinned Kaitai Struct compiler is installed: runs ``npm ci`` in formats/
   when formats/node_modules is missing (versions pinned in package.json/package-lock.json).
2. Compiles every ``formats/*.ksy`` (whatever is there: new .ksy files are picked up
   automatically) to Python through ``formats/compile.js`` and writes one module per .ksy,
   ``pgpage/decode/ksy/<meta id>.py``, with a "generated, do not edit" header that records
   the sha256 of its .ksy. The compiler writes cross-file imports as ``import pg_page``;
   they are rewritten to ``from . import pg_page`` so the modules work inside the package.
3. Writes ``pgpage/decode/ksy/layouts.py``: for every fixed-size type in the .ksy files the
   byte offset and Kaitai type of every field plus the total size, together with the enum
   values under their PostgreSQL names, the ``-orig-id`` of each field and the ``valid``
   magic numbers. Vectorised (numpy) decoders take their offsets and widths from there, so
   no second hand-kept layout table exists.
4. Writes every constant the .ksy files define (each enum value under its PostgreSQL name, and the
   size of every fixed-size type with a C name: ``SizeOfPageHeaderData``, ``SIZEOF_ItemIdData``...)
   twice from one table: ``pgpage/decode/ksy/constants.py`` for Python and ``pgpage/decode/ksy/pgp_layout.h``
   for the compiled kernel, so C and Python read one definition of each flag and size.
5. Writes ``pgpage/decode/ksy/type_oids.py``: the built-in type OIDs of ``formats/pg_type_oids.yaml``
   (transcribed from PostgreSQL's pg_type.dat) under the names pg_type_d.h gives them (``INT4OID``).
6. Writes ``pgpage/decode/ksy/__init__.py`` listing the modules.

Exit codes: 0 success (or --check found no drift), 1 drift found by --check, 2 the toolchain
is missing or a .ksy does not compile.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover - PyYAML is a test/dev dependency
    sys.stderr.write("generate.py: PyYAML is required (pip install PyYAML)\n")
    sys.exit(2)

FORMATS = Path(__file__).resolve().parent
REPO = FORMATS.parent
OUT_DIR = REPO / "pgpage" / "decode" / "ksy"
PACKAGE = "pgpage.decode.ksy"
MARKER = "# GENERATED FILE - DO NOT EDIT."
C_MARKER = "/* GENERATED FILE - DO NOT EDIT."
HEADER = "pgp_layout.h"
TYPE_OIDS = FORMATS / "pg_type_oids.yaml"


class GenerateError(Exception):
    """The toolchain is missing or a .ksy could not be compiled/understood."""


# --------------------------------------------------------------------------- toolchain


def pinned_compiler_version() -> str:
    pkg = json.loads((FORMATS / "package.json").read_text())
    return pkg["dependencies"]["kaitai-struct-compiler"]


def ensure_compiler() -> str:
    """Return the node executable, running ``npm ci`` first if node_modules is missing."""
    node = shutil.which("node")
    if node is None:
        raise GenerateError(
            "node (Node.js) is not on PATH; it is needed to run the pinned Kaitai Struct "
            "compiler (formats/package.json). Install Node.js 18+ (e.g. apt-get install nodejs npm)."
        )
    if not (FORMATS / "node_modules" / "kaitai-struct-compiler").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            raise GenerateError(
                "formats/node_modules is missing and npm is not on PATH to install it "
                "(install npm, then run: cd formats && npm ci)."
            )
        sys.stderr.write("generate.py: installing the pinned compiler (npm ci in formats/)\n")
        proc = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=FORMATS, capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise GenerateError(f"npm ci failed in formats/:\n{proc.stdout}{proc.stderr}")
    return node


def compile_all(node: str, ksy_files: list[Path], raw_dir: Path) -> None:
    cmd = [node, str(FORMATS / "compile.js"), "--lang", "python", "--out", str(raw_dir)]
    cmd += [str(p) for p in ksy_files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise GenerateError(f"kaitai-struct-compiler failed:\n{proc.stderr.strip()}")
    info = json.loads(proc.stdout)
    want = pinned_compiler_version()
    if info.get("compiler") != want:
        raise GenerateError(
            f"formats/node_modules has kaitai-struct-compiler {info.get('compiler')}, "
            f"package.json pins {want}: run `npm ci` in formats/."
        )


# --------------------------------------------------------------------------- .ksy loading


def load_specs(ksy_files: list[Path]) -> dict[str, dict]:
    specs: dict[str, dict] = {}
    for path in ksy_files:
        spec = yaml.safe_load(path.read_text())
        if not isinstance(spec, dict) or "meta" not in spec or "id" not in spec["meta"]:
            raise GenerateError(f"{path.name}: not a .ksy (no meta/id)")
        ksy_id = spec["meta"]["id"]
        if ksy_id != path.stem:
            raise GenerateError(f"{path.name}: meta/id is {ksy_id!r}; it must equal the file name")
        specs[ksy_id] = spec
    return specs


# --------------------------------------------------------------------------- post-processing


def fix_module(source: str, ksy_path: Path, modules: set[str], compiler: str) -> str:
    """Mark a compiler output as generated and make its cross-imports package-relative."""
    lines = source.splitlines()
    out = []
    for line in lines:
        m = re.fullmatch(r"import (\w+)", line)
        if m and m.group(1) in modules:
            line = f"from . import {m.group(1)}"
        out.append(line)
    digest = hashlib.sha256(ksy_path.read_bytes()).hexdigest()
    header = [
        MARKER,
        f"# Source: formats/{ksy_path.name} (sha256 {digest})",
        f"# Produced by formats/generate.py with kaitai-struct-compiler {compiler} (npm, pinned).",
        "# Edit the .ksy and run `python formats/generate.py`; tests fail when this file drifts.",
    ]
    return "\n".join(header + out).rstrip("\n") + "\n"


def init_module(specs: dict[str, dict], ksy_files: list[Path], compiler: str) -> str:
    names = sorted(specs)
    body = [
        MARKER,
        f"# Produced by formats/generate.py with kaitai-struct-compiler {compiler} (npm, pinned).",
        '"""Kaitai Struct parsers generated from formats/*.ksy (one module per .ksy).',
        "",
        "Each module holds one class named after the .ksy id in UpperCamelCase, e.g.",
        "``from pgpage.decode.ksy.pg_page import PgPage``; its nested types are nested classes",
        "(``PgPage.ItemId``). ``layouts`` holds the fixed-size type layouts for vectorised decoders,",
        "``constants`` every enum value and type size by name (as ``pgp_layout.h`` does for C), ``type_oids``",
        "the built-in type OIDs by pg_type_d.h's names.",
        "",
        "Modules:",
        "",
    ]
    for name in names:
        title = specs[name]["meta"].get("title", "")
        body.append(f"- ``{name}``: {title}")
    body.append('"""')
    body.append("")
    body.append("__all__ = [")
    for name in names + ["constants", "layouts", "type_oids"]:
        body.append(f"    {name!r},")
    body.append("]")
    return "\n".join(body) + "\n"


# --------------------------------------------------------------------------- layouts

_PRIM = re.compile(r"^(?P<base>[us][1248]|f[48])(?P<end>le|be)?$")
_BITS = re.compile(r"^b(?P<n>[1-9][0-9]*)(?P<end>le|be)?$")
_PRIM_SIZE = {"1": 1, "2": 2, "4": 4, "8": 8}


class NotFixed(Exception):
    """A type whose byte layout is not static (conditional, variable-size, ...)."""


class LayoutBuilder:
    """Static byte layout of every fixed-size type declared in the .ksy files.

    A type is fixed-size when every ``seq`` attribute has a static size and no ``if``:
    integer/float primitives, ``bN`` bit fields, byte blocks with a literal ``size`` or
    ``contents``, ``repeat: expr`` with a literal count, and user types that are themselves
    fixed-size. ``instances`` never count (they are read on demand, elsewhere).
    """

    def __init__(self, specs: dict[str, dict]):
        self.specs = specs
        self.types: dict[str, tuple[dict, list[str], str]] = {}  # qname -> (spec, scope, ksy id)
        for ksy_id, spec in specs.items():
            self._register(ksy_id, spec, [ksy_id], ksy_id)
        self.cache: dict[str, tuple[dict, int] | None] = {}

    def _register(self, qname: str, spec: dict, scope: list[str], ksy_id: str) -> None:
        self.types[qname] = (spec, scope, ksy_id)
        for sub, sub_spec in (spec.get("types") or {}).items():
            self._register(f"{qname}::{sub}", sub_spec, scope + [sub], ksy_id)

    # kaitai scoping: innermost type's nested types first, then outwards; then other files
    def resolve(self, name: str, scope: list[str]) -> str:
        parts = name.split("::")
        for depth in range(len(scope), 0, -1):
            cand = "::".join(scope[:depth] + parts)
            if cand in self.types:
                return cand
        if name in self.types:  # "other_file" or "other_file::type"
            return name
        raise NotFixed(f"unknown type {name}")

    def endian(self, qname: str) -> str:
        # a type's own meta/endian overrides its file's; "le" if unspecified
        parts = qname.split("::")
        result = "le"
        for depth in range(1, len(parts) + 1):
            spec = self.types["::".join(parts[:depth])][0]
            e = (spec.get("meta") or {}).get("endian")
            if isinstance(e, str):
                result = e
            elif e is not None:
                raise NotFixed("calculated endianness")
        return result

    def bit_endian(self, qname: str) -> str:
        parts = qname.split("::")
        result = "be"  # Kaitai's default bit-endian
        for depth in range(1, len(parts) + 1):
            e = (self.types["::".join(parts[:depth])][0].get("meta") or {}).get("bit-endian")
            if e is not None:
                result = e
        return result

    def layout(self, qname: str) -> tuple[dict, int] | None:
        if qname not in self.cache:
            self.cache[qname] = None  # recursion guard
            try:
                self.cache[qname] = self._layout(qname)
            except NotFixed:
                self.cache[qname] = None
        return self.cache[qname]

    def _layout(self, qname: str) -> tuple[dict, int]:
        spec, scope, _ = self.types[qname]
        endian = self.endian(qname)
        fields: dict[str, tuple] = {}
        offset = 0  # byte offset of the next byte-aligned field
        bits = None  # (run start byte, bits used) while inside a run of bit fields
        for attr in spec.get("seq") or []:
            fid = attr.get("id")
            if fid is None or "if" in attr or "process" in attr:
                raise NotFixed(str(fid))
            typ = attr.get("type")
            if isinstance(typ, dict):
                raise NotFixed("switch-on")
            m = _BITS.match(typ) if isinstance(typ, str) else None
            if m and "repeat" not in attr and "size" not in attr:
                if self.bit_endian(qname) != "le":
                    raise NotFixed("big-endian bit fields")
                width = int(m.group("n"))
                if bits is None:
                    bits = (offset, 0)
                fields[fid] = (bits[0], ("bits", bits[1], width))
                bits = (bits[0], bits[1] + width)
                continue
            if bits is not None:  # a byte-aligned field ends the bit run
                offset = bits[0] + math.ceil(bits[1] / 8)
                bits = None
            if m:
                raise NotFixed("repeated/sized bit field")
            count = None
            if "repeat" in attr:
                if attr["repeat"] != "expr" or not isinstance(attr.get("repeat-expr"), int):
                    raise NotFixed("dynamic repeat")
                count = attr["repeat-expr"]
            kind, size, sub = self._attr_kind(attr, typ, endian, scope)
            if count is None:
                fields[fid] = (offset, kind)
                if sub is not None:
                    for sub_id, (sub_off, sub_kind) in sub.items():
                        fields[f"{fid}.{sub_id}"] = (offset + sub_off, sub_kind)
                offset += size
            else:
                fields[fid] = (offset, ("array", kind, count))
                offset += size * count
        if bits is not None:
            offset = bits[0] + math.ceil(bits[1] / 8)
        return fields, offset

    def _attr_kind(self, attr: dict, typ, endian: str, scope: list[str]):
        """(kind, byte size, flattened sub-fields or None) of one non-bit seq attribute."""
        for key in ("size-eos", "terminator", "pad-right", "consume", "include", "eos-error"):
            if key in attr:
                raise NotFixed(key)
        size = attr.get("size")
        if typ is None:
            if "contents" in attr:
                c = attr["contents"]
                n = len(c.encode()) if isinstance(c, str) else len(c)
                return ("bytes", n), n, None
            if isinstance(size, int):
                return ("bytes", size), size, None
            raise NotFixed("dynamic size")
        m = _PRIM.match(typ)
        if m:
            base, end = m.group("base"), m.group("end") or endian
            n = _PRIM_SIZE[base[1]]
            name = base if (n == 1 or end == "le") else base + "be"
            if size is not None:
                raise NotFixed("sized primitive")
            return name, n, None
        if typ in ("str", "strz"):
            if isinstance(size, int):
                return ("bytes", size), size, None
            raise NotFixed("string")
        qname = self.resolve(typ, scope)
        if self.types[qname][0].get("params"):
            raise NotFixed("parametrised type")
        sub = self.layout(qname)
        if isinstance(size, int):  # substream of literal size
            return ("struct", qname), size, (sub[0] if sub is not None else None)
        if size is not None or sub is None:
            raise NotFixed("dynamic user type")
        return ("struct", qname), sub[1], sub[0]


def _enum_table(enums: dict) -> dict[str, dict[int, str]]:
    out = {}
    for name, values in (enums or {}).items():
        table = {}
        for key, val in values.items():
            k = int(key, 0) if isinstance(key, str) else int(key)
            if isinstance(val, dict):
                table[k] = str(val.get("-orig-id", val.get("id")))
            else:
                table[k] = str(val)
        out[name] = table
    return out


def _valid_value(v):
    if isinstance(v, dict):
        if "eq" in v:
            v = v["eq"]
        elif "any-of" in v:
            return tuple(_valid_value(x) for x in v["any-of"])
        else:
            return {k: _valid_value(x) for k, x in v.items()}
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return v
    return v


def build_layouts(specs: dict[str, dict]) -> dict:
    builder = LayoutBuilder(specs)
    layouts, enums, orig_ids, valids, sources = {}, {}, {}, {}, {}
    for qname, (spec, _scope, ksy_id) in builder.types.items():
        sources[qname] = f"formats/{ksy_id}.ksy"
        lay = builder.layout(qname)
        if lay is not None:
            layouts[qname] = {"size": lay[1], "fields": lay[0]}
        for ename, table in _enum_table(spec.get("enums")).items():
            enums[f"{qname}::{ename}"] = table
        oids = {a["id"]: a["-orig-id"] for a in spec.get("seq") or [] if "-orig-id" in a}
        for iid, inst in (spec.get("instances") or {}).items():
            if isinstance(inst, dict) and "-orig-id" in inst:
                oids[iid] = inst["-orig-id"]
        if "-orig-id" in spec:
            oids[""] = spec["-orig-id"]
        if oids:
            orig_ids[qname] = oids
        vals = {a["id"]: _valid_value(a["valid"]) for a in spec.get("seq") or [] if "valid" in a}
        if vals:
            valids[qname] = vals
    return {
        "LAYOUTS": layouts,
        "ENUMS": enums,
        "ORIG_IDS": orig_ids,
        "VALID": valids,
        "TYPE_SOURCES": sources,
    }


def _fmt(value, indent: int) -> str:
    """Deterministic, diff-friendly Python literal (dicts keep insertion order)."""
    pad = "    " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}    {_fmt_key(k)}: {_fmt(v, indent + 1)}," for k, v in value.items()]
        return "{\n" + "\n".join(items) + "\n" + pad + "}"
    if isinstance(value, int) and not isinstance(value, bool) and value > 255:
        return hex(value)
    return repr(value)


def _fmt_key(k) -> str:
    if isinstance(k, int) and not isinstance(k, bool):
        return hex(k) if k > 255 else repr(k)
    return repr(k)


LAYOUTS_DOC = '''"""Static layouts of the fixed-size types in formats/*.ksy, for vectorised decoders.

Derived from the .ksy files by formats/generate.py; never edit by hand.

``LAYOUTS[type]`` for every type whose seq is fixed-size (type names as Kaitai writes them
across files: ``"pg_page::item_id"``, ``"heap_tuple"`` for a file's top-level type):

    {"size": total bytes of the seq (instances excluded),
     "fields": {field id: (byte offset, kind)}}

where kind is

* a Kaitai primitive, little-endian unless suffixed: ``"u1" "u2" "u4" "u8" "s2" "s4" "s8"
  "f4" "f8"`` (``"u2be"`` etc. for big-endian);
* ``("bits", bit_offset, width)`` for a bit field (``bit-endian: le``): byte offset is the
  start of its run of bit fields, read as a little-endian unsigned integer of
  ceil((bit_offset + width) / 8) bytes or more, then ``(word >> bit_offset) & ((1 << width) - 1)``;
* ``("bytes", n)`` for a raw byte block;
* ``("array", kind, count)`` for ``repeat: expr`` with a literal count;
* ``("struct", type)`` for an embedded fixed-size type, whose own fields follow flattened as
  ``"field.subfield"`` with absolute offsets.

``ENUMS["file::type::enum"]`` maps each enum value to PostgreSQL's spelling (the value's
``-orig-id``), e.g. ``ENUMS["pg_page::lp_flags"][2] == "LP_REDIRECT"``; the generated
classes carry the same values under lowercase Kaitai ids (``PgPage.LpFlags.lp_redirect``).
``ORIG_IDS[type][field]`` is PostgreSQL's name where the Kaitai id differs (key ``""``: the
type's own C name). ``VALID[type][field]`` is the magic value a ``valid:`` demands.
``TYPE_SOURCES[type]`` names the .ksy that defines the type.
"""
'''


def layouts_module(specs: dict[str, dict], ksy_files: list[Path], compiler: str) -> str:
    tables = build_layouts(specs)
    parts = [
        MARKER,
        f"# Produced by formats/generate.py with kaitai-struct-compiler {compiler} (npm, pinned) from:",
    ]
    parts += _sources_comment(ksy_files, "#")
    parts.append(LAYOUTS_DOC.rstrip("\n"))
    parts.append("")
    for name, value in tables.items():
        parts.append(f"{name} = {_fmt(value, 0)}")
        parts.append("")
    return "\n".join(parts).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- named constants

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _doc_line(doc) -> str:
    return " ".join(str(doc).split()) if doc else ""


def build_constants(specs: dict[str, dict]) -> list[tuple[str, list[tuple[str, int, str]]]]:
    """Every named constant of the .ksy files, in sections: ``[(heading, [(name, value, doc)])]``.

    An enum value is named by its ``-orig-id`` (PostgreSQL's spelling), else its Kaitai id (with ``_NN`` after it
    when the enum's id ends in ``_NN``: a variant for majors NN and later, whose names PostgreSQL gave other
    values elsewhere); one whose
    PostgreSQL spelling is an expression (``FSM_CATEGORIES - 1``) gets no name. A fixed-size type is
    named by its ``-size-id`` (PostgreSQL's macro, e.g. ``SizeOfPageHeaderData``), else
    ``SIZEOF_<its -orig-id>``; one without a C name gets none. A name defined twice must have one value.
    """
    builder = LayoutBuilder(specs)
    seen: dict[str, tuple[int, str]] = {}
    sections = []

    def add(entries, name, value, doc, where):
        if name in seen:
            if seen[name][0] != value:
                raise GenerateError(f"{name} is {seen[name][0]} in {seen[name][1]} and {value} in {where}")
            return
        seen[name] = (value, where)
        entries.append((name, value, doc))

    for qname, (spec, _scope, ksy_id) in builder.types.items():
        for ename, values in (spec.get("enums") or {}).items():
            entries = []
            for key, val in values.items():
                value = int(key, 0) if isinstance(key, str) else int(key)
                if isinstance(val, dict):
                    name, doc = str(val.get("-orig-id", val.get("id"))), _doc_line(val.get("doc"))
                else:
                    name, doc = str(val), ""
                if _IDENT.match(name):
                    # an enum of one range of majors (bimg_info_10, bimg_info_15): PostgreSQL reused its names for
                    # other bits, so each variant's constants carry the first major they hold for
                    since = re.search(r"_(\d+)$", ename)
                    add(entries, f"{name}_{since[1]}" if since else name, value, doc, f"{qname}::{ename}")
            if entries:
                sections.append((f"formats/{ksy_id}.ksy: {qname}::{ename}", entries))
    sizes: dict[str, list] = {}
    for qname, (spec, _scope, ksy_id) in builder.types.items():
        lay = builder.layout(qname)
        name = spec.get("-size-id") or (f"SIZEOF_{spec['-orig-id']}" if "-orig-id" in spec else None)
        if lay is not None and name is not None:
            add(sizes.setdefault(ksy_id, []), name, lay[1], qname, qname)
    sections += [(f"formats/{ksy_id}.ksy: sizes in bytes", entries) for ksy_id, entries in sizes.items()]
    return sections


def _literal(value: int) -> str:
    return hex(value) if value > 255 else str(value)


def _sources_comment(ksy_files: list[Path], prefix: str) -> list[str]:
    return [f"{prefix}  formats/{p.name} (sha256 {hashlib.sha256(p.read_bytes()).hexdigest()})" for p in ksy_files]


def constants_module(specs: dict[str, dict], ksy_files: list[Path], compiler: str) -> str:
    parts = [MARKER, f"# Produced by formats/generate.py with kaitai-struct-compiler {compiler} (npm, pinned) from:"]
    parts += _sources_comment(ksy_files, "#")
    parts += ['"""Every constant formats/*.ksy define, by PostgreSQL\'s name: flag bits, masks, special values and',
              "the sizes of the fixed-size types. The compiled kernel includes the same table as ``pgp_layout.h``;",
              'see formats/generate.py (``build_constants``) for how a constant is named."""', ""]
    for heading, entries in build_constants(specs):
        parts.append(f"# {heading}")
        for name, value, doc in entries:
            parts.append(f"{name} = {_literal(value)}" + (f"  # {doc}" if doc else ""))
        parts.append("")
    return "\n".join(parts).rstrip("\n") + "\n"


def _c_comment(doc: str) -> str:
    return doc.replace("*/", "* /").replace("/*", "/ *")


def layout_header(specs: dict[str, dict], ksy_files: list[Path], compiler: str) -> str:
    parts = [C_MARKER,
             f" * Produced by formats/generate.py with kaitai-struct-compiler {compiler} (npm, pinned) from:"]
    parts += _sources_comment(ksy_files, " *")
    parts += [" *",
              " * Every constant the formats/ .ksy files define, by PostgreSQL's name (flag bits, masks, special values,",
              " * the sizes of the fixed-size types), for the compiled kernel (pgpage/decode/_kernel.h). The same table is",
              " * pgpage/decode/ksy/constants.py for Python. Edit the .ksy and run `python formats/generate.py`;",
              " * tests fail when this file drifts.",
              " */",
              "#ifndef PGP_LAYOUT_H",
              "#define PGP_LAYOUT_H",
              ""]
    for heading, entries in build_constants(specs):
        parts.append(f"/* {heading} */")
        for name, value, doc in entries:
            lit = _literal(value) + ("u" if value > 0x7FFFFFFF else "")
            parts.append(f"#define {name} {lit}" + (f"  /* {_c_comment(doc)} */" if doc else ""))
        parts.append("")
    parts.append("#endif /* PGP_LAYOUT_H */")
    return "\n".join(parts) + "\n"


def _type_oid_symbol(typname: str) -> str:
    """genbki.pl's form_pg_type_symbol: foo_bar -> FOO_BAROID, _foo_bar -> FOO_BARARRAYOID."""
    m = re.fullmatch(r"(_)?(\w+)", typname)
    if m is None:
        raise GenerateError(f"{TYPE_OIDS.name}: no symbol for type name {typname!r}")
    return m.group(2).upper() + ("ARRAY" if m.group(1) else "") + "OID"


def type_oids_module() -> str:
    data = yaml.safe_load(TYPE_OIDS.read_text())
    rows = data.get("types") if isinstance(data, dict) else None
    if not rows:
        raise GenerateError(f"{TYPE_OIDS.name}: no `types:` list")
    symbols: dict[str, int] = {}
    lines = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3):
            raise GenerateError(f"{TYPE_OIDS.name}: {row!r} is not [oid, typname, array_type_oid]")
        oid, typname, array_oid = row
        pairs = [(_type_oid_symbol(typname), oid)]
        if array_oid is not None:
            pairs.append((_type_oid_symbol("_" + typname), array_oid))
        for symbol, value in pairs:
            if not isinstance(value, int) or symbol in symbols or value in symbols.values():
                raise GenerateError(f"{TYPE_OIDS.name}: {symbol} = {value!r} is not a new OID")
            symbols[symbol] = value
            lines.append(f"{symbol} = {value}")
    digest = hashlib.sha256(TYPE_OIDS.read_bytes()).hexdigest()
    head = [MARKER,
            f"# Source: formats/{TYPE_OIDS.name} (sha256 {digest})",
            "# Produced by formats/generate.py; edit the .yaml and run `python formats/generate.py`.",
            '"""Built-in type OIDs under the names pg_type_d.h gives them, transcribed from',
            f'{data.get("doc-ref", "pg_type.dat")}."""',
            ""]
    return "\n".join(head + lines) + "\n"


# --------------------------------------------------------------------------- driver


def generate(out_dir: Path) -> list[str]:
    """Write every generated file into out_dir; return the file names written."""
    ksy_files = sorted(FORMATS.glob("*.ksy"))
    if not ksy_files:
        raise GenerateError("no formats/*.ksy files")
    specs = load_specs(ksy_files)
    node = ensure_compiler()
    compiler = pinned_compiler_version()
    modules = set(specs)
    files: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="pgpage-ksc-") as raw:
        raw_dir = Path(raw)
        compile_all(node, ksy_files, raw_dir)
        for path in ksy_files:
            produced = raw_dir / f"{path.stem}.py"
            if not produced.is_file():
                raise GenerateError(f"{path.name}: the compiler produced no {produced.name}")
            files[produced.name] = fix_module(produced.read_text(), path, modules, compiler)
    files["__init__.py"] = init_module(specs, ksy_files, compiler)
    files["layouts.py"] = layouts_module(specs, ksy_files, compiler)
    files["constants.py"] = constants_module(specs, ksy_files, compiler)
    files[HEADER] = layout_header(specs, ksy_files, compiler)
    files["type_oids.py"] = type_oids_module()

    out_dir.mkdir(parents=True, exist_ok=True)
    # drop stale generated modules (e.g. of a removed .ksy); never touch anything else
    for old in [*out_dir.glob("*.py"), *out_dir.glob("*.h")]:
        if old.name not in files and old.read_text(errors="replace").startswith((MARKER, C_MARKER)):
            old.unlink()
    for name, text in files.items():
        target = out_dir / name
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
    return sorted(files)


def check() -> int:
    with tempfile.TemporaryDirectory(prefix="pgpage-ksy-check-") as tmp:
        fresh_dir = Path(tmp)
        generate(fresh_dir)
        fresh = {p.name for p in fresh_dir.glob("*") if p.is_file()}
        current = {p.name for p in OUT_DIR.glob("*") if p.is_file()} if OUT_DIR.is_dir() else set()
        problems = []
        for name in sorted(fresh | current):
            if name not in current:
                problems.append(f"missing: pgpage/decode/ksy/{name}")
            elif name not in fresh:
                problems.append(f"not generated by any formats/*.ksy: pgpage/decode/ksy/{name}")
            else:
                a = (OUT_DIR / name).read_text(errors="replace")
                b = (fresh_dir / name).read_text()
                if a != b:
                    diff = list(difflib.unified_diff(
                        a.splitlines(), b.splitlines(),
                        f"committed/{name}", f"regenerated/{name}", lineterm="", n=1,
                    ))
                    shown = "\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else "")
                    problems.append(f"differs: pgpage/decode/ksy/{name}\n{shown}")
    if problems:
        sys.stderr.write(
            "generate.py --check: pgpage/decode/ksy/ does not match formats/*.ksy "
            "(run `python formats/generate.py` and commit the result):\n"
        )
        for p in problems:
            sys.stderr.write(f"  {p}\n")
        return 1
    print(f"generate.py --check: pgpage/decode/ksy/ matches formats/*.ksy ({len(fresh)} files)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temp dir and fail if pgpage/decode/ksy/ differs")
    ap.add_argument("--out", type=Path, default=OUT_DIR,
                    help="output directory (default: pgpage/decode/ksy)")
    args = ap.parse_args(argv)
    try:
        if args.check:
            return check()
        names = generate(args.out.resolve())
    except GenerateError as exc:
        sys.stderr.write(f"generate.py: {exc}\n")
        return 2
    print(f"generate.py: wrote {len(names)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
