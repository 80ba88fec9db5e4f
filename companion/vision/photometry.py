"""Light the board carries its own reference for: white balance, exposure and shadows.

Every board is seen through its printed markers, whose black cells and white quiet zone are the
same paper and ink on every table. Sampled through the pose, they give the camera's black and white
per channel, so a frame is *normalised*: each channel mapped by a gain and an offset so that the
markers' black reads ``BLACK_LEVEL`` and their white ``WHITE_LEVEL`` whatever the lamp, the white
balance or the exposure (:func:`measure` -> :class:`Photometry`). OpenCV's own white balance
(``cv2.xphoto``) is not in opencv-python-headless, and a gain/offset fitted to known black and white
is what it would estimate from a grey card anyway.

Shadows fall between the markers, so readers also fit a smooth *light field* to references of their
own board that they know (bare felt, bare board, paper): :class:`LightField` is a Gaussian-weighted
local mean of the light (observed / expected) in log space, robust to the few references a piece or
a hand covers, and it tells a shadow (all channels darker alike) from something foreign (another
colour) by :func:`chroma_distance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.vision.boardmap import BoardMap
from companion.vision.markers import QUIET_MM

WHITE_LEVEL = 235.0  # what the markers' white paper reads in a normalised frame
BLACK_LEVEL = 0.0  # and their black ink (0: a shadow then scales every channel alike, chromaticity stays)
MARKER_CELLS = 6  # a 4x4 ArUco marker with its one-cell black border
MIN_CONTRAST = 25.0  # white minus black (each channel, 8-bit) below this: the marker is not a reference
MAX_NOISE_LEVELS = 4.0  # the most camera noise (normalised levels, one reference's patch) a light field allows for


@dataclass(frozen=True)
class Photometry:
    """The markers' black and white in one frame, per channel (BGR), and where they were measured."""

    black: np.ndarray  # (3,)
    white: np.ndarray  # (3,)
    marker_ids: tuple[int, ...] = ()
    marker_white: np.ndarray | None = None  # (M, 3) each marker's white
    marker_xy_mm: np.ndarray | None = None  # (M, 2) their centres

    @property
    def gain(self) -> np.ndarray:
        return (WHITE_LEVEL - BLACK_LEVEL) / np.maximum(self.white - self.black, 1.0)

    @property
    def offset(self) -> np.ndarray:
        return BLACK_LEVEL - self.black * self.gain

    @property
    def clipped(self) -> np.ndarray:
        """(3,) bool: channels where some marker's white reached the sensor's top (:data:`CLIPPED`). Any marker,
        not the median: under a lamp whose light falls off across the table, the brighter markers clip and the
        median of clipped and unclipped whites reads just under the top, a gain 10% off that refused every frame
        (bench table, Mighty Magpies s11 r1: a warm lamp, red whites 254.5, 247.5, 246, 255; median 251)."""
        whites = self.white[None, :] if self.marker_white is None or not len(self.marker_white) else self.marker_white
        return np.asarray(whites, np.float64).max(axis=0) >= CLIPPED

    @property
    def cast(self) -> np.ndarray:
        """The light's colour: the white's channels over their mean (1, 1, 1 for neutral light)."""
        w = np.maximum(self.white - self.black, 1.0)
        return w / w.mean()

    def apply(self, bgr: np.ndarray) -> np.ndarray:
        """Normalised samples (float32, any shape (..., 3))."""
        return (np.asarray(bgr, np.float32) * self.gain.astype(np.float32) + self.offset.astype(np.float32)).astype(np.float32)

    def lut(self) -> np.ndarray:
        """A (1, 256, 3) uint8 table for ``cv2.LUT``: the normalisation of a whole image in one pass."""
        x = np.arange(256, dtype=np.float64)[:, None]
        return np.clip(x * self.gain[None, :] + self.offset[None, :], 0, 255).astype(np.uint8)[None]

    def normalise_image(self, image: np.ndarray) -> np.ndarray:
        return cv2.LUT(image, self.lut())

    def balance_image(self, image: np.ndarray) -> np.ndarray:
        """The lamp's colour taken out, the exposure kept: each channel scaled by its gain over the
        channels' mean gain (white balance only)."""
        g = self.gain / float(np.mean(self.gain))
        x = np.arange(256, dtype=np.float64)[:, None]
        return cv2.LUT(image, np.clip(x * g[None, :], 0, 255).astype(np.uint8)[None])

    def describe(self) -> str:
        b, g, r = self.cast
        return f"light cast B {b:.2f} G {g:.2f} R {r:.2f}, white {self.white.mean():.0f}, black {self.black.mean():.0f}"


CLIPPED = 252.0  # a markers' white channel reading this or more hit the sensor's top: its true level is unknown
MAX_UNCLIP = 1.3  # at most this much brighter than recorded (warm light x1.15 on a well exposed paper: 1.13)
MIN_UNCLIPPED_REFS = 12  # bare-board references below the top needed to tell a clipped channel's gain
MIN_UNCLIPPED_SHARE = 0.05  # ... and at least this share of them


def at_top(marks: Photometry, values: np.ndarray) -> np.ndarray:
    """(..., 3) bool: normalised values (with ``marks``) in a channel whose markers' white clipped, at the
    sensor's top or above: such a value is only a lower bound of the true one."""
    top = (CLIPPED - marks.black) * marks.gain - 1.0
    return (np.asarray(values, np.float64) >= top) & marks.clipped


def unclip(marks: Photometry, seen: np.ndarray, known: np.ndarray, samples: Sequence[np.ndarray] = (), *,
           censored: bool = False) -> tuple[Photometry, np.ndarray]:
    """The markers' white clipped in some channel (a warm or cool lamp on a bright exposure: the red or blue of
    the paper over the sensor's top) gives that channel too high a gain by an unknown factor; the board's own
    colour where it is known tells it: ``seen`` (N, 3) normalised colours of bare-board references, ``known``
    their expected normalised colour ((3,) or (N, 3)). Returns the corrected photometry and the factor per
    channel (1 where nothing was clipped) that the samples normalised with ``marks`` are divided by.

    ``censored=False``: when a reference or one of the pieces' ``samples`` is at the top too, nothing is
    corrected (the reader refuses the frame's colours, never guesses them). ``censored=True`` (a reader that
    treats values at the top as lower bounds, :func:`at_top`, :func:`fill_censored`): the references at the
    top are left out of the estimate -- a bright print under a warm lamp clips its red in most places, the
    few below the top (a lamp's falloff) still tell the gain; when too few are left, all of them give a bound
    from below of the factor, which is taken (references at the top read lower than they are)."""
    clipped = marks.clipped
    factor = np.ones(3)
    if not clipped.any() or clipped.all() or not len(seen):
        return marks, factor
    seen = np.asarray(seen, np.float64).reshape(-1, 3)
    known = np.broadcast_to(np.maximum(np.asarray(known, np.float64), 1.0), seen.shape)
    high = at_top(marks, seen).any(axis=1)
    if censored:
        use = ~high
        if use.sum() < max(MIN_UNCLIPPED_REFS, MIN_UNCLIPPED_SHARE * len(seen)):
            # too few below the top to tell the gain: the references at the top still show it is at least that
            # far off (a bound from below, taken: the board's own cast left in would read every patch foreign)
            use = np.ones(len(seen), bool)
    elif high.any() or any(at_top(marks, x).any() for x in samples):
        return marks, factor
    else:
        use = np.ones(len(seen), bool)
    ratio = np.median(seen[use] / known[use], axis=0)
    level = float(np.mean(ratio[~clipped]))
    factor[clipped] = np.clip(ratio[clipped] / max(level, 1e-6), 1.0, MAX_UNCLIP)
    if np.all(factor == 1.0):
        return marks, factor
    white = marks.black + (marks.white - marks.black) * factor
    return Photometry(marks.black, white, marks.marker_ids, marks.marker_white, marks.marker_xy_mm), factor


def fill_censored(seen: np.ndarray, known: np.ndarray, censored: np.ndarray) -> np.ndarray:
    """References of known colour whose value in some channel is only a lower bound (``censored``, (N, 3)):
    that channel is estimated from the reference's other channels and the light's colour measured on the
    references seen whole (a lamp lights the whole board in one colour; a shadow darkens every channel alike),
    never below what was seen. Returns the filled (N, 3) colours."""
    seen = np.maximum(np.asarray(seen, np.float64).reshape(-1, 3), 1.0)
    mask = np.asarray(censored, bool).reshape(seen.shape)
    if not mask.any():
        return seen
    known = np.broadcast_to(np.maximum(np.asarray(known, np.float64), 1.0), seen.shape)
    logl = np.log(seen / known)
    whole = ~mask.any(axis=1)
    # the lamp's colour from the references seen whole, when there are enough of them (one or two are no measure)
    enough = whole.sum() >= MIN_UNCLIPPED_REFS
    cast = np.median(logl[whole] - logl[whole].mean(axis=1, keepdims=True), axis=0) if enough else np.zeros(3)
    free = (~mask).sum(axis=1)
    level = np.where(free > 0, ((logl - cast) * ~mask).sum(axis=1) / np.maximum(free, 1), 0.0)
    estimate = known * np.exp(level[:, None] + cast[None, :])
    fill = mask & (free > 0)[:, None]
    return np.where(fill, np.maximum(seen, estimate), seen)


@dataclass(frozen=True)
class CensoredColours:
    """A frame's normalised colours with the channels at the sensor's top taken as lower bounds
    (:func:`censored_colours`): what a disc reader classifies under a lamp that clips the paper."""

    marks: Photometry  # the markers' photometry, a clipped channel's gain corrected (:func:`unclip`)
    factor: np.ndarray  # (3,) what the samples were divided by (1 where nothing was clipped)
    refs: np.ndarray  # (R, 3) the bare-board references, corrected, their censored channels filled
    samples: tuple[np.ndarray, ...]  # the pieces' samples, corrected
    tops: tuple[np.ndarray, ...]  # each sample's at-top mask (bool, its shape): only a lower bound there


def censored_colours(marks: Photometry, refs: np.ndarray, known: np.ndarray,
                     samples: Sequence[np.ndarray] = ()) -> CensoredColours:
    """The shared first step of the disc readers under any light: ``refs`` (R, 3) normalised colours of
    bare-board references whose colour is ``known`` ((3,) or (R, 3), normalised) and the pieces' ``samples``
    (each (..., 3), normalised with ``marks``). Which values are at the sensor's top is taken before the gain
    is corrected (:func:`at_top`: the top is where the sensor stopped, whatever the gain says now); the
    clipped gain is told by the references below the top (:func:`unclip`, ``censored=True``); the
    references' censored channels are filled (:func:`fill_censored`), the samples' are left to the
    classifier (``Prototypes.classify(censored=)``) with their masks."""
    ref_top = at_top(marks, refs)
    tops = tuple(at_top(marks, x) for x in samples)
    fixed, factor = unclip(marks, refs, known, censored=True)
    filled = fill_censored(np.asarray(refs, np.float64) / factor, known, ref_top)
    return CensoredColours(fixed, factor, filled, tuple(x / factor for x in samples), tops)


def bounded_distance(values: np.ndarray, reference: np.ndarray, censored: np.ndarray) -> np.ndarray:
    """(N,) Euclidean distance from ``values`` (N, 3) to ``reference`` ((3,) or (N, 3)) where the ``censored``
    channels (N, 3) are only lower bounds: such a channel counts only by how far it is above the reference
    already (the true value may be anything at or above what was seen)."""
    d = np.asarray(values, np.float64) - np.asarray(reference, np.float64)
    d = np.where(np.asarray(censored, bool), np.maximum(d, 0.0), d)
    return np.linalg.norm(d, axis=-1)


def marker_points(side_mm: float, centre_mm: Sequence[float], per_side: int = 5,
                  quiet_mm: float = QUIET_MM) -> tuple[np.ndarray, np.ndarray]:
    """(black, white) board points of one marker: the middle of its black border cells, and the
    middle of its white quiet zone, ``per_side`` on each side (corners left out)."""
    cell = side_mm / MARKER_CELLS
    h = side_mm / 2
    t = np.linspace(-h + cell, h - cell, per_side)
    c = np.asarray(centre_mm, np.float64)
    out = []
    for d in (h - cell / 2, h + min(quiet_mm, cell) / 2):
        pts = np.vstack([np.c_[t, np.full_like(t, -d)], np.c_[np.full_like(t, d), t],
                         np.c_[t, np.full_like(t, d)], np.c_[np.full_like(t, -d), t]])
        out.append(pts + c)
    return out[0], out[1]


LUMA_BGR = np.array([0.114, 0.587, 0.299])  # BT.601 luma in BGR order: what a JPEG keeps at full resolution


def measure(frame: np.ndarray, pose: Any, board: BoardMap, markers: Sequence[int] | None = None) -> Photometry | None:
    """The markers' black and white in ``frame`` (through ``pose``), or None when no marker is a
    trustworthy reference (none used, or too little contrast: covered, glare)."""
    ids = [i for i in (markers if markers is not None else pose.markers_used) if board.fiducial(i) is not None]
    if not ids or frame is None or frame.ndim != 3:
        return None
    blacks, whites = [], []
    for i in ids:
        f = board.fiducial(i)
        b, w = marker_points(f.side_mm, f.center_mm)
        blacks.append(b)
        whites.append(w)
    nb = len(blacks[0])
    pts = np.vstack(blacks + whites)
    px = pose.board_to_image(pts).astype(np.float32)
    s = cv2.remap(frame, px[:, 0].reshape(1, -1).copy(), px[:, 1].reshape(1, -1).copy(), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float64)
    m = len(ids)
    black = np.median(s[: m * nb].reshape(m, nb, 3), axis=1)
    white = np.median(s[m * nb:].reshape(m, nb, 3), axis=1)
    # Black ink reflects every channel alike: its colour is the paper's. A JPEG keeps colour at half
    # resolution and bleeds the lamp-tinted paper round the one-cell border into it; its luma is sharp.
    ratio = (black @ LUMA_BGR) / np.maximum(white @ LUMA_BGR, 1.0)
    black = ratio[:, None] * white
    ok = (white - black).min(axis=1) >= MIN_CONTRAST
    if not ok.any():
        return None
    xy = np.array([board.fiducial(i).center_mm for i in ids], np.float64)
    return Photometry(np.median(black[ok], axis=0), np.median(white[ok], axis=0), tuple(i for i, k in zip(ids, ok, strict=True) if k),
                      white[ok], xy[ok])


def relight(now: Photometry, then: Photometry) -> Callable[[np.ndarray], np.ndarray]:
    """BGR samples seen in the light of ``now`` as they would look in the light of ``then`` (both frames' markers
    normalised alike: the one normalisation undone by the other)."""
    gain = (now.gain / then.gain).astype(np.float32)
    offset = ((now.offset - then.offset) / then.gain).astype(np.float32)
    return lambda bgr: np.asarray(bgr, np.float32) * gain + offset


def chroma(bgr: np.ndarray) -> np.ndarray:
    """Chromaticity (..., 3): each channel over the channels' sum -- the same in a shadow."""
    x = np.asarray(bgr, np.float32) + 1.0
    if x.ndim and x.shape[-1] == 3:  # the same sum a channel at a time: numpy's sum over an axis of three is slow
        return x / ((x[..., 0] + x[..., 1]) + x[..., 2])[..., None]
    return x / x.sum(axis=-1, keepdims=True)


def chroma_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.norm(chroma(a) - chroma(b), axis=-1)


@dataclass(frozen=True)
class LightField:
    """The light over the board: at reference points (board mm) the observed colour over the expected
    one, spread by a Gaussian of ``sigma_mm`` in log space. ``outliers`` are the references dropped as
    foreign (their colour, not only their brightness, disagreed with their neighbours)."""

    points_mm: np.ndarray  # (N, 2) kept references
    log_light: np.ndarray  # (N, 3)
    sigma_mm: float
    outliers: np.ndarray  # indices into the references given to :func:`fit_light_field`
    dark: np.ndarray  # indices of references darker than their neighbours by a shadow's step (informative)

    all_points_mm: np.ndarray | None = None  # every reference given to :func:`fit_light_field` (kept or not)

    def at(self, points_mm: np.ndarray) -> np.ndarray:
        """Light (multiplier, (N, 3)) at board points."""
        q = np.asarray(points_mm, np.float64).reshape(-1, 2)
        if not len(self.points_mm):
            return np.ones((len(q), 3))
        if self.all_points_mm is not None:  # the weights to every reference, once per reader; the kept ones' columns
            kept = np.ones(len(self.all_points_mm), bool)
            kept[self.outliers] = False
            w = gaussian_weights(q, self.all_points_mm, self.sigma_mm)[:, kept] + 1e-12
        else:
            w = np.exp(-0.5 * ((q[:, None, :] - self.points_mm[None, :, :]) ** 2).sum(-1) / self.sigma_mm**2) + 1e-12
        return np.exp((w @ self.log_light) / w.sum(axis=1, keepdims=True))


_WEIGHTS: dict[tuple, np.ndarray] = {}
_WEIGHTS_KEPT = 16  # point sets are a reader's fixed spots and references: a few per reader


def gaussian_weights(a: np.ndarray, b: np.ndarray, sigma_mm: float) -> np.ndarray:
    """exp(-d^2 / 2 sigma^2) between two sets of board points ((N, M), read-only): the same board points every
    frame (a reader's spots and bare-board references), so computed once and kept."""
    key = (a.shape, b.shape, a.tobytes(), b.tobytes(), float(sigma_mm))
    w = _WEIGHTS.get(key)
    if w is None:
        w = np.exp(-0.5 * ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1) / sigma_mm**2)
        w.setflags(write=False)
        if len(_WEIGHTS) >= _WEIGHTS_KEPT:
            _WEIGHTS.pop(next(iter(_WEIGHTS)))
        _WEIGHTS[key] = w
    return w


def fit_light_field(points_mm: np.ndarray, observed: np.ndarray, expected: np.ndarray | Sequence[float], *,
                    sigma_mm: float = 25.0, max_colour: float = 0.18, max_brighter: float | None = None,
                    noise_sigmas: float = 0.0, max_noise: float = MAX_NOISE_LEVELS) -> LightField:
    """The light field from references whose colour ``expected`` (per point (N, 3) or one colour) is known.

    A reference whose light (observed over expected, in log) differs between its channels from its
    neighbours' by more than ``max_colour`` is foreign (a piece, a hand) and left out; so is one
    ``max_brighter`` times brighter than they are, when given (glare). One only darker or brighter is
    a shadow or its edge, and kept. Three rounds, each against the neighbours kept in the round before.

    ``noise_sigmas`` > 0: a channel may differ by that many times its own noise more (in quadrature,
    :func:`colour_tolerance`): the camera's noise is a few levels in every channel, so the log of a dark
    channel carries much more of it than a bright one's (a dark print's blue at 30 levels: +-0.05 and
    more, where a light print's 200 carry +-0.01). The noise is measured on the references themselves
    (:func:`reference_noise`, at most ``max_noise`` levels)."""
    pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
    obs = np.maximum(np.asarray(observed, np.float64).reshape(-1, 3), 1.0)
    exp = np.broadcast_to(np.maximum(np.asarray(expected, np.float64), 1.0), obs.shape)
    logl = np.log(obs / exp)
    n = len(pts)
    if n == 0:
        return LightField(pts, logl, sigma_mm, np.zeros(0, int), np.zeros(0, int))
    w = gaussian_weights(pts, pts, sigma_mm).copy()
    np.fill_diagonal(w, 0.0)
    noise = noise_sigmas * reference_noise(obs, logl, w, max_noise) if noise_sigmas > 0 else np.zeros(3)
    # a hue far from the expected colour is foreign whatever its neighbours say (a hand covering many
    # references agrees with itself); a shadow keeps the hue. The noise allowed is a bare board's as bright as
    # the reference is: a shadow's, never more
    global_off = _off_hue(logl, colour_tolerance(exp, logl, max_colour, noise))
    keep = ~global_off if (~global_off).sum() >= 3 else np.ones(n, bool)
    foreign = np.zeros(n, bool)
    step = np.zeros(n)
    for _ in range(3):
        ww = w * keep[None, :]
        tot = ww.sum(axis=1, keepdims=True)
        fallback = np.median(logl[keep], axis=0) if keep.any() else np.zeros(3)
        ref = np.where(tot > 1e-3, (ww @ logl) / np.maximum(tot, 1e-12), fallback)
        diff = logl - ref
        step = diff.mean(axis=1)
        # ... and against its neighbours, the noise of the bare board in their light: a black sleeve on a light
        # print is as noisy as a deep shadow, but no shadow that deep lies among lit neighbours
        foreign = _off_hue(diff, colour_tolerance(exp, ref, max_colour, noise)) | global_off
        if max_brighter is not None:
            foreign |= step > np.log(max_brighter)
        if (~foreign).sum() < max(3, n // 4) or np.array_equal(~foreign, keep):
            break
        keep = ~foreign
    dark = np.flatnonzero(~foreign & (step < -0.3))
    return LightField(pts[~foreign], logl[~foreign], sigma_mm, np.flatnonzero(foreign), dark, pts)


def reference_noise(observed: np.ndarray, log_light: np.ndarray, weights: np.ndarray, max_noise: float = MAX_NOISE_LEVELS
                    ) -> np.ndarray:
    """The noise of references' colours, per channel in normalised levels (3,): the robust spread of each
    channel's light off the reference's own level and off its neighbours' (``weights``, (N, N), zero
    diagonal), times the channel's level -- the camera's noise, the JPEG's and the taught photo's together,
    on the board where the frame shows it. At most ``max_noise``: references under a hand (or more than half
    of them foreign) must not pass for noise."""
    tot = weights.sum(axis=1, keepdims=True)
    ref = np.where(tot > 1e-3, (weights @ log_light) / np.maximum(tot, 1e-12), np.median(log_light, axis=0))
    diff = log_light - ref
    dev = np.abs(diff - diff.mean(axis=1, keepdims=True)) * observed
    return np.minimum(1.4826 * np.median(dev, axis=0), float(max_noise))


def colour_tolerance(expected: np.ndarray, log_light: np.ndarray, max_colour: float, noise: np.ndarray) -> np.ndarray:
    """(N, 3): how far each channel's log light may stray from the others' before a reference is another
    colour: ``max_colour``, and in quadrature the ``noise`` (levels, per channel) over the level the bare
    board would read there in the light ``log_light`` ((N, 3), its channels' mean taken: a shadow is grey)."""
    if not np.any(noise):
        return np.full(np.shape(log_light), float(max_colour))
    level = np.asarray(expected, np.float64) * np.exp(np.asarray(log_light, np.float64).mean(axis=1, keepdims=True))
    rel = np.asarray(noise, np.float64)[None, :] / np.maximum(level, 1.0)
    return np.sqrt(float(max_colour) ** 2 + rel**2)


def _off_hue(log_light: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """(N,) bool: log lights (N, 3) whose channels differ from their mean by more than ``tol`` (N, 3) in some channel."""
    return (np.abs(log_light - log_light.mean(axis=1, keepdims=True)) > tol).any(axis=1)


def colour_mismatch(observed: np.ndarray, expected: np.ndarray | Sequence[float]) -> np.ndarray:
    """How far each observed colour's hue is from the expected one's, whatever the light's strength:
    the largest difference between a channel's log ratio and the ratios' mean."""
    obs = np.log(np.maximum(np.asarray(observed, np.float64).reshape(-1, 3), 1.0))
    exp = np.log(np.maximum(np.broadcast_to(np.asarray(expected, np.float64), obs.shape), 1.0))
    d = obs - exp
    return np.abs(d - d.mean(axis=1, keepdims=True)).max(axis=1)


def lightness_ratio(bgr: np.ndarray, white: float = WHITE_LEVEL) -> np.ndarray:
    """Brightness of normalised samples as a share of the paper's white (mean of the channels)."""
    return np.asarray(bgr, np.float32).mean(axis=-1) / white


def summary(photometry: Photometry | None) -> Mapping[str, Any]:
    """Plain numbers for an observation's ``extra`` (the light the frame was read under)."""
    if photometry is None:
        return {"light": "no marker reference"}
    return {"light_cast_bgr": [round(float(v), 3) for v in photometry.cast],
            "white": [round(float(v), 1) for v in photometry.white], "black": [round(float(v), 1) for v in photometry.black]}
