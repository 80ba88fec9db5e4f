"""Board maps, printable marker sheets and camera profiles, shipped as package data ``companion.data.calibration``.

No code lives here: the file makes the folder a package so pyproject.toml can map it into companion
(``companion.data.bundled("calibration", ...)`` finds it in a checkout and in an installed wheel alike).
"""
