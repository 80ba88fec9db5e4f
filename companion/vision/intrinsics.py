"""Optional camera intrinsics: calibrate from ChArUco photos, save a JSON camera profile.

Usage::

    python -m companion.vision.intrinsics calibrate NAME PHOTO... [--out calibration/cameras]
    python -m companion.vision.intrinsics board OUT.png        # the ChArUco board to print

Most phone cameras correct their own lens distortion well enough for a flat board (the homography
absorbs the rest), so the pose stage works without a profile; a profile helps wide-angle webcams.
With a profile, marker corners are undistorted before the homography and
:func:`companion.vision.pose.rectify` samples the raw frame through the distortion model.

Profile JSON (``format_version`` 1)::

    {"format_version": 1, "name": "...", "image_size": [w, h], "camera_matrix": [[fx, 0, cx], ...],
     "dist_coeffs": [k1, k2, p1, p2, k3], "rms_px": 0.3, "views": 12, "board": {...}}
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.storage import plain_os_error, read_small_text, write_atomic
from companion.vision.errors import ImageError, VisionError

PROFILE_VERSION = 1


class CalibrationError(VisionError):
    """Too few usable views, or a damaged camera profile."""


@dataclass(frozen=True)
class CharucoSpec:
    """The printed ChArUco board. Its own dictionary (5x5), so it cannot be confused with board markers."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def board(self) -> cv2.aruco.CharucoBoard:
        dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm, dic)

    def image(self, px_per_mm: float, margin_mm: float = 0.0) -> np.ndarray:
        """The board rendered flat; pixel (i, j) covers mm [j / s, (j + 1) / s) from the board's corner."""
        w = round(self.squares_x * self.square_mm * px_per_mm)
        h = round(self.squares_y * self.square_mm * px_per_mm)
        m = round(margin_mm * px_per_mm)
        return self.board().generateImage((w + 2 * m, h + 2 * m), marginSize=m, borderBits=1)


@dataclass(frozen=True)
class CameraProfile:
    name: str
    image_size: tuple[int, int]
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    rms_px: float = float("nan")
    views: int = 0

    def undistort_points(self, pts_px: np.ndarray) -> np.ndarray:
        """Raw pixel positions -> where an ideal (distortion-free) camera with the same K sees them."""
        pts = np.asarray(pts_px, np.float64).reshape(-1, 1, 2)
        out = cv2.undistortPoints(pts, self.camera_matrix, self.dist_coeffs, P=self.camera_matrix)
        return out.reshape(-1, 2)

    def distort_points(self, ideal_px: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`undistort_points`."""
        pts = np.asarray(ideal_px, np.float64).reshape(-1, 2)
        K = self.camera_matrix
        norm = np.c_[(pts[:, 0] - K[0, 2]) / K[0, 0], (pts[:, 1] - K[1, 2]) / K[1, 1], np.ones(len(pts))]
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K, self.dist_coeffs)
        return out.reshape(-1, 2)

    def to_dict(self) -> dict:
        return {
            "format_version": PROFILE_VERSION,
            "name": self.name,
            "image_size": list(self.image_size),
            "camera_matrix": np.round(self.camera_matrix, 6).tolist(),
            "dist_coeffs": np.round(self.dist_coeffs.ravel(), 8).tolist(),
            "rms_px": None if math.isnan(self.rms_px) else round(self.rms_px, 4),
            "views": self.views,
        }

    @classmethod
    def from_dict(cls, data: object, source: str = "camera profile") -> CameraProfile:
        try:
            if not isinstance(data, dict) or data.get("format_version") != PROFILE_VERSION:
                raise ValueError(f"format_version must be {PROFILE_VERSION}")
            K = np.asarray(data["camera_matrix"], np.float64)
            dist = np.asarray(data["dist_coeffs"], np.float64).ravel()
            size = tuple(int(v) for v in data["image_size"])
            if K.shape != (3, 3) or not np.all(np.isfinite(K)) or K[0, 0] <= 0 or K[1, 1] <= 0:
                raise ValueError("camera_matrix must be a 3x3 matrix with positive focal lengths")
            if dist.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
                raise ValueError("dist_coeffs must hold 4, 5, 8, 12 or 14 finite numbers")
            if len(size) != 2 or min(size) <= 0:
                raise ValueError("image_size must be [width, height]")
            rms = data.get("rms_px")
            if rms is not None and not (isinstance(rms, int | float) and not isinstance(rms, bool)
                                        and math.isfinite(rms) and rms >= 0):
                raise ValueError("rms_px must be a number of pixels (or null)")
            views = data.get("views", 0)
            if not isinstance(views, int) or isinstance(views, bool) or views < 0:
                raise ValueError("views must be a whole number")
            name = data.get("name", "")
            if not isinstance(name, str) or len(name) > 100:
                raise ValueError("name must be a short text")
            return cls(name, size, K, dist, float("nan") if rms is None else float(rms), views)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise CalibrationError(f"{source}: damaged camera profile ({exc})") from None

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Written atomically (temporary file, fsync, rename, folder fsync)."""
        if not self.name or Path(self.name).name != self.name or self.name.startswith("."):
            raise CalibrationError(f"a camera profile's name must be a plain file name, got {self.name!r}")
        return write_atomic(Path(directory) / f"{self.name}.json", json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> CameraProfile:
        try:
            data = json.loads(read_small_text(path))
        except (OSError, ValueError, RecursionError) as exc:
            raise CalibrationError(f"{path}: cannot read the camera profile ({exc.__class__.__name__})") from None
        return cls.from_dict(data, str(path))


def detect_charuco(image: np.ndarray, spec: CharucoSpec) -> tuple[np.ndarray, np.ndarray] | None:
    """(object points (N, 3) in mm, image points (N, 2)) of one view, or None if under 6 corners."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
    if ch_ids is None or len(ch_ids) < 6:
        return None
    obj, img = board.matchImagePoints(ch_corners, ch_ids)
    return obj.reshape(-1, 3), img.reshape(-1, 2)


def calibrate_charuco(
    images: Iterable[np.ndarray],
    spec: CharucoSpec = CharucoSpec(),
    name: str = "camera",
    min_views: int = 4,
    fit_k3: bool = False,
) -> CameraProfile:
    """Fit K and (k1, k2, p1, p2[, k3]) from photos of the ChArUco board at several angles.

    k3 stays 0 unless ``fit_k3``: a handful of phone photos rarely reach the frame corners, and a
    free k3 then bends the corners wildly while fitting the middle a little better."""
    objs, imgs, size = [], [], None
    for image in images:
        size = (image.shape[1], image.shape[0]) if size is None else size
        if (image.shape[1], image.shape[0]) != size:
            raise CalibrationError("all calibration photos must have the same size")
        found = detect_charuco(image, spec)
        if found is not None:
            objs.append(found[0].astype(np.float32))
            imgs.append(found[1].astype(np.float32))
    if len(objs) < min_views:
        raise CalibrationError(f"board found in {len(objs)} photo(s), need {min_views}; photograph it at more angles")
    flags = 0 if fit_k3 else cv2.CALIB_FIX_K3
    rms, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None, flags=flags)
    return CameraProfile(name, size, K, dist.ravel(), float(rms), len(objs))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.vision.intrinsics")
    sub = parser.add_subparsers(dest="cmd", required=True)
    cal = sub.add_parser("calibrate", help="fit a camera profile from ChArUco photos")
    cal.add_argument("name")
    cal.add_argument("photos", nargs="+", type=Path)
    cal.add_argument("--out", type=Path, default=Path("calibration/cameras"))
    brd = sub.add_parser("board", help="write the ChArUco board to print (PNG, 300 dpi)")
    brd.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    spec = CharucoSpec()
    if args.cmd == "board":
        from companion.vision.markers import MM_PER_INCH, PRINT_DPI, png_bytes

        args.out.write_bytes(png_bytes(spec.image(PRINT_DPI / MM_PER_INCH, margin_mm=10), PRINT_DPI))
        print(f"{args.out}: {json.dumps(asdict(spec))}")
        return 0
    from companion.vision.imageio import load

    images = []
    for p in args.photos:
        try:
            images.append(load(p, fit=False)[0])  # calibration needs the camera's own pixels
        except ImageError as exc:
            print(f"error: cannot read {p}: {exc.reason}", file=sys.stderr)
            return 2
    try:
        profile = calibrate_charuco(images, spec, args.name)
        print(f"{profile.save(args.out)}: rms {profile.rms_px:.3f} px over {profile.views} views")
    except CalibrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot write the profile into {args.out}: {plain_os_error(exc)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
