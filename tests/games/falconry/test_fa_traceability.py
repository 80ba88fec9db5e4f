"""Every rule of RULES.md is cited by a test of this folder, in the rulebook's order, with a valid ID."""

import re
from pathlib import Path

import companion.games.falconry as package

RULES = Path(package.__file__).with_name("RULES.md")
HERE = Path(__file__).parent


def rule_ids():
    return re.findall(r"^- \*\*(FA-[A-Z0-9-]+)\*\*", RULES.read_text(encoding="utf-8"), flags=re.M)


def test_rule_ids_are_unique_and_well_formed():
    ids = rule_ids()
    assert len(ids) >= 30 and len(ids) == len(set(ids))
    assert all(re.fullmatch(r"FA(-[A-Z0-9]+)+", i) for i in ids)


def test_every_rule_is_cited_by_a_test():
    cited = set()
    for path in HERE.glob("test_fa_*.py"):
        for marks in re.findall(r"@pytest\.mark\.rules\(([^)]*)\)", path.read_text(encoding="utf-8")):
            cited.update(re.findall(r'"(FA-[A-Z0-9-]+)"', marks))
    missing = [i for i in rule_ids() if i not in cited]
    assert not missing, f"rules without a test: {missing}"
    unknown = cited - set(rule_ids())
    assert not unknown, f"tests cite unknown rules: {sorted(unknown)}"


def test_rule_ids_used_by_the_engine_exist():
    source = "".join(p.read_text(encoding="utf-8") for p in Path(package.__file__).parent.glob("*.py"))
    used = set(re.findall(r'"(FA-[A-Z0-9-]+)"', source))
    assert used <= set(rule_ids()), sorted(used - set(rule_ids()))
