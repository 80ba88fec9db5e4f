"""Packaging: every package ships, and the bundled data (models/, calibration/) is found through
importlib.resources the same way in this checkout as in an installed wheel (issue 23, item 5)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import companion
from companion.data import bundled, source_checkout

ROOT = Path(__file__).resolve().parents[1]


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_package_folder_ships():
    """package-dir needs an explicit package list: a new package folder missing from it would be left
    out of the wheel, and a listed one that is gone would break the build."""
    config = _setuptools()
    listed, mapped = set(config["packages"]), config["package-dir"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "companion").rglob("__init__.py")}
    assert listed - set(mapped) == on_disk
    for package, folder in mapped.items():
        assert package in listed and (ROOT / folder / "__init__.py").is_file(), package


def test_bundled_data_is_the_checkouts_folders_here():
    assert bundled("models", "manifest.json").is_file()
    assert bundled("calibration", "boards", "eagle-kingdoms.json").is_file()
    assert source_checkout() == ROOT
    assert bundled("models") == ROOT / "models"  # an editable install maps the folder, never a copy
    assert Path(companion.__file__).resolve().parent == ROOT / "companion"
    with pytest.raises(ValueError, match="no bundled folder"):
        bundled("datasets")

