"""Stage 2b: a closer look at each die the classifier reads as the Enchanted Die (d8).

The shared classifier tells a d8 from the other dice well, but reads its numerals only about one time in three
(its confusion matrix, models/dice_classifier.md). A second model, trained on d8 numerals only, reads a
larger crop of each die the classifier calls a d8. The classifier keeps its say on *whether* the die is a d8;
this stage only shares that probability out between the eight values and "unreadable" (``merge``).
Optional: a models folder whose manifest has no ``dice_d8_reader`` reads the d8 with the classifier alone.
"""

from __future__ import annotations

import numpy as np

from companion.vision.classes import CLASSES, NONE
from companion.vision.classify import crop, normalize
from companion.vision.confidence import softmax

MODEL_NAME = "dice_d8_reader"
VALUES = tuple(range(1, 9))
UNREADABLE = len(VALUES)  # the reader's last class
DEFAULTS = {"size": 64, "crop_scale": 1.3}
D8_CLASSES = np.array([CLASSES.index(("d8", v)) for v in VALUES])


class D8Reader:
    def __init__(self, session, config: dict | None = None):
        self.session = session
        self.config = {**DEFAULTS, **(config or {})}
        self.input = session.get_inputs()[0].name

    def probabilities(self, img: np.ndarray, boxes) -> np.ndarray:
        """N x 9: values 1-8, then unreadable."""
        if not len(boxes):
            return np.zeros((0, UNREADABLE + 1), np.float32)
        size, scale = self.config["size"], self.config["crop_scale"]
        return self.probabilities_of_crops(np.stack([crop(img, b, size, scale) for b in boxes]))

    def probabilities_of_crops(self, crops: np.ndarray, batch: int = 256) -> np.ndarray:
        """N x size x size x 3 uint8 crops -> N x 9."""
        return np.concatenate([softmax(self.session.run(None, {self.input: normalize(crops[i:i + batch])})[0])
                               for i in range(0, len(crops), batch)])


def is_d8(probs: np.ndarray) -> np.ndarray:
    """Rows whose most likely die class (leaving "none" aside) is a d8 value."""
    q = probs.copy()
    q[:, NONE] = 0
    return np.isin(q.argmax(1), D8_CLASSES)


def merge(probs: np.ndarray, d8_probs: np.ndarray) -> np.ndarray:
    """The classifier's probabilities (rows over CLASSES) with each row's d8 share split as the d8 reader
    reads it: d8:v gets share x P(v), and the unreadable part goes to "none"."""
    out = probs.copy()
    share = probs[:, D8_CLASSES].sum(1, keepdims=True)
    out[:, D8_CLASSES] = share * d8_probs[:, :UNREADABLE]
    out[:, NONE] += share[:, 0] * d8_probs[:, UNREADABLE]
    return out
