"""Teach your board: fit the reference board map to the owner's own board (no UI here).

The owner's print is rarely the reference to the millimetre: a board printed at 98 %, markers stuck
3 mm off, a warped space. From one photo the app shows the reference layout projected through the
pose (:func:`projected_layout`); the owner drags a few region centres to where they really are;
:func:`fit_board_map` turns those corrections (image px) into a fitted map:

1. each correction is taken to board mm through the pose (lens distortion included);
2. a global correction ``G`` (reference mm -> owner mm) is fitted: a translation from 1 tap, a
   similarity from 2-3, a homography from 4 or more (RANSAC from ``ransac_min`` taps on);
3. every region is moved through ``G``; a corrected region that still misses its tap by
   ``offset_min_mm`` or more gets its own offset.

:func:`teach_board` does photo -> pose -> fit -> save; readers pick the result up through
:func:`companion.vision.boardmap.load_user_map`.

The same photo also teaches the board's *look* (:func:`teach_appearance`): a real box is not the
project's renders -- its felt, its print, its pieces' paint. The reader measures, in the photo, the
colours of what the referee knows is where (the set-up it expects, or one the players confirmed):
the bare board round and under the pieces' places, each piece colour. The result is saved beside the
fitted map (``<user>/boards/<game>.appearance.json``, written atomically, tied to the reference map
by its sha256) and handed to the reader (``reader.teach(appearance)``; :func:`load_appearance`).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import FITTED_SLACK_MM, BoardMap, Region, save_fitted_map
from companion.vision.errors import VisionError
from companion.vision.intrinsics import CameraProfile
from companion.vision.pose import PoseResult, apply_homography, estimate_pose

DEFAULT_TEACH_CONFIG: dict[str, Any] = {
    "max_correction_mm": 40.0,  # a tap further than this from its region's reference centre is a mistake
    "max_global_shift_mm": 30.0,  # G may move a board corner at most this far
    "homography_min": 4,  # taps needed for a full homography (fewer: similarity / translation)
    "ransac_min": 6,  # from this many taps on, G is fitted with RANSAC
    "ransac_mm": 3.0,
    "offset_min_mm": 0.5,  # smaller residuals are left to G
}


class TeachError(VisionError):
    """Corrections that cannot be used (unknown region, absurd distance, no pose)."""


@dataclass(frozen=True)
class Correction:
    """The owner says: region ``region_id``'s centre is at ``image_px`` in the teaching photo."""

    region_id: str
    image_px: tuple[float, float]


@dataclass(frozen=True)
class FitReport:
    global_mm: np.ndarray  # 3x3, reference mm -> owner mm
    model: str  # none | translation | similarity | homography
    offsets_mm: Mapping[str, tuple[float, float]]
    residual_before_mm: float  # RMS distance of the taps from the reference centres
    residual_after_mm: float  # RMS distance of the taps from the fitted centres (0 with offsets)
    residual_global_mm: float  # RMS distance from the centres moved by G alone


def projected_layout(board: BoardMap, pose: PoseResult) -> dict[str, dict[str, np.ndarray]]:
    """Region id -> {"center": (2,), "outline": (N, 2)} in raw image px, for drawing the layout."""
    out = {}
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    for r in board.regions:
        if r.circle_center_mm is not None:
            (cx, cy), rad = r.circle_center_mm, float(r.radius_mm or 0)
            outline = np.c_[cx + rad * np.cos(t), cy + rad * np.sin(t)]
        else:
            outline = np.asarray(r.polygon_mm, np.float64)
        out[r.id] = {
            "center": pose.board_to_image(np.asarray([r.center_mm]))[0],
            "outline": pose.board_to_image(outline),
        }
    return out


def fit_board_map(
    reference: BoardMap,
    pose: PoseResult,
    corrections: Sequence[Correction],
    config: Mapping[str, Any] | None = None,
) -> tuple[BoardMap, FitReport]:
    cfg = {**DEFAULT_TEACH_CONFIG, **(config or {})}
    if not pose.usable:
        raise TeachError(f"no usable board pose in the teaching photo ({pose.message})")
    latest: dict[str, tuple[float, float]] = {}
    for c in corrections:  # a region dragged twice: the last drag counts
        try:
            reference.region(c.region_id)
        except KeyError:
            raise TeachError(f"no region {c.region_id!r} on the {reference.game} board") from None
        px = np.asarray(c.image_px, np.float64)
        if px.shape != (2,) or not np.all(np.isfinite(px)):
            raise TeachError(f"correction for {c.region_id!r} is not a point: {c.image_px!r}")
        latest[c.region_id] = (float(px[0]), float(px[1]))
    ids = list(latest)
    ref = np.array([reference.region(i).center_mm for i in ids], np.float64).reshape(-1, 2)
    obs = pose.image_to_board(np.array([latest[i] for i in ids], np.float64)) if ids else ref.copy()
    dist = np.linalg.norm(obs - ref, axis=1)
    for i, d in zip(ids, dist, strict=True):
        if d > float(cfg["max_correction_mm"]):
            raise TeachError(f"the centre given for {i!r} is {d:.0f} mm from that space; drag it onto its own space")

    G, model = _fit_global(ref, obs, cfg)
    shift = np.linalg.norm(apply_homography(G, reference.board_corners_mm()) - reference.board_corners_mm(), axis=1)
    if shift.max() > float(cfg["max_global_shift_mm"]):
        raise TeachError(
            f"the corrections would move a board corner by {shift.max():.0f} mm (limit {cfg['max_global_shift_mm']} mm); "
            "check the markers sit where the printed guide shows"
        )
    moved = apply_homography(G, ref) if ids else ref
    residual = obs - moved
    offsets = {
        i: (float(r[0]), float(r[1]))
        for i, r in zip(ids, residual, strict=True)
        if np.hypot(*r) >= float(cfg["offset_min_mm"])
    }
    regions = []
    for r in reference.regions:
        warped = _warp_region(r, G)
        if r.id in offsets:
            warped = warped.translated(*offsets[r.id])
        regions.append(warped)
    after = np.array([np.hypot(*r) if i not in offsets else 0.0 for i, r in zip(ids, residual, strict=True)])
    report = FitReport(
        global_mm=G,
        model=model,
        offsets_mm=offsets,
        residual_before_mm=_rms(dist),
        residual_after_mm=_rms(after),
        residual_global_mm=_rms(np.linalg.norm(residual, axis=1)),
    )
    fitted_info = {
        "global_mm": np.round(G, 9).tolist(),
        "model": model,
        "offsets_mm": {k: [round(v[0], 3), round(v[1], 3)] for k, v in offsets.items()},
        "corrections": len(ids),
        "residual_before_mm": round(report.residual_before_mm, 3),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    fitted = replace(reference, regions=tuple(regions), fitted=fitted_info)
    fitted = BoardMap.from_dict(fitted.to_dict(), "fitted map", slack_mm=FITTED_SLACK_MM)  # same checks as on load
    return fitted, report


def teach_board(
    reference: BoardMap,
    photo: np.ndarray,
    corrections: Sequence[Correction],
    user_dir: str | os.PathLike[str],
    *,
    pose_config: Mapping[str, Any] | None = None,
    camera: CameraProfile | None = None,
    config: Mapping[str, Any] | None = None,
) -> tuple[BoardMap, FitReport, Path]:
    """Photo -> pose -> fitted map, saved for this user."""
    pose = estimate_pose(photo, reference, pose_config, camera)
    fitted, report = fit_board_map(reference, pose, corrections, config)
    return fitted, report, save_fitted_map(fitted, reference, user_dir)


def _fit_global(ref: np.ndarray, obs: np.ndarray, cfg: Mapping[str, Any]) -> tuple[np.ndarray, str]:
    n = len(ref)
    if n == 0:
        return np.eye(3), "none"
    if n == 1:
        G = np.eye(3)
        G[:2, 2] = obs[0] - ref[0]
        return G, "translation"
    if n < int(cfg["homography_min"]):
        A, _ = cv2.estimateAffinePartial2D(ref, obs, method=cv2.LMEDS)
        if A is None:
            raise TeachError("the corrections do not agree on a shift, turn and scale of the board")
        return np.vstack([A, [0, 0, 1]]), "similarity"
    method = cv2.RANSAC if n >= int(cfg["ransac_min"]) else 0
    G, _ = cv2.findHomography(ref, obs, method, float(cfg["ransac_mm"]))
    if G is None or not np.all(np.isfinite(G)):
        raise TeachError("the corrections do not agree on one board layout; drag fewer spaces, or more carefully")
    return G / G[2, 2], "homography"


def _warp_region(region: Region, G: np.ndarray) -> Region:
    if region.circle_center_mm is not None:
        c = np.asarray(region.circle_center_mm, np.float64)
        probe = np.array([c, c + (1, 0), c + (0, 1)])
        p = apply_homography(G, probe)
        scale = float(np.sqrt(abs(np.cross(p[1] - p[0], p[2] - p[0]))))
        return Region(
            region.id,
            region.kind,
            circle_center_mm=(float(p[0, 0]), float(p[0, 1])),
            radius_mm=float(region.radius_mm or 0) * scale,
        )
    pts = apply_homography(G, np.asarray(region.polygon_mm, np.float64))
    return Region(region.id, region.kind, polygon_mm=tuple((float(x), float(y)) for x, y in pts))


def _rms(values: np.ndarray) -> float:
    values = np.asarray(values, np.float64)
    return float(np.sqrt((values**2).mean())) if values.size else 0.0


# -- the look of the board (appearance) ----------------------------------------------------------------

APPEARANCE_FORMAT = "companion-board-appearance"
APPEARANCE_VERSION = 1


def appearance_path(user_dir: str | os.PathLike[str], game: str) -> Path:
    return Path(user_dir) / "boards" / f"{game}.appearance.json"


def bare_look_path(user_dir: str | os.PathLike[str], game: str) -> Path:
    """Where the look of the family's empty board is kept (:func:`teach_bare_board`), beside the taught look."""
    return Path(user_dir) / "boards" / f"{game}.empty-board.json"


def teach_appearance(reader: Any, photo: np.ndarray, scene: Mapping[str, Any], *, pose: PoseResult | None = None) -> dict[str, Any]:
    """One photo of the family's board with its pieces where ``scene`` says -> the reader's look of the
    box (JSON-ready), already in use by ``reader``. The reader must offer ``learn_appearance(photo,
    pose, scene)`` and ``teach(appearance)``; its own tracker finds the pose unless one is given."""
    appearance = learn_from_photo(reader, photo, scene, pose=pose)
    reader.teach(appearance)
    return appearance


def learn_from_photo(reader: Any, photo: np.ndarray, scene: Mapping[str, Any], *, pose: PoseResult | None = None) -> dict[str, Any]:
    """The look :func:`teach_appearance` teaches, not yet in use."""
    if photo is None or not isinstance(photo, np.ndarray) or photo.ndim != 3:
        raise TeachError("the teaching photo is not a colour picture")
    if pose is None:
        tracker = getattr(reader, "tracker", None)
        if tracker is None:
            raise TeachError("this reader needs the board's pose handed in")
        tracker.reset()
        pose = tracker.update(photo)
    if not pose.usable:
        raise TeachError(f"no usable board pose in the teaching photo ({pose.message})")
    try:
        appearance = reader.learn_appearance(photo, pose, scene)
    except ValueError as exc:
        raise TeachError(str(exc)) from None
    return appearance


def teach_bare_board(reader: Any, photo: np.ndarray, look: Mapping[str, Any] | None, *,
                     pose: PoseResult | None = None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """A photo of the family's board with nothing on it -> (``look`` with what the photo showed under the spots a
    set-up covers, already in use by ``reader``, or None when no look is taught yet; the empty board's own look, to
    keep until one is). The reader must offer ``with_bare_board(look, bare)`` (the disc readers: their nests hold
    pieces at every set-up, so a set-up photo never shows their print). TeachError when the photo cannot teach it."""
    if not hasattr(reader, "with_bare_board"):
        raise TeachError("this board reader learns nothing from a photo of the empty board")
    bare = learn_from_photo(reader, photo, {}, pose=pose)
    return (None, bare) if look is None else (with_bare_board(reader, look, bare)[0], bare)


def with_bare_board(reader: Any, look: Mapping[str, Any], bare: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """(``look`` with what ``bare`` (the empty board's look) showed under the spots the set-up covered, in use by
    ``reader``; the spots learnt). TeachError when the two photos do not show one board alike (``look`` in use)."""
    reader.teach(look)
    try:
        merged, learnt = reader.with_bare_board(look, bare)
    except ValueError as exc:
        raise TeachError(str(exc)) from None
    reader.teach(merged)
    return merged, learnt


def save_appearance(appearance: Mapping[str, Any], reference: BoardMap, user_dir: str | os.PathLike[str]) -> Path:
    """Write the taught look for this user atomically (beside the fitted map); returns the path."""
    return write_appearance(appearance, reference, appearance_path(user_dir, reference.game))


def write_appearance(appearance: Mapping[str, Any], reference: BoardMap, path: str | os.PathLike[str]) -> Path:
    """Write a taught look to ``path`` atomically (a crash leaves the old file or the new one, never half)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": APPEARANCE_FORMAT,
        "version": APPEARANCE_VERSION,
        "game": reference.game,
        "reference_sha256": reference.digest(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "appearance": dict(appearance),
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_appearance(reference: BoardMap, user_dir: str | os.PathLike[str] | None) -> tuple[dict[str, Any] | None, str]:
    """(the taught look, or None, and why not): missing, damaged, another version, another game or
    taught on another reference map give None with the reason ("teach the board again"); never raises."""
    if user_dir is None:
        return None, "no user folder"
    return read_appearance(reference, appearance_path(user_dir, reference.game))


def read_appearance(reference: BoardMap, path: str | os.PathLike[str]) -> tuple[dict[str, Any] | None, str]:
    """A taught look from ``path`` as :func:`load_appearance` reads it: (look or None, why not); never raises."""
    path = Path(path)
    if not path.exists():
        return None, "not taught"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{path}: cannot read the taught look ({exc.__class__.__name__}); teach the board again"
    if not isinstance(doc, dict) or doc.get("format") != APPEARANCE_FORMAT or doc.get("version") != APPEARANCE_VERSION:
        return None, f"{path}: not a taught look of this version; teach the board again"
    if doc.get("game") != reference.game or doc.get("reference_sha256") != reference.digest():
        return None, f"{path}: taught for another board map; teach the board again"
    appearance = doc.get("appearance")
    if not isinstance(appearance, dict):
        return None, f"{path}: damaged; teach the board again"
    return appearance, "taught"
