"""The committed board maps are exactly what the generators make from the engines' data."""

from companion.referee import boardmaps


def test_every_committed_board_map_is_up_to_date(capsys):
    assert boardmaps.main(["--check"]) == 0
    out = capsys.readouterr().out
    for game in ("eagle-kingdoms", "falconry", "verzauberte-eulen", "mighty-magpies"):
        assert f"{game}:" in out and "up to date" in out
