"""The composer: load the ONNX models once, then find and read every die of a frame.

    reader = DiceReader(kinds=("d6",))
    for r in reader.read(frame):       # frame: BGR uint8 (any size)
        print(r.kind, r.value, r.confidence, r.uncertain, r.box)

A reading below ``uncertain_below`` confidence is marked uncertain (never silently guessed; a die that the
board's pose shows is seen from above, ``read(frame, seen_at)``, from ``looking_down.uncertain_below``), and so is
every reading of a kind the model card lists in ``always_confirm_kinds`` (a kind whose measured
accuracy does not justify trusting any single reading: the d8 today). A found
die whose face the classifier calls unreadable (partly hidden, tilted against another die, a
finger over it) is kept as an uncertain reading when the detector is sure there is a die, and
dropped as a false find otherwise. A faint find (detector score below ``sure_above`` in the
detector's config) is kept only when its face is read confidently: the low detector threshold finds
small and oblique dice, and the classifier, not a guess, decides whether a faint find is a die.

``backend`` picks the runtime: "onnxruntime", "opencv" (OpenCV DNN, the Android path) or "auto"
(default; $COMPANION_DICE_BACKEND overrides it): onnxruntime when importable, else OpenCV. Both read
the same checked ONNX files and give the same readings. The classifier's crop size comes from the
manifest (``config.size``). When d8 dice may be on the table and the manifest lists a d8 reader, each die
read as a d8 is read again by it (``d8read``).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from companion.vision import d8read
from companion.vision.classes import CLASSES, KINDS, NONE
from companion.vision.classify import Classifier
from companion.vision.detect import Detector
from companion.vision.models import backend_session, has_model


@dataclass
class Reading:
    kind: str  # "d6" | "d8" | "magpie"
    value: int | str  # 1-8, or a colour name / "magpie"
    confidence: float  # calibrated probability that kind and value are right
    box: tuple[int, int, int, int]  # x, y, w, h in frame pixels
    uncertain: bool
    identity: str | None = None  # name of a registered die (see registry.DieRegistry)
    detector_score: float = 0.0

    def as_json(self) -> dict:
        d = asdict(self)
        d["box"] = [int(v) for v in self.box]
        d["confidence"] = round(float(self.confidence), 4)
        d.pop("detector_score")
        if self.identity is None:
            d.pop("identity")
        return d


class DiceReader:
    def __init__(self, kinds=KINDS, threads: int = 1, uncertain_below: float | None = None,
                 detector_threshold: float | None = None, models_folder=None, registry=None,
                 backend: str | None = None, profile=None):
        det_session, det_entry, self.backend = backend_session("dice_detector", backend, threads, models_folder)
        cls_session, cls_entry, _ = backend_session("dice_classifier", self.backend, threads, models_folder)
        det_cfg = dict(det_entry.get("config", {}))
        if detector_threshold is not None:
            det_cfg["threshold"] = detector_threshold
        self.detector = Detector(det_session, det_cfg)
        self.sure_above = float(self.detector.config.get("sure_above", 0.0))
        self.classifier = Classifier(cls_session, cls_entry.get("config", {}))
        cfg = cls_entry.get("config", {})
        self.uncertain_below = float(uncertain_below if uncertain_below is not None else cfg.get("uncertain_below", 0.6))
        self.keep_unreadable_above = float(cfg.get("keep_unreadable_above", 0.5))
        # a faint find (below the detector's sure_above) must be read at least this confidently to count
        self.faint_min_confidence = float(cfg.get("faint_min_confidence", self.uncertain_below))
        self.always_confirm_kinds = frozenset(cfg.get("always_confirm_kinds", ()))
        # a die seen from above reads the same turned by quarter turns, and is sure from its own threshold
        self.looking_down = dict(cfg.get("looking_down", {}))
        self.kinds = tuple(kinds)
        # stage 2b: the d8's numerals get a second, closer look when the models folder has a d8 reader
        self.d8_reader = None
        if "d8" in self.kinds and has_model(d8read.MODEL_NAME, models_folder):
            d8_session, d8_entry, _ = backend_session(d8read.MODEL_NAME, self.backend, threads, models_folder)
            self.d8_reader = d8read.D8Reader(d8_session, d8_entry.get("config", {}))
        self.registry = registry
        self.last_ms: dict[str, float] = {}
        self.matcher = None
        if profile is not None:
            self.set_profile(profile)

    def set_profile(self, profile, config: dict | None = None) -> None:
        """Read with the family's taught dice (``profile.DiceProfile``), or with the generic reader alone
        (None). ProfileError when this classifier cannot use it (no embedding output, other crops)."""
        from companion.vision.profile_match import ProfileMatcher

        previous = self.matcher if self.matcher is not None and self.matcher.profile is profile else None
        if config is None and previous is not None:
            config = previous.config
        self.matcher = None if profile is None else ProfileMatcher(profile, self.classifier, config, previous,
                                                                   self.kinds, self.d8_reader)

    @property
    def profile(self):
        return None if self.matcher is None else self.matcher.profile

    def _kept(self, score: float, conf: float, p_none: float) -> bool:
        """Whether a find with this detector score, best reading's confidence and P(none) counts as a die."""
        if p_none > conf and score < self.keep_unreadable_above:
            return False  # most likely not a die at all
        if score < self.sure_above and (conf < self.faint_min_confidence or p_none > conf):
            return False  # a faint find that does not read clearly as a die
        return True

    def read(self, frame: np.ndarray, seen_at=None) -> list[Reading]:
        """Every die of the frame. ``seen_at`` (optional, from the board's pose): a function from die centres
        (N x 2 frame px) to the degrees between the table's normal and the line of sight to each; a die seen
        from within ``looking_down.within_deg`` is read as a die seen from above (``looking_down``)."""
        t0 = time.perf_counter()
        dets = self.detector(frame)
        return self._read_finds(frame, dets, t0, time.perf_counter(), seen_at)

    def read_boxes(self, frame: np.ndarray, boxes, seen_at=None) -> list[Reading]:
        """Read dice where they are known to be (a die the family tapped, a photo of one die): one reading per
        box, in order, uncertain when its face cannot be read. ``seen_at``: as in :meth:`read`."""
        from companion.vision.detect import Detection

        t0 = time.perf_counter()
        return self._read_finds(frame, [Detection(tuple(float(v) for v in b), 1.0) for b in boxes], t0, t0, seen_at)

    def from_above(self, boxes, seen_at) -> np.ndarray:
        """Which of the boxes' dice are seen from above (``looking_down.within_deg``), by ``seen_at``."""
        within = self.looking_down.get("within_deg")
        if seen_at is None or within is None or not len(boxes):
            return np.zeros(len(boxes), bool)
        b = np.asarray(boxes, np.float64).reshape(-1, 4)
        degrees = np.asarray(seen_at(b[:, :2] + b[:, 2:] / 2), np.float64)
        return np.isfinite(degrees) & (degrees <= float(within))

    def _seen_from_above(self, boxes, seen_at) -> np.ndarray:
        """Which dice to read as seen from above: by the board's pose (``seen_at``) when there is one, else every
        die when the profile's taught dice read alike turned by quarter turns (the camera that taught them looked
        down on the table: ``ProfileMatcher.seen_from_above``), else none."""
        if seen_at is None and self.matcher is not None and self.matcher.seen_from_above and self.looking_down:
            return np.ones(len(boxes), bool)
        return self.from_above(boxes, seen_at)

    def _read_finds(self, frame: np.ndarray, dets, t0: float, t1: float, seen_at=None) -> list[Reading]:
        # a faint find read below half of faint_min_confidence cannot count (_kept): its crop is not mirrored
        floor = [self.faint_min_confidence / 2 if d.score < self.sure_above else 0.0 for d in dets]
        boxes = [d.box for d in dets]
        down = self._seen_from_above(boxes, seen_at)
        sure_from = np.where(down, float(self.looking_down.get("uncertain_below", self.uncertain_below)),
                             self.uncertain_below)
        turned = {"down": down} if down.any() else {}
        if self.matcher is None:
            probs, embeddings = self.classifier.probabilities(frame, boxes, self.kinds, floor, **turned), None
        else:  # the embeddings too, to compare each find with the taught dice
            probs, embeddings = self.classifier.read_probabilities(frame, boxes, self.kinds, floor, **turned)
        if self.d8_reader is not None and len(dets):
            # after the second look a d8 reading's confidence is at most the d8 share, and P(none) only grows:
            # finds dropped even at that confidence (clutter read faintly as a d8) are not read again
            share = probs[:, d8read.D8_CLASSES].sum(1)
            rows = [i for i in np.flatnonzero(d8read.is_d8(probs))
                    if self._kept(dets[i].score, float(share[i]), float(probs[i, NONE]))]
            if rows:
                d8_probs = self.d8_reader.probabilities(frame, [dets[i].box for i in rows])
                probs[rows] = d8read.merge(probs[rows], d8_probs)
        matches = None
        if self.matcher is not None and len(dets):
            matches = self.matcher.match(embeddings, self.classifier.crops(frame, boxes))
        t2 = time.perf_counter()
        readings = []
        for i, (det, p) in enumerate(zip(dets, probs, strict=True)):
            p_none = float(p[NONE])
            q = p.copy()
            q[NONE] = 0
            best = int(q.argmax())
            conf = float(q[best])
            kept = self._kept(det.score, conf, p_none)
            kind, value = CLASSES[best]
            uncertain = bool(conf < sure_from[i]) or kind in self.always_confirm_kinds
            if matches is not None:
                face, sure, why = self.matcher.decide(matches[i], (kind, value), conf, not uncertain,
                                                      self.always_confirm_kinds)
                if why == "not a die":
                    continue
                if why == "taught" and sure:
                    kept = True  # a faint find the profile vouches for counts
                    if face != (kind, value):
                        conf = matches[i].confidence
                (kind, value), uncertain = face, not sure
            if not kept:
                continue
            x, y, w, h = det.box
            box = (int(round(x)), int(round(y)), int(round(w)), int(round(h)))
            readings.append(Reading(kind, value, conf, box, uncertain, None, det.score))
        if self.registry is not None:
            self.registry.identify_all(frame, readings)
        self.last_ms = {"detect": (t1 - t0) * 1000, "classify": (t2 - t1) * 1000, "total": (t2 - t0) * 1000}
        return readings
