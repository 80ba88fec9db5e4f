"""The trained ONNX models and their model cards, shipped as package data ``companion.data.models``.

No code lives here: the file makes the folder a package so pyproject.toml can map it into companion
(``companion.data.bundled("models", ...)`` finds it in a checkout and in an installed wheel alike).
"""
