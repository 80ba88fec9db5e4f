"""Reading image files with bounds: every failure becomes an ImageError with a reason.

Every command that reads images (``companion dice``, ``scan-kingdom``, ``scan-tiles``, the board
readers' file entry points) and the app's image sources read files through :func:`load`, which

- reads regular files only (a FIFO, a device or a folder is refused without blocking);
- reads the picture's size from the file's header (PNG, JPEG, BMP, WebP, TIFF) and refuses one over
  the limit in ``image_limits.json`` (50 megapixels) *before* decoding, so memory follows the limit,
  not what a header claims (a decoded picture takes 3 bytes a pixel: 150 MB at the limit);
- refuses truncated files (a JPEG without its end marker after the picture data, a PNG without its
  last chunk, a BMP or WebP shorter than its header says);
- decodes straight to 8-bit BGR (16-bit, alpha, grey and CMYK pictures converted by the decoder).
"""

from __future__ import annotations

import json
import os
import struct
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from companion.storage import open_regular, plain_os_error, read_fd
from companion.vision.errors import ImageError

LIMITS = json.loads(resources.files("companion.vision").joinpath("image_limits.json").read_text(encoding="utf-8"))
MAX_PIXELS = int(LIMITS["max_megapixels"] * 1_000_000)
MAX_FILE_BYTES = int(LIMITS["max_file_megabytes"] * 2**20)
MIN_SIDE = int(LIMITS["min_side"])
MAX_SIDE = int(LIMITS["max_side"])  # larger images are downscaled before reading (boxes are reported in file pixels)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
FORMATS = "PNG, JPEG, BMP, WebP or TIFF"


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
    check_dimensions(w, h)
    scale = 1.0
    if max(h, w) > MAX_SIDE:
        scale = MAX_SIDE / max(h, w)
        img = cv2.resize(img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    return img, scale


def check_dimensions(width: int, height: int) -> None:
    """ImageError for a picture too small to read or too big to decode within the memory limit."""
    if width < MIN_SIDE or height < MIN_SIDE:
        raise ImageError(f"image too small ({width}x{height}); need at least {MIN_SIDE}x{MIN_SIDE} pixels")
    if width * height > MAX_PIXELS:
        raise ImageError(f"image too big: {width}x{height} is {width * height / 1e6:.0f} megapixels; "
                         f"the limit is {MAX_PIXELS / 1e6:g} (companion/vision/image_limits.json)")


# --- the picture's size from the file's header, and whether the file is whole ---------------------------


def header_size(data: bytes) -> tuple[str, int, int]:
    """(format, width, height) from the header; ImageError for an unknown format or a damaged header."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            return ("PNG", *_png_size(data))
        if data[:2] == b"\xff\xd8":
            return ("JPEG", *_jpeg_size(data))
        if data[:2] == b"BM":
            return ("BMP", *_bmp_size(data))
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return ("WebP", *_webp_size(data))
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return ("TIFF", *_tiff_size(data))
    except (struct.error, IndexError, ValueError):
        raise ImageError("damaged image header (cut off, or not what its first bytes say)") from None
    raise ImageError(f"not an image, or a damaged one (cannot decode; this program reads {FORMATS})")


def _png_size(data: bytes) -> tuple[int, int]:
    if data[12:16] != b"IHDR":
        raise ValueError("no IHDR")
    width, height = struct.unpack(">II", data[16:24])
    if b"IEND" not in data[-64:]:
        raise ImageError("truncated PNG (its last chunk, IEND, is missing)")
    return width, height


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int]:
    pos, size = 2, None
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise ValueError("not a marker")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
            size = (width, height)
        if marker == 0xDA:  # start of scan: the picture data follows, then the end marker
            if size is None:
                raise ValueError("no frame header")
            if data.rfind(b"\xff\xd9") < pos:
                raise ImageError("truncated JPEG (no end-of-image marker)")
            return size
        pos += 2 + length
    raise ImageError("truncated JPEG (it ends before its picture data)")


def _bmp_size(data: bytes) -> tuple[int, int]:
    (offset,) = struct.unpack("<I", data[10:14])
    (info,) = struct.unpack("<I", data[14:18])
    if info == 12:  # BITMAPCOREHEADER
        width, height, _, bits = struct.unpack("<HHHH", data[18:26])
        compression = 0
    else:
        width, height, _, bits, compression = struct.unpack("<iiHHI", data[18:34])
    height = abs(height)
    if width <= 0:
        raise ValueError("bad width")
    if compression in (0, 3) and bits in (1, 4, 8, 16, 24, 32):  # uncompressed: the pixel data's length is known
        stride = (width * bits + 31) // 32 * 4
        if width * height <= MAX_PIXELS and len(data) < offset + stride * height:
            raise ImageError("truncated BMP (shorter than its header says)")
    return width, height


def _webp_size(data: bytes) -> tuple[int, int]:
    (riff,) = struct.unpack("<I", data[4:8])
    if len(data) < riff + 8:
        raise ImageError("truncated WebP (shorter than its header says)")
    chunk = data[12:16]
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    raise ValueError("unknown WebP chunk")


def _tiff_size(data: bytes) -> tuple[int, int]:
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
    found: dict[int, int] = {}
    for i in range(min(count, 512)):
        entry = data[ifd + 2 + 12 * i: ifd + 14 + 12 * i]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in (256, 257):
            value = struct.unpack(order + ("H" if kind == 3 else "I"), entry[8:10] if kind == 3 else entry[8:12])[0]
            found[tag] = value
    if 256 not in found or 257 not in found:
        raise ValueError("no width or height")
    return found[256], found[257]


# --- decoding ---------------------------------------------------------------------------------------------


def decode(data: bytes, name: str = "image", fit: bool = True) -> tuple[np.ndarray, float]:
    """Bytes of an image file -> (BGR uint8 image, scale). Raises ImageError; never decodes a picture
    whose header says it is over the limit. ``fit``: downscale to MAX_SIDE (else the file's own size)."""
    if not data:
        raise ImageError("empty file")
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(f"file too big ({len(data) / 2**20:.0f} MB; the limit is {MAX_FILE_BYTES / 2**20:g} MB)")
    _, width, height = header_size(data)
    check_dimensions(width, height)
    buf = np.frombuffer(data, np.uint8)
    # 8-bit BGR straight from the decoder: 16-bit, alpha, grey and CMYK converted, and turned as the EXIF orientation
    # says: a phone held upright stores its picture on its side, and the dice reader takes a die's top for the top
    # of the picture (a leaning camera sees the upward face above the side faces)
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    except cv2.error as exc:
        raise ImageError(f"cannot decode {name}: {exc.msg if hasattr(exc, 'msg') else exc}") from exc
    if img is None:
        raise ImageError("not an image, or a damaged one (cannot decode)")
    img = to_bgr8(img)
    return check_size(img) if fit else (img, 1.0)


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file (never blocks on a FIFO or a device); ImageError saying why not."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except IsADirectoryError as exc:
        raise ImageError("is a folder") from exc
    except OSError as exc:
        raise ImageError(f"cannot read file: {plain_os_error(exc)}") from exc
    try:
        size = os.fstat(fd).st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(f"file too big ({size / 2**20:.0f} MB; the limit is {MAX_FILE_BYTES / 2**20:g} MB)")
        return read_fd(fd)
    except OSError as exc:
        raise ImageError(f"cannot read file: {plain_os_error(exc)}") from exc
    finally:
        os.close(fd)


def load(path: str | Path, fit: bool = True) -> tuple[np.ndarray, float]:
    """An image file -> (BGR uint8 image, scale applied to fit MAX_SIDE; 1 without ``fit``). Raises ImageError."""
    path = Path(path)
    return decode(read_bytes(path), path.name, fit)


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
