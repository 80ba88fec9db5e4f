"""The table companion app.

Only this package imports Kivy, and inside it only ``main.py``, ``widgets.py`` and ``screens.py``
(and the ``kv/`` files they load) do: ``controller`` (the game flow), ``demo`` (the bundled
recording), ``worker`` (recognition off the UI thread), ``i18n``, ``theme``, ``speech`` and
``paths`` are plain Python and are tested without a display.
"""
