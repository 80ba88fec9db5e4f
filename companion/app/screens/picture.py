"""A still picture (BGR) that reports taps in its own pixels: the grid of dice faces, the board seen from above."""

from __future__ import annotations

import numpy as np
from kivy.graphics.texture import Texture
from kivy.uix.image import Image


class TapPicture(Image):
    """Shows a BGR picture at its aspect ratio across the width it is given (``fill``: inside the box it is given,
    as large as fits); a tap on it calls ``on_picture_tap(x, y)`` in picture pixels."""

    def __init__(self, on_picture_tap, fill: bool = False, **kw):
        super().__init__(fit_mode="contain", **({} if fill else {"size_hint_y": None}), **kw)
        self.on_picture_tap = on_picture_tap
        self.fill = fill
        self.picture_size = (1, 1)

    def show(self, picture: np.ndarray) -> None:
        h, w = picture.shape[:2]
        texture = Texture.create(size=(w, h), colorfmt="bgr")
        texture.flip_vertical()
        texture.blit_buffer(np.ascontiguousarray(picture).tobytes(), colorfmt="bgr", bufferfmt="ubyte")
        self.texture, self.picture_size = texture, (w, h)
        self.on_size()

    def on_size(self, *_args) -> None:
        if not self.fill:
            w, h = self.picture_size
            self.height = self.width * h / w

    def to_picture(self, x: float, y: float) -> tuple[float, float]:
        iw, ih = self.norm_image_size
        w, h = self.picture_size
        return (x - (self.center_x - iw / 2)) / iw * w, (1 - (y - (self.center_y - ih / 2)) / ih) * h

    def picture_to_window(self, x: float, y: float) -> tuple[float, float]:
        """Picture pixels -> window coordinates (a tap there lands on that pixel)."""
        iw, ih = self.norm_image_size
        w, h = self.picture_size
        return self.center_x - iw / 2 + x / w * iw, self.center_y - ih / 2 + (1 - y / h) * ih

    def on_touch_down(self, touch):
        if not self.collide_point(*touch.pos) or self.texture is None:
            return super().on_touch_down(touch)
        if self.on_picture_tap(*self.to_picture(*touch.pos)):
            return True
        return super().on_touch_down(touch)
