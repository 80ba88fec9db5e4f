"""Kivy widgets of the app: the camera preview (a texture refreshed from BGR frames, taps mapped back)."""

from __future__ import annotations

import numpy as np
from kivy.app import App
from kivy.graphics.texture import Texture
from kivy.uix.image import Image


class Preview(Image):
    """Shows BGR frames; a tap is reported to the app in frame pixel coordinates."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.fit_mode = "contain"
        self.frame_size = (0, 0)

    def show(self, image: np.ndarray) -> None:
        h, w = image.shape[:2]
        if self.texture is None or self.frame_size != (w, h):
            texture = Texture.create(size=(w, h), colorfmt="bgr")
            texture.flip_vertical()
            self.texture = texture
            self.frame_size = (w, h)
        self.texture.blit_buffer(np.ascontiguousarray(image).tobytes(), colorfmt="bgr", bufferfmt="ubyte")
        self.canvas.ask_update()

    def to_frame(self, x: float, y: float) -> tuple[float, float] | None:
        w, h = self.frame_size
        iw, ih = self.norm_image_size
        if not w or not iw or not ih:
            return None
        x0 = self.center_x - iw / 2
        y0 = self.center_y - ih / 2
        fx = (x - x0) / iw * w
        fy = (1 - (y - y0) / ih) * h
        if not (0 <= fx <= w and 0 <= fy <= h):
            return None
        return fx, fy

    def on_touch_down(self, touch):
        if not self.collide_point(*touch.pos):
            return super().on_touch_down(touch)
        point = self.to_frame(*touch.pos)
        if point is not None:
            App.get_running_app().preview_tapped(*point)
            return True
        return super().on_touch_down(touch)
