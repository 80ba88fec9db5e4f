"""Real light, optics and hands (issue 20, item 4): the board's own references, frame quality, the lens
fitted from the markers, and every reader on small rendered scenes of both renditions under the
ordinary conditions -- read right, marked unsure or hidden, or refused with a reason: never silently wrong."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.referee.boardmaps import BOARDS_DIR
from companion.vision import photometry, quality
from companion.vision.boardmap import load_board_map
from companion.vision.pose import BoardTracker
from companion.vision.readers import canonical
from companion.workshop.boards.bench.conditions import apply, board_quad


@pytest.fixture(scope="module")
def boards():
    return {g: load_board_map(BOARDS_DIR / f"{g}.json") for g in ("eagle-kingdoms", "verzauberte-eulen", "mighty-magpies")}


def _ve_frame(board, rendition=1, seed=3, state_index=2):
    from companion.referee.verzauberte_eulen import scene_from_state
    from companion.workshop.boards.bench.verzauberte_eulen import sample_states
    from companion.workshop.boards.scenes.verzauberte_eulen import render

    truth = scene_from_state(sample_states(state_index + 1, 0)[state_index])
    frame, _ = render(board, truth, np.random.default_rng(seed), rendition=rendition)
    return frame, truth


def silent(board, obs, truth, judged=None):
    """Regions read confidently (not uncertain, not hidden) and wrongly."""
    ids = judged if judged is not None else [r.id for r in board.regions]
    return [r for r in ids if not obs.is_uncertain(r) and canonical(truth.get(r)) != canonical(obs.regions.get(r))]


# -- the references the board carries -----------------------------------------------------------------


def test_the_markers_measure_a_warm_lamp_and_normalise_it_away(boards):
    board = boards["verzauberte-eulen"]
    frame, _ = _ve_frame(board)
    warm = apply("warm", frame.image, board_quad(board, frame.homography), np.random.default_rng(0), frame.homography).image
    plain = photometry.measure(frame.image, BoardTracker(board).update(frame.image), board)
    lamp = photometry.measure(warm, BoardTracker(board).update(warm), board)
    assert plain is not None and lamp is not None
    assert np.allclose(plain.cast, 1.0, atol=0.03)
    assert lamp.cast[0] < 0.85 < 1.05 < lamp.cast[2]  # blue weak, red strong
    assert np.allclose(lamp.apply(lamp.white), photometry.WHITE_LEVEL, atol=0.5)
    assert np.allclose(lamp.apply(lamp.black), photometry.BLACK_LEVEL, atol=0.5)


def test_the_markers_black_is_the_lamps_colour_though_the_jpeg_bleeds_the_tinted_paper_into_it(boards):
    """Black ink reflects every channel alike: under a coloured lamp it is the paper's colour, darker. A JPEG keeps
    colour at half resolution, so the one-cell black border next to the lamp-tinted paper read a colour of its own
    (a cool lamp: blue 7-18 where red read 0-2), taken off every reading -- a light print's patches then read off
    colour and the board never settled (bench table, Verzauberte Eulen s13 r2). Its brightness is sharp: black is
    the white times the luma of the black over the luma of the white."""
    board = boards["verzauberte-eulen"]
    frame, _ = _ve_frame(board)
    warm = apply("warm", frame.image, board_quad(board, frame.homography), np.random.default_rng(0), frame.homography).image
    cool = np.clip(frame.image * np.array([1.15, 1.0, 0.7]), 0, 255).astype(np.uint8)
    for lamp, lit in (("warm", warm), ("cool", cool)):
        jpeg = cv2.imdecode(cv2.imencode(".jpg", lit, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)
        marks = photometry.measure(jpeg, BoardTracker(board).update(jpeg), board)
        share = marks.black / marks.white
        assert share.max() - share.min() < 0.1 * share.mean(), (lamp, marks.black, marks.white)
        assert marks.black @ photometry.LUMA_BGR < 0.15 * (marks.white @ photometry.LUMA_BGR)


def test_the_light_field_follows_a_shadow_and_leaves_out_what_is_another_colour():
    xs, ys = np.meshgrid(np.arange(0, 300, 20.0), np.arange(0, 200, 20.0))
    pts = np.c_[xs.ravel(), ys.ravel()]
    board = np.array([170.0, 205.0, 225.0])
    light = np.where(pts[:, 0] < 150, 1.0, 0.5)
    seen = board[None, :] * light[:, None]
    hand = 40  # one patch under a hand: skin, not board
    seen[hand] = [120.0, 150.0, 200.0]
    field = photometry.fit_light_field(pts, seen, board, sigma_mm=20.0, max_colour=0.08)
    assert list(field.outliers) == [hand]
    lit, shaded = field.at(np.array([[40.0, 100.0], [260.0, 100.0]]))
    assert lit == pytest.approx([1, 1, 1], abs=0.05) and shaded == pytest.approx([0.5, 0.5, 0.5], abs=0.05)


def test_blur_is_measured_on_the_markers_edges_in_board_millimetres(boards):
    board = boards["verzauberte-eulen"]
    frame, _ = _ve_frame(board)
    pose = BoardTracker(board).update(frame.image)
    sharp = quality.assess(frame.image, pose, board)
    blurred = cv2.GaussianBlur(frame.image, (0, 0), 1.4)
    soft = quality.assess(blurred, BoardTracker(board).update(blurred), board)
    assert sharp.blur_mm is not None and soft.blur_mm is not None
    assert sharp.blur_mm < 1.0 < soft.blur_mm and 0.6 < sharp.px_per_mm < 1.6
    assert sharp.problem(1.4) is None and "too blurred" in soft.problem(1.4)
    # as sharp as a camera gives, but the board so far that a pixel covers too much of it: no use to hold still
    far = quality.FrameQuality(0.6, 1.2, 0.5)  # edges 0.6 px wide (the sharpest renders: 0.5-0.7 px), 0.5 px per mm
    assert "bring the camera closer" in far.problem(1.1) and "too blurred" not in far.problem(1.1)
    assert "too blurred" in quality.FrameQuality(1.3, 1.2, 1.1).problem(1.1)


def test_a_wide_lens_without_a_profile_is_fitted_from_the_markers(boards):
    board = boards["eagle-kingdoms"]
    from companion.workshop.boards.synth_table import random_scene

    scene = random_scene(board, np.random.default_rng(4), fill=(0.8, 0.9))
    bent = apply("wide-lens", scene.image, board_quad(board, scene.homography), np.random.default_rng(0), scene.homography)
    pose = BoardTracker(board).update(bent.image)
    assert pose.usable and pose.camera is not None and pose.camera.name == "estimated"
    assert pose.camera.dist_coeffs[0] == pytest.approx(-0.15, abs=0.03)
    pts = np.array([r.center_mm for r in board.regions])
    truth = bent.camera.distort_points(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), scene.homography).reshape(-1, 2))
    assert np.abs(pose.board_to_image(pts) - truth).max() < 1.5
    plain = BoardTracker(board).update(scene.image)
    assert plain.camera is None  # a straight lens is left alone


@pytest.mark.parametrize("rendition", [1, 2])
def test_a_wide_lens_the_corner_markers_cannot_see_is_measured_on_the_boards_straight_edges(boards, rendition):
    """Magpies' four markers sit in the board's corners: the homography bends to fit them and hides the lens (fitted
    to the markers, 1.32 px -> 1.31 px: no bend found). A nest's spots then lay 5 px off and a red magpie read as bare
    board, sure (bench board, box 79:280, rendition 2, taught, wide lens). The board's cut edges bend with the lens."""
    from dataclasses import replace

    from companion.referee.mighty_magpies import scene_from_state
    from companion.workshop.boards.bench.mighty_magpies import sample_states
    from companion.workshop.boards.scenes.mighty_magpies import render

    board = boards["mighty-magpies"]
    frame, _ = render(board, scene_from_state(sample_states(4, 0)[3]), np.random.default_rng(5), rendition=rendition)
    bent = apply("wide-lens", frame.image, board_quad(board, frame.homography), np.random.default_rng(0), frame.homography)
    nests = np.array([r.center_mm for r in board.regions])
    truth = bent.camera.distort_points(cv2.perspectiveTransform(nests.reshape(-1, 1, 2), frame.homography).reshape(-1, 2))

    pose = BoardTracker(board).update(bent.image)
    assert pose.usable and pose.camera is not None
    assert pose.camera.dist_coeffs[0] == pytest.approx(-0.15, abs=0.03)
    assert np.abs(pose.board_to_image(nests) - truth).max() < 1.0
    if rendition == 2:  # its markers alone leave the nests off (rendition 1's crisper corners show the bend here)
        unlined = BoardTracker(replace(board, straight_lines_mm=())).update(bent.image)
        assert np.abs(unlined.board_to_image(nests) - truth).max() > 3.0
    assert BoardTracker(board).update(frame.image).camera is None  # a straight lens is left alone


def test_the_lens_is_measured_anew_when_the_picture_changes_size(boards):
    """The straight lines are measured every ``line_refit_every`` detections; a picture of another size (the phone
    turned, another camera) is measured at once, not left without a lens until then."""
    from companion.referee.mighty_magpies import scene_from_state
    from companion.workshop.boards.bench.mighty_magpies import sample_states
    from companion.workshop.boards.scenes.mighty_magpies import render

    board = boards["mighty-magpies"]
    frame, _ = render(board, scene_from_state(sample_states(4, 0)[3]), np.random.default_rng(5), rendition=2)
    bent = apply("wide-lens", frame.image, board_quad(board, frame.homography), np.random.default_rng(0), frame.homography)
    tracker = BoardTracker(board)
    assert tracker.update(bent.image).camera is not None
    smaller = tracker.update(cv2.resize(bent.image, (960, 540), interpolation=cv2.INTER_AREA))
    assert smaller.camera is not None and tuple(smaller.camera.image_size) == (960, 540)
    assert smaller.camera.dist_coeffs[0] == pytest.approx(-0.15, abs=0.03)


@pytest.mark.parametrize(("game", "condition", "rendition"), [("eagle-kingdoms", "hand", 1), ("mighty-magpies", "hand", 2),
                                                             ("verzauberte-eulen", "shadow", 2)])
def test_a_hand_or_a_shadow_across_the_boards_edge_makes_no_lens_of_a_straight_one(boards, game, condition, rendition):
    """The straight edges are found by their strongest step of brightness: a hand's or a shadow's edge across a side
    is an outlier the fit leaves out, not a bend (none taken on 108 such frames of the three boards)."""
    import importlib

    mod = game.replace("-", "_")
    scene_from_state = importlib.import_module(f"companion.referee.{mod}").scene_from_state
    sample_states = importlib.import_module(f"companion.workshop.boards.bench.{mod}").sample_states
    render = importlib.import_module(f"companion.workshop.boards.scenes.{mod}").render
    board = boards[game]
    frame, _ = render(board, scene_from_state(sample_states(3, 0)[2]), np.random.default_rng(2), rendition=rendition)
    p = apply(condition, frame.image, board_quad(board, frame.homography), np.random.default_rng(2), frame.homography)
    pose = BoardTracker(board).update(p.image)
    assert pose.usable and pose.camera is None


# -- every reader under the conditions: never silently wrong --------------------------------------------


def _read_ek(board, condition, rendition, seed):
    from companion.referee.eagle_kingdoms import scene_from_state
    from companion.vision.readers.eagle_kingdoms import EagleKingdomsReader
    from companion.workshop.boards.bench.eagle_kingdoms import sample_states
    from companion.workshop.boards.scenes.eagle_kingdoms import render

    reader = _read_ek.reader = getattr(_read_ek, "reader", None) or EagleKingdomsReader(board)
    truth = scene_from_state(sample_states(2, seed)[1])
    frame, _ = render(board, truth, np.random.default_rng(seed), rendition=rendition)
    p = apply(condition, frame.image, board_quad(board, frame.homography), np.random.default_rng(seed + 1), frame.homography)
    return reader.read(p.image, BoardTracker(board).update(p.image)), truth, p


def _read_discs(board, game, condition, rendition, seed):
    import importlib

    mod = game.replace("-", "_")
    scene_from_state = importlib.import_module(f"companion.referee.{mod}").scene_from_state
    sample_states = importlib.import_module(f"companion.workshop.boards.bench.{mod}").sample_states
    render = importlib.import_module(f"companion.workshop.boards.scenes.{mod}").render
    readers = importlib.import_module(f"companion.vision.readers.{mod}")
    reader = (readers.EulenReader if mod == "verzauberte_eulen" else readers.MagpiesReader)(board)
    truth = scene_from_state(sample_states(2, seed)[1])
    frame, _ = render(board, truth, np.random.default_rng(seed), rendition=rendition)
    p = apply(condition, frame.image, board_quad(board, frame.homography), np.random.default_rng(seed + 1), frame.homography)
    return reader.read(p.image), truth, p


CASES = [
    ("eagle-kingdoms", "warm", 1, "exact"),
    ("eagle-kingdoms", "shadow", 1, "safe"),
    ("eagle-kingdoms", "hand", 1, "hidden"),
    ("eagle-kingdoms", "wide-lens", 1, "safe"),
    ("eagle-kingdoms", "defocus", 1, "refused"),
    ("eagle-kingdoms", "as-rendered", 2, "safe"),
    ("eagle-kingdoms", "hand", 2, "hidden"),
    ("verzauberte-eulen", "shadow", 1, "exact"),
    ("verzauberte-eulen", "wide-lens", 1, "exact"),
    ("verzauberte-eulen", "hand", 1, "refused"),
    ("verzauberte-eulen", "as-rendered", 2, "refused"),
    ("mighty-magpies", "warm", 1, "exact"),
    ("mighty-magpies", "wide-lens", 1, "exact"),
    ("mighty-magpies", "shadow", 2, "refused"),
]


@pytest.mark.parametrize(("game", "condition", "rendition", "expect"), CASES)
def test_readers_are_right_unsure_hidden_or_refused_never_silently_wrong(boards, game, condition, rendition, expect):
    board = boards[game]
    if game == "eagle-kingdoms":
        obs, truth, perturbed = _read_ek(board, condition, rendition, 5)
    else:
        obs, truth, perturbed = _read_discs(board, game, condition, rendition, 5)
    if expect == "refused":
        assert not obs.usable and obs.status and obs.regions == {}
        return
    assert obs.usable or expect == "hidden", obs.status
    assert not obs.usable or silent(board, obs, truth) == []
    if expect == "exact":
        assert not obs.uncertain and not obs.hidden
    if expect == "hidden" and not obs.usable:
        assert "hand" in obs.status or "arm" in obs.status  # refused for the hand, with the reason
        return
    if expect == "hidden":
        assert obs.hidden and all(r not in obs.regions and obs.confidence_of(r) == 0.0 for r in obs.hidden)
        from companion.workshop.boards.bench.conditions import covered_share
        from companion.workshop.boards.bench.evaluation import region_points

        pts = region_points(board)
        under = {r for r in pts if covered_share(pts[r], perturbed) >= 0.5}
        assert under and under <= obs.hidden | obs.uncertain  # every space under the hand is unknown, not read


def test_falconry_in_a_shadow_reads_the_table_and_refuses_the_other_deck():
    from companion.referee.falconry import board_map
    from companion.vision.readers.falconry import FalconryReader
    from companion.workshop.boards.bench.falconry import judged_cells, sample_states
    from companion.workshop.boards.scenes.falconry import render

    board = board_map()
    reader = FalconryReader(board)
    state, adapter = sample_states(3, 0)[2]
    for rendition, condition in ((1, "shadow"), (2, "as-rendered")):
        frame, _ = render(board, adapter.paint_scene(state), np.random.default_rng(7), rendition=rendition)
        p = apply(condition, frame.image, board_quad(board, frame.homography), np.random.default_rng(8), frame.homography)
        reader.reset()
        obs = reader.read(p.image)
        truth = adapter.scene_from_state(state)
        if rendition == 2:
            assert not obs.usable  # another deck's look is not guessed at
        else:
            assert obs.usable and silent(board, obs, truth, sorted(judged_cells(truth))) == []


def test_the_kingdom_scan_balances_a_warm_lamp_and_refuses_a_hand():
    from companion.vision.readers.kingdom import KingdomReader
    from companion.workshop.boards.bench.kingdom_scan import kingdom_quad
    from companion.workshop.boards.scenes.kingdom import render_kingdom

    reader = KingdomReader()
    labels = (3, 7, 10, "jester", 5)
    for rendition in (1, 2):
        image, truth = render_kingdom(labels, np.random.default_rng(rendition), rendition=rendition)
        warm = apply("warm", image, kingdom_quad(truth), np.random.default_rng(0)).image
        read = reader.read(warm)
        assert read.usable and sorted(map(str, (s.label for s in read.stands))) == sorted(map(str, labels))
        assert not read.uncertain
    image, truth = render_kingdom(labels, np.random.default_rng(3))
    hand = apply("hand", image, kingdom_quad(truth), np.random.default_rng(2)).image
    read = reader.read(hand)
    assert not read.usable and "hand" in read.status


def test_a_white_clipped_by_a_lamp_is_recovered_from_the_bare_board():
    """A well exposed paper under a cool or warm lamp: the markers' blue or red hits 255, so their white no
    longer tells that channel's gain. The bare print's known colour gives it back: the Verzauberte Eulen board
    is read right where it was refused. Under the warm lamp the bright print clips its red too (the
    whole-game films' warm turns were refused on every frame as "something covers the board"): a value at the sensor's top is a lower
    bound, the gain is told by the print where the lamp's falloff leaves it below the top, and the board is
    read right as well."""
    from companion.referee.table import TablePipeline
    from companion.workshop.table.film import GameFilm, Shot

    film = GameFilm("verzauberte-eulen", 0, lens_k1=0.0)
    truth = film._scenes[film.shots[0].scene]
    plain = film.draw(Shot(film.shots[0].scene), np.random.default_rng(0))
    reading = TablePipeline(film.game).reading
    for gains in ((1.15, 1.0, 0.82), (0.7, 0.95, 1.15)):
        lit = np.clip(plain.astype(np.float32) * np.float32(gains), 0, 255).astype(np.uint8)
        pose = reading.tracker.update(lit)
        assert photometry.measure(lit, pose, reading.reader.board).white.max() >= photometry.CLIPPED
        obs = reading.read(lit, pose)
        assert obs.usable, obs.status
        assert all(canonical(obs.regions.get(r)) == canonical(truth.get(r))
                   for r in set(truth) | set(obs.regions) if not obs.is_uncertain(r))
        assert len(obs.uncertain) <= 1


def test_a_channel_at_the_sensors_top_is_a_lower_bound():
    """photometry.at_top / fill_censored / Prototypes.classify(censored=): a clipped red is filled from the other
    channels and the lamp's colour, never below what was seen; a prototype brighter there than the bound is not
    held against it, one darker is."""
    from companion.vision.readers.discs import Prototypes

    marks = photometry.Photometry(np.array([0.0, 0.0, 0.0]), np.array([200.0, 235.0, 255.0]))
    top = (photometry.CLIPPED - 0) * marks.gain[2] - 1
    assert photometry.at_top(marks, np.array([[100.0, 100.0, top + 0.5]])).tolist() == [[False, False, True]]
    assert not photometry.at_top(marks, np.array([[300.0, 300.0, top - 1]])).any()  # B and G did not clip
    known = np.array([150.0, 180.0, 200.0])
    seen = np.array([[150.0, 180.0, 200.0], [75.0, 90.0, 100.0], [150.0, 180.0, 120.0]])
    filled = photometry.fill_censored(seen, known, np.array([[False] * 3, [False] * 3, [False, False, True]]))
    assert filled[2, 2] == pytest.approx(200.0)  # the lamp is neutral on the references seen whole
    assert filled[:2].tolist() == seen[:2].tolist()
    protos = Prototypes(("board", "yellow", "green"), np.array([[1.0, 1.0, 1.0], [0.25, 1.0, 1.1], [0.4, 0.75, 0.2]]))
    sample = np.array([[0.25, 1.0, 0.8]])  # yellow whose red reads low: clipped
    assert protos.classify(sample)[0][0] != 1 or protos.classify(sample)[1][0] > 0.1
    best, d1, _ = protos.classify(sample, censored=np.array([[False, False, True]]))
    assert best[0] == 1 and d1[0] == pytest.approx(0.0, abs=1e-9)
    best, d1, _ = protos.classify(np.array([[0.4, 0.75, 0.6]]), censored=np.array([[False, False, True]]))
    assert best[0] != 2 or d1[0] > 0.5  # green's red is far below the bound: not green


def test_the_magpies_reader_takes_a_channel_at_the_sensors_top_as_a_lower_bound():
    """Mighty Magpies under a warm lamp on a well exposed board: the paper's and the bright print's red clip.
    The reader refused every such frame ("something covers the board", 145 patches off colour); with the
    owls' censored reading, shared (photometry.censored_colours), it reads the board right, as under a cool
    lamp and in plain light."""
    from companion.referee.table import TablePipeline
    from companion.workshop.table.film import GameFilm, Shot

    film = GameFilm("mighty-magpies", 0, lens_k1=0.0)
    shot = film.shots[-1]
    truth = film._scenes[shot.scene]
    plain = film.draw(Shot(shot.scene), np.random.default_rng(0))
    reading = TablePipeline(film.game).reading
    # plain, cool, warm, and warm on a brighter exposure: every bare-board patch's red at the top (too few below
    # it to tell the gain; those at the top bound it from below), and the green's white clipped too
    for gains in ((1.0, 1.0, 1.0), (1.15, 1.0, 0.82), (0.7, 0.95, 1.15), (0.75, 1.05, 1.2), (0.8, 1.14, 1.32)):
        lit = np.clip(plain.astype(np.float32) * np.float32(gains), 0, 255).astype(np.uint8)
        pose = reading.tracker.update(lit)
        obs = reading.read(lit, pose)
        assert obs.usable, (gains, obs.status)
        assert not obs.uncertain and all(canonical(obs.regions.get(r)) == canonical(truth.get(r)) for r in set(truth) | set(obs.regions))
    assert photometry.measure(lit, pose, reading.reader.board).white[2] >= photometry.CLIPPED


def test_censored_colours_are_the_owls_steps_in_one_place():
    """photometry.censored_colours: the at-top masks taken before the gain is corrected, the references below
    the top tell the clipped gain, the clipped references filled, the samples divided by the same factor;
    bounded_distance holds a lower bound against a reference only where it is above it already."""
    marks = photometry.Photometry(np.zeros(3), np.array([180.0, 230.0, 255.0]))
    top = (photometry.CLIPPED - 0) * marks.gain[2] - 1
    known = np.array([120.0, 150.0, 200.0])
    rng = np.random.default_rng(0)
    refs = known * rng.uniform(0.9, 1.0, (60, 1)) * np.array([1.0, 1.0, 1.2])  # the red 1.2 too bright: clipped gain
    refs[:30, 2] = top + 1  # half of them at the top
    sample = np.array([[50.0, 60.0, top + 2], [50.0, 60.0, 70.0]])
    seen = photometry.censored_colours(marks, refs, known, (sample,))
    assert seen.factor[2] == pytest.approx(1.2, abs=0.02) and seen.factor[:2].tolist() == [1.0, 1.0]
    assert seen.tops[0].tolist() == [[False, False, True], [False, False, False]]
    assert seen.samples[0][1, 2] == pytest.approx(70.0 / seen.factor[2])
    assert np.all(seen.refs[:30, 2] >= refs[:30, 2] / seen.factor[2] - 1e-9)  # never below what was seen
    assert seen.marks.white[2] == pytest.approx(255.0 * seen.factor[2])
    refs[:, 2] = top + 1  # every reference at the top: they bound the factor from below, and it is taken
    seen = photometry.censored_colours(marks, refs, known, (sample,))
    bound = (top + 1) / known[2] / np.mean([np.median(refs[:, k] / known[k]) for k in (0, 1)])
    assert seen.factor[2] == pytest.approx(bound) and 1.0 < bound < photometry.MAX_UNCLIP
    assert np.allclose(seen.refs[:, 2] / known[2], seen.refs[:, 0] / known[0], rtol=0.06)  # filled without the lamp's cast
    d = photometry.bounded_distance(np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 2.0]]), np.array([1.0, 1.0, 3.0]),
                                    np.array([[False, False, True], [False, False, False]]))
    assert d.tolist() == [0.0, 1.0]


# -- a dark print: the camera's noise is no colour (issue 20, Verzauberte Eulen rendition 2) -------------


def _dark_print(rng, n_side=(30, 20), noise=2.0):
    """References over a dark forest print (art: each its own colour), as taught (a photo's own noise) and as
    seen now in a shadow, with a camera's noise of ``noise`` levels in every channel."""
    xs, ys = np.meshgrid(np.arange(n_side[0]) * 12.0, np.arange(n_side[1]) * 12.0)
    pts = np.c_[xs.ravel(), ys.ravel()]
    printed = np.array([42.0, 82.0, 81.0]) * rng.uniform(0.75, 1.25, (len(pts), 3))
    taught = printed + rng.normal(0, noise, printed.shape)
    seen = printed * 0.6 + rng.normal(0, noise, printed.shape)
    return pts, taught, seen


def test_a_dark_prints_noise_is_no_colour_but_a_hand_on_it_is():
    """fit_light_field(noise_sigmas=): a dark print's blue at 25-50 levels carries a camera's few levels of noise
    as +-0.05-0.1 in log -- more than the 0.08 a reference's hue may differ -- so tens of its 600 references were
    "foreign" in every frame and the board refused as covered. Allowing each channel its measured noise (3
    sigma, in quadrature with max_colour) leaves them in; a hand of any skin on them is still foreign (enough of
    it to refuse the frame), and the light print's test is the same as before."""
    rng = np.random.default_rng(0)
    pts, taught, seen = _dark_print(rng)
    before = photometry.fit_light_field(pts, seen, taught, sigma_mm=25.0, max_colour=0.08)
    assert len(before.outliers) > 0.02 * len(pts)  # the noise alone: refused as covered
    now = photometry.fit_light_field(pts, seen, taught, sigma_mm=25.0, max_colour=0.08, noise_sigmas=3.0)
    assert len(now.outliers) <= 0.01 * len(pts)
    assert now.at(np.array([[150.0, 100.0]]))[0] == pytest.approx([0.6, 0.6, 0.6], abs=0.05)
    palm = np.flatnonzero(np.hypot(pts[:, 0] - 180.0, pts[:, 1] - 120.0) <= 45.0)
    for skin in ((120, 160, 220), (80, 110, 160), (50, 70, 100), (170, 190, 230)):
        hand = seen.copy()
        hand[palm] = np.array(skin, np.float64) * 0.6 + rng.normal(0, 2.0, (len(palm), 3))
        field = photometry.fit_light_field(pts, hand, taught, sigma_mm=25.0, max_colour=0.08, noise_sigmas=3.0)
        found = set(palm.tolist()) & set(field.outliers.tolist())
        # the old test too missed a few where the art happens to be near the skin's hue
        assert len(found) >= 0.5 * len(palm) and len(found) > 0.02 * len(pts), skin
        assert len(field.outliers) <= len(palm) + 0.01 * len(pts), skin
    light = np.array([170.0, 205.0, 225.0]) * rng.uniform(0.97, 1.03, (len(pts), 3))  # the first rendition's print
    lit = light * 0.6 + rng.normal(0, 2.0, light.shape)
    lit[palm[:3]] = [120.0, 150.0, 200.0]
    lit[palm[3:6]] = [20.0, 20.0, 22.0]  # a black sleeve: as noisy as a deep shadow, but among lit neighbours
    plain = photometry.fit_light_field(pts, lit, light, sigma_mm=25.0, max_colour=0.08)
    noisy = photometry.fit_light_field(pts, lit, light, sigma_mm=25.0, max_colour=0.08, noise_sigmas=3.0)
    assert plain.outliers.tolist() == noisy.outliers.tolist() == sorted(palm[:6].tolist())


def test_a_dark_print_taught_at_its_set_up_is_read_in_a_warm_lamp_and_a_shadow_and_a_hand_still_refused():
    """The whole-game film of Verzauberte Eulen's second box (a dark forest print): taught from its set-up
    photo, every frame in the warm lamp and in the shadow was refused as "something covers the board" (25 of
    86 actions followed, 963 of 1,085 frames refused). Now read, never silently wrong; a hand reaching in over
    it is still refused."""
    from companion.referee.table import TablePipeline
    from companion.workshop.table.film import GameFilm, Shot

    film = GameFilm("verzauberte-eulen", 0, rendition=2, lens_k1=0.0)
    pipeline = TablePipeline(film.game)
    pipeline.teach_look(*film.teaching_photo())
    reading = pipeline.reading
    for k in (24, 45, 221, 240):  # the lamp and the shadow, as drawn in the film (its dice left out)
        shot = film.shots[k]
        truth = film._scenes[shot.scene]
        frame = film.draw(Shot(shot.scene, light=shot.light, light_from=shot.light_from), np.random.default_rng(k))
        obs = reading.read(frame, reading.tracker.update(frame))
        assert obs.usable, (k, shot.light, obs.status)
        assert all(canonical(obs.regions.get(r)) == canonical(truth.get(r))
                   for r in set(truth) | set(obs.regions) if not obs.is_uncertain(r)), k
    shot = film.shots[45]
    for at in ((640.0, 360.0), (500.0, 250.0)):
        frame = film.draw(Shot(shot.scene, hand=at, light=shot.light), np.random.default_rng(1))
        obs = reading.read(frame, reading.tracker.update(frame))
        assert not obs.usable and ("hand" in obs.status or obs.status.startswith("board pose:")), (at, obs.status)



def test_the_magpies_second_box_in_a_dim_lamp_is_read_and_a_hand_over_it_still_refused():
    """Mighty Magpies' second box taught at its set-up, in the dim lamp of its s13 film: the camera's noise in the
    dim print's channels put 7-9 bare-board patches off colour (the bar is 2%), and 41% of the film's frames were
    refused as "something covers the board". The noise is allowed for, as for the owls' dark print: read, never
    silently wrong; a hand over the board is still refused."""
    from companion.referee.table import TablePipeline
    from companion.workshop.table.film import GameFilm, Shot

    film = GameFilm("mighty-magpies", 13, rendition=2)
    pipeline = TablePipeline(film.game, camera=film.camera)
    pipeline.teach_look(*film.teaching_photo())
    reading = pipeline.reading
    for k in (760, 772, 788):
        shot = film.shots[k]
        assert shot.light[0] == "dim"
        frame = pipeline._undistorted(film.draw(shot, np.random.default_rng(0)), (1280, 720))
        obs = reading.read(frame, reading.tracker.update(frame))
        assert obs.usable, (k, obs.status)
        assert not silent(reading.reader.board, obs, film._scenes[shot.scene]), k
    shot = film.shots[772]
    for at in ((640.0, 360.0), (500.0, 250.0)):
        frame = pipeline._undistorted(film.draw(Shot(shot.scene, hand=at, light=shot.light), np.random.default_rng(1)), (1280, 720))
        obs = reading.read(frame, reading.tracker.update(frame))
        assert not obs.usable and ("hand" in obs.status or "covers" in obs.status or obs.status.startswith("board pose:")), (at, obs.status)


def test_a_lamp_that_clips_some_markers_white_and_not_others_is_recovered_from_the_bare_board():
    """A warm lamp on a board lit unevenly: the markers' red reads 254, 248.5, 247 and 255 (the JPEG and the lens's
    resampling soften a clipped white), so their median was under the top. Taken as not clipped, the red's gain
    was 10% off and every frame was refused as "something covers the board" (bench table, Mighty Magpies s11 r1:
    40 s of the game, from its action 43). A channel is clipped when any marker's white clipped it
    (Photometry.clipped)."""
    from companion.referee.table import TablePipeline
    from companion.workshop.table.film import GameFilm

    film = GameFilm("mighty-magpies", 11)
    shot = next(s for s in film.shots if s.step == 43 and s.light == ("warm", 1.0) and s.hand is None and not s.tumbling)
    pipeline = TablePipeline(film.game, camera=film.camera)
    frame = pipeline._undistorted(film.draw(shot, np.random.default_rng(0)), (1280, 720))
    reading = pipeline.reading
    pose = reading.tracker.update(frame)
    marks = photometry.measure(frame, pose, reading.reader.board)
    assert marks.white[2] < photometry.CLIPPED <= marks.marker_white[:, 2].max()  # the median hides the clipping
    assert marks.clipped.tolist() == [False, False, True]
    obs = reading.read(frame, pose)
    assert obs.usable, obs.status
    truth = film._scenes[shot.scene]
    assert not silent(reading.reader.board, obs, truth)
    # nest A's four pieces read unsure; D's blue magpie lies 0.34-0.36 from its printed colour in this lamp (the bar
    # 0.35: its blue reads 0.84 of the bare board's, printed 1.12), on either side of the bar by a level of the black
    assert sum(not obs.is_uncertain(r) for r in truth) >= len(truth) - 2
