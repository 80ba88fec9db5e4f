"""Eagle Kingdoms board reader on rendered frames of engine states, and on bad input."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from companion.referee.boardmaps import BOARDS_DIR
from companion.referee.eagle_kingdoms import match_observation, scene_from_state
from companion.referee.match import MatchKind
from companion.vision.boardmap import load_board_map
from companion.vision.errors import ModelError
from companion.vision.models import models_dir
from companion.vision.pose import BoardTracker, PoseStatus
from companion.vision.readers.eagle_kingdoms import EagleKingdomsReader
from companion.vision.readers.stands import MANIFEST, StandClassifier
from companion.workshop.boards.bench.eagle_kingdoms import sample_states
from companion.workshop.boards.scenes.eagle_kingdoms import render
from companion.workshop.boards.synth_table import random_homography


@pytest.fixture(scope="module")
def board():
    return load_board_map(BOARDS_DIR / "eagle-kingdoms.json")


@pytest.fixture(scope="module")
def reader(board):
    return EagleKingdomsReader(board)


def read(board, reader, scene, seed, **kw):
    frame, truth = render(board, scene, np.random.default_rng(seed), **kw)
    pose = BoardTracker(board).update(frame.image)
    return reader.read(frame.image, pose), pose, frame


def wrong_regions(obs, scene):
    def key(pieces):
        return sorted(map(repr, pieces or []))

    return [r for r in {*scene, *obs.regions} if key(scene.get(r)) != key(obs.regions.get(r))]


def test_reads_engine_states_exactly(board, reader):
    for k, state in enumerate(sample_states(3, 21)):
        scene = scene_from_state(state)
        obs, pose, _ = read(board, reader, scene, 100 + k)
        assert pose.usable and obs.usable
        assert wrong_regions(obs, scene) == [], k
        assert not obs.uncertain, sorted(obs.uncertain)


def test_a_capture_read_from_the_camera_is_proposed(board, reader):
    from companion.games.eagle_kingdoms.rules import CAPTURE, PIECE_IDS, SHIELD

    state = next(s for s in sample_states(40, 5) if s.phase == CAPTURE and [p for p in s.matching_pieces(s.dice) if p != SHIELD])
    piece = PIECE_IDS[[p for p in state.matching_pieces(state.dice) if p != SHIELD][0]]
    after = {k: v for k, v in scene_from_state(state).items() if k != piece}
    obs, _, _ = read(board, reader, after, 7)
    result = match_observation(state, None, obs)
    assert result.kind is MatchKind.PROPOSED and result.action == {"type": "capture", "piece": piece}


def test_a_hand_over_the_board_makes_regions_uncertain_not_wrong(board, reader):
    scene = scene_from_state(sample_states(1, 3)[0])
    obs, pose, _ = read(board, reader, scene, 11, hand_at_mm=(250.0, 300.0))
    assert obs.usable and obs.uncertain  # the regions under the hand are not claimed
    silent = [r for r in wrong_regions(obs, scene) if not obs.is_uncertain(r)]
    assert silent == []


def test_dark_and_overexposed_frames_give_no_observation(board, reader):
    scene = scene_from_state(sample_states(1, 4)[0])
    for gain, status in ((0.12, PoseStatus.TOO_DARK), (4.0, PoseStatus.OVEREXPOSED)):
        obs, pose, _ = read(board, reader, scene, 12, gain=gain)
        assert pose.status is status
        assert not obs.usable and status.value in obs.status and obs.regions == {}


def test_no_markers_in_view_gives_no_observation(board, reader):
    blank = np.full((720, 1280, 3), 90, np.uint8)
    obs = reader.read(blank, BoardTracker(board).update(blank))
    assert not obs.usable and "not in view" in obs.status
    assert reader.read(None, BoardTracker(board).update(blank)).usable is False


def test_half_the_board_out_of_frame_is_uncertain_there(board, reader):
    scene = scene_from_state(sample_states(1, 6)[0])
    rng = np.random.default_rng(13)
    H = random_homography(board, rng, (1280, 720), fill=(0.9, 0.9), max_rotation_deg=0.0, perspective=0.0)
    H = np.array([[1, 0, 0], [0, 1, 330], [0, 0, 1]]) @ H  # push the board's lower half off the frame
    obs, pose, _ = read(board, reader, scene, 13, homography=H)
    if not obs.usable:  # too few markers: refused with a reason, nothing applied
        assert "marker" in obs.status
        return
    assert pose.status is PoseStatus.PARTLY_HIDDEN
    hidden = [r.id for r in board.regions if r.center_mm[1] > 420]
    assert all(obs.is_uncertain(r) for r in hidden)
    silent = [r for r in wrong_regions(obs, scene) if not obs.is_uncertain(r)]
    assert silent == []


def test_a_damaged_model_is_refused_with_a_reason(tmp_path):
    for name in ("stand_classifier.onnx", MANIFEST):
        shutil.copy(models_dir() / name, tmp_path / name)
    with open(tmp_path / "stand_classifier.onnx", "r+b") as fh:
        fh.seek(100)
        fh.write(b"\x00\x01\x02")
    with pytest.raises(ModelError, match="sha256"):
        StandClassifier(tmp_path)
    (tmp_path / MANIFEST).unlink()
    with pytest.raises(ModelError, match="missing"):
        StandClassifier(tmp_path)


def test_bare_spaces_of_another_box_read_surely_empty(board, reader):
    """The second rendition prints every space's outline and dice picture in gold on the felt: once its piece is
    captured, a space shows them. Printed lines are no cards, and art on bare felt is no character (a character
    stands on its piece): the space reads empty, surely (it read unsure, so no capture was ever seen there)."""
    bare = 0
    for k, state in enumerate(sample_states(4, 41)):
        scene = scene_from_state(state)
        obs, pose, _ = read(board, reader, scene, 300 + k, rendition=2)
        assert pose.usable and obs.usable
        empty = [r.id for r in board.regions if r.kind != "shield" and not scene.get(r.id)]
        bare += len(empty)
        assert [r for r in empty if r in obs.uncertain or obs.regions.get(r)] == [], k
    assert bare >= 10


def test_the_paper_is_the_plain_hsv_test_with_the_channels_taken_apart(board, reader, monkeypatch):
    """The canvas's paper (unsaturated, bright for the light there) read from the HSV picture's channels split
    apart is the test on the interleaved picture, to the bit."""
    from companion.vision.readers import eagle_kingdoms

    seen: dict[str, np.ndarray] = {}
    cv2 = eagle_kingdoms.cv2
    real_cvt, real_dilate, real_light = cv2.cvtColor, cv2.dilate, reader._light

    def cvt(image, code, *args):
        if code == cv2.COLOR_BGR2HSV:
            seen["canvas"] = image.copy()
        return real_cvt(image, code, *args)

    def dilate(image, kernel, *args, **kw):
        if kernel is eagle_kingdoms._NEAR_CARD_KERNEL:
            seen["paper"] = image.copy()
        return real_dilate(image, kernel, *args, **kw)

    def light(*args):
        seen["light"] = real_light(*args)
        return seen["light"]

    monkeypatch.setattr(cv2, "cvtColor", cvt)
    monkeypatch.setattr(cv2, "dilate", dilate)
    monkeypatch.setattr(reader, "_light", light)
    obs, _pose, _frame = read(board, reader, scene_from_state(sample_states(1, 5)[0]), 7)
    assert obs.usable and {"canvas", "paper", "light"} <= set(seen)
    hsv = real_cvt(seen["canvas"], cv2.COLOR_BGR2HSV)
    cfg = reader.cfg
    paper_light = np.minimum(1.0, seen["light"] / 0.8)
    plain = ((hsv[..., 1] <= int(cfg["paper_s_max"])) & (hsv[..., 2] >= float(cfg["paper_v_min"]) * paper_light)).astype(np.uint8) * 255
    assert np.array_equal(seen["paper"], plain) and 0 < (plain > 0).sum() < plain.size



def test_paper_as_large_as_a_card_where_a_character_stands_is_not_read_surely_empty(board, reader):
    """A piece whose plate reads as the felt and whose card, dim, the finder misses leaves only paper no card explains
    (box 23:180, Eagle Kingdoms seed 73 r2: a tan piece with a 9 on olive felt read "empty" surely, frame after
    frame). Paper as large as part of a card where a character stands is no bare space: the space is unsure. A speck
    the size of the board's printed art leaves it surely empty."""
    n = len(reader.ids) + 1
    k = next(i for i, r in enumerate(reader.ids) if reader.kinds[i] != "shield")
    counts = np.zeros((n, 5))
    counts[:, 1] = reader.inner_px  # every space all felt: no piece seen
    for paper_mm2, sure in ((0.0, True), (20.0, True), (288.0, False)):
        stray = np.zeros(n)
        stray[k + 1] = paper_mm2
        regions, confidence, _ = reader._read_regions(counts, np.zeros(n), {}, set(), stray)
        assert reader.ids[k] not in regions
        assert (confidence[reader.ids[k]] >= reader.cfg["uncertain_below"]) == sure, paper_mm2


def test_a_card_on_a_plate_read_as_the_felt_says_its_piece_unsure(board, reader):
    """A character stands on its piece: a card found where the plate reads as the felt (box 23:180, tan pieces on
    olive felt: 11 of 920 spaces read as a character with no piece, surely) means the piece is there, unsure."""
    n = len(reader.ids) + 1
    k = next(i for i, r in enumerate(reader.ids) if reader.kinds[i] != "shield")
    counts = np.zeros((n, 5))
    counts[:, 1] = reader.inner_px
    regions, confidence, _ = reader._read_regions(counts, np.zeros(n), {k: [(6, 0.999)]}, set(), np.zeros(n))
    assert regions[reader.ids[k]] == [{"piece": True}, {"stand": 6}]
    assert confidence[reader.ids[k]] < reader.cfg["uncertain_below"]


def test_a_card_that_lies_and_looks_as_when_it_was_read_is_not_read_again(board):
    """A still board's cards keep their readings from frame to frame (CardMemo): the classifier reads only what
    changed. A character whose value changed in place is read again, and read as it is now."""
    patches = []

    class Counting(StandClassifier):
        def probabilities(self, crops):
            patches.append(len(crops))
            return super().probabilities(crops)

    reader = EagleKingdomsReader(board, Counting())
    scene = max((scene_from_state(s) for s in sample_states(6, 7)), key=len)
    frame, _ = render(board, scene, np.random.default_rng(3))
    pose = BoardTracker(board).update(frame.image)
    first = reader.read(frame.image, pose)
    read_first, patches[:] = sum(patches), []
    noise = np.random.default_rng(1).normal(0, 2, frame.image.shape).round().astype(np.int16)
    again = reader.read(np.clip(frame.image.astype(np.int16) + noise, 0, 255).astype(np.uint8), pose)
    assert again.regions == first.regions and not again.uncertain
    assert sum(patches) < read_first / 4

    region, pieces = next((r, p) for r, p in sorted(scene.items()) if r != "shield" and any("stand" in x for x in p))
    value = next(x["stand"] for x in pieces if "stand" in x)
    changed = {**scene, region: [{"piece": True}, {"stand": 3 if value != 3 else 4}]}
    frame, _ = render(board, changed, np.random.default_rng(3))
    patches[:] = []
    now = reader.read(frame.image, pose)
    assert wrong_regions(now, changed) == []
    assert 0 < sum(patches) < read_first / 4


def test_a_kept_card_is_compared_with_the_picture_it_was_read_in_and_doubtful_readings_are_never_kept():
    from companion.vision.readers.stands import Card, CardMemo

    memo = CardMemo(1.0)
    card = Card((50.0, 50.0), 0.0, 290.0, (15.6, 18.6))
    read_in = np.full((100, 100), 120, np.uint8)
    memo.known(read_in, [card])
    memo.keep(read_in, [card], [(7, 0.999)], 0.995)
    for step in (3, 6):  # each frame a little brighter: within the tolerance of the last, not of the first by 6
        now = read_in + np.uint8(step)
        kept = memo.known(now, [card])
        memo.keep(now, [card], [kept.get(0, (7, 0.999))], 0.995)
    assert kept == {}
    memo.known(read_in, [card])
    memo.keep(read_in, [card], [(7, 0.95)], 0.995)
    assert memo.known(read_in.copy(), [card]) == {}
    memo.keep(read_in, [card], [(7, 0.999)], 0.995)
    assert memo.known(read_in.copy(), [card]) == {0: (7, 0.999)}
