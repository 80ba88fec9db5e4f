"""The committed ONNX models: find them, check their SHA-256 against ``models/manifest.json``, load them.

Named root: ``models/`` at the repo root (bundled in the package as ``companion.data.models``), or
$COMPANION_MODELS. Nothing is downloaded.

Two run-time backends read the same ONNX files: onnxruntime (desktop) and OpenCV's DNN module (Android,
where onnxruntime is not packaged). ``backend_session`` returns either behind one small interface
(``get_inputs()[0].name`` and ``run(output_names, feed)``, as onnxruntime's ``InferenceSession``);
"auto" (the default, or $COMPANION_DICE_BACKEND) takes onnxruntime when it can be imported, else OpenCV.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from companion.data import bundled
from companion.vision.errors import ModelError

MANIFEST = "manifest.json"
BACKENDS = ("auto", "onnxruntime", "opencv")
BACKEND_ENV = "COMPANION_DICE_BACKEND"


def models_dir() -> Path:
    env = os.environ.get("COMPANION_MODELS")
    return Path(env) if env else bundled("models")


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


def has_model(name: str, folder: Path | None = None) -> bool:
    """Whether the manifest lists ``name`` (an optional stage such as the d8 reader)."""
    return name in manifest(folder or models_dir())


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


class OpenCVSession:
    """An OpenCV DNN net behind the part of onnxruntime's InferenceSession API the dice stages use."""

    class _Input:
        def __init__(self, name: str):
            self.name = name

    def __init__(self, net, input_name: str = "input"):
        self.net = net
        self.outputs = list(net.getUnconnectedOutLayersNames())
        self._inputs = [self._Input(input_name)]

    def get_inputs(self):
        return self._inputs

    def run(self, output_names, feed: dict):
        import numpy as np

        (x,) = feed.values()
        self.net.setInput(np.ascontiguousarray(x, dtype=np.float32))
        names = list(output_names) if output_names else self.outputs
        outs = self.net.forward(names)
        return [np.asarray(o) for o in outs]


def output_names(session) -> list[str]:
    """The output names of an onnxruntime session or an OpenCVSession ([] for a stand-in without them)."""
    if isinstance(session, OpenCVSession):
        return list(session.outputs)
    return [o.name for o in session.get_outputs()] if hasattr(session, "get_outputs") else []


def resolve_backend(backend: str | None = None) -> str:
    """"onnxruntime" or "opencv": the explicit choice, else $COMPANION_DICE_BACKEND, else what is importable."""
    choice = (backend or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
    if choice not in BACKENDS:
        raise ModelError(f"unknown dice backend {choice!r}; choose one of {', '.join(BACKENDS)}")
    if choice != "auto":
        return choice
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return "opencv"
    return "onnxruntime"


def backend_session(name: str, backend: str | None = None, threads: int = 1, folder: Path | None = None):
    """(session, manifest entry, backend name) of a checked model in the chosen backend."""
    chosen = resolve_backend(backend)
    if chosen == "onnxruntime":
        try:
            session, entry = ort_session(name, threads, folder)
        except ImportError as exc:
            raise ModelError("the onnxruntime backend was asked for but onnxruntime is not installed; "
                             f"use backend='opencv' (or {BACKEND_ENV}=opencv)") from exc
        return session, entry, chosen
    net, entry = opencv_net(name, folder)
    return OpenCVSession(net), entry, chosen
