"""Seat counts when no players are named come from the mode's data."""

import json

from companion import cli


def test_mode_fixes_the_default_player_count(capsys):
    assert cli.main(["simulate", "falconry", "--mode", "allied", "--games", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 1
    args = cli.build_parser().parse_args(["simulate", "falconry", "--mode", "quarrel"])
    _, game = cli.make_game(args)
    assert game.num_players == 4
