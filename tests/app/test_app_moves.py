"""Choosing a move without coordinates (issue 22, item 2): every space has a plain name in both languages,
no id or coordinate reaches a family's screen, and a move is chosen by tapping the board or from a short
list grouped by piece (the controller and the move picker, without Kivy)."""

from __future__ import annotations

import json
import random
import re

import pytest

from companion.app import i18n
from companion.app.calibration import reference_map_path
from companion.app.controller import Controller
from companion.app.moves import FLAT_UP_TO, MovePicker, regions
from companion.app.words import owl_name, plain, space_name, spaces
from companion.games.registry import load_game

GAMES = ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies")
ID_PATTERNS = {
    "eagle-kingdoms": re.compile(r"\b(plume|crown|beak|head|feather|covert|wing|leg|tail|sceptre|orb)-[a-z0-9-]+"),
    "falconry": re.compile(r"\(-?\d+, ?-?\d+\)|\bx-?\d+y-?\d+\b"),
    "verzauberte-eulen": re.compile(r"(?<![\w-])[a-e][1-5](?:-[a-e][1-5])?(?![\w-])|(?<![\w-])[RBGYK][rbgyk](?![\w-])"),
    "mighty-magpies": re.compile(r"\b[yrbg]\d\b|->|\b[Nn]est [RA-G]\b"),
}


def positions(game: str, seed: int, every: int = 7, limit: int = 900):
    """Seeded random play: every ``every``-th decision state (a clone)."""
    module = load_game(game)
    state = module.game_class(players=["Ann", "Ben", "Cy"] if game != "falconry" else ["Ann", "Ben"]).new_initial_state()
    rng = random.Random(seed)
    n = 0
    for _ in range(limit):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
            continue
        n += 1
        if n % every == 0:
            yield state.clone()
        state.apply(rng.choice(state.legal_actions()))


def map_regions(game: str) -> set[str]:
    return {r["id"] for r in json.loads(reference_map_path(game).read_text())["regions"]}


@pytest.mark.parametrize("game", GAMES)
def test_every_space_of_the_board_map_has_a_plain_name_in_both_languages(game):
    for lang in i18n.LANGUAGES:
        names = {region: space_name(game, region, lang) for region in map_regions(game)}
        assert all(name for name in names.values()), (lang, names)
        assert len(set(names.values())) == len(names), f"two spaces share a name in {lang}"
        assert not any(ID_PATTERNS[game].search(name) for name in names.values()), names
    if game == "eagle-kingdoms":
        assert space_name(game, "feather-left-3", "en") == "left wing feather 3"
        assert space_name(game, "feather-left-3", "de") == "Flügelfeder links 3"
    data = spaces(game)
    assert set(data) >= {"en", "de"}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_id_or_coordinate_reaches_the_family_in_move_words(game, lang, tmp_path):
    """Every move of many positions, as the list and the proposal say it: plain names only."""
    i18n.set_language(lang)
    try:
        ctl = Controller(tmp_path)
        ctl.module = load_game(game)
        ctl.view = ctl.module.text_view()
        checked = 0
        for state in positions(game, seed=4, every=3):
            for action in state.legal_actions()[:40]:
                for choice in (True, False):
                    words = ctl._words(state, action, choice=choice)
                    assert not ID_PATTERNS[game].search(words), words
                    checked += 1
        assert checked > 100
    finally:
        i18n.set_language("en")


def test_plain_words_name_cells_owls_and_nests():
    assert plain("falconry", "Ann (Dusky Hawk) places a marker at (0, -1)", "en").endswith("at row 3, column 5")
    assert plain("falconry", "Move marker (0, 1)->(1, 1)", "de") == "Move marker Reihe 5, Spalte 5 nach Reihe 5, Spalte 6"
    assert owl_name("Rb", "en") == "owl red/blue" and owl_name("Kk", "de") == "Eule schwarz/schwarz"
    assert plain("verzauberte-eulen", "Ann moves head die 2: Rb from e1 to e2", "en") == \
        "Ann moves head die 2: owl red/blue from bottom-right nest to row 7, column 9"
    assert plain("mighty-magpies", "Ben flies yellow y2 C->B, takes a berry", "en") == \
        "Ben flies yellow from the right nest to the upper right nest, takes a berry"
    assert plain("mighty-magpies", "Ann bleibt im Nest R", "de") == "Ann bleibt im Nest in der Mitte"


@pytest.mark.parametrize("game", GAMES)
def test_every_move_is_on_the_board_and_the_list_is_short_and_grouped(game):
    """Each move's target (and the piece it moves) is a space of the board map, where the picture can mark it;
    the list gathers them so no group is longer than the board's own choices at one place."""
    known = map_regions(game)
    biggest_flat = 0
    for state in positions(game, seed=2):
        actions = state.legal_actions()
        picker = MovePicker(game, state, [(i, a, str(i)) for i, a in enumerate(actions)], "en")
        groups = picker.groups()
        assert sum(len(g.moves) for g in groups) == len(actions)
        if len(actions) > FLAT_UP_TO:
            assert all(g.title or len(g.moves) == 1 for g in groups)  # one piece's moves, or several pieces'
            assert len(groups) <= max(12, len(actions) // 3), [g.title for g in groups]
        biggest_flat = max(biggest_flat, len(actions))
        for move in picker.moves:
            for region in (move.source, move.target):
                if region is not None and game != "falconry":  # Falconry's table grows beyond the mat
                    assert region in known, (region, move.action)
    assert biggest_flat > FLAT_UP_TO


def _decision(ctl: Controller, game: str, wanted) -> None:
    """A new game of ``game`` played with random outcomes and moves until ``wanted(ctl)``."""
    ctl.new_game(game, ["Ann", "Ben"], journal=False)
    rng = random.Random(5)
    for _ in range(800):
        if ctl.phase == "decision" and wanted(ctl):
            return
        if ctl.phase == "chance":
            ctl.random_outcome()
        else:
            ctl.propose(rng.choice(ctl.state.legal_actions()), "choice")
        ctl.confirm()
    pytest.fail("no such position")


def test_a_tap_picks_up_an_owl_marks_its_targets_and_a_second_tap_proposes(tmp_path):
    ctl = Controller(tmp_path, seed=1)

    def one_owl_two_targets(c):
        moves = c.picker().moves
        return any(len({m.target for m in moves if m.source == s}) > 1 for s in {m.source for m in moves})

    _decision(ctl, "verzauberte-eulen", one_owl_two_targets)
    picker = ctl.picker()
    source = next(s for s in {m.source for m in picker.moves}
                  if len({m.target for m in picker.moves if m.source == s}) > 1)
    assert ctl.highlights()[source] == "piece"
    assert ctl.tap_region(source) is None and picker.selected == source
    marks = ctl.highlights()
    targets = {m.target for m in picker.moves if m.source == source}
    assert marks[source] == "selected" and {r for r, k in marks.items() if k == "target"} == targets - {source}
    target = next(iter(targets - {source}))
    expected = [m.action for m in picker.moves if m.source == source and m.target == target]
    proposal = ctl.tap_region(target)
    if len(expected) == 1:
        assert proposal is not None and proposal.action == expected[0] and ctl.highlights()[target] == "proposed"
    else:  # several dice move this owl there: the list shows just those
        assert proposal is None and [m.action for m in picker.narrowed] == expected


def test_a_tap_where_no_move_goes_is_said_with_the_spaces_name(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    _decision(ctl, "eagle-kingdoms", lambda c: any(m.target for m in c.picker().moves))
    empty = next(r for r in map_regions("eagle-kingdoms") if r not in ctl.highlights())
    assert ctl.tap_region(empty) is None and ctl.proposal is None
    assert ctl.messages[-1].text == i18n.tr("table:no_move_there", piece=space_name("eagle-kingdoms", empty, "en"))


def test_a_magpie_flight_is_chosen_by_tapping_where_it_lands(tmp_path):
    ctl = Controller(tmp_path, seed=1)
    _decision(ctl, "mighty-magpies", lambda c: len(c.picker().moves) > 1)
    picker = ctl.picker()
    by_nest: dict[str, list] = {}
    for move in picker.moves:
        by_nest.setdefault(move.target, []).append(move)
        assert move.target == regions("mighty-magpies", ctl.state, move.action)[1]
    nest, moves = max(by_nest.items(), key=lambda kv: len(kv[1]))
    proposal = ctl.tap_region(nest)
    if len(moves) == 1:
        assert proposal.action == moves[0].action
    else:
        assert proposal is None and picker.narrowed == moves and picker.groups()[0].moves == moves


@pytest.mark.rules("EK-CAP-OUTER")
def test_a_move_the_camera_saw_refused_is_marked_on_the_picture_and_the_older_proposal_withdrawn(tmp_path):
    """Issue 22: a refused piece got no mark, and the camera's older proposal stayed ready to Confirm beside the
    refusal (what it proposed is no longer what lies on the table)."""
    from companion.games.core import IllegalAction
    from companion.games.eagle_kingdoms.rules import PIECE_IDS

    ctl = Controller(tmp_path, seed=1)
    _decision(ctl, "eagle-kingdoms", lambda c: any(a.get("type") == "capture" for a in c.state.legal_actions()))
    legal = next(a for a in ctl.state.legal_actions() if a.get("type") == "capture")
    ctl.propose(legal, "camera")
    assert ctl.proposal is not None
    locked = next(dict(legal, piece=pid) for pid in PIECE_IDS
                  if isinstance(e := ctl.state.problem(dict(legal, piece=pid)), IllegalAction) and "locked in" in e.message)
    ctl.call_illegal(locked, ctl.state.problem(locked), "camera")
    assert ctl.proposal is None and ctl.messages[-1].level == "illegal"
    marks = ctl.highlights()
    assert marks[locked["piece"]] == "illegal" and list(marks.values()).count("illegal") == 1
    ctl.propose(legal, "typed")  # the next change clears the mark
    ctl.confirm()
    assert "illegal" not in ctl.highlights().values()
