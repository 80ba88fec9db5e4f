"""companion bench table and companion follow --json report exactly the fields issue 20 names (items 7 and 8):
on short generated videos (the workshop's whole-game film, cut after its first frames), through the real code."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from short_film import ShortFilm

from companion.cli import main
from companion.workshop.table import bench, film

FOLLOW_FIELDS = {"frames", "actions", "asked", "proposed_by_camera", "illegal_calls", "refused_frames",
                 "ms_per_frame_median", "journal"}
BENCH_FIELDS = {"games", "actions", "followed_exactly", "silent_errors", "asks_per_turn", "ms_per_frame_median"}


def test_bench_table_reports_exactly_item_8s_fields_per_game_and_the_rest_apart(monkeypatch, capsys):
    monkeypatch.setattr(film, "GameFilm", ShortFilm)
    code = bench.main(["--json", "--seed", "3", "--games", "1", "--only", "mighty-magpies", "--renditions", "1,2"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1  # games cut short are not followed to their end: targets missed
    assert set(report) == {"mighty-magpies", "targets", "run", "details"}
    figures = report["mighty-magpies"]
    assert set(figures) == BENCH_FIELDS
    assert figures["games"] == 2 and figures["followed_exactly"] == 0.0 and figures["actions"] > 0
    assert figures["silent_errors"] == 0 and figures["ms_per_frame_median"] > 0
    details = report["details"]["mighty-magpies"]
    assert set(details["renditions"]) == {"1", "2"}  # both renditions filmed and followed
    assert details["frames"] == 2 * ShortFilm.FRAMES and all("ends mid-game" in s for s in details["stopped"])
    assert report["run"] == {"seed": 3, "games_per_rendition": 1, "renditions": [1, 2], "taught": False}
    stages = details["stages_cpu_ms"]  # where the time goes, per stage of the pipeline
    assert {"undistort", "pose", "reader", "dice", "match", "total"} <= set(stages)
    assert stages["total"]["median"] > 0 and stages["total"]["ran"] == 1.0


def test_the_film_draws_the_rendition_asked_for():
    """Rendition 2 is another box on another table: its painter and its cloth, not rendition 1's."""
    one, two = (film.GameFilm("verzauberte-eulen", 5, rendition=r, light=False, hands=False) for r in (1, 2))
    assert one.actions == two.actions and one.shots[0].scene == two.shots[0].scene
    a, b = (f.render_position(0) for f in (one, two))
    board = cv2.fillConvexPoly(a[..., 0] * 0, one.to_px(one.board.board_corners_mm()).astype("int32"), 1).astype(bool)
    differ = abs(a.astype(int) - b).mean(axis=2)
    assert differ[board].mean() > 30  # the board printed otherwise
    assert abs(float(a[~board].mean(axis=0)[0]) - float(b[~board].mean(axis=0)[0])) > 25  # wood, then grey-green linen
    with pytest.raises(ValueError, match="rendition"):
        film.GameFilm("verzauberte-eulen", 5, rendition=3).render_position(0)


def test_the_film_repaints_the_whole_of_every_region_that_changed():
    """Positions are composed from the one before outside the regions that changed; the cave is an X with four
    pockets (no star about its middle): an owl put into a pocket was drawn cut in half (bench table, Verzauberte
    Eulen seed 0: the cave then read one owl short)."""
    one = film.GameFilm("verzauberte-eulen", 0, light=False, hands=False, lens_k1=0.0)
    before = {"c3": [{"owl": {"head": "green", "body": "green"}}]}
    after = {"c3": before["c3"] + [{"owl": {"head": "red", "body": "red"}}] * 2}
    mask = one._changed_mask(before, after)
    pocket = one.to_px(np.array([[287.5 + dx, 187.5 + dy] for dx in (-12, 0, 12) for dy in (-12, 0, 12)]))
    assert all(mask[int(round(y)), int(round(x))] for x, y in pocket)
    far = one.to_px(np.array([[60.0, 440.0]]))[0]
    assert not mask[int(far[1]), int(far[0])]  # an untouched corner keeps its pixels


def test_follow_json_last_line_has_exactly_item_7s_fields_on_a_short_video(tmp_path, capsys):
    short = ShortFilm("mighty-magpies", 3, lens_k1=0.0, light=False)
    frames = tmp_path / "frames"
    frames.mkdir()
    for k, image in enumerate(short.frames()):
        cv2.imwrite(str(frames / f"{k:04d}.jpg"), image)
    oracle = short.write_truth(tmp_path / "true.jsonl")
    players = ",".join(short.players)
    code = main(["follow", str(frames), "--game", "mighty-magpies", "--players", players, "--journal",
                 str(tmp_path / "j.jsonl"), "--oracle", str(oracle), "--json"])
    out = capsys.readouterr()
    result = json.loads(out.out.strip().splitlines()[-1])
    assert set(result) == FOLLOW_FIELDS
    assert code == 1 and "ends mid-game" in out.err  # cut short
    assert result["frames"] == ShortFilm.FRAMES and result["journal"] == str(tmp_path / "j.jsonl")
    assert result["actions"] >= 1 and result["actions"] == result["asked"] + result["proposed_by_camera"]


def test_a_box_taught_from_one_photo_is_read_by_the_pipeline_where_untaught_it_is_refused():
    """Rendition 2 stands for a box nobody tuned to: untaught, Verzauberte Eulen's reader refuses its print
    (never guesses); taught from one photo of it as dealt (teach your board), the pipeline reads the set-up."""
    from companion.referee.table import SETUP, TablePipeline
    from companion.vision.teach import TeachError

    box = film.GameFilm("verzauberte-eulen", 3, rendition=2, light=False, hands=False, lens_k1=0.0)
    rng = np.random.default_rng(0)
    frames = [box.draw(box.shots[i], rng) for i in range(5)]
    untaught = TablePipeline(box.game)
    said = [untaught.process(f, i / 10, None) for i, f in enumerate(frames)]
    assert all("teach it your board" in events[0].message for events in said)
    assert [e.reason for events in said for e in events[1:]] == ["setup"]  # asked once: the set-up it cannot read
    taught = TablePipeline(box.game)
    look = taught.teach_look(*box.teaching_photo())
    events = [e for i, f in enumerate(frames) for e in taught.process(f, i / 10, None)[1:]]
    assert [(e.kind, e.sure) for e in events] == [(SETUP, True)]
    again = TablePipeline(box.game, look=look)  # a look kept from before (the app saves it)
    assert [e.kind for i, f in enumerate(frames) for e in again.process(f, i / 10, None)[1:]] == [SETUP]
    with pytest.raises(TeachError, match="no usable board pose"):  # a photo of another game's board teaches nothing
        TablePipeline(film.GameFilm("falconry", 1, lens_k1=0.0).game).teach_look(frames[0], {})


def test_the_empty_board_shown_before_the_set_up_teaches_the_print_under_the_nests():
    """A set-up covers Verzauberte Eulen's nests (VE-SETUP-CORNER): the look taught from it alone never saw their
    print. Shown the empty board first (the film's ``bare_photo``), the set-up taught after learns it as well; a
    game whose board has no nests to learn says so, and its look is untouched."""
    from companion.referee.table import TablePipeline
    from companion.vision.teach import TeachError

    box = film.GameFilm("verzauberte-eulen", 3, rendition=2, light=False, hands=False, lens_k1=0.0)
    setup_only = TablePipeline(box.game).teach_look(*box.teaching_photo())
    pipeline = TablePipeline(box.game)
    bare = pipeline.teach_bare(box.bare_photo())
    assert pipeline.look is None and pipeline.bare_look is bare and all(bare["empty_seen"])
    look = pipeline.teach_look(*box.teaching_photo())
    assert sum(look["empty_seen"]) > sum(setup_only["empty_seen"]) and pipeline.look_error == ""
    again = TablePipeline(box.game, bare_look=bare)  # kept from before: the next set-up learns the nests too
    assert again.teach_look(*box.teaching_photo())["empty_seen"] == look["empty_seen"]
    eagle = film.GameFilm("eagle-kingdoms", 1, lens_k1=0.0)
    with pytest.raises(TeachError, match="learns nothing from a photo of the empty board"):
        TablePipeline(eagle.game).teach_bare(eagle.bare_photo())


def test_a_camera_that_watched_the_empty_board_learns_the_nests_print_at_the_set_up():
    """The camera was on while the family laid out the game (a film laid out in view): its first still frames show the
    empty board, which is not taken for the set-up the game prescribes (VE-SETUP-CORNER); the set-up is taught once it
    lies still in view, and the nests' print from the first of those frames as well. A camera that first saw the
    set-up already learns nothing more from it."""
    from companion.referee.table import TablePipeline

    seen = []
    for lay_out in (False, True):
        box = film.GameFilm("verzauberte-eulen", 3, rendition=2, light=False, lay_out=lay_out)
        first_throw = next(i for i, s in enumerate(box.shots) if s.tumbling)
        state = box.game.new_initial_state()
        pipeline = TablePipeline(box.game, camera=box.camera)
        for i, frame in enumerate(box.frames()):
            if i == first_throw:
                break
            pipeline.process(frame, i / 10, state)
            if lay_out and i < film.STILL["start"]:
                assert pipeline.look is None  # the empty board is no set-up to learn from
        assert pipeline.look is not None and pipeline.look_error == "", pipeline.look_error
        assert (pipeline.bare_look is None) == (not lay_out)
        seen.append(sum(pipeline.look["empty_seen"]))
    assert seen[1] > seen[0]


def test_a_prescribed_set_up_is_taught_from_before_the_first_throw_not_from_the_table_a_move_ahead(tmp_path):
    """The camera on while the family laid out Verzauberte Eulen, a box it cannot read untaught (box 107:330): the
    first still frame (the empty board) teaches nothing (VE-SETUP-CORNER), and the table plays on while the game waits
    at its set-up for its first roll to be answered. The set-up is taught from its own still frames once laid, before
    the dice were thrown -- never from one showing the first move (which taught a look that misread the board frame after
    frame) -- and the empty board teaches the nests' print."""
    from companion.workshop.boards.scenes import art
    from companion.workshop.table.bench import follow_film

    assert art.use_box_option("107:330") == ""
    try:
        report = follow_film("verzauberte-eulen", 126, 2, tmp_path, frames=200, lay_out=True)
    finally:
        art.use_box_option("")
    assert report["silent_errors"] == 0
    assert report["look"] == "2 look(s) taught while following; the empty board's print learnt"


def test_a_film_laid_out_in_view_begins_with_the_empty_board_then_the_hand_that_lays_out_the_set_up():
    plain = film.GameFilm("verzauberte-eulen", 3, light=False)
    laid = film.GameFilm("verzauberte-eulen", 3, light=False, lay_out=True)
    extra = len(laid.shots) - len(plain.shots)
    assert extra == film.STILL["start"] + 2  # the empty board, still; a hand in over it and out
    assert [laid._scenes[s.scene] for s in laid.shots[:film.STILL["start"]]] == [{}] * film.STILL["start"]
    assert laid.shots[film.STILL["start"]].hand is not None
    assert [laid._scenes[s.scene] for s in laid.shots[extra:]] == [plain._scenes[s.scene] for s in plain.shots]


class _Pipeline:
    """A pipeline whose stages spend known CPU time on a fake clock."""

    clock = 0.0

    def process(self):
        _Pipeline.clock += 0.001
        self.read()
        self.read()
        _Pipeline.clock += 0.002

    def read(self):
        _Pipeline.clock += 0.003
        self.quality()

    def quality(self):
        _Pipeline.clock += 0.004


def test_stage_clock_gives_each_stage_its_own_time_and_restores_the_pipeline(monkeypatch):
    """A stage called inside another is taken out of it: a frame's stages add up to its total."""
    from types import SimpleNamespace

    from companion.workshop.table import stages

    monkeypatch.setattr(stages, "time", SimpleNamespace(thread_time=lambda: _Pipeline.clock))
    original = _Pipeline.__dict__["read"]
    table = (("reader", _Pipeline, "read"), ("quality", _Pipeline, "quality"), ("total", _Pipeline, "process"))
    with stages.StageClock(table) as clock:
        _Pipeline().process()
        _Pipeline().quality()  # outside a frame: no part of the next one
        _Pipeline().process()
    assert _Pipeline.__dict__["read"] is original
    assert len(clock.frames) == 2
    frame = clock.frames[0]
    assert frame["total"] == pytest.approx(17.0)  # ms: 1 + 2 x (3 + 4) + 2
    assert frame["reader"] == pytest.approx(6.0) and frame["quality"] == pytest.approx(8.0)
    assert frame["other"] == pytest.approx(3.0) and frame["pose"] == 0.0
    assert clock.frames[1] == pytest.approx(frame)
    summary = stages.stage_summary(clock.frames)
    assert summary["reader"] == {"median": 6.0, "p90": 6.0, "ran": 1.0} and summary["pose"]["ran"] == 0.0


def test_bench_profile_reports_the_stages_of_a_short_stretch(monkeypatch, capsys):
    from companion.workshop.table import profile, stages

    monkeypatch.setattr(film, "GameFilm", ShortFilm)
    code = main(["bench", "profile", "--game", "mighty-magpies", "--renditions", "1", "--seed", "3", "--frames", "12", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    result = report["renditions"]["1"]
    assert result["frames"] == 12 and set(result["stages_cpu_ms"]) == set(stages.ORDER)
    figures = result["stages_cpu_ms"]
    assert figures["total"]["ran"] == 1.0 and figures["reader"]["median"] > 0 and figures["pose"]["median"] > 0
    assert code == (0 if result["cpu_ms_per_frame"]["median"] <= profile.TARGET_MS else 1)


def test_the_filmed_family_answers_an_action_only_from_the_frame_that_shows_the_table_making_it(tmp_path):
    """bench table's oracle is the family at the filmed table: an action is theirs to tell once the film shows it
    being made (a roll from its throw, a move from the hand that makes it), never before -- answers about the future
    let the camera run ahead of the table (Eagle Kingdoms s11 r2: 100 actions by frame 2599)."""
    one = film.GameFilm("mighty-magpies", 3, light=False)
    steps = [shot.step for shot in one.shots]
    family = bench.FilmedFamily(one.write_truth(tmp_path / "true.jsonl"), one.game.name, steps)
    for index in (3, 5, len(one.actions) - 1):
        first = next(f for f, s in enumerate(steps) if s > index)
        assert not family.ready(index, first - 1) and family.ready(index, first)
        if one.states[index].is_chance_node():  # a roll: told from its throw on, while the dice still tumble
            assert one.shots[first].tumbling or one.shots[first].hand is not None
    assert family.ready(len(one.actions) - 1, len(steps) + 50)  # past the film's end: the whole game is told


def test_bench_table_films_a_phone_held_upright_when_asked(monkeypatch, capsys):
    """--upright: the films' frames are 720x1280 portrait pictures, followed like any other."""
    sizes = []

    class Upright(ShortFilm):
        def frames(self, actions=None):
            for image in super().frames(actions):
                sizes.append(image.shape[:2])
                yield image

    monkeypatch.setattr(film, "GameFilm", Upright)
    bench.main(["--json", "--seed", "3", "--games", "1", "--only", "verzauberte-eulen", "--renditions", "2", "--upright"])
    report = json.loads(capsys.readouterr().out)
    assert report["run"]["upright"] is True
    assert sizes and set(sizes) == {(1280, 720)}  # rows x columns: taller than wide
    assert report["details"]["verzauberte-eulen"]["frames"] == ShortFilm.FRAMES
    assert report["details"]["verzauberte-eulen"]["refused_frames"] < ShortFilm.FRAMES  # the board was found


def test_a_slower_familys_film_takes_three_frames_for_each_stretch_of_a_hand_and_holds_it_still():
    """``pace``: each stretch of a hand's way (and each tumbling frame of a throw) takes that many frames;
    ``hover``: the hand stays still that long over the piece it takes and where it puts it. The game is the same."""
    one = film.GameFilm("falconry", 5, light=False)
    slow = film.GameFilm("falconry", 5, light=False, pace=3, hover=6)
    assert slow.actions == one.actions and slow.shots[-1].step == one.shots[-1].step
    hands = [[s for s in f.shots if s.hand is not None] for f in (one, slow)]
    moves = len(hands[0]) // 4  # in over the piece taken, over where it goes, out
    assert moves > 0 and len(hands[1]) == 3 * len(hands[0]) + 2 * 6 * moves
    held = [s for s in hands[1] if s.hand_from is None]
    assert len(held) == 2 * 6 * moves and all(s.hand_from is not None for s in hands[0])
    stretches = [s for s in hands[1] if s.hand_from is not None]
    assert all(np.hypot(s.hand[0] - s.hand_from[0], s.hand[1] - s.hand_from[1]) > 0 for s in stretches[:3])


def test_bench_table_films_a_slower_family_when_asked(monkeypatch, capsys):
    made = []

    class Slow(ShortFilm):
        def __init__(self, *args, **kwargs):
            made.append((kwargs.get("pace"), kwargs.get("hover")))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(film, "GameFilm", Slow)
    bench.main(["--json", "--seed", "3", "--games", "1", "--only", "verzauberte-eulen", "--renditions", "2", "--slow"])
    report = json.loads(capsys.readouterr().out)
    assert report["run"]["slow"] == bench.SLOW and made == [(bench.SLOW["pace"], bench.SLOW["hover"])]
    assert report["details"]["verzauberte-eulen"]["frames"] == ShortFilm.FRAMES


def test_the_film_shows_the_camera_each_face_of_its_dice_once_as_teach_your_dice_does():
    """--taught-dice (issue 21, "teach your dice"): each die of the box shown once per face; Eagle Kingdoms' two
    regular dice are alike (one d6 taught), the Enchanted Die is the d8."""
    from companion.vision.profile import DiceProfile
    from companion.vision.reader import DiceReader
    from companion.vision.teach_dice import DiceTeacher

    one = film.GameFilm("eagle-kingdoms", 5, light=False)
    reader = DiceReader(kinds=("d6", "d8"))
    config = reader.classifier.config
    profile = DiceProfile.new("box", int(config["size"]), float(config["crop_scale"]))
    assert one.show_dice(DiceTeacher(reader, profile)) == 6 + 8
    assert profile.missing_faces(("d6", "d8")) == {"d6": [], "d8": []}
    assert reader.profile is profile


def test_bench_table_follows_an_uncalibrated_phone_and_a_family_that_taught_its_dice_when_asked(monkeypatch, capsys):
    """--no-profile: the pipeline is given no camera profile (it measures the lens on the board); --taught-dice: the
    family's dice profile is taught before the film."""
    from companion.referee.table import TablePipeline

    cameras, made = [], TablePipeline.__init__

    def recorded(self, *args, **kwargs):
        cameras.append(kwargs.get("camera"))
        made(self, *args, **kwargs)

    monkeypatch.setattr(film, "GameFilm", ShortFilm)
    monkeypatch.setattr(TablePipeline, "__init__", recorded)
    bench.main(["--json", "--seed", "3", "--games", "1", "--only", "mighty-magpies", "--renditions", "2",
                "--no-profile", "--taught-dice"])
    report = json.loads(capsys.readouterr().out)
    assert report["run"]["camera_profile"] is False and report["run"]["taught_dice"] is True
    assert cameras == [None]
    assert any("5 dice faces taught before the film" in look for look in report["details"]["mighty-magpies"]["look"])
