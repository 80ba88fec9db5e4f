"""Reading dice: synthetic renders with known values, and real photos with known labels."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.classes import NONE
from companion.workshop.dice.realdata import match
from companion.workshop.dice.synth import render_scene


@pytest.fixture(scope="module")
def reader():
    from companion.vision.reader import DiceReader

    return DiceReader(threads=1)


@pytest.fixture(scope="module")
def d6_reader():
    from companion.vision.reader import DiceReader

    return DiceReader(kinds=("d6",), threads=1)


DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


@pytest.fixture(scope="module")
def datasets():
    if not (DATASETS / "dice-photos-matteop65" / "valid" / "labels.json").is_file():
        pytest.skip(f"real dice photos not available at {DATASETS} (../shared/datasets)")
    return DATASETS


def _score(reader, img, truth):
    readings = reader.read(img)
    pairs = match([r.box for r in readings], [t[2] for t in truth])
    right = sum(readings[i].kind == truth[j][0] and readings[i].value == truth[j][1] for i, j in pairs)
    return len(pairs), right


D8_KNOWN_FAILURE = pytest.mark.xfail(
    reason="known failure: even with the d8 reader's second look, about 6 in 10 d8 numerals are read right on "
    "such scenes, below this test's 3 in 4 (this seed's 60 dice sit right at the bar, 43 of 58; seeds 12 and 22 "
    "give 63% and 70%: models/dice_d8_reader.md)", strict=False
)


@pytest.mark.parametrize("kind", ["d6", pytest.param("d8", marks=D8_KNOWN_FAILURE), "magpie"])
def test_synthetic_renders_are_read(reader, kind):
    rng = np.random.default_rng({"d6": 1, "d8": 2, "magpie": 3}[kind])
    total = found = right = 0
    for _ in range(20):  # 60 dice: a 6-scene sample swung by 15 points between seeds
        s = render_scene(rng, 384, 512, n_dice=3, size_range=(50, 100), kinds=(kind,), allow_fingers=False)
        truth = [(d.kind, d.value, d.box) for d in s.dice if d.label != NONE]  # readable upward face
        f, r = _score(reader, s.image, truth)
        total, found, right = total + len(truth), found + f, right + r
    assert found >= 0.8 * total, f"{kind}: found {found} of {total}"
    assert right >= 0.75 * found, f"{kind}: {right} of {found} read right"


def test_kinds_restrict_the_answers(reader):
    from companion.vision.reader import DiceReader

    only_d6 = DiceReader(kinds=("d6",))
    s = render_scene(np.random.default_rng(4), 384, 512, n_dice=4, size_range=(50, 100), kinds=("d8", "magpie"))
    assert all(r.kind == "d6" for r in only_d6.read(s.image))


def test_confidence_below_threshold_is_marked_uncertain(reader):
    s = render_scene(np.random.default_rng(5), 384, 512, n_dice=6, size_range=(40, 90))
    for r in reader.read(s.image):
        assert r.uncertain == (r.confidence < reader.uncertain_below or r.kind in reader.always_confirm_kinds)


REAL = [  # (dataset/split, photo count to read, share of found dice that must read right): a few photos
    # from each set, including the never-trained one. A guess is right one time in six; the bars sit well
    # below the whole-set figures (models/dice_classifier.md: 98%, 77% and 72% read right), since a handful
    # of photos swings by 10 points or more.
    ("dice-photos-matteop65/valid", 6, 0.7),
    ("dice-photos-roboflow-catan/valid", 4, 0.7),
    ("dice-photos-aws-reinvent2019/all", 6, 0.5),
]


@pytest.mark.parametrize("where,count,min_right", REAL)
def test_real_photos_with_known_labels(d6_reader, datasets, where, count, min_right):
    folder = datasets / where
    labels = json.loads((folder / "labels.json").read_text())
    names = sorted(labels)[:: max(1, len(labels) // count)][:count]
    total = found = right = 0
    for name in names:
        img = cv2.imread(str(folder / name))
        truth = [("d6", d["value"], d["box"]) for d in labels[name] if isinstance(d["value"], int)]
        f, r = _score(d6_reader, img, truth)
        total, found, right = total + len(truth), found + f, right + r
    assert found >= 0.7 * total, f"{where}: found {found} of {total}"
    assert right >= min_right * found, f"{where}: {right} of {found} read right"


def test_synthetic_d8_dice_are_found(reader):
    rng = np.random.default_rng(2)
    total = found = 0
    for _ in range(6):
        s = render_scene(rng, 384, 512, n_dice=3, size_range=(50, 100), kinds=("d8",), allow_fingers=False)
        truth = [(d.kind, d.value, d.box) for d in s.dice if d.top_visible > 0.8]
        f, _ = _score(reader, s.image, truth)
        total, found = total + len(truth), found + f
    assert found >= 0.8 * total, f"d8: found {found} of {total}"


def test_a_kind_listed_as_always_confirm_is_uncertain_however_confident(reader):
    """About half the d8 numerals are read right (models/dice_d8_reader.md), so even a confident d8 reading
    must be confirmed."""
    from companion.vision.classes import CLASSES
    from companion.vision.detect import Detection
    from companion.vision.reader import DiceReader

    assert "d8" in reader.always_confirm_kinds  # the committed manifest says so (models/dice_classifier.md)
    frame = np.zeros((64, 64, 3), np.uint8)
    confident = {}
    for kind, value in (("d8", 3), ("d6", 3)):
        probs = np.zeros(len(CLASSES), np.float32)
        probs[CLASSES.index((kind, value))] = 0.99
        probs[NONE] = 0.01
        confident[kind] = probs
    twin = DiceReader(threads=1)
    twin.d8_reader = None  # the classifier's reading as it is (test_dice_d8read covers the second look)
    twin.detector = lambda img: [Detection((10.0, 10.0, 20.0, 20.0), 0.9)] * 2
    twin.classifier.probabilities = lambda img, boxes, kinds, floor=None: np.stack([confident["d8"], confident["d6"]])
    d8, d6 = twin.read(frame)
    assert (d8.kind, d8.value, d8.uncertain) == ("d8", 3, True)
    assert (d6.kind, d6.value, d6.uncertain) == ("d6", 3, False)


def test_a_faint_find_is_kept_only_when_its_face_reads_clearly():
    """Below the detector's ``sure_above`` score a find must be read at least ``faint_min_confidence``
    confidently to count as a die; a sure find is kept, and marked uncertain when it reads vaguely."""
    from companion.vision.classes import CLASSES
    from companion.vision.detect import Detection
    from companion.vision.reader import DiceReader

    twin = DiceReader(threads=1)
    twin.sure_above, twin.uncertain_below, twin.faint_min_confidence = 0.3, 0.6, 0.8
    clear, fair, vague = (np.zeros(len(CLASSES), np.float32) for _ in range(3))
    clear[CLASSES.index(("d6", 4))], clear[NONE] = 0.95, 0.05
    fair[CLASSES.index(("d6", 4))], fair[CLASSES.index(("d6", 5))], fair[NONE] = 0.7, 0.2, 0.1
    vague[CLASSES.index(("d6", 4))], vague[CLASSES.index(("d6", 5))], vague[NONE] = 0.45, 0.35, 0.2
    frame = np.zeros((64, 64, 3), np.uint8)
    grid = [(float(x), float(y), 12.0, 12.0) for y in (0, 30) for x in (0, 20, 40)]
    scores = [0.2, 0.2, 0.2, 0.6, 0.6, 0.6]
    twin.detector = lambda img: [Detection(b, sc) for b, sc in zip(grid, scores, strict=True)]
    twin.classifier.probabilities = lambda img, b, kinds, floor=None: np.stack([clear, fair, vague] * 2)
    kept = {r.box[:2]: r for r in twin.read(frame)}
    assert set(kept) == {(0, 0), (0, 30), (20, 30), (40, 30)}  # faint: only the clear reading stays
    assert [kept[(x, 30)].uncertain for x in (0, 20, 40)] == [False, False, True]


def test_a_find_nested_in_a_much_larger_one_is_dropped():
    from companion.vision.detect import Detection, suppress_duplicates

    big = Detection((100.0, 100.0, 120.0, 120.0), 0.9)
    pip = Detection((130.0, 125.0, 25.0, 25.0), 0.95)  # one pip of the big die, scored higher
    neighbour = Detection((225.0, 110.0, 60.0, 60.0), 0.8)  # a smaller die touching the big one
    twin = Detection((100.0, 225.0, 115.0, 118.0), 0.7)  # a die of the same size below
    faint_group = Detection((90.0, 90.0, 200.0, 260.0), 0.2)  # a faint box around the big die and its twin
    kept = suppress_duplicates([pip, big, neighbour, twin, faint_group])
    assert kept == [big, neighbour, twin, faint_group]
