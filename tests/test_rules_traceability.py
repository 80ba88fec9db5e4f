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


def marked_ids() -> set[str]:
    """IDs given to @pytest.mark.rules(...) anywhere in tests/."""
    marked: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        for args in re.findall(r"@pytest\.mark\.rules\(([^)]*)\)", path.read_text(encoding="utf-8")):
            marked.update(TOKEN.findall(args))
    return marked


def defined_ids(rules_file: Path) -> list[str]:
    return DEFINITION.findall(rules_file.read_text(encoding="utf-8"))


def test_rule_files_exist_for_games_with_rules():
    for package in (ROOT / "companion" / "games").iterdir():
        if (package / "rules.py").exists():
            assert (package / "RULES.md").exists(), f"{package.name} has rules.py but no RULES.md"


@pytest.mark.parametrize("rules_file", RULE_FILES, ids=lambda p: p.parent.name)
def test_every_rule_id_is_cited_by_a_test(rules_file):
    ids = defined_ids(rules_file)
    assert ids, f"{rules_file} defines no rule IDs (expected lines like '- **EK-CAP-1** ...')"
    assert len(ids) == len(set(ids)), "duplicate rule IDs"
    missing = sorted(set(ids) - cited_ids())
    assert not missing, f"rule IDs never cited in tests/: {', '.join(missing)}"


@pytest.mark.parametrize("rules_file", RULE_FILES, ids=lambda p: p.parent.name)
def test_marked_and_raised_ids_exist(rules_file):
    """A typo in a test marker or in a refusal's rule ID is caught: it must name a real rule."""
    ids = set(defined_ids(rules_file))
    prefix = next(iter(ids)).split("-")[0] + "-"
    unknown_marks = sorted(i for i in marked_ids() if i.startswith(prefix) and i not in ids)
    assert not unknown_marks, f"tests mark rule IDs that {rules_file.name} does not define: {unknown_marks}"
    raised: set[str] = set()
    for source in rules_file.parent.glob("*.py"):
        raised.update(re.findall(r'"(' + prefix + r'[A-Z0-9]+(?:[-.][A-Z0-9]+)*)"', source.read_text(encoding="utf-8")))
    assert not sorted(raised - ids), f"the rules name IDs missing from RULES.md: {sorted(raised - ids)}"
