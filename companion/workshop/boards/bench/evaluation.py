"""Reader evaluation on rendered scenes, shared by the games whose readers return one
:class:`~companion.vision.readers.Observation` per frame (``companion bench board``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers import canonical
from companion.workshop.boards.bench.conditions import apply, board_quad, covered_share

HIDDEN_SHARE = 0.5  # a region the hand covers this much of is hidden (the truth of the hand condition)


def region_points(board: BoardMap, step_mm: float = 2.0) -> dict[str, np.ndarray]:
    """Board points (N, 2) inside each region, ``step_mm`` apart (at least its centre)."""
    out = {}
    for r in board.regions:
        x0, y0, x1, y1 = r.bounds_mm()
        xs, ys = np.meshgrid(np.arange(x0 + step_mm / 2, x1, step_mm), np.arange(y0 + step_mm / 2, y1, step_mm))
        pts = np.c_[xs.ravel(), ys.ravel()]
        inside = np.array([r.contains(float(x), float(y)) for x, y in pts], bool) if len(pts) else np.zeros(0, bool)
        out[r.id] = pts[inside] if inside.any() else np.asarray([r.center_mm], np.float64)
    return out


def teach_from_photo(reader: Any, board: BoardMap, scene: Mapping[str, Any], render: Callable[..., tuple[Any, Any]],
                     seed: int, pose_reader: Any = None, bare_board: bool = False) -> dict[str, Any]:
    """Teach ``reader`` the look of the rendered box from one photo of ``scene`` (a set-up the referee
    knows), drawn with its own seed: what a family does once with its own box
    (:func:`companion.vision.teach.teach_appearance`); ``bare_board``: and from a photo of the board with nothing
    on it, taken just before (:func:`companion.vision.teach.teach_bare_board`). Returns the taught look."""
    from companion.vision.pose import BoardTracker
    from companion.vision.teach import teach_appearance, teach_bare_board, with_bare_board

    bare = None
    if bare_board:
        empty, _ = render(board, {}, np.random.default_rng([seed, 4343]))
        _none, bare = teach_bare_board(reader, empty.image, None)
    frame, _ = render(board, scene, np.random.default_rng([seed, 4242]))
    pose = BoardTracker(board).update(frame.image) if pose_reader is not None else None
    look = teach_appearance(pose_reader or reader, frame.image, scene, pose=pose)
    return look if bare is None else with_bare_board(reader, look, bare)[0]


def evaluate_reader(
    board: BoardMap,
    reader: Any,
    states: Iterable[Any],
    scene_from_state: Callable[[Any], Mapping[str, Any]],
    render: Callable[[BoardMap, Mapping[str, Any], np.random.Generator], tuple[Any, Any]],
    scenes: int,
    seed: int,
    *,
    paint_from_state: Callable[[Any], Mapping[str, Any]] | None = None,
    judged: Callable[[Mapping[str, Any]], Iterable[str]] | None = None,
    condition: str = "as-rendered",
) -> dict[str, Any]:
    """Render each state, apply ``condition`` (:mod:`companion.workshop.boards.bench.conditions`), find
    the board, read it, compare with the truth.

    ``per_space_error``: share of judged regions not read exactly -- a wrong reading, an uncertain one
    or a hidden one (``silent_error``: confident, not hidden and wrong -- the dangerous kind); a frame
    refused (not usable) counts every judged region wrong, never silent. ``board_exact``: boards with
    every region right and none uncertain or hidden; ``boards_silent``: usable boards with at least one
    silent error; ``refused``: frames not usable. Under a hand, ``hidden_truth`` counts the judged
    regions it covers (half or more), ``hidden_read``: those read confidently anyway. ``ms_median``:
    cold pose plus reading of one frame on one thread, wall clock (``cpu_ms_median``: CPU time).

    ``scene_from_state`` gives the truth (what a perfect reader reports); ``paint_from_state``, when
    the painter needs more than that (Falconry: stack depths, covered cards), what ``render`` gets.
    ``judged(truth)`` names the regions the error is counted on (default: all of the board's; Falconry:
    the occupied cells and their neighbours, not the empty rest of an open table).
    """
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    cond_rng = np.random.default_rng([seed, 7919])  # the condition draws apart: the same scenes under every condition
    region_ids = [r.id for r in board.regions]
    points = region_points(board) if condition == "hand" else {}
    total = wrong = uncertain = silent = exact = refused = boards_silent = hidden_truth = hidden_read = hidden_said = 0
    ms, cpu, read_ms = [], [], []
    failures: list[dict[str, Any]] = []
    silent_failures: list[dict[str, Any]] = []
    for i, state in enumerate(states):
        truth = scene_from_state(state)
        frame, _ = render(board, paint_from_state(state) if paint_from_state else truth, rng)
        image, perturbed = frame.image, None
        if condition != "as-rendered" and frame.image is not None:
            perturbed = apply(condition, frame.image, board_quad(board, frame.homography), cond_rng, frame.homography)
            image = perturbed.image
        counted = set(judged(truth)) if judged else set(region_ids)
        covered = {r for r in counted if r in points and covered_share(points[r], perturbed) >= HIDDEN_SHARE} if perturbed else set()
        hidden_truth += len(covered)
        total += len(counted)
        reader.reset()  # independent pictures: a cold pose every time
        t0, c0 = time.perf_counter(), time.thread_time()
        obs = reader.read(image)
        t2, c2 = time.perf_counter(), time.thread_time()
        ms.append((t2 - t0) * 1000)
        cpu.append((c2 - c0) * 1000)
        read_ms.append(float(obs.timings_ms.get("read", 0.0)))
        if not obs.usable:
            refused += 1
            wrong += len(counted)
            if len(failures) < 10:
                failures.append({"scene": i, "status": obs.status})
            continue
        hidden = set(getattr(obs, "hidden", ()) or ())
        bad, silent_here = [], 0
        for rid in region_ids:
            ok = canonical(truth.get(rid)) == canonical(obs.regions.get(rid))
            unsure = obs.is_uncertain(rid) or rid in hidden
            if unsure or not ok:
                bad.append(rid)
            if rid in counted:
                uncertain += unsure
                silent += not unsure and not ok
                silent_here += not unsure and not ok
                hidden_said += rid in hidden
                if rid in covered and not unsure:
                    hidden_read += 1
        boards_silent += silent_here > 0
        if silent_here and len(silent_failures) < 10:
            silent_failures.append({"scene": i, "regions": {
                r: {"truth": truth.get(r, []), "read": obs.regions.get(r, []), "confidence": round(obs.confidence_of(r), 3)}
                for r in region_ids if r in counted and r not in hidden and not obs.is_uncertain(r)
                and canonical(truth.get(r)) != canonical(obs.regions.get(r))}})
        wrong += sum(1 for rid in bad if rid in counted)
        exact += not bad
        if bad and len(failures) < 10:
            failures.append(
                {
                    "scene": i,
                    "regions": {
                        r: {"truth": truth.get(r, []), "read": obs.regions.get(r, []), "confidence": round(obs.confidence_of(r), 3),
                            **({"hidden": True} if r in hidden else {})}
                        for r in bad[:8]
                    },
                }
            )
    total = max(total, 1)
    n = max(scenes, 1)
    return {
        "scenes": scenes,
        "condition": condition,
        "per_space_error": round(wrong / total, 5),
        "silent_error": round(silent / total, 5),
        "uncertain_fraction": round(uncertain / total, 5),
        "board_exact": round(exact / n, 4),
        "boards_silent": round(boards_silent / n, 4),
        "refused": round(refused / n, 4),
        "board_not_found": refused,
        "judged_regions": total,
        **({"hidden_truth": hidden_truth, "hidden_read": hidden_read, "hidden_said": hidden_said} if condition == "hand" else {}),
        "ms_median": round(float(np.median(ms)), 2),
        "cpu_ms_median": round(float(np.median(cpu)), 2),
        "ms_p95": round(float(np.percentile(ms, 95)), 2),
        "read_ms_median": round(float(np.median(read_ms)), 2),
        "failures": failures,
        "silent_failures": silent_failures,
    }
