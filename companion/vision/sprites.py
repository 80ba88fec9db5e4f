"""Pasting small pictures (sprites) into a larger one, cropped to it: the demo's scenes, the films, the
overlay and the dice renders share the cropping; each keeps its own blend."""

from __future__ import annotations

import numpy as np


def sprite_window(img_shape: tuple[int, ...], sprite_shape: tuple[int, ...], x: int, y: int
                  ) -> tuple[tuple[slice, slice], tuple[slice, slice]] | None:
    """(where in the image, which part of the sprite) for a sprite whose top-left corner is at (x, y); None
    when none of it lies in the image."""
    h, w = img_shape[:2]
    sh, sw = sprite_shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + sw), min(h, y + sh)
    if x1 <= x0 or y1 <= y0:
        return None
    return (slice(y0, y1), slice(x0, x1)), (slice(y0 - y, y1 - y), slice(x0 - x, x1 - x))


def blend_sprite(img: np.ndarray, sprite: np.ndarray, x: int, y: int) -> None:
    """A BGRA float sprite (alpha 0-1) onto the BGR uint8 ``img`` at (x, y), cropped to the image."""
    window = sprite_window(img.shape, sprite.shape, x, y)
    if window is None:
        return
    at, part = window
    spr = sprite[part]
    a = spr[..., 3:4]
    img[at] = np.clip(img[at].astype(np.float32) * (1 - a) + spr[..., :3] * a, 0, 255).astype(np.uint8)
