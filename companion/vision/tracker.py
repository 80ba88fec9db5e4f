"""Settled rolls from a video: feed each frame's readings; a roll is reported once every die has
been still, with the same reading, for ``settle_frames`` consecutive frames.

A die that moves (its centre shifts by more than ``still_fraction`` of its size), changes value,
appears or disappears resets the count, so a bouncing or rolling die never produces a roll. A
frame flagged ``hand=True`` (a hand or anything else moving in view: motion.MotionMeter) or with no
dice at all pauses: nothing settles until the view is clear again. A roll with an uncertain reading
needs twice as many still frames (a blurred die in motion is uncertain too) and keeps its flag, so the
referee shows it for confirmation instead of waiting forever for a face the reader cannot be sure of
(a cocked die, the d8). After a roll is reported the same dice, in the same places, are not reported
again, even after a hand passed over them, until the table has been seen still and empty for
``settle_frames`` frames (the dice picked up) or the dice changed (the next throw), or ``forget`` is
called (the app wants the dice in view read again).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Roll:
    dice: list  # the readings of the settled frame, left to right
    frame: int  # index of the frame at which it settled

    @property
    def values(self) -> list:
        return [r.value for r in self.dice]


def _signature(readings) -> list[tuple]:
    return sorted((r.kind, r.value, r.box[0] + r.box[2] / 2, r.box[1] + r.box[3] / 2, max(r.box[2], r.box[3]),
                   bool(r.uncertain)) for r in readings)


class SettleTracker:
    def __init__(self, settle_frames: int = 5, still_fraction: float = 0.15, any_face_kinds: frozenset[str] = frozenset()):
        self.settle_frames = settle_frames
        self.still_fraction = still_fraction
        # kinds whose every reading is confirmed (the reader's ``always_confirm_kinds``: the d8): a die of such a kind
        # read unsure frame after frame is still while it lies still, whatever face each frame reads -- the family
        # confirms its face anyway, and waiting for one face to hold lost the die (box 67:90 upright, Eagle Kingdoms
        # seed 83 r2, frames 4261-4275: the Enchanted Die lay still 15 frames read 3, then 2, and was picked up unread)
        self.any_face_kinds = any_face_kinds
        self._prev: list[tuple] | None = None
        self._last_roll: list[tuple] | None = None
        self._stable = 0
        self._empty = 0  # consecutive still frames with no dice in view
        self.frame = -1
        self.paused = False

    def _same(self, a: list[tuple], b: list[tuple]) -> bool:
        if len(a) != len(b):
            return False
        used: set[int] = set()
        for kind, value, x, y, s, unsure in a:
            for j, (k2, v2, x2, y2, s2, unsure2) in enumerate(b):
                tol = self.still_fraction * max(s, s2)
                face = v2 == value or unsure and unsure2 and kind in self.any_face_kinds
                if j not in used and k2 == kind and face and abs(x - x2) <= tol and abs(y - y2) <= tol:
                    used.add(j)
                    break
            else:
                return False
        return True

    def forget(self) -> None:
        """Report the dice in view again once they are settled (at once if they already are)."""
        self._last_roll = None

    def update(self, readings, hand: bool = False) -> Roll | None:
        """Feed one frame. Returns a Roll the first time the dice have settled, else None."""
        self.frame += 1
        self.paused = hand or not readings
        self._empty = self._empty + 1 if not readings and not hand else 0
        if self.paused:
            self._stable = 0
            self._prev = None
            if self._empty >= self.settle_frames:  # the dice were picked up: the same throw again is a new roll
                self._last_roll = None
            return None
        sig = _signature(readings)
        self._stable = self._stable + 1 if self._prev is not None and self._same(sig, self._prev) else 1
        self._prev = sig
        needed = self.settle_frames * (2 if any(r.uncertain for r in readings) else 1)
        if self._stable >= needed and not (self._last_roll and self._same(sig, self._last_roll)):
            self._last_roll = sig
            return Roll(sorted(readings, key=lambda r: (r.box[0], r.box[1])), self.frame)
        return None
