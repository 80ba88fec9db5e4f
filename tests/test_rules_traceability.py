"""Traceability, for every game: each rule ID of its RULES.md is cited by a test through
``@pytest.mark.rules``, and every rule ID a test marks or the game's code names exists."""

import re
from pathlib import Path

import pytest

from companion.games.registry import GAMES, load_game

ROOT = Path(__file__).resolve().parents[1]
DEFINITION = re.compile(r"^\s*[-*]\s+\*\*([A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*)\*\*", re.MULTILINE)
TOKEN = re.compile(r"[A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*")


def marked_ids() -> set[str]:
    """IDs given to @pytest.mark.rules(...) anywhere in tests/."""
    marked: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for args in re.findall(r"@pytest\.mark\.rules\(([^)]*)\)", path.read_text(encoding="utf-8")):
            marked.update(TOKEN.findall(args))
    return marked


def test_every_game_package_with_rules_has_a_rules_file():
    for package in (ROOT / "companion" / "games").iterdir():
        if (package / "rules.py").exists():
            assert (package / "RULES.md").exists(), f"{package.name} has rules.py but no RULES.md"


@pytest.mark.parametrize("name", GAMES)
def test_rule_ids_are_cited_by_tests_and_every_cited_id_exists(name):
    module = load_game(name)
    package = Path(module.module.__file__).parent
    prefix = module.game_class.rule_prefix + "-"
    text = (package / "RULES.md").read_text(encoding="utf-8")
    ids = DEFINITION.findall(text)
    assert ids, f"{name}: RULES.md defines no rule IDs (expected lines like '- **EK-CAP-1** ...')"
    assert len(ids) == len(re.findall(r"^\s*[-*]\s+\*\*", text, re.MULTILINE)), f"{name}: a malformed rule ID"
    assert len(ids) == len(set(ids)), f"{name}: duplicate rule IDs"
    assert all(i.startswith(prefix) for i in ids), f"{name}: rule IDs not starting with {prefix}"
    marked = {i for i in marked_ids() if i.startswith(prefix)}
    assert not sorted(set(ids) - marked), f"rule IDs no test marks with @pytest.mark.rules: {sorted(set(ids) - marked)}"
    assert not sorted(marked - set(ids)), f"tests mark rule IDs RULES.md does not define: {sorted(marked - set(ids))}"
    named: set[str] = set()
    for source in package.glob("*.py"):
        named.update(re.findall(r'"(' + prefix + r'[A-Z0-9]+(?:[-.][A-Z0-9]+)*)"', source.read_text(encoding="utf-8")))
    assert not sorted(named - set(ids)), f"the rules name IDs missing from RULES.md: {sorted(named - set(ids))}"
