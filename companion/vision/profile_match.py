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
- a find read as the same face by both, at least ``margin_above`` by the generic reader, that resembles that
  face's taught dice (``margin_near``) much more than any other face's (``margin``) is sure too;
- otherwise the generic reading stands.

Three things are measured on the taught dice themselves when the matcher is built (``left_out``, ``sure_from``,
``seen_from_above``):

- whether the embedding tells each kind's faces apart on these dice: each taught die read by its nearest other
  taught dice (leave one out). Below ``tells_apart`` (the d8's numerals: about one in five, against nine in ten
  for pips and colours) the embedding neither vouches for nor flags that kind's readings;
- how surely the generic reader reads each kind of these dice: the lowest of ``checked_levels`` from which
  every taught die it reads that surely is read right (and at least one is). A kind the model card always
  confirms (the d8) is sure with a profile from that level, when the find resembles that kind's taught dice;
  when the reader misreads a taught die at every level, that kind stays always confirmed;
- whether the camera that taught them looked down on the table: the taught dice the generic reader reads right
  (one look each) are read right at every quarter turn too (``above_share`` of them). A face seen from above has
  no up and down; one seen by a leaning camera has. With no board pose, the reader then reads this table's dice
  as it reads dice the pose shows seen from above (``looking_down``: doubtful crops read turned as well, sure
  from its own calibrated threshold; docs/vision-notes.md, session 15).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision import d8read
from companion.vision.classes import CLASSES, NONE
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
    # agreeing, read at least margin_above, at least margin_near like its face and margin more than any other:
    # sure (measured on the real sets and synthetic boxes: 64 more dice right and sure of 3,500, none wrong)
    "margin_above": 0.95,
    "margin_near": 0.75,
    "margin": 0.3,
    "tells_apart": 0.5,  # leave-one-out share of taught dice the embedding reads right, for it to have a say
    "min_left_out": 12,  # taught dice (of faces taught at least twice) needed to measure that share
    "checked_levels": (0.95, 0.98, 0.99),  # generic confidences tried for a kind always confirmed
    # the taught dice read right by the generic reader, at least this many, and at least this share of them read
    # right at every quarter turn too: the camera looks down on this table (measured on the real sets' first 10
    # photos: 0.89-1.0 where the photos are taken from above, 0.41-0.80 where a camera leans)
    "above_min_dice": 8,
    "above_share": 0.85,
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
    kind_nearest: dict = field(default_factory=dict)  # kind -> similarity to its nearest taught die of any face


def per_face(sim: np.ndarray, labels: np.ndarray, faces: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(each face's similarity: the mean of its ``k`` nearest examples, the nearest counted twice; the nearest
    example's), N x faces, from N x rows similarities to examples labelled ``labels``."""
    agg = np.full((len(sim), faces), -1.0, np.float32)
    nearest = np.full_like(agg, -1.0)
    for f in range(faces):
        s = sim[:, labels == f]
        if not s.shape[1]:
            continue
        top = np.sort(s, axis=1)[:, -min(k, s.shape[1]):]
        # the nearest example counts twice: one crop of the very die outweighs faraway ones
        agg[:, f] = (top.sum(1) + top[:, -1]) / (top.shape[1] + 1)
        nearest[:, f] = top[:, -1]
    return agg, nearest


class ProfileMatcher:
    def __init__(self, profile: DiceProfile, classifier, config: dict | None = None, previous=None, kinds=None,
                 d8_reader=None):
        """``kinds``: the kinds of dice on the table (the profile's other dice are left aside); ``previous``:
        the matcher this one replaces (the same profile, grown): crops it embedded are not embedded again, so
        adding a confirmed roll costs the new crops only; ``d8_reader``: the reader's second look at the d8
        (``d8read.D8Reader``), to read the taught d8 dice as the reader would."""
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
        self.kinds_read = tuple(kinds) if kinds is not None else None
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
        self.row_kinds = np.array([self.faces[f][0] for f in labels]) if labels else np.zeros(0, str)
        self._readings: dict[bytes, tuple] = dict(previous._readings) if previous is not None else {}
        self._turned: dict[bytes, tuple] = dict(previous._turned) if previous is not None else {}
        self.left_out = self._left_out_accuracy(examples)
        self.sure_from = self._checked_levels(examples, classifier, d8_reader)
        self.seen_from_above = self._read_alike_turned(examples, classifier)

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

    # ------------------------------------------------------------- measured on the taught dice
    def _left_out_accuracy(self, examples) -> dict[str, float]:
        """kind -> share of its taught dice (of faces taught at least twice) whose nearest face among the
        *other* taught dice is their own (a kind with too few such dice is left out: not measured)."""
        if not examples:
            return {}
        owner = np.repeat(np.arange(len(examples)), np.diff(np.append(self.plain_rows, len(self.labels))))
        sim = self.examples[self.plain_rows] @ self.examples.T
        sim[owner[None, :] == np.arange(len(examples))[:, None]] = -2.0  # a die is not its own neighbour
        agg, _ = per_face(sim, self.labels, len(self.faces), int(self.config["neighbours"]))
        own = self.labels[self.plain_rows]
        taught_twice = np.bincount(own, minlength=len(self.faces))[own] >= 2
        out = {}
        for kind in {e.kind for e in examples}:
            rows = taught_twice & np.array([e.kind == kind for e in examples])
            if rows.sum() >= int(self.config["min_left_out"]):
                out[kind] = float((agg[rows].argmax(1) == own[rows]).mean())
        return out

    def tells_apart(self, kind: str) -> bool:
        """Whether the embedding's face counts for this kind (True when it could not be measured)."""
        return self.left_out.get(kind, 1.0) >= self.config["tells_apart"]

    def _checked_levels(self, examples, classifier, d8_reader) -> dict[str, float]:
        """kind -> the lowest of ``checked_levels`` from which the generic reader reads every taught die of that
        kind right (at least one of them that surely); a kind misread at every level is left out."""
        readings = self._generic_readings([e.crop for e in examples], classifier, d8_reader)
        out = {}
        for kind in {e.kind for e in examples}:
            read = [(conf, face == (e.kind, e.value)) for e, (face, conf) in zip(examples, readings, strict=True)
                    if e.kind == kind]
            for level in self.config["checked_levels"]:
                above = [right for conf, right in read if conf >= level]
                if above and all(above):
                    out[kind] = float(level)
                    break
        return out

    def _read_alike_turned(self, examples, classifier) -> bool:
        """Whether the taught dice that the generic reader reads right are read right at every quarter turn too
        (``above_share`` of them, at least ``above_min_dice``): a face seen from above has no up and down, a face
        seen by a leaning camera has (the side faces show below it). The reader then reads this table's dice
        as seen from above when no board pose says otherwise (``DiceReader.read``)."""
        right = alike = 0
        for e, faces in zip(examples, self._turned_readings([e.crop for e in examples], classifier), strict=True):
            if faces[0] == (e.kind, e.value):
                right += 1
                alike += all(f == faces[0] for f in faces[1:])
        return right >= int(self.config["above_min_dice"]) and alike >= self.config["above_share"] * right

    def _turned_readings(self, crops, classifier) -> list[tuple]:
        """The generic reader's face of each crop (one look) as it is and turned by 1, 2 and 3 quarter turns, remembered
        per crop (a profile grown by a confirmed roll reads only the new crops)."""
        keys = [c.tobytes() for c in crops]
        todo = [i for i, k in enumerate(keys) if k not in self._turned]
        if todo:
            batch = np.stack([crops[i] for i in todo])
            turns = np.concatenate([np.rot90(batch, k, axes=(1, 2)) for k in range(4)])
            # each look once: the mirrored second look of a doubtful crop would hide how much turning it costs
            probs = classifier.probabilities_of_crops(np.ascontiguousarray(turns), self.kinds_read, once=True)
            probs[:, NONE] = 0
            best = probs.argmax(1).reshape(4, len(todo))
            for j, i in enumerate(todo):
                self._turned[keys[i]] = tuple(CLASSES[int(b)] for b in best[:, j])
        return [self._turned[k] for k in keys]

    def _generic_readings(self, crops, classifier, d8_reader) -> list[tuple]:
        """(face, confidence) of each crop as the reader reads a find (the d8's second look on the crop scaled
        up to its size), remembered per crop."""
        keys = [c.tobytes() for c in crops]
        todo = [i for i, k in enumerate(keys) if k not in self._readings]
        if todo:
            batch = np.stack([crops[i] for i in todo])
            probs = classifier.probabilities_of_crops(batch, self.kinds_read)
            rows = np.flatnonzero(d8read.is_d8(probs))
            size = d8_reader.config["size"] if d8_reader is not None else 0
            same_scale = d8_reader is not None and abs(d8_reader.config["crop_scale"] - classifier.config["crop_scale"]) < 1e-3
            if len(rows) and same_scale:
                bigger = np.stack([cv2.resize(batch[r], (size, size), interpolation=cv2.INTER_LINEAR) for r in rows])
                probs[rows] = d8read.merge(probs[rows], d8_reader.probabilities_of_crops(bigger))
            probs[:, NONE] = 0
            for i, p in zip(todo, probs, strict=True):
                best = int(p.argmax())
                self._readings[keys[i]] = (CLASSES[best], float(p[best]))
        return [self._readings[k] for k in keys]

    def match(self, embeddings: np.ndarray, crops: np.ndarray) -> list[Match]:
        """Each find (its embedding and its crop) against the taught dice."""
        if not len(embeddings):
            return []
        if not self.faces:
            return [Match(None, -1.0, -1.0, -1.0, 0.0) for _ in embeddings]
        sim = embeddings @ self.examples.T  # unit vectors: cosine similarity
        agg, nearest = per_face(sim, self.labels, len(self.faces), int(self.config["neighbours"]))
        kind_nearest = {k: sim[:, self.row_kinds == k].max(1) for k in set(self.row_kinds.tolist())}
        non_die = (embeddings @ self.non_dice.T).max(1) if len(self.non_dice) else np.full(len(embeddings), -1.0)
        order = np.argsort(-agg, axis=1)
        z = self.config["scale"] * agg
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
            second = float(agg[i, order[i, 1]]) if len(self.faces) > 1 else -1.0
            out.append(Match(self.faces[best], float(agg[i, best]), second, float(non_die[i]),
                             float(soft[i, best]), float(nearest[i, best]), self.faces[self.thumb_faces[closest[i]]],
                             float(same[i, closest[i]]), {k: float(v[i]) for k, v in kind_nearest.items()}))
        return out

    def decide(self, m: Match, generic: tuple[str, int | str], generic_conf: float, generic_sure: bool,
               always_confirm=()) -> tuple[tuple, bool, str]:
        """(face, sure, why) of one find: why is "taught" (the profile decided), "generic" (the generic
        reading stands) or "not a die"."""
        c = self.config
        nearest_die = max(m.kind_nearest.values(), default=m.similarity)  # the nearest taught die of any face
        if m.non_die >= c["non_die"] and m.non_die > nearest_die and not generic_sure:
            return generic, False, "not a die"
        if m.face is None:
            return generic, generic_sure, "generic"
        if m.closest >= c["same"]:  # the taught crop itself (a kind always confirmed is still confirmed)
            return m.closest_face, m.closest_face[0] not in always_confirm, "taught"
        kind = generic[0]
        if kind in always_confirm:
            sure = self._checked_sure(m, generic, generic_conf)
            return generic, sure, "taught" if sure else "generic"
        if not self.tells_apart(kind):  # the embedding cannot tell this kind's faces apart: no say
            return generic, generic_sure, "generic"
        if m.face != generic and m.nearest >= c["resembles"]:
            return generic, False, "taught"
        if m.face == generic and m.nearest >= c["familiar"]:
            return generic, generic_sure or generic_conf >= c["agree_above"], "taught"
        if m.face == generic and generic_conf >= c["margin_above"] and m.nearest >= c["margin_near"] \
                and m.runner_up > -1 and m.similarity - m.runner_up >= c["margin"]:
            return generic, True, "taught"
        return generic, generic_sure, "generic"

    def _checked_sure(self, m: Match, generic: tuple, generic_conf: float) -> bool:
        """A reading of a kind always confirmed (the d8) is sure when the generic reader read this profile's
        dice of that kind right from a level it reaches, the find resembles them, and the embedding, where it
        tells that kind's faces apart, does not take it for another face."""
        c, kind = self.config, generic[0]
        level = self.sure_from.get(kind)
        if level is None or generic_conf < level or m.kind_nearest.get(kind, -1.0) < c["resembles"]:
            return False
        return not (self.tells_apart(kind) and m.face != generic and m.nearest >= c["resembles"])
