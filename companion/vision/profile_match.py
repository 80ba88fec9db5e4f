"""Reading with a dice profile: each find compared with the family's taught dice in the embedding space.

The classifier has a second output, ``embedding``: a unit vector per crop, trained so that crops of one face
of one set of dice lie close together (models/dice_classifier.md). A :class:`ProfileMatcher` embeds the
profile's crops once (and their mirror images, for faces a mirror keeps: pips and colours), then gives
each find its similarity to every taught face (the mean of its nearest examples) and to the things on
this table that are not dice.

How a reading is decided (:meth:`ProfileMatcher.decide`; thresholds in ``DEFAULTS``):

- a find that resembles a taught face (similarity at least ``near``) reads as that face. It is sure when
  it resembles that face clearly more than any other (``margin``) and either the generic reader agrees or
  the find is all but one of the taught crops (its nearest example at least ``same``: the very die and pose
  a family confirmed or corrected, so a corrected mistake is not made again);
- a find that resembles a non-die of the table more than any die is dropped;
- a find unlike every taught die (the profile of other dice, or a face not taught yet) keeps the generic
  reading, and is marked uncertain when the profile would read it otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.classes import CLASSES
from companion.vision.profile import DiceProfile, ProfileError

DEFAULTS = {
    "near": 0.6,  # similarity from which a find is taken for one of the taught dice
    "margin": 0.05,  # how much more like its face than like any other face a sure reading must be
    "same": 0.95,  # from here a find is the taught crop itself: it is read as taught even against the generic reader
    "neighbours": 3,  # a face's similarity: the mean of its nearest examples
    "scale": 20.0,  # similarities x scale -> a softmax over the faces: the reading's confidence
}
MIRRORED_KINDS = ("d6", "magpie")  # a mirrored pip or colour face is the same face; a numeral is not


@dataclass
class Match:
    """One find against the profile: its best taught face and how alike."""

    face: tuple[str, int | str] | None  # (kind, value), None when nothing is taught
    similarity: float  # to that face
    runner_up: float  # to the next face (-1 when only one face is taught)
    non_die: float  # to the nearest non-die of the table (-1 when none is taught)
    confidence: float  # softmax share of that face among the taught faces
    nearest: float = -1.0  # to the single nearest example of that face


class ProfileMatcher:
    def __init__(self, profile: DiceProfile, classifier, config: dict | None = None, previous=None, kinds=None):
        """``kinds``: the kinds of dice on the table (the profile's other dice are left aside); ``previous``:
        the matcher this one replaces (the same profile, grown): crops it embedded are not embedded again, so
        adding a confirmed roll costs the new crops only."""
        if not classifier.has_embedding:
            raise ProfileError("the dice classifier in models/ has no embedding output: retrain it "
                               "(python -m companion.workshop.dice.train) to read with a profile")
        size, scale = classifier.config["size"], classifier.config["crop_scale"]
        if (profile.crop_size, round(profile.crop_scale, 3)) != (size, round(scale, 3)):
            raise ProfileError(f"this profile's crops are {profile.crop_size} px at {profile.crop_scale}x, the "
                               f"classifier reads {size} px at {scale}x: teach the dice again")
        self.profile = profile
        self.config = {**DEFAULTS, **(config or {})}
        examples = [e for e in profile.examples if kinds is None or e.kind in kinds]
        self.faces = sorted({(e.kind, e.value) for e in examples}, key=lambda f: CLASSES.index(f)
                            if f in CLASSES else len(CLASSES))
        crops, labels = [], []
        for e in examples:
            k = self.faces.index((e.kind, e.value))
            crops.append(e.crop)
            labels.append(k)
            if e.kind in MIRRORED_KINDS:
                crops.append(np.ascontiguousarray(e.crop[:, ::-1]))
                labels.append(k)
        self.labels = np.array(labels, np.int64)
        self._cache: dict[bytes, np.ndarray] = {}  # crop bytes -> embedding
        known = previous._cache if previous is not None else {}
        self.examples = self._embed(classifier, crops, known)
        self.non_dice = self._embed(classifier, profile.negatives, known)

    def _embed(self, classifier, crops, known: dict) -> np.ndarray:
        keys = [c.tobytes() for c in crops]
        todo = [i for i, k in enumerate(keys) if k not in known and k not in self._cache]
        if todo:
            for i, e in zip(todo, classifier.embed_crops(np.stack([crops[i] for i in todo])), strict=True):
                self._cache[keys[i]] = e
        for k in keys:
            if k not in self._cache:
                self._cache[k] = known[k]
        return (np.stack([self._cache[k] for k in keys]) if keys
                else np.zeros((0, classifier.embedding_dim()), np.float32))

    def kinds(self) -> tuple[str, ...]:
        return self.profile.kinds()

    def match(self, embeddings: np.ndarray) -> list[Match]:
        if not len(embeddings):
            return []
        if not self.faces:
            return [Match(None, -1.0, -1.0, -1.0, 0.0) for _ in embeddings]
        sim = embeddings @ self.examples.T  # unit vectors: cosine similarity
        k = int(self.config["neighbours"])
        per_face = np.full((len(embeddings), len(self.faces)), -1.0, np.float32)
        nearest = np.full_like(per_face, -1.0)
        for f in range(len(self.faces)):
            s = sim[:, self.labels == f]
            top = np.sort(s, axis=1)[:, -min(k, s.shape[1]):]
            # the nearest example counts twice: one crop of the very die outweighs faraway ones
            per_face[:, f] = (top.sum(1) + top[:, -1]) / (top.shape[1] + 1)
            nearest[:, f] = top[:, -1]
        non_die = (embeddings @ self.non_dice.T).max(1) if len(self.non_dice) else np.full(len(embeddings), -1.0)
        order = np.argsort(-per_face, axis=1)
        z = self.config["scale"] * per_face
        soft = np.exp(z - z.max(1, keepdims=True))
        soft /= soft.sum(1, keepdims=True)
        out = []
        for i in range(len(embeddings)):
            best = int(order[i, 0])
            second = float(per_face[i, order[i, 1]]) if len(self.faces) > 1 else -1.0
            out.append(Match(self.faces[best], float(per_face[i, best]), second, float(non_die[i]),
                             float(soft[i, best]), float(nearest[i, best])))
        return out

    def decide(self, m: Match, generic: tuple[str, int | str], generic_sure: bool) -> tuple[tuple, bool, str]:
        """(face, sure, why) of one find: why is "taught" (read as taught), "generic" (the generic reading
        stands) or "not a die"."""
        c = self.config
        best_sim = max(m.similarity, m.runner_up)
        if m.non_die > best_sim and m.non_die >= c["near"]:
            return generic, False, "not a die"
        if m.face is not None and m.similarity >= c["near"]:
            clear = m.similarity - max(m.runner_up, m.non_die) >= c["margin"]
            sure = clear and (m.face == generic or m.nearest >= c["same"])
            return m.face, sure, "taught"
        disagrees = m.face is not None and m.face != generic
        return generic, generic_sure and not disagrees, "generic"
