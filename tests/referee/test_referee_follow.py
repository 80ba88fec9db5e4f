"""companion follow: what it confirms, when it asks its oracle, and its bad input (issue 20, item 7) --
on the fake table of fake_table.py, and through the command line on files."""

from __future__ import annotations

import json
import os
import random

import cv2
import numpy as np
import pytest
from fake_table import frame, observe, pipeline

from companion.cli import main
from companion.games.eagle_kingdoms.rules import SECOND, EagleKingdoms
from companion.journal import Journal, Session
from companion.referee.eagle_kingdoms import scene_from_state
from companion.referee.follow import Follower, FollowError, Oracle, follow

FOLLOW_FIELDS = {"frames", "actions", "asked", "proposed_by_camera", "illegal_calls", "refused_frames",
                 "ms_per_frame_median", "journal"}


def game():
    return EagleKingdoms(players=["Ann", "Ben", "Cy"])


def truth(path, actions):
    session = Session.start(game(), path)
    for action in actions:
        session.apply(action)
    session.close()
    return path


def placed(seed=1):
    state = game().new_initial_state()
    setup = {"type": "setup", "placement": state.random_placement(random.Random(seed))}
    state.apply(setup)
    return state, setup


def still(n, **kw):
    return [frame(**kw) for _ in range(n)]


def timed(frames):
    return [(i / 10, f) for i, f in enumerate(frames)]


def follower(tmp_path, observations, oracle_actions=None, journal="j.jsonl"):
    oracle = Oracle(truth(tmp_path / "true.jsonl", oracle_actions), "eagle-kingdoms") if oracle_actions is not None else None
    g = game()
    return Follower(g, tmp_path / journal, oracle, pipeline=pipeline(g, observations))


def journal_actions(path):
    return Journal.read(path).actions()


def test_follow_confirms_what_it_is_sure_of_and_asks_the_oracle_for_an_unsure_die(tmp_path):
    state, setup = placed()
    roll_1 = {"type": "roll", "dice": [3, 5]}
    after = state.clone()
    after.apply(roll_1)
    roll_2 = after.legal_actions()[0] if not after.is_chance_node() else {"type": "roll", "dice": [2, 6]}
    f = follower(tmp_path, [observe(scene_from_state(state))], [setup, roll_1, roll_2])
    frames = still(4) + [frame(hand=True)] + still(2) + still(14, dice=[(40, 200, 3, True), (280, 30, 5)])
    report = follow(timed(frames), f)
    assert journal_actions(tmp_path / "j.jsonl")[:2] == [setup, roll_1]
    assert report.proposed_by_camera == 1 and report.asked == 1  # the set-up read; the unsure die asked
    assert "ends mid-game" in report.error  # the game is not over: bad input, but the journal keeps it all
    header = Journal.read(tmp_path / "j.jsonl").header
    assert header["game"] == "eagle-kingdoms" and header["metadata"]["colours"][:3] == [0, 1, 2]


class LateFamily(Oracle):
    """The family at the table answers about the first roll only from frame ``from_frame`` on (they threw later)."""

    def __init__(self, path, from_frame):
        super().__init__(path, "eagle-kingdoms")
        self.from_frame = from_frame

    def ready(self, index, frame):
        return index == 0 or frame >= self.from_frame


def test_a_question_about_an_action_the_table_has_not_made_stays_on_screen_until_it_has(tmp_path):
    """An oracle that knows when the table made each action (a film) answers a question asked sooner only once it
    has: the question counts once, as asked early, and nothing is applied before (an oracle that answered at once
    let the camera run ahead of the table on answers about the future)."""
    state, setup = placed()
    roll_1 = {"type": "roll", "dice": [3, 5]}
    oracle = LateFamily(truth(tmp_path / "true.jsonl", [setup, roll_1]), from_frame=30)
    g = game()
    f = Follower(g, tmp_path / "j.jsonl", oracle, pipeline=pipeline(g, [observe(scene_from_state(state))]))
    frames = still(4) + [frame(hand=True)] + still(2) + still(30, dice=[(40, 200, 3, True), (280, 30, 5)])
    for i, image in enumerate(frames[:30]):
        f.feed(i / 10, image)
    assert journal_actions(tmp_path / "j.jsonl") == [setup]  # asked (the unsure 3), not answered yet
    assert f.report.asked == 1 and f.report.asked_early == 1
    f.feed(3.0, frames[30])
    assert journal_actions(tmp_path / "j.jsonl") == [setup, roll_1]  # answered as soon as the table made it
    assert f.report.asked == 1 and f.report.asked_early == 1


def after(state, action):
    nxt = state.clone()
    nxt.apply(action)
    return nxt


@pytest.mark.rules("EK-TWO-2")
@pytest.mark.parametrize("decided", ["roll-enchanted", "roll-again"])
def test_an_unsure_roll_proposed_with_the_decision_before_it_is_one_ask(tmp_path, decided):
    """The first roll failed; the Enchanted Die is thrown and read unsure: "rolls the Enchanted Die; Enchanted Die: 5"
    is one proposal in the app, one tap -- the oracle answers it whole. When the family's decision was another
    (they rolled the two dice again), only that decision is their answer."""
    state, setup = placed(5)
    failed = next(a for a in state.legal_actions() if after(state, a).phase == SECOND)
    chance = after(after(state, failed), {"type": decided})
    rest = [{"type": "enchanted", "face": 3}] if decided == "roll-enchanted" else [chance.legal_actions()[0]]
    f = follower(tmp_path, [observe(scene_from_state(state))], [setup, failed, {"type": decided}] + rest)
    d6 = [(40, 200, failed["dice"][0]), (280, 30, failed["dice"][1])]
    frames = still(4) + [frame(hand=True)] + still(2) + still(10, dice=d6) + [frame(hand=True)] + still(2) \
        + still(14, dice=[(120, 100, 5, True, "d8")])
    report = follow(timed(frames), f)
    assert journal_actions(tmp_path / "j.jsonl") == [setup, failed, {"type": decided}] + rest
    assert report.proposed_by_camera == 2  # the set-up and the failed roll, read surely
    assert report.asked == (1 if decided == "roll-enchanted" else 2)  # else the two dice thrown again were not seen


def test_without_an_oracle_a_question_waits_for_a_frame_that_settles_it(tmp_path):
    state, setup = placed(2)
    unsure = observe(scene_from_state(state), unsure=("neck", "orb"))  # one alone, read right, is the set-up
    sure = observe(scene_from_state(state))
    f = follower(tmp_path, [unsure, sure])
    follow(timed(still(5) + [frame(hand=True)] + still(1) + still(4, obs_index=0)), f)
    assert journal_actions(tmp_path / "j.jsonl") == []  # asked, nobody answered: nothing applied
    f = follower(tmp_path, [unsure, sure], journal="k.jsonl")
    report = follow(timed(still(5) + [frame(hand=True)] + still(1) + still(4, obs_index=1)), f)
    assert journal_actions(tmp_path / "k.jsonl") == [setup] and report.asked == 0


def test_a_frame_size_that_changes_stops_following_and_keeps_what_was_confirmed(tmp_path):
    state, setup = placed(3)
    f = follower(tmp_path, [observe(scene_from_state(state))], [setup])
    small = cv2.resize(frame(), (160, 120))
    report = follow(timed(still(5) + [small] + still(3)), f)
    assert "frame size changed at frame 6" in report.error
    assert journal_actions(tmp_path / "j.jsonl") == [setup]


def test_an_oracle_shorter_than_the_game_stops_following(tmp_path):
    state, _setup = placed(4)
    f = follower(tmp_path, [observe(scene_from_state(state), unsure=("neck", "orb"))], [])
    report = follow(timed(still(5)), f)
    assert "oracle is shorter than the game" in report.error


def test_an_oracle_of_another_game_is_refused(tmp_path):
    from companion.games.falconry import FalconryGame

    session = Session.start(FalconryGame(players=["A", "B"]), tmp_path / "fa.jsonl")
    session.close()
    with pytest.raises(FollowError, match="journal of 'falconry'"):
        Oracle(tmp_path / "fa.jsonl", "eagle-kingdoms")
    code = main(["follow", str(tmp_path), "--game", "eagle-kingdoms", "--players", "A,B", "--journal",
                 str(tmp_path / "j.jsonl"), "--oracle", str(tmp_path / "fa.jsonl"), "--json"])
    assert code == 2


def test_a_video_that_cannot_be_opened_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "game.mp4"
    bad.write_bytes(b"not a video at all")
    for video in (bad, tmp_path / "missing.mp4"):
        code = main(["follow", str(video), "--game", "eagle-kingdoms", "--players", "A,B", "--journal",
                     str(tmp_path / "j.jsonl"), "--json"])
        out = capsys.readouterr()
        assert code == 2 and set(json.loads(out.out.strip().splitlines()[-1])) == FOLLOW_FIELDS
        assert str(video) in out.err
    assert not (tmp_path / "j.jsonl").exists()


def test_a_video_with_no_board_is_a_clear_error(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(0)
    for i in range(4):
        cv2.imwrite(str(frames / f"f{i:03d}.png"), rng.integers(90, 110, (120, 160, 3), dtype=np.uint8))
    (frames / "fps.txt").write_text("5\n")
    code = main(["follow", str(frames), "--game", "mighty-magpies", "--players", "A,B", "--journal",
                 str(tmp_path / "j.jsonl"), "--json"])
    out = capsys.readouterr()
    result = json.loads(out.out.strip().splitlines()[-1])
    assert set(result) == FOLLOW_FIELDS  # exactly issue 20 item 7's fields; the reason goes to stderr
    assert code == 1 and result["frames"] == 4 and result["refused_frames"] == 4
    assert "no board was seen" in out.err and result["actions"] == 0 and result["journal"] == str(tmp_path / "j.jsonl")
    assert Journal.read(tmp_path / "j.jsonl").header["game"] == "mighty-magpies"  # started as the app starts it


def test_a_folder_with_a_bad_fps_file_is_refused(tmp_path):
    from companion.referee.follow import video_frames

    (tmp_path / "a.png").write_bytes(cv2.imencode(".png", frame())[1].tobytes())
    (tmp_path / "fps.txt").write_text("fast")
    with pytest.raises(FollowError, match="frames per second"):
        video_frames(tmp_path)


def test_follow_holds_the_journal_as_its_one_writer_from_the_first_frame(tmp_path, capsys):
    """Issue 24: one writer per journal. A journal the app (here: a session of this process) has open is refused
    in one line naming its holder; while follow runs, nobody else can start that journal, even before follow
    has read the set-up and written the header; a follow that began no game leaves no file behind."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f000.png"), frame())
    holder = Session.start(game(), tmp_path / "held.jsonl")
    try:
        code = main(["follow", str(frames), "--game", "eagle-kingdoms", "--players", "A,B", "--journal",
                     str(tmp_path / "held.jsonl"), "--json"])
        out = capsys.readouterr()
        assert code == 2 and "held.jsonl is open elsewhere in this program" in out.err and f"process {os.getpid()}" in out.err
        assert len(out.err.strip().splitlines()) == 1
        assert json.loads(out.out.strip().splitlines()[-1])["journal"] is None
    finally:
        holder.close()
    assert journal_actions(tmp_path / "held.jsonl") == []  # the holder's journal untouched

    from companion.games.falconry import FalconryGame
    from companion.journal import JournalLocked

    falconry = FalconryGame(players=["A", "B"])
    f = Follower(falconry, tmp_path / "late.jsonl", pipeline=pipeline(falconry, []))
    assert f.session is None  # Falconry's set-up is read from the board first: no header yet, but the lock
    with pytest.raises(JournalLocked, match="late.jsonl is open elsewhere in this program"):
        Session.start(game(), tmp_path / "late.jsonl")
    f.close()
    assert not (tmp_path / "late.jsonl").exists()  # no game began: the empty file goes
    Session.start(game(), tmp_path / "late.jsonl").close()  # and the lock with it
    code = main(["follow", str(frames), "--game", "eagle-kingdoms", "--players", "A,B", "--journal",
                 str(tmp_path / "late.jsonl")])
    assert code == 2 and "late.jsonl already exists; choose another file" in capsys.readouterr().err
