"""The pipeline's faster arithmetic gives the same result, to the bit, as the plain numpy it replaced (the live
table's speed target, issue 20: the readings must not change with it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.vision import motion, photometry, quality, table_changes
from companion.vision.readers import eagle_kingdoms, stands


@pytest.fixture
def pictures():
    rng = np.random.default_rng(7)
    base = rng.integers(0, 256, (90, 160, 3)).astype(np.uint8)
    dark = (base * 0.3).astype(np.uint8)  # dim pixels: the chromaticity's tolerance widens there
    return [base, dark, np.clip(base.astype(int) + rng.integers(-40, 40, base.shape), 0, 255).astype(np.uint8)]


def test_chroma_and_the_felt_mask_equal_their_plain_numpy_definitions(pictures):
    felt = np.array([40.0, 110.0, 60.0])
    for image in pictures:
        x = image.astype(np.float32) + 1.0
        assert np.array_equal(photometry.chroma(image), x / x.sum(axis=-1, keepdims=True))
        for tol, band in ((0.045, [0.25, 1.8]), (0.1, [0.15, 2.5])):
            d = np.linalg.norm(photometry.chroma(image) - photometry.chroma(felt)[None, None, :], axis=2)
            light = image.astype(np.float32).mean(axis=2) / 90.0
            limit = tol * np.sqrt(np.clip(1.0 / np.maximum(light, 1e-3), 1.0, 4.0))
            plain = ((d <= limit) & (light >= band[0]) & (light <= band[1])).astype(np.uint8) * 255
            fast = eagle_kingdoms._felt_mask(image, felt, 90.0, tol, band)
            assert np.array_equal(fast, plain) and 0 < (fast > 0).sum() < fast.size


def test_a_stack_of_card_crops_is_normalised_crop_by_crop(pictures):
    crops = np.stack([p[:26, :36, 0] for p in pictures] + [np.full((26, 36), 7, np.uint8)])
    together = stands.normalise(crops)
    for crop, out in zip(crops, together, strict=True):
        assert np.array_equal(out, stands.normalise(crop))
    assert together.shape == crops.shape and together.dtype == np.float32


def test_the_changed_places_are_the_plain_numpy_ones(pictures, monkeypatch):
    """The changed pixels, a channel at a time, as numpy's max over the channels said."""
    now, was = pictures[2], pictures[0]
    seen = {}
    real = table_changes.cv2.morphologyEx

    def spy(mask, *args, **kwargs):
        seen["mask"] = mask.copy()
        return real(mask, *args, **kwargs)

    monkeypatch.setattr(table_changes.cv2, "morphologyEx", spy)
    for local in (True, False):
        table_changes._changes(table_changes._over(table_changes._light_matched_diff(now, was, local_light=local), table_changes.CHANGE_LEVEL))
        if local:
            gain = table_changes.cv2.resize(table_changes.light_gain(now, was), (160, 90), interpolation=table_changes.cv2.INTER_CUBIC)
        else:
            gain = np.median((now.astype(np.float32) + 1) / (was.astype(np.float32) + 1), axis=(0, 1))
        plain = np.abs(now.astype(np.float32) - was.astype(np.float32) * gain).max(axis=2) > table_changes.CHANGE_LEVEL
        assert np.array_equal(seen["mask"], plain.astype(np.uint8)) and 0 < plain.sum() < plain.size


def _plain_light_gain(now, was):
    """light_gain as plain numpy medians of the float ratios (before the medians were taken of ranks)."""
    ratio = (now.astype(np.float32) + 1.0) / (was.astype(np.float32) + 1.0)
    whole = np.median(ratio.reshape(-1, 3), axis=0)
    h, w = ratio.shape[:2]
    rows, cols = max(2, round(8 * h / max(w, 1))), 8
    grid = np.empty((rows, cols, 3), np.float32)
    for r in range(rows):
        for c in range(cols):
            cell = ratio[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols]
            grid[r, c] = np.median(cell.reshape(-1, 3), axis=0) if cell.size else whole
    grid = np.clip(grid, whole / 2.5, whole * 2.5)
    return table_changes.cv2.GaussianBlur(grid, (3, 3), 0.8)


def test_the_light_and_the_exposure_are_the_plain_numpy_medians_of_the_ratios(pictures):
    """Medians of the ratios' ranks (a count, a radix sort) are numpy's medians of the float ratios, to the bit:
    odd and even pixel counts (the middle one; the mean of two), ties, the extreme ratios, cells that do not
    tile the picture, a picture smaller than the grid."""
    rng = np.random.default_rng(11)
    pairs = [(pictures[2], pictures[0]), (pictures[1], pictures[0]), (pictures[0], pictures[0])]
    for h, w in ((180, 320), (45, 80), (90, 161), (7, 13), (1, 1), (2, 2)):
        pairs.append((rng.integers(0, 256, (h, w, 3), dtype=np.uint8), rng.integers(0, 256, (h, w, 3), dtype=np.uint8)))
    flat = np.zeros((180, 320, 3), np.uint8)
    pairs += [(flat, flat + 255), (flat + 255, flat), (flat + 255, flat + 254)]
    for now, was in pairs:
        fast, plain = table_changes.light_gain(now, was), _plain_light_gain(now, was)
        assert fast.dtype == plain.dtype and fast.tobytes() == plain.tobytes(), now.shape
        whole = np.median(((now.astype(np.float32) + 1) / (was.astype(np.float32) + 1)).reshape(-1, 3), axis=0)
        exposure = table_changes.whole_ratio(now, was)
        assert exposure.dtype == whole.dtype and exposure.tobytes() == whole.tobytes(), now.shape
    grey = rng.integers(0, 256, (90, 160), dtype=np.uint8)  # not a colour picture: the plain medians
    assert table_changes._ratio_ranks(grey, grey) is None


def _plain_spread(prof, lo, hi, offs):
    """A profile's 25-75 % distance a profile at a time (before the sides' profiles were taken at once)."""
    out = []
    for level in (lo + 0.25 * (hi - lo), lo + 0.75 * (hi - lo)):
        above = np.flatnonzero(prof >= level)
        if not len(above) or above[0] == 0:
            return None
        j = above[0]
        a, b = prof[j - 1], prof[j]
        out.append(offs[j - 1] + (level - a) / max(b - a, 1e-6) * (offs[j] - offs[j - 1]))
    return float(out[1] - out[0])


def test_the_marker_edge_spreads_taken_at_once_are_each_profiles_own():
    """The four sides' profiles in one call give each profile's 25-75 % distance to the bit, and the same
    profiles none: a step already above its levels at the first sample, a profile never reaching the upper
    level, a side with too few steps, a flat step (its rise below the 1e-6 guard)."""
    rng = np.random.default_rng(2)
    offs = np.arange(-6.0, 6.0 + 1e-9, 0.25)
    steps = 30.0 + 160.0 / (1.0 + np.exp(-offs[None, :] / rng.uniform(0.3, 2.0, (24, 1))))
    profiles = (steps + rng.normal(0, 4, steps.shape)).astype(np.float32)
    profiles[0] = 200.0  # above both levels from the start
    profiles[1, :] = np.linspace(30, 60, len(offs))  # no step (too weak): left out
    profiles[7, 20:] = profiles[7, 19]  # flat after the rise: never reaches the upper level
    profiles[13] = np.where(offs < 0, 0.0, 1e-30).astype(np.float32) + np.where(offs > 1, 100.0, 0.0).astype(np.float32)
    profiles[19:24] = 30.0  # the last side: too few steps
    sides = profiles.reshape(4, 6, len(offs))
    directions = [np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([-1.0, 0.0]), np.array([0.0, -1.0])]
    plain = []
    q = max(2, len(offs) // 6)
    for prof, t in zip(sides, directions, strict=True):
        lo, hi = prof[:, :q].mean(axis=1), prof[:, -q:].mean(axis=1)
        ok = hi - lo >= 25.0
        w = [_plain_spread(p, a, b, offs) for p, a, b, good in zip(prof, lo, hi, ok, strict=True) if good]
        w = [v for v in w if v is not None]
        if ok.sum() >= 2 and w:
            plain.append((t, float(np.median(w))))
    fast = quality._side_widths(sides, directions, offs)
    assert [(t.tolist(), repr(w)) for t, w in fast] == [(t.tolist(), repr(w)) for t, w in plain]
    assert 2 <= len(fast) < 4
    lo, hi = profiles[:, :q].mean(axis=1), profiles[:, -q:].mean(axis=1)
    widths, found = quality._spreads(profiles, lo, hi, offs)
    for p, a, b, w, f in zip(profiles, lo, hi, widths, found, strict=True):
        one = _plain_spread(p, a, b, offs)
        assert (one is not None) == f and (one is None or repr(one) == repr(float(w)))
    assert not found.all() and found.sum() > 12


def _plain_exposure_matched(previous, current, level):
    """motion._exposure_matched as first written (the variance and the means taken again where used)."""
    fit = (previous > 4) & (previous < 251) & (current > 4) & (current < 251)
    gain, offset = 1.0, 0.0
    for _ in range(2):
        if fit.sum() < 50 or previous[fit].std() < 1:
            break
        x, y = previous[fit], current[fit]
        gain = float(np.mean((x - x.mean()) * (y - y.mean())) / x.var())
        offset = float(y.mean() - gain * x.mean())
        fit &= np.abs(current - (gain * previous + offset)) < level
    return np.clip(gain * previous + offset, 0, 255)


def test_the_exposure_match_is_its_plain_least_squares():
    """The camera's exposure fitted with each mean and the variance taken once: the same prediction to the bit,
    on a channel view (as the motion meter passes them) and its copy; a flat picture and one clipped all over
    (no fit: the previous picture as it is)."""
    rng = np.random.default_rng(4)
    cases = []
    for gain in (0.8, 1.0, 1.25):
        prev = rng.uniform(0, 255, (84, 154, 3)).astype(np.float32)
        now = np.clip(prev * gain + 6 + rng.normal(0, 3, prev.shape), 0, 255).astype(np.float32)
        now[10:40, 20:60] = 250.0  # a hand: no exposure
        cases += [(prev[..., 1], now[..., 1]), (np.ascontiguousarray(prev[..., 2]), np.ascontiguousarray(now[..., 2]))]
    flat = np.full((84, 154), 100.0, np.float32)
    cases += [(flat, flat + 20), (flat * 0 + 255, flat * 0)]
    for prev, now in cases:
        fast, plain = motion._exposure_matched(prev, now, 24.0), _plain_exposure_matched(prev, now, 24.0)
        assert fast.dtype == plain.dtype and fast.tobytes() == plain.tobytes()


def test_a_pieces_canonical_form_is_its_sorted_json_kept_or_not():
    """Pieces' JSON kept by their (key, class, value) items is the JSON they write: a stand 1 is not a stand True,
    a key True is not "true", floats (0.0 and -0.0 are equal) and nested values are written each time."""
    from companion.vision.readers import canonical

    def plain(pieces):
        return tuple(sorted(json.dumps(p, sort_keys=True) for p in (pieces or [])))

    pieces = [{"stand": 1}, {"stand": True}, {"stand": "1"}, {True: 1}, {1: 1}, {"a": 0.0}, {"a": -0.0}, {"a": None},
              {"b": 2, "a": [1, 2]}, {"b": "x", "a": "y"}, {"a": "y", "b": "x"}, {"magpie": "red"}, "a string", 3]
    for _ in range(2):  # the second time from what was kept
        for p in pieces:
            assert canonical([p]) == plain([p]), p
        assert canonical(pieces[:5] + pieces[9:]) == plain(pieces[:5] + pieces[9:])
    assert canonical(None) == canonical([]) == ()
