"""Every rule ID of RULES.md is checked by a test of this folder through @pytest.mark.rules."""

import re
from pathlib import Path

import companion.games.eagle_kingdoms as package

RULES = Path(package.__file__).with_name("RULES.md")
HERE = Path(__file__).resolve().parent


def test_every_rule_has_a_marked_test():
    ids = re.findall(r"^- \*\*(EK-[A-Z0-9-]+)\*\*", RULES.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(ids) == len(set(ids)) > 40
    marked = set()
    for path in HERE.glob("test_ek_*.py"):
        for args in re.findall(r"@pytest\.mark\.rules\(([^)]*)\)", path.read_text(encoding="utf-8")):
            marked.update(re.findall(r'"(EK-[A-Z0-9-]+)"', args))
    assert not set(ids) - marked, f"rules without a marked test: {sorted(set(ids) - marked)}"
    assert not marked - set(ids), f"markers naming no rule: {sorted(marked - set(ids))}"


def test_rule_ids_named_in_refusals_exist():
    ids = set(re.findall(r"\*\*(EK-[A-Z0-9-]+)\*\*", RULES.read_text(encoding="utf-8")))
    source = "".join(p.read_text(encoding="utf-8") for p in Path(package.__file__).parent.glob("*.py"))
    named = set(re.findall(r'"(EK-[A-Z0-9-]+)"', source))
    assert named <= ids, f"rule IDs in the code but not in RULES.md: {sorted(named - ids)}"
