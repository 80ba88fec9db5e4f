"""Reader evaluation on rendered scenes, shared by the games whose readers return one
:class:`~companion.vision.readers.Observation` per frame (``companion bench board``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.readers import canonical


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
) -> dict[str, Any]:
    """Render each state, find the board, read it, compare with the truth.

    ``per_space_error``: share of judged regions not read exactly -- a wrong reading *or* an uncertain
    one (``silent_error``: confident and wrong); a frame with no usable pose counts every judged region
    wrong. ``board_exact``: boards with every region right and none uncertain. ``ms_median``: cold pose
    plus reading of one frame on one thread, wall clock (``cpu_ms_median``: this thread's CPU time).

    ``scene_from_state`` gives the truth (what a perfect reader reports); ``paint_from_state``, when
    the painter needs more than that (Falconry: stack depths, covered cards), what ``render`` gets.
    ``judged(truth)`` names the regions the error is counted on (default: all of the board's; Falconry:
    the occupied cells and their neighbours, not the empty rest of an open table).
    """
    import cv2

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    region_ids = [r.id for r in board.regions]
    total = wrong = uncertain = silent = exact = not_found = 0
    ms, cpu, read_ms = [], [], []
    failures: list[dict[str, Any]] = []
    for i, state in enumerate(states):
        truth = scene_from_state(state)
        frame, _ = render(board, paint_from_state(state) if paint_from_state else truth, rng)
        counted = set(judged(truth)) if judged else set(region_ids)
        total += len(counted)
        reader.reset()  # independent pictures: a cold pose every time
        t0, c0 = time.perf_counter(), time.thread_time()
        obs = reader.read(frame.image)
        t2, c2 = time.perf_counter(), time.thread_time()
        ms.append((t2 - t0) * 1000)
        cpu.append((c2 - c0) * 1000)
        read_ms.append(float(obs.timings_ms.get("read", 0.0)))
        if not obs.usable:
            not_found += 1
            wrong += len(counted)
            if len(failures) < 10:
                failures.append({"scene": i, "status": obs.status})
            continue
        bad = []
        for rid in region_ids:
            ok = canonical(truth.get(rid)) == canonical(obs.regions.get(rid))
            unsure = obs.is_uncertain(rid)
            if unsure or not ok:
                bad.append(rid)
            if rid in counted:
                uncertain += unsure
                silent += not unsure and not ok
        wrong += sum(1 for rid in bad if rid in counted)
        exact += not bad
        if bad and len(failures) < 10:
            failures.append(
                {
                    "scene": i,
                    "regions": {
                        r: {"truth": truth.get(r, []), "read": obs.regions.get(r, []), "confidence": round(obs.confidence_of(r), 3)}
                        for r in bad
                    },
                }
            )
    total = max(total, 1)
    return {
        "scenes": scenes,
        "per_space_error": round(wrong / total, 5),
        "silent_error": round(silent / total, 5),
        "uncertain_fraction": round(uncertain / total, 5),
        "board_exact": round(exact / max(scenes, 1), 4),
        "board_not_found": not_found,
        "judged_regions": total,
        "ms_median": round(float(np.median(ms)), 2),
        "cpu_ms_median": round(float(np.median(cpu)), 2),
        "ms_p95": round(float(np.percentile(ms, 95)), 2),
        "read_ms_median": round(float(np.median(read_ms)), 2),
        "failures": failures,
    }
