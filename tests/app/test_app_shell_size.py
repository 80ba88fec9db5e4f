"""The app is a thin shell (issue 23, item 4): ``CompanionApp`` composes the screens, the camera session and
the controller and stays at most 250 lines; what it grows by belongs in a UI-free module or a screen. Read
statically (no Kivy needed)."""

from __future__ import annotations

import ast
from pathlib import Path

import companion.app

MAIN = Path(companion.app.__file__).resolve().parent / "main.py"


def class_lines(path: Path, name: str) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    return node.end_lineno - node.lineno + 1


def test_the_app_class_stays_a_thin_composer():
    assert class_lines(MAIN, "CompanionApp") <= 250


def test_the_size_check_counts_the_class_it_names(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("class A:\n    x = 1\n\n    def f(self):\n        return 2\n\n\nclass B:\n    pass\n")
    assert class_lines(module, "A") == 5 and class_lines(module, "B") == 2
