"""What changed on the table since the frame before a throw: where a thrown die may lie, where a hand
passed, and the dice reader's finds at those places only.

The dice reader finds dice in a whole 1280x720 frame shrunk to its detector's input, where a 16 mm die on
a board in full view is a few pixels wide; and with the board in view it also finds the pieces. A die
thrown onto the table is a small change of the picture that no hand made: :class:`DiceWindows` reads the
dice in windows a few dice wide around such changes (the detector sees them enlarged; no piece that
stood still is in them), and :func:`hand_changes` says what a hand (anything larger than a die) changed,
so that a piece put down by hand is not taken for a die (:func:`slow_hand_changes` for a hand moving slowly,
:func:`reaches_the_edge` for one held still: an arm still in view). The light is matched first (:func:`light_gain`):
a lamp, a shadow or the camera's exposure changes the whole picture slowly, a die does not. Knows no
games (``companion.referee.table`` decides what the dice mean).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from companion.vision.classify import crop
from companion.vision.face_colour import confirm_colour_faces
from companion.vision.registry import Relight

CHANGE_LEVEL = 28.0  # grey levels a pixel of a thrown die differs by, once the light is matched
CHANGE_GROW_LEVEL = 14.0  # grey levels a pixel next to a surely changed one may differ by and still be the die's: a pale
# die on a dark table in dim light changes by more than CHANGE_LEVEL only between its pips, in pieces too small to keep
HAND_LEVEL = CHANGE_GROW_LEVEL  # grey levels a slow or resting arm changes a quarter-size pixel by (all of it: it is
# large, where a die's change is kept only with a core of CHANGE_LEVEL)
CHANGE_CORE_PX = 2  # quarter-size pixels changed by CHANGE_LEVEL a place needs, grown or not (noise grows nothing)
CHANGED_MIN = 0.25  # share of a find's middle that must have changed
DIE_MM = 16.0  # a die's side: the dice are sought in windows a few dice wide around what changed
MAX_WINDOWS = 6
DiePxAt = Callable[[float, float], float]
"""A die's side in frame px where it lies at (x, y): an oblique camera sees the near table large, the far small."""
MISSED_DIE_BOX = 1.9  # the box read where a die-sized change has no find: a die's side times this (the detector's
# boxes are 1.24-1.94 times the die; the middle of what changed is seldom the die's own)
# a die the detector missed, read unsure, counts (marked unsure) when its face is this likely: on the bench's films every
# missed die of a pair read 0.54-1.0, every other changed place (a moved piece, a light's edge) 0.03 or less
MISSED_UNSURE_MIN = 0.5
NO_DIE_BELOW = 0.2  # a find read unsure with its face this unlikely: the reader saw no die there (not even an Enchanted Die)
PIP_FIND = 0.5  # a find under a die's side times this is a pip the detector took for a die (a 4 read as three "1"s,
# each unsure, beside the die's own find: "3 dice seen" where two were thrown); the place is read as a missed die instead
# a find under a die's side (above PIP_FIND) is part of a die (two of a 4's pips read surely as a 2) or a speck of the
# board read as a 1: its face is read again on a box this many dice wide round it, the middle of the detector's boxes
# (1.24-1.94 dice). On the bench's films each such find of a die read its true face surely so (0.97-0.999), each speck
# 0.52 or less
WHOLE_DIE_BOX = 1.5
# a find up to this many dice wide is read on that box too, as a check: where the two faces differ, the find is unsure
# (bench table, Eagle Kingdoms seed 5 r2, action 341: a 4 at the picture's edge boxed 1.01 dice wide read surely as 2;
# on the 1.5 box it read 4 at 0.986) or read it unsure (seed 0 r2, action 386: a die printed on a piece, in a place the
# light had changed, read surely as a 4 -- 3+6 confirmed as 3+4; 0.65 so). On three films' first 150 actions, each of 89
# die-sized finds of a die read surely (boxed 1.0-1.4 dice wide) read the same face on the 1.5 box, 86 of them surely.
# A die turned by 45 degrees is boxed 1.41 dice wide, so the check goes that far (seed 8 r2, action 365: a 4 so turned,
# boxed 1.30 dice wide, read surely as 2 -- 4+6 confirmed as 2+6; the 1.5 box read 4). Of the 48 finds boxed 1.25-1.45
# dice wide among the 89, one more is made unsure so
WHOLE_DIE_CHECK = 1.45
SMALL_DIE_PX = 12.0  # a die's side in frame px under which its pips are about 2 px across: the reader's calibration
SMALL_DIE_SURE = 0.98  # (on photos of larger dice) does not hold, and such a die is sure only from this confidence
LIGHT_SPREAD_Q = 12.0  # quarter-size px (about three dice): the light next to a patch is measured this wide
EDGE_Q = 2  # quarter-size px: the picture's edge, where an arm reaching in crosses it
EDGE_ARM_DICE = 3  # dice along the picture's edge an arm covers at least (a die thrown to the edge covers one)
CLIPPED = 245.0  # a channel this bright may be clipped by the sensor: its change tells nothing of the light
EDGE_LIGHT_DICE = 16  # dice along the picture's edge over which the light is matched (an arm is a few dice wide)
UNEVEN_LIGHT = 1.25  # a part of the picture lit this much more or less than the whole, against before: a shadow
LIGHT_PATCH_Q = 8  # quarter-size px: the patches whose look a change of light keeps (a die or two wide)
LIGHT_FIT_LEVEL = 8.0  # grey levels (mean over a patch) a patch may differ from its light's fit and be only lit
LIGHT_MIN_PATCHES = 8  # patches changed, at least, for a few of them to be a shadow's edge
LIGHT_OTHER_SHARE = 0.25  # of those, at most this share may change their look


def light_gain(now_small: np.ndarray, was_small: np.ndarray) -> np.ndarray:
    """How the light changed between two pictures (the same size), per channel, on a coarse grid (cells an
    eighth of the picture wide): each cell's median ratio, so an object covering less than half a cell
    (a die, a piece, a card) is not taken for light, while a lamp, a shadow's soft edge or the camera's
    exposure is. Smoothed; within a factor of 2.5 of the whole picture's ratio."""
    h, w = now_small.shape[:2]
    cols, rows = 8, max(2, round(8 * h / max(w, 1)))
    ranks = _ratio_ranks(now_small, was_small)
    whole = whole_ratio(now_small, was_small, ranks)
    if ranks is not None and h % rows == 0 and w % cols == 0:
        cells = ranks.reshape(rows, h // rows, cols, w // cols, 3).transpose(0, 2, 4, 1, 3).reshape(rows * cols * 3, -1)
        grid = _median_ratios(cells).reshape(rows, cols, 3)
    else:  # not two 8-bit colour pictures, or cells that do not tile the picture: each cell's median of the ratios
        ratio = (now_small.astype(np.float32) + 1.0) / (was_small.astype(np.float32) + 1.0)
        grid = _cell_medians(ratio, rows, cols, whole)
    grid = np.clip(grid, whole / 2.5, whole * 2.5)
    return cv2.GaussianBlur(grid, (3, 3), 0.8)


def light_unevenness(now_small: np.ndarray, was_small: np.ndarray) -> float:
    """How much more the light changed in some part of the picture than in the whole (a shadow came or went, a
    lamp's pool moved; the camera's exposure changes the whole alike): the largest factor between a cell's
    :func:`light_gain` and the whole picture's ratio, over the channels' mean."""
    grid, whole = light_gain(now_small, was_small), whole_ratio(now_small, was_small)
    rel = np.log(np.maximum(grid, 1e-3) / np.maximum(whole, 1e-3)).mean(axis=2)
    return float(np.exp(np.abs(rel).max()))


def uneven_light(now_small: np.ndarray, was_small: np.ndarray) -> bool:
    """Whether the light changed unevenly between two quarter-size pictures (:func:`light_unevenness`)."""
    return light_unevenness(now_small, was_small) > UNEVEN_LIGHT


def whole_ratio(now_small: np.ndarray, was_small: np.ndarray, ranks: np.ndarray | None = None) -> np.ndarray:
    """The whole picture's median ratio per channel (float32), as :func:`light_gain` measures it (``ranks``:
    the pictures' :func:`_ratio_ranks`, when already made)."""
    ranks = _ratio_ranks(now_small, was_small) if ranks is None else ranks
    if ranks is not None:
        return _whole_median_ratios(ranks)
    return np.median(((now_small.astype(np.float32) + 1) / (was_small.astype(np.float32) + 1)).reshape(-1, 3), axis=0)


_RATIOS: tuple[np.ndarray, np.ndarray] | None = None


def _ratio_table() -> tuple[np.ndarray, np.ndarray]:
    """(the distinct float32 ratios (now + 1) / (was + 1) of two 8-bit levels, ascending; each level pair's
    (now * 256 + was) rank among them, uint16). Made once."""
    global _RATIOS
    if _RATIOS is None:
        levels = np.arange(256, dtype=np.float32) + 1.0
        values, rank = np.unique((levels[:, None] / levels[None, :]).reshape(-1), return_inverse=True)
        _RATIOS = values.astype(np.float32), rank.reshape(-1).astype(np.uint16)
    return _RATIOS


def _ratio_ranks(now: np.ndarray, was: np.ndarray) -> np.ndarray | None:
    """Each pixel's ratio (now + 1) / (was + 1) as its rank among the distinct ratios (uint16), for two 8-bit
    colour pictures of one size; None for any other. Medians of ranks are the ratios' medians (ranks keep
    the order), and ranks sort by radix, where the float ratios took numpy's partition, several times slower."""
    if now.dtype != np.uint8 or was.dtype != np.uint8 or now.shape != was.shape or now.ndim != 3 or not now.size:
        return None
    return np.take(_ratio_table()[1], (now.astype(np.uint16) << 8) | was)


def _median_ratios(ranks: np.ndarray) -> np.ndarray:
    """The median ratio of each row of ranks (:func:`_ratio_ranks`), float32: exactly ``np.median`` of the
    ratios (the middle one, or the mean of the two middle ones, as numpy takes it)."""
    ordered = np.sort(ranks, axis=1, kind="stable")  # radix sort for 16-bit ranks
    n = ordered.shape[1]
    return _middle(ordered[:, (n - 1) // 2:n // 2 + 1], n)


def _whole_median_ratios(ranks: np.ndarray) -> np.ndarray:
    """The median ratio of each channel of a picture of ranks (:func:`_ratio_ranks`), float32, from a count of
    each channel's ranks (for a whole picture, faster than sorting it)."""
    distinct = len(_ratio_table()[0])
    flat = ranks.reshape(-1, 3)
    n = flat.shape[0]
    middle = []
    for ch in range(3):
        below = np.cumsum(np.bincount(flat[:, ch], minlength=distinct))  # the k-th smallest: the first rank with more than k below
        middle.append(np.searchsorted(below, np.arange((n - 1) // 2, n // 2 + 1), side="right"))
    return _middle(np.array(middle), n)


def _middle(middle_ranks: np.ndarray, n: int) -> np.ndarray:
    """The median ratios from each row's middle rank (``n`` odd) or two middle ranks (``n`` even)."""
    values = _ratio_table()[0][middle_ranks]
    return values[:, 0] if n % 2 else np.mean(values, axis=1)


def _cell_medians(ratio: np.ndarray, rows: int, cols: int, whole: np.ndarray) -> np.ndarray:
    """Each cell's median ratio per channel (an empty cell: ``whole``)."""
    h, w = ratio.shape[:2]
    grid = np.empty((rows, cols, 3), np.float32)
    for r in range(rows):
        for c in range(cols):
            cell = ratio[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols]
            grid[r, c] = np.median(cell.reshape(-1, 3), axis=0) if cell.size else whole
    return grid


def in_light_of(frame: np.ndarray, reference: np.ndarray, pasted: np.ndarray | None = None) -> np.ndarray:
    """``frame`` brought to the light of ``reference`` (the same size) around ``pasted`` (a mask of the parts
    to be pasted into ``reference``, any size): parts of a later picture pasted into an earlier one must not
    bring their light along (a lamp's pool moved, the exposure changed), or the patch reads as a change.
    The light is the ratio of the two pictures next to the patch, smoothed over a few dice (a lamp's pool is
    wider); deep inside a large patch, the picture-wide cells of :func:`light_gain`."""
    now_q, was_q = quarter(frame), quarter(reference)
    size_q = (now_q.shape[1], now_q.shape[0])
    gain_q = cv2.resize(light_gain(now_q, was_q), size_q, interpolation=cv2.INTER_CUBIC)
    if pasted is not None:
        keep = cv2.resize(pasted.astype(np.uint8), size_q, interpolation=cv2.INTER_NEAREST) == 0
        ratio = (now_q.astype(np.float32) + 1.0) / (was_q.astype(np.float32) + 1.0)
        weight = cv2.GaussianBlur(keep.astype(np.float32), (0, 0), LIGHT_SPREAD_Q)
        near = cv2.GaussianBlur(ratio * keep[..., None], (0, 0), LIGHT_SPREAD_Q) / np.maximum(weight, 1e-6)[..., None]
        trust = np.clip(weight / 0.2, 0.0, 1.0)[..., None]  # little of the old picture near: the cells' light
        gain_q = trust * near + (1.0 - trust) * gain_q
    gain = cv2.resize(gain_q, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_LINEAR)
    return np.clip(frame.astype(np.float32) / np.maximum(gain, 1e-3), 0, 255).astype(np.uint8)


def quarter(frame: np.ndarray) -> np.ndarray:
    return cv2.resize(frame, (frame.shape[1] // 4, frame.shape[0] // 4), interpolation=cv2.INTER_AREA)


def _light_matched_diff(now_q: np.ndarray, was_q: np.ndarray, local_light: bool = True) -> np.ndarray:
    """|now - was| per pixel and channel (float32), the light matched (``local_light``: region by region,
    :func:`light_gain`; else only the whole picture's exposure)."""
    if local_light:
        gain = cv2.resize(light_gain(now_q, was_q), (now_q.shape[1], now_q.shape[0]), interpolation=cv2.INTER_CUBIC)
    else:
        gain = whole_ratio(now_q, was_q)
    return np.abs(now_q.astype(np.float32) - was_q.astype(np.float32) * gain)


def _changes(strong: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Connected places of ``strong`` (the pixels changed by :data:`CHANGE_LEVEL`, :func:`_over`): (count, stats,
    centres, labels) as ``cv2.connectedComponentsWithStats`` gives them (label 0 is the unchanged rest)."""
    changed = cv2.morphologyEx(strong, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    count, labels, stats, centres = cv2.connectedComponentsWithStats(changed)
    return count, stats, centres, labels


def _grown_changes(diff: np.ndarray, strong: np.ndarray, grow: float) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """As :func:`_changes`, each place changed by :data:`CHANGE_LEVEL` taking in what changed by
    :data:`CHANGE_GROW_LEVEL` up to ``grow`` quarter px (a die's side) from it, so that a die whose change is
    split by its pips is one place; places with fewer than :data:`CHANGE_CORE_PX` such pixels (``strong``) are left
    out."""
    reach = 2 * int(np.ceil(grow)) + 1
    near = cv2.dilate(strong, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    changed = cv2.dilate(_over(diff, CHANGE_GROW_LEVEL) & near, np.ones((3, 3), np.uint8))
    count, labels, stats, centres = cv2.connectedComponentsWithStats(changed)
    cores = np.bincount(labels[strong > 0], minlength=count)
    keep = np.flatnonzero(cores[1:] >= CHANGE_CORE_PX) + 1
    relabel = np.zeros(count, np.int32)
    relabel[keep] = np.arange(1, len(keep) + 1)
    return len(keep) + 1, np.vstack([stats[:1], stats[keep]]), np.vstack([centres[:1], centres[keep]]), relabel[labels]


def _over(diff: np.ndarray, level: float) -> np.ndarray:
    """uint8 mask (0/1) of the pixels where any channel of ``diff`` exceeds ``level``."""
    # a channel at a time: numpy's max over an axis of three costs ten times these comparisons
    return ((diff[..., 0] > level) | (diff[..., 1] > level) | (diff[..., 2] > level)).astype(np.uint8)


def frame_diff(now_q: np.ndarray, was_q: np.ndarray) -> np.ndarray:
    """|now - was| of two consecutive frames' quarters, only the camera's exposure matched (:func:`hand_changes`,
    :func:`slow_hand_changes`: made once per frame for both)."""
    return _light_matched_diff(now_q, was_q, local_light=False)


def hand_changes(now_q: np.ndarray, was_q: np.ndarray, die_px: float, level: float = CHANGE_LEVEL,
                 diff: np.ndarray | None = None, die_px_at: DiePxAt | None = None) -> np.ndarray:
    """Mask (uint8, quarter size) of what changed between two pictures in something larger than a die (a
    hand, an arm, a shadow) and of the smaller changes close to it (a piece the hand put down), empty when
    nothing larger than a die changed. For consecutive frames: only the camera's exposure is matched (the
    light does not change from one frame to the next; a hand is not light). ``level``: the grey levels a pixel
    must change by; ``diff``: :func:`frame_diff` of the two, when the caller made it already; ``die_px_at``: a
    die's side where it lies -- a die tumbling near the camera is larger than the board's middle shows one, and its
    change from frame to frame no hand."""
    diff = frame_diff(now_q, was_q) if diff is None else diff
    count, stats, centres, labels = _changes(_over(diff, level))
    side = die_px / 4

    def larger_than_dice(i: int) -> bool:
        extent = max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT])
        if extent <= 3.5 * side + 2:
            return False
        near = local_die_px(die_px, die_px_at, *(centres[i] * 4)) / 4  # the die's size there, if larger
        return bool(extent > 3.5 * max(side, near) + 2)

    big = [i for i in range(1, count) if larger_than_dice(i)]
    if not big:
        return np.zeros(labels.shape, np.uint8)
    reach = int(max(3, 4 * side)) * 2 + 1  # four dice around the hand
    near = cv2.dilate(np.isin(labels, big).astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    return ((labels > 0) & (near > 0)).astype(np.uint8)


def slow_hand_changes(now_q: np.ndarray, last_q: np.ndarray, back_q: np.ndarray, die_px: float,
                      last_diff: np.ndarray | None = None, die_px_at: DiePxAt | None = None) -> np.ndarray:
    """:func:`hand_changes` against a frame a few back (``back_q``), kept only where the picture still changes
    from the last frame (``last_q``): a hand moving slowly along its own arm changes, from one frame to the next,
    only a fingertip's width at its ends and a rim of its palm, nothing larger than a die; against a frame a few
    back it changes a hand's length. A view that has come to rest is no hand moving, whatever it was a few frames
    back. Seen by :data:`HAND_LEVEL`: a slow hand is no blur, and a dark hand on a dark board in dim light
    changes most of its pixels by less than a die's. ``last_diff``: :func:`frame_diff` of now and last, when made
    already."""
    changing = _over(frame_diff(now_q, last_q) if last_diff is None else last_diff, HAND_LEVEL)
    if not changing.any():  # the common case, a still view: no second comparison
        return changing
    hand = hand_changes(now_q, back_q, die_px, HAND_LEVEL, die_px_at=die_px_at)
    return hand if (changing & hand).any() else np.zeros_like(hand)


def only_light_changed(now_q: np.ndarray, was_q: np.ndarray) -> bool:
    """Whether all that changed between two pictures (quarter size) is the light: a lamp, a cloud, a shadow cast over
    the table. Once the camera's exposure and white balance are matched (the whole picture's ratio per colour), light
    scales what lies under it by a factor alike in every colour and smooth across a patch (a shadow's edge too): each
    patch that changed is fitted so, and one the fit leaves off by :data:`LIGHT_FIT_LEVEL` (a hand's skin, an arm's
    edge, a sleeve over printed art) changed more than its light. A soft shadow's edge may leave a few such patches
    among many (:data:`LIGHT_OTHER_SHARE`). Measured on the films' changes of light and hands coming in
    (docs/vision-notes.md, session 40)."""
    if now_q.shape != was_q.shape or now_q.ndim != 3 or min(now_q.shape[:2]) < LIGHT_PATCH_Q:
        return False
    now, was, seen = _changed_patches(now_q, was_q)
    if not len(now):
        return True
    other = int(np.count_nonzero(_light_misfit(now, was, seen) > LIGHT_FIT_LEVEL))
    return other == 0 or (len(now) >= LIGHT_MIN_PATCHES and other <= LIGHT_OTHER_SHARE * len(now))


def _changed_patches(now_q: np.ndarray, was_q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The :data:`LIGHT_PATCH_Q`-pixel patches (n x pixels x 3, float32) of ``now_q`` and of ``was_q`` in its exposure
    that changed by :data:`HAND_LEVEL`, with the colours seen unclipped in both (1) or not (0)."""
    p = LIGHT_PATCH_Q
    h, w = now_q.shape[0] - now_q.shape[0] % p, now_q.shape[1] - now_q.shape[1] % p

    def patches(img: np.ndarray) -> np.ndarray:
        c = img.shape[2] if img.ndim == 3 else 1
        return img.reshape(h // p, p, w // p, p, c).transpose(0, 2, 1, 3, 4).reshape(-1, p * p, c)

    now = now_q[:h, :w].astype(np.float32)
    was = was_q[:h, :w].astype(np.float32) * whole_ratio(now_q, was_q)
    # a clipped colour (the red of a pale board or of skin under a warm lamp) is no measure of the light
    seen = ((now_q[:h, :w] < CLIPPED) & (was_q[:h, :w] < CLIPPED)).astype(np.float32)
    moved = patches(_over(cv2.absdiff(now, was) * seen, HAND_LEVEL).astype(np.float32))[..., 0].mean(axis=1)
    seen_patches = patches(seen)
    changed = (moved > 0.1) & (seen_patches.mean(axis=(1, 2)) > 0.25)
    return patches(now)[changed], patches(was)[changed], seen_patches[changed]


def _light_misfit(now: np.ndarray, was: np.ndarray, seen: np.ndarray, p: int = LIGHT_PATCH_Q) -> np.ndarray:
    """Per patch (``p`` pixels square), the mean grey levels by which ``now`` differs from ``was`` lit by the best plane
    of gain (one for every colour: least squares over the colours ``seen``)."""
    ys, xs = np.mgrid[0:p, 0:p].reshape(2, -1).astype(np.float32) / p - 0.5
    design = np.stack([was, was * xs[None, :, None], was * ys[None, :, None]], axis=-1) * seen[..., None]
    design = design.reshape(len(now), -1, 3).astype(np.float64)
    target = (now * seen).reshape(len(now), -1).astype(np.float64)
    normal = design.transpose(0, 2, 1) @ design
    normal += np.eye(3) * (1e-6 * np.trace(normal, axis1=1, axis2=2) + 1e-6)[:, None, None]
    gain = np.linalg.solve(normal, design.transpose(0, 2, 1) @ target[..., None])
    return np.abs((design @ gain)[..., 0] - target).sum(axis=1) / np.maximum(seen.sum(axis=(1, 2)), 1)


def reaches_the_edge(now_q: np.ndarray, was_q: np.ndarray, die_px: float) -> bool:
    """Whether something at least :data:`EDGE_ARM_DICE` dice wide differs from the table before it (``was_q``) at
    the picture's edge: an arm still in view -- held still, or moving slowly along itself, when nothing larger than a
    die changes from one frame to the next. An arm comes in over the edge of the picture, and one that has gone
    leaves the edge as it was; a die thrown to the edge is narrower. The light is matched along the edge, a stretch
    of :data:`EDGE_LIGHT_DICE` dice at a time: a lamp or a shadow's soft edge changes the edge slowly along it, an
    arm across it (a lamp's own ramp across the picture left a dice-wide residue at the board's white rim under a
    warm lamp, clipped: such channels are left out -- the channel only, not the pixel: a pale arm in warm light
    clips its red, and its green and blue still tell it from the table)."""
    now, was = _around_the_edge(now_q), _around_the_edge(was_q)
    ratio = np.log((now + 1.0) / (was + 1.0))
    half = max(2, int(EDGE_LIGHT_DICE * die_px / 8))
    padded = np.concatenate([ratio[-half:], ratio, ratio[:half]])  # the edge goes round
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * half + 1, axis=0)
    light = np.median(windows, axis=-1)
    off = (np.abs(now - was * np.exp(light)) > HAND_LEVEL) & (now < CLIPPED) & (was < CLIPPED)
    return int(np.count_nonzero(off.any(axis=1))) >= EDGE_ARM_DICE * die_px / 4


def _around_the_edge(picture: np.ndarray) -> np.ndarray:
    """The picture's outermost :data:`EDGE_Q` pixels, averaged across, once round (float32, n x 3)."""
    p = picture.astype(np.float32)
    q = EDGE_Q
    top, bottom = p[:q].mean(axis=0), p[-q:].mean(axis=0)[::-1]
    right, left = p[:, -q:].mean(axis=1), p[:, :q].mean(axis=1)[::-1]
    return np.concatenate([top, right, bottom, left])


def changed_places(now_q: np.ndarray, was_q: np.ndarray, die_px: float) -> list[tuple[int, int]]:
    """Centres (frame px) of the small places that changed between two quarter-size pictures (:func:`quarter`)
    once the light is matched: where a die may have landed. Changes much larger than a die (a shadow, a
    moved card, a hand) are not such places. Where no such place was found, a place grown from the strong
    changes (:func:`_grown_changes`) is one too: a pale die on a dark table in dim light changes the picture
    strongly only between its pips, in bits each too small for a die."""
    k = 4
    side = die_px / k
    diff = _light_matched_diff(now_q, was_q)
    strong = _over(diff, CHANGE_LEVEL)
    count, stats, centres, labels = _changes(strong)
    kept = sorted((i for i in range(1, count) if _die_sized(stats[i], side)), key=lambda i: -stats[i, cv2.CC_STAT_AREA])
    g_count, g_stats, g_centres, g_labels = _grown_changes(diff, strong, side)
    found = set(np.unique(g_labels[np.isin(labels, kept)]).tolist()) if kept else set()
    grown = sorted((i for i in range(1, g_count) if i not in found and _die_sized(g_stats[i], side)),
                   key=lambda i: -g_stats[i, cv2.CC_STAT_AREA])
    places = [centres[i] for i in kept] + [g_centres[i] for i in grown]  # the largest first, the grown ones last
    return [(int(x * k), int(y * k)) for x, y in places]


def _die_sized(stats: np.ndarray, side: float) -> bool:
    """Whether a connected place's stats are those of a die (quarter px ``side``): not much smaller, nor larger
    than a few dice (a shadow, a moved card, a hand)."""
    w, h, area = stats[cv2.CC_STAT_WIDTH], stats[cv2.CC_STAT_HEIGHT], stats[cv2.CC_STAT_AREA]
    return bool(area >= 0.15 * side * side and max(w, h) <= 3.5 * side + 2)


class DiceWindows:
    """The dice reader's finds, read where the picture changed since the frame before the throw: a window a
    few dice wide around each such place, which the detector sees enlarged (the whole 1280x720 frame, shrunk
    to its input, leaves a 16 mm die a few pixels wide) and which holds no piece that stood still. A window
    whose pixels did not change since the last frame keeps its finds (still dice are not read again).
    Without a frame from before the throw: the whole frame."""

    def __init__(self, reader: Any):
        self.reader = reader
        self.places: list[tuple[int, int]] = []
        self._cache: dict[tuple[int, int, int], tuple[np.ndarray, list[Any]]] = {}
        self._missed_cache: dict[tuple[int, int], tuple[np.ndarray, list[Any]]] = {}
        self._lay_cache: dict[tuple[int, int], tuple[np.ndarray, list[Any]]] = {}
        # (the frame before the throw, its quarter size): the frame itself, not its id -- a frame freed since may leave
        # its id to the next one, whose quarter would then be the old one's (the camera's findings changed with the
        # memory's layout: bench table, Verzauberte Eulen seed 45 r2, a roll read ten frames late)
        self._before: tuple[np.ndarray, np.ndarray] | None = None
        self._quiet: bool | None = False  # nothing die-sized changed since the frame before this one (None: not yet told)
        self._quiet_pair: tuple[np.ndarray, np.ndarray, float] | None = None
        self._last: np.ndarray | None = None
        self._last_frame: np.ndarray | None = None  # the frame ``_last`` is the quarter of

    def lit_only(self, places: Sequence[tuple[int, int]], die_px: float,
                 die_px_at: DiePxAt | None = None) -> list[tuple[int, int]]:
        """Those of ``places`` (changed between the frame before the throw and the last frame read) that changed only
        as the light did (:func:`_lit_only`; ``die_px``, ``die_px_at`` as in :meth:`read`): no die lies there, nor did
        a hand move anything -- unless a die too faint to tell from the light (the Enchanted Die in dim light fits
        within 7.4 grey levels): they are still read."""
        if self._before is None or self._last_frame is None or self._last is None or not places:
            return []
        before, before_q = self._before
        exposure = whole_ratio(self._last, before_q)
        return [p for p in places if _lit_only(self._last_frame, before, p, local_die_px(die_px, die_px_at, *p), exposure)]

    @property
    def quiet(self) -> bool:
        """Nothing die-sized changed between the last frame read and the one before it."""
        if self._quiet is None:
            now, last, die_px = self._quiet_pair
            self._quiet, self._quiet_pair = not changed_places(now, last, die_px), None
        return self._quiet

    def read(self, frame: np.ndarray, before: np.ndarray | None, die_px: float,
             gone: Sequence[tuple[float, float]] = (), small: np.ndarray | None = None, seen_at: Any = None,
             light: Relight | None = None, white: Relight | None = None, die_px_at: DiePxAt | None = None,
             lay: Sequence[tuple[str, str, float, float]] = ()) -> list[Any]:
        """``die_px``: a die's side in frame px (the board's middle); ``die_px_at``: where a die lies, when known
        (each window, and each die looked for again, as large as a die there). ``gone``: where the dice of the roll
        just used lay (a change there is a die picked up), and ``lay``: those of them whose faces are known (kind,
        face, x, y) -- a die read surely there showing another face landed where one lay; ``small``:
        the frame's :func:`quarter`, when the caller made it already. ``seen_at``: the degrees at which the camera
        sees the table at points of the frame (``BoardTracker.seen_at``), which tells the reader the dice it sees
        from above. ``light``: the frame's colours in the light the dice were shown in, for naming them (registry);
        ``white``: in white light, for reading colour faces by their colour (:mod:`companion.vision.face_colour`)."""
        if before is None or before.shape != frame.shape:
            self.places, self._cache, self._last, self._last_frame = [], {}, None, None
            self._quiet, self._quiet_pair = False, None
            readings = list(self.reader.read(frame, seen_at) if seen_at is not None else self.reader.read(frame))
            readings = [_small_unsure(r, die_px, die_px_at) for r in readings]
            confirm_colour_faces(frame, readings, white)
            return readings
        h, w = frame.shape[:2]
        if self._before is None or self._before[0] is not before:
            # the frame before a throw is most often refreshed to the last frame read: its quarter is made already
            kept = self._last is not None and self._last_frame is before
            self._before = (before, self._last if kept else quarter(before))
        now = quarter(frame) if small is None else small
        # told when asked (:attr:`quiet`): with dice lying in view nobody asks, and it is a second changed_places
        follows = self._last is not None and self._last.shape == now.shape
        self._quiet, self._quiet_pair = (None, (now, self._last, die_px)) if follows else (False, None)
        self._last, self._last_frame = now, frame
        changed = changed_places(now, self._before[1], die_px)
        self.places = [p for p in changed if not _near_any(p, gone, die_px)]
        where_one_lay = [p for p in changed if _near_any(p, [(x, y) for _k, _f, x, y in lay], die_px)]
        found: list[Any] = []
        cache: dict[tuple[int, int, int], tuple[np.ndarray, list[Any]]] = {}
        for cx, cy in self.places[:MAX_WINDOWS]:
            local = local_die_px(die_px, die_px_at, cx, cy)
            half = int(max(64, 4 * local))
            x0, y0 = min(max(0, cx - half), max(0, w - 2 * half)), min(max(0, cy - half), max(0, h - 2 * half))
            x0, y0 = x0 - x0 % 8, y0 - y0 % 8  # a die that lies still keeps its window
            window = frame[y0:y0 + 2 * half, x0:x0 + 2 * half]
            look = _look(window, 24)
            kept = self._cache.get((x0, y0, half))
            if _same_look(kept, look):
                readings = [replace(r) for r in kept[1]]
            else:
                readings = []
                for r in self._read_window(window, x0, y0, seen_at):
                    r.box = (r.box[0] + x0, r.box[1] + y0, r.box[2], r.box[3])
                    if max(r.box[2], r.box[3]) >= PIP_FIND * local:
                        readings += self._whole_die(frame, r, local, seen_at)
            cache[(x0, y0, half)] = (look, readings)
            for r in readings:
                if not any(_overlap(r.box, q.box) > 0.3 for q in found):
                    found.append(r)
        self._cache = cache
        for place, die in self._landed_where_one_lay(frame, where_one_lay[:MAX_WINDOWS], lay, die_px, die_px_at, seen_at):
            found = [q for q in found if _overlap(die.box, q.box) <= 0.3] + [die]  # read where it changed: it stands
            self.places.append(place)
        missed, misplaced = self._missed(frame, self.places[:MAX_WINDOWS], found, die_px, seen_at, die_px_at)
        readings = [r for r in found if not any(r is m for m in misplaced)] + missed
        readings = [_small_unsure(r, die_px, die_px_at) for r in readings]
        confirm_colour_faces(frame, readings, white)
        registry = getattr(self.reader, "registry", None)
        if registry is not None:
            # each registered die once among all the windows' dice: a window holding one die gave it the registered
            # die it is nearest, though another window's die is nearer (bench table, Eulen seed 27 r2, action 56:
            # the body die in dim light taken for the eye die, whose own die was read again by its box, unnamed)
            registry.identify_all(frame, readings, light)
        return readings

    def _whole_die(self, frame: np.ndarray, find: Any, die_px: float, seen_at: Any) -> list[Any]:
        """A find smaller than a die read again on a die-sized box round it (:data:`WHOLE_DIE_BOX`), which then
        stands for it: kept when read surely or, marked unsure, with a face at least :data:`MISSED_UNSURE_MIN` likely;
        a find read so as no die (a speck of the board) is dropped. A die-sized find (up to :data:`WHOLE_DIE_CHECK`) is
        kept as it is when read the same so surely, else marked unsure (in the face read so, when another and likely); a
        larger find is kept as it is. A find read as no die (unsure, its face under :data:`NO_DIE_BELOW` likely) is
        dropped when its box read again says no die as well (bench table, Eulen s55 r1, frame 82: an owl put down
        beside a die since the throw, found as a die "6" at 0.03, hid the space it landed on from the board reader)."""
        read_boxes = getattr(self.reader, "read_boxes", None)
        size = max(find.box[2], find.box[3])
        if read_boxes is None:
            return [find]
        if size >= WHOLE_DIE_CHECK * die_px:
            return [find] if not _no_die(find) or _likely(read_boxes(frame, [find.box], seen_at)) else []
        side = WHOLE_DIE_BOX * die_px
        x, y = find.box[0] + find.box[2] / 2 - side / 2, find.box[1] + find.box[3] / 2 - side / 2
        whole = _likely(read_boxes(frame, [(x, y, side, side)], seen_at))
        if size < die_px:
            return whole
        same = [(r.kind, r.value) for r in whole] == [(find.kind, find.value)]
        if same and not whole[0].uncertain:
            return [find]
        if not whole and _no_die(find):
            return []
        return [replace(whole[0] if whole and not same else find, uncertain=True, box=find.box)]

    def _missed(self, frame: np.ndarray, places: Sequence[tuple[int, int]], found: list[Any], die_px: float,
                seen_at: Any, die_px_at: DiePxAt | None = None) -> tuple[list[Any], list[Any]]:
        """A die the detector missed where something die-sized changed (a die come to rest against a piece, or
        half on one): its face read where it changed, kept when read surely or, marked unsure, with a face at least
        :data:`MISSED_UNSURE_MIN` likely -- a place the classifier reads as no die stays without a find. So is a die
        whose only finds are read unsure and boxed off the place's middle (bench table, Eagle Kingdoms seed 33 r1,
        frame 422: a 6 boxed 15 px off, half on the board's art, read as a d8 7 at 0.44; its box's middle had not
        changed, so it was no die, and "1 of the 2 dice read" was asked): where it is read surely, those finds are
        dropped for it. (The readings, the finds they stand for.)"""
        read_boxes = getattr(self.reader, "read_boxes", None)
        missed = []
        for (x, y) in places:
            side = MISSED_DIE_BOX * local_die_px(die_px, die_px_at, x, y)
            box = (x - side / 2, y - side / 2, side, side)
            over = [f for f in found if _overlap(f.box, box) > 0.2]
            if all(f.uncertain and not _at_middle(f.box, (x, y), local_die_px(die_px, die_px_at, x, y)) for f in over):
                missed.append(((x, y), box, over))
        if read_boxes is None or not missed:
            self._missed_cache = {}
            return [], []
        cache, out, misplaced = {}, [], []
        for (x, y), box, over in missed:
            readings = _likely(_read_box(read_boxes, frame, box, (x, y), self._missed_cache, cache, seen_at))
            if over and any(r.uncertain for r in readings):
                continue  # read again only surely does it stand for the finds there (a d8 is always unsure: kept)
            out += readings
            if readings:  # the finds it stands for: those with no changed place at their middle
                misplaced += [f for f in over if not any(_at_middle(f.box, p, local_die_px(die_px, die_px_at, *p)) for p in places)]
        self._missed_cache = cache
        return out, misplaced

    def _landed_where_one_lay(self, frame: np.ndarray, places: Sequence[tuple[int, int]],
                              lay: Sequence[tuple[str, str, float, float]], die_px: float, die_px_at: DiePxAt | None,
                              seen_at: Any) -> list[tuple[tuple[int, int], Any]]:
        """Dice thrown where a die of the roll just used lay (a change there is most often that die taken up): read
        on a box round the change, a die read surely with another face than the one that lay there (bench table,
        Mighty Magpies s49 r1, frame 453: a blue die landed 7 px from where a red one had lain, never read, and "1 of
        the 2 dice read" was asked). The same face again stays a die taken up: it may be that die, nudged."""
        read_boxes = getattr(self.reader, "read_boxes", None)
        if read_boxes is None or not places:
            self._lay_cache = {}
            return []
        cache, out = {}, []
        for x, y in places:
            side = MISSED_DIE_BOX * local_die_px(die_px, die_px_at, x, y)
            box = (x - side / 2, y - side / 2, side, side)
            readings = _read_box(read_boxes, frame, box, (x, y), self._lay_cache, cache, seen_at)
            was = min(lay, key=lambda d: (d[2] - x) ** 2 + (d[3] - y) ** 2)
            out += [((x, y), r) for r in readings if not r.uncertain and (r.kind, str(r.value)) != (was[0], was[1])]
        self._lay_cache = cache
        return out

    def _read_window(self, window: np.ndarray, x0: int, y0: int, seen_at: Any) -> list[Any]:
        if seen_at is None:
            return list(self.reader.read(window))
        return list(self.reader.read(window, lambda centres: seen_at(np.asarray(centres) + (x0, y0))))


def _read_box(read_boxes: Any, frame: np.ndarray, box: tuple[float, float, float, float], place: tuple[int, int],
              kept: dict[tuple[int, int], tuple[np.ndarray, list[Any]]],
              cache: dict[tuple[int, int], tuple[np.ndarray, list[Any]]], seen_at: Any) -> list[Any]:
    """The readings of ``box`` round a changed ``place``: those ``kept`` from the last frame while the box looks the
    same (a die lying still is not read again), else read afresh; either way put in ``cache`` for the next frame."""
    key = (place[0] // 8, place[1] // 8)
    look = _look(crop(frame, box, 12, 1.0), 12)  # the box as the classifier cuts it, border replicated
    before = kept.get(key)
    readings = [replace(r) for r in before[1]] if _same_look(before, look) else list(read_boxes(frame, [box], seen_at))
    cache[key] = (look, readings)
    return readings


def _lit_only(frame: np.ndarray, before: np.ndarray, place: tuple[int, int], die_px: float, exposure: np.ndarray) -> bool:
    """Whether a place changed since ``before`` only as the light changed: seen whole, two dice wide, the frame is
    ``before`` (in the camera's ``exposure`` of now) lit by a smooth plane of gain within :data:`LIGHT_FIT_LEVEL`. A
    warm lamp switched on between turns left a dozen such places on a pale board, the red near the top of its range
    brightened less than the picture's red: each counted as a stray change, and the next throw was asked as one after
    a missed roll (bench table, Eagle Kingdoms seed 57 r1, frame 218: the d6 misfit by 33-39 grey levels, the places
    the light alone changed by 1-5 -- and the purple Enchanted Die on the dark table in dim light, frame 951, by 7.4)."""
    half = max(2, int(round(die_px)))
    h, w = frame.shape[:2]
    if h < 2 * half or w < 2 * half:
        return False
    x0, y0 = min(max(0, place[0] - half), w - 2 * half), min(max(0, place[1] - half), h - 2 * half)
    now = frame[y0:y0 + 2 * half, x0:x0 + 2 * half].astype(np.float32).reshape(1, -1, 3)
    was = (before[y0:y0 + 2 * half, x0:x0 + 2 * half].astype(np.float32) * exposure).reshape(1, -1, 3)
    # a colour clipped now that the light would have clipped too is no measure (a white die on a dark board is)
    seen = ((now < CLIPPED) | (was < CLIPPED)).astype(np.float32)
    return bool(_light_misfit(now, was, seen, 2 * half)[0] <= LIGHT_FIT_LEVEL)


def _no_die(find: Any) -> bool:
    """A find whose face the reader gives so little that it read the place as no die."""
    return bool(find.uncertain) and find.confidence < NO_DIE_BELOW


def _likely(readings: Sequence[Any]) -> list[Any]:
    """Readings of a box read where a die may lie: those read surely, or unsure with a face at least
    :data:`MISSED_UNSURE_MIN` likely (the rest read no die there)."""
    return [r for r in readings if not r.uncertain or r.confidence >= MISSED_UNSURE_MIN]


def _look(picture: np.ndarray, side: int) -> np.ndarray:
    """A small grey picture (``side`` px square) of what lies in ``picture``: whether it changed since it was read."""
    if picture.size == 0:
        return np.zeros((0, 0), np.int16)
    return cv2.resize(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY), (side, side), interpolation=cv2.INTER_AREA).astype(np.int16)


def _same_look(kept: tuple[np.ndarray, list[Any]] | None, look: np.ndarray) -> bool:
    """Whether a place read before (its look and readings) still looks the same: its readings stand."""
    return kept is not None and kept[0].shape == look.shape and int(np.abs(kept[0] - look).max()) < 10


def _at_middle(box: Sequence[float], place: tuple[float, float], die_px: float) -> bool:
    """Whether ``place`` lies in the middle half of ``box`` (where a find's die lies), and within half a die of its
    middle when the box is larger than a die's (:data:`WHOLE_DIE_CHECK`): bench table, Eagle Kingdoms s57 r2, frame
    825, a 4 boxed 2.6 dice wide round it and a piece, its middle 10 px off the die's, was taken for the piece and "1
    of the 2 dice read" was asked."""
    x, y, w, h = box
    reach_x, reach_y = w / 4, h / 4
    if max(w, h) >= WHOLE_DIE_CHECK * die_px:
        reach_x, reach_y = min(reach_x, die_px / 2), min(reach_y, die_px / 2)
    return abs(place[0] - (x + w / 2)) <= reach_x and abs(place[1] - (y + h / 2)) <= reach_y


def _overlap(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(1.0, min(a[2] * a[3], b[2] * b[3]))


def _near_any(place: tuple[int, int], points: Sequence[tuple[float, float]], die_px: float) -> bool:
    """Whether ``place`` lies within a die's side of one of ``points`` (both ways)."""
    return any(abs(place[0] - x) <= die_px and abs(place[1] - y) <= die_px for x, y in points)


def local_die_px(die_px: float, die_px_at: DiePxAt | None, x: float, y: float) -> float:
    """A die's side in frame px at (x, y): ``die_px_at`` there when known, else ``die_px``."""
    return die_px if die_px_at is None else die_px_at(x, y)


def _small_unsure(reading: Any, die_px: float, die_px_at: DiePxAt | None) -> Any:
    """``reading`` marked unsure where a die lies too small to read surely below :data:`SMALL_DIE_SURE` (bench table,
    Eagle Kingdoms seed 123 on box 79:280, upright: a 3 eleven px across, one pip lost in the blur, read as 1 at
    0.94 -- sure, and the game followed the wrong roll)."""
    if reading.uncertain or reading.confidence >= SMALL_DIE_SURE:
        return reading
    x, y, w, h = reading.box
    if local_die_px(die_px, die_px_at, x + w / 2, y + h / 2) >= SMALL_DIE_PX:
        return reading
    return replace(reading, uncertain=True)


def at_changed_places(readings: Sequence[Any], places: Sequence[tuple[int, int]], die_px: float,
                      die_px_at: DiePxAt | None = None) -> tuple[list[Any], list[tuple[Any, str]]]:
    """Keep the finds of about a die's size (where they lie: ``die_px_at``) with a die-sized changed place
    (:func:`changed_places`) at their middle."""
    kept, rejected = [], []
    for r in readings:
        x, y, w, h = r.box
        cx, cy, size = x + w / 2, y + h / 2, max(w, h)
        if size > 3.0 * local_die_px(die_px, die_px_at, cx, cy):
            rejected.append((r, "larger than a die here"))
        elif any(abs(px - cx) <= 0.4 * size + 4 and abs(py - cy) <= 0.4 * size + 4 for px, py in places):
            kept.append(r)
        else:
            rejected.append((r, "nothing die-sized changed there since before the throw (a piece, not a die)"))
    return kept, rejected


def changed_since(readings: Sequence[Any], frame: np.ndarray, before: np.ndarray | None
                  ) -> tuple[list[Any], list[tuple[Any, str]]]:
    """Keep the finds whose box middle changed since ``before`` (the light matched first: :func:`light_gain`)."""
    if before is None or before.shape != frame.shape or not len(readings):
        return list(readings), []
    ratio = light_gain(quarter(frame), quarter(before))
    kept, rejected = [], []
    h, w = frame.shape[:2]
    for r in readings:
        x, y, bw, bh = (int(v) for v in r.box)
        x0, y0 = max(0, x + bw // 4), max(0, y + bh // 4)
        x1, y1 = min(w, x + bw - bw // 4), min(h, y + bh - bh // 4)
        if x1 <= x0 or y1 <= y0:
            rejected.append((r, "outside the picture"))
            continue
        gain = ratio[min(ratio.shape[0] - 1, (y0 + y1) * ratio.shape[0] // (2 * h)),
                     min(ratio.shape[1] - 1, (x0 + x1) * ratio.shape[1] // (2 * w))]
        now = frame[y0:y1, x0:x1].astype(np.float32)
        changed = float(np.mean(np.abs(now - before[y0:y1, x0:x1] * gain).max(axis=2) > CHANGE_LEVEL))
        if changed >= CHANGED_MIN:
            kept.append(r)
        else:
            rejected.append((r, "nothing changed there since before the throw (a piece, not a die)"))
    return kept, rejected

__all__ = ["DIE_MM", "DiceWindows", "at_changed_places", "changed_places", "changed_since", "frame_diff", "hand_changes", "light_gain", "quarter",
           "reaches_the_edge", "slow_hand_changes", "uneven_light"]
