"""What a camera at the table adds to a rendered frame: shake, exposure, noise, a hand (motion and
camera-path tests)."""

import cv2
import numpy as np


def shaken(img, rng, shift_px=3.0, turn_deg=0.3):
    """The frame as a hand-held camera sees it a moment later: shifted and turned a little."""
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.normal(0, turn_deg), 1.0)
    m[:, 2] += rng.normal(0, shift_px, 2)
    return cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def exposed(img, rng, gain_spread=0.08):
    """Auto-exposure (a gain), sensor noise and JPEG compression."""
    out = img.astype(np.float32) * rng.uniform(1 - gain_spread, 1 + gain_spread) + rng.normal(0, 5, img.shape)
    _ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 70])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def with_hand(img, centre, colour, scale):
    """A flat palm with four fingers (about 100 px across at scale 1)."""
    out = img.copy()
    cx, cy = int(centre[0]), int(centre[1])
    cv2.ellipse(out, (cx, cy), (int(45 * scale), int(50 * scale)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    for k, length in enumerate((70, 80, 75, 60)):
        fx = int(cx + (-30 + 20 * k) * scale)
        fy = int(cy - (40 + length / 2) * scale)
        cv2.ellipse(out, (fx, fy), (int(8 * scale), int(length / 2 * scale)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    return out


SKINS = [(120, 160, 220), (80, 110, 160), (50, 70, 100), (170, 190, 230)]  # BGR, light to dark
