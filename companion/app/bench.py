"""``python -m companion.app.bench``: cold start to the home screen, and preview fps while recognition runs.

Headless (SDL offscreen). Recognition load: what a real camera runs on the worker -- the table pipeline
(``companion.app.camera_session.camera_recognizer``: board pose, board reading, dice, matched against the demo
game where it stands) -- the demo's frames as input, at the worker's rate cap; ``--demo-recognizer`` uses the
scripted one instead. Prints one JSON line.
Not a timed test: numbers depend on the machine (targets: cold start <= 3 s, preview >= 25 fps).
``ui_cpu_ms_per_frame`` is the UI thread's own CPU time per preview frame (what the app's code costs; it
moves less with the machine's load than the fps, which also waits for the GL driver and the other threads).
"""

from __future__ import annotations

import argparse
import json
import time

T0 = time.perf_counter()
FIRST_WORD_WAIT_S = 60.0  # how long the bench waits, after its timed window, for the pipeline's first word on the board


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--demo-recognizer", action="store_true")
    args = parser.parse_args(argv)
    from companion.app.cli import prepare_environment, quiet_kivy_probes

    prepare_environment(headless=True)
    quiet_kivy_probes()
    from kivy.config import Config

    Config.set("kivy", "log_level", "error")
    from kivy.base import EventLoop

    from companion.app.camera_session import camera_recognizer
    from companion.app.main import CompanionApp

    app = CompanionApp(source="demo", data_dir=None)
    app._run_prepare()
    EventLoop.idle()
    cold = time.perf_counter() - T0
    app.start_demo()
    session, game = app.session, app.controller.session
    said = {"board": ""}  # the pipeline's last word on the board (what shows that it ran)
    if not args.demo_recognizer:  # a real camera's cost on the worker thread: the table pipeline on the demo's frames
        real = camera_recognizer(app.controller.root, None)
        real.set_position(game.game, game.state, game.history)

        def recognize(image, meta):
            result = real(image, meta)
            said["board"] = result.get("board", said["board"])
            return {"status": result.get("status") or result.get("board", "")}

        session.worker.recognize = recognize  # from the next frame on
    recognized0 = session.worker.processed
    frames0, t, cpu0 = app.preview_frames, time.perf_counter(), time.thread_time()
    while time.perf_counter() - t < args.seconds:
        EventLoop.idle()
    elapsed = time.perf_counter() - t
    cpu = time.thread_time() - cpu0
    waited = time.perf_counter()
    while not args.demo_recognizer and not said["board"] and time.perf_counter() - waited < FIRST_WORD_WAIT_S:
        EventLoop.idle()  # a loaded machine: the pipeline's first word may come after the timed window
    fps = (app.preview_frames - frames0) / elapsed
    frames = max(1, app.preview_frames - frames0)
    result = {"cold_start_s": round(cold, 2), "preview_fps": round(fps, 1),
              "ui_cpu_ms_per_frame": round(cpu * 1000 / frames, 2), "recognitions": session.worker.processed - recognized0,
              "recognition_ms": round(session.worker.last_ms, 1),
              "overlay_redraws": app.sm.get_screen("table").ids.preview.overlay_uploads, "seconds": round(elapsed, 1),
              "board": said["board"]}
    app.stop()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
