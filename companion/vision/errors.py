"""Vision errors; each carries a reason a person can act on."""

from __future__ import annotations


class VisionError(Exception):
    """Base of every vision failure."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ModelError(VisionError):
    """A model file is missing, damaged (hash mismatch) or cannot be loaded."""


class ImageError(VisionError):
    """An input is not a usable image (not an image, truncated, empty, too small)."""
