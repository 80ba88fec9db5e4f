"""The terminal's numbered choices for one position, shown a screenful at a time.

A short menu (at most ``SHORT`` choices) is listed whole, in the game's order, as it always was. A long
one (Falconry placements, Eagle Kingdoms trades: hundreds of choices) is grouped by the game's view
(``TextView.choice_group``: by kind of move, by piece, by target) and shown at most ``PAGE`` lines at a
time: its groups, each with a code (``a``, ``b`` ...; ``ab`` is group ``b`` inside ``a``) to open it, or,
where that is short, its choices under a heading per group; ``more`` shows the next part of a list.

Numbers are fixed for the position: choice 37 is choice 37 whichever group or page is on screen, so a
number read off one screen can be typed at any time. Codes are fixed too (``b`` always opens the same
group). Pure text, no I/O: the terminal prints the lines and passes the typed words in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

SHORT = 12
"""A menu of at most this many choices is listed whole (one screen)."""
PAGE = 9
"""Lines of choices or groups shown at a time in a long menu (plus a title and up to two lines of how to
go on: about 12 lines in all)."""
HEADED_PARTS = 2
"""A group whose choices fit in this many parts with a heading per subgroup is listed so; a bigger one
shows its subgroups, to be opened one at a time."""
HEADING = "    -- "
LETTERS = "abcdefghijklmnoprstuvwxyz"
"""Group codes; no 'q', which quits."""

Path = tuple[str, ...]


@dataclass
class Menu:
    """The legal actions of one position in number order (choice ``n`` is ``actions[n - 1]``), with each
    one's text and group path, and where the family is looking (``path``, ``page``)."""

    actions: list[Any]
    texts: list[str]
    paths: list[Path]
    path: Path = ()
    page: int = 0
    codes: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def build(cls, actions: Sequence[Any], describe: Callable[[Any], str],
              group: Callable[[Any], Sequence[str]]) -> Menu:
        """Number ``actions``: as given when the menu is short, else group by group (groups in the order
        their first choice comes in ``actions``, so a game's own order is kept inside each group)."""
        actions = list(actions)
        if len(actions) <= SHORT:
            paths: list[Path] = [() for _ in actions]
        else:
            paths = [tuple(str(label) for label in group(a)) for a in actions]
            first: dict[Path, int] = {}
            for index, path in enumerate(paths):
                for depth in range(1, len(path) + 1):
                    first.setdefault(path[:depth], index)

            def key(index: int) -> tuple[int, ...]:
                path = paths[index]
                return tuple(first[path[:d]] for d in range(1, len(path) + 1)) + (index,)

            order = sorted(range(len(actions)), key=key)
            actions = [actions[i] for i in order]
            paths = [paths[i] for i in order]
        menu = cls(actions, [describe(a) for a in actions], paths)
        menu.codes = menu._code_groups()
        return menu

    def _code_groups(self) -> dict[Path, str]:
        codes: dict[Path, str] = {}
        for path in self.paths:
            for depth in range(1, len(path) + 1):
                group = path[:depth]
                if group in codes:
                    continue
                parent = codes.get(group[:-1], "")
                siblings = sum(1 for other in codes if len(other) == depth and other[:-1] == group[:-1])
                if siblings >= len(LETTERS):  # too many groups side by side: the parent is paged as a list
                    return {}
                codes[group] = parent + LETTERS[siblings]
        return codes

    # --- what is under a group --------------------------------------------------------------------------
    def numbers_in(self, path: Path) -> list[int]:
        """The numbers of the choices in group ``path`` (all of them for ``()``); contiguous."""
        return [n for n, p in enumerate(self.paths, start=1) if p[:len(path)] == path]

    def _entries(self, path: Path) -> list[int | Path]:
        """What group ``path`` holds, in order: choice numbers and subgroups."""
        entries: list[int | Path] = []
        for number in self.numbers_in(path):
            own = self.paths[number - 1]
            if len(own) == len(path) or not self.codes:
                entries.append(number)
            elif own[:len(path) + 1] not in entries:
                entries.append(own[:len(path) + 1])
        return entries

    def _shown(self, path: Path) -> Path:
        """The group actually shown for ``path``: a group with a single subgroup and nothing else opens it."""
        while len(self.numbers_in(path)) > SHORT:
            entries = self._entries(path)
            if len(entries) == 1 and isinstance(entries[0], tuple):
                path = entries[0]
            else:
                break
        return path

    def _headed(self, path: Path) -> bool:
        """Whether group ``path`` lists its choices under headings (when that takes at most two parts)
        rather than as subgroups to open one by one."""
        groups = sum(1 for e in self._entries(path) if isinstance(e, tuple))
        return groups > 0 and len(self.numbers_in(path)) + groups <= HEADED_PARTS * PAGE

    def _lines(self, path: Path) -> list[str]:
        """The lines of group ``path``: its choices (under headings when that is short), or its subgroups,
        one line each with their letters, and the choices that belong to no subgroup (or a group of one)."""
        numbers = self.numbers_in(path)
        width = len(str(len(self.actions)))
        if len(numbers) <= SHORT:
            return [self._choice_line(n, width) for n in numbers]
        lines = []
        if self._headed(path):
            heading: Path = ()
            for number in numbers:
                own = self.paths[number - 1][:len(path) + 1]
                if own != heading and len(own) > len(path):
                    lines.append(f"{HEADING}{own[-1]}:")
                heading = own
                lines.append(self._choice_line(number, width))
            return lines
        for entry in self._entries(path):
            inside = [entry] if isinstance(entry, int) else self.numbers_in(entry)
            if isinstance(entry, int) or len(inside) == 1:  # a group of one is shown as its choice
                lines.append(self._choice_line(inside[0], width))
            else:
                lines.append(f"  {self.codes[entry]:>{width + 1}}) {entry[-1]}  "
                             f"({len(inside)} choices: {inside[0]}-{inside[-1]})")
        return lines

    def _choice_line(self, number: int, width: int) -> str:
        return f"  {number:>{width}}. {self.texts[number - 1]}"

    @staticmethod
    def _parts(lines: list[str]) -> list[list[str]]:
        """``lines`` cut into parts of at most ``PAGE`` lines; no part ends on a heading."""
        if len(lines) <= PAGE + 2:  # no part of a line or two on its own
            return [lines]
        parts: list[list[str]] = [[]]
        for index, line in enumerate(lines):
            heading_last = line.startswith(HEADING) and len(parts[-1]) == PAGE - 1
            if len(parts[-1]) == PAGE or heading_last and index + 1 < len(lines):
                parts.append([])
            parts[-1].append(line)
        return parts

    # --- the screen -------------------------------------------------------------------------------------
    def screen(self, who: str, hint: str = "") -> list[str]:
        """The lines to print now: a title, the whole of a short list or at most ``PAGE`` lines of a long
        one, and how to see the rest (``hint``: the game's own way to skip the list, shown at the top)."""
        path = self._shown(self.path)
        lines = self._lines(path)
        total = len(self.actions)
        if total <= SHORT:
            return [f"{who}, choose:"] + lines
        parts = self._parts(lines)
        page = min(self.page, len(parts) - 1)
        inside = self.numbers_in(path)
        span = f"{inside[0]}-{inside[-1]} of " if len(inside) > 1 else f"{inside[0]} of "
        title = f"{who}, choose" + (f" - {' / '.join(path)}" if path else "")
        title += f" ({span if len(inside) < total else ''}{total} choices"
        codes = [self.codes[e] for e in self._entries(path) if isinstance(e, tuple) and len(self.numbers_in(e)) > 1]
        if len(inside) > SHORT and not self._headed(path) and codes:
            title += f"; type a group's {'letter' if len(codes[0]) == 1 else 'letters'}, e.g. '{codes[0]}', to open it"
        title += "):"
        footer = []
        if page + 1 < len(parts):
            rest = sum(len(part) for part in parts[page + 1:])
            footer.append(f"  'more' (or Enter) for the rest ({rest} more {'line' if rest == 1 else 'lines'}; "
                          f"part {page + 1} of {len(parts)}).")
        elif len(parts) > 1:
            footer.append(f"  Part {len(parts)} of {len(parts)}; 'more' starts this list again.")
        if self._shown(()) != path:
            footer.append("  'back' for the list above; every number can be typed at any time.")
        elif hint:
            footer.append(f"  {hint}")
        return [title] + parts[page] + footer

    def _part_count(self) -> int:
        return len(self._parts(self._lines(self._shown(self.path))))

    def is_long(self) -> bool:
        """Whether the menu is grouped and shown in parts (more than ``SHORT`` choices)."""
        return len(self.actions) > SHORT

    def has_more(self) -> bool:
        """Whether the list on screen goes on past the part shown."""
        return self.is_long() and self.page + 1 < self._part_count()

    def in_parts(self) -> bool:
        """Whether the list on screen is shown in more than one part."""
        return self.is_long() and self._part_count() > 1

    def more(self) -> None:
        """The next part of the list on screen (the first again after the last)."""
        self.page = (self.page + 1) % self._part_count()

    def open(self, code: str) -> bool:
        """Show the group with ``code`` (False when no group has it)."""
        for path, known in self.codes.items():
            if known == code:
                self.path, self.page = path, 0
                return True
        return False

    def back(self) -> bool:
        """Show the list above the one on screen (False at the top)."""
        shown = self._shown(self.path)
        parent = shown
        while parent:
            parent = parent[:-1]
            if self._shown(parent) != shown:
                self.path, self.page = parent, 0
                return True
        return False

    def top(self) -> None:
        self.path, self.page = (), 0
