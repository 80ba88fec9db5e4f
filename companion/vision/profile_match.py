"""Reading with a dice profile: each find compared with the family's taught dice in the embedding space.

The classifier has a second output, ``embedding``: a unit vector per crop, trained so that crops of one face
of one set of dice lie close together (models/dice_classifier.md). A :class:`ProfileMatcher` embeds the
profile's crops once (and their mirror images, for faces a mirror keeps: pips and colours), then gives
each find its similarity to every taught face (the mean of its nearest examples) and to the things on
this table that are not dice.

How a reading is decided (:meth:`ProfileMatcher.decide`; thresholds in ``DEFAULTS``). Measured on the real
sets and on synthetic boxes of dice (models/dice_classifier.md, docs/vision-notes.md dice reader ruling 16), a
profile's nearest examples read a die less well than the generic reader does (the generic reader has seen far
more dice), but when a find is *familiar* (an example of the profile is very like it) and the two agree, the
reading is right more often than either alone; so the profile is a second opinion, not a second reader:

- a familiar find the generic reader reads as the same face is sure from a lower confidence
  (``agree_above`` instead of the model's ``uncertain_below``);
- a find that resembles a taught die (``resembles``) but one of another face than the generic reading is
  asked (flagged), whatever the generic reader's confidence: a profile of other dice never makes a reading sure
  that the generic reader would not, and flags those it disagrees with;
- a find all but identical to one of the taught crops (``same``: the very die and pose a family confirmed or
  corrected) reads as that crop's face, sure (a kind the model card lists as always confirmed, the d8, is
  still shown for a tap, with the taught face): a corrected mistake is not made again;
- a find more like something on this table that is not a die (taught as such) than like any die, and not
  read surely by the generic reader, is dropped;
- otherwise the generic reading stands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.classes import CLASSES
from companion.vision.classify import normalize
from companion.vision.profile import DiceProfile, ProfileError

DEFAULTS = {
    "familiar": 0.9,  # nearest example at least this alike: the profile vouches for the generic reading's face
    "agree_above": 0.9,  # the generic confidence from which a familiar, agreeing reading is sure
    "resembles": 0.8,  # nearest example at least this alike and of another face: the reading is flagged
    "same": 0.98,  # thumbnails this alike: the find is the taught crop itself, read as taught
    "non_die": 0.9,  # this alike to a taught non-die (and more than to any die): not a die
    "neighbours": 3,  # a face's similarity: the mean of its nearest examples
    "scale": 20.0,  # similarities x scale -> a softmax over the faces: the profile's confidence in its face
}
MIRRORED_KINDS = ("d6", "magpie")  # a mirrored pip or colour face is the same face; a numeral is not
THUMB_BLOCK = 8  # a crop's thumbnail: the means of its 8x8-pixel blocks


def thumbnails(crops: np.ndarray) -> np.ndarray:
    """N x size x size x 3 crops -> unit vectors of their standardized block means: nearly equal for the same
    die in the same pose however its box is rounded, unlike for any other die (what "the taught crop itself"
    is judged by; the learnt embedding moves more than that for a box one pixel off)."""
    x = normalize(crops)
    n, c, h, w = x.shape
    b = THUMB_BLOCK
    t = x[:, :, : h // b * b, : w // b * b].reshape(n, c, h // b, b, w // b, b).mean(axis=(3, 5)).reshape(n, -1)
    return t / (np.linalg.norm(t, axis=1, keepdims=True) + 1e-6)


@dataclass
class Match:
    """One find against the profile: its best taught face and how alike."""

    face: tuple[str, int | str] | None  # (kind, value), None when nothing is taught
    similarity: float  # to that face
    runner_up: float  # to the next face (-1 when only one face is taught)
    non_die: float  # to the nearest non-die of the table (-1 when none is taught)
    confidence: float  # softmax share of that face among the taught faces
    nearest: float = -1.0  # to the single nearest example of that face
    closest_face: tuple[str, int | str] | None = None  # the face of the taught crop whose thumbnail is nearest
    closest: float = -1.0  # how alike the two thumbnails are


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
        crops, labels, plain = [], [], []
        for e in examples:
            k = self.faces.index((e.kind, e.value))
            plain.append(len(crops))  # the row of each example's own crop (its mirror image follows)
            crops.append(e.crop)
            labels.append(k)
            if e.kind in MIRRORED_KINDS:
                crops.append(np.ascontiguousarray(e.crop[:, ::-1]))
                labels.append(k)
        self.labels = np.array(labels, np.int64)
        self.thumbs = thumbnails(np.stack([e.crop for e in examples])) if examples else np.zeros((0, 1), np.float32)
        self.thumb_faces = [self.faces.index((e.kind, e.value)) for e in examples]
        self.plain_rows = np.array(plain, np.int64)
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

    def match(self, embeddings: np.ndarray, crops: np.ndarray) -> list[Match]:
        """Each find (its embedding and its crop) against the taught dice."""
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
        # the taught crop itself: its thumbnail all but equal, and its embedding familiar too (a thumbnail alone
        # can match another face of identical dice under identical light)
        same = thumbnails(crops) @ self.thumbs.T
        same = np.where(sim[:, self.plain_rows] >= self.config["familiar"], same, -1.0)
        closest = same.argmax(1)
        for i in range(len(embeddings)):
            best = int(order[i, 0])
            second = float(per_face[i, order[i, 1]]) if len(self.faces) > 1 else -1.0
            out.append(Match(self.faces[best], float(per_face[i, best]), second, float(non_die[i]),
                             float(soft[i, best]), float(nearest[i, best]), self.faces[self.thumb_faces[closest[i]]],
                             float(same[i, closest[i]])))
        return out

    def decide(self, m: Match, generic: tuple[str, int | str], generic_conf: float, generic_sure: bool,
               always_confirm=()) -> tuple[tuple, bool, str]:
        """(face, sure, why) of one find: why is "taught" (the profile decided), "generic" (the generic
        reading stands) or "not a die"."""
        c = self.config
        if m.non_die >= c["non_die"] and m.non_die > m.similarity and not generic_sure:
            return generic, False, "not a die"
        if m.face is None:
            return generic, generic_sure, "generic"
        if m.closest >= c["same"]:  # the taught crop itself (a kind always confirmed is still confirmed)
            return m.closest_face, m.closest_face[0] not in always_confirm, "taught"
        if m.face != generic and m.nearest >= c["resembles"]:
            return generic, False, "taught"
        if m.face == generic and m.nearest >= c["familiar"] and generic[0] not in always_confirm:
            return generic, generic_sure or generic_conf >= c["agree_above"], "taught"
        return generic, generic_sure, "generic"
