"""A rules change that older journals cannot follow bumps ``Game.version``; such a journal is refused plainly."""

import json

import pytest

from companion import cli
from companion.games.eagle_kingdoms.rules import EagleKingdoms
from companion.games.verzauberte_eulen.rules import VerzauberteEulen
from companion.journal import JournalError, Session


def journal_of_version(tmp_path, game, version, actions):
    """A journal written as version ``version`` of ``game``'s rules would have written it."""
    path = tmp_path / f"{game.name}-v{version}.jsonl"
    session = Session.start(game, path)
    session.close()
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    header["rules_version"] = version
    header["version"] = 1  # journal format 1: what the program of those rules wrote (no line checks)
    del header["h"]
    records = [{"seq": i, "action": a, "player": -1, "text": ""} for i, a in enumerate(actions, start=1)]
    path.write_text("\n".join(json.dumps(line) for line in [header, *records]) + "\n", encoding="utf-8")
    return path


@pytest.mark.rules("EK-R-SECOND-SKIP", "VE-RUL-FORFEIT")
@pytest.mark.parametrize(
    ("game", "actions"),
    [
        # version 1 let a player end the turn after a failed first roll
        (EagleKingdoms(players=["Ann", "Ben"]), [{"type": "setup", "placement": {}}, {"type": "pass"}]),
        # version 1 let a die be given up that the other die would have freed
        (VerzauberteEulen(players=["Ann", "Ben"]), [{"type": "roll", "head": 1, "body": 2, "eye": 1}]),
    ],
)
def test_a_journal_of_the_older_rules_is_refused_with_a_plain_message(tmp_path, capsys, game, actions):
    assert game.version == 2
    path = journal_of_version(tmp_path, game, 1, actions)
    with pytest.raises(JournalError, match="version") as info:  # "written by an older version of the rules"
        Session.resume(path)
    assert "Traceback" not in str(info.value)
    assert cli.main(["play", game.name, "--resume", str(path)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and "version" in error and "Traceback" not in error
