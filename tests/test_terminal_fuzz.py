"""Random and adversarial typed lines, fed to the terminal referee of each game (hypothesis): no
traceback, no line a game's parser fails on other than with a plain refusal, and the journal always
replays to what the screen showed. The benchmark (``companion bench robustness``) runs 100,000 lines a game."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.registry import GAMES
from companion.workshop.robustness import ODD_DIGITS, adversarial_line, fuzz_game

LINE = st.one_of(
    st.sampled_from(["", "", "1", "2", "3", "roll", "undo", "board", "help"]),  # lines that move the game on
    st.integers(-3, 60).map(str),
    st.lists(st.integers(0, 9), min_size=1, max_size=4).map(lambda d: " ".join(map(str, d))),
    st.sampled_from(ODD_DIGITS).map(lambda c: c * 2),
    st.integers(0, 2**32).map(lambda seed: adversarial_line(random.Random(seed))),
    st.text(max_size=25),
    st.binary(min_size=1, max_size=6).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.integers(7, 5000).map(lambda n: "9" * n),
)


@pytest.mark.parametrize("game", list(GAMES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINE, min_size=1, max_size=40))
def test_typed_lines_never_crash_the_referee_and_the_journal_matches_the_screen(game, lines):
    with tempfile.TemporaryDirectory() as tmp:
        result = fuzz_game(game, lines, Path(tmp))
    assert result["tracebacks"] == 0, result.get("first_errors")
    assert result["unreadable"] == 0
    assert result["journal_mismatches"] == 0


def test_the_fuzzer_sees_a_traceback(monkeypatch):
    """The check above can fail: a referee that raises on a line is counted."""
    from companion.terminal import TerminalReferee

    def broken(self, state):
        raise RuntimeError("boom")

    monkeypatch.setattr(TerminalReferee, "next_action", broken)
    with tempfile.TemporaryDirectory() as tmp:
        result = fuzz_game("falconry", ["1"], Path(tmp))
    assert result["tracebacks"] == 1 and "boom" in result["first_errors"][0]
