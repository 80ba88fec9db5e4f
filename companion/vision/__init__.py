"""Reading physical dice and boards from camera frames: what runs at the table.

Stages (each a module with its own evaluation): ``detect`` finds dice in a frame, ``classify`` reads
the upward face of each, ``reader`` composes them, ``dice_context`` tells them from the board's
pieces and markers; ``tracker`` turns a video of readings into settled
rolls; ``registry`` tells apart the dice of one game by their look; ``motion`` holds a roll back while
something moves over the table. ``pose`` finds the board by its markers (``boardmap``: the maps,
``intrinsics``: a camera's lens, ``teach``: fitting a map to the family's own box), ``readers`` read
each game's board, ``sources`` give the frames, ``models`` loads the committed ONNX models.

This package is what runs at the table. The workshop that makes and measures its models (renders,
training, evaluation, benchmarks, marker sheets) is :mod:`companion.workshop`; nothing here imports
it, nor companion.games, companion.app or torch.
"""

from companion.vision.errors import ImageError, ModelError, VisionError

__all__ = ["ImageError", "ModelError", "VisionError"]
