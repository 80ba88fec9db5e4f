"""The family's dice, learnt from the rolls they answer (issue 20: the films' dice read unsure, roll after roll).

The table pipeline's dice reader reads the small dice of a table seen whole (about 20 px across at 1280x720) right
but not surely: on the whole-game films most dice asks are a die whose face the generic reader reads right at
0.8-0.98, below the calibrated 0.98 (0.95 from above), the rest of its probability on "no die / unreadable"
rather than on another face -- and the same in every still frame of the throw (the frames differ by sensor noise
only; averaging their readings changed 1-2 dice in 57-63: docs/vision-notes.md, 2026-12-02, session 15). Nor does
dropping the "unreadable" share help safely: on the real calibration and validation photos it buys one sure wrong
die per 3-60 more sure ones.

What the family says does help: when they answer a roll with the faces the camera read (the die it was unsure of
read right), the crops of those dice are the family's own dice showing those faces, and a dice profile (ruling 16:
a second opinion, not a second reader) taught with them vouches for the same die read the same way later: a
familiar find read as the same face is sure from 0.9 (``profile_match``). So :class:`RollLearning` teaches the
reader's profile from each roll that was spent on the roll the family entered when

- some die of it was read unsure (the family answered for it; a roll read surely teaches nothing new), and
- the faces read are exactly the faces entered (a reading the family corrected could be another throw's die: the
  camera lags behind the table at times, and a crop taught under a wrong face would make a later misread sure).

Each die is taught as the face it was read as ("confirmed"). Kinds the reader always confirms (the d8) are not
taught: with a profile the d8 is sure from the lowest level at which every taught d8 reads right, and only d8s
read right would be taught here, so that check would always pass. A profile the family chose (the app's
"teach your dice", which grows with every roll they confirm) is theirs: nothing is added to it here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

PROFILE_NAME = "learnt at the table"


class RollLearning:
    """The dice profile one table pipeline learns from the rolls the family answers (see the module docstring)."""

    def __init__(self, on: bool = True) -> None:
        self.on = on  # off: the answers teach nothing (the table pipeline's default: LEARN_FROM_ANSWERS)
        self.profile: Any = None  # vision.profile.DiceProfile, once a roll taught something
        self.taught = 0  # dice taught so far
        self.error = ""  # why learning stopped (a classifier that cannot use a profile), in plain words

    def learn(self, reader: Any, picture: np.ndarray | None, readings: Sequence[Any], said: Counter) -> int:
        """Teach ``reader`` the dice of a roll spent on the roll the family entered: ``readings`` (vision Readings,
        boxes in ``picture``, the frame the roll settled on) and ``said`` (the entered roll: (reader kind, face as
        text) -> count). Returns how many dice were taught (0 when the roll teaches nothing)."""
        if not self._teaches(reader, picture, readings, said):
            return 0
        dice = [r for r in readings if r.kind not in getattr(reader, "always_confirm_kinds", ())]
        if not dice or picture is None:
            return 0
        from companion.vision.profile import DiceProfile, ProfileError

        config = reader.classifier.config
        profile = self.profile or DiceProfile.new(PROFILE_NAME, int(config["size"]), float(config["crop_scale"]))
        try:
            for r, crop in zip(dice, reader.classifier.crops(picture, [r.box for r in dice]), strict=True):
                profile.add(r.kind, r.value, crop, "confirmed")
            reader.set_profile(profile)
        except ProfileError as exc:  # a classifier without the embedding: the generic reader reads on
            self.error = f"the dice cannot be learnt at the table: {exc}"
            return 0
        self.profile = profile
        self.taught += len(dice)
        return len(dice)

    def _teaches(self, reader: Any, picture: np.ndarray | None, readings: Sequence[Any], said: Counter) -> bool:
        if not self.on or self.error or reader is None or picture is None or not hasattr(reader, "set_profile"):
            return False
        chosen = getattr(reader, "profile", None)
        if chosen is not None and chosen is not self.profile:
            return False  # the family's own profile reads (and learns) instead
        if not any(r.uncertain for r in readings):
            return False
        return Counter((r.kind, str(r.value)) for r in readings) == said
