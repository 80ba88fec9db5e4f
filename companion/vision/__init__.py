"""Reading physical dice from camera frames.

Stages (each a module with its own evaluation): ``detect`` finds dice in a frame, ``classify`` reads
the upward face of each, ``reader`` composes them; ``tracker`` turns a video of readings into settled
rolls; ``registry`` tells apart the dice of one game by their look. ``synth`` renders the synthetic
training and benchmark data, ``train`` (torch, training only) makes the ONNX models in ``models/``.

Nothing here imports companion.games, companion.app or (at run time) torch.
"""

from companion.vision.errors import ImageError, ModelError, VisionError

__all__ = ["ImageError", "ModelError", "VisionError"]
