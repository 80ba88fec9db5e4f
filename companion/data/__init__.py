"""Bundled data: the trained models and the calibration files, found the same way wherever companion runs.

``models/`` and ``calibration/`` sit at the repository root (the project's fixed layout). pyproject.toml
ships them inside the package as ``companion.data.models`` and ``companion.data.calibration``
(setuptools ``package-dir``), so :mod:`importlib.resources` finds them in a checkout's editable install,
in an installed wheel and in the Android build alike; no module works out where it lies on disk.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

FOLDERS = ("models", "calibration")


def bundled(folder: str, *parts: str) -> Path:
    """A bundled folder or file as a path: ``bundled("calibration", "boards", "falconry.json")``.

    A real path, not only a readable resource: onnxruntime and OpenCV open model files by name, and
    companion is installed as plain files (never zipped; the wheel test runs from such an install)."""
    if folder not in FOLDERS:
        raise ValueError(f"no bundled folder {folder!r}; there are {', '.join(FOLDERS)}")
    root = resources.files(f"{__name__}.{folder}")
    if not isinstance(root, Path):
        raise RuntimeError(f"companion's bundled {folder} are not plain files ({root!r}); install it unzipped")
    return root.joinpath(*parts)


def source_checkout() -> Path | None:
    """The source checkout companion runs from (an editable install), else None (an installed wheel).

    Only the workshop asks: it keeps its runs in the checkout and finds the shared datasets beside it."""
    root = bundled("models").parent
    return root if (root / "pyproject.toml").is_file() else None
