"""The table pipeline learns the family's dice from the rolls they answer (companion/referee/dice_learning.py),
on the fake table: which rolls teach the reader, with which faces, and which never do."""

from __future__ import annotations

import random

import numpy as np
from fake_table import DiceReader, frame, observe, pipeline, run

from companion.games.eagle_kingdoms import simulation_policy
from companion.games.eagle_kingdoms.rules import EagleKingdoms
from companion.referee.eagle_kingdoms import scene_from_state
from companion.referee.table import DICE
from companion.vision.classify import crop


class LearningReader(DiceReader):
    """The fake table's dice reader, with what a profile needs: the classifier's crops and ``set_profile``."""

    always_confirm_kinds = frozenset({"d8"})

    def __init__(self):
        self.profile = None
        self.classifier = self
        self.config = {"size": 48, "crop_scale": 1.3}

    def crops(self, img, boxes):
        return np.stack([crop(img, b, 48, 1.3) for b in boxes])

    def set_profile(self, profile):
        self.profile = profile


def _roll_state():
    rng = random.Random(3)
    state = EagleKingdoms(players=["P0", "P1", "P2"]).new_initial_state()
    state.apply({"type": "setup", "placement": state.random_placement(rng)})
    while state.phase != "roll":
        state.apply_unchecked(state.sample_chance(rng) if state.is_chance_node() else simulation_policy(state, rng))
    return state


def _thrown(dice, reader=None):
    """A pipeline that saw ``dice`` thrown and settle, and the dice event it offered."""
    state = _roll_state()
    pipe = pipeline(state.game, [observe(scene_from_state(state))])
    pipe._dice_reader = reader or LearningReader()
    frames = [frame() for _ in range(4)] + [frame(hand=True), frame()] + [frame(dice=dice) for _ in range(14)]
    offered = [e for _, e in run(pipe, frames, state) if e.kind == DICE]
    assert len(offered) == 1
    return pipe, state, offered[0]


def _taught(reader):
    return sorted((e.kind, e.value, e.source) for e in reader.profile.examples) if reader.profile else []


def test_the_pipeline_learns_from_answers_unless_told_not_to():
    """On by default (LEARN_FROM_ANSWERS: whole films showed it safe, docs/vision-notes.md session 27); off, an
    answered roll teaches nothing."""
    for on in (True, False):
        pipe, state, _ = _thrown([(40, 200, 3, True), (280, 30, 5)])
        pipe.learning.on = pipeline(state.game, [observe(scene_from_state(state))]).learning.on and on
        pipe.applied({"type": "roll", "dice": [3, 5]}, state)
        assert (pipe._dice_reader.profile is not None, pipe.learning.taught) == ((True, 2) if on else (False, 0))


def test_a_roll_answered_with_the_faces_read_teaches_each_die_as_read():
    pipe, state, offered = _thrown([(40, 200, 3, True), (280, 30, 5)])
    assert not offered.sure  # one die unsure: the family is asked
    pipe.applied({"type": "roll", "dice": [3, 5]}, state)
    assert _taught(pipe._dice_reader) == [("d6", 3, "confirmed"), ("d6", 5, "confirmed")]
    assert pipe.learning.taught == 2


def test_a_roll_the_family_corrected_teaches_nothing():
    """The answer differs from the reading: the dice lying may be another throw's, and a crop taught under a face
    it does not show would make a later misread sure."""
    pipe, state, _ = _thrown([(40, 200, 3, True), (280, 30, 5)])
    pipe.applied({"type": "roll", "dice": [4, 5]}, state)
    assert pipe._dice_reader.profile is None and pipe.learning.taught == 0


def test_a_roll_read_surely_teaches_nothing():
    pipe, state, offered = _thrown([(40, 200, 3), (280, 30, 5)])
    assert offered.sure
    pipe.applied({"type": "roll", "dice": [3, 5]}, state)
    assert pipe._dice_reader.profile is None


def test_the_family_s_own_dice_profile_is_not_added_to():
    reader = LearningReader()
    theirs = object()
    reader.profile = theirs
    pipe, state, _ = _thrown([(40, 200, 3, True), (280, 30, 5)], reader)
    pipe.applied({"type": "roll", "dice": [3, 5]}, state)
    assert reader.profile is theirs and pipe.learning.taught == 0


def test_the_enchanted_die_is_never_taught():
    """The d8 is always confirmed; with a profile it is sure from the lowest level at which every taught d8 reads
    right, and only d8s read right would be taught here, so that check would always pass."""
    from collections import Counter

    from companion.referee.dice_learning import RollLearning
    from companion.vision.reader import Reading

    reader = LearningReader()
    picture = frame(dice=[(40, 200, 5, False, "d8")])
    d8 = Reading("d8", 5, 0.5, (40, 200, 8, 8), True)
    assert RollLearning().learn(reader, picture, [d8], Counter({("d8", "5"): 1})) == 0
    assert reader.profile is None
