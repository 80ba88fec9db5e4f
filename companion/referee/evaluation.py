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
) -> dict[str, Any]:
    """Render each state, find the board, read it, compare with the truth.

    ``per_space_error``: share of regions not read exactly -- a wrong reading *or* an uncertain one
    (``silent_error``: confident and wrong); a frame with no usable pose counts every region wrong.
    ``board_exact``: boards with every region right and none uncertain. ``ms_median``: cold pose plus
    reading of one frame on one thread, wall clock (``cpu_ms_median``: this thread's CPU time).
    """
    import cv2

    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    n_regions = len(board.regions)
    wrong = uncertain = silent = exact = not_found = 0
    ms, cpu, read_ms = [], [], []
    failures: list[dict[str, Any]] = []
    for i, state in enumerate(states):
        truth = scene_from_state(state)
        frame, _ = render(board, truth, rng)
        reader.reset()  # independent pictures: a cold pose every time
        t0, c0 = time.perf_counter(), time.thread_time()
        obs = reader.read(frame.image)
        t2, c2 = time.perf_counter(), time.thread_time()
        ms.append((t2 - t0) * 1000)
        cpu.append((c2 - c0) * 1000)
        read_ms.append(float(obs.timings_ms.get("read", 0.0)))
        if not obs.usable:
            not_found += 1
            wrong += n_regions
            if len(failures) < 10:
                failures.append({"scene": i, "status": obs.status})
            continue
        bad = []
        for r in board.regions:
            ok = canonical(truth.get(r.id)) == canonical(obs.regions.get(r.id))
            if obs.is_uncertain(r.id):
                uncertain += 1
                bad.append(r.id)
            elif not ok:
                silent += 1
                bad.append(r.id)
        wrong += len(bad)
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
    total = n_regions * max(scenes, 1)
    return {
        "scenes": scenes,
        "per_space_error": round(wrong / total, 5),
        "silent_error": round(silent / total, 5),
        "uncertain_fraction": round(uncertain / total, 5),
        "board_exact": round(exact / max(scenes, 1), 4),
        "board_not_found": not_found,
        "ms_median": round(float(np.median(ms)), 2),
        "cpu_ms_median": round(float(np.median(cpu)), 2),
        "read_ms_median": round(float(np.median(read_ms)), 2),
        "failures": failures,
    }
