"""No import cycles inside ``companion/`` (issue 23): read statically with ``ast``, every import counts --
at the top of a module or inside a function (a lazy import hides a cycle, it does not remove it), absolute
or relative. Only imports under ``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

import companion

PACKAGE = Path(companion.__file__).resolve().parent


def module_names(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (``pkg/__init__.py`` is ``pkg``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` (the module ``module``) imports."""
    tree = ast.parse(source)
    skipped = _type_checking_only(tree)
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # ``from pkg import mod`` imports the module; ``from mod import name`` the module
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                if target in known:
                    found.add(target)
    found.discard(module)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    modules = module_names(root)
    known = set(modules)
    return {name: imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known)
            for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_inside_companion():
    graph = import_graph()
    assert {"companion.app.main", "companion.games.core", "companion.vision.reader", "companion.referee.dice"} <= set(graph)
    assert "companion.app.calibration" in graph["companion.app.table_camera"]  # the scan sees the package's own imports
    found = cycles(graph)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_scan_finds_a_cycle_in_every_form_of_import():
    """The check above can fail: top-level, lazy and relative imports all make edges; TYPE_CHECKING does not."""
    known = {"p", "p.a", "p.b", "p.c"}
    assert imports_of("from p.b import thing", "p.a", False, known) == {"p.b"}
    assert imports_of("def f():\n    import p.b\n", "p.a", False, known) == {"p.b"}
    assert imports_of("from . import b, c", "p.a", False, known) == {"p.b", "p.c"}
    assert imports_of("from .b import thing", "p.a", False, known) == {"p.b"}
    assert imports_of("from p import name_in_init", "p.a", False, known) == {"p"}
    assert imports_of("import os\nfrom numpy import array", "p.a", False, known) == set()
    lazy_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b import thing\n"
    assert imports_of(lazy_only, "p.a", False, known) == set()
    assert cycles({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}}) == [["p.a", "p.b", "p.c"]]
    assert cycles({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": set()}) == []
