"""A tiny table world for the table pipeline's tests: frames that carry the board observation to show and
dice drawn as squares, a pose tracker that always finds the board, a board reader that returns the
observation a frame carries, and a dice reader that reads the squares. What the pipeline itself does --
motion, settling, dice windows, matching -- runs for real on these frames, fast."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.classes import COLOUR_FACES
from companion.vision.pose import PoseResult, PoseStatus
from companion.vision.reader import Reading
from companion.vision.readers import Observation

SIZE = (320, 240)
SCALE = 0.5  # px per board mm: a 16 mm die is 8 px
HOMOGRAPHY = np.array([[SCALE, 0, 10.0], [0, SCALE, 5.0], [0, 0, 1.0]])
DIE = 8


class Tracker:
    config = {"view": {"lean_warn_deg": 45.0}}

    def __init__(self):
        self.board_in_view = True

    def update(self, frame):
        if frame[2, 2, 0] == 1:  # a frame without the board
            return PoseResult(PoseStatus.NOT_IN_VIEW, None, reason="no markers")
        return PoseResult(PoseStatus.FOUND, HOMOGRAPHY, 1.0)

    def reset(self):
        pass

    def view_angle(self, pose, size):
        return None


class Reading_:
    """The board reader: the observation a frame carries (its index in the first pixel's green)."""

    def __init__(self, observations):
        self.observations = observations
        self.tracker = Tracker()
        self.reader = self

    def read(self, frame, pose):
        return self.observations[int(frame[0, 0, 1])]


class DiceReader:
    """Finds squares of pure blue (red 0): the value in green (30 per pip: a d8 shows 8), uncertain when blue is 254, a d8 when 253
    (252: a d8 read uncertain), a Magpies colour die when 251 (250: read uncertain; green: the face's place in
    ``COLOUR_FACES``)."""

    def read(self, image):
        mask = ((image[..., 2] == 0) & (image[..., 0] >= 250)).astype(np.uint8)
        count, _labels, stats, _c = cv2.connectedComponentsWithStats(mask)
        out = []
        for i in range(1, count):
            x, y, w, h, area = stats[i]
            if area < 20:
                continue
            g = int(image[y + h // 2, x + w // 2, 1])
            blue = int(image[y + h // 2, x + w // 2, 0])
            unsure = blue in (250, 252, 254)
            kind = "magpie" if blue in (250, 251) else "d8" if blue in (252, 253) else "d6"
            value = COLOUR_FACES[int(round(g / 30))] if kind == "magpie" else int(round(g / 30))
            out.append(Reading(kind, value, 0.5 if unsure else 0.99, (int(x), int(y), int(w), int(h)), unsure))
        return out


def frame(obs_index=0, dice=(), hand=False, board=True, missed=(), shade=False):
    """A frame showing observation ``obs_index``, dice ``(x, y, value[, unsure[, "d8" | "magpie"]])`` and maybe a hand;
    ``missed``: dice ``(x, y)`` that change the picture but the dice reader does not find; ``shade``: a soft shadow
    over the table's left half (a lamp or a person between turns)."""
    img = np.full((SIZE[1], SIZE[0], 3), 120, np.uint8)
    img[::16, :, :] = 100  # some texture for the motion meter's shake estimate
    if shade:
        gain = np.clip(np.linspace(0.4, 1.6, SIZE[0]), 0.5, 1.0).astype(np.float32)
        img = (img * gain[None, :, None]).astype(np.uint8)
    img[0:2, 0:2] = (0, obs_index, 0)
    if not board:
        img[2, 2] = (1, 1, 1)
    for d in dice:
        x, y, value = d[:3]
        unsure = len(d) > 3 and d[3]
        kind = d[4] if len(d) > 4 else "d6"
        blue = {"d8": (253, 252), "magpie": (251, 250)}.get(kind, (255, 254))[bool(unsure)]
        pips = COLOUR_FACES.index(value) if kind == "magpie" else value
        img[y:y + DIE, x:x + DIE] = (blue, pips * 30, 0)
    for x, y in missed:
        img[y:y + DIE, x:x + DIE] = (30, 30, 220)
    if hand:
        cv2.rectangle(img, (100, 60), (230, 200), (120, 150, 200), -1)
    return img


def pipeline(game, observations, **kw):
    """A table pipeline on this tiny table. A roll read with an unsure face is put to the family at once unless
    ``board_confirms_s`` is given (the tests of the wait for the board's move give it)."""
    from companion.referee.table import TablePipeline

    kw.setdefault("board_confirms_s", 0.0)
    return TablePipeline(game, board_reading=Reading_(observations), dice_reader=DiceReader(), **kw)


def observe(scene, unsure=()):
    obs = Observation.from_scene(scene)
    return Observation(obs.regions, dict.fromkeys(unsure, 0.2))


def run(pipe, frames, state):
    """Feed frames; every non-status event with the frame index."""
    out = []
    for i, img in enumerate(frames):
        out += [(i, e) for e in pipe.process(img, i / 10, state) if e.kind != "status"]
    return out
