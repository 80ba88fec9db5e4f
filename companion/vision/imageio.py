"""Decoding image files robustly: every failure becomes an ImageError with a reason."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.vision.errors import ImageError

MIN_SIDE = 16
MAX_SIDE = 4096  # larger images are downscaled before reading (boxes are reported in file pixels)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


def to_bgr8(img: np.ndarray) -> np.ndarray:
    """Any decoded array (gray, BGRA, 16-bit, float) -> BGR uint8."""
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8) if img.max() > 255 else img.astype(np.uint8)
    elif img.dtype in (np.float32, np.float64):
        hi = float(np.nanmax(img)) if img.size else 1.0
        img = np.clip(np.nan_to_num(img) * (255.0 if hi <= 1.0 else 1.0), 0, 255).astype(np.uint8)
    elif img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.ndim == 3 and img.shape[2] == 1:
        img = cv2.cvtColor(img[..., 0], cv2.COLOR_GRAY2BGR)
    elif img.ndim == 3 and img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    elif img.ndim != 3 or img.shape[2] != 3:
        raise ImageError(f"unsupported image layout {img.shape}")
    return np.ascontiguousarray(img)


def check_size(img: np.ndarray) -> tuple[np.ndarray, float]:
    """Reject tiny images, downscale huge ones. Returns (image, scale applied)."""
    h, w = img.shape[:2]
    if h < MIN_SIDE or w < MIN_SIDE:
        raise ImageError(f"image too small ({w}x{h}); need at least {MIN_SIDE}x{MIN_SIDE} pixels")
    scale = 1.0
    if max(h, w) > MAX_SIDE:
        scale = MAX_SIDE / max(h, w)
        img = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    return img, scale


def decode(data: bytes, name: str = "image") -> tuple[np.ndarray, float]:
    """Bytes of an image file -> (BGR uint8 image, scale). Raises ImageError."""
    if not data:
        raise ImageError("empty file")
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-4096:]:
        raise ImageError("truncated JPEG (no end-of-image marker)")
    buf = np.frombuffer(data, np.uint8)
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    except cv2.error as exc:
        raise ImageError(f"cannot decode {name}: {exc.msg if hasattr(exc, 'msg') else exc}") from exc
    if img is None:
        raise ImageError("not an image, or a damaged one (cannot decode)")
    return check_size(to_bgr8(img))


def load(path: str | Path) -> tuple[np.ndarray, float]:
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError as exc:
        raise ImageError("is a folder") from exc
    except OSError as exc:
        raise ImageError(f"cannot read file: {exc.strerror or exc}") from exc
    return decode(data, path.name)


def expand_paths(paths) -> list[Path]:
    """Files as given, folders expanded to their image files (sorted, not recursive into hidden)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() in IMAGE_SUFFIXES
                              and not any(part.startswith(".") for part in q.relative_to(p).parts)))
        else:
            out.append(p)
    return out


def shrink(img: np.ndarray, scale: float) -> np.ndarray:
    """``img`` resized by ``scale`` to (round(w * scale), round(h * scale)), area-averaged when shrinking.

    OpenCV's INTER_AREA is fast only for whole-number factors: at 640 -> 416 it took several times the
    detector's own run time, and it was most of the classifier's crop time. So: average whole k x k
    blocks (the fast path), then a mild linear step by the remaining factor (0.5-1; lightly blurred
    first when it is below 0.8). Within about 1.5 grey levels of INTER_AREA
    (tests/vision/test_dice_preprocess.py).
    """
    h, w = img.shape[:2]
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    if scale >= 1:
        return cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    k = int(1 / scale + 1e-9)
    if k >= 2:
        ph, pw = -(-h // k) * k - h, -(-w // k) * k - w
        if ph or pw:  # replicate up to k-1 pixels right and bottom: the origin and scale stay exact
            img = cv2.copyMakeBorder(img, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        img = cv2.resize(img, (img.shape[1] // k, img.shape[0] // k), interpolation=cv2.INTER_AREA)
    f = scale * k
    if abs(f - 1) < 1e-6 and img.shape[:2] == (nh, nw):
        return img
    if f < 0.8:
        img = cv2.GaussianBlur(img, (3, 3), 0.5 * (1 / f - 1))
    # same pixel-centre convention as cv2.resize: dst = f * (src + 0.5) - 0.5
    m = np.float32([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5]])
    return cv2.warpAffine(img, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
