"""The UI-free controller of the table app (no Kivy): proposals, confirm, corrections, undo, resume."""

from __future__ import annotations

import json
import os

import pytest

from companion.app import i18n
from companion.app.controller import Controller, peek_journal, rules_text
from companion.app.demo import DemoScript
from companion.app.words import plain
from companion.journal import Journal, JournalLocked
from companion.referee.dice import dice_values


@pytest.fixture
def ctl(tmp_path):
    return Controller(tmp_path, seed=3)


def _ek(ctl):
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben", "Cy"])
    script = DemoScript.load()
    ctl.observe(ctl.generation, script.observation(0))  # the set-up, as the taught board reports it
    assert ctl.proposal is not None and ctl.proposal.source == "camera"
    ctl.confirm()
    return script


def test_manual_dice_then_choice_then_journal(ctl):
    script = _ek(ctl)
    assert ctl.phase == "chance"
    specs = ctl.dice_specs()
    assert [s.kind for s in specs] == ["d6", "d6"] and specs[0].faces == [1, 2, 3, 4, 5, 6]
    assert ctl.tap_face(0, 5) is None  # one die is not a roll yet
    proposal = ctl.tap_face(1, 3)
    assert proposal is not None and proposal.action == {"type": "roll", "dice": [3, 5]}
    assert ctl.session.journal.path.read_text().count("\n") == 2  # header + set-up: nothing before confirm
    ctl.confirm()
    lines = ctl.session.journal.path.read_text().splitlines()
    assert json.loads(lines[-1])["action"] == {"type": "roll", "dice": [3, 5]}
    if ctl.phase == "decision":
        choices = ctl.choices()
        assert choices and all(c.text for c in choices)
        ctl.choose(len(choices) - 1)
        assert ctl.proposal.source == "choice"
        ctl.confirm()
    assert len(ctl.history_entries()) == len(ctl.session.history)
    assert script.module.name == ctl.module.name


def test_confirm_writes_journal_before_confirmation_is_shown(ctl, monkeypatch):
    _ek(ctl)
    order = []
    original = Journal.append_action

    def spy(self, action, player, text):
        original(self, action, player, text)
        order.append("journal")

    monkeypatch.setattr(Journal, "append_action", spy)
    ctl.listeners.append(lambda event, payload: order.append(event) if event == "confirmed" else None)
    ctl.manual_dice([2, 4])
    ctl.confirm()
    assert order == ["journal", "confirmed"]


def test_uncertain_reading_is_proposed_not_applied_and_can_be_corrected(ctl):
    _ek(ctl)
    readings = [
        {"kind": "d6", "value": 2, "confidence": 0.95, "box": [10, 10, 20, 20], "uncertain": False},
        {"kind": "d6", "value": 6, "confidence": 0.3, "box": [50, 10, 20, 20], "uncertain": True},
    ]
    before = len(ctl.session.history)
    assert ctl.observe(ctl.generation, {"dice": readings})
    assert len(ctl.session.history) == before  # never applied silently
    assert ctl.proposal.uncertain and ctl.proposal.dice[1].value == 6
    assert any(m.level == "warn" for m in ctl.messages)
    ctl.correct_die(1, 4)
    assert not ctl.proposal.uncertain and ctl.proposal.action == {"type": "roll", "dice": [2, 4]}
    assert ctl.proposal.dice[1].source == "corrected"


@pytest.mark.rules("EK-PLAY-ROLL")
def test_a_roll_the_camera_doubts_is_the_roll_due_says_so_with_its_dice(ctl):
    """Dice read surely may still be another throw's than the roll due (the camera may have missed a throw: the
    pipeline's ``missed`` roll): the family is told to check them, and the roll waits for their tap."""
    _ek(ctl)
    readings = [{"kind": "d6", "value": v, "confidence": 0.99, "box": [x, 10, 20, 20], "uncertain": False}
                for v, x in ((2, 10), (5, 50))]
    before = len(ctl.session.history)
    assert ctl.observe(ctl.generation, {"dice": readings, "missed": True})
    assert len(ctl.session.history) == before and ctl.proposal.action == {"type": "roll", "dice": [2, 5]}
    assert [m.text for m in ctl.messages if m.level == "warn"] == [i18n.tr("table:roll_missed")]
    ctl.discard()
    ctl.messages.clear()
    assert ctl.observe(ctl.generation, {"dice": readings})  # the same dice, not doubted: nothing to check
    assert ctl.proposal is not None and not [m for m in ctl.messages if m.level == "warn"]


def test_unclear_extra_finds_on_a_patterned_table_are_set_aside_only_when_the_roll_is_clear(ctl):
    """A carpet shows up as extra uncertain finds: with exactly two dice read confidently the roll is
    proposed from them; a confident extra, or too few confident dice, leaves the camera waiting."""
    _ek(ctl)

    def die(value, x, uncertain=False):
        return {"kind": "d6", "value": value, "confidence": 0.4 if uncertain else 0.95, "box": [x, 10, 20, 20],
                "uncertain": uncertain}

    carpet = [die(1, 200, True), die(5, 240, True), die(2, 280, True)]
    assert ctl.observe(ctl.generation, {"dice": [die(3, 10), die(6, 50)] + carpet})
    assert ctl.proposal.action == {"type": "roll", "dice": [3, 6]} and not ctl.proposal.uncertain
    assert ctl.vision_status == i18n.tr("table:set_aside", n=3)  # says how many finds were set aside
    ctl.discard()
    assert ctl.observe(ctl.generation, {"dice": [die(3, 10), die(6, 50), die(4, 90)] + carpet})
    assert ctl.proposal is None and ctl.vision_status == i18n.tr("table:dice_seen", expected=2, got=6)
    assert ctl.observe(ctl.generation, {"dice": [die(3, 10), die(6, 50, True)] + carpet})
    assert ctl.proposal is None
    assert ctl.observe(ctl.generation, {"dice": [die(3, 10), die(6, 50)]})  # the carpet covered: a clean roll
    assert ctl.proposal.action == {"type": "roll", "dice": [3, 6]} and ctl.vision_status == ""


def test_outdated_results_are_dropped(ctl):
    _ek(ctl)
    old = ctl.generation
    ctl.manual_dice([1, 1])
    ctl.confirm()
    dice = [{"kind": "d6", "value": 3, "box": [0, 0, 5, 5]}, {"kind": "d6", "value": 3, "box": [9, 0, 5, 5]}]
    assert not ctl.observe(old, {"dice": dice})
    assert not ctl.observe(ctl.generation, {"dice": dice}, captured_at=ctl.changed_at - 1)
    assert not ctl.observe(ctl.generation, {"dice": dice, "history_len": 0})
    assert ctl.dropped == 3


def test_illegal_move_seen_by_camera_is_called_with_its_rule(ctl):
    piece = _ek_decision(ctl)
    ctl.observe(ctl.generation, {"move": {"type": "capture", "piece": piece}})
    assert ctl.proposal is None
    message = ctl.messages[-1]
    assert message.level == "illegal" and message.rule_id and message.rule_id.startswith("EK-")
    assert piece in message.text or "not" in message.text.lower()


def test_undo_and_resume_lose_nothing(ctl, tmp_path):
    _ek(ctl)
    ctl.manual_dice([3, 5])
    ctl.confirm()
    ctl.manual_dice([1, 6]) if ctl.phase == "chance" else ctl.choose(0)
    ctl.confirm()
    history = list(ctl.session.history)
    assert ctl.undo() == 1
    assert ctl.session.history == history[:-1]
    path = ctl.session.journal.path
    other = Controller(tmp_path)
    infos = other.unfinished()
    assert [i.path for i in infos] == [path] and infos[0].actions == len(history) - 1
    with pytest.raises(JournalLocked, match=f"open elsewhere in this program \\(process {os.getpid()}"):
        other.resume(path)  # one writer per journal: not while the first controller has it open
    state = ctl.session.state
    ctl.close()
    other.resume(path)
    assert other.session.history == history[:-1]
    assert other.session.state == state


def test_journal_of_an_older_version_is_reported_not_lost(ctl):
    folder = ctl.journal_folder()
    bad = folder / "old.jsonl"
    header = {"format": "companion-journal", "version": 1, "game": "eagle-kingdoms", "rules_version": 0,
              "config": {"players": ["A", "B"]}}
    bad.write_text(json.dumps(header) + "\n")
    info = peek_journal(bad)
    assert info.error and "version" in info.error
    assert bad.exists()
    assert [i.path for i in ctl.unfinished()] == [bad]


def test_demo_recording_plays_a_whole_game_through_the_controller(ctl):
    script = DemoScript.load()
    assert not script.warnings, script.warnings
    ctl.new_game(script.module.name, list(script.game.players), script.game.mode, script.game.variant)
    corrected = uncertain = 0
    for step in range(len(script)):
        ctl.observe(ctl.generation, script.observation(step))
        assert ctl.proposal is not None, (step, ctl.messages[-1:])
        if ctl.proposal.uncertain:
            uncertain += 1
        if ctl.proposal.action != script.truth(step):  # a misread die: the family corrects it
            wrong = [i for i, d in enumerate(ctl.proposal.dice) if d.uncertain]
            assert wrong
            truth = dice_values(script.truth(step))
            ctl.correct_die(wrong[0], truth[wrong[0]])
            corrected += 1
        assert ctl.proposal.action == script.truth(step)
        ctl.confirm()
    assert ctl.phase == "over"
    assert uncertain >= 3 and corrected >= 1
    assert "Winner" in ctl.final_table() or "win" in ctl.final_table().lower()
    assert len(ctl.session.journal.path.read_text().splitlines()) == len(script) + 1


def test_typed_and_random_entry(ctl):
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    assert ctl.chance_kind() == "setup"
    assert ctl.random_outcome() is not None
    ctl.confirm()
    assert ctl.typed("9 9") is None and ctl.messages[-1].level == "warn"
    assert ctl.typed("2 6").action == {"type": "roll", "dice": [2, 6]}


def test_other_games_start_and_enter_dice(ctl):
    for name in ("verzauberte-eulen", "mighty-magpies"):
        ctl.new_game(name, ["Ann", "Ben"])
        for _ in range(3):
            if ctl.phase == "chance":
                specs = ctl.dice_specs()
                if specs and all(s.faces for s in specs):
                    assert ctl.manual_dice([s.faces[0] for s in specs]) is not None or ctl.messages[-1].level in ("warn", "illegal")
                if ctl.proposal is None:
                    ctl.random_outcome()
            else:
                ctl.choose(0)
            ctl.confirm()
        assert ctl.session.history


def test_rules_text_and_bad_setup(ctl):
    assert "outermost" in rules_text("eagle-kingdoms")["EK-CAP-OUTER"]
    with pytest.raises(Exception, match="players|Player"):
        ctl.new_game("eagle-kingdoms", ["Solo"])


def test_locales_have_the_same_keys_and_placeholders():
    assert i18n.check() == []
    i18n.set_language("de")
    try:
        assert i18n.tr("table:confirmed", text="x") == "Gespeichert: x"
    finally:
        i18n.set_language("en")


def test_committed_demo_recording_replays():
    script = DemoScript.load()
    assert not script.warnings and script.state_at(len(script)).is_terminal()
    assert script.data["seed"] == 7 and script.module.name == "eagle-kingdoms"


def _ek_decision(ctl):
    """Eagle Kingdoms after the demo set-up and a 1+2 roll, at a decision (EK-CAP-MATCH choices)."""
    _ek(ctl)
    ctl.manual_dice([1, 2])
    ctl.confirm()
    if ctl.phase != "decision":
        pytest.skip("this roll captured nothing")
    legal = {c.piece for c in ctl.choices()}
    return next(p for p in ("neck", "tail-upper", "head-left") if p not in legal)


def test_german_mode_calls_an_illegal_move_in_german_naming_the_rule(ctl, german):
    from companion.games import i18n as engine_i18n

    piece = _ek_decision(ctl)
    state = ctl.state
    error = state.explain_illegal({"type": "capture", "piece": piece})
    ctl.observe(ctl.generation, {"move": {"type": "capture", "piece": piece}})
    seen = ctl.messages[-1]
    assert ctl.proposal is None and seen.level == "illegal" and seen.rule_id == error.rule_id
    assert seen.rule_id in seen.text and "Kamera" in seen.text and "verstößt gegen Regel" in seen.text
    assert error.message not in seen.text and " erobert " in seen.text  # the move in German, not the English reason
    assert seen.rule_text == engine_i18n.rule_text("eagle-kingdoms", seen.rule_id, "de")
    assert seen.rule_text != rules_text("eagle-kingdoms")[seen.rule_id]
    ctl.propose({"type": "capture", "piece": piece}, "typed")
    typed = ctl.messages[-1]
    from companion.app.words import space_name

    assert typed.text.startswith("Nicht erlaubt: „") and typed.rule_id in typed.text
    assert space_name("eagle-kingdoms", piece, "de") in typed.text and piece not in typed.text  # the space's plain name


def test_german_mode_choices_proposal_confirmation_history_and_rules(ctl, german):
    _ek_decision(ctl)
    choices = ctl.choices()
    assert choices and all(" – " in c.text or "passt" in c.text for c in choices)
    assert not any(c.text == ctl.view.describe_choice(ctl.state, c.action) for c in choices)
    proposal = ctl.choose(0)
    assert proposal.text != ctl.state.action_to_string(proposal.action) and " erobert " in proposal.text
    ctl.confirm()
    assert ctl.messages[-1].text == f"Gespeichert: {proposal.text}"
    assert ctl.history_entries()[-2:] == ["Wurf: 1+2", proposal.text]
    page = ctl.rules_markdown()
    assert page.startswith("# Adlerreiche") and "**EK-CAP-OUTER** Nur die äußersten Teile" in page
    assert "## Zauberwürfel" in page


def test_english_mode_keeps_the_engines_texts_with_spaces_named_plainly(ctl):
    from companion.app.words import plain, sentence_case

    piece = _ek_decision(ctl)
    state = ctl.state
    assert [c.text for c in ctl.choices()] == [plain("eagle-kingdoms", ctl.view.describe_choice(state, a), "en")
                                               for a in state.legal_actions()]
    assert not any(c.piece and c.piece in c.text for c in ctl.choices())  # "left wing feather 3", never its id
    error = state.explain_illegal({"type": "capture", "piece": piece})
    ctl.propose({"type": "capture", "piece": piece}, "typed")
    assert ctl.messages[-1].text == f"Not allowed: {sentence_case(plain('eagle-kingdoms', error.message, 'en'))}"
    assert ctl.messages[-1].rule_text == rules_text("eagle-kingdoms")[error.rule_id]
    assert ctl.rules_markdown().startswith("# Eagle Kingdoms")


def test_german_mode_prompt_coach_and_final_table(ctl, german):
    ctl.new_game("eagle-kingdoms", ["Ann", "Ben"])
    assert ctl.prompt().startswith("Baue das Spiel auf dem Tisch auf") and "JSON" not in ctl.prompt()  # never typed
    ctl.random_outcome()
    ctl.confirm()
    assert ctl.prompt() == "Wurf von Ann: die 2 normalen Würfel"
    assert ctl.coach_lines()[0].startswith("Chance, dass dieser Wurf etwas erobert: ")
    table = ctl.final_table()
    assert table.startswith("Spieler") and "Sieger" in table and "Winner" not in table
    i18n.set_language("en")
    assert ctl.prompt() == ctl.state.chance_request().prompt
    assert ctl.final_table() == plain("eagle-kingdoms", ctl.view.final_table(ctl.state), "en")
    assert ctl.coach_lines() == ctl.view.coach(ctl.state)


def _d6(value, x):
    return {"kind": "d6", "value": value, "confidence": 0.99, "box": [x, 10, 20, 20], "uncertain": False}


def _events(ctl):
    heard = []
    ctl.listeners.append(lambda event, payload: heard.append(event))
    return heard


def _finish_turn(ctl):
    """Confirm the first legal choice until a roll is wanted again."""
    while ctl.phase == "decision":
        ctl.choose(0)
        ctl.confirm()


def test_dice_thrown_before_the_move_was_confirmed_are_read_again_when_the_roll_is_wanted(ctl):
    _ek_decision(ctl)  # Ann rolled 1+2 and must choose
    heard = _events(ctl)
    assert ctl.observe(ctl.generation, {"dice": [_d6(4, 10), _d6(6, 50)]})  # Ben threw early
    assert ctl.proposal is None or ctl.proposal.source != "camera"  # no roll proposed during a move
    assert ctl.vision_status == i18n.tr("table:early_roll_seen")
    assert "read_again" not in heard
    _finish_turn(ctl)
    assert ctl.phase == "chance"
    assert heard.count("read_again") == 1  # the camera is asked for the dice in view again
    assert ctl.vision_status == i18n.tr("table:early_roll")


def test_the_roll_just_played_seen_again_during_the_move_is_not_offered_to_the_next_player(ctl):
    _ek_decision(ctl)  # 1+2
    heard = _events(ctl)
    ctl.observe(ctl.generation, {"dice": [_d6(2, 12), _d6(1, 55)]})  # a die nudged while moving a piece
    _finish_turn(ctl)
    assert ctl.phase == "chance" and "read_again" not in heard


def test_the_enchanted_die_thrown_before_its_roll_is_asked_for_is_read_when_it_is(ctl):
    _ek_decision(ctl)  # 1+2 on the table
    heard = _events(ctl)
    d8 = {"kind": "d8", "value": 5, "confidence": 0.9, "box": [90, 10, 20, 20], "uncertain": False}
    phantom = {**_d6(4, 130), "uncertain": True}
    ctl.observe(ctl.generation, {"dice": [_d6(1, 10), _d6(2, 50), phantom]})  # an unclear extra find: nothing
    assert ctl.vision_status != i18n.tr("table:early_roll_seen")
    ctl.observe(ctl.generation, {"dice": [_d6(1, 10), _d6(2, 50), d8]})
    assert ctl.vision_status == i18n.tr("table:early_roll_seen")
    _finish_turn(ctl)
    assert heard.count("read_again") == 1


def test_a_roll_that_settled_just_before_the_change_is_read_again(ctl):
    _ek_decision(ctl)
    _finish_turn(ctl)
    heard = _events(ctl)
    assert not ctl.observe(ctl.generation, {"dice": [_d6(5, 10), _d6(3, 50)]}, captured_at=ctl.changed_at - 0.05)
    assert heard.count("read_again") == 1 and ctl.phase == "chance"
    # the same, showing the roll just played (1+2): dropped, and nothing asked
    assert not ctl.observe(ctl.generation, {"dice": [_d6(1, 10), _d6(2, 50)]}, captured_at=ctl.changed_at - 0.05)
    assert heard.count("read_again") == 1


def test_read_again_drops_the_camera_proposal_and_is_refused_when_no_roll_is_wanted(ctl):
    _ek(ctl)
    heard = _events(ctl)
    ctl.observe(ctl.generation, {"dice": [_d6(3, 10), _d6(4, 50)]})
    assert ctl.proposal.action == {"type": "roll", "dice": [3, 4]}
    assert ctl.read_again()
    assert ctl.proposal is None and heard[-1] == "read_again"
    assert ctl.vision_status == i18n.tr("table:reading_again")
    ctl.observe(ctl.generation, {"dice": [_d6(3, 10), _d6(5, 50)]})  # the fresh reading
    assert ctl.proposal.action == {"type": "roll", "dice": [3, 5]}


def test_read_again_is_refused_while_a_move_is_awaited(ctl):
    _ek_decision(ctl)
    heard = _events(ctl)
    assert not ctl.read_again() and "read_again" not in heard


def test_a_late_copy_of_the_roll_on_offer_does_not_drop_it(ctl):
    _ek(ctl)
    heard = _events(ctl)
    ctl.observe(ctl.generation, {"dice": [_d6(6, 10), _d6(2, 50)]})
    assert not ctl.observe(ctl.generation - 1, {"dice": [_d6(6, 10), _d6(2, 50)]})  # outdated: dropped
    assert ctl.proposal.action == {"type": "roll", "dice": [2, 6]} and "read_again" not in heard


def _eulen(ctl):
    ctl.new_game("verzauberte-eulen", ["Ann", "Ben"])
    while ctl.phase == "chance" and not ctl.dice_specs():
        ctl.random_outcome()
        ctl.confirm()
    assert [s.role for s in ctl.dice_specs()] == ["head", "body", "eye"]


def test_the_owls_roll_prompt_names_the_player_who_throws(ctl):
    """The table screen's words at the owls' roll began ", roll the head ...": the player's name was missing."""
    _eulen(ctl)
    name = ctl.current_player_name()
    assert name in ("Ann", "Ben") and ctl.prompt().startswith(f"{name}, ")


def _owl_die(value, x, identity=None):
    die = _d6(value, x)
    if identity:
        die["identity"] = identity
    return die


def test_dice_that_must_be_told_apart_are_never_given_roles_silently(ctl):
    """Dice reader ruling 5: unregistered head, body and eye dice are offered left to right, each marked."""
    _eulen(ctl)
    ctl.observe(ctl.generation, {"dice": [_owl_die(2, 10), _owl_die(5, 50), _owl_die(3, 90)]})
    assert ctl.proposal.action == {"type": "roll", "head": 2, "body": 5, "eye": 3}
    assert all(d.uncertain for d in ctl.proposal.dice)
    assert ctl.messages[-1].level == "warn" and "left to right" in ctl.messages[-1].text


def test_registered_dice_take_their_roles_wherever_they_lie_and_the_last_one_by_elimination(ctl):
    _eulen(ctl)
    ctl.observe(ctl.generation, {"dice": [_owl_die(2, 10, "eye"), _owl_die(5, 50), _owl_die(3, 90, "head")]})
    assert ctl.proposal.action == {"type": "roll", "head": 3, "body": 5, "eye": 2}
    assert not any(d.uncertain for d in ctl.proposal.dice)


def test_with_one_die_recognised_the_other_two_roles_are_a_marked_guess(ctl):
    _eulen(ctl)
    ctl.observe(ctl.generation, {"dice": [_owl_die(2, 10), _owl_die(5, 50, "head"), _owl_die(3, 90)]})
    assert ctl.proposal.action == {"type": "roll", "head": 5, "body": 2, "eye": 3}
    assert [d.uncertain for d in ctl.proposal.dice] == [False, True, True]


def _failed_first_roll(ctl):
    """Eagle Kingdoms after the demo set-up and a first roll that captures nothing: roll again or the Enchanted Die."""
    _ek(ctl)
    for action in ctl.state.legal_actions():
        after = ctl.state.clone()
        after.apply(action)
        if after.phase == "second":
            ctl.manual_dice(action["dice"])
            ctl.confirm()
            return
    pytest.skip("every roll captures")


@pytest.mark.rules("EK-TWO-2")
def test_a_roll_seen_after_a_decision_that_shows_nowhere_is_one_proposal_and_one_tap(ctl):
    """The Enchanted Die thrown after a failed first roll tells the player's choice: "rolls the Enchanted Die;
    Enchanted Die: 5" is one proposal, its die fixed by a tap as any roll's, both applied by one confirm."""
    _failed_first_roll(ctl)
    start = len(ctl.session.history)
    d8 = {"kind": "d8", "value": 5, "confidence": 0.6, "box": [90, 10, 20, 20], "uncertain": True}
    assert ctl.observe(ctl.generation, {"dice": [d8], "before": [{"type": "roll-enchanted"}]})
    assert ctl.vision_status != i18n.tr("table:early_roll_seen")  # not taken for a throw before its time
    assert ctl.proposal.before == [{"type": "roll-enchanted"}] and ctl.proposal.uncertain
    assert ctl.proposal.text.count(";") == 1 and "5" in ctl.proposal.text
    assert [spec.kind for spec in ctl.proposal_dice_specs()] == ["d8"] and ctl.dice_specs() == []
    ctl.correct_die(0, 3)
    assert ctl.proposal.before == [{"type": "roll-enchanted"}] and ctl.proposal.action == {"type": "enchanted", "face": 3}
    assert len(ctl.session.history) == start  # nothing applied before the tap
    ctl.confirm()
    assert ctl.session.history[start:] == [{"type": "roll-enchanted"}, {"type": "enchanted", "face": 3}]


@pytest.mark.rules("EK-TWO-2")
def test_a_roll_with_its_decision_not_saved_halfway_keeps_the_decision_and_offers_the_roll(ctl, monkeypatch):
    """The disk fails after the decision was written: the decision stands (it is on disk), the roll is offered alone."""
    from companion.journal import JournalError

    _failed_first_roll(ctl)
    start = len(ctl.session.history)
    d8 = {"kind": "d8", "value": 4, "confidence": 0.6, "box": [90, 10, 20, 20], "uncertain": True}
    ctl.observe(ctl.generation, {"dice": [d8], "before": [{"type": "roll-enchanted"}]})
    original, calls = Journal.append_action, []

    def full_after_one(self, action, player, text):
        calls.append(action)
        if len(calls) > 1:
            raise JournalError("disk full")
        original(self, action, player, text)

    monkeypatch.setattr(Journal, "append_action", full_after_one)
    assert ctl.confirm() is None
    assert ctl.session.history[start:] == [{"type": "roll-enchanted"}]
    assert ctl.phase == "chance" and ctl.proposal.before == [] and ctl.proposal.action == {"type": "enchanted", "face": 4}
    assert any(m.level == "error" for m in ctl.messages)
    monkeypatch.setattr(Journal, "append_action", original)
    ctl.confirm()
    assert ctl.session.history[start:] == [{"type": "roll-enchanted"}, {"type": "enchanted", "face": 4}]


def test_a_frames_own_words_last_as_long_as_such_frames_come_and_a_question_stays(ctl):
    """What the camera says of a frame (a hand over the table, a roll waiting for the move) is shown while such
    frames come and goes with the first plain frame; a question the camera asked stays until it is answered."""
    from companion.referee.table import MOVING, WAITING_FOR_MOVE

    _ek(ctl)
    plain = {"board": "board found"}
    for words in (MOVING, WAITING_FOR_MOVE):
        assert ctl.observe(ctl.generation, {**plain, "status": words})
        assert ctl.vision_status == words
        assert ctl.observe(ctl.generation, plain)
        assert ctl.vision_status == ""
    assert ctl.observe(ctl.generation, {**plain, "status": MOVING})
    assert ctl.observe(ctl.generation, {**plain, "question": {"reason": "several", "message": "", "regions": []}})
    asked = ctl.vision_status
    assert asked == i18n.tr("table:camera_several", spaces="")
    assert ctl.observe(ctl.generation, plain)
    assert ctl.vision_status == asked
