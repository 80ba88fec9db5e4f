"""The workshop's whole-game film, cut after its first frames: short generated videos for the tests."""

from __future__ import annotations

from companion.workshop.table import film


class ShortFilm(film.GameFilm):
    """The film of a whole game, cut after its first ``FRAMES`` frames (the set-up read, a roll)."""

    FRAMES = 24

    def frames(self, actions=None):
        for k, image in enumerate(super().frames(actions)):
            if k == self.FRAMES:
                return
            yield image
