"""Every rule ID of every game's RULES.md is cited by at least one test."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULE_FILES = sorted((ROOT / "companion" / "games").glob("*/RULES.md"))
DEFINITION = re.compile(r"^\s*[-*]\s+\*\*([A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*)\*\*", re.MULTILINE)
TOKEN = re.compile(r"[A-Z]{2,3}-[A-Z0-9]+(?:[-.][A-Z0-9]+)*")


def cited_ids() -> set[str]:
    cited: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        cited.update(TOKEN.findall(path.read_text(encoding="utf-8")))
    return cited


def test_rule_files_exist_for_games_with_rules():
    for package in (ROOT / "companion" / "games").iterdir():
        if (package / "rules.py").exists():
            assert (package / "RULES.md").exists(), f"{package.name} has rules.py but no RULES.md"


@pytest.mark.parametrize("rules_file", RULE_FILES, ids=lambda p: p.parent.name)
def test_every_rule_id_is_cited_by_a_test(rules_file):
    ids = DEFINITION.findall(rules_file.read_text(encoding="utf-8"))
    assert ids, f"{rules_file} defines no rule IDs (expected lines like '- **EK-CAP-1** ...')"
    assert len(ids) == len(set(ids)), "duplicate rule IDs"
    missing = sorted(set(ids) - cited_ids())
    assert not missing, f"rule IDs never cited in tests/: {', '.join(missing)}"
