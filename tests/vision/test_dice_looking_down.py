"""Dice seen from above (issue 20's small dice): read turned as well, and sure from their own threshold
(``looking_down`` in the classifier's config; docs/vision-notes.md, dice reader ruling 19)."""

import numpy as np
import pytest

from companion.vision import classify
from companion.vision.classes import CLASSES, NONE
from companion.vision.detect import Detection
from companion.vision.pose import view_angle_deg, view_angles_px

TURNS = ("rot90", "rot180", "rot270")


def _whole_crop_box(size: int = 48, crop_scale: float = 1.3) -> tuple[float, float, float, float]:
    """A box whose crop is exactly a size x size picture's pixels (no resampling)."""
    side = size / crop_scale
    return (size / 2 - side / 2, size / 2 - side / 2, side, side)


def test_a_die_seen_from_above_reads_the_same_turned_by_a_quarter_turn():
    """Averaged over the quarter turns, a crop and the same crop turned read alike, to float precision; without
    the turns (a die seen from the side) they do not: the test would fail if the turns were not applied."""
    from companion.vision.models import backend_session

    session, entry, _ = backend_session("dice_classifier", "onnxruntime", 1, None)
    rng = np.random.default_rng(5)
    picture = rng.integers(0, 256, (48, 48, 3), dtype=np.uint8)
    picture[12:36, 12:36] = 235  # a bright square with two dark dots: a die-like crop whose reading leans
    picture[16:21, 16:21] = 20
    picture[28:33, 27:32] = 20
    turned = np.ascontiguousarray(np.rot90(picture))
    box = [_whole_crop_box()]
    classifier = classify.Classifier(session, {**entry["config"], "mirror_below": 2.0,
                                               "looking_down": {"views": list(TURNS)}})
    a = classifier.logits(picture, box, down=[True])
    b = classifier.logits(turned, box, down=[True])
    np.testing.assert_allclose(a, b, atol=1e-4)
    side_a = classifier.logits(picture, box, down=[False])
    side_b = classifier.logits(turned, box, down=[False])
    assert np.abs(side_a - side_b).max() > 1e-3


def test_second_views_are_the_crop_turned_and_mirrored():
    x = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    np.testing.assert_array_equal(classify.second_view(x, "mirror"), x[..., ::-1])
    np.testing.assert_array_equal(classify.second_view(x, "rot90")[1, 2], np.rot90(x[1, 2]))
    np.testing.assert_array_equal(classify.second_view(x, "rot180")[0, 0], np.rot90(x[0, 0], 2))
    np.testing.assert_array_equal(classify.second_view(classify.second_view(x, "rot90"), "rot270"), x)
    with pytest.raises(KeyError):
        classify.second_view(x, "rot45")


def _reader_reading(confidence: float):
    """A reader whose classifier reads one find as a d6 showing 4 with ``confidence``."""
    from companion.vision.reader import DiceReader

    # sure from 0.98 from the side (above the committed thresholds): one reading between tells the two apart
    reader = DiceReader(kinds=("d6",), threads=1, uncertain_below=0.98)
    probs = np.zeros(len(CLASSES), np.float32)
    probs[CLASSES.index(("d6", 4))] = confidence
    probs[NONE] = 1 - confidence
    seen = {}

    def probabilities(img, boxes, kinds, floor=None, down=None):
        seen["down"] = None if down is None else list(down)
        return np.stack([probs] * len(boxes))

    reader.detector = lambda img: [Detection((100.0, 100.0, 20.0, 20.0), 0.9)]
    reader.classifier.probabilities = probabilities
    return reader, seen


def test_a_die_seen_from_above_is_sure_from_its_own_threshold_and_only_then():
    committed = pytest.importorskip("companion.vision.reader").DiceReader(threads=1)
    down = committed.looking_down
    assert down["uncertain_below"] < 0.98 and down["within_deg"] == 30.0  # the committed manifest (model card)
    assert down["uncertain_below"] >= committed.uncertain_below  # from above, sure no sooner than from the side
    between = (down["uncertain_below"] + 0.98) / 2
    frame = np.zeros((240, 320, 3), np.uint8)
    reader, seen = _reader_reading(between)
    (side,) = reader.read(frame)  # no pose: read as today
    assert side.uncertain and seen["down"] is None
    (above,) = reader.read(frame, lambda centres: np.full(len(centres), 12.0))
    assert not above.uncertain and seen["down"] == [True]
    (oblique,) = reader.read(frame, lambda centres: np.full(len(centres), 40.0))
    assert oblique.uncertain and seen["down"] is None
    (unknown,) = reader.read(frame, lambda centres: np.full(len(centres), np.nan))  # no angle: not from above
    assert unknown.uncertain
    reader, _ = _reader_reading(down["uncertain_below"] - 0.01)
    (doubtful,) = reader.read(frame, lambda centres: np.zeros(len(centres)))
    assert doubtful.uncertain


def test_the_angle_at_each_point_of_the_picture():
    """A camera looking straight down (the board's plane parallel to the picture) sees the table at 0 degrees at
    the picture's centre and at atan(r / f) r px from it; the same as view_angle_deg for a point on the board."""
    f, w, h = 1024.0, 1280, 720
    H = np.array([[2.0, 0.0, 100.0], [0.0, 2.0, 50.0], [0.0, 0.0, 1.0]])  # board mm -> px, seen square on
    angles = view_angles_px(H, (w, h), np.array([[640.0, 360.0], [640.0 + f, 360.0], [640.0, 360.0 - 300.0]]))
    np.testing.assert_allclose(angles, [0.0, 45.0, np.degrees(np.arctan(300 / f))], atol=1e-6)
    tilted = np.array([[2.0, 0.1, 100.0], [0.05, 1.8, 50.0], [1e-4, 3e-4, 1.0]])
    point_mm = np.array([120.0, 80.0])
    px = tilted @ np.r_[point_mm, 1.0]
    assert view_angles_px(tilted, (w, h), (px[:2] / px[2])[None])[0] == pytest.approx(
        view_angle_deg(tilted, (w, h), point_mm), abs=1e-6)


def test_the_windows_ask_the_angle_where_the_die_lies_in_the_whole_frame():
    """DiceWindows reads a window around what changed; the angle is asked at the die's place in the frame."""
    from companion.vision.table_changes import DiceWindows

    asked = []

    class Reader:
        def read(self, window, seen_at=None):
            asked.append(seen_at(np.array([[10.0, 20.0]])) if seen_at is not None else None)
            return []

    before = np.full((360, 640, 3), 90, np.uint8)
    frame = before.copy()
    frame[200:220, 400:420] = 250  # a die thrown
    DiceWindows(Reader()).read(frame, before, 20.0, (), seen_at=lambda centres: centres.copy())
    (where,) = asked
    x0, y0 = where[0] - (10.0, 20.0)
    assert 0 <= x0 <= 400 <= x0 + 160 and 0 <= y0 <= 200 <= y0 + 160 and (x0, y0) != (0, 0)
    asked.clear()
    DiceWindows(Reader()).read(frame, before, 20.0)
    assert asked == [None]
