"""The set-up screen's two flows, without any UI (no Kivy import; tested headless and fast).

- :class:`DiceRegistration` -- "show each die once": for a game whose dice differ (Verzauberte Eulen's
  head, body and eye dice), the family shows one die at a time; its body colour is registered
  (:class:`companion.vision.registry.DieRegistry`) under its role and saved to
  ``<data>/dice/<game>.json``, which the camera's dice reader loads to tell the dice apart.
- :class:`BoardTeaching` -- "teach the board": one photo of the board (its pose from the markers),
  then the family taps the centre of a few spaces spread over the board; the reference map is fitted
  to those taps (:func:`companion.vision.teach.fit_board_map`) and saved as this family's map, which
  :func:`companion.vision.boardmap.load_user_map` (and so the app's board tracker) prefers from then on.
- :func:`learn_empty_board` -- "photo of the empty board": Verzauberte Eulen's and Mighty Magpies' set-ups cover
  their nests, so the look taught at a set-up never sees the print under them; one photo of the board with
  nothing on it does. Saved beside the taught look, and put into it (:func:`companion.vision.teach.teach_bare_board`).
- :class:`CornerTapping` -- "tap the 4 corners": when the markers cannot be found, the family taps the
  board's four corners on the picture, one after the other (the next corner is named, the last tap can
  be taken back); the corners are checked (:func:`companion.vision.pose.pose_from_corners`) and handed
  to the pose stage (:meth:`companion.vision.pose.BoardTracker.set_tapped_corners`), which uses them
  while no marker is in view, until the picture changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from companion.app.calibration import reference_map_path, registry_path
from companion.app.i18n import language, tr
from companion.app.words import space_name
from companion.referee.dice import READER_KIND, dice_told_apart, usual_roll


def dice_roles(game_name: str) -> list[tuple[str, str]]:
    """(role, kind) of each die of the game's usual roll (:func:`companion.referee.dice.usual_roll`)."""
    from companion.games.registry import load_game

    return usual_roll(load_game(game_name).game_class)


def learns_empty_board(game: str) -> bool:
    """Whether the game's board reader learns anything from a photo of the empty board (its nests' print)."""
    from companion.referee.table_games import table_game

    try:
        return table_game(game).learns_empty_board
    except KeyError:
        return False


def learn_empty_board(game: str, user_dir: str | Path, photo: np.ndarray | None, camera: Any = None,
                      boards_dir: str | Path | None = None) -> tuple[bool, str]:
    """One photo of the family's board with nothing on it: its look is saved, and put into the look taught at an
    earlier set-up, if any (then saved too). (done, what to say)."""
    from companion.app.calibration import board_map_for
    from companion.referee.table_games import table_game
    from companion.vision.pose import estimate_pose
    from companion.vision.teach import (
        TeachError,
        bare_look_path,
        learn_from_photo,
        load_appearance,
        save_appearance,
        with_bare_board,
        write_appearance,
    )

    info, why = board_map_for(game, user_dir, boards_dir)
    if info is None or photo is None:
        return False, why or tr("setup:corners_no_picture")
    if not learns_empty_board(game):
        return False, tr("setup:empty_not_needed")
    table = table_game(game)
    reading = table.make_reader(info.map, None)
    reference = table.board_map()
    pose = estimate_pose(photo, info.map, camera=camera)
    look, _why = load_appearance(reference, user_dir)
    try:
        reading.reader.teach(look)
        seen = reading.read(photo, pose) if pose.usable else None
        pieces = sorted(r for r in seen.regions if not seen.is_uncertain(r)) if seen is not None and seen.usable else []
        if pieces:  # pieces read surely on it (where the print was never seen, a reading is unsure: the nests' print)
            return False, tr("setup:empty_not_empty", spaces=", ".join(space_name(game, r, language()) for r in pieces[:4]))
        bare = learn_from_photo(reading.reader, photo, {}, pose=pose)
        merged = with_bare_board(reading.reader, look, bare)[0] if look is not None else None
        write_appearance(bare, reference, bare_look_path(user_dir, game))
        if merged is not None:
            save_appearance(merged, reference, user_dir)
    except (TeachError, OSError, ValueError) as exc:  # ValueError: a look saved by another version
        return False, tr("setup:empty_failed", reason=str(exc))
    return True, tr("setup:empty_saved")


class DiceRegistration:
    """Show each die once. ``capture(frame, readings)`` with the dice the reader found in the frame."""

    def __init__(self, game: str, user_dir: str | Path, roles: list[tuple[str, str]] | None = None):
        from companion.vision.registry import DieRegistry

        self.game = game
        self.path = registry_path(user_dir, game)
        self.roles = dice_roles(game) if roles is None else list(roles)
        self.registry = DieRegistry()
        self.index = 0
        self.saved: Path | None = None

    @property
    def needed(self) -> bool:
        """False when the game's dice have no roles (alike dice are read in any order: nothing to tell apart)."""
        return dice_told_apart([role for role, _ in self.roles])

    @property
    def done(self) -> bool:
        return self.index >= len(self.roles)

    def prompt(self) -> str:
        if not self.needed:
            return tr("setup:dice_none")
        if self.done:
            return tr("setup:dice_done", count=len(self.roles))
        role, kind = self.roles[self.index]
        return tr("setup:dice_show", role=self.shown(role), number=self.index + 1, total=len(self.roles))

    def shown(self, role: str) -> str:
        """The role as the family reads it (the registry keeps the identifier vision matches on)."""
        from companion.games import i18n as engine_i18n

        try:
            return engine_i18n.die_label(self.game, role, language())
        except Exception:  # an unknown game: the identifier
            return role

    def capture(self, frame: np.ndarray | None, readings: list[dict[str, Any]]) -> tuple[bool, str]:
        """Register the one die in view as the current role; (ok, what to tell the family)."""
        if self.done or frame is None or not self.needed:
            return False, self.prompt()
        role, kind = self.roles[self.index]
        boxes = [r for r in readings or [] if r.get("box") and r.get("kind", kind) == kind]
        if not boxes:
            return False, tr("setup:dice_none_seen", role=self.shown(role))
        if len(boxes) > 1:
            return False, tr("setup:dice_many", count=len(boxes), role=self.shown(role))
        # the registry belongs to the dice reader: it keeps the reader's name of the kind
        self.registry.register(role, frame, boxes[0]["box"], kind=READER_KIND.get(kind, kind))
        self.index += 1
        if self.done:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.registry.save(self.path)
            self.saved = self.path
        return True, self.prompt()


class BoardTeaching:
    """Teach the board from one photo and a few taps (``targets`` spaces spread over the board)."""

    def __init__(self, game: str, user_dir: str | Path, boards_dir: str | Path | None = None, targets: int = 5,
                 camera=None):
        from companion.vision.boardmap import load_board_map

        self.game = game
        self.camera = camera  # the camera profile (None: distortion-free)
        self.user_dir = Path(user_dir)
        self.reference = load_board_map(reference_map_path(game, boards_dir))
        self.targets = self._spread(targets)
        self.pose = None
        self.photo: np.ndarray | None = None
        self.taps: dict[str, tuple[float, float]] = {}
        self.index = 0
        self.report = None
        self.saved: Path | None = None

    def _spread(self, n: int) -> list[str]:
        """Spaces near the four board corners and the middle: a fit from them holds everywhere."""
        regions = [r for r in self.reference.regions if r.polygon_mm is not None or r.circle_center_mm is not None]
        w, h = self.reference.size_mm
        aims = [(0, 0), (w, 0), (w, h), (0, h), (w / 2, h / 2)][:n]
        chosen: list[str] = []
        for ax, ay in aims:
            best = min((r for r in regions if r.id not in chosen),
                       key=lambda r: (r.center_mm[0] - ax) ** 2 + (r.center_mm[1] - ay) ** 2, default=None)
            if best is not None:
                chosen.append(best.id)
        return chosen

    def start(self, photo: np.ndarray) -> tuple[bool, str]:
        """Take the teaching photo: the board must be found in it."""
        from companion.vision.pose import estimate_pose

        pose = estimate_pose(photo, self.reference, camera=self.camera)
        if not pose.usable:
            return False, tr("setup:teach_no_board", status=pose.message)
        self.pose, self.photo = pose, photo.copy()
        self.taps, self.index = {}, 0
        return True, self.prompt()

    @property
    def current(self) -> str | None:
        return self.targets[self.index] if self.pose is not None and self.index < len(self.targets) else None

    @property
    def ready(self) -> bool:
        return self.pose is not None and len(self.taps) >= 1 and self.current is None

    def expected_px(self, region_id: str) -> tuple[float, float]:
        """Where the reference map puts the space in the teaching photo (drawn as a hint)."""
        centre = np.asarray([self.reference.region(region_id).center_mm], np.float64)
        x, y = self.pose.board_to_image(centre)[0]
        return float(x), float(y)

    def prompt(self) -> str:
        if self.pose is None:
            return tr("setup:teach_start")
        if self.current is not None:
            return tr("setup:teach_tap", space=space_name(self.game, self.current, language()), number=self.index + 1,
                      total=len(self.targets))
        return tr("setup:teach_ready", count=len(self.taps))

    def tap(self, x: float, y: float) -> str:
        if self.current is not None:
            self.taps[self.current] = (float(x), float(y))
            self.index += 1
        return self.prompt()

    def skip(self) -> str:
        """The space is hidden or missing: go on without it."""
        if self.current is not None:
            self.index += 1
        return self.prompt()

    def finish(self) -> tuple[bool, str]:
        """Fit and save; (ok, message). A bad tap is explained and the taps start over."""
        from companion.vision.boardmap import save_fitted_map
        from companion.vision.teach import Correction, TeachError, fit_board_map

        if self.pose is None or not self.taps:
            return False, self.prompt()
        try:
            fitted, report = fit_board_map(self.reference, self.pose, [Correction(k, v) for k, v in self.taps.items()])
        except TeachError as exc:
            self.taps, self.index = {}, 0
            return False, tr("setup:teach_failed", reason=str(exc))
        self.report = report
        self.saved = save_fitted_map(fitted, self.reference, self.user_dir)
        return True, tr("setup:teach_saved", before=f"{report.residual_before_mm:.1f}", after=f"{report.residual_after_mm:.1f}")


CORNERS = ("top_left", "top_right", "bottom_right", "bottom_left")  # pose_from_corners' order


class CornerTapping:
    """Tap the board's four corners, in order (top-left, top-right, bottom-right, bottom-left, as the
    board is printed). ``board``: the board map the corners are checked against (None: not checked here)."""

    def __init__(self, board=None, camera=None):
        self.board = board
        self.camera = camera  # a CameraProfile: the corners are undistorted before the check, as the pose stage does
        self.taps: list[tuple[float, float]] = []
        self.corners: list[tuple[float, float]] | None = None  # the last accepted four
        self.pose = None

    @property
    def current(self) -> str | None:
        """The corner to tap next (None once four are tapped)."""
        return CORNERS[len(self.taps)] if len(self.taps) < len(CORNERS) else None

    @property
    def done(self) -> bool:
        return self.corners is not None and len(self.taps) == len(CORNERS)

    def prompt(self) -> str:
        if self.current is not None:
            return tr("setup:corners_tap", corner=tr(f"setup:corner_{self.current}"), number=len(self.taps) + 1,
                      total=len(CORNERS))
        return tr("setup:corners_done")

    def tap(self, x: float, y: float) -> tuple[bool, str]:
        """One corner tapped; (four good corners now, what to tell the family). Bad corners start over."""
        if self.current is None:
            return self.done, self.prompt()
        self.taps.append((float(x), float(y)))
        if self.current is not None:
            return False, self.prompt()
        return self.check()

    def check(self) -> tuple[bool, str]:
        if len(self.taps) != len(CORNERS):
            return False, self.prompt()
        if self.board is not None:
            from companion.vision.pose import PoseError, pose_from_corners

            try:
                self.pose = pose_from_corners(self.board, self.taps, camera=self.camera)
            except PoseError:
                self.taps = []
                return False, tr("setup:corners_bad")
        self.corners = list(self.taps)
        return True, self.prompt()

    def undo(self) -> str:
        """Take back the last tap (a corner tapped wrongly)."""
        if self.taps:
            self.taps.pop()
            self.corners = None
            self.pose = None
        return self.prompt()

    def restart(self) -> str:
        self.taps, self.corners, self.pose = [], None, None
        return self.prompt()

    def marks(self) -> list[tuple[tuple[float, float], str]]:
        """The taps so far with their numbers (drawn on the picture)."""
        return [(xy, str(i + 1)) for i, xy in enumerate(self.taps)]
