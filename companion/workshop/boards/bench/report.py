"""The conditions benchmark as a table: condition x game x rendition.

    python -m companion.workshop.boards.bench.report BENCH.json [BEFORE.json]

reads the JSON of ``companion bench board --conditions all --renditions 1,2 --json`` and prints one
Markdown table per rendition: in each cell ``exact / silently wrong / refused or unsure`` (boards, %)
and the per-space silent error, then the median ms; with a second file, its figures in brackets (before).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies", "kingdom-scan")


def cell(r: Mapping[str, Any] | None) -> str:
    if not r:
        return "-"
    if "error" in r:
        return "error"
    exact = r.get("board_exact", 0.0)
    refused = r.get("refused", 0.0)
    if "boards_silent" in r:
        silent = r["boards_silent"]
    else:  # the kingdom scan: a final score that is wrong
        silent = r.get("score_wrong", 0.0)
    unsure = max(0.0, 1.0 - exact - silent - refused)
    return (f"{exact:.0%} / **{silent:.0%}** / {refused:.0%}+{unsure:.0%} "
            f"(space silent {r.get('silent_error', 0.0):.2%}, {r.get('cpu_ms_median', r.get('ms_median', 0.0)):.0f} ms)")


def table(report: Mapping[str, Any], rendition: str, before: Mapping[str, Any] | None = None) -> str:
    games = [g for g in GAMES if g in report]
    conditions: list[str] = []
    for g in games:
        for c in report[g].get(rendition, {}):
            if c not in conditions:
                conditions.append(c)
    lines = ["| condition | " + " | ".join(games) + " |", "|---" * (len(games) + 1) + "|"]
    for c in conditions:
        row = []
        for g in games:
            now = cell(report[g].get(rendition, {}).get(c))
            if before is not None and g in before:
                now += f" [before: {cell(before[g].get(rendition, {}).get(c))}]"
            row.append(now)
        lines.append(f"| {c} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(__doc__)
        return 2
    report = json.loads(open(args[0], encoding="utf-8").read())
    before = json.loads(open(args[1], encoding="utf-8").read()) if len(args) > 1 else None
    print("cells: boards exact / **silently wrong** (kingdom scan: final score wrong) / refused+unsure; "
          "per-space silent error; median CPU ms per frame\n")
    for rendition in ("r1", "r2", "r1-taught", "r2-taught"):
        if any(rendition in report.get(g, {}) for g in GAMES):
            print(f"### Rendition {rendition[1:].replace('-taught', ', taught from one photo')}\n")
            print(table(report, rendition, before))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
