"""The app's real-camera path is the table pipeline (app/table_camera.TableRecognizer): frames of a rendered
game in, the controller's proposals out -- the set-up, the dice and a move seen on the board each shown
for one tap, never matched to the rules by the app itself (issue 20, item 1)."""

from __future__ import annotations

import numpy as np

from companion.app.camera_session import camera_recognizer
from companion.app.controller import Controller
from companion.app.table_camera import TableRecognizer, observation_of
from companion.journal import Journal
from companion.workshop.table.film import GameFilm


def test_a_rendered_game_is_proposed_move_by_move_and_confirmed_with_one_tap_each(tmp_path):
    film = GameFilm("eagle-kingdoms", 1, light=False)
    ctl = Controller(tmp_path, seed=1)
    ctl.new_game("eagle-kingdoms", list(film.game.players))
    recognizer = camera_recognizer(tmp_path, film.camera)
    assert isinstance(recognizer, TableRecognizer)
    recognizer.set_game("eagle-kingdoms")
    proposals = []
    rng = np.random.default_rng(0)
    for i, shot in enumerate(film.shots[:60]):
        recognizer.set_position(ctl.session.game, ctl.session.state, ctl.session.history)
        observation = recognizer(film.draw(shot, rng), {"captured_at": None})
        assert observation["board"] == "board found" or shot.hand is not None or i == 0
        ctl.observe(ctl.generation, observation)
        if ctl.proposal is not None:
            proposals.append((ctl.proposal.source, [*ctl.proposal.before, ctl.proposal.action]))
            ctl.confirm()  # the family's one tap (a roll's decisions that show nowhere with it)
    actions = [action for _source, path in proposals for action in path]
    assert [action["type"] for action in actions][:3] == ["setup", "roll", "capture"], proposals
    assert all(source == "camera" for source, _path in proposals)
    assert Journal.read(ctl.session.journal.path).actions() == film.actions[:len(actions)]


def test_a_roll_thrown_after_a_decision_that_shows_nowhere_is_one_observation():
    """A roll proposed with the decision before it ("P2 rolls the Enchanted Die; Enchanted Die: 5") reaches the
    controller as one roll with its decisions, confirmed with one tap -- not as a move, then the dice."""
    from companion.referee.dice import DieValue
    from companion.referee.table import DICE, TableEvent

    path = ({"type": "roll-enchanted"}, {"type": "enchanted", "face": 5})
    die = DieValue("d8", "", 5, 0.6, True, (90, 10, 20, 20))
    observation = observation_of(TableEvent(DICE, "P2 rolls the Enchanted Die; Enchanted Die: 5", actions=path,
                                            sure=False, dice=(die,)))
    assert observation["before"] == [{"type": "roll-enchanted"}] and observation["dice"][0]["value"] == 5
    assert "move" not in observation
    alone = observation_of(TableEvent(DICE, "Enchanted Die: 5", actions=path[1:], sure=False, dice=(die,)))
    assert "before" not in alone and alone["dice"][0]["uncertain"]


def test_before_a_game_the_recognizer_says_only_where_the_board_is(tmp_path):
    film = GameFilm("falconry", 1, light=False, lens_k1=0.0)
    recognizer = TableRecognizer(tmp_path)
    recognizer.set_game("falconry")
    observation = recognizer(film.draw(film.shots[0], np.random.default_rng(0)), {})
    assert observation["board"] == "board found" and "homography" in observation
    assert not {"move", "dice", "outcome", "illegal", "question"} & set(observation)
    recognizer.set_game("chess")
    assert recognizer(film.draw(film.shots[0], np.random.default_rng(0)), {})["board"] == "no board map"
