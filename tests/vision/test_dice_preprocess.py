"""Run-time preprocessing of the dice stages: the fast paths must give what training saw."""

import cv2
import numpy as np
import pytest

from companion.vision import classify, imageio


def _crop_by_padding_the_frame(img, box, size=48, crop_scale=1.3):
    # the reference: replicate-pad the whole frame, then cut and resize the straightforward way
    x, y, w, h = box
    side = max(4.0, crop_scale * max(w, h))
    x0, y0 = int(round(x + w / 2 - side / 2)), int(round(y + h / 2 - side / 2))
    s = int(round(side))
    pad = max(0, -x0, -y0, x0 + s - img.shape[1], y0 + s - img.shape[0])
    big = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    patch = big[y0 + pad:y0 + pad + s, x0 + pad:x0 + pad + s]
    return imageio.shrink(patch, size / s) if s > size else cv2.resize(patch, (size, size))


def test_crop_matches_padding_the_whole_frame():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (90, 120, 3), dtype=np.uint8)
    for _ in range(400):  # inside, across an edge or a corner, and wholly outside the frame
        box = (rng.uniform(-150, 200), rng.uniform(-150, 170), rng.uniform(1, 120), rng.uniform(1, 120))
        np.testing.assert_array_equal(classify.crop(img, box), _crop_by_padding_the_frame(img, box))


@pytest.mark.parametrize("side", [49, 60, 75, 95, 96, 117, 150, 300])
def test_crop_is_close_to_area_averaging(side):
    # crops are shrunk by imageio.shrink, not INTER_AREA (5x slower at these factors): the pixels the
    # classifier sees must stay within a grey level or two of what area averaging gives
    rng = np.random.default_rng(side)
    img = cv2.GaussianBlur(rng.integers(0, 256, (400, 400, 3), dtype=np.uint8), (0, 0), 3)
    box = (200 - side / 2.6, 200 - side / 2.6, side / 1.3, side / 1.3)
    got = classify.crop(img, box).astype(np.float32)
    x0 = int(round(200 - side / 2))
    s = int(round(side))
    want = cv2.resize(img[x0:x0 + s, x0:x0 + s], (48, 48), interpolation=cv2.INTER_AREA)
    assert np.abs(got - want).mean() < 2.0


@pytest.mark.parametrize("h,w", [(640, 640), (720, 1280), (480, 640), (1080, 1920), (100, 3000)])
def test_shrink_is_close_to_area_averaging_and_keeps_geometry(h, w):
    rng = np.random.default_rng(1)
    img = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (0, 0), 3)
    scale = 416 / max(h, w)
    ref = cv2.resize(img, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    out = imageio.shrink(img, scale)
    assert out.shape == ref.shape
    assert np.abs(out.astype(np.float32) - ref).mean() < 2.0
    # a bright square lands where the scale puts it (no shift from the two-step resize)
    img = np.zeros((h, w, 3), np.uint8)
    cx, cy = int(w * 0.7), int(h * 0.4)
    img[cy - 12:cy + 12, cx - 12:cx + 12] = 255
    g = imageio.shrink(img, scale)[..., 0].astype(np.float64)
    ys, xs = np.mgrid[0:g.shape[0], 0:g.shape[1]]
    got = ((xs * g).sum() / g.sum(), (ys * g).sum() / g.sum())
    want = ((cx - 0.5 + 0.5) * scale - 0.5, (cy - 0.5 + 0.5) * scale - 0.5)
    assert abs(got[0] - want[0]) < 0.08 and abs(got[1] - want[1]) < 0.08, (got, want)
