"""The tiers import one way (docs/ARCHITECTURE.md): every import of every module of the package, at module
level or inside a function, is read from the source, and an import that runs against the tiers, or a circle
of modules importing each other, fails the test by name.

    decode      <- storage    <- passes <- cli
    decode      <- analysis   <- passes
                   render                <- cli
    findings: every tier
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pgpage"

# what each tier may import besides itself and pgpage.findings (the one vocabulary every layer uses)
MAY_IMPORT = {
    "decode": set(),
    "storage": {"decode"},
    "analysis": {"decode"},
    "passes": {"decode", "storage", "analysis"},
    "render": set(),
    "cli": {"passes", "render"},
}
SHARED = {"pgpage", "pgpage.findings"}  # the package itself (its __init__ only sets the version) and findings

# imports that run against the tiers on purpose, by (importing module, imported module), with the reason
ALLOWED_AGAINST_TIERS = {
    # Relation.rows(): the Python API's convenience (README: `customers.rows(all_versions=True)`) builds the
    # rows pass for the relation it is called on. The import is inside the method, so storage does not load
    # passes unless a caller asks a relation for its rows; the commands use passes.rows directly.
    ("pgpage.storage.datadir", "pgpage.passes.rows"),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str) -> set[str]:
    """The pgpage modules ``name`` imports, anywhere in its source (``from pgpage.x import y`` names the module
    pgpage.x.y when y is a module, else pgpage.x)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package of this module, up level - 1
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:  # `import pgpage.decode.ksy.layouts` names that module
                t = t.rpartition(".")[0]
            if t.startswith("pgpage") and t != name:
                out.add(t)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def tier(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in MAY_IMPORT else None


def test_the_tiers_are_the_package():
    """Every module but the package's own __init__, __main__ and findings belongs to a tier."""
    outside = {n for n in MODULES if tier(n) is None} - SHARED - {"pgpage.__main__"}
    assert not outside, f"modules in no tier (add them to one, or to docs/ARCHITECTURE.md's drawing): {outside}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_run_one_way(name):
    mine = tier(name)
    if mine is None:
        return
    allowed = MAY_IMPORT[mine] | {mine}
    wrong = sorted(t for t in GRAPH[name] if t not in SHARED and tier(t) not in allowed
                   and (name, t) not in ALLOWED_AGAINST_TIERS)
    assert not wrong, f"{name} ({mine}) imports {wrong}: {mine} may import only {sorted(allowed)} and findings"


def test_the_allowed_exceptions_still_exist():
    """A whitelisted import that is gone is taken off the list (so the list says what the code does)."""
    stale = [pair for pair in ALLOWED_AGAINST_TIERS if pair[1] not in GRAPH.get(pair[0], ())]
    assert not stale


def test_no_circles():
    """No module reaches itself through the modules it imports (Tarjan's strongly connected components;
    the whitelisted imports left out)."""
    graph = {n: {t for t in ts if (n, t) not in ALLOWED_AGAINST_TIERS} for n, ts in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # (recursion depth: at most the number of modules)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, f"modules importing each other: {circles}"


def test_the_reader_sees_real_imports():
    """The parser finds what it should: a module-level import, one inside a function, a `from x import
    module`, and the whitelisted one."""
    assert "pgpage.decode.pagebase" in GRAPH["pgpage.decode.page"]
    assert "pgpage.decode.heap" in GRAPH["pgpage.decode.page"]            # inside decode_page
    assert "pgpage.passes.parallel" in GRAPH["pgpage.passes.heap"]        # inside heap_report
    assert "pgpage.decode.kernels" in GRAPH["pgpage.decode.checksum"]     # `from pgpage.decode import kernels`
    assert "pgpage.passes.rows" in GRAPH["pgpage.storage.datadir"]
