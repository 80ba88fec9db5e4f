"""A shadow coming or going between two throws (issue 20: "shadows are tolerated"), on the workshop's film of a
whole Eagle Kingdoms game: the frame before a throw is taken afresh, so the throw after it is read."""

from __future__ import annotations

from companion.referee.follow import Follower, Oracle
from companion.referee.table import DICE, TablePipeline
from companion.workshop.table.film import GameFilm

SHADOW_COMES = 217  # seed 0, rendition 1: the warm light gives way to a shadow over a third of the board
THROWN = 16  # the action thrown after it: 2+4, its dice still in view for 13 frames


def test_the_throw_after_a_shadow_came_is_read_not_asked(tmp_path):
    """Pasted into the frame before a throw in the old light, the shadow's edges read as dice that never settled:
    the 2+4 thrown next was never read, and the family was asked for it once the board changed."""
    film = GameFilm("eagle-kingdoms", 0)
    assert film.shots[SHADOW_COMES - 1].light[0] == "warm" and film.shots[SHADOW_COMES].light[0] == "shadow"
    pipeline = TablePipeline(film.game, camera=film.camera, registry=film.registry())
    events = []
    follower = Follower(film.game, tmp_path / "f.jsonl", Oracle(film.write_truth(tmp_path / "t.jsonl"), film.game.name),
                        pipeline=pipeline, on_event=lambda _i, event: events.append(event))
    for index, image in enumerate(film.frames(actions=THROWN + 1)):
        follower.feed(index / 10, image)
        if len(follower.session.history) > THROWN:
            break
    thrown = film.actions[THROWN]
    assert thrown == {"type": "roll", "dice": [2, 4]}
    offered = [e for e in events if e.kind == DICE and e.actions and e.actions[-1] == thrown]
    assert offered and len(offered[0].dice) == 2, [(e.kind, e.message) for e in events]  # offered, both dice read
