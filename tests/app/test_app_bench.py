"""``python -m companion.app.bench`` loads the recognition worker with the live camera's table pipeline (issue 20:
the preview's fps while the pipeline runs), not a lighter stand-in: the pipeline reads the demo's board."""

from __future__ import annotations

import json
import subprocess
import sys

from kivy_app import kivy_window


def test_the_app_bench_runs_the_table_pipeline_on_the_demo_frames():
    kivy_window()  # skipped, with the reason, where no GL window can be made
    done = subprocess.run([sys.executable, "-m", "companion.app.bench", "--seconds", "3"], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["preview_fps"] > 0
    assert result["board"] == "board found", result  # said by the pipeline, however loaded the machine
