"""Match a settled board observation against the legal successors of a rules state.

Generic over the four games. A game plugs in through an *adapter* (an object or a module) with

- ``scene_from_state(state) -> SceneDescription``: what the board should show in ``state``, in the
  readers' vocabulary (region id -> list of visible piece descriptors);
- ``implied_actions(state, before, after) -> list[Action]``: the action(s) the change from the
  scene ``before`` to the observation ``after`` would mean, *even if illegal* (e.g. "a piece
  vanished -> the current player captured it"), so a refusal can name the broken rule;
- optionally ``describe(region, expected, seen) -> str``: one region's difference in plain words;
- optionally ``rules_out(state, path, seen) -> bool``: whether ``seen`` rules out a history that its scene does
  not (Falconry: a card laid unseen beyond the map, where the camera shows the table clear).

:func:`match` returns a :class:`MatchResult` of one kind:

``unchanged``  every confidently read region shows what the state expects;
``proposed``   exactly one legal action (or a short path of decisions with no chance step between)
               explains the change -- the referee asks for one tap to confirm; ``sure`` is False when
               other legal actions agree with every confident region too and only the uncertain
               regions chose between them (a guess the family must check);
``ambiguous``  several legal actions explain it equally well -- ask which; ``next_tells`` when they all end on one
               board and leave a move that shows: the next move may tell them apart (:func:`told_apart`);
``illegal``    the change means an action the rules forbid: the engine's ``explain_illegal`` message
               and rule id -- unless two legal moves, with no chance step between, explain it (two
               hands reached in before the board was seen still), or three where three hands reached in:
               then ``ambiguous``, with those;
``misread``    nothing legal or implied explains it: the message says which regions differ;
``unreadable`` the observation itself is not usable (no pose, too dark...): nothing is applied.

Like a chess reader that uses the previous position, misreads the rules make impossible are fixed by
the rules: a successor whose scene disagrees with the observation *only in uncertain regions* is
accepted (``corrected`` names those regions). Chance steps are never taken from a board observation:
at a chance node only ``unchanged``/``illegal``/``misread`` can come back (dice come from the dice
reader). Keep this module free of any game knowledge.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from companion.games.core import Action, GameError, State
from companion.vision.readers import Observation, SceneDescription, canonical

MAX_SUCCESSORS = 2000  # safety cap on the successors examined (states x actions)


class MatchKind(Enum):
    UNCHANGED = "unchanged"
    PROPOSED = "proposed"
    AMBIGUOUS = "ambiguous"
    ILLEGAL = "illegal"
    MISREAD = "misread"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class MatchResult:
    kind: MatchKind
    message: str = ""
    actions: tuple[Action, ...] = ()  # proposed: the path of legal actions to apply (usually one)
    options: tuple[tuple[Action, ...], ...] = ()  # ambiguous: the candidate paths; misread: the nearest
    rule_id: str | None = None  # illegal: the rule the change breaks
    changed: tuple[str, ...] = ()  # regions whose confident reading differs from the expected scene
    corrected: tuple[str, ...] = ()  # uncertain regions the rules fixed (proposed/unchanged)
    error: GameError | None = field(default=None, compare=False)
    sure: bool = True  # proposed: no other legal action fits every confident region
    next_tells: bool = False  # ambiguous: every option ends on one board, and the next move may say which it was

    @property
    def action(self) -> Action | None:
        """The last action of a proposed path (the visible one), else ``None``."""
        return self.actions[-1] if self.kind is MatchKind.PROPOSED and self.actions else None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "message": self.message}
        if self.actions:
            out["actions"] = list(self.actions)
        if self.options:
            out["options"] = [list(o) for o in self.options]
        if self.rule_id:
            out["rule_id"] = self.rule_id
        if self.changed:
            out["changed"] = list(self.changed)
        if self.corrected:
            out["corrected"] = list(self.corrected)
        if not self.sure:
            out["sure"] = False
        return out


# -- comparing scenes with observations -------------------------------------------------------------


def as_observation(seen: Observation | Mapping[str, list[Any]]) -> Observation:
    return seen if isinstance(seen, Observation) else Observation.from_scene(seen)


def differences(expected: Mapping[str, list[Any]], seen: Observation) -> tuple[list[str], list[str]]:
    """(confident, uncertain) region ids where ``seen`` differs from the scene ``expected``. Hidden
    regions are neither: unknown, they can neither confirm nor rule out a successor."""
    hard: list[str] = []
    soft: list[str] = []
    partly = seen.extra.get("partly_hidden") or {}
    for region in sorted(set(expected) | set(seen.regions)):
        if region in seen.hidden:
            continue
        if region in partly:
            holds = _holds(canonical(expected.get(region)), *partly[region])
            if holds is not None:
                if not holds:
                    hard.append(region)
                continue
        if canonical(expected.get(region)) != canonical(seen.regions.get(region)):
            (soft if seen.is_uncertain(region) else hard).append(region)
    return hard, soft


def _holds(expected: tuple[str, ...], seen: Sequence[str], spots_hidden: int) -> bool | None:
    """Whether a space partly hidden (``seen``: what its spots in view read surely, ``spots_hidden`` of its spots out of
    view) can hold ``expected``: False when it shows a piece not expected there, or misses more expected pieces than
    its hidden spots can hold; None (unknown) otherwise, True when it shows every expected piece."""
    left = Counter(expected)
    left.subtract(Counter(seen))
    if any(n < 0 for n in left.values()) or sum(left.values()) > spots_hidden:
        return False
    return True if not +left else None


def _describe(adapter: Any, region: str, expected: Any, seen: Any) -> str:
    fn: Callable | None = getattr(adapter, "describe", None)
    if fn is not None:
        return fn(region, list(expected or []), list(seen or []))

    def words(pieces: Any) -> str:
        return ", ".join(json.dumps(p, sort_keys=True) for p in pieces) if pieces else "nothing"

    return f"{region}: expected {words(expected)}, saw {words(seen)}"


# -- successors --------------------------------------------------------------------------------------


@dataclass
class _Successor:
    path: tuple[Action, ...]
    scene: SceneDescription


def legal_successors(state: State, scene_from_state: Callable[[State], SceneDescription], max_depth: int = 2) -> list[_Successor]:
    """Scenes after each legal decision; decisions that change nothing visible (pass, 'roll the
    dice' choices) are followed by the next decision, up to ``max_depth`` actions, never through a
    chance step."""
    start = _key(scene_from_state(state))
    out: list[_Successor] = []
    frontier: list[tuple[State, tuple[Action, ...]]] = [(state, ())]
    seen_budget = MAX_SUCCESSORS
    for _depth in range(max_depth):
        nxt: list[tuple[State, tuple[Action, ...]]] = []
        for st, path in frontier:
            if st.is_terminal() or st.is_chance_node():
                continue
            for action in st.legal_actions():
                seen_budget -= 1
                if seen_budget < 0:
                    return out
                child = st.clone()
                child.apply_unchecked(action)
                scene = scene_from_state(child)
                if _key(scene) == start:
                    nxt.append((child, path + (action,)))
                else:
                    out.append(_Successor(path + (action,), scene))
        frontier = nxt
    return out


def _key(scene: Mapping[str, list[Any]]) -> tuple:
    return tuple(sorted((r, canonical(p)) for r, p in scene.items() if p))


# -- the match ----------------------------------------------------------------------------------------


def settled_by_rules(adapter: Any, state: State, seen: Observation) -> Observation:
    """``seen`` with the doubts the game's rules settle alone settled (the adapter's optional ``settle_by_rules``)."""
    settle: Callable | None = getattr(adapter, "settle_by_rules", None)
    return settle(state, seen) if settle is not None else seen


def match(
    state: State,
    before: Observation | Mapping[str, list[Any]] | None,
    after: Observation | Mapping[str, list[Any]],
    adapter: Any,
    max_depth: int = 2,
    two_moves: bool = False,
    three_moves: bool = False,
) -> MatchResult:
    """Explain the settled observation ``after`` from ``state`` (see the module docstring).

    ``before`` is the previous settled observation or scene (``None``: the state's expected scene);
    it is what ``implied_actions`` compares against. ``two_moves``: two moves may have been made since the board
    was last seen to change (two hands reached in): a move that two moves end at as well is asked, with both.
    ``three_moves``: three hands reached in; three moves that explain a board no one or two moves explain are asked,
    and a board no three moves explain is asked about rather than one move among its changes called illegal.
    """
    seen = as_observation(after)
    if not seen.usable:
        return MatchResult(MatchKind.UNREADABLE, f"board not read: {seen.status}; nothing applied")
    seen = settled_by_rules(adapter, state, seen)
    expected = adapter.scene_from_state(state)
    hard, soft = differences(expected, seen)
    if not hard:
        msg = "no change" + (f" (uncertain: {', '.join(soft)})" if soft else "")
        if seen.hidden:
            msg += f" (not seen: {', '.join(sorted(seen.hidden))})"
        return MatchResult(MatchKind.UNCHANGED, msg, corrected=tuple(soft))
    changed = tuple(hard)

    # 1. legal successors consistent with every confident region
    successors = legal_successors(state, adapter.scene_from_state, max_depth)
    fits: list[tuple[_Successor, list[str]]] = []
    nearest: list[tuple[int, int, _Successor]] = []
    for succ in successors:
        s_hard, s_soft = differences(succ.scene, seen)
        if not s_hard:
            fits.append((succ, s_soft))
        nearest.append((len(s_hard), len(s_soft), succ))
    if fits:
        kept = [(succ, soft) for succ, soft in fits if not _ruled_out(adapter, state, succ.path, seen)]
        return _fitting(state, kept or fits, seen, changed, adapter, two_moves, three_moves)

    # 2. two moves made before the board was seen still: legal together, though the second alone may not be
    paths = [p for p in _moves_in_a_row(state, adapter.scene_from_state, seen, len(changed)) if not _ruled_out(adapter, state, p, seen)]
    if not paths and three_moves:
        paths = [p for p in _moves_in_a_row(state, adapter.scene_from_state, seen, len(changed), moves=3)
                 if not _ruled_out(adapter, state, p, seen)]
    if paths:
        return _moves_in_a_row_seen(state, paths, changed)

    # 3. the change implies an action: illegal (name the rule) or legal but the rest disagrees
    base = as_observation(before) if before is not None else Observation.from_scene(expected)
    implied = list(adapter.implied_actions(state, dict(base.regions), seen) or [])
    # three hands or more may have made more moves than are searched (a slower family's four Falconry cards, three
    # hands seen: box 31:330, seed 97 r2, action 16): one move among the changes is no call, the board is asked about
    too_many = three_moves and len(implied) > 1
    for action in () if too_many else implied:
        if not state.is_legal(action):
            err = state.explain_illegal(action)
            return MatchResult(
                MatchKind.ILLEGAL,
                str(err.message if hasattr(err, "message") else err),
                options=((action,),),
                rule_id=getattr(err, "rule_id", None),
                changed=changed,
                error=err,
            )

    # 4. nothing explains it: say what differs, and the nearest legal reading
    details = "; ".join(_describe(adapter, r, expected.get(r), seen.regions.get(r)) for r in hard)
    near: tuple[tuple[Action, ...], ...] = ()
    if nearest:
        nearest.sort(key=lambda t: (t[0], t[1]))
        d = nearest[0][0]
        if d < len(hard):
            near = tuple(s.path for h, _, s in nearest if h == d)[:5]
    hint = ""
    if near:
        hint = " Nearest legal move: " + " | ".join(state.action_to_string(p[-1]) for p in near) + "."
    lead = "more moves were made than the camera could follow" if too_many else "the board does not match any legal move"
    return MatchResult(MatchKind.MISREAD, f"{lead}: {details}.{hint}", options=near, changed=changed)


def _ruled_out(adapter: Any, state: State, path: Sequence[Action], seen: Observation) -> bool:
    fn: Callable | None = getattr(adapter, "rules_out", None)
    return bool(fn(state, path, seen)) if fn is not None else False


def _fitting(state: State, fits: list, seen: Observation, changed: tuple[str, ...], adapter: Any,
             two_moves: bool, three_moves: bool = False) -> MatchResult:
    """The result when some legal successors agree with every confident region (``fits``: each with the uncertain
    regions it leaves unexplained)."""
    best = min(len(s) for _, s in fits)  # prefer the successor that also explains uncertain regions
    top = [(succ, s) for succ, s in fits if len(s) == best]
    if len({_path_key(succ.path[-1:]) for succ, _ in top}) != 1:
        options = tuple(succ.path for succ, _ in top)
        names = " | ".join(state.action_to_string(p[-1]) for p in options)
        tells = len(top) == len(fits) and _one_board_then_a_move(state, options, adapter.scene_from_state)
        return MatchResult(MatchKind.AMBIGUOUS, f"several moves fit: {names}", options=options, changed=changed,
                           next_tells=tells)
    succ, soft_left = min(top, key=lambda t: len(t[0].path))  # one visible action (shortest path to it)
    text = "; ".join(state.action_to_string(a) for a in succ.path)
    if soft_left:
        text += f" (uncertain, taken from the rules: {', '.join(soft_left)})"
    # sure when one history explains it: a decision that shows nowhere on the way (whom to give which
    # character before a trade) is no less a guess for ending in the same visible action
    sure = len({_path_key(s.path) for s, _ in fits}) == 1
    merged = _moves_in_a_row(state, adapter.scene_from_state, seen, len(changed)) if sure and two_moves else []
    if sure and soft_left and not merged:  # two moves may explain the spaces read unsure that this one leaves
        merged = _moves_in_a_row(state, adapter.scene_from_state, seen, len(changed), soft_below=len(soft_left))
    if merged:  # the board settled once after two moves that end where this one does: which was it?
        options = (succ.path, *merged[:4])
        names = " | ".join(_path_words(state, p) for p in options)
        return MatchResult(MatchKind.AMBIGUOUS, f"several moves fit (one move, or two before the board was still): "
                           f"{names}", options=options, changed=changed)
    if sure and soft_left and three_moves:
        # three hands for one move: the others may hide in the spaces read unsure, a throw between them, which no search
        # of moves in a row follows (box 71:15, Eagle Kingdoms seed 105 r2, action 40: a Knight taken on a space read
        # unsure throughout, a throw, a capture; the capture was confirmed, sure, as the take)
        sure = False
        text += " -- more hands reached in than this one move needs"
    return MatchResult(MatchKind.PROPOSED, text, actions=succ.path, changed=changed, corrected=tuple(soft_left),
                       sure=sure)


def _one_board_then_a_move(state: State, options: Sequence[Sequence[Action]],
                           scene_of: Callable[[State], SceneDescription]) -> bool:
    """Every option ends on one board, in a state whose every legal action shows on the board (Verzauberte Eulen: an
    owl of the player's head and body colour moved by the head die or the body die, both showing 4; the die left
    must be moved next, and which owl it moves may tell which die it is)."""
    boards = set()
    for path in options:
        after = _after(state, path)
        if after.is_terminal() or after.is_chance_node():
            return False
        board = _key(scene_of(after))
        boards.add(board)
        if len(boards) > 1 or any(_key(scene_of(_after(after, (a,)))) == board for a in after.legal_actions()):
            return False
    return True


def told_apart(state: State, asked: MatchResult, after: Observation, adapter: Any, two_moves: bool = False) -> MatchResult | None:
    """The board seen after a question ``asked`` with ``next_tells`` was put off: ``None`` while it shows no new move
    (wait on); a proposal of the one option whose next move explains ``after``, with that move (or alone, when its
    next move is itself ambiguous); else ``asked`` itself, to be put to the family now. The family never said which
    die they moved: a history the rules allow is theirs, and only where one alone explains the board is it taken."""
    results = [(path, match(_after(state, path), None, after, adapter, two_moves=two_moves)) for path in asked.options]
    if any(r.kind in (MatchKind.UNCHANGED, MatchKind.UNREADABLE) for _, r in results):
        return None
    explained = [(path, r) for path, r in results if r.kind in (MatchKind.PROPOSED, MatchKind.AMBIGUOUS)]
    if len(explained) != 1:
        return asked
    path, r = explained[0]
    if r.kind is MatchKind.AMBIGUOUS:
        return MatchResult(MatchKind.PROPOSED, _path_words(state, path), actions=tuple(path), changed=asked.changed)
    return MatchResult(MatchKind.PROPOSED, _path_words(state, (*path, *r.actions)), actions=(*path, *r.actions),
                       changed=r.changed, corrected=r.corrected, sure=r.sure)


def _after(state: State, path: Sequence[Action]) -> State:
    """``state`` with the actions of ``path`` applied (a copy)."""
    out = state.clone()
    for action in path:
        out.apply_unchecked(action)
    return out


def _moves_in_a_row_seen(state: State, paths: list[tuple[Action, ...]], changed: tuple[str, ...]) -> MatchResult:
    """The result when no one move explains the board but two (or three) do, with no chance step between (Verzauberte Eulen
    seed 34 r1, action 63: the head die's step and then the eye die's flight, seen at once, were called illegal: "the
    black eye die is always moved last"): the family is asked, with each history found. Never proposed, even when
    one is found: the histories followed are those whose first move the board does not contradict, and a space read
    unsure lets one through where others are not (Eulen seed 31 r1, action 33: one owl moved by two dice, by six
    ways; the one through the space read unsure alone was followed, and confirmed, wrongly)."""
    options = tuple(paths[:5])
    names = " | ".join(_path_words(state, p) for p in options)
    count = {2: "two", 3: "three"}.get(len(options[0]), "several")
    return MatchResult(MatchKind.AMBIGUOUS, f"{count} moves fit, made before the board was still: {names}", options=options,
                       changed=changed)


def _path_words(state: State, path: Sequence[Action]) -> str:
    """A path of actions in words, each said in the state it is taken in."""
    words, st = [], state.clone()
    for action in path:
        words.append(st.action_to_string(action))
        st.apply_unchecked(action)
    return "; ".join(words)


def _moves_in_a_row(state: State, scene_of: Callable[[State], SceneDescription], seen: Observation,
                    reach: int, soft_below: int | None = None, moves: int = 2) -> list[tuple[Action, ...]]:
    """Paths of ``moves`` moves that all show, with no chance step between (Verzauberte Eulen: one owl moved by two
    dice), that end where ``seen`` shows: that many hands reached in and the board was not seen to change between
    them (bench table, Eulen seed 3 r1, action 117: the body die's step and the head die's flight read as the head
    die's flight alone, a silent error; Eulen seed 75 on box 57:30, action 13: the head and body dice moved an owl
    through spaces read unsure, then the eye die's move was seen and called illegal: "the black eye die is always
    moved last"). ``reach``: the spaces the one move explaining ``seen`` changed; a move on the way leaving more
    spaces than that to change is not followed. ``soft_below``: only paths that leave fewer spaces read unsure
    unexplained than that (the one move leaves that many: Eulen seed 27 r1, action 21: the body die's step, read
    unsure while the head die's flight was read sure, was confirmed after the flight, the turn's order swapped)."""
    start = _key(scene_of(state))
    out: list[tuple[Action, ...]] = []
    budget = MAX_SUCCESSORS
    for first in state.legal_actions():
        budget -= 1
        if budget < 0:
            break
        mid = state.clone()
        mid.apply_unchecked(first)
        middle = scene_of(mid)
        if mid.is_terminal() or mid.is_chance_node() or _key(middle) == start:
            continue
        if len(differences(middle, seen)[0]) > reach:
            continue
        if moves > 2:
            out += [(first, *rest) for rest in _moves_in_a_row(mid, scene_of, seen, reach, soft_below, moves - 1)]
            continue
        seconds = legal_successors(mid, scene_of, max_depth=1)  # the moves after it that show
        budget -= len(seconds)
        out += [(first, *second.path) for second in seconds if _explains(second.scene, seen, soft_below)]
    return out


def _explains(scene: Mapping[str, list[Any]], seen: Observation, soft_below: int | None) -> bool:
    hard, soft = differences(scene, seen)
    return not hard and (soft_below is None or len(soft) < soft_below)


def _path_key(path: Sequence[Action]) -> str:
    return json.dumps(list(path), sort_keys=True)


__all__ = ["MatchKind", "MatchResult", "differences", "legal_successors", "match", "told_apart"]
