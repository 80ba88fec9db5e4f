"""German mode beyond the engines' move texts: dice labels, unreadable typed input, the board as text,
and what is spoken for a refusal (the controller without Kivy; English stays the engines' own text)."""

from __future__ import annotations

import random
import re

import pytest

from companion.app import i18n
from companion.app.controller import Controller, Message
from companion.app.speech import announcement
from companion.games import i18n as engine_i18n
from companion.games.playout import playout
from companion.games.registry import load_game
from companion.games.text import TextView

GAMES = {"eagle-kingdoms": ["Ann", "Ben"], "falconry": ["Ann", "Ben"], "mighty-magpies": ["Ann", "Ben"],
         "verzauberte-eulen": ["Ann", "Ben"]}


@pytest.fixture
def ctl(tmp_path):
    return Controller(tmp_path, seed=3)


def _to_dice(ctl, name):
    """A new game of ``name``, played with random outcomes up to its first roll of dice."""
    ctl.new_game(name, GAMES[name])
    for _ in range(40):
        if ctl.phase == "chance" and ctl.dice_specs():
            return
        assert ctl.phase == "chance"
        ctl.random_outcome()
        ctl.confirm()
    pytest.fail("no dice to roll")


# --- 1. dice labels: shown in German, the identifiers unchanged --------------------------------------------
def test_owl_dice_roles_shown_in_german_identifiers_unchanged(ctl, german):
    _to_dice(ctl, "verzauberte-eulen")
    specs = ctl.dice_specs()
    assert [s.role for s in specs] == ["head", "body", "eye"]  # what vision matches on
    assert [ctl.die_label(s.role, i) for i, s in enumerate(specs)] == ["Kopf", "Körper", "Auge"]
    for i, value in enumerate((3, 5, 1)):
        ctl.tap_face(i, value)
    assert ctl.proposal.action == {"type": "roll", "head": 3, "body": 5, "eye": 1}
    assert [d.role for d in ctl.proposal.dice] == ["head", "body", "eye"]


def test_magpie_faces_shown_in_german_and_tapped_as_identifiers(ctl, german):
    _to_dice(ctl, "mighty-magpies")
    specs = ctl.dice_specs()
    assert "magpie" in specs[0].faces and ctl.face_label("magpie") == "Elster"
    assert [ctl.face_label(f) for f in specs[0].faces] == ["Gelb", "Rot", "Blau", "Grün", "Elster"]
    assert ctl.die_label(specs[1].role, 1) == "Würfel 2"
    ctl.tap_face(0, "red")
    proposal = ctl.tap_face(1, "magpie")
    assert proposal is not None and proposal.action == {"type": "roll", "faces": ["red", "magpie"]}


def test_eagle_dice_roles_in_german():
    assert engine_i18n.die_label("eagle-kingdoms", "challenger Ann", "de") == "Herausforderer Ann"
    assert engine_i18n.die_label("eagle-kingdoms", "defender Ben Li", "de") == "Verteidiger Ben Li"
    assert engine_i18n.die_label("eagle-kingdoms", "enchanted", "de") == "Zauberwürfel"
    assert engine_i18n.die_label("eagle-kingdoms", "unknown role", "de") == "unknown role"
    assert engine_i18n.face_label("eagle-kingdoms", 7, "de") == "7"  # numbers as they are (not the face.7 text)


def test_english_dice_labels_are_the_roles_and_faces(ctl):
    _to_dice(ctl, "mighty-magpies")
    assert ctl.die_label("die 1", 0) == "die 1" and ctl.die_label("", 1) == "Die 2"
    assert ctl.face_label("magpie") == "magpie" and ctl.face_label(3) == "3"
    assert engine_i18n.die_label("eagle-kingdoms", "challenger Ann", "en") == "challenger Ann"


def test_dice_registration_prompt_names_the_die_in_german(tmp_path, german):
    pytest.importorskip("companion.vision.registry")
    from companion.app.setup_flow import DiceRegistration

    flow = DiceRegistration("verzauberte-eulen", tmp_path, roles=[("head", "d6"), ("body", "d6")])
    assert "'Kopf'" in flow.prompt() and "head" not in flow.prompt()
    assert flow.roles[0][0] == "head"  # registered under the identifier
    i18n.set_language("en")
    assert "head" in flow.prompt()


# --- 2. typed input that cannot be read --------------------------------------------------------------------
def test_unreadable_roll_in_german_with_the_example(ctl, german):
    _to_dice(ctl, "verzauberte-eulen")
    with pytest.raises(Exception) as parsed:
        ctl.view.parse_chance(ctl.state, "7 x")
    assert ctl.typed("7 x") is None
    message = ctl.messages[-1]
    assert message.level == "warn" and message.text.startswith("„7 x“ kann ich nicht lesen.")
    assert "„3 5 1“" in message.text and "Kopf" in message.text
    assert str(parsed.value) not in message.text and "Three dice" not in message.text  # no English
    assert message.rule_id == "VE-COMP-DICE"
    assert message.rule_text == engine_i18n.rule_text("verzauberte-eulen", "VE-COMP-DICE", "de")


def test_unreadable_roll_in_english_is_the_parsers_message(ctl):
    _to_dice(ctl, "verzauberte-eulen")
    with pytest.raises(Exception) as parsed:
        ctl.view.parse_chance(ctl.state, "7 x")
    ctl.typed("7 x")
    assert ctl.messages[-1].text == str(parsed.value)


def test_unreadable_dice_faces_in_german(ctl, german):
    _to_dice(ctl, "mighty-magpies")
    assert ctl.manual_dice(["red", "purple"]) is None
    text = ctl.messages[-1].text
    assert text.startswith("Diese Würfel ergeben keinen Wurf: Rot purple.") and "„rot elster“" in text


def test_unreadable_move_in_german_falconry_and_eagle(ctl, german):
    ctl.new_game("falconry", GAMES["falconry"])
    assert ctl.phase == "decision" and ctl.typed("fly away") is None
    assert ctl.messages[-1].text.startswith("„fly away“ kann ich nicht lesen.") and "lege marker 2 0" in ctl.messages[-1].text
    assert ctl.typed("place marker 0 1") is not None or ctl.messages[-1].level == "illegal"  # the notation still works
    _to_dice(ctl, "eagle-kingdoms")
    ctl.typed("1 2")
    ctl.confirm()
    if ctl.phase != "decision":
        pytest.skip("this roll left no decision")
    assert ctl.typed("foo") is None  # Eagle Kingdoms has no typed moves: refused, not a crash
    assert ctl.messages[-1].text == "„foo“ kann ich nicht lesen. Tippe die Nummer einer Wahl aus der Liste oder tippe die Wahl an."


def test_unreadable_move_in_english_keeps_the_default_message(ctl):
    _to_dice(ctl, "eagle-kingdoms")
    ctl.typed("1 2")
    ctl.confirm()
    if ctl.phase != "decision":
        pytest.skip("this roll left no decision")
    assert ctl.typed("foo") is None
    assert ctl.messages[-1].text == "Type the number of a choice (or 'help'); got 'foo'."


# --- 3. the board as text (the scores screen) -------------------------------------------------------------
def _states(name, seed, steps=120):
    module = load_game(name)
    state = module.game_class(players=GAMES[name]).new_initial_state()
    met: list = []
    playout(state, random.Random(seed), max_actions=steps, on_action=lambda s, _: met.append(s.clone()), apply=state.apply)
    return met[::7] + ([state] if state.is_terminal() else [])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_board_text_in_german_for_every_game(name):
    view = load_game(name).text_view()
    if hasattr(view, "colour"):
        view.colour = False
    english_words = {"eagle-kingdoms": ("Available pieces", "Scores:", "Locked pieces", "to play"),
                     "falconry": ("Legend:", "in hand", "to act", "Winner:"),
                     "mighty-magpies": ("Nests (", "magpies:", "routes:", "berries", "points"),
                     "verzauberte-eulen": ("Nest of", "Cave:", "Key:", "Players:", "rolled")}[name]
    seen = 0
    for seed in (1, 2):
        for state in _states(name, seed, 400):
            german_text = engine_i18n.board_text(state, "de")
            assert german_text, f"no German board for {name}"
            assert not any(w in german_text for w in english_words), german_text
            english = view.render(state)
            assert engine_i18n.board_text(state, "en") is None
            # the numbers (scores, coordinates, counts) are the same in both
            assert sorted(c for c in german_text if c.isdigit()) == sorted(c for c in english if c.isdigit()), name
            seen += 1
    assert seen > 5


def test_controller_board_text_german_and_english(ctl, german):
    _to_dice(ctl, "verzauberte-eulen")
    german_text = ctl.board_text()
    assert german_text.startswith("Verzauberte Eulen – Runde ") and "Höhle: " in german_text
    i18n.set_language("en")
    assert ctl.board_text() == ctl.view.render(ctl.state)


def test_a_game_without_board_words_shows_the_render(ctl, german, monkeypatch):
    _to_dice(ctl, "verzauberte-eulen")
    monkeypatch.setattr(engine_i18n, "board_text", lambda state, lang: None)
    assert ctl.board_text() == ctl.view.render(ctl.state)
    assert TextView().render(ctl.state).startswith("Scores: ")


# --- 4. speech: a refusal says the rule's statement ------------------------------------------------------------
def test_spoken_refusal_in_german_says_the_rule_statement():
    message = Message("illegal", "Nicht erlaubt: „Ann erobert den König“ verstößt gegen Regel EK-CAP-OUTER.",
                      "EK-CAP-OUTER", "Nur die äußersten Teile dürfen erobert werden.")
    spoken = announcement(message, "de")
    assert spoken == "Nicht erlaubt: „Ann erobert den König“ verstößt gegen Regel: Nur die äußersten Teile dürfen erobert werden."
    assert "EK-CAP-OUTER" not in spoken
    assert announcement(message, "en") == message.text
    assert announcement(Message("warn", "x", "EK-CAP-OUTER", "y"), "de") == "x"
    assert announcement(Message("illegal", "kein Regelbezug"), "de") == "kein Regelbezug"


def test_spoken_refusal_from_the_controller(ctl, german):
    _to_dice(ctl, "eagle-kingdoms")
    ctl.typed("1 2")
    ctl.confirm()
    if ctl.phase != "decision":
        pytest.skip("this roll left no decision")
    legal = {c.piece for c in ctl.choices()}
    piece = next(p for p in ("neck", "tail-upper", "head-left", "orb-cross") if p not in legal)
    ctl.propose({"type": "capture", "piece": piece}, "typed")
    message = ctl.messages[-1]
    assert message.level == "illegal" and message.rule_text
    spoken = announcement(message, i18n.language())
    assert spoken.endswith(message.rule_text) and message.rule_id not in spoken and "Regel" in spoken


# --- typed input in the family's words ----------------------------------------------------------------------
def test_magpie_faces_typed_in_german_make_the_same_roll_as_in_english(ctl, german):
    _to_dice(ctl, "mighty-magpies")
    german_roll = ctl.typed("Rot Elster")
    assert german_roll is not None and german_roll.action["faces"] == ["red", "magpie"]
    english_roll = ctl.typed("red magpie")  # English still works in German mode
    assert english_roll is not None and english_roll.action == german_roll.action
    assert ctl.typed("lila elster") is None and ctl.messages[-1].level == "warn"


def test_falconry_commands_typed_in_german(ctl, german):
    ctl.new_game("falconry", GAMES["falconry"])
    legal = next(a for a in ctl.state.legal_actions() if a["type"] == "place")
    x, y = legal["to"]
    proposal = ctl.typed(f"lege markierung {x} {y}")
    assert proposal is not None and proposal.action == legal


def test_typed_words_in_english_mode_are_left_alone():
    assert engine_i18n.typed_to_english("mighty-magpies", "rot elster", "en") == "rot elster"
    assert engine_i18n.typed_to_english("mighty-magpies", "Rot, Elster", "de") == "red, magpie"
    assert engine_i18n.english_to_typed("mighty-magpies", "red magpie", "de") == "rot elster"


def test_every_german_typed_word_means_a_word_the_parser_reads():
    from companion.games.falconry.rules import KIND_INDEX
    from companion.games.mighty_magpies import MightyMagpies

    faces = {face for dice in MightyMagpies.rolls.values() for die in dice for face in die.faces}
    known = {"mighty-magpies": faces | {"and"}, "falconry": {"place", "move", "pass"} | set(KIND_INDEX)}
    for game, words in known.items():
        typed = engine_i18n.catalogue(game, "de")["typed"]
        assert typed and set(typed.values()) <= words, game


@pytest.mark.rules("EK-CAP-OUTER")
def test_a_german_refusal_keeps_the_reason_english_gives(ctl, german):
    """Issue 22: English says which pieces lock a piece in; German named only the rule. Now both say why, in
    plain space names (no ids)."""
    from companion.games.core import IllegalAction

    ctl.new_game("eagle-kingdoms", GAMES["eagle-kingdoms"])
    for _ in range(40):
        if ctl.phase == "decision" and any(a.get("type") == "capture" for a in ctl.state.legal_actions()):
            break
        ctl.random_outcome() if ctl.phase == "chance" else ctl.propose(ctl.state.legal_actions()[0], "typed")
        ctl.confirm()
    template = next(a for a in ctl.state.legal_actions() if a.get("type") == "capture")
    key = next(k for k, v in template.items() if k != "type" and isinstance(v, str))
    locked = None
    from companion.games.eagle_kingdoms.rules import PIECE_IDS

    for pid in PIECE_IDS:
        error = ctl.state.problem(dict(template, **{key: pid}))
        if isinstance(error, IllegalAction) and "locked in by" in error.message:
            locked = dict(template, **{key: pid})
            break
    assert locked is not None
    ctl.call_illegal(locked, ctl.state.problem(locked), "typed")
    text = ctl.messages[-1].text
    assert "eingeschlossen von" in text and ctl.messages[-1].rule_id in text
    assert not re.search(r"\b(feather|wing|tail|head|covert|leg|crown|beak|plume)-", text), text


@pytest.mark.rules("EK-CAP-CHOOSE")
def test_a_reason_that_begins_with_a_piece_begins_with_a_capital(ctl, german):
    """The reason is a sentence of its own after the rule's: "... gegen Regel EK-CAP-CHOOSE. Unterste Schwanzfeder 1
    ist schon erobert." (the piece's German name begins in lower case: "unterste")."""
    from companion.games.core import IllegalAction

    ctl.new_game("eagle-kingdoms", GAMES["eagle-kingdoms"])
    action = {"type": "capture", "piece": "tail-feather-1"}
    ctl.call_illegal(action, IllegalAction("EK-CAP-CHOOSE", "tail-feather-1 has already been captured.", action), "typed")
    assert ctl.messages[-1].text.endswith("Regel EK-CAP-CHOOSE. Unterste Schwanzfeder 1 ist schon erobert."), ctl.messages[-1].text
    i18n.set_language("en")
    ctl.call_illegal(action, IllegalAction("EK-CAP-CHOOSE", "tail-feather-1 has already been captured.", action), "typed")
    assert ctl.messages[-1].text == "Not allowed: Lowermost tail feather 1 has already been captured."


def test_counts_are_said_in_the_singular_and_the_plural_not_with_brackets():
    """Issue 22: '1 Zug/Züge', 'character(s)'. A text with a count has its singular (key|one) where it differs."""
    for lang in i18n.LANGUAGES:
        texts = i18n.catalogue(lang)
        hacks = {k: v for k, v in texts.items() if re.search(r"\w\((s|e|en|n)\)|Zug/Züge", v)}
        assert not hacks, hacks
    assert i18n.tr("history:undone", "de", count=1) == "1 Zug zurückgenommen."
    assert i18n.tr("history:undone", "de", count=2) == "2 Züge zurückgenommen."
    assert i18n.tr("tally:unsure", "en", count=1).startswith("1 character hard")
    assert i18n.tr("moves:more", "en", count=1) == "1 move" and i18n.tr("moves:more", "en", count=4) == "4 moves"


def test_the_cameras_questions_name_the_spaces_as_families_say_them(ctl, german):
    ctl.new_game("eagle-kingdoms", GAMES["eagle-kingdoms"])
    question = {"reason": "misread", "regions": ["crown-left", "feather-left-4"]}
    assert ctl.observe(ctl.generation, {"question": question})
    assert "Krone links" in ctl.vision_status and "crown-left" not in ctl.vision_status
    assert "feather-left" not in ctl.vision_status


def test_teaching_the_board_asks_for_a_space_by_its_plain_name(tmp_path, german):
    from companion.app.setup_flow import BoardTeaching
    from companion.app.words import space_name

    teaching = BoardTeaching("eagle-kingdoms", tmp_path)
    teaching.pose = object()  # the board found (the prompt asks for the first space to tap)
    text = teaching.prompt()
    assert teaching.current and teaching.current not in text
    assert space_name("eagle-kingdoms", teaching.current, "de") in text


def test_colour_letters_are_the_familys_language_and_tell_the_colours_apart(german):
    from companion.app import theme

    german_letters = [theme.colour_letter(c) for c in theme.PLAYER_COLOURS]
    assert german_letters == ["R", "B", "Gn", "Ge"]  # as DIN 47100 abbreviates grün and gelb and len(set(german_letters)) == len(german_letters)
    i18n.set_language("en")
    assert [theme.colour_letter(c) for c in theme.PLAYER_COLOURS] == ["R", "B", "G", "Y"]


def test_a_list_is_said_with_and_in_each_language():
    """"gelb, blau und rot", not "gelb, blau, rot": the missing faces, the winners, the players of a saved game."""
    assert i18n.spoken_list(["yellow", "blue", "red"], "en") == "yellow, blue and red"
    assert i18n.spoken_list(["gelb", "blau", "rot"], "de") == "gelb, blau und rot"
    assert i18n.spoken_list(["Ann", "Ben"], "de") == "Ann und Ben"
    assert i18n.spoken_list(["Ann"], "en") == "Ann" and i18n.spoken_list([], "en") == ""


def test_what_the_camera_says_of_a_frame_is_said_in_german():
    """The table pipeline's words for a frame (the pose, a hand, blur, a roll waiting for the move) reach the table
    screen as the family's language, the English detail after them left out."""
    from companion.referee.table import MOVING, OFF_MAP, WAITING_FOR_MOVE
    from companion.vision.pose import PoseStatus
    from companion.vision.quality import FrameQuality

    said = [status.value for status in PoseStatus] + [MOVING, WAITING_FOR_MOVE]
    said += [FrameQuality(3.0, 1.5, 2.0).problem(1.0), FrameQuality(1.0, 0.5, 2.0, moving=True).problem(1.0)]
    said += [f"board pose: {PoseStatus.TOO_DARK.value}", "a hand or an arm reaches over the board's edge: take it away",
             "the board is too small in the picture (1.20 px per mm, at least 2.5 to tell the pieces apart): bring the camera "
             "closer or use a larger picture"]
    said += [f"{OFF_MAP}: slide both marker strips so that every card lies between them",  # Falconry (session 41)
             "a hand, an arm or a card reaches over the table's edge: take it away, or slide both marker strips so that "
             "every card lies between them"]
    for words in said:
        german = i18n.camera_words(words, "de")
        assert german != words and not re.search(r"\b(the|is|of|mm|px)\b", german), (words, german)
