"""The committed ONNX models: find them, check their SHA-256 against ``models/manifest.json``, load them.

Named root: ``models/`` at the repo root, or $COMPANION_MODELS. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from companion.vision.errors import ModelError

REPO = Path(__file__).resolve().parents[2]
MANIFEST = "manifest.json"


def models_dir() -> Path:
    return Path(os.environ.get("COMPANION_MODELS", REPO / "models"))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def manifest(folder: Path | None = None) -> dict:
    folder = folder or models_dir()
    path = folder / MANIFEST
    if not path.is_file():
        raise ModelError(f"model manifest {path} is missing; run `make train` or restore models/ from git")
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ModelError(f"model manifest {path} is damaged: {exc}") from exc


def model_entry(name: str, folder: Path | None = None) -> tuple[Path, dict]:
    """Return (checked path, manifest entry) of a model; ModelError when missing or damaged."""
    folder = folder or models_dir()
    entries = manifest(folder)
    if name not in entries:
        raise ModelError(f"model {name!r} is not in {folder / MANIFEST} (it lists: {', '.join(entries) or 'nothing'})")
    entry = entries[name]
    path = folder / entry["file"]
    if not path.is_file():
        raise ModelError(f"model file {path} is missing; run `make train` or restore models/ from git")
    got = sha256(path)
    if got != entry["sha256"]:
        raise ModelError(
            f"model file {path} is damaged or not the one in the manifest: sha256 {got[:12]}..., "
            f"expected {entry['sha256'][:12]}...; restore it from git or retrain"
        )
    return path, entry


def ort_session(name: str, threads: int = 1, folder: Path | None = None):
    """(onnxruntime.InferenceSession, manifest entry) of a checked model."""
    import onnxruntime as ort

    path, entry = model_entry(name, folder)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, int(threads))
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"cannot load model {path}: {exc}") from exc
    return session, entry


def opencv_net(name: str, folder: Path | None = None):
    """The same checked model in OpenCV's DNN module (the Android path)."""
    import cv2

    path, entry = model_entry(name, folder)
    try:
        net = cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        raise ModelError(f"OpenCV DNN cannot load {path}: {exc}") from exc
    return net, entry
