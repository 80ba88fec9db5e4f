"""Stage 2: read the upward face of each found die with a small CNN on a normalized square crop.

The crop is centred on the detection, ``crop_scale`` times its longer side, resized to ``size``
pixels and standardized (whole-crop mean and deviation, so colours keep their ratios). The model
outputs temperature-scaled logits over ``classes.CLASSES`` (the temperature is baked into the
ONNX graph), so a softmax gives calibrated probabilities.

A doubtful crop (best probability below ``mirror_below``) is read a second time mirrored left to right,
and the two readings' logits are averaged: a mirrored pip face is a pip face, and the mirror keeps the
camera's up and down (turning the crop would not: a leaning camera sees the upward face above the side
faces). Measured on the shipped model, it reads more dice right on every real and synthetic set. A die the
board's pose shows seen from above (``down``) is read turned by quarter turns as well (``looking_down.views``):
from above there is no up and down, and the face reads the same turned. The
reader gives faint finds a ``floor``: one read less surely than that could not count, and is read once.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.classes import CLASSES, NONE
from companion.vision.confidence import softmax
from companion.vision.imageio import shrink
from companion.vision.models import output_names

# shifted_looks: a crop read this doubtfully after its first looks is cut again shifted (``Classifier._shifted_looks``)
DEFAULTS = {"size": 48, "crop_scale": 1.3, "mirror_below": 0.95,
            "shifted_looks": {"offset": 0.08, "from": 0.6, "below": 0.98}}
SIDE_VIEWS = ("mirror",)  # the second look at a doubtful crop of a die seen from the side: keeps up and down
LOGITS, EMBEDDING = "logits", "embedding"  # the model's outputs, asked for by name (OpenCV orders them its own way)
# bump when crop() changes the pixels it gives: cached training crops are keyed by it (train.py)
CROP_VERSION = 2  # 2: shrunk by imageio.shrink instead of INTER_AREA


def crop(img: np.ndarray, box, size: int = 48, crop_scale: float = 1.3) -> np.ndarray:
    """Square crop around a box (x, y, w, h), border-replicated where it leaves the frame."""
    x, y, w, h = box
    cx, cy = x + w / 2, y + h / 2
    side = max(4.0, crop_scale * max(w, h))
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    s = int(round(side))
    H, W = img.shape[:2]
    if x0 >= 0 and y0 >= 0 and x0 + s <= W and y0 + s <= H:
        patch = img[y0:y0 + s, x0:x0 + s]
    else:  # clamp the indices: the pixels a replicated border gives, without padding the whole frame
        ys = np.clip(np.arange(y0, y0 + s), 0, H - 1)
        xs = np.clip(np.arange(x0, x0 + s), 0, W - 1)
        patch = img[ys[:, None], xs[None, :]]
    if s > size:  # area-averaged, as INTER_AREA would, at a fifth of its time (imageio.shrink)
        return shrink(patch, size / s)
    return cv2.resize(patch, (size, size), interpolation=cv2.INTER_LINEAR)


def normalize(crops: np.ndarray) -> np.ndarray:
    """Nx(size)x(size)x3 uint8 -> Nx3xSxS float32, standardized per crop."""
    x = crops.astype(np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


def second_view(x: np.ndarray, view: str) -> np.ndarray:
    """N x C x H x W standardized crops seen another way (the per-crop standardization is unchanged):
    "mirror" (left to right), "rot90", "rot180", "rot270" (quarter turns counter-clockwise), "flip" (top to
    bottom)."""
    if view == "mirror":
        return np.ascontiguousarray(x[..., ::-1])
    if view == "flip":
        return np.ascontiguousarray(x[..., ::-1, :])
    turns = {"rot90": 1, "rot180": 2, "rot270": 3}[view]
    return np.ascontiguousarray(np.rot90(x, turns, axes=(2, 3)))


def kind_mask(kinds) -> np.ndarray:
    """Boolean mask of the classes allowed when only ``kinds`` of dice are on the table."""
    return np.array([k in kinds or i == NONE for i, (k, _) in enumerate(CLASSES)])


class Classifier:
    def __init__(self, session, config: dict | None = None):
        self.session = session
        self.config = {**DEFAULTS, **(config or {})}
        self.input = session.get_inputs()[0].name
        # a classifier trained with the embedding head also gives each crop a unit vector (profile_match)
        self.has_embedding = EMBEDDING in output_names(session)
        self._outputs = [LOGITS, EMBEDDING] if self.has_embedding else [LOGITS]

    def crops(self, img: np.ndarray, boxes) -> np.ndarray:
        size, scale = self.config["size"], self.config["crop_scale"]
        return np.stack([crop(img, b, size, scale) for b in boxes])

    def embedding_dim(self) -> int:
        size = self.config["size"]
        return int(self.embed_crops(np.zeros((1, size, size, 3), np.uint8)).shape[1])

    def embed_crops(self, crops: np.ndarray, batch: int = 256) -> np.ndarray:
        """N x size x size x 3 uint8 crops -> N x D unit vectors (needs ``has_embedding``)."""
        return np.concatenate([self.session.run([EMBEDDING], {self.input: normalize(crops[i:i + batch])})[0]
                               for i in range(0, len(crops), batch)])

    def logits(self, img: np.ndarray, boxes, floor=None, kinds=None, down=None) -> np.ndarray:
        return self.read(img, boxes, floor, kinds, down)[0]

    @property
    def down_views(self) -> tuple[str, ...]:
        """The second looks at a doubtful crop of a die seen from above (``looking_down`` in the config)."""
        return tuple(self.config.get("looking_down", {}).get("views", SIDE_VIEWS))

    def read(self, img: np.ndarray, boxes, floor=None, kinds=None, down=None) -> tuple[np.ndarray, np.ndarray | None]:
        """(logits, embeddings or None) of each box's crop. ``floor`` (one value per box, optional): a doubtful
        crop whose best die reading ("none" aside; only ``kinds`` when given) is below its floor is not read
        again (the reader passes one for faint finds that could not count). ``down`` (one bool per box,
        optional): the die is seen from above, so a doubtful crop is also read turned (``down_views``). A crop
        still doubtful after that is read shifted as well (``shifted_looks``). The embedding is the crop's as it is."""
        if not len(boxes):
            return np.zeros((0, len(CLASSES)), np.float32), None
        logits, embeddings = self.read_crops(self.crops(img, boxes), floor, kinds, down)
        return self._shifted_looks(img, boxes, logits, floor, kinds), embeddings

    def _shifted_looks(self, img: np.ndarray, boxes, logits: np.ndarray, floor, kinds) -> np.ndarray:
        """``logits`` with each crop whose best die reading lies in the ``shifted_looks`` band averaged with four crops
        shifted by ``offset`` of its box, each read as it is and mirrored. A faint find (a ``floor`` above 0) keeps
        its first looks: whether it is a die at all is the reader's to decide from them (a shifted crop shows more of
        the table round a die, and lost a faint die on a board's free region)."""
        looks = self.config.get("shifted_looks")
        if not looks:
            return logits
        die = _masked_softmax(logits, kinds)
        die[:, NONE] = 0
        best = die.max(1)
        band = (best >= float(looks["from"])) & (best < float(looks["below"]))
        if floor is not None:
            band &= np.asarray(floor, np.float64) <= 0
        rows = np.flatnonzero(band)
        if not len(rows):
            return logits
        d, size, scale = float(looks["offset"]), self.config["size"], self.config["crop_scale"]
        shifts = ((d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d))
        x = normalize(np.stack([crop(img, (bx + dx * bw, by + dy * bh, bw, bh), size, scale)
                                for dx, dy in shifts for bx, by, bw, bh in (boxes[r] for r in rows)]))
        shifted = [self.session.run([LOGITS], {self.input: v})[0] for v in (x, second_view(x, "mirror"))]
        each = ((shifted[0] + shifted[1]) / 2).reshape(len(shifts), len(rows), -1)
        logits = logits.copy()
        logits[rows] = (logits[rows] + each.sum(0)) / (len(shifts) + 1)
        return logits

    def read_crops(self, crops: np.ndarray, floor=None, kinds=None, down=None) -> tuple[np.ndarray, np.ndarray | None]:
        """``read`` of crops already cut (N x size x size x 3 uint8, as ``crops`` cuts them)."""
        x = normalize(crops)
        outs = self.session.run(self._outputs, {self.input: x})
        logits, embeddings = outs[0], (outs[1] if self.has_embedding else None)
        probs = softmax(logits)
        doubtful = probs.max(1) < float(self.config["mirror_below"])
        if floor is not None:
            die = softmax(np.where(kind_mask(kinds)[None], logits, -1e9)) if kinds is not None else probs
            die[:, NONE] = 0
            doubtful &= die.max(1) >= np.asarray(floor, np.float64)
        doubtful = np.flatnonzero(doubtful)
        down = np.zeros(len(crops), bool) if down is None else np.asarray(down, bool)
        for rows, views in ((doubtful[~down[doubtful]], SIDE_VIEWS), (doubtful[down[doubtful]], self.down_views)):
            if len(rows):  # the logits of every look at a doubtful crop, averaged
                looks = [logits[rows]] + [self.session.run([LOGITS], {self.input: second_view(x[rows], v)})[0]
                                          for v in views]
                logits[rows] = np.mean(looks, axis=0)
        return logits, embeddings

    def probabilities(self, img: np.ndarray, boxes, kinds=None, floor=None, down=None) -> np.ndarray:
        return self.read_probabilities(img, boxes, kinds, floor, down)[0]

    def read_probabilities(self, img: np.ndarray, boxes, kinds=None, floor=None, down=None
                           ) -> tuple[np.ndarray, np.ndarray | None]:
        """(probabilities over CLASSES, only ``kinds`` when given; embeddings or None)."""
        logits, embeddings = self.read(img, boxes, floor, kinds, down)
        return _masked_softmax(logits, kinds), embeddings

    def probabilities_of_crops(self, crops: np.ndarray, kinds=None, once: bool = False) -> np.ndarray:
        """Probabilities over CLASSES of crops already cut, read as ``read_probabilities`` reads a frame's
        (``once``: each crop read once as it is, a doubtful one not read again mirrored)."""
        if not len(crops):
            return np.zeros((0, len(CLASSES)), np.float32)
        floor = np.full(len(crops), np.inf) if once else None  # no reading reaches an infinite floor
        return _masked_softmax(self.read_crops(crops, floor, kinds)[0], kinds)


def _masked_softmax(logits: np.ndarray, kinds) -> np.ndarray:
    if kinds is not None:
        logits = np.where(kind_mask(kinds)[None], logits, -1e9)
    return softmax(logits)
