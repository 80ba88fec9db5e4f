"""Is something moving over the table? Frame-to-frame change, with the camera's own shake taken out.

A roll must not settle while a hand is over the dice (tracker.SettleTracker's ``hand``). A hand (or an
arm, a sleeve, the cat) is told by what it does: it moves. Each frame is shrunk to a small image. The
camera's own shake (a phone held in the hand shifts and turns a little between frames) is measured on a
grid of tiles, each tile's shift found by phase correlation, and a shift, turn and zoom fitted to them
with RANSAC, so that a hand moving across a few tiles does not pass for camera shake. The previous frame is
moved by it, a change of overall brightness and contrast is taken out (a camera's auto-exposure), and the
share of pixels whose colour changed by more than ``level`` is the frame's motion. The view is moving when
that share is above ``moving_above`` (1%: on a 1280x720 frame a patch of about 96x96 pixels).

    meter = MotionMeter()
    for frame in frames:
        moving = meter.moving(frame)   # False for the first frame
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.imageio import shrink, to_bgr8

DEFAULTS = {"width": 160, "level": 24.0, "moving_above": 0.01}
TILES = (4, 3)  # columns, rows of the grid the camera's shake is measured on
MIN_RESPONSE = 0.15  # a tile whose phase-correlation peak is weaker (plain cloth) says nothing about shake


def _exposure_matched(previous: np.ndarray, current: np.ndarray, level: float) -> np.ndarray:
    """``previous`` (one channel) as ``current``'s exposure would show it: auto-exposure scales and shifts
    every pixel alike, so fit current ~ gain * previous + offset on the pixels clipped in neither frame,
    refit on those that fit (a moving hand is not exposure), and clip the prediction as the sensor does."""
    fit = (previous > 4) & (previous < 251) & (current > 4) & (current < 251)
    gain, offset = 1.0, 0.0
    for _ in range(2):
        if np.count_nonzero(fit) < 50:
            break
        x = previous[fit]
        x_var = x.var()
        if np.sqrt(x_var) < 1:  # x.std(), without taking the variance twice
            break
        y = current[fit]
        x_mean, y_mean = x.mean(), y.mean()
        gain = float(np.mean((x - x_mean) * (y - y_mean)) / x_var)  # least squares, closed form
        offset = float(y_mean - gain * x_mean)
        fit &= np.abs(current - (gain * previous + offset)) < level
    return np.clip(gain * previous + offset, 0, 255)


def camera_shake(previous: np.ndarray, current: np.ndarray) -> np.ndarray:
    """2x3 shift, turn and zoom taking ``previous`` (grey float32) onto ``current``; identity when the view has
    too little texture to tell (a plain table shows no shake either)."""
    h, w = current.shape
    cols, rows = TILES
    tw, th = w // cols, h // rows
    window = cv2.createHanningWindow((tw, th), cv2.CV_32F)
    src, dst = [], []
    for r in range(rows):
        for c in range(cols):
            a = previous[r * th:(r + 1) * th, c * tw:(c + 1) * tw]
            b = current[r * th:(r + 1) * th, c * tw:(c + 1) * tw]
            if a.std() < 2:
                continue
            # copies: phaseCorrelate applies the window to its inputs in place
            (dx, dy), response = cv2.phaseCorrelate(a.copy(), b.copy(), window)
            if response >= MIN_RESPONSE:
                centre = ((c + 0.5) * tw, (r + 0.5) * th)
                src.append(centre)
                dst.append((centre[0] + dx, centre[1] + dy))
    identity = np.float32([[1, 0, 0], [0, 1, 0]])
    if len(src) < 3:
        return identity
    warp, inliers = cv2.estimateAffinePartial2D(np.float32(src), np.float32(dst), method=cv2.RANSAC,
                                                ransacReprojThreshold=0.75)
    if warp is None or inliers is None or int(inliers.sum()) < max(3, len(src) // 2):
        return identity  # no shake agreed on by most of the view: do not take any out
    return warp.astype(np.float32)


class MotionMeter:
    def __init__(self, width: int = DEFAULTS["width"], level: float = DEFAULTS["level"],
                 moving_above: float = DEFAULTS["moving_above"]):
        self.width = int(width)
        self.level = float(level)
        self.moving_above = float(moving_above)
        self._previous: np.ndarray | None = None
        self.last_share = 0.0

    def reset(self) -> None:
        self._previous = None
        self.last_share = 0.0

    def _small(self, frame: np.ndarray) -> np.ndarray:
        img = to_bgr8(frame)
        small = shrink(img, self.width / max(1, img.shape[1])).astype(np.float32)
        return cv2.GaussianBlur(small, (5, 5), 0)  # sensor noise is not motion

    def changed_share(self, frame: np.ndarray) -> float:
        """Share of the view that changed since the previous frame (0 for the first, or after a change of size)."""
        current = self._small(frame)
        previous, self._previous = self._previous, current
        if previous is None or previous.shape != current.shape:
            self.last_share = 0.0
            return 0.0
        h, w = current.shape[:2]
        warp = camera_shake(cv2.cvtColor(previous, cv2.COLOR_BGR2GRAY), cv2.cvtColor(current, cv2.COLOR_BGR2GRAY))
        aligned = cv2.warpAffine(previous, warp, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # the border the shake brought in is not seen in both frames
        margin = int(np.ceil(np.abs(warp[:, 2]).max() + abs(float(warp[0, 1])) * max(h, w))) + 2
        if min(h, w) > 2 * margin + 4:
            current, aligned = current[margin:-margin, margin:-margin], aligned[margin:-margin, margin:-margin]
        # a pixel changed when its colour (not only its brightness: skin on a table of like grey) is outside
        # the range its previous 3x3 neighbourhood spans: a fit of the shake to a fraction of a pixel is
        # not a change at a sharp printed edge
        kernel = np.ones((3, 3), np.uint8)
        changed = np.zeros(current.shape[:2], bool)
        for ch in range(3):
            # a channel copied out first: its masks and selections read a third of the memory
            now, was = np.ascontiguousarray(current[..., ch]), np.ascontiguousarray(aligned[..., ch])
            expected = _exposure_matched(was, now, self.level)
            changed |= (now > cv2.dilate(expected, kernel) + self.level) | (now < cv2.erode(expected, kernel) - self.level)
        self.last_share = float(np.mean(changed))
        return self.last_share

    def moving(self, frame: np.ndarray) -> bool:
        return self.changed_share(frame) > self.moving_above
