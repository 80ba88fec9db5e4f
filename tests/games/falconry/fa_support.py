"""Position builders for the Falconry tests (imported by the test modules of this folder)."""

from companion.games.falconry.rules import KIND_INDEX, FalconryGame, FalconryState

NAMES = ["Ann", "Ben", "Cy", "Di"]
LETTER_SEAT = {"H": 0, "E": 1, "G": 2, "P": 3}
KIND = {"M": "marker", "B": "bird", "F": "falconer"}
PLAYERS = {"duel": 2, "fast-duel": 2, "allied": 3, "truel": 3, "quarrel": 4, "joint": 4}


def make_game(mode="duel", **options):
    return FalconryGame(players=NAMES[: PLAYERS[mode]], mode=mode, options=options)


def position(game, table, to_act=0, actions_left=None, locked=None, hands=None):
    """A state with ``table`` = {(x, y): "HM EB"} (cards bottom to top: colour letter + M/B/F);
    hands default to each noble's cards not on the table; ``to_act`` is a seat."""
    counts = [list(c) for c in game.cards]
    rows = []
    for (x, y), text in sorted(table.items()):
        cards = []
        for token in text.split():
            seat, kind = LETTER_SEAT[token[0]], KIND[token[1]]
            counts[seat][KIND_INDEX[kind]] -= 1
            cards.append([seat, kind])
        rows.append([x, y, cards])
    if hands is None:
        hands = counts
    data = {
        "table": rows,
        "hands": [{"marker": h[0], "bird": h[1], "falconer": h[2]} for h in hands],
        "turn_index": game.order.index(to_act),
        "actions_left": game.actions[to_act] if actions_left is None else actions_left,
        "locked": None if locked is None else {"cell": list(locked[0]), "placed": locked[1]},
        "turns": 5,
        "actions_done": 9,
        "winners": [],
        "over": False,
    }
    return FalconryState.from_json(game, data)


def place(kind, x, y):
    return {"type": "place", "kind": kind, "to": [x, y]}


def move(x0, y0, x1, y1):
    return {"type": "move", "from": [x0, y0], "to": [x1, y1]}


def row(letter_kind, cells):
    return {cell: letter_kind for cell in cells}


def refused(state, action):
    """The rule ID with which ``state`` refuses ``action`` (and the state stays unchanged)."""
    before = state.to_json()
    assert not state.is_legal(action)
    error = state.explain_illegal(action)
    assert state.to_json() == before
    return getattr(error, "rule_id", None)
