"""Teach your dice in the app (issue 21, item 1), without any UI (no Kivy import; tested headless).

- :class:`DiceProfiles` -- the family's dice profiles, one per box, in ``<data>/dice_profiles/``
  (:class:`companion.vision.profile.ProfileStore`: list, rename, delete, every write atomic) and which one
  each game uses (``<data>/dice_profiles_in_use.json``, written atomically too). With no profile chosen the generic reader reads.
- :class:`LearningProfile` -- the profile in use during play: the controller tells it each roll the family
  confirmed or corrected (:meth:`LearningProfile.learn`), and it is on disk before ``learn`` returns; the
  camera then reads with the grown profile (``on_change``), so a corrected mistake with the same die is not
  made again.
- :class:`DiceTeaching` -- the teaching screen's flow: the dice the camera sees (each with the classifier's
  crop), the one chosen (the only one, or the one tapped), a tap on a face of the grid learns the chosen die
  as that face ("show each face once"); "all read right" learns every die in view as read (a few rolls
  confirmed with taps). :func:`faces_picture` draws the grid of faces: the family's own crop where a face is
  taught, an outlined gap where one is still missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.app.i18n import spoken_list, tr
from companion.referee.dice import READER_KIND, reader_kinds
from companion.storage import write_atomic
from companion.vision.profile import FACES, DiceProfile, ProfileError, ProfileStore, check_face, check_name

FOLDER = "dice_profiles"
ACTIVE = "dice_profiles_in_use.json"  # {game: profile name}, beside the folder (whose .json files are profiles)
CROP_SIZE, CROP_SCALE = 48, 1.3  # the classifier's crop (models/manifest.json); a profile of other crops is refused by the reader


def box_kinds(game_name: str | None) -> tuple[str, ...]:
    """The dice reader's kinds of the dice in a game's box (none for a game without dice)."""
    if not game_name:
        return ()
    from companion.games.core import GameError
    from companion.games.registry import load_game

    try:
        kinds = tuple(load_game(game_name).game_class.dice_kinds)
    except GameError:
        return ()
    return reader_kinds(kinds) if kinds else ()


def snapshot(profile: DiceProfile | None) -> DiceProfile | None:
    """A copy the camera's thread reads while the family's side adds to the original (the crops are shared:
    they are never changed, only added or dropped)."""
    if profile is None:
        return None
    return replace(profile, examples=list(profile.examples), negatives=list(profile.negatives))


class DiceProfiles:
    """The dice profiles in the family's data folder and the one each game uses."""

    def __init__(self, user_dir: str | Path):
        self.folder = Path(user_dir) / FOLDER
        self.store = ProfileStore(self.folder)
        self.choices_path = Path(user_dir) / ACTIVE
        self._loaded: dict[str, tuple[float, DiceProfile]] = {}
        self._used: tuple | None = None  # the profile the camera was last given (name, object, its update)

    # --- which profile a game uses --------------------------------------------------------------------
    def _choices(self) -> dict[str, str]:
        try:
            data = json.loads(self.choices_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}

    def _write_choices(self, choices: dict[str, str]) -> None:
        write_atomic(self.choices_path, json.dumps(choices, indent=1, sort_keys=True) + "\n")

    def active_name(self, game: str | None) -> str | None:
        """The profile ``game`` reads with (None: the generic reader; also when its file is gone)."""
        name = self._choices().get(game or "")
        return name if name is not None and self.store.path(name).is_file() else None

    def choose(self, game: str, name: str | None) -> None:
        """``game`` reads with the profile ``name`` from now on (None: the generic reader). Atomic."""
        choices = self._choices()
        if name is None:
            choices.pop(game, None)
        else:
            if not self.store.path(name).is_file():
                raise ProfileError(f"no dice profile named {name!r}")
            choices[game] = check_name(name)
        self._write_choices(choices)

    def use_for(self, game: str | None, controller: Any, session: Any) -> None:
        """The camera (``session``) reads ``game``'s dice with the profile chosen for it (the generic reader without
        one), and every roll the family confirms or corrects (``controller``) teaches that profile."""
        learning = self.learning(game)
        key = None if learning is None else (learning.name, id(learning.profile), learning.profile.updated)
        if learning is not None:
            learning.on_change = session.set_dice_profile  # the grown profile, read with from the next roll
        controller.dice_learning = learning
        if key != self._used:
            self._used = key
            session.set_dice_profile(snapshot(learning.profile) if learning is not None else None)

    # --- the profiles ---------------------------------------------------------------------------------
    def entries(self) -> list[dict[str, Any]]:
        """Each profile's summary (name, dice, faces, missing), or {"file", "error"} for a damaged file."""
        return self.store.list()

    def names(self) -> list[str]:
        return self.store.names()

    def load(self, name: str) -> DiceProfile:
        """The profile (read again only when its file changed). ProfileError with one plain reason."""
        path = self.store.path(name)
        try:
            stamp = path.stat().st_mtime_ns
        except OSError as exc:
            raise ProfileError(f"no dice profile named {name!r}") from exc
        cached = self._loaded.get(name)
        if cached is None or cached[0] != stamp:
            cached = (stamp, self.store.load(name))
            self._loaded[name] = cached
        return cached[1]

    def save(self, profile: DiceProfile) -> Path:
        path = self.store.save(profile)  # temp file, fsync, rename
        self._loaded[profile.name] = (path.stat().st_mtime_ns, profile)
        return path

    def free_name(self, base: str) -> str:
        """``base``, or "base 2", "base 3" ... whichever no profile's file takes yet."""
        name, n = check_name(base), 1
        while self.store.path(name).exists():
            n += 1
            name = f"{check_name(base)} {n}"
        return name

    def create(self, name: str) -> DiceProfile:
        """A new empty profile, saved (ProfileError when a profile is already named like it)."""
        name = check_name(name)
        if self.store.path(name).exists():
            raise ProfileError(f"there is already a dice profile named like {name!r}")
        profile = DiceProfile.new(name, CROP_SIZE, CROP_SCALE)
        self.save(profile)
        return profile

    def rename(self, old: str, new: str) -> DiceProfile:
        """Rename a profile; the games that used it use it under its new name."""
        profile = self.store.rename(old, new)
        self._loaded.pop(old, None)
        choices = self._choices()
        if any(v == old for v in choices.values()):
            self._write_choices({k: (profile.name if v == old else v) for k, v in choices.items()})
        return profile

    def delete(self, name: str) -> None:
        """Delete a profile; the games that used it read with the generic reader again."""
        self.store.delete(name)
        self._loaded.pop(name, None)
        choices = self._choices()
        if any(v == name for v in choices.values()):
            self._write_choices({k: v for k, v in choices.items() if v != name})

    def learning(self, game: str | None) -> LearningProfile | None:
        """The profile ``game`` reads with, ready to learn during play (None: no profile, or a damaged one)."""
        name = self.active_name(game)
        if name is None:
            return None
        try:
            return LearningProfile(self, self.load(name))
        except ProfileError:
            return None


Learned = tuple[str, Any, np.ndarray, str]  # (reader kind, face, crop, source)


class LearningProfile:
    """The profile in use: what the family confirms or corrects is added and saved (``learn``).
    ``on_change(snapshot)`` hears each grown profile (the camera reads with it)."""

    def __init__(self, profiles: DiceProfiles, profile: DiceProfile, on_change=None):
        self.profiles = profiles
        self.profile = profile
        self.on_change = on_change

    @property
    def name(self) -> str:
        return self.profile.name

    def learn(self, items: list[Learned]) -> int:
        """Add each (kind, face, crop, source) and save. Raises ProfileError (a face the kind cannot show, a
        crop of another size) or OSError (not saved) with the profile on disk unchanged: everything is
        checked before anything is added, and the profile in memory is put back when the write fails."""
        for kind, face, crop, _source in items:
            check_face(kind, face)
            if not isinstance(crop, np.ndarray) or crop.shape != (self.profile.crop_size, self.profile.crop_size, 3):
                raise ProfileError("a crop of another size than the profile's")
        if not items:
            return 0
        before = snapshot(self.profile)
        for kind, face, crop, source in items:
            self.profile.add(kind, face, crop, source)
        try:
            self.profiles.save(self.profile)
        except OSError:
            self.profile.examples, self.profile.negatives = before.examples, before.negatives
            raise
        if self.on_change is not None:
            self.on_change(snapshot(self.profile))
        return len(items)


def roll_lessons(dice: list[Any], crops: dict[tuple, np.ndarray]) -> list[Learned]:
    """What a confirmed roll teaches: each die the camera read (its box has a crop), with the face the family
    confirmed, as "corrected" when they changed it. ``dice``: the proposal's ``DieValue``s (games' kinds)."""
    out = []
    for die in dice:
        crop = crops.get(tuple(die.box)) if die.box is not None else None
        if crop is None or die.value is None:
            continue
        source = "corrected" if die.source == "corrected" else "confirmed"
        out.append((READER_KIND.get(die.kind, die.kind), die.value, crop, source))
    return out


# --- the teaching screen's flow -----------------------------------------------------------------------------
def hit_box(dice: list[dict[str, Any]], x: float, y: float, slack: float = 12) -> int | None:
    """The die whose box (with ``slack`` pixels around) holds the point, nearest centre first."""
    best, best_d = None, None
    for i, d in enumerate(dice):
        bx, by, bw, bh = d["box"]
        if bx - slack <= x <= bx + bw + slack and by - slack <= y <= by + bh + slack:
            dist = (bx + bw / 2 - x) ** 2 + (by + bh / 2 - y) ** 2
            if best_d is None or dist < best_d:
                best, best_d = i, dist
    return best


class DiceTeaching:
    """Teach the dice of ``game``'s box into ``learning``'s profile (see the module docstring)."""

    def __init__(self, game: str, learning: LearningProfile, kinds: tuple[str, ...] | None = None):
        self.game = game
        self.kinds = box_kinds(game) if kinds is None else tuple(kinds)
        self.learning = learning
        self.dice: list[dict[str, Any]] = []  # the dice in view: kind, value, confidence, uncertain, box, crop
        self.selected: int | None = None
        self.taught = 0  # dice learned in this session

    @property
    def profile(self) -> DiceProfile:
        return self.learning.profile

    def see(self, readings: list[dict[str, Any]] | None) -> None:
        """The dice the camera sees now (each with its crop); a die chosen before stays chosen where it lies."""
        readings = [r for r in readings or [] if r.get("box") is not None and r.get("crop") is not None
                    and r.get("kind") in self.kinds]
        keep = None
        if self.selected is not None and self.selected < len(self.dice):
            x, y, w, h = self.dice[self.selected]["box"]
            keep = hit_box(readings, x + w / 2, y + h / 2, slack=0)
        self.dice = readings
        self.selected = keep if keep is not None else (0 if len(readings) == 1 else None)

    def select_at(self, x: float, y: float) -> bool:
        index = hit_box(self.dice, x, y)
        if index is not None:
            self.selected = index
        return index is not None

    def missing(self) -> dict[str, list]:
        return self.profile.missing_faces(self.kinds)

    def prompt(self) -> str:
        """What to do next, in the family's words."""
        if not self.kinds:
            return tr("dice:no_dice")
        if not self.dice:
            return tr("dice:show_one")
        if self.selected is None:
            return tr("dice:tap_one", count=len(self.dice))
        die = self.dice[self.selected]
        return tr("dice:tap_face", kind=tr(f"dice:one_{die['kind']}"), face=face_text(die["kind"], die["value"]))

    def progress(self) -> str:
        """One line per kind: how many faces are taught and which are missing."""
        lines = []
        counts = self.profile.counts()
        for kind, gaps in self.missing().items():
            shown = len(FACES[kind]) - len(gaps)
            total = sum(counts.get(kind, {}).values())
            line = tr("dice:progress", kind=tr(f"dice:kind_{kind}"), shown=shown, faces=len(FACES[kind]), dice=total)
            if gaps:
                line += " " + tr("dice:missing", faces=spoken_list(face_text(kind, f) for f in gaps))
            lines.append(line)
        return "\n".join(lines)

    def teach_face(self, kind: str, face: Any) -> tuple[bool, str]:
        """The chosen die shows ``face`` (a tap on the grid): learned and saved; (ok, what to tell)."""
        if kind not in self.kinds:
            return False, tr("dice:not_this_box")
        if self.selected is None or self.selected >= len(self.dice):
            return False, self.prompt() if self.dice else tr("dice:show_one")
        die = self.dice[self.selected]  # a die the reader took for another kind is learned as the family says
        ok, text = self._learn([(kind, face, die["crop"], "taught")])
        if ok:
            text = tr("dice:learned_face", kind=tr(f"dice:one_{kind}"), face=face_text(kind, face))
        return ok, text

    def confirm_all(self) -> tuple[bool, str]:
        """Every die in view is read right (a roll confirmed with one tap): all learned and saved."""
        if not self.dice:
            return False, tr("dice:show_one")
        ok, text = self._learn([(d["kind"], d["value"], d["crop"], "confirmed") for d in self.dice])
        if ok:
            text = tr("dice:learned_roll", count=len(self.dice))
        return ok, text

    def _learn(self, items: list[Learned]) -> tuple[bool, str]:
        try:
            added = self.learning.learn(items)
        except ProfileError as exc:
            return False, tr("dice:not_learned", reason=exc.reason)
        except OSError as exc:
            return False, tr("dice:not_saved", reason=exc.strerror or str(exc))
        self.taught += added
        return True, ""


def face_text(kind: str, face: Any) -> str:
    """A face as the family reads it: a number, or the colour's name in their language."""
    return tr(f"dice:colour_{face}") if kind == "magpie" else str(face)


# --- the grid of faces, as a picture --------------------------------------------------------------------------
@dataclass
class FaceCell:
    kind: str
    face: Any
    count: int
    rect: tuple[int, int, int, int]  # x, y, w, h in the picture


FACE_COLOURS = {"yellow": (40, 210, 240), "blue": (200, 110, 30), "red": (50, 50, 210), "green": (70, 160, 60),
                "magpie": (25, 25, 25)}  # BGR swatches of the colour die's faces
PIPS = {1: [(0.5, 0.5)], 2: [(0.28, 0.28), (0.72, 0.72)], 3: [(0.28, 0.28), (0.5, 0.5), (0.72, 0.72)],
        4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
        5: [(0.28, 0.28), (0.72, 0.28), (0.5, 0.5), (0.28, 0.72), (0.72, 0.72)],
        6: [(0.28, 0.25), (0.72, 0.25), (0.28, 0.5), (0.72, 0.5), (0.28, 0.75), (0.72, 0.75)]}
TAUGHT, GAP, BACK = (90, 200, 110), (60, 170, 235), (46, 40, 36)  # BGR: green frame, amber frame, panel


def _face_sketch(img: np.ndarray, kind: str, face: Any, x: int, y: int, s: int, ink) -> None:
    """The face drawn plainly (what to show): pips, a numeral or the colour."""
    if kind == "d6" and face in PIPS:
        for px, py in PIPS[face]:
            cv2.circle(img, (x + int(px * s), y + int(py * s)), max(2, s // 11), ink, -1, cv2.LINE_AA)
    elif kind == "magpie":
        cv2.rectangle(img, (x + s // 5, y + s // 5), (x + 4 * s // 5, y + 4 * s // 5), FACE_COLOURS.get(face, ink), -1)
        if face == "magpie":
            cv2.circle(img, (x + s // 2, y + s // 2), s // 6, (235, 235, 235), -1, cv2.LINE_AA)
    else:
        text = str(face)
        scale = s / 48
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.putText(img, text, (x + (s - tw) // 2, y + (s + th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 2, cv2.LINE_AA)


def faces_picture(profile: DiceProfile, kind: str, width: int = 400, columns: int | None = None
                  ) -> tuple[np.ndarray, list[FaceCell]]:
    """The faces of one kind as a grid (BGR): a taught face shows the family's newest crop of it in a green
    frame with how many examples it has; a missing face its plain sketch in a dashed amber frame. Also each
    cell's rectangle (for a tap)."""
    faces = FACES[kind]
    columns = columns or min(len(faces), 6)
    rows = -(-len(faces) // columns)
    gap = max(4, width // 80)
    cell = (width - gap * (columns + 1)) // columns
    img = np.full((rows * (cell + gap) + gap, width, 3), BACK, np.uint8)
    newest: dict[Any, np.ndarray] = {}
    counts: dict[Any, int] = {}
    for e in profile.examples:
        if e.kind == kind:
            newest[e.value] = e.crop
            counts[e.value] = counts.get(e.value, 0) + 1
    cells = []
    for i, face in enumerate(faces):
        x = gap + (i % columns) * (cell + gap)
        y = gap + (i // columns) * (cell + gap)
        n = counts.get(face, 0)
        if n:
            img[y:y + cell, x:x + cell] = cv2.resize(newest[face], (cell, cell), interpolation=cv2.INTER_LINEAR)
            cv2.rectangle(img, (x, y), (x + cell - 1, y + cell - 1), TAUGHT, max(2, cell // 18))
            badge = max(12, cell // 3)
            cv2.rectangle(img, (x + cell - badge, y + cell - badge), (x + cell - 1, y + cell - 1), TAUGHT, -1)
            _face_sketch(img, "d8", n if n < 100 else 99, x + cell - badge, y + cell - badge, badge, (20, 20, 20))
        else:
            cv2.rectangle(img, (x + 2, y + 2), (x + cell - 3, y + cell - 3), (225, 225, 225), -1)
            _face_sketch(img, kind, face, x, y, cell, (30, 30, 30))
            _dashed(img, x, y, cell, GAP, max(2, cell // 18))
        cells.append(FaceCell(kind, face, n, (x, y, cell, cell)))
    return img, cells


def _dashed(img: np.ndarray, x: int, y: int, s: int, colour, thickness: int) -> None:
    step = max(6, s // 6)
    for t in range(0, s, step * 2):
        e = min(s - 1, t + step)
        for a, b in (((x + t, y), (x + e, y)), ((x + t, y + s - 1), (x + e, y + s - 1)),
                     ((x, y + t), (x, y + e)), ((x + s - 1, y + t), (x + s - 1, y + e))):
            cv2.line(img, a, b, colour, thickness)


def cell_at(cells: list[FaceCell], x: float, y: float) -> FaceCell | None:
    """The face whose cell holds the point (picture pixels)."""
    for c in cells:
        cx, cy, w, h = c.rect
        if cx <= x < cx + w and cy <= y < cy + h:
            return c
    return None
