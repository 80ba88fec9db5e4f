"""The table companion app.

Only this package imports Kivy, and inside it only ``main.py`` (the composer), ``screens/`` (the screens,
each given what it shows), ``widgets.py`` (the camera preview) and ``tour.py`` (screenshots and the demo's
autopilot) do, with the ``kv/`` files they load. The rest is plain Python, tested without a display:
``controller`` (the game flow), ``camera_session`` (source, worker, frames, the board seen, the overlay),
``board`` and ``worker`` (what a real camera's frames are read with), ``overlay``, ``calibration``,
``setup_flow``, ``scoring``, ``demo`` / ``demo_render`` / ``demo_scene`` (the bundled recording),
``i18n``, ``theme``, ``speech`` and ``paths``.
"""
