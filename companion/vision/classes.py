"""The classifier's classes: what an upward face can read, per die kind."""

from __future__ import annotations

COLOUR_FACES = ("yellow", "blue", "red", "green", "magpie")
KINDS = ("d6", "d8", "magpie")

# index -> (kind, value); the last class means "not a die, or its upward face cannot be read"
CLASSES: list[tuple[str, int | str | None]] = (
    [("d6", v) for v in range(1, 7)] + [("d8", v) for v in range(1, 9)] + [("magpie", c) for c in COLOUR_FACES]
    + [("none", None)]
)
NONE = len(CLASSES) - 1
CLASS_NAMES = [f"{k}:{v}" if v is not None else "none" for k, v in CLASSES]


def class_index(kind: str, value) -> int:
    if kind == "none":
        return NONE
    if kind == "d6":
        return int(value) - 1
    if kind == "d8":
        return 6 + int(value) - 1
    if kind == "magpie":
        return 14 + COLOUR_FACES.index(value)
    raise ValueError(f"unknown die kind {kind!r}; expected one of {', '.join(KINDS)}")


def kind_of(index: int) -> str:
    return CLASSES[index][0]


def parse_kinds(text: str | None) -> tuple[str, ...]:
    """'d6,d8' -> ('d6', 'd8'); None or '' -> all kinds."""
    if not text:
        return KINDS
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"unknown die kind(s) {', '.join(bad)}; expected some of {', '.join(KINDS)}")
    return kinds
