"""The runtime never imports the workshop (issue 23): what runs at the table -- the games, the journal,
the terminal, vision, the referee and the app -- imports nothing of ``companion.workshop``, not even
lazily inside a function. One exception: the app's demo recording (``app/demo_scene.py``) paints its
frames with the workshop's scene painters. The ``companion`` command may name workshop commands
(``companion bench ...``) as strings it imports when asked; nothing else may import a module by a
workshop name either.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import companion

PACKAGE = Path(companion.__file__).resolve().parent
WORKSHOP = "companion.workshop"
ALLOWED_IMPORTERS = {"companion/app/demo_scene.py"}  # the demo recording's renderer
ALLOWED_NAMES = {"companion/cli.py"}  # its BENCHES table: the workshop commands it launches on request
MODULE_NAME = re.compile(r"^companion\.workshop(\.\w+)*(:\w+)?$")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def workshop_imports(source: str, module: str, is_package: bool = False, allow_names: bool = False) -> list[str]:
    """Each import of a workshop module in ``source`` (top level or inside a function, absolute or
    relative), and each string that names one (``importlib.import_module("companion.workshop...")``)."""
    found = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and not allow_names:
            if MODULE_NAME.match(node.value):
                targets = [node.value]
        hits = [t for t in targets if t == WORKSHOP or t.startswith(WORKSHOP + ".")]
        if hits:
            found.append(f"line {node.lineno}: {hits[0]}")
    return found


def runtime_modules() -> list[Path]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("companion/workshop/") or rel in ALLOWED_IMPORTERS:
            continue
        out.append(path)
    return out


def test_no_runtime_module_imports_the_workshop():
    modules = runtime_modules()
    names = {p.relative_to(PACKAGE.parent).as_posix() for p in modules}
    # the scan covers what runs at the table (a moved or renamed package must not slip out of it)
    assert {"companion/cli.py", "companion/journal.py", "companion/terminal.py", "companion/app/main.py",
            "companion/app/demo.py", "companion/vision/reader.py", "companion/referee/match.py",
            "companion/games/core.py"} <= names
    assert not any(n.startswith("companion/workshop/") for n in names)
    offenders = {}
    for path in modules:
        rel = path.relative_to(PACKAGE.parent).as_posix()
        hits = workshop_imports(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py",
                                allow_names=rel in ALLOWED_NAMES)
        if hits:
            offenders[rel] = hits
    assert not offenders, f"runtime modules importing the workshop: {offenders}"


def test_the_scan_finds_every_way_of_importing():
    """The check above can fail: each form of import is found, and imports of the runtime are not."""
    assert workshop_imports("import companion.workshop.dice.synth", "companion.vision.x")
    assert workshop_imports("from companion.workshop.boards import scenes", "companion.vision.x")
    assert workshop_imports("def f():\n    from companion.workshop import dice\n", "companion.vision.x")
    assert workshop_imports("from ..workshop.dice import synth", "companion.vision.x")
    assert workshop_imports("from .. import workshop", "companion.vision.x")
    assert workshop_imports("importlib.import_module('companion.workshop.dice.bench')", "companion.app.x")
    assert not workshop_imports("importlib.import_module('companion.workshop.dice.bench')", "companion.cli",
                                allow_names=True)
    assert not workshop_imports("from companion.vision import reader\nfrom . import pose", "companion.vision.x")
    assert not workshop_imports('"""Made by :mod:`companion.workshop` (a docstring)."""', "companion.vision.x")


def test_the_exception_is_still_needed():
    """The demo recording does paint with the workshop; when it stops, its exemption goes too."""
    for rel in ALLOWED_IMPORTERS:
        path = PACKAGE.parent / rel
        assert workshop_imports(path.read_text(encoding="utf-8"), module_name(path)), rel
