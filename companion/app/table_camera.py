"""A real camera's per-frame recognition in the app: the table pipeline (no Kivy import).

:class:`TableRecognizer` runs :class:`companion.referee.table.TablePipeline` on the recognition worker's
thread and says what it found in the observation the controller reads -- the board's pose for the
overlays, a settled roll's dice (``dice``), a move seen on the board (``move``: shown for one tap exactly as
a roll is), a set-up read (``outcome``), an illegal move seen (``illegal``), a question (``question``) -- each
about the position it was matched against (``history_len``). The app matches no reading to the rules: the
pipeline does. The UI thread tells it the game and its position (:meth:`set_position`) after every change.

Teach your board: the pipeline learns the look of the family's box from the set-up photo once the set-up is
confirmed; the recognizer saves that look per game in the family's folder (``boards/<game>.appearance.json``,
atomically) and hands it to the next game's pipeline. ``look`` in the observation says so once: ``taught``,
``damaged`` (the saved look could not be used: the box is read as drawn until the next set-up teaches it) or
``not_saved`` (with ``why``).

The board's pose for the overlays: ``board`` (the pose stage's words), ``homography`` (board mm -> frame px, while
the pose is usable), ``board_source`` (markers, or tapped: the family's four tapped corners -- a still picture keeps
saying where its pose came from) and the view angle. Tapped corners hold while no marker is in view, for a
pipeline built anew for the same board too (the board taught, the dice registered again), until the picture
changes. A camera profile made for another picture size is set aside, said once in the family's words
(``camera_warning``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from companion.app.calibration import BoardInfo, board_map_for, load_registry


class TableRecognizer:
    """``recognize(image, meta) -> observation`` for a real camera (see the module docstring); the camera
    session also asks it to ``set_game``, ``set_camera``, ``tap_corners`` and ``read_dice_again``."""

    def __init__(self, user_dir: str | Path | None = None, camera: Any = None, boards_dir: str | Path | None = None):
        self.user_dir = user_dir
        self.boards_dir = boards_dir
        self.camera = camera
        self._lock = threading.Lock()
        self._game_name: str | None = None
        self._position: tuple[Any, Any, list] | None = None  # (game, state, history) from the UI thread
        self._version = 0
        self._built: tuple | None = None
        self._pipeline: Any = None
        self._info: BoardInfo | None = None
        self._why = ""
        self._taps: list[tuple[float, float]] | None = None
        self._kept_taps: tuple[str, list, np.ndarray] | None = None  # (game, corners, frame) of the taps in force
        self._source = "none"  # where the pose came from: markers | tapped | none (not "tracked": said as before)
        self._again = False
        self.asked_again = 0  # how often the family asked for the dice in view to be read again
        self._seen: list = []  # the history the pipeline was told about
        # the family's dice profile (a snapshot: the UI thread grows its own copy) and teaching
        self._dice_profile: Any = None
        self._profile_version = 0
        self._profile_applied: tuple | None = None  # (reader, version) the profile was last given to
        self._teach_kinds: tuple[str, ...] | None = None  # teaching: the box's kinds (reader's words)
        self._teach_reader: Any = None
        self.dice_profile_error = ""
        self._look_kept = 0  # looks the pipeline taught that were saved (or failed to be)
        self._look_notice: dict[str, Any] | None = None  # said once with the next observation

    # -- from the UI thread -----------------------------------------------------------------------------
    @property
    def info(self) -> BoardInfo | None:
        return self._info

    def set_game(self, game: str | None, reload: bool = False) -> None:
        with self._lock:
            if game != self._game_name or reload:
                self._game_name = game
                self._version += 1

    def set_position(self, game: Any, state: Any, history: list) -> None:
        """The game played and where it stands (the session's own objects are not shared: copies)."""
        with self._lock:
            self._position = (game, state.clone() if state is not None else None, list(history))
            if game is not None and game.name != self._game_name:
                self._game_name = game.name
                self._version += 1

    def set_camera(self, camera: Any) -> None:
        with self._lock:
            self.camera = camera
            self._version += 1

    def tap_corners(self, corners_px: list[tuple[float, float]] | None) -> None:
        """Four tapped board corners (top-left, top-right, bottom-right, bottom-left) for the next frame; None
        forgets them."""
        with self._lock:
            self._taps = [tuple(map(float, c)) for c in corners_px] if corners_px else None
            if corners_px is None:
                self._kept_taps = None
                self._version += 1

    def set_dice_profile(self, profile: Any) -> None:
        """Read the dice with this dice profile (``companion.vision.profile.DiceProfile``; None: the generic
        reader). The profile must not change after it is handed over: the UI thread hands over a snapshot."""
        with self._lock:
            self._dice_profile = profile
            self._profile_version += 1

    def teach_dice(self, kinds: tuple[str, ...] | None) -> None:
        """Teaching the dice (``kinds``: the box's, in the reader's words): every frame reports the dice in view
        (``teach_dice``, each with its crop) instead of following the game; None: follow the game again."""
        with self._lock:
            self._teach_kinds = tuple(kinds) if kinds else None

    def read_dice_again(self) -> None:
        """The dice in view are reported again once settled (from the worker's next frame on)."""
        with self._lock:
            self._again = True
            self.asked_again += 1

    # -- on the worker's thread -------------------------------------------------------------------------
    def __call__(self, image: np.ndarray, meta: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            teach = self._teach_kinds
        if teach is not None:
            return self._teach_frame(image, teach)
        pipeline = self._ensure()
        with self._lock:
            position, taps, again = self._position, self._taps, self._again
            self._taps, self._again = None, False
        if pipeline is None:
            return {"board": "no board map", "board_reason": self._why} if self._game_name else {}
        if again:
            pipeline.read_dice_again()
        out: dict[str, Any] = {}
        if taps is not None:
            refused = self._tap(pipeline, image, taps)
            if refused:
                return refused
        state, history = self._catch_up(pipeline, position)
        if self._profile_version:  # a profile was chosen (the reader is built now, not at the first roll)
            self._use_profile(pipeline.dice_reader() if pipeline.dice_kinds else None)
        camera = pipeline.camera
        events = pipeline.process(image, meta.get("captured_at"), state)
        out.update(self._pose_words(pipeline, events[0], camera, image))
        self._keep_look(pipeline)
        if self._look_notice is not None:
            out["look"], self._look_notice = self._look_notice, None
        if history is not None:
            out["history_len"] = len(history)
        for event in events[1:]:
            seen = observation_of(event)
            if seen.get("dice"):  # the crops the family's confirmation teaches the dice profile
                for die, crop in zip(seen["dice"], pipeline.dice_crops([d["box"] or (0, 0, 1, 1) for d in seen["dice"]]),
                                     strict=True):
                    if die["box"] and crop is not None:
                        die["crop"] = crop
            if event.kind == "question" and event.reason == "setup":  # the set-up as far as read, for taps
                from companion.referee.setup_taps import setup_spaces

                spaces = setup_spaces(pipeline.game.name, pipeline.settled, event.message)
                if spaces is not None:
                    seen["setup_read"] = spaces.as_json()
            out.update(seen)
        return out

    def _use_profile(self, reader: Any) -> None:
        """Give ``reader`` the family's dice profile when it, or the profile, changed (worker thread)."""
        with self._lock:
            profile, version = self._dice_profile, self._profile_version
        if reader is None or self._profile_applied == (id(reader), version):
            return
        self._profile_applied = (id(reader), version)
        from companion.vision.profile import ProfileError

        old = getattr(reader, "matcher", None)
        if old is not None and profile is not None:
            old.profile = profile  # a grown copy of the same dice: the crops embedded before are not embedded again
        try:
            reader.set_profile(profile)
            self.dice_profile_error = ""
        except ProfileError as exc:  # a profile this classifier cannot use: the generic reader reads
            reader.set_profile(None)
            self.dice_profile_error = exc.reason

    def _teach_frame(self, image: np.ndarray, kinds: tuple[str, ...]) -> dict[str, Any]:
        """Teaching: the dice in view, read with the profile as taught so far, each with the crop to learn."""
        reader = self._teach_reader
        if reader is None or tuple(reader.kinds) != kinds:
            from companion.vision.reader import DiceReader

            try:
                reader = self._teach_reader = DiceReader(kinds=kinds)
            except Exception as exc:  # ModelError, no onnxruntime: nothing to teach with
                return {"teach_dice": [], "teach_error": str(exc)}
            self._profile_applied = None
        self._use_profile(reader)
        readings = reader.read(image)
        crops = reader.classifier.crops(image, [r.box for r in readings]) if readings else []
        out = [{**r.as_json(), "crop": crop} for r, crop in zip(readings, crops, strict=True)]
        return {"teach_dice": out, **({"teach_error": self.dice_profile_error} if self.dice_profile_error else {})}

    def _ensure(self) -> Any:
        with self._lock:
            wanted = (self._game_name, self._version, self._position[0].config() if self._position and self._position[0] else None)
            camera = self.camera
            position = self._position
        if wanted == self._built:
            return self._pipeline
        self._built, self._pipeline, self._seen = wanted, None, []
        if wanted[0] is None:
            return None
        info, why = board_map_for(wanted[0], self.user_dir, self.boards_dir)
        self._info, self._why = info, why
        if info is None:
            return None
        from companion.games.core import GameError
        from companion.referee.table import TablePipeline

        game = position[0] if position and position[0] is not None and position[0].name == wanted[0] else _default_game(wanted[0])
        if game is None:
            self._why = f"the camera follows only the games of the box, not {wanted[0]}"
            return None
        try:
            self._pipeline = TablePipeline(game, info.map, camera, registry=load_registry(self.user_dir, wanted[0]),
                                           look=self._saved_look(wanted[0]), bare_look=self._saved_empty_board(wanted[0]))
        except (GameError, KeyError) as exc:
            self._why = str(exc)
            return None
        self._look_kept = 0
        self._source = "none"
        self._tap_again(wanted[0])
        if self._pipeline.look_error:  # a look saved by another version, that its reader cannot use
            self._look_notice = {"kind": "damaged", "why": self._pipeline.look_error}
        return self._pipeline

    # -- the look of the family's box (teach your board) ------------------------------------------------
    def _saved_look(self, game: str) -> dict[str, Any] | None:
        """The look taught at an earlier game of this box, or None (never taught, or damaged: said once)."""
        from companion.referee.table_games import table_game
        from companion.vision.teach import load_appearance

        look, why = load_appearance(table_game(game).board_map(), self.user_dir)
        if look is None and why not in ("not taught", "no user folder"):
            self._look_notice = {"kind": "damaged", "why": why}
        return look

    def _saved_empty_board(self, game: str) -> dict[str, Any] | None:
        """The look of the family's empty board (the set-up screen's "photo of the empty board"), or None."""
        if self.user_dir is None:
            return None
        from companion.referee.table_games import table_game
        from companion.vision.teach import bare_look_path, read_appearance

        return read_appearance(table_game(game).board_map(), bare_look_path(self.user_dir, game))[0]

    def _keep_look(self, pipeline: Any) -> None:
        """A look the pipeline taught at the set-up just confirmed: saved for the next game (worker thread)."""
        if pipeline.look_taught == self._look_kept or pipeline.look is None:
            return
        self._look_kept = pipeline.look_taught
        if self.user_dir is None:
            self._look_notice = {"kind": "taught"}
            return
        from companion.referee.table_games import table_game
        from companion.vision.teach import bare_look_path, save_appearance, write_appearance

        game, reference = pipeline.game.name, table_game(pipeline.game.name).board_map()
        try:
            save_appearance(pipeline.look, reference, self.user_dir)
            if pipeline.bare_look is not None and not bare_look_path(self.user_dir, game).exists():  # seen at this set-up
                write_appearance(pipeline.bare_look, reference, bare_look_path(self.user_dir, game))
            self._look_notice = {"kind": "taught"}
        except OSError as exc:
            self._look_notice = {"kind": "not_saved", "why": str(exc)}

    def _catch_up(self, pipeline: Any, position: tuple | None) -> tuple[Any, list | None]:
        """The pipeline is told each action applied since the last frame (a roll used, a piece to be moved);
        an undo makes it forget what it read."""
        if position is None or position[1] is None:
            return None, None
        game, state, history = position
        seen = self._seen
        if history[:len(seen)] != seen:  # taken back: what was read is read again
            pipeline.read_dice_again()
            seen = []
        if len(history) > len(seen):
            replay = game.new_initial_state()
            for action in seen:
                replay.apply_unchecked(action)
            for action in history[len(seen):]:
                before = replay.clone()
                replay.apply_unchecked(action)
                pipeline.applied(action, before)
        self._seen = list(history)
        return state, history

    # -- the board's pose ----------------------------------------------------------------------------------
    def _tap(self, pipeline: Any, image: np.ndarray, taps: list) -> dict[str, Any] | None:
        """The family's tapped corners to the pose stage, kept for a pipeline built anew; their refusal, or None."""
        from companion.vision.pose import PoseError

        try:
            pipeline.tap_corners(image, taps)
        except PoseError as exc:
            return {"board": "board not in view", "board_reason": str(exc)}
        with self._lock:
            if self._built is not None and self._version == self._built[1]:  # not forgotten meanwhile
                self._kept_taps = (pipeline.game.name, taps, image)
        return None

    def _tap_again(self, game: str) -> None:
        """A pipeline built anew for the same board (taught, dice registered, another game): the taps still hold."""
        with self._lock:
            kept = self._kept_taps
        if kept is None or kept[0] != game:
            return
        from companion.vision.pose import PoseError

        try:
            self._pipeline.tap_corners(kept[2], kept[1])
        except PoseError:
            with self._lock:
                self._kept_taps = None

    def _pose_words(self, pipeline: Any, status: Any, camera: Any, image: np.ndarray) -> dict[str, Any]:
        """The frame's status event in the observation's words; ``camera``: the profile the frame was read with."""
        if not getattr(pipeline.tracker, "has_tapped_corners", False):
            with self._lock:
                self._kept_taps = None  # the picture changed since (or never tapped): tap again
        info = dict(status.info)
        out = {k: info[k] for k in ("board", "board_reason", "board_source", "homography", "view_angle", "view_leaning",
                                    "view_lean_limit") if k in info}
        if out.get("board_source") == "tracked":  # a still picture keeps the pose it had: say where that came from
            out["board_source"] = self._source if self._source != "none" else "tracked"
        elif "board_source" in out:
            self._source = out["board_source"]
        if "camera_warning" in info:
            out["camera_warning"] = self._set_aside(camera, image) if camera is not None else info["camera_warning"]
        if status.message != info.get("board"):
            out["status"] = status.message  # moving, waiting for the board, a refusal's reason
        return out

    def _set_aside(self, camera: Any, image: np.ndarray) -> str:
        """A profile calibrated for another picture size would bend the picture wrongly: the pipeline set it aside,
        and it is not used again for a pipeline built anew. Why, in the family's words."""
        from companion.app.i18n import tr

        with self._lock:
            if self.camera is camera:
                self.camera = None
        w, h = camera.image_size
        return tr("camera:profile_size", name=camera.name, profile=f"{w}x{h}", frame=f"{image.shape[1]}x{image.shape[0]}")


def observation_of(event: Any) -> dict[str, Any]:
    """One pipeline event in the observation the controller reads."""
    from companion.referee.table import MISSED_ROLL

    kind = event.kind
    if kind == "dice" and event.actions:  # a roll, with the decisions before it that show nowhere: one proposal
        dice = [{"kind": d.kind, "value": d.value, "confidence": d.confidence, "uncertain": d.uncertain,
                 "box": list(d.box) if d.box else None, "identity": d.role or None} for d in event.dice]
        return {"dice": dice, **({"before": list(event.actions[:-1])} if len(event.actions) > 1 else {}),
                **({"missed": True} if event.reason == MISSED_ROLL else {})}
    if kind in ("dice", "move") and event.actions:
        return {"move": event.actions[0], "move_sure": event.sure}
    if kind == "setup" and event.actions:
        return {"outcome": event.actions[0]}
    if kind == "illegal":
        return {"illegal": {"action": event.options[0][-1] if event.options else None, "rule_id": event.rule_id,
                            "message": event.message, "regions": list(event.regions)}}
    if kind == "question":
        return {"question": {"reason": event.reason, "message": event.message, "regions": list(event.regions),
                             "unsure": list(event.unsure)}}
    return {}


def _default_game(name: str) -> Any:
    """The game with its usual players, to look at its board before a game is started."""
    from companion.games.core import GameError
    from companion.games.registry import load_game

    try:
        game_class = load_game(name).game_class
        return game_class(players=[f"P{i + 1}" for i in range(game_class.default_player_count())])
    except GameError:
        return None
