"""Kivy widgets of the app: the camera preview (a texture refreshed from BGR frames, taps mapped back).

Per camera frame the preview does one thing: ``blit_buffer`` of the frame into a texture it keeps
(re-created only when the frame size changes). The frame is uploaded as RGBA, swizzled by OpenCV into a
buffer the preview keeps: a four-byte format every GL takes as it is, where BGR is a slow path (converted
pixel by pixel by the driver on desktop GL, and by Kivy itself on GLES/Android, which has no BGR format).

On a software rasterizer (Mesa's llvmpipe: a machine or VM without a GPU driver, and the headless bench)
writing into the texture the last frame was drawn with waits until that frame is fully rasterized; there
each frame gets a fresh texture instead (measured: the preview's frame rate about doubles). A GPU driver
takes the upload into the kept texture without that wait, so there the one texture is kept. The overlay (dice boxes, legal/proposed spaces, the
board outline, the status line) is a second, transparent texture drawn above it in ``canvas.after``,
uploaded only when its content changes (:meth:`Preview.set_overlay`), never per frame.
"""

from __future__ import annotations

import cv2
import numpy as np
from kivy.factory import Factory
from kivy.graphics import Color, Rectangle
from kivy.graphics.texture import Texture
from kivy.properties import ListProperty
from kivy.uix.image import Image
from kivy.uix.scrollview import ScrollView

from companion.app import overlay


def kivy_text(text: str, height_px: float, colour_bgr: tuple[int, int, int]) -> np.ndarray:
    """The overlay's words in the app's font (every letter: "Grün"): BGRA, digits ``height_px`` tall, edged in black."""
    from kivy.core.text import Label as CoreLabel

    b, g, r = (c / 255 for c in colour_bgr)
    label = CoreLabel(text=text, font_size=height_px / 0.71, bold=True, color=(r, g, b, 1),
                      outline_width=max(1, round(height_px / 10)), outline_color=(0, 0, 0))
    label.refresh()
    texture = label.texture
    rgba = np.frombuffer(texture.pixels, np.uint8).reshape(texture.height, texture.width, 4)
    return cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA)


overlay.set_text_renderer(kivy_text)


class LineList(ScrollView):
    """A scrolling list of wrapped lines (kv: ``companion/app/kv/rules.kv``); ``data`` sets them, a dict per line
    (``text``, optionally ``color``)."""

    data = ListProperty([])

    def on_data(self, _list, data) -> None:
        box = self.ids.box
        box.clear_widgets()
        for line in data:
            box.add_widget(Factory.ListLine(**line))


def _bytes(image: np.ndarray) -> memoryview:
    return memoryview(np.ascontiguousarray(image)).cast("B")


SOFTWARE_GL = ("llvmpipe", "softpipe", "swiftshader", "software rasterizer")
_software: bool | None = None


def software_gl() -> bool:
    """True when the GL renderer is a software rasterizer (asked once, after the window exists)."""
    global _software
    if _software is None:
        try:
            from kivy.graphics.opengl import GL_RENDERER, glGetString

            name = glGetString(GL_RENDERER)
            name = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name or "")
            _software = any(s in name.lower() for s in SOFTWARE_GL)
        except Exception:  # no GL context to ask: treat it as a GPU
            _software = False
    return _software


class Preview(Image):
    """Shows BGR frames; a tap on the picture is dispatched as ``on_tap(x, y)`` in frame pixel coordinates."""

    __events__ = ("on_tap",)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.shown_frame = None  # the frame last uploaded
        self.fit_mode = "contain"
        self.frame_size = (0, 0)
        self.overlay_key = None
        self._rgba: np.ndarray | None = None  # the upload buffer (one per frame size)
        self.fresh_textures: bool | None = None  # a texture per frame (software GL); None: decided at the first frame
        self.uploads = 0  # camera frames uploaded
        self.overlay_uploads = 0  # overlay redraws (only when what it shows changed)
        self._overlay_texture: Texture | None = None
        with self.canvas.after:
            self._overlay_colour = Color(1, 1, 1, 0)
            self._overlay_rect = Rectangle(pos=self.pos, size=(0, 0))
        self.bind(pos=self._place_overlay, size=self._place_overlay, texture=self._place_overlay)

    def show(self, image: np.ndarray) -> None:
        """Upload a BGR (or grey, or BGRA) frame."""
        h, w = image.shape[:2]
        if self.fresh_textures is None:
            self.fresh_textures = software_gl()
        if self.texture is None or self.frame_size != (w, h) or self._rgba is None or self.fresh_textures:
            if self.frame_size != (w, h) or self._rgba is None:
                self._rgba = np.empty((h, w, 4), np.uint8)
                self.overlay_key = None  # the overlay was drawn for the old size
            texture = Texture.create(size=(w, h), colorfmt="rgba")
            texture.flip_vertical()
            self.texture = texture
            self.frame_size = (w, h)
        code = cv2.COLOR_GRAY2RGBA if image.ndim == 2 else (cv2.COLOR_BGRA2RGBA if image.shape[2] == 4 else cv2.COLOR_BGR2RGBA)
        cv2.cvtColor(image, code, dst=self._rgba)
        self.texture.blit_buffer(_bytes(self._rgba), colorfmt="rgba", bufferfmt="ubyte")
        self.uploads += 1
        self.canvas.ask_update()

    def set_overlay(self, layer: np.ndarray | None, key=None) -> None:
        """Show ``layer`` (BGRA, the frame's size) over the picture; None hides the overlay."""
        self.overlay_key = key
        self.overlay_uploads += 1
        if layer is None:
            self._overlay_colour.a = 0
            return
        h, w = layer.shape[:2]
        texture = self._overlay_texture
        if texture is None or tuple(texture.size) != (w, h):
            texture = Texture.create(size=(w, h), colorfmt="bgra")
            texture.flip_vertical()
            self._overlay_texture = texture
            self._overlay_rect.texture = texture
        texture.blit_buffer(_bytes(layer), colorfmt="bgra", bufferfmt="ubyte")
        self._overlay_rect.texture = texture
        self._overlay_colour.a = 1
        self._place_overlay()
        self.canvas.ask_update()

    def _place_overlay(self, *_args) -> None:
        iw, ih = self.norm_image_size if self.texture is not None else (0, 0)
        self._overlay_rect.pos = (self.center_x - iw / 2, self.center_y - ih / 2)
        self._overlay_rect.size = (iw, ih)

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
            self.dispatch("on_tap", *point)
            return True
        return super().on_touch_down(touch)

    def on_tap(self, x: float, y: float) -> None:
        """A tap on the picture at frame pixel (x, y); the screen showing it binds to this."""
